"""A player count a variant refuses is blamed on the variant's own `game` line, not the base game's
(issue: "a variant limited to 2 players, chosen with 4, blames the base game's line")."""
from __future__ import annotations

import pytest

import rulelang
from rulelang.core.errors import RulesError

RULES = """\
game "Duel or more" {
  players 2..4
  round: play
}
zone pile
phase play {
  end game
}
variant duel {
  replace game "Duel or more" {
    players 2
    round: play
  }
}
"""


def refusal(tmp_path, players: int, variant: str | None) -> str:
    path = tmp_path / "duel.rules"
    path.write_text(RULES)
    game = rulelang.load(path, variant=variant)
    with pytest.raises(RulesError) as caught:
        game.new_match(players=players, seed=1)
    return caught.value.format()


def test_a_variant_that_limits_the_players_is_named_at_its_own_game_line(tmp_path):
    said = refusal(tmp_path, 4, "duel")
    assert "duel.rules:10:11: error: Duel or more with the variant duel is played by 2 players, not 4" in said
    assert "replace game" in said  # the line quoted is the variant's
    assert "hint: without the variant, Duel or more is played by 2 to 4 players" in said


def test_the_base_game_is_named_at_its_game_line(tmp_path):
    said = refusal(tmp_path, 5, None)
    assert "duel.rules:1:1: error: Duel or more is played by 2 to 4 players, not 5" in said
    assert "hint" not in said
    rulelang.load(tmp_path / "duel.rules", variant="duel").new_match(players=2, seed=1)  # 2 is allowed
