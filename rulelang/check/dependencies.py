"""What an expression or a def depends on, read from the AST before compiling: the names it
mentions (`mentioned`), whether it uses chance (`impure_defs`: never remembered), whether it reads
the turn (`turn_defs`: remembered only within a turn), and the compiler's other questions: which defs
are constants, recursive, fixed by the settings or of a card and its neighbours, and what the defs and
the continuous rules read. Each analysis reads the one walk of a tree, `Facts`, in its own way, and
follows the defs a def calls with `reached`.
"""
from __future__ import annotations

import re
from functools import cached_property

from rulelang.language import nodes as N
from rulelang.language.nodes import nodes_in

# built-ins whose value changes from one call to the next (chance), so a def using them is not cached
IMPURE_CALLS = {"roll", "random", "sample", "shuffled"}


class Facts:
    """What one walk over a tree's nodes (parents first; with `fixer`, not into the branches the
    settings rule out) finds, which each analysis reads in its own way."""

    def __init__(self, tree, fixer: "Fixer | None" = None):
        # in order, each name used: a name, a call's function, the start of a text's {name.field}
        self.uses: list[tuple[N.Node, str]] = []
        self.names: set[str] = set()  # the names (not the calls' functions)
        self.calls: list[N.Call] = []
        self.fields: set[str] = set()  # the fields read, `x.name`
        self.texts = False  # whether a text has placeholders (what they show is read through labels too)
        self.kinds: set[type] = set()  # the kinds of nodes
        self.bound: set[str] = set()  # the names it binds for itself (`[x in xs where ...]`, `sum(e for x in xs)`)
        for x in nodes_in(tree) if fixer is None else live_nodes_in(tree, fixer):
            kind = type(x)
            self.kinds.add(kind)
            if kind is N.Name:
                self.names.add(x.id)
                self.uses.append((x, x.id))
            elif kind is N.Call:
                self.calls.append(x)
                self.uses.append((x, x.func))
            elif kind is N.Attr:
                self.fields.add(x.name)
            elif kind is N.StrLit and "{" in x.value:
                self.texts = True
                self.uses.extend((x, shown.split(".")[0]) for shown in TEMPLATE_NAMES.findall(x.value))
            elif kind in _BINDERS:
                self.bound.add(x.var)

    def funcs(self) -> set[str]:
        """The functions it calls."""
        return {x.func for x in self.calls}

    @cached_property
    def mentioned(self) -> frozenset[str]:
        return frozenset(name for _, name in self.uses)


_BINDERS = (N.FilterList, N.ForClause, N.MapList)


class Declared:
    """A game's top-level names by kind, as the analyses ask for them."""

    def __init__(self, decls):
        self.defs = {d.name: d for d in decls if isinstance(d, N.DefDecl)}
        self.procs = {d.name: d for d in decls if isinstance(d, N.ProcDecl)}
        self.globals = {d.name: d for d in decls if isinstance(d, N.VarDecl)}
        self.zones = {d.name for d in decls if isinstance(d, N.ZoneDecl)}
        self.members = {m for d in decls if isinstance(d, N.EnumDecl) for m in d.members}


def reached(start: str, calls: dict[str, set[str]]) -> set[str]:
    """The names `start` calls (`calls`: the names each one calls itself), directly or through the
    ones it calls; `start` too when it calls itself."""
    seen, todo = set(), list(calls[start])
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(calls.get(name, ()))
    return seen


def _through_defs(decls, names: set[str]) -> set[str]:
    """The defs that mention one of `names`, directly or through the defs they mention (a def shown in
    a text, "{name}", is called too)."""
    uses = {d.name: mentioned(d.body) for d in decls if isinstance(d, N.DefDecl)}
    calls = {name: used & uses.keys() for name, used in uses.items()}
    return {name for name in uses if any(uses[d] & names for d in reached(name, calls) | {name})}


def impure_defs(decls) -> set[str]:
    """The defs that use chance, directly or through other defs: their values are never cached."""
    return _through_defs(decls, IMPURE_CALLS)


#: what a def may read that changes without `State.version` changing (the turn, not the state)
TURN_NAMES = {"current", "round", "phase"}


def facts(node) -> Facts:
    """Facts(node), remembered for the node: a game's analyses ask of the same defs several times, and
    of a big deck's cards (kept with the node, so that its id is not reused)."""
    kept = _FACTS.get(id(node))
    if kept is not None and kept[0] is node:
        return kept[1]
    if len(_FACTS) > 20_000:
        _FACTS.clear()
    _FACTS[id(node)] = (node, Facts(node))
    return _FACTS[id(node)][1]


_FACTS: dict[int, tuple] = {}


def mentioned(node) -> frozenset[str]:
    """Every name an expression mentions, itself or as the start of a text's `{name.field}` placeholders."""
    return facts(node).mentioned


#: a text's `{name.field}` placeholders, as the checker, the decks' check and the generator (g_StrLit) read them
TEMPLATE_NAMES = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")


def shown_node(shown: str, span) -> N.Node:
    """What a text's `{p.score}` shows (`shown`: "p.score"), as an expression at `span`."""
    names = shown.split(".")
    node = N.Name(span=span, id=names[0])
    for attr in names[1:]:
        node = N.Attr(span=span, obj=node, name=attr)
    return node


def turn_defs(decls) -> set[str] | None:
    """The defs whose value may depend on whose turn, which round or which phase it is, directly or
    through other defs: they are remembered only for one turn; the others for as long as the state
    does not change. None when the cards' own rules (a condition field, computed when read) mention
    the turn (also inside a text's `{...}` placeholders): then every def may, through a card's field."""
    if cards_mention(decls) & TURN_NAMES:
        return None
    return _through_defs(decls, TURN_NAMES)


def cards_mention(decls) -> set[str]:
    """Every name the cards' and components' own expressions mention (a condition field is worked out
    when read, so what it names may be asked whenever a card's field is)."""
    return set().union(*(mentioned(d) for d in decls if isinstance(d, (N.CardsDecl, N.ComponentDecl))))


def rebuilt(x: N.Node, change) -> N.Node:
    """x with `change` applied to each node it holds (directly or in a list): a new node where one of
    them changed, x itself otherwise (a tree is never changed in place: the parsed AST is shared)."""
    changes = {}
    for name, value in x.__dict__.items():
        if isinstance(value, N.Node):
            new = change(value)
            if new is not value:
                changes[name] = new
        elif isinstance(value, list) and any(isinstance(v, N.Node) for v in value):
            new_list = [change(v) if isinstance(v, N.Node) else v for v in value]
            if any(a is not b for a, b in zip(new_list, value)):
                changes[name] = new_list
    return x.model_copy(update=changes) if changes else x


#: built-ins that compute only from the values they are given (no zone, card, player, turn or chance)
VALUE_BUILTINS = frozenset({"abs", "all", "any", "concat", "count", "distinct", "empty", "first", "index_of", "last",
                            "max", "min", "skip", "sum"})
#: expression nodes that read nothing of the state by themselves
_VALUE_NODES = (N.IntLit, N.BoolLit, N.NoneLit, N.Index, N.ListLit, N.FilterList, N.ForClause, N.MapList,
                N.CondExpr, N.BinOp, N.Compare, N.Member, N.BoolOp, N.Not, N.Neg, N.Range, N.CellLit)


#: the nodes a constant def may hold
_CONSTANT_NODES = {*_VALUE_NODES, N.Name, N.Call, N.StrLit}


def closed(needs: dict[str, set[str]], outside=frozenset()) -> set[str]:
    """The names whose needs are all among the names kept (or `outside`, not among `needs`), directly
    and through the needs of those: a def that uses one that is not of a kind is not of it either."""
    return {name for name in needs if reached(name, needs) <= needs.keys() | outside}


def recursive_defs(decls) -> set[str]:
    """The defs that may call themselves, directly or through other defs: only they need the
    recursion-depth count (a def outside every cycle cannot nest deeper than the number of defs).

    A def may call the defs it names (also as a value, `matched(xs, ys, fits)`, and in a text's
    `{name}`), every def if it asks `usable(...)` (a keyword's conditions), and the defs that cards'
    and components' own expressions name (a condition field is worked out when read)."""
    defs = [d for d in decls if isinstance(d, N.DefDecl)]
    names = {d.name for d in defs}

    by_fields = cards_mention(decls) & names
    calls = {}
    for d in defs:
        said = mentioned(d.body)
        calls[d.name] = names if "usable" in said else (said & names) | by_fields
    return {name for name in calls if name in reached(name, calls)}


def constant_defs(decls) -> set[str]:
    """The defs without parameters whose value is the same all game (a table of lines, a list of
    directions): they name only literals, enum members, names they bind themselves and other such
    defs, and call only built-ins that compute from their values. They are worked out once per match.
    (A def with parameters is left out: a zone or a card given to it would change under it.)"""
    game = Declared(decls)
    defs = {name for name, d in game.defs.items() if not d.params}
    uses = {}
    for name in defs:
        found = facts(game.defs[name].body)
        names_known = found.names <= defs | found.bound | game.members
        calls_known = all(not x.kwargs and x.func in VALUE_BUILTINS for x in found.calls)
        if names_known and calls_known and found.kinds <= _CONSTANT_NODES and not found.texts:
            uses[name] = found.names & defs
    return closed(uses)


#: built-ins that read no field of a card or player by name (they read places: zones, cells, seats),
#: so a def calling them reads only the fields it names itself
FIELD_FREE_BUILTINS = frozenset({
    "abs", "all", "any", "at", "bottom", "cards_on", "cell_of", "cells", "cells_around", "concat", "connected_groups",
    "count", "diagonal_directions", "directions", "distance", "distinct", "edge", "empty", "empty_cells",
    "empty_cells_around", "face_down", "first", "frontier", "has_room", "index_of", "last", "max", "min", "neighbor_cells",
    "neighbors", "next_player", "occupied_cells", "opponents", "origin", "owned_cells", "owner", "player",
    "previous_player", "ray", "region", "regions", "sample", "seat", "shuffled", "skip", "straight_directions", "sum",
    "top", "top_at", "towards",
    "turn_order", "zone_of", "matched", "matching",
})

def names_bound(tree) -> set[str]:
    """Every name a tree binds somewhere in it: a loop's, a comprehension's, a choice's or a trigger's
    name, a `let`, a parameter."""
    bound: set[str] = set()
    for x in nodes_in(tree):
        fields = x.__dict__  # (a pydantic model's fields: a missing one is not looked up the slow way)
        var = fields.get("var")
        if isinstance(var, str):
            bound.add(var)
        if isinstance(x, (N.Let, N.Param)):
            bound.add(x.name)
        for attr in ("params", "names"):
            names = fields.get(attr)
            if isinstance(names, list):
                bound.update(n for n in names if isinstance(n, str))
    return bound


class _NotFixed(Exception):
    """An expression whose value the settings alone do not fix."""


_FIXED_TYPES = (int, str, bool, type(None))


def setting_defs(fixer: "Fixer") -> dict:
    """The defs without parameters whose value the game's settings fix, with that value: they name
    only literals, enum members, settings and other such defs, through comparisons, `and`, `or`,
    `not`, `if ... then ... else` and `+`/`-` of numbers (`def complex = version == complex_version`).
    A game is compiled for one set of settings, so the generated code writes their values in place."""
    fixed = {name: fixer.fixed(fixer.defs[name].body) for name in fixer.defs}
    return {name: value for name, (known, value) in fixed.items() if known}


def _literal(value, span):
    cls = {bool: N.BoolLit, int: N.IntLit, str: N.StrLit}.get(type(value))
    return cls(span=span, value=value) if cls is not None else N.NoneLit(span=span)


class Fixer:
    """Works out the value of an expression that the settings alone fix (`value`), or raises _NotFixed."""

    def __init__(self, decls, settings: dict):
        # a name that a rule, a def or a comprehension binds anywhere in the game may stand for that
        # local value where it is bound: such a name is never taken for the setting or def it hides
        bound = names_bound(decls)
        self.settings = {k: v for k, v in settings.items() if type(v) in _FIXED_TYPES and k not in bound}
        self.members = ({m for d in decls if isinstance(d, N.EnumDecl) for m in d.members}
                        | {m for d in decls if isinstance(d, N.SettingDecl) for m in d.choices}) - bound
        self.defs = {d.name: d for d in decls if isinstance(d, N.DefDecl) and not d.params and d.name not in bound}
        self.known: dict[str, object] = {}
        self.working: set[str] = set()

    def simplify(self, x):
        """x with what the settings fix written as its value: a fixed name becomes a literal, `not`
        of a fixed value its opposite, `if` with a fixed test its branch, and `and`/`or` lose the
        fixed items they never reach or that change nothing (`not complex or any(...)`, with complex
        fixed false, is `true`). A new tree where something changed; x itself never changes."""
        if isinstance(x, N.Name):
            known, value = self.fixed(x)
            if not known or (type(value) is str and "{" in value):  # (a text with braces is a template)
                return x
            return _literal(value, x.span)
        if isinstance(x, N.Not):
            x = rebuilt(x, self.simplify)
            return N.BoolLit(span=x.span, value=not x.operand.value) if isinstance(x.operand, N.BoolLit) else x
        if isinstance(x, N.CondExpr):
            test = self.simplify(x.test)
            if isinstance(test, N.BoolLit):
                return self.simplify(x.then if test.value else x.other)
            return rebuilt(x, self.simplify)
        if isinstance(x, N.BoolOp):
            decisive = x.op == "or"  # the value that ends an `or` (true) or an `and` (false)
            items = []
            for item in x.items:
                item = self.simplify(item)
                if isinstance(item, N.BoolLit) and item.value is not decisive:
                    continue  # changes nothing
                items.append(item)
                if isinstance(item, N.BoolLit):  # decisive: the items after it are never reached
                    break
            if not items:
                return N.BoolLit(span=x.span, value=not decisive)
            if len(items) == 1 and isinstance(items[0], N.BoolLit):
                return items[0]
            if len(items) == len(x.items) and all(a is b for a, b in zip(items, x.items)):
                return x
            return x.model_copy(update={"items": items})
        if isinstance(x, N.Node):
            return rebuilt(x, self.simplify)
        return x

    def fixed(self, x):
        """(True, value) when the settings fix x's value, else (False, None)."""
        try:
            return True, self.value(x)
        except _NotFixed:
            return False, None

    def def_value(self, name: str):
        """The value of a def without parameters (one of `defs`), worked out once."""
        if name in self.known:
            return self.known[name]
        if name in self.working:  # a def that names itself
            raise _NotFixed
        self.working.add(name)
        try:
            value = self.known[name] = self.value(self.defs[name].body)
        finally:
            self.working.discard(name)
        return value

    def value(self, x):
        if isinstance(x, (N.IntLit, N.BoolLit)):
            return x.value
        if isinstance(x, N.NoneLit):
            return None
        if isinstance(x, N.StrLit) and "{" not in x.value:
            return x.value
        if isinstance(x, N.Name):
            if x.id in self.settings:
                return self.settings[x.id]
            if x.id in self.members:
                return x.id
            if x.id in self.defs:
                return self.def_value(x.id)
        elif isinstance(x, N.Not):
            v = self.value(x.operand)
            if type(v) is bool:
                return not v
        elif isinstance(x, N.BoolOp):
            values = [self.value(i) for i in x.items]
            if all(type(v) is bool for v in values):
                return all(values) if x.op == "and" else any(values)
        elif isinstance(x, N.CondExpr):
            test = self.value(x.test)
            if type(test) is bool:
                return self.value(x.then if test else x.other)
        elif isinstance(x, N.Compare):
            a, b = self.value(x.left), self.value(x.right)
            if x.op in ("==", "!=") and (type(a) is type(b) or a is None or b is None):
                return (a == b) == (x.op == "==")
            if x.op in ("<", "<=", ">", ">=") and type(a) is int and type(b) is int:
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[x.op]
        elif isinstance(x, N.BinOp) and x.op in ("+", "-"):
            a, b = self.value(x.left), self.value(x.right)
            if type(a) is int and type(b) is int and abs(a) < 10**9 and abs(b) < 10**9:
                return a + b if x.op == "+" else a - b
        raise _NotFixed


def def_reads(decls) -> dict[str, frozenset | None]:
    """For each def, the fields (by name) and global variables (as "$name") it reads, directly or
    through the defs it calls or is given; None when it may read anything. A change of one field or
    global then keeps the remembered values of the defs that do not read it (see
    ``values.keep_remembered``); any other change of the state forgets them all."""
    game = Declared(decls)
    code_fields = {f.name for d in decls if isinstance(d, N.ComponentDecl) for f in d.fields
                   if f.type.name == "condition"}
    own: dict[str, set | None] = {}  # what each def reads itself
    calls: dict[str, set[str]] = {}  # the defs each one calls or is given (matched(a, b, fits))
    for name, d in game.defs.items():
        found = facts(d.body)
        funcs = found.funcs()
        calls[name] = (found.names | funcs) & game.defs.keys()
        # a text's placeholders read what they name, through labels too; a built-in that reads fields
        # itself (label, keywords, has, usable...) reads anything
        unknown = funcs - game.defs.keys() - FIELD_FREE_BUILTINS - game.globals.keys() - game.zones
        if found.texts or found.fields & code_fields or unknown:
            own[name] = None
        else:
            own[name] = found.fields | {"$" + n for n in found.names & game.globals.keys()}
    out = {}
    for name in own:  # with what the defs it calls read, directly or through others
        reads = [own[d] for d in reached(name, calls) | {name}]
        out[name] = None if None in reads else frozenset().union(*reads)
    return out


def _plain_types(decls, more: frozenset = frozenset()):
    """A test of whether a declared type is plain (_PLAIN_TYPES, an enum or `more`), or a list (of
    lists...) of such; and the names of the fields declared somewhere with a type that is not."""
    plain = _PLAIN_TYPES | {d.name for d in decls if isinstance(d, N.EnumDecl)} | more

    def is_plain(t: N.TypeRef) -> bool:
        return is_plain(t.list_of) if t.list_of is not None else t.name in plain
    return is_plain, {f.name for d in decls if isinstance(d, (N.ComponentDecl, N.PlayerDecl)) for f in d.fields
                      if not is_plain(f.type)}


#: built-ins that read the cells next to a card, `neighbors(card)` and `empty_cells_around(card)`: a
#: neighbourhood def may call them on its card
_AROUND_BUILTINS = frozenset({"neighbors", "empty_cells_around"})
#: built-ins a neighbourhood def may call besides those: they compute from their values only
_NEIGHBOURHOOD_BUILTINS = VALUE_BUILTINS | {"matched", "matching"}
#: the nodes a neighbourhood def may hold
_NEIGHBOURHOOD_NODES = {*_VALUE_NODES, N.KwArg, N.Name, N.Call, N.StrLit, N.Attr}


def neighbourhood_defs(decls, reads: dict[str, frozenset | None] | None = None,
                       impure: set[str] | None = None) -> set[str]:
    """The defs of one parameter, a card, whose value depends only on that card, the cards next to it
    (`neighbors(p)`, `empty_cells_around(p)`), their fields, globals of plain types, settings,
    literals, and defs that read no place at all (`needs_met(a)`: are an animal's needs met by the
    cards around it). Such a value stays right while nothing changes on or next to the card's cell and
    no field or global it reads changes, so codegen remembers it across moves elsewhere on the board.

    Left out: a def that names a zone, the turn, a player list, a text with placeholders, chance, a
    field that may hold a card or a zone (it would lead to cards elsewhere), a card's zone, another
    built-in, or another def but such defs (on the same card) and defs that read no place; a def that
    reads a card's condition field reads anything (`reads` None). `reads` and `impure`: ``def_reads``
    and ``impure_defs``, when the caller has them already."""
    reads = def_reads(decls) if reads is None else reads
    impure = impure_defs(decls) if impure is None else impure
    game = Declared(decls)
    is_plain, unplain_fields = _plain_types(decls, frozenset({"keyword"}))
    settings = {n for d in decls if isinstance(d, N.SettingDecl) for n in (d.name, *d.choices)}
    plain_globals = {name for name, d in game.globals.items() if is_plain(d.type)}

    def looks(d: N.DefDecl, card: str | None):
        """(defs it calls that must read no place, defs it calls with its own card, whether it reads
        the cells next to its card) when its body is of the allowed kind with `card` as its card
        (None: it may read no place at all); None otherwise."""
        if d.name in impure or reads.get(d.name) is None:
            return None
        params = {p.name for p in d.params}
        found = facts(d.body)
        if found.bound & params:
            return None  # a name that means two things: keep it simple
        known = params | found.bound | game.members | settings | plain_globals
        free = (found.names - known) & game.defs.keys()  # a def given to another (matched(needs, cards, fits))
        if found.texts or not found.kinds <= _NEIGHBOURHOOD_NODES:
            return None  # a text's placeholders, or a node that reads more than values
        if found.fields & (unplain_fields | {"zone"}) or not found.names <= known | free:
            return None  # a card's zone, a field that leads elsewhere, or a name of another kind
        same, near = set(), False
        for x in found.calls:
            if x.kwargs:
                return None
            if x.func in _AROUND_BUILTINS:
                if not _of(x, card):
                    return None
                near = True
            elif x.func in game.defs:
                if _of(x, card) and len(game.defs[x.func].params) == 1:
                    same.add(x.func)  # the same card: its neighbourhood is this one
                else:
                    free.add(x.func)
            elif x.func not in _NEIGHBOURHOOD_BUILTINS:
                return None
        return free, same, near

    place_free: dict[str, set[str]] = {}
    for name, d in game.defs.items():
        found = looks(d, None)
        if found is not None:
            place_free[name] = found[0]
    no_place = closed(place_free)
    same_card: dict[str, set[str]] = {}  # each candidate: the defs it calls with its own card
    for name, d in game.defs.items():
        if len(d.params) != 1 or name in no_place:
            continue
        found = looks(d, d.params[0].name)
        if found is not None and (found[2] or found[1]) and found[0] <= no_place:
            same_card[name] = found[1]
    return closed(same_card, outside=no_place)


def _of(x: N.Call, card: str | None) -> bool:
    """Whether a call is given one thing, the name `card` (`neighbors(card)`)."""
    return card is not None and len(x.args) == 1 and isinstance(x.args[0], N.Name) and x.args[0].id == card


LIFTED_PREFIX = "__near"  # names of lifted conditions: no rules name starts with two underscores


def lifted_conditions(decls) -> dict[tuple, N.DefDecl]:
    """The conditions of `[x in coll where cond]` lists in continuous rules that look at the cards next to
    their card (`neighbors(x)` in `cond`), each as a def of one parameter `x` whose body is `cond`,
    keyed by (line, column, x) of the condition and named in the order they appear (lines added above
    rename none). Codegen remembers such a condition's value for each card as it does a neighbourhood
    def's (`neighbourhood_defs` says which qualify): a continuous rule that discards the cards next to
    no habitat looks again only around the cells that changed. Only continuous rules, which run again
    after every change: a list made once a round gains nothing, and asking a board for its counts of
    changes makes every later move on it keep them (BoardCells.near_version), which costs more than it
    saves (7% of one seed game's time)."""
    found: dict[tuple, N.DefDecl] = {}
    rules = [d for d in decls if isinstance(d, N.AlwaysDecl)]
    rules += [a for d in decls if isinstance(d, N.KeywordDecl) for a in d.always]
    for d in rules:
        for x in nodes_in(d):
            if not isinstance(x, N.FilterList) or x.keep != "where":
                continue
            key = (x.cond.span.line, x.cond.span.column, x.var)
            if key in found:
                continue
            if any(n.func in _AROUND_BUILTINS and _of(n, x.var) for n in facts(x.cond).calls):
                found[key] = N.DefDecl(name=f"{LIFTED_PREFIX}{len(found) + 1}", span=x.cond.span,
                                       params=[N.Param(name=x.var, span=x.cond.span)], body=x.cond)
    return found


def readers_of(reads: dict[str, frozenset | None], key: str) -> tuple[str, ...]:
    """The defs whose remembered values a change of `key` (a field name, or "$global") makes stale."""
    return tuple(sorted(name for name, r in reads.items() if r is None or key in r))


#: value types that cannot lead to a card or a zone: reading a global or field of one of these types
#: reads only that global or field
_PLAIN_TYPES = {"int", "bool", "str", "player", "cell"}
#: statements a continuous rule may hold and still be skipped when nothing it reads has changed: each
#: acts only through the state (no log line, signal, chance or choice that a skipped pass would lose)
_SKIPPABLE_STATEMENTS = (N.Let, N.Assign, N.If, N.For, N.While, N.RepeatTimes, N.RepeatUntil, N.Break, N.Continue,
                         N.Return, N.Move, N.Discard, N.Draw)


def live_nodes_in(tree, fixer: Fixer):
    """nodes_in(tree), without the branches of `if`s (statements and expressions) that the settings
    rule out (`fixer`: a game compiled for one set of settings never runs them)."""
    todo = [tree]
    while todo:
        x = todo.pop()
        if isinstance(x, N.CondExpr):
            known, test = fixer.fixed(x.test)
            if known and type(test) is bool:
                todo.append(x.then if test else x.other)
                continue
        elif isinstance(x, N.If):
            yield x
            live: list = []
            for cond, body in x.branches:
                known, test = fixer.fixed(cond)
                if known and test is False:
                    continue
                live.append(cond)
                live.append(body)
                if known and test is True:
                    break
            else:
                live.append(x.other)
            todo.extend(reversed(live))
            continue
        if isinstance(x, N.Node):
            yield x
            todo.extend(reversed(list(x.__dict__.values())))
        elif isinstance(x, (list, tuple)):
            todo.extend(reversed(x))


#: in what the continuous rules read (always_reads): a card's zone, which any card moved may change
#: (VM.settle then counts every zone touched, "#name", as read)
CARD_ZONES = "zone"


def always_reads(decls, fixer: "Fixer | None" = None) -> frozenset | None:
    """What the continuous rules (`always`) read, as names of zones ("#deck"), fields ("score"),
    globals ("$actor"), "@turn" (current, round or phase) and CARD_ZONES (a card's zone: any move);
    None when that cannot be told (a card reached other than through a zone the rules name, a text
    with placeholders, a card's condition, chance, a built-in that reads fields itself, or a statement
    whose effect is not only on the state). ``VM.settle`` skips settling when no change since the last
    fixed point touched any of these: a rule that reads the same state does the same nothing again."""
    rules = [d for d in decls if isinstance(d, N.AlwaysDecl)]
    if not rules:
        return frozenset()
    game = Declared(decls)
    is_plain, unplain_fields = _plain_types(decls)
    unplain_globals = {name for name, d in game.globals.items() if not is_plain(d.type)}
    reads: set[str] = set()
    used: set[str] = set()  # the defs and procedures the rules use, directly or through others
    todo = [rule.body for rule in rules]  # bodies to read: the rules, then the defs and procedures they use
    while todo:
        found = Facts(todo.pop(), fixer)
        funcs = found.funcs()
        called = ((found.names & game.defs.keys()) | (funcs & (game.defs.keys() | game.procs.keys()))) - used
        if found.texts or found.names & unplain_globals:
            return None  # a text's placeholders, a global holding a card or a zone: they lead anywhere
        if (found.fields - {"zone"}) & unplain_fields:
            return None  # a field holding a card, a zone or a condition
        if any(issubclass(kind, N.Stmt) and not issubclass(kind, _SKIPPABLE_STATEMENTS) for kind in found.kinds):
            return None  # a statement whose effect is not only on the state
        if not funcs - game.defs.keys() - game.procs.keys() - game.zones <= FIELD_FREE_BUILTINS - {"zone_of"}:
            return None  # a built-in that reads fields itself, or leads to a zone not named
        # a card's zone changes when the card moves, whichever zones those are
        reads |= {CARD_ZONES if field == "zone" else field for field in found.fields}
        if found.names & TURN_NAMES:
            reads.add("@turn")
        reads |= {"#" + name for name in (found.names | funcs) & game.zones}
        reads |= {"$" + name for name in found.names & game.globals.keys()}
        used |= called
        todo.extend((game.defs.get(name) or game.procs.get(name)).body for name in called)
    if used & impure_defs(decls):
        return None
    return frozenset(reads)
