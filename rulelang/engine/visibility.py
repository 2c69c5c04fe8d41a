"""What each seat may see (non-negotiable: players see only what they may see): whether a card is
visible to a seat (`visible`), everything one player may see of a match (`player_view`), a value
and a pending choice's options as their chooser sees them (`seen_as`, `option_label`,
`option_keys`), a move as each seat sees it as it is made (`move_label`), and a copy's hidden
cards dealt again for a bot that plans (`determinize`). The terminal, the browser table, the
agents and the API all see a match through these.
"""
from __future__ import annotations

import random
from typing import Any

from rulelang.model.builtins import describe
from rulelang.model.options import Options
from rulelang.model.things import EnumMap, Entity, State


def plain_attrs(attrs: dict):
    for k, v in attrs.items():
        if isinstance(v, (int, str, bool, float)) or v is None:
            yield k, v
        else:
            yield k, describe(v)


def map_numbers(attrs: dict):
    """Each number of a field holding one per member of an enum, as `gems[ruby]`: what a program
    reading a view (a bot, a learning environment's vector) or a result adds up."""
    for k, v in attrs.items():
        if type(v) is EnumMap:
            for member, n in v.values.items():
                yield f"{k}[{member}]", n


def result_attrs(attrs: dict):
    """A player's fields in a match's result: as plain_attrs, and a number per member of an enum as
    one number per member, `gems[ruby]` (so that a summary of many matches can add them up)."""
    for k, v in attrs.items():
        yield from (map_numbers if type(v) is EnumMap else plain_attrs)({k: v})


def option_label(state: State, option: dict, seat: int) -> str:
    return _option_label(option["name"], tuple(option["values"].values()), lambda v: seen_as(state, v, seat))


def move_label(state: State, option: dict, seat: int, chooser: int | None = None) -> str:
    """A move as `seat` sees it when it is made: call it before the move is applied. Its chooser
    (`chooser`, else the pending choice's) sees the option as it was offered; any other seat (-1: a
    watcher) sees the cards it may see then named, and every other card only as "a hidden card":
    neither named nor placed, not where it lies now and not where it will lie once the move is made."""
    if chooser is None and state.pending is not None:
        chooser = state.pending["player"]
    if chooser == seat:
        return option_label(state, option, seat)
    return _option_label(option["name"], tuple(option["values"].values()), lambda v: _public_part(v, seat))


def back_of(e: Entity) -> str | None:
    """What the back of a card shows everyone (`label back "level {level}"`), or None."""
    back = e.card.back
    return back(e) if back is not None else None


def hidden_card(e: Entity) -> str:
    """A card seen from its back: "a hidden card", or "a hidden card (level 2)" when its back shows that."""
    back = back_of(e)
    return f"a hidden card ({back})" if back else "a hidden card"


def _public_part(value, seat: int) -> str:
    if type(value) is Entity:
        return describe(value) if visible(value, seat) else hidden_card(value)
    if isinstance(value, list):
        return "[" + ", ".join(_public_part(v, seat) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_public_part(v, seat) for v in value) + ")"
    return describe(value)


def _option_label(name: str, values: tuple, seen) -> str:
    """An option's label from its name and values, seen(v) showing one value to its chooser."""
    shown = [seen(v) for v in values]
    if name in ("choose", "next"):
        return ", ".join(shown) if shown else name
    if name == "none" and all(v is None for v in values):  # `optional`: choose nothing
        return "nothing"
    return name + (" " + ", ".join(shown) if shown else "")


_WHOLE_NUMBERS = frozenset((int,))


def option_keys(state: State) -> dict[tuple, int]:
    """The pending choice's options by what their chooser sees: (name, label) -> the first index
    with it, in the order of first appearance. The same as reading the name and label of every
    legal option, without making the options; a card met again (a card of the hand with each
    cell) is shown once."""
    pending = state.pending
    if pending is None:
        return {}
    options, seat = pending["options"], pending["player"]
    rows = (options.named_values() if type(options) is Options else
            ((o["name"], tuple(o["values"].values())) for o in options))
    shown: dict = {}  # a card's id, or a cell of whole numbers -> how the seat sees it

    def seen(v):
        t = type(v)
        if t is Entity:
            key = v.id
        elif t is tuple and _WHOLE_NUMBERS.issuperset(map(type, v)):  # (1, 2), never (true, 2): 1 == true
            key = v
        else:
            return seen_as(state, v, seat)
        found = shown.get(key)
        if found is None:
            found = shown[key] = seen_as(state, v, seat)
        return found

    out: dict[tuple, int] = {}
    for i, (name, values) in enumerate(rows):
        key = (name, _option_label(name, values, seen))
        if key not in out:
            out[key] = i
    return out


def seen_as(state: State, value, seat: int) -> str:
    if type(value) is Entity and not visible(value, seat):
        where = value.zone.key.replace("#", " of player ") if value.zone else "nowhere"
        return f"{hidden_card(value)} in {where}"
    return describe(value)


def visible(e: Entity, seat: int) -> bool:
    zone = e.zone
    if zone is None:
        return False
    if seat in e.known:
        return True
    if zone.visibility == "hidden":
        return False
    if zone.visibility == "private":
        return zone.owner == seat
    if e.face_down:
        return e.owner == seat
    return True


def card_view(e: Entity) -> dict:
    out = {"card": describe(e), "component": e.card.component}
    for k, v in e.attrs.items():
        out[k] = v if isinstance(v, (int, str, bool)) or v is None else describe(v)
    if e.owner is not None:
        out["owner"] = e.owner + 1
    if e.face_down:
        out["face_down"] = True
    return out


def player_view(state: State, seat: int) -> dict:
    """Everything one player may see: hidden cards appear only as {"hidden": true}."""

    def show(e: Entity):
        if visible(e, seat):
            return card_view(e)
        out = {"hidden": True}
        if e.face_down and e.zone is not None and e.zone.visibility == "public":
            out["face_down"] = True
        back = back_of(e)
        if back:
            out["back"] = back
        return out

    zones = {}
    for key, zone in state.zones.items():
        entry: dict[str, Any] = {"count": len(zone.items), "visibility": zone.visibility}
        if zone.owner is not None:
            entry["owner"] = zone.owner + 1
        if zone.is_board:
            entry["cells"] = [{"cell": list(c) if isinstance(c, tuple) else c,
                               "cards": [show(e) for e in zone.cells.stack(c)]}
                              for c in zone.cells.occupied_cells()]
        elif zone.visibility == "hidden" and not any(seat in e.known for e in zone.items):
            pass  # only the size of a face-down pile
        else:
            entry["cards"] = [show(e) for e in zone.items]
        zones[key] = entry
    pending = state.pending
    return {
        "you": seat + 1,
        "round": state.round,
        "phase": state.phase,
        "current": state.current + 1 if state.current is not None else None,
        # (a map is shown in words, "2 ruby, 1 jade", and its numbers follow it: "gems[ruby]": 2)
        "players": [{"seat": p.seat + 1, **dict(plain_attrs(p.attrs)), **dict(map_numbers(p.attrs))}
                    for p in state.players],
        "globals": {k: (v if isinstance(v, (int, str, bool)) or v is None else seen_as(state, v, seat))
                    for k, v in state.globals.items() if not k.startswith("__")},
        "zones": zones,
        "choice": None if pending is None or pending["player"] != seat else {
            "prompt": pending["prompt"],
            "options": [option_label(state, o, seat) for o in pending["options"]],
        },
        "log": state.log[-20:],
    }


def determinize(state: State, seat: int, rng: random.Random):
    """Shuffle what `seat` cannot see among the places it cannot see, grouped by component."""
    groups: dict[tuple, list[Entity]] = {}
    for e in state.entities:
        if e.zone is not None and not visible(e, seat):
            # cards only trade places with cards of the same kind and the same owner
            groups.setdefault((e.card.component, e.owner), []).append(e)
    # each card's position in its zone, looked up once per zone (a group only permutes its own
    # cards among its own places, so the positions of the cards of the other groups stay right)
    positions: dict[str, dict] = {}

    def position(e: Entity) -> int:
        found = positions.get(e.zone.key)
        if found is None:
            found = positions[e.zone.key] = {x: i for i, x in enumerate(e.zone.items)}
        return found[e]

    for entities in groups.values():
        if len(entities) < 2:
            continue
        # (a piece's place is its cells: the card dealt there lies on them all)
        slots = [(e.zone, position(e), e.zone.cells.covered_cells(e) if e.zone.is_board and e.zone.cells.pieces
                  and e.id in e.zone.cells.pieces else e.cell, e.face_down, e.owner, e.place) for e in entities]
        # places in an order the seat can see (zone, then position), not in the order of the hidden
        # cards lying there, so that deals which look alike to the seat are re-dealt alike
        slots.sort(key=lambda slot: (slot[0].key, slot[1]))
        shuffled = list(entities)
        rng.shuffle(shuffled)
        # detach every entity first, then place them back slot by slot
        for e in entities:
            if e.zone.is_board:
                e.zone.cells.remove(e.cell, e)
        for (zone, index, cell, face_down, owner, place), e in zip(slots, shuffled):
            zone.items[index] = e
            e.zone, e.cell, e.face_down, e.place = zone, cell, face_down, place
            if zone.is_board:
                if type(cell) is list:
                    zone.cells.place_piece(cell, e)
                    e.cell = cell[0]
                else:
                    zone.cells.place(cell, e)
    # chance reseeded, made from the new seed when first used: a copy of this state shares the seed
    # instead of copying the generator's state (a bot copies it once per option it tries)
    state.seed = rng.random()
    state.set_rng_state(None)
    state.version += 1
    state.cards_version += 1
