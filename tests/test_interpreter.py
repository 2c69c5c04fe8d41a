"""The interpreter on small inline games: turns, phases, triggers, continuous rules,
keywords, choices, runtime errors, determinism, save/resume, hidden information, dice."""
from __future__ import annotations

import json

import pytest

from conftest import load_rules, play_random
from rulelang.core.errors import RulesRuntimeError


def game(body: str, players: str = "2..4", order: str = "clockwise", round_: str = "play",
         max_rounds: int | None = 1, **kwargs):
    head = f'game "T" {{\n  players {players}\n  turn order {order}\n  round: {round_}\n'
    if max_rounds is not None:
        head += f"  max rounds {max_rounds}\n"
    return load_rules(head + "}\n" + body, **kwargs)


def play(body: str, players: int = 3, seed: int = 0, answers=None, **kwargs):
    """Play a game to its end, answering each choice with the next answer (default: the first option)."""
    match = game(body, **kwargs).new_match(players=players, seed=seed)
    answers = list(answers or [])
    while not match.is_over:
        match.apply(answers.pop(0) if answers else 0)
    return match


def log_of(body: str, **kwargs) -> list[str]:
    return play(body, **kwargs).s.log


# ------------------------------------------------------------------ turns


TURNS = 'phase play {\n  take turns from player(1) %s { log "{current}" }\n}\n'


@pytest.mark.parametrize("order, option, seats", [
    ("clockwise", "once", [1, 2, 3, 4]),
    ("counterclockwise", "once", [1, 4, 3, 2]),
    ("clockwise", "counterclockwise once", [1, 4, 3, 2]),
    ("counterclockwise", "clockwise once", [1, 2, 3, 4]),
])
def test_turn_order(order, option, seats):
    assert log_of(TURNS % option, order=order, players=4) == [f"Player {s}" for s in seats]


def test_turns_start_from_the_given_player():
    body = 'phase play {\n  take turns from player(3) once { log "{current}" }\n}\n'
    assert log_of(body, players=4) == ["Player 3", "Player 4", "Player 1", "Player 2"]


def test_skipping():
    body = 'phase play {\n  take turns from player(1) skipping seat(current) % 2 == 0 once { log "{current}" }\n}\n'
    assert log_of(body, players=4) == ["Player 1", "Player 3"]


def test_until_goes_round_the_table():
    body = ('var n: int = 0\nphase play {\n  take turns from player(2) until n >= 5 {\n'
            '    n += 1\n    log "{current}"\n  }\n}\n')
    assert log_of(body, players=3) == ["Player 2", "Player 3", "Player 1", "Player 2", "Player 3"]


def test_until_and_skipping_together():
    body = ('player { done: bool = false }\nphase play {\n'
            '  take turns from player(1) skipping current.done until all(p in players where p.done) {\n'
            '    log "{current}"\n    if seat(current) == 2 or round > 0 { current.done = true }\n  }\n}\n')
    assert log_of(body, players=3) == ["Player 1", "Player 2", "Player 3"]


def test_current_is_the_player_taking_a_turn():
    body = ('player { turns: int = 0 }\nphase play {\n  take turns once { current.turns += 1 }\n}\n'
            'result { win [p in players where p.turns == 1] }\n')
    assert play(body, players=3).result["winners"] == [1, 2, 3]


# ------------------------------------------------------------------ rounds, phases and ending them


def test_phase_skipped_with_unless():
    body = ('phase refill unless round == 1 { log "refill {round}" }\n'
            'phase play { log "play {round}" }\n')
    assert log_of(body, round_="refill, play", max_rounds=3) == [
        "play 1", "refill 2", "play 2", "refill 3", "play 3"]


def test_max_rounds_ends_the_game():
    m = play('phase play { log "{round}" }', max_rounds=4)
    assert m.is_over and m.result["rounds"] == 4 and m.s.log == ["1", "2", "3", "4"]


def test_end_turn():
    body = 'phase play {\n  take turns once {\n    log "a {current}"\n    end turn\n    log "never"\n  }\n}\n'
    assert log_of(body, players=2) == ["a Player 1", "a Player 2"]


def test_end_phase():
    body = ('phase one {\n  take turns once {\n    log "a {current}"\n    end phase\n  }\n  log "never"\n}\n'
            'phase two { log "two" }\n')
    assert log_of(body, players=2, round_="one, two") == ["a Player 1", "two"]


def test_end_round():
    body = ('phase one {\n  log "one {round}"\n  end round\n}\nphase two { log "never" }\n'
            'at end of round { log "end {round}" }\n')
    assert log_of(body, round_="one, two", max_rounds=2) == ["one 1", "end 1", "one 2", "end 2"]


def test_end_game_runs_the_result():
    body = ('phase play {\n  take turns once {\n    if seat(current) == 2 { end game }\n    log "{current}"\n  }\n}\n'
            'result { log "result"\n win player(2) }\n')
    m = play(body, players=3, max_rounds=None)
    assert m.s.log == ["Player 1", "result"]
    assert m.result["winners"] == [2] and m.result["rounds"] == 1


def test_no_win_means_no_winner():
    assert play('phase play { end game }').result["winners"] == []


def test_win_a_list_of_players():
    assert play('phase play { end game }\nresult { win players }', players=3).result["winners"] == [1, 2, 3]


# ------------------------------------------------------------------ triggers


def test_timing_triggers_in_order():
    body = '''
at start of game { log "start game" }
at start of round { log "start round {round}" }
at end of round { log "end round {round}" }
at start of phase { log "start phase {phase}" }
at end of phase { log "end phase {phase}" }
at start of phase b { log "start of b only" }
at start of turn { log "start turn {current}" }
at end of turn { log "end turn {current}" }
at end of game { log "end game" }
phase a { take turns once { log "turn {current}" } }
phase b { log "b" }
'''
    assert log_of(body, players=2, round_="a, b") == [
        "start game", "start round 1", "start phase a",
        "start turn Player 1", "turn Player 1", "end turn Player 1",
        "start turn Player 2", "turn Player 2", "end turn Player 2",
        "end phase a", "start phase b", "start of b only", "b", "end phase b", "end round 1", "end game"]


def test_trigger_condition_and_name():
    body = 'at start of round if round % 2 == 0 as even_rounds { log "even {round}" }\nphase play { }\n'
    assert log_of(body, max_rounds=4) == ["even 2", "even 4"]


CARDS = '''
component Card { point: int; label "card {point}" }
cards all_cards in deck { Card(point: p) for p in 1..6 }
zone deck hidden
zone hand per player private
zone pile
'''


def test_when_a_card_enters_or_leaves_a_zone():
    body = CARDS + '''
when c enters pile { log "{c} enters the pile" }
when c leaves deck if c.point > 4 { log "{c} leaves the deck" }
phase play {
  move [c in deck where c.point >= 5] to pile
  move [c in deck where c.point == 1] to hand(player(1))
}
'''
    assert sorted(log_of(body)) == sorted(["card 5 leaves the deck", "card 6 leaves the deck",
                                           "card 5 enters the pile", "card 6 enters the pile"])


def test_triggers_run_after_the_statement_that_caused_them():
    body = CARDS + '''
when c enters pile {
  let n = count(pile)
  log "trigger sees {n} in the pile"
}
phase play {
  move [c in deck where c.point <= 3] to pile
  log "after the move"
}
'''
    log = log_of(body)
    assert log[:3] == ["trigger sees 3 in the pile"] * 3
    assert log[3] == "after the move"


def test_signals_carry_values():
    body = '''
player { score: int = 0 }
when scored(p, n) { p.score += n
  log "{p} +{n}" }
phase play { take turns once { signal scored(current, seat(current) * 10) } }
result { win [p in players where p.score == 20] }
'''
    m = play(body, players=3)
    assert m.s.log == ["Player 1 +10", "Player 2 +20", "Player 3 +30"]
    assert m.result["winners"] == [2]


def test_trigger_chain_that_never_ends_is_stopped():
    body = 'when ping(n) { signal ping(n + 1) }\nphase play { signal ping(1) }\n'
    with pytest.raises(RulesRuntimeError) as info:
        play(body)
    d = info.value.diagnostics[0]
    assert "never ends" in d.message and d.span.line == 7


# ------------------------------------------------------------------ continuous rules


def test_always_reaches_a_fixed_point():
    # run to a fixed point before each choice and at the ends of turns, phases and rounds
    body = '''
var a: int = 0
var b: int = 0
always { if a < 5 { a += 1 } }
always { b = a * 2 }
phase play {
  choose n from [1, 2] by player(1)
  log "{a} {b}"
}
'''
    match = game(body).new_match(players=2)
    assert (match.s.globals["a"], match.s.globals["b"]) == (5, 10)
    match.apply(0)
    assert match.s.log == ["5 10"]


def test_always_reacts_before_each_choice():
    body = CARDS + '''
var in_pile: int = 0
always { in_pile = count(pile) }
phase play {
  repeat 2 times {
    choose c from deck by player(1)
    move c to pile
  }
  log "{in_pile}"
}
'''
    match = game(body).new_match(players=2, seed=0)
    assert match.s.globals["in_pile"] == 0
    match.apply(0)
    assert match.s.globals["in_pile"] == 1
    match.apply(0)
    assert match.is_over and match.s.globals["in_pile"] == 2


def test_always_that_never_settles_is_an_error():
    body = 'var a: int = 0\nalways { a += 1 }\nphase play { }\n'
    with pytest.raises(RulesRuntimeError) as info:
        play(body)
    d = info.value.diagnostics[0]
    assert "never settle" in d.message and d.span.line == 8


# ------------------------------------------------------------------ keywords


KEYWORDS = '''
component Card { point: int; abilities: list of keyword; label "card {point}" }
cards all_cards in deck {
  Card(point: 1, abilities: [grow(2)])
  Card(point: 2, abilities: [grow(5), shy])
  Card(point: 3)
}
zone deck hidden
zone table
zone box hidden
player { score: int = 0 }
keyword shy { }
keyword grow(n) {
  usable if self.point < 3
  effect { self.point += n }
  at end of round { log "{self} grows at the end of the round" }
  when c enters table { log "{self} sees {c} arrive" }
}
'''


def test_perform_usable_and_has():
    body = KEYWORDS + '''
phase play {
  move deck to table
  for each c in table {
    if has(c, grow) and usable(grow(2), c) { perform grow(2) on c }
  }
  let points = [c.point for c in table]
  let shy_ones = count(c in table where has(c, shy))
  log "{points}"
  log "{shy_ones}"
}
'''
    log = [line for line in log_of(body) if "grows" not in line and "arrive" not in line]
    assert log == ["[3, 4, 3]", "1"]


def test_keyword_triggers_run_for_face_up_cards_in_public_zones():
    body = KEYWORDS + '''
phase play {
  move [c in deck where c.point == 1] to table
  move [c in deck where c.point == 2] to box
  move [c in deck where c.point == 3] to table
}
'''
    log = log_of(body)
    # the card in the hidden box never acts; the card on the table sees the later arrival
    assert "card 1 sees card 3 arrive" in log
    assert "card 1 grows at the end of the round" in log
    assert not any(line.startswith("card 2") for line in log)


def test_keyword_uses_are_counted():
    body = KEYWORDS.replace("at end of round", "at end of game") + (
        'phase play {\n  move [c in deck where c.point == 3] to table\n  move deck to box\n'
        '  for each c in box where has(c, grow) { perform grow(1) on c }\n}\n')
    # two performs and the one `when c enters table` (no grow card is face up in a public zone then)
    assert play(body).result["keyword_uses"] == {"grow": 2}


# ------------------------------------------------------------------ choices


CHOICE_GAME = CARDS + '''
player { total: int = 0 }
setup {
  shuffle deck
  for each p in players { draw 2 from deck to hand(p) }
}
phase play {
  take turns once {
    choose c from hand(current) as "Play a card"
    current.total += c.point
    move c to pile
  }
}
result { let best = max(p.total for p in players)
  win [p in players where p.total == best] }
'''


def test_choose_lists_the_legal_options_for_the_right_player():
    match = game(CHOICE_GAME).new_match(players=2, seed=1)
    assert match.to_move == 0
    assert match.prompt == "Play a card"
    options = match.legal_options()
    assert len(options) == 2
    assert all(o.label.startswith("card ") for o in options)
    assert [o.index for o in options] == [0, 1]
    match.apply(options[1])
    assert match.to_move == 1


def test_the_choice_made_is_the_one_applied():
    m = game(CHOICE_GAME).new_match(players=2, seed=1)
    labels = [o.label for o in m.legal_options()]
    points = sorted(int(label.split()[1]) for label in labels)
    m.apply(labels.index(f"card {points[-1]}"))
    assert m.s.players[0].attrs["total"] == points[-1]


def test_a_choice_with_one_option_is_taken_automatically():
    body = CARDS + 'phase play {\n  choose c from deck where c.point == 4 by player(1)\n  log "{c}"\n}\n'
    m = game(body).new_match(players=2)
    assert m.is_over and m.s.log == ["card 4"] and m.s.decisions == 0


def test_choose_block_options_are_every_binding():
    body = CARDS + '''
phase play {
  choose by player(2) as "What now?" {
    option take(c in deck where c.point <= 2) { log "take {c}" }
    option pair(a in [1, 2], b in [1, 2] where a < b) { log "pair {a} {b}" }
    option rest if round == 1 { log "rest" }
    option never if round == 5 { log "never" }
  }
}
'''
    match = game(body).new_match(players=2)
    assert match.to_move == 1
    assert [o.name for o in match.legal_options()] == ["take", "take", "pair", "rest"]
    assert match.legal_options()[2].label == "pair 1, 2"
    match.apply(2)
    assert match.s.log == ["pair 1 2"]


def test_for_each_chosen_by_lets_a_player_pick_the_order():
    body = CARDS + '''
phase play {
  move deck to pile
  for each c in pile where c.point <= 3 chosen by player(1) { log "{c}" }
}
'''
    match = game(body).new_match(players=2)
    assert sorted(o.label for o in match.legal_options()) == ["card 1", "card 2", "card 3"]
    match.apply([o.label for o in match.legal_options()].index("card 3"))
    assert len(match.legal_options()) == 2
    match.apply([o.label for o in match.legal_options()].index("card 1"))
    assert match.is_over
    assert match.s.log == ["card 3", "card 1", "card 2"]


def test_for_each_chosen_by_leaves_the_list_it_walks_alone():
    # the loop picks items off its own copy: a global's list and a def's (remembered) list stay whole
    body = """
var picks: list of int = [3, 1, 2]
def order = [10, 20, 30]
phase play {
  take turns from player(1) once {
    for each x in picks chosen by current { log "{x}" }
    for each y in order chosen by current { log "{y}" }
    log "picks {picks} order {order}"
  }
}
"""
    match = game(body, players="1").new_match()
    while not match.is_over:
        match.apply(len(match.legal_options()) - 1)
    assert match.s.log == ["2", "1", "3", "30", "20", "10", "picks [3, 1, 2] order [10, 20, 30]"]
    assert match.s.globals["picks"] == [3, 1, 2]


def test_optional_choice_offers_nothing():
    body = CARDS + '''
phase play {
  choose c from deck where c.point > 4 by player(1) optional
  if c == none { log "none" } else { log "{c}" }
}
'''
    match = game(body).new_match(players=2)
    labels = [o.label for o in match.legal_options()]
    assert "nothing" in labels and len(labels) == 3
    match.apply(labels.index("nothing"))
    assert match.s.log == ["none"]


def test_optional_choice_with_nothing_to_choose_goes_on():
    body = CARDS + 'phase play {\n  choose c from deck where c.point > 10 by player(1) optional\n  if c == none { log "none" }\n}\n'
    assert log_of(body) == ["none"]


def test_choice_without_options_names_the_rules_line():
    body = CARDS + 'phase play {\n  log "before"\n  choose c from deck where c.point > 10 by player(1)\n}\n'
    with pytest.raises(RulesRuntimeError) as info:
        play(body)
    d = info.value.diagnostics[0]
    assert d.span.file == "inline.rules" and d.span.line == 15
    assert "choose c from deck" in d.format()


def test_infinite_while_loop_names_its_line():
    body = 'var n: int = 0\nphase play {\n  while n >= 0 {\n    n += 1\n  }\n}\n'
    with pytest.raises(RulesRuntimeError) as info:
        play(body)
    d = info.value.diagnostics[0]
    assert d.span.file == "inline.rules" and d.span.line in (9, 10)
    assert "loop" in d.message and "without ending" in d.message


@pytest.mark.parametrize("op", ["/", "%"])
def test_division_by_zero_names_its_line_and_the_value_divided(op):
    body = f'var n: int = 0\nvar r: int = 0\nphase play {{\n  r = 7 {op} n\n}}\n'
    with pytest.raises(RulesRuntimeError) as info:
        play(body)
    d = info.value.diagnostics[0]
    assert d.span.line == 10
    assert d.message == f'division by zero: 7 {op} 0 (the value after "{op}" is 0 here: check that it is not 0 before dividing)'


# ------------------------------------------------------------------ determinism, saving, resuming


def test_same_seed_and_choices_give_identical_matches():
    g = game(CHOICE_GAME + "\nphase extra {\n  let r = roll(6)\n  log \"{r}\"\n}", round_="play, extra", max_rounds=2)
    a, b = g.new_match(players=3, seed=11), g.new_match(players=3, seed=11)
    assert play_random(a, seed=4) == play_random(b, seed=4)
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
    assert a.result == b.result


def test_different_seeds_deal_differently():
    g = game(CHOICE_GAME)
    deals = {tuple(sorted(o.label for o in g.new_match(players=2, seed=s).legal_options())) for s in range(8)}
    assert len(deals) > 1


def test_save_while_a_choice_is_pending_and_resume_identically():
    g = game(CHOICE_GAME + "\nphase again { take turns once { choose c from hand(current) by current\n move c to pile } }",
             round_="play, again")
    original = g.new_match(players=3, seed=5)
    original.apply(1)
    assert original.s.pending is not None
    data = json.loads(json.dumps(original.to_json()))  # through text, as a file would be
    resumed = g.match_from_json(data)
    assert resumed.to_move == original.to_move
    assert [o.label for o in resumed.legal_options()] == [o.label for o in original.legal_options()]
    rest_a = play_random(original, seed=9)
    rest_b = play_random(resumed, seed=9)
    assert rest_a == rest_b
    assert original.result == resumed.result
    assert original.to_json() == resumed.to_json()


def test_save_and_resume_keeps_the_random_generator():
    body = 'var total: int = 0\nphase play {\n  choose n from [1, 2] by player(1)\n  repeat 5 times { total += roll(6) }\n}\n'
    g = game(body, max_rounds=3)
    a = g.new_match(players=2, seed=2)
    b = g.match_from_json(a.to_json())
    for _ in range(3):
        a.apply(0)
        b.apply(0)
    assert a.is_over and b.is_over
    assert a.s.globals["total"] == b.s.globals["total"]


def test_a_save_from_other_rules_is_refused():
    from rulelang.core.errors import RulesError

    a = game(CHOICE_GAME).new_match(players=2, seed=1)
    other = game(CHOICE_GAME + "\n// changed\n")
    with pytest.raises(RulesError):
        other.match_from_json(a.to_json())


def test_a_damaged_save_is_refused_in_plain_words():
    """A save cut short or edited by hand is a rules error naming what is wrong, not a traceback."""
    from rulelang.core.errors import RulesError

    g = game(CHOICE_GAME)
    good = g.new_match(players=2, seed=1).to_json()
    damaged = [{**good, "entities": "nothing"}, {k: v for k, v in good.items() if k != "stack"},
               {**good, "pending": {**good["pending"], "span": ["x.rules", "one", 2]}}, ["not", "a", "save"]]
    for data in damaged:
        with pytest.raises(RulesError) as info:
            g.match_from_json(data)
        assert "saved match" in info.value.format()


# ------------------------------------------------------------------ hidden information


SECRET = '''
component Card { name: str; label "{name}"; discards to table }
cards secrets in deck {
  Card(name: "Zebraglyph")
  Card(name: "Quokkastone")
  Card(name: "Vermilionix")
  Card(name: "Amberwisp")
  Card(name: "Lumenfrond")
  Card(name: "Cobaltquill")
}
zone deck hidden
zone hand per player private
zone table
setup {
  shuffle deck
  draw 2 from deck to hand(player(1))
  draw 2 from deck to hand(player(2))
}
phase play {
  choose c from hand(player(1)) by player(1)
  move c to table
}
'''


def test_private_hand_and_hidden_deck_stay_secret():
    match = game(SECRET).new_match(players=2, seed=3)
    s = match.s
    hand1 = [e.attrs["name"] for e in s.zones["hand#1"].items]
    hand2 = [e.attrs["name"] for e in s.zones["hand#2"].items]
    deck = [e.attrs["name"] for e in s.zones["deck"].items]
    assert len(hand1) == len(hand2) == 2 and len(deck) == 2
    view1 = json.dumps(match.view(0))
    view2 = json.dumps(match.view(1))
    # each player sees their own hand, nobody sees the deck or the other hand
    for name in hand1:
        assert name in view1 and name not in view2
    for name in hand2:
        assert name in view2 and name not in view1
    for name in deck:
        assert name not in view1 and name not in view2
    assert match.view(1)["zones"]["deck"]["count"] == 2
    assert match.view(1)["zones"]["hand#1"]["count"] == 2
    # the pending choice is player 1's: player 2 does not even see its options
    assert match.view(1)["choice"] is None
    assert hand1[0] in json.dumps(match.view(0)["choice"])


def test_a_card_played_face_up_becomes_visible():
    match = game(SECRET).new_match(players=2, seed=3)
    played = match.s.zones["hand#1"].items[0].attrs["name"]
    match.apply(0) if not match.is_over else None
    assert played in json.dumps(match.view(1))


def test_reveal_shows_a_card_to_one_player_until_it_moves():
    body = SECRET[:SECRET.index("phase play")] + '''
phase play {
  let c = top(hand(player(1)))
  reveal c to player(2)
  choose n from [1, 2] by player(2)
  move c to deck
  choose m from [1, 2] by player(2)
}
'''
    match = game(body).new_match(players=2, seed=3)
    secret = match.s.zones["hand#1"].items[-1].attrs["name"]  # the top of the hand
    other = match.s.zones["hand#1"].items[0].attrs["name"]
    assert secret in json.dumps(match.view(1)) and other not in json.dumps(match.view(1))
    match.apply(0)
    assert not match.is_over
    assert secret not in json.dumps(match.view(1))  # it moved into the deck: secret again
    assert secret not in json.dumps(match.view(0))


def test_face_down_card_in_a_public_zone_is_seen_by_its_owner_only():
    # a card's owner is set when it is created in a player's zone, or by the rules (`c.owner = p`)
    body = SECRET.replace("move c to table", "c.owner = player(1)\n  move c to table face down\n"
                                             "  choose n from [1, 2] by player(2)")
    match = game(body).new_match(players=2, seed=3)
    secret = match.legal_options()[0].label
    match.apply(0)
    assert not match.is_over
    assert match.s.zones["table"].items[0].face_down
    assert secret in json.dumps(match.view(0))
    assert secret not in json.dumps(match.view(1))


def test_an_opponents_option_labels_hide_secret_cards():
    match = game(SECRET).new_match(players=2, seed=3)
    # seat 0 is choosing among its own hand; an outsider's view of the same labels hides them
    from rulelang.engine.runtime import option_label

    option = match.s.pending["options"][0]
    assert option_label(match.s, option, 1).startswith("a hidden card")


# ------------------------------------------------------------------ dice


DICE = '''
player { rolled: list of int = [] }
phase play {
  take turns once {
    repeat 10 times { current.rolled = current.rolled + [roll(6)] }
  }
  let total = sum(sum(p.rolled) for p in players)
  log "{total}"
}
'''


def test_dice_are_deterministic_per_seed():
    g = game(DICE)

    def rolls(seed):
        m = g.new_match(players=2, seed=seed)
        return [p.attrs["rolled"] for p in m.s.players]

    assert rolls(7) == rolls(7)
    assert len({json.dumps(rolls(s)) for s in range(6)}) > 1
    assert all(1 <= r <= 6 for seat in rolls(7) for r in seat)


def test_dice_totals_stay_in_range():
    body = 'var r: int = 0\nphase play {\n  repeat 200 times {\n    r = roll(2, 6)\n    if r < 2 or r > 12 { fail "out of range: {r}" }\n  }\n}\n'
    match = play(body, seed=3)  # (a total out of range would stop the match with a rules error)
    assert match.is_over and 2 <= match.s.globals["r"] <= 12


# ------------------------------------------------------------------ prompts


PROMPTS = '''zone deck
zone hand per player
component Card {
  value: int
  label "card {value}"
}
cards deck_cards in deck {
  Card(value: v) for v in 1..3
}
var picks: int = 0
phase play {
  take turns once {
    let n = picks + 1
    choose c from deck by current as "{current} takes card number {n}"
    move c to hand(current)
    picks += 1
    choose by current as "{current}, you have picked {picks} so far" {
      option keep { }
      option give { }
    }
  }
}
'''


def test_a_prompt_shows_values_when_it_is_asked():
    match = game(PROMPTS).new_match(players=2, seed=1)
    seen = []
    while not match.is_over:
        seen.append(match.prompt)
        match.apply(0)
    assert seen == ["Player 1 takes card number 1", "Player 1, you have picked 1 so far",
                    "Player 2 takes card number 2", "Player 2, you have picked 2 so far"]


def test_a_saved_match_keeps_its_shown_prompt():
    match = game(PROMPTS).new_match(players=2, seed=1)
    match.apply(0)
    again = match.game.match_from_json(json.dumps(match.to_json()))
    assert again.prompt == "Player 1, you have picked 1 so far"


@pytest.mark.parametrize("keyword, component, statement, line", [
    # performed: said at the `perform`
    ('keyword boost(n) { effect { log "{n}" } }', "", "perform (if flip then boost else boost(1))", 5),
    # carried by a card: said where the keyword's continuous rule runs
    ("keyword boost(n) { always { self.power = n } }",
     "component C { power: int = 0  k: keyword = boost(1) }\ncards cs in pile { C() }\nzone pile\n",
     "top(pile).k = (if flip then boost else boost(2))", 2),
])
def test_a_keyword_made_without_its_values_is_said_in_words(keyword, component, statement, line):
    """`check` refuses a keyword with parameters given bare; one made by an expression it cannot
    follow (`if ... then boost else boost(1)`) is said in words where the keyword runs, not as
    Python's KeyError."""
    game = load_rules(f'game "K" {{ players 2  round: play }}\n{keyword}\n{component}var flip: bool = true\n'
                      f'phase play {{\n  take turns once {{ {statement} }}\n  end game\n}}\n')
    with pytest.raises(RulesRuntimeError) as info:
        game.new_match(seed=1)
    message = info.value.format()
    assert 'keyword "boost" takes 1 value(s), but this one carries 0' in message and "KeyError" not in message
    assert f":{line}:" in message.splitlines()[0]
