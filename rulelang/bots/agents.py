"""Agents: who answers a match's choices.

An agent sees only its own player's view (``Match.view``) and the labelled legal
options. Simulating agents never touch the real match: they plan on copies in
which every card their player cannot see has been re-dealt at random
(``Match.sample_for``).
"""
from __future__ import annotations

import gc
import random
from typing import Protocol

from rulelang.engine.runtime import Match, Option
from rulelang.engine.visibility import option_keys
# how the greedy bot values positions (a module of its own, which the tree search reads too)
from rulelang.bots.valuation import best_of, option_values


class Agent(Protocol):
    name: str

    def choose(self, match: "AgentHandle", options: list[Option]) -> int: ...


class AgentHandle:
    """What an agent may use: its player's view, the options, and imagined copies of the match."""

    def __init__(self, match: Match, seat: int):
        self._match = match
        self.seat = seat

    def view(self) -> dict:
        return self._match.view(self.seat)

    @property
    def prompt(self) -> str | None:
        return self._match.prompt

    @property
    def game_program(self):
        """The compiled rules (public: the same for every seat)."""
        return self._match.game.program

    def imagine(self, rng: random.Random) -> Match:
        """A copy of the match consistent with what this player knows."""
        return self._match.sample_for(self.seat, rng)


class RandomAgent:
    """Picks uniformly among the legal options, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, handle: AgentHandle, options: list[Option]) -> int:
        return self.rng.randrange(len(options))


class GreedyAgent:
    """One ply: tries each option on one imagined copy of the match (``AgentHandle.imagine``: what its
    seat cannot see re-dealt at random) and keeps the option whose position it values most
    (``valuation.option_values``: each option played on the copy, scored and put back). Ties are
    broken at random with its own seeded generator, so the same seed makes the same decisions.
    ``max_options`` (0: all) caps the options tried per decision: a random subset of them."""

    name = "greedy"
    #: False: each option tried on a copy of its own instead (the same decisions, slower; tests compare both)
    put_back = True

    def __init__(self, seed: int = 0, max_options: int = 0):
        self.rng = random.Random(seed)
        self.max_options = max_options

    def choose(self, handle: AgentHandle, options: list[Option]) -> int:
        if len(options) == 1:
            return 0
        # Python's cycle collector is paused while a decision is worked out: the copy and the positions
        # tried on it make thousands of objects that live until the decision is taken, which it would
        # scan over and over (a game of 303 cards and 55 zones: 15% of greedy's time; docs/balance.md).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._choose(handle)
        finally:
            if collecting:
                gc.enable()

    def _choose(self, handle: AgentHandle) -> int:
        seat = handle.seat
        world = handle.imagine(self.rng)
        # options its chooser cannot tell apart (two copies of a card) are tried once
        indexes = list(option_keys(world.s).values())
        if self.max_options and len(indexes) > self.max_options:
            indexes = self.rng.sample(indexes, self.max_options)
        return self.rng.choice(best_of(zip(indexes, option_values(world, seat, indexes, self.put_back))))


class RolloutAgent:
    """Round roll-outs: tries each option on imagined copies of the match, plays the rest of
    the round out at random, and keeps the option after which the game, were it to end then,
    looks best for its player (its `result`, plus the rules' optional `def heuristic(p)`).
    Ties are broken at random. Hundreds of decisions per option tried: see ``GreedyAgent``
    for the fast one-ply bot."""

    name = "rollout"

    def __init__(self, seed: int = 0, max_options: int = 24, samples: int = 2):
        self.rng = random.Random(seed)
        self.max_options = max_options
        self.samples = samples

    def rollout_value(self, world: Match, index: int, seat: int) -> float:
        trial = world.clone()
        trial.apply(index)
        start_round = trial.s.round
        while not trial.is_over and trial.s.round == start_round:
            trial.apply(self.rng.randrange(trial.option_count()))
        return trial.evaluate(seat, in_place=True)

    def choose(self, handle: AgentHandle, options: list[Option]) -> int:
        indexes = list(range(len(options)))
        if len(indexes) > self.max_options:
            indexes = self.rng.sample(indexes, self.max_options)
        worlds = [handle.imagine(self.rng) for _ in range(self.samples)]
        best, best_value = [], None
        for i in indexes:
            value = sum(self.rollout_value(w, i, handle.seat) for w in worlds)
            if best_value is None or value > best_value + 1e-9:
                best, best_value = [i], value
            elif abs(value - best_value) <= 1e-9:
                best.append(i)
        return self.rng.choice(best)


class MonteCarloAgent:
    """Flat Monte Carlo: plays each option out to the end several times with random moves on
    imagined copies, and keeps the option that won most often. ``playouts`` is its budget per
    move: with more options than play-outs (or than ``max_options``), a random subset of the
    options is tried, once each at least."""

    name = "mc"

    def __init__(self, seed: int = 0, playouts: int = 40, max_options: int = 12):
        self.rng = random.Random(seed)
        self.playouts = playouts
        self.max_options = max_options

    def choose(self, handle: AgentHandle, options: list[Option]) -> int:
        indexes = list(range(len(options)))
        # never more options than play-outs, so that the budget is the number of play-outs
        most = max(1, min(self.max_options, self.playouts))
        if len(indexes) > most:
            indexes = self.rng.sample(indexes, most)
        per_option = max(1, self.playouts // len(indexes))
        scores = {}
        for i in indexes:
            total = 0.0
            for _ in range(per_option):
                world = handle.imagine(self.rng)
                world.apply(i)
                while not world.is_over:
                    world.apply(self.rng.randrange(world.option_count()))
                total += 1.0 if handle.seat in world.s.winners else 0.0
            scores[i] = total
        return self.rng.choice(best_of(scores.items()))


from rulelang.bots.mcts import PLAYOUTS, MCTSAgent  # noqa: E402  (tree search bots live in their own module)

AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "rollout": RolloutAgent, "mc": MonteCarloAgent,
          "mcts": MCTSAgent, "ismcts": MCTSAgent}
#: What an agent's budget sets ("mc:100"), for the agents that take one.
BUDGETS = {"mc": "playouts", "greedy": "max_options", "rollout": "max_options", "mcts": "iterations",
           "ismcts": "iterations"}
#: Settings a tree search bot takes after its budget ("mcts:200:depth=8"), and their types.
MCTS_SETTINGS = {"depth": int, "width": int, "exploration": float, "round_end": int, "draw": float, "prior": int,
                 "bias": float, "greedy": float, "playout": str, "epsilon": float, "samples": int, "top": int}


def make_agent(spec: str, seed: int, humans: bool = False):
    """An agent from its name, optionally with a budget: "mc:100" (playouts), "greedy:12" and "rollout:12" (options tried),
    "mcts:200" (tree search iterations per move; "ismcts" is the same bot). The tree search bots take
    more settings after the budget: "mcts:200:depth=8:width=12:exploration=0.5",
    "mcts:25:greedy=2:playout=none:exploration=0.1". `humans`: whether the command seats people too
    (only its message of an unknown name says so)."""
    name, _, rest = spec.partition(":")
    if name not in AGENTS:
        bots = ", ".join(AGENTS)
        if name == "human" and not humans:
            raise ValueError(f'a "human" seat plays only at a table (rulelang play or serve); here every seat is '
                             f"a bot: {bots}")
        raise ValueError(f'unknown agent "{name}"; choose one of: {bots}' + (", human" if humans else ""))
    budget, *extras = rest.split(":") if rest else [""]
    if not budget and not extras:
        return AGENTS[name](seed=seed)
    if not budget.isdigit():
        raise ValueError(f'the budget in "{spec}" must be a whole number')
    if extras and name not in ("mcts", "ismcts"):
        raise ValueError(f'agent "{name}" takes only a budget, as in "{name}:{budget}"')
    if name not in BUDGETS:
        raise ValueError(f'agent "{name}" takes no budget')
    settings = {BUDGETS[name]: int(budget)}
    for extra in extras:
        key, _, value = extra.partition("=")
        kind = MCTS_SETTINGS.get(key)
        if kind is None:
            raise ValueError(f'unknown setting "{key}" in "{spec}"; choose one of: {", ".join(MCTS_SETTINGS)}')
        if kind is str:
            settings[key] = value
            continue
        try:
            settings[key] = kind(value)
        except ValueError:
            raise ValueError(f'the setting "{key}" in "{spec}" must be a {"whole " if kind is int else ""}'
                             f'number, not "{value}"') from None
        if settings[key] < 0:
            raise ValueError(f'the setting "{key}" in "{spec}" must not be negative')
    if settings.get("playout", "random") not in PLAYOUTS:
        raise ValueError(f'the setting "playout" in "{spec}" must be one of: {", ".join(PLAYOUTS)}')
    return AGENTS[name](seed=seed, **settings)


def seat_bots(seats: list[str], seed: int, humans: bool = True) -> list:
    """One agent per seat, named as `make_agent` reads them, seat i's seeded with `seed * 1000 + i`
    (so a seed plays the same match at the terminal, at the browser table and in `render`); a
    "human" seat has None, or, with `humans=False`, is refused as an unknown agent."""
    return [None if humans and s == "human" else make_agent(s, seed * 1000 + i, humans) for i, s in enumerate(seats)]


def play_match(match: Match, agents: list) -> Match:
    """Let agents answer every choice until the match is over."""
    while not match.is_over:
        seat = match.to_move
        options = match.legal_options()
        index = agents[seat].choose(AgentHandle(match, seat), options)
        match.apply(index)
    return match
