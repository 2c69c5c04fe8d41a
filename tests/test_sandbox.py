"""Sandboxing: a rules file cannot read or write files, import modules, reach Python attributes or
run code. Each path is tried here; every one ends in a rules diagnostic (docs/safety.md)."""
from __future__ import annotations

import pytest

import rulelang
from rulelang.model.builtins import BUILTINS
from rulelang.core.errors import RulesError

HEAD = ('game "Box" { players 2; round: a; max rounds 1 }\ncomponent C { n: int; label "{n}" }\nzone pile\n'
        "cards cs in pile { C(n: 1) }\nvar note: str\n")


def run(body: str, head: str = HEAD):
    game = rulelang.load("box.rules", text=head + f"phase a {{ {body} }}\n")
    match = game.new_match(seed=1)
    return match


def refused(body: str, *words: str, head: str = HEAD) -> str:
    with pytest.raises(RulesError) as info:
        run(body, head)
    text = info.value.format()
    assert "box.rules:" in text, text
    assert "Traceback" not in text and "internal error" not in text
    for w in words:
        assert w in text, text
    return text


@pytest.mark.parametrize("body", [
    'note = "{c.__class__}"',
    'for each c in pile { note = "{c.__class__}" }',
    'for each c in pile { note = "{c.__dict__}" }',
    'for each c in pile { log "{c.__class__.__mro__}" }',
])
def test_texts_cannot_show_python_attributes(body):
    text = refused(body)
    assert "<class" not in text and "rulelang." not in text


@pytest.mark.parametrize("body", [
    "for each c in pile { let d = c.__dict__ }",
    "let m = __import__",
    'let f = __builtins__',
    "let __class__ = 1",
    "for each c in pile { let t = c.__class__ }",
])
def test_dunder_names_are_refused(body):
    refused(body, "two underscores")


@pytest.mark.parametrize("body", [
    "for each c in pile { let d = c.attrs }",
    "for each c in pile { let d = c.card }",
    "for each p in players { let d = p.attrs }",
    "let d = pile.items",
    "let d = pile.cells",
])
def test_only_declared_fields_can_be_read(body):
    refused(body)


@pytest.mark.parametrize("call", [
    'open("/etc/passwd")', 'eval("1 + 1")', 'exec("x = 1")', 'compile("1", "f", "eval")', "globals()",
    "getattr(current, \"attrs\")", "vars(current)", 'print("x")', "input()", "type(current)", "dir()",
])
def test_no_python_functions(call):
    assert call.split("(")[0] not in BUILTINS
    refused(f"let x = {call}")


@pytest.mark.parametrize("text", [
    "import os\n", "from os import system\n", 'game "X" { players 2 }\nphase a { import os }\n',
    'game "X" { players 2 }\nphase a { os.system("true") }\n',
])
def test_no_imports_and_no_code(text):
    with pytest.raises(RulesError) as info:
        rulelang.load("box.rules", text=text)
    assert "box.rules:" in info.value.format()


def test_the_language_has_no_file_or_system_built_in():
    words = " ".join(f"{name} {b.doc}" for name, b in BUILTINS.items()).lower()
    for word in ("file", "open(", "write", "import", "system", "socket", "exec", "eval"):
        assert word not in words, word


def test_log_and_texts_only_describe_values():
    match = run('for each c in pile { note = "card {c} in {pile} of {current}" }')
    assert match.s.globals["note"] == "card 1 in pile of none"


# ---------------------------------------------------------------- files a rules file may read
# A rules file reads data files (`table NAME from "FILE"`) only inside its own folder's tree, symlinks
# followed; a scenario's `position from "FILE"` likewise inside the scenario's folder. A refused file is
# named as written and nothing of it is quoted.

SECRET = "user:x:0:0:secret-line\n"


def outside_and_inside(tmp_path):
    """A game folder `game/` with a data file inside, and a secret file beside the folder (outside it)."""
    folder = tmp_path / "game"
    (folder / "maps").mkdir(parents=True)
    (folder / "maps" / "ok.csv").write_text("n, name\n1, one\n2, two\n")
    (tmp_path / "secret.csv").write_text(SECRET)
    return folder


def table_game(folder, source: str):
    path = folder / "t.rules"
    path.write_text('game "T" { players 2; round: a; max rounds 1 }\n'
                    f'table rows from "{source}"\n'
                    'phase a { for each r in rows { log "{r}" } }\n')
    return path


def refused_table(folder, source: str, *words: str) -> str:
    with pytest.raises(RulesError) as info:
        rulelang.load(table_game(folder, source))
    text = info.value.format()
    assert "t.rules:2:" in text and "Traceback" not in text and "internal error" not in text, text
    assert "x:0:0" not in text and "secret-line" not in text, text  # nothing of the target is quoted
    for w in words:
        assert w in text, text
    return text


@pytest.mark.parametrize("source, words", [
    ("/etc/passwd", ("absolute path",)),
    ("/dev/zero", ("absolute path",)),
    ("../secret.csv", ("outside",)),
    ("maps/../../secret.csv", ("outside",)),
    ("../../../../../../../etc/hostname", ("outside",)),
])
def test_a_table_outside_the_rules_file_s_folder_is_refused(tmp_path, source, words):
    refused_table(outside_and_inside(tmp_path), source, *words)


def test_a_symlink_pointing_out_of_the_folder_is_refused(tmp_path):
    folder = outside_and_inside(tmp_path)
    (folder / "maps" / "link.csv").symlink_to(tmp_path / "secret.csv")
    (folder / "up").symlink_to(tmp_path, target_is_directory=True)
    refused_table(folder, "maps/link.csv", "outside")
    refused_table(folder, "up/secret.csv", "outside")


def test_a_symlink_inside_the_folder_is_read(tmp_path):
    folder = outside_and_inside(tmp_path)
    (folder / "alias.csv").symlink_to(folder / "maps" / "ok.csv")
    for source in ("alias.csv", "maps/ok.csv", "maps/../maps/ok.csv"):
        match = rulelang.load(table_game(folder, source)).new_match(seed=1)
        assert match.is_over and "two" in " ".join(map(str, match.s.log)), match.s.log


def test_folders_pipes_and_devices_inside_are_refused_without_reading_them(tmp_path):
    import os

    folder = outside_and_inside(tmp_path)
    os.mkfifo(folder / "pipe.csv")  # reading it would wait for a writer for ever
    (folder / "zero.csv").symlink_to("/dev/zero")  # points outside: refused before it is opened
    refused_table(folder, "pipe.csv", "not a file of text")
    refused_table(folder, "maps", "not a file of text")
    refused_table(folder, ".", "not a file of text")
    refused_table(folder, "zero.csv", "outside")


def test_a_data_file_is_read_within_the_source_bytes_budget(tmp_path):
    folder = outside_and_inside(tmp_path)
    (folder / "big.csv").write_text("n\n" + "1\n" * 1000)
    with pytest.raises(RulesError) as info:
        rulelang.load(table_game(folder, "big.csv"), budgets={"source_bytes": 1000})
    assert "larger than 1,000 bytes (budget source_bytes)" in info.value.format()


def test_a_scenario_reads_positions_only_inside_its_folder(tmp_path):
    from rulelang.tools.scenario import run_file

    folder = tmp_path / "scenarios"
    folder.mkdir()
    (tmp_path / "position.json").write_text('{"zones": {}}')
    (folder / "link.json").symlink_to(tmp_path / "position.json")
    for source, words in [("../position.json", "outside"), ("/etc/passwd", "absolute path"),
                          ("link.json", "outside"), ("/dev/zero", "absolute path")]:
        path = folder / "s.rules"
        path.write_text(f'scenario "escape" {{\n  game "tictactoe"\n  players 2\n  position from "{source}"\n'
                        "  expect count(grid) == 0\n}\n")
        [result] = run_file(path)
        assert not result.passed
        assert words in result.message and "x:0:0" not in result.message, result.message
        assert (result.failed_at or result.span).line == 4
