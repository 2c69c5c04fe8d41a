"""`eliminate p until end of round` (issue 41: "Knocking a player out for one round: `eliminate` is for
the whole game. A round-scoped version was written with a flag and `skipping`")."""
from __future__ import annotations

import rulelang

GAME = """\
game "Sit out" {
  players 3
  round: play
  max rounds 2
}
player { turns: int = 0 }
var counted: list of int
phase play {
  take turns once {
    current.turns += 1
    if round == 1 and current == player(1) { eliminate player(2) until end of round }
  }
  counted = concat(counted, [count(players)])
}
result { win [p in players where p.turns == 2] }
"""


def test_a_player_out_for_the_round_is_back_in_the_next(tmp_path):
    path = tmp_path / "sitout.rules"
    path.write_text(GAME, encoding="utf-8")
    match = rulelang.load(path).new_match(seed=1)  # (no choices: it plays to its end)
    assert match.is_over
    assert match.s.globals["counted"] == [2, 3]  # two players in at the end of round 1, three in round 2
    assert [p.attrs["turns"] for p in match.s.players] == [2, 1, 2]  # player 2 sat out round 1's turns
    assert "Player 2 is out until the end of the round" in match.s.log
    assert "eliminated" not in match.result  # nobody is out for good
    assert match.result["winners"] == [1, 3]


def test_a_duration_on_eliminate_parses_and_checks():
    from rulelang.check.dependencies import nodes_in
    from rulelang.language import nodes as N
    from rulelang.language.parser import parse_text

    rules = parse_text(GAME, "sitout.rules")
    [stmt] = [x for x in nodes_in(rules.decls) if isinstance(x, N.Eliminate)]
    assert stmt.until == "round"
