"""Rules-line coverage (issue 40): `rulelang test --coverage` and `rulelang simulate --coverage` list
the statement lines the matches never reached, with the share they ran; the language
server shows those lines as hints. Only matches watched for it record, and a game loaded the usual
way is left as it was.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rulelang.balance.coverage import Coverage, countable_lines, format_coverage, load_for_coverage
from rulelang.compile.loader import load
from rulelang.tools.scenario import run_file, scenario_files_for

REPO = Path(__file__).resolve().parent.parent

GAME = '''game "Lines" {
  players 2
  round: draw_phase
  max rounds 2
}
component Chip { n: int  label "chip {n}" }
cards chips in bag { Chip(n: k) for k in 1..6 }
zone bag
zone hand per player
player { score: int = 0 }
setting bonus = off one of off | on
def worth(c) = c.n
def never_used(c) = c.n + 1
setup {
  shuffle bag
}
/// Each player draws a chip and scores it.
phase draw_phase {
  for each p in players {
    draw from bag to hand(p)
    p.score += worth(top(hand(p)))
  }
  if bonus == on {
    player(1).score += 100
  }
}
result {
  win [p in players where p.score == max(q.score for q in players)]
}
variant generous {
  set bonus = on
}
'''


def _line(text: str, words: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if words in line)


def test_the_lines_that_count_are_statements(tmp_path):
    path = tmp_path / "lines.rules"
    path.write_text(GAME, encoding="utf-8")
    game = load(path)
    counted = countable_lines(game.rules.decls, GAME)
    firsts = {first for first, _where in counted.values()}
    for words in ("shuffle bag", "for each p in players", "draw from bag", "p.score += worth", "if bonus == on",
                  "player(1).score += 100", "win [p in players"):
        assert _line(GAME, words) in firsts, words
    # defs are not counted: the generated code calls them, or writes them in place, with no op of their own
    assert _line(GAME, "def worth") not in firsts and _line(GAME, "def never_used") not in firsts
    # declarations' own lines, fields and decks are not statements
    assert _line(GAME, "phase draw_phase") not in firsts and _line(GAME, "cards chips") not in firsts
    # a statement's doc comment is not its line: the first line of code is shown
    assert counted[_line(GAME, "for each p in players")][1] == "phase draw_phase"


def test_simulate_coverage_lists_the_lines_never_reached(tmp_path):
    from rulelang.balance.simulate import simulate

    path = tmp_path / "lines.rules"
    path.write_text(GAME, encoding="utf-8")
    summary = simulate(str(path), 5, coverage=True)
    report = summary.coverage
    unreached = {u.line for u in report.unreached}
    assert unreached == {_line(GAME, "player(1).score += 100")}
    assert report.counted == 7 and report.ran == 6 and round(report.percent) == 86
    text = "\n".join(format_coverage(report))
    assert "6 of 7 rules lines ran (85.7%)" in text and "player(1).score += 100" in text
    assert summary.to_json()["coverage"]["unreached"][0]["where"] == "phase draw_phase"
    # the same games with the variant reach the bonus line
    summary = simulate(str(path), 5, variant=["generous"], coverage=True)
    assert summary.coverage.unreached == []
    # and the games are the ones an ordinary simulate plays
    plain = simulate(str(path), 5, variant=["generous"])
    assert [g.winners for g in plain.games] == [g.winners for g in summary.games]


def test_only_watched_matches_record_and_ordinary_loads_are_untouched(tmp_path):
    path = tmp_path / "lines.rules"
    path.write_text(GAME, encoding="utf-8")
    watched_game = load_for_coverage(path)
    coverage = Coverage(whole_file=False)
    match = coverage.new_match(watched_game, seed=1)  # (no choice in this game: it plays to its end)
    ran = set(coverage.ran[str(path.resolve())])
    assert match.is_over and _line(GAME, "shuffle bag") in ran and _line(GAME, "p.score += worth") in ran
    assert match.clone().vm.coverage is None  # the copies bots plan on record nothing
    other = watched_game.new_match(seed=2)  # a match nobody watches records nothing either
    assert other.is_over and other.vm.coverage is None and coverage.ran[str(path.resolve())] == ran
    plain = load(path)
    assert plain.new_match(seed=1).vm.coverage is None
    ops = [op for code in plain.program.codes for op in code.ops]
    assert ops and not any(type(op).__module__ == "rulelang.balance.coverage" for op in ops)
    # the watched game runs every statement as an op of its own; the ordinary one fuses runs of them
    fused = ("FusedExec", "FusedRegion")
    assert any(type(op).__name__ in fused for op in ops)
    assert not any(type(op).__name__ in fused for code in watched_game.program.codes for op in code.ops)
    assert all(type(op).__module__ == "rulelang.balance.coverage" for code in watched_game.program.codes
               for op in code.ops)


def _scenarios(folder: Path, game: str) -> Path:
    tests = folder / "tests"
    tests.mkdir()
    path = tests / "lines_test.rules"
    path.write_text(f'''/// "Each player draws a chip and scores it."
scenario "a draw scores the chip" {{
  game "{game}"
  position {{
    phase draw_phase
    bag: Chip(n: 3), Chip(n: 5)
  }}
  run phase draw_phase
  expect player(1).score == 3
}}
''', encoding="utf-8")
    return path


def test_test_coverage_counts_the_whole_file_and_says_it_per_file(tmp_path):
    game = tmp_path / "lines.rules"
    game.write_text(GAME, encoding="utf-8")
    scenarios = _scenarios(tmp_path, "../lines.rules")
    coverage = Coverage()
    results = run_file(scenarios, {}, coverage=coverage)
    assert [r.passed for r in results] == [True], results[0].message
    (report,) = coverage.reports()
    unreached = {u.line for u in report.unreached}
    # the position starts at the phase: setup and the result never ran, nor the bonus, nor an unused def
    for words in ("shuffle bag", "player(1).score += 100", "win [p in players"):
        assert _line(GAME, words) in unreached, words
    for words in ("draw from bag", "p.score += worth", "if bonus == on"):
        assert _line(GAME, words) not in unreached, words
    # another file naming the game by its whole path: the same file, one report counting both
    other = scenarios.parent / "again.rules"
    other.write_text(scenarios.read_text(encoding="utf-8").replace('"../lines.rules"', f'"{game.resolve()}"'),
                     encoding="utf-8")
    assert [r.passed for r in run_file(other, {}, coverage=coverage)] == [True]
    (again,) = coverage.reports()
    assert again.counted == report.counted and again.ran == report.ran
    done = subprocess.run([sys.executable, "-m", "rulelang", "test", "--coverage", str(scenarios)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 0 failed" in done.stdout
    assert f"lines.rules: {report.ran} of {report.counted} rules lines ran" in done.stdout
    assert "never reached:" in done.stdout and "player(1).score += 100" in done.stdout
    # without --coverage nothing of it is printed
    done = subprocess.run([sys.executable, "-m", "rulelang", "test", str(scenarios)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                                                          "HOME": str(tmp_path)})
    assert "rules lines ran" not in done.stdout


def test_the_language_server_hints_at_the_lines_no_scenario_reaches(tmp_path):
    from rulelang.tools.lsp import UNREACHED, to_lsp_diagnostic, unreached_hints

    game = tmp_path / "lines.rules"
    game.write_text(GAME, encoding="utf-8")
    (tmp_path / ".git").mkdir()  # the project's top: tests/ beside the game is looked in, nothing above
    scenarios = _scenarios(tmp_path, "../lines.rules")
    assert scenario_files_for(game) == [scenarios]
    hints = unreached_hints(str(game))
    lines = {h.span.line for h in hints}
    assert _line(GAME, "player(1).score += 100") in lines and _line(GAME, "draw from bag") not in lines
    assert all(h.severity == "hint" and h.message == UNREACHED for h in hints)
    first = next(h for h in hints if h.span.line == _line(GAME, "player(1).score += 100"))
    assert first.span.column == 5  # from the line's first word
    from lsprotocol import types as T

    assert to_lsp_diagnostic(first, GAME.split("\n")).severity == T.DiagnosticSeverity.Hint
    assert unreached_hints(str(game)) is hints  # kept while nothing changed
    # a file with no scenario gets no hint
    alone = tmp_path / "sub"
    alone.mkdir()
    (alone / "other.rules").write_text(GAME.replace('"Lines"', '"Other"'), encoding="utf-8")
    assert unreached_hints(str(alone / "other.rules")) == []


def test_a_language_client_gets_the_hints_after_opening_and_saving(tmp_path):
    import asyncio

    from lsprotocol import types as T
    from pygls.lsp.client import LanguageClient

    game = tmp_path / "lines.rules"
    game.write_text(GAME, encoding="utf-8")
    (tmp_path / ".git").mkdir()
    _scenarios(tmp_path, "../lines.rules")

    async def session() -> list:
        client = LanguageClient("rulelang-test", "1")
        published: list = []

        @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: T.PublishDiagnosticsParams):
            published.append(params)

        async def until(count: int):
            for _ in range(600):
                if len(published) >= count:
                    return
                await asyncio.sleep(0.1)

        await client.start_io(sys.executable, "-m", "rulelang", "lsp")
        try:
            await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                             root_uri=tmp_path.as_uri()))
            client.initialized(T.InitializedParams())
            uri = game.as_uri()
            client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
                uri=uri, language_id="rules", version=1, text=GAME)))
            await until(2)  # the check's diagnostics at once, then again with the hints
            client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))
            await until(4)
            await client.shutdown_async(None)
            client.exit(None)
        finally:
            await client.stop()
        return published

    published = asyncio.run(session())
    assert len(published) == 4, published
    assert [d for d in published[0].diagnostics] == []
    for with_hints in (published[1], published[3]):
        hinted = {d.range.start.line + 1 for d in with_hints.diagnostics}
        assert _line(GAME, "player(1).score += 100") in hinted and _line(GAME, "draw from bag") not in hinted
        assert all(d.severity == T.DiagnosticSeverity.Hint for d in with_hints.diagnostics)
