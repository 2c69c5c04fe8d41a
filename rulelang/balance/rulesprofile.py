"""Where a game's time goes, by rules line: `rulelang simulate --profile`.

The games run in one process under Python's profiler (cProfile). A game's generated code
(codegen) is one Python function per def, rule and run of statements, each headed by the rules
line it comes from (``def E_may_place(...):  # def may_place, rules line 342``): the time of a
function, and of the comprehensions inside it, is counted for that line. The rest is the engine's
own work, counted by what it does: turns and choices, moving cards, built-in functions, the bots.

The profiler adds a cost to every call (a game takes about twice as long), most to code that makes
many small calls: the shares say where to look, not exact fractions.
"""
from __future__ import annotations

import pstats
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from rulelang.balance.coverage import code_line

_RULES_LINE = re.compile(r"#.*\brules line (\d+)\s*$")

# what the engine's time in each module is spent on
_ENGINE_PARTS = {module: part for part, modules in (
    ("turns, phases, triggers, continuous rules", ("engine/runtime.py", "engine/ops.py", "engine/program.py")),
    ("listing the options of choices", ("model/options.py",)),
    ("moving cards, changing values", ("model/things.py", "model/board.py", "engine/values.py")),
    ("statements the engine runs itself", ("compile/statements.py",)),
    ("helpers of the generated code", ("compile/codegen_helpers.py", "compile/codegen_statements.py")),
    ("built-in functions", ("model/builtins.py", "model/geometry.py", "model/pieces.py")),
    ("the bots", ("bots/agents.py", "bots/mcts.py", "bots/valuation.py")),
    ("copies of the match, what a seat sees", ("engine/saves.py", "engine/visibility.py")),
    ("recording the games", ("balance/simulate.py", "balance/metrics.py"))) for module in modules}

_PYTHON = "Python itself (profiler, lists, random)"


@dataclass
class ProfileRow:
    """One rules line (line, its text) or one part of the engine (line None)."""
    line: int | None
    what: str
    calls: int = 0
    own: float = 0.0    # seconds in it, not counting what it calls
    total: float = 0.0  # seconds in it and in what it calls (rules lines: nested lines count in both)


@dataclass
class RulesProfile:
    games: int
    seconds: float                      # all profiled time (the sum of every function's own time)
    lines: list[ProfileRow] = field(default_factory=list)   # rules lines, most time first
    engine: list[ProfileRow] = field(default_factory=list)  # the engine's parts, most time first

    @property
    def rules_share(self) -> float:
        """The share of the time spent in the rules' own generated code."""
        return sum(r.own for r in self.lines) / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict:
        return {"games": self.games, "seconds": self.seconds,
                "lines": [r.__dict__ for r in self.lines], "engine": [r.__dict__ for r in self.engine]}


def _heads(source: str) -> list[int | None]:
    """For each line of generated source, the rules line of the function it belongs to."""
    heads: list[int | None] = []
    current = None
    for text in source.split("\n"):
        if text.startswith("def "):
            m = _RULES_LINE.search(text)
            current = int(m.group(1)) if m else None
        heads.append(current)
    return heads


def profiled(run: Callable[[], object], generator, rules_file: str | Path | None, games: int) -> tuple[object, RulesProfile]:
    """What run() gives, played under Python's profiler, and where its time went (rules_profile)."""
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        result = run()
    finally:
        profiler.disable()
    return result, rules_profile(pstats.Stats(profiler), generator, rules_file, games)


def rules_profile(stats: pstats.Stats, generator, rules_file: str | Path | None, games: int) -> RulesProfile:
    """The profile of some games (``stats``), by rules line of the game whose generated code is
    ``generator`` (None: everything is then the engine's). The time of
    Python's own functions (``len``, a list's ``append``, ...) is counted where they were called."""
    raw = stats.stats  # type: ignore[attr-defined]  # {(file, line, name): (calls, calls, own, total, callers)}
    filename = getattr(generator, "filename", None)
    heads = _heads(generator.source) if generator is not None else []
    try:
        texts = Path(rules_file).read_text(encoding="utf-8").split("\n") if rules_file else []
    except (OSError, UnicodeDecodeError):
        texts = []
    lines: dict[int, ProfileRow] = {}
    engine: dict[str, ProfileRow] = {}

    def rules_row(line: int) -> ProfileRow:
        line = code_line(texts, line)
        row = lines.get(line)
        if row is None:
            text = texts[line - 1].strip() if 0 < line <= len(texts) else ""
            row = lines[line] = ProfileRow(line, text if len(text) <= 72 else text[:71] + "…")
        return row

    def bucket(key) -> ProfileRow:
        file, first, name = key
        if file.startswith("<frozen importlib") or name == "<module>":
            part = "importing Python modules (once)"
        elif file == filename:
            line = heads[first - 1] if 0 < first <= len(heads) else None
            if line is not None:
                return rules_row(line)
            part = "the generated code's own glue"
        elif file.startswith("<rulelang generated"):
            part = "another game's generated code"
        elif file != "~" and "rulelang" in Path(file).parts:
            part = _ENGINE_PARTS.get("/".join(Path(file).parts[-2:]), _PYTHON)
        else:  # Python's own functions whose caller is not known, and its library
            part = _PYTHON
        row = engine.get(part)
        if row is None:
            row = engine[part] = ProfileRow(None, part)
        return row

    everything = 0.0
    inner_calls: dict[int, int] = {}
    for key, (_cc, calls, own, total, callers) in raw.items():
        everything += own
        if key[0] == "~" and callers:
            for caller, (_c, _n, spent, _t) in callers.items():
                bucket(caller).own += spent
                own -= spent
            if own > 1e-12:  # (the profiler's own rounding)
                bucket(key).own += own
            continue
        row = bucket(key)
        row.own += own
        if row.line is not None:
            row.total = max(row.total, total)  # a def's wrappers call its body: the outermost holds all
            if key[2].startswith("<"):  # a comprehension inside: runs once per item, not per use
                inner_calls[row.line] = max(inner_calls.get(row.line, 0), calls)
            else:
                row.calls = max(row.calls, calls)
        else:
            row.calls += calls
    for line, calls in inner_calls.items():
        if not lines[line].calls:
            lines[line].calls = calls
    for row in lines.values():  # own time summed from several functions may pass the total by a rounding
        row.total = max(row.total, row.own)
    for row in engine.values():
        row.total = row.own
    return RulesProfile(games, everything,
                        sorted(lines.values(), key=lambda r: (-r.total, r.line)),
                        sorted(engine.values(), key=lambda r: -r.own))


def format_profile(profile: RulesProfile, top: int = 15) -> list[list[str]]:
    """The rows of the table `simulate --profile` prints: rules lines, then the engine's parts."""
    whole = profile.seconds or 1e-9
    rows = [["line", "rule", "share", "own", "calls/game"]]
    for r in profile.lines[:top]:
        rows.append([str(r.line), r.what, f"{r.total / whole:.1%}", f"{r.own / whole:.1%}",
                     f"{r.calls / max(profile.games, 1):,.0f}"])
    if len(profile.lines) > top:
        rest = profile.lines[top:]
        rows.append(["", f"{len(rest)} other rules lines", "", f"{sum(r.own for r in rest) / whole:.1%}", ""])
    for r in profile.engine:
        rows.append(["engine", r.what, "", f"{r.own / whole:.1%}", ""])
    return rows
