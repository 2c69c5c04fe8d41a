"""Calls as generated Python (`CallWriter`, a part of `codegen.Generator`): quantifiers, built-ins
(some written in place: `owner`, `empty`/`count` of a cell, a player's groups on a board, `distance`
on a grid or hex board), defs, keywords, a player's zone, and `has`, `usable`, `matched` and
`matching` by their helpers (codegen_helpers).
"""
from __future__ import annotations

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTINS
from rulelang.engine.program import RuleError


class CallWriter:
    """Writes `g_Call` and what it needs."""

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
