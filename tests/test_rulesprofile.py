"""`rulelang simulate --profile`: where a game's time goes, by rules line (rulelang/balance/rulesprofile.py)."""
from __future__ import annotations

import json

from conftest import REPO
from test_cli import run_main

from rulelang.balance.simulate import simulate

TICTACTOE = REPO / "examples" / "tictactoe.rules"


def line_of(text: str) -> int:
    """The rules line of tic-tac-toe that starts with this text."""
    lines = TICTACTOE.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, 1) if line.startswith(text))


def test_the_time_of_each_def_is_counted_for_its_rules_line():
    summary = simulate(str(TICTACTOE), 30, profile=True)
    profile = summary.profile
    by_line = {row.line: row for row in profile.lines}
    # the defs a game of tic-tac-toe works out after every move, under their own lines
    for head in ("def has_line(p)", "def free_cells", "def lines"):
        row = by_line[line_of(head)]
        assert row.what.startswith(head) and row.calls > 0 and row.own > 0
        assert row.total >= row.own
    # has_line calls lines: its time with what it calls holds lines' time
    assert by_line[line_of("def has_line(p)")].total >= by_line[line_of("def lines")].own
    # owns is written in place of its calls (Generator.inlined_call): its time is has_line's
    assert line_of("def owns(p, cell)") not in by_line
    # every second the profiler saw is counted once: in a rules line or in a part of the engine
    counted = sum(r.own for r in profile.lines) + sum(r.own for r in profile.engine)
    assert abs(counted - profile.seconds) <= 1e-6 * max(profile.seconds, 1)
    assert 0 < profile.rules_share < 1
    assert {r.what for r in profile.engine} >= {"turns, phases, triggers, continuous rules"}
    # the games are those of a simulation without the profiler
    plain = simulate(str(TICTACTOE), 30, jobs=1)
    assert [(g.seed, g.winners, g.decisions) for g in summary.games] == \
           [(g.seed, g.winners, g.decisions) for g in plain.games]
    assert plain.profile is None


def test_simulate_profile_prints_the_costliest_rules_lines(tmp_path, repo_cwd):
    out_file = tmp_path / "out.json"
    code, out, err = run_main("simulate", "examples/tictactoe.rules", "-n", 5, "--profile", "--quiet",
                              "--out", out_file)
    assert code == 0, err
    assert "(one process, under the profiler)" in out
    assert "where the time goes:" in out and "in the rules' own code" in out
    assert "def has_line(p)" in out and "engine" in out
    saved = json.loads(out_file.read_text(encoding="utf-8"))["profile"]
    assert saved["games"] == 5
    assert any(row["line"] == line_of("def has_line(p)") for row in saved["lines"])


def test_a_documented_rule_is_shown_by_its_first_line_of_code():
    """A construct's span starts at its doc comment (`/// "Trade: ..."`): the table shows its code."""
    profile = simulate(str(REPO / "games" / "survivors.rules"), 2, profile=True).profile
    texts = (REPO / "games" / "survivors.rules").read_text(encoding="utf-8").split("\n")
    assert profile.lines
    for row in profile.lines:
        assert not row.what.startswith("//"), row
        assert texts[row.line - 1].strip().startswith(row.what.rstrip("…")), row
    assert any(row.what.startswith("option ") for row in profile.lines)
