"""The `rulelang` command: check, simulate, test and play.

Starting Python is slow on a busy machine, so each command runs once as a real process
(exit code, stdout, stderr) and its other cases run in-process through
``rulelang.cli.main.main`` (same code, same output).
"""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys

import pytest

from conftest import REPO, assert_plain_words
from rulelang.cli.main import main


def rulelang(*args, input: str | None = None, cwd=REPO, timeout: float = 300):
    """`rulelang ARGS` as a real process."""
    return subprocess.run([sys.executable, "-m", "rulelang.cli.main", *map(str, args)], cwd=cwd, input=input,
                          capture_output=True, text=True, timeout=timeout)


def run_main(*args, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    """`rulelang ARGS` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ check


def test_check_clean_files_exit_zero(repo_cwd):
    code, out, err = run_main("check", "examples/tictactoe.rules", "examples/eights.rules")
    assert code == 0, err
    assert "examples/tictactoe.rules: ok (variants: none)" in out
    assert "examples/eights.rules: ok (variants: quick)" in out
    assert err == ""


def test_the_check_program_pauses_the_cycle_collector_but_main_in_a_test_does_not(repo_cwd):
    """`rulelang check` ends in a moment: the program turns the collector off for it (it would scan
    the growing AST again and again); main() called in a process that goes on keeps it on."""
    import gc

    assert gc.isenabled()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", "examples/tictactoe.rules"]) == 0
    assert gc.isenabled()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["check", "examples/tictactoe.rules"], program=True) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
    with contextlib.redirect_stdout(io.StringIO()):  # other commands keep it on
        main(["docs", "examples/tictactoe.rules", "-o", "/dev/null"], program=True)
    assert gc.isenabled()


def test_check_errors_exit_non_zero_and_every_file_is_checked():
    proc = rulelang("check", "tests/bad/check_undefined_name.rules", "examples/tictactoe.rules",
                    "tests/bad/syntax_unclosed_paren.rules")
    assert proc.returncode == 1
    assert "examples/tictactoe.rules: ok" in proc.stdout
    assert "tests/bad/check_undefined_name.rules:11:21: error: " in proc.stderr
    assert "tests/bad/syntax_unclosed_paren.rules:10:11: error: unclosed parenthesis" in proc.stderr
    assert "tests/bad/check_undefined_name.rules: 1 error" in proc.stderr
    assert_plain_words(proc.stderr)


def test_check_a_missing_file(repo_cwd):
    code, out, err = run_main("check", "no/such/game.rules")
    assert code != 0
    assert "cannot read" in err or "no/such/game.rules" in err
    assert "Traceback" not in err


def _argparse_error(*args) -> str:
    """argparse's one-line error for a command line (it exits with 2 before any work)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stopped:
        main([str(a) for a in args])
    assert stopped.value.code == 2
    return err.getvalue().strip().splitlines()[-1]


def test_counts_and_times_that_mean_nothing_are_refused_where_they_are_read(repo_cwd):
    """`-n -5` used to print an empty summary and `--jobs 0` to run in one process without a word: a
    count or a time that means nothing is refused with the option's name."""
    assert _argparse_error("simulate", "examples/tictactoe.rules", "-n", "-5") == \
        "rulelang simulate: error: argument -n: takes a whole number of at least 1, not -5"
    assert _argparse_error("simulate", "examples/tictactoe.rules", "--jobs", "0") == \
        "rulelang simulate: error: argument --jobs: takes a whole number of at least 1, not 0"
    assert _argparse_error("compare", "examples/tictactoe.rules", "-n", "lots") == \
        "rulelang compare: error: argument -n: takes a whole number, not 'lots'"
    assert _argparse_error("sweep", "examples/tictactoe.rules", "--jobs", "-1").endswith("at least 1, not -1")
    assert _argparse_error("bench", "--seconds", "0") == \
        "rulelang bench: error: argument --seconds: takes a number of seconds above 0, not 0"
    assert _argparse_error("bench", "--seconds", "nan").endswith("above 0, not nan")


def test_render_refuses_a_field_no_card_has_before_playing(tmp_path, repo_cwd):
    """`render --mark FIELD` puts a dot on the cards whose FIELD is true: a field no component has
    (a typo) is refused, with a suggestion, before the game is played; `--after` is a count."""
    out = tmp_path / "board.png"
    code, _, err = run_main("render", "ecogon", "-o", out, "--mark", "establishd")
    assert code == 2 and not out.exists()
    assert err.strip() == ('rulelang: --mark names a field of the cards, and no component of Ecogon has "establishd"; '
                           'did you mean "established"?')
    code, _, err = run_main("render", "ecogon", "-o", out, "--mark", "zzz")
    assert code == 2 and "the fields are: colour, dots, effect, established" in err
    assert _argparse_error("render", "ecogon", "-o", out, "--after", "-3") == \
        "rulelang render: error: argument --after: takes a whole number of at least 0, not -3"


def test_files_that_cannot_be_read_or_written_are_named_in_plain_words(tmp_path, repo_cwd):
    """A replay file that is not one (not JSON, not UTF-8, another JSON, a game cut short) and a path
    that cannot be read or written get one line naming the file and what is wrong: never an
    internal error."""
    cases = {"passwd.json": "root:x:0:0\n", "list.json": "[1, 2]", "other.json": '{"a": 1}',
             "binary.json": b"\xff\xfe", "deep.json": "[" * 100_000 + "]" * 100_000, "cut.json": '{"game": "g", "variants": [], "players": 2, "games": [{"seed": 1}]}'}
    expected = {"passwd.json": "it is not JSON: Expecting value at line 1 column 1",
                "list.json": "it holds no JSON object", "other.json": '"game" is missing or not a text',
                "binary.json": "it is not UTF-8 text", "deep.json": "its JSON is nested too deeply", "cut.json": 'a game lacks its "seed", "choices", "digests" or "asked"'}
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
        for args in (("replay", path), ("replay", "--check", path)):
            code, out, err = run_main(*args)
            assert code == 2, (args, err)
            assert err.strip() == (f"rulelang: {path} is not a replay file ({expected[name]}); replay files are "
                                   "written by `rulelang replay --record`"), err
    code, out, err = run_main("replay", tmp_path / "missing.json")
    assert (code, err.strip()) == (2, f"rulelang: {tmp_path / 'missing.json'}: no such file or directory")
    # a file to write in a folder that is not there, or a folder given as the file: refused before the work
    assert _argparse_error("render", "examples/tictactoe.rules", "--out", tmp_path / "no" / "x.png") == \
        f"rulelang render: error: argument -o/--out: the folder {tmp_path / 'no'} does not exist (make it first)"
    assert _argparse_error("simulate", "examples/tictactoe.rules", "--out", tmp_path) == \
        f"rulelang simulate: error: argument --out: {tmp_path} is a folder: name a file to write in it"
    (tmp_path / "a-file").write_text("x")
    assert _argparse_error("sweep", "examples/tictactoe.rules", "--out", tmp_path / "a-file") == \
        f"rulelang sweep: error: argument --out: {tmp_path / 'a-file'} is a file, not a folder"
    for command in ("simulate", "compare", "sweep"):
        assert _argparse_error(command, "examples/tictactoe.rules", "--plot", tmp_path / "a-file") == \
            f"rulelang {command}: error: argument --plot: {tmp_path / 'a-file'} is a file, not a folder"


def test_texts_of_the_rules_file_are_printed_as_written(tmp_path, repo_cwd):
    """A title (or any text of the rules file) holding brackets is printed as it is written: the
    terminal's markup never reads it ("[/b]" made simulate, compare, tournament, sweep and play stop
    with an internal error; "[red]" vanished)."""
    title = "Tic [/b] tac [red] & co"
    path = tmp_path / "brackets.rules"
    path.write_text((REPO / "examples" / "tictactoe.rules").read_text(encoding="utf-8")
                    .replace('game "Tic-tac-toe"', f'game "{title}"'))
    for args in (("simulate", path, "-n", "3", "--quiet"), ("compare", path, "-n", "3", "--quiet"),
                 ("tournament", path, "--bots", "random,greedy", "-n", "2", "--quiet"),
                 ("sweep", path, "-n", "3", "--quiet", "--out", tmp_path / "sweep")):
        code, out, err = run_main(*args)
        assert code == 0 and "internal error" not in err, (args, err)
        assert title in out, (args, out)


def test_a_table_that_cannot_listen_says_why_before_showing_its_links(repo_cwd):
    """`rulelang serve` binds its address before it shows the secret links (links to a table that is
    not there help nobody): a port out of range, a name that is no address and a port already taken
    each get one line."""
    import socket

    assert _argparse_error("serve", "tictactoe", "--port", "99999") == \
        "rulelang serve: error: argument --port: takes a port from 0 to 65535, not 99999"
    code, out, err = run_main("serve", "tictactoe", "--host", "256.1.1.1")
    assert code == 2 and out == "", out
    assert err.startswith("rulelang: the table cannot listen on 256.1.1.1 port 8000: "), err
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        code, out, err = run_main("serve", "tictactoe", "--port", port)
        assert (code, out) == (2, "")
        assert err.strip() == f"rulelang: the table cannot listen on 127.0.0.1 port {port}: address already in use"
    finally:
        taken.close()


# ------------------------------------------------------------------ simulate


def test_simulate_shows_its_progress_bar_and_summary():
    """Without --quiet, simulate draws a progress bar (rich uses the console as a context manager)."""
    proc = rulelang("simulate", "examples/tictactoe.rules", "-n", 2, "--jobs", 1)
    assert proc.returncode == 0, proc.stderr
    assert "2 games" in proc.stdout and "internal error" not in proc.stderr


def test_simulate_writes_results(tmp_path):
    out = tmp_path / "x.json"
    proc = rulelang("simulate", "examples/eights.rules", "-n", 5, "--quiet", "--out", out, "--seed", 3)
    assert proc.returncode == 0, proc.stderr
    assert "5 games" in proc.stdout
    assert f"results written to {out}" in proc.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["game"] == "Eights" and data["games"] == 5
    games = data["results"]
    assert len(games) == 5
    assert [g["seed"] for g in games] == [3, 4, 5, 6, 7]
    assert all(isinstance(g["winners"], list) and g["rounds"] >= 1 for g in games)


def test_simulate_same_seed_same_results(tmp_path, repo_cwd):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for out in (a, b):
        code, _, err = run_main("simulate", "examples/tictactoe.rules", "-n", 4, "--quiet", "--out", out)
        assert code == 0, err
    strip = lambda path: [(g["seed"], g["winners"], g["rounds"], g["decisions"]) for g in json.loads(path.read_text())["results"]]
    assert strip(a) == strip(b)


# ------------------------------------------------------------------ test
SCENARIOS = """
/// "Player 1 plays crosses, player 2 noughts."
scenario "each player starts with five marks" {{
  game "{game}"
  players 2
  run setup
  expect count(supply(player(1))) == 5
  expect count(supply(player(2))) == 5
}}
"""
FAILING = """
/// A deliberately wrong expectation.
scenario "a wrong count" {{
  game "{game}"
  players 2
  run setup
  expect count(supply(player(1))) == 5
  expect count(supply(player(2))) == 4
}}
"""


def test_test_command_passing_scenario(tmp_path):
    path = tmp_path / "pass.rules"
    path.write_text(SCENARIOS.format(game=REPO / "examples" / "tictactoe.rules"), encoding="utf-8")
    code, out, err = run_main("test", path)
    assert code == 0, out + err
    assert "1 passed, 0 failed" in out


def test_test_command_failing_scenario_names_the_line(tmp_path):
    path = tmp_path / "fail.rules"
    text = SCENARIOS + FAILING
    path.write_text(text.format(game=REPO / "examples" / "tictactoe.rules"), encoding="utf-8")
    failing_line = text.splitlines().index("  expect count(supply(player(2))) == 4") + 1
    proc = rulelang("test", path)
    assert proc.returncode == 1
    assert f"FAIL {path}:{failing_line}:3: a wrong count" in proc.stdout
    assert "left side is 5, right side is 4" in proc.stdout
    assert "1 passed, 1 failed" in proc.stdout


def test_test_command_with_nothing_to_run_fails(tmp_path):
    code, out, _ = run_main("test", tmp_path)
    assert code != 0
    assert "0 passed, 0 failed" in out


# ------------------------------------------------------------------ play


def test_play_tictactoe_through_stdin():
    proc = rulelang("play", "examples/tictactoe.rules", "--seed", 1, input="1\n" * 20, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Where do you mark?" in proc.stdout
    assert "Game over" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_play_says_how_the_game_ended_in_words(tmp_path):
    """One round is "1 round", not "1 rounds"; several winners are all named."""
    path = tmp_path / "both.rules"
    path.write_text('game "Both" { players 2 round: play }\n'
                    'phase play { win players\n end game }\n', encoding="utf-8")
    proc = rulelang("play", path, "--seats", "random,random", timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Game over after 1 round, Player 1 and Player 2 won." in proc.stdout


def test_play_a_one_player_game_seats_the_person_alone(tmp_path, monkeypatch):
    """Without --seats, `play` seats a person and random bots in the others: none for a solitaire."""
    path = tmp_path / "solo.rules"
    path.write_text('game "Solo" { players 1; round: a; max rounds 2 }\nzone pile\nvar n: int = 0\n'
                    'phase a { take turns once { choose k from [1, 2] as "Add how many?"; n += k } }\n'
                    'result { if n >= 3 { win players } }\n',
                    encoding="utf-8")
    code, out, err = run_main("play", path, "--seed", 1, stdin="2\n2\n", monkeypatch=monkeypatch)
    assert code == 0, out + err
    assert "Add how many?" in out and "Game over" in out
    assert "seats" not in err


def test_play_stops_cleanly_when_input_ends(repo_cwd, monkeypatch):
    code, out, err = run_main("play", "examples/eights.rules", "--seed", 1, "--players", 2, stdin="1\n",
                              monkeypatch=monkeypatch)
    assert code == 1
    assert "no more input" in out
    assert "Traceback" not in err


def test_play_asks_again_after_a_wrong_answer(repo_cwd, monkeypatch):
    code, out, _ = run_main("play", "examples/tictactoe.rules", "--seed", 2, stdin="99\nx\n" + "1\n" * 10,
                            monkeypatch=monkeypatch)
    assert code == 0
    assert "type a number from 1 to 9" in out
    assert "Game over" in out


def test_play_never_shows_a_human_the_bots_secret_cards():
    """Players see only what they may see: bots' kept missions are not printed to the human."""
    import re
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "rulelang", "play", "games/zemico.rules", "--seed", "2",
                          "--seats", "human,random,random,random"], input="1\n" * 40, capture_output=True,
                         text=True, timeout=120, cwd=REPO).stdout
    offer = out.split("Keep which mission?")[1].split(">")[0]
    mine = set(re.findall(r"mission \d+:", offer))
    assert len(mine) == 3
    assert set(re.findall(r"mission \d+:", out)) == mine
    # the bot's kept mission, told as the human saw it when it was kept: neither named nor placed
    assert "Player 2 (random): a hidden card\n" in out
    assert "hidden card in" not in out


def test_the_program_leaves_its_objects_to_the_system_at_exit(monkeypatch, capsys):
    """`rulelang` (the installed program and `python -m rulelang`) runs main() and then freezes
    what it made, so the interpreter's shutdown does not scan it all once more for cycles (about
    80 ms of a `check` of the largest game). Here in a test process, the freeze is undone after."""
    import gc

    from rulelang.cli import main as cli

    monkeypatch.setattr(sys, "argv", ["rulelang", "check", str(REPO / "examples" / "tictactoe.rules")])
    before, collecting = gc.get_freeze_count(), gc.isenabled()
    try:
        assert cli.command() == 0
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
        if collecting:  # (the program turns the collector off for a short command: not for the tests after)
            gc.enable()
    assert "ok" in capsys.readouterr().out


def test_replay_names_the_seats_and_seeds_a_file_has(repo_cwd):
    """`replay --seat` and `--seed` beyond what the file holds: a line saying what it does hold."""
    code, out, err = run_main("replay", "tests/replays/tictactoe.json", "--seat", 3)
    assert code == 2 and not out
    assert err == "rulelang: --seat 3 is not a seat of tests/replays/tictactoe.json: its players are 1 to 2\n"
    code, out, err = run_main("replay", "tests/replays/tictactoe.json", "--seed", 999)
    assert code == 2 and not out
    assert err == "rulelang: tests/replays/tictactoe.json has no game with seed 999: its seeds are 1, 2\n"


def test_a_bot_name_that_is_no_bot_is_said_before_any_game_is_played(repo_cwd, monkeypatch):
    """simulate and render seat only bots: "human" is told where people play, and a misspelt name
    gets the list of bots, before the progress bar starts; play and serve list "human" too."""
    code, out, err = run_main("simulate", "examples/tictactoe.rules", "--agents", "human", monkeypatch=monkeypatch)
    assert code != 0 and "simulating" not in out + err
    assert 'a "human" seat plays only at a table (rulelang play or serve)' in err
    code, out, err = run_main("simulate", "examples/tictactoe.rules", "--agents", "random,greedyy", monkeypatch=monkeypatch)
    assert 'unknown agent "greedyy"; choose one of: random, greedy' in err and "human" not in err
    code, out, err = run_main("play", "examples/tictactoe.rules", "--seats", "humna", monkeypatch=monkeypatch)
    assert err.strip().endswith("mcts, ismcts, human"), err
