"""Connect four written by hand in plain, fast Python: the reference for `examples/connect4.rules`.

The same game with uniform-random choices: 7 columns of 6 rows, player 1 starts, each move drops
a disc into a column that is not full (chosen at random) onto the lowest empty cell, four in a
row, a column or a diagonal wins, a full grid is a draw. The grid is a flat list (cell = x * 6 + y);
the lines of four through each cell are computed once, at import.
"""
from __future__ import annotations

import random

RULES = "connect4"
PLAYERS = 2

COLUMNS, ROWS = 7, 6


def _lines_through() -> tuple:
    lines = []
    for x in range(COLUMNS):
        for y in range(ROWS):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(x + dx * i, y + dy * i) for i in range(4)]
                if all(0 <= cx < COLUMNS and 0 <= cy < ROWS for cx, cy in cells):
                    lines.append(tuple(cx * ROWS + cy for cx, cy in cells))
    through = [[] for _ in range(COLUMNS * ROWS)]
    for line in lines:
        for cell in line:
            # the other three cells of the line: the new disc's own cell need not be read
            through[cell].append(tuple(c for c in line if c != cell))
    return tuple(tuple(t) for t in through)


LINES_THROUGH = _lines_through()


def playout(rng: random.Random) -> tuple[list[int], int]:
    """One game between two uniform-random players: (winners as 1-based seats, decisions)."""
    board = [0] * (COLUMNS * ROWS)
    heights = [0] * COLUMNS
    open_columns = list(range(COLUMNS))
    randrange = rng.randrange
    player = 1
    decisions = 0
    while open_columns:
        n = len(open_columns)
        i = randrange(n) if n > 1 else 0
        decisions += n > 1
        x = open_columns[i]
        cell = x * ROWS + heights[x]
        heights[x] += 1
        if heights[x] == ROWS:
            open_columns.pop(i)  # keeps the columns in order, as the rules list them
        board[cell] = player
        for a, b, c in LINES_THROUGH[cell]:
            if board[a] == player and board[b] == player and board[c] == player:
                return [player], decisions
        player = 3 - player
    return [], decisions
