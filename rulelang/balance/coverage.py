"""Which rules lines some matches ran, and which they never reached: `rulelang test --coverage`,
`rulelang simulate --coverage`, and the language server's hints on lines no scenario reaches.

A game is loaded for coverage by ``load_for_coverage``: it is compiled with ``load(..., fused=False)``
(each statement is then one op of the VM, where the code generator otherwise
fuses runs of statements into one generated op), and each of its ops is
made to note its rules line in ``VM.coverage`` when that is a set. Only the matches handed to
``Coverage.watch`` have one: the copies bots plan on record nothing, and a game loaded the usual
way is not touched, so ordinary runs pay nothing.

The lines counted are those of statements (in setup, phases, steps, triggers, continuous rules,
procedures, keywords' effects and triggers, the result). Defs are not counted: the generated code
calls them directly or writes them into the expressions that use them, so no op stands for them.
A statement's line is its first line of code (a doc comment above it is not counted). For
`rulelang test` every statement of the file counts, variants' too; for `simulate`, those of the
game as it was loaded (its variants applied).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rulelang.language import nodes as N
from rulelang.core.errors import DiagnosticBag
from rulelang.language.variants import apply_variants

_RECORDING: dict[type, type] = {}  # op class -> its recording subclass


def _recording(cls: type) -> type:
    """A subclass of an op class whose run() first notes the op's line in vm.coverage (when set)."""
    sub = _RECORDING.get(cls)
    if sub is None:
        plain_run = cls.run

        def run(self, vm, frame):
            lines = vm.coverage
            if lines is not None:
                lines.add(self.span.line)
            return plain_run(self, vm, frame)

        sub = _RECORDING[cls] = type(cls.__name__, (cls,), {"__slots__": (), "run": run,
                                                            "__doc__": cls.__doc__})
    return sub


def load_for_coverage(path, variant=None, settings=None, text=None):
    """The game, loaded so that a match whose ``vm.coverage`` is a set notes there every rules line it
    runs (see the module's docstring). A game of its own: never share it with ordinary runs."""
    from rulelang.compile.loader import load

    game = load(path, variant=variant, settings=settings, text=text, fused=False)
    program = game.program
    for code in program.codes:
        for op in code.ops:
            if type(op) not in _RECORDING.values():
                op.__class__ = _recording(type(op))
    return game


# ------------------------------------------------------------------ which lines count


def _title(d: N.Decl) -> str:
    if isinstance(d, N.TriggerDecl):
        return d.describe() + (f" as {d.name}" if d.name else "")
    if isinstance(d, N.AlwaysDecl):
        return "always" + (f" as {d.name}" if d.name else "")
    word = {N.SetupDecl: "setup", N.ResultDecl: "result", N.PhaseDecl: "phase", N.ProcDecl: "procedure",
            N.KeywordDecl: "keyword", N.DefDecl: "def", N.VariantDecl: "variant"}.get(type(d), type(d).__name__)
    return f"{word} {getattr(d, 'name', '') or ''}".strip()


def code_line(texts: list[str], line: int) -> int:
    """A construct's span starts at its doc comment: its first line of code (texts: the file's lines)."""
    while 0 < line < len(texts) and texts[line - 1].lstrip().startswith("//"):
        line += 1
    return line


def countable_lines(decls: list, text: str) -> dict[int, tuple[int, str]]:
    """The lines that count (a statement's or a def's span line) -> (its first line of code, the title of
    the declaration it is in). Variants in ``decls`` count their own statements."""
    lines = text.split("\n")
    out: dict[int, tuple[int, str]] = {}

    def visit(d, where: str):
        if isinstance(d, N.VariantDecl):
            for item in d.items:
                visit(item, f"variant {d.name}: {_title(item)}")
            return
        if isinstance(d, (N.SetupDecl, N.ResultDecl, N.PhaseDecl, N.TriggerDecl, N.AlwaysDecl, N.ProcDecl,
                          N.KeywordDecl)):
            for s in N.nodes_in(d):
                if isinstance(s, N.Stmt):
                    out.setdefault(s.span.line, (code_line(lines, s.span.line), where))

    for d in decls:
        visit(d, _title(d))
    return out


# ------------------------------------------------------------------ recording and the report


@dataclass
class Unreached:
    line: int   # its first line of code
    text: str   # that line, stripped
    where: str  # the declaration it is in: `phase survival`, `at end of round`, `def score`


@dataclass
class FileCoverage:
    path: str
    counted: int
    ran: int
    unreached: list[Unreached] = field(default_factory=list)

    @property
    def percent(self) -> float:
        return 100.0 * self.ran / self.counted if self.counted else 100.0

    def to_json(self) -> dict:
        return {"file": self.path, "lines": self.counted, "ran": self.ran, "percent": round(self.percent, 1),
                "unreached": [u.__dict__ for u in self.unreached]}


def _key(game) -> str:
    """A game's file, one spelling for each (a scenario may name it by a relative path, another by name)."""
    return str(Path(game.path).resolve())


class Coverage:
    """The rules lines the watched matches ran, by rules file. ``whole_file``: count every statement of
    the file (variants' too, as `rulelang test` does); otherwise those of the game as loaded."""

    def __init__(self, whole_file: bool = True):
        self.whole_file = whole_file
        self.ran: dict[str, set] = {}
        self.games: dict[str, list] = {}  # path -> the games loaded from it

    def watch(self, match) -> None:
        """Note every rules line this match runs from now on (the game must come from load_for_coverage)."""
        game = match.game
        self.add_game(game)
        match.vm.coverage = self.ran.setdefault(_key(game), set())

    def new_match(self, game, players: int | None = None, seed: int = 0):
        """game.new_match(players, seed), watched from its first line (setup included)."""
        from rulelang.engine.runtime import Match, new_state

        players = players if players is not None else game.program.game.players_default
        match = Match(game, new_state(game.program, players, seed))
        self.watch(match)
        match.start()
        return match

    def add_game(self, game) -> None:
        """Count this game's lines (even when no match of it runs)."""
        games = self.games.setdefault(_key(game), [])
        if game not in games:
            games.append(game)
        self.ran.setdefault(_key(game), set())

    def reports(self) -> list[FileCoverage]:
        out = []
        for path, games in sorted(self.games.items()):
            counted: dict[int, tuple[int, str]] = {}
            try:
                text = Path(path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            for game in games:
                if self.whole_file:
                    decls = [d for d in game.rules.decls if not isinstance(d, N.ScenarioDecl)]
                else:
                    decls, _ = apply_variants(game.rules, list(game.variants), DiagnosticBag())
                counted.update(countable_lines(decls, text))
            ran = self.ran.get(path, set())
            lines = text.split("\n")
            unreached = [Unreached(first, lines[first - 1].strip() if 0 < first <= len(lines) else "", where)
                         for line, (first, where) in sorted(counted.items()) if line not in ran]
            out.append(FileCoverage(path, len(counted), len(counted) - len(unreached), unreached))
        return out


def format_coverage(report: FileCoverage, shown: str | None = None) -> list[str]:
    """The lines `rulelang test --coverage` and `simulate --coverage` print for one rules file."""
    head = (f"{shown or report.path}: {report.ran} of {report.counted} rules lines ran ({report.percent:.1f}%)")
    if not report.unreached:
        return [head + "; every one was reached"]
    out = [head + "; never reached:"]
    where = None
    for u in report.unreached:
        if u.where != where:
            where = u.where
            out.append(f"  {where}")
        text = u.text if len(u.text) <= 80 else u.text[:79] + "…"
        out.append(f"    {u.line:>5}  {text}")
    return out


def relative(path: str) -> str:
    """A path as printed: relative to the working folder when it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
