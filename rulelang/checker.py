"""The static checker: every name, call and statement of a game, checked before play.

It builds the ``SymbolTable`` (what each top-level name means) that the compiler
uses too, then walks every declaration and reports every problem at once:
undefined names (with "did you mean"), wrong arity, attributes no component has,
values of the wrong kind, unreachable phases, and keywords or variants that refer
to nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import nodes as N
from .builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS
from .dependencies import TEMPLATE_NAMES, nodes_in
from .geometry import BOARD_FUNCTIONS, EDGE_NAMES
from .errors import DiagnosticBag, Span, did_you_mean, source_line
from .variants import apply_variants

BASE_TYPES = {"int", "bool", "str", "player", "cell", "keyword", "condition", "zone", "any", "card"}
ENTITY_BUILTIN_ATTRS = {"owner", "zone", "cell", "place", "face_down", "component", "id"}
PLAYER_BUILTIN_ATTRS = {"seat"}
ZONE_BUILTIN_ATTRS = {"size", "owner"}
STATEMENT_ONLY_IN_SETUP = {"create"}
BUILTIN_VALUE_TYPES = {"players": "list:player", "round": "int", "current": "player", "phase": "str",
                       "player_count": "int", "all_players": "list:player", "eliminated": "list:player"}
# "{p} draws {c.point}": a text shows names and fields in braces
SHOWN_ANYTHING = re.compile(r"\{([^{}]*)\}")
SHOWN_NAME_ONLY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass
class Symbol:
    kind: str  # var, setting, enum, member, zone, component, cards, def, proc, keyword, phase
    decl: object
    type: str = "any"


@dataclass
class SymbolTable:
    symbols: dict[str, Symbol] = field(default_factory=dict)
    components: dict[str, N.ComponentDecl] = field(default_factory=dict)
    player_fields: dict[str, N.FieldDecl] = field(default_factory=dict)
    settings: dict[str, object] = field(default_factory=dict)
    game: N.GameDecl | None = None
    decls: list = field(default_factory=list)
    table_columns: set = field(default_factory=set)  # the column names of the data files of `table`s
    # a table's file whose header could not be read: any field name may be one of its columns, so
    # `row.q` is not refused (the file is reported once, at its table)
    table_columns_unread: bool = False
    refused: set = field(default_factory=set)  # names declared again over a built-in's (said once, there)

    def kind(self, name: str) -> str | None:
        sym = self.symbols.get(name)
        return sym.kind if sym else None

    def all_fields(self) -> set[str]:
        out = set(self.table_columns)
        for comp in self.components.values():
            out.update(f.name for f in comp.fields)
        return out

    def enum_of_member(self, name: str) -> str | None:
        sym = self.symbols.get(name)
        return sym.type if sym and sym.kind == "member" else None


class DataFiles:
    """The column names of the data files of `table`s, each file read once per check: the base game and
    every variant ask for the same files, twice each (for the field names and to report unreadable files)."""

    def __init__(self):
        self._columns: dict[tuple, list[str] | Exception] = {}
        self.paths: list = []  # every data file read (`verdicts` keeps a check's answer by them)

    def columns(self, name: str, rules_file: str) -> list[str]:
        """The column names of data file `name` (beside rules_file); raises TableError as read_table does."""
        from .tables import TableError, read_table, table_path

        key = (name, rules_file)
        if key not in self._columns:
            path = table_path(name, rules_file)
            self.paths.append(path)
            try:
                self._columns[key] = read_table(path, name)[0]
            except TableError as exc:
                self._columns[key] = exc
        columns = self._columns[key]
        if isinstance(columns, Exception):
            raise columns
        return columns


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
            bag.error(span, f'"{name}" is declared twice' + (f" (first at line {where.line})" if where else ""))
            return
        table.symbols[name] = sym

    tables = []
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
        elif isinstance(d, N.CardsDecl):
            define(d.name, Symbol("cards", d), d.span)
        elif isinstance(d, N.ZoneDecl):
            define(d.name, Symbol("zone", d, "zone"), d.span)
        elif isinstance(d, N.VarDecl):
            define(d.name, Symbol("var", d, type_name(d.type)), d.span)
        elif isinstance(d, N.SettingDecl):
            define(d.name, Symbol("setting", d, _constant_kind(d.default) if not d.choices else "any"), d.span)
            for choice in d.choices:
                define(choice, Symbol("member", d, f"setting:{d.name}"), d.span)
        elif isinstance(d, N.DefDecl):
            define(d.name, Symbol("def", d), d.span)
        elif isinstance(d, N.ProcDecl):
            define(d.name, Symbol("proc", d), d.span)
        elif isinstance(d, N.KeywordDecl):
            define(d.name, Symbol("keyword", d, "keyword"), d.span)
        elif isinstance(d, N.PhaseDecl):
            define(d.name, Symbol("phase", d, "str"), d.span)
        elif isinstance(d, N.TableDecl):
            define(d.name, Symbol("table", d, "list:any"), d.span)
            tables.append(d)
    for d in tables:  # the columns of data files are field names (`row.q`); unreadable files are reported later
        from .tables import TableError

        src = d.source
        name = src.value if isinstance(src, N.StrLit) else None
        if isinstance(src, N.Name) and table.kind(src.id) == "setting":
            default = table.symbols[src.id].decl.default
            name = default.value if isinstance(default, N.StrLit) else None
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


class _PlacesInText:
    """Where each `{...}` of a text stands in its source line, in order, so a diagnostic about one
    points at it rather than at the whole text; the text's own span when it cannot be found there
    (a text over several lines, or an escape before it)."""

    def __init__(self, span: Span):
        self.span = span
        line = source_line(span.file, span.line) if span.line > 0 and span.column > 0 else None
        self.raw = line[span.column - 1:] if line is not None and line[span.column - 1:span.column] == '"' else None
        self.at = 1

    def span_of(self, shown: str) -> Span:
        """The span of the name in braces `shown` (the next one found), without its braces."""
        if self.raw is None:
            return self.span
        index = self.raw.find(shown, self.at)
        if index < 0:
            return self.span
        self.at = index + len(shown)
        column = self.span.column + index + 1
        return Span(file=self.span.file, line=self.span.line, column=column, end_line=self.span.line,
                    end_column=column + len(shown) - 2)


def _label_name_span(span: Span, name: str) -> Span | None:
    """Where `{name}` stands in the `label "..."` line of the component declared at `span` (None when the
    label cannot be found in the source: the diagnostic then points at the component)."""
    if span.line <= 0:
        return None
    for line in range(span.line, max(span.end_line, span.line) + 1):
        text = source_line(span.file, line)
        if text is None:
            return None
        label = re.search(r'\blabel\s*"', text if line > span.line else text[max(span.column - 1, 0):])
        if label is None:
            continue
        start = (0 if line > span.line else max(span.column - 1, 0)) + label.end()
        at = text.find("{" + name + "}", start)
        if at >= 0:
            return Span(file=span.file, line=line, column=at + 2, end_line=line, end_column=at + 2 + len(name))
    return None


# built-ins (besides geometry's BOARD_FUNCTIONS) whose first value is a board
ON_A_BOARD = ("at", "top_at", "has_room")


def _not_a_board(ty: str) -> bool:
    """A value's checked type that can never be a board (a player, a number, a card, a list...)."""
    return ty in ("player", "int", "str", "bool", "keyword") or ty.startswith(("list:", "entity", "sym:"))


# what a designer may call a type, as the messages do ("a text"), and how the language writes it
_TYPE_WORDS = {"text": ("str", "a text"), "string": ("str", "a text"), "number": ("int", "a whole number"),
               "integer": ("int", "a whole number"), "boolean": ("bool", "true or false"),
               "players": ("list of player", "a list of players"), "cards": ("list of card", "a list of cards")}


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


def type_name(t: N.TypeRef | None) -> str:
    if t is None:
        return "any"
    if t.list_of is not None:
        return "list:" + type_name(t.list_of)
    return t.name


class Checker:
    def __init__(self, table: SymbolTable, bag: DiagnosticBag, data_files: DataFiles | None = None):
        self.t = table
        self.local_types: dict[str, str] = {}  # a local name's type where it is sure (stmt_for), else "any"
        self.error_lines: set = set()  # (file, line) of each problem reported (said_on_this_line)
        self.bag = bag
        self.data_files = data_files or DataFiles()
        self._ctor_plans: dict[str, tuple] = {}
        self._attr_types: dict[tuple[str, str], str] = {}
        self.phase_refs: set[str] = set()
        self.signals_sent: set[str] = set()
        self.signals_heard: dict[str, Span] = {}

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
        if t.name in BASE_TYPES or t.name in self.t.components:
            return
        sym = self.t.symbols.get(t.name)
        if sym and sym.kind == "enum":
            return
        known = BASE_TYPES | set(self.t.components) | {n for n, s in self.t.symbols.items() if s.kind == "enum"}
        named = _TYPE_WORDS.get(t.name.lower())
        hint = f'{named[1]} is written `{named[0]}`' if named else did_you_mean(t.name, known)
        self.err(t.span, f'"{t.name}" is not a type', expected="int, bool, str, player, cell, keyword, condition, card, zone, "
                 "a component name, an enum name or `list of T`", hint=hint)

    # ---- whole program
    def run(self, notes: dict | None = None, unchanged: dict | None = None):
        """Check every declaration, then the whole program. With notes, what each declaration's
        check leaves for the whole-program checks is noted by declaration (`DeclarationNote`); with
        unchanged, those declarations are not checked again: what their notes say is taken as is."""
        t = self.t
        for d in t.decls:
            kept = unchanged.get(id(d)) if unchanged else None
            if kept is not None:
                self._take_notes(kept)
            elif notes is not None:
                outer = self.phase_refs, self.signals_sent, self.signals_heard
                self.phase_refs, self.signals_sent, self.signals_heard = set(), set(), {}
                self.check_decl(d)
                noted = DeclarationNote(d, self.phase_refs, self.signals_sent, self.signals_heard)
                notes[id(d)] = noted
                self.phase_refs, self.signals_sent, self.signals_heard = outer
                self._take_notes(noted)
            else:
                self.check_decl(d)
        game = t.game
        if game is not None:
            phases = {n for n, s in t.symbols.items() if s.kind == "phase"}
            seen = set()
            for name, span in zip(game.round_phases, game.round_spans):
                if name not in phases:
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
        for name, span in self.signals_heard.items():
            if name not in self.signals_sent:
                self.err(span, f'nothing ever signals "{name}", so this trigger never runs',
                         hint=f"send it with `signal {name}(...)` or remove the trigger")

    def _take_notes(self, note: "DeclarationNote"):
        self.phase_refs |= note.phase_refs
        self.signals_sent |= note.signals_sent
        for name, span in note.signals_heard.items():
            self.signals_heard.setdefault(name, span)

    def check_decl(self, d):
        if isinstance(d, N.ComponentDecl):
            names = set()
            for f in d.fields:
                if f.name in names:
                    self.err(f.span, f'component {d.name} declares field "{f.name}" twice')
                names.add(f.name)
                if f.name in ENTITY_BUILTIN_ATTRS:
                    self.err(f.span, f'"{f.name}" is a built-in property of every card; choose another field name')
                self.check_type_ref(f.type)
                if f.default is not None:
                    self.expr(f.default, set())
            if d.discards_to is not None:
                self.expect_zone(d.discards_to, {"self"})
            if d.label:
                self.check_label(d.label, d, d.span)
        elif isinstance(d, N.PlayerDecl):
            for f in d.fields:
                self.check_type_ref(f.type)
                if f.default is not None:
                    self.expr(f.default, set())
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
            for e in d.entries:
                scope = set()
                for g in e.gens:
                    self.expr(g.coll, scope)
                    scope = scope | {g.var}
                self.card_ctor(e.ctor, scope)
        elif isinstance(d, N.ZoneDecl):
            if d.board is not None and d.board.places is not None:
                self.check_places(d)
        elif isinstance(d, N.VarDecl):
            self.check_type_ref(d.type)
            if d.default is not None:
                self.expr(d.default, set())
        elif isinstance(d, N.SettingDecl):
            if d.choices and not (isinstance(d.default, N.Name) and d.default.id in d.choices):
                self.err(d.default.span, f'the default of setting "{d.name}" must be one of its choices',
                         expected=" | ".join(d.choices), hint=did_you_mean(getattr(d.default, "id", ""), d.choices))
            elif self.constant_value(d.default, f'the default of setting "{d.name}"'):
                self.expr(d.default, set())
        elif isinstance(d, N.TableDecl):
            self.table_source(d)
        elif isinstance(d, N.DefDecl):
            self.expr(d.body, {p.name for p in d.params})
        elif isinstance(d, N.ProcDecl):
            self.block(d.body, {p.name for p in d.params}, ctx={"proc"})
        elif isinstance(d, N.KeywordDecl):
            scope = {"self"} | {p.name for p in d.params}
            if d.usable is not None:
                self.expr(d.usable, scope)
            if d.effect is not None:
                self.block(d.effect, scope, ctx={"proc"})
            for trig in d.triggers:
                self.trigger(trig, scope)
            for a in d.always:
                self.block(a.body, scope, ctx={"always"})
            if d.effect is None and not d.triggers and not d.always and d.usable is None:
                pass  # a marker keyword: other rules test it with has(card, name)
        elif isinstance(d, N.PhaseDecl):
            if d.unless is not None:
                self.expr(d.unless, set())
            self.block(d.body, set(), ctx={"phase"})
        elif isinstance(d, N.SetupDecl):
            self.block(d.body, set(), ctx={"setup"})
        elif isinstance(d, N.ResultDecl):
            self.block(d.body, set(), ctx={"result"})
        elif isinstance(d, N.TriggerDecl):
            self.trigger(d, set())
        elif isinstance(d, N.AlwaysDecl):
            self.block(d.body, set(), ctx={"always"})
        elif isinstance(d, N.SetSetting):
            sym = self.t.symbols.get(d.name)
            if sym is None or sym.kind != "setting":
                settings = [n for n, s in self.t.symbols.items() if s.kind == "setting"]
                self.err(d.span, f'"{d.name}" is not a setting', hint=did_you_mean(d.name, settings))
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
                sym = self.t.symbols.get(x.id)
                return sym is not None and sym.kind == "member"
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
            zsym = self.t.symbols.get(d.zone)
            if zsym is None or zsym.kind != "zone":
                zones = [n for n, s in self.t.symbols.items() if s.kind == "zone"]
                self.err(d.span, f'"{d.zone}" is not a zone', hint=did_you_mean(d.zone, zones))
            scope.add(d.var)
        elif d.kind == "signal":
            scope.update(d.params)
            self.signals_heard.setdefault(d.signal, d.span)
        elif d.kind == "at" and d.phase is not None:
            if d.timing != "phase":
                self.err(d.span, "only `at start of phase NAME` / `at end of phase NAME` take a name")
            elif self.t.kind(d.phase) != "phase":
                phases = [n for n, s in self.t.symbols.items() if s.kind == "phase"]
                self.err(d.span, f'"{d.phase}" is not a phase', hint=did_you_mean(d.phase, phases))
        if d.cond is not None:
            self.expr(d.cond, scope)
        self.block(d.body, scope, ctx={"trigger"})

    # ---- statements
    def block(self, stmts, scope: set, ctx: set):
        scope = set(scope)
        skip = None
        for i, s in enumerate(stmts):
            if s is skip:
                continue
            # (`shufle deck` parses as two bare names: the first one's error covers the line, and
            # stmt_assign says nothing of the second: said_on_this_line)
            bare = isinstance(s, N.Assign) and s.op is None and not isinstance(s.target, N.Call)
            after = stmts[i + 1] if i + 1 < len(stmts) else None
            if bare and self.unknown_word(s.target, scope) and isinstance(after, N.Assign) and after.op == "=" \
                    and after.span.line == s.span.line and isinstance(after.target, N.Name):
                # `var best = ...` / `def best = ...` in a block: a local named with another word than `let`
                scope = self.named_without_let(s.target, after, scope)
                skip = after
                continue
            scope = self.stmt(s, scope, ctx)

    def unknown_word(self, x, scope: set) -> bool:
        return isinstance(x, N.Name) and x.id not in scope and x.id not in self.t.symbols and x.id not in BUILTIN_VALUES

    def named_without_let(self, word: N.Name, assign: N.Assign, scope: set) -> set:
        name = assign.target.id
        hint = None
        if word.id in ("var", "def", "setting", "procedure"):
            message = f"`{word.id}` declares a name at the top of the file, not inside a block"
            if word.id == "var":
                hint = f"for a value kept after this block, declare `var {name}: TYPE` at the top and assign it here"
        elif word.id in BASE_TYPES or word.id in self.t.components or self.t.kind(word.id) == "enum":
            message = f'"{word.id}" is a type; a local name is given its value with `let`, and no type is written'
        else:
            message = f'"{word.id}" is not a keyword of the language'
        self.err(word.span, message, expected=f"let {name} = ...", hint=hint)
        self.expr(assign.value, scope)
        return scope | {name}

    def stmt(self, s, scope: set, ctx: set) -> set:
        """Check a statement and return the names in scope after it (`let` and `choose` add one)."""
        check = STMT_CHECKS.get(type(s)) or inherited_check(STMT_CHECKS, type(s))
        return check(self, s, scope, ctx) if check is not None else scope

    def stmt_let(self, s: N.Let, scope: set, ctx: set) -> set:
        self.expr(s.value, scope)
        return scope | {s.name}

    def stmt_assign(self, s: N.Assign, scope: set, ctx: set) -> set:
        if s.op is None and not isinstance(s.target, N.Call) and self.said_on_this_line(s.span):
            return scope
        if s.op is None:
            if isinstance(s.target, N.Name) and s.target.id not in scope and s.target.id not in self.t.symbols \
                    and s.target.id not in BUILTIN_VALUES:
                from .syntax_errors import _LEADING_WORDS
                self.err(s.target.span, f'"{s.target.id}" is neither a statement keyword nor a declared name',
                         expected="a statement (move, let, if, choose, ...), a call or an assignment",
                         hint=did_you_mean(s.target.id, set(_LEADING_WORDS) | set(self.t.symbols) | scope))
            elif not isinstance(s.target, N.Call):
                self.err(s.span, "this line does nothing: a statement is a call, an assignment or a keyword statement",
                         hint="to change a value write `x.field = value`")
                self.expr(s.target, scope)
            else:
                self.call(s.target, scope, statement=True)
            return scope
        if s.until is not None and isinstance(s.target, N.Name) and s.target.id in scope:
            self.err(s.span, f'"{s.target.id}" is a local name; only a field or a global `var` can change '
                             f'until the end of the {s.until}',
                     hint="declare it with `var NAME: TYPE`, or change a field (x.field) instead")
        if not isinstance(s.target, (N.Name, N.Attr)):
            self.err(s.target.span, "only a variable or a field (x.field) can be assigned")
        elif isinstance(s.target, N.Name):
            kind = self.t.kind(s.target.id)
            if s.target.id not in scope and kind != "var":
                if kind is None and s.op == "=" and s.until is None and s.target.id not in self.t.refused \
                        and s.target.id not in BUILTINS and s.target.id not in SPECIAL_FUNCS:
                    # `best = ...` for `let best = ...`: said once, and the name is known after it
                    candidates = set(scope) | {n for n, sym in self.t.symbols.items() if sym.kind == "var"}
                    guess = did_you_mean(s.target.id, candidates)
                    self.err(s.target.span, f'"{s.target.id}" is not defined, so it cannot be assigned',
                             expected=None if guess else f"let {s.target.id} = ... (a new name)", hint=guess,
                             fold=(("undefined", s.target.id), f'"{s.target.id}" is used again'))
                    self.expr(s.value, scope)
                    return scope | {s.target.id}
                if kind is None:
                    self.undefined(s.target.id, s.target.span, scope)
                else:
                    self.err(s.target.span, f'"{s.target.id}" is a {kind}, not a variable; it cannot be assigned',
                             hint="declare a global with `var NAME: TYPE` or a local with `let`")
        else:
            self.expr(s.target, scope)
        self.expr(s.value, scope)
        if s.op in ("+=", "-="):
            self.expect_type(s.value, scope, "int", "a number")
        return scope

    def stmt_if(self, s: N.If, scope: set, ctx: set) -> set:
        for cond, body in s.branches:
            self.expr(cond, scope)
            self.block(body, scope, ctx)
        if s.other is not None:
            self.block(s.other, scope, ctx)
        return scope

    def stmt_for(self, s: N.For, scope: set, ctx: set) -> set:
        walked = self.expr(s.coll, scope)
        inner = scope | {s.var}
        # `for each p in players`: p is a player wherever the loop does not give the name another
        # value (a comprehension, a quantifier or a `let` of the same name inside), so its fields and
        # uses are checked as a player's
        typed = walked == "list:player" and not any(
            getattr(n, "var", None) == s.var or (isinstance(n, N.Let) and n.name == s.var)
            for n in nodes_in([s.cond, s.body]))
        before = self.local_types.get(s.var)
        if typed:
            self.local_types[s.var] = "player"
        else:
            self.local_types.pop(s.var, None)
        try:
            if s.cond is not None:
                self.expr(s.cond, inner)
            if s.chosen_by is not None:
                self.expect_player(s.chosen_by, scope)
            self.block(s.body, inner, ctx | {"loop"})
        finally:
            if before is None:
                self.local_types.pop(s.var, None)
            else:
                self.local_types[s.var] = before
        return scope

    def stmt_while_or_until(self, s: N.While | N.RepeatUntil, scope: set, ctx: set) -> set:
        self.expr(s.cond, scope)
        self.block(s.body, scope, ctx | {"loop"})
        return scope

    def stmt_repeat_times(self, s: N.RepeatTimes, scope: set, ctx: set) -> set:
        self.expect_type(s.count, scope, "int", "a number")
        self.block(s.body, scope, ctx | {"loop"})
        return scope

    def stmt_choose(self, s: N.Choose, scope: set, ctx: set) -> set:
        self.no_choice_in(ctx, s.span, s.opts.by, is_choice=True)
        self.expr(s.coll, scope)
        if s.cond is not None:
            self.expr(s.cond, scope | {s.var})
        if s.opts.by is not None:
            self.expect_player(s.opts.by, scope)
        self.prompt(s.opts.prompt, s.span, scope)
        return scope | {s.var}

    def stmt_choose_block(self, s: N.ChooseBlock, scope: set, ctx: set) -> set:
        self.no_choice_in(ctx, s.span, s.opts.by, is_choice=True)
        if s.opts.by is not None:
            self.expect_player(s.opts.by, scope)
        self.prompt(s.opts.prompt, s.span, scope)
        self.options(s.options, scope, ctx)
        return scope

    def stmt_move(self, s: N.Move, scope: set, ctx: set) -> set:
        self.expect_cards(s.what, scope)
        self.expect_zone(s.to, scope)
        self.placement(s.place, scope, s.to)
        return scope

    def stmt_draw(self, s: N.Draw, scope: set, ctx: set) -> set:
        if s.count is not None:
            self.expect_type(s.count, scope, "int", "a number")
        self.expect_zone(s.source, scope)
        self.expect_zone(s.to, scope)
        self.placement(s.place, scope, s.to)
        return scope

    def stmt_shuffle(self, s: N.Shuffle, scope: set, ctx: set) -> set:
        self.expect_zone(s.zone, scope)
        return scope

    def stmt_create(self, s: N.Create, scope: set, ctx: set) -> set:
        if "setup" not in ctx:
            self.err(s.span, "cards can only be created in `setup`: during play cards are moved, never made",
                     hint="put the cards in a zone at setup and move them later")
        if self.t.kind(s.cards) != "cards":
            sets = [n for n, x in self.t.symbols.items() if x.kind == "cards"]
            self.err(s.span, f'"{s.cards}" is not a set of cards', hint=did_you_mean(s.cards, sets))
        self.expect_zone(s.zone, scope)
        return scope

    def stmt_reveal(self, s: N.Reveal, scope: set, ctx: set) -> set:
        self.expect_cards(s.what, scope)
        if s.to is not None:
            self.expect_player(s.to, scope)
        return scope

    def stmt_on_cards(self, s: N.Discard | N.Hide | N.Flip, scope: set, ctx: set) -> set:
        """`discard`, `hide` and `turn ... face`: what they act on must be cards."""
        self.expect_cards(s.what, scope)
        return scope

    def stmt_signal(self, s: N.Signal, scope: set, ctx: set) -> set:
        self.signals_sent.add(s.name)
        for a in s.args:
            self.expr(a, scope)
        return scope

    def stmt_perform(self, s: N.Perform, scope: set, ctx: set) -> set:
        if isinstance(s.what, N.Name) and s.what.id == "on" and "on" not in scope and self.t.kind("on") is None:
            self.err(s.what.span, "`perform` names the keyword first, then the card it works on",
                     expected="perform KEYWORD on CARD, as in `perform boost on c`")
            return scope
        ty = self.expr(s.what, scope)
        if ty not in ("keyword", "any"):
            self.err(s.what.span, f"`perform` uses a keyword, but this is {describe_type(ty)}",
                     expected="a keyword, as in `perform boost(2) on card`")
        if s.on is not None:
            self.expect_cards(s.on, scope)
        return scope

    def stmt_win(self, s: N.Win, scope: set, ctx: set) -> set:
        self.expr(s.who, scope)
        return scope

    def stmt_eliminate(self, s: N.Eliminate, scope: set, ctx: set) -> set:
        ty = self.expr(s.who, scope)
        if ty not in ("player", "list:player", "any", "list:any"):
            self.err(s.who.span, f"only players can be eliminated, but this is {describe_type(ty)}",
                     expected="a player or a list of players, as in `eliminate current`")
        return scope

    def stmt_respond(self, s: N.Respond, scope: set, ctx: set) -> set:
        self.no_choice_in(ctx, s.span, by=s.coll)
        self.expr(s.coll, scope)
        self.prompt(s.prompt, s.span, scope | {s.var})
        self.options(s.options, scope | {s.var}, ctx)
        return scope

    def stmt_offer(self, s: N.Offer, scope: set, ctx: set) -> set:
        self.no_choice_in(ctx, s.span, by=s.by, is_choice=True)
        self.expect_player(s.to, scope)
        if s.by is not None:
            self.expect_player(s.by, scope)
        self.prompt(s.prompt, s.span, scope)
        self.options(s.options, scope, ctx)
        if s.refused is not None:
            self.block(s.refused, scope, ctx)
        return scope

    def stmt_end(self, s: N.End, scope: set, ctx: set) -> set:
        # what is sure to be running where it is written (a procedure or a trigger may run in a turn)
        if "setup" in ctx or "result" in ctx:
            when = "in setup the game has not started" if "setup" in ctx else "the result is worked out once the game is over"
            self.err(s.span, f"`end {s.what}` cannot be used here: {when}",
                     hint="end the game from a phase, a turn, a trigger or a procedure" if s.what == "game" else None)
        elif s.what == "turn" and "phase" in ctx and "turns" not in ctx:
            self.err(s.span, "`end turn` ends a player's turn, but this is not inside `take turns { ... }`",
                     hint="use `end phase` to leave the phase, or put the statement inside `take turns`")
        return scope

    def stmt_take_turns(self, s: N.TakeTurns, scope: set, ctx: set) -> set:
        self.no_choice_in(ctx, s.span)
        for x in (s.start,):
            if x is not None:
                self.expect_player(x, scope)
        for x in (s.skipping, s.until):
            if x is not None:
                self.expr(x, scope)
        if s.following is not None:
            ty = self.expr(s.following, scope)
            if ty in ("int", "bool", "str", "player", "cell", "keyword") or ty.startswith("sym:"):
                self.err(s.following.span, f"`following` takes the turn order as a list of players, "
                         f"but this is {describe_type(ty)}",
                         expected="a list of players, as in `take turns following ranking`")
            if s.direction is not None:
                self.err(s.span, f"a computed turn order (`following`) already says who is next, "
                         f"so it cannot also go {s.direction}",
                         hint="reverse the list instead, or remove the direction")
        self.block(s.body, scope, ctx | {"turns"})
        return scope

    def stmt_step_block(self, s: N.StepBlock, scope: set, ctx: set) -> set:
        self.block(s.body, scope, ctx)
        return scope

    def stmt_log_or_fail(self, s: N.Log | N.Fail, scope: set, ctx: set) -> set:
        self.expr(s.message, scope)
        return scope

    def stmt_break_or_continue(self, s: N.Break | N.Continue, scope: set, ctx: set) -> set:
        if "loop" not in ctx:
            self.err(s.span, f"`{'break' if isinstance(s, N.Break) else 'continue'}` is only allowed inside a loop")
        return scope

    def stmt_return(self, s: N.Return, scope: set, ctx: set) -> set:
        return scope

    def no_choice_in(self, ctx: set, span: Span, by=None, is_choice: bool = False):
        if is_choice and by is None and "setup" in ctx and "turns" not in ctx:
            self.err(span, "nobody is taking a turn during setup, so this choice needs to say who makes it",
                     hint="add `by PLAYER`, e.g. `by p` inside `for each p in players`")
        if "always" in ctx:
            self.err(span, "a continuous rule (`always`) cannot ask a player to choose: it must settle by itself")
        if "result" in ctx:
            self.err(span, "the `result` block cannot ask a player to choose")

    def options(self, options: list, scope: set, ctx: set):
        names = set()
        for opt in options:
            if opt.name in names:
                self.err(opt.span, f'two options are named "{opt.name}"')
            names.add(opt.name)
            inner = set(scope)
            for b in opt.bindings:
                self.expr(b.coll, inner)
                inner = inner | {b.var}
                if b.cond is not None:
                    self.expr(b.cond, inner)
            if opt.cond is not None:
                self.expr(opt.cond, inner)
            self.block(opt.body, inner, ctx)

    def table_source(self, d: N.TableDecl):
        """A table's file: a text, or a setting holding one (read when the game is loaded)."""
        from .tables import TableError

        src = d.source
        name = None
        if isinstance(src, N.StrLit):
            name = src.value
        elif isinstance(src, N.Name) and self.t.kind(src.id) == "setting":
            default = self.t.symbols[src.id].decl.default
            name = default.value if isinstance(default, N.StrLit) else None
        else:
            self.err(src.span, "a table is read from a file named by a text or a setting",
                     expected='a file name, as in `table rows from "maps/valley.csv"`, or the name of a setting')
            return
        if name is None:
            self.err(src.span, f'the setting "{src.id}" should name a data file (a text)')
            return
        try:
            self.data_files.columns(name, d.span.file)
        except TableError as exc:
            self.err(src.span, f'table "{d.name}": {exc}',
                     hint="the file is looked for beside the rules file" if exc.missing else None)

    def placement(self, p: N.Placement, scope, to=None):
        if p.at is not None:
            self.expr(p.at, scope)
        if p.place is not None:
            ty = self.expr(p.place, scope)
            decl = self.zone_decl_of(to) if to is not None else None
            if decl is None:
                return
            if decl.board is None:
                self.err(p.place.span, f"`into` puts a card in a place of a board's cell, but {decl.name} is not a board")
            elif decl.board.places is None:
                self.err(p.place.span, f"the board {decl.name} has no places",
                         hint=f"declare them: `zone {decl.name}: board ... places ENUM`")
            elif ty.startswith("sym:") and ty[4:] != decl.board.places:
                self.err(p.place.span, f"the places of {decl.name} are the members of {decl.board.places}, "
                         f"but this is {describe_type(ty)}")

    def check_places(self, d: N.ZoneDecl):
        b = d.board
        span = b.places_span or d.span
        enum = self.t.symbols.get(b.places)
        if enum is None or enum.kind != "enum":
            enums = [n for n, s in self.t.symbols.items() if s.kind == "enum"]
            self.err(span, f'the places of a cell are the members of an enum, but "{b.places}" is not an enum',
                     expected="places ENUM { member: capacity, ... }", hint=did_you_mean(b.places, enums))
            return
        seen = set()
        for name, limit in b.capacities:
            if name not in enum.decl.members:
                self.err(span, f'"{name}" is not a member of {b.places}, so it is not a place of {d.name}',
                         hint=did_you_mean(name, enum.decl.members))
            if name in seen:
                self.err(span, f'the capacity of place "{name}" is given twice')
            seen.add(name)
            if limit < 1:
                self.err(span, f'place "{name}" must hold at least 1 card (leave it out of the list for no limit)')

    # ---- expressions
    def undefined(self, name: str, span: Span, scope: set):
        if name in self.t.refused:
            return  # its declaration was refused, which is said there: its uses would only repeat it
        if name in BUILTINS or name in SPECIAL_FUNCS:
            # a built-in function written without its values (`directions` for `directions(board)`)
            b = BUILTINS.get(name)
            doc = b.doc if b is not None else SPECIAL_FUNCS[name][2]
            self.err(span, f'"{name}" is a built-in function, not a value: call it with its values',
                     hint=f"{name}(...): {doc}")
            return
        candidates = set(scope) | set(self.t.symbols) | set(BUILTIN_VALUES) | set(BUILTINS) | set(SPECIAL_FUNCS) \
            | {"true", "false", "none"}
        # a name never declared (or declared under another spelling) is said once, at its first use
        self.err(span, f'"{name}" is not defined', hint=did_you_mean(name, candidates),
                 fold=(("undefined", name), f'"{name}" is used again'))

    def zone_decl_of(self, x) -> N.ZoneDecl | None:
        if isinstance(x, N.Name):
            sym = self.t.symbols.get(x.id)
            if sym and sym.kind == "zone":
                return sym.decl
        if isinstance(x, N.Call):
            sym = self.t.symbols.get(x.func)
            if sym and sym.kind == "zone":
                return sym.decl
        return None

    def expect_zone(self, x, scope):
        ty = self.expr(x, scope)
        if ty not in ("zone", "any"):
            self.err(x.span, f"this should be a zone, but it is {describe_type(ty)}",
                     expected="a zone such as `discard` or `hand(p)`")

    def expect_cards(self, x, scope):
        ty = self.expr(x, scope)
        if ty in ("int", "bool", "str", "player", "cell", "keyword") or ty.startswith("sym:"):
            hint = None
            if ty == "keyword":
                hint = "a keyword is an ability printed on cards; to use one write `perform KEYWORD on card`"
            self.err(x.span, f"this should be a card (or a list of cards, or a zone), but it is {describe_type(ty)}",
                     hint=hint)

    def expect_player(self, x, scope):
        ty = self.expr(x, scope)
        if ty not in ("player", "any"):
            self.err(x.span, f"this should be a player, but it is {describe_type(ty)}")

    def expect_type(self, x, scope, want: str, words: str):
        ty = self.expr(x, scope)
        if ty not in (want, "any"):
            self.err(x.span, f"this should be {words}, but it is {describe_type(ty)}")

    def check_label(self, template: str, comp: N.ComponentDecl, span: Span):
        fields = {f.name for f in comp.fields} | ENTITY_BUILTIN_ATTRS
        for m in re.finditer(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", template):
            if m.group(1) not in fields:
                span = _label_name_span(comp.span, m.group(1)) or span
                # (its cards giving that field too are the same mistake: a field renamed in the component)
                self.err(span, f'the label of {comp.name} uses "{m.group(1)}", which is not one of its fields',
                         hint=did_you_mean(m.group(1), fields),
                         fold=(("ctor field", comp.name, m.group(1)), f'"{m.group(1)}" is used again'))

    def card_ctor(self, ctor: N.CardCtor, scope: set):
        comp = self.t.components.get(ctor.component)
        if comp is None:
            self.err(ctor.span, f'"{ctor.component}" is not a component', hint=did_you_mean(ctor.component, self.t.components),
                     fold=(("component", ctor.component), f'"{ctor.component}" is used again'))
            for a in ctor.args:
                self.expr(a.value, scope)
            return
        # a deck of 50,000 cards names the same component again and again: its fields are read once
        plan = self._ctor_plans.get(ctor.component)
        if plan is None or plan[0] is not comp:
            fields = {f.name: f for f in comp.fields}
            wants = {name: type_name(f.type) for name, f in fields.items()}
            needed = [name for name, f in fields.items() if f.default is None and wants[name] != "condition"
                      and not wants[name].startswith("list:")]
            plan = self._ctor_plans[ctor.component] = (comp, fields, wants, needed)
        _, fields, wants, needed = plan
        given = {a.name for a in ctor.args}
        missing = [name for name in needed if name not in given]
        unknown = [a for a in ctor.args if a.name not in wants]
        for a in ctor.args:
            want = wants.get(a.name)
            if want is None:
                # a field renamed or misspelt in the component: its cards give the old name and miss the new
                # one, which is one mistake (said once, with the field that has no value)
                hint = did_you_mean(a.name, fields)
                if hint is None and missing:
                    hint = f"{comp.name}'s fields without a value here: " + ", ".join(f'"{m}"' for m in missing)
                self.err(a.span, f'component {comp.name} has no field "{a.name}"', hint=hint,
                         fold=(("ctor field", comp.name, a.name), f'"{a.name}" is used again'))
            if want == "condition":
                self.expr(a.value, scope | {"self"})  # judged later, for each card as `self`
                continue
            ty = self.expr(a.value, scope)
            if want is not None and not compatible(want, ty, self.t):
                # (each card given the same kind of value: one mistake, in the field's type or in every card)
                self.err(a.value.span, f'field "{a.name}" of {comp.name} is {describe_type(want)}, but this is {describe_type(ty)}',
                         fold=(("ctor type", comp.name, a.name, ty), f'{describe_type(ty)} for "{a.name}" is given again'))
        for name in missing if not unknown else ():
            self.err(ctor.span, f'{comp.name} needs a value for "{name}"', expected=f"{name}: <{fields[name].type}>",
                     fold=(("ctor missing", comp.name, name), f"{comp.name} without a \"{name}\" is made again"))

    def board_call(self, c: N.Call):
        """Board built-ins (ray, edge, regions, ...): the first value must be a board, a side of a board
        one the board has."""
        board = c.args[0] if c.args else None
        if isinstance(board, N.Name) and self.t.kind(board.id) == "zone":
            decl = self.t.symbols[board.id].decl
            if decl.board is None:
                self.err(board.span, f'{c.func}() works on a board, and the zone "{board.id}" is not one',
                         expected='a zone declared as a board, as in "zone grid: board grid 8 size 8 by 8"')
            elif c.func == "edge" and decl.board.width is None:
                self.err(c.span, f'edge() needs a board with sides: "{board.id}" has no fixed width and height',
                         expected="a square grid with a size (grid 4 size 8 by 8) or a hex rhombus or rectangle")
        if c.func == "edge" and len(c.args) == 2 and isinstance(c.args[1], N.StrLit) \
                and c.args[1].value not in EDGE_NAMES:
            self.err(c.args[1].span, f'a board has no side called "{c.args[1].value}"',
                     expected=", ".join(f'"{n}"' for n in EDGE_NAMES),
                     hint=did_you_mean(c.args[1].value, list(EDGE_NAMES)))

    def arity(self, c: N.Call, lo: int, hi: int | None, what: str):
        n = len(c.args)
        if n < lo or (hi is not None and n > hi):
            if lo == hi:
                want = f"{lo} argument{'s' if lo != 1 else ''}"
            elif hi is None:
                want = f"at least {lo} arguments"
            else:
                want = f"{lo} to {hi} arguments"
            self.err(c.span, f"{what} takes {want}, but {n} {'was' if n == 1 else 'were'} given")

    def call(self, c: N.Call, scope: set, statement=False) -> str:
        name = c.func
        sym = self.t.symbols.get(name)
        args = c.args
        if c.kwargs and not (sym and sym.kind == "component"):
            self.err(c.kwargs[0].span, f'"{c.kwargs[0].name}:" names an argument, which only cards take (Component(field: value))')
        if name in ("has", "usable", "matched", "matching"):
            lo, hi, _ = SPECIAL_FUNCS[name]
            self.arity(c, lo, hi, f"{name}()")
            if name == "has":
                if args:
                    self.expr(args[0], scope)
                if len(args) > 1:
                    if not (isinstance(args[1], N.Name) and self.t.kind(args[1].id) == "keyword"):
                        fold = None
                        if isinstance(args[1], N.Name) and self.t.kind(args[1].id) is None \
                                and args[1].id not in scope and args[1].id not in BUILTIN_VALUES:
                            # a keyword misspelt or removed: one mistake with its other uses (on cards...)
                            fold = (("undefined", args[1].id), f'"{args[1].id}" is used again')
                        self.err(args[1].span, "the second argument of has() is the name of a keyword",
                                 hint=did_you_mean(getattr(args[1], "id", ""), [n for n, s in self.t.symbols.items() if s.kind == "keyword"]),
                                 fold=fold)
                return "bool"
            if name in ("matched", "matching"):
                for a in args[:2]:
                    self.expr(a, scope)
                if len(args) == 3:
                    f = args[2]
                    if not (isinstance(f, N.Name) and self.t.kind(f.id) == "def" and len(self.t.symbols[f.id].decl.params) == 2):
                        self.err(f.span, f"the third argument of {name}() is the name of a def with two parameters")
                return "bool" if name == "matched" else "list:any"
            for a in args:
                self.expr(a, scope)
            return "bool"
        if name in BUILTINS and name not in scope:
            b = BUILTINS[name]
            self.arity(c, b.min_args, b.max_args, f"{name}()")
            types = [self.expr(a, scope) for a in args]
            if (name in BOARD_FUNCTIONS or name in ON_A_BOARD) and types and _not_a_board(types[0]):
                self.err(args[0].span, f"{name}() works on a board, but this is {describe_type(types[0])}",
                         expected=f'a zone declared as a board, as in "{name}(grid, ...)"')
            elif name in BOARD_FUNCTIONS or name in ON_A_BOARD:
                self.board_call(c)
            return BUILTIN_RESULT.get(name, "any")
        if sym is None:
            if name in scope:
                self.err(c.span, f'"{name}" is a local value, not something that can be called')
            else:
                self.undefined(name, c.span, scope)
            for a in args:
                self.expr(a, scope)
            return "any"
        arg_types = [self.expr(a, scope) for a in args]
        if sym.kind == "def":
            self.arity(c, len(sym.decl.params), len(sym.decl.params), f'def "{name}"')
            return "any"
        if sym.kind == "proc":
            self.arity(c, len(sym.decl.params), len(sym.decl.params), f'procedure "{name}"')
            if not statement:
                self.err(c.span, f'procedure "{name}" does things and has no value; call it as a statement, or make it a def')
            return "any"
        if sym.kind == "keyword":
            self.arity(c, len(sym.decl.params), len(sym.decl.params), f'keyword "{name}"')
            if statement:
                self.err(c.span, f'writing a keyword makes a keyword value; to use it write `perform {name}(...) on card`')
            return "keyword"
        if sym.kind == "zone":
            if not sym.decl.per_player:
                self.err(c.span, f'zone "{name}" is shared by all players; write it without (...)')
            self.arity(c, 1, 1, f'zone "{name}"')
            if args:
                ty = arg_types[0]
                if ty not in ("player", "any"):
                    self.err(args[0].span, f'"{name}(...)" takes a player, but this is {describe_type(ty)}')
            return "zone"
        if sym.kind == "component":
            self.card_ctor(N.CardCtor(span=c.span, component=name, args=c.kwargs), scope)
            self.err(c.span, "cards are declared in a `cards` block, not made inside rules")
            return "any"
        self.err(c.span, f'"{name}" is a {sym.kind}, not something that can be called')
        return "any"

    def prompt(self, text, span: Span, scope: set):
        """A choice's `as "..."` prompt may show values like any text: "{p} picks a card"."""
        if text is not None and "{" in text:
            self.expr(N.StrLit(span=span, value=text), scope)

    # ---- expressions: expr() finds the method for the node's class in EXPR_CHECKS (after the class);
    # a check meets about 20,000 expressions per pass, so one dict look-up replaces a chain of isinstance tests
    def expr(self, x, scope: set) -> str:
        """Check an expression and return its type ("int", "list:player", "sym:Color", "any", ...)."""
        check = EXPR_CHECKS.get(type(x)) or inherited_check(EXPR_CHECKS, type(x))
        return check(self, x, scope) if check is not None else "any"

    def expr_int(self, x: N.IntLit, scope: set) -> str:
        return "int"

    def expr_str(self, x: N.StrLit, scope: set) -> str:
        if "{" not in x.value:
            return "str"
        # "{p} draws {c.point}": the names shown in a text are checked like any other (as the compiler reads them)
        inside = _PlacesInText(x.span)
        for m in TEMPLATE_NAMES.finditer(x.value):
            names = m.group(1).split(".")
            span = inside.span_of(m.group(0))
            node = N.Name(span=span, id=names[0])
            for attr in names[1:]:
                node = N.Attr(span=span, obj=node, name=attr)
            self.expr(node, scope)
        inside = _PlacesInText(x.span)
        for m in SHOWN_ANYTHING.finditer(x.value):
            if not SHOWN_NAME_ONLY.fullmatch(m.group(1)):
                self.err(inside.span_of(m.group(0)), f'a text shows names and fields only, so "{{{m.group(1)}}}" would be printed as it is',
                         expected='a name or a field in braces, as in "{p.score}"',
                         hint="compute the value first: `let n = ...`, then write \"{n}\"")
        return "str"

    def expr_bool(self, x: N.BoolLit, scope: set) -> str:
        return "bool"

    def expr_none(self, x: N.NoneLit, scope: set) -> str:
        return "any"

    def expr_name(self, x: N.Name, scope: set) -> str:
        if x.id in scope:
            return self.local_types.get(x.id, "any")
        if x.id in BUILTIN_VALUES:
            return BUILTIN_VALUE_TYPES[x.id]
        sym = self.t.symbols.get(x.id)
        if sym is None:
            if x.id == "self":
                self.err(x.span, '"self" only exists inside a keyword or a card field that is a condition or effect')
            else:
                self.undefined(x.id, x.span, scope)
            return "any"
        if sym.kind == "zone":
            if sym.decl.per_player:
                self.err(x.span, f'each player has their own "{x.id}"; say whose: {x.id}(p)')
            return "zone"
        if sym.kind == "member":
            return "sym:" + sym.type
        if sym.kind == "enum":
            return "list:sym:" + x.id
        if sym.kind == "var":
            return sym.type if sym.type in ("int", "bool", "str", "player") else "any"
        if sym.kind == "setting":  # a number, a text or true/false, as its default is (--set keeps the kind)
            return sym.type
        if sym.kind == "def":
            if sym.decl.params:
                n = len(sym.decl.params)
                self.err(x.span, f'def "{x.id}" takes {n} argument{"s" if n != 1 else ""}: write {x.id}(...)')
            return "any"
        if sym.kind == "proc":
            self.err(x.span, f'procedure "{x.id}" must be called as a statement: {x.id}(...)')
            return "any"
        if sym.kind == "keyword":
            return "keyword"
        if sym.kind == "component":
            return f"list:entity:{x.id}"
        if sym.kind == "cards":
            return "list:any"
        if sym.kind == "phase":
            self.phase_refs.add(x.id)
            return "str"
        return "any"

    def expr_call(self, x: N.Call, scope: set) -> str:
        return self.call(x, scope)

    def expr_attr(self, x: N.Attr, scope: set) -> str:
        ty = self.expr(x.obj, scope)
        return self.attr_type(ty, x)

    def expr_index(self, x: N.Index, scope: set) -> str:
        ty = self.expr(x.obj, scope)
        self.expect_type(x.index, scope, "int", "a whole number")
        return ty[5:] if ty.startswith("list:") else "any"

    def expr_list(self, x: N.ListLit, scope: set) -> str:
        tys = [self.expr(i, scope) for i in x.items]
        return "list:" + (tys[0] if tys and all(t == tys[0] for t in tys) else "any")

    def expr_filter(self, x: N.FilterList, scope: set) -> str:
        ty = self.expr(x.coll, scope)
        self.expr(x.cond, scope | {x.var})
        return ty if ty.startswith("list:") else "list:any"

    def expr_map(self, x: N.MapList, scope: set) -> str:
        self.expr(x.coll, scope)
        inner = scope | {x.var}
        for clause in x.more:
            self.expr(clause.coll, inner)
            inner = inner | {clause.var}
        if x.cond is not None:
            self.expr(x.cond, inner)
        return "list:" + self.expr(x.expr, inner)

    def expr_cond(self, x: N.CondExpr, scope: set) -> str:
        self.expr(x.test, scope)
        a = self.expr(x.then, scope)
        b = self.expr(x.other, scope)
        return a if a == b else "any"

    def expr_binop(self, x: N.BinOp, scope: set) -> str:
        a = self.expr(x.left, scope)
        b = self.expr(x.right, scope)
        if x.op == "+" and (a.startswith("list:") or b.startswith("list:")):
            return a if a.startswith("list:") else b
        if x.op == "+" and (a == "str" or b == "str"):
            return "str"
        for ty, side in ((a, x.left), (b, x.right)):
            if ty not in ("int", "any"):
                self.err(side.span, f'"{x.op}" works on numbers, but this is {describe_type(ty)}')
        return "int"

    def expr_compare(self, x: N.Compare, scope: set) -> str:
        a = self.expr(x.left, scope)
        b = self.expr(x.right, scope)
        if x.op in ("<", ">", "<=", ">="):
            for ty, side in ((a, x.left), (b, x.right)):
                if ty not in ("int", "any"):
                    self.err(side.span, f'"{x.op}" compares numbers, but this is {describe_type(ty)}')
        elif a.startswith("sym:") and b.startswith("sym:") and a != b:
            self.err(x.span, f"this compares {describe_type(a)} with {describe_type(b)}: they can never be equal")
        return "bool"

    def expr_member(self, x: N.Member, scope: set) -> str:
        self.expr(x.elem, scope)
        self.expr(x.coll, scope)
        return "bool"

    def expr_boolop(self, x: N.BoolOp, scope: set) -> str:
        for i in x.items:
            self.expr(i, scope)
        return "bool"

    def expr_not(self, x: N.Not, scope: set) -> str:
        self.expr(x.operand, scope)
        return "bool"

    def expr_neg(self, x: N.Neg, scope: set) -> str:
        self.expect_type(x.operand, scope, "int", "a number")
        return "int"

    def expr_range(self, x: N.Range, scope: set) -> str:
        self.expect_type(x.low, scope, "int", "a number")
        self.expect_type(x.high, scope, "int", "a number")
        return "list:int"

    def expr_cell(self, x: N.CellLit, scope: set) -> str:
        self.expr(x.a, scope)
        self.expr(x.b, scope)
        return "cell"

    def field_value(self, field_type: str) -> str:
        """The type of a field's value: members of an enum compare only with that enum's members."""
        if self.t.kind(field_type) == "enum":
            return "sym:" + field_type
        if not known_type(field_type, self.t):  # (reported where the field is declared)
            return "any"
        return value_type(field_type)

    def attr_type(self, ty: str, x: N.Attr) -> str:
        # the type of a field depends only on the owner's type and the field's name (the table does not change
        # during a check), so it is worked out once; a field that is reported is worked out again at each use
        key = (ty, x.name)
        known = self._attr_types.get(key)
        if known is None:
            errors = self.bag.reported
            known = self.find_attr_type(ty, x)
            if self.bag.reported == errors:
                self._attr_types[key] = known
        return known

    def find_attr_type(self, ty: str, x: N.Attr) -> str:
        name = x.name
        if ty == "player":
            if name in self.t.player_fields:
                return self.field_value(type_name(self.t.player_fields[name].type))
            if name not in PLAYER_BUILTIN_ATTRS:
                self.err(x.span, f'players have no field "{name}"', expected="a field declared in `player { ... }`",
                         hint=did_you_mean(name, set(self.t.player_fields) | PLAYER_BUILTIN_ATTRS))
            return "int"
        if ty.startswith("entity:"):
            fields = self.component_fields(ty[7:])
            if name in fields:
                return self.field_value(type_name(fields[name].type))
            if name not in ENTITY_BUILTIN_ATTRS:
                self.err(x.span, f'{ty[7:]} cards have no field "{name}"', hint=did_you_mean(name, set(fields) | ENTITY_BUILTIN_ATTRS))
            return "any"
        if ty == "zone":
            if name not in ZONE_BUILTIN_ATTRS:
                self.err(x.span, f'zones have no field "{name}"', expected="size or owner")
            return "int" if name == "size" else "player"
        if ty in ("int", "bool", "str") or ty.startswith("list:") or ty.startswith("sym:"):
            self.err(x.span, f'{describe_type(ty)} has no field "{name}"')
            return "any"
        # unknown owner: the field must exist on some component or on players
        known = self._field_types_by_name()
        if name not in known:
            everything = (set(known) | set(self.t.table_columns) | ENTITY_BUILTIN_ATTRS | PLAYER_BUILTIN_ATTRS
                          | ZONE_BUILTIN_ATTRS)
            if name not in everything and not self.t.table_columns_unread:
                self.err(x.span, f'no component or player has a field "{name}"', hint=did_you_mean(name, everything),
                         fold=(("field", name), f'the field "{name}" is used again'))
                return "any"
            return "any"
        types = known[name]
        return next(iter(types)) if len(types) == 1 else "any"

    def component_fields(self, name: str) -> dict:
        """A component's fields by name (read once per checker: attribute checks ask for them often)."""
        cache = self.__dict__.setdefault("_component_fields", {})
        fields = cache.get(name)
        if fields is None:
            comp = self.t.components.get(name)
            fields = cache[name] = {f.name: f for f in comp.fields} if comp else {}
        return fields

    def _field_types_by_name(self) -> dict[str, set]:
        """Every declared field name (components and players) with the value types it has anywhere."""
        known = self.__dict__.get("_field_types")
        if known is None:
            known = {}
            for comp in self.t.components.values():
                for f in comp.fields:
                    known.setdefault(f.name, set()).add(self.field_value(type_name(f.type)))
            for fname, f in self.t.player_fields.items():
                known.setdefault(fname, set()).add(self.field_value(type_name(f.type)))
            self.__dict__["_field_types"] = known
        return known


EXPR_CHECKS = {
    N.IntLit: Checker.expr_int, N.StrLit: Checker.expr_str, N.BoolLit: Checker.expr_bool, N.NoneLit: Checker.expr_none,
    N.Name: Checker.expr_name, N.Call: Checker.expr_call, N.Attr: Checker.expr_attr, N.Index: Checker.expr_index,
    N.ListLit: Checker.expr_list, N.FilterList: Checker.expr_filter, N.MapList: Checker.expr_map,
    N.CondExpr: Checker.expr_cond, N.BinOp: Checker.expr_binop, N.Compare: Checker.expr_compare,
    N.Member: Checker.expr_member, N.BoolOp: Checker.expr_boolop, N.Not: Checker.expr_not, N.Neg: Checker.expr_neg,
    N.Range: Checker.expr_range, N.CellLit: Checker.expr_cell,
}

STMT_CHECKS = {
    N.Let: Checker.stmt_let, N.Assign: Checker.stmt_assign, N.If: Checker.stmt_if, N.For: Checker.stmt_for,
    N.While: Checker.stmt_while_or_until, N.RepeatUntil: Checker.stmt_while_or_until,
    N.RepeatTimes: Checker.stmt_repeat_times, N.Choose: Checker.stmt_choose,
    N.ChooseBlock: Checker.stmt_choose_block, N.Move: Checker.stmt_move, N.Draw: Checker.stmt_draw,
    N.Discard: Checker.stmt_on_cards, N.Shuffle: Checker.stmt_shuffle, N.Create: Checker.stmt_create,
    N.Reveal: Checker.stmt_reveal, N.Hide: Checker.stmt_on_cards, N.Flip: Checker.stmt_on_cards,
    N.Signal: Checker.stmt_signal, N.Perform: Checker.stmt_perform, N.Win: Checker.stmt_win,
    N.Eliminate: Checker.stmt_eliminate, N.Respond: Checker.stmt_respond, N.Offer: Checker.stmt_offer,
    N.End: Checker.stmt_end, N.TakeTurns: Checker.stmt_take_turns, N.StepBlock: Checker.stmt_step_block,
    N.Log: Checker.stmt_log_or_fail, N.Fail: Checker.stmt_log_or_fail, N.Break: Checker.stmt_break_or_continue,
    N.Continue: Checker.stmt_break_or_continue, N.Return: Checker.stmt_return,
}


def inherited_check(checks: dict, cls: type):
    """The check of the nearest class cls derives from, for a node class the table does not list itself."""
    for base in cls.__mro__[1:]:
        if base in checks:
            return checks[base]
    return None


BUILTIN_RESULT = {
    "count": "int", "sum": "int", "min": "int", "max": "int", "any": "bool", "all": "bool", "abs": "int",
    "empty": "bool", "owner": "player", "zone_of": "zone", "player": "player", "seat": "int",
    "next_player": "player", "previous_player": "player", "turn_order": "list:player", "opponents": "list:player",
    "label": "str", "face_down": "bool", "adjacent": "bool", "distance": "int", "roll": "int",
    "frontier": "list:cell", "cells": "list:cell", "occupied_cells": "list:cell", "neighbor_cells": "list:cell",
    "empty_cells_around": "list:cell", "origin": "cell", "keywords": "list:keyword", "neighbors": "list:any",
    # lines, edges and regions (geometry.py)
    "directions": "list:any", "straight_directions": "list:any", "diagonal_directions": "list:any",
    "towards": "cell", "ray": "list:cell", "edge": "list:cell", "empty_cells": "list:cell", "owned_cells": "list:cell",
    "regions": "list:any", "region": "list:cell", "cells_around": "list:cell", "cards_on": "list:any", "snapshot": "str",
    "has_room": "bool",
}


def value_type(field_type: str) -> str:
    if field_type in ("condition",):
        return "bool"
    if field_type in BASE_TYPES or field_type.startswith("list:"):
        return field_type if field_type != "card" else "any"
    return field_type


def known_type(name: str, table: SymbolTable) -> bool:
    """Whether a type name written in the file names a type (an unknown one is reported where it is
    written, and its values are then taken as any value, not refused again at each use)."""
    if name.startswith("list:"):
        return known_type(name[5:], table)
    return ":" in name or name in BASE_TYPES or name in table.components or table.kind(name) == "enum"


def compatible(want: str, got: str, table: SymbolTable) -> bool:
    if got == "any" or want == "any" or not known_type(want, table):
        return True
    if want == got:
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
    if ty.startswith("list:"):
        several = _kind_words(ty[5:])[1]
        return f"a list of {several}", f"lists of {several}"
    return ty, ty


def check_decls(decls: list, bag: DiagnosticBag, data_files: DataFiles | None = None,
                notes: dict | None = None) -> SymbolTable:
    table = build_symbols(decls, bag, data_files)
    checker = Checker(table, bag, data_files)
    checker.run(notes)
    return table


@dataclass
class DeclarationNote:
    """What checking one declaration left for the whole-program checks (the phases it names, the
    signals it sends and hears), kept with the declaration."""
    decl: object
    phase_refs: set
    signals_sent: set
    signals_heard: dict
    names: frozenset | None = None  # every name the declaration may look up (`_names_in`), once asked


def unchanged_declarations(base: SymbolTable, variant: SymbolTable, notes: dict) -> dict:
    """The declarations a variant's check need not check again, with their notes from the base game's
    check, which found no problem: those the variant keeps as they are and that name nothing the
    variant changes. Checking a declaration looks up the names written in it, what the declarations
    of those names say (how many parameters a def or a procedure takes, a component's fields and
    their types), and the fields of components by their names (a field of a value of unknown kind is
    any component's field of that name). So a name is changed when the
    variant declares it otherwise or adds it (a component's fields too), and what a declaration the
    variant keeps declares is changed when the declaration names a changed type (an enum or a
    component: its types may read otherwise), to a fixed point; a variant that replaces or removes a
    component or a player field, or changes a table's columns, checks everything again. A
    declaration kept that names nothing changed is checked as it was, without a problem, and leaves
    the same notes (`tests/test_checker_variants.py` compares this with checking everything, on every
    game and example with its own variants and with variants made to change what others read)."""
    added_fields = _added(base.components, variant.components)
    added_player_fields = _added(base.player_fields, variant.player_fields)
    if (added_fields is None or added_player_fields is None or variant.table_columns != base.table_columns
            or variant.table_columns_unread != base.table_columns_unread or variant.refused != base.refused):
        return {}
    changed = set(added_player_fields)
    for name in added_fields:
        changed.update(f.name for f in variant.components[name].fields)
    types = set()  # changed names of types
    for name in base.symbols.keys() | variant.symbols.keys():
        a, b = base.symbols.get(name), variant.symbols.get(name)
        if a is None or b is None or a.decl is not b.decl or a.kind != b.kind or a.type != b.type:
            changed.add(name)
            if (a is not None and a.kind in _TYPE_KINDS) or (b is not None and b.kind in _TYPE_KINDS):
                types.add(name)
    kept = [(d, notes[id(d)]) for d in variant.decls if id(d) in notes and notes[id(d)].decl is d]
    if not changed:
        return {id(d): note for d, note in kept}
    for d, note in kept:
        if note.names is None:
            note.names = _names_in(d)
    if types:
        declares: dict[int, set] = {}  # a declaration of the variant: the names it declares
        for name, sym in variant.symbols.items():
            declares.setdefault(id(sym.decl), set()).add(name)
        for comp in variant.components.values():
            declares.setdefault(id(comp), set()).update(f.name for f in comp.fields)
        todo = kept
        while todo:  # what a kept declaration that names a changed type declares is changed too
            later = []
            for d, note in todo:
                names = declares.get(id(d))
                if names and not note.names.isdisjoint(types):
                    changed |= names
                    types.update(n for n in names if n in variant.symbols and variant.symbols[n].kind in _TYPE_KINDS)
                else:
                    later.append((d, note))
            if len(later) == len(todo):
                break
            todo = later
    return {id(d): note for d, note in kept if note.names.isdisjoint(changed)}


_TYPE_KINDS = ("enum", "component")


def _added(base: dict, variant: dict) -> list | None:
    """The names a variant's table adds to the base game's (components, player fields); None when it
    removes or replaces one."""
    if any(variant.get(k) is not v for k, v in base.items()):
        return None
    return [k for k in variant if k not in base]


_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _names_in(decl) -> frozenset:
    """Every text in a declaration, and each word of a text that shows values in braces: more than
    the names it uses, never fewer."""
    node_classes = N.NODE_CLASSES
    found = set()
    stack = [decl]
    pop, push_all = stack.pop, stack.extend
    while stack:
        x = pop()
        kind = type(x)
        if kind is str:
            found.add(x)
            if "{" in x:
                found.update(_WORDS.findall(x))
        elif kind in node_classes:
            push_all(x.__dict__.values())
        elif kind is list or kind is tuple:
            push_all(x)
        elif kind is dict:
            push_all(x.keys())
            push_all(x.values())
    return frozenset(found)


def check_rules(rules: N.RulesFile, variants: list[str] | None = None, all_variants: bool = False,
                data_files: DataFiles | None = None, reuse: bool = True) -> SymbolTable:
    """Check the base game (with the given variants); with all_variants, each variant too. Raises RulesError.
    `data_files` (given) tells afterwards which data files the check read. A variant's check leaves
    out the declarations it keeps unchanged from a base game without problems
    (`unchanged_declarations`); reuse False checks them all (tests compare)."""
    bag = DiagnosticBag()
    data_files = data_files if data_files is not None else DataFiles()
    decls, settings = apply_variants(rules, variants or [], bag)
    notes: dict | None = {} if reuse and all_variants and rules.variants() else None
    table = check_decls(decls, bag, data_files, notes)
    checker = Checker(table, bag, data_files)
    for s in settings:
        checker.check_decl(s)
    if bag.items:  # a base game with problems: each variant is checked whole, its problems said as before
        notes = None
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
            vdecls, vsettings = apply_variants(rules, [name], vbag)
            vtable = build_symbols(vdecls, vbag, data_files)
            vchecker = Checker(vtable, vbag, data_files)
            vchecker.run(unchanged=unchanged_declarations(table, vtable, notes) if notes and not vbag.items else None)
            for s in vsettings:
                vchecker.check_decl(s)
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
    table.settings_overrides = settings  # type: ignore[attr-defined]
    return table
