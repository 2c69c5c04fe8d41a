"""What a deck's cards may be made from: the checker's half of `cards NAME { ... }`.

A `cards` block's cards are made when the game is loaded, before any match: the lists its `for`
clauses walk and the values printed on its cards (a component's field defaults too, which the cards
take) are worked out then, once. They may name written values, enum members, settings, tables,
keywords and defs made of those; not what only a match has: its players, variables, zones and
cards, the turn, or chance. `MatchReads` says which name of an expression reads the match, through
the defs it calls too. (A `condition` field is worked out when read, during play: it may.)
"""
from __future__ import annotations

import weakref

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTIN_VALUES
from rulelang.check.dependencies import IMPURE_CALLS, Facts
from rulelang.check.types import type_name
from rulelang.core.errors import Span

#: built-in functions that need a match: chance, and players by seat
MATCH_CALLS = {name: f"chance ({name})" for name in IMPURE_CALLS} | {"player": "the match's players (player)"}
#: kinds of top-level names whose values exist only in a match
MATCH_KINDS = {"var": "the variable", "zone": "the zone", "component": "the cards of", "cards": "the cards of"}


class MatchReads:
    """Which name of an expression needs a match (`first`), for a table of top-level names."""

    def __init__(self, symbols: dict):
        self.symbols = symbols
        self.defs: dict[str, str | None] = {}  # a def -> what it reads of the match (None: nothing)

    def first(self, node, scope: set) -> tuple[Span, str] | None:
        """The span of the first name in `node` that reads the match, and what it reads in words;
        None when it reads nothing of a match. `scope`: names bound around it (not top-level names)."""
        if type(node) is N.Name:  # (most values printed on cards: a member, a row's name)
            what = self.name_reads(node.id, scope)
            return None if what is None else (node.span, what)
        found = Facts(node)
        local = set(scope) | found.bound
        for x, name in found.uses:  # (names, calls' functions, and the names a text's placeholders start with)
            if type(x) is N.Call:
                what = None if name in local else (MATCH_CALLS.get(name) or self.name_reads(name, local))
            else:
                what = self.name_reads(name, local)
            if what is not None:
                return x.span, what
        return None

    def name_reads(self, name: str, local: set) -> str | None:
        if name in local:
            return None
        sym = self.symbols.get(name)
        if sym is None:
            return f'"{name}"' if name in BUILTIN_VALUES else None
        if sym.kind in MATCH_KINDS:
            return f'{MATCH_KINDS[sym.kind]} "{name}"'
        return self.def_reads(name, sym.decl) if sym.kind == "def" else None

    def def_reads(self, name: str, decl) -> str | None:
        if name in self.defs:
            return self.defs[name]
        self.defs[name] = None  # (a def that calls itself: what its other names read decides)
        found = self.first(decl.body, {p.name for p in decl.params}) if isinstance(decl, N.DefDecl) else None
        what = None if found is None else \
            f'def "{name}", which {"calls" if found[1].startswith("def ") else "reads"} {found[1]}'
        self.defs[name] = what
        return what


HINT = ("a deck may be made from written values, enum members, settings, tables and defs of those; "
        "to change cards during play, use rules (in setup, say)")


def check_decks(checker) -> None:
    """Report each expression of a `cards` block, or default of a component's field, that needs a
    match (checker: a `Checker`, which has checked every declaration). A whole-program check: what a
    def reads depends on the defs it calls, which a variant may change; the expressions to look at
    are those `note_deck` kept while the deck's own check walked it (a long deck's cards are walked
    once, and a deck a variant keeps as it is, not again)."""
    reads = MatchReads(checker.t.symbols)
    for d in checker.t.decls:
        if isinstance(d, N.CardsDecl):
            kept = _SUSPECTS.get(id(d))
            if kept is None or kept[0]() is not d:
                suspects: list = []
                for e in d.entries:
                    note_entry(checker, e, {g.var for g in e.gens}, suspects)
                kept = (None, suspects)
            for x, names in kept[1]:
                found = reads.first(x, names)
                if found is not None:
                    checker.err(found[0], f'the cards of "{d.name}" are made when the game is loaded, before any '
                                f"match, so they cannot depend on {found[1]}", hint=HINT)
        elif isinstance(d, N.ComponentDecl):
            for f in d.fields:
                if f.default is None or type_name(f.type) == "condition":
                    continue
                found = reads.first(f.default, set())
                if found is not None:
                    checker.err(found[0], f'the default of field "{f.name}" is printed on {d.name} cards when they '
                                f"are made, as the game is loaded, before any match, so it cannot depend on "
                                f"{found[1]}", hint=HINT)


#: id of a `cards` declaration -> (a weak reference to it, the expressions of it that may read a match,
#: with the names bound around each), as note_deck kept them (a long-lived process, the language
#: server, does not keep old decks alive by them)
_SUSPECTS: dict[int, tuple] = {}


def note_entry(checker, e: N.CardEntry, scope: set, suspects: list) -> None:
    """Called by the deck's own check for each of its cards (`e`, in `scope`) just checked: its `for`
    clauses' lists and the values printed on it that may read a match, added to `suspects`."""
    if e.gens:
        names: set[str] = set()
        for g in e.gens:
            suspects.append((g.coll, names))
            names = names | {g.var}
    printed = checker.deck_fields.get(e.ctor.component)
    if printed is None:
        comp = checker.t.components.get(e.ctor.component)
        if comp is None:
            return  # (not a component: said already, and which fields are conditions is not known)
        printed = checker.deck_fields[e.ctor.component] = \
            {f.name for f in comp.fields if type_name(f.type) != "condition"}
    symbols = checker.t.symbols
    for a in e.ctor.args:
        x = a.value
        kind = type(x)  # (_plain, written out for the usual values: a deck of 50,000 cards has 200,000 of them)
        if kind is _NAME:
            sym = symbols.get(x.id)
            if (sym.kind in _PLAIN_KINDS if sym is not None else x.id not in BUILTIN_VALUES) or x.id in scope:
                continue
        elif kind is _INT or (kind is _TEXT and "{" not in x.value):
            continue
        if a.name in printed and not _plain(x, scope, symbols):  # (a field it has not: said already)
            suspects.append((x, scope))


def note_deck(d: N.CardsDecl, suspects: list) -> None:
    if len(_SUSPECTS) > 1000:
        _SUSPECTS.clear()
    _SUSPECTS[id(d)] = (weakref.ref(d), suspects)


_NAME, _INT, _TEXT = N.Name, N.IntLit, N.StrLit
#: the kinds of top-level names that read nothing of a match whatever a variant changes elsewhere
_PLAIN_KINDS = frozenset({"member", "enum", "setting", "table", "keyword", "phase"})


def _plain(x, scope: set, symbols: dict) -> bool:
    """Whether x is a value written out that reads nothing of a match for sure (most values of a long
    deck: numbers, texts, members, lists of them), told without walking it as `first` does."""
    kind = type(x)
    if kind is N.Name:
        name = x.id
        if name in scope:
            return True
        sym = symbols.get(name)
        return sym.kind in _PLAIN_KINDS if sym is not None else name not in BUILTIN_VALUES
    if kind is N.StrLit:
        return "{" not in x.value
    if kind is N.ListLit:
        return all(_plain(item, scope, symbols) for item in x.items)
    return kind in (N.IntLit, N.BoolLit, N.NoneLit)
