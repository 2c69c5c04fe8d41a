"""The skill ladder (`rulelang tournament FILE --skill`) and the copy a planning bot tries one option on."""
from __future__ import annotations

import json
import random
from pathlib import Path

import rulelang
from rulelang.balance.tournament import Ladder, ladder_markdown, skill_ladder
from rulelang.cli.main import main

REPO = Path(__file__).resolve().parent.parent
TICTACTOE = str(REPO / "examples" / "tictactoe.rules")


def test_a_copy_keeping_one_option_plays_it_as_the_whole_copy_does():
    """clone(answer=i).apply(0) reaches the very position clone().apply(i) does, and leaves the match
    as it was: what the greedy bot and `bench --only search` rely on."""
    game = rulelang.load(str(REPO / "games" / "zemico.rules"))
    match = game.new_match(players=2, seed=4)
    rng = random.Random(4)
    for _ in range(12):
        match.apply(rng.randrange(match.option_count()))
    before = json.dumps(match.to_json(), sort_keys=True)
    assert match.option_count() > 3
    for i in range(match.option_count()):
        whole, one = match.clone(), match.clone(answer=i)
        assert one.option_count() == 1
        whole.apply(i)
        one.apply(0)
        assert json.dumps(one.to_json(), sort_keys=True) == json.dumps(whole.to_json(), sort_keys=True)
    assert json.dumps(match.to_json(), sort_keys=True) == before


def test_each_rung_plays_the_one_below_in_duplicate_games():
    ladder = skill_ladder(TICTACTOE, 14, ["random", "greedy", "mcts:10"])
    assert isinstance(ladder, Ladder)
    assert [(r.bot, r.below) for r in ladder.rungs] == [("greedy", "random"), ("mcts:10", "greedy")]
    for r in ladder.rungs:
        assert r.pair.games == 28 and r.pair.duplicate
        assert r.pair.seeds_a + r.pair.seeds_b + r.pair.seeds_even == 14
        rate = r.rate()
        assert rate["of"] == r.pair.only_a + r.pair.only_b
        # a rung climbs only when it did better on more seeds and the sign test says so
        pv = r.pair.p_value()
        assert r.climbs() == (r.pair.seeds_a > r.pair.seeds_b and pv is not None and pv < 0.05)
    top = ladder.climb()
    assert top == next((i for i, r in enumerate(ladder.rungs) if not r.climbs()), len(ladder.rungs))
    data = ladder.to_json()
    assert data["climb"] == top and data["seeds"] == 14 and len(data["rungs"]) == 2
    assert data["summary"].startswith(f"the ladder climbs {top} of 2 rungs")
    markdown = ladder_markdown(json.loads(json.dumps(data)))
    assert "| greedy | random |" in markdown and "| mcts:10 | greedy |" in markdown
    # the same seeds, the same ladder
    again = skill_ladder(TICTACTOE, 14, ["random", "greedy", "mcts:10"]).to_json()
    assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in data.items() if k != "seconds"}


def test_the_command_writes_the_ladder_and_its_plot(tmp_path, capsys):
    out = tmp_path / "ladder.json"
    code = main(["tournament", TICTACTOE, "--skill", "--bots", "random,greedy", "-n", "4", "--jobs", "1",
                 "--quiet", "--out", str(out), "--plot", str(tmp_path / "plots")])
    assert code == 0
    data = json.loads(out.read_text())
    assert [r["bot"] for r in data["rungs"]] == ["greedy"] and data["rungs"][0]["below"] == "random"
    png = tmp_path / "plots" / "skill_ladder.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "the ladder climbs" in capsys.readouterr().out


def test_a_tournament_needs_bots_or_the_ladder(capsys):
    assert main(["tournament", TICTACTOE, "-n", "2", "--quiet"]) == 2
    assert "--skill" in capsys.readouterr().err


def test_greedy_climbs_over_random_in_a_race(tmp_path):
    """A race (gain 1 or 2 points, or knock the other back 3; 10 points or the lead after 30 rounds
    win): greedy, which sees who is ahead, beats random on enough seeds for the sign test."""
    from tests.test_greedy import HEURISTIC, RACE

    path = tmp_path / "race.rules"
    ending = ("if player(1).score > player(2).score { win player(1) }\n"
              "    if player(2).score > player(1).score { win player(2) }\n    end game")
    rules = RACE.replace("if round >= 30 { end game }", "if round >= 30 {\n    " + ending + "\n  }")
    assert rules != RACE
    path.write_text(rules + HEURISTIC)
    ladder = skill_ladder(str(path), 12, ["random", "greedy"])
    rung = ladder.rungs[0]
    assert rung.pair.seeds_b == 0 and rung.climbs() and ladder.climb() == 1
    assert ladder.summary().startswith("the ladder climbs 1 of 1 rungs: every rung beats the one below")


def test_the_kept_ladders_read_as_they_were_written():
    """docs/ladders/*.json: made by the command each one names, and shown by ladder_markdown."""
    kept = sorted((REPO / "docs" / "ladders").glob("*.json"))
    assert kept
    for path in kept:
        data = json.loads(path.read_text())
        assert data["command"].startswith("rulelang tournament ") and " --skill " in data["command"]
        climbs = [r["climbs"] for r in data["rungs"]]
        assert data["climb"] == (climbs.index(False) if False in climbs else len(climbs))
        assert data["summary"].startswith(f"the ladder climbs {data['climb']} of {len(climbs)} rungs")
        shown = ladder_markdown(data)
        assert all(f"| {r['bot']} | {r['below']} |" in shown for r in data["rungs"])


def test_a_kept_ladder_is_shown_on_the_rulebook_page_without_playing_it():
    """Issue 38: "Each rulebook page's balance section shows the ladder, from results kept in the
    repository and regenerated by one command, not played at site build time"."""
    import json
    from pathlib import Path

    from rulelang.balance.balance_docs import balance_section

    root = Path(__file__).resolve().parent.parent
    kept = json.loads((root / "docs/ladders/splicers.json").read_text(encoding="utf-8"))
    section, _svg = balance_section(root / "examples/tictactoe.rules", games=2, ladder=kept,
                                    ladder_image="../ladders/splicers.png")
    assert "### How much skill it rewards" in section
    assert "Skill ladder (30 seeds per rung" in section and "| greedy | random |" in section
    assert "![Skill ladder" in section and kept["command"] in section


def test_a_rung_that_loses_to_the_one_below_is_called_weaker():
    """Survivors' kept ladder: mcts:25 lost to greedy on most seeds. The summary says "weaker", not
    "not shown stronger", and a p-value under 0.001 reads "p < 0.001", not "p = 0.00"."""
    from rulelang.balance.tournament import Ladder, PairResult, Rung

    def rung(seeds_a, seeds_b, only_a, only_b):
        pair = PairResult("mcts:25", "greedy", games=2 * (seeds_a + seeds_b), duplicate=True, only_a=only_a,
                          only_b=only_b, seeds_a=seeds_a, seeds_b=seeds_b)
        return Rung("mcts:25", "greedy", pair)

    weaker = Ladder("g", 2, 30, [rung(3, 27, 9, 47)]).summary()
    assert weaker.startswith("the ladder climbs 0 of 1 rungs: mcts:25 is weaker than greedy (16% [")
    assert weaker.endswith("p < 0.001)")
    even = Ladder("g", 2, 30, [rung(10, 12, 20, 22)]).summary()
    assert "mcts:25 is not shown stronger than greedy" in even and even.endswith("p = 0.832)")
