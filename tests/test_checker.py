"""The checker on small inline rule texts: every error of a file at once, clean files pass."""
from __future__ import annotations

import pytest

from conftest import assert_plain_words, load_rules
from rulelang.check.checker import check_rules
from rulelang.core.errors import RulesError
from rulelang.language.parser import parse_text

HEAD = """game "T" {
  players 2..3
  round: play
}
enum Suit { red, black }
enum Size { small, big }
component Card {
  suit: Suit
  point: int = 1
  abilities: list of keyword
  label "{suit} {point}"
  discards to pile
}
player { score: int = 0; passed: bool = false }
cards all_cards in deck { Card(suit: s, point: p) for s in Suit, p in 1..3 }
cards extras { Card(suit: red, point: 9) * 2 }
zone deck hidden
zone hand per player private
zone pile
zone table: board grid 8
var leader: player
var turns_taken: int = 0
setting speed = fast one of fast | slow
keyword boost(n) {
  usable if n > 0
  effect { self.point += n }
}
def points(p) = sum(c.point for c in hand(p))
procedure deal(p: player, n: int) { draw n from deck to hand(p) }
"""
HEAD_LINES = HEAD.count("\n")


def check(body: str, variants=None, all_variants=True):
    return check_rules(parse_text(HEAD + body, "t.rules"), variants, all_variants=all_variants)


def errors(body: str, **kwargs) -> list:
    with pytest.raises(RulesError) as info:
        check(body, **kwargs)
    assert_plain_words(info.value.format())
    return info.value.diagnostics


def one_error(body: str, **kwargs):
    found = errors(body, **kwargs)
    assert len(found) == 1, "\n".join(d.format() for d in found)
    return found[0]


CLEAN = """
setup {
  create extras in hand(player(1))
  shuffle deck
  for each p in players { deal(p, 2) }
  leader = player(1)
}
phase play {
  take turns from leader once {
    choose by current as "What now?" {
      option play(c in hand(current), cell in (if empty(table) then [origin(table)] else frontier(table))) {
        move c to table at cell
        current.score += c.point
      }
      option pass { current.passed = true }
    }
    turns_taken += 1
  }
  for each c in table where has(c, boost) { perform boost(1) on c }
  if all(p in players where p.passed) or empty(deck) { end game }
}
at end of round if speed == fast { discard table }
when c enters pile { log "{c} discarded" }
when scored(p) { p.score += 1 }
always { if turns_taken > 100 { signal scored(leader) } }
result {
  let best = max(p.score for p in players)
  win [p in players where p.score == best]
}
variant slow_mode {
  set speed = slow
  replace def points(p) = 0
}
"""


def test_a_clean_file_passes():
    table = check(CLEAN)
    assert table.kind("deck") == "zone"
    assert table.kind("red") == "member"
    assert table.kind("boost") == "keyword"
    assert table.kind("play") == "phase"
    assert set(table.player_fields) == {"score", "passed"}


def test_a_clean_file_loads_and_plays():
    game = load_rules(HEAD + CLEAN)
    match = game.new_match(players=2, seed=3)
    while not match.is_over:
        match.apply(0)
    assert match.result is not None


def test_every_error_is_reported_at_once():
    found = errors("""
phase play {
  mvoe_card(1)
  draw from deck to hand
  current.scroe += 1
  if points() > 3 { break }
  let x = deal(current, 1)
}
phase unused { }
""")
    messages = [d.message for d in found]
    assert len(found) == 7, messages
    assert [d.span.line - HEAD_LINES for d in found] == [3, 4, 5, 6, 6, 7, 9]
    assert '"mvoe_card" is not defined' in messages[0]
    assert "hand" in messages[1]
    assert "scroe" in messages[2]
    assert "takes 1 argument" in messages[3]
    assert "break" in messages[4]
    assert "has no value" in messages[5]
    assert "never be reached" in messages[6]


@pytest.mark.parametrize("body, message, hint", [
    ("phase play { move top(deck) to pil }", '"pil" is not defined', 'did you mean "pile"?'),
    ("def total = sum(c.piont for c in deck)", 'no component or player has a field "piont"', 'did you mean "point"?'),
    ("phase play { log \"{current.scroe} points\" }", 'players have no field "scroe"', 'did you mean "score"?'),
    ("phase play { log \"{nobody} wins\" }", '"nobody" is not defined', None),
    ("phase play { log \"{count(deck)} left\" }", 'a text shows names and fields only', None),
    ("phase play { current.scroe += 1 }", 'players have no field "scroe"', 'did you mean "score"?'),
    ("phase play { let n = points(current, 2) }", 'def "points" takes 1 argument, but 2 were given', None),
    ("phase play { deal(current) }", 'procedure "deal" takes 2 arguments, but 1 was given', None),
    ("phase play { let n = count(deck, pile) }", "count() takes 1 argument, but 2 were given", None),
    ("phase play { let n = roll() }", "roll() takes 1 to 2 arguments, but 0 were given", None),
    ("phase play { points = 3 }", '"points" is a def, not a variable', None),
    ("phase play { pile = 3 }", '"pile" is a zone, not a variable', None),
    ("phase play { draw from deck to hand }", 'each player has their own "hand"', None),
    ("phase play { shuffle pile(current) }", 'zone "pile" is shared by all players', None),
    ("phase play { create extras in pile }", "cards can only be created in `setup`", None),
    ("always { choose c from pile by leader\n discard c }", "a continuous rule (`always`) cannot ask a player to choose", None),
    ("phase play { if empty(deck) { break } }", "`break` is only allowed inside a loop", None),
    ("phase play { continue }", "`continue` is only allowed inside a loop", None),
    ("when c enters piles { }", '"piles" is not a zone', 'did you mean "pile"?'),
    ("when never_sent(x) { }", 'nothing ever signals "never_sent"', None),
    ("zone pile", '"pile" is declared twice (first at line 19)', None),
    ("enum Colour { red }", '"red" is declared twice', None),
    ("def count = 1", '"count" is a built-in name', None),
    ("phase play { move boost to pile }", "this should be a card", None),
    ("phase play { perform 3 on top(deck) }", "`perform` uses a keyword", None),
    ("def same = count(c in deck where c.suit == big)", "this compares a Suit with a Size: they can never be equal", None),
    ("def wrong = red == small", "this compares a Suit with a Size", None),
    ("def n = \"a\" * 2", '"*" works on numbers, but this is a text', None),
    ("def n = red < 2", '"<" compares numbers, but this is a Suit', None),
    ("phase play { move self to pile }", '"self" only exists inside a keyword', None),
    ("def n = count(c in deck where has(c, bost))", "the second argument of has() is the name of a keyword", 'did you mean "boost"?'),
    ("at end of phase plya { }", '"plya" is not a phase', 'did you mean "play"?'),
    ("cards more { Crad(point: 1) }", '"Crad" is not a component', 'did you mean "Card"?'),
    ("cards more { Card(point: 1) }", 'Card needs a value for "suit"', None),
    ("cards more { Card(suit: red, colour: red) }", 'component Card has no field "colour"', None),
    ("cards more { Card(suit: 1) }", 'field "suit" of Card is Suit, but this is a number', None),
    ("component Token { value: integer }", '"integer" is not a type', None),
    ("component Token { value: int; label \"{valeu}\" }", 'the label of Token uses "valeu"', 'did you mean "value"?'),
    ("setting mode = middle one of high | low", 'the default of setting "mode" must be one of its choices', None),
    ("set speed = slow", "`set NAME = value` belongs inside a variant", None),
    ("phase play { deck }", "this line does nothing", None),
    ("phase play { shufle deck }", '"shufle" is neither a statement keyword nor a declared name', 'did you mean "shuffle"?'),
    ("phase play { boost(1) }", "to use it write `perform boost(...) on card`", None),
    ("phase play { let x = deal(current, 1) }", 'procedure "deal" does things and has no value', None),
    ("result { choose p from players by leader\n win p }", "the `result` block cannot ask a player to choose", None),
    ("phase play { repeat \"x\" times { } }", "this should be a number, but it is a text", None),
    ("phase play { current.score += \"x\" }", "this should be a number, but it is a text", None),
    ("phase play { for each c in deck chosen by 3 { } }", "this should be a player, but it is a number", None),
    ("phase play { move top(deck) to 3 }", "this should be a zone, but it is a number", None),
    ("phase play { let n = hand(3) }", '"hand(...)" takes a player, but this is a number', None),
    ("phase play { let n = Card(suit: red) }", "cards are declared in a `cards` block, not made inside rules", None),
    ("phase play { choose { option a { } option a { } } }", 'two options are named "a"', None),
    ("phase play { let x = 1 }\nphase play { }", '"play" is declared twice', None),
    ("component Token { id: int }", '"id" is a built-in property of every card', None),
    ("cards more in hand { Card(suit: red) }", 'cards cannot start in "hand", which each player has', None),
])
def test_single_mistakes(body, message, hint):
    if "round" not in body and "phase play" not in body:
        body = body + "\nphase play { }"
    d = one_error(body)
    assert message in d.message, d.format()
    if hint is not None:
        assert d.hint == hint, d.format()
    assert d.span.file == "t.rules" and d.span.line > 0 and d.span.column > 0


def test_unreachable_phase_and_round_with_unknown_phase():
    text = 'game "T" {\n  players 2\n  round: drawing, play\n}\nphase draw { }\nphase play { }\nphase spare { }\n'
    with pytest.raises(RulesError) as info:
        check_rules(parse_text(text, "t.rules"))
    messages = [d.message for d in info.value.diagnostics]
    assert messages == [
        'the round lists "drawing", but no phase has that name',
        'phase "draw" can never be reached: it is not in the game\'s `round:` list',
        'phase "spare" can never be reached: it is not in the game\'s `round:` list',
    ]
    assert info.value.diagnostics[0].hint == 'did you mean "draw"?'


def test_no_game_declaration():
    with pytest.raises(RulesError) as info:
        check_rules(parse_text("phase p { }", "t.rules"))
    assert "no `game" in info.value.diagnostics[0].message


def test_player_counts():
    with pytest.raises(RulesError) as info:
        check_rules(parse_text('game "T" {\n  players 2..4 default 6\n  round: p\n}\nphase p { }', "t.rules"))
    assert "default player count 6 is outside 2..4" in info.value.diagnostics[0].message


# ------------------------------------------------------------------ scopes


def test_locals_are_visible_after_let_only():
    assert "x" in one_error("phase play { log \"{x}\"\n let x = 1 }").message
    check("phase play { let x = 1\n log \"{x}\" }")


def test_loop_variable_does_not_leak():
    d = one_error("phase play { for each c in deck { discard c }\n discard c }")
    assert d.message == '"c" is not defined'
    assert d.span.line == HEAD_LINES + 2


def test_choose_binds_its_variable_and_options_bind_theirs():
    check("phase play { choose c from deck by leader\n discard c }")
    check("phase play { choose by leader { option a(c in deck, d in pile where d != c) { move c to pile } } }")
    d = one_error("phase play { choose by leader { option a(c in deck) { } option b { discard c } } }")
    assert d.message == '"c" is not defined'


def test_keyword_scope_has_self_and_parameters():
    check("keyword shield(k) { effect { self.point += k } }\ncards more { Card(suit: red, abilities: [shield(2)]) }"
          "\nphase play { }")
    assert one_error("keyword shield { effect { self.point += k } }\nphase play { }").message == '"k" is not defined'


# ------------------------------------------------------------------ variants


def test_variant_errors_name_the_variant():
    found = errors("""
phase play { }
variant quick extends speedy {
  replace def pionts(p) = 1
  remove ghost
  set speed = fastest
  set sped = fast
  def points(p) = 2
}
""")
    messages = sorted(d.message for d in found)
    assert len(found) == 6, messages
    assert all("(in variant quick)" in m for m in messages)
    assert any('there is no variant named "speedy"' in m for m in messages)
    assert any('replaces "pionts", which the base game does not declare' in m for m in messages)
    assert any('removes "ghost"' in m for m in messages)
    assert any('"fastest" is not one of the options of setting "speed"' in m for m in messages)
    assert any('"sped" is not a setting' in m for m in messages)
    assert any('"points" is already declared by the base game' in m for m in messages)


def test_variant_is_checked_as_the_game_it_makes():
    # removing a phase the round still lists is an error of the variant only
    found = errors("phase play { }\nvariant broken { remove play }")
    assert len(found) == 1
    assert found[0].message == 'the round lists "play", but no phase has that name (in variant broken)'


def test_variant_cycle():
    found = errors("phase play { }\nvariant a extends b { }\nvariant b extends a { }")
    assert all("extends itself" in d.message for d in found)


def test_checking_with_a_chosen_variant():
    text = "phase play { }\nvariant v { replace def points(p) = nothing }"
    check(text, all_variants=False)  # the base game alone is fine
    d = one_error(text, variants=["v"], all_variants=False)
    assert d.message == '"nothing" is not defined'


def test_unknown_setting_from_the_command_line():
    with pytest.raises(RulesError) as info:
        load_rules(HEAD + "phase play { }", settings={"sped": "slow"})
    assert 'there is no setting "sped"' in info.value.format()
    with pytest.raises(RulesError) as info:
        load_rules(HEAD + "phase play { }", settings={"speed": "slowest"})
    assert 'setting "speed" is one of fast, slow, not "slowest"' in info.value.format()


def test_a_setting_from_the_command_line_takes_a_value_of_its_defaults_kind():
    """`--set seats=abc` for a setting whose default is a number, or `--set open=maybe` for a true or
    false one, is refused when the file loads (it used to reach the rules as a text and fail at the
    first comparison), and so is a number beyond the bound of every number of a game."""
    text = HEAD + "setting seats = 5\nsetting open = false\nphase play { }"
    assert load_rules(text, settings={"seats": "7", "open": "true"}).settings == {"speed": "fast", "seats": 7, "open": True}
    assert load_rules(text, settings={"seats": 8}).settings["seats"] == 8  # the API may give the value itself
    too_big = "1" + "0" * 19
    for given, words in (({"seats": "abc"}, 'setting "seats" takes a whole number (within ±10^18), not "abc"'),
                         ({"seats": too_big}, f'setting "seats" takes a whole number (within ±10^18), not "{too_big}"'),
                         ({"open": "maybe"}, 'setting "open" is true or false, not "maybe"')):
        with pytest.raises(RulesError) as info:
            load_rules(text, settings=given)
        assert words in info.value.format()


def test_a_setting_of_a_variant_not_chosen_names_the_variant():
    text = HEAD + "phase play { }\nvariant big {\n  setting side = side_a one of side_a | side_b\n}"
    with pytest.raises(RulesError) as info:
        load_rules(text, settings={"side": "side_b"})
    shown = info.value.format()
    assert 'setting "side" belongs to variant big, which is not chosen' in shown
    assert "add --variant big" in shown
    assert load_rules(text, variant="big", settings={"side": "side_b"}).settings["side"] == "side_b"


def test_an_unknown_setting_points_into_the_file_and_suggests():
    with pytest.raises(RulesError) as info:
        load_rules(HEAD + "phase play { }", settings={"sped": "slow"})
    d = info.value.diagnostics[0]
    assert d.span.line >= 1 and d.span.column >= 1
    assert 'did you mean "speed"' in info.value.format()
