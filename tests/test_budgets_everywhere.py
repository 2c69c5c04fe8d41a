"""Budgets hold before work is done, in every command alike.

A rules file as large as the source_bytes budget allows may hold anything: one text of nineteen
megabytes, twenty megabytes of comments. `check` and `simulate` each answer such a file within
5 seconds and 1 GiB (measured on a process of their own: its wall time, and its peak memory as the
operating system counts it): a file over source_bytes is refused before it is read whole, a text
longer than list_size is refused at its line and column before the rest is parsed, and a file of
comments loads as the small game it is. The other commands (`play`, `serve`, `test`, the language
server, `rulelang.load`) read a file the same way and refuse it with the same diagnostic (checked
cheaply, with a budget lowered for the test). The big files are written at test time.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys

import pytest

import rulelang
from rulelang.core.budgets import Budgets, using
from rulelang.cli.main import main
from rulelang.core.errors import RulesError

from conftest import assert_plain_words

SOURCE_BYTES = Budgets().source_bytes
HEAD = 'game "Long" { players 2; round: a; max rounds 2 }\n'
TAIL = 'phase a { log "x" }\n'
SECONDS, PEAK = 5.0, 1 << 30

# Runs a command in a child process and says how it went: its exit code, what it wrote, its wall
# time and its peak resident memory (RUSAGE_CHILDREN of this wrapper: only that command's).
MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(json.dumps({"code": done.returncode, "out": done.stdout[-5000:], "err": done.stderr[-5000:],
                  "seconds": seconds, "peak": peak}))
"""


def measured(tmp_path, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("RULELANG_BUDGETS", "RULELANG_CACHE")}
    env["RULELANG_CACHE_DIR"] = str(tmp_path / "cache")  # nothing kept from before: a first reading
    done = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "rulelang", *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def one_text(path, size: int):
    """A game whose second line holds one text, the file `size` bytes long."""
    head = HEAD + 'var t: str = "'
    tail = '"\n' + TAIL
    path.write_text(head + "x" * (size - len(head) - len(tail)) + tail, encoding="utf-8")
    return path


def dense(path, size: int):
    """A game followed by short definitions, about 6 words and symbols each, the file `size` bytes long:
    millions of tokens, which the parser would take minutes to read."""
    lines, total, i = [HEAD, TAIL], len(HEAD) + len(TAIL), 0
    while total < size - 30:
        line = f"def d{i} = {i} + 1\n"
        lines.append(line)
        total += len(line)
        i += 1
    path.write_text("".join(lines), encoding="utf-8")
    return path


def deck(path, size: int):
    """A game with one deck written out card by card, the file `size` bytes long (about 1.9 million cards)."""
    head = HEAD + "component C { n: int }\nzone pile\ncards deck in pile {\n"
    line, tail = "  C(n: 1)\n", "}\n" + TAIL
    path.write_text(head + line * ((size - len(head) - len(tail)) // len(line)) + tail, encoding="utf-8")
    return path


def comments(path, size: int):
    """A game followed by short comment lines (about 1.5 million of them), the file `size` bytes long."""
    line = "// a comment\n"
    count = (size - len(HEAD) - len(TAIL)) // len(line)
    path.write_text(HEAD + TAIL + line * count, encoding="utf-8")
    return path


COMMANDS = {"check": ["check"], "simulate": ["simulate", "-n", "1", "--quiet"]}


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    files = {"over": one_text(folder / "over.rules", SOURCE_BYTES + 1000),
             "under": one_text(folder / "under.rules", 19_000_000),
             "comments": comments(folder / "comments.rules", SOURCE_BYTES - 1000),
             "dense": dense(folder / "dense.rules", 17_000_000),
             "deck": deck(folder / "deck.rules", 19_000_000)}
    assert files["over"].stat().st_size > SOURCE_BYTES >= files["comments"].stat().st_size
    return files


def within_budgets(run: dict, what: str) -> None:
    assert run["seconds"] < SECONDS, f"{what} took {run['seconds']:.1f} s\n{run['err']}"
    assert run["peak"] < PEAK, f"{what} took {run['peak'] / 2**20:,.0f} MiB\n{run['err']}"
    assert "Traceback" not in run["err"] and "internal error" not in run["err"], run["err"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_over_source_bytes_is_refused_unread(big_files, tmp_path, command):
    run = measured(tmp_path, *COMMANDS[command], str(big_files["over"]))
    within_budgets(run, f"{command} of a file over source_bytes")
    assert run["code"] == 1
    size = big_files["over"].stat().st_size
    assert (f"over.rules:1:1: error: the file is {size:,} bytes, more than the {SOURCE_BYTES:,} bytes a rules "
            "file may have (budget source_bytes)") in run["err"]
    assert f"--budget source_bytes={size}" in run["err"]
    assert '1 | game "Long"' in run["err"]  # its first line quoted, read alone


@pytest.mark.parametrize("command", COMMANDS)
def test_a_text_over_list_size_is_refused_at_its_line(big_files, tmp_path, command):
    run = measured(tmp_path, *COMMANDS[command], str(big_files["under"]))
    within_budgets(run, f"{command} of a file holding a text of 19 million characters")
    assert run["code"] == 1
    length = len(big_files["under"].read_text(encoding="utf-8").split("\n")[1]) - len('var t: str = ""')
    assert (f"under.rules:2:14: error: this text is {length:,} characters long, more than a value of a game may "
            "hold (budget list_size = 1,000,000") in run["err"]
    assert f"--budget list_size={length}" in run["err"]
    quoted = next(line for line in run["err"].splitlines() if line.lstrip().startswith("2 |"))
    assert len(quoted) < 300  # the line of 19 million characters is quoted around its caret only


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_of_comments_loads_as_the_small_game_it_is(big_files, tmp_path, command):
    run = measured(tmp_path, *COMMANDS[command], str(big_files["comments"]))
    within_budgets(run, f"{command} of 20 MB of comments")
    assert run["code"] == 0, run["err"]
    if command == "check":
        assert "comments.rules: ok" in run["out"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_dense_with_tokens_is_refused_before_it_is_parsed(big_files, tmp_path, command):
    """Parsing takes tens of microseconds a token: 17 MB of definitions (about 5 million tokens) would
    take minutes. The source_tokens budget refuses the file where it passes the budget, before the
    parser reads a token."""
    run = measured(tmp_path, *COMMANDS[command], str(big_files["dense"]))
    within_budgets(run, f"{command} of 17 MB of definitions")
    assert run["code"] == 1
    limit = Budgets().source_tokens
    assert (f"error: the file has more than {limit:,} words and symbols for the parser to read (budget "
            f"source_tokens = {limit:,}") in run["err"]
    assert "dense.rules:1:1" not in run["err"] and "--budget source_tokens=" in run["err"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_deck_written_out_beyond_the_cards_budget_is_refused_before_it_is_built(big_files, tmp_path, command):
    """A deck's lines are counted before its cards are made: 1.9 million cards written out are refused
    at the card that passes the cards budget."""
    run = measured(tmp_path, *COMMANDS[command], str(big_files["deck"]))
    within_budgets(run, f"{command} of a deck of 1.9 million cards")
    assert run["code"] == 1
    limit = Budgets().cards
    assert f"deck.rules:{limit + 5}:3: error: this would make more than {limit:,} cards (budget cards" in run["err"]


def test_source_tokens_counts_every_word_and_symbol_but_not_comments(tmp_path, monkeypatch):
    """The count stops at the token that passes the budget, in the file as a whole or declaration by
    declaration (a file the parse cache knows in part), and comments are not counted."""
    path = tmp_path / "g.rules"
    path.write_text(HEAD + "// " + "many words in a comment " * 50 + "\n" + TAIL, encoding="utf-8")
    assert rulelang.load(str(path), budgets={"source_tokens": 20}).title == "Long"  # 14 + 6 tokens
    with pytest.raises(RulesError) as info:
        rulelang.load(str(path), budgets={"source_tokens": 19})
    said = info.value.format()
    assert f"{path}:3:19: error: the file has more than 19 words and symbols" in said  # the last `}`
    assert "--budget source_tokens=" in said
    for cache in ("0", "1"):  # parsed whole, and declaration by declaration (the parse cache)
        monkeypatch.setenv("RULELANG_CACHE", cache)
        code, said = run_main("check", str(path), "--budget", "source_tokens=19")
        assert code == 1 and "3:19: error: the file has more than 19 words and symbols" in said, said


# ------------------------------------------------------------------ every command reads a file alike


def small_over(tmp_path):
    """A file over a source_bytes budget lowered to 1,000 (the test's 20 MB, cheaply)."""
    path = tmp_path / "over.rules"
    path.write_text(HEAD + TAIL + "// padding\n" * 200, encoding="utf-8")
    return path


def refusal(size: int) -> str:
    return f"the file is {size:,} bytes, more than the 1,000 bytes a rules file may have (budget source_bytes)"


def run_main(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize("command", [["check"], ["simulate", "-n", "1", "--quiet"], ["play", "--seats", "random"],
                                     ["test"], ["docs"]])
def test_every_command_refuses_a_file_over_source_bytes(tmp_path, command):
    path = small_over(tmp_path)
    code, said = run_main(command[0], str(path), *command[1:], "--budget", "source_bytes=1000")
    assert code == 1, said
    assert f"{path}:1:1: error: {refusal(path.stat().st_size)}" in said
    assert_plain_words(said)


def test_serve_refuses_a_file_over_source_bytes_before_serving(tmp_path):
    import starlette  # noqa: F401  (the web extra is part of dev)
    path = small_over(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "RULELANG_BUDGETS"}
    done = subprocess.run([sys.executable, "-m", "rulelang", "serve", str(path), "--port", "0", "--budget",
                           "source_bytes=1000"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1
    assert refusal(path.stat().st_size) in done.stderr


def test_load_refuses_a_file_or_a_text_over_source_bytes(tmp_path):
    path = small_over(tmp_path)
    with pytest.raises(RulesError) as info:
        rulelang.load(str(path), budgets={"source_bytes": 1000})
    assert refusal(path.stat().st_size) in info.value.format()
    text = path.read_text(encoding="utf-8")
    with pytest.raises(RulesError) as info:
        rulelang.load("given.rules", text=text, budgets={"source_bytes": 1000})
    assert (f"given.rules:1:1: error: the text is {len(text.encode()):,} bytes, more than the 1,000 bytes a rules "
            "file may have (budget source_bytes)") in info.value.format()
    assert rulelang.load("given.rules", text=text).title == "Long"  # within the default budget


def test_the_language_server_refuses_a_text_over_source_bytes(tmp_path):
    import pygls  # noqa: F401  (the lsp extra is part of dev)
    from rulelang.tools.lsp import Analysis

    text = small_over(tmp_path).read_text(encoding="utf-8")
    with using(Budgets(source_bytes=1000)):
        analysis = Analysis(text, "edited.rules")
    assert [d.message for d in analysis.diagnostics] == [
        f"the text is {len(text.encode()):,} bytes, more than the 1,000 bytes a rules file may have (budget source_bytes)"]
    assert Analysis(text, "edited.rules").diagnostics == []


def test_a_scenario_file_in_json_is_held_to_source_bytes(tmp_path):
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps({"game": "x.rules", "steps": [], "padding": "p" * 2000}), encoding="utf-8")
    code, said = run_main("test", str(path), "--budget", "source_bytes=1000")
    assert code == 1
    assert refusal(path.stat().st_size) in said


# ------------------------------------------------------------------ values written out


def game_with(line: str) -> str:
    return HEAD + line + "\n" + TAIL


def refused(text: str, budgets: dict) -> str:
    with pytest.raises(RulesError) as info:
        rulelang.load("written.rules", text=text, budgets=budgets)
    said = info.value.format()
    assert_plain_words(said)
    return said


def test_a_text_written_out_is_held_to_list_size_where_it_is_written():
    text = game_with('var t: str = "' + "y" * 101 + '"')
    said = refused(text, {"list_size": 100})
    assert "written.rules:2:14: error: this text is 101 characters long, more than a value of a game may hold " \
           "(budget list_size = 100" in said
    assert "--budget list_size=101" in said
    assert rulelang.load("written.rules", text=text, budgets={"list_size": 101}).new_match(seed=1)
    escaped = game_with('var t: str = "' + "\\n" * 60 + '"')  # 120 characters written, a text of 60
    assert rulelang.load("written.rules", text=escaped, budgets={"list_size": 100}).new_match(seed=1)


@pytest.mark.parametrize("items", [101, 1000])  # one over (the parser's count) and far over (counted before it)
def test_a_list_written_out_is_held_to_list_size_where_it_is_written(items):
    text = game_with("var xs: list of int = [" + ", ".join(["1"] * items) + "]")
    said = refused(text, {"list_size": 100})
    assert "written.rules:2:23: error: this list written out has" in said
    assert "more than a value of a game may hold (budget list_size = 100" in said
    exact = game_with("var xs: list of int = [" + ", ".join(["1"] * 100) + "]")
    assert rulelang.load("written.rules", text=exact, budgets={"list_size": 100}).new_match(seed=1)


def test_a_text_parsed_under_a_larger_list_size_is_not_taken_from_the_cache_under_a_smaller(tmp_path, monkeypatch):
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULELANG_CACHE", raising=False)
    path = tmp_path / "long.rules"
    path.write_text(game_with('var t: str = "' + "y" * 500 + '"'), encoding="utf-8")
    assert rulelang.load(str(path), budgets={"list_size": 1000}).title == "Long"  # parsed, and kept
    with pytest.raises(RulesError) as info:
        rulelang.load(str(path), budgets={"list_size": 100})
    assert "this text is 500 characters long" in info.value.format()


def test_a_long_deck_is_held_to_the_cards_budget_as_it_is_read(tmp_path):
    path = tmp_path / "deck.rules"
    path.write_text('game "Deck" { players 2; round: a; max rounds 2 }\ncomponent C { n: int }\nzone pile\n'
                    "cards deck in pile {\n" + "  C(n: 1)\n" * 200 + "}\n" + TAIL, encoding="utf-8")
    code, said = run_main("check", str(path), "--budget", "cards=150")  # (check compiles nothing: read, refused)
    assert code == 1
    assert f"{path}:155:3: error: this would make more than 150 cards (budget cards = 150" in said
    assert run_main("check", str(path))[0] == 0


def test_reading_a_dense_file_is_held_to_the_memory_budget(tmp_path):
    path = tmp_path / "dense.rules"
    path.write_text(HEAD + "".join(f"def f{i} = {i} + {i}\n" for i in range(40_000)) + TAIL, encoding="utf-8")
    run = measured(tmp_path, "check", str(path), "--budget", "memory_mb=20", "--budget", "source_tokens=300000")
    assert run["code"] == 1, run["err"]
    assert "error: reading the rules up to here took" in run["err"]
    assert "(budget memory_mb = 20: MiB of memory a match may take)" in run["err"]
    assert "Traceback" not in run["err"]
