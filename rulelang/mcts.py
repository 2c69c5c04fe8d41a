"""Monte Carlo tree search bots: UCT, and information-set MCTS for hidden information.

One algorithm serves both (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012):
every iteration starts from a fresh copy of the match *as the bot's seat may imagine it*
(``AgentHandle.imagine``: every card it cannot see re-dealt at random, chance reseeded), walks
down a tree of decisions keyed by what each chooser sees (option name and label), grows it by
one node, plays the rest of the game out at random and backs the result up.

* In a game of perfect information with no chance, every imagined copy is the match itself,
  so this is plain UCT (UCB1 applied to trees).
* With hidden cards, the tree's nodes are information sets: a decision is the same node
  whatever the hidden cards happen to be, and an option that exists only in some imagined
  deals is scored by how often it was available (the "subset-armed bandit" of ISMCTS).
* With chance (shuffles, rolls), every iteration reseeds it, so the tree averages over it.

The bot never reads the real match: only its view and imagined copies, through the handle.
"""
from __future__ import annotations

import math
import random

from .runtime import Match


class _Node:
    __slots__ = ("children", "visits", "wins", "available", "seat")

    def __init__(self, seat: int | None):
        self.children: dict[tuple, _Node] = {}
        self.visits = 0
        self.wins = 0.0  # summed reward of the seat that chose the move into this node
        self.available = 0  # iterations in which this move was legal (ISMCTS availability)
        self.seat = seat  # who chose the move into this node


def _keys(world: Match) -> dict[tuple, int]:
    """The legal options by what their chooser sees: (name, label) -> the first index with it."""
    out: dict[tuple, int] = {}
    for o in world.legal_options():
        out.setdefault((o.name, o.label), o.index)
    return out


def reward(world: Match, seat: int) -> float:
    """1 for a win (shared wins count fully), 0 for a loss; a game nobody wins counts as a
    share of one for everyone (a draw in a two-player game is worth half a win)."""
    winners = world.s.winners
    if not winners:
        return 1.0 / max(len(world.s.players), 1)
    return 1.0 if seat in winners else 0.0


class MCTSAgent:
    """Monte Carlo tree search over what its seat may see; ``budget`` iterations per move.

    Names: ``mcts`` and ``ismcts`` are the same bot (it is UCT when nothing is hidden);
    ``mcts:200`` sets the iterations per move."""

    name = "mcts"

    def __init__(self, seed: int = 0, iterations: int = 100, exploration: float = 0.7,
                 max_playout: int = 5000):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.exploration = exploration
        self.max_playout = max_playout

    def choose(self, handle, options) -> int:
        if len(options) == 1:
            return 0
        root = _Node(None)
        root_keys = {(o.name, o.label): o.index for o in reversed(options)}
        for _ in range(self.iterations):
            world = handle.imagine(self.rng)
            self._iterate(world, root)
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].wins, self.rng.random()))
        return root_keys.get(best[0], 0)

    def _iterate(self, world: Match, root: _Node) -> None:
        path = [root]
        node = root
        # selection: descend while every legal option of this node has been tried
        while not world.is_over:
            keys = _keys(world)
            seat = world.to_move
            for k in keys:
                child = node.children.get(k)
                if child is not None:
                    child.available += 1
            untried = [k for k in keys if k not in node.children]
            if untried:  # expansion: add one node and stop descending
                k = self.rng.choice(untried)
                child = node.children[k] = _Node(seat)
                child.available = 1
                world.apply(keys[k])
                path.append(child)
                break
            c = self.exploration
            best_key, best_value = None, -1.0
            for k in keys:
                ch = node.children[k]
                value = ch.wins / ch.visits + c * math.sqrt(math.log(max(ch.available, 1)) / ch.visits)
                if value > best_value:
                    best_key, best_value = k, value
            node = node.children[best_key]
            world.apply(keys[best_key])
            path.append(node)
        # simulation: random play to the end
        steps = 0
        while not world.is_over and steps < self.max_playout:
            world.apply(self.rng.randrange(world.option_count()))
            steps += 1
        rewards = {}
        for n in path[1:]:
            if n.seat not in rewards:
                rewards[n.seat] = reward(world, n.seat) if world.is_over else 1.0 / len(world.s.players)
            n.visits += 1
            n.wins += rewards[n.seat]
