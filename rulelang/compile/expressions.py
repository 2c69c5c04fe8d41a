"""Expressions -> closures ``fn(ctx)``: the closure engine's half of the compiler.

``ExpressionCompiler`` has one method per expression node (``x_IntLit``, ``x_Call``, ...). With the
code generator on (the default), ``Compiler.expr`` asks ``codegen.Generator`` for Python source
instead and these methods compile only what it does not write (and everything with
``RULELANG_ENGINE=closures``). Mixed into ``compiler.Compiler``.
"""
from __future__ import annotations

from typing import Any, Callable

from rulelang.language import nodes as N
from rulelang.core.budgets import check_size
from rulelang.check.dependencies import TEMPLATE_NAMES
from rulelang.model.builtins import (BUILTIN_VALUES, BUILTINS, RuleFailure, as_list, bipartite_matching, describe,
                                     keywords_of, saturating_matching_exists)
from rulelang.core.errors import Span
from rulelang.engine.ops import _MISSING
from rulelang.engine.program import Ctx, RuleError
from rulelang.engine.values import _arith, _plain, add_values, outside_the_list, read_field
from rulelang.model.things import KeywordValue, Player, out_seats, players_in


def _put_back(v: dict, name: str, saved) -> None:
    """A rules name's value before a loop bound it again (_MISSING: it had none)."""
    if saved is _MISSING:
        v.pop(name, None)
    else:
        v[name] = saved


class ExpressionCompiler:
    """The expression half of ``compiler.Compiler`` (it uses the compiler's state: `t`, `scope`, `gen`)."""

    # ---- expressions
    def expr(self, x) -> Callable:
        if self.gen is not None and self.gen.active:
            return self.gen.function(x)  # Python source, compiled with the whole game (codegen.py)
        method = getattr(self, "x_" + type(x).__name__)
        return method(x)

    def opt(self, x):
        return None if x is None else self.expr(x)

    def x_IntLit(self, x):
        value = x.value
        return lambda c: value

    def x_StrLit(self, x):
        if "{" in x.value:
            return self.template(x.value, x.span)
        value = x.value
        return lambda c: value

    def template(self, text: str, span: Span) -> Callable:
        """Texts may show values: "{p} draws {n} cards" (names and fields only)."""
        parts: list = []
        pos = 0
        for m in TEMPLATE_NAMES.finditer(text):
            parts.append(text[pos:m.start()])
            names = m.group(1).split(".")
            node: Any = N.Name(span=span, id=names[0])
            for attr in names[1:]:
                node = N.Attr(span=span, obj=node, name=attr)
            fn = self.expr(node)
            parts.append(fn)
            pos = m.end()
        parts.append(text[pos:])

        def render(c):
            return "".join(p if isinstance(p, str) else describe(p(c)) for p in parts)

        return render

    def x_BoolLit(self, x):
        value = x.value
        return lambda c: value

    def x_NoneLit(self, x):
        return lambda c: None

    def x_Name(self, x):
        name = x.id
        sym = self.t.symbols.get(name)
        if name in self.scope:
            return lambda c: c.v[name]
        if name in BUILTIN_VALUES:
            if name == "players":
                return lambda c: players_in(c.s)
            if name == "all_players":
                return lambda c: c.s.players
            if name == "eliminated":
                return lambda c: [c.s.players[i] for i in out_seats(c.s)]
            if name == "round":
                return lambda c: c.s.round
            if name == "current":
                return lambda c: c.s.players[c.s.current] if c.s.current is not None else None
            if name == "phase":
                return lambda c: c.s.phase
            if name == "player_count":
                return lambda c: len(c.s.players)
        if sym is None:
            raise RuleError(x.span, f'"{name}" is not defined')
        kind = sym.kind
        if kind == "var":
            return lambda c: c.s.globals[name]
        if kind == "setting":
            value = self.settings[name]
            return lambda c: value
        if kind == "table":
            rows = self.table_rows(sym.decl)
            return lambda c: rows
        if kind == "member":
            return lambda c: name
        if kind == "enum":
            members = list(sym.decl.members)
            return lambda c: list(members)
        if kind == "zone":
            return lambda c: c.s.zones[name]
        if kind == "def":
            return lambda c: c.vm.program.defs[name](c, ())
        if kind == "keyword":
            kw = KeywordValue(name)
            return lambda c: kw
        if kind == "component":
            return lambda c: [e for e in c.s.entities if e.card.component == name]
        if kind == "cards":
            return lambda c: [e for e in c.s.entities if e.card.set_name == name]
        if kind == "phase":
            return lambda c: name
        raise RuleError(x.span, f'"{name}" cannot be used as a value')

    def quantifier(self, x, name):
        """any(x in C where P) / all(x in C where P): some / every item satisfies P."""
        f = x.args[0]
        coll = self.expr(f.coll)
        var = f.var
        with self.scoped({var}):
            cond = self.expr(f.cond)
        want_all = name == "all"

        def quantify(c):
            v = c.v
            saved = v.get(var, _MISSING)
            result = want_all
            for item in as_list(coll(c)):
                v[var] = item
                if bool(cond(c)) != want_all:
                    result = not want_all
                    break
            _put_back(v, var, saved)
            return result

        return quantify

    def x_Call(self, x):
        name = x.func
        span = x.span
        if name in ("any", "all") and name not in self.scope and len(x.args) == 1 and isinstance(x.args[0], N.FilterList) \
                and x.args[0].keep == "where":
            return self.quantifier(x, name)
        args = [self.expr(a) for a in x.args]
        if name in self.scope:
            raise RuleError(span, f'"{name}" cannot be called')
        sym = self.t.symbols.get(name)
        if name == "has":
            obj = args[0]
            kw_name = x.args[1].id

            def has(c):
                e = obj(c)
                return any(k.name == kw_name for k in keywords_of(e))

            return has
        if name == "usable":
            kw_fn, obj = args

            def usable(c):
                kw = kw_fn(c)
                if kw is None:
                    return False
                info = c.vm.program.keywords[kw.name]
                if info.usable is None:
                    return info.effect is not None
                v = dict(zip(info.params, kw.args))
                v["self"] = obj(c)
                return bool(info.usable(Ctx(v, c.s, c.vm)))

            return usable
        if name in ("matched", "matching"):
            left, right = args[0], args[1]
            def_name = x.args[2].id

            def match(c):
                fits_def = c.vm.program.defs[def_name]
                a, b = as_list(left(c)), as_list(right(c))
                if name == "matched":
                    return saturating_matching_exists(a, b, lambda p, q: fits_def(c, (p, q)))
                pairs = bipartite_matching(a, b, lambda p, q: bool(fits_def(c, (p, q))))
                return [list(p) for p in pairs]

            return match
        if sym is None and name in BUILTINS:
            return self.builtin_call(x, name, args, span)
        kind = sym.kind if sym else None
        if kind == "def":
            if len(args) == 1:
                (only,) = args

                def call_def1(c):
                    return c.vm.program.defs[name](c, (only(c),))

                return call_def1

            def call_def(c):
                return c.vm.program.defs[name](c, [a(c) for a in args])

            return call_def
        if kind == "zone":
            arg = args[0]

            def zone_of_player(c):
                p = arg(c)
                if not isinstance(p, Player):
                    raise RuleError(span, f'{name}(...) needs a player, but got {describe(p)}')
                return c.s.zones[f"{name}#{p.seat + 1}"]

            return zone_of_player
        if kind == "keyword":
            def make_keyword(c):
                return KeywordValue(name, tuple(a(c) for a in args))

            return make_keyword
        raise RuleError(span, f'"{name}" cannot be called here')

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

    def builtin_call(self, x, name: str, args: list, span: Span) -> Callable:
        """A call of a built-in. The arguments are passed one by one (no list is built per call),
        and `empty(at(board, cell))` / `count(at(board, cell))` read the cell's stack without
        copying it: the same values and the same errors, faster."""
        impl = BUILTINS[name].impl
        failures = (TypeError, AttributeError, KeyError, IndexError, ValueError)
        inner = x.args[0] if len(x.args) == 1 else None
        if (name in ("empty", "count") and isinstance(inner, N.Call) and inner.func == "at" and len(inner.args) == 2
                and "at" not in self.scope and self.t.symbols.get("at") is None):
            board, cell = self.expr(inner.args[0]), self.expr(inner.args[1])
            want_empty = name == "empty"

            def stack_size(c):
                try:
                    n = len(board(c).cells.stack(cell(c)))
                except failures as exc:
                    raise RuleError(inner.span, f"at() could not use these values: {_plain(exc)}") from None
                return n == 0 if want_empty else n

            return stack_size

        if len(args) == 1:
            (a0,) = args

            def call_builtin1(c):
                try:
                    return impl(c, a0(c))
                except RuleFailure as exc:
                    raise RuleError(span, str(exc)) from None
                except failures as exc:
                    raise RuleError(span, f"{name}() could not use these values: {_plain(exc)}") from None

            return call_builtin1
        if len(args) == 2:
            a0, a1 = args

            def call_builtin2(c):
                try:
                    return impl(c, a0(c), a1(c))
                except RuleFailure as exc:
                    raise RuleError(span, str(exc)) from None
                except failures as exc:
                    raise RuleError(span, f"{name}() could not use these values: {_plain(exc)}") from None

            return call_builtin2

        def call_builtin(c):
            try:
                return impl(c, *[a(c) for a in args])
            except RuleFailure as exc:
                raise RuleError(span, str(exc)) from None
            except failures as exc:
                raise RuleError(span, f"{name}() could not use these values: {_plain(exc)}") from None

        return call_builtin

    def x_Attr(self, x):
        obj = self.expr(x.obj)
        name = x.name
        span = x.span

        def get(c):
            return read_field(c, obj(c), name, span)

        return get

    def x_Index(self, x):
        obj, index, span = self.expr(x.obj), self.expr(x.index), x.span

        def get(c):
            items = as_list(obj(c))
            i = index(c)
            if not -len(items) <= i < len(items):
                raise RuleError(span, outside_the_list(i, len(items)))
            return items[i]

        return get

    def x_ListLit(self, x):
        items = [self.expr(i) for i in x.items]
        return lambda c: [i(c) for i in items]

    def x_FilterList(self, x):
        coll = self.expr(x.coll)
        var, span = x.var, x.span
        with self.scoped({var}):
            cond = self.expr(x.cond)

        keep = x.keep

        def filtered(c):
            v = c.v
            saved = v.get(var, _MISSING)
            out = []
            items = as_list(coll(c))
            if len(items) > 64 and c.vm is not None:
                c.vm.meter.charge(len(items), span)
            for item in items:
                v[var] = item
                if keep == "where":
                    if cond(c):
                        out.append(item)
                elif bool(cond(c)) == (keep == "while"):
                    out.append(item)
                else:
                    break
            _put_back(v, var, saved)
            return out

        return filtered

    def x_MapList(self, x):
        if x.more:
            return self.nested_map_list(x)
        coll = self.expr(x.coll)
        var, span = x.var, x.span
        with self.scoped({var}):
            fn = self.expr(x.expr)
            cond = self.opt(x.cond)

        def mapped(c):
            v = c.v
            saved = v.get(var, _MISSING)
            out = []
            items = as_list(coll(c))
            if len(items) > 64 and c.vm is not None:
                c.vm.meter.charge(len(items), span)
            for item in items:
                v[var] = item
                if cond is None or cond(c):
                    out.append(fn(c))
            _put_back(v, var, saved)
            return out

        return mapped

    def nested_map_list(self, x):
        """``[expr for a in A for b in B where cond]``: each clause loops inside the one before it and may
        use its names."""
        names = [x.var] + [f.var for f in x.more]
        colls = [self.expr(x.coll)]
        with self.scoped(set(names)):
            colls += [self.expr(f.coll) for f in x.more]
            fn = self.expr(x.expr)
            cond = self.opt(x.cond)
        depth, span = len(names), x.span

        def mapped(c):
            v = c.v
            saved = [v.get(n, _MISSING) for n in names]
            out = []

            def loop(level):
                name, coll = names[level], colls[level]
                items = as_list(coll(c))
                if len(items) > 64 and c.vm is not None:
                    c.vm.meter.charge(len(items), span)
                for item in items:
                    v[name] = item
                    if level + 1 < depth:
                        loop(level + 1)
                    elif cond is None or cond(c):
                        out.append(fn(c))

            loop(0)
            for n, old in zip(names, saved):
                _put_back(v, n, old)
            return out

        return mapped

    def x_CondExpr(self, x):
        test, then, other = self.expr(x.test), self.expr(x.then), self.expr(x.other)
        return lambda c: then(c) if test(c) else other(c)

    def x_BinOp(self, x):
        a, b, op, span = self.expr(x.left), self.expr(x.right), x.op, x.span
        if op == "+":
            def add(c):
                return add_values(c, a(c), b(c), span)

            return add
        return lambda c: _arith(a(c), b(c), op, span)

    def x_Compare(self, x):
        a, b, op, span = self.expr(x.left), self.expr(x.right), x.op, x.span
        if op == "==":
            return lambda c: a(c) == b(c)
        if op == "!=":
            return lambda c: a(c) != b(c)

        def compare(c):
            l, r = a(c), b(c)
            try:
                if op == "<":
                    return l < r
                if op == "<=":
                    return l <= r
                if op == ">":
                    return l > r
                return l >= r
            except TypeError:
                raise RuleError(span, f'"{op}" compares numbers, but got {describe(l)} and {describe(r)}') from None

        return compare

    def x_Member(self, x):
        elem, coll, neg = self.expr(x.elem), self.expr(x.coll), x.negated
        if neg:
            return lambda c: elem(c) not in as_list(coll(c))
        return lambda c: elem(c) in as_list(coll(c))

    def x_BoolOp(self, x):
        items = [self.expr(i) for i in x.items]
        if x.op == "and":
            if len(items) == 2:
                p, q = items
                return lambda c: bool(p(c) and q(c))
            return lambda c: all(i(c) for i in items)
        if len(items) == 2:
            p, q = items
            return lambda c: bool(p(c) or q(c))
        return lambda c: any(i(c) for i in items)

    def x_Not(self, x):
        operand = self.expr(x.operand)
        return lambda c: not operand(c)

    def x_Neg(self, x):
        operand = self.expr(x.operand)
        return lambda c: -operand(c)

    def x_Range(self, x):
        lo, hi, span = self.expr(x.low), self.expr(x.high), x.span

        def make_range(c):
            a, b = lo(c), hi(c)
            if type(a) is int and type(b) is int and b - a >= 64:
                check_size(b - a + 1, span, "a range", c.vm.meter if c.vm is not None else None)
            return list(range(a, b + 1))

        return make_range

    def x_CellLit(self, x):
        a, b = self.expr(x.a), self.expr(x.b)
        return lambda c: (a(c), b(c))

    # ---- scope
    scope: frozenset = frozenset()

    class _Scoped:
        def __init__(self, compiler, names):
            self.compiler, self.names = compiler, names

        def __enter__(self):
            self.saved = self.compiler.scope
            self.compiler.scope = self.saved | frozenset(self.names)

        def __exit__(self, *exc):
            self.compiler.scope = self.saved

    def scoped(self, names):
        return ExpressionCompiler._Scoped(self, names)
