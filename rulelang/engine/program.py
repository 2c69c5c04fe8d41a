"""A compiled game: the ``Program`` and its pieces (``Code``: a block's flat list of ops; the
infos of zones, phases, triggers and keywords), a block being run (``Frame``), the context an
expression runs in (``Ctx``) and the error a rule raises while it runs (``RuleError``, reported
as ``as_rules_error`` says). Plain containers, filled by the compiler (``compiler.py``) and read by
the runtime.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from rulelang.language import nodes as N
from rulelang.model.board import Topology
from rulelang.check.symbols import SymbolTable
from rulelang.core.budgets import BudgetExceeded
from rulelang.core.errors import Diagnostic, RulesError, RulesRuntimeError, Span
from rulelang.model.things import CardDef

LOOP_LIMIT = 100_000
DEF_CALL_WORK = 50  # a def call counts as this many steps of work (about its cost in ops, with its arguments)


class Frame:
    """A block being run: its code, the position of its next op, its variables (loop counters
    included), its handlers (where `return` or `end turn` go) and its kind (flow, phase, proc,
    trigger...). The VM's stack of frames is part of the match state."""

    __slots__ = ("code", "pc", "vars", "handlers", "kind")

    def __init__(self, code: "Code", pc: int, vars: dict, handlers: list, kind: str):
        self.code, self.pc, self.vars, self.handlers, self.kind = code, pc, vars, handlers, kind


class Ctx:
    """What a closure sees: local variables, the state, and the VM."""

    __slots__ = ("v", "s", "vm")

    def __init__(self, v: dict, s, vm):
        self.v, self.s, self.vm = v, s, vm


class RuleError(Exception):
    """A rule failed at run time; carries the span of the failing construct."""

    def __init__(self, span: Span, message: str):
        super().__init__(message)
        self.span = span
        self.message = message

    def __reduce__(self):  # pickled whole (a worker process's error): made again from span and message
        return type(self), (self.span, self.message)


def keyword_values(params: list, kw, span: Span) -> dict:
    """A keyword's parameters bound to the values its card carries (`boost(2)`: n = 2); a keyword value
    made without them (`let k = boost`, which check cannot always follow) is a rules error at `span`."""
    if len(kw.args) != len(params):
        raise RuleError(span, f'keyword "{kw.name}" takes {len(params)} value(s), but this one carries '
                              f"{len(kw.args)}: give it its values where it is made, as {kw.name}(...)")
    return dict(zip(params, kw.args))


def as_rules_error(exc: Exception, op) -> RulesError:
    """Whatever went wrong while a rule ran (in op, or at a Span), as a diagnostic that names the rule's line."""
    if isinstance(exc, RulesError):
        return exc
    if isinstance(exc, RuleError):
        return RulesRuntimeError(Diagnostic(exc.span, exc.message))
    if isinstance(exc, BudgetExceeded):
        return RulesRuntimeError(Diagnostic(exc.span, exc.message, hint=exc.hint))
    span = op if type(op) is Span else getattr(op, "span", Span())
    if isinstance(exc, MemoryError):
        return RulesRuntimeError(Diagnostic(span, "the rules ran out of memory here (budget memory_mb: MiB of memory "
                                            "a match may take)"))
    if isinstance(exc, RecursionError):
        return RulesRuntimeError(Diagnostic(span, "the rules call themselves too deeply (a def or procedure that never stops)"))
    # a value of the wrong kind reached a rule: report it at the rule
    return RulesRuntimeError(Diagnostic(span, f"this rule could not run: {type(exc).__name__}: {exc}"))


# ------------------------------------------------------------------ program pieces


@dataclass
class Code:
    id: int
    name: str
    kind: str  # flow, phase, proc, keyword, trigger, always, setup, result
    span: Span
    ops: list = field(default_factory=list)
    step_names: list[str] = field(default_factory=list)
    # a continuous rule's whole block as one generated function sync(vm, frame), when the code
    # generator can write it (codegen.Generator.sync_block); VM.run_sync runs it instead of the ops
    sync: Any = None
    # a procedure whose body is no op at all (EMPTY_BODY), or one fused op standing for all its ops
    # (codegen_statements.FusedExec, FusedRegion): CallProc runs it in place, without a turn through the VM
    inline: Any = None


EMPTY_BODY = "empty"  # Code.inline of a procedure with nothing to do


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
    layer_of: str | None = None  # a layer's base board (`board on NAME`): the topology is the base's
    # a family of zones (`zone display[2 * player_count + 1]`): how many for each player count the game
    # allows, worked out when the game is loaded (the count reads only the player count and settings)
    counts: dict | None = None


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
    # what the `always` rules read (dependencies.always_reads), so that settling can be skipped when none
    # of it changed; None: always settle (keyword rules, rules that read what cannot be told)
    always_reads: frozenset | None = None
    # the card fields that may hold a keyword, noted as the cards and statements are compiled (a
    # scenario's statements too): those printed with one, and every field a statement may put one
    # into (a rules file may put a keyword into a field of any type); VM.bearers reads only these
    keyword_fields: set = field(default_factory=set)
    member_colours: dict[str, str] = field(default_factory=dict)  # enum member -> colour for pictures
    generated: Any = None  # the generated Python module's generator (codegen.Generator)
    budgets: Any = None  # the resource budgets matches run within (`budgets.Budgets`), set by `load`
    memory_base: float | None = None  # the process's memory (MiB) when the game was loaded

    def new_code(self, name: str, kind: str, span: Span) -> Code:
        code = Code(len(self.codes), name, kind, span)
        self.codes.append(code)
        return code
