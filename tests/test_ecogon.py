"""Ecogon (games/ecogon.rules): what the designer scenarios in tests/scenarios/ecogon/ cannot say.

- the stable ecosystem with a different number of event cards (a setting);
- a property: after every step of random play, no animal holds a token without a valid matching of
  its needs to distinct neighbouring organisms (checked here with networkx, independently of the
  rules' own `matched`);
- every mode plays to the end, and a match saved mid-game resumes identically.
"""
from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import assert_resumes_identically

import rulelang
from rulelang.core.errors import RulesError
from rulelang.tools.scenario import run_file

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "ecogon.rules"
SCENARIO_DIR = ROOT / "tests" / "scenarios" / "ecogon"
MODES = ["", "competitive", "complex", "competitive,complex"]
HEX = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
DOTS = {"dot1": (1, None), "dot1_ground": (1, "ground"), "dot1_air": (1, "air"),
        "dot2": (2, None), "dot2_ground": (2, "ground"), "dot2_air": (2, "air"), "dot3": (3, None)}

_games: dict = {}


def game(variant: str = "", **settings_):
    key = (variant, tuple(sorted(settings_.items())))
    if key not in _games:
        _games[key] = rulelang.load(str(GAME), variant=variant, settings={k: str(v) for k, v in settings_.items()})
    return _games[key]


# ------------------------------------------------------------------ the stable ecosystem


def test_stable_ecosystem_with_five_event_cards(tmp_path):
    """ "You have created a stable ecosystem, if you have collected at least twice the amount of
    victory points as the event cards you used in the game." The position of
    tests/scenarios/ecogon/stability.rules scores 11 points: stable with 5 event cards (10 needed)."""
    text = (SCENARIO_DIR / "stability.rules").read_text(encoding="utf-8")
    text = text.replace('"../../../games/ecogon.rules"', '"' + str(GAME) + '"')
    text = text.replace('"11 points with 20 event cards: not a stable ecosystem"', '"11 points with 5 event cards"')
    text = text.replace("expect threshold == 40", "expect threshold == 10")
    text = text.replace("expect not stable", "expect stable\n  expect count(players) == 2")
    path = tmp_path / "stable.rules"
    path.write_text(text, encoding="utf-8")
    cache = {(str(GAME.resolve()), ()): game(event_cards=5)}
    results = run_file(path, cache)
    assert results and all(r.passed for r in results), [r.message for r in results]


def test_stable_team_wins_together():
    """The cooperative game has no single winner: a stable ecosystem is a win for all."""
    g = game(event_cards=5)
    match = g.new_match(players=3, seed=11)
    rng = random.Random(11)
    while not match.is_over:
        match.apply(rng.randrange(match.option_count()))
    stable = match.s.globals["stable"]
    assert stable == (match.s.globals["team_score"] >= 10)
    assert match.result["winners"] == ([1, 2, 3] if stable else [])


def test_too_few_event_cards_is_refused():
    """ "(But not less than 5 event cards)" """
    with pytest.raises(RulesError, match="5 to 20 event cards"):
        game(event_cards=4).new_match(players=2, seed=0)


# ------------------------------------------------------------------ the token property


def _provides(o, need_symbol, complex_version: bool) -> bool:
    a = o.attrs
    if need_symbol in a["symbols"] or (need_symbol == "any_plant" and a["kind"] == "plant"):
        return True
    if need_symbol in DOTS and a["kind"] == "animal":
        size, movement = DOTS[need_symbol]
        return a["dots"] == size and (not complex_version or movement is None or movement == a["movement"])
    return False


def _needs_matchable(animal, board, complex_version: bool) -> bool:
    q, r = animal.cell
    neighbours = [e for dq, dr in HEX for e in board.cells.stack((q + dq, r + dr))
                  if not e.face_down and e.attrs["kind"] != "habitat"]
    needs = animal.attrs["needs"]
    g = nx.Graph()
    left = [("need", i) for i in range(len(needs))]
    g.add_nodes_from(left)
    g.add_nodes_from(("org", j) for j in range(len(neighbours)))
    for i, need in enumerate(needs):
        for j, o in enumerate(neighbours):
            if any(_provides(o, s, complex_version) for s in need):
                g.add_edge(("need", i), ("org", j))
    matching = nx.bipartite.hopcroft_karp_matching(g, top_nodes=left)
    return all(n in matching for n in left)


def _check_tokens(match, complex_version: bool):
    board = match.s.zones["ecosystem"]
    for e in board.items:
        a = e.attrs
        if a["kind"] != "animal" or e.face_down:
            continue
        met = _needs_matchable(e, board, complex_version)
        assert a["established"] == met, f"{a['name']} at {e.cell}: token {a['established']}, needs met {met}"
        if not a["established"]:
            assert a["token_by"] is None
    for e in match.s.zones["discard_pile"].items:
        assert not e.attrs["established"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000), mode=st.sampled_from(MODES), players=st.integers(2, 5),
       steps=st.integers(20, 400))
def test_no_token_without_a_matching(seed, mode, players, steps):
    """After every step of random play, an animal holds a token exactly when its needs can be matched
    to distinct neighbouring organisms (and cards out of play hold none)."""
    match = game(mode).new_match(players=players, seed=seed)
    rng = random.Random(seed)
    complex_version = "complex" in mode
    _check_tokens(match, complex_version)
    for _ in range(steps):
        if match.is_over:
            break
        match.apply(rng.randrange(match.option_count()))
        _check_tokens(match, complex_version)


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("mode", MODES)
def test_modes_play_to_the_end(mode):
    match = game(mode).new_match(players=3, seed=5)
    rng = random.Random(5)
    while not match.is_over:
        match.apply(rng.randrange(match.option_count()))
    result = match.result
    assert result["rounds"] >= 5
    if "competitive" in mode:
        best = max(p["score"] for p in result["players"])
        if "complex" in mode and not match.s.globals["stable"]:
            assert result["winners"] == []
        else:
            assert result["winners"] == [i + 1 for i, p in enumerate(result["players"]) if p["score"] == best]


def test_save_and_resume_mid_game():
    assert_resumes_identically(game("competitive,complex"), players=4, seed=3, steps=60)
