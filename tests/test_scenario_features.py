"""Scenario features a designer needs without tricks (issue 40): every failure reported with the
match's standing, fixed chance (`next roll`, `next random`, `next shuffle`), exact run units,
stopping at a choice of one option, what an expectation can read, and position helpers.

The game below is made for these tests: two phases of steps and turns, triggers at the end of a
phase and of a round, dice, a random pick, a shuffle and a set of markers only setup creates.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rulelang.tools.scenario import run_file

GAME = '''
game "Probe" {
  players 2..3 default 2
  turn order clockwise
  round: one, two
}
component Chip { n: int  label "chip {n}" }
component Marker { kind: int  label "marker" }
cards chips in bag { Chip(n: k) for k in 1..6 }
cards markers { Marker(kind: 1) }
zone bag
zone pool
zone secret hidden
zone hand per player private
player { score: int = 0 }
var marks: int = 0
var rolled: int = 0
var picked: int = 0
var top_n: int = 0
var finish: bool = false
setup { create markers in pool }
phase one {
  step a { marks += 1 }
  step b { marks += 10 }
  step c {
    rolled = roll(2, 6)
    picked = random([3, 5, 7])
    shuffle bag
    if not empty(bag) { top_n = top(bag).n }
  }
}
phase two {
  take turns once {
    choose c from hand(current) as "Pick a chip"
    current.score += c.n
    move c to bag
  }
}
at end of phase one { marks += 100 }
at end of round { marks += 1000 }
at end of phase two { if finish { end game } }
result { win [p in players where p.score == max(q.score for q in players)] }
'''


def run(tmp_path: Path, body: str):
    (tmp_path / "probe.rules").write_text(GAME, encoding="utf-8")
    path = tmp_path / "s.rules"
    path.write_text('scenario "s" {\n  game "probe.rules"\n' + body + "}\n", encoding="utf-8")
    [result] = run_file(path, {})
    assert "Traceback" not in result.message
    return result


def passes(tmp_path: Path, body: str):
    result = run(tmp_path, body)
    assert result.passed, result.message
    return result


HANDS = "    hand of player 1: Chip(n: 1), Chip(n: 2)\n    hand of player 2: Chip(n: 5), Chip(n: 6)\n"


# ------------------------------------------------------------------ every failure reported

def test_a_block_with_two_wrong_expectations_reports_both(tmp_path):
    result = run(tmp_path, "  position {\n    phase one\n  }\n  run step a\n"
                 "  expect marks == 2\n  expect marks == 1\n  expect marks == 3\n")
    assert not result.passed
    assert [span.line for span, _ in result.failures] == [7, 9]
    assert "left side is 1, right side is 2" in result.failures[0][1]
    assert "left side is 1, right side is 3" in result.failures[1][1]


def test_a_failing_boolean_shows_its_parts_and_where_the_match_stands(tmp_path):
    result = run(tmp_path, "  position {\n    phase two\n" + HANDS + "  }\n  run phase two\n"
                 "  expect game_over\n  expect empty(hand(player(1))) and marks > 0\n")
    first, second = (report for _, report in result.failures)
    assert "game_over is false" in first
    assert 'the match: round 1, phase two, Player 1\'s turn, Player 1 is to choose "Pick a chip" among: chip 2, chip 1' in first
    assert "empty(hand(player(1))) is false" in second and "marks > 0 is false" in second


def test_a_failed_run_ends_the_block(tmp_path):
    result = run(tmp_path, "  position {\n    phase two\n  }\n  run phase two\n  expect marks == 5\n")
    assert len(result.failures) == 1 and "the rules failed here" in result.message


# ------------------------------------------------------------------ fixed chance

def test_queued_dice_a_pick_and_a_shuffle_are_used_in_order(tmp_path):
    passes(tmp_path, "  position {\n    phase one\n    next roll 6, 4\n  }\n  next random 5\n"
           "  next shuffle bag: Chip(n: 3)\n  run step c\n"
           "  expect rolled == 10\n  expect picked == 5\n  expect top_n == 3\n")


def test_a_queued_roll_no_rule_uses_fails_the_scenario(tmp_path):
    result = run(tmp_path, "  position {\n    phase one\n  }\n  next roll 6, 4, 2\n  run step c\n  expect rolled == 10\n")
    assert not result.passed and result.failed_at.line == 6
    assert "this queued roll 2 was never used: the runs rolled no more dice" in result.message


def test_a_queued_roll_a_die_cannot_show_is_said_at_the_rule(tmp_path):
    result = run(tmp_path, "  position {\n    phase one\n  }\n  next roll 7\n  run step c\n  expect true\n")
    assert "the scenario's queued roll 7" in result.message and "cannot come up on a die of 6 sides" in result.message


def test_a_queued_pick_that_is_not_offered_is_said(tmp_path):
    result = run(tmp_path, "  position {\n    phase one\n  }\n  next random 4\n  run step c\n  expect true\n")
    assert "queued random pick 4" in result.message and "not among the 3 items random() was given" in result.message


# ------------------------------------------------------------------ exact run units

def test_run_step_runs_that_step_alone(tmp_path):
    passes(tmp_path, "  position {\n    phase one\n  }\n  run step b\n  expect marks == 10\n")


def test_run_step_after_a_step_runs_on_from_there(tmp_path):
    passes(tmp_path, "  position {\n    phase one\n  }\n  run step a\n  expect marks == 1\n"
           "  run step b\n  expect marks == 11\n")


def test_run_phase_includes_its_end_of_phase_triggers_and_stops_there(tmp_path):
    passes(tmp_path, "  position {\n    phase one\n  }\n  run phase one\n  expect marks == 111\n"
           "  expect phase == none or phase == \"one\"\n  expect chooser == none\n")


def test_run_round_includes_its_end_of_round_triggers(tmp_path):
    passes(tmp_path, "  position {\n    phase two\n" + HANDS + "  }\n  choose \"chip 1\"\n  choose \"chip 5\"\n"
           "  run round\n  expect marks == 1000\n  expect round == 1\n")


def test_a_unit_that_reaches_the_end_resolves_it_completely(tmp_path):
    passes(tmp_path, "  position {\n    phase two\n    set finish = true\n" + HANDS + "  }\n"
           "  choose \"chip 1\"\n  choose \"chip 5\"\n  run phase two\n"
           "  expect game_over\n  expect winners == [player(2)]\n")


def test_a_run_stops_at_a_choice_with_no_answer_queued(tmp_path):
    passes(tmp_path, "  position {\n    phase two\n" + HANDS + "  }\n  run round\n"
           "  expect chooser == player(1)\n  expect prompt == \"Pick a chip\"\n  expect offered == [\"chip 2\", \"chip 1\"]\n")


# ------------------------------------------------------------------ single-option choices

def test_stop_at_every_choice_stops_at_a_choice_of_one_option(tmp_path):
    body = ("  position {\n    phase two\n    hand of player 1: Chip(n: 1)\n    hand of player 2: Chip(n: 5)\n  }\n"
            "  %s\n  expect offered == [\"chip 1\"]\n  choose \"chip 1\"\n  %s\n  expect chooser == player(2)\n")
    passes(tmp_path, body % ("stop at every choice\n  run phase two", "run choice"))
    passes(tmp_path, body % ("run phase two stop at every choice", "run choice stop at every choice"))
    result = run(tmp_path, body % ("run phase two", "run choice"))  # without it, the choice is taken by itself
    assert not result.passed


# ------------------------------------------------------------------ what an expectation reads

def test_prompt_turn_number_current_step_contains_and_visible_to(tmp_path):
    passes(tmp_path, "  position {\n    phase two\n" + HANDS + "    secret: Chip(n: 4)\n  }\n  run choice\n"
           "  expect contains(prompt, \"chip\")\n  expect contains(offered, \"chip 2\")\n"
           "  expect not contains(offered, \"chip 5\")\n  expect turn_number == 1\n  expect current_step == none\n"
           "  expect visible_to(player(1), hand(player(1))[0])\n  expect not visible_to(player(2), hand(player(1))[0])\n"
           "  expect not visible_to(player(1), top(secret))\n"
           "  choose \"chip 2\"\n  run choice\n  expect turn_number == 2\n")


def test_a_helper_given_the_wrong_values_says_which_and_where(tmp_path):
    """contains() and visible_to() misused in an expectation: the scenario fails at that expectation,
    naming the helper and what it was given, never with Python's words."""
    cases = {'contains(5, "x")': "contains() looks in a text or a list, not in 5",
             "contains(prompt, 5)": "contains() looks in a text or a list, not in none",  # (no choice pending)
             'contains("chips", 5)': "contains() looks for a text in a text, not for 5",
             "visible_to(1, 2)": "visible_to() takes a player and a card, not 1 and 2"}
    for expr, words in cases.items():
        result = run(tmp_path, "  position {\n    phase one\n  }\n  expect " + expr + "\n")
        assert not result.passed
        assert [(span.line, span.column) for span, _ in result.failures] == [(6, 10)]
        assert result.message.startswith(words + "\n    6 |   expect " + expr), result.message


# ------------------------------------------------------------------ positions

def test_copies_a_loop_a_start_at_a_step_and_repeat(tmp_path):
    passes(tmp_path, "  position {\n    step b\n    pool: Marker(kind: 1) * 3\n"
           "    for k in [1, 3] { hand of player 1: Chip(n: k) }\n    hand of player 2: Chip(n: 5), Chip(n: 6)\n  }\n"
           "  expect count(pool) == 3\n  expect count(hand(player(1))) == 2\n"
           "  run phase one\n  expect marks == 110\n"
           "  stop at every choice\n  repeat 2 {\n    choose option 1\n    run choice\n  }\n"
           "  expect round == 2\n  expect count(offered) == 1\n  expect marks == 1221\n")


def test_copies_of_a_declared_deck_card_are_not_made_up(tmp_path):
    result = run(tmp_path, "  position {\n    phase one\n    hand of player 1: Chip(n: 1) * 2\n  }\n  run step a\n"
                 "  expect true\n")
    assert "Chip(n: 1) * 2 asks for 2 such cards, but the game has only 1: a position takes the game's own cards" \
        in result.message
    assert "expected: at most `* 1` here" in result.message
    assert result.failed_at.line == 5 and result.failed_at.column == 23  # at the card, in the scenario


def test_copies_of_a_declared_deck_take_that_many_of_its_cards(tmp_path):
    """`* N` of a deck's cards takes N different cards of the deck that fit, wherever they are."""
    passes(tmp_path, "  position {\n    phase one\n    hand of player 1: Chip() * 4\n    hand of player 2: Chip() * 2\n"
           "  }\n  expect count(hand(player(1))) == 4\n  expect count(hand(player(2))) == 2\n  expect empty(bag)\n"
           "  expect sum(c.n for c in hand(player(1))) + sum(c.n for c in hand(player(2))) == 21\n")
    # the deck has six chips: two lines asking for seven between them fail at the second, counting the first's
    result = run(tmp_path, "  position {\n    phase one\n    hand of player 1: Chip() * 4\n"
                 "    hand of player 2: Chip() * 3\n  }\n  expect true\n")
    assert ("Chip() * 3 asks for 3 such cards, but the game has 6, and 4 of them are placed by earlier lines "
            "of this position") in result.message
    assert "expected: at most `* 2` here" in result.message and result.failed_at.line == 6


# ------------------------------------------------------------------ the JSON form

def run_json(tmp_path: Path, scenarios: list) -> list:
    import json

    (tmp_path / "probe.rules").write_text(GAME, encoding="utf-8")
    path = tmp_path / "s.json"
    path.write_text(json.dumps([{"game": "probe.rules", **s} for s in scenarios], indent=1), encoding="utf-8")
    return run_file(path, {})


def test_the_json_form_takes_every_line_of_the_text_form(tmp_path):
    """Fixed chance, copies, a loop, a start at a step, repeat, stop at every choice and the answers
    by option, card and cell: each scenario below is one of the text-form tests above, in JSON."""
    results = run_json(tmp_path, [
        {"name": "chance", "position": {"phase": "one", "next_roll": [6, 4]},
         "steps": [{"next_random": [5]}, {"next_shuffle": {"bag": ["Chip(n: 3)"]}}, {"run": "step c"},
                   {"expect": "rolled == 10"}, {"expect": "picked == 5"}, {"expect": "top_n == 3"}]},
        {"name": "copies, a loop, a step and repeat",
         "position": {"step": "b", "zones": {"pool": ["Marker(kind: 1) * 3"], "hand of player 2": ["Chip(n: 5)", "Chip(n: 6)"]},
                      "for": [{"var": "k", "in": "[1, 3]", "zones": {"hand of player 1": ["Chip(n: k)"]}}]},
         "steps": [{"expect": "count(pool) == 3"}, {"expect": "count(hand(player(1))) == 2"}, {"run": "phase one"},
                   {"expect": "marks == 110"}, {"stop_at_every_choice": True},
                   {"repeat": 2, "steps": [{"choose_option": 1}, {"run": "choice"}]},
                   {"expect": "round == 2"}, {"expect": "count(offered) == 1"}, {"expect": "marks == 1221"}]},
        {"name": "a run that stops at every choice, an answer by card",
         "position": {"phase": "two", "zones": {"hand of player 1": "Chip(n: 1)", "hand of player 2": ["Chip(n: 5)"]}},
         "steps": [{"run": "phase two", "stop_at_every_choice": True}, {"expect": "offered == [\"chip 1\"]"},
                   {"choose_card": "hand(player(1))[0]", "rule": "the one chip in hand"},
                   {"run": "choice", "stop_at_every_choice": True}, {"expect": "chooser == player(2)"}]},
        {"name": "an expected error", "position": {"phase": "two", "zones": {"hand of player 1": ["Chip(n: 1)", "Chip(n: 2)"],
                                                                          "hand of player 2": ["Chip(n: 5)"]}},
         "steps": [{"choose": "chip 4"}, {"run": "choice"}, {"expect_error": "matches none"},
                   {"expect": "chooser == player(1)"}]},
    ])
    assert [(r.name, r.passed) for r in results] == [
        ("chance", True), ("copies, a loop, a step and repeat", True),
        ("a run that stops at every choice, an answer by card", True), ("an expected error", True)], \
        [r.message for r in results if not r.passed]


def test_the_json_form_writes_the_text_form_line_for_line():
    import json

    from rulelang.tools.scenario import json_file_to_rules

    text = json_file_to_rules(json.dumps({
        "rule": "\"Deal five cards.\"", "name": "x", "game": "highcard", "variant": ["lowball"], "players": 2,
        "settings": {"hand_size": 3, "mode": "quick", "title": "Two words", "strict": False},
        "position_file": "saved.json",
        "steps": [{"run": "setup"}, {"choose_cell": "(1, 0)"},
                  {"repeat": 2, "steps": [{"next_roll": 6}, {"run": "choice"}]}]}), "x.json")
    assert text.split("\n") == [
        '/// "Deal five cards."', 'scenario "x" {', '  game "highcard"', "  variant lowball", "  players 2",
        "  setting hand_size = 3", "  setting mode = quick", '  setting title = "Two words"', "  setting strict = false",
        '  position from "saved.json"', "  run setup", "  choose cell (1, 0)", "  repeat 2 {", "    next roll 6",
        "    run choice", "  }", "}", ""]


def test_a_json_setting_loads_the_game_with_it(tmp_path):
    import json

    path = tmp_path / "deal.json"
    path.write_text(json.dumps({"name": "three cards each", "game": "highcard", "players": 2,
                                "rule": "\"How many cards each player is dealt. Change it with `--set hand_size=3`.\"",
                                "settings": {"hand_size": 3},
                                "steps": [{"run": "setup"}, {"expect": "count(hand(player(1))) == 3"},
                                          {"expect": "count(hand(player(2))) == 3"}]}), encoding="utf-8")
    [result] = run_file(path, {})
    assert result.passed, result.message


@pytest.mark.parametrize("text, where, words", [
    ('{"game": "probe.rules",\n "steps": [{"expcet": "true"}]}', (2, 13), 'a step has no key "expcet"'),
    ('{"game": "probe.rules",\n "players": "two"}', (2, 2), '"players" is a whole number in a JSON scenario, not "two"'),
    ('{"game": "probe.rules",\n "steps": [{"run": "phase one", "expect": "true"}]}', (2, 33),
     "a step does one thing, not run and expect"),
    ('{"game": "probe.rules",\n "position": {"phase": "one", "next_roll": ["six"]}}', (2, 31),
     '"next_roll" is a list of whole numbers'),
    ('{"game": "probe.rules",\n "steps": [', (2, 12), "this JSON scenario file does not read"),
])
def test_a_json_scenario_that_does_not_fit_the_form_is_said_at_its_place(tmp_path, text, where, words):
    from rulelang.core.errors import RulesError

    (tmp_path / "probe.rules").write_text(GAME, encoding="utf-8")
    path = tmp_path / "s.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        run_file(path, {})
    d = caught.value.diagnostics[0]
    assert words in d.message and (d.span.line, d.span.column) == where, (d.message, d.span)
    assert d.span.file == str(path)


def test_a_position_file_that_holds_no_saved_match_fails_at_its_line(tmp_path):
    """`position from "FILE"` takes a match saved as JSON; any other JSON object is said, not ignored."""
    (tmp_path / "other.json").write_text('{"round": 3}', encoding="utf-8")
    path = tmp_path / "s.rules"
    path.write_text('scenario "s" {\n  game "tictactoe"\n  players 2\n  position from "other.json"\n'
                    '  expect true\n}\n', encoding="utf-8")
    [result] = run_file(path, {})
    assert not result.passed
    assert 'the position file "other.json" holds no saved match (it has no "stack")' in result.message
    assert "4 |   position from" in result.message


def test_a_default_that_fails_is_the_rules_error_at_its_line(tmp_path):
    # a scenario starts its match from the game's own defaults: one that cannot be worked out is said
    # as `rulelang play` says it, at the default's line, not as an internal error
    (tmp_path / "probe.rules").write_text(GAME.replace("var top_n: int = 0", "var top_n: int = 1 / 0"),
                                          encoding="utf-8")
    path = tmp_path / "s.rules"
    path.write_text('scenario "s" {\n  game "probe.rules"\n  run choice\n}\n', encoding="utf-8")
    [result] = run_file(path, {})
    assert not result.passed
    assert "probe.rules:19:18: error: division by zero: 1 / 0" in result.message
