"""Evacuation (games/evacuation.rules): what the designer scenarios in tests/scenarios/evacuation/ cannot say.

- the file checks clean, in both modes and with each module;
- seeded games play to the end in the race and the scoring mode, with strict and loose bonus judging,
  and in the rulebook's recommended combinations of the modules (and a few others);
- invariants of random play: resources never go negative, at most one marker per inner space, at most
  one piece per New-World plot, four factories of each type per player, nothing created or lost;
- a match saved mid-game resumes identically.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import assert_resumes_identically

import rulelang

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "evacuation.rules"
# The base game and scoring mode with both judgings, and the rulebook's recommended combinations of
# the modules: "Advanced Action Variant + loose bonus judging" (and the same in scoring mode).
# the modules: race mode + basic actions + strict judging; "Advanced Action Variant + loose bonus
# judging"; "Advanced Action Variant + loose bonus judging + Public objectives + Line majorities"; and
# other combinations (the modules combine freely; both sides of the line-majority modules).
MODES = [("", "strict"), ("", "loose"), ("scoring", "strict"), ("scoring", "loose"),
         ("advanced", "loose"), ("advanced,scoring", "loose"), ("advanced,objectives,majorities", "loose"),
         ("objectives,majorities", "strict/side_b"), ("advanced,majorities", "strict")]
WORLDS = ("old", "new")  # each a number per resource (`old: int per Res`)

_games: dict = {}


def game(variant: str = "", judging: str = "strict"):
    key = (variant, judging)
    if key not in _games:
        settings = {"bonus_judging": judging.split("/")[0]}
        if judging.endswith("/side_b"):
            settings["majority_side"] = "side_b"
        _games[key] = rulelang.load(str(GAME), variant=variant.split(",") if variant else None, settings=settings)
    return _games[key]


def test_the_file_checks_clean():
    for variant in ("", "scoring", "advanced", "objectives", "majorities", "advanced,objectives,majorities"):
        assert rulelang.load(str(GAME), variant=variant.split(",") if variant else None) is not None


def _check_invariants(match):
    s = match.s
    for p in s.players:
        for field in WORLDS:
            assert all(n >= 0 for n in p.attrs[field].values.values()), (p, field, p.attrs[field])
        for field in ("people", "penalties"):
            assert p.attrs[field] >= 0, (p, field, p.attrs[field])
    taken = {}
    for m in s.zones["track"].items:
        if m.place != "ring":
            key = (m.cell, m.place)
            assert key not in taken, f"two markers on inner space {key}"
            taken[key] = m
    board = s.zones["new_map"]
    for cell in board.cells.occupied_cells():
        stack = board.cells.stack(cell)
        assert stack[0].card.component == "Plot" and len(stack) <= 2, (cell, stack)
    factories = [e for e in s.entities if e.card.component == "Factory"]
    assert len(factories) == 12 * len(s.players)
    assert all(e.zone is not None for e in s.entities if e.card.component in ("Factory", "Ship", "Stadium", "Disc"))


def _check_action_cards(match):
    """The advanced variant's 48 action cards are all somewhere, and no hand holds more than four
    between turns."""
    s = match.s
    cards = [e for e in s.entities if e.card.component == "ActionCard"]
    assert len(cards) == 48 and all(e.zone is not None for e in cards)
    for seat in range(len(s.players)):
        assert len(s.zones[f"action_hand#{seat + 1}"].items) <= 4


@pytest.mark.parametrize("variant,judging", MODES)
def test_modes_play_to_the_end(variant, judging):
    for seed, players in ((1, 2), (2, 3), (3, 4)):
        match = game(variant, judging).new_match(players=players, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not match.is_over:
            match.apply(rng.randrange(match.option_count()))
            steps += 1
            if steps % 25 == 0:
                _check_invariants(match)
        _check_invariants(match)
        if "advanced" in variant.split(","):
            _check_action_cards(match)
        result = match.result
        assert result["winners"], "a game of Evacuation always has a winner"
        assert 1 <= result["rounds"] <= 4
        # the modules are "used in scoring mode" (用在計分模式中): they extend it
        if set(variant.split(",")) & {"scoring", "objectives", "majorities"}:
            best = max(p["score"] for p in result["players"])
            assert result["winners"] == [i + 1 for i, p in enumerate(result["players"]) if p["score"] == best]
            assert result["rounds"] == 4


def test_save_and_resume_mid_game():
    assert_resumes_identically(game("scoring", "loose"), players=3, seed=7, steps=120)


def test_render_draws_the_new_world_and_the_progress_track_mid_game(tmp_path):
    """`rulelang render --zone new_map` and `--zone track` on a match in progress: the track's places
    (outer ring, two inner spaces) and the pieces on the plots are drawn."""
    from rulelang.tools.render import render_board

    match = game().new_match(players=3, seed=4)
    rng = random.Random(4)
    for _ in range(250):
        if match.is_over or match.s.round >= 3:  # (a match in progress, its second round played)
            break
        match.apply(rng.randrange(match.option_count()))
    assert not match.is_over and match.s.round >= 2
    for zone in ("new_map", "track"):
        out = render_board(match, tmp_path / f"{zone}.png", zone=zone)
        assert out.stat().st_size > 10_000
