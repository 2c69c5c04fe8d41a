"""Property tests (hypothesis): random legal play of games/zemico.rules, in every mode,
never crashes, and cards are conserved after every step.

Conservation: every entity is in exactly one zone, the zones' contents are exactly the
entity list (no duplicates, none missing; a board's cells hold exactly its items), and
the number of entities never changes once setup is over.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rulelang
from conftest import REPO
from rulelang.language.astcache import parse_file_cached

ZEMICO = REPO / "games" / "zemico.rules"
MODES = [None] + list(parse_file_cached(ZEMICO).variants())
_GAMES: dict = {}


def zemico(mode):
    if mode not in _GAMES:
        _GAMES[mode] = rulelang.load(ZEMICO, variant=mode)
    return _GAMES[mode]


def assert_conserved(s) -> None:
    where: dict[int, str] = {}
    for key, zone in s.zones.items():
        for e in zone.items:
            assert e.id not in where, f"card {e.id} is both in {where[e.id]} and in {key}"
            where[e.id] = key
            assert e.zone is zone, f"card {e.id} is listed in {key} but thinks it is in {e.zone and e.zone.key}"
        if zone.is_board:
            on_cells = sorted(e.id for c in zone.cells.occupied_cells() for e in zone.cells.stack(c))
            assert on_cells == sorted(e.id for e in zone.items), f"the cells of {key} disagree with its cards"
            for e in zone.items:
                assert e in zone.cells.stack(e.cell), f"card {e.id} is not on its cell {e.cell}"
    ids = [e.id for e in s.entities]
    assert len(set(ids)) == len(ids)
    assert set(where) == set(ids), f"cards in no zone: {sorted(set(ids) - set(where))}"
    for i, e in enumerate(s.entities):
        assert e.id == i


def play_checked(game, players: int, seed: int, choice_seed: int, limit: int = 5000) -> dict:
    match = game.new_match(players=players, seed=seed)
    rng = random.Random(choice_seed)
    count_after_setup = None
    steps = 0
    while True:
        assert_conserved(match.s)
        if match.s.round >= 1:
            if count_after_setup is None:
                count_after_setup = len(match.s.entities)
            assert len(match.s.entities) == count_after_setup, "cards appeared or vanished during play"
        if match.is_over:
            break
        options = match.legal_options()
        assert options, "a choice is pending with no options"
        match.apply(rng.randrange(len(options)))
        steps += 1
        assert steps < limit, "the game does not end"
    result = match.result
    assert result is not None and all(1 <= w <= players for w in result["winners"])
    return result


@pytest.mark.parametrize("mode", MODES, ids=[m or "base" for m in MODES])
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31), choice_seed=st.integers(0, 2**31))
def test_random_play_never_crashes_and_conserves_cards(mode, players, seed, choice_seed):
    play_checked(zemico(mode), players, seed, choice_seed)


def test_the_conservation_check_catches_a_lost_card():
    match = zemico(None).new_match(players=2, seed=1)
    zone = next(z for z in match.s.zones.values() if z.items and not z.is_board)
    zone.items.pop()
    with pytest.raises(AssertionError):
        assert_conserved(match.s)


def test_the_conservation_check_catches_a_duplicate():
    match = zemico(None).new_match(players=2, seed=1)
    zone = next(z for z in match.s.zones.values() if z.items and not z.is_board)
    zone.items.append(zone.items[0])
    with pytest.raises(AssertionError):
        assert_conserved(match.s)


# ------------------------------------------------------------------ broken files never crash the checker

from conftest import EXAMPLES, GAMES, assert_plain_words  # noqa: E402
from rulelang.check.checker import check_rules  # noqa: E402
from rulelang.core.errors import RulesError  # noqa: E402
from rulelang.language.parser import parse_text  # noqa: E402

SOURCES = [p.read_text(encoding="utf-8") for p in GAMES + EXAMPLES]


@st.composite
def damaged_source(draw):
    """A game from games/ or examples/ with one typing mistake: a character lost, a stray
    character, a line lost, a span lost, or two letters of a word swapped."""
    text = draw(st.sampled_from(SOURCES))
    kind = draw(st.sampled_from(["drop_char", "insert_char", "drop_line", "drop_span", "swap_letters"]))
    pos = draw(st.integers(0, len(text) - 1))
    if kind == "drop_char":
        return text[:pos] + text[pos + 1:]
    if kind == "insert_char":
        return text[:pos] + draw(st.sampled_from(list("{}()[]=,.;:'#\"|*x1 \n"))) + text[pos:]
    if kind == "drop_line":
        lines = text.splitlines(keepends=True)
        i = pos % len(lines)
        return "".join(lines[:i] + lines[i + 1:])
    if kind == "drop_span":
        return text[:pos] + text[pos + draw(st.integers(1, 40)):]
    start = text.find(" ", pos) + 1
    end = start
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    word = text[start:end]
    if len(word) < 3:
        return text
    return text[:start] + word[1] + word[0] + word[2:] + text[end:]


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_source())
def test_a_damaged_file_gets_plain_diagnostics_never_a_crash(text):
    try:
        rules = parse_text(text, "damaged.rules")
        check_rules(rules, all_variants=True)
    except RulesError as exc:
        report = exc.format()
        assert_plain_words(report)
        for d in exc.diagnostics:
            assert d.message and d.span.file == "damaged.rules" and d.span.line >= 1, report
