"""Balance metrics: what a designer reads off many simulated games, with confidence intervals.

Two halves:

* ``play_recorded`` plays one match with bots and notes, per game, what the metrics need: the
  options offered at each decision, the kind of option and the cards each seat chose, the
  keywords its decisions set off, and every player's standing (the rules' ``def heuristic(p)``,
  or else a ``score`` field) at the end of each round, from which the lead changes, drama
  and decisiveness of that game follow.
* ``summarise`` turns a list of game records into the metrics, each rate with a Wilson
  interval and each mean with a Student t interval (scipy.special, imported only when a summary
  is made, so ``rulelang check`` stays quick).

Every metric is documented in ``docs/balance.md``.
"""
from __future__ import annotations

import math
from collections import Counter
from itertools import takewhile

from rulelang.model.builtins import label
from rulelang.engine.program import Ctx
from rulelang.model.things import Entity

CONFIDENCE = 0.95
TOP_CARDS = 25  # cards listed in a summary (most used first)


# ------------------------------------------------------------------ recording one game


def _standing_fn(match):
    """The number that says how well a player is doing: the rules' heuristic, else their score."""
    program = match.game.program
    if program.heuristic is not None:
        return lambda p: program.heuristic(Ctx({}, match.s, match.vm), (p,))
    if match.s.players and "score" in match.s.players[0].attrs:
        return lambda p: p.attrs.get("score")
    return None


def _note_standings(match, fn, snapshots: list) -> None:
    """Every player's standing now, noted without disturbing the match (its chance and version are kept)."""
    s = match.s
    rng_state, version = s.rng.getstate(), s.version
    try:
        values = [fn(p) for p in s.players]
    except Exception:  # a heuristic that cannot be computed mid-game gives no standings
        values = None
    finally:
        s.rng.setstate(rng_state)
        s.version = version
    if values is not None and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        snapshots.append([float(v) for v in values])


def _cards_in(value, out: list[str]):
    if isinstance(value, Entity):
        out.append(value.card.name or label(value))
    elif isinstance(value, (list, tuple)):
        for v in value:
            _cards_in(v, out)


def play_recorded(match, agents: list) -> dict:
    """Let agents play the match to its end; return what the metrics need about this game."""
    from rulelang.bots.agents import AgentHandle

    players = len(match.s.players)
    standing = _standing_fn(match)
    snapshots: list[list[float]] = []
    options_offered = 0
    decisions = 0
    option_kinds: dict[str, list[int]] = {}
    cards: dict[str, list[int]] = {}
    keywords: dict[str, list[int]] = {}
    last_round = match.s.round
    while not match.is_over:
        seat = match.to_move
        options = match.legal_options()
        index = agents[seat].choose(AgentHandle(match, seat), options)
        raw = match.s.pending["options"][index]
        options_offered += len(options)
        decisions += 1
        option_kinds.setdefault(raw["name"], [0] * players)[seat] += 1
        names: list[str] = []
        for v in raw["values"].values():
            _cards_in(v, names)
        for name in dict.fromkeys(names):  # (once each, in the order chosen: the same in every process)
            cards.setdefault(name, [0] * players)[seat] += 1
        before = dict(match.s.stats)
        match.apply(index)
        for k, v in match.s.stats.items():
            if v != before.get(k, 0):
                keywords.setdefault(k, [0] * players)[seat] += v - before.get(k, 0)
        if standing is not None and match.s.round != last_round and not match.is_over:
            last_round = match.s.round
            _note_standings(match, standing, snapshots)
    if standing is not None:
        _note_standings(match, standing, snapshots)
    out = {"options_offered": options_offered, "choices": decisions, "option_kinds": option_kinds,
           "cards": cards, "keywords_by_seat": keywords}
    out.update(lead_metrics(snapshots, match.s.winners))
    return out


def lead_metrics(snapshots: list[list[float]], winners: list[int]) -> dict:
    """Lead changes, drama and decisiveness of one game from the standings after each round.

    A game needs standings after two rounds at least. Only games with exactly one winner have a
    drama and a decisiveness; lead changes count
    every time a different single player takes the lead (a tie for the lead changes nothing)."""
    out = {"lead_changes": None, "drama": None, "decided_at": None}
    if len(snapshots) < 2:  # a one-round game has no course to follow
        return out
    leaders = []  # who led alone after each round (a round with a tie for the lead has none)
    for values in snapshots:
        top = [i for i, v in enumerate(values) if v == max(values)]
        if len(top) == 1:
            leaders.append(top[0])
    out["lead_changes"] = sum(1 for before, after in zip(leaders, leaders[1:]) if before != after)
    if len(winners) != 1:
        return out
    w = winners[0]
    gaps = [(max(values) - values[w]) / (max(values) - min(values)) if max(values) > min(values) else 0.0
            for values in snapshots]
    out["drama"] = sum(gaps) / len(gaps)
    # the first snapshot from which the eventual winner led (alone or tied) to the end
    led_to_the_end = takewhile(lambda values: values[w] == max(values), reversed(snapshots))
    out["decided_at"] = (len(snapshots) - len(list(led_to_the_end))) / len(snapshots)
    return out


# ------------------------------------------------------------------ statistics


#: what a summary's intervals need (about 0.3 s to import)
STATISTICS = ("numpy", "scipy.special")


def import_statistics(modules: tuple[str, ...] = STATISTICS) -> None:
    """Import what the statistics will need ahead of them: simulate, compare and tournament have it
    done while a pool of processes plays the games and this process only waits (parallel.run_tasks)."""
    import importlib

    for module in modules:
        importlib.import_module(module)


def p_words(p: float | None, equals: str = "= ") -> str:
    """A p-value as every report words it after "p": "< 0.001", "= 0.020" ("0.020" with `equals=""`),
    or "-" when there is none."""
    return "-" if p is None else "< 0.001" if p < 0.001 else f"{equals}{p:.3f}"


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> dict:
    """A rate with its Wilson score interval."""
    if n == 0:
        return {"rate": None, "low": None, "high": None, "count": 0, "of": 0}
    # scipy.special, not scipy.stats: importing scipy.stats takes about half a second more, on every
    # simulate. This is scipy.stats.binomtest(k, n).proportion_ci(method="wilson"), step for step
    # (Newcombe 1998); tests/test_balance.py checks that the two agree.
    from scipy.special import ndtri

    p = k / n
    z = float(ndtri(0.5 + 0.5 * confidence))
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    low = 0.0 if k == 0 else center - delta
    high = 1.0 if k == n else center + delta
    return {"rate": p, "low": float(low), "high": float(high), "count": k, "of": n}


def mean_ci(values: list[float], confidence: float = CONFIDENCE) -> dict:
    """A mean with its Student t interval, the spread, and the quartiles."""
    values = [float(v) for v in values if v is not None]
    n = len(values)
    if n == 0:
        return {"mean": None, "low": None, "high": None, "stdev": None, "n": 0}
    import numpy as np
    from scipy.special import stdtrit  # what scipy.stats.t.ppf computes, without importing scipy.stats

    arr = np.asarray(values)
    mean = float(arr.mean())
    sd = float(arr.std(ddof=1)) if n > 1 else 0.0
    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * sd / math.sqrt(n) if sd > 0 else 0.0
    q = np.quantile(arr, [0, 0.25, 0.5, 0.75, 1])
    return {"mean": mean, "low": mean - half, "high": mean + half, "stdev": sd, "n": n,
            "min": float(q[0]), "q1": float(q[1]), "median": float(q[2]), "q3": float(q[3]), "max": float(q[4])}


# ------------------------------------------------------------------ the summary of many games


def _use_table(games, key: str, limit: int | None = None) -> dict:
    """How often each thing (keyword, option kind, card) was used, and how its users did."""
    total: Counter = Counter()
    users: dict[str, list[int]] = {}  # name -> [seat-games in which it was used, of which won]
    games_with: Counter = Counter()
    for g in games:
        table = getattr(g, key) or {}
        for name, per_seat in table.items():
            total[name] += sum(per_seat)
            if sum(per_seat):
                games_with[name] += 1
            u = users.setdefault(name, [0, 0])
            for seat, count in enumerate(per_seat):
                if count:
                    u[0] += 1
                    u[1] += (seat + 1) in g.winners
    names = [n for n, _ in total.most_common(limit)]
    out = {}
    for name in sorted(names, key=lambda n: (-total[n], n)):
        used, won = users[name]
        out[name] = {"uses": total[name], "per_game": total[name] / max(len(games), 1),
                     "games_used": games_with[name] / max(len(games), 1),
                     "users_win_rate": wilson(won, used)}
    return out


def summarise(summary) -> dict:
    """Every metric of a ``simulate.Summary``, with intervals (see docs/balance.md)."""
    games, n = summary.games, len(summary.games)
    per_game = per_game_values(summary)
    out: dict = {"confidence": CONFIDENCE, "games": n}
    out["win_rate"] = [{"seat": seat + 1, "agent": agent, **wilson(int(sum(per_game[f"seat {seat + 1} win rate"])), n)}
                       for seat, agent in enumerate(summary.agents)]
    # first-player advantage: seat 1's win rate minus the average seat's, per game
    out["first_player_advantage"] = mean_ci([(1.0 if 1 in g.winners else 0.0) - len(g.winners) / summary.players
                                             for g in games])
    out["no_winner_rate"] = wilson(sum(1 for g in games if not g.winners), n)
    out["shared_win_rate"] = wilson(sum(1 for g in games if len(g.winners) > 1), n)
    offered = sum(g.options_offered or 0 for g in games)
    chosen = sum(g.choices or 0 for g in games)
    for key, metric in (("rounds", "rounds"), ("decisions", "decisions"), ("branching_factor", "branching factor"),
                        ("lead_changes", "lead changes"), ("drama", "drama"), ("decided_at", "decided at")):
        out[key] = mean_ci(per_game[metric])
    out["branching_factor"]["pooled"] = offered / chosen if chosen else None
    out["keywords"] = _use_table(games, "keywords_by_seat")
    out["option_kinds"] = _use_table(games, "option_kinds")
    out["cards"] = _use_table(games, "cards", limit=TOP_CARDS)
    return out


def per_game_values(summary) -> dict[str, list]:
    """The per-game numbers behind the headline metrics (what `compare` tests), by metric name."""
    games = summary.games
    out: dict[str, list] = {f"seat {seat} win rate": [1.0 if seat in g.winners else 0.0 for g in games]
                            for seat in range(1, summary.players + 1)}
    out["no-winner rate"] = [0.0 if g.winners else 1.0 for g in games]
    if summary.players > 1:
        out["shared-win rate"] = [1.0 if len(g.winners) > 1 else 0.0 for g in games]
    out["rounds"] = [float(g.rounds) for g in games]
    out["decisions"] = [float(g.decisions) for g in games]
    out["branching factor"] = [g.options_offered / g.choices if g.choices else None for g in games]
    out["lead changes"] = [g.lead_changes for g in games]
    out["drama"] = [g.drama for g in games]
    out["decided at"] = [g.decided_at for g in games]
    return out


RATE_METRICS = {"no-winner rate", "shared-win rate"}


def is_rate(metric: str) -> bool:
    return metric in RATE_METRICS or metric.endswith("win rate")
