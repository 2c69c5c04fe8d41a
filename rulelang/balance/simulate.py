"""Simulating many seeded games with bots, and summarising the balance."""
from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial

from rulelang.bots.agents import make_agent, seat_bots
from rulelang.core.budgets import current_budgets
from rulelang.balance.metrics import STATISTICS, import_statistics, play_recorded
from rulelang.balance.parallel import run_tasks
from rulelang.core.resources import find_game
from rulelang.core.sourcefile import read_source
from rulelang.compile.loader import load


@dataclass
class GameRecord:
    seed: int
    winners: list[int]
    rounds: int
    decisions: int
    players: list[dict]
    keyword_uses: dict[str, int]
    globals: dict = field(default_factory=dict)  # the game's numeric and true/false global variables at the end
    # what the balance metrics need (rulelang/balance/metrics.py, docs/balance.md)
    options_offered: int = 0  # options summed over every decision the bots made
    choices: int = 0  # decisions the bots made
    option_kinds: dict = field(default_factory=dict)  # option name -> times chosen, per seat
    cards: dict = field(default_factory=dict)  # card -> times chosen in an option, per seat
    keywords_by_seat: dict = field(default_factory=dict)  # keyword -> uses set off by each seat's decisions
    lead_changes: int | None = None
    drama: float | None = None
    decided_at: float | None = None


@dataclass
class Summary:
    title: str
    variant: list[str]
    players: int
    agents: list[str]
    games: list[GameRecord] = field(default_factory=list)
    seconds: float = 0.0
    profile: object = None  # with simulate(profile=True): where the time went (rulesprofile.RulesProfile)
    coverage: object = None  # with simulate(coverage=True): the rules lines the games ran (coverage.FileCoverage)

    @property
    def count(self) -> int:
        return len(self.games)

    def wins(self) -> list[int]:
        out = [0] * self.players
        for g in self.games:
            for w in g.winners:
                out[w - 1] += 1
        return out

    def no_winner_rate(self) -> float:
        return sum(1 for g in self.games if not g.winners) / max(self.count, 1)

    def length(self, key: str) -> tuple[float, float]:
        values = [getattr(g, key) for g in self.games]
        if not values:
            return 0.0, 0.0
        return statistics.fmean(values), statistics.pstdev(values)

    def keyword_uses(self) -> dict[str, int]:
        total: Counter = Counter()
        for g in self.games:
            total.update(g.keyword_uses)
        return dict(sorted(total.items()))

    def numeric_player_fields(self) -> dict[str, list[tuple[float, float]]]:
        """For each number players carry (such as a score): mean and spread per seat."""
        fields: dict[str, list[list[float]]] = {}
        for g in self.games:
            for seat, attrs in enumerate(g.players):
                for k, v in attrs.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        fields.setdefault(k, [[] for _ in range(self.players)])[seat].append(v)
        return {k: [(statistics.fmean(v) if v else 0.0, statistics.pstdev(v) if v else 0.0) for v in seats]
                for k, seats in fields.items()}

    def global_values(self) -> dict[str, dict]:
        """For each global variable the games end with: the rate of `true` (true/false variables), or the
        mean, spread and quartiles (numbers)."""
        values: dict[str, list] = {}
        for g in self.games:
            for k, v in g.globals.items():
                values.setdefault(k, []).append(v)
        out = {}
        for k, vs in values.items():
            if all(isinstance(v, bool) for v in vs):
                out[k] = {"rate": sum(vs) / len(vs)}
            else:
                nums = sorted(float(v) for v in vs)
                q = statistics.quantiles(nums, n=4, method="inclusive") if len(nums) > 1 else [nums[0]] * 3
                out[k] = {"mean": statistics.fmean(nums), "stdev": statistics.pstdev(nums), "min": nums[0],
                          "q1": q[0], "median": q[1], "q3": q[2], "max": nums[-1]}
        return out

    def metrics(self) -> dict:
        """Every balance metric with its interval (rulelang/balance/metrics.py)."""
        if getattr(self, "_metrics", None) is None:
            from rulelang.balance.metrics import summarise

            self._metrics = summarise(self)
        return self._metrics

    def to_json(self) -> dict:
        wins = self.wins()
        return {
            "game": self.title, "variant": self.variant, "players": self.players, "agents": self.agents,
            "games": self.count, "seconds": round(self.seconds, 3),
            "games_per_second": round(self.count / self.seconds, 2) if self.seconds else None,
            "wins": {f"seat {i + 1} ({self.agents[i]})": w for i, w in enumerate(wins)},
            "win_rate": {f"seat {i + 1} ({self.agents[i]})": w / max(self.count, 1) for i, w in enumerate(wins)},
            "no_winner_rate": self.no_winner_rate(),
            "rounds": dict(zip(("mean", "stdev"), self.length("rounds"))),
            "decisions": dict(zip(("mean", "stdev"), self.length("decisions"))),
            "keyword_uses": self.keyword_uses(),
            "player_fields": {k: [{"mean": m, "stdev": s} for m, s in v] for k, v in self.numeric_player_fields().items()},
            "globals": self.global_values(),
            "metrics": self.metrics(),
            "results": [g.__dict__ for g in self.games],
            **({"profile": self.profile.to_json()} if self.profile is not None else {}),
            **({"coverage": self.coverage.to_json()} if self.coverage is not None else {}),
        }


_worker_cache: dict = {}
_watching = None  # with simulate(coverage=True): the coverage.Coverage the games in this process note their lines in


def _cache_key(args) -> tuple:
    path, text, variant, settings = args[:4]
    return (path, hash(text), tuple(variant or ()), tuple(sorted((settings or {}).items())), current_budgets())


def play_one(args) -> GameRecord:
    path, text, variant, settings, players, agents, seed = args
    key = _cache_key(args)
    game = _worker_cache.get(key)
    if game is None:
        game = _worker_cache[key] = load(path, variant=variant, settings=settings, text=text)
    match = (game.new_match(players=players, seed=seed) if _watching is None
             else _watching.new_match(game, players, seed))
    extra = play_recorded(match, seat_bots(agents, seed, humans=False))
    r = match.result
    values = {k: v for k, v in match.s.globals.items()
              if not k.startswith("__") and isinstance(v, (bool, int, float))}
    return GameRecord(seed, r["winners"], r["rounds"], r["decisions"], r["players"], r["keyword_uses"], values,
                      **extra)


def load_game(path, variant, settings, loader=load):
    """(its path, its text, the game) of a game named by its path or as a bundled game, read as every
    command reads a rules file (within the source_bytes budget; not a file: the loader says why)."""
    resolved = find_game(str(path))
    text = read_source(resolved) if resolved.is_file() else None
    return resolved, text, loader(resolved, variant=variant, settings=settings, text=text)


def simulate(path: str, n: int, variant: list[str] | None = None, players: int | None = None,
             agents: list[str] | None = None, seed: int = 0, jobs: int | None = 1, settings: dict | None = None,
             progress=None, cluster: str | None = None, profile: bool = False, coverage: bool = False,
             statistics: tuple[str, ...] = STATISTICS) -> Summary:
    """n seeded games (seeds seed .. seed+n-1). ``jobs``: processes (None: all cores); ``cluster``:
    the address of a Dask scheduler. The games and so the summary are the same whatever runs them.
    With ``profile``, the games run in this process under Python's profiler, and ``summary.profile``
    says where the time went, by rules line (rulesprofile). With ``coverage``, the games run in this
    process, every statement an op of its own (coverage.load_for_coverage), and ``summary.coverage``
    says which rules lines they ran and which they never reached. ``statistics``: the modules
    imported while a pool plays (metrics.import_statistics)."""
    if coverage:
        from rulelang.balance.coverage import load_for_coverage
    resolved, text, game = load_game(path, variant, settings, load_for_coverage if coverage else load)
    players = players or game.program.game.players_default
    agents = list(agents or ["random"])
    if len(agents) == 1:
        agents = agents * players
    if len(agents) != players:
        raise ValueError(f"{len(agents)} agents were given for {players} players")
    for name in agents:
        make_agent(name, 0)  # fail early on an unknown agent name
    summary = Summary(game.title, list(game.variants), players, agents)
    tasks = [(str(resolved), text, game.variants, settings, players, agents, seed + i) for i in range(n)]
    if tasks:
        # the game loaded here is the one every task loads: this process plays it without loading it
        # again, and worker processes forked from it start with it
        _worker_cache[_cache_key(tasks[0])] = game
    start = time.perf_counter()
    if coverage:
        global _watching
        from rulelang.balance.coverage import Coverage

        _watching = Coverage(whole_file=False)
        _watching.add_game(game)
        try:
            summary.games = run_tasks(play_one, tasks, jobs=1, progress=progress)
        finally:
            watched, _watching = _watching, None
            if tasks:  # (a game loaded for coverage is not for other runs)
                _worker_cache.pop(_cache_key(tasks[0]), None)
        summary.coverage = watched.reports()[0]
    elif profile:
        from rulelang.balance.rulesprofile import profiled

        game.new_match(players=players, seed=seed)  # what a first match imports (networkx...) is not the games' time
        summary.games, summary.profile = profiled(lambda: run_tasks(play_one, tasks, jobs=1, progress=progress),
                                                  game.program.generated, resolved, len(tasks))
    else:
        summary.games = run_tasks(play_one, tasks, jobs=jobs, cluster=cluster, progress=progress,
                                  meanwhile=partial(import_statistics, statistics))
    summary.seconds = time.perf_counter() - start
    summary.games.sort(key=lambda g: g.seed)
    return summary
