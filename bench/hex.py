"""Hex written by hand in plain, fast Python: the reference for `examples/hex.rules`.

The same game with uniform-random choices: an 11 by 11 rhombus of hexagons, Red (player 1) joins
the top and bottom rows, Blue the left and right columns, players alternate placing a stone on an
empty cell (chosen at random), and the first chain joining a player's two sides wins. After each
move a search from the new stone through the mover's stones looks for both sides, as the rules
file does with `region`. Cells are flat indices (cell = r * 11 + q); the neighbours of each cell
are computed once, at import.
"""
from __future__ import annotations

import random

RULES = "hex"
PLAYERS = 2

SIZE = 11
HEX6 = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def _neighbours() -> tuple:
    out = []
    for r in range(SIZE):
        for q in range(SIZE):
            out.append(tuple((r + dr) * SIZE + q + dq for dq, dr in HEX6
                             if 0 <= q + dq < SIZE and 0 <= r + dr < SIZE))
    return tuple(out)


NEIGHBOURS = _neighbours()


def playout(rng: random.Random) -> tuple[list[int], int]:
    """One game between two uniform-random players: (winners as 1-based seats, decisions)."""
    board = [0] * (SIZE * SIZE)
    empty = list(range(SIZE * SIZE))  # in the rules' order: row by row
    randrange = rng.randrange
    player = 1
    decisions = 0
    while True:
        n = len(empty)
        i = randrange(n) if n > 1 else 0
        decisions += n > 1
        cell = empty.pop(i)
        board[cell] = player
        seen, todo = {cell}, [cell]
        while todo:
            for other in NEIGHBOURS[todo.pop()]:
                if board[other] == player and other not in seen:
                    seen.add(other)
                    todo.append(other)
        if player == 1:
            ends = {c // SIZE for c in seen}  # rows
        else:
            ends = {c % SIZE for c in seen}   # columns
        if 0 in ends and SIZE - 1 in ends:
            return [player], decisions
        player = 3 - player
