"""How the greedy bot values positions: the rules' heuristic (or a ``score`` field, or the result run
now) read as a seat's lead, and each option of a decision tried and valued on one copy of the match.
``agents.GreedyAgent`` plays by it; the tree search (``mcts``, ``greedy=W``) starts from it.
"""
from __future__ import annotations

from rulelang.check.hints import SCORE_FIELD
from rulelang.engine.runtime import Match


def best_of(scored) -> list:
    """The items of the best value from (item, value) pairs, ties kept in their order (the bots break
    them at random)."""
    best, best_value = [], None
    for item, value in scored:
        if best_value is None or value > best_value:
            best, best_value = [item], value
        elif value == best_value:
            best.append(item)
    return best


#: greedy's reading (``position_value``) of an option the imagined deal cannot play: ranked last
UNPLAYABLE = (-1, float("-inf"), float("-inf"))


def option_values(world: Match, seat: int, indexes: list[int], put_back: bool = True,
                  score=None, failed=UNPLAYABLE) -> list:
    """`score` (``position_value``) for `seat` after each option of `indexes`, each tried on `world` (a
    throw-away copy) up to the next choice of two or more options (``Match.try_option``); an option the
    world cannot play is valued `failed`. With `put_back`, the world is marked once (its heuristic
    worked out for every seat first, so that what it remembers stays right) and put back after each
    option (``Match.mark``/``restore``); otherwise, or with chance queued by a scenario, each option
    is tried on a copy of its own."""
    score = position_value if score is None else score
    mark = None
    if world.s.fixed_chance is None and put_back:
        if world.game.program.heuristic is not None:
            try:
                for other in range(len(world.s.players)):
                    world.heuristic(other)
            except Exception:  # (said, if it matters, when a position after an option is scored)
                pass
        mark = world.mark()
    values = []
    for index in indexes:
        trial = world if mark is not None else world.clone(answer=index)
        try:
            trial.try_option(index if mark is not None else 0)
        except Exception:  # an option the imagined deal cannot play: tried last
            values.append(failed)
        else:  # (a heuristic that fails is the rules' error, said at its line)
            values.append(score(trial, seat))
        if mark is not None:
            world.restore(mark)
    return values


def player_values(world: Match) -> list[float] | None:
    """Every seat's value by what the rules say about who is ahead, or None if they say nothing:
    the rules' ``def heuristic(p)``; without one, a number field of the players named ``score``;
    without either, the rules' ``result`` run now (1 for a seat that would win, 0 otherwise).
    Runs the result on the world: call it on a throw-away copy."""
    s = world.s
    program = world.game.program
    if program.heuristic is not None:
        return [world.heuristic(seat) for seat in range(len(s.players))]
    if any(name == SCORE_FIELD for name, _ in program.player_fields):
        values = [p.attrs.get(SCORE_FIELD) for p in s.players]
        if all(type(v) in (int, float) for v in values):
            return [float(v) for v in values]
    winners = world.winners_now()
    return None if winners is None else [1.0 if i in winners else 0.0 for i in range(len(s.players))]


def position_value(world: Match, seat: int, values: list[float] | None = None) -> tuple:
    """How good a position is for a seat, as a tuple compared in order (bigger is better).

    * A finished game: a win alone (3), a shared win (2), nobody winning (1, level with an even
      unfinished game), a loss (0).
    * An unfinished game: 1, then the seat's lead (its ``player_values`` minus the best of the other
      seats'; with one player, its own value), then its own value, which tells apart moves that
      raise every seat alike.

    Uses the world up (the result may be run on it): call it on a throw-away copy. `values`: the
    world's ``player_values`` when already worked out."""
    s = world.s
    if s.over:
        winners = s.winners
        if seat in winners:
            return (3 if len(winners) == 1 else 2, 0.0, 0.0)
        return (0 if winners else 1, 0.0, 0.0)
    if values is None:
        values = player_values(world)
    if values is None:
        return (1, 0.0, 0.0)
    mine = values[seat]
    others = [v for i, v in enumerate(values) if i != seat]
    return (1, mine - max(others) if others else mine, mine)
