"""The state of a match: entities (cards, tokens), zones, players, globals.

Plain Python objects for speed; ``encode``/``decode`` turn every value into JSON
and back, so a match can be saved mid-game and resumed identically.
"""
from __future__ import annotations

import random
from typing import Any

from rulelang.model.board import BoardCells, Topology


class CardDef:
    """The printed side of a card: its component and the values it was declared with."""

    __slots__ = ("index", "set_name", "component", "values", "code", "name", "span", "label", "back", "list_fields",
                 "plain", "shape")

    def __init__(self, index, set_name, component, values, code, name, span, label=None, back=None):
        self.label = label  # compiled `label "..."` template of the component, or None
        self.back = back  # compiled `back "..."`: what everyone sees of the card's back, or None
        self.index = index
        self.set_name = set_name
        self.component = component
        self.values = values  # plain values: copied into each entity's attrs
        # the fields holding a list: each entity gets its own copy of those (the rest is immutable)
        self.list_fields = tuple(k for k, v in values.items() if isinstance(v, list))
        # nothing a copy of a match must copy but its lists (list_fields): numbers, words, true and false,
        # keywords and cells (State.holding lists the cards of the others)
        self.plain = all(type(v) in PLAIN_TYPES or type(v) is KeywordValue or type(v) is list
                         or (type(v) is tuple and PLAIN_TYPES.issuperset(map(type, v))) for v in values.values())
        self.code = code  # field -> compiled thunk (condition / effect fields)
        # the cells a piece covers (`covers` of its component), as offsets from its first cell, or None:
        # the card lies on one cell
        self.shape = None
        self.name = name
        self.span = span


NOBODY: frozenset[int] = frozenset()  # a card's `known` when no seat knows it face down


class Entity:
    __slots__ = ("id", "card", "attrs", "zone", "cell", "face_down", "known", "owner", "place")

    def __init__(self, id: int, card: CardDef, attrs: dict, owner=None):
        self.id = id
        self.card = card
        self.attrs = attrs
        self.zone = None
        self.cell = None
        self.place = None  # which place of its cell, on a board with places
        self.face_down = False
        self.known: frozenset[int] = NOBODY  # the seats that saw it face down (replaced, never changed)
        self.owner = owner  # seat index or None

    def __repr__(self):
        return f"<{self.card.component} #{self.id}>"


class Player:
    __slots__ = ("seat", "attrs")

    def __init__(self, seat: int, attrs: dict):
        self.seat = seat
        self.attrs = attrs

    def __repr__(self):
        return f"Player {self.seat + 1}"


class KeywordValue:
    """A keyword with its arguments, as printed on a card: ``flying`` or ``armour(2)``."""

    __slots__ = ("name", "args")

    def __init__(self, name: str, args: tuple = ()):
        self.name = name
        self.args = tuple(args)

    def __eq__(self, other):
        return isinstance(other, KeywordValue) and other.name == self.name and other.args == self.args

    def __hash__(self):
        return hash((self.name, self.args))

    def __repr__(self):
        return self.name + (f"({', '.join(map(str, self.args))})" if self.args else "")


class EnumMap:
    """`int per Gem`: a whole number for each member of an enum, in the enum's order (`{red: 2,
    blue: 1}`, the members left out holding 0). A value, as lists are: nothing changes one in place;
    `p.gems[red] += 1` puts a new map in the field (`with_value`), so copies of a match share them."""

    __slots__ = ("enum", "values")

    def __init__(self, enum: str, values: dict):
        self.enum = enum  # the enum's name
        self.values = values  # member -> whole number, every member of the enum, in its order

    def with_value(self, member: str, value) -> "EnumMap":
        values = dict(self.values)
        values[member] = value
        return EnumMap(self.enum, values)

    def __eq__(self, other):
        return type(other) is EnumMap and other.enum == self.enum and other.values == self.values

    def __hash__(self):
        return hash((self.enum, tuple(self.values.items())))

    def __repr__(self):
        return "{" + ", ".join(f"{k}: {v}" for k, v in self.values.items()) + "}"


class Zone:
    """An ordered pile of entities: index 0 is the bottom, the last item the top."""

    is_board = False

    def __init__(self, name: str, key: str, owner, visibility: str):
        self.name = name  # the declaration's name, e.g. "hand"
        self.key = key  # unique: "hand#2" for player 2's hand
        self.owner = owner
        self.visibility = visibility
        self.items: list[Entity] = []

    def __repr__(self):
        return f"<zone {self.key}>"

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


class BoardZone(Zone):
    is_board = True

    def __init__(self, name, key, owner, visibility, topology: Topology, layer_of: str | None = None):
        super().__init__(name, key, owner, visibility)
        self.cells = BoardCells(topology, layer_of)


PLAIN_TYPES = frozenset((int, str, bool, float, type(None)))  # values no copy of a match needs to copy


class Journal:
    """What changed in a state since it was marked (engine/saves.py: `mark_state`, `restore_state`):
    the cards moved, turned or given to someone (`cards`), the zones whose cards changed (`zones`),
    the names of the fields and globals given a value (`keys`), and how many of the changes of
    `State.version` were recorded here (`changes`): a change of the version it does not account for
    was made by a statement that records nothing, and the whole state is put back. Every change of
    a card's field goes through `values.one_value_changed` or `expire`; a shuffle, a reveal, a hide
    and a turn face up or down through `journal_cards`."""

    __slots__ = ("cards", "zones", "keys", "changes")

    def __init__(self):
        self.cards: set = set()
        self.zones: set = set()
        self.keys: set = set()
        self.changes = 0


class State:
    def __init__(self, seed: int):
        self.seed = seed
        # the match's chance, made from the seed when first used (seeding costs as much as the rest of a
        # small match's start, and many games never roll or shuffle)
        self._rng: random.Random | None = None
        self.fixed_chance = None  # results of chance queued by a scenario, asked first (rulelang/engine/fixed_chance.py)
        self.entities: list[Entity] = []
        self.zones: dict[str, Zone] = {}
        self.players: list[Player] = []
        self.globals: dict[str, Any] = {}
        self.round = 0
        self.phase: str | None = None
        self.current: int | None = None
        self.stack: list = []  # frames of the rules program (see runtime)
        self.pending = None  # the choice waiting for an answer
        self.over = False
        self.winners: list[int] = []
        self.version = 0  # bumped by every change; continuous rules run to a fixed point
        self.events: list = []
        self.log: list[str] = []
        self.decisions = 0
        self.stats: dict[str, int] = {}
        self.ending = False
        self.def_cache: dict = {}  # values of chance-free defs for the current state and turn (see compiler)
        self.state_cache: dict = {}  # values of chance-free defs that read no turn, for the current state
        # values of the defs that are the same all game (dependencies.constant_defs); neither saved nor
        # copied (worked out again)
        self.constants: dict = {}
        # values of the defs that look at a card and the cards next to it (dependencies.neighbourhood_defs):
        # def name -> {card: (stamp, value)}, valid while the card's neighbourhood, the fields the def reads
        # and every other kind of change stay as they were (see codegen); neither saved nor copied.
        # `accounted` counts the changes of `version` such a stamp follows by itself (cards put in a zone,
        # fields or globals changed with their readers known)
        self.local_cache: dict = {}
        self.accounted = 0
        # the face-up cards of public zones by keyword, in card order: (cards_version, {keyword: cards})
        # (VM.bearers)
        self.bearers: tuple | None = None
        # counts the changes a card's bearing of keywords may depend on: a card put into a zone, turned, or
        # given a value in a field that may hold a keyword (Program.keyword_fields; any field on an undone
        # change)
        self.cards_version = 0
        self.settled_version: int | None = None  # the version at which continuous rules last settled
        # what changed since then, while every change was recorded (touched_version == version): names
        # of zones ("#deck"), fields ("score") and globals ("$actor"); see VM.settle
        self.touched: set[str] = set()
        self.touched_version = -1
        self.settled_turn: tuple | None = None  # (current, round, phase) when they last settled
        # the ids of the cards whose fields may hold something other than a number, a word, true or false:
        # a copy of the match copies only those cards' values (copy_state). Added when such a value is put
        # in a field, never removed (one too many only costs time)
        self.holding: set[int] = set()
        # what changes while a bot tries an option on this state, to put it back after (saves.mark_state)
        self.journal: Journal | None = None

    @property
    def rng(self) -> random.Random:
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(self.seed)
        return rng

    def rng_state(self) -> tuple | None:
        """The state of the match's chance, or None while it is not made yet."""
        return None if self._rng is None else self._rng.getstate()

    def set_rng_state(self, state: tuple | None) -> None:
        """Chance put as `rng_state` gave it; None: made from the seed when first used."""
        self._rng = None
        if state is not None:
            self._rng = random.Random.__new__(random.Random)  # (not seeded: the state replaces it)
            self._rng.setstate(state)


# ------------------------------------------------------------------ elimination

OUT_KEY = "__out"  # the seats eliminated, in order, kept with the globals (saved and copied with them)


def out_seats(state: "State") -> list:
    return state.globals.get(OUT_KEY) or []


def players_in(state: "State") -> list:
    """The players still in the game (every player until someone is eliminated)."""
    out = state.globals.get(OUT_KEY)
    if not out:
        return state.players
    return [p for p in state.players if p.seat not in out]


# ------------------------------------------------------------------ durations

UNTIL_KEY = "__until"  # changes to undo at the end of a turn, phase or round: [timing, owner, name, op, value]


def remember_undo(state: "State", timing: str, owner, name: str, op: str, value) -> None:
    """Remember how to undo `owner.name op value` (owner None: a global) when the timing ends."""
    state.globals.setdefault(UNTIL_KEY, []).append([timing, owner, name, op, value])


def touched(state: "State", key: str, also: str | None = None) -> None:
    """Record what one change touched (a field "score", a global "$actor", a zone "#deck"; `also`: a
    second zone, the one a card left), right after it raised ``state.version`` by one, while every
    change since the last fixed point is recorded (see VM.settle)."""
    if state.touched_version == state.version - 1:
        state.touched_version = state.version
        state.touched.add(key)
        if also is not None:
            state.touched.add(also)


def expire(state: "State", timing: str) -> None:
    """Undo, newest first, the changes that last until the end of this turn, phase or round. A change by
    `+=` or `-=` is taken back by the same amount (other changes made meanwhile stay); `=` puts back the
    value it replaced."""
    entries = state.globals.get(UNTIL_KEY)
    if not entries or not any(e[0] == timing for e in entries):
        return
    keep = []
    for entry in reversed(entries):
        when, owner, name, op, value = entry
        if when != timing:
            keep.append(entry)
            continue
        if op == "out":  # `eliminate p until end of ...`: the seat comes back in
            back = [seat for seat in state.globals.get(OUT_KEY) or [] if seat != value]
            if back:
                state.globals[OUT_KEY] = back
            else:
                state.globals.pop(OUT_KEY, None)
            continue
        attrs = state.globals if owner is None else owner.attrs
        if state.journal is not None:
            state.journal.keys.add(name)
        if type(owner) is Entity:
            state.cards_version += 1
            if type(value) not in PLAIN_TYPES:
                state.holding.add(owner.id)
        if op == "=":
            attrs[name] = value
        elif op == "+=":
            attrs[name] = (attrs.get(name) or 0) - value
        else:
            attrs[name] = (attrs.get(name) or 0) + value
    keep.reverse()
    if keep:
        state.globals[UNTIL_KEY] = keep
    else:
        del state.globals[UNTIL_KEY]
    state.version += 1
    if state.journal is not None:
        state.journal.changes += 1


# ------------------------------------------------------------------ JSON encoding


def encode(value):
    if value is None or isinstance(value, (bool, int, str, float)):
        return value
    if isinstance(value, Entity):
        return {"$e": value.id}
    if isinstance(value, Player):
        return {"$p": value.seat}
    if isinstance(value, Zone):
        return {"$z": value.key}
    if isinstance(value, KeywordValue):
        return {"$k": value.name, "args": [encode(a) for a in value.args]}
    if type(value) is EnumMap:
        return {"$m": value.enum, "values": [[k, v] for k, v in value.values.items()]}
    if isinstance(value, tuple):
        return {"$c": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"$d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, set):
        return {"$s": sorted((encode(v) for v in value), key=repr)}
    raise TypeError(f"cannot save a value of type {type(value).__name__}")


def decode(value, state: State):
    if value is None or isinstance(value, (bool, int, str, float)):
        return value
    if isinstance(value, list):
        return [decode(v, state) for v in value]
    if "$e" in value:
        return state.entities[value["$e"]]
    if "$p" in value:
        return state.players[value["$p"]]
    if "$z" in value:
        return state.zones[value["$z"]]
    if "$k" in value:
        return KeywordValue(value["$k"], tuple(decode(a, state) for a in value["args"]))
    if "$c" in value:
        return tuple(decode(v, state) for v in value["$c"])
    if "$m" in value:
        return EnumMap(value["$m"], {k: v for k, v in value["values"]})
    if "$d" in value:
        return {decode(k, state): decode(v, state) for k, v in value["$d"]}
    if "$s" in value:
        return {decode(v, state) for v in value["$s"]}
    raise ValueError(f"unknown saved value {value!r}")


# ------------------------------------------------------------------ changing the state


def detach(state: State, e: Entity) -> None:
    zone = e.zone
    if zone is None:
        return
    journal = state.journal
    if journal is not None:
        journal.cards.add(e)
        journal.zones.add(zone)
    if zone.is_board:
        zone.cells.remove(e.cell, e)
        e.cell = None
        e.place = None
    items = zone.items
    if items and items[-1] is e:  # (the top card, the one usually taken: no search)
        items.pop()
    else:
        items.remove(e)
    e.zone = None


def place(state: State, e: Entity, zone: Zone, cell=None, bottom=False, face_down=False, slot=None) -> None:
    """Put a detached entity into a zone (on a cell for boards, on a list of cells for a piece, in a
    place of the cell for boards with places: `slot`, or the first place); records enter/leave events."""
    if zone.is_board:
        if type(cell) is list:  # a piece: on each of its cells, its first cell its own
            zone.cells.place_piece(cell, e)
            cell = cell[0]
        else:
            zone.cells.place(cell, e, bottom=bottom)
        e.cell = cell
        places = zone.cells.topology.places
        e.place = (slot if slot is not None else places[0]) if places else None
        zone.items.append(e)
    elif bottom:
        zone.items.insert(0, e)
    else:
        zone.items.append(e)
    e.zone = zone
    e.face_down = face_down
    e.known = NOBODY
    state.version += 1
    state.cards_version += 1
    state.accounted += 1  # a board records which cells changed (BoardCells.near_version)
    if state.journal is not None:
        journal_cards(state, (e,), zone)


def set_owner(state: State, e: Entity, seat: int | None) -> None:
    """Give a card to a seat (None: to nobody); a board keeps track of who owns its cells' top cards."""
    if e.owner == seat:
        return
    old = e.owner
    e.owner = seat
    if e.zone is not None and e.zone.is_board:
        e.zone.cells.top_owner_changed(e.cell, e, old)
    state.version += 1
    journal_card(state, e)


def journal_card(state: State, e: Entity) -> None:
    """One change of the version, to a card where it lies (its owner, its face): journal_cards."""
    if state.journal is not None:
        journal_cards(state, (e,), e.zone)


def journal_cards(state: State, cards, zone: Zone | None = None) -> None:
    """One change of the version that turned, revealed or hid `cards` where they lie (their face, who
    has seen them), or with `zone`, reordered that zone (a shuffle: `cards` are its cards), or with no
    cards, changed only globals (an elimination; they are put back whole): recorded in the state's
    journal, if a match is marked, for restore_state to put back just those."""
    journal = state.journal
    if journal is not None:
        journal.cards.update(cards)
        if zone is not None:
            journal.zones.add(zone)
        journal.changes += 1


def move(state: State, e: Entity, zone: Zone, cell=None, bottom=False, face_down=False, watched=None, slot=None) -> None:
    old = e.zone
    detach(state, e)
    place(state, e, zone, cell, bottom, face_down, slot)
    touched(state, "#" + zone.name, "#" + old.name if old is not None else None)
    if watched is not None:
        if old is not None and old.name in watched:
            state.events.append(("leave", old.name, e))
        if zone.name in watched:
            state.events.append(("enter", zone.name, e))


def make_zones(program, s: State) -> None:
    """Every zone of the game (`program`: the compiled `Program`), one per player for `per player` zones (keys like "hand#2")."""
    def add(info, key: str, owner, base=None):
        s.zones[key] = (Zone(info.name, key, owner, info.visibility) if info.topology is None
                        else BoardZone(info.name, key, owner, info.visibility, info.topology, base))

    for info in program.zones.values():
        if info.counts is not None:  # a family: display#1, display#2... (shared, as a zone without owner)
            for i in range(1, info.counts[len(s.players)] + 1):
                add(info, f"{info.name}#{i}", None)
            continue
        for owner in range(len(s.players)) if info.per_player else [None]:
            base = info.layer_of
            if base is not None and owner is not None and program.zones[base].per_player:
                base = f"{base}#{owner + 1}"
            add(info, info.name if owner is None else f"{info.name}#{owner + 1}", owner, base)
