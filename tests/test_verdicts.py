"""`rulelang check` of a file that passed before answers from its kept verdict (rulelang/check/verdicts.py),
and anything the answer depends on (the text, a data file, the budgets) makes it check again."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

from rulelang.check import verdicts
from rulelang.cli.main import main

GAME = '''game "Tiles" { players 2; round: place; max rounds 2 }
table tiles from "tiles.csv"
zone pile
phase place { }
'''


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULELANG_CACHE", raising=False)
    monkeypatch.delenv("RULELANG_BUDGETS", raising=False)
    (tmp_path / "tiles.csv").write_text("name, points\nriver, 2\n", encoding="utf-8")
    (tmp_path / "tiles.rules").write_text(GAME, encoding="utf-8")
    return tmp_path


def check(path, capsys) -> tuple[int, str, str]:
    code = main(["check", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def bot_hint_text() -> str:
    from rulelang.check.hints import SCORE_FIELD

    return ("the greedy bot cannot tell who is ahead before the game ends: add `def heuristic(p) = ...` "
            f"(bigger is better for player p), or a player field named `{SCORE_FIELD}`")


def kept(folder) -> list:
    return sorted((folder / "cache" / "verdicts").glob("*.json"))


def test_a_passed_check_is_kept_and_answers_the_next(folder, capsys, monkeypatch):
    game = folder / "tiles.rules"
    # (checked afresh, a game that says nothing about who is ahead gets a hint for the bots)
    assert check(game, capsys) == (0, f"{game}: ok (variants: none)\n{game}: hint: {bot_hint_text()}\n", "")
    assert len(kept(folder)) == 1
    assert verdicts.passed_before(game) == ([], [f"{game}: hint: {bot_hint_text()}"])

    # the next check answers from the verdict, with the same lines: the checker is not run
    import rulelang.check.checker as checker

    def not_again(*args, **kwargs):
        raise AssertionError("checked again")

    monkeypatch.setattr(checker, "check_rules", not_again)
    assert check(game, capsys) == (0, f"{game}: ok (variants: none)\n{game}: hint: {bot_hint_text()}\n", "")


def test_a_changed_data_file_or_text_checks_again(folder, capsys):
    game = folder / "tiles.rules"
    assert check(game, capsys)[0] == 0
    # the data file the table reads loses its header's names: the same text no longer passes
    (folder / "tiles.csv").write_text("1 name, points\nriver, 2\n", encoding="utf-8")
    assert verdicts.passed_before(game) is None
    code, out, err = check(game, capsys)
    assert code == 1 and "is not a name" in err and out == ""
    # a file with errors leaves no verdict: its messages are made fresh every time
    assert len(kept(folder)) == 1
    (folder / "tiles.csv").write_text("name, points\nriver, 2\n", encoding="utf-8")
    assert verdicts.passed_before(game).variants == []
    # one changed character of the text is another text
    game.write_text(GAME.replace("max rounds 2", "max rounds 3"), encoding="utf-8")
    assert verdicts.passed_before(game) is None
    assert check(game, capsys)[0] == 0
    assert len(kept(folder)) == 2


def test_the_same_text_elsewhere_reads_its_own_data_files(folder, capsys):
    assert check(folder / "tiles.rules", capsys)[0] == 0
    other = folder / "other"
    other.mkdir()
    (other / "tiles.rules").write_text(GAME, encoding="utf-8")
    assert verdicts.passed_before(other / "tiles.rules") is None
    code, _out, err = check(other / "tiles.rules", capsys)
    assert code == 1 and "tiles.csv" in err


def test_budgets_a_damaged_verdict_and_the_cache_switched_off(folder, capsys, monkeypatch):
    game = folder / "tiles.rules"
    assert check(game, capsys)[0] == 0
    # a smaller budget for the file's size is another question
    code, _out, err = check_with_budget(game, capsys)
    assert code != 0 and "source_bytes" in err
    # a damaged verdict is a miss, and is replaced
    kept(folder)[0].write_text("{not json", encoding="utf-8")
    assert verdicts.passed_before(game) is None
    assert check(game, capsys)[0] == 0
    assert verdicts.passed_before(game).variants == []
    monkeypatch.setenv("RULELANG_CACHE", "0")
    assert verdicts.passed_before(game) is None


def check_with_budget(game, capsys):
    code = main(["check", str(game), "--budget", "source_bytes=20"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_check_process_answering_from_its_verdict_imports_no_pydantic(folder):
    """What makes it fast: the answer needs neither the AST's models nor the parser."""
    game = folder / "tiles.rules"
    code = ("import sys, runpy; sys.argv = ['rulelang', 'check', sys.argv[1]]\n"
            "try:\n    runpy.run_module('rulelang', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
            "print(sorted(m for m in ('pydantic', 'lark', 'rulelang.language.nodes', 'rulelang.check.checker') if m in sys.modules),"
            " code)")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [subprocess.run([sys.executable, "-c", code, str(game)], capture_output=True, text=True, env=env,
                           cwd=folder) for _ in range(2)]
    assert runs[0].stdout.splitlines()[0] == runs[1].stdout.splitlines()[0] == f"{game}: ok (variants: none)"
    assert "'rulelang.check.checker'" in runs[0].stdout.splitlines()[-1]
    assert runs[1].stdout.splitlines()[-1] == "[] 0", runs[1].stdout + runs[1].stderr
