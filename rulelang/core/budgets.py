"""Resource budgets: whatever a rules file says, a match stops in bounded time and memory.

A rules file is a program written by a stranger. Each budget below bounds one way it could run
away; crossing one stops the match (or the loading) with an error that names the rules line,
the budget, and how to raise it:

    rulelang simulate big.rules --budget cards=500000
    rulelang.load("big.rules", budgets={"cards": 500_000})

The defaults let every real game run, and stop a runaway well within 5 seconds and 1 GiB.
Work is counted, not timed, so a seeded game stops at the same place on any machine: every
interpreter step counts 1, and building a list, a range or a text counts its length.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
from dataclasses import dataclass, field, fields, replace

NUMBER_BOUND = 10**18  # every number of a game stays within ±NUMBER_BOUND (so a doubling loop builds no gigantic integer)
BEYOND_BOUND = f"beyond ±{NUMBER_BOUND:,} (the numbers of a game stay smaller)"  # how errors say a number is not


def _budget(default: int, words: str):
    """A budget's default and what it bounds, in words (for messages)."""
    return field(default=default, metadata={"words": words})


@dataclass(frozen=True)
class Budgets:
    """How far a rules file may go. Every number can be raised (or lowered) by a user."""

    cards: int = _budget(100_000, "cards a file may create")  # declared decks plus `create` in setup
    list_size: int = _budget(1_000_000, "items in one list, range, text or board built by the rules")
    # (work: interpreter steps, plus the items of the lists built)
    steps: int = _budget(2_000_000, "work the rules may do between two player decisions")
    trigger_depth: int = _budget(100, "triggers setting each other off in a row")
    recursion_depth: int = _budget(100, "defs and procedures calling each other, nested")
    memory_mb: int = _budget(512, "MiB of memory a match may take")  # while a game loads or a match runs
    source_bytes: int = _budget(20_000_000, "bytes in a .rules file")
    # (long `cards` lists aside)
    source_tokens: int = _budget(25_000, "words and symbols the parser reads in a .rules file")
    players: int = _budget(1_000, "players in one match")

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def with_changes(self, changes: dict | None) -> "Budgets":
        if not changes:
            return self
        unknown = [k for k in changes if k not in self.names()]
        if unknown:
            raise ValueError(f"unknown budget {unknown[0]!r}: the budgets are {', '.join(self.names())}")
        values = {}
        for k, v in changes.items():
            try:
                n = int(str(v).replace("_", ""))
            except ValueError:
                raise ValueError(f"budget {k} takes a whole number, not {v!r}") from None
            if n < 1:
                raise ValueError(f"budget {k} must be at least 1, not {n}")
            values[k] = n
        return replace(self, **values)


_WORDS = {f.name: f.metadata["words"] for f in fields(Budgets)}
DEFAULT = Budgets()


def as_budgets(value: "Budgets | dict | None") -> Budgets:
    if value is None:
        return current_budgets()
    if isinstance(value, Budgets):
        return value
    return current_budgets().with_changes(value)


def parse_budget_args(pairs: list[str] | None) -> dict[str, int]:
    """`--budget NAME=N` from the command line."""
    out: dict[str, int] = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise ValueError(f"--budget takes NAME=NUMBER (one of {', '.join(Budgets.names())}), not {pair!r}")
        k, v = pair.split("=", 1)
        out[k.strip()] = v.strip()
    DEFAULT.with_changes(out)  # validate now, with a plain message
    return out


# The budgets in force while a game loads (the compiler has no match yet). Without one, the
# defaults changed by the environment variable RULELANG_BUDGETS="cards=500000,steps=10000000"
# (`--budget` sets it, so worker processes of `simulate --jobs` inherit it).
ENV = "RULELANG_BUDGETS"
_current: contextvars.ContextVar[Budgets | None] = contextvars.ContextVar("rulelang_budgets", default=None)
_from_env: dict[str, Budgets] = {}


def current_budgets() -> Budgets:
    chosen = _current.get()
    if chosen is not None:
        return chosen
    text = os.environ.get(ENV, "")
    if not text:
        return DEFAULT
    if text not in _from_env:
        _from_env[text] = DEFAULT.with_changes(parse_budget_args([p for p in text.split(",") if p.strip()]))
    return _from_env[text]


def set_process_budgets(changes: dict) -> None:
    """Make the budgets the default of this process and of the processes it starts (the CLI's --budget)."""
    merged = {**{k: getattr(current_budgets(), k) for k in Budgets.names()
                 if getattr(current_budgets(), k) != getattr(DEFAULT, k)}, **changes}
    os.environ[ENV] = ",".join(f"{k}={v}" for k, v in merged.items())


@contextlib.contextmanager
def using(budgets: Budgets):
    token = _current.set(budgets)
    try:
        yield budgets
    finally:
        _current.reset(token)


class BudgetExceeded(Exception):
    """A budget was crossed; carries the span of the rule that crossed it (a `core.errors.Span`:
    this module imports nothing of the project, so that a check answered from its kept verdict reads
    the budgets without loading pydantic, which errors.py needs)."""

    def __init__(self, span, budget: str, message: str, limit: int):
        self.span, self.budget, self.limit = span, budget, limit
        self.message = f"{message} (budget {budget} = {limit:,}: {_WORDS[budget]})"
        self.hint = (f"if the rules are right, raise it: --budget {budget}={limit * 10} on the command line, "
                     f"or budgets={{'{budget}': {limit * 10}}} in Python")
        super().__init__(self.message)
        self._made_with = (span, budget, message, limit)

    def __reduce__(self):  # pickled whole (a worker process's error): made again from what made it
        return type(self), self._made_with


# ---------------------------------------------------------------- memory


def resident_mb() -> float:
    """The process's resident memory in MiB (Linux /proc; 0 where unknown)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


class Meter:
    """Counts work between two decisions and watches memory; one per VM.

    `charge(n, span)` is called by the compiled rules when they build a list (n items) or call a
    def; the VM's main loop adds its steps. Memory is sampled every few thousand units of work.
    """

    __slots__ = ("budgets", "work", "limit", "checkpoint", "memory_base", "depth")

    def __init__(self, budgets: Budgets, memory_base: float | None = None):
        self.budgets = budgets
        self.limit = budgets.steps
        self.memory_base = memory_base
        self.depth = 0  # defs being evaluated, nested
        self.reset()

    def reset(self):
        self.work = 0
        self.checkpoint = min(_MEMORY_EVERY, self.limit + 1)

    def charge(self, n: int, span):
        self.work += n
        if self.work >= self.checkpoint:
            self.check(span)

    def check(self, span):
        """Called when the work reaches the checkpoint: over the steps budget? memory?"""
        if self.work > self.limit:
            raise BudgetExceeded(span, "steps", f"the rules did more than {self.limit:,} steps of work without any player "
                           "decision; a loop, a chain of turns or a recursion probably never ends", self.limit)
        self.checkpoint = min(self.work + _MEMORY_EVERY, self.limit + 1)
        now = resident_mb()
        if self.memory_base is None:
            self.memory_base = now
            return
        grown = now - self.memory_base
        if grown > self.budgets.memory_mb:
            raise BudgetExceeded(span, "memory_mb", f"the match grew by {grown:,.0f} MiB of memory", self.budgets.memory_mb)


_MEMORY_EVERY = 20_000


def check_size(n: int, span, what: str, meter: "Meter | None" = None) -> None:
    """A list (range, text, board) of n items is about to be built: within the list_size budget?"""
    b = meter.budgets if meter is not None else current_budgets()
    if n > b.list_size:
        raise BudgetExceeded(span, "list_size", f"this would build {what} of {n:,} items", b.list_size)
    if meter is not None and n > 64:
        meter.charge(n, span)
