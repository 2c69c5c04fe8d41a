"""Golden replays of every game and mode, card conservation and view safety at every step.

For each game in games/ and examples/ and each of its modes (the base game, each variant, and the
modes recorded with settings, e.g. `--set map_mode=tile_laying`), a stored replay
(tests/replays/) is played again: the state digests must match, saves taken at random steps are
resumed from JSON and must reach the same digests, and after the audited steps no card has been
created or lost and no player's view holds a card that player may not see.

To keep the test short, digests are compared every DIGEST_EVERY steps (and at the last step, at
saves and at audited steps); on a mismatch the game is replayed again digest by digest, so the
failure names the first step that differs. `rulelang replay --check` compares every digest.

A game or variant without a stored replay fails with the one command that records it:

    rulelang replay --record games/NEW.rules        # then commit tests/replays/
"""
from __future__ import annotations

import copy
import json

import pytest

from conftest import REPO
from rulelang.tools import replay

REPLAYS = REPO / "tests" / "replays"
DIGEST_EVERY = 10
CASES = [(path.relative_to(REPO).as_posix(), variants, settings) for path in replay.corpus(REPO)
         for variants, settings in [(v, {}) for v in replay.modes(path)] + replay.setting_modes(REPLAYS, path)]


def _case_id(rel, variants, settings):
    return replay.replay_file(REPLAYS, rel, variants, settings).stem


@pytest.mark.parametrize("rel,variants,settings", CASES, ids=[_case_id(*c) for c in CASES])
def test_stored_replay_matches(rel, variants, settings, repo_cwd):
    file = replay.replay_file(REPLAYS, rel, variants, settings)
    if not file.exists():
        pytest.fail(f"{rel}{' variant ' + ', '.join(variants) if variants else ''} has no stored replay: "
                    f"record it with `rulelang replay --record {rel}` (run from the repository root) and commit "
                    f"{file.relative_to(REPO).as_posix()}")
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["game"] == rel and data["variants"] == variants and data.get("settings", {}) == settings
    assert len(data["games"]) >= 2 and all(g["finished"] for g in data["games"]), \
        "a stored game should play to its end"
    # the first stored game is audited (cards conserved, views safe: every step of a short game, an
    # evenly spread sample of a long one) and resumed from saves at random steps; the others are
    # checked digest by digest, with two saves each
    steps = replay.verify({**data, "games": data["games"][:1]}, audit=True, resume_points=3,
                          digest_every=DIGEST_EVERY)
    steps += replay.verify({**data, "games": data["games"][1:]}, audit=False, resume_points=2,
                           digest_every=DIGEST_EVERY)
    assert steps == sum(len(g["choices"]) for g in data["games"])


def test_no_stored_replay_is_left_without_its_game():
    wanted = {replay.replay_file(REPLAYS, rel, v, settings).name for rel, v, settings in CASES}
    stale = sorted(p.name for p in REPLAYS.glob("*.json") if p.name not in wanted)
    assert not stale, f"replays of games or variants that no longer exist: {stale}"


def tampered(rel="examples/highcard.rules") -> dict:
    return json.loads(replay.replay_file(REPLAYS, rel, []).read_text(encoding="utf-8"))


def test_a_changed_step_names_the_game_step_and_rule(repo_cwd):
    data = tampered()
    data["games"][0]["digests"][5] = "0" * 16
    with pytest.raises(replay.ReplayMismatch) as info:
        replay.verify(data, audit=False)
    message = str(info.value)
    assert message.startswith("examples/highcard.rules, seed 1, step 5, after option")
    assert "chosen at examples/highcard.rules:" in message
    assert "rulelang replay --record examples/highcard.rules" in message


def test_a_change_between_compared_digests_is_named_at_its_own_step(repo_cwd):
    """With digests compared every 4 steps, a state that differs from step 5 on is found at step 8
    and traced back to step 5, as a check of every digest would name it."""
    data = tampered()
    digests = data["games"][0]["digests"]
    assert len(digests) > 8
    digests[5:] = ["0" * 16] * (len(digests) - 5)
    with pytest.raises(replay.ReplayMismatch, match=r"^examples/highcard.rules, seed 1, step 5, after option"):
        replay.verify(data, audit=False, digest_every=4)


def test_a_mode_chosen_by_a_setting_is_recorded_and_replayed(tmp_path, repo_cwd):
    """`rulelang replay --record FILE --set NAME=VALUE` stores a mode of its own, which the test finds."""
    from rulelang.cli.main import main

    assert main(["replay", "--record", "examples/highcard.rules", "--set", "hand_size=3", "--dir", str(tmp_path)]) == 0
    file = tmp_path / "highcard--hand_size=3.json"
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["settings"] == {"hand_size": "3"} and data["variants"] == []
    assert replay.setting_modes(tmp_path, "examples/highcard.rules") == [([], {"hand_size": "3"})]
    assert replay.verify(data) == sum(len(g["choices"]) for g in data["games"])
    assert data["games"] != tampered()["games"]  # three cards each: another game than the base one
    assert main(["replay", "--check", str(file)]) == 0


def test_a_choice_no_longer_offered_is_named(repo_cwd):
    data = tampered()
    data["games"][0]["choices"][2] = 40
    with pytest.raises(replay.ReplayMismatch, match=r"step 3.*option 40 is not offered"):
        replay.verify(data, audit=False)


def test_the_audit_sees_a_lost_card_and_a_leaked_view(repo_cwd):
    import rulelang

    game = rulelang.load("examples/highcard.rules")
    match = game.new_match(seed=1)
    audit = replay.Audit()
    audit(match, "start")
    broken = match.clone()
    zone = next(z for z in broken.s.zones.values() if z.items)
    zone.items.pop()  # a card vanishes from its zone
    with pytest.raises(replay.ReplayMismatch, match="lost"):
        replay.check_conservation(broken, copy.copy(audit), "lost")
    leaky = match.clone()
    hand = next(z for z in leaky.s.zones.values() if z.visibility == "private" and z.items)
    hand.visibility = "public"  # shown to everybody by the view...
    real_may_see = replay.may_see
    try:
        replay.may_see = lambda e, seat: real_may_see(e, seat) if e.zone is not hand else e.zone.owner == seat
        with pytest.raises(replay.ReplayMismatch, match="may not see"):
            replay.check_views(leaky, "leak")  # ...but the rules say only its owner may see it
    finally:
        replay.may_see = real_may_see
