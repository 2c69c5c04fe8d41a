"""How much slower random Hex is in rulelang than in hand-written Python.

    python3 bench/hex_vs_python.py [games]

Both play 11 by 11 Hex with uniformly random moves until a player joins their sides. The
hand-written version is what a programmer would write first: a set of each player's stones and,
after each move, a search from the new stone through that player's stones for both sides. The
rulelang version is examples/hex.rules run by the interpreter, choices answered by index.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rulelang  # noqa: E402

N = 11
HEX6 = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def python_game(rng: random.Random) -> int:
    empty = [(q, r) for r in range(N) for q in range(N)]
    stones: list[set] = [set(), set()]
    player = 0
    while True:
        cell = empty.pop(rng.randrange(len(empty)))
        mine = stones[player]
        mine.add(cell)
        seen, todo = {cell}, [cell]
        while todo:
            q, r = todo.pop()
            for dq, dr in HEX6:
                other = (q + dq, r + dr)
                if other in mine and other not in seen:
                    seen.add(other)
                    todo.append(other)
        axis = 1 if player == 0 else 0  # Red joins top and bottom (rows), Blue left and right
        if any(c[axis] == 0 for c in seen) and any(c[axis] == N - 1 for c in seen):
            return player
        player = 1 - player


def rulelang_game(game, seed: int) -> int:
    match = game.new_match(players=2, seed=seed)
    rng = random.Random(seed)
    while not match.is_over:
        match.apply(rng.randrange(match.option_count()))
    return match.result["winners"][0] - 1


def main(games: int = 200) -> None:
    rng = random.Random(1)
    start = time.perf_counter()
    wins = sum(python_game(rng) == 0 for _ in range(games))
    python_time = (time.perf_counter() - start) / games
    game = rulelang.load(str(ROOT / "examples" / "hex.rules"))
    start = time.perf_counter()
    rl_wins = sum(rulelang_game(game, seed) == 0 for seed in range(games))
    rulelang_time = (time.perf_counter() - start) / games
    print(f"hand-written Python: {python_time * 1000:8.2f} ms a game, first player wins {wins / games:.1%}")
    print(f"rulelang:            {rulelang_time * 1000:8.2f} ms a game, first player wins {rl_wins / games:.1%}")
    print(f"rulelang is {rulelang_time / python_time:.0f} times slower ({games} games each)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
