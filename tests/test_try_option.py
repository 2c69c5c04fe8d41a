"""Match.try_option: an option applied up to the next choice, whose options are not listed. The
position it stops at is the one `apply` reaches (the greedy bot scores it), and it cannot be played on."""

import pytest

import rulelang
from rulelang.core.resources import games_dir
from rulelang.engine.visibility import option_keys
from rulelang.model.things import encode
from conftest import seeded_positions


def _positions(game, every: int):
    return seeded_positions(game, every, seed=3)


def _seen(match):
    """What scoring reads of a position: over, winners, who moves, every seat's heuristic, the cards
    of every zone, every field."""
    s = match.s
    return (s.over, list(s.winners), match.to_move, s.round, s.phase, s.current, s.decisions,
            [match.heuristic(seat) for seat in range(len(s.players))],
            {key: [e.id for e in zone.items] for key, zone in s.zones.items()},
            [_plain(e.attrs) for e in s.entities], [_plain(p.attrs) for p in s.players], s.version)


def _plain(attrs: dict) -> dict:
    """Fields as saved (a card or a player by its number): two copies of a match compare equal."""
    return {k: encode(v) for k, v in attrs.items()}


@pytest.mark.parametrize("name", ["zemico", "survivors", "splicers", "ecogon", "evacuation"])
def test_try_option_stops_where_apply_stops(name):
    game = rulelang.load(str(games_dir() / f"{name}.rules"))
    tried = 0
    for world in _positions(game, every=15)[:6]:
        for index in list(option_keys(world.s).values())[:8]:
            applied = world.clone(answer=index)
            applied.apply(0)
            probed = world.clone(answer=index)
            probed.try_option(0)
            assert _seen(probed) == _seen(applied)
            if not applied.is_over:
                assert applied.option_count() >= 2  # a choice of one is taken by both
            tried += 1
    assert tried >= 10


def test_a_tried_match_is_not_played_on():
    game = rulelang.load(str(games_dir() / "zemico.rules"))
    match = game.new_match(players=2, seed=1)
    assert match.option_count() >= 2
    match.try_option(0)
    assert not match.is_over and match.to_move is not None
    assert not match.vm.probe  # only the one apply probes
    with pytest.raises(ValueError, match="stopped at a choice without listing its options"):
        match.option_count()
    with pytest.raises(ValueError, match="stopped at a choice without listing its options"):
        match.clone()
