"""The hot loop's data structures give the same answers as the plain computations they replace:
the incrementally kept frontier and empty cells of a board, rays kept per board shape, options made on demand, and `matched` by augmenting paths."""
import random

import pytest

from rulelang.model.board import BoardCells, Topology, cell_sort_key
from rulelang.model.options import Options


def recomputed_frontier(cells: BoardCells) -> list:
    out = set()
    for cell, stack in cells.stacks.items():
        if stack:
            for other in cells.neighbour_cells(cell):
                if not cells.stacks.get(other):
                    out.add(other)
    return sorted(out, key=cell_sort_key)


def occupied_neighbour_cells(cells: BoardCells, cell) -> list:
    """The occupied cells next to a cell, worked out afresh: in lattice order on an open board."""
    if cells.topology.open:
        return [c for c in cells.topology.lattice_neighbours(cell) if c in cells.stacks]
    return [c for c in cells.neighbour_cells(cell) if cells.stacks[c]]


TOPOLOGIES = [
    Topology("grid", 8), Topology("grid", 4), Topology("hex", 6),
    Topology("grid", 4, width=4, height=3), Topology("hex", 6, radius=2),
    Topology("track", length=6, loop=True),
    Topology("graph", nodes=["a", "b", "c", "d"], edges=[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]),
]


class _Token:
    """A card as a board sees it: an id (its index in the match's cards) and an owner."""

    def __init__(self, id: int):
        self.id, self.owner = id, None


@pytest.mark.parametrize("topology", TOPOLOGIES, ids=lambda t: f"{t.kind}-{'open' if t.open else 'fixed'}")
def test_the_kept_frontier_is_the_recomputed_one(topology):
    rng = random.Random(7)
    cells = BoardCells(topology)
    placed: list = []  # (cell, token)
    tokens: list = []  # by id
    fixed = sorted(cells.stacks, key=cell_sort_key) or [topology.origin()]
    for step in range(400):
        if step == 5:
            assert cells.frontier() == recomputed_frontier(cells)  # from now on kept incrementally
        if placed and rng.random() < 0.4:
            cell, token = placed.pop(rng.randrange(len(placed)))
            cells.remove(cell, token)
        else:
            front = cells.frontier() if cells._touch is not None else recomputed_frontier(cells)
            choices = front + [c for c, _ in placed] + fixed
            if topology.open and not placed:
                choices = [(0, 0)]
            cell = rng.choice(choices)
            token = _Token(len(tokens))
            tokens.append(token)
            cells.place(cell, token, bottom=rng.random() < 0.3)
            placed.append((cell, token))
        if step >= 5:
            assert cells.frontier() == recomputed_frontier(cells), step
        if step >= 9:  # the kept empty cells of a fixed board (empty_cells()), from step 9 on
            expected = [] if topology.open else [c for c in cells.cells() if not cells.stacks.get(c)]
            assert cells.empty_cells() == expected, step
        for cell in [c for c, _ in placed[-3:]] + fixed[:3]:  # neighbors(): the cards next to a cell
            assert cells.cards_next_to(cell) == [e for c in occupied_neighbour_cells(cells, cell) for e in cells.stack(c)]
        if step % 50 == 7:  # a copy keeps its own frontier
            copy = cells.copy(tokens)  # each card replaced by the card of its id: itself
            assert copy.frontier() == cells.frontier()
            assert copy.empty_cells() == cells.empty_cells()
            cells = copy


def test_options_made_on_demand_are_the_full_list_in_order():
    options = Options()
    options.add_product(0, "place", ["c", "cell"], [["x", "y", "z"], [(0, 0), (1, 0)]])
    options.add_product(1, "empty", ["a"], [[]])  # no option at all
    options.add_rows(2, "move", ["a", "b"], [(1, 2), (3, 4)])
    options.add_one(None, "choose", "v", [10, 20])
    options.add_dict({"alt": None, "name": "none", "values": {}})
    full = ([{"alt": 0, "name": "place", "values": {"c": c, "cell": cell}} for c in "xyz" for cell in [(0, 0), (1, 0)]]
            + [{"alt": 2, "name": "move", "values": {"a": 1, "b": 2}}, {"alt": 2, "name": "move", "values": {"a": 3, "b": 4}}]
            + [{"alt": None, "name": "choose", "values": {"v": 10}}, {"alt": None, "name": "choose", "values": {"v": 20}}]
            + [{"alt": None, "name": "none", "values": {}}])
    assert len(options) == len(full) == 11
    for i in reversed(range(len(full))):  # any order of access
        assert options[i] == full[i]
        assert options.name_at(i) == full[i]["name"]
    assert list(options) == full and options == full
    assert options[-1] == full[-1] and options[2:4] == full[2:4]
    assert options[3] is options[3]
    with pytest.raises(IndexError):
        options[11]
    doubled = options.remap(lambda v: {k: (x * 2 if isinstance(x, int) else x) for k, x in v.items()}
                            if isinstance(v, dict) else (v * 2 if isinstance(v, int) else v))
    assert doubled[6] == {"alt": 2, "name": "move", "values": {"a": 2, "b": 4}}
    assert doubled[9] == {"alt": None, "name": "choose", "values": {"v": 40}}
    assert not Options() and len(Options()) == 0


# ------------------------------------------------------------------ the parsed-AST cache

def test_an_unchanged_file_is_read_from_the_ast_cache(tmp_path, monkeypatch):
    import subprocess
    import sys

    from conftest import REPO
    from rulelang.language import astcache
    from rulelang.language.parser import parse_text

    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    game = tmp_path / "tiny.rules"
    text = (REPO / "examples" / "tictactoe.rules").read_text(encoding="utf-8")
    game.write_text(text, encoding="utf-8")
    first = astcache.parse_file_cached(game)
    # one entry for the text, and the declarations of the last version of this path (test_astcache.py)
    assert len(list((tmp_path / "cache").glob("*.pickle"))) == 2
    assert len(list((tmp_path / "cache").glob("decls-*.pickle"))) == 1
    again = astcache.parse_file_cached(game)
    assert again == first == parse_text(text, str(game))
    # a whole `rulelang check` process reads it without importing the parser (nor Lark)
    code = ("import sys, runpy; sys.argv = ['rulelang', 'check', sys.argv[1]]\n"
            "try:\n    runpy.run_module('rulelang', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
            "print('lark' in sys.modules, 'rulelang.language.parser' in sys.modules, code)")
    env = {**__import__("os").environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code, str(game)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.stdout.splitlines()[-1] == "False False 0", out.stdout + out.stderr
    assert "ok" in out.stdout

    # a changed file is parsed again (and its errors are never kept)
    game.write_text(text + "\n}}} oops\n", encoding="utf-8")
    with pytest.raises(Exception) as failed:
        astcache.parse_file_cached(game)
    assert "error" in str(failed.value)
    assert len(list((tmp_path / "cache").glob("*.pickle"))) == 2
    # a damaged entry is parsed again and replaced
    entry = next(p for p in (tmp_path / "cache").glob("*.pickle") if not p.name.startswith("decls-"))
    entry.write_bytes(b"not a pickle")
    game.write_text(text, encoding="utf-8")
    assert astcache.parse_file_cached(game) == first
    monkeypatch.setenv("RULELANG_CACHE", "0")
    assert astcache.cache_dir() is None and astcache.parse_file_cached(game) == first


def test_matched_agrees_with_a_maximum_matching():
    """`matched(...)` uses augmenting paths over lazily asked pairs: same answer as Hopcroft-Karp."""
    import random

    from rulelang.model.builtins import bipartite_matching, saturating_matching_exists

    rng = random.Random(7)
    for _ in range(2000):
        n, m = rng.randint(0, 5), rng.randint(0, 6)
        edges = {(i, j) for i in range(n) for j in range(m) if rng.random() < 0.4}
        asked = []

        def fits(a, b):
            asked.append((a, b))
            return (a, b) in edges

        complete = len(bipartite_matching(list(range(n)), list(range(m)), lambda a, b: (a, b) in edges)) == n
        assert saturating_matching_exists(list(range(n)), list(range(m)), fits) == complete
        assert len(asked) == len(set(asked)), "each pair is tested at most once"


def test_rays_kept_per_board_shape_are_the_walked_ones():
    import rulelang
    from rulelang.model.geometry import _ray

    game = rulelang.load("examples/connect4.rules")
    match = game.new_match(seed=2)
    board = match.s.zones["grid"]
    cells = board.cells.cells()
    for cell in cells:
        for d in [(1, 0), (0, 1), (1, 1), (1, -1), (-1, 0), (0, -1), (-1, -1), (-1, 1), (2, 1)]:
            walked, (x, y) = [], (cell[0] + d[0], cell[1] + d[1])
            while (x, y) in board.cells.stacks:
                walked.append((x, y))
                x, y = x + d[0], y + d[1]
            assert _ray(None, board, cell, d) == walked == _ray(None, board, cell, d)
    assert _ray(None, board, (0, 0), (1, 0)) is not _ray(None, board, (0, 0), (1, 0))  # each call its own list
