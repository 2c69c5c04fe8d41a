"""The code generator: checked expressions and defs -> Python source, one module per game.

The compiler (``compiler.py``) asks this module for every expression it needs as a function
``fn(ctx)``. Instead of a tree of closures, the expression is written out as Python source: names,
fields, arithmetic, comparisons, boolean operators, built-in calls with positional arguments,
quantifiers and list comprehensions as real Python comprehensions with real Python locals, and def
calls as direct calls of generated functions with positional parameters. Every function of a game
(and of one set of variants and settings) goes into ONE source, compiled once with ``compile()``
and cached by the hash of that source (with rulelang's and Python's versions): in the process, and
as marshalled code in the user's cache folder (`cache_dir()`), so a second load, even by another
process, does not compile again (Jinja2 compiles and caches a template the same way; codegen_cache).

The generator writes every kind of expression itself; it is the only engine of expressions. A part
nested deeper than Python compiles is written as a function of its own (``Generator.split``).
Values worked out at load time (a deck's cards, a setting's default) are generated functions too,
of a small module of their own (``Generator.for_load_time``), and a scenario's expressions are
written beside its game's module (``Generator.beside``).

Errors keep naming their rules line: the generator keeps a line map (generated line -> the rules
construct and its span). A built-in that fails inside generated code is found on its line of the
traceback and becomes a ``RuleError`` at the call's span, in the rules' words; everything that can
fail with a value-dependent message (fields, arithmetic, comparisons, indexes) goes through helpers
that raise their errors themselves.

This module holds the ``Generator`` with its expressions; its other parts are mixins of the
``codegen_*`` modules, ``codegen_cache`` keeps the compiled code, and ``codegen_helpers`` is what the
generated code calls at run time.
"""
from __future__ import annotations

import hashlib
import linecache
import re
import sys
import types
from contextlib import ExitStack, contextmanager
from typing import Any, Callable

from rulelang.language import nodes as N
from rulelang.model.builtins import RuleFailure
from rulelang.model.things import KeywordValue

from rulelang.check.dependencies import TEMPLATE_NAMES, shown_node
from rulelang.language.nodes import nodes_in
from rulelang.engine.program import Ctx, RuleError
from rulelang.engine.values import _arith, _plain
from rulelang.compile.codegen_cache import GENERATOR_VERSION, _compiled
from rulelang.compile.codegen_helpers import _BIG, _FAILURES, _HELPERS, TRANSLATED, _placeholder, ordered_comparisons
from rulelang.compile.codegen_facts import _ENTITY_SLOTS, INT, PAIR, NodeFacts, _literal_range
from rulelang.compile.codegen_loops import LoopWriter
from rulelang.compile.codegen_defs import DefWriter
from rulelang.compile.codegen_statements import StatementWriter

# operations nested deeper than this are written as calls of their helpers (one level of Python's
# parentheses each, not three): a long sum still compiles (Python's parser stops at 200 levels)
ARITH_IN_PLACE = 16

# expression levels written inside one function (Generator.x); a part nested deeper is a function
# of its own (Generator.split). Each level is at most a few of Python's parentheses (it allows 200)
SPLIT_DEPTH = 24
_LEAVES = (N.IntLit, N.BoolLit, N.NoneLit, N.Name)

# the generated code's helper for each operator but "+" (_add, values.add_values: it also joins lists and texts)
_ARITHMETIC = {"-": "_sub", "*": "_mul", "/": "_div", "%": "_mod"}

# what read_once finds in a function's body: the cells of a shared board, the current player, a loop
_BOARD_CELLS = re.compile(r"c\.s\.zones\[('[A-Za-z_][A-Za-z_0-9]*')\]\.cells\.stacks")
_CURRENT = "_current(c.s)"  # the current player, as g_Name writes it
# the built-in values (model.builtins.BUILTIN_VALUES), and names whose kind alone says how they are read
_BUILTIN_NAMES = {"players": "_players_in(c.s)", "all_players": "c.s.players", "round": "c.s.round", "current": _CURRENT,
                  "phase": "c.s.phase", "player_count": "len(c.s.players)", "eliminated": "_eliminated(c.s)"}
_NAMED = {"var": "c.s.globals[{}]", "member": "{}", "phase": "{}", "component": "_cards_of_component(c.s, {})",
          "cards": "_cards_of_set(c.s, {})"}
_CALLED = re.compile(r"\bD_(\w+)")  # the defs a generated function calls (define_called)
_LOOP = re.compile(r"^\s*for |\bfor\b.*\bin\b", re.M)  # a loop, or a comprehension


# ------------------------------------------------------------------ the generator


class Generator(NodeFacts, LoopWriter, DefWriter, StatementWriter):
    """Writes the Python source of one game's expressions and defs; `finish()` compiles it. The
    expressions are written here; what an expression is for sure (NodeFacts), calls, quantifiers as
    loops and defs written in place (LoopWriter), defs as functions, remembered or not
    (DefWriter), and statements as ops (StatementWriter) by its parts."""

    def __init__(self, compiler, label: str):
        self.cc = compiler
        self.label = label
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.ns.update({"_Ctx": Ctx, "_RuleError": RuleError, "_arith": _arith, "_translate": self._translate,
                        "__name__": "rulelang_generated"})
        order = {m: (d.name, i) for d in compiler.t.decls if isinstance(d, N.EnumDecl) for i, m in enumerate(d.members)}
        if order:  # members of one enum are ordered by their place in it (`bronze < gold`)
            self.ns.update(ordered_comparisons(order))
        self.sources: list[str] = []       # finished functions
        self.expression_bodies: dict[int, str] = {}  # id(an expression's function) -> its body (function)
        self.entries: list[tuple] = []     # marked constructs: (kind, span, detail)
        self.stubs: list[tuple[types.FunctionType, str]] = []
        self.part = "m"  # the declaration being compiled: names are numbered within it (fresh)
        self.numbers: dict[str, int] = {}
        self.pylocals: dict[str, str] = {}  # rules name -> Python local, inside the function being written
        # the Python locals that hold a card for sure (a loop over a zone, the cards on a cell, the
        # cards next to one): their fields are read without asking what they hold (g_Attr); and,
        # as INT + name, those that hold a whole number for sure (a loop over `0..3`): arithmetic
        # on them asks nothing of them (is_int). One set, so that every place that enters or leaves
        # a function or a scope keeps both
        self.card_locals: frozenset = frozenset()
        self.no_walrus = False
        # while a def is written: its parameters' Python names that nothing in its body binds again,
        # and the coordinates of them read once at its top, (name, index) -> Python local (g_Index)
        self.fixed_params: set = set()
        self.param_reads: dict = {}
        self.arith_depth = 0  # operations written inside one another (g_BinOp)
        self.depth = 0  # expressions written inside one another in the function being written (x, split)
        self.linemap: list = []
        self.filename = "<rulelang generated>"
        self.source = ""
        self.def_decls: dict = {}  # the defs of the game by name (leaves are written inline: inline_leaf)
        self._inlinable: dict[str, bool] = {}  # per def: a leaf without lists (inline_leaf), decided once
        self.hoisted: dict[int, str] = {}  # calls already worked out into Python locals (body_lines), by id
        self.constant_defs: set[str] = set()  # defs with the same value all game (dependencies.constant_defs)
        self.setting_defs: dict = {}  # defs whose value the settings fix, and that value (dependencies.setting_defs)
        # defs of a card and the cards next to it (dependencies.neighbourhood_defs)
        self.neighbourhood_defs: set[str] = set()
        # list conditions that look around their card, as such defs (dependencies.lifted_conditions):
        # (line, column, variable) of the condition -> its def; and those written so far
        self.lifted: dict = {}
        self.lifted_written: set[str] = set()
        self.turn_defs: set[str] | None = None  # defs that read the turn (None: any may); see dependencies.turn_defs
        self.recursive_defs: set[str] | None = None  # defs that may call themselves (None: any may)
        self.load_time = False  # functions worked out at load time (for_load_time)
        self.defined: set[str] = set()  # the defs written so far
        self.def_functions: dict | None = None  # the module's functions of defs, once compiled (beside)
        self.on_disk = True  # the compiled module kept in the cache folder too (cache_dir)

    @classmethod
    def for_load_time(cls, compiler) -> "Generator":
        """A generator of functions worked out at load time (a deck's values, a setting's default),
        before any match: it knows what the game's generator knows of its defs, and writes each def
        to be evaluated at each call (nothing is remembered: there is no state to stamp a value with);
        `define_called` writes the defs its functions call, `finish` compiles them at once."""
        main = compiler.gen
        title = getattr(getattr(compiler.t, "game", None), "title", None) or "game"
        compiler.load_time_modules += 1  # (each its own label: its units are kept apart on disk, _unit_code)
        gen = cls(compiler, f"{title} (load time {compiler.load_time_modules})")
        gen.load_time = True
        gen.def_decls = dict(compiler.def_decls)
        if main is not None:
            for attr in ("def_decls", "constant_defs", "setting_defs", "turn_defs", "recursive_defs"):
                setattr(gen, attr, getattr(main, attr))
        return gen

    @classmethod
    def beside(cls, compiler, game: "Generator") -> "Generator":
        """A generator of more functions for a game already compiled (a scenario's expressions and
        statements, on a compiler of its own): they call the game's own defs, as its module has them."""
        gen = cls(compiler, f"{game.label} (more)")
        if game.def_functions is None:
            game.def_functions = {k: v for k, v in game.ns.items() if k.startswith(("D_", "E_", "P_", "R_"))}
        gen.ns.update(game.def_functions)
        gen.on_disk = False  # (small and made anew each time: kept in this process only)
        for attr in ("def_decls", "constant_defs", "setting_defs", "turn_defs", "recursive_defs", "neighbourhood_defs",
                     "_inlinable"):
            setattr(gen, attr, getattr(game, attr))
        gen.defined = set(game.defined)
        return gen

    def define_called(self) -> None:
        """(load time) The defs that the functions written so far call, and those that these call."""
        while True:
            wanted = sorted({n for n in _CALLED.findall("\n".join(self.sources)) if n in self.def_decls} - self.defined)
            if not wanted:
                return
            for name in wanted:
                self.enter("De", name)
                self.define(self.def_decls[name], True)

    # ---- bookkeeping
    def fresh(self, prefix: str) -> str:
        """A new name, numbered within the declaration being compiled (`enter`): an edit of one
        declaration renames nothing in the others, so their generated code stays the same (and
        compiled: _unit_code)."""
        n = self.numbers[self.part] = self.numbers.get(self.part, 0) + 1
        return f"{prefix}{self.part}_{n}"

    def enter(self, kind: str, name: str | None = None) -> None:
        """Names made from now on belong to this declaration (`kind`: a few letters, such as "De" for
        a def; `name`: its name, or None for one of a kind without names, numbered in order)."""
        if name is None:
            name = str(self.numbers.get("#" + kind, 0))
            self.numbers["#" + kind] = int(name) + 1
        elif not (name.isascii() and name.replace("_", "a").isalnum()):
            name = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        self.part = f"{kind}{name}"

    def const(self, value, prefix: str = "K") -> str:
        name = self.fresh(prefix)
        self.ns[name] = value
        return name

    def mark(self, kind: str, span, detail=None) -> str:
        """Start a new line for a construct whose failures are reported at `span`."""
        self.entries.append((kind, span, detail))
        return f"\n\x01{len(self.entries) - 1}\x02"

    def stub(self, fname: str) -> Callable:
        fn = types.FunctionType(_placeholder.__code__, self.ns, fname)
        self.stubs.append((fn, fname))
        return fn

    # ---- entry points used by the compiler
    def function(self, x) -> Callable:
        """A top-level expression: a function fn(ctx). Its body (which leaves the value in `value`)
        is kept in `expression_bodies`: a fused region writes it in place of a call (_BlockWriter.value_of)."""
        with self.new_function():
            body = self.read_once("\n".join(self.body_lines(x, "value", "        ")), "        ")
        fname = self.fresh("e")
        self.sources.append(_value_function(fname, "c", x, body))
        stub = self.stub(fname)
        self.expression_bodies[id(stub)] = body
        return stub

    def read_once(self, body: str, indent: str) -> str:
        """An expression's or a def's body with what stays the same while it is worked out read once,
        at its top, not at each read in its loops: the cells of each board it reads (`c.s.zones['grid']
        .cells.stacks`, the table of a shared board the rules name: the built-in `at`), and the current
        player when a loop reads it. Such a board always exists, and nothing moves and no turn passes
        while an expression is worked out, so each is the same object throughout. (Another zone given
        to `at` fails where it is read, at the call's line.)"""
        if self.load_time:  # (no match: what a function reads of it fails where it is read)
            return body
        zones = self.cc.program.zones
        boards = [z for z in dict.fromkeys(_BOARD_CELLS.findall(body))
                  if (info := zones.get(z[1:-1])) is not None and info.topology is not None and not info.per_player]
        top = ""
        if boards:
            names = {zone: f"_cells{i}" for i, zone in enumerate(boards)}
            body = _BOARD_CELLS.sub(lambda m: names.get(m.group(1), m.group(0)), body)
            top = "".join(f"{indent}{names[zone]} = c.s.zones[{zone}].cells.stacks\n" for zone in boards)
        if _CURRENT in body and _LOOP.search(body):  # (read once even where only one branch needs it: a call)
            body = body.replace(_CURRENT, "_current0")
            top += f"{indent}_current0 = {_CURRENT}\n"
        return top + body

    @contextmanager
    def setting(self, **values):
        """While inside: the generator's attributes named set to these values (then put back)."""
        saved = {name: getattr(self, name) for name in values}
        self.__dict__.update(values)
        try:
            yield
        finally:
            self.__dict__.update(saved)

    def new_function(self, **values):
        """While another function is written (an expression's, a continuous rule's, an option's
        walker), possibly in the middle of a def's: no Python locals, and no name is one of the def's
        parameters (g_Index reads those once, at the def's top, which this function does not have)."""
        return self.setting(**{"pylocals": {}, "no_walrus": False, "card_locals": frozenset(),
                               "fixed_params": set(), "param_reads": {}, **values})

    def finish(self) -> None:
        """Assemble the module, compile it (or take it from the cache) and bind every stub."""
        out: list[str] = []
        linemap: list = []
        units: list[tuple[int, str]] = []  # each source's first line (from 0) and text
        for src in self.sources:
            first = len(out)
            for raw in src.split("\n"):
                entry = None
                if "\x01" in raw:
                    head, _, rest = raw.partition("\x01")
                    number, _, tail = rest.partition("\x02")
                    entry = self.entries[int(number)]
                    raw = "            " + head + tail
                out.append(raw)
                linemap.append(entry)
            units.append((first, "\n".join(out[first:]) + "\n"))
        source = "\n".join(out) + "\n"
        from rulelang import __version__

        key = hashlib.sha256(f"{__version__}/{GENERATOR_VERSION}/{sys.version}\n{source}".encode()).hexdigest()
        label = "".join(ch if ch.isprintable() else "?" for ch in self.label)  # a title may hold any character
        self.filename = f"<rulelang generated {label} {key[:12]}>"
        self.source = source
        self.linemap = linemap
        codes = _compiled(units, self.filename, key, label, self.on_disk)
        linecache.cache[self.filename] = (len(source), None, source.splitlines(True), self.filename)
        for code in codes:  # the module's statements in order, as exec of the whole module would run them
            exec(code, self.ns)
        for fn, fname in self.stubs:
            real = self.ns[fname]
            fn.__code__ = real.__code__
            fn.__defaults__ = real.__defaults__


    # ---- errors
    def _translate(self, exc: BaseException) -> BaseException:
        """A Python exception out of generated code, as a rules error at the construct that failed."""
        line = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        entry = self.linemap[line - 1] if line is not None and 1 <= line <= len(self.linemap) else None
        if entry is None:
            return exc
        kind, span, detail = entry
        if kind == "builtin":
            if isinstance(exc, RuleFailure):
                return RuleError(span, str(exc))
            if isinstance(exc, _FAILURES):
                return RuleError(span, f"{detail}() could not use these values: {_plain(exc)}")
        elif kind == "at" and isinstance(exc, _FAILURES):
            return RuleError(span, f"at() could not use these values: {_plain(exc)}")
        return exc

    # ---- expressions
    def x(self, node) -> str:
        self.depth += 1
        try:
            if self.depth > SPLIT_DEPTH and type(node) not in _LEAVES:
                return self.split(node)
            return getattr(self, "g_" + type(node).__name__)(node)
        finally:
            self.depth -= 1

    def split(self, node) -> str:
        """A sub-expression nested deeper than one function holds (SPLIT_DEPTH levels of x, or loops
        in loops in body_lines) written as a function of its own, H...(c, locals...), called in
        its place: Python then compiles every function of a game, however deeply its rules nest.
        Its locals are passed to it; nothing read once at the top of a def (g_Index) is."""
        if any(id(n) in self.hoisted for n in nodes_in(node)):  # (a call worked out just before: left in place)
            return getattr(self, "g_" + type(node).__name__)(node)
        params = list(dict.fromkeys(v for v in self.pylocals.values() if v.isidentifier()))
        fname = self.fresh("H")
        with self.setting(depth=0, no_walrus=False, fixed_params=set(), param_reads={}):
            body = "\n".join(self.body_lines(node, "value", "        "))
        self.sources.append(_value_function(fname, ", ".join(["c"] + params), node, body))
        return f"{fname}({', '.join(['c'] + params)})"

    def span(self, node) -> str:
        return self.const(node.span, "S")

    def g_IntLit(self, x):
        return repr(x.value)

    def g_BoolLit(self, x):
        return "True" if x.value else "False"

    def g_NoneLit(self, x):
        return "None"

    def text(self, value: str) -> str:
        """A text of the rules as Python: its literal, or a constant's name when it could be taken for
        generated code that read_once rewrites (a text holding "c.s" or "_current")."""
        if "c.s" in value or "_current" in value:
            return self.const(value, "K")
        return repr(value)

    def g_StrLit(self, x):
        if "{" not in x.value:
            return self.text(x.value)
        # a text showing values, "{p} draws {n} cards": the compiler's template, as a join
        parts, pos = [], 0
        for m in TEMPLATE_NAMES.finditer(x.value):
            if m.start() > pos:
                parts.append(self.text(x.value[pos:m.start()]))
            parts.append(f"_describe({self.x(shown_node(m.group(1), x.span))})")
            pos = m.end()
        if pos < len(x.value):
            parts.append(self.text(x.value[pos:]))
        return "''.join((" + ", ".join(parts) + ",))"

    def g_Name(self, x):
        name = x.id
        if name in self.pylocals:
            return self.pylocals[name]
        if name in self.cc.scope:
            return f"c.v[{name!r}]"
        if name in _BUILTIN_NAMES:
            return _BUILTIN_NAMES[name]
        sym = self.cc.t.symbols.get(name)
        if sym is None:
            raise RuleError(x.span, f'"{name}" is not defined')
        kind = sym.kind
        if kind in _NAMED:
            return _NAMED[kind].format(repr(name))
        if kind == "setting":
            value = self.cc.settings[name]
            if type(value) in (int, str, bool) or value is None:
                return repr(value)
            return self.const(value)
        if kind == "table":
            return self.const(self.cc.table_rows(sym.decl))
        if kind == "enum":
            return f"list({self.const(tuple(sym.decl.members))})"
        if kind == "zone" and sym.decl.count is not None:  # a family of zones: all of them, in order
            return f"_zone_family(c, {name!r})"
        if kind == "zone":
            return f"c.s.zones[{name!r}]"
        if kind == "def" and name in self.setting_defs:  # fixed by the settings (dependencies.setting_defs)
            return repr(self.setting_defs[name])
        if kind == "def" and name in self.def_decls:
            return f"D_{name}(c)"
        if kind == "def":  # (a def the generator was not given: called as the program has it)
            return f"c.vm.program.defs[{name!r}](c, ())"
        if kind == "keyword":
            return self.const(KeywordValue(name))
        raise RuleError(x.span, f'"{name}" cannot be used as a value')

    def loop_scope(self, var: str, coll):
        """local_scope for a loop's name over `coll`, with what the collection says its items are."""
        return self.local_scope([var], self.yields_cards(coll), self.yields_ints(coll), self.yields_pairs(coll))

    @contextmanager
    def local_scope(self, names: list[str], cards: bool = False, ints: bool = False, pairs: bool = False):
        """Enter a comprehension: its names become Python locals (and rules names of the compiler's
        scope). With `cards`, they hold cards (yields_cards); with `ints`, whole numbers
        (yields_ints); with `pairs`, tuples of two whole numbers (yields_pairs)."""
        py = {f"L_{n}" for n in names}
        known = self.card_locals - py - {INT + n for n in py} - {PAIR + n for n in py}
        known |= (py if cards else set()) | ({INT + n for n in py} if ints else set()) \
            | ({PAIR + n for n in py} if pairs else set())
        with self.setting(pylocals={**self.pylocals, **{n: f"L_{n}" for n in names}}, card_locals=known), \
                self.cc.scoped(set(names)):
            yield

    def iterable(self, node, walrus: bool = False) -> str:
        """The collection of a comprehension (Python forbids `:=` there, unless it is a `for` statement's).
        The cards on a cell, `at(board, cell)`, are walked without copying the stack: the loop only reads it."""
        with self.setting(no_walrus=self.no_walrus or not walrus):
            if self.is_builtin(node, "at", 2):
                board, cell = self.x(node.args[0]), self.x(node.args[1])
                return f"{self.mark('builtin', node.span, 'at')}{board}.cells.stacks.get({cell}, _NOCARDS)"
            if self.is_builtin(node, "ray", 3):
                # a fixed board's ray, as the board shape remembers it: the loop only reads it
                args = ", ".join(self.x(a) for a in node.args)
                return f"{self.mark('builtin', node.span, 'ray')}_ray_walk(c, {args})"
            if self.is_builtin(node, "neighbors", 1) or self.is_builtin(node, "neighbors", 2):
                # the board's own list of the cards next to a cell: the loop only reads it
                args = ", ".join(self.x(a) for a in node.args)
                return f"{self.mark('builtin', node.span, 'neighbors')}_next_to(c, {args})"
            numbers = _literal_range(node)
            if numbers is not None:  # `k in 1..3` walked: the numbers themselves, not a new list each time
                return repr(numbers)
            return self.x(node)


    def g_Attr(self, x):
        obj = self.x(x.obj)
        name = x.name
        span = self.span(x)
        if obj in self.card_locals and isinstance(x.obj, N.Name):
            # a local that holds a card (yields_cards): no need to ask what it is
            if name in _ENTITY_SLOTS:
                return f"{obj}.{name}"
            if name == "component":
                return f"{obj}.card.component"
            if name != "owner":
                return f"({obj}.attrs[{name!r}] if {name!r} in {obj}.attrs else _attr(c, {obj}, {name!r}, {span}))"
        if self.no_walrus:
            return f"_attr(c, {obj}, {name!r}, {span})"
        t = self.fresh("_t")
        if name in _ENTITY_SLOTS:  # a card's own property (no component may declare a field of that name)
            return f"({t}.{name} if type({t} := {obj}) is _Entity else _attr(c, {t}, {name!r}, {span}))"
        if name == "component":  # a card's component, as a text (values.entity_extra)
            return f"({t}.card.component if type({t} := {obj}) is _Entity else _attr(c, {t}, 'component', {span}))"
        if name == "owner":  # a card's owner, a player or none (values.entity_extra); a zone's is values.read_field's
            seat = self.fresh("_t")
            return (f"((c.s.players[{seat}] if ({seat} := {t}.owner) is not None else None) "
                    f"if type({t} := {obj}) is _Entity else _attr(c, {t}, 'owner', {span}))")
        return (f"({t}.attrs[{name!r}] if type({t} := {obj}) in _EP and {name!r} in {t}.attrs "
                f"else _attr(c, {t}, {name!r}, {span}))")

    def g_Index(self, x):
        if self.is_pair_coordinate(x):  # `d[0]` of a local holding a tuple of two whole numbers
            return f"{self.pylocals[x.obj.id]}[{x.index.value}]"
        if isinstance(x.index, N.IntLit) and type(x.index.value) is int and x.index.value >= 0 \
                and isinstance(x.obj, N.Name) and self.pylocals.get(x.obj.id) in self.fixed_params:
            # `cell[0]` of a def's parameter, which keeps its value while the def is worked out: read
            # once, at the def's top, when it is there (else _index says why not, here)
            name, k = self.pylocals[x.obj.id], x.index.value
            var = self.param_reads.get((name, k))
            if var is None:
                var = self.param_reads[(name, k)] = self.fresh("_p")
            return f"({var} if {var} is not _MISS else _index({name}, {k}, {self.span(x)}))"
        if isinstance(x.index, N.IntLit) and x.index.value >= 0 and not self.no_walrus:
            # `d[0]`: a cell's or direction's coordinate, read inline; anything else is _index's
            t, k = self.fresh("_t"), x.index.value
            return (f"({t}[{k}] if type({t} := {self.x(x.obj)}) in _TL and len({t}) > {k} "
                    f"else _index({t}, {k}, {self.span(x)}))")
        return f"_index({self.x(x.obj)}, {self.x(x.index)}, {self.span(x)})"

    def g_ListLit(self, x):
        return "[" + ", ".join(self.x(i) for i in x.items) + "]"

    def g_FilterList(self, x):
        if self.is_empty_cells(x):
            # `[c in cells(board) where empty(at(board, c))]`: the board's empty cells, which it keeps
            # up to date as cards come and go (empty_cells), in the same order
            return f"{self.mark('builtin', x.span, 'cells')}_empty_cells_of(c, {self.x(x.coll.args[0])}, {self.span(x)})"
        coll = self.iterable(x.coll)
        var = f"L_{x.var}"
        lifted = self.lifted_condition(x)
        if lifted is not None:
            return f"[{var} for {var} in _each(c, {coll}, {self.span(x)}) if D_{lifted}(c, {var})]"
        # (the condition of `while`/`until` is a lambda's body)
        with self.setting(no_walrus=self.no_walrus or x.keep != "where"), self.loop_scope(x.var, x.coll):
            cond = self.x(x.cond)
        if x.keep == "where":
            return f"[{var} for {var} in _each(c, {coll}, {self.span(x)}) if ({cond})]"
        # `[x in coll while cond]`: the items from the start for as long as cond holds (`until`: until it does)
        test = f"({cond})" if x.keep == "while" else f"not ({cond})"
        return f"list(_takewhile(lambda {var}: {test}, _each(c, {coll}, {self.span(x)})))"


    def g_MapList(self, x):
        clauses = [(x.var, x.coll)] + [(f.var, f.coll) for f in x.more]
        span = self.span(x)
        parts = []
        with ExitStack() as scopes:
            for var, coll in clauses:
                parts.append(f"for L_{var} in _each(c, {self.iterable(coll)}, {span})")
                scopes.enter_context(self.loop_scope(var, coll))
            expr = self.x(x.expr)
            cond = f" if ({self.x(x.cond)})" if x.cond is not None else ""
        return f"[({expr}) {' '.join(parts)}{cond}]"

    def g_CondExpr(self, x):
        return f"(({self.x(x.then)}) if ({self.x(x.test)}) else ({self.x(x.other)}))"

    def g_BinOp(self, x):
        self.arith_depth += 1
        try:
            return self._binop(x)
        finally:
            self.arith_depth -= 1

    def _binop(self, x):
        a, b = self.x(x.left), self.x(x.right)
        span = self.span(x)

        def helper(left: str, right: str = b) -> str:  # whole numbers at once; anything else by values._arith
            if x.op == "+":
                return f"_add(c, {left}, {right}, {span})"
            name = _ARITHMETIC.get(x.op)
            return f"{name}({left}, {right}, {span})" if name is not None else f"_arith({left}, {right}, {x.op!r}, {span})"

        if self.no_walrus or self.arith_depth > ARITH_IN_PLACE:
            return helper(a)
        k = x.right.value if type(x.right) is N.IntLit else None
        if x.op in ("+", "-") and type(k) is int and 0 <= k <= _BIG and not self.is_int(x.left):
            # `n + 1`, `y - 1`: a whole number and a literal add up here, when the result stays within
            # the bound; anything else (or a result beyond it) goes to the helper, as before
            t = self.fresh("_t")
            low, high = (-_BIG - k, _BIG - k) if x.op == "+" else (-_BIG + k, _BIG + k)
            return f"({t} {x.op} {b} if type({t} := {a}) is int and {low} <= {t} <= {high} else {helper(t)})"
        if x.op in ("+", "-", "*", "/", "%"):
            # two whole numbers (`run_from(p, cell, d) + run_from(p, cell, back)`, `d[0] * i`) are
            # worked out here: both sides first (`&`, not `and`), and what is not a whole number for
            # sure is asked (is_int); anything else, a result beyond the bound or a division by zero,
            # goes to the helper, which says so
            known = self.is_int(x.left), self.is_int(x.right)
            sides, names, tests = [], [], []
            for node, text, sure in ((x.left, a, known[0]), (x.right, b, known[1])):
                if sure and (type(node) is N.IntLit or text.isidentifier()):
                    sides.append(text)  # a literal or a local: read again at no cost, and cannot fail
                    names.append(text)
                    continue
                t = self.fresh("_t")
                names.append(t)
                if all(known):  # nothing to ask: each side is kept as the operation reads it, in order
                    sides.append(f"({t} := {text})")
                else:
                    sides.append(t)
                    tests.append(f"(type({t} := {text}) is int)")
            ta, tb = sides
            test = " & ".join(tests)
            fallback = helper(*names)
            if x.op in ("/", "%"):
                pyop = "//" if x.op == "/" else "%"
                if all(known):  # both sides read in order (a side kept in a local), then the divisor asked for zero
                    read = f"({ta} is not None) & " if ta != names[0] else ""
                    return f"({names[0]} {pyop} {names[1]} if {read}({tb} != 0) else {fallback})"
                return f"({ta} {pyop} {tb} if {test + ' and ' if test else ''}{tb} else {fallback})"
            total = self.fresh("_t")
            result = f"{-_BIG} <= ({total} := {ta} {x.op} {tb}) <= {_BIG}"
            return f"({total} if {test + ' and ' if test else ''}{result} else {fallback})"
        return helper(a)

    def g_Compare(self, x):
        a, b = self.x(x.left), self.x(x.right)
        if x.op in ("==", "!="):
            return f"(({a}) {x.op} ({b}))"
        helper = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}[x.op]
        if self.no_walrus:
            return f"{helper}({a}, {b}, {self.span(x)})"
        if type(x.right) is N.IntLit and type(x.right.value) is int:
            # `count(...) >= 3`: a whole number is compared here; anything else by the helper
            if self.is_int(x.left) and a.isidentifier():
                return f"({a} {x.op} {b})"
            t = self.fresh("_t")
            return f"({t} {x.op} {b} if type({t} := {a}) is int else {helper}({t}, {b}, {self.span(x)}))"
        # two values: whole numbers compared here (both sides first), anything else by the helper
        ta, tb = self.fresh("_t"), self.fresh("_t")
        return (f"({ta} {x.op} {tb} if (type({ta} := {a}) is int) & (type({tb} := {b}) is int) "
                f"else {helper}({ta}, {tb}, {self.span(x)}))")

    def g_Member(self, x):
        op = "not in" if x.negated else "in"
        if not self.no_walrus:  # a list is searched as it is; anything else as _as_list makes it one
            t = self.fresh("_t")
            return f"(({self.x(x.elem)}) {op} ({t} if type({t} := {self.x(x.coll)}) is list else _as_list({t})))"
        return f"(({self.x(x.elem)}) {op} _as_list({self.x(x.coll)}))"

    def g_BoolOp(self, x):
        joiner = f" {x.op} "
        return "bool(" + joiner.join(f"({self.x(i)})" for i in x.items) + ")"

    def g_Not(self, x):
        return f"(not ({self.x(x.operand)}))"

    def g_Neg(self, x):
        return f"(-({self.x(x.operand)}))"

    def g_Range(self, x):
        return f"_range(c, {self.x(x.low)}, {self.x(x.high)}, {self.span(x)})"

    def g_CellLit(self, x):
        return f"({self.x(x.a)}, {self.x(x.b)})"

    def g_MapLit(self, x):
        sym = self.cc.t.symbols.get(x.entries[0].key) if x.entries else None
        if sym is None or sym.kind != "member" or not isinstance(sym.decl, N.EnumDecl):
            raise RuleError(x.span, "a map written out names members of one enum, as in {red: 2}")
        given = "".join(f"({e.key!r}, {self.x(e.value)}), " for e in x.entries)
        return f"_enum_map({sym.decl.name!r}, {self.const(tuple(sym.decl.members))}, ({given}), {self.span(x)})"


def _value_function(fname: str, signature: str, node, body: str) -> str:
    """The source of a generated function whose `body` lines set `value`: a Python failure in it is
    reported as the rules error of its line (`_translate`)."""
    line = getattr(getattr(node, "span", None), "line", 0)
    return (f"def {fname}({signature}):  # rules line {line}\n"
            f"    try:\n"
            f"{body}\n{TRANSLATED}"
            f"    return value\n")
