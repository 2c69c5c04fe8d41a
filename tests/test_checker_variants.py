"""Variants are checked whole, each on its own: every game and example checks clean with all its
variants, and a variant that changes what other declarations read (a def's or a procedure's
parameters, an enum's members, a zone's owner, a type that is no longer an enum) has those
declarations' problems found."""
from __future__ import annotations

import pytest

from conftest import EXAMPLES, GAMES
from rulelang.language.astcache import parse_file_cached
from rulelang.check.checker import DataFiles, check_rules
from rulelang.core.errors import RulesError


def problems(rules) -> str:
    try:
        check_rules(rules, all_variants=True, data_files=DataFiles())
    except RulesError as exc:
        return exc.format()
    return ""


@pytest.mark.parametrize("path", GAMES + EXAMPLES, ids=lambda p: p.stem)
def test_every_game_checks_clean_with_all_its_variants(path):
    assert problems(parse_file_cached(path)) == ""


SMALL = """game "T" { players 2; round: play }
enum Suit { red, black }
component Card { suit: Suit; point: int = 1; label "{suit} {point}" }
player { score: int = 0 }
cards deck_cards in deck { Card(suit: red, point: 1) * 3 }
zone deck
zone hand per player
var leader: player
procedure give(c: Card, s: Suit) { move c to hand(current) }
def points(p) = sum(c.point for c in hand(p))
phase play {
  take turns from player(1) {
    let c = top(deck)
    give(c, c.suit)
    log "{leader.score} points"
    if points(current) > 3 or empty(deck) { end game }
  }
}
"""


@pytest.mark.parametrize("body, said", [
    # a name only written inside a text's braces
    ('replace var leader: str = "x"', "score"),
    # a def's parameters, read where it is called
    ("replace def points(p, q) = 0", "points"),
    # a procedure's parameters, read where it is called
    ("replace procedure give(c: Card) { }", "give"),
    # an enum's members, read by a component's cards
    ("replace enum Suit { green }", "red"),
    # a zone's owner
    ("replace zone hand", "hand"),
    # a type that is no longer an enum: the component's field, the procedure's parameter
    ("remove Suit\ncomponent Suit { x: int }", "red"),
])
def test_a_variant_check_of_small_changes(body, said):
    from rulelang.language.parser import parse_text

    rules = parse_text(SMALL + f"variant probe {{\n{body}\n}}\n", "small.rules")
    found = problems(rules)
    assert found and said in found and "(in variant probe)" in found
