"""The walk the checker's dependency analyses share (rulelang/check/dependencies.py): what `Facts`
finds in a tree, and how `reached` and `closed` follow the defs a def calls."""
from __future__ import annotations

from rulelang.check.dependencies import Facts, closed, mentioned, reached
from rulelang.language import nodes as N
from rulelang.language.parser import parse_text

GAME = """
game "Walk" { players 2  turn order clockwise  round: play  max rounds 1 }
component Card { power: int = 1 }
zone deck
def strong(c) = c.power > limit and count([d in deck where d.power > 1]) > 0 and "{c.power} of {who.name}" != ""
phase play { take turns once { choose x from [1, 2] as "Pick" } }
"""


def test_facts_of_a_def_body_name_what_each_analysis_reads():
    body = next(d for d in parse_text(GAME, "walk.rules").decls if isinstance(d, N.DefDecl)).body
    found = Facts(body)
    assert found.names == {"c", "limit", "deck", "d"}
    assert found.funcs() == {"count"}
    assert found.fields == {"power"}
    assert found.texts  # a text with placeholders
    assert found.bound == {"d"}  # the list's own name
    assert N.FilterList in found.kinds and N.Compare in found.kinds
    # in order, each name used, the text's placeholders by the names they start with
    assert [name for _, name in found.uses] == ["c", "limit", "count", "deck", "d", "c", "who"]
    assert mentioned(body) == {"c", "limit", "count", "deck", "d", "who"}


def test_reached_and_closed_follow_calls_through_others():
    calls = {"a": {"b"}, "b": {"c"}, "c": set(), "loop": {"loop"}, "bad": {"zone"}}
    assert reached("a", calls) == {"b", "c"}
    assert reached("loop", calls) == {"loop"}  # a name that calls itself reaches itself
    # kept: the names whose needs, and their needs', are all kept (or outside)
    assert closed(calls) == {"a", "b", "c", "loop"}
    assert closed({"x": {"bad"}, "y": {"x"}, "z": set()}) == {"z"}
    assert closed({"x": {"bad"}, "y": {"x"}}, outside={"bad"}) == {"x", "y"}
