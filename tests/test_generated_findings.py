"""What the generated rules files (tests/test_generated_rules.py) found, one test each (issue 36).

Each was a file that checked clean and then stopped a match with an internal error, or with a rules
error in Python's words ("this rule could not run: KeyError ..."), or one the checker should have
refused.
"""
from __future__ import annotations

import pytest

import rulelang
from rulelang.check.checker import check_rules
from rulelang.core.errors import RulesError
from rulelang.language.parser import parse_text

from conftest import play_random

def play(text: str, seed: int = 1, players: int | None = None):
    game = rulelang.load("found.rules", text=text)
    match = game.new_match(players=players, seed=seed)
    play_random(match, seed)
    return match


def rules_error(text: str) -> str:
    with pytest.raises(RulesError) as info:
        play(text)
    report = info.value.format()
    assert "could not run" not in report and "Error:" not in report, report
    return report


def checker_report(text: str) -> str:
    with pytest.raises(RulesError) as info:
        check_rules(parse_text(text, "found.rules"))
    return info.value.format()


# ---------------------------------------------------------------- `end game` while setup runs

SETUP_CHOICE = """game "E" {{ players 2; round: p; max rounds 2 }}
component C {{ n: int = 0 }}
cards cs in deck {{ C() * 3 }}
zone deck
zone pile
player {{ score: int = 0 }}
phase p {{ take turns once {{ current.score += 1 }} }}
procedure stop() {{ end game }}
{rule}
at end of game {{ log "over" }}
result {{ win player(2) }}
"""


@pytest.mark.parametrize("rule", [
    # a continuous rule settles before setup's choice
    'setup { choose a from deck by player(1) }\nalways { if true { end game } }',
    # a trigger set off by setup calls a procedure that ends the game
    "setup { move top(deck) to pile }\nwhen c enters pile { stop() }",
])
def test_a_game_ended_while_setup_runs_ends_there_and_works_out_its_result(rule):
    match = play(SETUP_CHOICE.format(rule=rule))
    assert match.is_over and match.result["winners"] == [2] and match.result["rounds"] == 0
    assert match.s.log[-1] == "over"


@pytest.mark.parametrize("trigger, what", [
    ("at end of game { end game }", "`end game` cannot be used here: at the end of the game it is already ending"),
    ("at end of game { if true { end round } }", "`end round` cannot be used here: at the end of the game it is"),
    ("at start of game { end turn }", "`end turn` cannot be used here: at the start of the game no turn has begun"),
])
def test_end_where_nothing_it_ends_runs_at_the_start_or_end_of_the_game_is_refused(trigger, what):
    report = checker_report(f'game "E" {{ players 2; round: p; max rounds 1 }}\nphase p {{ }}\n{trigger}\n')
    assert "found.rules:3:" in report and what in report, report


def test_end_game_at_the_start_of_the_game_is_allowed():
    match = play('game "E" { players 2; round: p; max rounds 3 }\nphase p { }\nat start of game { end game }\n')
    assert match.is_over and match.result["rounds"] == 0


# ---------------------------------------------------------------- statements given values of another kind

ODD = """game "S" {{ players 2; round: p; max rounds 1 }}
component C {{ n: int = 0; discards to sink(self.n) }}
def sink(n) = if n == 0 then [1] else pile
def odd(n) = if n > 0 then player(1) else pile
cards cs in pile {{ C() * 3 }}
zone pile
phase p {{
  {statement}
}}
"""


@pytest.mark.parametrize("statement, message", [
    ("draw 1 from odd(1) to pile", "cards are drawn from a zone, not from Player 1"),
    ("draw 1 from pile to odd(1)", "cards are drawn into a zone, not into Player 1"),
    ("draw odd(1) from pile to pile", "`draw` needs a whole number, not Player 1"),
    ("draw up to odd(1) from pile to pile", "`draw` needs a whole number, not Player 1"),
    ("shuffle odd(1)", "only a zone can be shuffled, not Player 1"),
    ("reveal odd(1)", "only cards can be revealed, not Player 1"),
    ("reveal top(pile) to odd(0)", "cards are revealed to a player, not to pile"),
    ("hide odd(1)", "only cards can be hidden, not Player 1"),
    ("turn odd(1) face down", "only cards can be turned face up or down, not Player 1"),
    ('repeat odd(1) times { log "a" }', "`repeat ... times` needs a whole number, not Player 1"),
    ("discard top(pile)", "C cards are discarded to a zone, not to [1]"),
])
def test_a_statement_given_a_value_of_another_kind_is_a_rules_error_naming_its_line(statement, message):
    report = rules_error(ODD.format(statement=statement))
    assert report.startswith(f"found.rules:8:3: error: {message}"), report


def test_cards_created_in_something_else_than_a_zone_is_a_rules_error():
    text = ODD.format(statement='log "p"') + "setup { create cs in odd(1) }\n"
    assert rules_error(text).startswith("found.rules:10:9: error: cards are created in a zone, not in Player 1")


# ---------------------------------------------------------------- a text's "{name}" reads that name

def test_a_loop_name_shown_in_a_text_inside_matched():
    # `matched` in generated code is given the loop's name
    text = """game "K" { players 2; round: p; max rounds 1 }
component C { n: int = 0 }
cards cs in pile { C() * 3 }
zone pile
def fits(a, b) = a == b
phase p { move [g in pile where matched([2, "v {g}"], pile, fits)] to pile on bottom }
"""
    match = play(text)  # (it used to fail: the text's loop name was unknown to the generated `matched`)
    assert match.is_over and len(match.s.zones["pile"].items) == 3


def test_an_option_binding_whose_list_shows_an_earlier_binding_in_a_text():
    text = """game "K" { players 2; round: p; max rounds 1 }
phase p {
  take turns once {
    choose { option o(x in [1, 2], y in ["a{x}", "b"]) { log y } }
  }
}
"""
    game = rulelang.load("found.rules", text=text)
    match = game.new_match(seed=1)
    assert sorted(o.label for o in match.legal_options()) == ["o 1, a1", "o 1, b", "o 2, a2", "o 2, b"]


def test_a_def_shown_in_a_text_is_called_by_it_chance_and_turn_included():
    # a def of chance shown in a text is not remembered; one of the turn is worked out for each turn
    text = """game "K" { players 2; round: p; max rounds 1 }
def whose = current
def msg = "{whose}"
def roller = roll(1000000)
def rolled = "{roller}"
phase p { take turns once { log msg; log rolled; log rolled } }
"""
    log = play(text).s.log
    assert log[0] == "Player 1" and log[3] == "Player 2"
    assert len({log[1], log[2], log[4], log[5]}) == 4


# ---------------------------------------------------------------- the bots' heuristic

HEURISTIC = """game "R" {{ players 2; round: p; max rounds 2 }}
player {{ score: int = 0 }}
def heuristic(p) = {body}
phase p {{ take turns once {{ choose x from [1, 2]; current.score += x }} }}
result {{ {result} }}
"""


@pytest.mark.parametrize("body, says", [
    ('"{p}"', "it takes one player and gives a number, but this gives a text"),
    ("[p.score]", "it takes one player and gives a number, but this gives a list of numbers"),
])
def test_a_heuristic_that_is_no_number_is_refused_by_the_checker(body, says):
    report = checker_report(HEURISTIC.format(body=body, result="win player(1)"))
    assert "found.rules:3:1: error: `def heuristic(p)` tells the bots how well a player stands: " + says in report


def test_a_heuristic_of_two_players_is_refused_by_the_checker():
    text = HEURISTIC.format(body="1", result="win player(1)").replace("heuristic(p)", "heuristic(p, q)")
    assert "it takes one player (not 2 values)" in checker_report(text)


def test_a_heuristic_that_fails_or_gives_no_number_is_a_rules_error_for_the_greedy_bot(tmp_path):
    from rulelang.balance.simulate import simulate

    for body, says in [("if p.score > 100 then 1 else p.score / (p.score - p.score)", "division by zero"),
                       ('if round > 0 then "x" else 0', "as a number, but it gave x")]:
        text = HEURISTIC.format(body=body, result="win player(1)")
        game = rulelang.load("found.rules", text=text)
        match = game.new_match(seed=1)
        with pytest.raises(RulesError) as info:
            match.evaluate(0)
        report = info.value.format()
        assert report.startswith("found.rules:3:") and says in report and "Error:" not in report, report
    path = tmp_path / "found.rules"
    path.write_text(HEURISTIC.format(body='if round > 0 then "x" else 0', result="win player(1)"))
    with pytest.raises(RulesError) as info:  # (`rulelang simulate --agents greedy,random` says it so)
        simulate(str(path), 2, agents=["greedy", "random"])
    assert "as a number, but it gave x" in info.value.format()


def test_a_result_that_cannot_be_worked_out_mid_game_says_nothing_to_the_greedy_bot():
    text = HEURISTIC.format(body="p.score", result='if round < 2 { fail "not yet" } else { win player(1) }')
    match = rulelang.load("found.rules", text=text).new_match(seed=1)
    assert match.evaluate(0) == 0.0


def test_a_finished_game_is_worth_its_win_when_evaluated_in_place():
    """The roll-out bot scores its throw-away copies in place: a finished game's winner counted 0 there,
    because the winners were cleared before they were read."""
    text = HEURISTIC.format(body="0", result="win player(1)")
    match = rulelang.load("found.rules", text=text).new_match(seed=1)
    while not match.is_over:
        match.apply(0)
    assert match.s.winners == [0]
    assert match.evaluate(0) == 1.0 and match.evaluate(1) == 0.0
    assert match.evaluate(0, in_place=True) == 1.0
    assert match.clone().evaluate(1, in_place=True) == 0.0
