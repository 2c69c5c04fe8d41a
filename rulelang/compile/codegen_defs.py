"""Defs as generated Python functions (`DefWriter`, a part of `codegen.Generator`): evaluated each
time (leaves, and defs with parameters that walk no list), remembered until the state changes,
once per match (constants), or per card and its neighbourhood.
"""
from __future__ import annotations

from typing import Callable

from rulelang.language import nodes as N
from rulelang.check.dependencies import mentioned
from rulelang.language.nodes import nodes_in
from rulelang.engine.program import DEF_CALL_WORK
from rulelang.compile.codegen_helpers import TRANSLATED, work_lines


# built-ins that take constant time (a def calling only these, and no def, is a leaf: see Generator._is_leaf)
_CHEAP_BUILTINS = frozenset({"at", "owner", "top", "bottom", "abs", "face_down", "seat", "empty"})


# built-ins that walk their argument: cheap over the cards of one cell
_CHEAP_WALKS = frozenset({"any", "all", "count", "sum", "max", "min"})


# the most items a def written in place of its call may walk in one loop (Generator._is_leaf with small)
SMALL_WALK = 16


def _coordinates_read(reads: dict, indent: str) -> str:
    """The lines at a def's top that read its parameters' coordinates (g_Index): for each
    parameter, one test of what it holds, then each coordinate read, or _MISS for all of them
    (each read then asks _index in place, which says why, or reads a shorter one)."""
    by_name: dict = {}
    for (name, k), var in reads.items():
        by_name.setdefault(name, []).append((k, var))
    lines = []
    for name, items in by_name.items():
        top = max(k for k, _ in items)
        lines.append(f"{indent}if type({name}) in _TL and len({name}) > {top}:")
        lines += [f"{indent}    {var} = {name}[{k}]" for k, var in items]
        lines += [f"{indent}else:", f"{indent}    {' = '.join(var for _, var in items)} = _MISS"]
    return "".join(line + "\n" for line in lines)


class DefWriter:
    """Writes each def as the functions `E_` (evaluates), `R_` (remembers) and `D_` (the one called)."""

    def define(self, d: N.DefDecl, pure: bool, charge: bool = True, card_params: frozenset = frozenset()) -> Callable:
        """A def: E_name evaluates it (budgets, recursion), D_name adds the cache of chance-free defs,
        P_name(c, args) is the compiler's calling convention (program.defs). Without `charge`, an
        evaluation counts no work (a lifted condition, which the rules do not call as a def).
        `card_params`: the parameters every call gives a card (a lifted condition's)."""
        name = d.name
        params = [p.name for p in d.params]
        py = [f"L_{p}" for p in params]
        rebound = {x.var for x in nodes_in(d.body) if isinstance(getattr(x, "var", None), str)}
        with self.setting(pylocals=dict(zip(params, py)), no_walrus=False,
                          card_locals=frozenset(f"L_{p}" for p in card_params),
                          fixed_params={f"L_{p}" for p in params if p not in rebound}, param_reads={}), \
                self.cc.scoped(set(params)):
            body = "\n".join(self.body_lines(d.body, "value", "        "))
            # a parameter's coordinate (`cell[0]`), read once at the top (g_Index)
            body = _coordinates_read(self.param_reads, "        ") + body
            body = self.read_once(body, "        ")
        span = self.const(d.span, "S")
        sig = ", ".join(["c"] + py)
        message = repr(f'def "{name}" calls itself too deeply; it never stops' if charge else
                       "this condition calls defs too deeply; they never stop")
        guarded = (  # the body, its errors reported as rules errors
            f"    try:\n"
            f"{body}\n"
            f"    except RecursionError:\n"
            f"        raise _RuleError({span}, {message}) from None\n{TRANSLATED}")
        work = "".join(line + "\n" for line in work_lines("        ", span, DEF_CALL_WORK))
        charged = (  # the body and the work it counts, without a recursion depth
            f"    vm = c.vm\n"
            f"    if vm is not None:\n"
            f"        meter = vm.meter\n"
            f"{work}{guarded}") if charge else guarded
        if self.recursive_defs is not None and name not in self.recursive_defs:
            # it calls no def that calls it back, so it cannot nest deeper than the defs it calls: no
            # recursion depth to count (dependencies.recursive_defs), only its work
            evaluate = charged
        else:
            evaluate = (  # recursion depth, steps, errors
                f"    vm = c.vm\n"
                f"    meter = vm.meter if vm is not None else None\n"
                f"    if meter is not None:\n"
                f"        meter.depth += 1\n"
                f"        if meter.depth > meter.budgets.recursion_depth:\n"
                f"            meter.depth = 0\n"
                f"            raise _recursion({span}, {name!r}, meter)\n"
                f"{work}{guarded}"
                f"    finally:\n"
                f"        if meter is not None and meter.depth > 0:\n"
                f"            meter.depth -= 1\n")
        self.sources.append(f"def E_{name}({sig}):  # def {name}, rules line {d.span.line}\n{evaluate}    return value\n")
        self.defined.add(name)
        if self.load_time:  # before any match: evaluated at each call
            self.sources.append(f"D_{name} = E_{name}\n")
        elif pure and self._is_leaf(d.body, set(params)):
            # a leaf (fields, comparisons, arithmetic; no calls, no lists built): evaluating it costs less
            # than looking it up, so it is not remembered. It calls no def, so it cannot recurse.
            self.sources.append(
                f"def D_{name}({sig}):  # def {name} (a leaf, evaluated each time), rules line {d.span.line}\n"
                f"{charged}"
                f"    return value\n")
        elif pure and name in self.constant_defs:
            # the same value all game (dependencies.constant_defs): worked out once per match
            self.sources.append(
                f"def D_{name}(c):  # def {name} (a constant, worked out once per match), rules line {d.span.line}\n"
                f"    constants = c.s.constants\n"
                f"    found = constants.get({name!r}, _MISS)\n"
                f"    if found is _MISS:\n"
                f"        found = constants[{name!r}] = E_{name}(c)\n"
                f"    return found\n")
        elif pure and name in self.neighbourhood_defs:
            # a value worked out from a card and the cards next to it (dependencies.neighbourhood_defs)
            # stays right while nothing comes to or leaves its cell or the cells next to it
            # (near_version), the fields and globals it reads keep their values (a change of one
            # forgets the values of the defs that read it: values.one_value_changed) and nothing else
            # changed (version - accounted): it is remembered across moves elsewhere on the board.
            # A card that is not on a board is worked out each time.
            card = py[0]
            self.sources.append(
                f"def D_{name}(c, {card}):  # def {name} (remembered by neighbourhood), rules line {d.span.line}\n"
                f"    s = c.s\n"
                f"    try:\n"
                f"        where = {card}.cell\n"
                f"        zone = {card}.zone\n"
                f"        near = zone.cells._near  # (BoardCells.near_version, inline)\n"
                f"        count = near.get(where, 0) if near is not None else zone.cells.near_version(where)\n"
                f"    except AttributeError:\n"
                f"        return E_{name}(c, {card})\n"
                f"    changed = s.version - s.accounted\n"
                f"    local = s.local_cache\n"
                f"    mine = local.get({name!r})\n"
                f"    if mine is None:\n"
                f"        mine = local[{name!r}] = {{}}\n"
                f"    found = mine.get({card})  # (what changed elsewhere, count, zone, cell, value)\n"
                f"    if found is not None and found[0] == changed and found[1] == count and found[2] is zone \\\n"
                f"            and found[3] == where:\n"
                f"        return found[4]\n"
                f"{evaluate}"
                f"    mine[{card}] = (changed, count, zone, where, value)\n"
                f"    return value\n")
        elif pure and (not params or any(isinstance(n, (N.FilterList, N.MapList)) for n in nodes_in(d.body))):
            # a def without chance is a pure function of the state: its values are remembered until
            # the state changes, when looking them up may pay, as decided here (never by timing
            # calls): a def without parameters (a value of the state, which other options, rules
            # and bots ask again), and one that walks a list (a quantifier, a count, a filtered
            # list). One with parameters that walks nothing (`chain(p, cell)`, a board's group) is
            # evaluated each time, as is a call given a list (no key). See the commit for figures.
            # Each def's values are in a table of its own (`cache[name]`), so that a change of one
            # field or global forgets only the values of the defs that read it (values.keep_remembered)
            if self.turn_defs is None or name in self.turn_defs:  # remembered for this turn of this state
                stamp, cache = "(s.version, s.current, s.round, s.phase)", "s.def_cache"
            else:  # it reads no turn (dependencies.turn_defs): remembered for as long as the state stays
                stamp, cache = "s.version", "s.state_cache"
            listed = (f"    if {' or '.join(f'type({p}) is list' for p in py)}:\n"
                      f"        return E_{name}({sig})\n") if py else ""
            key = f"({', '.join(py)},)" if py else "()"
            self.sources.append(
                f"def R_{name}({sig}):  # def {name} (remembered), rules line {d.span.line}\n"
                f"{listed}"
                f"    s = c.s\n"
                f"    stamp = {stamp}\n"
                f"    cache = {cache}\n"
                f"    if cache.get('__stamp') != stamp:\n"
                f"        cache.clear()\n"
                f"        cache['__stamp'] = stamp\n"
                f"    mine = cache.get({name!r})\n"
                f"    if mine is None:\n"
                f"        mine = cache[{name!r}] = {{}}\n"
                f"    key = {key}\n"
                f"    try:\n"
                f"        found = mine.get(key, _MISS)\n"  # not mine[key]: a miss raising KeyError costs more
                f"    except TypeError:\n"
                f"        return E_{name}({sig})\n"
                f"    if found is not _MISS:\n"
                f"        return found\n"
                f"{evaluate}"
                f"    mine[key] = value\n"
                f"    return value\n")
            self.sources.append(f"D_{name} = R_{name}\n")
        else:
            self.sources.append(f"D_{name} = E_{name}\n")
        self.sources.append(f"def P_{name}(c, args):\n    return D_{name}(c, *args)\n")
        return self.stub(f"P_{name}")

    def _is_leaf(self, body, params: set, small: bool = False) -> bool:
        """Whether a def's body is cheaper to evaluate than to look up: it reads names, fields and
        literals, calls only constant-time built-ins (`owner`, `top`, ...), calls no def, and walks no
        collection but the cards on one cell (`any(m in at(board, cell) where ...)`).
        With `small`, whether it takes a bounded time that is small enough to write in place of a
        call (`_quantified_leaf`): it may also walk a range between two numbers, a list written out
        or a constant def's list written out, each of at most SMALL_WALK items, read a constant
        def, and call defs that are leaves (`four_from(p, cell, d) = all(i in 0..3 where owns(p,
        (cell[0] + d[0] * i, cell[1] + d[1] * i)))`)."""
        symbols = self.cc.t.symbols

        def one_cell(coll) -> bool:
            return isinstance(coll, N.Call) and coll.func == "at" and len(coll.args) == 2 and not coll.kwargs

        def small_walk(coll) -> bool:
            if isinstance(coll, N.Range):
                return (isinstance(coll.low, N.IntLit) and isinstance(coll.high, N.IntLit)
                        and coll.high.value - coll.low.value < SMALL_WALK)
            if isinstance(coll, N.ListLit):
                return len(coll.items) <= SMALL_WALK and all(leaf(item) for item in coll.items)
            if isinstance(coll, N.Name) and coll.id not in params:
                listed = self.listed_def(coll.id)
                return listed is not None and coll.id in self.constant_defs and len(listed.items) <= SMALL_WALK
            return False

        def small_ray(coll) -> bool:  # `ray(board, cell, d)` on a fixed board at most SMALL_WALK across
            if not (self.is_builtin(coll, "ray", 3) and isinstance(coll.args[0], N.Name)
                    and coll.args[0].id not in params):
                return False
            info = self.zone_named(coll.args[0])
            t = info.topology if info is not None else None
            if t is None or t.open or t.kind not in ("grid", "hex"):
                return False
            across = 2 * t.radius + 1 if t.radius is not None else max(t.width or 0, t.height or 0)
            return 0 < across <= SMALL_WALK

        def leaf(x) -> bool:
            if isinstance(x, (N.FilterList, N.MapList)):
                if getattr(x, "more", None):
                    return False
                if one_cell(x.coll) or (small and small_ray(x.coll)):
                    walked = [x.coll.args]
                elif small and small_walk(x.coll):
                    walked = []
                else:
                    return False
                inner = {x.var}
                parts = walked + [x.cond] + ([x.expr] if isinstance(x, N.MapList) else [])
                return all(leaf_in(part, params | inner) for part in parts)
            if isinstance(x, N.Call):
                if x.kwargs:
                    return False
                if symbols.get(x.func) is not None:
                    if small and x.func not in params and self._leaf_callee(x.func):
                        return all(leaf(a) for a in x.args)
                    return False  # a def, a procedure, a zone of a player...
                if x.func == "count" and len(x.args) == 1 and not isinstance(x.args[0], (N.FilterList, N.MapList)):
                    return leaf(x.args[0])  # how many cards a cell holds: a length
                if x.func in _CHEAP_WALKS:
                    return len(x.args) == 1 and isinstance(x.args[0], (N.FilterList, N.MapList)) and leaf(x.args[0])
                if x.func not in _CHEAP_BUILTINS:
                    return False
                return all(leaf(a) for a in x.args)
            if isinstance(x, N.ListLit) and small:
                return len(x.items) <= SMALL_WALK and all(leaf(item) for item in x.items)
            if isinstance(x, (N.Range, N.ListLit)):
                return False
            if isinstance(x, N.Name) and x.id not in params:
                sym = symbols.get(x.id)
                if sym is not None and sym.kind in ("def", "proc"):
                    d = self.def_decls.get(x.id)
                    return small and d is not None and not d.params and x.id in self.constant_defs
            if isinstance(x, N.Node):
                return all(leaf(v) for k, v in x.__dict__.items() if k != "span")
            if isinstance(x, (list, tuple)):
                return all(leaf(v) for v in x)
            return True

        def leaf_in(x, names: set) -> bool:
            nonlocal params
            saved, params = params, names
            try:
                return leaf(x)
            finally:
                params = saved

        return leaf(body)

    def _leaf_callee(self, name: str) -> bool:
        """Whether a def that a small def calls (`_is_leaf` with small) is a leaf itself, chance-free
        and never calling itself back; or, without parameters, a constant (read, not worked out)."""
        d = self.def_decls.get(name)
        if d is None or name in self.cc.impure_defs or self.recursive_defs is None or name in self.recursive_defs:
            return False
        key = ("callee", name)
        found = self._inlinable.get(key)
        if found is None:
            found = self._inlinable[key] = (not d.params and name in self.constant_defs) or (
                bool(d.params) and self._is_leaf(d.body, {p.name for p in d.params}))
        return found

    def lifted_condition(self, x) -> str | None:
        """The name of the def a list's condition was lifted into (dependencies.lifted_conditions),
        written on first use; None when it was not, or when the condition names a local of this
        place (the lifted def would read a global of that name instead)."""
        if x.keep != "where" or self.no_walrus:
            return None
        d = self.lifted.get((x.cond.span.line, x.cond.span.column, x.var))
        if d is None or (mentioned(x.cond) - {x.var}) & (set(self.cc.scope) | set(self.pylocals)):
            return None
        if d.name not in self.lifted_written:
            self.lifted_written.add(d.name)
            self.define(d, True, charge=False,
                        card_params=frozenset({x.var}) if self.yields_cards(x.coll) else frozenset())
        return d.name
