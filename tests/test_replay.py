"""Seeded games are deterministic, and stay the same when the engine is made faster.

For every game and example, in every mode, a seeded match is played with seeded uniform-random
choices (to its end, or its first 120 decisions, to keep the suite quick). The test checks that
- saving it halfway (to JSON text) and resuming, or cloning it halfway (as a planning bot does),
  then giving the same answers, ends in the same match;
- the match matches the digest stored in tests/replays/digests.json, as long as the rules file is
  the one the digest was made from (the file's hash is stored beside it). A digest covers every
  decision (how many options, which one was taken), the result and where every card ended.

When a change to the engine is meant to change how games play, regenerate the digests:
    python3 tests/test_replay.py --update
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DIGESTS = HERE / "replays" / "digests.json"
SEED = 7
DECISIONS = 120


def cases() -> list[tuple[Path, str | None]]:
    from rulelang.parser import parse_file

    out = []
    for path in sorted([*REPO.glob("games/*.rules"), *REPO.glob("examples/*.rules")]):
        out.append((path, None))
        out.extend((path, v) for v in parse_file(path).variants())
    return out


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def match_digest(match, choices: list[tuple[int, int]]) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(choices).encode())
    h.update(json.dumps(match.result, sort_keys=True, default=str).encode())
    h.update(json.dumps([match.s.round, match.s.phase, match.s.current, match.s.decisions]).encode())
    zones = {key: [e.id for e in zone.items] for key, zone in sorted(match.s.zones.items())}
    h.update(json.dumps(zones, sort_keys=True).encode())
    return h.hexdigest()[:20]


def play(game, seed: int):
    """A seeded match with seeded random choices: the match and its (options, choice) list."""
    match = game.new_match(seed=seed)
    rng = random.Random(seed)
    choices = []
    while not match.is_over and len(choices) < DECISIONS:
        n = match.option_count()
        i = rng.randrange(n)
        choices.append((n, i))
        match.apply(i)
    return match, choices


def finish(match, choices: list[tuple[int, int]]):
    for n, i in choices:
        assert match.option_count() == n
        match.apply(i)
    return match


_GAMES: dict = {}


def loaded(path: Path, mode: str | None):
    import rulelang

    key = (path, mode)
    if key not in _GAMES:
        _GAMES[key] = rulelang.load(path, variant=mode)
    return _GAMES[key]


CASES = cases()


@pytest.mark.parametrize("path, mode", CASES, ids=[f"{p.stem}-{m or 'base'}" for p, m in CASES])
def test_seeded_match_resumes_and_clones_identically_and_matches_its_digest(path, mode):
    game = loaded(path, mode)
    match, choices = play(game, SEED)
    digest = match_digest(match, choices)

    half = len(choices) // 2
    again = game.new_match(seed=SEED)
    for _, i in choices[:half]:
        again.apply(i)
    saved = json.dumps(again.to_json())
    clone = again.clone()
    resumed = finish(game.match_from_json(saved), choices[half:])
    assert match_digest(resumed, choices) == digest, "saving halfway and resuming changed the match"
    assert match_digest(finish(clone, choices[half:]), choices) == digest, "a clone taken halfway played differently"
    assert match_digest(finish(again, choices[half:]), choices) == digest, "the same seed and answers gave another match"

    stored = json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.exists() else {}
    entry = stored.get(f"{path.relative_to(REPO)}|{mode or ''}")
    if entry is not None and entry["source"] == source_hash(path):
        assert entry["digest"] == digest, (
            f"seed {SEED} of {path.name} ({mode or 'base'}) plays differently than when its digest was stored; "
            "if the engine is meant to play differently now, run: python3 tests/test_replay.py --update")


def update() -> None:
    out = {}
    for path, mode in CASES:
        match, choices = play(loaded(path, mode), SEED)
        out[f"{path.relative_to(REPO)}|{mode or ''}"] = {"source": source_hash(path), "digest": match_digest(match, choices)}
    DIGESTS.parent.mkdir(exist_ok=True)
    DIGESTS.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(out)} digests written to {DIGESTS.relative_to(REPO)}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python3 tests/test_replay.py --update")
    sys.path.insert(0, str(REPO))
    update()
