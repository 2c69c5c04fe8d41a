"""`move none` is a rules error naming its line (issue 41: "`move none` does nothing, silently.
`move first([])` is no error, so a rule that pays nothing passes unnoticed. It should be a rules
error naming the line, unless the rules say the move is optional"). Optional is said as
`if c != none { move c ... }`; an empty list moves nothing, as it asks; `move first(list, n)` moves
N cards of a kind."""
from __future__ import annotations

import pytest

import rulelang
from rulelang.core.errors import RulesRuntimeError

GAME = """\
game "Pay" {
  players 2
  round: pay
}
enum Colour { red, blue }
component Gem { colour: Colour  label "{colour}" }
cards gems in bank { Gem(colour: red) * 3; Gem(colour: blue) * 2 }
zone bank
zone supply per player
phase pay {
  MOVE
  end game
}
"""


def play(tmp_path, move: str):
    path = tmp_path / "pay.rules"
    path.write_text(GAME.replace("MOVE", move), encoding="utf-8")
    return rulelang.load(path).new_match(seed=1)  # (the phase runs as the match starts)


def test_moving_none_is_a_rules_error_at_its_line(tmp_path):
    with pytest.raises(RulesRuntimeError) as caught:
        play(tmp_path, "move first([g in bank where g.colour == red and g.colour == blue]) to supply(player(1))")
    said = caught.value.format()
    assert "pay.rules:11:3: error: there is no card to move here: the cards to move are none" in said
    assert "if c != none { move c to ... }" in said


def test_a_move_the_rules_say_is_optional_and_an_empty_list_move_nothing(tmp_path):
    match = play(tmp_path, "let c = first([g in bank where g.colour == red and g.colour == blue])\n"
                           "  if c != none { move c to supply(player(1)) }\n"
                           "  move [g in bank where g.colour == red and g.colour == blue] to supply(player(1))")
    assert match.is_over and match.s.zones["supply#1"].items == []


def test_moving_n_cards_of_a_kind(tmp_path):
    match = play(tmp_path, "move first([g in bank where g.colour == red], 2) to supply(player(1))")
    assert [g.attrs["colour"] for g in match.s.zones["supply#1"].items] == ["red", "red"]
    assert len(match.s.zones["bank"].items) == 3
