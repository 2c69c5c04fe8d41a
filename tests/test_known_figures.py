"""Random play reproduces published outcome rates of classic games.

Both players choose uniformly at random among the legal options, as in the published figures:
- tic-tac-toe: the first player wins 58.5%, the second 28.8%, draws 12.7% (all 255,168 games
  of random play, weighted by their probability);
- connect four (7 by 6): the first player wins about 55.6%, the second 44.2%, draws 0.2%;
- Hex 11 by 11: the first player wins slightly more than half of random games (random Hex
  is a coin-flip-like fill of the board; the first player has one stone more).

How many games and how close: a rate p measured over n games has a binomial standard error
sqrt(p (1 - p) / n). Each rate must lie within 3.5 standard errors of the published one (a
correct game fails such a check with probability about 1 in 2,000; the games are seeded, so the
test is deterministic). n is chosen so each game's check runs in a few seconds: 800 games of
tic-tac-toe (one standard error 1.7 points), 300 of connect four (2.9 points) and 200 of Hex
(3.5 points); about 15 s in all on one free core. The connect four draw rate (0.2%) is too small to check with 300 games beyond
"rare": at most 2% of games.
"""
from __future__ import annotations

import math
import random

import pytest

import rulelang
from conftest import REPO

SIGMAS = 3.5


def outcome_rates(name: str, games: int) -> tuple[float, float, float]:
    """(first player wins, second player wins, draws) over seeded random games."""
    game = rulelang.load(str(REPO / "examples" / f"{name}.rules"))
    counts = [0, 0, 0]
    for seed in range(games):
        match = game.new_match(players=2, seed=seed)
        rng = random.Random(10_000 + seed)
        while not match.is_over:
            match.apply(rng.randrange(match.option_count()))
        winners = match.result["winners"]
        counts[winners[0] - 1 if len(winners) == 1 else 2] += 1
    return tuple(c / games for c in counts)


def within(observed: float, published: float, games: int) -> bool:
    return abs(observed - published) <= SIGMAS * math.sqrt(published * (1 - published) / games)


@pytest.mark.parametrize("name, games, published", [
    ("tictactoe", 800, (0.585, 0.288, 0.127)),
    ("connect4", 300, (0.556, 0.442, None)),
])
def test_random_play_matches_the_published_rates(name, games, published):
    rates = outcome_rates(name, games)
    for what, observed, expected in zip(("first player wins", "second player wins", "draws"), rates, published):
        if expected is not None:
            assert within(observed, expected, games), \
                f"{name}: {what} {observed:.3f} over {games} games, published {expected:.3f}"
    if name == "connect4":
        assert rates[2] <= 0.02, f"connect four: draws {rates[2]:.3f}, published 0.002"


def test_hex_first_player_wins_slightly_more_than_half():
    games = 200
    first, second, draws = outcome_rates("hex", games)
    assert draws == 0, "Hex has no draws"
    # "slightly more than half": not below one half, nor above 0.55, by more than the sampling error
    error = SIGMAS * math.sqrt(0.25 / games)
    assert 0.5 - error <= first <= 0.55 + error, f"Hex: the first player wins {first:.3f} of {games} games"
