"""The VM's instructions: what a compiled block (``Code``) is made of.

Each op is one small class with ``run(vm, frame)`` (and ``resume(vm, frame, option)`` when it asks
a player); ops advance ``frame.pc`` themselves, keep the span of their statement (so a failure names
its rules line), and keep their loop counters in the frame's variables, so a position in a block is
plain data that saves to JSON. The statement compiler (``compile/statements.py``) emits them; the runtime
(``runtime.py``) runs them.
"""
from __future__ import annotations

from rulelang.model.builtins import as_list, describe
from rulelang.core.errors import Span
from rulelang.model.options import Options
from rulelang.engine.program import EMPTY_BODY, Ctx, Frame, LOOP_LIMIT, RuleError, as_rules_error, keyword_values
from rulelang.model.things import OUT_KEY, UNTIL_KEY, KeywordValue, Player, expire, out_seats
from rulelang.engine.values import whole_number


class Op:
    """An instruction of a compiled block; each kind defines run(vm, frame) and names its fields in
    `__slots__`, in the order its constructor takes them (a field not given is None)."""

    span: Span = Span()

    def __init__(self, *values):
        for i, name in enumerate(self.__slots__):
            setattr(self, name, values[i] if i < len(values) else None)


class Exec(Op):
    __slots__ = ("fn", "span")

    def run(self, vm, frame):
        self.fn(Ctx(frame.vars, vm.s, vm))
        frame.pc += 1


class Jump(Op):
    __slots__ = ("target", "span")

    def run(self, vm, frame):
        frame.pc = self.target


class JumpIfNot(Op):
    __slots__ = ("cond", "target", "span")

    def run(self, vm, frame):
        frame.pc = frame.pc + 1 if self.cond(Ctx(frame.vars, vm.s, vm)) else self.target


class LoopGuard(Op):
    """Counts the turns of a loop, so a loop that never ends is stopped with its line."""

    __slots__ = ("slot", "span")

    def run(self, vm, frame):
        n = frame.vars.get(self.slot, 0) + 1
        if n > LOOP_LIMIT:
            raise RuleError(self.span, f"this loop ran {LOOP_LIMIT:,} times without ending; its condition never changes")
        frame.vars[self.slot] = n
        frame.pc += 1


class ClearSlot(Op):
    __slots__ = ("slot", "span")

    def run(self, vm, frame):
        frame.vars.pop(self.slot, None)
        frame.pc += 1


class ForInit(Op):
    __slots__ = ("slot", "coll", "span")

    def run(self, vm, frame):
        frame.vars[self.slot] = [as_list(self.coll(Ctx(frame.vars, vm.s, vm))), 0]
        frame.pc += 1


class ForNext(Op):
    __slots__ = ("slot", "var", "cond", "end", "span")

    def run(self, vm, frame):
        state = frame.vars[self.slot]
        items, i = state
        v = frame.vars
        while i < len(items):
            item = items[i]
            i += 1
            v[self.var] = item
            if self.cond is None or self.cond(Ctx(v, vm.s, vm)):
                state[1] = i
                frame.pc += 1
                return
        del v[self.slot]
        frame.pc = self.end


class ForChosenNext(Op):
    """`for each x in coll chosen by p`: the player picks which item comes next."""

    __slots__ = ("slot", "var", "by", "end", "span", "prompt")

    def run(self, vm, frame):
        items = frame.vars[self.slot][0]
        if not items:
            del frame.vars[self.slot]
            frame.pc = self.end
            return
        if len(items) == 1 and not vm.ask_single:
            only = {"name": "next", "values": {self.var: items[0]}}
            if vm.taken is not None:
                vm.took(self.by, Ctx(frame.vars, vm.s, vm), only, self.prompt, self.span)
            self.resume(vm, frame, only)
            return
        who = self.by(Ctx(frame.vars, vm.s, vm))
        options = Options()
        options.add_one(None, "next", self.var, list(items))
        vm.ask(who, options, self.prompt, self.span)

    def resume(self, vm, frame, option):
        item = option["values"][self.var]
        state = frame.vars[self.slot]
        left = list(state[0])  # the loop's own copy: the collection may be a global's or a def's list
        left.remove(item)
        state[0] = left
        frame.vars[self.var] = item
        frame.pc += 1


class RepeatInit(Op):
    __slots__ = ("slot", "count", "span")

    def run(self, vm, frame):
        frame.vars[self.slot] = whole_number(self.count(Ctx(frame.vars, vm.s, vm)), self.span, "`repeat ... times`")
        frame.pc += 1


class RepeatNext(Op):
    __slots__ = ("slot", "end", "span")

    def run(self, vm, frame):
        left = frame.vars[self.slot]
        if left <= 0:
            del frame.vars[self.slot]
            frame.pc = self.end
            return
        frame.vars[self.slot] = left - 1
        frame.pc += 1


def shown_prompt(prompt, ctx) -> str | None:
    """A prompt as the player reads it: "{p} picks a card" shows its values at the moment it is asked."""
    return prompt(ctx) if callable(prompt) else prompt


class ChooseOne(Op):
    """`choose x from coll where cond by p`."""

    __slots__ = ("var", "coll", "cond", "by", "optional", "prompt", "span")

    def run(self, vm, frame):
        if (vm.program.has_continuous or vm.s.events) and vm.settle_before_choice():  # nothing to settle: no call
            return
        v = frame.vars
        ctx = Ctx(v, vm.s, vm)
        value = self.coll(ctx)
        items = as_list(value)
        if self.cond is not None:
            kept = []
            saved = v.get(self.var, _MISSING)
            most = 2 if vm.probe and not vm.ask_single and not self.optional else 0
            for x in items:
                v[self.var] = x
                if self.cond(ctx):
                    kept.append(x)
                    if len(kept) == most:  # a probing VM stops at a choice of two or more (VM.probe)
                        break
            if saved is _MISSING:
                v.pop(self.var, None)
            else:
                v[self.var] = saved
            items = kept
        elif items is value:
            items = list(items)  # the options keep their own list (the collection may be a live list)
        options = Options.of_one(None, "choose", self.var, items)
        n = len(items)
        if self.optional:
            options.add_dict({"alt": None, "name": "none", "values": {self.var: None}})
            n += 1
        if n == 0:
            raise RuleError(self.span, f'there is nothing to choose from for "{self.var}": the list of options is empty'
                            " (write `optional` if choosing nothing is allowed)")
        if n == 1 and not vm.ask_single:
            if vm.taken is not None:
                vm.took(self.by, ctx, options[0], self.prompt, self.span)
            self.resume(vm, frame, options[0])
            return
        if vm.probe:
            vm.ask(vm.chooser(self.by, ctx, self.span), NOT_LISTED, None, self.span)
            return
        vm.ask(vm.chooser(self.by, ctx, self.span), options, shown_prompt(self.prompt, ctx), self.span)

    def resume(self, vm, frame, option):
        frame.vars[self.var] = option["values"][self.var]
        frame.pc += 1


_MISSING = object()


class EnoughOptions(Exception):
    """Raised by `ChooseAmong.enumerate` when it has found as many options as it was asked for."""


class _CappedRows(list):
    """The rows of one alternative's bindings, as a list that raises `EnoughOptions` when it holds
    `most` rows (the generated walkers only append)."""

    __slots__ = ("most",)

    def __init__(self, most: int):
        super().__init__()
        self.most = most

    def append(self, row):
        list.append(self, row)
        if len(self) >= self.most:
            raise EnoughOptions


class _NotListed:
    """The options of a choice a probing VM stopped at (`VM.probe`): more than one, never listed.
    A match stopped there may be looked at and scored, not played on."""

    __slots__ = ()

    def _refuse(self, *args):
        raise ValueError("this match stopped at a choice without listing its options (Match.try_option): "
                         "it can be looked at, not played on")

    __len__ = __getitem__ = __iter__ = remap = _refuse


NOT_LISTED = _NotListed()


class ChooseAmong(Op):
    """`choose { option a(x in xs) {...} option b {...} }`: every binding of every option is one choice."""

    # alts: a list of (name, its bindings' names, colls, cond, body_pc). An option whose bindings are
    # independent and without conditions (and that has no condition) is a plain product: `colls` are
    # its bindings' collections, a function of the context each. Any other option has None there, and
    # its bindings are walked by its walker (walkers: per alternative, walker(ctx, rows), generated
    # loops: codegen_statements' Generator.option_walker), or, without bindings, it is one option
    # if `cond` holds
    __slots__ = ("alts", "walkers", "by", "optional", "prompt", "span", "end")

    def enumerate(self, vm, frame, most: int = 0) -> Options:
        """Every option, in order: alternatives in order, each one's bindings with the first name
        outermost. Options are made on demand (rulelang/model/options.py): a random bot builds one.
        With `most`, stops by raising `EnoughOptions` as soon as that many options are found (the
        rows of a binding's conditions are worked out one by one: see `VM.probe`)."""
        options = Options()
        for index, (name, names, colls, cond, _pc) in enumerate(self.alts):
            v = dict(frame.vars)
            ctx = Ctx(v, vm.s, vm)

            if colls is not None:
                # the common case: independent bindings without conditions, a plain product
                lists = []
                for coll in colls:
                    value = coll(ctx)
                    items = as_list(value)
                    lists.append(list(items) if items is value else items)
                options.add_product(index, name, names, lists)
                if most and len(options) >= most:
                    raise EnoughOptions
                continue

            if not names:  # `option name if cond`: one option, or none
                if cond(ctx):
                    options.add_rows(index, name, [], [()])
                    if most and len(options) >= most:
                        raise EnoughOptions
                continue
            rows = [] if not most else _CappedRows(most - len(options))
            self.walkers[index](ctx, rows)
            options.add_rows(index, name, names, rows)
        if self.optional:
            options.add_dict({"alt": None, "name": "none", "values": {}})
        return options

    def run(self, vm, frame):
        if (vm.program.has_continuous or vm.s.events) and vm.settle_before_choice():  # nothing to settle: no call
            return
        if vm.probe and not vm.ask_single:
            try:  # (a choice of one option is taken at once, as below: only the third is never listed)
                options = self.enumerate(vm, frame, 2)
            except EnoughOptions:
                vm.ask(vm.chooser(self.by, Ctx(frame.vars, vm.s, vm), self.span), NOT_LISTED, None, self.span)
                return
        else:
            options = self.enumerate(vm, frame)
        if not options:
            raise RuleError(self.span, "no option of this choice is possible right now"
                            " (write `optional` if doing nothing is allowed)")
        if len(options) == 1 and not vm.ask_single:
            if vm.taken is not None:
                vm.took(self.by, Ctx(frame.vars, vm.s, vm), options[0], self.prompt, self.span)
            self.resume(vm, frame, options[0])
            return
        ctx = Ctx(frame.vars, vm.s, vm)
        vm.ask(vm.chooser(self.by, ctx, self.span), options, shown_prompt(self.prompt, ctx), self.span)

    def resume(self, vm, frame, option):
        if option["alt"] is None:
            frame.pc = self.end
            return
        frame.vars.update(option["values"])
        frame.pc = self.alts[option["alt"]][4]


class CallProc(Op):
    """A procedure call; looked up by name at run time so variants can replace procedures."""

    __slots__ = ("name", "args", "span")

    def run(self, vm, frame):
        params, code = vm.program.procs[self.name]
        ctx = Ctx(frame.vars, vm.s, vm)
        values = {p: a(ctx) for p, a in zip(params, self.args)}
        frame.pc += 1
        body = code.inline
        if body is None or len(vm.s.stack) > vm.meter.budgets.recursion_depth:
            vm.push(code, values, "proc")
            return
        if body is EMPTY_BODY:
            return  # pushed, then popped at once: nothing else happens
        self.run_in_place(vm, code, values, body)

    def run_in_place(self, vm, code, values, body):
        """The procedure's one fused op, run here instead of in a frame the VM would take up, with
        every step counted as the VM would count it: this call first, then the body's ops, the last
        of which the VM counts when this op returns. If a statement of the body sets off triggers,
        the frame is pushed where the body stopped, and the VM goes on from there."""
        meter = vm.meter
        meter.work += 1
        if meter.work >= meter.checkpoint:
            meter.check(self.span)
        inner = Frame(code, 0, values, [], "proc")
        stack = vm.s.stack
        base = len(stack)  # the frame's place, below any the body's statements might push
        try:
            body.run(vm, inner)
        except Exception as exc:
            stack.insert(base, inner)  # where the error happened, as a frame of its own would show it
            raise as_rules_error(exc, body) from None
        if inner.pc < len(code.ops):  # stopped for triggers: the VM counts the statement that set them off
            stack.insert(base, inner)


class PerformOp(Op):
    __slots__ = ("what", "on", "span")

    def run(self, vm, frame):
        ctx = Ctx(frame.vars, vm.s, vm)
        what = self.what(ctx)
        target = self.on(ctx) if self.on is not None else None
        frame.pc += 1
        values = as_list(what) if isinstance(what, list) else [what]
        for kw in reversed(values):
            if kw is None:
                continue
            if not isinstance(kw, KeywordValue):
                raise RuleError(self.span, f"only a keyword can be performed, not {describe(kw)}")
            info = vm.program.keywords[kw.name]
            vm.s.stats[kw.name] = vm.s.stats.get(kw.name, 0) + 1
            if info.effect is None:
                continue
            v = keyword_values(info.params, kw, self.span)
            v["self"] = target
            vm.push(info.effect, v, "keyword")


class SignalOp(Op):
    __slots__ = ("name", "args", "span")

    def run(self, vm, frame):
        ctx = Ctx(frame.vars, vm.s, vm)
        vm.s.events.append(("signal", self.name, tuple(a(ctx) for a in self.args)))
        frame.pc += 1


class EndOp(Op):
    __slots__ = ("what", "span")

    def run(self, vm, frame):
        frame.pc += 1
        vm.unwind(self.what, self.span)


class ReturnOp(Op):
    __slots__ = ("span",)

    def run(self, vm, frame):
        frame.pc = len(frame.code.ops)


class StepOp(Op):
    __slots__ = ("name", "begin", "span")

    def run(self, vm, frame):
        frame.pc += 1
        if self.begin:
            vm.s.globals["__step"] = self.name
        else:
            vm.s.globals.pop("__step", None)
            vm.finished(self.name)


class TurnsInit(Op):
    # following: a computed turn order (a list of players), or None: the seats
    __slots__ = ("slot", "start", "direction", "span", "following")

    def run(self, vm, frame):
        s = vm.s
        ctx = Ctx(frame.vars, s, vm)
        order = None
        if self.following is not None:
            listed = self.following(ctx)
            if not isinstance(listed, (list, tuple)) or not all(isinstance(p, Player) for p in listed):
                raise RuleError(self.span, f"`following` needs a list of players, not {describe(listed)}")
            order = [p.seat for p in listed]  # (a player listed twice takes a turn at each place)
        if self.start is not None:
            first = self.start(ctx)
        elif order is not None:
            first = s.players[order[0]] if order else None
        else:
            first = s.players[s.current] if s.current is not None else s.players[0]
        if order == []:  # nobody's turn: TurnsNext ends the turns
            where = {"order": order, "pos": 0}
        elif not isinstance(first, Player):
            raise RuleError(self.span, f"turns must start from a player, not {describe(first)}")
        elif order is None:
            step = vm.program.game.step if self.direction is None else (1 if self.direction == "clockwise" else -1)
            where = {"seat": first.seat, "step": step}
        elif first.seat not in order:
            raise RuleError(self.span, f"turns start from {describe(first)}, "
                                       "who is not in the turn order given to `following`")
        else:
            where = {"order": order, "pos": order.index(first.seat)}
        frame.vars[self.slot] = {**where, "taken": 0, "first": True}
        frame.pc += 1


class TurnsNext(Op):
    __slots__ = ("slot", "until", "skipping", "once", "end", "span", "turn_end")

    def run(self, vm, frame):
        s = vm.s
        t = frame.vars[self.slot]
        order = t.get("order")
        if order is None and self.until is None and self.skipping is None and OUT_KEY not in s.globals:
            # the plain case (seats in turn, nobody skipped or out): the general steps below, fewer of them
            n = len(s.players)
            if self.once and t["taken"] >= n:
                return self.finish(vm, frame)
            pos = t["seat"] if t["first"] else (t["seat"] + t["step"]) % n
            return self.take(vm, frame, t, "seat", pos, pos)
        if order is not None:
            # a computed order: positions in the list stand for seats
            n = len(order)
            if n == 0:
                return self.finish(vm, frame)
            seat_at = order.__getitem__
            step = 1
            pos = t["pos"] if t["first"] else (t["pos"] + 1) % n
        else:
            n = len(s.players)
            seat_at = int  # (a seat is its own place)
            step = t["step"]
            pos = t["seat"] if t["first"] else (t["seat"] + step) % n
        ctx = Ctx(frame.vars, s, vm)
        if self.until is not None and self.until(ctx):
            return self.finish(vm, frame)
        if self.once and t["taken"] >= n:
            return self.finish(vm, frame)
        out = out_seats(s)
        for _ in range(n):
            if seat_at(pos) in out:
                skip = True  # an eliminated player takes no turns
            elif self.skipping is None:
                break
            else:
                saved = s.current
                s.current = seat_at(pos)
                skip = self.skipping(ctx)
                s.current = saved
            if not skip:
                break
            if self.once:
                t["taken"] += 1
                if t["taken"] >= n:
                    return self.finish(vm, frame)
            pos = (pos + step) % n
        else:
            return self.finish(vm, frame)  # every player is skipped: the turns are over
        self.take(vm, frame, t, "pos" if order is not None else "seat", pos, seat_at(pos))

    def take(self, vm, frame, t: dict, where: str, pos: int, seat: int):
        """The player at `pos` of the order (`where`: "pos" in a computed order, "seat" in the seats)
        takes a turn: it is counted, becomes current, and the turn's end is where `end turn` goes."""
        t[where] = pos
        t["first"] = False
        t["taken"] += 1
        if t["taken"] > LOOP_LIMIT:
            raise RuleError(self.span, f"players took {LOOP_LIMIT:,} turns here without the `until` condition becoming true")
        vm.s.current = seat
        frame.handlers.append(("turn", self.turn_end))
        frame.pc += 1
        if ("start", "turn") in vm.program.at_timings:  # fire_at's own test, without the call
            vm.fire_at("start", "turn")

    def finish(self, vm, frame):
        del frame.vars[self.slot]
        frame.pc = self.end


class TurnEnd(Op):
    __slots__ = ("slot", "next_pc", "span")

    def run(self, vm, frame):
        if frame.handlers and frame.handlers[-1][0] == "turn":
            frame.handlers.pop()
        frame.pc = self.next_pc
        if vm.stop_at_step is not None:
            vm.finished("turn")
        s = vm.s
        if UNTIL_KEY in s.globals:
            expire(s, "turn")
        program = vm.program
        if ("end", "turn") in program.at_timings:
            vm.fire_at("end", "turn")
        if program.has_continuous:
            vm.settle()


class FlowOp(Op):
    """One step of the game's skeleton: rounds, phases, the result."""

    __slots__ = ("what", "arg", "span")

    def run(self, vm, frame):
        s = vm.s
        what = self.what
        if what == "setup":
            frame.pc += 1
            if vm.program.setup is not None:
                vm.push(vm.program.setup, {}, "setup")
        elif what == "handler_game":
            frame.handlers.append(("game", self.arg))
            frame.pc += 1
            vm.finished("setup")
            vm.fire_at("start", "game")
        elif what == "round_start":
            if s.ending:
                frame.pc = self.arg
                return
            s.round += 1
            s.phase = None
            frame.handlers.append(("round", vm.program.round_end_pc))
            frame.pc += 1
            vm.fire_at("start", "round")
        elif what == "phase":
            info = vm.program.phases[self.arg]
            if info.unless is not None and info.unless(Ctx({}, s, vm)):
                frame.pc += 2
                return
            s.phase = self.arg
            frame.handlers.append(("phase", frame.pc + 1))
            frame.pc += 1
            vm.push(info.code, {}, "phase")
            vm.fire_at("start", "phase", self.arg)
        elif what == "phase_end":
            if frame.handlers and frame.handlers[-1][0] == "phase":
                frame.handlers.pop()
            frame.pc += 1
            vm.finished("phase:" + self.arg, "phase:*")
            expire(s, "phase")
            vm.fire_at("end", "phase", self.arg)
            vm.settle()
        elif what == "round_end":
            while frame.handlers and frame.handlers[-1][0] in ("round", "phase"):
                frame.handlers.pop()
            frame.pc += 1
            vm.finished("round")
            expire(s, "round")
            vm.fire_at("end", "round")
            vm.settle()
        elif what == "round_loop":
            max_rounds = vm.program.game.max_rounds
            if s.ending or (max_rounds is not None and s.round >= max_rounds):
                s.ending = True
                frame.pc = vm.program.result_pc
            else:
                frame.pc = self.arg
        elif what == "result":
            s.ending = True
            del frame.handlers[:]
            frame.pc += 1
            s.phase = None
            s.current = None
            if vm.program.result is not None:
                vm.push(vm.program.result, {}, "result")
            vm.fire_at("end", "game")
            vm.settle()
        elif what == "over":
            s.over = True
            frame.pc += 1


class FilterOnce(Op):
    __slots__ = ("slot", "var", "cond", "span")

    def run(self, vm, frame):
        v = frame.vars
        ctx = Ctx(v, vm.s, vm)
        kept = []
        for x in frame.vars[self.slot][0]:
            v[self.var] = x
            if self.cond(ctx):
                kept.append(x)
        frame.vars[self.slot][0] = kept
        frame.pc += 1
