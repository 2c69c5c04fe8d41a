"""Built-in functions and values of the language.

Each built-in has an arity, a one-line meaning (used by the checker's messages
and by the language reference), and an implementation over the match state.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rulelang.core.budgets import BEYOND_BOUND, NUMBER_BOUND
from rulelang.model.things import BoardZone, EnumMap, Entity, KeywordValue, Player, Zone, out_seats, players_in
from rulelang.model.board import GRID4, GRID8, HEX6, cell_sort_key, shape_turns, sort_cells


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
        if value.is_board:
            return list(value.items)
        return list(value.items)
    if isinstance(value, (tuple, set)):
        return list(value)
    if isinstance(value, range):
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


def _board_of(x) -> BoardZone:
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


@builtin("count", 1, 1, "how many items a collection holds")
def _count(ctx, coll):
    if type(coll) is list:
        return len(coll)
    if isinstance(coll, Zone):
        return len(coll.items)
    return len(as_list(coll))


@builtin("sum", 1, 1, "the total of a list of numbers")
def _sum(ctx, coll):
    return _bounded(sum(as_list(coll)), "the total")


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


@builtin("min", 1, None, "the smallest of a list of numbers, or of several numbers (0 for an empty list)")
def _min(ctx, *args):
    return _extreme(min, args)


@builtin("max", 1, None, "the largest of a list of numbers, or of several numbers (0 for an empty list)")
def _max(ctx, *args):
    return _extreme(max, args)


@builtin("any", 1, 1, "true when some item of the list is true (use with `x in coll where cond`)")
def _any(ctx, coll):
    return any(as_list(coll))


@builtin("all", 1, 1, "true when every item of the list is true (use with `x in coll where cond`)")
def _all(ctx, coll):
    return all(as_list(coll))


@builtin("abs", 1, 1, "the absolute value of a number")
def _abs(ctx, x):
    return abs(x)


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


@builtin("skip", 2, 2, "the list without its first n items: skip(list, 2) then first(..., 3) is the 3rd to 5th")
def _skip(ctx, coll, n):
    return _items(coll)[_count_of(n, "skip"):]


@builtin("index_of", 2, 2, "where an item stands in a list, counting from 0 as list[i] does (-1 if absent); "
                           "index_of(red, Colour) is an enum member's place in its enum")
def _index_of(ctx, item, coll):
    items = _items(coll)
    for i, x in enumerate(items):
        if x == item:
            return i
    return -1


def _count_of(n, name: str) -> int:
    """A count of items asked of first/last/skip/sample: a whole number, 0 or more."""
    if type(n) is not int or n < 0:
        raise RuleFailure(f"{name}() takes a count of items, a whole number 0 or more, not {describe(n)}")
    return n


@builtin("top", 1, 1, "the top card of a pile (the last one put on it), or none")
def _top(ctx, zone):
    items = _items(zone)
    return items[-1] if items else None


@builtin("bottom", 1, 1, "the bottom card of a pile, or none")
def _bottom(ctx, zone):
    items = _items(zone)
    return items[0] if items else None


@builtin("empty", 1, 1, "true when a collection holds nothing")
def _empty(ctx, coll):
    return _count(ctx, coll) == 0


@builtin("distinct", 1, 1, "the list without repeated items, in first-seen order")
def _distinct(ctx, coll):
    out = []
    for x in as_list(coll):
        if x not in out:
            out.append(x)
    return out


@builtin("concat", 1, None, "the lists joined one after another")
def _concat(ctx, *lists):
    out = []
    for x in lists:
        out.extend(as_list(x))
    return out


@builtin("sorted_by", 2, 2, "the items sorted by a number each: sorted_by(items, [key for x in items])")
def _sorted_by(ctx, items, keys):
    items = as_list(items)
    keys = as_list(keys)
    order = sorted(range(len(items)), key=lambda i: keys[i])
    return [items[i] for i in order]


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


@builtin("owner", 1, 1, "the player a card belongs to, or none")
def _owner(ctx, e):
    if isinstance(e, Zone):
        return ctx.s.players[e.owner] if e.owner is not None else None
    return ctx.s.players[e.owner] if e.owner is not None else None


@builtin("zone_of", 1, 1, "the zone a card is in")
def _zone_of(ctx, e):
    return e.zone


@builtin("cell_of", 1, 1, "the board cell a card is on, or none")
def _cell_of(ctx, e):
    return e.cell


@builtin("player", 1, 1, "a player by seat number, counting from 1")
def _player(ctx, n):
    if not 1 <= n <= len(ctx.s.players):
        raise RuleFailure(f"there is no player {n} in a {len(ctx.s.players)}-player match")
    return ctx.s.players[n - 1]


@builtin("seat", 1, 1, "a player's seat number, counting from 1")
def _seat(ctx, p):
    return p.seat + 1


def _in_order(ctx, p, step) -> list:
    """Seats from p (included) going round by step, without the eliminated ones (p is kept)."""
    n = len(ctx.s.players)
    out = out_seats(ctx.s)
    return [ctx.s.players[(p.seat + step * i) % n] for i in range(n)
            if i == 0 or (p.seat + step * i) % n not in out]


@builtin("next_player", 1, 1, "the player after this one in the game's turn order (eliminated players are passed by)")
def _next_player(ctx, p):
    order = _in_order(ctx, p, ctx.vm.program.game.step)
    return order[1] if len(order) > 1 else p


@builtin("previous_player", 1, 1, "the player before this one in the game's turn order (eliminated players are passed by)")
def _previous_player(ctx, p):
    order = _in_order(ctx, p, -ctx.vm.program.game.step)
    return order[1] if len(order) > 1 else p


@builtin("turn_order", 1, 1, "every player still in the game in turn order, starting with the given one")
def _turn_order(ctx, p):
    return _in_order(ctx, p, ctx.vm.program.game.step)


@builtin("opponents", 1, 1, "every player still in the game except the given one")
def _opponents(ctx, p):
    return [q for q in players_in(ctx.s) if q is not p]


@builtin("label", 1, 1, "the text that names a card or value")
def _label(ctx, x):
    return describe(x)


@builtin("face_down", 1, 1, "true when a card lies face down")
def _face_down(ctx, e):
    return e.face_down


# ------------------------------------------------------------------ board


@builtin("neighbors", 1, 2, "the cards on the cells next to a card (or next to a cell: neighbors(board, cell))")
def _neighbors(ctx, x, cell=None):
    if cell is None:
        board = _board_of(x)
        cell = x.cell
        if board.cells.pieces and x.id in board.cells.pieces:
            return board.cells.cards_next_to_piece(x)
    else:
        board = x
    return board.cells.cards_next_to(cell)


@builtin("adjacent", 2, 2, "true when two cards (or two cells of one board) are next to each other")
def _adjacent(ctx, a, b):
    if isinstance(a, Entity) and isinstance(b, Entity):
        if a.zone is not b.zone or not isinstance(a.zone, BoardZone):
            return False
        board, ca, cb = a.zone, a.cell, b.cell
        if board.cells.pieces:  # a piece is next to whatever is next to any of its cells
            return a is not b and bool(set(board.cells.covered_cells(b)).intersection(board.cells.piece_neighbour_cells(a)))
    else:
        raise RuleFailure("adjacent() compares two cards on a board")
    if board.cells.topology.open:
        return cb in board.cells.topology.lattice_neighbours(ca)
    return board.cells.graph.has_edge(ca, cb)


@builtin("distance", 2, 3, "the number of steps between two cards on one board (or distance(board, cell, cell))")
def _distance(ctx, a, b, c=None):
    if c is not None:
        return a.cells.distance(b, c)
    board = _board_of(a)
    return board.cells.distance(a.cell, b.cell)


@builtin("frontier", 1, 1, "the empty cells next to an occupied cell of a board")
def _frontier(ctx, board):
    return board.cells.frontier()


@builtin("origin", 1, 1, "the centre cell of a board")
def _origin(ctx, board):
    return board.cells.topology.origin()


@builtin("cells", 1, 1, "every cell of a board (for open boards: the occupied ones)")
def _cells(ctx, board):
    return board.cells.cells()


@builtin("occupied_cells", 1, 1, "the cells of a board that hold a card")
def _occupied_cells(ctx, board):
    return board.cells.occupied_cells()


@builtin("neighbor_cells", 1, 2, "the cells next to a card's cell (or next to a cell: neighbor_cells(board, cell))")
def _neighbor_cells(ctx, x, cell=None):
    if cell is None:
        return _board_of(x).cells.piece_neighbour_cells(x)
    return list(x.cells.neighbour_cells(cell))


@builtin("empty_cells_around", 1, 2, "the empty cells next to a card (or next to a cell: empty_cells_around(board, cell))")
def _empty_around(ctx, x, cell=None):
    if cell is None:
        cells = _board_of(x).cells
        if cells.pieces and x.id in cells.pieces:
            return [c for c in cells.piece_neighbour_cells(x) if not cells.stack(c)]
        return cells.empty_neighbour_cells(x.cell)
    return x.cells.empty_neighbour_cells(cell)


def _shape_of(piece) -> tuple:
    if not isinstance(piece, Entity):
        raise RuleFailure(f"a piece is a card, not {describe(piece)}")
    return piece.card.shape or ((0, 0),)


@builtin("places_for", 2, 2, "where a card may be laid on a board: every list of free cells its shape fits "
         "(places_for(board, piece); a piece of `covers N` cells in every turn)")
def _places_for(ctx, board, piece):
    board = _board_of(board)
    from rulelang.core.budgets import current_budgets

    most = (ctx.vm.meter.budgets if getattr(ctx, "vm", None) is not None else current_budgets()).list_size
    try:
        return board.cells.placements(_shape_of(piece), most)
    except OverflowError:
        raise RuleFailure(f"places_for() would walk more than {most:,} paths of {board.name} for {describe(piece)} "
                          "(the list_size budget); raise it with --budget list_size=N") from None


@builtin("placed_at", 3, 4, "the cells a piece would cover with its first cell on a cell, turned n times "
         "(a quarter turn on a square grid, a sixth on a hex map): placed_at(board, piece, cell, n)")
def _placed_at(ctx, board, piece, cell, turn=0):
    board = _board_of(board)
    kind = board.cells.topology.kind
    if kind not in ("grid", "hex"):
        raise RuleFailure(f"placed_at() turns a piece on a square grid or a hex map, and {board.name} is a {kind}: "
                          "name its cells, or choose one of places_for(board, piece)")
    if not (isinstance(cell, tuple) and len(cell) == 2):
        raise RuleFailure(f"placed_at() needs a cell (x, y), not {describe(cell)}")
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise RuleFailure(f"placed_at() turns a piece a whole number of times, not {describe(turn)}")
    turns = shape_turns(kind, _shape_of(piece))
    return [(cell[0] + dx, cell[1] + dy) for dx, dy in turns[turn % len(turns)]]


@builtin("covered_cells", 1, 1, "the cells a card on a board lies on (a piece's every cell, its first first)")
def _covered_cells(ctx, x):
    return _board_of(x).cells.covered_cells(x)


@builtin("at", 2, 3, "the cards on one cell of a board, bottom first (at(board, cell, place): those in one place of it)")
def _at(ctx, board, cell, place=None):
    if place is not None:
        return board.cells.in_place(cell, place)
    return list(board.cells.stack(cell))


@builtin("has_room", 3, 3, "true when one more card fits in a place of a board's cell: has_room(board, cell, place)")
def _has_room(ctx, board, cell, place):
    places = board.cells.topology.places
    if place not in places:
        raise RuleFailure(f"the cells of {board.name} have the places {', '.join(places) or '(none)'}, not {describe(place)}")
    return board.cells.has_cell(cell) and board.cells.has_room(cell, place)


@builtin("top_at", 2, 2, "the top card on one cell of a board, or none")
def _top_at(ctx, board, cell):
    stack = board.cells.stack(cell)
    return stack[-1] if stack else None


@builtin("connected_groups", 1, 1, "the groups of cards on a board whose cells touch each other")
def _groups(ctx, board):
    import networkx as nx  # imported on first use: `rulelang check` does not need it

    g = board.cells.graph.subgraph(board.cells.occupied_cells())
    groups = []
    for comp in sorted(nx.connected_components(g), key=lambda c: min(c)):
        cards = []
        for cell in sorted(comp):
            cards.extend(board.cells.stack(cell))
        groups.append(cards)
    return groups


# ------------------------------------------------------------------ chance


@builtin("roll", 1, 2, "dice: roll(6) is one six-sided die, roll(2, 6) the total of two")
def _roll(ctx, a, b=None):
    count, sides = (1, a) if b is None else (a, b)
    if isinstance(count, int) and count > 1000:
        from rulelang.core.budgets import current_budgets

        budgets = ctx.vm.meter.budgets if getattr(ctx, "vm", None) is not None else current_budgets()
        if count > budgets.list_size:
            raise RuleFailure(f"roll() of {count:,} dice is more than the list_size budget ({budgets.list_size:,}); "
                              f"raise it with --budget list_size=N")
    fixed = ctx.s.fixed_chance  # results queued by a scenario come first (rulelang/engine/fixed_chance.py)
    if fixed is not None:
        return _bounded(sum(fixed.die(sides, ctx.s.rng) for _ in range(count)), "the total of the dice")
    return _bounded(sum(ctx.s.rng.randint(1, sides) for _ in range(count)), "the total of the dice")


@builtin("sample", 2, 2, "n different items of a list picked at random, in the order picked (all, if fewer)")
def _sample(ctx, coll, n):
    return _picked(ctx, as_list(coll), _count_of(n, "sample"))


@builtin("shuffled", 1, 1, "the items of a list in a random order (the list itself is unchanged)")
def _shuffled(ctx, coll):
    items = as_list(coll)
    return _picked(ctx, items, len(items))


def _picked(ctx, items: list, n: int) -> list:
    """n items taken one by one at random from what is left; each pick is one of random()'s, so a
    scenario's queued `next random` results come first."""
    left, out = list(items), []
    fixed = ctx.s.fixed_chance
    for _ in range(min(n, len(left))):
        i = fixed.pick(left, ctx.s.rng) if fixed is not None else ctx.s.rng.randrange(len(left))
        out.append(left.pop(i))
    return out


@builtin("random", 1, 1, "one item of a list picked at random")
def _random(ctx, coll):
    items = as_list(coll)
    if not items:
        raise RuleFailure("random() was given an empty list")
    if ctx.s.fixed_chance is not None:
        return items[ctx.s.fixed_chance.pick(items, ctx.s.rng)]
    return items[ctx.s.rng.randrange(len(items))]


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


@builtin("keywords", 1, 1, "every keyword printed on a card")
def _keywords(ctx, e):
    return keywords_of(e)


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


# ------------------------------------------------------------------ boards: lines, edges, regions, snapshots
#
# Built-ins for lines, edges and regions of a board, and for recognising a position seen before.
#
# - Directions are (dx, dy) steps of a board's lattice: `directions(board)` (every one),
#   `straight_directions` and `diagonal_directions` (square grids). `towards(board, cell, d)` is the next
#   cell that way; `ray(board, cell, d)` every cell from there to the board's edge, which a comprehension
#   cuts short: `[c in ray(board, cell, d) while empty(at(board, c))]`.
# - `edge(board, "top")` names the cells along one side of a fixed grid or hex board.
# - Regions are groups of cells that touch, among cells the rules select: `regions(board, cells)`,
#   `region(board, cell, cells)` and `cells_around(board, cells)` (the cells next to a group, outside it).
#   They only visit the selected cells, through the board's neighbour table.
# - `snapshot(...)` is a text that is the same exactly when the boards (or any values) given are the same:
#   kept in a list var it is a record of earlier positions, for repetition rules.

EDGE_NAMES = ("top", "bottom", "left", "right")
# the built-ins whose first value is a board (the checker says so when it is a zone that is not one)
BOARD_FUNCTIONS = ("directions", "straight_directions", "diagonal_directions", "towards", "ray", "edge",
                   "empty_cells", "owned_cells", "regions", "region", "cells_around", "cards_on")


def _board(x, fn: str) -> BoardZone:
    if not isinstance(x, BoardZone):
        raise RuleFailure(f"{fn}() needs a board as its first value, not {describe(x)}")
    return x


def _lattice(board: BoardZone, fn: str):
    topo = board.cells.topology
    if topo.kind not in ("grid", "hex"):
        raise RuleFailure(f"{fn}() needs a grid or hex board: a {topo.kind} has no directions")
    return topo


def _direction(d, fn: str):
    if type(d) is tuple and len(d) == 2 and type(d[0]) is int and type(d[1]) is int:
        return d
    if not (isinstance(d, tuple) and len(d) == 2 and all(isinstance(v, int) for v in d)):
        raise RuleFailure(f"{fn}() needs a direction, a pair of whole numbers such as (1, 0); got {describe(d)}")
    return d


def _on_board(board: BoardZone, cell) -> bool:
    return cell in board.cells.stacks or board.cells.topology.open


@builtin("directions", 1, 1, "every direction of a grid or hex board, as (dx, dy) steps: 4 or 8 on a grid, 6 on a hex board")
def _directions(ctx, board):
    return list(_lattice(_board(board, "directions"), "directions").deltas)


@builtin("straight_directions", 1, 1, "the four directions along rows and columns of a square grid: (1, 0), (-1, 0), (0, 1), (0, -1)")
def _straight(ctx, board):
    topo = _lattice(_board(board, "straight_directions"), "straight_directions")
    return list(GRID4) if topo.kind == "grid" else list(HEX6)


@builtin("diagonal_directions", 1, 1, "the four diagonal directions of a square grid: (1, 1), (1, -1), (-1, 1), (-1, -1)")
def _diagonal(ctx, board):
    topo = _lattice(_board(board, "diagonal_directions"), "diagonal_directions")
    if topo.kind != "grid":
        raise RuleFailure("diagonal_directions() needs a square grid")
    return [d for d in GRID8 if d[0] and d[1]]


@builtin("towards", 3, 4, "the cell one step (or n steps: towards(board, cell, d, n)) from a cell in a direction, or none off the board")
def _towards(ctx, board, cell, d, n=1):
    board = _board(board, "towards")
    _lattice(board, "towards")
    dx, dy = _direction(d, "towards")
    target = (cell[0] + dx * n, cell[1] + dy * n)
    return target if _on_board(board, target) else None


@builtin("ray", 3, 3, "the cells in a line from a cell (not included) in a direction to the board's edge, nearest first; "
                      "cut it short with [c in ray(board, cell, d) while cond]")
def _ray(ctx, board, cell, d):
    board = _board(board, "ray")
    topo = _lattice(board, "ray")
    if topo.open:
        raise RuleFailure("ray() needs a board of fixed size (an open board has no edge)")
    dx, dy = _direction(d, "ray")
    return board.cells.ray(cell, dx, dy)


@builtin("edge", 2, 2, 'the cells along one side of a fixed grid or hex board: edge(board, "top"), "bottom", "left" or "right"')
def _edge(ctx, board, side):
    board = _board(board, "edge")
    topo = board.cells.topology
    if side not in EDGE_NAMES:
        raise RuleFailure(f'edge() knows the sides "top", "bottom", "left" and "right", not {describe(side)}')
    if topo.kind not in ("grid", "hex") or topo.width is None:
        raise RuleFailure("edge() needs a square grid with a size or a hex rhombus or rectangle")
    # a fixed board's sides never change: each is computed once per board shape
    cache = topo.edge_cache
    if side not in cache:
        cache[side] = _edge_cells(board.cells.cells(), side, topo.height)
    return list(cache[side])


def _edge_cells(cells: list, side: str, height: int) -> list:
    if side == "top":
        return [c for c in cells if c[1] == 0]
    if side == "bottom":
        return [c for c in cells if c[1] == height - 1]
    rows: dict = {}
    for c in cells:
        rows.setdefault(c[1], []).append(c[0])
    pick = min if side == "left" else max
    return [(pick(xs), y) for y, xs in sorted(rows.items())]


@builtin("empty_cells", 1, 1, "the cells of a fixed board that hold no card")
def _empty_cells(ctx, board):
    return _board(board, "empty_cells").cells.empty_cells()


@builtin("owned_cells", 2, 2, "the cells of a board whose top card belongs to a player")
def _owned_cells(ctx, board, player):
    board = _board(board, "owned_cells")
    if not isinstance(player, Player):
        raise RuleFailure(f"owned_cells() needs a player as its second value, not {describe(player)}")
    return board.cells.owned_by(player.seat)


def _cell_set(cells, fn: str) -> set:
    items = as_list(cells)
    if Entity not in set(map(type, items)):  # cells only (the usual case): one C-level pass
        return set(items)
    out = set()
    for c in items:
        if isinstance(c, Entity):
            c = c.cell
        out.add(c)
    return out


@builtin("regions", 2, 2, "the groups of touching cells among the given cells (or cards' cells), each a list of cells: "
                          "regions(board, owned_cells(board, p))")
def _regions(ctx, board, cells):
    board = _board(board, "regions")
    return board.cells.regions(_cell_set(cells, "regions"))


@builtin("region", 3, 3, "the group of touching cells, among the given cells, that holds one cell (empty if the cell is not "
                         "among them): region(board, cell, owned_cells(board, p))")
def _region(ctx, board, cell, cells):
    board = _board(board, "region")
    if isinstance(cell, Entity):
        cell = cell.cell
    return board.cells.region(cell, _cell_set(cells, "region"))


@builtin("cells_around", 2, 2, "the cells next to any of the given cells (or cards' cells) but not among them: "
                               "the border of a group")
def _cells_around(ctx, board, cells):
    board = _board(board, "cells_around")
    known = board.cells.border_of(cells)  # (a list asked about before: a group the board keeps, a def's value)
    if known is not None:
        return known
    members = _cell_set(cells, "cells_around")
    neighbours = board.cells.neighbour_cells
    out = sort_cells({other for cell in members for other in neighbours(cell) if other not in members})
    board.cells.keep_border(cells, out)
    return out


@builtin("cards_on", 2, 2, "the cards on the given cells of a board, cell by cell, bottom first")
def _cards_on(ctx, board, cells):
    board = _board(board, "cards_on")
    out = []
    for c in as_list(cells):
        out.extend(board.cells.stack(c))
    return out


def _snap(value) -> str:
    if isinstance(value, BoardZone):
        parts = []
        for cell, stack in sorted(value.cells.stacks.items(), key=lambda kv: cell_sort_key(kv[0])):
            if stack:
                parts.append(f"{describe(cell)}=" + "+".join(_card_key(e) for e in stack))
        return value.key + "{" + ";".join(parts) + "}"
    if isinstance(value, Zone):
        return value.key + "[" + ",".join(_card_key(e) for e in value.items) + "]"
    if isinstance(value, list):
        return "[" + ",".join(_snap(v) for v in value) + "]"
    return describe(value)


def _card_key(e: Entity) -> str:
    fields = ",".join(f"{k}={describe(v)}" for k, v in sorted(e.attrs.items()))
    return f"{e.card.component}({fields})@{e.owner}" + ("v" if e.face_down else "")


@builtin("snapshot", 1, None, "a text that is the same exactly when the given boards, zones and values are the same "
                              "(cards compared by kind, fields and owner): keep it in a list var to recognise a "
                              "position seen before")
def _snapshot(ctx, *values):
    return "|".join(_snap(v) for v in values)
