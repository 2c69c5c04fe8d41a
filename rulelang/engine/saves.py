"""A match's state copied, marked and saved: `copy_state` (a cheap copy for agents that plan: plain
values shared, cards and zones copied), `mark_state` and `restore_state` (options tried one after
another on one state, put back as it was after each from what `State.journal` recorded), and
`state_to_json` and `state_from_json` (a match saved at any point, even while a player is choosing,
and read back to resume identically).
"""
from __future__ import annotations

from itertools import chain

from rulelang.engine.program import Frame, Program
from rulelang.core.errors import Diagnostic, RulesError, Span
from rulelang.model.options import Options
from rulelang.model.things import (PLAIN_TYPES, BoardZone, Entity, Journal, KeywordValue, Player, State, Zone, decode,
                                   encode, make_zones)

SAVE_FORMAT = 1


_PLAIN_OR_TUPLE = PLAIN_TYPES | {tuple}
#: values a copy shares with its original: plain ones, and keywords (a keyword never changes)
_SHARED = PLAIN_TYPES | {KeywordValue}


def holds_no_object(items) -> bool:
    """Whether a list or tuple holds only numbers, words, true/false, none and tuples of those
    (cells, directions): nothing a copy of the match must replace by its own card, player or zone.
    The tests run in C: a copy asks it of every list of options."""
    types = set(map(type, items))
    if types <= PLAIN_TYPES:
        return True
    if not types <= _PLAIN_OR_TUPLE:
        return False
    return PLAIN_TYPES.issuperset(map(type, chain.from_iterable([x for x in items if type(x) is tuple])))


def copy_state(s: State, answer: int | None = None) -> State:
    """A deep copy of a match state, much faster than a JSON round trip. With `answer`, the copy's
    pending choice keeps only that option, as its option 0: a copy made to try one option (a bot
    that plans), without copying the others."""
    new = State(s.seed)
    new.set_rng_state(s.rng_state())  # (a generator not used yet stays so: the copy makes its own from the seed)
    new.players = [Player(p.seat, {}) for p in s.players]
    entity_map = new.entities  # an entity's id is its index in state.entities
    plain = PLAIN_TYPES
    shared = _SHARED
    blank = Entity.__new__
    for e in s.entities:
        c = blank(Entity)
        c.id = e.id
        c.card = e.card
        c.owner = e.owner
        c.zone = None  # (set below, zone by zone)
        c.cell = e.cell
        c.place = e.place
        c.face_down = e.face_down
        c.known = e.known  # (a frozenset: replaced, never changed)
        # the values of the cards in State.holding are copied below. The others hold plain values and
        # the lists the card was made with (a list put in a field puts its card in State.holding), and a
        # list is never changed in place (a new one replaces it): the copy shares those lists
        c.attrs = e.attrs.copy()
        entity_map.append(c)
    new.holding = set(s.holding)
    zones = {}
    for key, zone in s.zones.items():
        if zone.is_board:
            z = BoardZone.__new__(BoardZone)
            Zone.__init__(z, zone.name, key, zone.owner, zone.visibility)
            z.cells = zone.cells.copy(entity_map)
        else:
            z = Zone(zone.name, key, zone.owner, zone.visibility)
        z.items = items = [entity_map[e.id] for e in zone.items]
        for e in items:
            e.zone = z
        zones[key] = z
    new.zones = zones

    def remap(v):
        t = type(v)
        if t in plain:
            return v
        if t is Entity:
            return entity_map[v.id]
        if t is tuple:  # a cell, a direction: itself (a tuple never changes) unless it holds a card
            return v if plain.issuperset(map(type, v)) else tuple([remap(x) for x in v])
        if t is list:  # a new list: the copy's frames and fields change theirs
            if shared.issuperset(map(type, v)):
                return v[:]
            # (a list of lists of plain values, such as a card's needs, without a call for each)
            return [x[:] if type(x) is list and plain.issuperset(map(type, x)) else remap(x) for x in v]
        if t is KeywordValue:  # never changes: itself
            return v
        if t is Player:
            return new.players[v.seat]
        if isinstance(v, Zone):
            return zones[v.key]
        if t is dict:
            return {remap(k): remap(x) for k, x in v.items()}
        if t is set:
            return {remap(x) for x in v}
        return v

    for i in s.holding:  # the cards whose fields may hold a card, a player, a zone, a list...
        attrs = entity_map[i].attrs
        for k, v in attrs.items():  # (a new value for a key already there: the dict keeps its size)
            if type(v) not in plain:
                attrs[k] = remap(v)
    for p, c in zip(s.players, new.players):
        c.attrs = {k: remap(v) for k, v in p.attrs.items()}
    new.globals = {k: remap(v) for k, v in s.globals.items()}
    new.round, new.phase, new.current = s.round, s.phase, s.current
    new.over, new.winners, new.ending = s.over, list(s.winners), s.ending
    new.version, new.decisions, new.stats, new.log = s.version, s.decisions, dict(s.stats), list(s.log[-20:])
    new.settled_version = s.settled_version
    new.stack = [Frame(f.code, f.pc, {k: remap(v) for k, v in f.vars.items()}, list(f.handlers), f.kind)
                 for f in s.stack]
    if s.pending is not None:
        p = s.pending
        options = p["options"]
        if answer is not None:
            options = [options[answer]]
        new.pending = {"player": p["player"], "prompt": p["prompt"], "span": p["span"],
                       "options": options.remap(remap, holds_no_object) if type(options) is Options else
                       [{"alt": o["alt"], "name": o["name"], "values": remap(o["values"])} for o in options]}
    new.events = [remap(ev) for ev in s.events]
    return new


# ------------------------------------------------------------------ marking and putting back


_CONTAINERS = frozenset((list, dict, set))


def _fresh(v):
    """A value as a state keeps it, with its own lists, dicts and sets (the cards, players and zones
    in it are the same): a frame, a player or a global changes its lists in place."""
    t = type(v)
    if t is list:
        return v[:] if _CONTAINERS.isdisjoint(map(type, v)) else [_fresh(x) for x in v]
    if t is dict:
        return {k: _fresh(x) for k, x in v.items()} if not _CONTAINERS.isdisjoint(map(type, v.values())) else v.copy()
    if t is set:
        return set(v)
    return v


class Mark:
    """A state as it was when marked (`mark_state`): what `restore_state` puts back."""

    __slots__ = ("count", "slots", "attrs", "holders", "fields", "items", "cells", "players", "globals", "frames", "scalars",
                 "winners", "stats", "log", "log_length", "events", "touched", "holding", "rng", "bearers", "local")


def mark_state(s: State) -> Mark:
    """Mark a state to try things on it and put it back as it was after each (`restore_state`): a bot
    trying one option after another on one copy instead of one copy per option. From now on the
    state records what changes (`State.journal`). Not for a state with chance queued by a scenario."""
    if s.fixed_chance is not None:
        raise ValueError("a state with chance queued by a scenario cannot be marked")
    m = Mark()
    entities = s.entities
    m.count = len(entities)
    m.slots = [(e.zone, e.cell, e.place, e.face_down, e.known, e.owner) for e in entities]
    m.attrs = [e.attrs.copy() for e in entities]
    m.holders = {}  # a field's name -> the cards that have it (made when first needed)
    m.fields = sum(map(len, m.attrs))
    m.items = {zone: zone.items[:] for zone in s.zones.values()}
    # the values remembered by neighbourhood (State.local_cache) stay right after a restore, and with
    # them what each board knows of its cells' neighbourhoods
    m.cells = {zone: zone.cells.copy(entities, neighbourhood=True) for zone in s.zones.values() if zone.is_board}
    m.local = {name: dict(found) for name, found in s.local_cache.items()}
    m.players = [_fresh(p.attrs) for p in s.players]
    m.globals = _fresh(s.globals)
    m.frames = [(f.code, f.pc, _fresh(f.vars), list(f.handlers), f.kind) for f in s.stack]
    m.scalars = (s.round, s.phase, s.current, s.over, s.ending, s.decisions, s.version, s.cards_version,
                 s.accounted, s.settled_version, s.touched_version, s.settled_turn, s.pending, s.seed)
    m.winners, m.stats, m.events = list(s.winners), dict(s.stats), list(s.events)
    m.log, m.log_length = s.log, len(s.log)
    m.touched, m.holding = set(s.touched), set(s.holding)
    m.rng = s.rng_state()
    m.bearers = s.bearers
    s.journal = Journal()
    return m


def restore_state(s: State, m: Mark) -> None:
    """Put a marked state back as it was when marked (`mark_state`); it goes on recording."""
    journal = s.journal
    # a change of the version the journal does not account for (a statement that records nothing,
    # such as `eliminate`) may have turned or reordered any card: everything is put back
    everything = s.version - m.scalars[6] != journal.changes
    entities = s.entities
    count = m.count
    if len(entities) > count:  # cards created
        del entities[count:]
    slots = m.slots
    for e in (entities if everything else journal.cards):
        if e.id < count:
            e.zone, e.cell, e.place, e.face_down, e.known, e.owner = slots[e.id]
    for zone in (m.items if everything else journal.zones):
        zone.items[:] = m.items[zone]
        if zone.is_board:
            zone.cells = m.cells[zone].copy(entities, neighbourhood=True)
    attrs, holders = m.attrs, m.holders
    if everything:  # (every card's fields too, should a statement that records nothing change one)
        for e, old in zip(entities, attrs):
            e.attrs = old.copy()
        journal.keys.clear()
    for key in journal.keys:  # every change of a card's field goes through one_value_changed or expire
        if key[0] == "$":
            continue  # (a global's: the globals are put back whole)
        having = holders.get(key)
        if having is None:
            having = holders[key] = [i for i, old in enumerate(attrs) if key in old]
        for i in having:
            entities[i].attrs[key] = attrs[i][key]
    if journal.keys and sum(map(len, [e.attrs for e in entities])) != m.fields:
        # a card was given a field it did not have (rules may set any name on any card): taken away
        for key in journal.keys:
            for e in entities:
                if key in e.attrs and key not in attrs[e.id]:
                    del e.attrs[key]
    for p, old in zip(s.players, m.players):
        p.attrs = _fresh(old)
    s.globals = _fresh(m.globals)
    s.stack = [Frame(code, pc, _fresh(vars), list(handlers), kind) for code, pc, vars, handlers, kind in m.frames]
    (s.round, s.phase, s.current, s.over, s.ending, s.decisions, s.version, s.cards_version, s.accounted,
     s.settled_version, s.touched_version, s.settled_turn, s.pending, s.seed) = m.scalars
    s.winners, s.stats, s.events = list(m.winners), dict(m.stats), list(m.events)
    if s.log is m.log and len(s.log) >= m.log_length:
        del s.log[m.log_length:]
    else:
        s.log = m.log[:m.log_length]
    s.touched = set(m.touched)
    if len(s.holding) != len(m.holding):  # (only ever grows)
        s.holding = set(m.holding)
    s.set_rng_state(m.rng)
    # what was remembered in between may be for another state with the same version: forgotten, but
    # for what was remembered by neighbourhood when marked (its stamps are the marked state's again)
    s.def_cache, s.state_cache = {}, {}
    s.local_cache = {name: dict(found) for name, found in m.local.items()}
    s.bearers = m.bearers
    s.journal = Journal()


def state_to_json(s: State) -> dict:
    zones = {}
    for key, zone in s.zones.items():
        if zone.is_board:
            zones[key] = {"items": [e.id for e in zone.items],
                          "cells": [[encode(c), [e.id for e in zone.cells.stack(c)]] for c in zone.cells.occupied_cells()]}
            if zone.cells.pieces:  # cards lying on several cells: which, and on which cells
                zones[key]["pieces"] = [[i, [encode(c) for c in cells]] for i, cells in sorted(zone.cells.pieces.items())]
        else:
            zones[key] = [e.id for e in zone.items]
    pending = None
    if s.pending is not None:
        p = s.pending
        span = p["span"]
        pending = {"player": p["player"], "prompt": p["prompt"], "span": [span.file, span.line, span.column],
                   "options": [{"alt": o["alt"], "name": o["name"], "values": {k: encode(v) for k, v in o["values"].items()}}
                               for o in p["options"]]}
    rng_state = s.rng.getstate()
    return {
        "format": SAVE_FORMAT,
        "seed": s.seed,
        "players": [{"attrs": {k: encode(v) for k, v in p.attrs.items()}} for p in s.players],
        "rng": [rng_state[0], list(rng_state[1]), rng_state[2]],
        "round": s.round, "phase": s.phase, "current": s.current,
        "over": s.over, "winners": list(s.winners), "ending": s.ending,
        "version": s.version, "decisions": s.decisions, "stats": dict(s.stats), "log": s.log[-50:],
        "globals": {k: encode(v) for k, v in s.globals.items()},
        "entities": [{"card": [e.card.set_name, e.card.index], "attrs": {k: encode(v) for k, v in e.attrs.items()},
                      "face_down": e.face_down, "known": sorted(e.known), "owner": e.owner,
                      **({"place": e.place} if e.place is not None else {})} for e in s.entities],
        "zones": zones,
        "stack": [{"code": f.code.id, "pc": f.pc, "kind": f.kind, "handlers": [list(h) for h in f.handlers],
                   "vars": {k: encode(v) for k, v in f.vars.items()}} for f in s.stack],
        "pending": pending,
    }


def state_from_json(program: Program, data: dict) -> State:
    if data.get("format") != SAVE_FORMAT:
        raise RulesError(Diagnostic(Span(), f"unknown save format {data.get('format')!r}"))
    s = State(data["seed"])
    rng = data["rng"]
    s.set_rng_state((rng[0], tuple(rng[1]), rng[2]))
    s.players = [Player(seat, {}) for seat in range(len(data["players"]))]
    make_zones(program, s)
    for i, ed in enumerate(data["entities"]):
        set_name, index = ed["card"]
        e = Entity(i, program.card_sets[set_name][index], {}, owner=ed["owner"])
        e.face_down = ed["face_down"]
        e.known = frozenset(ed["known"])
        s.entities.append(e)
    for e, ed in zip(s.entities, data["entities"]):
        e.attrs = {k: decode(v, s) for k, v in ed["attrs"].items()}
        if not PLAIN_TYPES.issuperset(map(type, e.attrs.values())):
            s.holding.add(e.id)
    for key, content in data["zones"].items():
        zone = s.zones[key]
        if zone.is_board:
            for cell_enc, ids in content["cells"]:
                cell = decode(cell_enc, s)
                for i in ids:
                    zone.cells.place(cell, s.entities[i])
                    s.entities[i].cell = cell
            for i, cells in content.get("pieces", ()):
                zone.cells.pieces[i] = covered = tuple(decode(c, s) for c in cells)
                s.entities[i].cell = covered[0]
            zone.items = [s.entities[i] for i in content["items"]]
            for e in zone.items:
                e.place = data["entities"][e.id].get("place")
        else:
            zone.items = [s.entities[i] for i in content]
        for e in zone.items:
            e.zone = zone
    for p, pd in zip(s.players, data["players"]):
        p.attrs = {k: decode(v, s) for k, v in pd["attrs"].items()}
    s.globals = {k: decode(v, s) for k, v in data["globals"].items()}
    s.round, s.phase, s.current = data["round"], data["phase"], data["current"]
    s.over, s.winners, s.ending = data["over"], list(data["winners"]), data["ending"]
    s.version, s.decisions, s.stats, s.log = data["version"], data["decisions"], dict(data["stats"]), list(data["log"])
    for fd in data["stack"]:
        s.stack.append(Frame(program.codes[fd["code"]], fd["pc"], {k: decode(v, s) for k, v in fd["vars"].items()},
                             [tuple(h) for h in fd["handlers"]], fd["kind"]))
    if data["pending"] is not None:
        p = data["pending"]
        s.pending = {"player": p["player"], "prompt": p["prompt"], "span": Span(file=p["span"][0], line=p["span"][1], column=p["span"][2]),
                     "options": [{"alt": o["alt"], "name": o["name"], "values": {k: decode(v, s) for k, v in o["values"].items()}}
                                 for o in p["options"]]}
    return s
