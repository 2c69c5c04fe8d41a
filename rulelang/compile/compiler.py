"""The compiler: checked AST -> a ``Program`` of generated functions and flat op lists.

Expressions become generated functions ``fn(ctx)``. Statement blocks become ``Code``: a flat
list of ops with jumps, run by the VM in ``runtime``. A block's position (code id,
op index, local variables) is plain data, so a match can be saved while a player
is thinking and resumed exactly. Every op keeps the span of its statement, so a
rule that fails at run time names its line in the .rules file.

Expressions and defs are written by ``codegen.py``, statements compiled by ``statements.py``; this
module compiles the program itself: declarations, cards, defs, keywords, triggers and the game's
skeleton of rounds and phases.

The pydantic AST is only read here, once, before play.
"""
from __future__ import annotations

import re
from functools import partial
from contextlib import contextmanager
from typing import Any, Callable

from rulelang.language import nodes as N
from rulelang.model.board import Topology
from rulelang.core.budgets import BudgetExceeded, Meter, check_size, current_budgets
from rulelang.model.builtins import BUILTIN_VALUES, as_list, describe, holds_keyword
from rulelang.check.types import type_name
from rulelang.check.checker import covers_shape
from rulelang.check.symbols import SymbolTable
from rulelang.core.errors import Span
from rulelang.compile.statements import StatementCompiler
from rulelang.check.dependencies import (Fixer, always_reads, constant_defs, def_reads, impure_defs, lifted_conditions,
                                         neighbourhood_defs, recursive_defs, setting_defs, turn_defs)
from rulelang.engine.ops import FlowOp
from rulelang.engine.program import (Code, Ctx, GameInfo, KeywordInfo, PhaseInfo, Program, RuleError,
                                     TriggerInfo, ZoneInfo)
from rulelang.model.things import CardDef, EnumMap, KeywordValue

# ------------------------------------------------------------------ the compiler


class Compiler(StatementCompiler):
    """Checked declarations -> a ``Program``: expressions by the code generator (``codegen.Generator``),
    statements by ``StatementCompiler``, and here the program itself: zones, cards, defs,
    keywords, triggers, phases and the game's skeleton (``compile_flow``)."""

    scope: frozenset = frozenset()  # the rules names of the place being compiled (read as c.v[name])

    def __init__(self, table: SymbolTable, settings: dict[str, Any]):
        self.t = table
        self.settings = settings
        self.fused = True  # runs of statements written as one generated op (False: one op per statement)
        self._labels: dict = {}  # component name -> (its declaration, its label with conditions)
        self.slot_counter = 0
        self.program: Program | None = None
        self.cards_made = 0  # cards declared so far (the cards budget)
        self.tables: dict[str, list] = {}
        self.gen = None  # the code generator (codegen.Generator) while a program is compiled
        self.def_reads = None  # what each def reads (dependencies.def_reads)
        self.readers_by_key: dict[str, tuple] = {}  # see StatementCompiler.readers
        self._regions = None  # what fuse_regions needs of the block being compiled (codegen_statements.RegionRecords)
        self._load_time = None  # what a deck's expressions see at load time (_LoadTime)
        self.load_time_modules = 0  # generated modules of functions worked out at load time, so far
        self.def_decls: dict[str, N.DefDecl] = {}  # (filled by compile)

    # ---- expressions: each a generated function fn(ctx) (codegen.Generator)
    def expr(self, x) -> Callable:
        return self.gen.function(x)

    def opt(self, x):
        return None if x is None else self.expr(x)

    @contextmanager
    def scoped(self, names):
        """While compiling inside: `names` are rules names of the place too (a loop's, a def's)."""
        saved = self.scope
        self.scope = saved | frozenset(names)
        try:
            yield
        finally:
            self.scope = saved

    def table_rows(self, d) -> list:
        """The rows of a `table` declaration's data file (see tables.py), read once when the game is compiled."""
        from rulelang.language.tables import TableError, read_table

        cached = self.tables.get(d.name)
        if cached is not None:
            return cached
        src = d.source
        name = src.value if isinstance(src, N.StrLit) else self.settings.get(getattr(src, "id", ""))
        if not isinstance(name, str) or not name:
            raise RuleError(src.span, f'table "{d.name}" needs a file name, but got {describe(name)}')
        try:
            _header, rows = read_table(name, d.span.file)
        except TableError as exc:
            raise RuleError(src.span, f'table "{d.name}": {exc}') from None
        self.tables[d.name] = rows
        return rows

    def slot(self, what: str) -> str:
        self.slot_counter += 1
        return f"__{what}{self.slot_counter}"

    def compile(self, decls: list) -> Program:
        t = self.t
        g = t.game
        game = GameInfo(
            title=g.title, players_min=g.players_min, players_max=g.players_max,
            players_default=g.players_default or g.players_max, direction=g.direction,
            step=1 if g.direction == "clockwise" else -1, round_phases=list(g.round_phases), max_rounds=g.max_rounds,
        )
        program = Program(game=game, table=t, settings=dict(self.settings), components=dict(t.components))
        self.program = program
        self.def_decls = {d.name: d for d in decls if isinstance(d, N.DefDecl)}  # (as the variants leave them)
        from rulelang.compile.codegen import Generator

        self.gen = Generator(self, g.title)
        self.gen.turn_defs = turn_defs(decls)
        self.gen.constant_defs = constant_defs(decls)
        self.gen.recursive_defs = recursive_defs(decls)
        self.fixer = Fixer(decls, self.settings)  # what the settings fix: written in place
        self.gen.setting_defs = setting_defs(self.fixer)
        # each def as the generated code writes it: what the settings fix, simplified away
        self.gen.def_decls = {d.name: _simplified(d, self.fixer) for d in decls if isinstance(d, N.DefDecl)}
        # conditions that look around their card, as defs of their own (remembered by neighbourhood
        # if they qualify, below): a change of what they read must forget them too
        lifted = lifted_conditions(decls)
        analysed = decls + list(lifted.values())
        self.def_reads = def_reads(analysed)  # the generated defs' tables forget only what a change touches
        for d in decls:
            if isinstance(d, N.ZoneDecl):
                topo = None
                if d.board is not None:
                    b = d.board
                    cells = ((b.width or 0) * (b.height or 0) + (b.length or 0)
                             + ((2 * b.radius + 1) ** 2 if b.radius is not None else 0))
                    check_size(cells, d.span, "a board")
                    places = ()
                    if b.places is not None:
                        enum = self.t.symbols.get(b.places)
                        places = list(enum.decl.members) if enum is not None and enum.kind == "enum" else ()
                    topo = Topology(b.kind, b.neighbours, b.width, b.height, b.radius, b.length, b.loop, b.nodes, b.edges,
                                    shape=b.shape, places=places, capacities=dict(b.capacities))
                program.zones[d.name] = ZoneInfo(d.name, d.per_player, d.visibility, topo, d.span, layer_of=d.layer_of,
                                                 counts=self.zone_counts(d) if d.count is not None else None)
        for info in program.zones.values():  # a layer has the topology of its base board (checked: a board)
            base = info
            while base.topology is None and base.layer_of is not None:
                base = program.zones[base.layer_of]
            info.topology = base.topology
        self.impure_defs = impure_defs(analysed)
        self.gen.neighbourhood_defs = neighbourhood_defs(analysed, self.def_reads, self.impure_defs)
        self.gen.lifted = {key: _simplified(d, self.fixer) for key, d in lifted.items()
                           if d.name in self.gen.neighbourhood_defs}
        for d in decls:
            if isinstance(d, N.EnumDecl):
                program.member_colours.update({m: col for m, col in zip(d.members, d.member_colours) if col})
        def enter(d) -> None:  # the code generator numbers its names within each declaration
            name = getattr(d, "name", None)
            self.gen.enter(type(d).__name__[:2], name if isinstance(name, str) else None)

        for d in decls:
            if isinstance(d, (N.ComponentDecl, N.PlayerDecl, N.VarDecl, N.DefDecl, N.ProcDecl)):
                enter(d)
            if isinstance(d, N.ComponentDecl):
                if d.discards_to is not None:
                    with self.scoped({"self"}):
                        program.discard_zone[d.name] = self.expr(d.discards_to)
            elif isinstance(d, N.PlayerDecl):
                for f in d.fields:
                    program.player_fields.append((f.name, self.opt(f.default) or _type_default(f.type, self.t.symbols)))
            elif isinstance(d, N.VarDecl):
                program.global_vars.append((d.name, self.opt(d.default) or _type_default(d.type, self.t.symbols)))
            elif isinstance(d, N.DefDecl):
                program.defs[d.name] = self.compile_def(d)
            elif isinstance(d, N.ProcDecl):
                params = [p.name for p in d.params]
                program.procs[d.name] = (params, None)
        for d in decls:
            enter(d)
            if isinstance(d, N.ProcDecl):
                params = [p.name for p in d.params]
                program.procs[d.name] = (params, self.code(d.name, "proc", d.span, d.body, params))
            elif isinstance(d, N.KeywordDecl):
                self.compile_keyword(d)
            elif isinstance(d, N.PhaseDecl):
                unless = self.opt(d.unless)
                program.phases[d.name] = PhaseInfo(d.name, unless, self.code(d.name, "phase", d.span, d.body))
            elif isinstance(d, N.SetupDecl):
                program.setup = self.code("setup", "setup", d.span, d.body)
            elif isinstance(d, N.ResultDecl):
                program.result = self.code("result", "result", d.span, d.body)
            elif isinstance(d, N.TriggerDecl):
                self.compile_trigger(d, None)
            elif isinstance(d, N.AlwaysDecl):
                program.always.append(self.code(d.name or "always", "always", d.span, d.body))
            elif isinstance(d, N.CardsDecl):
                self.compile_cards(d)
        self.gen.enter("flow", "")
        if "heuristic" in program.defs:
            program.heuristic = program.defs["heuristic"]
        program.flow = self.compile_flow()
        program.has_continuous = bool(program.always) or any(k.always for k in program.keywords.values())
        if not any(k.always for k in program.keywords.values()):
            program.always_reads = always_reads(decls, self.fixer)
        program.at_timings = {(k[1], k[2]) for table in (program.triggers, program.keyword_triggers)
                              for k in table if k[0] == "at"}
        self.gen.finish()
        program.generated = self.gen
        self.gen = None
        return program

    def compile_def(self, d: N.DefDecl):
        """A def as a function `(ctx, args)` (codegen_defs.DefWriter.define: remembered when pure)."""
        written = self.gen.def_decls.get(d.name, d)  # (simplified by the settings)
        return self.gen.define(written, d.name not in self.impure_defs)

    def compile_keyword(self, d: N.KeywordDecl):
        params = [p.name for p in d.params]
        scope = set(params) | {"self"}
        with self.scoped(scope):
            usable = self.opt(d.usable)
        effect = self.code(d.name, "keyword", d.effect_span or d.span, d.effect, list(scope)) if d.effect is not None else None
        always = [self.code(f"{d.name}:always", "always", a.span, a.body, list(scope)) for a in d.always]
        self.program.keywords[d.name] = KeywordInfo(d.name, params, usable, effect, always, d.span, d.doc)
        for trig in d.triggers:
            self.compile_trigger(trig, d.name, scope)

    def compile_trigger(self, d: N.TriggerDecl, keyword: str | None, extra_scope=frozenset()):
        names = set(extra_scope)
        if d.kind in ("enter", "leave"):
            names.add(d.var)
            key = (d.kind, d.zone)
            self.program.watched_zones.add(d.zone)
        elif d.kind == "signal":
            names.update(d.params)
            key = ("signal", d.signal)
        else:
            key = ("at", d.when, d.timing, d.phase)
        with self.scoped(names):
            cond = self.opt(d.cond)
        code = self.code(d.describe(), "trigger", d.span, d.body, names)
        info = TriggerInfo(code, d.var, list(d.params), cond, keyword, d.span, d.describe())
        table = self.program.keyword_triggers if keyword else self.program.triggers
        table.setdefault(key, []).append(info)

    def compile_cards(self, d: N.CardsDecl):
        program = self.program
        defs: list[CardDef] = []
        limit = current_budgets().cards
        total = self.cards_made
        # first what each entry's values are made by: literals as they are, other expressions as
        # generated functions, all of the block's in one module (load_time_functions); a condition
        # field's, which a match works out, by the game's own module
        asked: list = []
        plans = []

        def later(node, names: set):  # a literal (made anew for each card), or the index of its function
            if _folded(node, names, self.t.symbols) is not _NOT_FOLDED:
                return partial(_folded, node, names, self.t.symbols)
            asked.append((node, names))
            return len(asked) - 1

        for entry in d.entries:
            comp = self.t.components[entry.ctor.component]
            fields = {f.name: f for f in comp.fields}
            names: set = set()
            colls = []
            for gen in entry.gens:
                colls.append(later(gen.coll, set(names)))
                names.add(gen.var)
            args, given = [], set()
            for arg in entry.ctor.args:
                f = fields[arg.name]
                given.add(arg.name)
                if type_name(f.type) == "condition":
                    with self.scoped(names | {"self"}):
                        args.append((arg, True, self.expr(arg.value)))
                else:
                    args.append((arg, False, later(arg.value, names)))
            defaults = {f.name: later(f.default, set()) for f in comp.fields
                        if f.name not in given and f.default is not None}
            plans.append((entry, comp, colls, args, defaults))
        fns = self.load_time_functions(asked) if asked else []

        def value_of(made, combo: dict, span: Span):
            return made() if type(made) is partial else fns[made](self.load_time_ctx(combo, span))

        for entry, comp, colls, args, defaults in plans:
            label, back = self.compile_label(comp), self._label_template(comp.back)
            combos = [dict()]
            for gen, coll in zip(entry.gens, colls):
                new = []
                for combo in combos:
                    for value in as_list(value_of(coll, combo, gen.coll.span)):
                        new.append({**combo, gen.var: value})
                    if total + len(new) * entry.copies > limit:
                        raise BudgetExceeded(entry.span, "cards", f"this would make more than {limit:,} cards", limit)
                combos = new
            if total + len(combos) * entry.copies > limit:
                raise BudgetExceeded(entry.span, "cards", f"this would make {total + len(combos) * entry.copies:,} cards",
                               limit)
            total += len(combos) * entry.copies
            for combo in combos:
                values: dict[str, Any] = {}
                code: dict[str, Any] = {}
                for arg, condition, made in args:
                    if condition:
                        code[arg.name] = (made, dict(combo))
                    else:
                        values[arg.name] = value_of(made, combo, arg.value.span)
                for f in comp.fields:
                    if f.name in values or f.name in code:
                        continue
                    if f.default is not None:
                        values[f.name] = value_of(defaults[f.name], {}, f.default.span)
                    else:
                        values[f.name] = _type_default(f.type, self.t.symbols)(None)
                program.keyword_fields.update(f for f, value in values.items() if holds_keyword(value))
                name = values.get("name") if isinstance(values.get("name"), str) else None
                shape = covers_shape(comp.covers)[0] if comp.covers is not None else None
                for _ in range(entry.copies):
                    defs.append(CardDef(len(defs), d.name, comp.name, values, code, name, entry.span, label, back))
                    defs[-1].shape = shape
        program.card_sets[d.name] = defs
        self.cards_made = total
        if d.zone is not None:
            program.auto_sets.append((d.name, self.expr(d.zone)))

    def const(self, x, combo: dict, span: Span | None = None):
        """The value of an expression worked out now, at load time (a setting's default), with the
        names of `combo`: a literal as it is, anything else by a generated function."""
        value = _folded(x, set(combo), self.t.symbols)
        if value is not _NOT_FOLDED:
            return value
        (fn,) = self.load_time_functions([(x, set(combo))])
        return fn(self.load_time_ctx(combo, span or x.span))

    def zone_counts(self, d: N.ZoneDecl) -> dict[int, int]:
        """How many zones the family `zone NAME[COUNT]` has for each player count the game allows (the
        checker lets COUNT read only the player count and the settings)."""
        (fn,) = self.load_time_functions([(d.count, set())])
        counts = {}
        game = self.t.game
        for n in range(max(game.players_min, 1), max(game.players_max, game.players_min, 1) + 1):
            seats = _NoState(d.count.span)
            seats.players = [None] * n
            count = fn(Ctx({}, seats, self.load_time_ctx({}, d.count.span).vm))
            if type(count) is not int or count < 0:
                raise RuleError(d.count.span, f"the number of {d.name} zones with {n} players is {describe(count)}: "
                                              "it must be a whole number, 0 or more")
            check_size(count, d.count.span, f"a family of {d.name} zones")
            counts[n] = count
        return counts

    @contextmanager
    def load_time_module(self):
        """A generator of functions worked out at load time (`Generator.for_load_time`: nothing is
        remembered, there is no match yet), outside the scope being compiled; at the end, the defs
        its functions call are written, and the module is compiled."""
        from rulelang.compile.codegen import Generator

        gen, saved = Generator.for_load_time(self), self.scope
        try:
            yield gen
            self.scope = frozenset()
            gen.define_called()
        finally:
            self.scope = saved
        gen.finish()

    def load_time_functions(self, asked: list) -> list:
        """Functions fn(ctx) of expressions worked out at load time, each (node, the names it may
        read from its ctx): one small generated module for all of them, with the defs they call."""
        with self.load_time_module() as gen:
            fns = []
            for node, names in asked:
                self.scope = frozenset(names)
                gen.enter("Lt")
                fns.append(gen.function(node))
        return fns

    def load_time_def(self, name: str):
        """A def as a function `(ctx, args)` for load time (a deck's values), in a module of its own."""
        with self.load_time_module() as gen:
            self.scope = frozenset()
            gen.enter("De", name)
            fn = gen.define(gen.def_decls.get(name) or self.def_decls[name], True)
        return fn

    def load_time_ctx(self, combo: dict, span: Span) -> Ctx:
        """What a deck's expressions see while its cards are made, at load time: their own names,
        no state (a rules error at `span` if they read one), and the defs, settings and tables."""
        if self._load_time is None:
            self._load_time = _LoadTime(self)
        return Ctx(dict(combo), _NoState(span), self._load_time)

    def compile_label(self, comp: N.ComponentDecl):
        plain = self._label_template(comp.label)
        if not comp.labels_if:
            return plain
        known = self._labels.get(comp.name)
        if known is not None and known[0] is comp:  # (each `cards` entry of the component asks again)
            return known[1]
        # `label "..." if COND`: the first case whose condition holds, else the plain label
        conditions = self.load_time_functions([(case.when, {f.name for f in comp.fields}) for case in comp.labels_if])
        cases = [(when, self._label_template(case.text), case.span)
                 for when, case in zip(conditions, comp.labels_if)]

        def render(e):
            for when, template, span in cases:
                if when(self.load_time_ctx(e.attrs, span)):
                    return template(e)
            return plain(e) if plain is not None else None

        self._labels[comp.name] = (comp, render)
        return render

    def _label_template(self, label: str | None):
        if not label:
            return None
        # "{kind} {point}" split once into texts and field names: ["", "kind", " ", "point", ""]
        parts = re.split(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", label)
        texts, keys = parts[0::2], parts[1::2]

        def render(e):
            attrs = e.attrs
            out = [texts[0]]
            for key, text in zip(keys, texts[1:]):
                out.append(describe(attrs[key]) if key in attrs else key)  # not a field: the name as written
                out.append(text)
            return "".join(out)

        return render

    def compile_flow(self) -> Code:
        """The game's skeleton: setup, then rounds of phases until the game ends, then the result."""
        program = self.program
        span = self.t.game.span
        flow = program.new_code("game", "flow", span)
        ops = flow.ops
        ops.append(FlowOp("setup", None, span))          # 0
        ops.append(FlowOp("handler_game", None, span))   # 1 registers `end game` target
        round_top = len(ops)
        ops.append(FlowOp("round_start", None, span))
        for name, pspan in zip(self.t.game.round_phases, self.t.game.round_spans):
            ops.append(FlowOp("phase", name, pspan))
            ops.append(FlowOp("phase_end", name, pspan))
        program.round_end_pc = len(ops)
        ops.append(FlowOp("round_end", None, span))
        ops.append(FlowOp("round_loop", round_top, span))
        result_pc = len(ops)
        ops.append(FlowOp("result", None, span))
        ops.append(FlowOp("over", None, span))
        ops[1].arg = result_pc
        ops[round_top].arg = result_pc
        program.result_pc = result_pc
        return flow


class _NoState:
    """Stands in for the state while card values are computed at load time."""

    def __init__(self, span: Span):
        self.span = span

    def __getattr__(self, name):
        raise RuleError(self.span, "a card's printed values must not depend on the match (they are computed before "
                        "play)")


class _LoadTime:
    """Stands in for the VM while a deck's cards are made at load time: the program, with its defs
    generated on first use for load time (`Compiler.load_time_def`), and a meter of the budgets (a
    def that never stops is a rules error, not a hang)."""

    def __init__(self, compiler):
        self.compiler = compiler
        self.meter = Meter(current_budgets())
        self.defs: dict[str, Any] = _LoadTimeDefs(compiler)

    @property
    def program(self):
        return self

    def __getattr__(self, name):  # anything else a value may ask of the program: the program's own
        return getattr(self.compiler.program, name)


class _LoadTimeDefs(dict):
    def __init__(self, compiler):
        super().__init__()
        self.compiler = compiler

    def __missing__(self, name):
        fn = self[name] = self.compiler.load_time_def(name)
        return fn


_NOT_FOLDED = object()


def _folded(node, names: set, symbols: dict):
    """The value of a literal of the rules (a number, a text without values in it, true, false,
    none, a member or keyword named, and lists and cells of them), made anew at each call; else
    _NOT_FOLDED. A deck's cards are mostly such values: they need no generated code."""
    kind = type(node)
    if kind in (N.IntLit, N.BoolLit):
        return node.value
    if kind is N.NoneLit:
        return None
    if kind is N.StrLit:
        return node.value if "{" not in node.value else _NOT_FOLDED
    if kind is N.Name:
        sym = symbols.get(node.id)
        if node.id in names or node.id in BUILTIN_VALUES or sym is None:
            return _NOT_FOLDED
        if sym.kind == "member":
            return node.id
        if sym.kind == "keyword":
            return KeywordValue(node.id)
        return _NOT_FOLDED
    if kind is N.MapLit:  # {red: 2}: a map of every member of the enum of its keys (0 for the others)
        sym = symbols.get(node.entries[0].key) if node.entries else None
        if sym is None or sym.kind != "member" or not isinstance(sym.decl, N.EnumDecl):
            return _NOT_FOLDED
        values = dict.fromkeys(sym.decl.members, 0)
        for entry in node.entries:
            value = _folded(entry.value, names, symbols)
            if type(value) is not int:
                return _NOT_FOLDED
            values[entry.key] = value
        return EnumMap(sym.decl.name, values)
    if kind is N.ListLit or kind is N.CellLit:
        items = [_folded(i, names, symbols) for i in (node.items if kind is N.ListLit else (node.a, node.b))]
        if any(i is _NOT_FOLDED for i in items):
            return _NOT_FOLDED
        return items if kind is N.ListLit else tuple(items)
    return _NOT_FOLDED


def _type_default(t: N.TypeRef, symbols: dict | None = None):
    """The starting value of a field or variable declared without one, as a function of the ctx."""
    name = type_name(t)
    if name.startswith("map:") and symbols is not None and name[4:] in symbols:
        members = tuple(symbols[name[4:]].decl.members)  # every member holds 0
        return lambda c: EnumMap(name[4:], dict.fromkeys(members, 0))
    if name.startswith("list:"):
        return lambda c: []  # (a new list each time)
    value = {"int": 0, "bool": False, "str": ""}.get(name)
    return lambda c: value


def _simplified(d: N.DefDecl, fixer: Fixer) -> N.DefDecl:
    body = fixer.simplify(d.body)
    return d if body is d.body else d.model_copy(update={"body": body})


def compile_program(decls: list, table: SymbolTable, settings: dict[str, Any], fused: bool = True) -> Program:
    """`fused=False`: every statement one op (see loader.load)."""
    compiler = Compiler(table, settings)
    compiler.fused = fused
    return compiler.compile(decls)
