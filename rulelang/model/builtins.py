"""Built-in functions and values of the language.

Each built-in has an arity, a one-line meaning (used by the checker's messages
and by the language reference), and an implementation over the match state.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rulelang.core.budgets import BEYOND_BOUND, NUMBER_BOUND, current_budgets
from rulelang.model.things import BoardZone, EnumMap, Entity, KeywordValue, Player, Zone, out_seats, players_in


class RuleFailure(Exception):
    """Raised by a built-in when the rules ask for something impossible; the VM adds the rules line."""


@dataclass
class Builtin:
    name: str
    min_args: int
    max_args: int | None
    doc: str
    impl: Callable


BUILTINS: dict[str, Builtin] = {}


def builtin(name: str, min_args: int, max_args: int | None, doc: str):
    def register(fn):
        BUILTINS[name] = Builtin(name, min_args, max_args, doc, fn)
        return fn

    return register


BUILTIN_VALUES = {
    "players": "every player still in the game, in seat order (see `eliminate`)",
    "all_players": "every player, in seat order, including those eliminated",
    "eliminated": "the players eliminated so far, in the order they went out",
    "round": "the number of the current round (1 for the first)",
    "current": "the player whose turn it is",
    "phase": "the name of the current phase",
    "player_count": "how many players are in the match",
}


def as_list(value) -> list:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, Zone):
        return list(value.items)
    if isinstance(value, (tuple, set, range)):
        return list(value)
    if type(value) is EnumMap:  # its numbers, in the enum's order: sum(c.cost), max(p.gems)
        return list(value.values.values())
    return [value]


def _items(value) -> list:
    """The items of a collection, to read only: a zone's own list, not a copy (as_list copies)."""
    if type(value) is list:
        return value
    if isinstance(value, Zone):
        return value.items
    return as_list(value)


def budgets_of(ctx):
    """The budgets of the match a built-in runs in (without one, those in force)."""
    return ctx.vm.meter.budgets if getattr(ctx, "vm", None) is not None else current_budgets()


def board_of(x) -> BoardZone:
    zone = x.zone if isinstance(x, Entity) else x
    if not isinstance(zone, BoardZone):
        raise RuleFailure(f"{describe(x)} is not on a board")
    return zone


def describe(x) -> str:
    t = type(x)
    if t is int or t is str:  # the most common, first (a bool is not an int here: true, false below)
        return str(x)
    if isinstance(x, Entity):
        return label(x)
    if isinstance(x, Player):
        return f"Player {x.seat + 1}"
    if isinstance(x, Zone):  # "hand of player 2"; one of a family of zones, "display 3"
        return x.key.replace("#", " of player " if x.owner is not None else " ")
    if isinstance(x, KeywordValue):
        return repr(x)
    if isinstance(x, tuple):
        return "(" + ", ".join(map(describe, x)) + ")"
    if isinstance(x, list):
        return "[" + ", ".join(map(describe, x)) + "]"
    if x is None:
        return "none"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is EnumMap:  # "2 red, 1 blue": the members holding something, in the enum's order
        return ", ".join(f"{v} {k}" for k, v in x.values.items() if v) or "nothing"
    return str(x)


def label(e: Entity) -> str:
    if e.card.label is not None:
        shown = e.card.label(e)  # (None: only `label ... if` cases, and none of them holds)
        if shown is not None:
            return shown
    if e.card.name:
        return e.card.name
    shown = ", ".join(f"{k}: {describe(v)}" for k, v in e.attrs.items() if not isinstance(v, (list, dict)))
    return f"{e.card.component}({shown})"


# ------------------------------------------------------------------ collections
# (a built-in that is one expression is registered in one line, in the order of the reference's table)


@builtin("count", 1, 1, "how many items a collection holds")
def _count(ctx, coll):
    if type(coll) is list:
        return len(coll)
    if isinstance(coll, Zone):
        return len(coll.items)
    return len(as_list(coll))


def _bounded(total, what: str):
    """A total the rules made (a sum, dice): a whole number beyond ±10^18 is refused, as arithmetic
    refuses one (budgets.NUMBER_BOUND)."""
    if type(total) is int and not -NUMBER_BOUND <= total <= NUMBER_BOUND:
        raise RuleFailure(f"{what} is a number {BEYOND_BOUND}")
    return total


def _extreme(fn, args):
    if len(args) == 1:
        items = as_list(args[0])
        return fn(items) if items else 0
    return fn(args)


def _count_of(n, name: str) -> int:
    """A count of items asked of first/last/skip/sample: a whole number, 0 or more."""
    if type(n) is not int or n < 0:
        raise RuleFailure(f"{name}() takes a count of items, a whole number 0 or more, not {describe(n)}")
    return n


builtin("sum", 1, 1, "the total of a list of numbers")(lambda ctx, coll: _bounded(sum(as_list(coll)), "the total"))
builtin("min", 1, None, "the smallest of a list of numbers, or of several numbers (0 for an empty list)")(
    lambda ctx, *args: _extreme(min, args))
builtin("max", 1, None, "the largest of a list of numbers, or of several numbers (0 for an empty list)")(
    lambda ctx, *args: _extreme(max, args))
builtin("any", 1, 1, "true when some item of the list is true (use with `x in coll where cond`)")(
    lambda ctx, coll: any(as_list(coll)))
builtin("all", 1, 1, "true when every item of the list is true (use with `x in coll where cond`)")(
    lambda ctx, coll: all(as_list(coll)))
builtin("abs", 1, 1, "the absolute value of a number")(lambda ctx, x: abs(x))


@builtin("first", 1, 2, "the first item of a list, or none; first(list, n): a list of its first n items (all, if fewer)")
def _first(ctx, coll, n=None):
    items = _items(coll)
    if n is not None:
        return items[:_count_of(n, "first")]
    return items[0] if items else None


@builtin("last", 1, 2, "the last item of a list, or none; last(list, n): a list of its last n items (all, if fewer)")
def _last(ctx, coll, n=None):
    items = _items(coll)
    if n is not None:
        n = _count_of(n, "last")
        return items[len(items) - n:] if n < len(items) else list(items)
    return items[-1] if items else None


builtin("skip", 2, 2, "the list without its first n items: skip(list, 2) then first(..., 3) is the 3rd to 5th")(
    lambda ctx, coll, n: _items(coll)[_count_of(n, "skip"):])
builtin("index_of", 2, 2, "where an item stands in a list, counting from 0 as list[i] does (-1 if absent); "
                          "index_of(red, Colour) is an enum member's place in its enum")(
    lambda ctx, item, coll: next((i for i, x in enumerate(_items(coll)) if x == item), -1))
builtin("top", 1, 1, "the top card of a pile (the last one put on it), or none")(
    lambda ctx, zone: items[-1] if (items := _items(zone)) else None)
builtin("bottom", 1, 1, "the bottom card of a pile, or none")(
    lambda ctx, zone: items[0] if (items := _items(zone)) else None)
builtin("empty", 1, 1, "true when a collection holds nothing")(lambda ctx, coll: _count(ctx, coll) == 0)


@builtin("distinct", 1, 1, "the list without repeated items, in first-seen order")
def _distinct(ctx, coll):
    out = []
    for x in as_list(coll):
        if x not in out:  # (equality, not hashing: items may be lists)
            out.append(x)
    return out


builtin("concat", 1, None, "the lists joined one after another")(
    lambda ctx, *lists: [x for items in lists for x in as_list(items)])


@builtin("sorted_by", 2, 2, "the items sorted by a number each: sorted_by(items, [key for x in items])")
def _sorted_by(ctx, items, keys):
    items, keys = as_list(items), as_list(keys)
    if len(keys) != len(items):
        raise RuleFailure(f"sorted_by() needs one key for each item: {len(items)} item{'s' if len(items) != 1 else ''}, "
                          f"but {len(keys)} key{'s' if len(keys) != 1 else ''} (write sorted_by(items, [KEY for x in items]))")
    return [items[i] for i in sorted(range(len(items)), key=lambda i: keys[i])]


@builtin("shared", 2, 2, "the items found in both lists")
def _shared(ctx, a, b):
    b_items = as_list(b)
    a_items = as_list(a)
    if len(a_items) * len(b_items) > 64:
        try:  # hashable items (cells, numbers, texts): look each up in a set, not along the list
            b_set = set(b_items)
        except TypeError:
            pass
        else:
            return [x for x in a_items if x in b_set]
    return [x for x in a_items if x in b_items]


# ------------------------------------------------------------------ entities and players


builtin("owner", 1, 1, "the player a card belongs to, or none")(
    lambda ctx, e: ctx.s.players[e.owner] if e.owner is not None else None)
builtin("zone_of", 1, 1, "the zone a card is in")(lambda ctx, e: e.zone)
builtin("cell_of", 1, 1, "the board cell a card is on, or none")(lambda ctx, e: e.cell)


@builtin("player", 1, 1, "a player by seat number, counting from 1")
def _player(ctx, n):
    if not 1 <= n <= len(ctx.s.players):
        raise RuleFailure(f"there is no player {n} in a {len(ctx.s.players)}-player match")
    return ctx.s.players[n - 1]


def _in_order(ctx, p, step) -> list:
    """Seats from p (included) going round by step, without the eliminated ones (p is kept)."""
    n = len(ctx.s.players)
    out = out_seats(ctx.s)
    return [ctx.s.players[(p.seat + step * i) % n] for i in range(n)
            if i == 0 or (p.seat + step * i) % n not in out]


def _next_in_order(ctx, p, step):
    order = _in_order(ctx, p, step)
    return order[1] if len(order) > 1 else p


builtin("seat", 1, 1, "a player's seat number, counting from 1")(lambda ctx, p: p.seat + 1)
builtin("next_player", 1, 1, "the player after this one in the game's turn order (eliminated players are passed by)")(
    lambda ctx, p: _next_in_order(ctx, p, ctx.vm.program.game.step))
builtin("previous_player", 1, 1, "the player before this one in the game's turn order (eliminated players are "
                                 "passed by)")(lambda ctx, p: _next_in_order(ctx, p, -ctx.vm.program.game.step))
builtin("turn_order", 1, 1, "every player still in the game in turn order, starting with the given one")(
    lambda ctx, p: _in_order(ctx, p, ctx.vm.program.game.step))
builtin("opponents", 1, 1, "every player still in the game except the given one")(
    lambda ctx, p: [q for q in players_in(ctx.s) if q is not p])
builtin("label", 1, 1, "the text that names a card or value")(lambda ctx, x: describe(x))
builtin("face_down", 1, 1, "true when a card lies face down")(lambda ctx, e: e.face_down)


# ------------------------------------------------------------------ board


@builtin("neighbors", 1, 2, "the cards on the cells next to a card (or next to a cell: neighbors(board, cell))")
def _neighbors(ctx, x, cell=None):
    if cell is None:
        board = board_of(x)
        cell = x.cell
        if board.cells.pieces and x.id in board.cells.pieces:
            return board.cells.cards_next_to_piece(x)
    else:
        board = x
    return board.cells.cards_next_to(cell)


@builtin("adjacent", 2, 2, "true when two cards (or two cells of one board) are next to each other")
def _adjacent(ctx, a, b):
    if not (isinstance(a, Entity) and isinstance(b, Entity)):
        raise RuleFailure("adjacent() compares two cards on a board")
    if a.zone is not b.zone or not isinstance(a.zone, BoardZone):
        return False
    cells = a.zone.cells
    if cells.pieces:  # a piece is next to whatever is next to any of its cells
        return a is not b and bool(set(cells.covered_cells(b)).intersection(cells.piece_neighbour_cells(a)))
    if cells.topology.open:
        return b.cell in cells.topology.lattice_neighbours(a.cell)
    return cells.graph.has_edge(a.cell, b.cell)


builtin("distance", 2, 3, "the number of steps between two cards on one board (or distance(board, cell, cell)); "
                               "-1 when no path joins them")(
    lambda ctx, a, b, c=None: a.cells.distance(b, c) if c is not None else board_of(a).cells.distance(a.cell, b.cell))
builtin("frontier", 1, 1, "the empty cells next to an occupied cell of a board")(
    lambda ctx, board: board.cells.frontier())
builtin("origin", 1, 1, "the centre cell of a board")(lambda ctx, board: board.cells.topology.origin())
builtin("cells", 1, 1, "every cell of a board (for open boards: the occupied ones)")(
    lambda ctx, board: board.cells.cells())
builtin("occupied_cells", 1, 1, "the cells of a board that hold a card")(
    lambda ctx, board: board.cells.occupied_cells())
builtin("neighbor_cells", 1, 2, "the cells next to a card's cell (or next to a cell: neighbor_cells(board, cell))")(
    lambda ctx, x, cell=None: board_of(x).cells.piece_neighbour_cells(x) if cell is None
    else list(x.cells.neighbour_cells(cell)))


@builtin("empty_cells_around", 1, 2, "the empty cells next to a card (or next to a cell: empty_cells_around(board, cell))")
def _empty_around(ctx, x, cell=None):
    if cell is None:
        cells = board_of(x).cells
        if cells.pieces and x.id in cells.pieces:
            return [c for c in cells.piece_neighbour_cells(x) if not cells.stack(c)]
        return cells.empty_neighbour_cells(x.cell)
    return x.cells.empty_neighbour_cells(cell)


builtin("at", 2, 3, "the cards on one cell of a board, bottom first "
                    "(at(board, cell, place): those in one place of it)")(
    lambda ctx, board, cell, place=None: board.cells.in_place(cell, place) if place is not None
    else list(board.cells.stack(cell)))


@builtin("has_room", 3, 3, "true when one more card fits in a place of a board's cell: has_room(board, cell, place)")
def _has_room(ctx, board, cell, place):
    places = board.cells.topology.places
    if place not in places:
        raise RuleFailure(f"the cells of {board.name} have the places {', '.join(places) or '(none)'}, not {describe(place)}")
    return board.cells.has_cell(cell) and board.cells.has_room(cell, place)


builtin("top_at", 2, 2, "the top card on one cell of a board, or none")(
    lambda ctx, board, cell: stack[-1] if (stack := board.cells.stack(cell)) else None)


@builtin("connected_groups", 1, 1, "the groups of cards on a board whose cells touch each other")
def _groups(ctx, board):
    import networkx as nx  # imported on first use: `rulelang check` does not need it

    g = board.cells.graph.subgraph(board.cells.occupied_cells())
    return [[card for cell in sorted(comp) for card in board.cells.stack(cell)]
            for comp in sorted(nx.connected_components(g), key=min)]


# ------------------------------------------------------------------ chance


@builtin("roll", 1, 2, "dice: roll(6) is one six-sided die, roll(2, 6) the total of two")
def _roll(ctx, a, b=None):
    count, sides = (1, a) if b is None else (a, b)
    if isinstance(sides, int) and sides < 1:
        raise RuleFailure(f"roll() needs dice of at least 1 side, but was given dice of {sides}")
    if isinstance(count, int) and count < 0:
        raise RuleFailure(f"roll() needs a number of dice that is 0 or more, but was given {count}")
    if isinstance(count, int) and count > 1000:
        budgets = budgets_of(ctx)
        if count > budgets.list_size:
            raise RuleFailure(f"roll() of {count:,} dice is more than the list_size budget ({budgets.list_size:,}); "
                              f"raise it with --budget list_size=N")
    fixed = ctx.s.fixed_chance  # results queued by a scenario come first (rulelang/engine/fixed_chance.py)
    if fixed is not None:
        return _bounded(sum(fixed.die(sides, ctx.s.rng) for _ in range(count)), "the total of the dice")
    return _bounded(sum(ctx.s.rng.randint(1, sides) for _ in range(count)), "the total of the dice")


builtin("sample", 2, 2, "n different items of a list picked at random, in the order picked (all, if fewer)")(
    lambda ctx, coll, n: _picked(ctx, as_list(coll), _count_of(n, "sample")))
builtin("shuffled", 1, 1, "the items of a list in a random order (the list itself is unchanged)")(
    lambda ctx, coll: _picked(ctx, as_list(coll)))


def _picked(ctx, items: list, n: int | None = None) -> list:
    """n items (None: all) taken one by one at random from what is left; each pick is one of random()'s, so a
    scenario's queued `next random` results come first."""
    left, out = list(items), []
    fixed = ctx.s.fixed_chance
    for _ in range(len(left) if n is None else min(n, len(left))):
        i = fixed.pick(left, ctx.s.rng) if fixed is not None else ctx.s.rng.randrange(len(left))
        out.append(left.pop(i))
    return out


@builtin("random", 1, 1, "one item of a list picked at random")
def _random(ctx, coll):
    items = as_list(coll)
    if not items:
        raise RuleFailure("random() was given an empty list")
    return _picked(ctx, items, 1)[0]


# ------------------------------------------------------------------ keywords


def keywords_of(e) -> list[KeywordValue]:
    """The keywords a card carries, field by field (none for anything that is not a card)."""
    out = []
    if type(e) is Entity:  # (type tests, not isinstance: it is asked for every card, often)
        for value in e.attrs.values():
            kind = type(value)
            if kind is KeywordValue:
                out.append(value)
            elif kind is list:
                for v in value:  # a loop, not extend(generator)
                    if type(v) is KeywordValue:
                        out.append(v)
    return out


def holds_keyword(value) -> bool:
    """Whether a field's value is a keyword, or a list holding one (what keywords_of finds)."""
    return type(value) is KeywordValue or (type(value) is list and any(type(v) is KeywordValue for v in value))


builtin("keywords", 1, 1, "every keyword printed on a card")(lambda ctx, e: keywords_of(e))

# `has`, `usable` and `matched` need the compiled program: the compiler provides them.
SPECIAL_FUNCS = {
    "has": (2, 2, "true when a card carries a keyword: has(card, flying)"),
    "usable": (2, 2, "true when a keyword's `usable if` condition holds for a card: usable(k, card)"),
    "matched": (3, 3, "true when every item of the first list can be matched to a different item of the second, "
                      "using a two-parameter def as the test: matched(needs, providers, fits)"),
    "matching": (3, 3, "a largest matching as a list of [item, partner] pairs: matching(needs, providers, fits)"),
}


def bipartite_matching(left: list, right: list, fits: Callable[[Any, Any], bool]) -> list[tuple[Any, Any]]:
    """A maximum matching between two lists (networkx Hopcroft-Karp)."""
    import networkx as nx

    g = nx.Graph()
    lefts = [("L", i) for i in range(len(left))]
    g.add_nodes_from(lefts, bipartite=0)
    g.add_nodes_from((("R", j) for j in range(len(right))), bipartite=1)
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            if fits(a, b):
                g.add_edge(("L", i), ("R", j))
    m = nx.bipartite.hopcroft_karp_matching(g, top_nodes=lefts)
    return [(left[i], right[m[("L", i)][1]]) for i in range(len(left)) if ("L", i) in m]


def saturating_matching_exists(left: list, right: list, fits: Callable[[Any, Any], bool]) -> bool:
    """Whether every item of `left` can be matched to a different item of `right` (Kuhn's augmenting
    paths). The lists of a rule are short, so this beats building a graph; `fits` is asked only for
    the pairs the search reaches, once each."""
    if len(left) > len(right):
        return False
    known: dict[tuple[int, int], bool] = {}
    partner_of = [-1] * len(right)

    def fit(i: int, j: int) -> bool:
        v = known.get((i, j))
        if v is None:
            v = known[(i, j)] = bool(fits(left[i], right[j]))
        return v

    def augment(i: int, seen: list) -> bool:
        for j in range(len(right)):
            if not seen[j] and fit(i, j):
                seen[j] = True
                if partner_of[j] < 0 or augment(partner_of[j], seen):
                    partner_of[j] = i
                    return True
        return False

    return all(augment(i, [False] * len(right)) for i in range(len(left)))
