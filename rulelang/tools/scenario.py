"""Rule tests that designers write: a position, a step, the expected outcome (`rulelang test FILE...`).

A scenario file holds ``scenario "name" { ... }`` blocks (rules syntax) or is a JSON file with the
same parts; docs/scenarios.md describes every line. Cards named in a position are taken from the
game's own cards (never made up), so cards stay conserved; piles are listed from the top down.

The parts live beside it: ``scenario_report`` (results and failures), ``scenario_expressions``
(the game's expressions in a scenario), ``scenario_position`` (the game and the position),
``scenario_run`` (``ScenarioRunner``: the lines, the run units, the expectations) and
``scenario_json`` (the JSON form).
"""
from __future__ import annotations

from pathlib import Path

from rulelang.language import nodes as N
from rulelang.engine.program import RuleError
from rulelang.core.errors import Diagnostic, RulesError, Span
from rulelang.language.parser import parse_file, parse_text
from rulelang.core.sourcefile import check_file_size
from rulelang.tools.scenario_json import json_file_to_rules, json_to_rules  # noqa: F401
from rulelang.tools.scenario_position import game_path
from rulelang.tools.scenario_report import ScenarioFailure, ScenarioResult
from rulelang.tools.scenario_expressions import SCENARIO_VALUES
from rulelang.tools.scenario_run import ScenarioRunner

__all__ = ["ScenarioFailure", "ScenarioResult", "ScenarioRunner", "check_scenarios", "json_to_rules", "load_scenarios",
           "run_file", "scenario_files_for"]


def load_scenarios(path: Path) -> list[N.ScenarioDecl]:
    if path.suffix == ".json":
        check_file_size(path)  # (read whole below: within the budget of a rules file first)
        text = json_file_to_rules(path.read_text(encoding="utf-8"), str(path))
        rules = parse_text(text, str(path) + " (as rules)")
    else:
        rules = parse_file(path)
    return [d for d in rules.decls if isinstance(d, N.ScenarioDecl)]


def run_file(path: str | Path, cache: dict | None = None, coverage=None) -> list[ScenarioResult]:
    """Run every scenario of a file. ``cache``: the games loaded so far (shared between files);
    ``coverage``: a ``balance.coverage.Coverage`` that notes the rules lines the scenarios run."""
    path = Path(path)
    cache = {} if cache is None else cache
    scenarios = load_scenarios(path)
    if not scenarios:
        return [ScenarioResult(str(path), Span(file=str(path), line=1, column=1), False, "the file holds no scenario")]
    return [ScenarioRunner(sc, path.parent, cache, coverage).run() for sc in scenarios]


def _expectations(items: list[N.ScenarioItem]):
    for item in items:
        if item.kind == "expect":
            yield item
        elif item.kind == "repeat":
            yield from _expectations(item.items)


def check_scenarios(path: str | Path, scenarios: list[N.ScenarioDecl],
                    cache: dict | None = None) -> list[Diagnostic]:
    """The problems `rulelang check` finds in a scenario file without running its steps: for each
    scenario, the game it names is found and loaded (so checked), its variants and settings exist, its
    position is set up (zones, cards, fields and values checked as `rulelang test` does before it runs)
    and each `expect` expression compiles against the game (names and fields exist). A problem of a
    scenario ends that scenario's check; the others are still checked."""
    path = Path(path)
    cache = {} if cache is None else cache
    problems: list[Diagnostic] = []
    for sc in scenarios:
        runner = ScenarioRunner(sc, path.parent, cache)
        try:
            match = runner.build()
            for item in _expectations(sc.items):
                comp = runner.compiler(match)
                names = set(SCENARIO_VALUES)
                comp.scope = frozenset(comp.scope) | frozenset(n for n in names if n not in comp.t.symbols)
                try:
                    comp.expr(item.expr)
                except RuleError as exc:
                    raise ScenarioFailure(exc.span, exc.message, hint=runner.hint_for(match, exc.message, names)) from None
        except ScenarioFailure as exc:
            problems.append(Diagnostic(exc.span, exc.message, exc.expected, exc.hint))
        except RulesError as exc:  # the game's own errors (or a setting's value of the wrong kind)
            problems.extend(exc.diagnostics)
    return problems


def scenario_files_for(rules_path: str | Path, limit: int = 2000) -> list[Path]:
    """The scenario files that test a rules file, where a designer keeps them: beside it (its folder)
    and under a ``tests/`` folder of it or of a folder above it, up to the project's top (a folder
    holding ``.git`` or ``pyproject.toml``). A file counts when one of its scenarios names this game.
    At most ``limit`` files are looked at (the language server calls this on each save)."""
    rules_path = Path(rules_path).resolve()
    folders = [rules_path.parent]
    for above in [rules_path.parent, *rules_path.parent.parents][:6]:
        if (above / "tests").is_dir():
            folders.append(above / "tests")
        if (above / ".git").exists() or (above / "pyproject.toml").is_file():
            break
    seen: set[Path] = set()
    found: list[Path] = []
    looked = 0
    for folder in folders:
        files = folder.glob("*") if folder == rules_path.parent else folder.rglob("*")
        for f in sorted(files):
            if f.suffix not in (".rules", ".json") or f in seen or f.resolve() == rules_path or not f.is_file():
                continue
            seen.add(f)
            looked += 1
            if looked > limit:
                return found
            try:
                if f.stat().st_size > 1_000_000:
                    continue
                text = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if rules_path.stem not in text or ("scenario" not in text and '"steps"' not in text):
                continue  # (cheap: a file that names neither is not parsed)
            try:
                scenarios = load_scenarios(f)
            except (RulesError, ValueError, RecursionError):
                continue  # (a file that does not read is `rulelang test`'s to report)
            for sc in scenarios:
                games = [i for i in sc.items if i.kind == "game"]
                if games and game_path(games[0].text, f.parent).resolve() == rules_path:
                    found.append(f)
                    break
    return found
