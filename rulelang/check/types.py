"""The checker's words for types: the types a value can have (`BASE_TYPES`, a component's
"entity:Name", an enum's "sym:Name", "list:..."), what the built-ins give back (`BUILTIN_RESULT`) and
the built-in fields, which types fit where (`compatible`), and each type said in words
(`describe_type`: "a list of texts"). Shared by the checker's halves, the compiler and scenarios.
"""
from __future__ import annotations

from rulelang.language import nodes as N
from rulelang.language.nodes import BASE_TYPES
from rulelang.check.symbols import SymbolTable


ENTITY_BUILTIN_ATTRS = {"owner", "zone", "cell", "place", "face_down", "component", "id"}
PLAYER_BUILTIN_ATTRS = {"seat"}
ZONE_BUILTIN_ATTRS = {"size", "owner"}
BUILTIN_VALUE_TYPES = {"players": "list:player", "round": "int", "current": "player", "phase": "str",
                       "player_count": "int", "all_players": "list:player", "eliminated": "list:player"}


# built-ins (besides geometry's BOARD_FUNCTIONS) whose first value is a board
ON_A_BOARD = ("at", "top_at", "has_room")


def _not_a_board(ty: str) -> bool:
    """A value's checked type that can never be a board (a player, a number, a card, a list...)."""
    return ty in ("player", "int", "str", "bool", "keyword") or ty.startswith(("list:", "entity", "sym:", "map:"))


# what a designer may call a type, as the messages do ("a text"), and how the language writes it
_TYPE_WORDS = {"text": ("str", "a text"), "string": ("str", "a text"), "number": ("int", "a whole number"),
               "integer": ("int", "a whole number"), "boolean": ("bool", "true or false"),
               "players": ("list of player", "a list of players"), "cards": ("list of card", "a list of cards")}


def type_name(t: N.TypeRef | None) -> str:
    if t is None:
        return "any"
    if t.list_of is not None:
        return "list:" + type_name(t.list_of)
    if t.per is not None:  # `int per Gem` (the checker refuses any other kind of value per member)
        return "map:" + t.per
    return t.name


BUILTIN_RESULT = {
    "count": "int", "sum": "int", "min": "int", "max": "int", "any": "bool", "all": "bool", "abs": "int",
    "empty": "bool", "owner": "player", "zone_of": "zone", "player": "player", "seat": "int",
    "next_player": "player", "previous_player": "player", "turn_order": "list:player", "opponents": "list:player",
    "label": "str", "face_down": "bool", "adjacent": "bool", "distance": "int", "roll": "int",
    "frontier": "list:cell", "cells": "list:cell", "occupied_cells": "list:cell", "neighbor_cells": "list:cell",
    "empty_cells_around": "list:cell", "origin": "cell", "keywords": "list:keyword", "neighbors": "list:any",
    # lines, edges and regions (model/geometry.py)
    "directions": "list:any", "straight_directions": "list:any", "diagonal_directions": "list:any",
    "towards": "cell", "ray": "list:cell", "edge": "list:cell", "empty_cells": "list:cell", "owned_cells": "list:cell",
    "regions": "list:any", "region": "list:cell", "cells_around": "list:cell", "cards_on": "list:any", "snapshot": "str",
    "places_for": "list:any", "placed_at": "list:cell", "covered_cells": "list:cell", "at": "list:any",
    "has_room": "bool", "skip": "list:any", "sample": "list:any", "shuffled": "list:any", "index_of": "int",
}


def known_type(name: str, table: SymbolTable) -> bool:
    """Whether a type name written in the file names a type (an unknown one is reported where it is
    written, and its values are then taken as any value, not refused again at each use)."""
    if name.startswith("list:"):
        return known_type(name[5:], table)
    return ":" in name or name in BASE_TYPES or name in table.components or table.kind(name) == "enum"


def compatible(want: str, got: str, table: SymbolTable) -> bool:
    if got == "any" or want in ("any", got) or not known_type(want, table):
        return True
    sym = table.symbols.get(want)
    if sym and sym.kind == "enum":
        return got == f"sym:{want}"
    if want in table.components:
        return got.startswith("entity:") or got == "any"
    if want.startswith("list:"):
        return got.startswith("list:") and (got == "list:any" or compatible(want[5:], got[5:], table))
    if want == "keyword":
        return got == "keyword"
    if want.startswith("map:"):
        return got == want or got == "map:any"
    return False


def describe_type(ty: str) -> str:
    """A checked type in words: "a number", "a list of lists of texts"."""
    return _kind_words(ty)[0]


# each plain type said of one value and of several
_KIND_WORDS = {"any": ("a value", "values"), "int": ("a number", "numbers"), "bool": ("true or false", "true/false values"),
               "str": ("a text", "texts"), "zone": ("a zone", "zones"), "player": ("a player", "players"),
               "cell": ("a cell", "cells"), "keyword": ("a keyword", "keywords"), "card": ("a card", "cards")}


def _kind_words(ty: str) -> tuple[str, str]:
    """What a checked type is called, of one value and of several."""
    if ty in _KIND_WORDS:
        return _KIND_WORDS[ty]
    if ty.startswith("sym:setting:"):
        return f"a choice of setting {ty[12:]}", f"choices of setting {ty[12:]}"
    if ty.startswith("sym:"):
        return f"a {ty[4:]}", f"{ty[4:]} values"
    if ty.startswith("entity:"):
        return f"a {ty[7:]} card", f"{ty[7:]} cards"
    if ty.startswith("map:"):
        return f"a number per {ty[4:]}", f"numbers per {ty[4:]}"
    if ty.startswith("list:"):
        several = _kind_words(ty[5:])[1]
        return f"a list of {several}", f"lists of {several}"
    return ty, ty


def written_whole_number(n) -> int | None:
    """The whole number an expression writes out (`3`, `-1`), or None."""
    if isinstance(n, N.IntLit):
        return n.value
    if isinstance(n, N.Neg) and isinstance(n.operand, N.IntLit):
        return -n.operand.value
    return None


def _plain_kind(ty: str) -> str | None:
    """The kind of a checked type when it is sure (a number, a text, true/false, a player, a card, an
    enum's member, a list), or None for any value, a setting's choice or another type."""
    if ty in ("int", "str", "bool", "player"):
        return ty
    if ty.startswith("entity:"):
        return "card"
    if ty.startswith("sym:") and not ty.startswith("sym:setting:"):
        return ty
    if ty.startswith("list:"):
        return "list"
    return None


def never_alike(a: str, b: str) -> bool:
    """Whether values of two checked types can never be the same value (a number and a text); any value,
    a setting's choice and the types not listed in `_plain_kind` are never refused."""
    ka, kb = _plain_kind(a), _plain_kind(b)
    return ka is not None and kb is not None and ka != kb
