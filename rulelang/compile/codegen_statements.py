"""Statements written as generated Python (`StatementWriter`, a part of `codegen.Generator`): runs
of simple statements fused into one op (`FusedExec`), continuous rules as one function
(`sync_block`) and the bindings of a `choose { option ... }` as nested loops (`option_walker`).
"""
from __future__ import annotations

import types
from typing import TYPE_CHECKING, Callable

from rulelang.language import nodes as N
from rulelang.check.dependencies import mentioned, nodes_in
from rulelang.engine.ops import CallProc, Exec, Op, PerformOp, SignalOp
from rulelang.engine.program import Code
from rulelang.engine.values import _CARD_PSEUDO_FIELDS
from rulelang.compile.codegen_helpers import _BIG

if TYPE_CHECKING:
    from rulelang.compile.codegen import Generator


_SYNC_DEPTH = 14  # levels of `if` and `for each` a continuous rule written as one function may use


class _NotSimple(Exception):
    """A statement `Generator.sync_block` does not write: the block stays the VM's."""


#: statements that steer the VM (loops with guards, choices, turns, returns; `for ... chosen by`, and
#: `break`/`continue` outside a loop of the block): sync_block does not write them
_SYNC_CONTROL = (N.For, N.While, N.RepeatTimes, N.RepeatUntil, N.Choose, N.ChooseBlock, N.TakeTurns, N.StepBlock,
                 N.Break, N.Continue, N.Return, N.End, N.Respond, N.Offer)


def _rebinds(body: list, name: str) -> bool:
    """Whether a statement of `body` gives `name` a new value (`let`, an assignment, a loop or a
    choice of that name)."""
    for x in nodes_in(body):
        if isinstance(x, N.Let) and x.name == name:
            return True
        if isinstance(x, N.Assign) and isinstance(x.target, N.Name) and x.target.id == name:
            return True
        if isinstance(x, (N.For, N.Choose, N.Binding, N.Respond)) and x.var == name:
            return True
    return False


class FusedExec(Op):
    """A run of consecutive simple statements (the compiler's `Exec` ops: assignments, moves, draws...)
    as ONE op whose generated `run` calls them one after the other, instead of one trip through the VM
    per statement. It behaves exactly like the ops it stands for: the steps budget counts each
    statement, pending events (a card entered a watched zone) stop the run right after the statement
    that caused them so that triggers fire at the same point, and an error or the steps budget names
    the statement's own line (`span`). The original ops stay in place after it, so a jump or a saved
    position that lands inside the run still works."""

    __slots__ = ("run", "spans", "start", "at")

    def __init__(self, start: int, spans: list):
        self.start, self.spans, self.at = start, spans, 0
        self.run = None  # the generated function run(vm, frame), bound by Generator.fuse

    @property
    def span(self):
        return self.spans[self.at]


def fuse_code(gen: "Generator", code) -> None:
    """Replace the first op of every run of two or more `Exec` ops of a block by a `FusedExec`."""
    ops = code.ops
    i = 0
    while i < len(ops):
        if type(ops[i]) is not Exec:
            i += 1
            continue
        j = i
        while j < len(ops) and type(ops[j]) is Exec:
            j += 1
        if j - i >= 2:
            ops[i] = gen.fused(ops[i:j], i)
        i = j


class StatementWriter:
    """Writes statements, and runs of them, as generated Python."""

    def sync_block(self, body: list, span) -> Callable | None:
        """A continuous rule's block as one generated function run(vm, frame), or None when it
        holds a statement other than a simple one (an assignment, a move, a discard, a signal, a
        procedure call, `perform`...), `if`, `for each ... [where ...]`, `break` and `continue`. A
        continuous rule runs to its end at once (VM.run_sync: no choice, no trigger until it ends),
        so Python's own `if` and `for` can stand for the VM's jumps. Each simple statement is the closure the statement compiler makes
        for it; conditions are generated expressions; the steps budget counts each statement, test
        and turn of a loop."""
        lines: list[str] = []
        saved = self.pylocals, self.in_def, self.no_walrus, self.cc.scope, self.card_locals
        self.pylocals, self.in_def, self.no_walrus, self.card_locals = {}, False, False, frozenset()
        try:
            with self.no_def_parameters():
                self._sync_block(body, lines, "        ", False)
        except _NotSimple:
            return None
        finally:
            self.pylocals, self.in_def, self.no_walrus = saved[:3]
            self.cc.scope, self.card_locals = saved[3:]
        fname = self.fresh("A")
        self.sources.append("\n".join(
            [f"def {fname}(vm, frame):  # rules line {span.line}",
             "    v = frame.vars",
             "    c = _Ctx(v, vm.s, vm)",
             "    meter = vm.meter",
             "    stack = vm.s.stack",
             "    level = len(stack)  # this rule's frame is stack[level - 1]",
             "    try:"] + lines + [
             "        pass",
             "    except _CATCH as exc:",
             "        raise _translate(exc) from None", ""]))
        return self.stub(fname)

    def _sync_block(self, stmts: list, lines: list, indent: str, in_loop: bool) -> None:
        saved = self.cc.scope
        for st in stmts:
            self._sync_stmt(st, lines, indent, in_loop)
        self.cc.scope = saved
        if not stmts:
            lines.append(f"{indent}pass")

    def _sync_step(self, lines: list, indent: str, span) -> None:
        lines += [f"{indent}meter.work += 1",
                  f"{indent}if meter.work >= meter.checkpoint:",
                  f"{indent}    meter.check({self.const(span, 'S')})"]

    def _sync_stmt(self, st, lines: list, indent: str, in_loop: bool) -> None:
        kind = type(st)
        if kind in (N.If, N.For) and len(indent) // 4 >= _SYNC_DEPTH:
            raise _NotSimple()  # (nested deeper than Python's 20 blocks: the rule runs on its ops)
        if kind is N.If:
            self._sync_step(lines, indent, st.span)
            for k, (cond, body) in enumerate(st.branches):
                lines += [f"{indent}{'elif' if k else 'if'} ({self.x(cond)}", f"{indent}):"]
                self._sync_block(body, lines, indent + "    ", in_loop)
            if st.other is not None:
                lines.append(f"{indent}else:")
                self._sync_block(st.other, lines, indent + "    ", in_loop)
        elif kind is N.For and st.chosen_by is None:
            self._sync_step(lines, indent, st.span)
            item = self.fresh("_i")
            # the collection as the built-in gives it (a copy of a zone or a cell), not a board's
            # own list: the loop's body may move cards
            lines.append(f"{indent}for {item} in _as_list({self.x(st.coll)}):")
            inner = indent + "    "
            lines.append(f"{inner}v[{st.var!r}] = {item}")
            saved = self.pylocals, self.card_locals
            if not _rebinds(st.body, st.var):
                # the loop's own Python name stands for its variable in the expressions written here
                # (the statements' closures read it from v)
                self.pylocals = {**self.pylocals, st.var: item}
                if self.yields_cards(st.coll):  # (`item` is a fresh name: no other place holds it)
                    self.card_locals = self.card_locals | {item}
            try:
                with self.cc.scoped({st.var}):
                    if st.cond is not None:
                        lines += [f"{inner}if not ({self.x(st.cond)}", f"{inner}):", f"{inner}    continue"]
                    self._sync_step(lines, inner, st.span)
                    self._sync_block(st.body, lines, inner, True)
            finally:
                self.pylocals, self.card_locals = saved
        elif kind in (N.Break, N.Continue) and in_loop:
            lines.append(f"{indent}{'break' if kind is N.Break else 'continue'}")
        elif kind in _SYNC_CONTROL:
            raise _NotSimple()
        elif kind is N.Let:
            # `let x = e` written here, its value with the names this block knows (a loop's card)
            self._sync_step(lines, indent, st.span)
            value = self.fresh("_v")
            lines += self.body_lines(st.value, value, indent)
            lines.append(f"{indent}v[{st.name!r}] = {value}")
            self.cc.scope = self.cc.scope | {st.name}
        else:
            scratch = Code(-1, "", "always", st.span)
            self.cc.stmt(scratch, st, [])
            if len(scratch.ops) != 1 or type(scratch.ops[0]) not in (Exec, SignalOp, CallProc, PerformOp):
                raise _NotSimple()
            op = scratch.ops[0]
            self._sync_step(lines, indent, st.span)
            if type(op) is Exec:
                lines.append(f"{indent}{self.const(op.fn, 'F')}(c)")
                return
            lines.append(f"{indent}{self.const(op, 'O')}.run(vm, frame)")  # the op itself (its pc is not read)
            if type(op) is not SignalOp:
                # a procedure or a keyword's effect was pushed above this rule's frame: run it to its
                # end now, as VM.run_sync does (False: the rule itself was unwound)
                lines += [f"{indent}if len(stack) != level and not vm.finish_pushed(level):",
                          f"{indent}    return"]

    def option_walker(self, bindings: list, cond, span) -> Callable:
        """One option of `choose { option name(x in xs where c, y in ys) if cond {...} }` as nested
        Python loops: W(c, rows) appends the values of every binding that passes, in the order
        ChooseAmong.enumerate's walk finds them. A collection that names no earlier binding is
        worked out once, when first reached; each bound name is also set in c.v (the names of
        the option's statements)."""
        fname = self.fresh("W")
        head = [f"def {fname}(c, rows):  # rules line {span.line}", "    v = c.v"]
        lines = []
        saved = self.pylocals, self.in_def, self.no_walrus, self.card_locals
        self.in_def, self.no_walrus, self.card_locals = False, False, frozenset()
        names: list[str] = []

        def written(node, walrus=False) -> str:
            self.pylocals = {n: f"L_{n}" for n in names}
            with self.cc.scoped(set(names)), self.no_def_parameters():
                return self.iterable(node, walrus=True) if walrus else self.x(node)

        try:
            indent = "        "
            for k, b in enumerate(bindings):
                items = written(b.coll, walrus=True)
                if not self.walks_cards(b.coll):
                    items = f"_as_list({items})"
                if not (mentioned(b.coll) & set(names)):  # (a text's "{x}" too)
                    head.append(f"    F{k} = None")
                    lines += [f"{indent}if F{k} is None:", f"{indent}    F{k} = {items}"]
                    items = f"F{k}"
                names.append(b.var)
                lines.append(f"{indent}for L_{b.var} in {items}:")
                indent += "    "
                lines.append(f"{indent}v[{b.var!r}] = L_{b.var}")
                if b.cond is not None:
                    lines += [f"{indent}if not ({written(b.cond)}", f"{indent}):", f"{indent}    continue"]
            row = "(" + "".join(f"L_{n}, " for n in names) + ")"
            if cond is not None:
                lines += [f"{indent}if ({written(cond)}", f"{indent}):", f"{indent}    rows.append({row})"]
            else:
                lines.append(f"{indent}rows.append({row})")
        finally:
            self.pylocals, self.in_def, self.no_walrus, self.card_locals = saved
        self.sources.append("\n".join(head + ["    try:"] + lines + [
            "    except _CATCH as exc:",
            "        raise _translate(exc) from None", ""]))
        return self.stub(fname)

    def fused(self, execs: list, start: int):
        """The generated `run` of a FusedExec standing for `execs` (ops start, start+1, ...)."""
        op = FusedExec(start, [o.span for o in execs])
        fname = self.fresh("X")
        first, last = execs[0].span.line, execs[-1].span.line
        lines = [f"def {fname}(op, vm, frame):  # rules lines {first}-{last}",
                 "    s = vm.s",
                 "    c = _Ctx(frame.vars, s, vm)",
                 "    meter = vm.meter",
                 "    op.at = 0",
                 "    try:"]
        for k, o in enumerate(execs):
            if k:
                lines.append(f"        op.at = {k}")
            self.statement(o, lambda line: lines.append(f"        {line}"))
            if k < len(execs) - 1:
                lines += ["        if s.events:",
                          f"            frame.pc = {start + k + 1}",
                          "            return",
                          "        meter.work += 1",
                          "        if meter.work >= meter.checkpoint:",
                          f"            meter.check({self.const(o.span, 'S')})"]
        lines.append(f"        frame.pc = {start + len(execs)}")
        return self._bound(op, fname, lines, start)

    def _bound(self, op, fname: str, lines: list, start: int):
        """A fused op's generated `run`, its lines closed (an error leaves the frame at the op that
        failed), with the op bound to it."""
        lines += ["    except BaseException:", f"        frame.pc = {start} + op.at", "        raise", ""]
        self.sources.append("\n".join(lines))
        op.run = types.MethodType(self.stub(fname), op)
        return op

    def statement(self, o, emit: Callable) -> None:
        """One statement of a fused run, its lines given to `emit` in order: `let x = e` and `x = e`
        on a local as Python; `move` with its values worked out here, in the closure's order, and the
        cards put by `values.move_cards`; `=`, `+=`, `-=` of a global, or of a card's or player's own
        field, as the closure does them (`values.set_field` for anything else); the others by their
        closure."""
        def value(fn) -> str:
            return f"{self.const(fn, 'F')}(c)"

        parts = getattr(o.fn, "parts", None)
        if parts is not None and parts[0] == "let":
            _kind, name, fn = parts
            emit(f"c.v[{name!r}] = {value(fn)}")
        elif parts is not None and parts[0] == "move" and parts[6] is None:
            _kind, what, to, at, bottom, face_down, _slot, span = parts
            zone, cell = self.fresh("_z"), self.fresh("_m")
            emit(f"{zone} = {value(to)}")
            emit(f"if type({zone}) is not _BoardZone:")
            emit(f"    {zone} = _the_zone({zone}, {self.const(span, 'S')})")
            emit(f"{cell} = {value(at) if at is not None else 'None'}")
            emit(f"_move_cards(c, {value(what)}, {zone}, {cell}, {bottom}, {face_down}, {self.const(span, 'S')})")
        elif parts is not None and parts[0] == "global" and parts[3] in ("=", "+=", "-="):
            _kind, name, fn, op, key, readers, span = parts
            v, g, old = self.fresh("_v"), self.fresh("_g"), self.fresh("_o")
            emit(f"{v} = {value(fn)}")
            emit(f"{g} = c.s.globals")
            emit(f"{old} = {g}.get({name!r})")
            new = self._updated(old, v, op, span, emit)
            emit(f"if {g}.get({name!r}, _MISS) != {new}:")
            emit(f"    {g}[{name!r}] = {new}")
            emit(f"    _value_changed(c.s, {key!r}, {self.const(readers, 'K')})")
        elif parts is not None and parts[0] == "field" and parts[4] in ("=", "+=", "-="):
            # a card's or a player's own field here; anything else (a card's built-in field, a value
            # that is neither) as the closure does it (values.set_field), the value worked out there
            _kind, obj, attr, fn, op, readers, span = parts
            o, a, v, old = self.fresh("_f"), self.fresh("_a"), self.fresh("_v"), self.fresh("_o")
            emit(f"{o} = {value(obj)}")
            card = f"type({o}) is _Entity" + (f" and {attr!r} in {o}.attrs" if attr in _CARD_PSEUDO_FIELDS else "")
            emit(f"if type({o}) is _Player or {card}:")

            def emit_inner(line: str) -> None:
                emit(f"    {line}")

            emit_inner(f"{a} = {o}.attrs")
            emit_inner(f"{v} = {self.const(fn, 'F')}(c)")
            emit_inner(f"{old} = {a}.get({attr!r})")
            new = self._updated(old, v, op, span, emit_inner)
            emit_inner(f"if type({new}) not in _PLAIN and type({o}) is _Entity:")
            emit_inner(f"    c.s.holding.add({o}.id)")
            emit_inner(f"if {a}.get({attr!r}, _MISS) != {new}:")
            emit_inner(f"    {a}[{attr!r}] = {new}")
            emit_inner(f"    if type({o}) is _Entity and {attr!r} in c.vm.program.keyword_fields:")
            emit_inner("        c.s.cards_version += 1")
            emit_inner(f"    _value_changed(c.s, {attr!r}, {self.const(readers, 'K')})")
            emit("else:")
            emit(f"    _set_field(c, {o}, {attr!r}, {self.const(fn, 'F')}, {op!r}, {self.const(span, 'S')}, None, "
                 f"{self.const(readers, 'K')})")
        else:
            emit(f"{self.const(o.fn, 'F')}(c)")

    def _updated(self, old: str, v: str, op: str, span, emit: Callable) -> str:
        """The Python local holding `old op v` (values._update): whole numbers added or taken away
        here when the result stays within the bound, anything else by the helper."""
        if op == "=":
            return v
        new = self.fresh("_n")
        sign = "+" if op == "+=" else "-"
        emit(f"{new} = ({new} if type({old}) is int and type({v}) is int and {-_BIG} <= ({new} := {old} {sign} {v}) "
             f"<= {_BIG} else _update({old}, {v}, {op!r}, {self.const(span, 'S')}))")
        return new
