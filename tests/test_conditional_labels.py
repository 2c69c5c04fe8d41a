"""`label "..." if COND` (issue 41: "A label cannot be conditional. Cards show "king: none" and "wheat
0"", and "No way to turn a number into text, so a card labelled "Q of spades" needs a names list
indexed by rank"): the first case whose condition holds names the card, else its plain label."""
from __future__ import annotations

import rulelang
from rulelang.model.builtins import label

GAME = """\
game "Labels" {
  players 2
  round: play
}
enum Suit { hearts, spades }
component Card {
  suit: Suit
  rank: int
  wheat: int = 0
  label "Q of {suit}" if rank == 12
  label "{rank} of {suit}, {wheat} wheat" if wheat > 0
  label "{rank} of {suit}"
}
component Token { n: int  label "token {n}" if n > 1 }
cards pack in deck { Card(suit: s, rank: r) for s in Suit, r in 11..12 }
cards tokens in deck { Token(n: k) for k in 1..2 }
zone deck
phase play {
  for each c in [c in deck where c.component == "Card" and c.rank == 11] { c.wheat = 2 }
  end game
}
"""


def test_the_first_case_that_holds_names_the_card_and_follows_its_fields(tmp_path):
    path = tmp_path / "labels.rules"
    path.write_text(GAME, encoding="utf-8")
    game = rulelang.load(path)
    before = [label(e) for e in game.new_match(seed=1).s.zones["deck"].items]  # (the match has played: wheat set)
    assert before == ["11 of hearts, 2 wheat", "Q of hearts", "11 of spades, 2 wheat", "Q of spades",
                      "Token(n: 1)", "token 2"]  # a token with no case that holds and no plain label: the default
