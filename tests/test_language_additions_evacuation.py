"""Language additions made while writing Evacuation (docs/language.md, "Additions").

Each is general: nothing here knows Evacuation.

1. `take turns following LIST`: a turn order computed by the rules; `current`, `skipping`, `once`,
   `from`, `until` and the turn triggers follow the list.
2. `board ... places ENUM { member: N }`: every cell divided into places with capacities;
   `move ... into P`, `c.place`, `c.place = P`, `at(board, cell, P)`, `has_room(board, cell, P)`;
   a full place is a rules error; places survive save and load.
"""
from __future__ import annotations

import pytest

from conftest import load_rules, play_random
from rulelang.core.errors import RulesError

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


def test_a_player_listed_twice_takes_a_turn_at_each_place():
    # "In a two-player game each player has two kings, so their turns follow the kings' order."
    text = ORDER.replace("[player(3), player(1), player(4), player(2)]", "[player(1), player(2), player(2), player(1)]")
    match = load_rules(text).new_match(players=4, seed=0)
    play_random(match)
    assert seats(match.s.globals["seen"])[:4] == [1, 2, 2, 1]


@pytest.mark.parametrize("listing,message", [
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


# ------------------------------------------------------------------ places with capacities

PLACES = """
game "Places" { players 3; round: play; max rounds 1 }
enum Slot { ring, left, right }
component Pawn { n: int; label "pawn {n}" }
cards pawns in box { Pawn(n: i) for i in 1..5 }
zone box
zone track: board track 10 places Slot { left: 1, right: 1 }
zone pile: board track 3
var log_places: list of str
phase play {
  for each p in box { move p to track at 3 }
  take turns once {
    choose m from track where m.place == ring as "Which pawn takes an inner space?"
    choose s from [left, right] where has_room(track, 3, s) optional as "Which inner space?"
    if s != none { m.place = s }
  }
}
"""


def test_cards_sit_in_places_and_inner_places_fill_up():
    match = load_rules(PLACES).new_match(players=3, seed=0)
    board = match.s.zones["track"]
    assert {e.place for e in board.items} == {"ring"}
    match.apply(0)          # player 1: pawn 1 ...
    assert [o.label for o in match.legal_options()] == ["left", "right", "nothing"]
    match.apply(0)          # ... to the left inner space
    match.apply(0)          # player 2: a pawn on the ring ...
    assert [o.label for o in match.legal_options()] == ["right", "nothing"]
    match.apply(0)
    match.apply(0)          # player 3: a pawn on the ring, and no inner space is free
    assert match.is_over
    places = sorted(e.place for e in board.items)
    # two players found a free inner space; the third found none and the choice had no option
    assert places.count("left") == 1 and places.count("right") == 1


def test_a_full_place_is_a_rules_error_naming_the_line():
    text = PLACES.replace("""    choose s from [left, right] where has_room(track, 3, s) optional as "Which inner space?"
    if s != none { m.place = s }""", "    m.place = left")
    with pytest.raises(RulesError, match=r"inline.rules:\d+:\d+: .*the place left of 3 on track is full"):
        match = load_rules(text).new_match(players=3, seed=0)
        play_random(match)


def test_move_into_a_place_and_read_it_back():
    text = PLACES.replace("""  take turns once {
    choose m from track where m.place == ring as "Which pawn takes an inner space?"
    choose s from [left, right] where has_room(track, 3, s) optional as "Which inner space?"
    if s != none { m.place = s }
  }""", """  move first([x in track where x.n == 1]) to track at 5 into right
  move first([x in track where x.n == 2]) to track at 5
  log_places = [label(x.place) for x in at(track, 5)]
  if count(at(track, 5, right)) != 1 { fail "one pawn on the right" }
  if has_room(track, 5, right) { fail "the right inner space is full" }
  if not has_room(track, 5, ring) { fail "the ring takes any number" }
  move first([x in track where x.n == 3]) to pile at 1""")
    match = load_rules(text).new_match(players=3, seed=0)
    assert match.s.globals["log_places"] == ["right", "ring"]
    pile = match.s.zones["pile"]
    assert [e.place for e in pile.items] == [None]


def test_places_survive_save_and_load():
    g = load_rules(PLACES)
    match = g.new_match(players=3, seed=0)
    match.apply(0)
    match.apply(1)
    again = g.match_from_json(match.to_json())
    assert [(e.cell, e.place) for e in again.s.zones["track"].items] == [(e.cell, e.place) for e in match.s.zones["track"].items]
    assert "right" in [e.place for e in again.s.zones["track"].items]


def test_place_on_a_board_without_places_is_a_rules_error():
    text = PLACES.replace("zone pile: board track 3", "zone pile: board track 3\nvar where: Slot = left").replace(
        "  for each p in box { move p to track at 3 }", "  move top(box) to pile at 0 into where\n  for each p in box { move p to track at 3 }")
    with pytest.raises(RulesError, match="has no places"):
        load_rules(text).new_match(players=3, seed=0)
