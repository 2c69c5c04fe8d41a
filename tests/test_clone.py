"""A copy of a match (what a planning bot imagines) plays on exactly like the match.

For every game and example, in every mode, a seeded match is played with seeded uniform-random
choices (to its end, or its first 120 decisions, to keep the suite quick). A clone taken halfway,
and a match saved halfway to JSON text and resumed, given the same answers, end exactly like the
match itself: the same options at every decision, the same result, every card in the same place.
(The golden replays of tests/test_replays.py check resuming at every step and that the games stay
the same as they were recorded.)
"""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SEED = 7
DECISIONS = 120


def cases() -> list[tuple[Path, str | None]]:
    from rulelang.language.astcache import parse_file_cached as parse_file  # (collecting: each file parsed once)

    out = []
    for path in sorted([*REPO.glob("games/*.rules"), *REPO.glob("examples/*.rules")]):
        out.append((path, None))
        out.extend((path, v) for v in parse_file(path).variants())
    return out


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
def test_a_clone_or_a_resumed_save_plays_on_like_the_match(path, mode):
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


def test_a_clone_shares_only_what_never_changes():
    """A clone shares with its match a pending choice's lists of plain values (cells, numbers:
    an Options never changes its lists) and nothing that holds a card; playing the clone to its
    end leaves the match's options and cards as they were."""
    from rulelang.engine.saves import holds_no_object

    assert holds_no_object([1, "a", None, (0, 1), ((0, 1),)[0], True, 2.5])
    assert not holds_no_object([(0, (1, 2))])  # nested tuples are not looked into: remapped
    game = loaded(REPO / "examples" / "tictactoe.rules", None)
    match = game.new_match(seed=1)
    match.apply(0)
    options = match.s.pending["options"]
    before = list(options)
    clone = match.clone()
    assert clone.s.pending["options"]._segments[0][2][3] is options._segments[0][2][3]  # the list of free cells
    rng = random.Random(1)
    while not clone.is_over:
        clone.apply(rng.randrange(clone.option_count()))
    assert list(match.s.pending["options"]) == before
    assert all(e.zone is not None and e.zone is match.s.zones[e.zone.key] for e in match.s.entities)
    assert not any(c is e for c, e in zip(clone.s.entities, match.s.entities))

    # a list of cards is the clone's own, holding the clone's cards
    zemico = loaded(REPO / "games" / "zemico.rules", None).new_match(seed=1)
    cards = zemico.s.pending["options"]._segments[0][2][3]
    copied = zemico.clone().s.pending["options"]._segments[0][2][3]
    assert copied is not cards and [e.id for e in copied] == [e.id for e in cards]
    assert not any(c is e for c, e in zip(copied, cards))


def test_a_matchs_chance_is_made_when_first_used():
    """A match's random generator is made from its seed when the rules first roll or shuffle: a
    game without chance never makes one, nor does a copy of it. A copy taken before the first use
    and one taken after, and the match saved either way, draw the same numbers as the match."""
    tictactoe = loaded(REPO / "examples" / "tictactoe.rules", None).new_match(seed=1)
    tictactoe.apply(0)
    assert tictactoe.s.rng_state() is None and tictactoe.clone().s.rng_state() is None

    game = loaded(REPO / "examples" / "tictactoe.rules", None)
    unused = game.new_match(seed=5)
    copies = [unused.clone(), game.match_from_json(json.dumps(unused.to_json()))]
    used = game.new_match(seed=5)
    used.s.rng.random()
    later = [used.clone(), game.match_from_json(json.dumps(used.to_json()))]
    expected = random.Random(5)
    first = expected.random()
    assert [m.s.rng.random() for m in copies] == [first, first]
    assert [m.s.rng.random() for m in later] == [expected.random()] * 2


def test_a_clone_copies_every_value_a_card_can_change():
    """The lists a card was made with, lists put in its fields (lists of lists too), a card put in
    a field, a change that lasts until the end of the turn and what a player was shown: a clone has
    its own copies (State.holding, CardDef.list_fields), so playing it to its end leaves the match as
    it was, and the match given the clone's answers ends as the clone did."""
    game = loaded(REPO / "tests" / "clone" / "links.rules", None)
    match = game.new_match(seed=3)
    rng = random.Random(3)
    while match.s.decisions < 5:  # the second round's "Tag it": a partner set, a change until the turn's end
        match.apply(rng.randrange(match.option_count()))
    assert match.prompt == "Tag it" and match.s.globals["__until"]
    linked = [e for e in match.s.entities if e.attrs["partner"] is not None]
    assert linked and all(e.id in match.s.holding for e in linked)
    before = json.dumps(match.to_json(), sort_keys=True)
    clone = match.clone()
    assert json.dumps(clone.to_json(), sort_keys=True) == before
    for e, c in zip(match.s.entities, clone.s.entities):
        for name in ("tags", "pairs"):
            # a card given a list has copies of its own; the others share the lists they were made
            # with (a list is never changed in place: a new one replaces it)
            assert c.attrs[name] == e.attrs[name]
            assert (c.attrs[name] is not e.attrs[name]) == (e.id in match.s.holding)
        if e.id in match.s.holding:
            assert all(a is not b for a, b in zip(c.attrs["pairs"], e.attrs["pairs"]))
        partner = e.attrs["partner"]
        assert c.attrs["partner"] is (None if partner is None else clone.s.entities[partner.id])
        assert c.known == e.known
    answers = []
    while not clone.is_over:
        answers.append(rng.randrange(clone.option_count()))
        clone.apply(answers[-1])
    assert json.dumps(match.to_json(), sort_keys=True) == before, "playing the clone changed the match"
    for i in answers:
        match.apply(i)
    assert json.dumps(match.to_json(), sort_keys=True) == json.dumps(clone.to_json(), sort_keys=True)
    assert any("tag" in e.attrs["tags"] for e in match.s.entities)
