"""Games as environments: what the OpenSpiel game (`rulelang.openspiel`) and the PettingZoo
environment (`rulelang.pettingzoo`) share, neither library imported here: the game loaded
(`load_rules_game`, `player_count`), what its rules say of chance and hidden cards (`GameFacts`),
the game at a number of players (`Rules`), one match played as an episode (`Episode`: whose turn,
the pending choice as stable action ids (`decision`), a seat's view and its vector (`Encoding`),
the end, cut short or not, and the returns (`returns`)). Both APIs wrap an `Episode` thinly.
docs/environments.md describes the action ids and the encoding for users.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from rulelang.core.budgets import NUMBER_BOUND
from rulelang.model.builtins import describe
from rulelang.check.dependencies import IMPURE_CALLS
from rulelang.core.errors import DiagnosticBag
from rulelang.compile.loader import load
from rulelang.model.things import Entity
from rulelang.language.nodes import Call, Flip, Hide, Placement, Shuffle, nodes_in
from rulelang.engine.runtime import Game, Match
from rulelang.language.variants import apply_variants
from rulelang.engine.visibility import option_keys

#: the size of a game's action space unless asked otherwise (options are hashed into it)
DEFAULT_NUM_ACTIONS = 1024
#: how far from (0, 0) the cells of a board that grows are encoded (a square or hexagon of cells)
DEFAULT_BOARD_RADIUS = 4
#: decisions after which a match that has not ended is cut short (truncated, returns 0)
DEFAULT_MAX_GAME_LENGTH = 10_000

NUMBERS = (int, bool)  # (a bool is an int in Python; both are encoded as numbers)


def load_rules_game(path_or_bundled_name, variant=None, settings=None) -> Game:
    """A loaded game: `path_or_bundled_name` is a .rules path, a bundled game's name
    or a `Game` already loaded (then `variant` and `settings` must be None)."""
    if isinstance(path_or_bundled_name, Game):
        if variant is not None or settings is not None:
            raise ValueError("a loaded Game has its variant and settings already: pass a path to choose them")
        return path_or_bundled_name
    chosen = {k: ("true" if v else "false") if isinstance(v, bool) else str(v) for k, v in (settings or {}).items()}
    return load(str(path_or_bundled_name) if isinstance(path_or_bundled_name, Path) else path_or_bundled_name,
                variant=variant, settings=chosen or None)


def player_count(game: Game, players: int | None) -> int:
    """The number of players asked for (None: the game's default), refused unless the game allows it."""
    info = game.program.game
    n = info.players_default if players is None else int(players)
    if not info.players_min <= n <= info.players_max:
        raise ValueError(game.player_count_refused(n).message)
    return n


@dataclass(frozen=True)
class GameFacts:
    """What a game's declarations (its variants applied) say about chance and hidden information."""

    chance: bool  # `shuffle`, `roll(...)` or `random(...)` appear in the rules
    hidden: bool  # a zone is hidden or private, or a card can be face down

    @classmethod
    def of(cls, game: Game) -> "GameFacts":
        decls, _ = apply_variants(game.rules, list(game.variants), DiagnosticBag())
        chance = hidden = False
        for node in nodes_in(decls):
            t = type(node)
            if t is Shuffle or (t is Call and node.func in IMPURE_CALLS):
                chance = True
            elif (t is Placement and node.face == "down") or (t is Flip and node.face == "down") or t is Hide:
                hidden = True
        hidden = hidden or any(z.visibility != "public" for z in game.program.zones.values())
        return cls(chance, hidden)


# ------------------------------------------------------------------ actions


@lru_cache(maxsize=1 << 16)
def action_hash(name: str, label: str) -> int:
    """A stable 64-bit number for an option as its chooser sees it (the same in every process)."""
    digest = hashlib.blake2b(f"{name}\n{label}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Decision:
    """The pending choice as action ids: `ids` sorted, each id's option index and label."""

    ids: tuple[int, ...]
    index: dict  # action id -> index of the option in match.legal_options()
    labels: dict  # action id -> the option's label as its chooser sees it
    slots: dict  # (name, label) -> action id
    left_out: int  # distinct options beyond the action space (none unless a choice has more options than ids)

    def option_index(self, action) -> int:
        """The index of the option an action id stands for; a ValueError when it is not legal now."""
        index = self.index.get(int(action))
        if index is None:
            raise ValueError(f"action {action} is not legal now (legal: {list(self.ids)})")
        return index

    def action_of(self, match: Match, option_index: int) -> int:
        """The action id of an option given by its index (that of the first option looking the same)."""
        option = match.legal_options()[option_index]
        found = self.slots.get((option.name, option.label))
        if found is None:
            raise ValueError(f"option {option_index} ({option.label}) has no action id: the choice has more "
                             "options than the action space")
        return found


NO_DECISION = Decision((), {}, {}, {}, 0)


def decision(match: Match, num_actions: int = DEFAULT_NUM_ACTIONS) -> Decision:
    """The pending choice's options as action ids in 0..num_actions-1 (docs/environments.md, "Action
    ids"): options that look the same to their chooser are one action; each goes to the slot of its
    hash, or the next free one, placed in the order of their hashes so that the ids depend only on
    which options there are, not on their order."""
    if match.is_over:
        return NO_DECISION
    found = option_keys(match.s)  # (name, label) -> the first option's index, in the options' order
    keys = list(found)
    offered = keys[:num_actions]
    taken: dict[int, tuple] = {}
    for key in sorted(offered, key=lambda k: (action_hash(*k), k)):
        slot = action_hash(*key) % num_actions
        while slot in taken:
            slot = (slot + 1) % num_actions
        taken[slot] = key
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for slot in sorted(taken):
        name, label = taken[slot]
        labels[slot] = text = label if label not in seen else f"{label} ({name})"
        seen.add(text)
    return Decision(tuple(sorted(taken)), {slot: found[key] for slot, key in taken.items()}, labels,
                    {key: slot for slot, key in taken.items()}, len(keys) - len(offered))


# ------------------------------------------------------------------ results


def returns(match: Match, players: int) -> list[float]:
    """Each seat's return once the match is over: +1 a winner, -1 another player; 0 for every
    seat when nobody won (a draw, or a cooperative game lost) or the match is not over."""
    result = match.result
    if result is None or not result["winners"]:
        return [0.0] * players
    winners = {w - 1 for w in result["winners"]}
    return [1.0 if seat in winners else -1.0 for seat in range(players)]


# ------------------------------------------------------------------ what a seat sees, as numbers


def board_cells(topology, radius: int) -> list:
    """The cells of a board encoded one by one: every cell of a fixed board, in the board's order;
    of a board that grows, those within `radius` steps of (0, 0)."""
    if not topology.open:
        return list(topology.fixed_board()[1])
    r = range(-radius, radius + 1)
    if topology.kind == "hex":
        return [(q, s) for s in r for q in r if abs(q + s) <= radius]
    return [(x, y) for y in r for x in r]


class Encoding:
    """One seat's view as a vector of `size` float32 numbers, laid out from the declarations in
    blocks (`blocks` lists each one's name, start and length): docs/environments.md, "Observations",
    gives the layout. Seats are counted from the observer: slot 0 is the observer, slot 1 the next
    seat, and so on."""

    def __init__(self, game: Game, players: int, board_radius: int = DEFAULT_BOARD_RADIUS):
        program = game.program
        self.players = players
        start = game.new_match(players=players, seed=0).view(0)  # what fields hold numbers
        self.phases = list(program.phases)
        self.player_fields = [k for k, v in start["players"][0].items() if k != "seat" and type(v) in NUMBERS]
        self.globals = [k for k, v in start["globals"].items() if type(v) in NUMBERS]
        cards = [card for defs in program.card_sets.values() for card in defs]
        # every card's label as printed, and (component, field) of each field printed as a number or true/false
        self.labels = sorted({describe(Entity(0, card, dict(card.values))) for card in cards})
        self.label_index = {label: i for i, label in enumerate(self.labels)}
        self.card_fields = sorted({(card.component, k) for card in cards for k, v in card.values.items()
                                   if type(v) in NUMBERS})
        self.field_index: dict[str, list[tuple[str, int]]] = {}
        for i, (component, field) in enumerate(self.card_fields):
            self.field_index.setdefault(component, []).append((field, i))
        self.blocks: list[tuple[str, int, int]] = []
        self.zones: list[tuple[str, int | None, int, list | None, dict | None]] = []  # name, slot, start, cells, cell index
        n_cards = len(self.labels) + 1 + len(self.card_fields)  # one card block: label counts, other, field sums
        self._add("seat", players)
        self._add("turn", 1 + players + 1)
        self._add("phase", len(self.phases) + 1)
        for slot in range(players):
            self._add(f"player:{slot}", len(self.player_fields))
        self._add("globals", len(self.globals))
        for info in program.zones.values():
            cells = board_cells(info.topology, board_radius) if info.topology is not None else None
            length = 4 + n_cards if cells is None else 1 + len(cells) * (players + 2 + n_cards)
            for slot in (range(players) if info.per_player else [None]):
                start_at = self._add(f"zone:{info.name}" + (f":{slot}" if slot is not None else ""), length)
                self.zones.append((info.name, slot, start_at, cells,
                                   {c: i for i, c in enumerate(cells)} if cells is not None else None))
        self.size = sum(length for _, _, length in self.blocks)
        self._cell_width = players + 2 + n_cards

    def _add(self, name: str, length: int) -> int:
        start = sum(n for _, _, n in self.blocks)
        self.blocks.append((name, start, length))
        return start

    def encode(self, view: dict, out: np.ndarray | None = None) -> np.ndarray:
        """The vector of a view made by `player_view` (of a seat of this encoding's match)."""
        vec = np.zeros(self.size, np.float32) if out is None else out
        if out is not None:
            vec.fill(0)
        players = self.players
        you = view["you"] - 1
        at = 0
        vec[at + you] = 1
        at += players
        vec[at] = 1 if view["choice"] is not None else 0
        if view["current"] is not None:
            vec[at + 1 + (view["current"] - 1 - you) % players] = 1
        vec[at + 1 + players] = _number(view["round"])
        at += players + 2
        phase = view["phase"]
        vec[at + (self.phases.index(phase) if phase in self.phases else len(self.phases))] = 1
        at += len(self.phases) + 1
        for slot in range(players):
            fields = view["players"][(you + slot) % players]
            for i, name in enumerate(self.player_fields):
                vec[at + i] = _number(fields.get(name))
            at += len(self.player_fields)
        for i, name in enumerate(self.globals):
            vec[at + i] = _number(view["globals"].get(name))
        zones = view["zones"]
        for name, slot, start, cells, index in self.zones:
            zone = zones.get(name if slot is None else f"{name}#{(you + slot) % players + 1}")
            if zone is None:
                continue
            vec[start] = zone["count"]
            if cells is None:
                cards = zone.get("cards")
                if cards is None:  # a hidden pile: its size only
                    vec[start + 2] = zone["count"]
                    continue
                for card in cards:
                    if card.get("face_down"):
                        vec[start + 3] += 1
                    if card.get("hidden"):
                        vec[start + 2] += 1
                    else:
                        vec[start + 1] += 1
                        self._card(vec, start + 4, card)
                continue
            width = self._cell_width
            for entry in zone.get("cells", ()):
                cell = entry["cell"]
                i = index.get(tuple(cell) if isinstance(cell, list) else cell)
                if i is None:
                    continue  # outside the encoded cells of a board that grows
                base = start + 1 + i * width
                for card in entry["cards"]:
                    if card.get("hidden"):
                        vec[base + players + 1] += 1
                        continue
                    owner = card.get("owner")
                    vec[base + (players if owner is None else (owner - 1 - you) % players)] += 1
                    self._card(vec, base + players + 2, card)
        return vec

    def _card(self, vec: np.ndarray, at: int, card: dict) -> None:
        labels = len(self.labels)
        vec[at + self.label_index.get(card.get("card"), labels)] += 1
        at += labels + 1
        for field, i in self.field_index.get(card.get("component"), ()):
            v = card.get(field)
            if type(v) in NUMBERS:
                vec[at + i] += v


def _number(v) -> float:
    return float(v) if type(v) in NUMBERS else 0.0


#: the bounds of every number of an encoding (the rules keep every number within them)
LOW, HIGH = -float(NUMBER_BOUND), float(NUMBER_BOUND)


# ------------------------------------------------------------------ an episode


class Rules:
    """A game at a number of players, as both APIs play it: what its rules declare (`facts`), how
    a match starts, and the encodings of its views (each kept once worked out)."""

    def __init__(self, game: Game, players: int):
        self.game, self.players = game, players
        self._kept: dict[tuple, object] = {}

    def _keep(self, key: tuple, make):
        if key not in self._kept:
            self._kept[key] = make()
        return self._kept[key]

    @cached_property
    def facts(self) -> GameFacts:
        return GameFacts.of(self.game)

    def start(self, seed: int) -> Match:
        """A new match: with chance, seeded; without, a copy of the one start (the seed changes nothing)."""
        return self.game.new_match(players=self.players, seed=seed) if self.facts.chance else self._started.clone()

    @cached_property
    def _started(self) -> Match:
        return self.game.new_match(players=self.players, seed=0)

    def start_view(self, seat: int) -> dict:
        """A seat's view of the start of a game without chance (OpenSpiel asks for the tensor of a
        new state each time it wants to know the tensor's size)."""
        return self._keep(("view", seat), lambda: self._started.view(seat))

    def start_vector(self, board_radius: int, seat: int) -> np.ndarray:
        return self._keep(("vector", board_radius, seat),
                          lambda: self.encoding(board_radius).encode(self.start_view(seat)))

    def encoding(self, board_radius: int) -> Encoding:
        return self._keep(("encoding", board_radius), lambda: Encoding(self.game, self.players, board_radius))


class Episode:
    """One match played through an environment API, `num_actions` action ids a choice and cut short
    (`truncated`) after `max_length` decisions: whose turn it is (`to_move`), the legal actions
    (`decision`), what a seat sees (`view`, `vector`), the end (`over`) and the returns. Its match
    starts when first asked for: from `seed` by `rules.start` (no seed yet: nothing is started, the
    seed is still to be drawn). What is worked out of the match is kept until a move is applied."""

    __slots__ = ("rules", "seed", "num_actions", "max_length", "_match", "decisions", "truncated", "_decision",
                 "_views")

    def __init__(self, rules: Rules, seed: int | None, num_actions: int, max_length: int, match: Match | None = None,
                 decisions: int = 0, truncated: bool = False):
        self.rules, self.seed, self._match = rules, seed, match
        self.num_actions, self.max_length = num_actions, max_length
        self.decisions = decisions
        self.truncated = truncated or (match is not None and self._too_long())
        self._forget()

    def _forget(self):
        self._decision, self._views = None, {}

    def _too_long(self) -> bool:
        return self.seed is not None and not self.match.is_over and self.decisions >= self.max_length

    @property
    def match(self) -> Match | None:
        if self._match is None and self.seed is not None:
            self._match = self.rules.start(self.seed)
        return self._match

    def draw_seed(self, seed: int) -> None:
        """The seed drawn: the match starts from it."""
        self.seed = int(seed)
        self._forget()

    @property
    def over(self) -> bool:
        """The match ended or was cut short (never before the seed is drawn)."""
        return self.seed is not None and (self.truncated or self.match.is_over)

    @property
    def to_move(self) -> int | None:
        """The seat choosing now (None when the episode is over or the seed is not drawn)."""
        return None if self.seed is None or self.over else self.match.to_move

    def decision(self) -> Decision:
        """The pending choice as action ids (none when the episode is over or the seed is not drawn)."""
        if self.seed is None or self.over:
            return NO_DECISION
        if self._decision is None:
            self._decision = decision(self.match, self.num_actions)
        return self._decision

    def view(self, seat: int) -> dict:
        """What `seat` sees (-1: a watcher), as `Match.view` gives it."""
        found = self._views.get(seat)
        if found is None:
            found = self._views[seat] = (self._match.view(seat) if self._match is not None
                                         else self.rules.start_view(seat))
        return found

    def vector(self, seat: int, board_radius: int, out: np.ndarray | None = None) -> np.ndarray:
        """`seat`'s view encoded (`Encoding`; zeros before the seed is drawn), into `out` if given."""
        encoding = self.rules.encoding(board_radius)
        vec = np.zeros(encoding.size, np.float32) if out is None else out
        if self.seed is None:
            vec.fill(0)
        elif self._match is None:  # a game without chance at its start
            vec[:] = self.rules.start_vector(board_radius, seat)
        else:
            encoding.encode(self.view(seat), vec)
        return vec

    def play(self, action) -> None:
        """The option an action id stands for applied (a ValueError when it is not legal now)."""
        self.apply(self.decision().option_index(action))

    def apply(self, option_index: int) -> None:
        self.match.apply(option_index)
        self.decisions += 1
        self.truncated = self._too_long()
        self._forget()

    def returns(self) -> list[float]:
        """Each seat's return: `returns` once the match is over, 0 for every seat before or when cut short."""
        if not self.over or self.truncated:
            return [0.0] * self.rules.players
        return returns(self.match, self.rules.players)
