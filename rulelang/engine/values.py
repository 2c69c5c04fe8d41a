"""What compiled rules do to values and cards while they run: arithmetic and updates that fail
with rules errors (``_arith``, ``_update``), a card's computed and pseudo-fields (``entity_extra``),
setting a field (``set_field``), moving cards (``move_cards``, ``_put``). Called by the
statements' closures and the generated code.
"""
from __future__ import annotations

import re

from rulelang.core.budgets import BEYOND_BOUND, NUMBER_BOUND, check_size
from rulelang.model.builtins import as_list, describe
from rulelang.core.errors import Span
from rulelang.engine.program import Ctx, RuleError
from rulelang.model.things import (NOBODY, PLAIN_TYPES, BoardZone, EnumMap, Entity, Player, Zone, journal_card,
                                   move as move_entity, remember_undo, set_owner, touched)


def entity_extra(c, e: Entity, name: str, span: Span):
    code = e.card.code.get(name)
    if code is not None:
        fn, bound = code
        return fn(Ctx({**bound, "self": e}, c.s, c.vm))
    if name == "owner":
        return c.s.players[e.owner] if e.owner is not None else None
    if name == "component":
        return e.card.component
    if name in _CARD_PSEUDO_FIELDS:  # (the others are Entity's own slots)
        return getattr(e, name)
    raise RuleError(span, f'{describe(e)} has no field "{name}"')


def read_field(c, o, name, span):
    """`o.name`: a card's or player's field, a table row's column, a zone's size or owner; else the
    rules error that says why not (the generated code and the statements read fields with it)."""
    if type(o) is Entity:
        attrs = o.attrs
        if name in attrs:
            return attrs[name]
        return entity_extra(c, o, name, span)
    if type(o) is Player:
        if name in o.attrs:
            return o.attrs[name]
        if name == "seat":
            return o.seat + 1
    elif type(o) is dict:
        if name in o:
            return o[name]
        raise RuleError(span, f'this row has no "{name}"; its fields are: ' + ", ".join(map(str, o)))
    elif isinstance(o, Zone):
        if name == "size":
            return len(o.items)
        if name == "owner":
            return c.s.players[o.owner] if o.owner is not None else None
    if o is None:
        raise RuleError(span, f'cannot read "{name}" of nothing (the value is none)')
    raise RuleError(span, f'{describe(o)} has no "{name}"')


def the_zone(zone, span: Span, what: str = "cards can only be moved to a zone, not to") -> Zone:
    """Where `move` (or `draw`, `shuffle`, `create`: `what` says it) takes a zone: a zone, else the rules error."""
    if not isinstance(zone, Zone):
        raise RuleError(span, f"{what} {describe(zone)}")
    return zone


def the_cards(value, span: Span, what: str) -> list:
    """The cards a statement acts on (`reveal`, `hide`, `turn ... face`): a card, a list of cards or a
    zone's; anything else is the rules error `what` begins ("only cards can be revealed, not")."""
    items = list(value.items) if isinstance(value, Zone) else as_list(value)
    for e in items:
        if type(e) is not Entity:
            raise RuleError(span, f"{what} {describe(e)}")
    return items


def whole_number(value, span: Span, what: str) -> int:
    """A count a statement takes (`draw N`, `repeat N times`): a whole number, else the rules error."""
    if type(value) is not int:
        raise RuleError(span, f"{what} needs a whole number, not {describe(value)}")
    return value


def move_cards(c, items, zone: Zone, cell, bottom: bool, face_down: bool, span: Span, slot_fn=None):
    """`move WHAT to ZONE [at CELL]`, its values worked out (the zone, then the cell, then the cards):
    each card put into the zone (`_put`), the place of each worked out just before it (slot_fn)."""
    if type(items) is Entity and slot_fn is None:  # the common case: one card
        _put(c, items, zone, cell, bottom, face_down, span)
        return
    if items is None:  # (`move first([])`: a rule that moves nothing must not pass unnoticed)
        raise RuleError(span, "there is no card to move here: the cards to move are none (when there may be "
                              "none, say so: `if c != none { move c to ... }`)")
    items = list(items.items) if isinstance(items, Zone) else as_list(items)
    for e in items:
        if not isinstance(e, Entity):
            raise RuleError(span, f"only cards can be moved, not {describe(e)}")
        _put(c, e, zone, cell, bottom, face_down, span, slot_fn(c) if slot_fn is not None else None)


def _put(c, e: Entity, zone: Zone, cell, bottom: bool, face_down: bool, span: Span, slot=None):
    if isinstance(zone, BoardZone):
        if cell is None:
            raise RuleError(span, f"a card moved onto the board {zone.name} needs a cell: add `at CELL`")
        cells = zone.cells
        if type(cell) is list or e.card.shape is not None:
            check_piece(zone, cell, e, span)
        elif not cells.has_cell(cell):
            raise RuleError(span, f"the board {zone.name} has no cell {describe(cell)}")
        if cells.layer_of is not None:
            _check_on_base(c.s, zone, cell, span)
        if slot is not None or cells.topology.places:
            slot = _check_place(zone, cell, slot, e, span)
    elif slot is not None:
        raise RuleError(span, f"`into` puts a card in a place of a board's cell, but {zone.name} is not a board")
    move_entity(c.s, e, zone, cell, bottom, face_down, c.vm.program.watched_zones, slot)


def _check_on_base(s, zone: BoardZone, cell, span: Span) -> None:
    """A card put on a layer goes on a cell of its base board (an open base's cells are those holding a card)."""
    base = s.zones[zone.cells.layer_of]
    for c in cell if type(cell) is list else (cell,):
        if not (c in base.cells.stacks if base.cells.topology.open else base.cells.has_cell(c)):
            raise RuleError(span, f"{zone.name} lies on the board {base.name}, which has no cell {describe(c)}"
                                  + (" yet (nothing lies there)" if base.cells.topology.open else ""))


def check_piece(zone: BoardZone, cell, e: Entity, span: Span) -> None:
    """A card laid on a list of cells (a piece): as many cells as its shape, each on the board and
    free (but of the piece itself), touching one another."""
    shape = e.card.shape
    n = len(shape) if shape is not None else 1
    if type(cell) is not list:
        raise RuleError(span, f"{describe(e)} covers {n} cells of a board: give them as a list, such as one of "
                              f"places_for({zone.name}, card) or placed_at({zone.name}, card, cell, turn)")
    if len(cell) != n:
        raise RuleError(span, f"{describe(e)} covers {n} cell{'s' if n != 1 else ''}, but {len(cell)} "
                              f"{'were' if len(cell) != 1 else 'was'} given: {describe(cell)}")
    cells = zone.cells
    for c in cell:
        if not cells.has_cell(c):
            raise RuleError(span, f"{describe(e)} would lie off the board {zone.name}: it has no cell {describe(c)}")
        if not cells.is_free(c, e):
            raise RuleError(span, f"{describe(e)} would lie on {describe(c)} of {zone.name}, where "
                                  f"{describe(cells.stack(c)[-1])} lies already (a piece goes on free cells; "
                                  f"places_for({zone.name}, card) lists them)")
    if len(set(cell)) < n:
        raise RuleError(span, f"{describe(e)} would lie twice on one cell: {describe(cell)}")
    for i in range(1, n):
        if not any(cells.is_neighbour(cell[i], cell[j]) for j in range(i)):
            raise RuleError(span, f"the cells of {describe(e)} must touch one another, and {describe(cell[i])} "
                                  f"touches none of {describe(cell[:i])}")


def outside_the_list(i: int, n: int) -> str:
    """What a read of position i of a list of n items says (`xs[i]`)."""
    if n == 0:
        return f"position {i} is outside the list: it is empty"
    if n == 1:
        return f"position {i} is outside a list of 1 item: its only position is 0 (or -1, counting from the end)"
    return (f"position {i} is outside a list of {n} items: positions count from 0, so they go from 0 to {n - 1} "
            f"(or from -1 back to -{n}, counting from the end)")


def _check_place(zone: BoardZone, cell, slot, e: Entity, span: Span):
    """The place a card goes to on a board's cell: the one named, or the first; it must have room."""
    places = zone.cells.topology.places
    if not places:
        if slot is not None:
            raise RuleError(span, f"the board {zone.name} has no places, so `into {describe(slot)}` means nothing there")
        return None
    if slot is None:
        slot = places[0]
    if slot not in places:
        raise RuleError(span, f"the cells of {zone.name} have the places {', '.join(places)}, not {describe(slot)}")
    if not zone.cells.has_room(cell, slot, moving=e if e.zone is zone and e.cell == cell else None):
        limit = zone.cells.topology.capacities[slot]
        raise RuleError(span, f"the place {slot} of {describe(cell)} on {zone.name} is full "
                              f"(it holds {limit} card{'s' if limit != 1 else ''}); test `has_room({zone.name}, cell, {slot})` first")
    return slot


_BIG = NUMBER_BOUND


def _arith(l, r, op, span):
    try:
        # (Python would join two tuples, (1, 0) + (0, 1) is (1, 0, 0, 1), and repeat one, (1, 0) * 2 is (1, 0, 1, 0))
        if op == "+" and type(l) is tuple and type(r) is tuple:
            raise RuleError(span, f'"+" cannot add cells or directions ({describe(l)} + {describe(r)}): '
                                  "write (a[0] + b[0], a[1] + b[1])")
        if op == "*":
            if type(l) is tuple or type(r) is tuple:
                raise RuleError(span, f'"*" cannot multiply a cell or a direction ({describe(l)} * {describe(r)}): '
                                      "to scale a direction write (d[0] * n, d[1] * n); to step along one, "
                                      "towards(board, cell, d, n)")
            if type(l) in (str, list) or type(r) in (str, list):  # a text or list repeated: bounded
                size = (len(l) * r) if type(l) in (str, list) else (len(r) * l)
                check_size(size, span, "a text" if str in (type(l), type(r)) else "a list")
        if op in ("/", "%"):
            if r == 0:
                raise RuleError(span, f"division by zero: {describe(l)} {op} 0 (the value after \"{op}\" is 0 here: "
                                      "check that it is not 0 before dividing)")
            return l // r if op == "/" else l % r
        if op not in ("+", "-", "*"):
            raise RuleError(span, f"unknown operator {op}")
        result = l + r if op == "+" else l - r if op == "-" else l * r
    except TypeError:
        raise RuleError(span, f'"{op}" works on numbers, but got {describe(l)} and {describe(r)}') from None
    if type(result) is int and not -_BIG <= result <= _BIG:
        raise RuleError(span, f"a number {BEYOND_BOUND}")
    return result


def add_values(c, l, r, span):
    """`l + r`: whole numbers within the bound, lists joined, texts joined (a value beside a text shown
    as a text), else `_arith`'s sum or its error (the generated code adds with it)."""
    if type(l) is int and type(r) is int:
        result = l + r
        if -NUMBER_BOUND <= result <= NUMBER_BOUND:
            return result
    if isinstance(l, list) or isinstance(r, list):
        l, r = as_list(l), as_list(r)
        if len(l) + len(r) > 64:
            check_size(len(l) + len(r), span, "a list", c.vm.meter if c.vm is not None else None)
        return l + r
    if isinstance(l, str) or isinstance(r, str):
        l, r = describe(l), describe(r)
        if len(l) + len(r) > 64:
            check_size(len(l) + len(r), span, "a text", c.vm.meter if c.vm is not None else None)
        return l + r
    return _arith(l, r, "+", span)


def _update(old, value, op, span):
    if op == "=":
        return value
    if old is None:
        old = 0
    return _arith(old, value, "+" if op == "+=" else "-", span)


def map_entry(m: EnumMap, member, span):
    """`m[member]`: the number a map holds for one member of its enum."""
    if type(member) is str and member in m.values:
        return m.values[member]
    raise RuleError(span, f"this map holds a number per {m.enum} ({', '.join(m.values)}), "
                          f"so it cannot be read at {describe(member)}")


def map_update(m, member, value, op, span):
    """`x.f[member] op value` (=, +=, -=): the map `m` with one member's number changed (a new map)."""
    if type(m) is not EnumMap:
        raise RuleError(span, f"only a map's numbers are changed with [...], and this is {describe(m)}")
    old = map_entry(m, member, span)
    if type(value) is not int:
        raise RuleError(span, f"a map holds whole numbers, not {describe(value)}")
    new = value if op == "=" else old + value if op == "+=" else old - value
    if not -NUMBER_BOUND <= new <= NUMBER_BOUND:
        raise RuleError(span, f"a number {BEYOND_BOUND}")
    return m.with_value(member, new)


def set_field(c, o, attr: str, value, op: str, span: Span, until: str | None, readers: tuple | None) -> None:
    """`o.attr = value` (or `+=`, `-=`; `until`: only until the end of the turn, phase or round): o
    worked out, `value` the function of the value, worked out once o is known to be a card or a
    player. Only a change of the value is a change of the state."""
    if type(o) is Entity and attr in _CARD_PSEUDO_FIELDS and attr not in o.attrs:
        if until is not None:
            raise RuleError(span, f'"{attr}" of a card cannot change only until the end of the {until}')
        _set_card_pseudo_field(c, o, attr, value(c), op, span)
        return
    if type(o) in (Entity, Player):
        attrs = o.attrs
        v = value(c)
        if until is not None:
            remember_undo(c.s, until, o, attr, op, attrs.get(attr) if op == "=" else v)
        new = _update(attrs.get(attr), v, op, span)
        if type(new) not in PLAIN_TYPES and type(o) is Entity:
            c.s.holding.add(o.id)  # a copy of the match copies this card's values (copy_state)
        if attrs.get(attr, _MISSING) != new:
            attrs[attr] = new
            if type(o) is Entity and attr in c.vm.program.keyword_fields:  # (what VM.bearers reads)
                c.s.cards_version += 1
            one_value_changed(c.s, attr, readers)
        return
    if o is None:
        raise RuleError(span, f'cannot set "{attr}" of nothing (the value is none)')
    raise RuleError(span, f'cannot set "{attr}" of {describe(o)}')


_MISSING = object()


# A card's built-in fields (see `entity_extra`): `face_down` and `owner` can be assigned,
# the others only change by moving the card.
_CARD_PSEUDO_FIELDS = {"owner", "zone", "cell", "place", "face_down", "component", "id"}


def _set_card_pseudo_field(c, e: Entity, attr: str, value, op: str, span: Span):
    if attr == "face_down" and op == "=":
        down = bool(value)
        if e.face_down != down:
            e.face_down = down  # like `turn x face up|down`: nobody remembers what it showed
            e.known = NOBODY
            c.s.version += 1
            c.s.cards_version += 1
            journal_card(c.s, e)
        return
    if attr == "owner" and op == "=":
        if value is not None and not isinstance(value, Player):
            raise RuleError(span, f"a card's owner is a player (or none), not {describe(value)}")
        set_owner(c.s, e, value.seat if value is not None else None)
        return
    if attr == "place" and op == "=":
        # another place of the same cell: the card stays on its cell, so it neither leaves nor enters
        zone = e.zone
        if not isinstance(zone, BoardZone) or not zone.cells.topology.places:
            raise RuleError(span, f"{describe(e)} is not on a board with places, so its place cannot be set")
        slot = _check_place(zone, e.cell, value, e, span)
        if e.place != slot:
            e.place = slot
            c.s.version += 1
            journal_card(c.s, e)
        return
    if attr in ("face_down", "owner", "place"):
        raise RuleError(span, f'"{attr}" of a card can only be set with `=`')
    raise RuleError(span, f'"{attr}" of a card cannot be set: it changes when the card moves '
                          f"(`move`{', `turn x face up|down`' if attr == 'face_down' else ''})")


# Python's names of the values a rule handles, in a designer's words (_plain)
_KINDS = {"Player": "a player", "Entity": "a card", "NoneType": "none", "int": "a number", "str": "a text",
          "tuple": "a cell or direction", "list": "a list", "bool": "true or false", "Zone": "a zone",
          "BoardZone": "a board", "KeywordValue": "a keyword", "dict": "a row of a table", "float": "a number",
          "range": "a list"}
# what a value must be to have the attribute a built-in read of it
_HAS = {"cells": "a board", "items": "a zone", "attrs": "a card or a player", "seat": "a player",
        "zone": "a card", "component": "a card", "is_board": "a zone"}
_NO_ATTRIBUTE = re.compile(r"^'(\w+)' object has no attribute '(\w+)'")
_NOT_ORDERED = re.compile(r"^'([<>=!]+)' not supported between instances of '(\w+)' and '(\w+)'")
_OPERANDS = re.compile(r"^unsupported operand type\(s\) for ([^:]+): '(\w+)' and '(\w+)'")
_OBJECT_IS_NOT = re.compile(r"^'(\w+)' object is not (iterable|subscriptable|callable)")
_NO_LEN = re.compile(r"^object of type '(\w+)' has no len\(\)")
_UNHASHABLE = re.compile(r"^unhashable type: '(\w+)'")


def _kind(name: str) -> str:
    return _KINDS.get(name, "that value")


def _plain(exc: Exception) -> str:
    """What went wrong inside a built-in, in plain words: Python's own messages about its types
    ("'Player' object has no attribute 'cells'") said in the rules' terms ("a player is not a board")."""
    text = str(exc).split("\n")[0][:200]
    if (m := _NO_ATTRIBUTE.match(text)) is not None:
        kind, attr = _kind(m.group(1)), m.group(2)
        return f"{kind} is not {_HAS[attr]}" if attr in _HAS else f'{kind} has no "{attr}"'
    if (m := _NOT_ORDERED.match(text)) is not None:
        return f"{_kind(m.group(2))} and {_kind(m.group(3))} cannot be compared with {m.group(1)}"
    if (m := _OPERANDS.match(text)) is not None:
        return f"{m.group(1).strip()} does not apply to {_kind(m.group(2))} and {_kind(m.group(3))}"
    if (m := _OBJECT_IS_NOT.match(text)) is not None:
        what = {"iterable": "a list", "subscriptable": "a list or a cell", "callable": "a function"}[m.group(2)]
        return f"{_kind(m.group(1))} is not {what}"
    if (m := _NO_LEN.match(text)) is not None:
        return f"{_kind(m.group(1))} has no length (it is not a list)"
    if (m := _UNHASHABLE.match(text)) is not None:
        return f"{_kind(m.group(1))} cannot be a cell or a key"
    return text or type(exc).__name__


def keep_remembered(s, readers: tuple) -> None:
    """Right after one change of one field or global variable (``s.version`` went up by one): the
    values remembered for the state just before it stay valid for every def that does not read that
    field or global (``dependencies.def_reads``); the defs in ``readers`` forget theirs, the values
    remembered by neighbourhood too (``State.local_cache``), which makes this change one that their
    stamps follow (``State.accounted``)."""
    old = s.version - 1
    cache = s.state_cache
    if cache.get("__stamp") == old:
        for name in readers:
            cache.pop(name, None)
        cache["__stamp"] = s.version
    cache = s.def_cache
    if cache.get("__stamp") == (old, s.current, s.round, s.phase):
        for name in readers:
            cache.pop(name, None)
        cache["__stamp"] = (s.version, s.current, s.round, s.phase)
    local = s.local_cache
    if local:
        for name in readers:
            local.pop(name, None)
    s.accounted += 1


def one_value_changed(s, key: str, readers: tuple | None) -> None:
    """A field ("score") or global ("$actor") took a new value: a change of the state
    (``s.version``), recorded as touching `key` (``model.touched``, for continuous rules), that
    only the defs in `readers` must forget (None: all of them)."""
    s.version += 1
    touched(s, key)
    if readers is not None:
        keep_remembered(s, readers)
    journal = s.journal
    if journal is not None:
        journal.keys.add(key)
        journal.changes += 1
