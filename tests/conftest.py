"""Shared helpers for the foundation's test suite.

* ``REPO``: the repository root; diagnostics name files relative to it.
* ``load_rules(text)``: load an inline game (parse, check, compile).
* ``play_random(match, seed)``: answer every choice at random until the game ends.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang

REPO = Path(__file__).resolve().parent.parent
GAMES = sorted((REPO / "games").glob("*.rules"))
EXAMPLES = sorted((REPO / "examples").glob("*.rules"))

# Lark's own vocabulary must never reach a person reading a diagnostic.
LARK_WORDS = ("Traceback", "Token(", "$END", "LBRACE", "RBRACE", "LPAR", "RPAR", "LSQB", "RSQB", "__ANON",
              "UnexpectedToken", "UnexpectedCharacters", "UnexpectedEOF", "lark.")


def load_rules(text: str, name: str = "inline.rules", **kwargs):
    """Load a game written inline in a test (the path is only used in messages)."""
    return rulelang.load(name, text=text, **kwargs)


def play_random(match, seed: int = 0, limit: int = 20_000) -> list[int]:
    """Answer every pending choice with a seeded random pick; return the answers given."""
    rng = random.Random(seed)
    answers = []
    while not match.is_over:
        n = match.option_count()
        assert n > 0, "a choice is pending with no options"
        index = rng.randrange(n)
        answers.append(index)
        match.apply(index)
        assert len(answers) < limit, "the game does not end"
    return answers


def seeded_positions(game, every: int, seed: int) -> list:
    """Copies of a seeded random 2-player match, one every `every` decisions."""
    import random

    rng = random.Random(seed)
    match = game.new_match(players=2, seed=seed)
    kept = []
    while not match.is_over:
        if match.s.decisions % every == 0:
            kept.append(match.clone())
        match.apply(rng.randrange(match.option_count()))
    return kept


def assert_plain_words(text: str) -> None:
    for word in LARK_WORDS:
        assert word not in text, f"a diagnostic shows {word!r}:\n{text}"


@pytest.fixture
def repo_cwd(monkeypatch):
    """Run from the repository root, so paths in diagnostics are relative to it."""
    monkeypatch.chdir(REPO)
    return REPO


def assert_resumes_identically(game, players: int, seed: int, steps: int) -> None:
    """Play `steps` random decisions, save to JSON, resume, and check that the saved and the resumed
    match offer the same options and, given the same answers, end the same way."""
    match = game.new_match(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        match.apply(rng.randrange(match.option_count()))
    again = game.match_from_json(match.to_json())
    assert again.legal_options() == match.legal_options()
    rng_a, rng_b = random.Random(9), random.Random(9)
    while not match.is_over:
        match.apply(rng_a.randrange(match.option_count()))
        again.apply(rng_b.randrange(again.option_count()))
    assert again.result == match.result


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """The run is over: its objects are left to the operating system, not scanned once more by
    Python's cycle collector as the interpreter shuts down (on a full run's heap of about 1.5 GB
    that scan took 10 to 40 s after the last test)."""
    import gc

    gc.freeze()
