"""Pictures of a board: any board zone of a match drawn with matplotlib (the `plot` extra); docs/cli.md
("rulelang render") says what a picture shows.

A piece lying on several cells (`covers`) is drawn as one shape, outlined round all its cells,
named once in its middle. A layer (`zone sites: board on map`) is drawn on its base board: drawing
either draws the base with every layer on it. The colours are the same for every picture of a game.

    from rulelang.tools.render import render_board
    render_board(match, "board.png", zone="desk")
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

from rulelang.model.builtins import describe
from rulelang.model.things import BoardZone, Entity
from rulelang.table.tableview import KIND_FIELDS, colour_kind, colour_table, option_cells  # (as the table shows them)

FACE_DOWN = "#6d6d6d"
SQRT3 = math.sqrt(3)


def board_zones(match) -> list[BoardZone]:
    return [z for z in match.s.zones.values() if isinstance(z, BoardZone)]


def pick_zone(match, name: str | None) -> BoardZone:
    boards = board_zones(match)
    if not boards:
        raise ValueError("this game has no board zone to draw")
    found = boards[0] if name is None else next((z for z in boards if name in (z.key, z.name)), None)
    if found is not None:
        return found
    raise ValueError(f'there is no board zone "{name}"; the boards are: ' + ", ".join(z.key for z in boards))


def board_label(board: BoardZone) -> str:
    """A board as the picture's title names it: "tableau of Player 2 (--zone tableau#2)"."""
    return board.key if board.owner is None else f"{board.name} of Player {board.owner + 1} (--zone {board.key})"


def describe_boards(match) -> list[str]:
    """One line per board of a match: the name `--zone` takes, its shape, and whose it is."""
    lines = []
    for z in board_zones(match):
        t = z.cells.topology
        shape = t.kind + (" (open)" if t.open else "")
        whose = f", Player {z.owner + 1}'s" if z.owner is not None else ""
        n = len(z.items)
        lines.append(f"{z.key}: {shape}{whose}, {n} card{'' if n == 1 else 's'}")
    return lines


def second_kind(e: Entity) -> str | None:
    """The value of the second kind-like field a card has (shown small under its label), if any."""
    found = [e.attrs[f] for f in KIND_FIELDS if isinstance(e.attrs.get(f), str) and e.attrs.get(f)]
    return found[1].replace("_", " ") if len(found) > 1 else None


def _cell_patch(kind: str, x: float, y: float, **style):
    """The shape of one cell at (x, y): a hexagon, a square, or a circle (a track's or a graph's)."""
    from matplotlib.patches import Circle, RegularPolygon, Rectangle

    if kind == "hex":
        return RegularPolygon((x, y), numVertices=6, radius=0.97, orientation=0, **style)
    if kind == "grid":
        return Rectangle((x - 0.47, y - 0.47), 0.94, 0.94, **style)
    return Circle((x, y), 0.6, **style)


def _centre(topology, cell, layout):
    kind = topology.kind
    if kind == "hex":
        q, r = cell
        return SQRT3 * (q + r / 2), -1.5 * r
    if kind == "grid":
        x, y = cell
        return float(x), float(-y)
    return layout[cell]


def _graph_layout(cells, graph, topology) -> dict:
    import networkx as nx

    if topology.kind == "track":
        n = max(len(cells), 1)
        if topology.loop:
            return {c: (math.cos(2 * math.pi * i / n) * n / 3, math.sin(2 * math.pi * i / n) * n / 3)
                    for i, c in enumerate(sorted(cells))}
        if n > 12:  # a long track reads left to right in rows of ten
            rows_gap = 4.2 if topology.places else 2.6
            return {c: (float(i % 10) * 2.2, -float(i // 10) * rows_gap) for i, c in enumerate(sorted(cells))}
        return {c: (float(i) * 1.6, 0.0) for i, c in enumerate(sorted(cells))}
    # spring layout needs only numpy (kamada-kawai would need scipy); seeded, so pictures are stable
    pos = nx.spring_layout(graph, seed=0) if graph.number_of_nodes() > 1 else {c: (0.0, 0.0) for c in cells}
    scale = max(2.0, math.sqrt(len(cells)) * 1.5)
    return {c: (float(x) * scale, float(y) * scale) for c, (x, y) in pos.items()}


SEAT_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
NO_OWNER = "#555555"


def seat_colour(owner: int | None, none: str = NO_OWNER) -> str:
    """The colour of a seat's pieces, places and tokens (`none` for a card nobody owns)."""
    return none if owner is None else SEAT_COLOURS[owner % len(SEAT_COLOURS)]


def render_board(match, out: str | Path, zone: str | None = None, title: str | None = None,
                 mark: str | None = None, dpi: int = 150, colour_by: str | None = None) -> Path:
    """Draw one board zone of a match (the first board when no zone is named) into an image file.

    `zone` may name several boards of the same shape, comma-separated ("map,sites"): the first is drawn
    as the background (its cells coloured by their top card), the others on top of it, each card as a
    small token in its owner's colour with its label (pieces standing on a map of tiles)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Polygon

    names = [n.strip() for n in zone.split(",")] if zone else [None]
    board = pick_zone(match, names[0])
    overlays = [pick_zone(match, n) for n in names[1:] if n]
    # a layer (`board on BASE`) is drawn on its base, and a base with its layers on it
    if board.cells.layer_of is not None and board.cells.layer_of in match.s.zones:
        overlays.insert(0, board)
        board = match.s.zones[board.cells.layer_of]
    overlays += [z for z in board_zones(match) if z.cells.layer_of == board.key and z not in overlays]
    for layer in overlays:
        if layer.cells.topology.kind != board.cells.topology.kind:
            raise ValueError(f'"{layer.key}" is not the same shape of board as "{board.key}": it cannot be drawn on it')
    cells_obj = board.cells
    topology = cells_obj.topology
    occupied = cells_obj.occupied_cells()
    offered = option_cells(match).get(board.key, set()) - set(occupied)
    shown = list(occupied) + sorted(offered) if topology.open else cells_obj.cells()
    layout = {} if topology.kind in ("hex", "grid") else _graph_layout(shown, cells_obj.graph, topology)
    colours = colour_table(match, colour_by)

    def colour_key(e):
        return colour_kind(e, match.game.program, colour_by)

    def face(e) -> str:
        return FACE_DOWN if e.face_down else colours.get(colour_key(e), "#dddddd")

    n = max(len(shown), 1)
    span_cells = max(4.0, math.sqrt(n) * 1.6)
    fig, ax = plt.subplots(figsize=(min(24, 2 + span_cells * 1.4), min(24, 2 + span_cells * 1.3)))
    ax.set_aspect("equal")
    ax.axis("off")

    def whose(e) -> str:
        return f" P{e.owner + 1}" if e.owner is not None and board.owner is None else ""

    def named(e) -> str:
        return "face down" if e.face_down else describe(e) + whose(e)

    if topology.kind not in ("hex", "grid"):
        for a, b in cells_obj.graph.edges():
            if a in layout and b in layout:
                (xa, ya), (xb, yb) = layout[a], layout[b]
                if topology.kind == "track" and not topology.loop and ya != yb:
                    continue  # a wrapped track: the rows are read left to right, not joined
                ax.plot([xa, xb], [ya, yb], color="#999999", linewidth=1.5, zorder=0)

    xs, ys = [], []
    font = 7 if topology.kind == "hex" else 6
    # cells with pieces of an overlay board: the background card's label moves up to make room
    crowded = {c for layer in overlays for c in layer.cells.occupied_cells()}
    shown = list(shown) + [c for c in sorted(crowded, key=str) if c not in set(shown)]
    pieces = cells_obj.pieces
    for cell in shown:
        x, y = _centre(topology, cell, layout)
        xs.append(x)
        ys.append(y)
        if pieces and cells_obj.stack(cell) and cells_obj.stack(cell)[-1].id in pieces:
            continue  # a piece on top: drawn whole below
        if topology.places:
            _draw_places(ax, cells_obj, cell, x, y, font, whose)
            ys.append(y + 1.5)
            continue
        stack = cells_obj.stack(cell)
        base = stack[0] if len(stack) > 1 and stack[0].card.component != stack[-1].card.component else None
        top = stack[-1] if stack else None
        shown_face = face(base) if base is not None and not base.face_down else "none" if top is None else face(top)
        ax.add_patch(_cell_patch(topology.kind, x, y, facecolor=shown_face,
                                 edgecolor="#c8c8c8" if top is None else "#333333",
                                 alpha=1.0, linewidth=0.8 if top is None else 1.2,
                                 linestyle="-" if top is not None else "--"))
        if base is not None and not top.face_down:
            # a piece on a tile: the piece as a smaller shape in its own colour, the tile's name below
            ax.add_patch(Circle((x, y + 0.12), 0.42, facecolor=face(top), edgecolor=seat_colour(top.owner, "#333333"),
                                linewidth=2.2, zorder=2))
            ax.text(x, y - 0.58, describe(base), ha="center", va="center", fontsize=font - 1.5, color="#333333", zorder=3)
        if topology.kind not in ("hex", "grid"):
            ax.text(x, y - 0.8, str(cell), ha="center", va="top", fontsize=font - 1, color="#777777", zorder=3)
        if top is None:
            continue
        text = textwrap.fill(named(top), 10 if topology.kind == "hex" else 9, break_long_words=False)
        longest = max(len(line) for line in text.splitlines())
        size = font if longest <= 11 else font * 11 / longest
        if len(stack) > 1 and base is None:
            text += f"\n(+{len(stack) - 1})"
        up = cell in crowded
        ax.text(x, y + (0.5 if up else 0.08), text, ha="center", va="center", fontsize=size * (0.85 if up else 1),
                color="white" if top.face_down else "black", zorder=3)
        sub = None if top.face_down or base is not None else second_kind(top)
        if sub and not up:
            ax.text(x, y - (0.55 if topology.kind == "hex" else 0.3), sub, ha="center", va="center",
                    fontsize=font - 1.5, style="italic", color="#333333", zorder=3)
        if mark and not top.face_down and top.attrs.get(mark):
            ax.add_patch(Circle((x, y + (0.62 if topology.kind == "hex" else 0.3)), 0.13,
                                facecolor="#7a4a1e", edgecolor="black", linewidth=0.8, zorder=4))
    for ident, covered in pieces.items():
        top = match.s.entities[ident]
        _draw_piece(ax, topology, [_centre(topology, c, layout) for c in covered], top, face(top), named(top), font)
    owners_seen = set()
    for layer in overlays:
        for cell in layer.cells.occupied_cells():
            pieces = list(layer.cells.stack(cell))
            x, y = _centre(topology, cell, layout)
            for i, e in enumerate(pieces[:3]):
                owners_seen.add(e.owner)
                colour = seat_colour(e.owner)
                ty = y - 0.05 - 0.27 * i
                ax.add_patch(Circle((x - 0.6, ty), 0.09, facecolor=colour, edgecolor="black", linewidth=0.5, zorder=5))
                text = "face down" if e.face_down else describe(e)
                ax.text(x - 0.47, ty, text[:16], ha="left", va="center", fontsize=font - 2.2, color=colour,
                        fontweight="bold", zorder=5,
                        bbox=dict(boxstyle="round,pad=0.12", facecolor="white", edgecolor="none", alpha=0.85))
            if len(pieces) > 3:
                ax.text(x, y - 0.85, f"+{len(pieces) - 3} more", ha="center", va="center", fontsize=font - 2.4, zorder=5)
    if xs:
        pad = 1.3
        ax.set_xlim(min(xs) - pad, max(xs) + pad)
        ax.set_ylim(min(ys) - pad, max(ys) + pad)

    handles = []
    in_play = sorted({colour_key(e) for e in board.items if not e.face_down})
    values = [k.split("=", 1)[-1] for k in in_play]
    for k, value in zip(in_play, values):
        # a value of two fields (a tile's colour=food and a piece's kind=food) says its field
        label = k.replace("=", " ") if colour_by or values.count(value) > 1 else value
        handles.append(Polygon([[0, 0]], closed=True, facecolor=colours[k], edgecolor="#333333",
                               label=label.replace("_", " ")))
    if any(e.face_down for e in board.items):
        handles.append(Polygon([[0, 0]], closed=True, facecolor=FACE_DOWN, edgecolor="#333333", label="face down"))
    if mark:
        handles.append(Circle((0, 0), 0.1, facecolor="#7a4a1e", edgecolor="black", label=mark.replace("_", " ")))
    for owner in sorted(o for o in owners_seen if o is not None):  # the owners of the pieces on top
        handles.append(Circle((0, 0), 0.1, facecolor=seat_colour(owner), edgecolor="black",
                              label=f"Player {owner + 1}"))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    what = ", ".join([board_label(board)] + [board_label(z) for z in overlays])
    if colour_by:
        what += f"; coloured by {colour_by.replace('_', ' ')}"
    ax.set_title(f"{title}\n{what}" if title else f"{match.game.title}: {what}", fontsize=11)
    out = Path(out)
    fig.savefig(out, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return out


def _draw_piece(ax, topology, centres: list, top, face: str, text: str, font) -> None:
    """A piece lying on several cells: its cells' shapes and the bridges between the touching ones,
    drawn wide and dark, then filled on top, so that one outline goes round the whole; its name
    once, in its middle."""
    from matplotlib.patches import Polygon

    near = 1.8 if topology.kind == "hex" else 1.1 if topology.kind == "grid" else None
    if near is not None:  # its touching cells
        bridges = [(a, b) for i, a in enumerate(centres) for b in centres[i + 1:] if math.dist(a, b) <= near]
    else:  # a track's or a graph's cells, in the order the piece lies on them
        bridges = list(zip(centres, centres[1:]))
    half = 0.47 if topology.kind != "hex" else 0.48

    def shapes(**style):
        out = [_cell_patch(topology.kind, x, y, **style) for x, y in centres]
        for (xa, ya), (xb, yb) in bridges:  # a band from centre to centre, as wide as a cell's side
            length = math.dist((xa, ya), (xb, yb)) or 1.0
            nx, ny = -(yb - ya) / length * half, (xb - xa) / length * half
            out.append(Polygon([(xa + nx, ya + ny), (xb + nx, yb + ny), (xb - nx, yb - ny), (xa - nx, ya - ny)],
                               closed=True, **style))
        if near is not None:  # where three hex cells (or four squares) meet, the gap between them
            reach = near if topology.kind == "hex" else 1.5
            for i, a in enumerate(centres):
                for j, b in enumerate(centres[i + 1:], i + 1):
                    for c in centres[j + 1:]:
                        if math.dist(a, b) <= reach and math.dist(b, c) <= reach and math.dist(a, c) <= reach:
                            out.append(Polygon([a, b, c], closed=True, **style))
        return out

    for patch in shapes(facecolor="#222222", edgecolor="#222222", linewidth=3.2):
        patch.set_zorder(1.5)
        ax.add_patch(patch)
    for patch in shapes(facecolor=face, edgecolor=face, linewidth=0.1):
        patch.set_zorder(1.6)
        ax.add_patch(patch)
    cx = sum(x for x, _ in centres) / len(centres)
    cy = sum(y for _, y in centres) / len(centres)
    ax.text(cx, cy, textwrap.fill(text, 14, break_long_words=False), ha="center", va="center", fontsize=font + 3,
            fontweight="bold", color="white" if top.face_down else "black", zorder=3)


def _draw_places(ax, cells_obj, cell, x, y, font, whose):
    """One cell of a board with places: the first place in the circle, the others as boxes above it."""
    from matplotlib.patches import Circle, Rectangle

    places = cells_obj.topology.places
    caps = cells_obj.topology.capacities
    ax.add_patch(Circle((x, y), 0.75, facecolor="#f4f1e8", edgecolor="#555555", linewidth=1.0, zorder=1))
    ax.text(x, y - 0.95, str(cell), ha="center", va="top", fontsize=font - 1, color="#777777", zorder=3)
    first = cells_obj.in_place(cell, places[0])
    if first:
        ax.text(x, y, "\n".join(describe(e) + whose(e) for e in first), ha="center", va="center",
                fontsize=max(3.5, font - 1.5 - max(0, len(first) - 3) * 0.5), zorder=3)
    others = places[1:]
    width = 0.95
    for i, place in enumerate(others):
        bx = x + (i - (len(others) - 1) / 2) * (width + 0.1)
        by = y + 1.35
        cards = cells_obj.in_place(cell, place)
        face = seat_colour(cards[0].owner if cards else None, "#dddddd" if cards else "none")
        ax.add_patch(Rectangle((bx - width / 2, by - 0.4), width, 0.8, facecolor=face, alpha=0.85 if cards else 1.0,
                               edgecolor="#555555", linewidth=0.8, linestyle="-" if place in caps else ":", zorder=1))
        label = "\n".join(describe(e) + whose(e) for e in cards) if cards else place.replace("_", " ")
        ax.text(bx, by, textwrap.fill(label, 9), ha="center", va="center", fontsize=font - 2.5,
                color="white" if cards else "#999999", zorder=3)
