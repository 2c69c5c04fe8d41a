"""`label back "..."` (issue 41: "The back of a face-down card shows nothing, not even which deck it came
from, though a real card back shows its level. A component should be able to name what its back
shows"): what everyone sees of a card they may not see, on every surface that shows it."""
from __future__ import annotations

import rulelang
from rulelang.engine.visibility import move_label, seen_as
from rulelang.table.tableview import table_view
from rulelang.table.terminal import card_text

GAME = """\
game "Backs" {
  players 2
  round: buy
  max rounds 1
}
component Card {
  level: int
  points: int
  label "level {level}, {points} points"
  label back "level {level}"
}
cards decks in stock { Card(level: l, points: p) for l in 1..2, p in 1..3 }
zone stock hidden
zone hand per player private
setup {
  shuffle stock
  for each p in players { draw 2 from stock to hand(p) }
}
phase buy {
  take turns once {
    choose c from hand(current) as "Show a card"
    log "{current} shows {c}"
  }
}
"""


def test_a_hidden_card_shows_its_back_and_nothing_more(tmp_path):
    path = tmp_path / "backs.rules"
    path.write_text(GAME, encoding="utf-8")
    match = rulelang.load(path).new_match(seed=1)
    theirs = match.s.zones["hand#2"].items[0]
    level = theirs.attrs["level"]
    # the API's view of a seat, a name in a log line, the shared table view, the terminal
    [hidden, _] = match.view(0)["zones"]["hand#2"]["cards"]
    assert hidden == {"hidden": True, "back": f"level {level}"}
    assert seen_as(match.s, theirs, 0) == f"a hidden card (level {level}) in hand of player 2"
    view = table_view(match, 0)
    cards = [c for z in view["zones"] if z["key"] == "hand#2" for c in z["cards"]]
    assert cards and all(c.get("back", "").startswith("level ") and "label" not in c for c in cards)
    assert card_text(cards[0]).startswith("hidden: level ")
    # a move by player 1 as player 2 sees it: the back, not the card
    mine = match.s.pending["options"][0]
    said = move_label(match.s, mine, 1)
    assert said.startswith("a hidden card (level ") and "points" not in said, said
    assert "points" in move_label(match.s, mine, 0)  # its chooser sees the card itself


def test_a_back_names_only_fields(tmp_path):
    path = tmp_path / "bad.rules"
    path.write_text(GAME.replace('label back "level {level}"', 'label back "level {tier}"'), encoding="utf-8")
    try:
        rulelang.load(path)
    except rulelang.RulesError as exc:
        assert 'uses "tier", which is not one of its fields' in exc.format()
    else:
        raise AssertionError("a back naming no field was accepted")
