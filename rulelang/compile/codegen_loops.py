"""Calls, quantifiers, counts and filtered lists as generated Python (`LoopWriter`, a part of
`codegen.Generator`): built-ins (some written in place: `owner`, `empty`/`count` of a cell, a player's
groups on a board, `distance` on a grid or hex board), defs (small ones written in place of their
calls), keywords, a player's zone, `has`, `usable`, `matched` and `matching` by their helpers
(codegen_helpers); `any`, `all`, `count`, `empty` and `first` of lists as Python loops.
"""
from __future__ import annotations

from contextlib import contextmanager

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTINS
from rulelang.engine.program import RuleError
from rulelang.check.dependencies import mentioned, rebuilt
from rulelang.language.nodes import nodes_in

SPLIT_LOOPS = 10  # loops in loops written in one function (body_lines); deeper ones: Generator.split


def _arg_names(args: list) -> set:
    """The names a call's arguments read (those that are names, and those inside the others)."""
    return set().union(*(mentioned(a) for a in args)) if args else set()


def _renamed(node, mapping: dict):
    """A copy of an expression with the names a comprehension binds renamed (`mapping`), for a def
    body written in place of a call (Generator.inlined_call); nodes without them are shared."""
    if isinstance(node, N.Name):
        return node.model_copy(update={"id": mapping[node.id]}) if node.id in mapping else node
    node = rebuilt(node, lambda child: _renamed(child, mapping))
    if isinstance(node, (N.FilterList, N.MapList, N.ForClause)) and node.var in mapping:
        node = node.model_copy(update={"var": mapping[node.var]})
    return node


class LoopWriter:
    """Writes calls (`g_Call`), lists walked as loops, and small defs in place."""

    def g_Call(self, x):
        hoisted = self.hoisted.get(id(x))
        if hoisted is not None:  # worked out just before, in place (body_lines)
            return hoisted
        name = x.func
        scope = self.cc.scope
        if name in scope or name in self.pylocals:
            for a in x.args:  # (what is wrong in its arguments is said first)
                self.x(a)
            raise RuleError(x.span, f'"{name}" cannot be called')
        if self.is_quantifier(x):
            f = x.args[0]
            coll = self.iterable(f.coll)
            with self.loop_scope(f.var, f.coll):
                cond = self.x(f.cond)
            var = f"L_{f.var}"
            if self.walks_cards(f.coll):  # already a list or tuple of cards
                return f"{name}(({cond}) for {var} in {coll})"
            if coll.isidentifier():  # a local: a list is walked as it is, without a call to as_list
                return f"{name}(({cond}) for {var} in ({coll} if type({coll}) is list else _as_list({coll})))"
            return f"{name}(({cond}) for {var} in _as_list({coll}))"
        if name == "empty" and self.is_builtin(x, "empty", 1):
            found = self.empty_early(x.args[0])
            if found is not None:
                return found
        if name == "first" and self.is_builtin(x, "first", 1):
            found = self.first_early(x.args[0])
            if found is not None:
                return found
        if name in ("has", "usable", "matched", "matching"):
            return self.special_call(x, name)
        sym = self.cc.t.symbols.get(name)
        if sym is None and name in BUILTINS:
            return self.builtin(x, name)
        kind = sym.kind if sym else None
        if kind == "def" and name in self.def_decls:
            inline = self.inline_leaf(name, x.args)
            if inline is not None:
                return inline
            args = "".join(f", {self.x(a)}" for a in x.args)
            return f"D_{name}(c{args})"
        if kind == "def":  # (a def the generator was not given: called as the program has it)
            return f"c.vm.program.defs[{name!r}](c, (" + "".join(f"{self.x(a)}, " for a in x.args) + "))"
        if kind == "keyword":
            return f"_KeywordValue({name!r}, (" + "".join(f"{self.x(a)}, " for a in x.args) + "))"
        args = [self.x(a) for a in x.args]
        if kind == "zone" and args and sym.decl.count is not None:  # display(2): one of a family, from 1
            return f"_zone_of_family(c, {args[0]}, {name!r}, {self.span(x)})"
        if kind == "zone" and args:
            return f"_player_zone(c, {args[0]}, {name!r}, {self.span(x)})"
        raise RuleError(x.span, f'"{name}" cannot be called here')

    def special_call(self, x, name: str) -> str:
        """`has(card, keyword)`, `usable(keyword, card)`, `matched(a, b, def)` and `matching(a, b, def)`:
        the arguments that are values worked out here, the rest by their helpers (codegen_helpers)."""
        if name == "has":
            return f"_has({self.x(x.args[0])}, {x.args[1].id!r})"
        if name == "usable":
            return f"_usable(c, {self.x(x.args[0])}, {self.x(x.args[1])})"
        return f"_{name}(c, {self.x(x.args[0])}, {self.x(x.args[1])}, {x.args[2].id!r})"

    def builtin(self, x, name: str) -> str:
        if name == "owner" and len(x.args) == 1 and not self.no_walrus:
            # the built-in's own code, inline; a failure is reported as the built-in's (its line is marked)
            t = self.fresh("_t")
            return (f"{self.mark('builtin', x.span, name)}(c.s.players[{t}.owner] if ({t} := {self.x(x.args[0])}).owner "
                    f"is not None else None)")
        inner = x.args[0] if len(x.args) == 1 else None
        if (name in ("empty", "count") and isinstance(inner, N.Call) and inner.func == "at" and len(inner.args) == 2
                and "at" not in self.cc.scope and "at" not in self.pylocals and self.cc.t.symbols.get("at") is None):
            board, cell = self.x(inner.args[0]), self.x(inner.args[1])
            stack = f"{self.mark('at', inner.span)}{board}.cells.stacks.get({cell}, _NOCARDS)"
            return f"(len({stack}) == 0)" if name == "empty" else f"len({stack})"
        if name in ("region", "regions") and not self.no_walrus and self.is_owned_group(x):
            # region(board, cell, owned_cells(board, p)), regions(board, owned_cells(board, p)): the
            # group or groups the board keeps (_region_owned, _regions_owned); anything but a player
            # is the built-ins' (and their failures, at their lines)
            given = [self.x(a) for a in x.args[:-1]]  # the board (and the cell)
            t = self.fresh("_t")
            p, owned = self.owned_cells_of(x.args[-1], given[0], t)
            given = ", ".join(given)
            return (f"{self.mark('builtin', x.span, name)}(_{name}_owned({given}, {t}) if type({t} := {p}) is _Player "
                    f"else {self.const(BUILTINS[name].impl, 'B')}(c, {given}, {owned}))")
        if name == "distance" and len(x.args) == 3 and not self.no_walrus and self.is_board_zone(x.args[0]):
            inline = self.board_distance(x)
            if inline is not None:
                return inline
        impl = self.const(BUILTINS[name].impl, "B")
        args = "".join(f", {self.x(a)}" for a in x.args)
        return f"{self.mark('builtin', x.span, name)}{impl}(c{args})"

    def owned_cells_of(self, node, board: str, t: str) -> tuple[str, str]:
        """For an owned_cells_call: the player's expression, and the call of the cells with the player
        in Python local t (the built-in, or the def: a failure is said at its own line)."""
        if self.is_builtin(node, "owned_cells", 2):
            impl = f"{self.mark('builtin', node.span, 'owned_cells')}{self.const(BUILTINS['owned_cells'].impl, 'B')}"
            return self.x(node.args[1]), f"{impl}(c, {board}, {t})"
        return self.x(node.args[0]), f"D_{node.func}(c, {t})"

    def board_distance(self, x) -> str | None:
        """`distance(board, a, b)` on a grid or hex board the rules name: the board's formula
        (board.Topology.distance) written in place for two cells; anything else is the built-in's."""
        topology = self.cc.program.zones[x.args[0].id].topology
        board, a, b = (self.x(arg) for arg in x.args)
        ta, tb = self.fresh("_t"), self.fresh("_t")
        dx, dy = f"{ta}[0] - {tb}[0]", f"{ta}[1] - {tb}[1]"
        if topology.kind == "hex":
            formula = f"(abs({dx}) + abs({dy}) + abs({dx} + {dy})) // 2"
        elif topology.kind == "grid":
            formula = f"max(abs({dx}), abs({dy}))" if topology.neighbours == 8 else f"abs({dx}) + abs({dy})"
        else:
            return None
        impl = self.const(BUILTINS["distance"].impl, "B")
        # (`&`, not `and`: both cells are worked out, whichever is not a cell)
        return (f"{self.mark('builtin', x.span, 'distance')}({formula} if (type({ta} := {a}) is tuple) "
                f"& (type({tb} := {b}) is tuple) else {impl}(c, {board}, {ta}, {tb}))")

    def hoistable(self, node) -> list | None:
        """The calls of defs written in place (inlined_call) in `run_from(p, cell, d) + run_from(p,
        cell, back) >= 3`, in the order they are worked out, when nothing else in the expression but
        arithmetic, comparisons, numbers and local names could fail or be worked out before them:
        body_lines writes each into a Python local first, then the expression with those locals; else
        None (also when there is no such call)."""
        if not isinstance(node, (N.Compare, N.BinOp)):
            return None
        calls: list = []

        def walk(x) -> bool:
            kind = type(x)
            if kind is N.Compare or (kind is N.BinOp and x.op in ("+", "-", "*")):
                return walk(x.left) and walk(x.right)
            if kind is N.Neg:
                return walk(x.operand)
            if kind in (N.IntLit, N.BoolLit):
                return True
            if kind is N.Name:
                return x.id in self.pylocals or x.id in self.cc.scope
            if kind is N.Call and self._quantified_leaf(x, bind=True) is not None:
                calls.append(x)
                return True
            return False

        return calls if walk(node) and calls else None

    def _quantified_leaf(self, node, bind: bool = False):
        """(def, its loop names that the caller uses too) of a call that body_lines writes in place
        (inlined_call), else None. With `bind`, its arguments may be any expressions (body_lines
        keeps their values in Python locals first)."""
        if not isinstance(node, N.Call) or node.kwargs or node.func in self.cc.scope or node.func in self.pylocals:
            return None
        sym = self.cc.t.symbols.get(node.func)
        d = self.def_decls.get(node.func)
        if sym is None or sym.kind != "def" or d is None:
            return None
        if not (self._called_with_locals(d, node.args) or (bind and len(d.params) == len(node.args))):
            return None
        key = ("quantified", node.func)
        bound = self._inlinable.get(key)
        if bound is None:
            params = {p.name for p in d.params}
            found = {x.var for x in nodes_in(d.body) if isinstance(x, (N.FilterList, N.MapList, N.ForClause))}
            small = node.func not in self.cc.impure_defs and self.recursive_defs is not None \
                and node.func not in self.recursive_defs
            bound = self._inlinable[key] = (found if self._is_leaf(d.body, params, small=small) and not found & params
                                            and (self.holds_quantifier(d.body) or self._counts(d.body)) else False)
        if bound is False:
            return None
        # (the compiler's scope holds the names of every body written around this one too)
        clashes = bound & (set(self.pylocals) | set(self.cc.scope) | _arg_names(node.args))
        if any(self.cc.t.symbols.get(v) is not None for v in clashes):
            return None  # (a loop name that is also a global's, which renaming would change: left as it is)
        return d, clashes

    def inlined_call(self, node, bind: bool = False):
        """(def, arguments) of a call that body_lines writes in place: a leaf def (`_is_leaf`: it
        walks at most the cards on one cell) whose body holds a quantifier, `owns(p, cell) =
        any(m in at(grid, cell) where owner(m) == p)`, given local names (`_called_with_locals`), or
        with `bind` any arguments; else None. Its loop names that the caller uses too are renamed.
        As with `inline_leaf`, only the call and its work count are saved."""
        found = self._quantified_leaf(node, bind)
        if found is None:
            return None
        d, clashes = found
        if clashes:
            used = set(self.pylocals) | set(self.cc.scope) | _arg_names(node.args) | mentioned(d.body)
            mapping = {}
            for v in sorted(clashes):
                k = 1
                while f"{v}_{k}" in used:
                    k += 1
                mapping[v] = f"{v}_{k}"
                used.add(mapping[v])
            d = d.model_copy(update={"body": _renamed(d.body, mapping)})
        return d, node.args

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
            lines += self.cond_lines(f, stop, indent)
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
        found = self.inlined_call(node, bind=True)
        if found is not None:
            # the arguments that are not local names are worked out first, in order, into Python
            # locals (as a call would, before its body): `owns(p, (x + dx, y + dy))`
            d, args = found
            lines, values = [], []
            for arg in args:
                if isinstance(arg, N.Name) and arg.id in self.pylocals:
                    values.append(None)
                    continue
                # (a rule's variable too: read from the frame's variables once, not at each use)
                kept = self.fresh("_a")
                lines += [f"{indent}{kept} = ({self.x(arg)}", f"{indent})"]
                values.append(kept)
            with self._body_of(d, args, values):
                return lines + self.body_lines(d.body, target, indent)
        if not self.is_quantifier(node):
            calls = self.hoistable(node)
            if calls is not None:
                # each call written in place into a local of its own, in order; then the expression
                lines, kept = [], []
                for call in calls:
                    local = self.fresh("_h")
                    lines += self.body_lines(call, local, indent)
                    kept.append((id(call), local))
                self.hoisted.update(kept)
                try:
                    return lines + [f"{indent}{target} = ({self.x(node)}", f"{indent})"]
                finally:
                    for key, _local in kept:
                        del self.hoisted[key]
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
        lines += self.cond_lines(f, "not " if want_all else "", indent)
        return lines + [f"{indent}        {target} = {not want_all}", f"{indent}        break"]

    def cond_lines(self, f, no: str, indent: str) -> list[str]:
        """The `if` of a loop over the list `f` (one level in from `indent`) that tests its condition
        for each item, `no` ("not " or "") before it; a condition's quantifiers as loops above it."""
        with self.loop_scope(f.var, f.coll):
            if self.holds_quantifier(f.cond):
                inner = self.fresh("_q")
                return self.body_lines(f.cond, inner, indent + "    ") + [f"{indent}    if {no}{inner}:"]
            return [f"{indent}    if {no}({self.x(f.cond)}", f"{indent}    ):"]

    def empty_early(self, arg) -> str | None:
        """`empty([x in xs where cond])`, or `empty(d(a))` of a def whose body is such a list (called
        with local names, and without chance), as a loop that stops at the first item kept:
        `not empty(places_for_card(c))` asks whether a card has a place, not where all its places are."""
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
        with self.setting(pylocals=dict(zip(params, values))), self.cc.scoped(set(params)):
            yield

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
