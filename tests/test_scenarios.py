"""Every designer scenario under tests/scenarios/ (all games) must pass.

One test per scenario file (``*.rules`` or ``*.json``), run through
``rulelang.tools.scenario.run_file``; a failure lists each failing scenario as
``file:line: name`` with the runner's message.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rulelang.tools.scenario import run_file

SCENARIOS = Path(__file__).parent / "scenarios"
FILES = sorted(p for p in SCENARIOS.rglob("*") if p.is_file() and p.suffix in (".rules", ".json"))
_GAMES: dict = {}  # loaded games, shared by every file (loading a game is the slow part)


def _where(result, path: Path) -> str:
    span = result.failed_at or result.span
    file = span.file if getattr(span, "file", None) else str(path)
    return f"{file}:{span.line}"


def test_scenario_files_exist():
    assert FILES, f"no scenario files under {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario_file(path: Path):
    results = run_file(path, _GAMES)
    assert results, f"{path} holds no scenario"
    failed = [r for r in results if not r.passed]
    if failed:
        lines = [f"{len(failed)} of {len(results)} scenarios failed in {path}:"]
        for r in failed:
            message = "\n    ".join(r.message.splitlines())
            lines.append(f"  {_where(r, path)}: {r.name}\n    {message}")
        pytest.fail("\n".join(lines), pytrace=False)


# ------------------------------------------------------------------ a designer's mistakes, in plain words
# Each scenario below holds one mistake; `rulelang test` must fail it at the scenario's own line, in
# plain words, with the line quoted under a caret and what was expected (never a misleading pass).

def _fail_of(tmp_path: Path, body: str, head: str = 'game "highcard"\n  players 2\n'):
    path = tmp_path / "bad.rules"
    path.write_text(f'scenario "a mistake" {{\n  {head}{body}}}\n', encoding="utf-8")
    [result] = run_file(path, _GAMES)
    assert not result.passed, "the mistake was not reported"
    assert "Traceback" not in result.message and "NoneType" not in result.message
    return result


POSITION = '  position {\n    phase play\n    set leader = player(1)\n%s  }\n  run choice\n  expect chooser == player(1)\n'

MISTAKES = [
    # (the scenario's body, its failing line, the words the message must hold)
    (POSITION % "    hnad of player 1: Card(suit: clubs, rank: 3)\n", 7,
     ['the game has no zone "hnad"', "expected: one of: deck, hand, played, taken", 'did you mean "hand"?',
      "|     hnad of player 1", "|     ^"]),
    (POSITION % "    deck of player 1: Card(suit: clubs, rank: 3)\n", 7,
     ['"deck" is one zone shared by all the players, not one per player', "expected: `deck: ...` (without `of player 1`)"]),
    (POSITION % "    hand of player 3: Card(suit: clubs, rank: 3)\n", 7,
     ["there is no hand of player 3 in this match: it has 2 players", "expected: player 1 to player 2"]),
    (POSITION % "    hand of player 1: Card(suit: clubs, colour: 3)\n", 7,
     ['Card has no field "colour"', "expected: a field of Card: suit, rank"]),
    (POSITION % "    hand of player 1: Card(suit: clubs, rank: 30)\n", 7,
     ["the game has no card Card(suit: clubs, rank: 30): no Card has rank 30",
      "expected: rank among: 1, 2, 3, 4, 5, 6, 7, 8"]),
    (POSITION % "    hand of player 1: Card(suit: clubs, rank: 3), Card(suit: clubs, rank: 3)\n", 7,
     ["every card Card(suit: clubs, rank: 3) is already placed by this position: the game has only one"]),
    (POSITION % "    hand of player 1: Crad(suit: clubs, rank: 3)\n", 7,
     ['the game has no component "Crad"', 'did you mean "Card"?']),
    (POSITION % "    hand of player 1: Card(suit: clubz, rank: 3)\n", 7,
     ['"clubz" is not defined', 'did you mean "clubs"?']),
    (POSITION % "    set leeder = player(2)\n", 7,
     ['the game has no var "leeder"', "expected: one of: leader", 'did you mean "leader"?']),
    (POSITION % "    set leader = 2\n", 7, ['var "leader" holds a player, not the number 2']),
    (POSITION % "    set player(1).trikcs = 2\n", 7, ['a player has no field "trikcs"', 'did you mean "tricks"?']),
    (POSITION % "    set player(1).tricks = \"two\"\n", 7, ['field "tricks" holds a number, not the text "two"']),
    (POSITION % "    set hand_size = 2\n", 7,
     ['"hand_size" is a setting of the game, not a var', "expected: `setting hand_size = CHOICE`"]),
    (POSITION % "    set round = 2\n", 7, ["the round is not set with `set`", "expected: `round N` in the position"]),
    ('  position {\n    phase plya\n  }\n  run choice\n  expect true\n', 5,
     ['the game has no phase "plya"', "expected: one of: play, take_trick", 'did you mean "play"?']),
    ('  run step tak\n  expect true\n', 4, ['the game has no step "tak"']),
    ('  run setup\n  expect player(1).trikcs == 0\n', 5, ['Player 1 has no "trikcs"', 'did you mean "tricks"?']),
    ('  run setup\n  expect player(1).tricks == "zero"\n', 5,
     ['left side is the number 0, right side is the text "zero": values of two kinds are never equal']),
    ('  position {\n    phase take_trick\n  }\n  run setup\n  expect true\n', 7,
     ["a scenario with a position starts after setup: `run setup` has nothing to run"]),
    ('  position {\n    phase take_trick\n    set leader = player(1)\n    hand of player 1: empty\n'
     '    hand of player 2: empty\n    played of player 1: Card(suit: clubs, rank: 3)\n'
     '    played of player 2: Card(suit: hearts, rank: 7)\n  }\n  run phase play\n  expect true\n', 12,
     ['the game ended before phase "play" ran, in round 1', "a condition of the rules that ends the game"]),
    ('  position {\n    phase take_trick\n    set leader = player(1)\n    hand of player 1: empty\n'
     '    hand of player 2: empty\n    played of player 1: Card(suit: clubs, rank: 3)\n'
     '    played of player 2: Card(suit: hearts, rank: 7)\n  }\n  run game\n  run phase play\n  expect true\n', 13,
     ['the game is already over (in round 1): phase "play" cannot run']),
    ('  run step\n  expect true\n', 4, ["say which step to run: `run step NAME`", "|   run step"]),
    ('  run phase plya\n  expect true\n', 4,
     ['the game has no phase "plya"', "expected: one of: play, take_trick", 'did you mean "play"?']),
    ('  next roll 0\n  run setup\n  expect true\n', 4, ["a die shows 1 or more, not 0"]),
    ('  run setup\n', 1, ["the scenario checks nothing: add at least one `expect`"]),
    ('  run setup\n  expect error "nothing"\n', 5, ['expected the rules to fail with "nothing", but they did not']),
    ('  run setup\n  choose option 9\n  expect true\n', 5,
     ['this answer was never used: no choice came up for "option 9"']),
]


@pytest.mark.parametrize("body, line, words", MISTAKES, ids=[str(i) for i in range(len(MISTAKES))])
def test_a_mistake_in_a_position_or_a_step_is_said_at_its_line(tmp_path, body, line, words):
    result = _fail_of(tmp_path, body)
    assert result.failed_at.line == line and result.failed_at.file.endswith("bad.rules"), (result.failed_at, result.message)
    for w in words:
        assert w in result.message, result.message


HEADS = [
    # (the scenario's head, its failing line, the words the message must hold)
    ('game "higcard"\n  players 2\n', 2,
     ['cannot find the game "higcard": there is no file', "and no bundled game of that name",
      "expected: a path relative to the scenario file, or a bundled game: ", 'did you mean "highcard"?']),
    ('game "highcard"\n  players 9\n', 3,
     ["High card is played by 2 to 4 players, not 9", "expected: `players N` with N from 2 to 4"]),
    ('game "highcard"\n  variant highball\n  players 2\n', 3,
     ['the game has no variant "highball"', "expected: one of: lowball"]),
    ('game "highcard"\n  setting hand_sise = three\n  players 2\n', 3,
     ['the game has no setting "hand_sise"', 'did you mean "hand_size"?']),
    ('game "highcard"\n  setting hand_size = lots\n  players 2\n', 3,
     ['setting "hand_size" takes a whole number (within ±10^18), not "lots"']),
]


@pytest.mark.parametrize("head, line, words", HEADS, ids=[str(i) for i in range(len(HEADS))])
def test_a_wrong_game_variant_setting_or_player_count_is_said_at_the_scenario_line(tmp_path, head, line, words):
    result = _fail_of(tmp_path, "  run setup\n  expect true\n", head)
    assert result.failed_at.line == line and result.failed_at.file.endswith("bad.rules"), (result.failed_at, result.message)
    assert "--set" not in result.message and "--variant" not in result.message
    for w in words:
        assert w in result.message, result.message
