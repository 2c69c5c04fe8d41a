"""`rulelang render` of per-player boards (tests/surfaces/kingdoms.rules): the boards listed by the
names `--zone` takes, the picture titled with whose board it is, the "may be placed" outlines only
where the rules allow a card, and the field the cards are coloured by."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from rulelang.bots.agents import AgentHandle, make_agent
from rulelang.cli.main import main
from rulelang.compile.loader import load
from rulelang.table.tableview import colour_kind, option_cells
from rulelang.tools.render import colour_table, render_board

KINGDOMS = str(Path(__file__).resolve().parent / "surfaces" / "kingdoms.rules")


def _played(decisions: int):
    match = load(KINGDOMS).new_match(players=2, seed=0)
    agents = [make_agent("random", i) for i in range(2)]
    for _ in range(decisions):
        if match.is_over:
            break
        match.apply(agents[match.to_move].choose(AgentHandle(match, match.to_move), match.legal_options()))
    return match


def test_list_names_each_board_and_whose_it_is(capsys):
    assert main(["render", KINGDOMS, "--list"]) == 0
    out = capsys.readouterr().out
    assert "kingdom#1: grid (open), Player 1's, 1 card" in out
    assert "kingdom#2: grid (open), Player 2's, 1 card" in out


def test_without_a_zone_the_other_boards_are_named(tmp_path, capsys):
    assert main(["render", KINGDOMS, "-o", str(tmp_path / "k.png")]) == 0
    out = capsys.readouterr().out
    assert "board kingdom#1 written" in out and "other boards: kingdom#2" in out


def test_no_image_named_is_said_in_words(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["render", KINGDOMS])
    assert "-o FILE" in str(exc.value) and "--list" in str(exc.value)


def test_the_picture_says_whose_board_it_is(tmp_path, monkeypatch):
    import matplotlib.axes

    titles = []
    set_title = matplotlib.axes.Axes.set_title
    monkeypatch.setattr(matplotlib.axes.Axes, "set_title",
                        lambda self, text, *a, **k: (titles.append(text), set_title(self, text, *a, **k))[1])
    render_board(_played(7), tmp_path / "k.png", zone="kingdom#2", title="Kingdoms: after 7 decisions")
    assert titles == ["Kingdoms: after 7 decisions\nkingdom of Player 2 (--zone kingdom#2)"]


def test_may_be_placed_only_where_the_rules_allow():
    match = _played(7)  # Player 2 lays: the kingdom is three tall already
    board = match.s.zones["kingdom#2"]
    assert match.to_move == 1
    offered = option_cells(match)[board.key]
    frontier = set(board.cells.frontier())
    occupied = board.cells.occupied_cells()
    ys = [c[1] for c in occupied]
    assert offered and offered < frontier  # the frontier goes beyond the 3 by 3 the rules keep
    assert all(min(ys) <= c[1] <= max(ys) for c in offered) and max(ys) - min(ys) == 2
    assert "kingdom#1" not in option_cells(match)  # another player's board
    assert option_cells(_played(40)) == {}  # the game is over: nothing may be placed


def test_cards_are_coloured_by_their_first_enum_field_or_the_one_named(tmp_path, capsys):
    match = _played(0)
    tile = match.s.zones["kingdom#1"].items[0]
    assert colour_kind(tile, match.game.program) == f"terrain={tile.attrs['terrain']}"
    table = colour_table(match)
    assert table["terrain=forest"] == "#2e7d32" and table["terrain=lake"] == "#1e88e5"
    assert set(colour_table(match, "crowns")) == {f"crowns={n}" for n in range(4)}
    assert main(["render", KINGDOMS, "--colour-by", "crowns", "-o", str(tmp_path / "c.png")]) == 0
    capsys.readouterr()
    assert main(["render", KINGDOMS, "--colour-by", "crown", "-o", str(tmp_path / "d.png")]) != 0
    assert 'no component of Kingdoms has "crown"; did you mean "crowns"' in capsys.readouterr().err
    assert not (tmp_path / "d.png").exists()


def test_a_value_of_two_fields_is_told_apart_in_the_legend(tmp_path, monkeypatch):
    import matplotlib.axes

    import rulelang

    text = '''
game "Two fields" { players 2; round: play }
enum Colour { red, blue }
component Tile { colour: Colour }
component Piece { kind: Colour }
cards tiles in box { Tile(colour: red) }
cards pieces in box { Piece(kind: red) }
zone box
zone board: board grid 4 size 2 by 1
setup { move first([c in box where c.component == "Tile"]) to board at (0, 0)
        move top(box) to board at (1, 0) }
phase play { end game }
'''
    match = rulelang.load("two.rules", text=text).new_match(seed=0)
    labels = []
    legend = matplotlib.axes.Axes.legend
    monkeypatch.setattr(matplotlib.axes.Axes, "legend",
                        lambda self, *a, **k: (labels.extend(h.get_label() for h in k["handles"]), legend(self, *a, **k))[1])
    render_board(match, tmp_path / "two.png")
    assert sorted(labels) == ["colour red", "kind red"]
