"""Monte Carlo tree search bots: UCT, and information-set MCTS for hidden information.

One algorithm serves both (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012):
every iteration starts from a fresh copy of the match *as the bot's seat may imagine it*
(``AgentHandle.imagine``: every card it cannot see re-dealt at random, chance reseeded), walks
down a tree of decisions keyed by what each chooser sees (option name and label), grows it by
one node, plays the rest of the game out at random and backs the result up. With nothing hidden
and no chance, every imagined copy is the match itself: plain UCT (UCB1 applied to trees). With
hidden cards, the nodes are information sets, and an option that exists only in some imagined
deals is scored by how often it was available (the "subset-armed bandit" of ISMCTS); with chance
(shuffles, rolls), every iteration reseeds it, so the tree averages over it.

What makes small budgets count in big games: progressive widening (a node visited n times has at
most ``max(width, ceil(2 * sqrt(n + 1)))`` children, so a decision of at most ``width`` options is
plain UCT), play-outs cut short after ``depth`` decisions and scored by the rules' ``result`` and
``def heuristic(p)`` (without a heuristic they run to the end), and with ``greedy=W`` greedy's
valuation of each option counted as W play-outs of it. Every setting, and what was measured of it
(which is stronger than greedy in which game): docs/balance.md ("Tree search settings").

The bot never reads the real match: only its view and imagined copies, through the handle.
"""
from __future__ import annotations

import math
import random

from rulelang.bots.valuation import UNPLAYABLE, best_of, option_values, player_values, position_value
from rulelang.engine.runtime import Ctx, Match
from rulelang.engine.visibility import option_keys

#: A decision with at most this many options is never narrowed by progressive widening.
DEFAULT_WIDTH = 10
#: Random decisions played after the tree before a heuristic cut-off (rules with a heuristic).
DEFAULT_DEPTH = 4
#: Share of a cut-off position's value that comes from "who would win if the game ended now";
#: the rest comes from the seat's lead by the heuristic.
RESULT_WEIGHT = 0.6
#: Share of a seat's own value (against its lead) in how the ``greedy`` setting scores a position.
OWN_WEIGHT = 0.1


#: an option the imagined deal cannot play, in greedy_prior: (greedy's rank, last; its value, nothing)
_UNPLAYABLE = (UNPLAYABLE, 0.0)

#: How a play-out chooses (the ``playout`` setting).
PLAYOUTS = ("random", "greedy", "none")


class _Node:
    __slots__ = ("children", "visits", "wins", "available", "seat", "prior", "lots")

    def __init__(self, seat: int | None):
        self.children: dict[tuple, _Node] = {}
        self.visits = 0
        self.wins = 0.0  # summed reward of the seat that chose the move into this node
        self.available = 0  # iterations in which this move was legal (ISMCTS availability)
        self.seat = seat  # who chose the move into this node
        # greedy's reading of each option of this node's decision (greedy=W): key -> (order, value)
        self.prior: dict[tuple, tuple[tuple, float]] | None = None
        # (greedy=W with top=K) a number drawn once per option, which orders options greedy ties
        self.lots: dict[tuple, float] | None = None


def reward(world: Match, seat: int, draw: float | None = None) -> float:
    """1 for a win (shared wins count fully), 0 for a loss; a game nobody wins counts as `draw`,
    by default a share of one for everyone (a draw in a two-player game is worth half a win)."""
    winners = world.s.winners
    if not winners:
        return 1.0 / max(len(world.s.players), 1) if draw is None else draw
    return 1.0 if seat in winners else 0.0


def leads(values: list[float], own: float = 0.0) -> list[float]:
    """Each seat's lead in [0, 1] over the best other seat by `values`, ``0.5 + 0.5 * (mine - best) /
    (|mine| + |best| + 1)``: above one half when ahead, growing with the lead, whatever the values'
    scale. With `own`, that share of ``mine - best`` is the seat's own value instead (greedy's tie-break)."""
    out = []
    for i, mine in enumerate(values):
        best = max((v for j, v in enumerate(values) if j != i), default=0.0)
        lead = (1 - own) * (mine - best) + own * mine if own else mine - best
        out.append(0.5 + 0.5 * lead / (abs(mine) + abs(best) + 1.0))
    return out


def cutoff_values(world: Match, draw: float | None = None) -> list[float]:
    """Every seat's value in [0, 1] of an unfinished position, as if the game ended now:
    ``RESULT_WEIGHT`` of it is the rules' ``result`` run now (1 for a seat that would win, a share
    of one each when nobody would), the rest the seat's ``leads`` by the rules' heuristic. Uses the
    world up: call it on a throw-away copy only."""
    s = world.s
    program = world.game.program
    players = len(s.players)
    winners = world.winners_now()
    if winners:
        won = [1.0 if i in winners else 0.0 for i in range(players)]
    else:
        won = [1.0 / max(players, 1) if draw is None else draw] * players
    h = None
    if program.heuristic is not None and players > 1:
        try:
            h = [float(program.heuristic(Ctx({}, s, world.vm), (p,)) or 0) for p in s.players]
        except Exception:  # a heuristic that cannot be computed mid-game says nothing
            pass
    return [RESULT_WEIGHT * w + (1 - RESULT_WEIGHT) * lead
            for w, lead in zip(won, leads(h) if h is not None else [0.5] * players)]


def root_prior(handle, root_keys: dict[tuple, int], rng: random.Random,
               draw: float | None) -> dict[tuple, tuple[float, float]]:
    """Each option of the decision at hand, valued one move ahead (``prior=1``): on a copy of one
    imagined match per option, the option is played and the position scored by ``cutoff_values``,
    then by the seat's own heuristic, which breaks ties (a move that helps every player alike does
    not change the lead, but the seat's own value). It only orders progressive widening, so a poor
    heuristic costs order, not correctness."""
    seat = handle.seat
    heuristic = handle.game_program.heuristic
    values: dict[tuple, tuple[float, float]] = {}
    base = handle.imagine(rng)
    for key, index in root_keys.items():
        world = base.clone()
        try:
            world.apply(index)
            if world.is_over:
                values[key] = (reward(world, seat, draw), 0.0)
                continue
            s = world.s
            own = float(heuristic(Ctx({}, s, world.vm), (s.players[seat],)) or 0)
            values[key] = (cutoff_values(world, draw)[seat], own)
        except Exception:  # an option the imagined deal cannot play says nothing
            values[key] = (0.0, 0.0)
    return values


def greedy_values(world: Match, draw: float | None = None, values: list[float] | None = None) -> list[float]:
    """Every seat's value in [0, 1] of a position as the greedy bot reads it (``valuation.position_value``):
    a finished game is worth its ``reward``; an unfinished one the seat's ``leads`` by
    ``valuation.player_values``, ``OWN_WEIGHT`` of it its own value; one half when they say nothing.
    `values`: the player values when already worked out. Uses the world up: call it on a throw-away copy."""
    s = world.s
    players = len(s.players)
    if s.over:
        return [reward(world, seat, draw) for seat in range(players)]
    if values is None:
        values = player_values(world)
    return [0.5] * players if values is None else leads(values, OWN_WEIGHT)


def greedy_prior(world: Match, keys: dict[tuple, int], draw: float | None = None) -> dict[tuple, tuple[tuple, float]]:
    """Each option of the decision at hand as the greedy bot values it: key -> (greedy's
    ``position_value`` of the position after it, by which greedy ranks its options; the same
    position's ``greedy_values`` for the chooser). Tried on a copy of `world` (``valuation.option_values``:
    each option up to the next choice of two or more options); `world` is left as it was."""
    seat = world.to_move

    def score(trial: Match, who: int):
        values = None if trial.s.over else player_values(trial)
        return position_value(trial, who, values), greedy_values(trial, draw, values)[who]

    order = list(keys)
    found = option_values(world.clone(), seat, [keys[k] for k in order], score=score, failed=_UNPLAYABLE)
    return dict(zip(order, found))


class MCTSAgent:
    """Monte Carlo tree search over what its seat may see; ``iterations`` per move.

    Names: ``mcts`` and ``ismcts`` are the same bot (it is UCT when nothing is hidden);
    ``mcts:200`` sets the iterations per move, ``mcts:200:depth=8:width=12`` the settings too.
    Each setting (``exploration``, ``depth``, ``round_end``, ``width``, ``max_playout``, ``draw``,
    ``prior``, ``bias``, ``greedy``, ``playout``, ``epsilon``, ``samples``, ``top``) is explained,
    with what was measured of it, in docs/balance.md ("Tree search settings"); the defaults are
    those of ``__init__``.
    """

    name = "mcts"

    def __init__(self, seed: int = 0, iterations: int = 100, exploration: float = 0.7,
                 max_playout: int = 5000, depth: int = DEFAULT_DEPTH, width: int = DEFAULT_WIDTH,
                 round_end: int = 0, draw: float | None = None, prior: int = 0, bias: float = 0.0,
                 greedy: float = 0.0, playout: str = "random", epsilon: float = 0.2, samples: int = 1,
                 top: int = 0):
        if playout not in PLAYOUTS:
            raise ValueError(f'unknown play-out "{playout}"; choose one of: {", ".join(PLAYOUTS)}')
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.exploration = exploration
        self.max_playout = max_playout
        self.depth = depth
        self.width = width
        self.round_end = bool(round_end)
        self.draw = None if draw is None else min(1.0, float(draw))
        self.prior = bool(prior)
        self.bias = float(bias)
        self.greedy = float(greedy)
        self.playout = playout
        self.epsilon = float(epsilon)
        self.samples = max(1, int(samples))
        self.top = int(top)
        self._order: dict[tuple, tuple[float, float]] = {}  # the root's options by their prior (prior=1)
        self._bias: dict[tuple, float] = {}  # the root's progressive bias (when bias is on)
        self.root: _Node | None = None  # the tree of the last move (kept for inspection)

    def choose(self, handle, options) -> int:
        if len(options) == 1:
            return 0
        root = _Node(None)
        root_keys = {(o.name, o.label): o.index for o in reversed(options)}
        self._order = {}
        self._bias = {}
        if self.prior and len(root_keys) > self.width and handle.game_program.heuristic is not None:
            self._order = root_prior(handle, root_keys, self.rng, self.draw)
            if self.bias:  # the prior scaled to 0..1 among the options, times the bias
                low, high = min(v for v, _ in self._order.values()), max(v for v, _ in self._order.values())
                if high > low:
                    self._bias = {k: self.bias * (v - low) / (high - low) for k, (v, _) in self._order.items()}
        for _ in range(self.iterations):
            world = handle.imagine(self.rng)
            self._iterate(world, root)
        self.root = root
        if self.greedy:
            return root_keys.get(self._greedy_choice(handle, root, root_keys), 0)
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].wins, self.rng.random()))
        return root_keys.get(best[0], 0)

    def _greedy_choice(self, handle, root: _Node, root_keys: dict[tuple, int]) -> tuple:
        """With ``greedy``: the root option whose value, greedy's prior counted as W play-outs, is best
        (ties: greedy's order, then the most visits, then at random)."""
        if root.prior is None:  # (no iterations)
            root.prior = greedy_prior(handle.imagine(self.rng), root_keys, self.draw)
        w = self.greedy

        def value(k):
            order, p = root.prior.get(k, _UNPLAYABLE)
            ch = root.children.get(k)
            visits, wins = (ch.visits, ch.wins) if ch is not None else (0, 0.0)
            return (wins + w * p) / (visits + w), order, visits

        return self.rng.choice(best_of((k, value(k)) for k in self._top(root, root_keys)))

    def _greedy_select(self, world: Match, node: _Node, keys: dict[tuple, int]) -> tuple:
        """With ``greedy``: the option to follow (or add) at a node, by its value with greedy's prior
        counted as W play-outs plus UCB1's exploration term; ties by greedy's order, then at random."""
        prior = node.prior
        if prior is None:
            prior = node.prior = greedy_prior(world, keys, self.draw)
        elif any(k not in prior for k in keys):  # an option this imagined deal has and others had not
            prior.update(greedy_prior(world, {k: i for k, i in keys.items() if k not in prior}, self.draw))
        w = self.greedy
        c = self.exploration
        log_n = math.log(node.visits + 1)

        def value(k):
            order, p = prior[k]
            ch = node.children.get(k)
            if ch is None:
                n, wins = w, w * p
            else:
                ch.available += 1  # (ISMCTS availability: counted as each option is looked at)
                n, wins = ch.visits + w, ch.wins + w * p
            return wins / n + c * math.sqrt(log_n / n), order

        best = best_of((k, value(k)) for k in self._top(node, keys))
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _top(self, node: _Node, keys) -> list[tuple]:
        """With ``top`` K: the K options of `keys` that greedy ranks first at this node (its prior), ties
        in the order of a number drawn once per option and node; otherwise every option."""
        if not self.top or len(keys) <= self.top:
            return list(keys)
        lots = node.lots
        if lots is None:
            lots = node.lots = {}
        for k in keys:
            if k not in lots:
                lots[k] = self.rng.random()
        prior = node.prior
        return sorted(keys, key=lambda k: (prior.get(k, _UNPLAYABLE)[0], lots[k]), reverse=True)[:self.top]

    def _playout_step(self, world: Match) -> None:
        """One play-out decision: at random, or with ``playout=greedy`` greedy's best (ties at random)
        except with probability ``epsilon``."""
        if self.playout == "greedy" and world.option_count() > 1 and self.rng.random() >= self.epsilon:
            keys = option_keys(world.s)
            if len(keys) > 1:
                values = greedy_prior(world, keys, self.draw)
                best = best_of((k, (p, order)) for k, (order, p) in values.items())
                world.apply(keys[self.rng.choice(best)])
                return
        world.apply(self.rng.randrange(world.option_count()))

    def _cut_values(self, world: Match, value) -> list[float]:
        """Every seat's value of a position cut off before the end, by `value` (``greedy_values`` or
        ``cutoff_values``): on `world` itself, or with ``samples`` M > 1 the mean for each seat over M
        copies of it as that seat may imagine it (what it cannot see re-dealt, ``Match.sample_for``).
        `world` is an imagined copy already; it is used up."""
        m = self.samples
        if m <= 1:
            return value(world, self.draw)
        return [sum(value(world.sample_for(seat, self.rng), self.draw)[seat] for _ in range(m)) / m
                for seat in range(len(world.s.players))]

    def _uct_select(self, node: _Node, keys: dict[tuple, int], at_root: bool) -> tuple:
        """The option to add at a node, while it has untried options and progressive widening leaves
        room (at random; at the root with ``prior``, among the most promising), else the option to
        follow by UCB1 (with the root's progressive bias)."""
        tried = 0
        for k in keys:
            child = node.children.get(k)
            if child is not None:
                child.available += 1
                tried += 1
        room = max(self.width, math.ceil(2.0 * math.sqrt(node.visits + 1)))
        if tried < len(keys) and (tried == 0 or len(keys) <= self.width or tried < room):
            untried = [k for k in keys if k not in node.children]
            if at_root and self._order:  # the most promising first (ties: at random)
                order = self._order
                top = max(order.get(k, (0.0, 0.0)) for k in untried)
                untried = [k for k in untried if order.get(k, (0.0, 0.0)) == top]
            return self.rng.choice(untried)
        c = self.exploration
        best_key, best_value = None, -1.0
        bias = self._bias if at_root else None
        for k in keys:
            ch = node.children.get(k)
            if ch is None:
                continue
            value = ch.wins / ch.visits + c * math.sqrt(math.log(max(ch.available, 1)) / ch.visits)
            if bias:
                value += bias.get(k, 0.0) / (ch.visits + 1)
            if value > best_value:
                best_key, best_value = k, value
        return best_key

    def _iterate(self, world: Match, root: _Node) -> None:
        path = [root]
        node = root
        # selection: descend while every legal option of this node has been tried
        while not world.is_over:
            keys = option_keys(world.s)
            seat = world.to_move
            if self.greedy:
                k = self._greedy_select(world, node, keys) if len(keys) > 1 else next(iter(keys))
            else:
                k = self._uct_select(node, keys, node is root)
            world.apply(keys[k])
            child = node.children.get(k)
            if child is None:  # expansion: add one node and stop descending
                child = node.children[k] = _Node(seat)
                child.available = 1
                path.append(child)
                break
            node = child
            path.append(node)
        # simulation: random play to the end, or to the heuristic cut-off
        limit = self.max_playout
        if self.playout == "none":
            limit = 0
        elif self.depth and world.game.program.heuristic is not None:
            limit = min(limit, self.depth)
        steps = 0
        cut = limit < self.max_playout
        while not world.is_over and steps < limit:
            self._playout_step(world)
            steps += 1
        if cut and self.round_end:  # on to the end of this round: rules often score there
            this_round = world.s.round
            while not world.is_over and world.s.round == this_round and steps < self.max_playout:
                self._playout_step(world)
                steps += 1
        if world.is_over:
            values = [reward(world, seat, self.draw) for seat in range(len(world.s.players))]
        elif self.greedy and (cut or self.playout == "none"):
            values = self._cut_values(world, greedy_values)
        elif cut and steps < self.max_playout:
            values = self._cut_values(world, cutoff_values)
        else:  # stopped by max_playout: unfinished, nobody is favoured
            values = [1.0 / len(world.s.players)] * len(world.s.players)
        root.visits += 1  # the root's visits only pace its widening
        for n in path[1:]:
            n.visits += 1
            n.wins += values[n.seat]
