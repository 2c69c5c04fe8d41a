"""`rulelang play`: a match in the terminal, drawn with rich from what one seat may see
(`tableview.table_view`, as the browser table draws it); docs/cli.md ("rulelang play") says what a
person sees and types. A piece lying on several cells shows its name on its first cell and, on
the others, an arrow towards it ("◀ 2|5"). A layer (`board on BASE`) is drawn on its base's cells,
below the base's own cards. Cards on a board are numbered in the board's order.
"""
from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text
from rich import box

from rulelang.table.tableview import table_view

HIDDEN_STYLE = "white on #4a5a78"
QUIT = -1


def pretty(s) -> str:
    return str(s).replace("_", " ")


def value_text(v) -> str:
    return "yes" if v is True else "no" if v is False else "-" if v is None or v == "" else pretty(v)


def card_style(card: dict) -> str:
    return HIDDEN_STYLE if card.get("hidden") else f"black on {card['colour']}"


def card_text(card: dict) -> str:
    if card.get("hidden"):
        shown = "face down" if card.get("face_down") else "hidden"
        return f"{shown}: {card['back']}" if card.get("back") else shown
    return pretty(card["label"])


def look(card: dict) -> tuple:
    """What a card shows at the table: two cards of one look are told apart by nothing but place."""
    if card.get("hidden"):
        return ("hidden", bool(card.get("face_down")), card.get("back"))
    return ("seen", card["label"], json.dumps(card.get("fields", {}), sort_keys=True, default=str),
            card.get("owner"), bool(card.get("face_down")))


def alike_groups(cards: list[dict]) -> list[list[dict]]:
    """The cards grouped by look, in the order each look first comes."""
    groups: dict[tuple, list[dict]] = {}
    for c in cards:
        groups.setdefault(look(c), []).append(c)
    return list(groups.values())


def chip(group: list[dict], numbers: dict, arrow: str = "") -> tuple[str, list[str]]:
    """Alike cards as one chip: its text ("5 red", a piece's other cell "◀ 2|5"), and the numbers of
    those of them that can be chosen."""
    text = f"{arrow} {card_text(group[0])}" if arrow else card_text(group[0])
    if len(group) > 1:
        text = f"{len(group)} {text}"
    return text, [str(numbers[f"card:{c['ref']}"]) for c in group if f"card:{c['ref']}" in numbers]


def draw_chips(out: Text, cards: list[dict], numbers: dict, most: int = 12, width: int | None = None) -> None:
    """Cards as coloured chips, each with its number when it can be chosen. Cards of one look (alike
    tokens, hidden cards) are one chip with their count ("5 red"); only the last `most` chips are
    shown unless one of the others can be chosen. No cards: "empty". With a `width`, lines break
    between chips."""
    if not cards:
        out.append("empty", style="dim")
        return
    groups = alike_groups(cards)
    chips = [[c] for c in cards] if len(groups) == len(cards) else groups
    if len(chips) > most and not any(f"card:{c['ref']}" in numbers for c in cards):
        hidden = sum(len(g) for g in chips[:-most])
        out.append(f"({hidden} more below) ", style="dim")
        chips = chips[-most:]
    parts = []
    for group in chips:
        text, marks = chip(group, numbers)
        part = Text(f" {text} ", style=card_style(group[0]))
        if marks:
            part.append(f"[{','.join(marks)}]", style="bold yellow")
        parts.append(part)
    append_parts(out, parts, width)


def append_parts(out: Text, parts: list[Text], width: int | None, sep: str = " ", indent: int = 4) -> None:
    """`parts` appended to `out`, `sep` between them; where the line would pass `width`, it goes
    on to a new line between two parts, not inside one (rich would break "dominated: 0" after the
    colon, or a card's name from its number)."""
    column = Text(out.plain.rsplit("\n", 1)[-1]).cell_len
    for i, part in enumerate(parts):
        if i and width and column + len(sep) + part.cell_len > width:
            out.append("\n" + " " * indent)
            column = indent
        elif i:
            out.append(sep)
            column += len(sep)
        out.append_text(part)
        column += part.cell_len


def places(view: dict) -> dict[str, tuple]:
    """Where each card of the view lies: (zone, cell or None, position), its zone's index first and,
    on a board, the cell's index in the board's order."""
    out: dict[str, tuple] = {}
    for zi, zone in enumerate(view["zones"]):
        if "cells" in zone:
            for ci, cell in enumerate(zone["cells"]):
                for si, c in enumerate(cell["cards"]):
                    out[c["ref"]] = (zone["key"], cell["key"], (zi, ci, si), look(c))
        for si, c in enumerate(zone.get("cards", [])):
            out[c["ref"]] = (zone["key"], None, (zi, -1, si), look(c))
    return out


def arrange(view: dict, tokens: list[dict]) -> list[dict]:
    """The next parts as they are numbered: cards on a board in the board's order (a row refilled in
    place keeps its order), and of cards of one look in one place (five red tokens in a supply), only
    the first: taking any of them is the same move (cards it does not see are each a choice)."""
    where = places(view)
    on_board = [i for i, t in enumerate(tokens) if t["kind"] == "card" and where.get(t["ref"], (None, None))[1] is not None]
    ordered = sorted((tokens[i] for i in on_board), key=lambda t: where[t["ref"]][2])
    tokens = list(tokens)
    for i, t in zip(on_board, ordered):
        tokens[i] = t
    out, seen = [], set()
    for t in tokens:
        # hidden cards are never merged: where one lies in a hand may be all a player knows of it
        if t["kind"] == "card" and t["ref"] in where and where[t["ref"]][3][0] != "hidden":
            zone, cell, _, seen_look = where[t["ref"]]
            key = (zone, cell, seen_look)
            if key in seen:
                continue
            seen.add(key)
        out.append(t)
    return out


# ------------------------------------------------------------------ choosing part by part


def remaining(option: dict, picked: list[dict]) -> list[list[dict]]:
    """What an option still needs after the parts picked: one token list per way to reach it."""
    seqs = [option["tokens"]]
    if option["named"] and len(option["tokens"]) > 1 and option["tokens"][1]["kind"] in ("card", "cell", "player"):
        seqs.append(option["tokens"][1:])  # a named option may be reached straight by a part on the table
    return [seq[len(picked):] for seq in seqs
            if len(picked) <= len(seq) and all(t["key"] == seq[i]["key"] for i, t in enumerate(picked))]


def candidates(choice: dict, picked: list[dict]):
    """The options that still fit, which of them are complete, and the distinct next parts."""
    fitting, done, nexts = [], [], {}
    for o in choice["options"]:
        rests = remaining(o, picked)
        if not rests:
            continue
        fitting.append(o)
        if any(not r for r in rests):
            done.append(o)
        for r in rests:
            if r:
                nexts.setdefault(r[0]["key"], r[0])
    tokens = list(nexts.values())
    if not picked:
        # an option's name need not be picked when a part on the table already says which option
        # it is ("place" before a card of the hand): the name is kept when any option of that
        # name starts otherwise, or when a part leads to options of different names
        names, kept = set(), set()  # the options' names; those that must be picked
        firsts: dict[str, set] = {}  # a part on the table -> the names of the options it leads to
        for o in (o for o in fitting if o["named"]):
            name, rest = o["tokens"][0]["key"], o["tokens"][1:]
            names.add(name)
            if rest and rest[0]["kind"] in ("card", "cell", "player"):
                firsts.setdefault(rest[0]["key"], set()).add(name)
            else:
                kept.add(name)
        kept.update(n for leading in firsts.values() if len(leading) > 1 for n in leading)
        skipped = names - kept
        tokens = [t for t in tokens if t["kind"] != "name" or t["key"] not in skipped]
    return fitting, done, tokens


# ------------------------------------------------------------------ drawing


def draw_grid(zone: dict, numbers: dict[str, int], width: int, layers: dict) -> RichTable:
    cells = {tuple(c["cell"]): c for c in zone["cells"]}
    xs = [c[0] for c in cells] or [0]
    ys = [c[1] for c in cells] or [0]
    cols = max(xs) - min(xs) + 1
    w = max(5, min(11, (width - 2) // max(cols, 1) - 1))
    grid = RichTable(box=box.SQUARE, show_header=False, padding=0, show_lines=True, pad_edge=False)
    for _ in range(cols):
        grid.add_column(width=w, justify="center", no_wrap=False)
    for y in range(min(ys), max(ys) + 1):
        grid.add_row(*(_cell_text(zone, cells.get((x, y)), numbers, w, f"{x},{y}", layers.get(f"{x},{y}", ()))
                       for x in range(min(xs), max(xs) + 1)))
    return grid


def _towards(here: str, there: str, kind: str) -> str:
    """An arrow from one cell of a piece towards its first cell (where its name is written)."""
    try:
        (x, y), (tx, ty) = (tuple(int(v) for v in k.split(",")) for k in (here, there))
    except ValueError:  # (a track's or a graph's cells)
        return "←"
    if kind == "hex":  # axial (q, r): across is q + r / 2, down is r
        dx, dy = (tx + ty / 2) - (x + y / 2), ty - y
    else:
        dx, dy = tx - x, ty - y
    if abs(dx) >= abs(dy):
        return "◀" if dx < 0 else "▶"
    return "▲" if dy < 0 else "▼"


def _cell_lines(zone: dict, cell: dict | None, numbers: dict, w: int, coord: str, layers=()) -> list[tuple[str, str]]:
    """The lines of one cell, each (text, style): every card on it, the top first (alike ones as one
    line with their count), then the cards of the layers on it; a piece's other cells point to its
    first one ("◀ 2|5"). An empty cell shows its number (if it can be chosen) and its coordinates."""
    lines: list[tuple[str, str]] = []
    mark = None
    for z, c in ([(zone, cell)] if cell is not None else []) + list(layers):
        mark = mark or numbers.get(f"cell:{z['key']}:{c['key']}")
        for group in alike_groups(list(reversed(c["cards"]))):
            covers = group[0].get("covers")
            arrow = _towards(c["key"], covers[0], z["board"]["kind"]) if covers and covers[0] != c["key"] else ""
            text, marks = chip(group, numbers, arrow)
            lines.append((text, f" [{','.join(marks)}]" if marks else "", card_style(group[0]) + (" bold" if marks else "")))
    if not lines:
        style = "bold yellow" if mark else "dim"
        return [(f"[{mark}]" if mark else "·", style), (coord, style)]
    if len(lines) == 1:  # one card (or one kind): its name over two lines, the number after it
        text, tail, style = lines[0]
        if mark and not tail:  # (the cell's own number, as compact)
            tail, mark, style = f" [{mark}]", None, style + " bold"
        # (between words: a word too long for the cell is cut short with "…", never split in two)
        wrapped = (textwrap.wrap(text, w, break_long_words=False) or [""]) + [""]
        out = [(_fit(wrapped[0], "", w), style), (_fit(" ".join(wrapped[1:]).strip(), tail, w).strip(), style)]
    else:  # a line per card (or per kind of alike cards)
        out = [(_fit(text, tail, w), style) for text, tail, style in lines]
    if mark:
        out.append((f"[{mark}]", "bold yellow"))
    return out


def _fit(text: str, tail: str, w: int) -> str:
    """`text` then `tail` (a number) in `w` characters: the text cut short with "…" if need be, left
    out where not a letter of it fits (the number is what a player types)."""
    if len(text) + len(tail) <= w:
        return text + tail
    room = w - len(tail) - 1
    return text[:room] + "…" + tail if room >= 1 else tail.strip()


def _cell_text(zone: dict, cell: dict | None, numbers: dict[str, int], w: int, coord: str, layers=()) -> Text:
    if cell is None and not layers:
        return Text(" " * w + "\n" + " " * w)
    return Text("\n").join(Text(line.center(w)[:w], style=style)
                            for line, style in _cell_lines(zone, cell, numbers, w, coord, layers))


def draw_hex(zone: dict, numbers: dict[str, int], width: int, layers: dict) -> Text:
    """A hex map as offset rows: each row of r is shifted by half a cell from the one above; a row is
    as many lines high as its fullest cell needs."""
    cells = {tuple(c["cell"]): c for c in zone["cells"]}
    if not cells:
        return Text("(empty)")
    xs = {k: 2 * k[0] + k[1] for k in cells}  # in half-cells
    lo, hi = min(xs.values()), max(xs.values())
    w = max(6, min(12, (2 * (width - 2)) // max(hi - lo + 2, 1)))
    half = w // 2
    out = Text()
    for r in sorted({k[1] for k in cells}):
        row_cells = sorted((k for k in cells if k[1] == r), key=lambda k: xs[k])
        drawn = {k: _cell_lines(zone, cells[k], numbers, w - 1, f"{k[0]},{k[1]}", layers.get(cells[k]["key"], ()))
                 for k in row_cells}
        height = max(2, max(len(lines) for lines in drawn.values()))
        for line_no in range(height):
            pos = 0
            for k in row_cells:
                start = (xs[k] - lo) * half
                if start > pos:
                    out.append(" " * (start - pos))
                    pos = start
                lines = drawn[k]
                piece, style = lines[line_no] if line_no < len(lines) else ("", "")
                out.append(piece.center(w - 1)[: w - 1], style=style if piece else "")
                out.append(" ")
                pos += w
            out.append("\n")
    return out


def draw_path(zone: dict, numbers: dict[str, int]) -> Text:
    """A track or a graph: its cells in order, with their cards, and a graph's links."""
    out = Text()
    # cells holding several cards (displays of tiles) are a line each, with every card shown
    stacked = any(len(c["cards"]) > 1 for c in zone["cells"])
    cells = zone["cells"]
    i = 0
    while i < len(cells):
        c = cells[i]
        mark = numbers.get(f"cell:{zone['key']}:{c['key']}")
        if stacked:
            out.append("\n  " if i else "  ")
            # a run of empty cells, none of them to be chosen, is one line: "3-24: empty"
            j = i
            while (j + 1 < len(cells) and not c["cards"] and not mark and not cells[j + 1]["cards"]
                   and f"cell:{zone['key']}:{cells[j + 1]['key']}" not in numbers):
                j += 1
            if j > i:
                out.append(f"{c['key']}-{cells[j]['key']}: ", style="dim")
                out.append("empty", style="dim")
                i = j + 1
                continue
        elif i:
            out.append(" — " if zone["board"]["kind"] == "track" else "   ")
        out.append(f"{c['key']}: ", style="dim")
        draw_chips(out, c["cards"], numbers)
        if mark:
            out.append(f" [{mark}]", style="bold yellow")
        i += 1
    if zone["board"].get("loop"):
        out.append(" — (back to the start)", style="dim")
    if zone["board"]["kind"] == "graph":
        links = ", ".join(f"{a}–{b}" for a, b in zone["board"].get("edges", []))
        out.append(f"\n  links: {links}", style="dim")
    return out


def pile_line(zone: dict, numbers: dict, indent: str = "", width: int | None = None) -> Text:
    """A pile's line: its name and size, then its cards; a pile of only cards this seat does not see
    says so ("hand: 13 hidden cards")."""
    name = pretty(zone["name"])
    cards = zone.get("cards")
    if cards and all(c.get("hidden") for c in cards) and not any(f"card:{c['ref']}" in numbers for c in cards):
        what = "face-down cards" if all(c.get("face_down") for c in cards) else "hidden cards"
        if len(cards) == 1:
            what = what[:-1]
        return Text(f"{indent}{name}: {len(cards)} {what}", style="dim" if indent else "bold")
    if cards is None:
        return Text(f"{indent}{name}: {zone['count']} face down", style="dim" if indent else "bold")
    line = Text(f"{indent}{name} ({zone['count']}): ", style="" if indent else "bold")
    draw_chips(line, cards, numbers, width=width)
    return line


def seat_name(seat: int, view: dict, seats: list[str] | None) -> str:
    """"Player 2", then "(you)" for the view's own seat, or the bot that plays it ("(greedy)")."""
    if seat == view["you"]:
        return f"Player {seat} (you)"
    return f"Player {seat}" + (f" ({seats[seat - 1]})" if seats and seats[seat - 1] != "human" else "")


def draw_view(console: Console, view: dict, next_tokens: list[dict] | None = None, seats: list[str] | None = None,
              picked: list[dict] | None = None):
    """The whole table as one seat sees it; the parts that can be chosen next carry their number,
    the parts already picked a check mark."""
    numbers: dict[str, int | str] = {t["key"]: i + 1 for i, t in enumerate(next_tokens or [])}
    for t in picked or []:
        numbers.setdefault(t["key"], "✓")
    console.print(Text.assemble((view["title"], "bold"), f"  round {view['round']}" if view["round"] else "",
                                f", phase {view['phase']}" if view["phase"] else "",
                                f", Player {view['to_move']} to play" if view["to_move"] else ""))
    width = console.width
    glob = [Text(f"{pretty(k)}: {value_text(v)}", style="dim") for k, v in view["globals"].items() if v is not None]
    if glob:
        line = Text("  ")
        append_parts(line, glob, width, " · ")
        console.print(line, soft_wrap=False)
    keys = {z["key"] for z in view["zones"]}
    # a layer (`board on BASE`) is drawn on its base's cells: base -> cell key -> [(layer, its cell)]
    on_cells = [z for z in view["zones"] if z.get("layer_of") in keys and z["board"]["kind"] in ("grid", "hex")]
    on_base: dict[str, dict[str, list]] = {}
    for z in on_cells:
        for c in z["cells"]:
            if c["cards"] or f"cell:{z['key']}:{c['key']}" in numbers:
                on_base.setdefault(z["layer_of"], {}).setdefault(c["key"], []).append((z, c))
    for zone in view["zones"]:
        if "board" not in zone or zone in on_cells:
            continue
        owner = f" of Player {zone['owner']}" if zone.get("owner") else ""
        title = Text(f"{pretty(zone['name'])}{owner}", style="bold underline")
        layers = on_base.get(zone["key"], {})
        names = [pretty(z["name"]) for z in view["zones"] if z.get("layer_of") == zone["key"]]
        if names and zone["board"]["kind"] in ("grid", "hex"):
            title.append(f" (with {', '.join(names)} on it)", style="dim")
        console.print(title)
        kind = zone["board"]["kind"]
        if zone["board"]["open"] and not zone["count"] and not layers and not any(
                k.startswith(f"cell:{zone['key']}:") for k in numbers):
            console.print(Text("  empty", style="dim"))
        elif kind == "grid":
            console.print(draw_grid(zone, numbers, width, layers))
        elif kind == "hex":
            console.print(draw_hex(zone, numbers, width, layers))
        else:
            console.print(draw_path(zone, numbers))
    shared = [z for z in view["zones"] if "board" not in z and not z.get("owner")]
    empty = [pretty(z["name"]) for z in shared if z["count"] == 0]
    for z in shared:
        if z["count"]:
            console.print(pile_line(z, numbers, width=width), soft_wrap=False)
    if empty:
        line = Text("empty: ", style="dim")
        append_parts(line, [Text(name, style="dim") for name in empty], width, ", ")
        console.print(line, soft_wrap=False)
    order = sorted(view["players"], key=lambda p: (p["seat"] != view["you"], p["seat"]))
    for p in order:
        seat = p["seat"]
        line = Text(seat_name(seat, view, seats), style="bold cyan" if seat == view["you"] else "bold")
        fields = [Text(f"{pretty(k)}: {value_text(v)}", style="dim") for k, v in p["fields"].items()]
        if fields:
            line.append("  ")
            append_parts(line, fields, width, " · ")
        if numbers.get(f"player:{seat}"):
            line.append(f" [{numbers[f'player:{seat}']}]", style="bold yellow")
        console.print(line, soft_wrap=False)
        for z in view["zones"]:
            if z.get("owner") == seat and "board" not in z and z["count"]:
                console.print(pile_line(z, numbers, "  ", width), soft_wrap=False)


def table_text(match, seat: int, width: int = 100) -> str:
    """The table drawn as `seat` sees it (-1: a watcher), as plain text (PettingZoo's `render`)."""
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    draw_view(console, table_view(match, seat))
    return console.export_text()


def draw_result(console: Console, view: dict, seats: list[str] | None = None):
    """The end of a match: what every player ends with (their fields, the score among them), a row
    per field and a column per player, as the view's seat may see them (-1: a watcher)."""
    players = view["players"]
    rows = view["end"]  # (None before the end)
    if not rows:
        return
    winners = set(view["winners"])
    table = RichTable(title="at the end", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("", no_wrap=True)
    for p in players:
        table.add_column(seat_name(p["seat"], view, seats) + (" *" if p["seat"] in winners else ""),
                         justify="right", overflow="fold")
    for name, values in rows:
        table.add_row(pretty(name), *(value_text(v) for v in values))
    console.print(table)
    if winners:
        console.print(Text("* won", style="dim"))


# ------------------------------------------------------------------ asking a person


def ask(console: Console, match, seat: int, read=input, seats: list[str] | None = None):
    """Ask the person at `seat` for an option, one part at a time. Returns an option index, QUIT
    when they quit, or None when the input ends ("save FILE" saves the match and asks again)."""
    picked: list[dict] = []
    while True:
        view = table_view(match, seat)
        choice = view["choice"]
        fitting, done, nexts = candidates(choice, picked)
        nexts = arrange(view, nexts)
        if done and (len(fitting) == 1 or (len(done) == len(fitting) and not nexts)):
            return done[0]["index"]
        entries: list[tuple[str, object]] = [(t["text"], t) for t in nexts]
        texts = [text for text, _ in entries]
        where = places(view)
        names = {z["key"]: pretty(z["name"]) + (f" of Player {z['owner']}" if z.get("owner") else "") for z in view["zones"]}
        for i, (text, t) in enumerate(entries):  # cards of one name in several places say where they lie
            if texts.count(text) > 1 and t.get("kind") == "card" and t["ref"] in where:
                zone, cell, _, _ = where[t["ref"]]
                entries[i] = (f"{text} ({names[zone]}{'' if cell is None else ' ' + cell})", t)
        entries += [(o["label"], o) for o in done]  # the parts picked make a whole option, yet others go on
        console.print()
        draw_view(console, view, nexts, seats, picked)
        prompt = Text(f"Player {seat + 1}: {choice['prompt'] or 'choose'}", style="bold")  # (the whole line bold)
        if picked:
            prompt.append("  chosen: " + ", ".join(t["text"] for t in picked), style="cyan")
        console.print(prompt, soft_wrap=False)
        cells = [i for i, (_, t) in enumerate(entries) if t.get("kind") == "cell" and not t.get("also_listed")]
        for i, (text, _) in enumerate(entries):
            if i not in cells or len(cells) <= 4:
                console.print(f"  {i + 1}. {text}", markup=False, highlight=False, soft_wrap=False)
        if len(cells) > 4:
            zones = sorted({entries[i][1]["zone"].split("#")[0] for i in cells})
            console.print(f"  {cells[0] + 1}-{cells[-1] + 1}. a place marked [n] on {', '.join(pretty(z) for z in zones)}",
                          markup=False, highlight=False)
        elif any(t.get("kind") in ("cell", "card", "player") for _, t in entries):
            console.print(Text("  (the numbers in [brackets] on the table are the same choices)", style="dim"))
        extra = ", 'b' to go back" if picked else ""
        while True:
            try:
                answer = read("> ").strip()
            except EOFError:
                console.print("no more input: the game stops here")
                return None
            if answer.isdigit() and 1 <= int(answer) <= len(entries):
                item = entries[int(answer) - 1][1]
                if "index" in item:
                    return item["index"]
                picked.append(item)
                break
            if answer in ("q", "quit"):
                return QUIT
            if answer == "b" and picked:
                picked.pop()
                break
            if answer.startswith("save "):
                path = answer[5:].strip()
                try:
                    Path(path).write_text(json.dumps(match.to_json()), encoding="utf-8")
                    console.print(f"saved to {path}", markup=False)
                except OSError as exc:  # a folder that is not there, no permission: the game goes on
                    from rulelang.core.errors import reason_of

                    console.print(f"could not save to {path}: {reason_of(exc)}", markup=False)
                continue
            console.print(f"type a number from 1 to {len(entries)} (or 'save FILE'{extra}, or 'q')")
