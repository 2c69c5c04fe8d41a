"""Bots against bots: every pair of bots plays the same seeded games, seats alternating.

In game g of a pair (A, B), seat i is taken by A when i + g is even and by B otherwise, so over
an even number of games each bot sits in every seat equally often (in a two-player game each
bot moves first in half of the games). The win matrix gives, for the row bot against the
column bot, the share of the row bot's seats that won, with a Wilson interval; a binomial test
on the games one of them won alone says whether one is better.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from .agents import make_agent
from .parallel import run_tasks
from .resources import find_game
from .loader import load
from .simulate import _play_one


@dataclass
class PairResult:
    a: str
    b: str
    games: int = 0
    seats_a: int = 0
    seats_b: int = 0
    wins_a: int = 0  # seats of A that won
    wins_b: int = 0
    only_a: int = 0  # games won by A's seats and none of B's
    only_b: int = 0
    neither: int = 0
    both: int = 0

    def to_json(self) -> dict:
        from .metrics import wilson

        return {"a": self.a, "b": self.b, "games": self.games,
                "a_win_rate": wilson(self.wins_a, self.seats_a), "b_win_rate": wilson(self.wins_b, self.seats_b),
                "games_won_by_a_only": self.only_a, "games_won_by_b_only": self.only_b,
                "games_won_by_neither": self.neither, "games_won_by_both": self.both, "p_value": self.p_value()}

    def p_value(self) -> float | None:
        """Two-sided binomial test: among the games one bot won alone, is the split 50/50?"""
        decided = self.only_a + self.only_b
        if decided == 0:
            return None
        from scipy.stats import binomtest

        return float(binomtest(self.only_a, decided, 0.5).pvalue)


@dataclass
class Tournament:
    title: str
    bots: list[str]
    players: int
    pairs: list[PairResult] = field(default_factory=list)
    seconds: float = 0.0

    def pair(self, a: str, b: str) -> tuple[PairResult, bool]:
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p, False
            if (p.a, p.b) == (b, a):
                return p, True
        raise KeyError((a, b))

    def to_json(self) -> dict:
        return {"game": self.title, "bots": self.bots, "players": self.players, "seconds": round(self.seconds, 2),
                "pairs": [p.to_json() for p in self.pairs]}


def seating(a: str, b: str, players: int, g: int) -> list[str]:
    return [a if (i + g) % 2 == 0 else b for i in range(players)]


def tournament(path: str, bots: list[str], n: int, variant: list[str] | None = None, settings: dict | None = None,
               players: int | None = None, seed: int = 0, jobs: int | None = 1, cluster: str | None = None,
               progress=None) -> Tournament:
    """n games for every pair of distinct bots (seeds seed .. seed+n-1, the same for every pair)."""
    resolved = find_game(str(path))
    text = Path(resolved).read_text(encoding="utf-8") if resolved.exists() else None
    game = load(resolved, variant=variant, settings=settings, text=text)
    players = players or game.program.game.players_default
    if players < 2:
        raise ValueError("a tournament needs at least two players")
    if len(set(bots)) < 2:
        raise ValueError("a tournament needs at least two different bots")
    for name in bots:
        make_agent(name, 0)
    result = Tournament(game.title, list(bots), players)
    pairs = list(combinations(dict.fromkeys(bots), 2))
    tasks, owners = [], []
    for a, b in pairs:
        for g in range(n):
            tasks.append((str(resolved), text, game.variants, settings, players, seating(a, b, players, g), seed + g))
            owners.append((a, b))
    start = time.perf_counter()
    records = run_tasks(_play_one, tasks, jobs=jobs, cluster=cluster, progress=progress)
    result.seconds = time.perf_counter() - start
    by_pair = {pair: PairResult(*pair) for pair in pairs}
    for (a, b), task, record in zip(owners, tasks, records):
        p = by_pair[(a, b)]
        seats = task[5]
        p.games += 1
        won_a = won_b = False
        for i, name in enumerate(seats):
            won = (i + 1) in record.winners
            if name == a:
                p.seats_a += 1
                p.wins_a += won
                won_a |= won
            else:
                p.seats_b += 1
                p.wins_b += won
                won_b |= won
        if won_a and not won_b:
            p.only_a += 1
        elif won_b and not won_a:
            p.only_b += 1
        elif won_a and won_b:
            p.both += 1
        else:
            p.neither += 1
    result.pairs = list(by_pair.values())
    return result


def print_tournament(console, t: Tournament) -> None:
    from rich.table import Table

    table = Table(title=f"{t.title}, {t.players} players: win rate of the row bot's seats against the column bot "
                        "(95% interval)")
    table.add_column("")
    for b in t.bots:
        table.add_column(b, justify="right")
    for a in t.bots:
        row = [a]
        for b in t.bots:
            if a == b:
                row.append("-")
                continue
            p, swapped = t.pair(a, b)
            r = (p.to_json()["b_win_rate"] if swapped else p.to_json()["a_win_rate"])
            row.append(f"{r['rate']:.0%} [{r['low']:.0%}, {r['high']:.0%}]" if r["rate"] is not None else "-")
        table.add_row(*row)
    console.print(table)
    for p in t.pairs:
        pv = p.p_value()
        better = p.a if p.only_a > p.only_b else p.b
        verdict = ("no difference can be told" if pv is None or pv >= 0.05 else
                   f"{better} is stronger (p {'< 0.001' if pv < 0.001 else f'= {pv:.3f}'})")
        console.print(f"{p.a} vs {p.b}: {p.games} games; won alone by {p.a} {p.only_a}, by {p.b} {p.only_b}, "
                      f"by neither {p.neither}" + (f", by both {p.both}" if p.both else "") + f": {verdict}",
                      markup=False, emoji=False)
    console.print(f"{sum(p.games for p in t.pairs)} games in {t.seconds:.1f} s", markup=False)
