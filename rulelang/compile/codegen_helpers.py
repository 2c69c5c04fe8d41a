"""What generated code calls at run time: the helpers of a generated module's namespace (`_HELPERS`).

Each raises the rules error of its construct, in the rules' words; the code generator (`codegen.py`)
writes calls of them by name. Also the lines every kind of generated function shares: a counted
step (`work_lines`) and the end of its `try` (`TRANSLATED`).
"""
from __future__ import annotations

import itertools
import operator

from rulelang.core.budgets import NUMBER_BOUND, BudgetExceeded, check_size
from rulelang.model.builtins import (BUILTINS, RuleFailure, as_list, bipartite_matching, describe, keywords_of,
                                     saturating_matching_exists)
from rulelang.model.things import BoardZone, EnumMap, Entity, KeywordValue, Player, out_seats, players_in
from rulelang.engine.program import Ctx, RuleError
from rulelang.engine.values import _arith, add_values, map_entry, outside_the_list, read_field


_FAILURES = (TypeError, AttributeError, KeyError, IndexError, ValueError)


_CATCH = (RuleFailure,) + _FAILURES

# the end of a generated function's `try`: a Python failure becomes the rules error of its line (Generator._translate)
TRANSLATED = "    except _CATCH as exc:\n        raise _translate(exc) from None\n"


def work_lines(indent: str, span: str, work=1) -> list[str]:
    """Generated lines that count `work` steps, as the VM counts an op's (meter.charge, inline),
    checked at `span` (a constant's name) should they pass the checkpoint."""
    return [f"{indent}meter.work += {work}", f"{indent}if meter.work >= meter.checkpoint:",
            f"{indent}    meter.check({span})"]


def _index(obj, i, span):
    if (type(obj) is tuple or type(obj) is list) and type(i) is int and -len(obj) <= i < len(obj):
        return obj[i]  # the common case: a cell's coordinate, an item of a list
    if type(obj) is EnumMap:
        return map_entry(obj, i, span)
    items = as_list(obj)
    if not -len(items) <= i < len(items):
        raise RuleError(span, outside_the_list(i, len(items)))
    return items[i]


def _enum_map(enum: str, members: tuple, given: tuple, span):
    """`{red: 2, blue: 1}`: a map of every member of `enum` (0 for those not given)."""
    values = dict.fromkeys(members, 0)
    for member, value in given:
        if type(value) is not int:
            raise RuleError(span, f"a map holds whole numbers, but {member} is given {describe(value)}")
        values[member] = value
    return EnumMap(enum, values)


def ordered_comparisons(order: dict) -> dict:
    """The game's `<`, `<=`, `>`, `>=` helpers when it declares enums (`order`: member -> (enum, place)):
    two members of one enum compare by their place in it; anything else as the plain helpers do."""

    def make(helper, op, name):
        plain = _HELPERS[helper]

        def compare(l, r, span):
            if type(l) is str and type(r) is str:
                a, b = order.get(l), order.get(r)
                if a is not None and b is not None:
                    if a[0] != b[0]:
                        raise RuleError(span, f'"{name}" orders the members of one enum, but {l} is a {a[0]} '
                                              f"and {r} a {b[0]}")
                    return op(a[1], b[1])
            return plain(l, r, span)
        return compare

    return {helper: make(helper, op, name) for helper, (op, name) in _ORDERS.items()}


def _each(c, value, span):
    """The items a comprehension walks; long lists count as work (the steps budget)."""
    items = value if type(value) is list or type(value) is tuple else as_list(value)  # walked, never changed
    if len(items) > 64 and c.vm is not None:
        c.vm.meter.charge(len(items), span)
    return items


_BIG = NUMBER_BOUND


def _arithmetic(op, sign: str):
    """The helper of `-`, `*`, `/` or `%` (`op` its Python function): two whole numbers at once, when the
    result is within the bound and no division is by zero; anything else by values._arith, which says why not."""
    divides = sign in ("/", "%")

    def arith(l, r, span):
        if type(l) is int and type(r) is int and (r or not divides):
            result = op(l, r)
            if -_BIG <= result <= _BIG:
                return result
        return _arith(l, r, sign, span)
    return arith


_ORDERS = {"_lt": (operator.lt, "<"), "_le": (operator.le, "<="), "_gt": (operator.gt, ">"), "_ge": (operator.ge, ">=")}


def _comparison(op, name: str):
    """A comparison's helper (one per comparison, so that none tests which comparison it is each time)."""

    def compare(l, r, span):
        try:
            return op(l, r)
        except TypeError:
            raise RuleError(span, f'"{name}" compares numbers, but got {describe(l)} and {describe(r)}') from None
    return compare


def _range(c, a, b, span):
    if type(a) is int and type(b) is int and b - a >= 64:
        check_size(b - a + 1, span, "a range", c.vm.meter if c.vm is not None else None)
    return list(range(a, b + 1))


def _player_zone(c, p, name, span):
    if not isinstance(p, Player):
        raise RuleError(span, f'{name}(...) needs a player, but got {describe(p)}')
    return c.s.zones[f"{name}#{p.seat + 1}"]


def _zone_family(c, name):
    """`display`, a family of zones (`zone display[N]`): all of them, display(1) first."""
    return [c.s.zones[f"{name}#{i}"] for i in range(1, c.vm.program.zones[name].counts[len(c.s.players)] + 1)]


def _zone_of_family(c, i, name, span):
    """`display(i)`: the i-th zone of a family, counting from 1."""
    n = c.vm.program.zones[name].counts[len(c.s.players)]
    if type(i) is not int or not 1 <= i <= n:
        raise RuleError(span, f"{name}(...) counts the {n} {name} zones of this match from 1 to {n}, "
                              f"so there is no {name}({describe(i)})")
    return c.s.zones[f"{name}#{i}"]


def _current(s):
    return s.players[s.current] if s.current is not None else None


def _next_to(c, x, cell=None):
    """neighbors(x) or neighbors(board, cell) for a loop that only reads it: the board's remembered
    list, not a copy. Anything else (not a card on a board, not a board) is the built-in's."""
    if cell is None:
        if type(x) is Entity:
            zone = x.zone
            if zone is not None and zone.is_board:
                cells = zone.cells
                if cells.pieces and x.id in cells.pieces:
                    return cells.cards_next_to_piece(x)
                return cells.cards_next_to_view(x.cell)
    elif type(x) is BoardZone:
        return x.cells.cards_next_to_view(cell)
    return _NEIGHBORS(c, x, cell)


_NEIGHBORS = BUILTINS["neighbors"].impl


def _empty_cells_of(c, board, span):
    """`[c in cells(board) where empty(at(board, c))]` of a board the rules name: the board's own
    empty cells (BoardCells.empty_cells), the walk of its cells counted as work as _each counts it."""
    cells = board.cells
    if len(cells.stacks) > 64 and c.vm is not None:
        c.vm.meter.charge(len(cells.stacks), span)
    return cells.empty_cells()


def _ray_walk(c, board, cell, d):
    """ray(board, cell, d) for a loop that only reads it: the tuple the board's shape remembers
    once the built-in has walked that ray (BoardCells.ray), not a copy; else the built-in's."""
    if type(board) is BoardZone and type(d) is tuple and len(d) == 2 and type(d[0]) is int and type(d[1]) is int:
        cells = board.cells
        if cells._shared:  # (the ray BoardCells.ray walked, kept with the shape)
            try:
                found = cells.topology.ray_cache.get((cell, d[0], d[1]))
            except TypeError:  # a cell that cannot be a key: the built-in says why
                found = None
            if found is not None:
                return found
    return _RAY(c, board, cell, d)


_RAY = BUILTINS["ray"].impl


def _region_owned(board, cell, p):
    """region(board, cell, owned_cells(board, p)) for a board the rules name and a player: the
    group the board keeps of the player's cells that holds the cell (BoardCells.owned_group), not
    a walk through a set made of their list (the same cells, in the same order)."""
    if type(cell) is Entity:
        cell = cell.cell
    return board.cells.owned_group(p.seat, cell)  # (a value that cannot be a cell fails here, as in the built-in)


def _regions_owned(board, p):
    """regions(board, owned_cells(board, p)) for a board the rules name and a player: the groups the
    board keeps of the player's cells (BoardCells.owned_groups)."""
    return board.cells.owned_groups(p.seat)


def _recursion(span, name, meter):
    return BudgetExceeded(span, "recursion_depth", f'def "{name}" calls itself (or other defs) more than '
                    f"{meter.budgets.recursion_depth} deep; it probably never stops", meter.budgets.recursion_depth)


def _has(e, name):
    return any(k.name == name for k in keywords_of(e))


def _eliminated(s):
    return [s.players[i] for i in out_seats(s)]


def _cards_of_component(s, name):
    return [e for e in s.entities if e.card.component == name]


def _cards_of_set(s, name):
    return [e for e in s.entities if e.card.set_name == name]


def _usable(c, kw, card):
    """usable(keyword, card): whether a keyword value's `usable` condition holds for the card (a
    keyword without one: whether it has an effect); none is never usable."""
    if kw is None:
        return False
    info = c.vm.program.keywords[kw.name]
    if info.usable is None:
        return info.effect is not None
    v = dict(zip(info.params, kw.args))
    v["self"] = card
    return bool(info.usable(Ctx(v, c.s, c.vm)))


def _matched(c, left, right, name):
    """matched(a, b, fits): whether every item of the shorter list can be paired with its own item of
    the other, by the def `fits` (model.builtins.saturating_matching_exists)."""
    fits = c.vm.program.defs[name]
    return saturating_matching_exists(as_list(left), as_list(right), lambda p, q: fits(c, (p, q)))


def _matching(c, left, right, name):
    """matching(a, b, fits): the pairs of a largest matching by the def `fits` (model.builtins.bipartite_matching)."""
    fits = c.vm.program.defs[name]
    return [list(p) for p in bipartite_matching(as_list(left), as_list(right), lambda p, q: bool(fits(c, (p, q))))]


def _placeholder(c):
    raise RuntimeError("a generated function was called before its module was compiled")


_HELPERS = {
    "_attr": read_field, "_index": _index, "_each": _each, "_add": add_values, "_sub": _arithmetic(operator.sub, "-"),
    "_mul": _arithmetic(operator.mul, "*"), "_div": _arithmetic(operator.floordiv, "/"), "_mod": _arithmetic(operator.mod, "%"),
    "_range": _range,
    **{helper: _comparison(op, name) for helper, (op, name) in _ORDERS.items()},
    "_player_zone": _player_zone, "_NOCARDS": (), "_MISS": object(), "_current": _current, "_recursion": _recursion, "_next_to": _next_to, "_ray_walk": _ray_walk, "_empty_cells_of": _empty_cells_of,
    "_as_list": as_list, "_enumerate": enumerate, "_players_in": players_in, "_region_owned": _region_owned, "_regions_owned": _regions_owned, "_Entity": Entity, "_Player": Player,
    "_EP": (Entity, Player), "_TL": (tuple, list), "_CATCH": _CATCH, "_takewhile": itertools.takewhile, "_describe": describe, "_has": _has, "_KeywordValue": KeywordValue,
    "_eliminated": _eliminated, "_cards_of_component": _cards_of_component, "_cards_of_set": _cards_of_set,
    "_usable": _usable, "_matched": _matched, "_matching": _matching,
    "_enum_map": _enum_map, "_zone_family": _zone_family, "_zone_of_family": _zone_of_family,
}
