"""Language additions made while writing Survivors (docs/language.md, "Additions").

Each is general: nothing here knows Survivors.

1. `eliminate p`: the player is out; `players` no longer lists them, turns pass them by,
   `eliminated` lists who went out, `all_players` still lists everyone.
2. Durations: `x.f += 1 until end of turn|phase|round` (also `=`, and on globals): the change is undone
   when that turn, phase or round ends.
3. `respond [once] r in players { option ... }`: each listed player may answer (or pass), on
   somebody else's turn.
4. `offer to o [by p] { option ... } [refused { ... }]`: p picks an offer, o accepts or refuses.
5. `table NAME from "file.csv"`: the rows of a data file, with the columns as fields.
"""
from __future__ import annotations

import pytest

from conftest import load_rules, play_random
from rulelang.core.errors import RulesError

GAME = """
game "Additions" {
  players 4
  round: main
  max rounds 2
}
player { gold: int = 0; bonus: int = 0; turns: int = 0 }
var heat: int = 1
var shouts: int = 0

phase main {
  take turns once {
    current.turns += 1
    current.bonus += 2 until end of turn
    heat = 3 until end of round
    if current.gold < 0 { eliminate current }
    respond once r in opponents(current) as "Shout?" { option shout { shouts += 1 } }
    offer to next_player(current) as "Sell" {
      option sell(n in 1..2) if current.gold >= 0 { current.gold -= n; next_player(current).gold += n }
    } refused { current.gold += 10 }
  }
}
result { win players }
"""


def first_choice(match):
    return [o.label for o in match.legal_options()], match.to_move, match.prompt


def test_elimination_passes_turns_by_and_players_shrinks():
    game = load_rules(GAME.replace("if current.gold < 0 { eliminate current }",
                                   "if seat(current) == 2 { eliminate current }"))
    match = game.new_match(players=4, seed=1)
    play_random(match, seed=3)
    s = match.s
    turns = [p.attrs["turns"] for p in s.players]
    assert turns == [2, 1, 2, 2]  # player 2 takes the turn in which they go out, then none
    assert match.result["winners"] == [1, 3, 4]
    assert match.result["eliminated"] == [2]


def test_eliminated_lists_and_all_players():
    game = load_rules("""
game "E" { players 3; round: main; max rounds 1 }
var left: int = 0
var everyone: int = 0
var gone: any
phase main {
  eliminate [player(1), player(3)]
  left = count(players)
  everyone = count(all_players)
  gone = eliminated
}
""")
    match = game.new_match(players=3, seed=0)
    assert match.is_over
    g = match.s.globals
    assert (g["left"], g["everyone"]) == (1, 3)
    assert [p.seat for p in g["gone"]] == [0, 2]


def test_duration_undone_at_the_end_of_the_turn_and_round():
    game = load_rules("""
game "D" { players 2; round: main; max rounds 1 }
player { bonus: int = 0 }
var heat: int = 1
var seen_in_turn: int = 0
var seen_at_turn_end: int = 0
var seen_at_round_end: int = 0
phase main {
  take turns once {
    current.bonus += 2 until end of turn
    current.bonus += 1
    heat = 5 until end of round
    seen_in_turn = current.bonus
  }
}
at end of turn { seen_at_turn_end = current.bonus }
at end of round { seen_at_round_end = heat }
""")
    match = game.new_match(players=2, seed=0)
    g = match.s.globals
    assert g["seen_in_turn"] == 3
    # the `+= 2` is taken back at the end of the turn; the lasting `+= 1` stays
    assert g["seen_at_turn_end"] == 1
    assert [p.attrs["bonus"] for p in match.s.players] == [1, 1]
    # `heat = 5 until end of round` puts back the value it replaced when the round ends
    assert g["seen_at_round_end"] == 1 and g["heat"] == 1


def test_duration_survives_save_and_load():
    game = load_rules(GAME)
    match = game.new_match(players=4, seed=2)
    assert match.s.globals["heat"] == 3
    again = game.match_from_json(match.to_json())
    play_random(match, seed=5)
    play_random(again, seed=5)
    assert again.s.globals["heat"] == match.s.globals["heat"] == 1
    assert again.result == match.result


def test_respond_asks_each_listed_player_until_one_answers():
    game = load_rules(GAME)
    match = game.new_match(players=4, seed=0)
    labels, who, prompt = first_choice(match)
    # player 1 is taking the turn; the others are asked in order, each may pass
    assert (who, prompt) == (1, "Shout?") and labels == ["shout", "nothing"]
    match.apply(1)  # player 2 passes
    assert match.to_move == 2 and match.prompt == "Shout?"
    match.apply(0)  # player 3 shouts: `once` closes the window, player 4 is not asked
    assert match.s.globals["shouts"] == 1
    assert match.prompt == "Sell" and match.to_move == 0


def test_offer_accepted_or_refused():
    game = load_rules(GAME)
    match = game.new_match(players=4, seed=0)
    match.apply(1); match.apply(1); match.apply(1)  # nobody shouts
    labels, who, _ = first_choice(match)
    assert who == 0 and labels == ["sell 1", "sell 2", "nothing"]
    match.apply(1)  # player 1 offers 2
    labels, who, prompt = first_choice(match)
    assert who == 1 and prompt == "Sell: accept or refuse?" and labels == ["accept 2", "refuse 2"]
    match.apply(0)
    gold = [p.attrs["gold"] for p in match.s.players]
    assert gold[:2] == [-2, 2]
    # next turn: player 2 offers to player 3, who refuses: the `refused` block runs
    match.apply(1); match.apply(1); match.apply(1)
    match.apply(0)
    assert match.to_move == 2
    match.apply(1)
    assert match.s.players[1].attrs["gold"] == 2 + 10


def test_table_rows_from_a_data_file(tmp_path):
    (tmp_path / "cells.csv").write_text("# where the stones go\nq, r, kind\n0,0,red\n1,-1,blue\n", encoding="utf-8")
    rules = tmp_path / "t.rules"
    rules.write_text("""
game "T" { players 2; round: main; max rounds 1 }
enum Colour { red, blue }
component Stone { colour: Colour; label "{colour}" }
cards stones in bag { Stone(colour: red); Stone(colour: blue) }
zone bag
zone board: board hex
setting layout = "cells.csv"
table spots from layout
phase main {
  for each row in spots {
    move first([s in bag where s.colour == row.kind]) to board at (row.q, row.r)
  }
}
""", encoding="utf-8")
    import rulelang

    match = rulelang.load(str(rules)).new_match(players=2, seed=0)
    placed = {e.attrs["colour"]: e.cell for e in match.s.zones["board"].items}
    assert placed == {"red": (0, 0), "blue": (1, -1)}
    # another file through the setting
    (tmp_path / "other.csv").write_text("q,r,kind\n2,2,blue\n", encoding="utf-8")
    match = rulelang.load(str(rules), settings={"layout": "other.csv"}).new_match(players=2, seed=0)
    assert [(e.attrs["colour"], e.cell) for e in match.s.zones["board"].items] == [("blue", (2, 2))]


def test_table_errors_name_the_line(tmp_path):
    (tmp_path / "bad.csv").write_text("q,r\n1,2,3\n", encoding="utf-8")
    text = 'game "T" { players 2 }\ntable rows from "bad.csv"\ntable gone from "missing.csv"\n'
    rules = tmp_path / "t.rules"
    rules.write_text(text, encoding="utf-8")
    import rulelang

    with pytest.raises(RulesError) as info:
        rulelang.load(str(rules))
    message = str(info.value)
    assert "bad.csv:2: 3 values, but the header names 2 columns (q, r)" in message
    assert "cannot read the data file" in message and "missing.csv" in message
    assert "t.rules:3:" in message


def test_until_on_a_local_is_refused():
    with pytest.raises(RulesError, match="only a field or a global `var` can change until the end of the turn"):
        load_rules('game "U" { players 2; round: main }\nphase main { let x = 1\n x = 2 until end of turn }')
