"""Board shapes, directions and rays, regions, several `for` clauses, `while`/`until` lists and
snapshots (the constructs the classic abstract games in examples/ need; no game's names here)."""
from __future__ import annotations

import pytest

from conftest import load_rules
from rulelang.language import nodes as N
from rulelang.core.errors import RulesError, RulesRuntimeError
from rulelang.model.board import cell_sort_key, sort_cells
from rulelang.model.geometry import _cells_around
from rulelang.language.parser import parse_text

HEAD = """
game "Probe" { players 2  round: play }
component Stone { }
cards stones { Stone() * 20 }
zone bowl per player
zone rhombus: board hex rhombus 4 by 3
zone rectangle: board hex rectangle 4 by 3
zone square: board grid 8 size 5 by 4
zone plus: board grid 4 size 5 by 5
var out: list of any = []
setup {
  create stones in bowl(player(1))
  create stones in bowl(player(2))
}
"""


def evaluate(expr: str, setup: str = ""):
    """The value of an expression after the setup statements (run in the one turn of the game)."""
    text = HEAD + f"""
phase play {{
  {setup}
  out = [{expr}]
  end game
}}
"""
    game = load_rules(text)
    match = game.new_match(seed=1)
    while not match.is_over:
        match.apply(0)
    return match.s.globals["out"][0]


def place(player: int, *cells, board="square") -> str:
    return "\n".join(f"move top(bowl(player({player}))) to {board} at {c}" for c in cells)


# ------------------------------------------------------------------ shapes


def test_hex_rhombus_has_width_times_height_cells_and_six_neighbours_inside():
    assert evaluate("count(cells(rhombus))") == 12
    assert evaluate("neighbor_cells(rhombus, (1, 1))") == [(1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2)]
    assert evaluate("count(neighbor_cells(rhombus, (0, 0)))") == 2  # an acute corner


def test_hex_rectangle_rows_are_shifted_every_other_row():
    cells = evaluate("cells(rectangle)")
    assert len(cells) == 12
    assert [c for c in cells if c[1] == 2] == [(-1, 2), (0, 2), (1, 2), (2, 2)]
    assert evaluate('edge(rectangle, "left")') == [(0, 0), (0, 1), (-1, 2)]


def test_edges_name_the_sides_of_fixed_boards():
    assert evaluate('edge(square, "top")') == [(x, 0) for x in range(5)]
    assert evaluate('edge(square, "bottom")') == [(x, 3) for x in range(5)]
    assert evaluate('edge(square, "left")') == [(0, y) for y in range(4)]
    assert evaluate('edge(rhombus, "right")') == [(3, 0), (3, 1), (3, 2)]


# ------------------------------------------------------------------ directions and rays


def test_directions_of_each_lattice():
    assert len(evaluate("directions(square)")) == 8
    assert len(evaluate("directions(plus)")) == 4
    assert len(evaluate("directions(rhombus)")) == 6
    assert evaluate("diagonal_directions(square)") == [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    assert evaluate("straight_directions(square)") == [(1, 0), (-1, 0), (0, 1), (0, -1)]


def test_towards_is_none_off_the_board():
    assert evaluate("towards(square, (0, 0), (1, 1), 2)") == (2, 2)
    assert evaluate("towards(square, (0, 0), (-1, 0))") is None


def test_ray_runs_to_the_edge_and_a_while_list_cuts_it_short():
    assert evaluate("ray(square, (1, 1), (1, 0))") == [(2, 1), (3, 1), (4, 1)]
    assert evaluate("ray(square, (4, 1), (1, 0))") == []
    # the opponent's stones in a line, up to the first cell that is not one
    run = evaluate("[c in ray(square, (0, 0), (1, 0)) while not empty(at(square, c))]",
                   place(2, "(1, 0)", "(2, 0)") + "\n" + place(1, "(3, 0)"))
    assert run == [(1, 0), (2, 0), (3, 0)]
    until = evaluate("[c in ray(square, (0, 0), (1, 0)) until owner(top_at(square, c)) == player(1)]",
                     place(2, "(1, 0)", "(2, 0)") + "\n" + place(1, "(3, 0)"))
    assert until == [(1, 0), (2, 0)]


# ------------------------------------------------------------------ several for clauses


def test_a_comprehension_with_two_for_clauses_nests_them():
    assert evaluate("[(q, r) for q in 0..1 for r in 0..2 where q != r]") == [(0, 1), (0, 2), (1, 0), (1, 2)]
    # a later clause may use an earlier name
    assert evaluate("[(a, b) for a in 1..3 for b in a..3]") == [(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3)]
    assert evaluate("sum(a * b for a in 1..2 for b in 1..3)") == 18
    assert evaluate("any(a + b == 5 for a in 1..2 for b in 1..3)") is True


def test_the_parser_keeps_each_for_clause():
    rules = parse_text("def pairs = [(x, y) for x in 0..2 for y in 0..x where x != y]\n", "t.rules")
    body = rules.decls[0].body
    assert isinstance(body, N.MapList)
    assert body.var == "x" and [f.var for f in body.more] == ["y"]
    keep = parse_text("def run = [c in cs while c > 0]\n", "t.rules").decls[0].body
    assert isinstance(keep, N.FilterList) and keep.keep == "while"


def test_the_checker_knows_names_of_every_clause():
    with pytest.raises(RulesError) as err:
        load_rules(HEAD + "def bad = [(a, b) for a in 1..2 for b in 1..c]\nphase play { end game }\n")
    assert '"c"' in str(err.value)


# ------------------------------------------------------------------ regions


def test_regions_group_touching_cells_among_the_selected_ones():
    setup = place(1, "(0, 0)", "(1, 1)", "(3, 3)") + "\n" + place(2, "(2, 2)")
    assert evaluate("regions(square, owned_cells(square, player(1)))", setup) == [[(0, 0), (1, 1)], [(3, 3)]]
    setup4 = place(1, "(0, 0)", "(1, 1)", board="plus")
    assert evaluate("regions(plus, owned_cells(plus, player(1)))", setup4) == [[(0, 0)], [(1, 1)]]
    assert evaluate("region(square, (1, 1), owned_cells(square, player(1)))", setup) == [(0, 0), (1, 1)]
    assert evaluate("region(square, (2, 2), owned_cells(square, player(1)))", setup) == []


def test_cells_around_a_group_and_its_empty_ones():
    setup = place(1, "(0, 0)", "(1, 0)", board="plus") + "\n" + place(2, "(0, 1)", board="plus")
    around = evaluate("cells_around(plus, [(0, 0), (1, 0)])", setup)
    assert around == [(2, 0), (0, 1), (1, 1)]
    free = evaluate("[c in cells_around(plus, owned_cells(plus, player(1))) where empty(at(plus, c))]", setup)
    assert free == [(2, 0), (1, 1)]
    assert evaluate("count(empty_cells(plus))", setup) == 22
    assert evaluate("count(cards_on(plus, [(0, 0), (0, 1), (4, 4)]))", setup) == 2


def test_regions_of_empty_cells_are_territories():
    # a wall of stones down column 1 splits the 5 by 5 board into a column of 5 and one of 15
    setup = place(1, *[f"(1, {y})" for y in range(5)], board="plus")
    sizes = evaluate("[count(r) for r in regions(plus, empty_cells(plus))]", setup)
    assert sizes == [5, 15]


# ------------------------------------------------------------------ snapshots


def test_snapshots_are_equal_exactly_for_equal_positions():
    same = evaluate("snapshot(square) == snapshot(square)", place(1, "(0, 0)"))
    assert same is True
    setup = place(1, "(0, 0)") + "\nlet before = snapshot(square)\n" + place(1, "(1, 0)")
    assert evaluate("before == snapshot(square)", setup) is False
    # the same cards on the same cells, put there in another order, are the same position
    a = "let a = snapshot(square, player(1))\n"
    setup = (place(1, "(0, 0)", "(1, 0)") + "\n" + a + "move top_at(square, (0, 0)) to bowl(player(1))\n"
             "move top_at(square, (1, 0)) to bowl(player(1))\n" + place(1, "(1, 0)", "(0, 0)"))
    assert evaluate("a == snapshot(square, player(1))", setup) is True


# ------------------------------------------------------------------ mistakes found at run time


def test_a_board_function_given_a_pile_names_the_rule():
    text = HEAD + 'def d = directions(bowl(player(1)))\nphase play { out = d\n end game }\n'
    game = load_rules(text)
    with pytest.raises(RulesRuntimeError) as err:
        match = game.new_match(seed=1)
        while not match.is_over:
            match.apply(0)
    assert "needs a board" in str(err.value)


@pytest.mark.parametrize("name", ["square", "plus", "rhombus"])
def test_the_cells_a_seat_owns_stay_right_as_cards_come_go_and_change_owners(name):
    """owned_cells(board, p) on a fixed board is listed once, then kept up to date: after any mix of
    cards placed (on top or at the bottom), removed, given to another seat and copied with the
    match, it equals a fresh scan of the top cards, as a list and as a set, and the groups of
    touching cells kept of them (regions and region of owned_cells), and their borders
    (cells_around, kept by list), equal networkx's. The cards next to a cell (remembered until a
    card comes or goes) equal a fresh scan too, and a caller changing the list it got changes
    nothing."""
    import random

    from rulelang.model.things import move, set_owner

    game = load_rules(HEAD + "phase play { choose x from [1, 2] by player(1) as \"Wait\" }")
    match = game.new_match(seed=1)
    s = match.s
    board = s.zones[name]
    bowls = [s.zones["bowl#1"], s.zones["bowl#2"]]
    rng = random.Random(7)
    probes = random.Random(8)

    def scan(cells, seat):
        return [c for c in cells.cells() if cells.stack(c) and cells.stack(c)[-1].owner == seat]

    def groups(cells, seat):  # regions(board, owned_cells(board, seat)), by networkx
        import networkx as nx

        found = [sort_cells(g) for g in nx.connected_components(cells.graph.subgraph(scan(cells, seat)))]
        return sorted(found, key=lambda g: cell_sort_key(g[0]))

    for step in range(400):
        cells = board.cells
        if step % 50 == 0:
            assert cells.owned_by(0) == scan(cells, 0)  # builds the index (again, on a copy)
        roll = rng.random()
        on_board = list(board.items)
        if roll < 0.45 or not on_board:
            pool = [e for b in bowls for e in b.items]
            if pool:
                move(s, rng.choice(pool), board, rng.choice(cells.cells()), bottom=rng.random() < 0.3)
        elif roll < 0.75:
            move(s, rng.choice(on_board), rng.choice(bowls))
        else:
            set_owner(s, rng.choice(on_board), rng.choice([0, 1, None]))
        for seat in (0, 1):
            assert cells.owned_by(seat) == scan(cells, seat), step
            assert cells.owned_set(seat) == set(scan(cells, seat)), step  # (what a region walks through)
            if step % 3 == seat:  # (the groups are kept once asked for: sometimes several changes between)
                assert cells.owned_groups(seat) == groups(cells, seat), step
                probe = rng.choice(cells.cells())
                assert cells.owned_group(seat, probe) == next((g for g in groups(cells, seat) if probe in g), []), step
                for group in cells.owned_groups(seat):  # their borders, kept by list (cells_around)
                    border = {n for c in group for n in cells.graph.neighbors(c)} - set(group)
                    assert _cells_around(None, board, group) == sort_cells(border), step
        for probe in probes.sample(cells.cells(), 3):
            around = [e for c in cells.neighbour_cells(probe) for e in cells.stack(c)]
            got = cells.cards_next_to(probe)
            assert got == around, step
            got.append("not a card")
            assert cells.cards_next_to(probe) == around, step
        if step % 97 == 0:
            match = match.clone()
            s = match.s
            board = s.zones[name]
            bowls = [s.zones["bowl#1"], s.zones["bowl#2"]]


def test_distance_on_graphs_and_tracks_counts_steps_and_is_minus_one_without_a_path():
    """`distance` on a graph board follows its edges (an island is -1), and a looping track is
    measured the short way round."""
    text = """
game "Steps" { players 2  round: play }
zone rooms: board graph { hall -- kitchen -- cellar; hall -- stairs; attic }
zone ring: board track 6 loop
zone lane: board track 6
var out: list of any = []
phase play {
  out = [distance(rooms, "hall", "cellar"), distance(rooms, "stairs", "cellar"), distance(rooms, "hall", "attic"),
         distance(ring, 0, 5), distance(lane, 0, 5), distance(ring, 1, 4)]
  end game
}
"""
    match = load_rules(text).new_match(seed=1)
    assert match.is_over
    assert match.s.globals["out"] == [2, 3, -1, 1, 5, 3]
