"""Sandboxing: a rules file cannot read or write files, import modules, reach Python attributes or
run code. Each path is tried here; every one ends in a rules diagnostic (docs/safety.md)."""
from __future__ import annotations

import pytest

import rulelang
from rulelang.builtins import BUILTINS
from rulelang.errors import RulesError

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
