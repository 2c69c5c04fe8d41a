"""The boards' geometry: built-ins for lines, edges and regions of a board, and for recognising a
position seen before. They go into `builtins.BUILTINS` when the package loads (its __init__
imports this module).

- Directions are (dx, dy) steps of a grid or hex board's lattice; a `ray` goes to the board's edge,
  which a comprehension cuts short: `[c in ray(board, cell, d) while empty(at(board, c))]`.
- Regions are groups of touching cells among cells the rules select; they only visit the selected
  cells, through the board's neighbour table (a seat's own groups are kept by the board).
- `snapshot(...)` is a text that is the same exactly when the boards (or values) given are the same:
  kept in a list var it is a record of earlier positions, for repetition rules.
"""
from __future__ import annotations

from rulelang.model.board import GRID4, GRID8, HEX6, cell_sort_key, sort_cells
from rulelang.model.builtins import RuleFailure, as_list, builtin, describe
from rulelang.model.things import BoardZone, Entity, Player, Zone

EDGE_NAMES = ("top", "bottom", "left", "right")
# the built-ins whose first value is a board (the checker says so when it is a zone that is not one)
BOARD_FUNCTIONS = ("directions", "straight_directions", "diagonal_directions", "towards", "ray", "edge",
                   "empty_cells", "owned_cells", "regions", "region", "cells_around", "cards_on")


def _board(x, fn: str) -> BoardZone:
    if not isinstance(x, BoardZone):
        raise RuleFailure(f"{fn}() needs a board as its first value, not {describe(x)}")
    return x


def _lattice(x, fn: str):
    """The topology of a board with directions (a grid or hex board), or a RuleFailure."""
    topo = _board(x, fn).cells.topology
    if topo.kind not in ("grid", "hex"):
        raise RuleFailure(f"{fn}() needs a grid or hex board: a {topo.kind} has no directions")
    return topo


def _direction(d, fn: str):
    if type(d) is tuple and len(d) == 2 and type(d[0]) is int and type(d[1]) is int:
        return d
    if not (isinstance(d, tuple) and len(d) == 2 and all(isinstance(v, int) for v in d)):
        raise RuleFailure(f"{fn}() needs a direction, a pair of whole numbers such as (1, 0); got {describe(d)}")
    return d


@builtin("directions", 1, 1, "every direction of a grid or hex board, as (dx, dy) steps: 4 or 8 on a grid, 6 on a hex board")
def _directions(ctx, board):
    return list(_lattice(board, "directions").deltas)


@builtin("straight_directions", 1, 1, "the four directions along rows and columns of a square grid: (1, 0), (-1, 0), (0, 1), (0, -1)")
def _straight(ctx, board):
    topo = _lattice(board, "straight_directions")
    return list(GRID4) if topo.kind == "grid" else list(HEX6)


@builtin("diagonal_directions", 1, 1, "the four diagonal directions of a square grid: (1, 1), (1, -1), (-1, 1), (-1, -1)")
def _diagonal(ctx, board):
    topo = _lattice(board, "diagonal_directions")
    if topo.kind != "grid":
        raise RuleFailure("diagonal_directions() needs a square grid")
    return [d for d in GRID8 if d[0] and d[1]]


@builtin("towards", 3, 4, "the cell one step (or n steps: towards(board, cell, d, n)) from a cell in a direction, or none off the board")
def _towards(ctx, board, cell, d, n=1):
    _lattice(board, "towards")
    dx, dy = _direction(d, "towards")
    target = (cell[0] + dx * n, cell[1] + dy * n)
    return target if target in board.cells.stacks or board.cells.topology.open else None


@builtin("ray", 3, 3, "the cells in a line from a cell (not included) in a direction to the board's edge, nearest first; "
                      "cut it short with [c in ray(board, cell, d) while cond]")
def _ray(ctx, board, cell, d):
    if _lattice(board, "ray").open:
        raise RuleFailure("ray() needs a board of fixed size (an open board has no edge)")
    dx, dy = _direction(d, "ray")
    return board.cells.ray(cell, dx, dy)


@builtin("edge", 2, 2, 'the cells along one side of a fixed grid or hex board: edge(board, "top"), "bottom", "left" or "right"')
def _edge(ctx, board, side):
    board = _board(board, "edge")
    topo = board.cells.topology
    if side not in EDGE_NAMES:
        raise RuleFailure(f'edge() knows the sides "top", "bottom", "left" and "right", not {describe(side)}')
    if topo.kind not in ("grid", "hex") or topo.width is None:
        raise RuleFailure("edge() needs a square grid with a size or a hex rhombus or rectangle")
    # a fixed board's sides never change: each is computed once per board shape
    cache = topo.edge_cache
    if side not in cache:
        cache[side] = _edge_cells(board.cells.cells(), side, topo.height)
    return list(cache[side])


def _edge_cells(cells: list, side: str, height: int) -> list:
    if side == "top":
        return [c for c in cells if c[1] == 0]
    if side == "bottom":
        return [c for c in cells if c[1] == height - 1]
    rows: dict = {}
    for c in cells:
        rows.setdefault(c[1], []).append(c[0])
    pick = min if side == "left" else max
    return [(pick(xs), y) for y, xs in sorted(rows.items())]


@builtin("empty_cells", 1, 1, "the cells of a fixed board that hold no card")
def _empty_cells(ctx, board):
    return _board(board, "empty_cells").cells.empty_cells()


@builtin("owned_cells", 2, 2, "the cells of a board whose top card belongs to a player")
def _owned_cells(ctx, board, player):
    board = _board(board, "owned_cells")
    if not isinstance(player, Player):
        raise RuleFailure(f"owned_cells() needs a player as its second value, not {describe(player)}")
    return board.cells.owned_by(player.seat)


def _cell_set(cells) -> set:
    items = as_list(cells)
    if Entity not in set(map(type, items)):  # cells only (the usual case): one C-level pass
        return set(items)
    out = set()
    for c in items:
        if isinstance(c, Entity):
            c = c.cell
        out.add(c)
    return out


@builtin("regions", 2, 2, "the groups of touching cells among the given cells (or cards' cells), each a list of cells: "
                          "regions(board, owned_cells(board, p))")
def _regions(ctx, board, cells):
    return _board(board, "regions").cells.regions(_cell_set(cells))


@builtin("region", 3, 3, "the group of touching cells, among the given cells, that holds one cell (empty if the cell is not "
                         "among them): region(board, cell, owned_cells(board, p))")
def _region(ctx, board, cell, cells):
    return _board(board, "region").cells.region(cell.cell if isinstance(cell, Entity) else cell, _cell_set(cells))


@builtin("cells_around", 2, 2, "the cells next to any of the given cells (or cards' cells) but not among them: "
                               "the border of a group")
def _cells_around(ctx, board, cells):
    board = _board(board, "cells_around")
    known = board.cells.border_of(cells)  # (a list asked about before: a group the board keeps, a def's value)
    if known is not None:
        return known
    members = _cell_set(cells)
    neighbours = board.cells.neighbour_cells
    out = sort_cells({other for cell in members for other in neighbours(cell) if other not in members})
    board.cells.keep_border(cells, out)
    return out


@builtin("cards_on", 2, 2, "the cards on the given cells of a board, cell by cell, bottom first")
def _cards_on(ctx, board, cells):
    stack = _board(board, "cards_on").cells.stack
    return [e for c in as_list(cells) for e in stack(c)]


def _snap(value) -> str:
    if isinstance(value, BoardZone):
        parts = []
        for cell, stack in sorted(value.cells.stacks.items(), key=lambda kv: cell_sort_key(kv[0])):
            if stack:
                parts.append(f"{describe(cell)}=" + "+".join(_card_key(e) for e in stack))
        return value.key + "{" + ";".join(parts) + "}"
    if isinstance(value, Zone):
        return value.key + "[" + ",".join(_card_key(e) for e in value.items) + "]"
    if isinstance(value, list):
        return "[" + ",".join(_snap(v) for v in value) + "]"
    return describe(value)


def _card_key(e: Entity) -> str:
    fields = ",".join(f"{k}={describe(v)}" for k, v in sorted(e.attrs.items()))
    return f"{e.card.component}({fields})@{e.owner}" + ("v" if e.face_down else "")


@builtin("snapshot", 1, None, "a text that is the same exactly when the given boards, zones and values are the same "
                              "(cards compared by kind, fields and owner): keep it in a list var to recognise a "
                              "position seen before")
def _snapshot(ctx, *values):
    return "|".join(_snap(v) for v in values)
