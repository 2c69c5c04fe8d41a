"""`rulelang bench` runs (in its tiny mode: no timing is asserted, speed is measured by the command
itself), and the hand-written references in bench/ play the same games as the rules files."""
from __future__ import annotations

import random
import statistics

import pytest

import rulelang
from rulelang.tools.bench import find_references, rules_playout
from rulelang.cli.main import main


def test_bench_quick_prints_every_section(capsys, repo_cwd):
    assert main(["bench", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "playouts: random playouts per second" in out
    assert "references from bench" in out
    line = next(l for l in out.splitlines() if l.startswith("tictactoe "))
    assert "examples/tictactoe.rules" in line
    assert "check: wall time of a whole `rulelang check FILE` process" in out
    assert "games/" in out.split("check:")[1].split("clone:")[0]
    assert "clone: copies of a match" in out
    assert "simulate:" in out and "speed-up" in out
    assert "search: options tried per second by the greedy bot" in out
    search = out.split("search:")[1].splitlines()
    assert "greedy / random" in search[1]
    row = next(l for l in search if l.startswith("examples/tictactoe.rules")).split()
    options, per_option, per_random, share = float(row[2]), float(row[4]), float(row[6]), float(row[7].rstrip("%"))
    # greedy's decision: its own move and every option tried, against one random move
    assert share == pytest.approx(100 * per_random / (per_random + options * per_option), abs=0.6)


def test_bench_races_a_reference_of_ones_own(tmp_path, capsys, repo_cwd):
    ref = tmp_path / "mine.py"
    ref.write_text("RULES = 'tictactoe'\nPLAYERS = 2\n"
                   "def playout(rng):\n    return [1], 1\n", encoding="utf-8")
    assert main(["bench", "--quick", "--only", "playouts", str(ref)]) == 0
    out = capsys.readouterr().out
    assert any(l.startswith("mine ") for l in out.splitlines())


def test_bench_says_what_a_reference_lacks(tmp_path, capsys):
    ref = tmp_path / "broken.py"
    ref.write_text("RULES = 'tictactoe'\n", encoding="utf-8")
    assert main(["bench", "--quick", "--only", "playouts", str(ref)]) == 2
    assert "a reference defines RULES, PLAYERS and playout(rng); PLAYERS is missing" in capsys.readouterr().err


def test_every_reference_names_a_rules_file_that_loads(repo_cwd):
    refs = find_references([])
    assert {r.name for r in refs} >= {"tictactoe", "connect4", "zemico"}
    for ref in refs:
        assert ref.rules.exists(), ref.rules
        winners, decisions = ref.module.playout(random.Random(0))
        assert all(1 <= w <= ref.players for w in winners) and decisions >= 1


@pytest.mark.parametrize("name, rules_games, reference_games", [("tictactoe", 300, 6000), ("connect4", 40, 3000)])
def test_reference_plays_the_same_game(name, rules_games, reference_games, repo_cwd):
    """Uniform-random games of the rules file and of its reference last as many decisions on
    average (within 4 standard errors), and the first player wins about as often."""
    ref = next(r for r in find_references([name]))
    game = rulelang.load(ref.rules)
    rng = random.Random(5)
    ours = [rules_playout(game, ref.players, seed, rng) for seed in range(rules_games)]
    theirs = [ref.module.playout(rng) for _ in range(reference_games)]

    def mean_and_error(results):
        values = [d for _, d in results]
        return statistics.fmean(values), statistics.pstdev(values) / len(values) ** 0.5

    (m1, e1), (m2, e2) = mean_and_error(ours), mean_and_error(theirs)
    assert abs(m1 - m2) <= 4 * (e1 ** 2 + e2 ** 2) ** 0.5, (m1, m2)
    first1 = sum(1 for w, _ in ours if w == [1]) / len(ours)
    first2 = sum(1 for w, _ in theirs if w == [1]) / len(theirs)
    assert abs(first1 - first2) < 0.2
