"""Quantifiers, counts and filtered lists written as Python loops, and leaf defs written in place
of their calls (`LoopWriter`, a part of `codegen.Generator`).
"""
from __future__ import annotations

from contextlib import contextmanager

from rulelang.language import nodes as N
from rulelang.check.dependencies import nodes_in

SPLIT_LOOPS = 10  # loops in loops written in one function (body_lines); deeper ones: Generator.split


class LoopWriter:
    """Writes `any`, `all`, `count`, `empty` and `first` of lists as loops, and leaf defs in place."""

    def logic_lines(self, node, target: str, indent: str) -> list[str]:
        """body_lines of `a and any(...)`, `not any(...)`, `if t then x else all(...)`: Python's own
        `if`s around the quantifiers' loops, evaluating what the expression would, in its order, with
        the same short-circuits (g_BoolOp, g_Not, g_CondExpr)."""
        if isinstance(node, N.BoolOp):
            lines = self.body_lines(node.items[0], target, indent)
            for item in node.items[1:]:  # once false (`and`) or true (`or`), every later test fails
                lines.append(f"{indent}if {'' if node.op == 'and' else 'not '}{target}:")
                lines += self.body_lines(item, target, indent + "    ")
            return lines + [f"{indent}{target} = bool({target})"]
        if isinstance(node, N.Not):
            return self.body_lines(node.operand, target, indent) + [f"{indent}{target} = not {target}"]
        lines = [f"{indent}if ({self.x(node.test)}", f"{indent}):"]
        lines += self.body_lines(node.then, target, indent + "    ")
        lines.append(f"{indent}else:")
        return lines + self.body_lines(node.other, target, indent + "    ")

    def body_lines(self, node, target: str, indent: str) -> list[str]:
        """Statements that leave the value of `node` in `target`. A quantifier is written as a `for` loop
        with `break` (nested quantifiers as nested loops): no generator per call, same short-circuit.
        Loops nested deeper than SPLIT_LOOPS are a function of their own (Generator.split)."""
        if len(indent) > 4 * (SPLIT_LOOPS + 2) and not isinstance(node, (N.IntLit, N.BoolLit, N.NoneLit, N.Name)):
            return [f"{indent}{target} = {self.split(node)}"]
        if (self.is_builtin(node, "count", 1) and isinstance(node.args[0], N.FilterList)
                and node.args[0].var not in self.pylocals and node.args[0].var not in self.cc.scope
                and (node.args[0].keep != "where" or self.lifted_condition(node.args[0]) is None)):
            # `count([x in coll while cond])`, `count([x in coll where cond])`: a loop that counts,
            # without building the list or a lambda
            f = node.args[0]
            coll = self.iterable(f.coll, walrus=True)
            stop = "not " if f.keep == "while" else ""
            walked = self.fresh("_w")  # a tuple too short to count as work (a ray) is walked as it is
            lines = [f"{indent}{target} = 0",
                     f"{indent}for L_{f.var} in ({walked} if type({walked} := ({coll}", f"{indent})) is tuple "
                     f"and len({walked}) <= 64 else _each(c, {walked}, {self.span(f)})):"]
            with self.loop_scope(f.var, f.coll):
                if self.holds_quantifier(f.cond):
                    inner = self.fresh("_q")
                    lines += self.body_lines(f.cond, inner, indent + "    ") + [f"{indent}    if {stop}{inner}:"]
                else:
                    lines += [f"{indent}    if {stop}({self.x(f.cond)}", f"{indent}    ):"]
            if f.keep == "where":
                return lines + [f"{indent}        {target} += 1"]
            return lines + [f"{indent}        break", f"{indent}    {target} += 1"]
        if (isinstance(node, N.FilterList) and node.keep == "where" and node.var not in self.pylocals
                and node.var not in self.cc.scope and self.lifted_condition(node) is None
                and self.holds_quantifier(node.cond)):
            # `[x in coll where ... any(...)]`: a loop that appends, with the condition's quantifiers as
            # loops inside it (no generator for every item), as the comprehension would keep them
            coll = self.iterable(node.coll)
            inner = self.fresh("_q")
            lines = [f"{indent}{target} = []", f"{indent}for L_{node.var} in _each(c, {coll}, {self.span(node)}):"]
            with self.loop_scope(node.var, node.coll):
                lines += self.body_lines(node.cond, inner, indent + "    ")
            return lines + [f"{indent}    if {inner}:", f"{indent}        {target}.append(L_{node.var})"]
        if not self.is_quantifier(node):
            if self.holds_quantifier(node):
                return self.logic_lines(node, target, indent)
            return [f"{indent}{target} = ({self.x(node)}", f"{indent})"]
        want_all = node.func == "all"
        f = node.args[0]
        coll = self.iterable(f.coll, walrus=True)
        walked = self.fresh("_w")  # a list is walked as it is (as_list would return it too, at the cost of a call)
        walk = walked if self.walks_cards(f.coll) else f"({walked} if type({walked}) is list else _as_list({walked}))"
        lines = [f"{indent}{target} = {want_all}", f"{indent}{walked} = ({coll}", f"{indent})",
                 f"{indent}for L_{f.var} in {walk}:"]
        with self.loop_scope(f.var, f.coll):
            if self.holds_quantifier(f.cond):
                inner = self.fresh("_q")
                lines += self.body_lines(f.cond, inner, indent + "    ")
                test = f"not {inner}" if want_all else inner
                lines += [f"{indent}    if {test}:"]
            else:
                cond = self.x(f.cond)
                lines += [f"{indent}    if {'not ' if want_all else ''}({cond}", f"{indent}    ):"]
        lines += [f"{indent}        {target} = {not want_all}", f"{indent}        break"]
        return lines

    def empty_early(self, arg) -> str | None:
        """`empty([x in xs where cond])`, or `empty(d(a))` of a def whose body is such a list (called
        with local names, and without chance), as a loop that stops at the first item kept:
        `not empty(new_places(card))` asks whether a card has a place, not where all its places are."""
        def early(found: N.FilterList) -> str:
            coll = self.iterable(found.coll)
            with self.loop_scope(found.var, found.coll):
                cond = self.x(found.cond)
            var = f"L_{found.var}"
            return f"(not any(({cond}) for {var} in _each(c, {coll}, {self.span(found)})))"

        if isinstance(arg, N.FilterList) and arg.keep == "where":
            return early(arg)
        if isinstance(arg, N.Call) and arg.func in self.def_decls and not arg.kwargs \
                and arg.func not in self.cc.scope and arg.func not in self.pylocals \
                and arg.func not in self.cc.impure_defs:
            d = self.def_decls[arg.func]
            if isinstance(d.body, N.FilterList) and d.body.keep == "where" and self._called_with_locals(d, arg.args):
                with self._body_of(d, arg.args):
                    return early(d.body)
        return None

    def first_early(self, arg) -> str | None:
        """`first([x in xs where cond])` and `first([e for x in xs where cond])`: the items walked until
        the first one kept (none when none is), as empty_early stops at the first: the lowest empty
        cell of a column is found without testing the cells above it."""
        if isinstance(arg, N.FilterList) and arg.keep == "where":
            expr, cond = None, arg.cond
        elif isinstance(arg, N.MapList) and not arg.more:
            expr, cond = arg.expr, arg.cond
        else:
            return None
        coll = self.iterable(arg.coll)
        var = f"L_{arg.var}"
        with self.loop_scope(arg.var, arg.coll):
            item = var if expr is None else f"({self.x(expr)})"
            test = "" if cond is None else f" if ({self.x(cond)})"
        return f"next(({item} for {var} in _each(c, {coll}, {self.span(arg)}){test}), None)"

    def _called_with_locals(self, d: N.DefDecl, args: list) -> bool:
        """Whether a call gives a def each of its parameters as a local name (a loop's card, a def's
        parameter, a rule's variable): its body can then be written in place (`_body_of`)."""
        return len(d.params) == len(args) and all(
            isinstance(a, N.Name) and (a.id in self.pylocals or a.id in self.cc.scope) for a in args)

    @contextmanager
    def _body_of(self, d: N.DefDecl, args: list, kept: list | None = None):
        """While writing a def's body in place of a call (`_called_with_locals`): its parameters are
        the caller's names (or the Python locals `kept` holds for some), and nothing else of the
        caller is in scope."""
        params = [p.name for p in d.params]
        # a Python local, or a rules variable read as c.v[name]
        values = [self.x(a) if kept is None or kept[i] is None else kept[i] for i, a in enumerate(args)]
        saved = self.pylocals, self.in_def
        self.pylocals, self.in_def = dict(zip(params, values)), True
        try:
            with self.cc.scoped(set(params)):
                yield
        finally:
            self.pylocals, self.in_def = saved

    def inline_leaf(self, name: str, args: list) -> str | None:
        """A call of a leaf def (`Generator._is_leaf`) without lists in its body, whose values are
        local names (a loop's card, a def's parameter, a rule's variable): the body itself, written with those names for
        its parameters, so no function is called (`is_habitat(n)` becomes `(L_n.kind == ...)`). A leaf
        is evaluated each time anyway; only the call (and its work count) is saved."""
        d = self.def_decls[name]
        if not self._called_with_locals(d, args):
            return None
        inlinable = self._inlinable.get(name)
        if inlinable is None:
            inlinable = self._inlinable[name] = self._is_leaf(d.body, {p.name for p in d.params}) and not any(
                isinstance(n, (N.FilterList, N.MapList)) for n in nodes_in(d.body))
        if not inlinable:
            return None
        with self._body_of(d, args):
            return f"({self.x(d.body)})"
