"""The compiler: checked AST -> a ``Program`` of Python closures and flat op lists.

Expressions become closures ``fn(ctx)``. Statement blocks become ``Code``: a flat
list of ops with jumps, run by the VM in ``runtime``. A block's position (code id,
op index, local variables) is plain data, so a match can be saved while a player
is thinking and resumed exactly. Every op keeps the span of its statement, so a
rule that fails at run time names its line in the .rules file.

The pydantic AST is only read here, once, before play.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from . import nodes as N
from .board import Topology
from .budgets import check_size, current_budgets, exceeded
from .builtins import (BUILTIN_VALUES, BUILTINS, RuleFailure, as_list, bipartite_matching, describe, keywords_of,
                       saturating_matching_exists)
from .checker import SymbolTable, type_name
from .errors import Span
from .options import Options
from .model import BoardZone, CardDef, Entity, KeywordValue, OUT_KEY, Player, Zone, expire, move as move_entity, out_seats, players_in, remember_undo

LOOP_LIMIT = 100_000
DEF_CALL_WORK = 50  # a def call counts as this many steps of work (about its cost in ops, with its arguments)


class Ctx:
    """What a closure sees: local variables, the state, and the VM."""

    __slots__ = ("v", "s", "vm")

    def __init__(self, v: dict, s, vm):
        self.v = v
        self.s = s
        self.vm = vm


class RuleError(Exception):
    """A rule failed at run time; carries the span of the failing construct."""

    def __init__(self, span: Span, message: str):
        super().__init__(message)
        self.span = span
        self.message = message


# ------------------------------------------------------------------ program pieces


@dataclass
class Code:
    id: int
    name: str
    kind: str  # flow, phase, proc, keyword, trigger, always, setup, result
    span: Span
    ops: list = field(default_factory=list)
    step_names: list[str] = field(default_factory=list)


@dataclass
class GameInfo:
    title: str
    players_min: int
    players_max: int
    players_default: int
    direction: str
    step: int  # +1 clockwise (seat order), -1 counterclockwise
    round_phases: list[str]
    max_rounds: int | None


@dataclass
class ZoneInfo:
    name: str
    per_player: bool
    visibility: str
    topology: Topology | None
    span: Span


@dataclass
class PhaseInfo:
    name: str
    unless: Callable | None
    code: Code


@dataclass
class TriggerInfo:
    code: Code
    var: str | None
    params: list[str]
    cond: Callable | None
    keyword: str | None
    span: Span
    describe: str


@dataclass
class KeywordInfo:
    name: str
    params: list[str]
    usable: Callable | None
    effect: Code | None
    always: list[Code]
    span: Span
    doc: list[str]


@dataclass
class Program:
    game: GameInfo
    table: SymbolTable
    zones: dict[str, ZoneInfo] = field(default_factory=dict)
    card_sets: dict[str, list[CardDef]] = field(default_factory=dict)
    auto_sets: list[tuple[str, Callable]] = field(default_factory=list)
    discard_zone: dict[str, Callable] = field(default_factory=dict)
    player_fields: list[tuple[str, Callable]] = field(default_factory=list)
    global_vars: list[tuple[str, Callable]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    defs: dict[str, Callable] = field(default_factory=dict)
    procs: dict[str, tuple[list[str], Code]] = field(default_factory=dict)
    keywords: dict[str, KeywordInfo] = field(default_factory=dict)
    phases: dict[str, PhaseInfo] = field(default_factory=dict)
    triggers: dict[tuple, list[TriggerInfo]] = field(default_factory=dict)
    keyword_triggers: dict[tuple, list[TriggerInfo]] = field(default_factory=dict)
    always: list[Code] = field(default_factory=list)
    codes: list[Code] = field(default_factory=list)
    watched_zones: set[str] = field(default_factory=set)
    flow: Code | None = None
    setup: Code | None = None
    result: Code | None = None
    heuristic: Callable | None = None
    components: dict[str, N.ComponentDecl] = field(default_factory=dict)
    round_end_pc: int = 0
    result_pc: int = 0
    at_timings: set = field(default_factory=set)  # (start|end, round|turn|phase|game) that have triggers
    has_continuous: bool = False  # any `always` rule, in the game or in a keyword
    member_colours: dict[str, str] = field(default_factory=dict)  # enum member -> colour for pictures
    generated: Any = None  # the generated Python module's generator (codegen.Generator), None with closures only
    budgets: Any = None  # the resource budgets matches run within (`budgets.Budgets`), set by `load`
    memory_base: float | None = None  # the process's memory (MiB) when the game was loaded

    def new_code(self, name: str, kind: str, span: Span) -> Code:
        code = Code(len(self.codes), name, kind, span)
        self.codes.append(code)
        return code


# ------------------------------------------------------------------ ops
# Each op: run(vm, frame). Ops advance frame.pc themselves.


class Op:
    """An instruction of a compiled block; each kind defines run(vm, frame)."""

    span: Span = Span()


class Exec(Op):
    __slots__ = ("fn", "span")

    def __init__(self, fn, span):
        self.fn, self.span = fn, span

    def run(self, vm, frame):
        self.fn(Ctx(frame.vars, vm.s, vm))
        frame.pc += 1


class Jump(Op):
    __slots__ = ("target", "span")

    def __init__(self, target, span):
        self.target, self.span = target, span

    def run(self, vm, frame):
        frame.pc = self.target


class JumpIfNot(Op):
    __slots__ = ("cond", "target", "span")

    def __init__(self, cond, target, span):
        self.cond, self.target, self.span = cond, target, span

    def run(self, vm, frame):
        frame.pc = frame.pc + 1 if self.cond(Ctx(frame.vars, vm.s, vm)) else self.target


class LoopGuard(Op):
    """Counts the turns of a loop, so a loop that never ends is stopped with its line."""

    __slots__ = ("slot", "span")

    def __init__(self, slot, span):
        self.slot, self.span = slot, span

    def run(self, vm, frame):
        n = frame.vars.get(self.slot, 0) + 1
        if n > LOOP_LIMIT:
            raise RuleError(self.span, f"this loop ran {LOOP_LIMIT:,} times without ending; its condition never changes")
        frame.vars[self.slot] = n
        frame.pc += 1


class ClearSlot(Op):
    __slots__ = ("slot", "span")

    def __init__(self, slot, span):
        self.slot, self.span = slot, span

    def run(self, vm, frame):
        frame.vars.pop(self.slot, None)
        frame.pc += 1


class ForInit(Op):
    __slots__ = ("slot", "coll", "span")

    def __init__(self, slot, coll, span):
        self.slot, self.coll, self.span = slot, coll, span

    def run(self, vm, frame):
        frame.vars[self.slot] = [as_list(self.coll(Ctx(frame.vars, vm.s, vm))), 0]
        frame.pc += 1


class ForNext(Op):
    __slots__ = ("slot", "var", "cond", "end", "span")

    def __init__(self, slot, var, cond, end, span):
        self.slot, self.var, self.cond, self.end, self.span = slot, var, cond, end, span

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

    def __init__(self, slot, var, by, end, span, prompt):
        self.slot, self.var, self.by, self.end, self.span, self.prompt = slot, var, by, end, span, prompt

    def run(self, vm, frame):
        items = frame.vars[self.slot][0]
        if not items:
            del frame.vars[self.slot]
            frame.pc = self.end
            return
        if len(items) == 1:
            self.resume(vm, frame, {"values": {self.var: items[0]}})
            return
        who = self.by(Ctx(frame.vars, vm.s, vm))
        options = Options()
        options.add_one(None, "next", self.var, list(items))
        vm.ask(who, options, self.prompt, self.span)

    def resume(self, vm, frame, option):
        item = option["values"][self.var]
        frame.vars[self.slot][0].remove(item)
        frame.vars[self.var] = item
        frame.pc += 1


class RepeatInit(Op):
    __slots__ = ("slot", "count", "span")

    def __init__(self, slot, count, span):
        self.slot, self.count, self.span = slot, count, span

    def run(self, vm, frame):
        frame.vars[self.slot] = int(self.count(Ctx(frame.vars, vm.s, vm)))
        frame.pc += 1


class RepeatNext(Op):
    __slots__ = ("slot", "end", "span")

    def __init__(self, slot, end, span):
        self.slot, self.end, self.span = slot, end, span

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

    def __init__(self, var, coll, cond, by, optional, prompt, span):
        self.var, self.coll, self.cond, self.by = var, coll, cond, by
        self.optional, self.prompt, self.span = optional, prompt, span

    def run(self, vm, frame):
        if vm.settle_before_choice():
            return
        v = frame.vars
        ctx = Ctx(v, vm.s, vm)
        value = self.coll(ctx)
        items = as_list(value)
        if self.cond is not None:
            kept = []
            saved = v.get(self.var, _MISSING)
            for x in items:
                v[self.var] = x
                if self.cond(ctx):
                    kept.append(x)
            if saved is _MISSING:
                v.pop(self.var, None)
            else:
                v[self.var] = saved
            items = kept
        elif items is value:
            items = list(items)  # the options keep their own list (the collection may be a live list)
        options = Options()
        options.add_one(None, "choose", self.var, items)
        if self.optional:
            options.add_dict({"alt": None, "name": "none", "values": {self.var: None}})
        if not options:
            raise RuleError(self.span, f'there is nothing to choose from for "{self.var}": the list of options is empty'
                            " (write `optional` if choosing nothing is allowed)")
        if len(options) == 1:
            self.resume(vm, frame, options[0])
            return
        vm.ask(vm.chooser(self.by, ctx, self.span), options, shown_prompt(self.prompt, ctx), self.span)

    def resume(self, vm, frame, option):
        frame.vars[self.var] = option["values"][self.var]
        frame.pc += 1


_MISSING = object()


class ChooseAmong(Op):
    """`choose { option a(x in xs) {...} option b {...} }`: every binding of every option is one choice."""

    __slots__ = ("alts", "by", "optional", "prompt", "span", "end")

    def __init__(self, alts, by, optional, prompt, span):
        self.alts = alts  # list of (name, [(var, coll, cond)], cond, body_pc)
        self.by, self.optional, self.prompt, self.span = by, optional, prompt, span
        self.end = None

    def enumerate(self, vm, frame) -> Options:
        """Every option, in order: alternatives in order, each one's bindings with the first name
        outermost. Options are made on demand (rulelang/options.py): a random bot builds one."""
        options = Options()
        for index, (name, bindings, cond, _pc) in enumerate(self.alts):
            v = dict(frame.vars)
            ctx = Ctx(v, vm.s, vm)

            if cond is None and all(b[2] is None and b[3] for b in bindings):
                # the common case: independent bindings without conditions, a plain product
                lists = []
                for b in bindings:
                    value = b[1](ctx)
                    items = as_list(value)
                    lists.append(list(items) if items is value else items)
                options.add_product(index, name, [b[0] for b in bindings], lists)
                continue

            fixed = {}  # collections that do not depend on earlier bindings are computed once
            rows = []
            names = [b[0] for b in bindings]

            def walk(depth):
                if depth == len(bindings):
                    if cond is None or cond(ctx):
                        rows.append(tuple([v[n] for n in names]))
                    return
                var, coll, bcond, independent = bindings[depth]
                if independent:
                    items = fixed.get(depth)
                    if items is None:
                        items = fixed[depth] = as_list(coll(ctx))
                else:
                    items = as_list(coll(ctx))
                for x in items:
                    v[var] = x
                    if bcond is None or bcond(ctx):
                        walk(depth + 1)

            walk(0)
            options.add_rows(index, name, names, rows)
        if self.optional:
            options.add_dict({"alt": None, "name": "none", "values": {}})
        return options

    def run(self, vm, frame):
        if vm.settle_before_choice():
            return
        options = self.enumerate(vm, frame)
        if not options:
            raise RuleError(self.span, "no option of this choice is possible right now"
                            " (write `optional` if doing nothing is allowed)")
        if len(options) == 1:
            self.resume(vm, frame, options[0])
            return
        ctx = Ctx(frame.vars, vm.s, vm)
        vm.ask(vm.chooser(self.by, ctx, self.span), options, shown_prompt(self.prompt, ctx), self.span)

    def resume(self, vm, frame, option):
        if option["alt"] is None:
            frame.pc = self.end
            return
        frame.vars.update(option["values"])
        frame.pc = self.alts[option["alt"]][3]


class CallCode(Op):
    __slots__ = ("code", "params", "args", "span", "kind")

    def __init__(self, code, params, args, span, kind="proc"):
        self.code, self.params, self.args, self.span, self.kind = code, params, args, span, kind

    def run(self, vm, frame):
        ctx = Ctx(frame.vars, vm.s, vm)
        values = {p: a(ctx) for p, a in zip(self.params, self.args)}
        frame.pc += 1
        vm.push(self.code, values, self.kind)


class CallProc(Op):
    """A procedure call; looked up by name at run time so variants can replace procedures."""

    __slots__ = ("name", "args", "span")

    def __init__(self, name, args, span):
        self.name, self.args, self.span = name, args, span

    def run(self, vm, frame):
        params, code = vm.program.procs[self.name]
        ctx = Ctx(frame.vars, vm.s, vm)
        values = {p: a(ctx) for p, a in zip(params, self.args)}
        frame.pc += 1
        vm.push(code, values, "proc")


class PerformOp(Op):
    __slots__ = ("what", "on", "span")

    def __init__(self, what, on, span):
        self.what, self.on, self.span = what, on, span

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
            v = dict(zip(info.params, kw.args))
            v["self"] = target
            vm.push(info.effect, v, "keyword")


class SignalOp(Op):
    __slots__ = ("name", "args", "span")

    def __init__(self, name, args, span):
        self.name, self.args, self.span = name, args, span

    def run(self, vm, frame):
        ctx = Ctx(frame.vars, vm.s, vm)
        vm.s.events.append(("signal", self.name, tuple(a(ctx) for a in self.args)))
        frame.pc += 1


class EndOp(Op):
    __slots__ = ("what", "span")

    def __init__(self, what, span):
        self.what, self.span = what, span

    def run(self, vm, frame):
        frame.pc += 1
        vm.unwind(self.what, self.span)


class ReturnOp(Op):
    __slots__ = ("span",)

    def __init__(self, span):
        self.span = span

    def run(self, vm, frame):
        frame.pc = len(frame.code.ops)


class StepOp(Op):
    __slots__ = ("name", "begin", "span")

    def __init__(self, name, begin, span):
        self.name, self.begin, self.span = name, begin, span

    def run(self, vm, frame):
        frame.pc += 1
        if self.begin:
            vm.s.globals["__step"] = self.name
        else:
            vm.s.globals.pop("__step", None)
            vm.step_finished(self.name)


class TurnsInit(Op):
    __slots__ = ("slot", "start", "direction", "span", "following")

    def __init__(self, slot, start, direction, span, following=None):
        self.slot, self.start, self.direction, self.span = slot, start, direction, span
        self.following = following  # a computed turn order (a list of players), or None: the seats

    def run(self, vm, frame):
        s = vm.s
        ctx = Ctx(frame.vars, s, vm)
        order = None
        if self.following is not None:
            listed = self.following(ctx)
            if not isinstance(listed, (list, tuple)) or not all(isinstance(p, Player) for p in listed):
                raise RuleError(self.span, f"`following` needs a list of players, not {describe(listed)}")
            order = [p.seat for p in listed]
            if len(set(order)) != len(order):
                raise RuleError(self.span, "the turn order given to `following` names a player twice")
        if self.start is not None:
            first = self.start(ctx)
        elif order is not None:
            first = s.players[order[0]] if order else None
        else:
            first = s.players[s.current] if s.current is not None else s.players[0]
        if order is not None and not order:
            frame.vars[self.slot] = {"order": order, "pos": 0, "taken": 0, "first": True}
            frame.pc += 1
            return
        if not isinstance(first, Player):
            raise RuleError(self.span, f"turns must start from a player, not {describe(first)}")
        if order is not None:
            if first.seat not in order:
                raise RuleError(self.span, f"turns start from {describe(first)}, who is not in the turn order given to `following`")
            frame.vars[self.slot] = {"order": order, "pos": order.index(first.seat), "taken": 0, "first": True}
        else:
            step = vm.program.game.step if self.direction is None else (1 if self.direction == "clockwise" else -1)
            frame.vars[self.slot] = {"seat": first.seat, "step": step, "taken": 0, "first": True}
        frame.pc += 1


class TurnsNext(Op):
    __slots__ = ("slot", "until", "skipping", "once", "end", "span", "turn_end")

    def __init__(self, slot, until, skipping, once, end, span):
        self.slot, self.until, self.skipping, self.once, self.end, self.span = slot, until, skipping, once, end, span
        self.turn_end = None

    def run(self, vm, frame):
        s = vm.s
        t = frame.vars[self.slot]
        order = t.get("order")
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
            seat_at = _same
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
        if order is not None:
            t["pos"] = pos
        else:
            t["seat"] = pos
        t["first"] = False
        t["taken"] += 1
        if t["taken"] > LOOP_LIMIT:
            raise RuleError(self.span, f"players took {LOOP_LIMIT:,} turns here without the `until` condition becoming true")
        s.current = seat_at(pos)
        frame.handlers.append(("turn", self.turn_end))
        frame.pc += 1
        vm.fire_at("start", "turn")

    def finish(self, vm, frame):
        del frame.vars[self.slot]
        frame.pc = self.end


def _same(seat):
    return seat


class TurnEnd(Op):
    __slots__ = ("slot", "next_pc", "span")

    def __init__(self, slot, next_pc, span):
        self.slot, self.next_pc, self.span = slot, next_pc, span

    def run(self, vm, frame):
        if frame.handlers and frame.handlers[-1][0] == "turn":
            frame.handlers.pop()
        frame.pc = self.next_pc
        vm.turn_finished()
        expire(vm.s, "turn")
        vm.fire_at("end", "turn")
        vm.settle()


class FlowOp(Op):
    """One step of the game's skeleton: rounds, phases, the result."""

    __slots__ = ("what", "arg", "span")

    def __init__(self, what, arg, span):
        self.what, self.arg, self.span = what, arg, span

    def run(self, vm, frame):
        vm.flow_step(self, frame)


# ------------------------------------------------------------------ the compiler


class Compiler:
    def __init__(self, table: SymbolTable, settings: dict[str, Any]):
        self.t = table
        self.settings = settings
        self.slot_counter = 0
        self.program: Program | None = None
        self.cards_made = 0  # cards declared so far (the cards budget)
        self.tables: dict[str, list] = {}
        self.gen = None  # the code generator (codegen.Generator) while compiling a program with it

    def closures_only(self):
        """Compile with the closure engine alone inside this block (values computed at load time)."""
        return _ClosuresOnly(self)

    def slot(self, what: str) -> str:
        self.slot_counter += 1
        return f"__{what}{self.slot_counter}"

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
        for m in re.finditer(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}", text):
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
            if saved is _MISSING:
                v.pop(var, None)
            else:
                v[var] = saved
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
        from .tables import TableError, read_table, table_path

        cached = self.tables.get(d.name)
        if cached is not None:
            return cached
        src = d.source
        name = src.value if isinstance(src, N.StrLit) else self.settings.get(getattr(src, "id", ""))
        if not isinstance(name, str) or not name:
            raise RuleError(src.span, f'table "{d.name}" needs a file name, but got {describe(name)}')
        try:
            _header, rows = read_table(table_path(name, d.span.file), name)
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
            o = obj(c)
            if type(o) is Entity:
                attrs = o.attrs
                if name in attrs:
                    return attrs[name]
                return entity_extra(c, o, name, span)
            if type(o) is Player:
                if name in o.attrs:
                    return o.attrs[name]
                if name == "seat":
                    return o.seat + 1
            elif type(o) is dict:
                if name in o:
                    return o[name]
                raise RuleError(span, f'this row has no "{name}"; its fields are: ' + ", ".join(map(str, o)))
            elif isinstance(o, Zone):
                if name == "size":
                    return len(o.items)
                if name == "owner":
                    return c.s.players[o.owner] if o.owner is not None else None
            if o is None:
                raise RuleError(span, f'cannot read "{name}" of nothing (the value is none)')
            raise RuleError(span, f'{describe(o)} has no "{name}"')

        return get

    def x_Index(self, x):
        obj, index, span = self.expr(x.obj), self.expr(x.index), x.span

        def get(c):
            items = as_list(obj(c))
            i = index(c)
            if not -len(items) <= i < len(items):
                raise RuleError(span, f"position {i} is outside a list of {len(items)} items")
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
            if saved is _MISSING:
                v.pop(var, None)
            else:
                v[var] = saved
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
            if saved is _MISSING:
                v.pop(var, None)
            else:
                v[var] = saved
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
                if old is _MISSING:
                    v.pop(n, None)
                else:
                    v[n] = old
            return out

        return mapped

    def x_CondExpr(self, x):
        test, then, other = self.expr(x.test), self.expr(x.then), self.expr(x.other)
        return lambda c: then(c) if test(c) else other(c)

    def x_BinOp(self, x):
        a, b, op, span = self.expr(x.left), self.expr(x.right), x.op, x.span
        if op == "+":
            def add(c):
                l, r = a(c), b(c)
                if isinstance(l, list) or isinstance(r, list):
                    l, r = as_list(l), as_list(r)
                    if len(l) + len(r) > 64:
                        check_size(len(l) + len(r), span, "a list", c.vm.meter if c.vm is not None else None)
                    return l + r
                if isinstance(l, str) or isinstance(r, str):
                    l, r = describe(l), describe(r)
                    if len(l) + len(r) > 64:
                        check_size(len(l) + len(r), span, "a text", c.vm.meter if c.vm is not None else None)
                    return l + r
                return _arith(l, r, op, span)

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
        return Compiler._Scoped(self, names)

    # ---- statements
    def code(self, name: str, kind: str, span: Span, body: list, params=()) -> Code:
        code = self.program.new_code(name, kind, span)
        with self.scoped(set(params)):
            self.block(code, body, loops=[])
        if self.gen is not None:
            from .codegen import fuse_code

            fuse_code(self.gen, code)  # runs of simple statements become one generated op
        return code

    def block(self, code: Code, stmts: list, loops: list):
        saved = self.scope
        for s in stmts:
            self.stmt(code, s, loops)
        self.scope = saved

    def emit(self, code: Code, op) -> int:
        code.ops.append(op)
        return len(code.ops) - 1

    def here(self, code: Code) -> int:
        return len(code.ops)

    def stmt(self, code: Code, s, loops: list):
        getattr(self, "s_" + type(s).__name__)(code, s, loops)

    def s_Let(self, code, s, loops):
        value, name = self.expr(s.value), s.name

        def let(c):
            c.v[name] = value(c)

        let.parts = ("let", name, value)  # what the code generator writes inline
        self.emit(code, Exec(let, s.span))
        self.scope = self.scope | {name}

    def s_Assign(self, code, s, loops):
        span = s.span
        if s.op is None:
            call = s.target
            sym = self.t.symbols.get(call.func)
            if sym is not None and sym.kind == "proc":
                args = [self.expr(a) for a in call.args]
                self.emit(code, CallProc(call.func, args, span))
                return
            fn = self.expr(call)
            self.emit(code, Exec(fn, span))
            return
        value = self.expr(s.value)
        op = s.op
        target = s.target
        if isinstance(target, N.Name):
            name = target.id
            if name in self.scope:
                def set_local(c):
                    c.v[name] = _update(c.v.get(name), value(c), op, span)  # locals are not game state

                if op == "=":
                    set_local.parts = ("let", name, value)

                self.emit(code, Exec(set_local, span))
            else:
                until = s.until

                def set_global(c):
                    g = c.s.globals
                    v = value(c)
                    old = g.get(name)
                    new = _update(old, v, op, span)
                    if until is not None:
                        remember_undo(c.s, until, None, name, op, old if op == "=" else v)
                    if g.get(name, _MISSING) != new:
                        g[name] = new
                        c.s.version += 1

                self.emit(code, Exec(set_global, span))
            return
        obj = self.expr(target.obj)
        attr = target.name
        until = s.until

        def set_attr(c):
            o = obj(c)
            if type(o) is Entity and attr in _CARD_PSEUDO_FIELDS and attr not in o.attrs:
                if until is not None:
                    raise RuleError(span, f'"{attr}" of a card cannot change only until the end of the {until}')
                _set_card_pseudo_field(c, o, attr, value(c), op, span)
                return
            if type(o) in (Entity, Player):
                attrs = o.attrs
                v = value(c)
                if until is not None:
                    remember_undo(c.s, until, o, attr, op, attrs.get(attr) if op == "=" else v)
                new = _update(attrs.get(attr), v, op, span)
                if attrs.get(attr, _MISSING) != new:
                    attrs[attr] = new
                    c.s.version += 1
                return
            if o is None:
                raise RuleError(span, f'cannot set "{attr}" of nothing (the value is none)')
            raise RuleError(span, f'cannot set "{attr}" of {describe(o)}')

        self.emit(code, Exec(set_attr, span))

    # ---- elimination, responses, offers (the last two are written with choices)
    def s_Eliminate(self, code, s, loops):
        who, span = self.expr(s.who), s.span

        def do_eliminate(c):
            out = list(out_seats(c.s))
            for p in as_list(who(c)):
                if not isinstance(p, Player):
                    raise RuleError(span, f"only players can be eliminated, not {describe(p)}")
                if p.seat not in out:
                    out.append(p.seat)
                    c.s.log.append(f"{describe(p)} is eliminated")
            c.s.globals[OUT_KEY] = out
            c.s.version += 1

        self.emit(code, Exec(do_eliminate, span))

    def s_Respond(self, code, s, loops):
        """Each listed player, in order, may answer with one of the options or pass (with `once`, the first
        answer closes the window). Written as a loop over the players with an optional choice by each."""
        span = s.span
        flag = f"__answered_{span.line}_{span.column}"
        mark = N.Assign(span=span, target=N.Name(span=span, id=flag), op="=", value=N.BoolLit(span=span, value=True))
        options = [opt.model_copy(update={"body": [mark] + list(opt.body)}) for opt in s.options]
        ask = N.ChooseBlock(span=span, opts=N.ChooseOpts(span=span, by=N.Name(span=span, id=s.var), optional=True,
                                                         prompt=s.prompt), options=options)
        body = [ask]
        if s.once:
            body = [N.If(span=span, branches=[(N.Not(span=span, operand=N.Name(span=span, id=flag)), body)])]
        self.stmt(code, N.Let(span=span, name=flag, value=N.BoolLit(span=span, value=False)), loops)
        self.stmt(code, N.For(span=span, var=s.var, coll=s.coll, body=body), loops)

    def s_Offer(self, code, s, loops):
        """The offering player picks one offer (an option with its bindings) or none; the player offered to then
        picks "accept" (the option's body runs) or "refuse" (the `refused` block runs). Both answers show the
        offer's values in their labels."""
        span = s.span
        by = s.by if s.by is not None else N.Name(span=span, id="current")
        options = []
        for opt in s.options:
            shown = [N.Binding(span=b.span, var=b.var, coll=N.ListLit(span=b.span, items=[N.Name(span=b.span, id=b.var)]))
                     for b in opt.bindings]
            answer = N.ChooseBlock(span=span, opts=N.ChooseOpts(span=span, by=s.to, optional=False,
                                                                prompt=(s.prompt or opt.name) + ": accept or refuse?"),
                                   options=[N.Option(span=opt.span, name="accept", bindings=shown, body=list(opt.body)),
                                            N.Option(span=opt.span, name="refuse", bindings=shown, body=list(s.refused or []))])
            options.append(opt.model_copy(update={"body": [answer]}))
        self.stmt(code, N.ChooseBlock(span=span, opts=N.ChooseOpts(span=span, by=by, optional=True, prompt=s.prompt),
                                      options=options), loops)

    def s_If(self, code, s, loops):
        ends = []
        for cond, body in s.branches:
            jump = JumpIfNot(self.expr(cond), None, s.span)
            self.emit(code, jump)
            self.block(code, body, loops)
            end_jump = Jump(None, s.span)
            self.emit(code, end_jump)
            ends.append(end_jump)
            jump.target = self.here(code)
        if s.other is not None:
            self.block(code, s.other, loops)
        for j in ends:
            j.target = self.here(code)

    def loop(self, code, loops, top: int, head, body: list, slot: str, span: Span):
        """The shared tail of every loop: `head` (an op with an `end` or `target` to patch) was
        emitted at `top`; compile the body, jump back, and patch `break` / `continue`."""
        frame = {"breaks": [], "continues": []}
        loops.append(frame)
        self.block(code, body, loops)
        loops.pop()
        self.emit(code, Jump(top, span))
        end = self.here(code)
        self.emit(code, ClearSlot(slot, span))
        if isinstance(head, JumpIfNot):
            head.target = end
        else:
            head.end = end
        for j in frame["breaks"]:
            j.target = end
        for j in frame["continues"]:
            j.target = top

    def s_For(self, code, s, loops):
        slot = self.slot("for")
        span = s.span
        self.emit(code, ForInit(slot, self.expr(s.coll), span))
        top = self.here(code)
        with self.scoped({s.var}):
            if s.chosen_by is not None:
                cond = self.opt(s.cond)
                if cond is not None:
                    # filter once, then let the player order what is left
                    self.emit(code, FilterOnce(slot, s.var, cond, span))
                    top = self.here(code)
                head = ForChosenNext(slot, s.var, self.expr(s.chosen_by), None, span, "which comes next?")
            else:
                head = ForNext(slot, s.var, self.opt(s.cond), None, span)
            self.emit(code, head)
            self.loop(code, loops, top, head, s.body, slot, span)

    def _guarded_loop(self, code, loops, cond, body, span):
        """`while` and `repeat until`: test, count the turn (a loop that never ends is stopped), body."""
        guard = self.slot("guard")
        top = self.here(code)
        head = JumpIfNot(cond, None, span)
        self.emit(code, head)
        self.emit(code, LoopGuard(guard, span))
        self.loop(code, loops, top, head, body, guard, span)

    def s_While(self, code, s, loops):
        self._guarded_loop(code, loops, self.expr(s.cond), s.body, s.span)

    def s_RepeatUntil(self, code, s, loops):
        cond = self.expr(s.cond)
        self._guarded_loop(code, loops, lambda c: not cond(c), s.body, s.span)

    def s_RepeatTimes(self, code, s, loops):
        slot = self.slot("repeat")
        self.emit(code, RepeatInit(slot, self.expr(s.count), s.span))
        top = self.here(code)
        head = RepeatNext(slot, None, s.span)
        self.emit(code, head)
        self.loop(code, loops, top, head, s.body, slot, s.span)

    def s_Break(self, code, s, loops):
        j = Jump(None, s.span)
        self.emit(code, j)
        loops[-1]["breaks"].append(j)

    def s_Continue(self, code, s, loops):
        j = Jump(None, s.span)
        self.emit(code, j)
        loops[-1]["continues"].append(j)

    def s_Return(self, code, s, loops):
        self.emit(code, ReturnOp(s.span))

    def prompt(self, text, span: Span):
        """An `as "..."` prompt that shows values ("{p} picks a card") becomes a function of the moment it is
        asked in; a plain one stays a string. (Doc comments used as prompts are never read as templates.)"""
        if text is None or "{" not in text:
            return text
        return self.template(text, span)

    def s_Choose(self, code, s, loops):
        coll = self.expr(s.coll)
        with self.scoped({s.var}):
            cond = self.opt(s.cond)
        by = self.opt(s.opts.by)
        prompt = self.prompt(s.opts.prompt, s.span) or (s.doc[0] if s.doc else None)
        self.emit(code, ChooseOne(s.var, coll, cond, by, s.opts.optional, prompt, s.span))
        self.scope = self.scope | {s.var}

    def s_ChooseBlock(self, code, s, loops):
        op = ChooseAmong([], self.opt(s.opts.by), s.opts.optional, self.prompt(s.opts.prompt, s.span) or (s.doc[0] if s.doc else None),
                         s.span)
        self.emit(code, op)
        ends = []
        for opt in s.options:
            bindings = []
            names = set()
            for b in opt.bindings:
                with self.scoped(names):
                    coll = self.expr(b.coll)
                independent = not (free_names(b.coll) & names)
                names.add(b.var)
                with self.scoped(names):
                    bcond = self.opt(b.cond)
                bindings.append((b.var, coll, bcond, independent))
            with self.scoped(names):
                cond = self.opt(opt.cond)
                body_pc = self.here(code)
                op.alts.append((opt.name, bindings, cond, body_pc))
                self.block(code, opt.body, loops)
            j = Jump(None, opt.span)
            self.emit(code, j)
            ends.append(j)
        end = self.here(code)
        op.end = end
        for j in ends:
            j.target = end

    def _placement(self, place: N.Placement):
        at = self.opt(place.at)
        return at, place.end == "bottom", place.face == "down", self.opt(place.place)

    def s_Move(self, code, s, loops):
        what, to = self.expr(s.what), self.expr(s.to)
        at, bottom, face_down, slot = self._placement(s.place)
        span = s.span

        def do_move(c):
            zone = to(c)
            if not isinstance(zone, Zone):
                raise RuleError(span, f"cards can only be moved to a zone, not to {describe(zone)}")
            cell = at(c) if at is not None else None
            items = what(c)
            items = list(items.items) if isinstance(items, Zone) else as_list(items)
            for e in items:
                if not isinstance(e, Entity):
                    raise RuleError(span, f"only cards can be moved, not {describe(e)}")
                _put(c, e, zone, cell, bottom, face_down, span, slot(c) if slot is not None else None)

        self.emit(code, Exec(do_move, span))

    def s_Discard(self, code, s, loops):
        what = self.expr(s.what)
        span = s.span

        def do_discard(c):
            items = what(c)
            items = list(items.items) if isinstance(items, Zone) else as_list(items)
            for e in items:
                if not isinstance(e, Entity):
                    raise RuleError(span, f"only cards can be discarded, not {describe(e)}")
                target = c.vm.program.discard_zone.get(e.card.component)
                if target is None:
                    raise RuleError(span, f"{e.card.component} cards have no discard pile: add `discards to ZONE` to the component")
                zone = target(Ctx({"self": e}, c.s, c.vm))
                _put(c, e, zone, None, False, False, span)

        self.emit(code, Exec(do_discard, span))

    def s_Draw(self, code, s, loops):
        count = self.opt(s.count)
        source, to = self.expr(s.source), self.expr(s.to)
        at, bottom, face_down, slot = self._placement(s.place)
        up_to = s.up_to
        span = s.span

        def do_draw(c):
            src, dst = source(c), to(c)
            n = count(c) if count is not None else 1
            if up_to:
                n = n - len(dst.items)
            cell = at(c) if at is not None else None
            for _ in range(max(n, 0)):
                if not src.items:
                    break
                _put(c, src.items[-1], dst, cell, bottom, face_down, span, slot(c) if slot is not None else None)

        self.emit(code, Exec(do_draw, span))

    def s_Shuffle(self, code, s, loops):
        zone = self.expr(s.zone)

        def do_shuffle(c):
            z = zone(c)
            c.s.rng.shuffle(z.items)
            for e in z.items:
                e.known.clear()
            c.s.version += 1

        self.emit(code, Exec(do_shuffle, s.span))

    def s_Create(self, code, s, loops):
        zone = self.expr(s.zone)
        name = s.cards
        span = s.span

        def do_create(c):
            c.vm.create_cards(name, zone(c), span)

        self.emit(code, Exec(do_create, span))

    def s_Reveal(self, code, s, loops):
        what, to = self.expr(s.what), self.opt(s.to)

        def do_reveal(c):
            for e in as_list(what(c)):
                if to is None:
                    e.face_down = False
                    e.known.update(range(len(c.s.players)))
                else:
                    e.known.add(to(c).seat)
            c.s.version += 1

        self.emit(code, Exec(do_reveal, s.span))

    def s_Hide(self, code, s, loops):
        what = self.expr(s.what)

        def do_hide(c):
            for e in as_list(what(c)):
                e.known.clear()
            c.s.version += 1

        self.emit(code, Exec(do_hide, s.span))

    def s_Flip(self, code, s, loops):
        what, down = self.expr(s.what), s.face == "down"

        def do_flip(c):
            for e in as_list(what(c)):
                e.face_down = down
                e.known.clear()
            c.s.version += 1

        self.emit(code, Exec(do_flip, s.span))

    def s_Signal(self, code, s, loops):
        self.emit(code, SignalOp(s.name, [self.expr(a) for a in s.args], s.span))

    def s_Perform(self, code, s, loops):
        self.emit(code, PerformOp(self.expr(s.what), self.opt(s.on), s.span))

    def s_Win(self, code, s, loops):
        who = self.expr(s.who)
        span = s.span

        def do_win(c):
            for p in as_list(who(c)):
                if not isinstance(p, Player):
                    raise RuleError(span, f"only players can win, not {describe(p)}")
                if p.seat not in c.s.winners:
                    c.s.winners.append(p.seat)

        self.emit(code, Exec(do_win, span))

    def s_End(self, code, s, loops):
        self.emit(code, EndOp(s.what, s.span))

    def s_TakeTurns(self, code, s, loops):
        slot = self.slot("turns")
        span = s.span
        self.emit(code, TurnsInit(slot, self.opt(s.start), s.direction, span, self.opt(s.following)))
        top = self.here(code)
        head = TurnsNext(slot, self.opt(s.until), self.opt(s.skipping), s.once, None, span)
        self.emit(code, head)
        frame = {"breaks": [], "continues": []}
        loops.append(frame)
        self.block(code, s.body, loops)
        loops.pop()
        head.turn_end = self.here(code)
        self.emit(code, TurnEnd(slot, top, span))
        head.end = self.here(code)
        for j in frame["breaks"]:
            j.target = head.end
        for j in frame["continues"]:
            j.target = head.turn_end

    def s_StepBlock(self, code, s, loops):
        self.emit(code, StepOp(s.name, True, s.span))
        code.step_names.append(s.name)
        self.block(code, s.body, loops)
        self.emit(code, StepOp(s.name, False, s.span))

    def s_Log(self, code, s, loops):
        msg = self.expr(s.message)

        def do_log(c):
            c.s.log.append(describe(msg(c)))

        self.emit(code, Exec(do_log, s.span))

    def s_Fail(self, code, s, loops):
        msg, span = self.expr(s.message), s.span

        def do_fail(c):
            raise RuleError(span, describe(msg(c)))

        self.emit(code, Exec(do_fail, span))

    # ---- whole program
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
        from .codegen import Generator, engine

        if engine() == "codegen":
            self.gen = Generator(self, g.title)
            self.gen.def_names = {d.name for d in decls if isinstance(d, N.DefDecl)}
            self.gen.turn_defs = turn_defs(decls)
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
                program.zones[d.name] = ZoneInfo(d.name, d.per_player, d.visibility, topo, d.span)
        self.impure_defs = impure_defs(decls)
        for d in decls:
            if isinstance(d, N.EnumDecl):
                program.member_colours.update({m: col for m, col in zip(d.members, d.member_colours) if col})
        for d in decls:
            if isinstance(d, N.ComponentDecl):
                if d.discards_to is not None:
                    with self.scoped({"self"}):
                        program.discard_zone[d.name] = self.expr(d.discards_to)
            elif isinstance(d, N.PlayerDecl):
                for f in d.fields:
                    program.player_fields.append((f.name, self.opt(f.default) or _type_default(f.type)))
            elif isinstance(d, N.VarDecl):
                program.global_vars.append((d.name, self.opt(d.default) or _type_default(d.type)))
            elif isinstance(d, N.DefDecl):
                program.defs[d.name] = self.compile_def(d)
            elif isinstance(d, N.ProcDecl):
                params = [p.name for p in d.params]
                program.procs[d.name] = (params, None)
        for d in decls:
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
        if "heuristic" in program.defs:
            program.heuristic = program.defs["heuristic"]
        program.flow = self.compile_flow()
        program.has_continuous = bool(program.always) or any(k.always for k in program.keywords.values())
        program.at_timings = {(k[1], k[2]) for table in (program.triggers, program.keyword_triggers)
                              for k in table if k[0] == "at"}
        if self.gen is not None:
            self.gen.finish()
            program.generated = self.gen
            self.gen = None
        return program

    def compile_def(self, d: N.DefDecl):
        if self.gen is not None and self.gen.active:
            return self.gen.define(d, d.name not in self.impure_defs)  # a Python function (codegen.py)
        params = [p.name for p in d.params]
        with self.scoped(set(params)):
            body = self.expr(d.body)
        span = d.span
        name = d.name
        pure = name not in self.impure_defs

        def evaluate(c, args):
            vm = c.vm
            meter = vm.meter if vm is not None else None
            if meter is not None:
                meter.depth += 1
                if meter.depth > meter.budgets.recursion_depth:
                    meter.depth = 0
                    raise exceeded(span, "recursion_depth", f'def "{name}" calls itself (or other defs) more than '
                                   f"{meter.budgets.recursion_depth} deep; it probably never stops",
                                   meter.budgets.recursion_depth)
                meter.charge(DEF_CALL_WORK, span)
            try:
                if len(params) == 1:
                    return body(Ctx({params[0]: args[0]}, c.s, vm))
                return body(Ctx(dict(zip(params, args)), c.s, vm))
            except RecursionError:
                raise RuleError(span, f'def "{name}" calls itself too deeply; it never stops') from None
            finally:
                if meter is not None and meter.depth > 0:
                    meter.depth -= 1

        if not pure:
            return evaluate

        def call(c, args):
            # a def without chance is a pure function of the state: remember its values until the state changes
            s = c.s
            stamp = (s.version, s.current, s.round, s.phase)
            cache = s.def_cache
            if cache.get("__stamp") != stamp:
                cache.clear()
                cache["__stamp"] = stamp
            key = (name, *args) if args else name
            try:
                return cache[key]
            except KeyError:
                pass
            except TypeError:  # an argument that cannot be a key (a list): just compute
                return evaluate(c, args)
            value = cache[key] = evaluate(c, args)
            return value

        return call

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
        with self.closures_only():  # card values are computed now, at load time, once per card
            self._compile_cards(d)
        if d.zone is not None:
            self.program.auto_sets.append((d.name, self.expr(d.zone)))

    def _compile_cards(self, d: N.CardsDecl):
        program = self.program
        defs: list[CardDef] = []
        limit = current_budgets().cards
        total = self.cards_made
        for entry in d.entries:
            comp = self.t.components[entry.ctor.component]
            label = self.compile_label(comp)
            fields = {f.name: f for f in comp.fields}
            combos = [dict()]
            for gen in entry.gens:
                new = []
                for combo in combos:
                    with self.scoped(set(combo)):
                        coll = self.expr(gen.coll)
                    for value in as_list(coll(Ctx(dict(combo), None, None))):
                        new.append({**combo, gen.var: value})
                    if total + len(new) * entry.copies > limit:
                        raise exceeded(entry.span, "cards", f"this would make more than {limit:,} cards", limit)
                combos = new
                if total + len(combos) * entry.copies > limit:
                    raise exceeded(entry.span, "cards", f"this would make {total + len(combos) * entry.copies:,} cards",
                                   limit)
            if total + len(combos) * entry.copies > limit:
                raise exceeded(entry.span, "cards", f"this would make {total + len(combos) * entry.copies:,} cards",
                               limit)
            total += len(combos) * entry.copies
            for combo in combos:
                values: dict[str, Any] = {}
                code: dict[str, Any] = {}
                with self.scoped(set(combo)):
                    for arg in entry.ctor.args:
                        f = fields[arg.name]
                        if type_name(f.type) == "condition":
                            with self.scoped({"self"}):
                                code[arg.name] = (self.expr(arg.value), dict(combo))
                        else:
                            values[arg.name] = self.const(arg.value, combo)
                for f in comp.fields:
                    if f.name in values or f.name in code:
                        continue
                    if f.default is not None:
                        values[f.name] = self.const(f.default, {})
                    else:
                        values[f.name] = _type_default(f.type)(None)
                name = values.get("name") if isinstance(values.get("name"), str) else None
                for _ in range(entry.copies):
                    defs.append(CardDef(len(defs), d.name, comp.name, values, code, name, entry.span, label))
        program.card_sets[d.name] = defs
        self.cards_made = total

    def const(self, x, combo: dict):
        with self.scoped(set(combo)), self.closures_only():
            fn = self.expr(x)
        return fn(Ctx(dict(combo), _NoState(), None))

    def compile_label(self, comp: N.ComponentDecl):
        if not comp.label:
            return None
        template = comp.label

        def render(e):
            def sub(m):
                key = m.group(1)
                if key in e.attrs:
                    return describe(e.attrs[key])
                return key

            return re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", sub, template)

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


class FilterOnce(Op):
    __slots__ = ("slot", "var", "cond", "span")

    def __init__(self, slot, var, cond, span):
        self.slot, self.var, self.cond, self.span = slot, var, cond, span

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


class _ClosuresOnly:
    def __init__(self, compiler):
        self.gen = compiler.gen

    def __enter__(self):
        if self.gen is not None:
            self.saved, self.gen.active = self.gen.active, False

    def __exit__(self, *exc):
        if self.gen is not None:
            self.gen.active = self.saved


class _NoState:
    """Stands in for the state while card values are computed at load time."""

    def __getattr__(self, name):
        raise RuleError(Span(), "a card's printed values must not depend on the match (they are computed before play)")


# built-ins whose value changes from one call to the next (chance), so a def using them is not cached
IMPURE_CALLS = {"roll", "random"}


def impure_defs(decls) -> set[str]:
    """The defs that use chance, directly or through other defs: their values are never cached."""
    bodies = {d.name: free_names(d.body) for d in decls if isinstance(d, N.DefDecl)}
    impure: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, names in bodies.items():
            if name not in impure and (names & IMPURE_CALLS or names & impure):
                impure.add(name)
                changed = True
    return impure


#: what a def may read that changes without `State.version` changing (the turn, not the state)
TURN_NAMES = {"current", "round", "phase"}


def reads_turn(node) -> bool:
    """Whether an expression mentions the turn (`current`, `round`, `phase`), also inside a text's
    `{...}` placeholders (a safe over-approximation)."""
    if free_names(node) & TURN_NAMES:
        return True
    found = False

    def visit(x):
        nonlocal found
        if found:
            return
        if isinstance(x, N.StrLit) and "{" in x.value:
            found = any(m.split(".")[0] in TURN_NAMES for m in _TEMPLATE_NAMES.findall(x.value))
        elif isinstance(x, N.Node):
            for value in x.__dict__.values():
                visit(value)
        elif isinstance(x, (list, tuple)):
            for item in x:
                visit(item)

    visit(node)
    return found


_TEMPLATE_NAMES = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")


def turn_defs(decls) -> set[str] | None:
    """The defs whose value may depend on whose turn, which round or which phase it is, directly or
    through other defs: they are remembered only for one turn; the others for as long as the state
    does not change. None when the cards' own rules (a condition field, computed when read) mention
    the turn: then every def may, through a card's field."""
    for d in decls:
        if isinstance(d, (N.CardsDecl, N.ComponentDecl)) and reads_turn(d):
            return None
    defs = [d for d in decls if isinstance(d, N.DefDecl)]
    names = {d.name: free_names(d.body) for d in defs}
    out = {d.name for d in defs if reads_turn(d.body)}
    changed = True
    while changed:
        changed = False
        for name, used in names.items():
            if name not in out and used & out:
                out.add(name)
                changed = True
    return out


def free_names(node) -> set[str]:
    """Every name an expression mentions (a safe over-approximation of what it depends on)."""
    out: set[str] = set()

    def visit(x):
        if isinstance(x, N.Name):
            out.add(x.id)
        elif isinstance(x, N.Call):
            out.add(x.func)
        if isinstance(x, N.Node):
            for value in x.__dict__.values():
                visit(value)
        elif isinstance(x, (list, tuple)):
            for item in x:
                visit(item)

    visit(node)
    return out


def entity_extra(c, e: Entity, name: str, span: Span):
    code = e.card.code.get(name)
    if code is not None:
        fn, bound = code
        return fn(Ctx({**bound, "self": e}, c.s, c.vm))
    if name == "owner":
        return c.s.players[e.owner] if e.owner is not None else None
    if name == "zone":
        return e.zone
    if name == "cell":
        return e.cell
    if name == "place":
        return e.place
    if name == "face_down":
        return e.face_down
    if name == "component":
        return e.card.component
    if name == "id":
        return e.id
    raise RuleError(span, f'{describe(e)} has no field "{name}"')


def _put(c, e: Entity, zone: Zone, cell, bottom: bool, face_down: bool, span: Span, slot=None):
    if isinstance(zone, BoardZone):
        if cell is None:
            raise RuleError(span, f"a card moved onto the board {zone.name} needs a cell: add `at CELL`")
        if not zone.cells.has_cell(cell):
            raise RuleError(span, f"the board {zone.name} has no cell {describe(cell)}")
        slot = _check_place(zone, cell, slot, e, span)
    elif slot is not None:
        raise RuleError(span, f"`into` puts a card in a place of a board's cell, but {zone.name} is not a board")
    move_entity(c.s, e, zone, cell, bottom, face_down, c.vm.program.watched_zones, slot)


def _check_place(zone: BoardZone, cell, slot, e: Entity, span: Span):
    """The place a card goes to on a board's cell: the one named, or the first; it must have room."""
    places = zone.cells.topology.places
    if not places:
        if slot is not None:
            raise RuleError(span, f"the board {zone.name} has no places, so `into {describe(slot)}` means nothing there")
        return None
    if slot is None:
        slot = places[0]
    if slot not in places:
        raise RuleError(span, f"the cells of {zone.name} have the places {', '.join(places)}, not {describe(slot)}")
    if not zone.cells.has_room(cell, slot, moving=e if e.zone is zone and e.cell == cell else None):
        limit = zone.cells.topology.capacities[slot]
        raise RuleError(span, f"the place {slot} of {describe(cell)} on {zone.name} is full "
                              f"(it holds {limit} card{'s' if limit != 1 else ''}); test `has_room({zone.name}, cell, {slot})` first")
    return slot


_BIG = 10**18  # numbers stay within this, so a doubling loop cannot build a gigantic integer


def _arith(l, r, op, span):
    try:
        if op == "+":
            result = l + r
        elif op == "-":
            result = l - r
        else:
            result = None
        if result is not None:
            if type(result) is int and not -_BIG <= result <= _BIG:
                raise RuleError(span, f"a number beyond ±{_BIG:,} (the numbers of a game stay smaller)")
            return result
        if op == "*":
            if type(l) in (str, list) or type(r) in (str, list):  # a text or list repeated: bounded
                size = (len(l) * r) if type(l) in (str, list) else (len(r) * l)
                check_size(size, span, "a text" if str in (type(l), type(r)) else "a list")
            result = l * r
            if type(result) is int and not -_BIG <= result <= _BIG:
                raise RuleError(span, f"a number beyond ±{_BIG:,} (the numbers of a game stay smaller)")
            return result
        if op == "/":
            if r == 0:
                raise RuleError(span, "division by zero")
            return l // r
        if op == "%":
            if r == 0:
                raise RuleError(span, "division by zero")
            return l % r
    except TypeError:
        raise RuleError(span, f'"{op}" works on numbers, but got {describe(l)} and {describe(r)}') from None
    raise RuleError(span, f"unknown operator {op}")


def _update(old, value, op, span):
    if op == "=":
        return value
    if old is None:
        old = 0
    return _arith(old, value, "+" if op == "+=" else "-", span)


# A card's built-in fields (see `entity_extra`): `face_down` and `owner` can be assigned,
# the others only change by moving the card.
_CARD_PSEUDO_FIELDS = {"owner", "zone", "cell", "place", "face_down", "component", "id"}


def _set_card_pseudo_field(c, e: Entity, attr: str, value, op: str, span: Span):
    if attr == "face_down" and op == "=":
        down = bool(value)
        if e.face_down != down:
            e.face_down = down  # like `turn x face up|down`: nobody remembers what it showed
            e.known.clear()
            c.s.version += 1
        return
    if attr == "owner" and op == "=":
        if value is not None and not isinstance(value, Player):
            raise RuleError(span, f"a card's owner is a player (or none), not {describe(value)}")
        seat = value.seat if value is not None else None
        if e.owner != seat:
            e.owner = seat
            c.s.version += 1
        return
    if attr == "place" and op == "=":
        # another place of the same cell: the card stays on its cell, so it neither leaves nor enters
        zone = e.zone
        if not isinstance(zone, BoardZone) or not zone.cells.topology.places:
            raise RuleError(span, f"{describe(e)} is not on a board with places, so its place cannot be set")
        slot = _check_place(zone, e.cell, value, e, span)
        if e.place != slot:
            e.place = slot
            c.s.version += 1
        return
    if attr in ("face_down", "owner", "place"):
        raise RuleError(span, f'"{attr}" of a card can only be set with `=`')
    raise RuleError(span, f'"{attr}" of a card cannot be set: it changes when the card moves '
                          f"(`move`{', `turn x face up|down`' if attr == 'face_down' else ''})")


def _type_default(t: N.TypeRef):
    name = type_name(t)
    if name == "int":
        return lambda c: 0
    if name == "bool":
        return lambda c: False
    if name == "str":
        return lambda c: ""
    if name.startswith("list:"):
        return lambda c: []
    return lambda c: None


def _plain(exc: Exception) -> str:
    text = str(exc)
    return text.split("\n")[0][:200] or type(exc).__name__


def compile_program(decls: list, table: SymbolTable, settings: dict[str, Any]) -> Program:
    return Compiler(table, settings).compile(decls)
