"""Pieces on several cells and layers of a board (issue 41, part B: "A domino had to become a card
plus two square cards matched by number, and the render cannot outline it"; "Let the rules say
that a board shares another board's cells, and draw it on top").

A component that says `covers N` (or `covers [cells]`) makes pieces: laid with `move x to board at
[cells]`, they lie in the stack of each of their cells; `places_for(board, piece)` lists the free
places they fit in every turn, `placed_at(board, piece, cell, n)` a turn of them, and
`covered_cells(piece)` their cells. `zone NAME: board on BASE` is a layer: the base's cells, its
own cards."""
from __future__ import annotations

import pytest

import rulelang
from rulelang.core.errors import RulesRuntimeError
from rulelang.model.pieces import placements

GAME = """\
game "Lay" {
  players 2
  round: lay
}
component Tile { n: int  covers 2  label "tile {n}" }
component Tri { n: int  covers [(0, 0), (1, 0), (0, 1)]  label "tri {n}" }
component Token { n: int  label "token {n}" }
cards tiles in box { Tile(n: i) for i in 1..4 }
cards tris in box { Tri(n: 1) }
cards tokens in box { Token(n: i) for i in 1..3 }
zone box
zone table: board BOARD
zone marks: board on table
phase lay {
  STATEMENTS
  end game
}
"""


def match(tmp_path, statements: str, board: str = "grid 4 size 3 by 3"):
    path = tmp_path / "lay.rules"
    path.write_text(GAME.replace("BOARD", board).replace("STATEMENTS", statements), encoding="utf-8")
    return rulelang.load(path).new_match(seed=1)  # (the phase runs as the match starts)


def card(m, label):
    return next(e for e in m.s.entities if e.card.label is not None and rulelang_label(m, e) == label)


def rulelang_label(m, e):
    from rulelang.model.builtins import describe
    return describe(e)


def test_a_piece_lies_on_all_its_cells_and_a_query_on_any_finds_it(tmp_path):
    m = match(tmp_path, "move first([t in box where t.n == 1 and t.component == \"Tile\"]) to table at [(0, 0), (1, 0)]")
    table = m.s.zones["table"].cells
    tile = card(m, "tile 1")
    assert table.stack((0, 0)) == [tile] and table.stack((1, 0)) == [tile]
    assert tile.cell == (0, 0)
    assert table.covered_cells(tile) == [(0, 0), (1, 0)]
    assert len(m.s.zones["table"].items) == 1  # one card, on two cells
    assert table.occupied_cells() == [(0, 0), (1, 0)]
    assert (2, 0) in table.empty_cells() and (0, 0) not in table.empty_cells()


def test_placements_list_every_turn_on_free_cells_only(tmp_path):
    m = match(tmp_path, "let t = first([t in box where t.n == 1 and t.component == \"Tile\"])\n"
                        "  move t to table at [(1, 1), (2, 1)]")
    table = m.s.zones["table"].cells
    tile2 = card(m, "tile 2")
    found = placements(table, tile2.card.shape)
    # a 3 by 3 board has 12 pairs of cells side by side, each laid two ways: 24; the tile on
    # (1, 1)-(2, 1) takes the 6 pairs that hold one of those cells: 6 pairs left, 12 placements
    assert len(found) == 12
    assert all(not table.stack(c) for cells in found for c in cells)
    assert [(0, 0), (1, 0)] in found and [(1, 0), (0, 0)] in found
    assert not any((1, 1) in cells or (2, 1) in cells for cells in found)
    # a shape of three cells turns four ways on a square grid
    empty = match(tmp_path, "log \"nothing\"")
    tri = card(empty, "tri 1")
    places = placements(empty.s.zones["table"].cells, tri.card.shape)
    assert [(0, 0), (1, 0), (0, 1)] in places  # as declared
    assert [(1, 0), (1, 1), (0, 0)] in places  # a quarter turn: (x, y) -> (-y, x)
    assert len(places) == 4 * 4  # each turn fits on 4 of the 9 anchors of a 3 by 3 board


def test_placements_and_placed_at_in_the_rules(tmp_path):
    m = match(tmp_path, "let t = first([t in box where t.component == \"Tile\"])\n"
                        "  let u = first([t in box where t.component == \"Tri\"])\n"
                        "  move t to table at first(places_for(table, t))\n"
                        "  move u to table at placed_at(table, u, (2, 2), 2)\n"
                        "  log \"{t} {u}\"")
    table = m.s.zones["table"].cells
    tile, tri = card(m, "tile 1"), card(m, "tri 1")
    assert table.covered_cells(tile) == [(0, 0), (1, 0)]  # the first placement: first cell, first turn
    # a half turn of [(0, 0), (1, 0), (0, 1)] is [(0, 0), (-1, 0), (0, -1)]
    assert table.covered_cells(tri) == [(2, 2), (1, 2), (2, 1)]


def test_neighbours_of_a_piece_are_the_cells_next_to_any_of_its_cells(tmp_path):
    m = match(tmp_path, "let t = first([t in box where t.component == \"Tile\"])\n"
                        "  move t to table at [(0, 1), (1, 1)]\n"
                        "  move first([k in box where k.component == \"Token\"]) to table at (2, 1)\n"
                        "  move first([k in box where k.component == \"Token\"]) to table at (0, 0)\n"
                        "  move first([k in box where k.component == \"Token\"]) to table at (2, 2)\n"
                        "  log \"{t}\"")
    table = m.s.zones["table"].cells
    tile = card(m, "tile 1")
    assert table.piece_neighbour_cells(tile) == [(0, 0), (1, 0), (2, 1), (0, 2), (1, 2)]
    near = table.cards_next_to_piece(tile)
    assert sorted(e.cell for e in near) == [(0, 0), (2, 1)]  # not (2, 2): it touches no cell of the tile
    from rulelang.model.builtins import BUILTINS

    class Ctx:
        s = m.s
    assert BUILTINS["neighbors"].impl(Ctx, tile) == near
    assert BUILTINS["adjacent"].impl(Ctx, tile, card(m, "token 1"))
    assert not BUILTINS["adjacent"].impl(Ctx, tile, card(m, "token 3"))
    assert BUILTINS["neighbor_cells"].impl(Ctx, tile) == [(0, 0), (1, 0), (2, 1), (0, 2), (1, 2)]


def test_moving_a_piece_frees_all_its_cells_and_it_survives_saves_and_copies(tmp_path):
    m = match(tmp_path, "let t = first([t in box where t.component == \"Tile\"])\n"
                        "  move t to table at [(0, 0), (0, 1)]\n"
                        "  move t to table at [(0, 1), (0, 2)]")  # onto one of its own cells: allowed
    table = m.s.zones["table"].cells
    tile = card(m, "tile 1")
    assert table.stack((0, 0)) == [] and table.stack((0, 1)) == [tile] and table.stack((0, 2)) == [tile]
    again = m.game.match_from_json(m.to_json())
    other = again.s.zones["table"].cells
    assert other.pieces == {tile.id: ((0, 1), (0, 2))}
    assert again.s.entities[tile.id].cell == (0, 1)
    copy = m.clone()
    assert copy.s.zones["table"].cells.pieces == table.pieces
    assert copy.s.zones["table"].cells.stack((0, 2)) == [copy.s.entities[tile.id]]
    from rulelang.model.things import move
    move(m.s, tile, m.s.zones["box"])
    assert table.pieces == {} and table.stack((0, 1)) == [] and table.stack((0, 2)) == []


@pytest.mark.parametrize("at, said", [
    ("[(0, 0), (1, 0)]\n  move u to table at [(1, 0), (2, 0)]",
     "lay.rules:18:3: error: tile 2 would lie on (1, 0) of table, where tile 1 lies already"),
    ("[(2, 0), (2 + 1, 0)]", "lay.rules:17:3: error: tile 1 would lie off the board table: it has no cell (3, 0)"),
    ("[(0, 0)]", "lay.rules:17:3: error: tile 1 covers 2 cells, but 1 was given"),
    ("(0, 0)", "lay.rules:17:3: error: tile 1 covers 2 cells of a board: give them as a list"),
    ("[(0, 0), (2, 2)]", "lay.rules:17:3: error: the cells of tile 1 must touch one another, and (2, 2) touches none"),
])
def test_misplaced_pieces_are_rules_errors_at_their_line(tmp_path, at, said):
    with pytest.raises(RulesRuntimeError) as caught:
        match(tmp_path, "let t = first([t in box where t.n == 1 and t.component == \"Tile\"])\n"
                        "  let u = first([t in box where t.n == 2 and t.component == \"Tile\"])\n"
                        f"  move t to table at {at}\n  log \"{{u}}\"")
    assert said in caught.value.format()
    assert "Traceback" not in caught.value.format()


def test_pieces_on_a_track_lie_on_paths(tmp_path):
    m = match(tmp_path, "log \"nothing\"", board="track 4")
    tile = card(m, "tile 1")
    found = placements(m.s.zones["table"].cells, tile.card.shape)
    assert found == [[0, 1], [1, 0], [1, 2], [2, 1], [2, 3], [3, 2]]


def test_pieces_on_a_hex_map_turn_six_ways(tmp_path):
    m = match(tmp_path, "log \"nothing\"", board="hex radius 1")
    tile = card(m, "tile 1")
    found = placements(m.s.zones["table"].cells, tile.card.shape)
    assert len(found) == 12 * 2  # a hex map of radius 1 has 12 pairs of touching cells
    assert [(0, 0), (1, 0)] in found and [(0, 0), (0, 1)] in found and [(0, 0), (-1, 1)] in found


def test_a_layer_has_its_base_boards_cells_and_its_own_cards(tmp_path):
    m = match(tmp_path, "move first([k in box where k.component == \"Token\"]) to marks at (1, 2)\n"
                        "  move first([k in box where k.component == \"Token\"]) to table at (1, 2)")
    marks, table = m.s.zones["marks"], m.s.zones["table"]
    assert marks.cells.topology is table.cells.topology
    assert marks.cells.layer_of == "table"
    assert [str(e) for e in marks.cells.stack((1, 2))] == ["<Token #5>"]
    assert [str(e) for e in table.cells.stack((1, 2))] == ["<Token #6>"]
    with pytest.raises(RulesRuntimeError) as caught:
        match(tmp_path, "move first([k in box where k.component == \"Token\"]) to marks at (4 + 1, 5)")
    assert "lay.rules:15:3: error: the board marks has no cell (5, 5)" in caught.value.format()


def test_a_layer_of_an_open_board_takes_only_cells_holding_a_card(tmp_path):
    with pytest.raises(RulesRuntimeError) as caught:
        match(tmp_path, "move first([k in box where k.component == \"Token\"]) to marks at (5, 5)", board="hex")
    assert "lay.rules:15:3: error: marks lies on the board table, which has no cell (5, 5) yet" in caught.value.format()
    m = match(tmp_path, "move first([k in box where k.component == \"Token\"]) to table at (5, 5)\n"
                        "  move first([k in box where k.component == \"Token\"]) to marks at (5, 5)", board="hex")
    assert len(m.s.zones["marks"].cells.stack((5, 5))) == 1


def test_a_long_piece_on_a_graph_stays_within_the_budget(tmp_path):
    from rulelang.core.budgets import Budgets, using

    game = GAME.replace("covers 2", "covers 12").replace("BOARD", "grid 8 size 5 by 5")
    path = tmp_path / "long.rules"
    path.write_text(game.replace("STATEMENTS", "let t = first([t in box where t.component == \"Tile\"])\n"
                                 "  let n = count(places_for(table, t))\n  log \"{n}\""), encoding="utf-8")
    # a square grid's pieces turn: 12 in a row fit nowhere on 5 by 5
    assert rulelang.load(path).new_match(seed=1).s.log[-1] == "0"
    path.write_text(game.replace("grid 8 size 5 by 5", "graph { a -- b -- c -- d -- e -- f -- g -- h -- i -- j -- k -- l -- m; "
                                 "a -- c -- e -- g -- i -- k -- m; b -- d -- f -- h -- j -- l }")
                    .replace("STATEMENTS", "let t = first([t in box where t.component == \"Tile\"])\n"
                             "  let n = count(places_for(table, t))\n  log \"{n}\""), encoding="utf-8")
    with using(Budgets(list_size=500)):
        with pytest.raises(RulesRuntimeError) as caught:
            rulelang.load(path).new_match(seed=1)
    assert "places_for() would walk more than 500 paths of table for tile 1 (the list_size budget)" in caught.value.format()


@pytest.mark.parametrize("board, at, said", [
    ("grid 4 size 3 by 3", "(3, 0)", "the board table has no cell (3, 0)"),
    ("hex rhombus 3 by 2", "(0, 2)", "the board table has no cell (0, 2)"),
    ("hex rectangle 3 by 3", "(-2, 2)", "the board table has no cell (-2, 2)"),
    ("hex radius 1", "[(1, 0), (2, -1)]", "the board table has no cell (2, -1)"),
])
def test_cells_written_off_a_fixed_board_are_found_by_the_checker(tmp_path, board, at, said):
    from rulelang.core.errors import RulesError

    with pytest.raises(RulesError) as caught:
        match(tmp_path, f"move first([k in box where k.component == \"Token\"]) to table at {at}", board=board)
    assert f"lay.rules:15:" in caught.value.format() and said in caught.value.format()


@pytest.mark.parametrize("board, at", [
    ("hex rectangle 3 by 3", "(-1, 2)"), ("hex rhombus 3 by 2", "(2, 1)"), ("grid 4 size 3 by 3", "(2, 2)"),
    ("grid 4", "(50, -3)"),
])
def test_cells_written_on_the_board_pass(tmp_path, board, at):
    m = match(tmp_path, f"move first([k in box where k.component == \"Token\"]) to table at {at}", board=board)
    assert len(m.s.zones["table"].items) == 1


@pytest.mark.parametrize("at, said", [
    ("(4, 3)", "covers 2 cells of a board: give them as a list"),
    ("[(4, 3), (6, 3)]", "must touch one another"),
    ("[(8, 3), (9, 3)]", "would lie off the board table"),
])
def test_a_scenario_position_lays_a_piece_as_a_move_would(tmp_path, at, said):
    """A position holds a piece on as many free cells as its shape, touching, or fails at its line."""
    from rulelang.core.resources import examples_dir
    from rulelang.tools.scenario import run_file

    path = tmp_path / "s.rules"
    path.write_text(f'scenario "s" {{\n  game "{examples_dir() / "dominoes.rules"}"\n  players 2\n  position {{\n'
                    f'    phase laying\n    table at {at}: Domino(a: 2, b: 5)\n  }}\n  expect count(table) == 1\n}}\n',
                    encoding="utf-8")
    [result] = run_file(path, {})
    assert not result.passed
    assert said in result.message and "6 |     table at" in result.message, result.message
