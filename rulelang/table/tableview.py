"""What one seat sees at a table (the browser and the terminal), as plain JSON-able data.

Built from the match alone, for any game: every zone with its cards (boards with their cells and
geometry), the players' fields, and the pending choice broken into *parts*, so a person can pick an
option one part at a time (a card, then a cell) instead of reading every combination.

Privacy is decided here, once, with the runtime's `visible`: a card this seat may not see carries
no name, no fields and no id, only an opaque reference made for this view (its position), so a
page never learns which card it is, not even from its id.

    view = table_view(match, seat)      # seat is 0-based; -1 is a spectator who sees public cards only
"""
from __future__ import annotations

from typing import Any

from rulelang.model.builtins import describe
from rulelang.model.things import BoardZone, Entity, Player, Zone
from rulelang.engine.runtime import Match
from rulelang.engine.visibility import back_of, card_view, option_label, seen_as, visible

KIND_FIELDS = ("colour", "color", "kind", "suit", "type")
PALETTE = ["#f2d45c", "#a8d672", "#6fb57c", "#8fc1e3", "#e39b8f", "#c7a4e0", "#f0b27a", "#b0b7bd",
           "#d9e68a", "#7fc9b8", "#e6a6c9", "#9fa8da"]


def card_kind(e: Entity, table=None) -> str:
    """The value a card is coloured by: its first kind-like field, else its first field holding an
    enum member (given the symbol table), else its component."""
    for f in KIND_FIELDS:
        v = e.attrs.get(f)
        if isinstance(v, str) and v:
            return f"{f}={v}"
    if table is not None:
        for f, v in e.attrs.items():
            if isinstance(v, str) and table.enum_of_member(v) is not None:
                return f"{f}={v}"
    return e.card.component


def colour_kind(e: Entity, program, by: str | None = None) -> str:
    """What a card is coloured by: its `by` field if given, else the field its component names
    (`colour by FIELD`), else `card_kind`."""
    if by is None:
        by = getattr(program.components.get(e.card.component), "colour_by", None)
    if by:
        v = e.attrs.get(by)
        return f"{by}={describe(v)}" if v is not None else e.card.component
    return card_kind(e, program.table)


def colour_table(match: Match, by: str | None = None) -> dict[str, str]:
    """A stable colour for every kind of card the game has (not only those in play), at the table
    and in pictures (`rulelang render`, whose `--colour-by` is `by`); an enum member declared with a
    colour (`meadow "gold"`) keeps it."""
    program = match.game.program
    kinds = sorted({colour_kind(e, program, by) for e in match.s.entities})
    return {k: program.member_colours.get(k.partition("=")[2], PALETTE[i % len(PALETTE)]) for i, k in enumerate(kinds)}


def _table_colours(match: Match) -> dict[str, str]:
    """`colour_table` as the table shows it, worked out once per game (every view asks for it)."""
    cached = getattr(match.game, "_table_colours", None)
    if cached is None:
        cached = match.game._table_colours = colour_table(match)
    return cached


def cell_json(cell):
    return list(cell) if isinstance(cell, tuple) else cell


def cell_key(cell) -> str:
    return ",".join(map(str, cell)) if isinstance(cell, tuple) else str(cell)


class _Refs:
    """Opaque references for the cards of one view: `c<id>` for a card the seat sees, `h<n>` (a
    position in this view) for one it does not."""

    def __init__(self):
        self.by_id: dict[int, str] = {}
        self.hidden = 0

    def ref(self, e: Entity, seen: bool) -> str:
        if e.id not in self.by_id:
            self.hidden += not seen
            self.by_id[e.id] = f"c{e.id}" if seen else f"h{self.hidden}"
        return self.by_id[e.id]


def _card(match: Match, e: Entity, seat: int, refs: _Refs) -> dict:
    if not visible(e, seat):
        out: dict[str, Any] = {"ref": refs.ref(e, False), "hidden": True}
        if back := back_of(e):
            out["back"] = back
    else:
        data = card_view(e)
        fields = {k: v for k, v in data.items() if k not in ("card", "component", "owner", "face_down")}
        out = {"ref": refs.ref(e, True), "label": data["card"], "component": e.card.component, "fields": fields,
               "colour": _table_colours(match).get(colour_kind(e, match.game.program), "#dddddd")}
        if e.owner is not None:
            out["owner"] = e.owner + 1
    if e.face_down:
        out["face_down"] = True
    return out


def _topology(board: BoardZone) -> dict:
    t = board.cells.topology
    out: dict[str, Any] = {"kind": t.kind, "open": t.open}
    if t.kind == "grid":
        out["neighbours"] = t.neighbours
        if not t.open:
            out["width"], out["height"] = t.width, t.height
    elif t.kind == "hex" and not t.open:
        out["radius"] = t.radius
    elif t.kind == "track":
        out["length"], out["loop"] = t.length, t.loop
    elif t.kind == "graph":
        out["edges"] = [[cell_json(a), cell_json(b)] for a, b in board.cells.graph.edges()]
    return out


def option_cells(match: Match) -> dict[str, set]:
    """Cells named by the pending options, per board key: the chooser's boards (or shared ones) where
    the rules let the next card go, drawn even off an open board's frontier (at the table and in
    `rulelang render`)."""
    out: dict[str, set] = {}
    if match.s.pending is None:
        return out
    boards = [z for z in match.s.zones.values() if z.is_board]
    chooser = match.s.pending["player"]
    for o in match.s.pending["options"]:
        for v in o["values"].values():
            # a list of cells is a place for a piece: its cells are drawn too
            for c in (v if type(v) is list and all(type(x) is tuple for x in v) else (v,)):
                zone = _board_of_cell(boards, c, chooser)
                if zone is not None:
                    out.setdefault(zone.key, set()).add(c)
    return out


def _board_of_cell(boards: list, value, chooser: int | None = None) -> BoardZone | None:
    """The board a value is a cell of: a fixed board that has it, else an open square or hex board
    for a pair of whole numbers. Of boards that all could hold it (a board per player), the
    chooser's own comes first, then a shared one. A plain number is never taken for a cell: a
    choice of a number (a row, an amount) would be marked on whatever track has a cell of that
    number; it is a value."""
    if not isinstance(value, (tuple, str)):  # (not a number, a card, a player, a zone, true or none)
        return None
    found = []
    for z in boards:
        t = z.cells.topology
        if t.open:
            if isinstance(value, tuple) and len(value) == 2 and all(isinstance(x, int) for x in value):
                found.append(z)
        elif value in z.cells.graph:
            found.append(z)
    if len(found) > 1:
        found.sort(key=lambda z: 0 if z.owner == chooser and chooser is not None else 1 if z.owner is None else 2)
    return found[0] if found else None


def _zone(match: Match, zone: Zone, seat: int, refs: _Refs, extra_cells: set) -> dict:
    # (one of a family of zones, `zone display[N]`, is named with its number: "display 2")
    entry: dict[str, Any] = {"key": zone.key, "name": zone.key.replace("#", " ") if zone.owner is None else zone.name,
                             "count": len(zone.items), "visibility": zone.visibility}
    if zone.owner is not None:
        entry["owner"] = zone.owner + 1
    if zone.is_board:
        cells = zone.cells
        t = cells.topology
        if t.open:  # its cards, the free cells beside them, those an option names (or where the first goes)
            shown = [*cells.occupied_cells(), *cells.frontier(), *sorted(extra_cells, key=cell_key)]
            shown = list(dict.fromkeys(shown)) or [t.origin()]
        else:
            shown = list(cells.cells())
        entry["board"] = _topology(zone)
        if cells.layer_of is not None:
            entry["layer_of"] = cells.layer_of  # drawn on the cells of that board
        pieces = cells.pieces
        entry["cells"] = []
        for c in shown:
            cards = []
            for e in cells.stack(c):
                card = _card(match, e, seat, refs)
                if pieces and e.id in pieces:  # a piece: the cells it lies on, its first first
                    card["covers"] = [cell_key(x) for x in pieces[e.id]]
                cards.append(card)
            entry["cells"].append({"cell": cell_json(c), "key": cell_key(c), "cards": cards})
    elif zone.visibility == "hidden" and not any(seat in e.known for e in zone.items):
        pass  # a face-down pile: only its size
    else:
        entry["cards"] = [_card(match, e, seat, refs) for e in zone.items]
    return entry


def _token(match: Match, value, seat: int, refs: _Refs, boards: list) -> dict:
    """One part of an option: a card, a cell of a board, a player, or a plain value."""
    if isinstance(value, Entity):
        text = seen_as(match.s, value, seat)
        if value.id in refs.by_id:
            return {"kind": "card", "ref": refs.by_id[value.id], "key": "card:" + refs.by_id[value.id], "text": text}
        # a card the view does not show (in a face-down pile): chosen from the list by its description
        return {"kind": "value", "key": f"unshown:{value.id if visible(value, seat) else text}", "text": text}
    if isinstance(value, Player):
        return {"kind": "player", "seat": value.seat + 1, "key": f"player:{value.seat + 1}",
                "text": f"Player {value.seat + 1}"}
    if type(value) is list and len(value) > 1 and all(type(c) is tuple for c in value):
        # a list of cells of one board: where a piece may lie (places_for), drawn on the board
        board = _board_of_cell(boards, value[0], seat)
        if board is not None and all(_board_of_cell([board], c) is board for c in value):
            keys = [cell_key(c) for c in value]
            return {"kind": "cells", "zone": board.key, "cells": keys,
                    "key": f"cells:{board.key}:{'|'.join(keys)}", "text": " – ".join(describe(c) for c in value)}
    board = _board_of_cell(boards, value, seat)
    if board is not None:
        token = {"kind": "cell", "zone": board.key, "cell": cell_json(value),
                 "key": f"cell:{board.key}:{cell_key(value)}", "text": describe(value)}
        if not isinstance(value, tuple):
            token["also_listed"] = True  # a name might not mean the cell: offer it as a button too
        return token
    if value is None:
        return {"kind": "value", "key": "none", "text": "nothing"}
    text = describe(value)
    return {"kind": "value", "key": f"value:{type(value).__name__}:{text}", "text": text.replace("_", " ")}


def choice_view(match: Match, seat: int, refs: _Refs) -> dict | None:
    """The pending choice as this seat sees it, if it is theirs: each option's label and its parts."""
    pending = match.s.pending
    if pending is None or pending["player"] != seat:
        return None
    boards = [z for z in match.s.zones.values() if z.is_board]
    options = []
    for i, raw in enumerate(pending["options"]):
        tokens = [_token(match, v, seat, refs, boards) for v in raw["values"].values()]
        name = raw["name"]
        named = name not in ("choose", "next") and not (name == "none" and all(v is None for v in raw["values"].values()))
        if named:
            tokens.insert(0, {"kind": "name", "key": "name:" + name, "text": name.replace("_", " ")})
        elif not tokens:
            tokens = [{"kind": "name", "key": "name:" + name, "text": name}]
        options.append({"index": i, "label": option_label(match.s, raw, seat), "named": named, "tokens": tokens})
    return {"prompt": pending["prompt"], "options": options}


def shown_value(state, value, seat: int):
    """A field's value as plain JSON, with any card in it named only if this seat may see it."""
    if isinstance(value, (int, str, bool, float)) or value is None:
        return value
    if isinstance(value, Entity):
        return seen_as(state, value, seat)
    if isinstance(value, (list, tuple, set)) and any(isinstance(x, Entity) for x in value):
        return ", ".join(seen_as(state, x, seat) if isinstance(x, Entity) else describe(x) for x in value)
    return describe(value)


def end_rows(players: list[dict]) -> list[list]:
    """What every player ends with, from a view's `players`: a row per player field (in the order
    they first appear), the field's name then each player's value, as that view's seat sees it. The
    terminal and the page both draw it as the table at the end of a match."""
    names = dict.fromkeys(k for p in players for k in p["fields"])
    return [[name, [p["fields"].get(name) for p in players]] for name in names]


def table_view(match: Match, seat: int) -> dict:
    """Everything one seat may see, laid out for a table (0-based seat; -1 for a spectator)."""
    s = match.s
    refs = _Refs()
    extra = option_cells(match) if s.pending is not None and s.pending["player"] == seat else {}
    zones = [_zone(match, z, seat, refs, extra.get(z.key, set())) for z in s.zones.values()]
    pending = s.pending
    players = [{"seat": p.seat + 1, "fields": {k: shown_value(s, v, seat) for k, v in p.attrs.items()}}
               for p in s.players]
    return {
        "title": match.game.title,
        "variants": list(match.game.variants),
        "you": seat + 1 if seat >= 0 else None,
        "round": s.round,
        "phase": s.phase.replace("_", " ") if s.phase else None,
        "current": s.current + 1 if s.current is not None else None,
        "to_move": pending["player"] + 1 if pending is not None else None,
        "waiting_prompt": pending["prompt"] if pending is not None else None,
        "over": s.over,
        "winners": [w + 1 for w in s.winners] if s.over else [],
        "ending": match.result_words() if s.over else None,  # ("after 3 rounds, Player 2 won")
        "decisions": s.decisions,
        "players": players,
        "end": end_rows(players) if s.over else None,
        "globals": {k: shown_value(s, v, seat) for k, v in s.globals.items() if not k.startswith("__")},
        "zones": zones,
        "choice": choice_view(match, seat, refs),
    }
