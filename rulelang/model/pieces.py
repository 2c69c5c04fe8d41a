"""Pieces: cards that lie on several cells of a board at once (a two-square tile, a polyomino, a
two-cell building: its component says `covers N` or `covers [offsets]`). A shape is a tuple of
offsets, its first cell first; `shape_turns` turns it on a square grid or a hex map, `placements`
lists where it may be laid, and the built-ins `places_for`, `placed_at` and `covered_cells` give
the rules the same. The board keeps each piece's cells (`BoardCells.pieces`, `place_piece`).
They go into `builtins.BUILTINS` when the package loads (its __init__ imports this module).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rulelang.model.builtins import RuleFailure, board_of, budgets_of, builtin, describe
from rulelang.model.things import Entity

if TYPE_CHECKING:
    from rulelang.model.board import BoardCells


def shape_turns(kind: str, shape: tuple) -> list:
    """Every turn of a shape (offsets, its first cell first) on a square or hex board, each made
    relative to its first cell: 4 on a square grid, 6 on a hex map (alike turns are kept: turn n is
    always the n-th)."""
    out = []
    cur = tuple(shape)
    for _ in range(4 if kind == "grid" else 6):
        x0, y0 = cur[0]
        out.append(tuple((x - x0, y - y0) for x, y in cur))
        # a quarter turn (square grid) or a sixth of one (hex, axial)
        cur = tuple((-y, x) if kind == "grid" else (-y, x + y) for x, y in cur)
    return out


def placements(board: BoardCells, shape: tuple, most: int = 1_000_000) -> list:
    """Where a piece of this shape may be laid on a board, each a list of cells (the shape's first cell
    first): on a square or hex board, every turn of the shape with all its cells free and on the
    board (an open board: touching a card already there, or on the origin when it is empty);
    on a track or a graph, every path of that many free cells. Walking more than `most` cells
    (a long piece on a graph has very many paths) raises OverflowError."""
    t = board.topology
    stacks = board.stacks
    found: dict = {}
    if t.kind in ("grid", "hex"):
        turns = list(dict.fromkeys(shape_turns(t.kind, shape)))
        if t.open:
            if not any(stacks.values()):
                anchors = [(t.origin(), 0)]
            else:
                anchors = [(f, i) for f in board.frontier() for i in range(len(shape))]
        else:
            anchors = [(a, 0) for a in board.empty_cells()]
        for cell, i in anchors:
            for turn in turns:
                ox, oy = cell[0] - turn[i][0], cell[1] - turn[i][1]
                cells = tuple((ox + dx, oy + dy) for dx, dy in turn)
                if cells not in found and all(not stacks.get(c) and (t.open or c in stacks) for c in cells):
                    found[cells] = None
    else:
        n = len(shape)
        steps = [0]

        def walk(path):
            steps[0] += 1
            if steps[0] > most:
                raise OverflowError(most)
            if len(path) == n:
                found[tuple(path)] = None
                return
            for o in board.neighbour_cells(path[-1]):
                if o not in path and not stacks.get(o):
                    walk(path + [o])

        for cell in board.empty_cells():
            walk([cell])
    return [list(cells) for cells in found]


def _shape_of(piece) -> tuple:
    if not isinstance(piece, Entity):
        raise RuleFailure(f"a piece is a card, not {describe(piece)}")
    return piece.card.shape or ((0, 0),)


@builtin("places_for", 2, 2, "where a card may be laid on a board: every list of free cells its shape fits "
         "(places_for(board, piece); a piece of `covers N` cells in every turn)")
def _places_for(ctx, board, piece):
    board = board_of(board)
    most = budgets_of(ctx).list_size
    try:
        return placements(board.cells, _shape_of(piece), most)
    except OverflowError:
        raise RuleFailure(f"places_for() would walk more than {most:,} paths of {board.name} for {describe(piece)} "
                          "(the list_size budget); raise it with --budget list_size=N") from None


@builtin("placed_at", 3, 4, "the cells a piece would cover with its first cell on a cell, turned n times "
         "(a quarter turn on a square grid, a sixth on a hex map): placed_at(board, piece, cell, n)")
def _placed_at(ctx, board, piece, cell, turn=0):
    board = board_of(board)
    kind = board.cells.topology.kind
    if kind not in ("grid", "hex"):
        raise RuleFailure(f"placed_at() turns a piece on a square grid or a hex map, and {board.name} is a {kind}: "
                          "name its cells, or choose one of places_for(board, piece)")
    if not (isinstance(cell, tuple) and len(cell) == 2):
        raise RuleFailure(f"placed_at() needs a cell (x, y), not {describe(cell)}")
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise RuleFailure(f"placed_at() turns a piece a whole number of times, not {describe(turn)}")
    turns = shape_turns(kind, _shape_of(piece))
    return [(cell[0] + dx, cell[1] + dy) for dx, dy in turns[turn % len(turns)]]


@builtin("covered_cells", 1, 1, "the cells a card on a board lies on (a piece's every cell, its first first)")
def _covered_cells(ctx, x):
    return board_of(x).cells.covered_cells(x)
