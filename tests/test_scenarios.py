"""Every designer scenario under tests/scenarios/ (all games) must pass.

One test per scenario file (``*.rules`` or ``*.json``), run through
``rulelang.scenario.run_file``; a failure lists each failing scenario as
``file:line: name`` with the runner's message.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rulelang.scenario import run_file

SCENARIOS = Path(__file__).parent / "scenarios"
FILES = sorted(p for p in SCENARIOS.rglob("*") if p.is_file() and p.suffix in (".rules", ".json"))
_GAMES: dict = {}  # loaded games, shared by every file (loading a game is the slow part)


def _where(result, path: Path) -> str:
    span = result.failed_at or result.span
    file = span.file if getattr(span, "file", None) else str(path)
    return f"{file}:{span.line}"


def test_scenario_files_exist():
    assert FILES, f"no scenario files under {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario_file(path: Path):
    results = run_file(path, _GAMES)
    failed = [r for r in results if not r.passed]
    if failed:
        lines = [f"{len(failed)} of {len(results)} scenarios failed in {path}:"]
        for r in failed:
            message = "\n    ".join(r.message.splitlines())
            lines.append(f"  {_where(r, path)}: {r.name}\n    {message}")
        pytest.fail("\n".join(lines), pytrace=False)
