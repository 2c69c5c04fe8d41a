"""rulelang.tools.render: pictures of every kind of board, and the `rulelang render` command."""
from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

import rulelang
from rulelang.cli.main import main
from rulelang.tools.render import board_zones, pick_zone, render_board

from conftest import REPO, load_rules

BOARDS = """
game "Boards" { players 2 round: play }
enum Shade { dark, light }
component Piece { n: int; shade: Shade = dark; lit: bool = false; label "piece {n}" }
cards pieces in box { Piece(n: i) for i in 1..12 }
zone box
zone road: board track 6 loop
zone lane: board track 4
zone map: board graph { a -- b -- c; c -- a; c -- d }
zone square: board grid 4 size 3 by 3
zone open_square: board grid 8
zone hexes: board hex radius 2
zone open_hexes: board hex
setup {
  move top(box) to road at 2
  move top(box) to lane at 0
  move top(box) to map at "c"
  move top(box) to square at (1, 2)
  move top(box) to open_square at (0, 0)
  move top(box) to open_square at (1, 1)
  move top(box) to hexes at (0, -1)
  move top(box) to open_hexes at (0, 0)
  move top(box) to open_hexes at (1, -1)
  move top(box) to open_hexes at (1, -1)
  turn top_at(open_hexes, (0, 0)) face down
  top_at(open_hexes, (1, -1)).lit = true
  top_at(open_hexes, (1, -1)).shade = light
}
phase play { choose x from box by player(1); end game }
"""


@pytest.fixture(scope="module")
def match():
    return load_rules(BOARDS).new_match(players=2, seed=1)


@pytest.mark.parametrize("zone", ["road", "lane", "map", "square", "open_square", "hexes", "open_hexes"])
def test_every_topology_is_drawn(match, zone, tmp_path):
    out = render_board(match, tmp_path / f"{zone}.png", zone=zone, mark="lit")
    assert out.exists() and out.stat().st_size > 2000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_first_board_by_default_and_unknown_zone(match, tmp_path):
    assert pick_zone(match, None) is board_zones(match)[0]
    with pytest.raises(ValueError, match="no board zone"):
        render_board(match, tmp_path / "x.png", zone="nowhere")


def test_a_game_without_a_board(tmp_path):
    game = load_rules('game "Pile" { players 2 round: p }\nzone box\nphase p { end game }')
    match = game.new_match(players=2, seed=0)
    with pytest.raises(ValueError, match="no board zone"):
        render_board(match, tmp_path / "x.png")


def test_svg_output(match, tmp_path):
    out = render_board(match, tmp_path / "b.svg", zone="open_hexes")
    text = out.read_text(encoding="utf-8")
    assert "<svg" in text


def test_cli_render_after_some_decisions(tmp_path):
    out = tmp_path / "board.png"
    code = main(["render", str(REPO / "games" / "ecogon.rules"), "--variant", "competitive,complex", "--seed", "2",
                 "--players", "3", "--after", "15", "--mark", "established", "-o", str(out)])
    assert code == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_cli_render_to_the_end_of_a_square_grid_game(tmp_path):
    out = tmp_path / "desk.png"
    code = main(["render", str(REPO / "games" / "zemico.rules"), "--seed", "1", "--to-end", "--zone", "desk",
                 "-o", str(out)])
    assert code == 0
    assert out.stat().st_size > 2000


def test_enum_members_can_name_their_colour_for_pictures(tmp_path):
    """`enum Colour { red "#ff0000" }`: cards holding that member are drawn in that colour."""
    from rulelang.tools.render import colour_table

    text = '''
game "Dots" { players 2; round: play }
enum Colour { red "#ff0000", blue }
component Dot { colour: Colour }
cards dots in supply { Dot(colour: c) for c in Colour }
zone supply
zone board: board grid 4 size 2 by 1
phase play { end game }
'''
    game = rulelang.load("dots.rules", text=text)
    match = game.new_match(seed=0)
    table = colour_table(match)
    assert table["colour=red"] == "#ff0000"
    assert table["colour=blue"] != "#ff0000"
