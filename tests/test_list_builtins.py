"""Lists the rules can cut, search and mix (issue 41): `first(list, n)`, `last(list, n)`, `skip(list, n)`,
`index_of(item, list)` (an enum member's place: `index_of(blue, Colour)`), and the chance built-ins
`sample(list, n)` and `shuffled(list)`, whose picks a scenario queues with `next random`."""
from __future__ import annotations

from pathlib import Path

import pytest

import rulelang
from rulelang.core.errors import RulesError, RulesRuntimeError
from rulelang.tools.scenario import run_file

GAME = '''
game "Lists" {
  players 2
  round: play
}
enum Colour { red, green, blue, white, black }
zone pile
var cs: list of Colour = []
var front: list of Colour = []
var back: list of Colour = []
var middle: list of Colour = []
var place: int = 0
var missing: int = 0
var picked: list of Colour = []
var mixed: list of Colour = []
phase play {
  cs = [c for c in Colour]
  front = first(cs, 2)
  back = last(cs, 2)
  middle = first(skip(cs, 1), 3)
  place = index_of(blue, Colour)
  missing = index_of(7, [1, 2])
  picked = sample(cs, 2)
  mixed = shuffled([red, green, blue])
  end game
}
'''


def scenario(tmp_path: Path, body: str):
    (tmp_path / "lists.rules").write_text(GAME, encoding="utf-8")
    path = tmp_path / "s.rules"
    path.write_text('scenario "s" {\n  game "lists.rules"\n' + body + "}\n", encoding="utf-8")
    [result] = run_file(path, {})
    return result


def test_first_last_skip_and_index_of(tmp_path):
    result = scenario(tmp_path, "  run game\n"
                                "  expect front == [red, green]\n  expect back == [white, black]\n"
                                "  expect middle == [green, blue, white]\n"
                                "  expect place == 2\n  expect missing == -1\n"
                                "  expect count(picked) == 2\n  expect count(mixed) == 3\n")
    assert result.passed, result.message


def test_sample_and_shuffled_take_the_queued_picks_in_order(tmp_path):
    # sample picks 2 of the five colours, then shuffled picks all three of its list, one by one
    result = scenario(tmp_path, "  next random black, red\n  next random blue, red, green\n  run game\n"
                                "  expect picked == [black, red]\n  expect mixed == [blue, red, green]\n")
    assert result.passed, result.message


def test_a_count_below_zero_is_a_rules_error_at_its_line(tmp_path):
    path = tmp_path / "bad.rules"
    path.write_text(GAME.replace("front = first(cs, 2)", "front = first(cs, 0 - 1)"), encoding="utf-8")
    game = rulelang.load(path)
    with pytest.raises(RulesRuntimeError) as caught:
        game.new_match(seed=1)  # (the phase runs as the match starts: nobody is asked anything)
    said = caught.value.format()
    assert "bad.rules:18:11:" in said and "first() takes a count of items, a whole number 0 or more" in said


def test_a_deck_cannot_be_made_by_chance(tmp_path):
    path = tmp_path / "deck.rules"
    path.write_text(GAME + "component Tile { c: Colour }\ncards tiles in pile { Tile(c: x) for x in shuffled([red, blue]) }\n",
                    encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        rulelang.load(path)
    assert "shuffled" in caught.value.format()


def test_sorted_by_with_a_key_missing_says_how_many_each_has(tmp_path):
    """`sorted_by(items, keys)` takes one key per item: fewer keys were Python's "list index out of range"."""
    path = tmp_path / "bad.rules"
    path.write_text(GAME.replace("mixed = shuffled([red, green, blue])", "mixed = sorted_by(cs, [3, 1])"),
                    encoding="utf-8")
    game = rulelang.load(path)
    with pytest.raises(RulesRuntimeError) as caught:
        game.new_match(seed=1)
    said = caught.value.format()
    assert "sorted_by() needs one key for each item: 5 items, but 2 keys" in said and "out of range" not in said
    assert "bad.rules:24:11:" in said.splitlines()[0]
