"""Whatever path a designer gives rulelang, the answer is a `file:line:col` diagnostic, never a traceback.

The exact diagnostics of binary, wrongly encoded, empty, truncated, folder and unreadable files are
golden files in tests/bad/ (file_*). Here: the real operating-system paths the golden test fakes,
and names of bundled games that a folder of the same name must not hide.
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import pytest

from conftest import REPO

import rulelang
from rulelang.cli.main import main
from rulelang.core.errors import RulesError


def rulelang_cmd(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "rulelang", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


def run_main(*args, cwd) -> tuple[int, str, str]:
    """`rulelang ARGS` in this process, from the folder cwd."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


# As root (CI) permission bits do not stop a read: the child drops to `nobody` once Python is running.
_AS_NOBODY = """
import os, sys
import io, rulelang.check.checker, rulelang.core.errors, rulelang.language.parser, rulelang.core.sourcefile, rulelang.cli.main
from rich.console import Console
Console(file=io.StringIO()).print("warm up", markup=False)  # rich imports some tables lazily
rulelang.core.errors.Span(line=1)  # pydantic builds a span's schema (and imports its parts) on first use
rulelang.cli.main.build_parser()  # argparse's messages import gettext and locale on first use
if os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
sys.exit(rulelang.cli.main.main(sys.argv[1:]))
"""


def test_a_really_unreadable_file_gets_a_diagnostic(tmp_path):
    path = tmp_path / "locked.rules"
    path.write_text('game "Locked" { players 2 }\nphase a { log "x" }\n', encoding="utf-8")
    path.chmod(0)
    tmp_path.chmod(0o755)
    proc = subprocess.run([sys.executable, "-c", _AS_NOBODY, "check", "locked.rules"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ("locked.rules:1:1: error: cannot read the file: Permission denied\n"
                           "locked.rules: 1 error\n")


def test_no_input_gives_a_traceback(tmp_path):
    """Every kind of path: exit status 1 and a diagnostic naming the file, line and column."""
    (tmp_path / "junk.rules").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "utf16.rules").write_text('game "X" { players 2 }', encoding="utf-16")
    (tmp_path / "spaces.rules").write_text("  \n\n\t\n", encoding="utf-8")
    (tmp_path / "folder.rules").mkdir()
    for name in ("junk.rules", "utf16.rules", "spaces.rules", "folder.rules", "missing.rules"):
        code, out, err = run_main("check", name, cwd=tmp_path)
        assert code == 1, (name, err)
        assert err.startswith(f"{name}:1:"), (name, err)
        assert "Traceback" not in err and "internal error" not in err
    proc = rulelang_cmd("check", "junk.rules", cwd=tmp_path)  # and the real command says the same
    assert proc.returncode == 1 and proc.stderr == run_main("check", "junk.rules", cwd=tmp_path)[2]


def test_a_byte_order_mark_is_not_part_of_the_text(tmp_path):
    path = tmp_path / "bom.rules"
    path.write_bytes(b"\xef\xbb\xbf" + (REPO / "examples" / "highcard.rules").read_bytes())
    assert rulelang.load(str(path)).title


def test_the_api_raises_rules_errors_for_bad_paths(tmp_path):
    (tmp_path / "bin.rules").write_bytes(b"\x00\x01\x02")
    for name in ("bin.rules", "nothing.rules", "."):
        try:
            rulelang.load(str(tmp_path / name))
        except RulesError as exc:
            assert exc.diagnostics[0].span.line == 1
        else:
            raise AssertionError(f"{name} loaded")


def test_a_bundled_game_name_resolves_to_the_file_not_a_folder(tmp_path):
    """`rulelang check zemico` with a folder `zemico/` in the current directory checks the bundled game."""
    (tmp_path / "zemico").mkdir()
    code, out, err = run_main("check", "zemico", cwd=tmp_path)
    assert code == 0, err
    assert out.strip().endswith("ok (variants: cooperation, migration)")
    # a folder named as a path is still a folder, and says so
    code, out, err = run_main("check", "./zemico", cwd=tmp_path)
    assert code == 1 and "this is a folder, not a rules file" in err


def test_a_scenario_names_a_bundled_game_beside_a_folder_of_that_name(tmp_path):
    (tmp_path / "highcard").mkdir()
    (tmp_path / "t.rules").write_text(
        'scenario "the bundled game loads" {\n  game "highcard"\n  players 2\n  run setup\n'
        '  expect round == 0\n}\n', encoding="utf-8")
    code, out, err = run_main("test", "t.rules", cwd=tmp_path)
    assert code == 0, out + err
    assert "1 passed, 0 failed" in out


def test_a_failing_default_of_a_player_field_or_global_names_its_line(tmp_path):
    # Found by the long fuzz run: a default value is a rules expression evaluated when a match
    # starts, outside any rule's statement, and its error escaped as an internal error.
    head = 'game "T" { players 2; round: p }\nzone d\nphase p { end game }\nresult { }\n'
    for decl, line, col in (("var v: int = none - 1", 5, 14), ("player { s: int = none - 1 }", 5, 19)):
        path = tmp_path / "default.rules"
        path.write_text(head + decl + "\n")
        with pytest.raises(RulesError) as info:
            rulelang.load(str(path)).new_match(players=2, seed=1)
        text = str(info.value)
        assert f"default.rules:{line}:{col}:" in text and '"-" works on numbers, but got none and 1' in text


def test_a_title_with_a_control_character_loads_and_plays():
    """Found by the long fuzz run: a NUL in the game's title reached the generated code's file name."""
    text = 'game "E\x00ights\x07" {\n  players 2\n  round: play\n}\nphase play {\n  end game\n}\nresult {\n  win players\n}\n'
    game = rulelang.load("title.rules", text=text)
    match = game.new_match(players=2, seed=1)
    assert match.is_over and match.result["winners"] == [1, 2]


SHARES = """
game "Shares" { players 2  turn order clockwise  round: play }
var n: int = 0
phase play {
  take turns from player(1) {
    choose k from 1..2 as "Pick a number"
    let share = k / n  log "{k} shared: {share}"
  }
}
"""


def test_a_rules_error_in_a_worker_process_reaches_the_designer_whole(tmp_path):
    """`simulate --jobs 2` plays in worker processes: a rule that fails there is reported as in one
    process (file:line:col, the source line, the caret), not as a broken process pool. An error is
    made again from its diagnostics when it crosses to the parent (here its source line holds
    braces, which broke the parent when it was made again from its text)."""
    import pickle

    from rulelang.core.budgets import BudgetExceeded
    from rulelang.core.errors import Diagnostic, RulesRuntimeError, Span
    from rulelang.engine.program import RuleError

    span = Span(file="x.rules", line=3, column=5)
    for error in (RulesRuntimeError(Diagnostic(span, "a {brace} here", hint="try {this}")),
                  RuleError(span, "no {value}"), BudgetExceeded(span, "steps", "too many {steps}", 10)):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)
        assert again.__dict__ == error.__dict__
    path = tmp_path / "shares.rules"
    path.write_text(SHARES)
    proc = rulelang_cmd("simulate", str(path), "-n", "4", "--jobs", "2", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "shares.rules:7:17: error: division by zero" in proc.stderr
    assert 'let share = k / n  log "{k} shared: {share}"' in proc.stderr and "^^^^^" in proc.stderr


NESTED_HEAD = 'game "Deep" { players 2 round: play }\nvar v: int = 0\n'
NESTED = {  # a construct nested n times, in a game that works its value out and ends
    "sum of terms": lambda n: NESTED_HEAD + "def x = " + " + ".join(["1"] * n) + "\nphase play { v = x end game }\n",
    "quantifier in quantifier": lambda n: NESTED_HEAD + "def x = " + "any(k in [1] where " * n + "true" + ")" * n
    + "\nphase play { if x { v = 1 } end game }\n",
    "list in list": lambda n: NESTED_HEAD + "def x = " + "[" * n + "1" + "]" * n + "\nphase play { v = count(x) end game }\n",
    "if in if": lambda n: NESTED_HEAD + "phase play {\n" + "if v >= 0 {\n" * n + "v += 1\n" + "}\n" * n + "end game\n}\n",
    "loop in a continuous rule": lambda n: NESTED_HEAD + "always {\n" + "for each k in [1] {\n" * n + "v = 1\n"
    + "}\n" * n + "}\nphase play { end game }\n",
}


NESTED_VALUE = {  # what each game leaves in v, for n levels
    "sum of terms": lambda n: n, "quantifier in quantifier": lambda n: 1, "list in list": lambda n: 1,
    "if in if": lambda n: 1, "loop in a continuous rule": lambda n: 1,
}


def _deepest_accepted(make) -> int:
    """The largest n whose text the parser accepts (parser.MAX_NESTING levels of its rules)."""
    from rulelang.language import parser

    lo, hi = 1, 2 * parser.MAX_NESTING
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if parser._too_deep(parser._lark().parse(make(mid))) is None:
            lo = mid
        else:
            hi = mid - 1
    return lo


@pytest.mark.parametrize("kind", list(NESTED))
def test_rules_nested_as_deeply_as_the_parser_allows_play_and_one_level_more_is_refused(kind, tmp_path, monkeypatch):
    """Every stage works at the deepest nesting the parser reads (parser.MAX_NESTING): the AST cache
    (too deep to pickle: parsed each time instead), the checker, the code generator (it writes a part
    nested deeper than Python compiles as a function of its own) and the game, with the value it
    should work out, loaded anew and again from the caches. One level deeper is a diagnostic at the
    construct, never a crash."""
    make = NESTED[kind]
    n = _deepest_accepted(make)
    path = tmp_path / "deep.rules"
    path.write_text(make(n))
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    outcomes = []
    for _load in range(2):  # the second load reads the caches
        game = rulelang.load(path)
        assert game.program.generated is not None
        match = game.new_match(seed=1)
        while not match.is_over:
            match.apply(0)
        outcomes.append((match.s.globals["v"], match.s.decisions))
    assert outcomes == [(NESTED_VALUE[kind](n), 0)] * 2
    path.write_text(make(n + 1))
    with pytest.raises(RulesError) as caught:
        rulelang.load(path)
    assert "nested too deeply" in str(caught.value) and "deep.rules:" in str(caught.value)
    code, out, err = run_main("check", str(path), cwd=tmp_path)
    assert code == 1 and "nested too deeply" in err and "internal error" not in err


def test_a_saved_match_that_cannot_be_read_is_a_rules_error():
    """Game.match_from_json of text that is not JSON, of JSON nested deeper than Python reads, and of
    a state whose values nest that deep: a RulesError that says so, never a RecursionError."""
    game = rulelang.load("tictactoe")
    for text, words in (("nope", "is not JSON that can be read (JSONDecodeError"),
                        ("[" * 100_000 + "]" * 100_000, "is not JSON that can be read (RecursionError")):
        with pytest.raises(RulesError) as caught:
            game.match_from_json(text)
        assert words in str(caught.value)
    data = game.new_match().to_json()
    deep = 1
    for _ in range(100_000):
        deep = {"$c": [deep]}
    data["globals"] = {"deep": deep}
    with pytest.raises(RulesError) as caught:
        game.match_from_json(data)
    assert "this saved match is damaged and cannot be read (RecursionError" in str(caught.value)


def test_a_pipe_or_a_device_is_refused_without_being_read(tmp_path):
    """A named pipe waits for a writer and /dev/zero never ends: given as a rules file (check, docs,
    simulate), a data file, a replay or a save, each is refused with its name before anything reads
    it, instead of hanging."""
    from rulelang.table.server import Table

    fifo = str(tmp_path / "pipe.rules")
    os.mkfifo(fifo)
    for target in (fifo, "/dev/zero"):
        for args in (("check", target), ("docs", target), ("simulate", target, "-n", "3", "--jobs", "1")):
            code, out, err = run_main(*args, cwd=tmp_path)
            assert code == 1, (args, err)
            assert f"{target}:1:1: error: this is not a file of text but a device, a pipe or a socket" in err
    code, out, err = run_main("replay", fifo, cwd=tmp_path)
    assert (code, err.strip()) == (2, f"rulelang: {fifo} is not a replay file (it is not a file of text); replay "
                                      "files are written by `rulelang replay --record`")
    table = Table(rulelang.load("tictactoe"), ["human", "human"], seed=0, bot_delay=0, saves=tmp_path)
    with pytest.raises(ValueError, match="is not a saved match \\(it is not a file of text\\)"):
        table.load_file(fifo)
    (tmp_path / "table.rules").write_text('game "T" { players 2 round: play }\ntable things from "pipe.rules"\n'
                                          "phase play { end game }\n")
    code, out, err = run_main("check", "table.rules", cwd=tmp_path)
    assert code == 1 and 'table "things": the data file pipe.rules is not a file of text' in err
    (tmp_path / "position.rules").write_text('scenario "from a pipe" {\n  game "tictactoe"\n  players 2\n'
                                             '  position from "pipe.rules"\n  expect count(grid) == 0\n}\n')
    code, out, err = run_main("test", "position.rules", cwd=tmp_path)
    assert code == 1 and 'the position file "pipe.rules" cannot be used: it is not a file of text' in out + err


def test_a_number_beyond_the_bound_in_a_long_deck_is_refused_at_its_line(tmp_path):
    """A long `cards` block is read line by line without the parser (fastcards); a line holding a
    number of 19 digits or more goes to the parser, which refuses a number beyond ±10^18 where it
    is written, as anywhere else."""
    lines = ['game "T" { players 2 round: play }', "component C { n: int }", "zone deck", "cards many in deck {"]
    lines += [f"  C(n: {i})" for i in range(200)] + ["  C(n: 99999999999999999999)", "}", "phase play { end game }"]
    path = tmp_path / "deck.rules"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RulesError) as caught:
        rulelang.load(path)
    d = caught.value.diagnostics[0]
    assert (d.span.line, d.span.column) == (205, 8)
    assert d.message == "this number is beyond ±1,000,000,000,000,000,000: the numbers of a game stay smaller"
    path.write_text("\n".join(lines).replace("99999999999999999999", "1000000000000000000") + "\n")
    assert rulelang.load(path).new_match().s.entities[-1].attrs["n"] == 10**18  # the bound itself is a number


@pytest.mark.parametrize("expr, message", [
    # Python repeats a tuple: a direction times a billion filled the memory until the process was killed
    ("d * 1000000000", '"*" cannot multiply a cell or a direction ((1, 0) * 1000000000)'),
    ("3 * d", '"*" cannot multiply a cell or a direction (3 * (1, 0))'),
    ("d + e", '"+" cannot add cells or directions ((1, 0) + (0, 1))'),
])
def test_a_cell_is_not_repeated_or_joined_by_arithmetic(expr, message, tmp_path):
    """A cell or direction times a number, or two added, is an error at its line that says how to
    write what was meant: it was Python's repetition (a tuple of two billion numbers, memory
    exhausted) or a joined tuple of four numbers that no board has."""
    path = tmp_path / "cells.rules"
    path.write_text('game "Cells" { players 2  round: play }\n'
                    "phase play {\n  let d = (1, 0)\n  let e = (0, 1)\n"
                    f"  let f = {expr}\n  end game\n}}\n", encoding="utf-8")
    game = rulelang.load(path)
    with pytest.raises(RulesError) as info:
        game.new_match(seed=1)
    assert f"cells.rules:5:11: error: {message}" in str(info.value)


@pytest.mark.parametrize("python_error, plain", [
    (AttributeError("'Player' object has no attribute 'cells'"), "a player is not a board"),
    (AttributeError("'NoneType' object has no attribute 'attrs'"), "none is not a card or a player"),
    (AttributeError("'int' object has no attribute 'label'"), 'a number has no "label"'),
    (TypeError("'<' not supported between instances of 'int' and 'str'"), "a number and a text cannot be compared with <"),
    (TypeError("unsupported operand type(s) for +: 'int' and 'NoneType'"), "+ does not apply to a number and none"),
    (TypeError("'int' object is not iterable"), "a number is not a list"),
    (TypeError("object of type 'Player' has no len()"), "a player has no length (it is not a list)"),
    (TypeError("unhashable type: 'list'"), "a list cannot be a cell or a key"),
    (ValueError("something else\nsecond line"), "something else"),
])
def test_a_built_in_failing_inside_says_so_in_the_rules_words(python_error, plain):
    """A built-in that fails on values it cannot use ("at() could not use these values: ...") says
    why in the rules' terms, never with Python's names of its types."""
    from rulelang.engine.values import _plain

    assert _plain(python_error) == plain


@pytest.mark.parametrize("expr, message", [
    ("roll(0)", "roll() needs dice of at least 1 side, but was given dice of 0"),
    ("roll(-2, 6)", "roll() needs a number of dice that is 0 or more, but was given -2"),
])
def test_dice_without_sides_or_a_negative_number_of_dice_say_so(expr, message, tmp_path):
    """`roll(0)` said Python's own words ("empty range for randrange()"), and `roll(-2, 6)` gave 0."""
    path = tmp_path / "dice.rules"
    path.write_text(f'game "Dice" {{ players 2  round: play }}\nphase play {{\n  let d = {expr}\n  end game\n}}\n',
                    encoding="utf-8")
    with pytest.raises(RulesError) as info:
        rulelang.load(path).new_match(seed=1)
    assert f"dice.rules:3:11: error: {message}" in str(info.value)
