"""Bots against bots: every pair of bots plays the same seeded games, seats alternating.

In game g of a pair (A, B), seat i is taken by A when i + g is even and by B otherwise, so over
an even number of games each bot sits in every seat equally often (in a two-player game each
bot moves first in half of the games). The win matrix gives, for the row bot against the
column bot, the share of the row bot's seats that won, with a Wilson interval; a binomial test
on the games one of them won alone says whether one is better.

Duplicate games (as in duplicate bridge): every seed is played twice, the second time with the
seats swapped, so both bots get the same deal from both sides. In a game where the deal decides
much of the outcome, the luck of the deal then cancels out within each seed, and the test asks
only about the seeds where the two bots did differently: for each seed, the games A won alone
minus the games B won alone (-2 to 2); a sign test on the seeds where that is not 0. Under the
hypothesis that the bots are equally strong, each such seed is as likely to favour A as B, so the
test is exact whatever the correlation between a seed's two games.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations

from rulelang.bots.agents import make_agent
from rulelang.balance.metrics import import_statistics, p_words, wilson
from rulelang.balance.parallel import run_tasks
from rulelang.balance.simulate import load_game, play_one


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
    duplicate: bool = False
    seeds_a: int = 0  # duplicate games: seeds where A won alone more often than B
    seeds_b: int = 0
    seeds_even: int = 0

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "games": self.games,
                "a_win_rate": wilson(self.wins_a, self.seats_a), "b_win_rate": wilson(self.wins_b, self.seats_b),
                "games_won_by_a_only": self.only_a, "games_won_by_b_only": self.only_b,
                "games_won_by_neither": self.neither, "games_won_by_both": self.both, "p_value": self.p_value()} | (
                {"duplicate": True, "seeds_better_for_a": self.seeds_a, "seeds_better_for_b": self.seeds_b,
                 "seeds_even": self.seeds_even} if self.duplicate else {})

    def p_value(self) -> float | None:
        """Two-sided binomial test: among the games one bot won alone, is the split 50/50? With
        duplicate games, among the seeds where one bot did better than the other (a sign test)."""
        a, b = (self.seeds_a, self.seeds_b) if self.duplicate else (self.only_a, self.only_b)
        if a + b == 0:
            return None
        from scipy.stats import binomtest

        return float(binomtest(a, a + b, 0.5).pvalue)


@dataclass
class Tournament:
    title: str
    bots: list[str]
    players: int
    pairs: list[PairResult] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"game": self.title, "bots": self.bots, "players": self.players, "seconds": round(self.seconds, 2),
                "pairs": [p.to_json() for p in self.pairs]}


def tournament(path: str, bots: list[str], n: int, variant: list[str] | None = None, settings: dict | None = None,
               players: int | None = None, seed: int = 0, jobs: int | None = 1, cluster: str | None = None,
               progress=None, duplicate: bool = False, pairs: list[tuple[str, str]] | None = None) -> Tournament:
    """n games for every pair of distinct bots (seeds seed .. seed+n-1, the same for every pair), or
    for the given ``pairs`` only. With ``duplicate``, 2n: every seed with the seats as in game 0 and
    again swapped."""
    resolved, text, game = load_game(path, variant, settings)
    players = players or game.program.game.players_default
    if players < 2:
        raise ValueError("a tournament needs at least two players")
    if len(set(bots)) < 2:
        raise ValueError("a tournament needs at least two different bots")
    for name in bots:
        make_agent(name, 0)
    result = Tournament(game.title, list(bots), players)
    if pairs is None:
        pairs = list(combinations(dict.fromkeys(bots), 2))
    tasks, owners = [], []
    for a, b in pairs:
        for g in range(n):
            for turn in ((0, 1) if duplicate else (g,)):
                seats = [a if (i + turn) % 2 == 0 else b for i in range(players)]
                tasks.append((str(resolved), text, game.variants, settings, players, seats, seed + g))
                owners.append((a, b))
    start = time.perf_counter()
    # (the win rates' intervals and the sign tests: scipy.special and scipy.stats, imported meanwhile)
    records = run_tasks(play_one, tasks, jobs=jobs, cluster=cluster, progress=progress,
                        meanwhile=partial(import_statistics, ("scipy.special", "scipy.stats")))
    result.seconds = time.perf_counter() - start
    by_pair = {pair: PairResult(*pair, duplicate=duplicate) for pair in pairs}
    net = 0  # duplicate games: A's games won alone minus B's, in the seed being counted
    for number, ((a, b), task, record) in enumerate(zip(owners, tasks, records)):
        p = by_pair[(a, b)]
        seats_a = [i + 1 for i, name in enumerate(task[5]) if name == a]
        seats_b = [i + 1 for i, name in enumerate(task[5]) if name != a]
        wins_a = sum(seat in record.winners for seat in seats_a)
        wins_b = sum(seat in record.winners for seat in seats_b)
        p.games += 1
        p.seats_a, p.seats_b = p.seats_a + len(seats_a), p.seats_b + len(seats_b)
        p.wins_a, p.wins_b = p.wins_a + wins_a, p.wins_b + wins_b
        won_a, won_b = wins_a > 0, wins_b > 0
        outcome = "both" if won_a and won_b else "only_a" if won_a else "only_b" if won_b else "neither"
        setattr(p, outcome, getattr(p, outcome) + 1)
        net += won_a - won_b
        if duplicate and number % 2 == 1:  # the seed's second game (its seats swapped): count the seed
            outcome = "seeds_a" if net > 0 else "seeds_b" if net < 0 else "seeds_even"
            setattr(p, outcome, getattr(p, outcome) + 1)
            net = 0
    result.pairs = list(by_pair.values())
    return result


def _rate_words(r: dict, none: str = "-") -> str:
    """A Wilson rate as "60% [23%, 88%]"."""
    return f"{r['rate']:.0%} [{r['low']:.0%}, {r['high']:.0%}]" if r["rate"] is not None else none


def print_tournament(console, t: Tournament) -> None:
    from rich.table import Table

    table = Table(title=f"{t.title}, {t.players} players: win rate of the row bot's seats against the column bot "
                        "(95% interval)")
    table.add_column("")
    for b in t.bots:
        table.add_column(b, justify="right")
    seats_won = {}  # (row bot, column bot) -> (the row bot's seats that won, its seats)
    for p in t.pairs:
        seats_won[p.a, p.b], seats_won[p.b, p.a] = (p.wins_a, p.seats_a), (p.wins_b, p.seats_b)
    for a in t.bots:
        table.add_row(a, *("-" if a == b else _rate_words(wilson(*seats_won[a, b])) for b in t.bots))
    console.print(table)
    for p in t.pairs:
        pv = p.p_value()
        ahead = p.seeds_a > p.seeds_b if p.duplicate else p.only_a > p.only_b  # what the test was on
        verdict = ("no difference can be told" if pv is None or pv >= 0.05 else
                   f"{p.a if ahead else p.b} is stronger (p {p_words(pv)})")
        console.print(f"{p.a} vs {p.b}: {p.games} games; won alone by {p.a} {p.only_a}, by {p.b} {p.only_b}, "
                      f"by neither {p.neither}" + (f", by both {p.both}" if p.both else "")
                      + (f"; duplicate: {p.games // 2} seeds, better for {p.a} {p.seeds_a}, for {p.b} {p.seeds_b}, "
                         f"even {p.seeds_even}" if p.duplicate else "") + f": {verdict}",
                      markup=False, emoji=False)
    console.print(f"{sum(p.games for p in t.pairs)} games in {t.seconds:.1f} s", markup=False)


# ------------------------------------------------------------------ the skill ladder

#: The rungs of the skill ladder, weakest first: random, the one-ply greedy bot, then tree search
#: at budgets doubling (iterations per move).
LADDER = ("random", "greedy", "mcts:25", "mcts:50", "mcts:100", "mcts:200")
#: The p-value under which a rung is stronger than the rung below (the sign test on the seeds).
CLIMB_P = 0.05


@dataclass
class Rung:
    """One rung of the ladder against the rung below: the games one of them won alone."""

    bot: str
    below: str
    pair: PairResult

    def rate(self) -> dict:
        """The share of the games won by one bot alone that this rung won, with a Wilson interval."""
        return wilson(self.pair.only_a, self.pair.only_a + self.pair.only_b)

    def climbs(self) -> bool:
        """Stronger than the rung below: it won more of the games won alone, and the sign test on the
        seeds (exact whatever the correlation of a seed's two games) says so at p < 0.05."""
        pv = self.pair.p_value()
        return self.pair.seeds_a > self.pair.seeds_b and pv is not None and pv < CLIMB_P


@dataclass
class Ladder:
    """A skill trace (as in Ludii): each rung plays the one below it in duplicate games."""

    title: str
    players: int
    games: int  # seeds per rung (each played twice, the seats swapped)
    rungs: list[Rung]
    seconds: float = 0.0

    def climb(self) -> int:
        """How many rungs, from the bottom, each beat the rung below: where the wins stop rising."""
        return next((i for i, rung in enumerate(self.rungs) if not rung.climbs()), len(self.rungs))

    def summary(self) -> str:
        """The ladder's one figure in words."""
        top = self.climb()
        out = f"the ladder climbs {top} of {len(self.rungs)} rungs"
        if top == len(self.rungs):
            return out + f": every rung beats the one below, up to {self.rungs[-1].bot}; the game rewards more skill still"
        stop = self.rungs[top]
        pv = stop.pair.p_value()
        weaker = pv is not None and pv < CLIMB_P and stop.pair.seeds_b > stop.pair.seeds_a
        return out + (f": {stop.bot} is {'weaker than' if weaker else 'not shown stronger than'} {stop.below} "
                      f"({_rate_words(stop.rate(), 'no game won alone')} of the games won alone, p {p_words(pv)})")

    def to_json(self) -> dict:
        return {"game": self.title, "players": self.players, "seeds": self.games, "duplicate": True,
                "seconds": round(self.seconds, 1), "climb": self.climb(), "summary": self.summary(),
                "rungs": [{"bot": r.bot, "below": r.below, "won_alone": r.pair.only_a,
                           "lost_alone": r.pair.only_b, "neither": r.pair.neither, "both": r.pair.both,
                           "rate": r.rate(), "p_value": r.pair.p_value(), "climbs": r.climbs()}
                          for r in self.rungs]}


def skill_ladder(path: str, n: int, rungs: tuple[str, ...] | list[str] = LADDER, variant: list[str] | None = None,
                 settings: dict | None = None, players: int | None = None, seed: int = 0, jobs: int | None = 1,
                 cluster: str | None = None, progress=None) -> Ladder:
    """Every rung against the rung below it, n seeds each played twice with the seats swapped."""
    rungs = list(rungs)
    if len(rungs) < 2 or len(set(rungs)) != len(rungs):
        raise ValueError("a skill ladder needs at least two different bots, each once")
    pairs = list(zip(rungs[1:], rungs[:-1]))
    t = tournament(path, rungs, n, variant=variant, settings=settings, players=players, seed=seed, jobs=jobs,
                   cluster=cluster, progress=progress, duplicate=True, pairs=pairs)
    return Ladder(t.title, t.players, n, [Rung(p.a, p.b, p) for p in t.pairs], t.seconds)


def print_ladder(console, ladder: Ladder) -> None:
    from rich.table import Table

    table = Table(title=f"{ladder.title}, {ladder.players} players: skill ladder, each rung against the one below "
                        f"({ladder.games} seeds, each played twice with the seats swapped)")
    for name, justify in (("rung", "left"), ("against", "left"), ("won alone", "right"), ("lost alone", "right"),
                          ("neither/both", "right"), ("win rate (95%)", "right"), ("p", "right"), ("", "left")):
        table.add_column(name, justify=justify)
    for r in ladder.rungs:
        table.add_row(r.bot, r.below, str(r.pair.only_a), str(r.pair.only_b), f"{r.pair.neither}/{r.pair.both}",
                      _rate_words(r.rate()), p_words(r.pair.p_value(), equals=""),
                      "climbs" if r.climbs() else "")
    console.print(table)
    console.print(ladder.summary(), markup=False, emoji=False)
    console.print(f"{sum(r.pair.games for r in ladder.rungs)} games in {ladder.seconds:.1f} s", markup=False)


def ladder_markdown(data: dict) -> str:
    """A kept ladder (``Ladder.to_json``, as ``rulelang tournament FILE --skill --out`` writes it) as a
    few lines of Markdown, for a rulebook page's balance section."""
    lines = ["| rung | against | win rate of the games won alone (95% interval) | |", "|---|---|---|---|"]
    for r in data["rungs"]:
        rate = r["rate"]
        shown = f"{rate['rate']:.0%} ({rate['low']:.0%} to {rate['high']:.0%})" if rate["rate"] is not None else "-"
        lines.append(f"| {r['bot']} | {r['below']} | {shown} | {'climbs' if r['climbs'] else ''} |")
    return "\n".join([f"Skill ladder ({data['seeds']} seeds per rung, each played twice with the seats swapped): "
                      f"{data['summary']}.", ""] + lines)
