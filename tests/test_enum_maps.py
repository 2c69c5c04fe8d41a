"""Issue 41, part A: numbers per member of an enum (`int per Gem`, `{red: 2}`, `m[g]`,
`p.gems[g] += 1`), members of one enum ordered by their place, zone families whose number follows
the player count (`zone display[2 * player_count + 1]`), and `colour by FIELD` for pictures.
Misuse is refused by `rulelang check` (tests/bad/check_map_*, check_enum_members_of_two_enums_ordered,
check_zone_family_count_reads_the_match) or stops a match with a rules error naming its line."""
from __future__ import annotations

import json
import random

import pytest

from rulelang.core.errors import RulesError, RulesRuntimeError
from rulelang.model.things import EnumMap

from conftest import assert_plain_words, assert_resumes_identically, load_rules, play_random

GEMS = """
game "Gems" { players 2..4; round: turns; max rounds 40 }
enum Gem { ruby, jade, onyx }
enum Rank { bronze, silver, gold }
component Card {
  cost: int per Gem
  points: int
  rank: Rank = bronze
  gem: Gem = ruby
  colour by rank
  label "{points} for {cost}"
}
cards deck in supply {
  Card(cost: {ruby: 2}, points: 1, gem: ruby)
  Card(cost: {jade: 1, onyx: 1}, points: 1, rank: silver, gem: jade)
  Card(cost: {ruby: 1, jade: 1, onyx: 1}, points: 2, rank: gold, gem: onyx) * 2
  Card(cost: {onyx: 3}, points: 2, rank: silver) * 3
}
zone supply hidden
zone display[2 * player_count + 1]
zone bought per player
player { gems: int per Gem; score: int = 0; best: Rank = bronze }
var bank: int per Gem = {ruby: 4, jade: 4, onyx: 4}
def pays(p, c) = all(g in Gem where p.gems[g] >= c.cost[g])
def on_show = [c for d in display for c in d]
setup {
  shuffle supply
  for each d in display { if not empty(supply) { move top(supply) to d } }
}
phase turns {
  take turns once {
    choose {
      option take(g in Gem where bank[g] > 0) { current.gems[g] += 1; bank[g] -= 1 }
      option buy(c in on_show where pays(current, c)) {
        for each g in Gem { current.gems[g] -= c.cost[g]; bank[g] += c.cost[g] }
        current.score += c.points
        if c.rank > current.best { current.best = c.rank }
        let from = c.zone
        move c to bought(current)
        if not empty(supply) { move top(supply) to from }
      }
      option rest if sum(bank) == 0 { current.score += 0 }
    }
  }
  if empty(on_show) { end game }
}
result {
  let top = max(p.score for p in players)
  win [p in players where p.score == top]
}
"""


@pytest.fixture(scope="module")
def gems():
    return load_rules(GEMS)


def test_a_game_with_maps_families_and_ordered_enums_plays_seeded_to_its_end(gems):
    for players in (2, 3, 4):
        first = gems.new_match(players=players, seed=7)
        answers = play_random(first, seed=7)
        again = gems.new_match(players=players, seed=7)
        for a in answers:
            again.apply(a)
        assert first.is_over and again.is_over
        assert first.result == again.result  # a seeded game is deterministic
        for p in first.s.players:
            assert type(p.attrs["gems"]) is EnumMap and list(p.attrs["gems"].values) == ["ruby", "jade", "onyx"]
            assert all(type(n) is int and n >= 0 for n in p.attrs["gems"].values.values())
        # the gems only ever move between the bank and the players
        bank = first.s.globals["bank"]
        for g in ("ruby", "jade", "onyx"):
            assert bank.values[g] + sum(p.attrs["gems"].values[g] for p in first.s.players) == 4
        assert sum(len(z) for z in first.s.zones.values() if z.name == "bought") > 0  # cards were bought


def test_a_map_written_out_holds_0_for_the_members_left_out(gems):
    match = gems.new_match(players=2, seed=1)
    costs = {e.attrs["points"]: e.attrs["cost"] for e in match.s.entities}
    assert costs[1] in (EnumMap("Gem", {"ruby": 2, "jade": 0, "onyx": 0}),
                        EnumMap("Gem", {"ruby": 0, "jade": 1, "onyx": 1}))
    assert match.s.players[0].attrs["gems"] == EnumMap("Gem", {"ruby": 0, "jade": 0, "onyx": 0})
    assert match.s.globals["bank"].values == {"ruby": 4, "jade": 4, "onyx": 4}


def test_maps_are_read_changed_summed_and_shown():
    game = load_rules("""
game "M" { players 2; round: play }
enum Gem { ruby, jade, onyx }
player { gems: int per Gem }
var shown: str = ""
var total: int = 0
var most: int = 0
var ruby_count: int = 0
var same: bool = false
zone pile
phase play {
  player(1).gems[jade] += 3
  player(1).gems[ruby] = 2
  player(1).gems[jade] -= 1
  let m = player(1).gems
  m[onyx] += 5
  ruby_count = m[ruby]
  total = sum(m)
  most = max(player(1).gems)
  shown = "{m}"
  same = player(1).gems == {ruby: 2, jade: 2}
  end game
}
""")
    match = game.new_match(seed=0)
    g = match.s.globals
    assert match.s.players[0].attrs["gems"].values == {"ruby": 2, "jade": 2, "onyx": 0}  # the local was a copy
    assert (g["ruby_count"], g["total"], g["most"], g["shown"], g["same"]) == (2, 9, 2, "2 ruby, 2 jade, 5 onyx", True)
    # a result gives each member's number (a summary of many matches adds them up)
    assert {k: v for k, v in match.result["players"][0].items() if k.startswith("gems")} == \
        {"gems[ruby]": 2, "gems[jade]": 2, "gems[onyx]": 0}


def test_saves_copies_and_bots_copies_keep_maps_and_families(gems):
    assert_resumes_identically(gems, players=3, seed=4, steps=9)
    match = gems.new_match(players=3, seed=4)
    rng = random.Random(4)
    for _ in range(9):
        match.apply(rng.randrange(match.option_count()))
    data = json.loads(json.dumps(match.to_json()))
    back = gems.match_from_json(data)
    assert back.s.globals["bank"] == match.s.globals["bank"]
    assert [p.attrs["gems"] for p in back.s.players] == [p.attrs["gems"] for p in match.s.players]
    assert sorted(back.s.zones) == sorted(match.s.zones)
    for copy in (match.clone(), match.sample_for(0, random.Random(1))):
        assert [p.attrs["gems"] for p in copy.s.players] == [p.attrs["gems"] for p in match.s.players]
        copy.apply(0)  # a copy plays on without changing the match
        assert copy.s.version != match.s.version
    assert [p.attrs["gems"] for p in back.s.players] == [p.attrs["gems"] for p in match.s.players]


def test_views_show_maps_in_words(gems):
    match = gems.new_match(players=2, seed=3)
    match.s.players[0].attrs["gems"] = EnumMap("Gem", {"ruby": 1, "jade": 0, "onyx": 2})
    view = match.view(0)
    assert [z["name"] for z in __import__("rulelang.table.tableview", fromlist=["x"]).table_view(match, 0)["zones"]
            if z["key"].startswith("display")] == [f"display {i}" for i in range(1, 6)]
    assert view["players"][0]["gems"] == "1 ruby, 2 onyx"
    # and its numbers, for programs that read views (bots, the learning environments' vectors)
    assert (view["players"][0]["gems[ruby]"], view["players"][0]["gems[jade]"], view["players"][0]["gems[onyx]"]) == (1, 0, 2)
    assert view["globals"]["bank"] == "4 ruby, 4 jade, 4 onyx"
    from rulelang.table.tableview import table_view

    table = table_view(match, 0)
    assert table["players"][0]["fields"]["gems"] == "1 ruby, 2 onyx"
    labels = [c.get("label") for z in table["zones"] if z["name"].startswith("display") for c in z.get("cards", [])]
    assert any(label and " for " in label and ("ruby" in label or "jade" in label or "onyx" in label) for label in labels)


def test_zone_families_follow_the_player_count(gems):
    for players, count in ((2, 5), (3, 7), (4, 9)):
        match = gems.new_match(players=players, seed=0)
        keys = [k for k in match.s.zones if k.startswith("display")]
        assert keys == [f"display#{i}" for i in range(1, count + 1)]
        dealt = [len(match.s.zones[k].items) for k in keys]
        assert dealt == [1] * min(count, 7) + [0] * (count - 7)  # setup dealt the 7 cards, one to each
    from rulelang.model.builtins import describe

    assert describe(match.s.zones["display#3"]) == "display 3"


def test_a_family_zone_outside_its_count_is_a_rules_error_naming_the_line():
    base = """
game "F" { players 2..3; round: play }
setting extra = 1
component Token { n: int; label "token {n}" }
cards tokens in box { Token(n: i) for i in 1..10 }
zone display[player_count + extra]
zone box
var which: int = WHICH
var sizes: list of int = []
phase play {
  move top(box) to display(which)
  sizes = [count(d) for d in display]
  end game
}
"""
    match = load_rules(base.replace("WHICH", "4")).new_match(players=3, seed=0)
    assert match.is_over and match.s.globals["sizes"] == [0, 0, 0, 1]
    assert len([k for k in match.s.zones if k.startswith("display")]) == 4
    two = load_rules(base.replace("WHICH", "2"), settings={"extra": 3}).new_match(players=2, seed=0)
    assert two.s.globals["sizes"] == [0, 1, 0, 0, 0]
    with pytest.raises(RulesRuntimeError) as info:
        load_rules(base.replace("WHICH", "0")).new_match(players=3, seed=0)
    text = str(info.value)
    assert ":11:" in text and "display(...) counts the 4 display zones of this match from 1 to 4" in text
    assert_plain_words(text)


def test_a_negative_family_count_is_said_when_the_game_loads():
    with pytest.raises(RulesError) as info:
        load_rules("""
game "F" { players 2..4; round: play }
zone display[5 - 2 * player_count]
phase play { end game }
""")
    text = str(info.value)
    assert ":3:" in text and "the number of display zones with 3 players is -1" in text
    assert_plain_words(text)


def test_members_of_one_enum_compare_by_their_place():
    game = load_rules("""
game "O" { players 2; round: play }
enum Rank { bronze, silver, gold }
enum Size { small, large }
def rank_of(r) = r
var answers: list of bool = []
phase play {
  answers = [bronze < gold, gold <= gold, silver > gold, gold >= bronze, rank_of(silver) < rank_of(gold),
             large > small]
  end game
}
""")
    assert game.new_match(seed=0).s.globals["answers"] == [True, True, False, True, True, True]
    # members of two enums reaching `<` through untyped values: a rules error at the line, not a crash
    mixed = load_rules("""
game "O" { players 2; round: play }
enum Rank { bronze, silver, gold }
enum Size { small, large }
def either(x) = x
var answer: bool = false
phase play {
  answer = either(bronze) < either(large)
  end game
}
""")
    with pytest.raises(RulesRuntimeError) as info:
        mixed.new_match(seed=0)
    assert '"<" orders the members of one enum, but bronze is a Rank and large a Size' in str(info.value)
    assert ":8:" in str(info.value)


@pytest.mark.parametrize("statement,words", [
    ("n = player(1).gems[which]", "so it cannot be read at none"),
    ("n = player(1).gems[0]", "so it cannot be read at 0"),
    ("n = either(player(1).gems)[either(small)]", "so it cannot be read at small"),
    ("player(1).gems[which] += 1", "so it cannot be read at none"),
    ("player(1).score[ruby] += 1", "only a map's numbers are changed with [...], and this is 0"),
    ("player(1).gems[ruby] += either(\"two\")", "a map holds whole numbers, not two"),
    ("n = either({ruby: either(\"x\")})[ruby]", "a map holds whole numbers, but ruby is given x"),
])
def test_misusing_a_map_at_play_time_is_a_rules_error_naming_the_line(statement, words):
    text = f"""
game "M" {{ players 2; round: play }}
enum Gem {{ ruby, jade }}
enum Size {{ small, large }}
player {{ gems: int per Gem; score: any = 0 }}
var which: Gem
var n: int = 0
def either(x) = x
phase play {{
  {statement}
  end game
}}
"""
    try:
        game = load_rules(text)
    except RulesError as exc:  # the checker refused it: as good, and said in plain words
        assert_plain_words(str(exc))
        return
    with pytest.raises(RulesRuntimeError) as info:
        game.new_match(seed=0)
    assert words in str(info.value) and ":10:" in str(info.value)
    assert_plain_words(str(info.value))


def test_a_field_names_the_colour_of_its_cards_and_the_command_still_overrides(gems, tmp_path):
    pytest.importorskip("matplotlib")
    from rulelang.table.tableview import colour_kind, table_view
    from rulelang.tools.render import colour_table

    match = gems.new_match(players=2, seed=0)
    card = match.s.entities[0]
    assert colour_kind(card, gems.program) == f"rank={card.attrs['rank']}"
    colours = colour_table(match)
    assert set(colours) == {"rank=bronze", "rank=silver", "rank=gold"}
    assert set(colour_table(match, "gem")) == {"gem=ruby", "gem=jade", "gem=onyx"}  # --colour-by wins
    # the browser and the terminal colour each card by the same field as the pictures, in the same colours
    def cards(node):
        if isinstance(node, dict):
            if "colour" in node and "fields" in node:
                yield node
            for value in node.values():
                yield from cards(value)
        elif isinstance(node, list):
            for value in node:
                yield from cards(value)
    shown = list(cards(table_view(match, 0)))
    assert shown and {c["colour"] for c in shown} <= set(colours.values())
    assert all(c["colour"] == colours[f"rank={c['fields']['rank']}"] for c in shown)


def test_scenarios_set_and_expect_maps_and_families(tmp_path):
    from rulelang.tools.scenario import run_file

    (tmp_path / "gems.rules").write_text(GEMS, encoding="utf-8")
    (tmp_path / "gems_test.rules").write_text("""
scenario "a position gives gems, a turn takes one more" {
  game "gems.rules"
  players 3
  seed 1
  position {
    phase turns
    set player(1).gems = {jade: 2}
    set player(2).gems[onyx] = 3
  }
  expect player(1).gems[jade] == 2
  expect player(2).gems == {onyx: 3}
  expect sum(player(2).gems) == 3
  expect count(display) == 7
  expect silver < gold
}
scenario "a position puts cards on one zone of a family" {
  game "gems.rules"
  players 2
  position {
    phase turns
    display(5): Card(cost: {onyx: 3}, points: 2) * 2
    display(1): empty
  }
  expect count([c in display(5) where c.cost == {onyx: 3}]) == 2
  expect count(display(1)) == 0
}
scenario "a family's zone needs its number" {
  game "gems.rules"
  players 2
  position {
    display: Card(cost: {onyx: 3}, points: 2)
  }
}
scenario "a map is not a number" {
  game "gems.rules"
  players 2
  position {
    set bank = 3
  }
}
""", encoding="utf-8")
    results = run_file(tmp_path / "gems_test.rules")
    assert [r.passed for r in results] == [True, True, False, False]
    assert '"display" is a family of 5 zones in this match: say which, counting from 1' in results[2].message
    assert 'var "bank" holds a number per Gem, not the number 3' in results[3].message


def test_the_rulebook_page_shows_maps_and_families(tmp_path, capsys):
    from rulelang.cli.main import main

    (tmp_path / "gems.rules").write_text(GEMS, encoding="utf-8")
    assert main(["docs", str(tmp_path / "gems.rules"), "-o", str(tmp_path / "gems.md")]) == 0
    page = (tmp_path / "gems.md").read_text(encoding="utf-8")
    assert "| 1 jade, 1 onyx | 1 | jade | silver |" in page  # a card's cost in words
    assert "| `display[2 * player_count + 1]` |" in page  # how many displays
    assert "| `cost` | int per Gem |" in page


def test_a_starting_value_may_name_a_zone_of_a_family():
    # (the zones are made before the players' fields and the globals take their starting values)
    match = load_rules("""
game "S" { players 2..3; round: play }
zone display[player_count]
zone pile
player { seen: int = count(display) }
var first_display: zone = display(1)
var piled: int = count(pile)
phase play { end game }
""").new_match(players=3, seed=0)
    assert match.s.players[0].attrs["seen"] == 3
    assert match.s.globals["first_display"] is match.s.zones["display#1"] and match.s.globals["piled"] == 0


def test_triggers_name_the_family_and_a_card_knows_which_zone_of_it():
    match = load_rules("""
game "T" { players 2; round: play }
component Token { n: int }
cards tokens in box { Token(n: i) for i in 1..3 }
zone box
zone display[player_count + 1]
var entered: list of int = []
var where: list of str = []
when t enters display { entered = entered + [t.n]; where = where + ["{t.zone}"] }
phase play {
  move first(box) to display(3)
  move first(box) to display(1)
  if first(display(3)).zone == display(3) and first(display(3)).zone != display(1) { log "told apart" }
  end game
}
""").new_match(seed=0)
    assert match.s.globals["entered"] == [1, 2]
    assert match.s.globals["where"] == ["display 3", "display 1"]
    assert "told apart" in match.s.log
