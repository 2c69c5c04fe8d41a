"""Language additions made while writing Evacuation (docs/language.md, "Additions").

Each is general: nothing here knows Evacuation.

1. `take turns following LIST`: a turn order computed by the rules; `current`, `skipping`, `once`,
   `from`, `until` and the turn triggers follow the list.
"""
from __future__ import annotations

import pytest

from conftest import load_rules, play_random
from rulelang.errors import RulesError

ORDER = """
game "Order" { players 4; round: play, reorder; max rounds 2 }
player { score: int = 0; passed: bool = false; turns: int = 0 }
var ranking: list of player
var seen: list of player
var started: list of player
setup {
  ranking = [player(3), player(1), player(4), player(2)]
  let fourth = player(4)
  fourth.score = 5
}
at start of turn { started = concat(started, [current]) }
at end of turn { current.turns += 1 }
phase play {
  take turns following ranking once { seen = concat(seen, [current]) }
}
/// most points first; ties keep the list's order (sorted_by is stable)
phase reorder {
  ranking = sorted_by(ranking, [0 - p.score for p in ranking])
}
"""


def seats(players):
    return [p.seat + 1 for p in players]


def test_turns_follow_a_computed_list_and_the_triggers_follow_them():
    match = load_rules(ORDER).new_match(players=4, seed=0)
    play_random(match)
    g = match.s.globals
    assert seats(g["seen"]) == [3, 1, 4, 2, 4, 3, 1, 2]
    assert seats(g["started"]) == seats(g["seen"])
    assert [p.attrs["turns"] for p in match.s.players] == [2, 2, 2, 2]


def test_skipping_until_and_from_follow_the_list():
    text = ORDER.replace(
        "take turns following ranking once { seen = concat(seen, [current]) }",
        "take turns following ranking from player(4) skipping current.passed until count(seen) >= 5 {\n"
        "    seen = concat(seen, [current])\n    if current == player(1) { current.passed = true }\n  }",
    ).replace("max rounds 2", "max rounds 1")
    match = load_rules(text).new_match(players=4, seed=0)
    play_random(match)
    assert seats(match.s.globals["seen"]) == [4, 2, 3, 1, 4]


def test_players_left_out_of_the_list_get_no_turn():
    text = ORDER.replace("[player(3), player(1), player(4), player(2)]", "[player(2), player(1)]")
    match = load_rules(text).new_match(players=4, seed=0)
    play_random(match)
    assert seats(match.s.globals["seen"])[:2] == [2, 1]
    assert {p.seat + 1 for p in match.s.globals["seen"]} == {1, 2}


@pytest.mark.parametrize("listing,message", [
    ("[player(1), player(1)]", "names a player twice"),
    ("[player(1), 3]", "needs a list of players"),
])
def test_a_bad_computed_order_is_a_rules_error(listing, message):
    text = ORDER.replace("[player(3), player(1), player(4), player(2)]", listing)
    with pytest.raises(RulesError, match=message):
        load_rules(text).new_match(players=4, seed=0)


def test_starting_from_a_player_outside_the_list_is_a_rules_error():
    text = ORDER.replace("take turns following ranking once", "take turns following [player(1)] from player(2) once")
    with pytest.raises(RulesError, match="not in the turn order"):
        load_rules(text).new_match(players=4, seed=0)
