"""The static checker: every name, call and statement of a game, checked before play.

It builds the ``SymbolTable`` (what each top-level name means) that the compiler
uses too, then walks every declaration and reports every problem at once:
undefined names (with "did you mean"), wrong arity, attributes no component has,
values of the wrong kind, unreachable phases, and keywords or variants that refer
to nothing.

The table itself is ``check/symbols.py``. The checks of expressions and statements are parts of
``Checker`` in ``check/expressions.py`` and ``check/statements.py``; ``check/types.py`` holds the
words for types they share.
"""
from __future__ import annotations

import re

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS
from rulelang.core.errors import DiagnosticBag, Span, did_you_mean
from rulelang.language.variants import apply_variants
from rulelang.check.symbols import Symbol, SymbolTable
from rulelang.check.types import (_TYPE_WORDS, ENTITY_BUILTIN_ATTRS, compatible, describe_type, never_alike,
                                  type_name, written_whole_number)
from rulelang.language.nodes import BASE_TYPES
from rulelang.check.expressions import ExpressionChecks
from rulelang.check.statements import StatementChecks
from rulelang.check.decks import check_decks, note_deck, note_entry


MOST_COVERED = 64  # the most cells one piece may cover


def covers_shape(x) -> tuple[tuple | None, str | None]:
    """The shape of `covers EXPR`: (offsets from its first cell, None), or (None, what is wrong).
    `covers N` is N cells in a row; `covers [(0, 0), (1, 0), (0, 1)]` the cells of that shape."""
    whole = written_whole_number
    if isinstance(x, N.IntLit):
        if not 1 <= x.value <= MOST_COVERED:
            return None, f"a piece covers from 1 to {MOST_COVERED} cells, not {x.value}"
        return tuple((i, 0) for i in range(x.value)), None
    if not isinstance(x, N.ListLit):
        return None, "`covers` takes a number of cells in a row or a list of cells written out"
    cells = []
    for item in x.items:
        cell = (whole(item.a), whole(item.b)) if isinstance(item, N.CellLit) else (None,)
        if None in cell:
            return None, "each cell of a piece's shape is a pair of whole numbers, as (1, 0)"
        cells.append(cell)
    if not cells or len(cells) > MOST_COVERED:
        return None, f"a piece covers from 1 to {MOST_COVERED} cells, not {len(cells)}"
    if len(set(cells)) < len(cells):
        return None, "the shape names a cell twice"
    x0, y0 = cells[0]
    shape = tuple((a - x0, b - y0) for a, b in cells)
    # its cells must touch (side by side on a square grid; a hex map's shape is checked when laid)
    seen, todo = {shape[0]}, [shape[0]]
    while todo:
        cx, cy = todo.pop()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
            o = (cx + dx, cy + dy)
            if o in shape and o not in seen:
                seen.add(o)
                todo.append(o)
    if len(seen) < len(shape):
        return None, "the cells of a piece's shape must touch one another: this shape falls apart"
    return shape, None


class DataFiles:
    """The column names of the data files of `table`s, each file read once per check: the base game and
    every variant ask for the same files, twice each (for the field names and to report unreadable files)."""

    def __init__(self):
        self._columns: dict[tuple, list[str] | Exception] = {}
        self.paths: list = []  # every data file read (`verdicts` keeps a check's answer by them)

    def columns(self, name: str, rules_file: str) -> list[str]:
        """The column names of data file `name` (beside rules_file); raises TableError as read_table does."""
        from rulelang.language.tables import TableError, read_table, table_path

        key = (name, rules_file)
        if key not in self._columns:
            self.paths.append(table_path(name, rules_file))
            try:
                self._columns[key] = read_table(name, rules_file)[0]
            except TableError as exc:
                self._columns[key] = exc
        columns = self._columns[key]
        if isinstance(columns, Exception):
            raise columns
        return columns


# the declarations whose name is a symbol of one kind and type
_NAMED_KINDS = {N.CardsDecl: ("cards", "any"), N.ZoneDecl: ("zone", "zone"), N.DefDecl: ("def", "any"),
                N.ProcDecl: ("proc", "any"), N.KeywordDecl: ("keyword", "keyword"), N.PhaseDecl: ("phase", "str"),
                N.TableDecl: ("table", "list:any")}
_KIND_WORDS = {"cards": "card set", "var": "variable", "proc": "procedure", "member": "choice or enum member"}


def build_symbols(decls: list, bag: DiagnosticBag, data_files: DataFiles | None = None) -> SymbolTable:
    table = SymbolTable(decls=decls)
    data_files = data_files or DataFiles()

    def define(name: str, sym: Symbol, span: Span):
        if name in BUILTINS or name in SPECIAL_FUNCS or name in BUILTIN_VALUES:
            bag.error(span, f'"{name}" is a built-in name of the language and cannot be declared again',
                      hint="choose another name")
            table.refused.add(name)
            return
        if name in table.symbols:
            other = table.symbols[name]
            where = getattr(other.decl, "span", None)
            kinds = {other.kind, sym.kind}
            if len(kinds) == 2 and "phase" in kinds:
                if sym.kind == "phase":
                    table.clashing_phases.add(name)
                other_kind = next(iter(kinds - {"phase"}))
                bag.error(span, f'"{name}" names both a {_KIND_WORDS.get(other.kind, other.kind)}'
                          + (f" (line {where.line})" if where else "")
                          + f" and a {_KIND_WORDS.get(sym.kind, sym.kind)}: a name can be given only once",
                          hint=f'rename the {_KIND_WORDS.get(other_kind, other_kind)}, such as to "{name}_{other_kind}"')
                return
            bag.error(span, f'"{name}" is declared twice' + (f" (first at line {where.line})" if where else ""))
            return
        table.symbols[name] = sym

    for d in decls:
        if isinstance(d, N.GameDecl):
            if table.game is not None:
                bag.error(d.span, "a file declares the game only once")
            table.game = d
        elif isinstance(d, N.EnumDecl):
            define(d.name, Symbol("enum", d, d.name), d.span)
            for m in d.members:
                define(m, Symbol("member", d, d.name), d.span)
        elif isinstance(d, N.ComponentDecl):
            define(d.name, Symbol("component", d, f"entity:{d.name}"), d.span)
            table.components[d.name] = d
        elif isinstance(d, N.PlayerDecl):
            for f in d.fields:
                table.player_fields[f.name] = f
        elif type(d) in _NAMED_KINDS:
            kind, ty = _NAMED_KINDS[type(d)]
            define(d.name, Symbol(kind, d, ty), d.span)
        elif isinstance(d, N.VarDecl):
            define(d.name, Symbol("var", d, type_name(d.type)), d.span)
        elif isinstance(d, N.SettingDecl):
            define(d.name, Symbol("setting", d, _constant_kind(d.default) if not d.choices else "any"), d.span)
            for choice in d.choices:
                define(choice, Symbol("member", d, f"setting:{d.name}"), d.span)
    # the columns of data files are field names (`row.q`); unreadable files are reported later
    for d in [t for t in decls if isinstance(t, N.TableDecl)]:
        from rulelang.language.tables import TableError

        name = table.table_file(d.source)
        if not name:  # (reported later: the table names no file)
            table.table_columns_unread = True
        else:
            try:
                table.table_columns.update(data_files.columns(name, d.span.file))
            except TableError as exc:  # (its header may have been read: a later line is wrong)
                if exc.columns is None:
                    table.table_columns_unread = True
                table.table_columns.update(exc.columns or ())
    if table.game is None:
        bag.error(Span(file=decls[0].span.file if decls else "<rules>", line=1, column=1),
                  'the file has no `game "Name" { ... }` declaration')
    return table


def _constant_kind(x) -> str:
    """The kind of a setting's constant value: "int", "str" or "bool" (a member, a list or none: "any")."""
    if isinstance(x, N.IntLit) or (isinstance(x, N.Neg) and isinstance(x.operand, N.IntLit)):
        return "int"
    if isinstance(x, N.BinOp) and _constant_kind(x.left) == _constant_kind(x.right) == "int":
        return "int"
    if isinstance(x, N.StrLit):
        return "str"
    if isinstance(x, N.BoolLit):
        return "bool"
    return "any"


# the declarations that are a block of statements, and where those run
_BODY_CONTEXT = {N.ProcDecl: "proc", N.SetupDecl: "setup", N.ResultDecl: "result", N.AlwaysDecl: "always"}


class Checker(StatementChecks, ExpressionChecks):
    def __init__(self, table: SymbolTable, bag: DiagnosticBag, data_files: DataFiles | None = None):
        self.t = table
        self.local_types: dict[str, str] = {}  # a local name's type where it is sure (stmt_for), else "any"
        self.error_lines: set = set()  # (file, line) of each problem reported (said_on_this_line)
        self.bag = bag
        self.data_files = data_files or DataFiles()
        self._ctor_plans: dict[str, tuple] = {}
        self._attr_types: dict[tuple[str, str], str] = {}
        self.phase_refs: set[str] = set()
        self.signals_sent: dict[str, list] = {}  # a signal's name -> (its values, the span) of each `signal`
        self.signals_heard: dict[str, list] = {}  # a signal's name -> (its parameters, the span) of each trigger
        self.deck_fields: dict[str, set] = {}  # a component -> its fields but conditions (check_decks)

    # ---- helpers
    def err(self, span, msg, expected=None, hint=None, fold=None):
        self.bag.error(span, msg, expected, hint, fold)
        self.error_lines.add((span.file, span.line))

    def said_on_this_line(self, span) -> bool:
        """A problem was already reported on this line: a bare value after it on the line (`perform on
        boost c` reads as `perform on`, then `boost` and `c`) follows from that one, and is not said again."""
        return (span.file, span.line) in self.error_lines

    def check_type_ref(self, t: N.TypeRef):
        if t.list_of is not None:
            self.check_type_ref(t.list_of)
            return
        if t.per is not None:  # `int per Gem`: a whole number for each member of an enum
            if self.t.kind(t.per) != "enum":
                self.err(t.span, f'"{t.per}" is not an enum, so "{t}" has no members to hold a value for',
                         expected="the name of an enum, as in `int per Gem`",
                         hint=did_you_mean(t.per, self.t.names("enum")))
            if t.name != "int":
                self.err(t.span, f'a value per member of an enum is a whole number, not {describe_type(t.name)}',
                         expected=f"int per {t.per}",
                         hint="for true or false per member, use 0 and 1; for anything else, one field per member")
            return
        if t.name in BASE_TYPES or t.name in self.t.components or self.t.kind(t.name) == "enum":
            return
        known = BASE_TYPES | set(self.t.components) | set(self.t.names("enum"))
        named = _TYPE_WORDS.get(t.name.lower())
        hint = f'{named[1]} is written `{named[0]}`' if named else did_you_mean(t.name, known)
        if self.t.kind(t.name) == "keyword":  # (a keyword named as the type of a field that holds it)
            hint = f'"{t.name}" is a keyword: a field of keywords has the type `keyword` or `list of keyword`, ' \
                   f'and a card gives its own: `abilities: [{t.name}]`'
        self.err(t.span, f'"{t.name}" is not a type', expected="int, bool, str, player, cell, keyword, condition, card, zone, "
                 "a component name, an enum name or `list of T`", hint=hint)

    def current_in_setup(self, body: list):
        """`current` in the setup, outside a `take turns`: nobody is taking a turn yet, so it is none
        (said once, at its first use). (A choice there without `by PLAYER` is said by `no_choice_in`.)"""
        todo = list(reversed(body))
        while todo:
            x = todo.pop()
            if isinstance(x, N.TakeTurns):
                continue  # (there it is the player whose turn it is)
            if isinstance(x, N.Name) and x.id == "current":
                self.err(x.span, "nobody is taking a turn during setup, so `current` is none here",
                         hint="to do it for each player write `for p in players { ... }`; inside "
                              "`take turns { ... }`, `current` is the player whose turn it is")
                return
            if isinstance(x, N.Node):
                todo.extend(reversed(list(x.__dict__.values())))
            elif isinstance(x, (list, tuple)):
                todo.extend(reversed(x))

    def check_zone_count(self, d: N.ZoneDecl):
        """`zone display[2 * player_count + 1]`: a whole number the player count and the settings fix
        (it is worked out when the match is set up, before anything else happens)."""
        from rulelang.language.nodes import nodes_in

        if d.per_player:
            self.err(d.span, f'"{d.name}" is either a family of zones ([...]) or one zone per player, not both',
                     hint=f"for several zones per player, give players a list, or write zone {d.name}[...] "
                          "with a count that includes player_count")
        ty = self.expr(d.count, set())
        if ty not in ("int", "any"):
            self.err(d.count.span, f"the number of {d.name} zones is a whole number, but this is {describe_type(ty)}")
        allowed_calls = {"min", "max", "abs"}
        fixed_by = (f"the number of {d.name} zones is worked out when the match is set up, from the player count "
                    "and the settings only")
        expected = "numbers, player_count, settings, + - * / and min, max, abs"
        for x in nodes_in(d.count):
            if isinstance(x, N.Name) and x.id != "player_count" and (
                    self.t.kind(x.id) not in ("setting", None) or x.id in BUILTIN_VALUES):
                self.err(x.span, f'{fixed_by}, so it cannot read "{x.id}"', expected=expected)
            elif isinstance(x, N.Call) and (x.func not in allowed_calls or x.func in self.t.symbols):
                self.err(x.span, f"{fixed_by}, so it cannot call {x.func}()", expected=expected)

    def typed(self, t: N.TypeRef, default):
        """A field's or a var's type and default, checked; a map's default (`int per Gem = {red: 1}`) must be
        one of that enum."""
        self.check_type_ref(t)
        if default is None:
            return
        ty = self.expr(default, set())
        want = type_name(t)
        if want in ("keyword", "list:keyword"):
            self.keyword_values(default)
        items = default.items if isinstance(default, N.ListLit) and want.startswith("list:") else ()
        literal = {N.IntLit: "int", N.StrLit: "str", N.BoolLit: "bool"}  # (a list's items: their types, unchecked again)
        for x, got in [(default, ty)] + [(x, literal[type(x)]) for x in items if type(x) in literal]:
            expected = want if x is default else want[5:]
            if never_alike(expected, got):
                self.err(x.span, f"this default should be {describe_type(expected)}, but it is {describe_type(got)}",
                         expected=describe_type(expected))
                break
        if want.startswith("map:") and not compatible(want, ty, self.t):
            self.err(default.span, f"this default should be {describe_type(want)}, but it is {describe_type(ty)}",
                     expected="{member: number, ...} with members of " + want[4:])

    # ---- whole program
    def run(self):
        """Check every declaration, then the whole program."""
        t = self.t
        for d in t.decls:
            self.check_decl(d)
        check_decks(self)  # (of the whole program: a deck reads what the defs it names read, and theirs)
        game = t.game
        if game is not None:
            phases = {n for n, s in t.symbols.items() if s.kind == "phase"}
            seen = set()
            for name, span in zip(game.round_phases, game.round_spans):
                if name not in phases and name not in t.clashing_phases:  # (a clash is said at the phase)
                    self.err(span, f'the round lists "{name}", but no phase has that name',
                             hint=did_you_mean(name, phases))
                if name in seen:
                    self.err(span, f'the round lists phase "{name}" twice')
                seen.add(name)
            for name in sorted(phases - seen - self.phase_refs):
                decl = t.symbols[name].decl
                self.err(decl.span, f'phase "{name}" can never be reached: it is not in the game\'s `round:` list',
                         hint="add it to `round: ...` in the game declaration, or remove it")
            if game.players_min < 1 or game.players_max < game.players_min:
                self.err(game.span, f"the player count {game.players_min}..{game.players_max} is empty")
            if game.players_default is not None and not game.players_min <= game.players_default <= game.players_max:
                self.err(game.span, f"the default player count {game.players_default} is outside {game.players_min}..{game.players_max}")
            if game.max_rounds is not None and game.max_rounds < 1:
                self.err(game.span, f"`max rounds {game.max_rounds}` ends the game before its first round",
                         expected="a round limit of 1 or more", hint="remove the line for no limit")
        for name, heard in self.signals_heard.items():
            if name not in self.signals_sent:
                self.err(heard[0][1], f'nothing ever signals "{name}", so this trigger never runs',
                         hint=f"send it with `signal {name}(...)` or remove the trigger")
            for params, at in heard:  # each trigger's parameters are the values each signal gives
                for values, span in self.signals_sent.get(name, ()):
                    if values != len(params):
                        self.err(span, f'signal "{name}" gives {values} value{"s" if values != 1 else ""}, but '
                                 f"its trigger at line {at.line} takes {len(params)}",
                                 expected=f"signal {name}({', '.join(params)})")

    def check_decl(self, d):
        if isinstance(d, N.ComponentDecl):
            names = set()
            for f in d.fields:
                if f.name in names:
                    self.err(f.span, f'component {d.name} declares field "{f.name}" twice')
                names.add(f.name)
                if f.name in ENTITY_BUILTIN_ATTRS:
                    self.err(f.span, f'"{f.name}" is a built-in property of every card; choose another field name')
                self.typed(f.type, f.default)
            if d.colour_by is not None and d.colour_by not in names:
                self.err(d.colour_by_span or d.span, f'{d.name} has no field "{d.colour_by}" to colour its cards by',
                         expected=f"a field of {d.name}: {', '.join(sorted(names)) or 'none'}",
                         hint=did_you_mean(d.colour_by, names))
            self.expect_zone(d.discards_to, {"self"})
            if d.covers is not None:
                _shape, problem = covers_shape(d.covers)
                if problem is not None:
                    self.err(d.covers.span, problem, expected="covers 2, or covers [(0, 0), (1, 0), (0, 1)]")
            for text in filter(None, (d.label, d.back)):
                self.check_label(text, d, d.span)
            for case in d.labels_if:
                self.check_label_case(case, d)
        elif isinstance(d, N.PlayerDecl):
            for f in d.fields:
                self.typed(f.type, f.default)
        elif isinstance(d, N.CardsDecl):
            if d.zone is not None:
                zsym = self.zone_decl_of(d.zone)
                if zsym is None:
                    # cards are placed before play starts, so where they start is a zone by name
                    errors = self.bag.reported
                    self.expect_zone(d.zone, set())
                    if self.bag.reported == errors:
                        self.err(d.zone.span, f'cards "{d.name}" must start in a zone named here',
                                 expected="a zone such as `deck`, or `hand(player(1))`",
                                 hint="leave out `in ...` to create the cards later with `create` in setup")
                elif not zsym.per_player or isinstance(d.zone, N.Call):
                    # a per-player zone with its player named, `in deck(player(1))`, is one zone
                    self.expect_zone(d.zone, set())
                elif zsym is not None and zsym.per_player:
                    self.err(d.zone.span, f'cards cannot start in "{zsym.name}", which each player has',
                             hint=f"leave out `in ...` and use `create {d.name} in {zsym.name}(p)` in setup")
            suspects: list = []  # (what may read a match: check_decks, with the whole program)
            for e in d.entries:
                scope = set()
                for g in e.gens:
                    self.expr(g.coll, scope)
                    scope = scope | {g.var}
                self.card_ctor(e.ctor, scope)
                note_entry(self, e, scope, suspects)
            note_deck(d, suspects)
        elif isinstance(d, N.ZoneDecl):
            if d.board is not None and d.board.places is not None:
                self.check_places(d)
            if d.layer_of is not None:
                self.check_layer(d)
            if d.count is not None:
                self.check_zone_count(d)
        elif isinstance(d, N.VarDecl):
            self.typed(d.type, d.default)
        elif isinstance(d, N.SettingDecl):
            if d.choices and not (isinstance(d.default, N.Name) and d.default.id in d.choices):
                self.err(d.default.span, f'the default of setting "{d.name}" must be one of its choices',
                         expected=" | ".join(d.choices), hint=did_you_mean(getattr(d.default, "id", ""), d.choices))
            elif self.constant_value(d.default, f'the default of setting "{d.name}"'):
                self.expr(d.default, set())
        elif isinstance(d, N.TableDecl):
            self.table_source(d)
        elif isinstance(d, N.DefDecl):
            kind = self.expr(d.body, {p.name for p in d.params})
            if d.name == "heuristic" and (len(d.params) != 1 or kind not in ("int", "bool", "any")):
                # the bots ask it of one player at a time, and add up what it gives
                self.err(d.span, "`def heuristic(p)` tells the bots how well a player stands: it takes one player "
                         + ("and gives a number" if len(d.params) == 1 else f"(not {len(d.params)} values)")
                         + (f", but this gives {describe_type(kind)}" if kind not in ("int", "bool", "any") else ""))
        elif type(d) in _BODY_CONTEXT:
            scope = {p.name for p in d.params} if isinstance(d, N.ProcDecl) else set()
            self.block(d.body, scope, ctx={_BODY_CONTEXT[type(d)]})
            if isinstance(d, N.SetupDecl):
                self.current_in_setup(d.body)
        elif isinstance(d, N.KeywordDecl):
            scope = {"self"} | {p.name for p in d.params}
            self.expr(d.usable, scope)
            self.block(d.effect, scope, ctx={"proc"})
            for trig in d.triggers:
                self.trigger(trig, scope)
            for a in d.always:  # (a keyword with none of these is a marker: rules test it with has(card, name))
                self.block(a.body, scope, ctx={"always"})
        elif isinstance(d, N.PhaseDecl):
            self.expr(d.unless, set())
            self.block(d.body, set(), ctx={"phase"})
        elif isinstance(d, N.TriggerDecl):
            self.trigger(d, set())
        elif isinstance(d, N.SetSetting):
            sym = self.t.symbols.get(d.name)
            if sym is None or sym.kind != "setting":
                self.err(d.span, f'"{d.name}" is not a setting', hint=did_you_mean(d.name, self.t.names("setting")))
            else:
                choices = sym.decl.choices
                if choices and not (isinstance(d.value, N.Name) and d.value.id in choices):
                    self.err(d.value.span, f'"{getattr(d.value, "id", "this")}" is not one of the options of setting "{d.name}"',
                             expected=" | ".join(choices), hint=did_you_mean(getattr(d.value, "id", ""), choices))
                elif self.constant_value(d.value, f'the value of setting "{d.name}"'):
                    self.expr(d.value, set())
                    kind = _constant_kind(d.value)
                    if "any" not in (kind, sym.type) and kind != sym.type:
                        self.err(d.value.span, f'setting "{d.name}" holds {describe_type(sym.type)}, as its default '
                                               f'does, not {describe_type(kind)}', expected=describe_type(sym.type))

    def constant_value(self, e, what: str) -> bool:
        """Settings are chosen before the match exists, so their values are plain constants."""
        def constant(x) -> bool:
            if isinstance(x, (N.IntLit, N.StrLit, N.BoolLit, N.NoneLit)):
                return True
            if isinstance(x, N.Name):  # an enum member or a setting's choice
                return self.t.kind(x.id) == "member"
            if isinstance(x, N.Neg):
                return constant(x.operand)
            if isinstance(x, N.BinOp):
                return constant(x.left) and constant(x.right)
            if isinstance(x, N.ListLit):
                return all(constant(i) for i in x.items)
            return False
        if constant(e):
            return True
        errors = self.bag.reported
        self.expr(e, set())
        if self.bag.reported > errors:  # an unknown name or a wrong call says more than "not a constant"
            return False
        self.err(e.span, f"{what} must be a constant: settings are chosen before the match starts",
                 expected="a number, a text, true or false")
        return False

    def trigger(self, d: N.TriggerDecl, scope: set):
        scope = set(scope)
        if d.kind in ("enter", "leave"):
            if self.t.kind(d.zone) != "zone":
                self.err(d.span, f'"{d.zone}" is not a zone', hint=did_you_mean(d.zone, self.t.names("zone")))
            scope.add(d.var)
        elif d.kind == "signal":
            scope.update(d.params)
            self.signals_heard.setdefault(d.signal, []).append((d.params, d.span))
        elif d.kind == "at" and d.phase is not None:
            if d.timing != "phase":
                self.err(d.span, "only `at start of phase NAME` / `at end of phase NAME` take a name")
            elif self.t.kind(d.phase) != "phase":
                self.err(d.span, f'"{d.phase}" is not a phase', hint=did_you_mean(d.phase, self.t.names("phase")))
        self.expr(d.cond, scope)
        # at the start of the game no round runs yet; at its end nothing runs but the ending (stmt_end)
        when = {"start": "game_start", "end": "game_end"}[d.when] if d.kind == "at" and d.timing == "game" else None
        self.block(d.body, scope, ctx={"trigger", when} if when else {"trigger"})


def _check(rules: N.RulesFile, variants: list[str], bag: DiagnosticBag, data_files: DataFiles) -> SymbolTable:
    """The game with these variants, checked: its declarations, then the settings its variants set."""
    decls, settings = apply_variants(rules, variants, bag)
    table = build_symbols(decls, bag, data_files)
    checker = Checker(table, bag, data_files)
    checker.run()
    for s in settings:
        checker.check_decl(s)
    return table


def check_rules(rules: N.RulesFile, variants: list[str] | None = None, all_variants: bool = False,
                data_files: DataFiles | None = None) -> SymbolTable:
    """Check the base game (with the given variants); with all_variants, each variant too, whole.
    Raises RulesError. `data_files` (given) tells afterwards which data files the check read."""
    bag = DiagnosticBag()
    data_files = data_files if data_files is not None else DataFiles()
    table = _check(rules, variants or [], bag, data_files)
    if all_variants:
        # a problem of the base game is said once, not again for each variant; "(first at line N)" may
        # differ there (a variant's `replace` stands where the base declaration stood)
        def key(d):
            return d.span.line, d.span.column, re.sub(r" \(first at line \d+\)", "", d.message)

        seen = {key(d) for d in bag.items}
        # a message that names its thing ('phase "play" can never be reached') is the same problem wherever
        # a variant moves the declaration (`replace phase play` reports it again at the replacement)
        named = {key(d)[2] for d in bag.items if '"' in d.message}
        for name in rules.variants():
            vbag = DiagnosticBag()
            _check(rules, [name], vbag, data_files)
            for d in vbag.items:
                k = key(d)
                if k not in seen and k[2] not in named:
                    seen.add(k)
                    if '"' in d.message:
                        named.add(k[2])
                    d.message = f"{d.message} (in variant {name})"
                    bag.items.append(d)
    for d in rules.decls:
        if isinstance(d, N.SetSetting):
            bag.error(d.span, "`set NAME = value` belongs inside a variant")
    for d in bag.items:  # a problem of the whole file (no declarations at all) still names the file
        if d.span.file == "<rules>" and rules.path:
            d.span = d.span.model_copy(update={"file": rules.path})
    bag.raise_if_any()
    return table
