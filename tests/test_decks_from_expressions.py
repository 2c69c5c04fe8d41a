"""A deck's cards made from any expression that needs no match (issue 36).

A `cards` block is made when the game is loaded: its `for` clauses may walk a def, a table, a
setting, an enum or any expression of those, and its cards' values may call defs. What only a match
has (players, variables, zones, cards, the turn, chance) is a checker error naming the place, never
an internal error at load or play.
"""
from __future__ import annotations

import pytest

import rulelang
from rulelang.check.checker import check_rules
from rulelang.cli.main import main
from rulelang.core.errors import RulesError
from rulelang.language.parser import parse_text

from conftest import play_random

HEAD = """game "Decks" { players 2; round: play; max rounds 4 }
enum Kind { red, blue }
component T { n: int = 0; s: str = ""; k: Kind = red }
zone deck hidden
zone hand per player
phase play { take turns once { if not empty(deck) { draw 1 from deck to hand(current) } } }
"""


def deck_of(text: str, path: str = "decks.rules", **kwargs) -> list[tuple]:
    """Load the game, play one seeded match to its end; the cards made, as (n, s, k)."""
    game = rulelang.load(path, text=HEAD + text, **kwargs)
    match = game.new_match(seed=3)
    cards = sorted((e.attrs["n"], e.attrs["s"], e.attrs["k"]) for e in match.s.entities)
    play_random(match, seed=3)
    assert match.is_over
    return cards


def problems(text: str, variants=None) -> str:
    rules = parse_text(HEAD + text, "decks.rules")
    with pytest.raises(RulesError) as info:
        check_rules(rules, variants or [], all_variants=variants is None)
    return info.value.format()


def test_the_issue_s_deck_from_a_def_loads_and_plays():
    text = "def values = [1, 2, 3]\ncards ts in deck { T(n: v) for v in values }\n"
    check_rules(parse_text(HEAD + text, "decks.rules"))
    assert deck_of(text) == [(1, "", "red"), (2, "", "red"), (3, "", "red")]


def test_the_issue_s_deck_simulates_and_plays_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "decks.rules"
    path.write_text(HEAD + "def values = [1, 2, 3]\ncards ts in deck { T(n: v) for v in values }\n")
    assert main(["check", str(path)]) == 0
    assert main(["simulate", str(path), "-n", "3"]) == 0
    assert main(["play", str(path), "--seats", "random,random", "--seed", "1"]) == 0
    out = capsys.readouterr()
    assert "internal error" not in out.out + out.err


def test_a_deck_from_defs_with_parameters_and_defs_of_defs():
    text = """def double(x) = x * 2
def small = [x in 1..6 where x % 2 == 0]
def evens = [double(x) for x in small]
cards ts in deck { T(n: double(v), s: "{v}") for v in evens }
"""
    assert deck_of(text) == [(8, "4", "red"), (16, "8", "red"), (24, "12", "red")]


def test_a_deck_from_a_table(tmp_path):
    (tmp_path / "prices.csv").write_text("n,name,kind\n5,five,blue\n7,seven,red\n")
    text = 'table prices from "prices.csv"\ncards ts in deck { T(n: row.n, s: row.name, k: row.kind) for row in prices }\n'
    assert deck_of(text, str(tmp_path / "decks.rules")) == [(5, "five", "blue"), (7, "seven", "red")]


def test_a_deck_from_a_table_named_by_a_setting(tmp_path):
    (tmp_path / "a.csv").write_text("n\n1\n")
    (tmp_path / "b.csv").write_text("n\n2\n3\n")
    text = 'setting prices_file = "a.csv"\ntable prices from prices_file\ncards ts in deck { T(n: row.n) for row in prices }\n'
    path = str(tmp_path / "decks.rules")
    assert [c[0] for c in deck_of(text, path)] == [1]
    assert [c[0] for c in deck_of(text, path, settings={"prices_file": "b.csv"})] == [2, 3]


def test_a_deck_from_a_setting_and_a_def_of_it():
    text = """setting size = 2
def ranks = 1..size * 2
cards ts in deck { T(n: r, s: "{size}") for r in ranks }
"""
    assert [c[0] for c in deck_of(text)] == [1, 2, 3, 4]
    assert [c[0] for c in deck_of(text, settings={"size": "3"})] == [1, 2, 3, 4, 5, 6]


def test_a_deck_from_an_enum_and_any_expression_of_written_values():
    text = """def colours = [k in Kind where k != red]
cards ts in deck {
  T(n: i * 10 + count(colours), k: k) for k in concat(colours, [red]), i in [x + 1 for x in 0..1]
  T(n: max(4, 9), s: if true then "a" else "b") * 2
}
"""
    assert deck_of(text) == [(9, "a", "red"), (9, "a", "red"), (11, "", "blue"), (11, "", "red"),
                             (21, "", "blue"), (21, "", "red")]


def test_a_variant_replacing_the_def_a_deck_walks():
    text = """def values = [1, 2]
cards ts in deck { T(n: v) for v in values }
variant more { replace def values = [1, 2, 3, 4] }
"""
    assert len(deck_of(text)) == 2
    assert len(deck_of(text, variant="more")) == 4


def test_a_field_default_from_a_def():
    text = "def base = 40 + 2\ncomponent U { m: int = base }\ncards us in deck { U() * 2 }\n"
    game = rulelang.load("decks.rules", text=HEAD + text)
    match = game.new_match(seed=1)
    assert [e.attrs["m"] for e in match.s.entities] == [42, 42]


@pytest.mark.parametrize("text, where, what", [
    ("cards ts in deck { T(n: v) for v in 1..player_count }", "7:40", '"player_count"'),
    ("cards ts in deck { T(n: seat(p)) for p in players }", "7:43", '"players"'),
    ("var g: int = 3\ncards ts in deck { T(n: v) for v in 1..g }", "8:40", 'the variable "g"'),
    ("cards ts in deck { T(n: count(deck)) * 2 }", "7:31", 'the zone "deck"'),
    ("cards ts in deck { T(n: v) for v in [roll(6)] }", "7:38", "chance (roll)"),
    ("cards ts in deck { T(n: seat(player(1))) }", "7:30", "the match's players (player)"),
    ('cards ts in deck { T(s: "{current}") }', "7:25", '"current"'),
    ("def pc = player_count\ndef two = pc * 2\ncards ts in deck { T(n: v) for v in 1..two }", "9:40",
     'def "two", which calls def "pc", which reads "player_count"'),
    ("def order(x) = x + round\ncards ts in deck { T(n: order(1)) }", "8:25", 'def "order", which reads "round"'),
    ("cards ts in deck { T(n: count(us)) }\ncards us in deck { T() }", "7:31", 'the cards of "us"'),
])
def test_a_deck_that_needs_a_match_is_a_checker_error(text, where, what):
    report = problems(text + "\n")
    assert f"decks.rules:{where}: error: the cards of \"ts\" are made when the game is loaded, before any match, " \
           f"so they cannot depend on {what}" in report, report
    assert "internal error" not in report


def test_a_field_default_that_needs_a_match_is_a_checker_error():
    report = problems("component U { m: int = player_count }\n")
    assert 'decks.rules:7:24: error: the default of field "m" is printed on U cards when they are made' in report
    assert 'cannot depend on "player_count"' in report


def test_names_bound_in_the_deck_or_the_def_are_not_the_match_s():
    # a def's parameter or a comprehension's name that is also a zone's name is the local value
    text = """def f(deck) = deck + 1
def g = [hand for hand in 1..2]
cards ts in deck { T(n: f(deck) + count(g)) for deck in [1, 2] }
"""
    check_rules(parse_text(HEAD + text, "decks.rules"))
    assert [c[0] for c in deck_of(text)] == [4, 5]


def test_a_condition_field_may_read_the_match():
    text = """component M { n: int = 0; goal: condition }
cards ms in deck { M(goal: count(hand(current)) > player_count) }
"""
    game = rulelang.load("decks.rules", text=HEAD + text)
    match = game.new_match(seed=1)
    play_random(match, seed=1)
    assert match.is_over


def test_a_variant_making_a_deck_s_def_read_the_match_is_reported_in_the_variant():
    text = """def base = [1, 2]
def values = [v + 1 for v in base]
cards ts in deck { T(n: v) for v in values }
variant per_player { replace def base = 1..player_count }
"""
    check_rules(parse_text(HEAD + text, "decks.rules"))  # the base game is fine
    report = problems(text, variants=["per_player"])
    assert 'decks.rules:9:37: error: the cards of "ts" are made when the game is loaded' in report
    assert 'def "values", which calls def "base", which reads "player_count"' in report
    with pytest.raises(RulesError) as info:
        rulelang.load("decks.rules", text=HEAD + text, variant="per_player")
    assert "internal error" not in info.value.format()


def test_a_def_that_never_stops_in_a_deck_is_a_rules_error():
    text = "def f(x) = f(x + 1)\ncards ts in deck { T(n: f(1)) }\n"
    with pytest.raises(RulesError) as info:
        rulelang.load("decks.rules", text=HEAD + text)
    report = info.value.format()
    assert "decks.rules:7:" in report and "recursion_depth" in report


def test_a_deck_def_failing_at_load_names_its_line():
    text = "def f(x) = x / 0\ncards ts in deck { T(n: f(v)) for v in 1..2 }\n"
    with pytest.raises(RulesError) as info:
        rulelang.load("decks.rules", text=HEAD + text)
    assert info.value.format().startswith("decks.rules:7:")
