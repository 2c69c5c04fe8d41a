"""Survivors (games/survivors.rules): what the designer scenarios in tests/scenarios/survivors/ cannot say.

- the file checks clean with every variant, and every map mode and module plays to one of the three
  endings with seeded random bots;
- survivors are never created or lost by accident: after every step, every player's count of
  survivors is never negative and the pieces on the map stand on tiles;
- a match saved mid-game resumes identically.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import assert_resumes_identically

import rulelang

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "survivors.rules"

_games: dict = {}


def game(variant: str = "", **settings_):
    key = (variant, tuple(sorted(settings_.items())))
    if key not in _games:
        _games[key] = rulelang.load(str(GAME), variant=variant, settings={k: str(v) for k, v in settings_.items()})
    return _games[key]


def play_out(match, seed: int, check=None):
    rng = random.Random(seed)
    while not match.is_over:
        match.apply(rng.randrange(match.option_count()))
        if check:
            check(match)
    return match.result


def _sound(match):
    s = match.s
    for p in s.players:
        for field in ("idle", "wounded", "scavengers", "food", "water", "medical", "tools", "weapons", "scrap"):
            assert p.attrs[field] >= 0, (field, p.attrs)
    tiles = s.zones["map"].cells
    for e in s.zones["sites"].items:
        assert tiles.stack(e.cell), f"{e.card.component} at {e.cell} stands on no tile"
        if e.card.component == "Party":
            assert e.attrs["size"] >= 0


@pytest.mark.parametrize("variant", ["", "events", "zombies", "radiation", "all_modules"])
def test_checks_clean(variant):
    assert game(variant).variants == ([variant] if variant else [])  # (load raises on any error)


MODES = [("", "random_map", 3), ("", "tile_laying", 4), ("", "map_file", 2), ("all_modules", "random_map", 4),
         ("all_modules", "tile_laying", 3)]


@pytest.mark.parametrize("variant,mode,players", MODES)
def test_every_mode_plays_to_an_end(variant, mode, players):
    """ "The game can end in three ways: 1. only one player is remaining (winner) 2. all are dead
    simultaneously ... (no winners) 3. the cards are finished (winner is the one with the most
    survivors ...)" """
    for seed in (1, 2):
        match = game(variant, map_mode=mode).new_match(players=players, seed=seed)
        result = play_out(match, seed, _sound)
        alive = [i + 1 for i in range(players) if i + 1 not in result.get("eliminated", [])]
        assert set(result["winners"]) <= set(alive)
        if len(alive) == 1:
            assert result["winners"] == alive


def test_save_and_resume_mid_game():
    assert_resumes_identically(game("all_modules"), players=3, seed=3, steps=80)


def test_render_draws_the_pieces_on_the_map(tmp_path):
    """`rulelang render --zone map,sites`: the tiles, and on them the bases, parties, buildings."""
    from rulelang.tools.render import render_board

    match = game("all_modules").new_match(players=3, seed=5)
    rng = random.Random(5)
    for _ in range(120):
        if match.is_over:
            break
        match.apply(rng.randrange(match.option_count()))
    out = render_board(match, tmp_path / "map.png", zone="map,sites")
    assert out.stat().st_size > 10_000
    with pytest.raises(ValueError, match="no board zone"):
        render_board(match, tmp_path / "x.png", zone="map,nowhere")
