"""Language additions made while writing Splicers (docs/language.md, "Additions").

Each is general: nothing here knows Splicers.

1. `cards NAME in zone(player(N))`: a set may start in one player's zone when the player is named.
2. Keyword uses counted without `perform`: a keyword's trigger that runs, and a keyword's
   continuous (`always`) rule that changes the game, each count one use (match.result
   ["keyword_uses"], and so `rulelang simulate`'s table). A keyword with no effect can be
   `perform`ed just to record a use.
3. A card's `face_down` and `owner` can be assigned (`c.face_down = true`, `c.owner = p`); the other
   built-in fields of a card (`zone`, `cell`, `component`, `id`) cannot.
"""
from __future__ import annotations

import pytest

from conftest import load_rules, play_random
from rulelang.core.errors import RulesError

GAME = """
game "Additions" {
  players 2
  round: play
  max rounds 1
}
component Card {
  point: int
  abilities: list of keyword = []
  label "card {point}"
  discards to pile
}
/// Player 1's cards start in their own hand, player 2's in theirs.
cards mine in hand(player(1)) { Card(point: 1); Card(point: 2, abilities: [glow]) }
cards yours in hand(player(2)) { Card(point: 3, abilities: [shade]) }
zone hand per player private
zone table
zone pile

/// A keyword that only acts through a trigger.
keyword glow {
  when c enters table if c == self { self.point += 10 }
}
/// A keyword that only acts through a continuous rule: a card on the table with more than
/// 2 points is discarded.
keyword shade {
  always {
    if self.zone == table and self.point > 2 { discard self }
  }
}
/// A marker: it has no effect, so performing it only records a use.
keyword mark { }

phase play {
  move hand(player(1)) to table
  move hand(player(2)) to table
  for each c in table where c.point == 1 {
    perform mark on c
    c.face_down = true
    c.owner = player(2)
  }
}
"""


def test_cards_start_in_a_named_players_zone():
    game = load_rules(GAME)
    match = game.new_match(seed=1)
    # the game has run to its end (no choices): check where the sets were created
    mine = [e for e in match.s.entities if e.card.set_name == "mine"]
    yours = [e for e in match.s.entities if e.card.set_name == "yours"]
    assert len(mine) == 2 and len(yours) == 1
    assert {e.attrs["point"] for e in mine} == {1, 12}  # glow fired on entering the table


def test_a_per_player_zone_without_its_player_is_still_an_error():
    text = GAME.replace("cards mine in hand(player(1))", "cards mine in hand")
    with pytest.raises(RulesError) as err:
        load_rules(text)
    assert 'cards cannot start in "hand", which each player has' in err.value.format()


def test_keyword_triggers_and_continuous_rules_count_as_uses():
    game = load_rules(GAME)
    match = game.new_match(seed=1)
    assert match.is_over
    uses = match.result["keyword_uses"]
    assert uses.get("glow") == 1  # its trigger ran once
    assert uses.get("shade") == 1  # its continuous rule changed the game once (then the card left)
    assert uses.get("mark") == 1  # performed once, no effect


def test_a_continuous_keyword_that_changes_nothing_is_not_counted():
    text = GAME.replace("self.point > 2", "self.point > 99")
    match = load_rules(text).new_match(seed=1)
    assert "shade" not in match.result["keyword_uses"]


def test_face_down_and_owner_can_be_assigned():
    match = load_rules(GAME).new_match(seed=1)
    card = next(e for e in match.s.entities if e.attrs["point"] == 1)
    assert card.face_down is True and card.owner == 1  # 0-based seat of player 2
    assert "face_down" not in card.attrs and "owner" not in card.attrs  # real state, no shadow field
    # a face-down card in a public zone is seen by its owner only: now player 2
    table = match.view(1)["zones"]["table"]["cards"]
    assert {"card": "card 1", "component": "Card", "point": 1, "abilities": "[]", "owner": 2,
            "face_down": True} in table
    assert {"hidden": True, "face_down": True} in match.view(0)["zones"]["table"]["cards"]


@pytest.mark.parametrize("statement, message", [
    ("c.zone = pile", '"zone" of a card cannot be set: it changes when the card moves'),
    ("c.face_down += 1", '"face_down" of a card can only be set with `=`'),
    ("c.owner = 3", "a card's owner is a player (or none), not 3"),
])
def test_other_card_fields_cannot_be_assigned(statement, message):
    text = GAME.replace("    c.owner = player(2)\n", f"    c.owner = player(2)\n    {statement}\n")
    with pytest.raises(RulesError) as err:
        load_rules(text).new_match(seed=1)
    assert message in err.value.format()


def test_random_play_still_ends():
    match = load_rules(GAME).new_match(seed=3)
    play_random(match)
    assert match.is_over
