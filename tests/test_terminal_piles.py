"""What the terminal shows of piles of alike cards, tracks of several cards a cell, and rows
refilled in place (`rulelang play`), with the small games in tests/surfaces/."""
from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from rulelang.compile.loader import load
from rulelang.table.tableview import table_view
from rulelang.table.terminal import QUIT, ask, draw_view

HERE = Path(__file__).resolve().parent / "surfaces"


def _console() -> Console:
    return Console(width=80, record=True, color_system=None, highlight=False, markup=False)


def _apply(match, name: str, pick=lambda values: True):
    for i, o in enumerate(match.s.pending["options"]):
        if o["name"] == name and pick(o["values"]):
            match.apply(i)
            return
    raise AssertionError(f"no option {name}")


def _asked(match, seat: int, answers: list[str]) -> tuple[str, object]:
    console = _console()
    answers = list(answers) + ["q"]
    result = ask(console, match, seat, read=lambda prompt: answers.pop(0))
    return console.export_text(), result


def test_alike_tokens_are_counted_and_hidden_hands_say_how_many():
    match = load(HERE / "gems.rules").new_match(players=2, seed=1)
    console = _console()
    draw_view(console, table_view(match, 0))
    text = console.export_text()
    bank = next(line for line in text.splitlines() if line.startswith("bank"))
    assert re.fullmatch(r"bank \(15\):\s+5 red\s+5 blue\s+5 green\s*", bank), bank
    assert "hand: 6 hidden cards" in text and "more below" not in text
    mine = next(line for line in text.splitlines() if line.startswith("  hand"))
    assert "contract" in mine  # a seat's own hand: each card by its name


def test_alike_tokens_are_one_choice_each():
    match = load(HERE / "gems.rules").new_match(players=2, seed=1)
    text, result = _asked(match, 0, [])
    assert result == QUIT
    listed = re.findall(r"^  (\d+)\. (.*)$", text, re.M)
    assert [t for _, t in listed] == ["red", "blue", "green"]
    assert re.search(r"5 red \[1\]\s+5 blue \[2\]\s+5 green \[3\]", text)
    # choosing "blue" takes a blue token
    text, result = _asked(match, 0, ["2"])
    option = match.s.pending["options"][result]
    assert option["name"] == "take" and option["values"]["t"].attrs["gem"] == "blue"


def test_a_row_refilled_in_place_keeps_its_order():
    match = load(HERE / "gems.rules").new_match(players=2, seed=1)
    _apply(match, "take")
    _apply(match, "take")
    before = [match.s.zones["market"].cells.stack(i)[0].attrs["price"] for i in range(3)]
    _apply(match, "buy", lambda v: v["o"].cell == 1)  # the middle offer: a new one is drawn to cell 1
    _apply(match, "take")
    _apply(match, "take")
    _apply(match, "take")
    assert match.to_move == 0 and match.s.zones["market"].items[-1].cell == 1
    after = [match.s.zones["market"].cells.stack(i)[0].attrs["price"] for i in range(3)]
    assert after[0] == before[0] and after[2] == before[2] and after[1] != before[1]
    text, _ = _asked(match, 0, [])
    row = next(line for line in text.splitlines() if line.startswith("0:"))
    marks = [int(n) for n in re.findall(r"\[(\d+)\]", row)]
    assert len(marks) == 3 and marks == sorted(marks), row
    listed = dict(re.findall(r"^  (\d+)\. (.*)$", text, re.M))
    assert [listed[str(n)] for n in marks] == [f"offer {p}" for p in after]


def test_a_track_of_displays_shows_every_tile_and_numbers_are_not_cells():
    match = load(HERE / "displays.rules").new_match(players=2, seed=2)
    text, _ = _asked(match, 0, [])
    rows = [line for line in text.splitlines() if re.match(r"  [0-2]: ", line)]
    assert len(rows) == 3
    for i, line in enumerate(rows):
        cards = match.s.zones["factories"].cells.stack(i)
        shown = sum(int(n) if n else 1 for n, _ in re.findall(r"(?:(\d) )?(red|blue|yellow)", line))
        assert shown == len(cards) == 4, line
    assert "+" not in "".join(rows)
    # the tiles say where they lie in the list; a number of a pattern line is listed, not marked
    assert "red (factories 0)" in text
    text, _ = _asked(match, 0, ["1"])
    after = text[text.rindex("factories"):]
    rows = [line for line in after.splitlines() if re.match(r"  [0-2]: ", line)]
    assert not any(re.search(r"\[\d", line) for line in rows), rows
    assert re.findall(r"^  (\d+)\. (.*)$", after, re.M) == [("1", "1"), ("2", "2"), ("3", "3")]
    view = table_view(match, 0)
    parts = [[t["kind"] for t in o["tokens"] if t["kind"] != "name"] for o in view["choice"]["options"]]
    assert parts and all(p == ["card", "value"] for p in parts), parts  # the line: a value, not a cell


def test_hidden_cards_stay_a_choice_each_and_seen_alike_cards_merge_per_place():
    from rulelang.table.terminal import arrange

    hidden = [{"ref": f"h{i}", "hidden": True} for i in range(1, 4)]
    red = [{"ref": f"c{i}", "label": "red", "fields": {"gem": "red"}, "colour": "#f00"} for i in (7, 8)]
    other = {"ref": "c9", "label": "red", "fields": {"gem": "red"}, "colour": "#f00"}
    view = {"zones": [{"key": "hand#2", "name": "hand", "cards": hidden},
                      {"key": "bank", "name": "bank", "cards": red},
                      {"key": "row", "name": "row", "cells": [{"key": "0", "cards": [other]}]}]}
    tokens = [{"kind": "card", "ref": c["ref"], "key": "card:" + c["ref"], "text": "x"} for c in hidden + red + [other]]
    assert [t["ref"] for t in arrange(view, tokens)] == ["h1", "h2", "h3", "c7", "c9"]


def test_a_long_track_of_stacks_says_a_run_of_empty_cells_once():
    from rulelang.table.terminal import draw_path

    chip = lambda i: {"ref": f"c{i}", "label": f"marker {i % 2 + 1}", "fields": {}, "colour": "#fff", "owner": i // 2 + 1}  # noqa: E731
    cells = [{"key": str(i), "cards": []} for i in range(25)]
    cells[0]["cards"] = [chip(i) for i in range(4)]
    cells[9]["cards"] = [chip(5)]
    zone = {"key": "track", "board": {"kind": "track", "loop": False}, "cells": cells}
    lines = draw_path(zone, {"cell:track:4": 1}).plain.splitlines()
    assert [line.split(":")[0].strip() for line in lines] == ["0", "1-3", "4", "5-8", "9", "10-24"]
    assert lines[2].endswith("empty [1]") and lines[0].count("marker") == 4


def test_a_cell_of_a_board_each_player_has_is_marked_on_the_choosers_board():
    match = load(HERE / "kingdoms.rules").new_match(players=2, seed=0)
    _apply(match, "lay")  # Player 1 lays a tile; Player 2 chooses where on their own kingdom
    assert match.to_move == 1
    view = table_view(match, 1)
    cells = {t["zone"] for o in view["choice"]["options"] for t in o["tokens"] if t["kind"] == "cell"}
    assert cells == {"kingdom#2"}
    text, _ = _asked(match, 1, ["1"])
    after = text[text.rindex("kingdom of Player 1"):]
    first, second = after.split("kingdom of Player 2")
    assert not re.search(r"\[\d\]", first) and len(re.findall(r"\[\d\]", second)) >= 2
