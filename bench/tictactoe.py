"""Tic-tac-toe written by hand in plain, fast Python: the reference for `examples/tictactoe.rules`.

The same game with uniform-random choices: player 1 (crosses) starts, each move marks one empty
cell chosen at random, three in a line wins, a full grid is a draw. The grid is a flat list of 9
cells; the lines through each cell are computed once, at import.
"""
from __future__ import annotations

import random

RULES = "tictactoe"  # the rules file this reference plays (a bundled example's name)
PLAYERS = 2

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINES_THROUGH = tuple(tuple(line for line in LINES if cell in line) for cell in range(9))


def playout(rng: random.Random) -> tuple[list[int], int]:
    """One game between two uniform-random players: (winners as 1-based seats, decisions)."""
    board = [0] * 9
    free = list(range(9))
    randrange = rng.randrange
    player = 1
    decisions = 0
    while free:
        i = randrange(len(free)) if len(free) > 1 else 0
        decisions += len(free) > 1
        cell = free[i]
        free[i] = free[-1]
        free.pop()
        board[cell] = player
        for a, b, c in LINES_THROUGH[cell]:
            if board[a] == board[b] == board[c]:
                return [player], decisions
        player = 3 - player
    return [], decisions
