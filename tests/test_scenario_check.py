"""`rulelang check` on a file of scenarios: checked as a scenario file (the game each scenario names,
its position, its expectations' names), without running the steps."""
from __future__ import annotations

import contextlib
import io

from conftest import REPO
from rulelang.cli.main import main

SKIRMISH = (REPO / "examples" / "skirmish.rules").as_posix()


def check(*files) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", *map(str, files)])
    return code, out.getvalue(), err.getvalue()


def scenario(game: str, position: str = 'hand of player 1: Creature(name: "Fern")', expect: str = "round == 1") -> str:
    return (f'scenario "one" {{\n  game "{game}"\n  players 2\n  position {{\n    phase play\n'
            f'    {position}\n  }}\n  run choice\n  expect {expect}\n}}\n\n'
            f'scenario "two" {{\n  game "{game}"\n  players 2\n  run choice\n  expect round >= 1\n}}\n')


def test_a_good_scenario_file_is_ok(tmp_path):
    f = tmp_path / "good.rules"
    f.write_text(scenario(SKIRMISH))
    code, out, err = check(f)
    assert (code, err) == (0, "")
    assert out == f"{f}: ok (2 scenarios)\n"


def test_the_bundled_scenario_files_check_clean():
    files = sorted((REPO / "tests" / "scenarios" / "zemico").glob("*.rules"))
    code, out, err = check(*files)
    assert (code, err) == (0, "")
    assert out.count(": ok (") == len(files)


def test_a_missing_game_is_said_at_its_line(tmp_path):
    f = tmp_path / "missing.rules"
    f.write_text(scenario("no_such_game.rules"))
    code, out, err = check(f)
    assert code == 1 and out == ""
    assert f'{f}:2:3: error: cannot find the game "no_such_game.rules"' in err
    assert err.rstrip().endswith(f"{f}: 2 errors")


def test_an_unknown_zone_in_a_position_is_said_at_its_line(tmp_path):
    f = tmp_path / "zone.rules"
    f.write_text(scenario(SKIRMISH, position='hnad of player 1: Creature(name: "Fern")'))
    code, out, err = check(f)
    assert code == 1 and out == ""
    assert f'{f}:6:5: error: the game has no zone "hnad"' in err
    assert "did you mean" in err and "hand" in err
    assert err.rstrip().endswith(f"{f}: 1 error")


def test_an_expectation_naming_nothing_is_said_at_its_line(tmp_path):
    f = tmp_path / "expect.rules"
    f.write_text(scenario(SKIRMISH, expect="rnd == 1"))
    code, out, err = check(f)
    assert code == 1
    assert f"{f}:9:" in err and '"rnd" is not defined' in err


def test_the_steps_are_not_run(tmp_path):
    f = tmp_path / "wrong.rules"  # an expectation that is false when run: check does not run it
    f.write_text(scenario(SKIRMISH, expect="round == 99"))
    assert check(f)[0] == 0
