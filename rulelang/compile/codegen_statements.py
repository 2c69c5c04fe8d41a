"""Statements written as generated Python (`StatementWriter`, a part of `codegen.Generator`): runs
of simple statements fused into one op (`FusedExec`), or of simple statements, `if`s and `for each`
loops (`FusedRegion`; both by `fuse_regions`), continuous rules as one function (`sync_block`) and
the bindings of a `choose { option ... }` as nested loops (`option_walker`). One writer,
`_BlockWriter`, writes Python's `if` and `for` for all of them. Each simple statement is the call
of its closure, as the statement compiler made it (`statements.py`): what a statement does is
written there only; the writer writes the VM's part around it (steps, events, the frame's place).
"""
from __future__ import annotations

import types
from typing import Callable

from rulelang.language import nodes as N
from rulelang.check.dependencies import mentioned
from rulelang.language.nodes import nodes_in
from rulelang.compile.codegen_helpers import TRANSLATED, work_lines
from rulelang.engine.ops import CallProc, EndOp, Exec, ForInit, JumpIfNot, Op, PerformOp, SignalOp


_SYNC_DEPTH = 14  # levels of `if` and `for each` a continuous rule written as one function may use


class _NotSimple(Exception):
    """A statement `Generator.sync_block` does not write: the block stays the VM's."""


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
    per statement. It behaves exactly like the ops it stands for: every op counts as a step of the
    budget, at the same point; pending events (a card entered a watched zone) stop the run right after
    the statement that caused them, with the frame as the ops would have left it, so that triggers
    fire at the same point; an error or the steps budget names the statement's own line (`span`). The
    original ops stay in place after it, so a jump, a saved position or a run stopped for triggers that
    lands inside carries on with them."""

    # unwinds: whether it holds an `end ...` (so a procedure of it keeps its frame)
    __slots__ = ("run", "spans", "start", "at", "unwinds")

    def __init__(self, start: int, spans: list):
        self.start, self.spans, self.at = start, spans, 0
        self.run = None  # the generated function run(vm, frame), bound by Generator.fused_region

    @property
    def span(self):
        return self.spans[self.at]


class FusedRegion(FusedExec):
    """A FusedExec of simple statements, `if`s and `for each` loops made of them, whose generated `run`
    is Python's own `if` and `for`; a run stopped for triggers leaves each open loop's list and next
    index in its slot, as the loop's ops keep them."""

    __slots__ = ()


class _BlockWriter:
    """The one writer of Python's `if` and `for` for the rules' `if` and `for each ... [where ...]`,
    and of a simple statement as a call of its closure (its op in `ops`; `ranges`: each statement's
    ops), for a fused region (`fused_region`) and a continuous rule (`sync_block`). A region runs
    among the VM's ops (`sync` False): it keeps the op it is at (`op.at`), counts each op it stands
    for as the VM would, stops for pending events (each open loop's list and index kept in its
    slot) and writes a test as its compiled body in place (`value_of`). A continuous rule runs to
    its end at once (VM.run_sync): a step per statement, test and turn of a loop; it runs `break`,
    `continue`, signals and procedures, and writes its tests itself, a loop's item a Python local.
    `gen` is the game's `codegen.Generator` (this module is a part of it: it does not import it)."""

    INLINE_LINES = 80  # an expression's body longer than this is called, not written in place
    TOP = "        "  # the indentation of the block's own statements

    def __init__(self, gen, ops: list, ranges: dict, start: int, stop: int, lines: list, sync: bool):
        self.gen, self.ops, self.ranges, self.start, self.stop, self.lines = gen, ops, ranges, start, stop, lines
        self.sync = sync
        # levels of Python indentation (the tokenizer allows 100), and loops in loops (Python allows
        # 20 nested blocks, with the function's `try`), that the block may use
        self.max_depth, self.max_loops = (_SYNC_DEPTH, _SYNC_DEPTH) if sync else (40, 12)
        self.inlined = False  # an expression's body is written in the region
        self.last_counted_by_vm = False  # the region ends with a simple statement, which the VM counts

    def value_of(self, fn, indent: str, loops: list) -> str:
        """The Python value of an expression the compiler made into fn (a condition, a loop's list):
        fn's generated body written in place, its value left in `value` (no call per
        test: `for each line in lines { if all(...) }`), or a call of fn when it has no body, is
        long, or would nest too deeply for Python."""
        body = self.gen.expression_bodies.get(id(fn))
        if body is not None:
            rows = body.split("\n")
            levels = max((len(r) - len(r.lstrip(" "))) // 4 - 1 for r in rows if r.strip())
            loops_in = max([(len(r) - len(r.lstrip(" "))) // 4 - 1 for r in rows if r.lstrip().startswith("for ")],
                           default=0)
            # Python allows 20 nested blocks (the region's `try` and loops, and the body's loops) and
            # 100 levels of indentation
            if len(rows) <= self.INLINE_LINES and len(loops) + loops_in + 2 < 20 \
                    and len(indent) // 4 + levels < self.max_depth:
                self.lines += [indent + r[8:] if r.startswith("        ") else r for r in rows]
                self.inlined = True
                return "value"
        return f"{self.gen.const(fn, 'F')}(c)"

    def test(self, node, fn, k: int, indent: str, loops: list) -> str:
        """A test or a list to write at `indent`: in a region, the op k's compiled `fn` (value_of),
        with the op kept as the one it is at; in a continuous rule, the expression `node` written
        here (in parentheses: a construct of it may start a line of its own, Generator.mark)."""
        if self.sync:
            return f"({self.gen.x(node)}\n{indent})"
        self.lines.append(f"{indent}op.at = {k - self.start}")
        return self.value_of(fn, indent, loops)

    def step(self, span, indent: str) -> None:
        """One step of work counted (the VM's count of an op), at `span` should it pass the checkpoint."""
        self.lines += work_lines(indent, self.gen.const(span, 'S'))

    def block(self, stmts: list, indent: str, loops: list) -> None:
        """The statements at `indent` (`pass` when nothing is written in the suite); the names they
        bind are rules names of the block only."""
        saved = self.gen.cc.scope
        for st in stmts:
            self.stmt(st, indent, loops)
        self.gen.cc.scope = saved
        if not self.lines or self.lines[-1].endswith(":"):
            self.lines.append(f"{indent}pass")

    def deeper(self, indent: str) -> str:
        """The indentation one level in (a block too deeply nested is left to the VM's ops)."""
        if len(indent) // 4 >= self.max_depth:
            raise _NotSimple()
        return indent + "    "

    def stmt(self, st, indent: str, loops: list) -> None:
        entry = self.ranges.get(id(st))
        if entry is None or entry[0] is not st:
            raise _NotSimple()
        _, a, b = entry
        kind = type(st)
        if kind is N.If and b > a:
            self.branches(st, a, indent, loops)
        elif kind is N.For and st.chosen_by is None:
            self.loop(st, a, indent, loops)
        elif kind in (N.Break, N.Continue) and self.sync and loops:
            self.lines.append(f"{indent}{'break' if kind is N.Break else 'continue'}")
        elif b == a and not self.sync:
            return  # a statement with no op of its own
        elif b - a != 1:
            raise _NotSimple()
        elif self.sync:
            self.sync_simple(st, self.ops[a], indent)
        else:
            self.region_simple(a, indent, loops)

    def branches(self, st, a: int, indent: str, loops: list) -> None:
        """An `if` chain: each test a JumpIfNot (to the next test), each branch ends with a Jump to
        the end. In a region every test, and the jump, is a step; in a continuous rule the `if` is
        one. An `else:` followed at once by an `if` is an `elif`."""
        ops, lines, region = self.ops, self.lines, not self.sync
        if self.sync:
            self.step(st.span, indent)
        p = a
        for cond, body in st.branches:
            keyword = "if"
            if lines[-1] == f"{indent[:-4]}else:":
                lines.pop()
                indent, keyword = indent[:-4], "elif"
            test = ops[p]
            lines.append(f"{indent}{keyword} {self.test(cond, test.cond, p, indent, loops)}:")
            inner = self.deeper(indent)
            if region:
                self.step(st.span, inner)
            self.block(body, inner, loops)
            if region:
                self.step(st.span, inner)  # the branch's closing Jump
            lines.append(f"{indent}else:")
            if region:
                self.step(st.span, inner)  # the test failed: on to the next one (or the `else`, or the end)
            indent, p = inner, test.target
        if st.other is not None:
            self.block(st.other, indent, loops)
        elif lines[-1] == f"{indent[:-4]}else:":
            lines.pop()

    def loop(self, st, a: int, indent: str, loops: list) -> None:
        """`for each` as Python's `for`. In a region the ForInit, each turn's ForNext and jump back,
        the last ForNext and the ClearSlot are steps; in a continuous rule, the loop and each turn."""
        gen, lines, ops = self.gen, self.lines, self.ops
        if len(loops) >= self.max_loops:
            raise _NotSimple()
        named = {}
        self.deeper(indent)
        if self.sync:
            self.step(st.span, indent)
            item = target = gen.fresh("_i")
            # the collection as the built-in gives it (a copy of a zone or a cell), not a board's
            # own list: the loop's body may move cards
            items, kept = f"_as_list({gen.x(st.coll)})", None
            if not _rebinds(st.body, st.var):
                # the loop's own Python name stands for its variable in the expressions written here
                # (the statements' closures read it from v); `item` is a fresh name: no other place holds it
                named = {"pylocals": {**gen.pylocals, st.var: item},
                         "card_locals": gen.card_locals | ({item} if gen.yields_cards(st.coll) else set())}
        else:
            n = len(loops)
            listed, index, item = f"_items{n}", f"_i{n}", f"_x{n}"
            lines.append(f"{indent}{listed} = _as_list({self.test(st.coll, ops[a].coll, a, indent, loops)})")
            self.step(st.span, indent)
            target, items, kept = f"{index}, {item}", f"_enumerate({listed}, 1)", (ops[a + 1].slot, listed, index)
        inside = loops + [kept]
        with gen.setting(**named), gen.cc.scoped({st.var}):
            test = None if st.cond is None else (lambda at: self.test(st.cond, ops[a + 1].cond, a + 1, at, inside))
            inner = self.for_each(indent, target, items, st.var, item, test)
            self.step(st.span, inner)  # (in a region: the ForNext that gave this item)
            self.block(st.body, inner, inside)
        if not self.sync:
            self.step(st.span, inner)  # the jump back to the ForNext
            self.step(st.span, indent)  # the ForNext that found no more items
            self.step(st.span, indent)  # the ClearSlot after the loop

    def for_each(self, indent: str, target: str, items: str, var: str, item: str, test=None) -> str:
        """Python's `for target in items:`, the rules' name `var` set to `item` in v and, given `test`
        (the indentation inside -> a condition), the items that fail it skipped; the indentation
        inside. (A region's and a rule's `for each`, and an option's bindings: option_walker.)"""
        inner = indent + "    "
        self.lines += [f"{indent}for {target} in {items}:", f"{inner}v[{var!r}] = {item}"]
        if test is not None:
            self.lines += [f"{inner}if not {test(inner)}:", f"{inner}    continue"]
        return inner

    def sync_simple(self, st, op, indent: str) -> None:
        """(continuous rule) A statement of one op: a step, then the op."""
        if type(op) not in (Exec, SignalOp, CallProc, PerformOp):
            raise _NotSimple()
        if type(st) is N.Let:
            self.gen.cc.scope = self.gen.cc.scope | {st.name}  # (as the statement compiler's scope has it)
        self.step(st.span, indent)
        if type(op) is Exec:
            self.lines.append(f"{indent}{self.gen.const(op.fn, 'F')}(c)")
            return
        self.lines.append(f"{indent}{self.gen.const(op, 'O')}.run(vm, frame)")  # the op itself (its pc is not read)
        if type(op) is not SignalOp:
            # a procedure or a keyword's effect was pushed above this rule's frame: run it to its
            # end now, as VM.run_sync does (False: the rule itself was unwound)
            self.lines += [f"{indent}if len(stack) != level and not vm.finish_pushed(level):",
                           f"{indent}    return"]

    def region_simple(self, a: int, indent: str, loops: list) -> None:
        """(region) A statement of one op, `end ...` or a closure's call, then the VM's part: pending
        events stop the region; the op is a step."""
        o, lines = self.ops[a], self.lines
        lines.append(f"{indent}op.at = {a - self.start}")
        if type(o) is EndOp:
            # `end turn`, `end game`...: the VM unwinds to what handles it and goes on from there; it
            # counts this op as the step of the region (so no step here). Open loops keep their
            # slots, as the VM's loop ops would leave them.
            self.keep_slots(indent, loops)
            lines += [f"{indent}frame.pc = {a + 1}",
                      f"{indent}vm.unwind({o.what!r}, {self.gen.const(o.span, 'S')})",
                      f"{indent}return"]
            return
        lines.append(f"{indent}{self.gen.const(o.fn, 'F')}(c)")  # the statement's closure
        if a + 1 < self.stop or loops:
            lines += [f"{indent}if s.events:"]
            self.keep_slots(indent + "    ", loops)
            lines += [f"{indent}    frame.pc = {a + 1}", f"{indent}    return"]
        if a + 1 == self.stop and indent == self.TOP:
            self.last_counted_by_vm = True  # (as the step of the region itself)
        else:
            self.step(o.span, indent)

    def keep_slots(self, indent: str, loops: list) -> None:
        """Each open loop's list and next index in its slot, as its ops keep them (before the region
        hands over to the VM)."""
        self.lines += [f"{indent}v[{slot!r}] = [{items}, {index}]" for slot, items, index in loops]


class RegionRecords:
    """What the statement compiler notes while compiling one block of ops (`Code`), for
    `fuse_regions`: the op range of every statement, and every block of statements with the
    statement it belongs to (None: the code's own body)."""

    __slots__ = ("code", "ranges", "blocks", "parents")

    def __init__(self, code):
        self.code = code
        self.ranges: dict = {}  # id(statement) -> (statement, first op, op after the last)
        self.blocks: list = []  # (statements, the statement they belong to or None)
        self.parents: list = []  # the statements being compiled, outermost first


def fuse_regions(gen, code, records: RegionRecords) -> None:
    """Replace the first op of every run of two or more ops of fusable statements (simple ones, and
    `if`s and `for each` loops made only of them) by a FusedRegion (a FusedExec without them)."""
    ops = list(code.ops)  # as compiled: regions are written from these
    ranges = records.ranges
    known: dict[int, bool] = {}

    def fusable(st) -> bool:
        found = known.get(id(st))
        if found is None:
            found = known[id(st)] = _fusable(st)
        return found

    def _fusable(st) -> bool:
        entry = ranges.get(id(st))
        if entry is None or entry[0] is not st:
            return False
        _, a, b = entry
        kind = type(st)
        if b == a:
            return kind not in (N.If, N.For)
        if kind is N.If:  # (as s_If lays it out: each test, its branch, a jump to the end; the `else`)
            bodies = [body for _, body in st.branches] + [st.other or []]
            return type(ops[a]) is JumpIfNot and all(fusable(x) for body in bodies for x in body)
        if kind is N.For:  # (as s_For lays it out: ForInit, ForNext, the body, a jump back, ClearSlot)
            return st.chosen_by is None and type(ops[a]) is ForInit and all(fusable(x) for x in st.body)
        return b - a == 1 and type(ops[a]) in (Exec, EndOp)

    for stmts, parent in records.blocks:
        if parent is not None and fusable(parent):
            continue  # written inside its parent's region
        run: list = []
        for st in list(stmts) + [None]:
            if st is not None and fusable(st) and (not run or ranges[id(run[-1])][2] == ranges[id(st)][1]):
                run.append(st)
                continue
            start, stop = (ranges[id(run[0])][1], ranges[id(run[-1])][2]) if run else (0, 0)
            if stop - start >= 2:  # (one op alone is run by the VM as it is)
                region = gen.fused_region(ops, run, ranges, start, stop)
                if region is not None:
                    code.ops[start] = region
            run = [st] if st is not None and fusable(st) else []


class StatementWriter:
    """Writes statements, and runs of them, as generated Python."""

    def sync_block(self, body: list, span, records: RegionRecords) -> Callable | None:
        """A continuous rule's block (its ops and their statements in `records`) as one generated
        function run(vm, frame) (_BlockWriter), or None when it holds a statement other than a
        simple one (an assignment, a move, a discard, a signal, a procedure call, `perform`...),
        `if`, `for each ... [where ...]`, `break` and `continue`."""
        lines: list[str] = []
        ops = list(records.code.ops)
        writer = _BlockWriter(self, ops, records.ranges, 0, len(ops), lines, sync=True)
        try:
            with self.new_function(), self.cc.scoped(()):
                writer.block(body, writer.TOP, [])
        except _NotSimple:
            return None
        fname = self.fresh("A")
        self.sources.append("\n".join(
            [f"def {fname}(vm, frame):  # rules line {span.line}",
             "    v = frame.vars",
             "    c = _Ctx(v, vm.s, vm)",
             "    meter = vm.meter",
             "    stack = vm.s.stack",
             "    level = len(stack)  # this rule's frame is stack[level - 1]",
             "    try:"] + lines + [
             "        pass", TRANSLATED]))
        return self.stub(fname)

    def option_walker(self, bindings: list, cond, span) -> Callable:
        """One option of `choose { option name(x in xs where c, y in ys) if cond {...} }` as nested
        Python loops: W(c, rows) appends the values of every binding that passes, the first name
        outermost (ChooseAmong.enumerate lists them so). A collection that names no earlier binding is
        worked out once, when first reached; each bound name is also set in c.v (the names of
        the option's statements)."""
        fname = self.fresh("W")
        head = [f"def {fname}(c, rows):  # rules line {span.line}", "    v = c.v"]
        lines: list[str] = []
        writer = _BlockWriter(self, [], {}, 0, 0, lines, sync=True)
        names: list[str] = []

        def written(node, walrus=False) -> str:
            self.pylocals = {n: f"L_{n}" for n in names}  # (put back by new_function)
            with self.cc.scoped(set(names)):
                return self.iterable(node, walrus=True) if walrus else self.x(node)

        with self.new_function():
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
                test = None if b.cond is None else (lambda at, b=b: f"({written(b.cond)}\n{at})")
                indent = writer.for_each(indent, f"L_{b.var}", items, b.var, f"L_{b.var}", test)
            row = "(" + "".join(f"L_{n}, " for n in names) + ")"
            if cond is not None:
                lines += [f"{indent}if ({written(cond)}", f"{indent}):", f"{indent}    rows.append({row})"]
            else:
                lines.append(f"{indent}rows.append({row})")
        self.sources.append("\n".join(head + ["    try:"] + lines + [TRANSLATED]))
        return self.stub(fname)

    def fused_region(self, ops: list, run: list, ranges: dict, start: int, stop: int):
        """A FusedExec or FusedRegion standing for the statements `run` (ops start to stop - 1: simple
        statements, and `if`s and `for each` loops made of them), with its generated `run` bound, or
        None when it would nest too deeply. Python's own `if` and `for` stand for the VM's jumps and
        loop ops; `ops` are the block's ops as the statement compiler made them."""
        control = any(type(st) in (N.If, N.For) for st in run)
        op = (FusedRegion if control else FusedExec)(start, [o.span for o in ops[start:stop]])
        op.unwinds = any(type(o) is EndOp for o in ops[start:stop])
        fname = self.fresh("X")
        lines = [f"def {fname}(op, vm, frame):  # rules lines {run[0].span.line}-{run[-1].span.line}",
                 "    s = vm.s",
                 "    v = frame.vars",
                 "    c = _Ctx(v, s, vm)",
                 "    meter = vm.meter",
                 "    try:"]
        writer = _BlockWriter(self, ops, ranges, start, stop, lines, sync=False)
        try:
            writer.block(run, writer.TOP, [])
        except _NotSimple:
            return None
        # an error leaves the frame at the op that failed; one of an expression written in the region
        # (writer.inlined) is reported as its own function reports it
        if not writer.last_counted_by_vm:
            lines.append("        meter.work -= 1  # the VM counts this op as one step: every op above is counted")
        lines += [f"        frame.pc = {stop}",
                  "    except BaseException as exc:" if writer.inlined else "    except BaseException:",
                  f"        frame.pc = {start} + op.at"]
        if writer.inlined:
            lines += ["        if isinstance(exc, _CATCH):", "            raise _translate(exc) from None"]
        self.sources.append("\n".join(lines + ["        raise", ""]))
        op.run = types.MethodType(self.stub(fname), op)
        return op
