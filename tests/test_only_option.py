"""A choice of one option is taken without asking, and still told as a move on every surface.

No answer records such a move, so play, replay and the browser table once skipped it: the replay
of Tic-tac-toe's seed 1 ended at Player 2's mark, then said Player 1 won. A match given a `taken`
list tells each such move there, as each seat saw it before it was made (a card hidden from a
seat then is "a hidden card" to it), and plays on exactly as a match that is not told.
"""
from __future__ import annotations

import contextlib
import io

from conftest import REPO
from rulelang.cli.main import main
from rulelang.compile.loader import load
from rulelang.table.server import Table
from rulelang.tools.replay import digest

ONLY = REPO / "tests/surfaces/only_option.rules"


def run_main(*args) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([str(a) for a in args])
    return code, out.getvalue()


def test_a_match_tells_the_choices_of_one_option_it_takes_as_each_seat_sees_them():
    taken: list = []
    match = load(ONLY).new_match(seed=3, taken=taken)
    # the setup: each player shows the one gem of a private hand, which nobody else saw before
    assert [(t["seat"], t["prompt"]) for t in taken] == [(0, "Show which gem?"), (1, "Show which gem?")]
    shown = [e for e in match.s.zones["shown"]]
    for told, gem in zip(taken, shown):
        mine = f"gem {gem.attrs['worth']}"
        assert told["labels"][told["seat"]] == mine
        assert told["labels"][1 - told["seat"]] == told["labels"][-1] == "a hidden card"
    # a turn: the kept gem is asked for (two options), the gem left is given up without asking
    match.apply(0)
    assert len(taken) == 3 and taken[2]["seat"] == 0 and taken[2]["prompt"] == "Give up which gem?"
    given_up = taken[2]["labels"][0]
    assert given_up.startswith("gem ") and taken[2]["labels"][1] == taken[2]["labels"][-1] == "a hidden card"


def test_a_match_that_is_told_plays_on_exactly_as_one_that_is_not():
    game = load(ONLY)
    for seed in range(5):
        told, untold = game.new_match(seed=seed, taken=[]), game.new_match(seed=seed)
        while not told.is_over:
            told.apply(1)
            untold.apply(1)
            assert digest(told) == digest(untold)
        assert untold.taken is None and untold.is_over
        assert len(told.taken) == 4  # two gems shown in the setup, two given up


def test_news_puts_the_log_and_the_taken_choices_in_the_order_they_came(tmp_path):
    path = tmp_path / "news.rules"
    path.write_text('game "News" { players 2  round: play }\n'
                    'phase play {\n  log "before"\n  choose k from [7] by players[0] as "Pick"\n'
                    '  log "after {k}"\n  choose j from [1, 2] by players[1]\n  end game\n}\n', encoding="utf-8")
    taken: list = []
    match = load(path).new_match(seed=1, taken=taken)
    news = match.news(0, 0)
    assert news[0] == "before" and news[2] == "after 7" and news[1]["labels"][0] == "7"


def test_play_says_each_move_taken_as_the_only_option(repo_cwd):
    code, out = run_main("play", ONLY, "--seats", "random,random", "--seed", 3)
    assert code == 0, out
    moves = [line for line in out.splitlines() if line.startswith("Player ")]
    # with two bots the moves are told as a watcher sees them: every gem then lay in a private hand
    assert moves == ["Player 1 (random): a hidden card (the only option)",  # the setup's shown gems
                     "Player 2 (random): a hidden card (the only option)",
                     "Player 1 (random): a hidden card",  # the kept gem, asked for
                     "Player 1 (random): a hidden card (the only option)",  # the gem given up
                     "Player 2 (random): a hidden card",
                     "Player 2 (random): a hidden card (the only option)"]


def test_replay_shows_the_last_mark_of_tictactoe_taken_on_the_one_free_cell(repo_cwd):
    """Its seed 1 ends with Player 1 marking the last free cell: a choice of one option."""
    code, out = run_main("replay", "tests/replays/tictactoe.json", "--seed", 1)
    assert code == 0, out
    tail = out.splitlines()[-3:]
    assert tail[0].startswith("step 8: Player 2, Where do you mark?")
    assert tail[1] == "    Player 1, Where do you mark?: (0, 1) (the only option)"
    assert tail[2] == "game over after 1 round, Player 1 won"


def test_the_tables_feed_tells_taken_moves_to_each_seat_as_it_saw_them(tmp_path):
    table = Table(load(ONLY), ["human", "human"], seed=3, bot_delay=0, saves=tmp_path)
    gems = [f"gem {e.attrs['worth']}" for e in table.match.s.zones["shown"]]

    def feed(seat: int) -> list:
        return [(f["seat"], f["text"]) for f in table.message(seat)["feed"] if f.get("only")]

    # the setup's shown gems open every seat's feed, each named to its owner only
    assert feed(0) == [(1, gems[0]), (2, "a hidden card")]
    assert feed(1) == [(1, "a hidden card"), (2, gems[1])]
    assert feed(-1) == [(1, "a hidden card"), (2, "a hidden card")]
    table.play(0)
    assert len(feed(0)) == 3 and feed(0)[2][1].startswith("gem ") and feed(1)[2] == (1, "a hidden card")
    # a rewind replays the answers from the same start: the setup's moves open the feed again
    table.restart(table.base, [])
    assert feed(0) == [(1, gems[0]), (2, "a hidden card")]


def test_chance_in_the_chooser_or_the_prompt_of_a_taken_choice_is_left_as_it_was(tmp_path):
    """Telling works out who chose and the prompt, which may use chance: the match's chance is put
    back, so the dice that follow fall as in a match that is not told."""
    path = tmp_path / "dice.rules"
    path.write_text('game "Dice" { players 2  round: play; max rounds 3 }\nplayer { score: int = 0 }\ndef die = roll(6)\n'
                    'phase play {\n  take turns once {\n'
                    '    choose k from [1] by random(players) as "Roll {die}"\n'
                    '    current.score += roll(6) + k\n    choose j from [1, 2]\n  }\n}\n'
                    'result { win [p in players where p.score == max([q.score for q in players])] }\n',
                    encoding="utf-8")
    game = load(path)
    for seed in range(4):
        told, untold = game.new_match(seed=seed, taken=[]), game.new_match(seed=seed)
        while not told.is_over:
            assert digest(told) == digest(untold)
            told.apply(0)
            untold.apply(0)
        assert digest(told) == digest(untold)
        assert len(told.taken) == 6 and all(t["prompt"].startswith("Roll ") for t in told.taken)
