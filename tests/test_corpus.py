"""The corpus: every game in games/ checks clean and finishes with seeded random bots in
every mode (the base game and each variant it declares); and no game's name or keyword
appears in the language's own source (rulelang/).

Games differ a lot in speed, so each mode plays up to SEEDS seeded games within a time
budget (at least MIN_GAMES). Set RULELANG_FULL_CORPUS=1 to play every seed regardless.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import time
from functools import lru_cache

import pytest

import rulelang
from conftest import GAMES, REPO
from rulelang.language import nodes as N
from rulelang.bots.agents import make_agent, play_match
from rulelang.cli.main import main
from rulelang.language.astcache import parse_file_cached
from rulelang.language.parser import parse_file

SEEDS = 20
MIN_GAMES = 2
BUDGET_SECONDS = 1.0  # per mode
FULL = os.environ.get("RULELANG_FULL_CORPUS") == "1"

# The five seed games and words from them (the brief's list); titles, file names and
# compound keyword names of the games found in games/ are added to it.
SEED_WORDS = ["zemico", "ecogon", "splicer", "survivor", "evacuat", "hunt", "graze", "season", "herbivor",
              "carnivor", "biom"]


def modes(path):
    return [None] + list(parse_file_cached(path).variants())  # (collecting: each file parsed once)


CASES = [(path, mode) for path in GAMES for mode in modes(path)]


def test_there_are_games():
    assert GAMES, "games/ holds no .rules file"


@pytest.mark.parametrize("path", GAMES, ids=[p.name for p in GAMES])
def test_game_checks_clean(path, repo_cwd):
    """`rulelang check games/NAME.rules` (run in-process; tests/test_cli.py runs the real command)."""
    rel = path.relative_to(REPO).as_posix()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", rel])
    assert code == 0, err.getvalue()
    assert out.getvalue().startswith(f"{rel}: ok")
    assert err.getvalue() == ""


@pytest.mark.parametrize("path, mode", CASES, ids=[f"{p.stem}-{m or 'base'}" for p, m in CASES])
def test_random_bots_finish_every_mode(path, mode):
    game = rulelang.load(path, variant=mode)
    g = game.program.game
    counts = list(range(g.players_min, g.players_max + 1))
    start = time.monotonic()
    played = 0
    for seed in range(SEEDS):
        players = counts[seed % len(counts)]
        match = game.new_match(players=players, seed=seed)
        play_match(match, [make_agent("random", seed * 100 + seat) for seat in range(players)])
        result = match.result
        assert match.is_over and result is not None, f"seed {seed}: the game did not end"
        assert all(1 <= w <= players for w in result["winners"]), f"seed {seed}: {result['winners']}"
        assert result["rounds"] >= 1
        if g.max_rounds is not None:
            assert result["rounds"] <= g.max_rounds
        played += 1
        if not FULL and played >= MIN_GAMES and time.monotonic() - start > BUDGET_SECONDS:
            break
    assert played >= MIN_GAMES


def test_same_seed_same_game():
    path = next((p for p in GAMES if p.stem == "zemico"), GAMES[0])
    game = rulelang.load(path)

    def run():
        match = game.new_match(seed=12)
        play_match(match, [make_agent("random", seat) for seat in range(len(match.s.players))])
        return match.result, match.to_json()

    assert run() == run()


# ------------------------------------------------------------------ no game in the language


@lru_cache(maxsize=1)
def forbidden_words() -> tuple[str, ...]:
    words = set(SEED_WORDS)
    for path in GAMES:
        rules = parse_file(path)
        words.add(path.stem.lower())
        words.update(w.lower() for w in re.findall(r"[A-Za-z]{4,}", rules.game().title))
        decls = list(rules.decls) + [i for v in rules.variants().values() for i in v.items]
        words.update(d.name.lower() for d in decls if isinstance(d, N.KeywordDecl) and "_" in d.name)
    return tuple(sorted(words))


def language_sources():
    root = REPO / "rulelang"
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".lark", ".md", ".txt")
                  and "__pycache__" not in p.parts and "_bundled" not in p.parts)


def test_language_source_names_no_game():
    found = []
    words = forbidden_words()
    for path in language_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            low = line.lower()
            for word in words:
                if word in low:
                    found.append(f"{path.relative_to(REPO)}:{number}: {word!r}: {line.strip()}")
    assert not found, "game names or keywords in the language's source:\n" + "\n".join(found)


def test_the_name_check_would_notice():
    assert "zemico" in forbidden_words() and "hunt" in forbidden_words()
    assert any(p.name == "runtime.py" for p in language_sources())
