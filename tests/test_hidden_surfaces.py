"""Players see only what they may see, on every surface that tells a match: the terminal of
`rulelang play`, the browser table's log and history (`rulelang serve`), and `rulelang replay`.

A move is told as the reading seat saw it when it was made: a card hidden from them then is "a
hidden card", neither named nor placed, and never told by where it lies once the move (or a new
round, which gathers and deals the cards again) has put it elsewhere.

The game below is a small duel of hidden hands whose every card has a label of its own
(`card-11` ... `card-43`), so a line can be matched to the cards it names. A card played with rank
4 ends the round at once, and a round also ends when the deck runs out after a move: the cards are
then gathered, shuffled and dealt again, so a card a bot just played may well lie in the deck,
aside, or in someone's hand when its move is printed. Many seeded games are played on each
surface, and every line is checked against what the reading seat could see at that moment.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
import re
import sys

import pytest

from rulelang.bots.agents import AgentHandle
from rulelang.cli.main import main
from rulelang.compile.loader import load
from rulelang.tools.replay import record, write
from rulelang.engine.runtime import Match
from rulelang.table.server import Table

GAME = '''\
//! A two-player duel of hidden hands, for the tests of what each seat may see.

/// Each round: deal one card each, then turns of drawing one card and playing or burying one.
game "Courtiers" {
  players 2 default 2
  turn order clockwise
  round: deal, play
  max rounds 4
}

/// Every card has a label of its own, so a test can tell which card a line names.
component Card {
  rank: int
  serial: int
  label "card-{serial}"
}

/// Twelve cards, ranks 1 to 4, three of each.
cards court in deck {
  Card(rank: r, serial: 10 * r + i) for r in 1..4, i in 1..3
}

zone deck hidden
/// One card each round is put aside unseen.
zone set_aside hidden
zone hand per player private
/// Played cards lie face up.
zone played per player
/// Cards buried by their player, unseen.
zone buried per player hidden

player { points: int = 0 }

/// Every card is gathered, shuffled and dealt again: one aside, one to each player.
phase deal {
  for each p in players {
    move hand(p) to deck
    move played(p) to deck
    move buried(p) to deck
  }
  move set_aside to deck
  shuffle deck
  draw from deck to set_aside
  for each p in players { draw from deck to hand(p) }
}

def other = first([p in players where p != current])

/// Draw, then play a card face up or bury one unseen. A rank 2 shows its player the other hand;
/// a rank 4 scores a point and ends the round at once. The round ends when the deck is empty.
phase play {
  take turns from player(1) {
    if empty(deck) { end round }
    draw from deck to hand(current)
    choose by current as "Play or bury a card" {
      option play(c in hand(current)) {
        move c to played(current)
        if c.rank == 2 {
          for each x in hand(other) { reveal x to current }
        }
        if c.rank == 4 {
          current.points += 1
          log "{current} ends the round"
          end round
        }
      }
      option bury(c in hand(current)) {
        move c to buried(current)
      }
    }
  }
}

result {
  let most = max(p.points for p in players)
  win [p in players where p.points == most]
}
'''

SEEDS = range(1, 31)
HUMAN = 0  # the seat read in the terminal and at the table; -1 is the table's watcher
NAMED = re.compile(r"card-\d\d")
# a hidden card told by its place: "a hidden card in deck", "... in hand of player 2"
PLACED = re.compile(r"hidden card in\b|\bin (deck|set_aside|set aside|(hand|played|buried) of player)\b")
BOT_LINE = re.compile(r"Player \d \(random\): (.*)$")


@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("courtiers") / "courtiers.rules"
    path.write_text(GAME, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def game(game_file):
    return load(game_file)


def may_see(card, seat: int) -> bool:
    """The visibility rule of the language reference, stated again for this test."""
    if seat in card.known:
        return True
    zone = card.zone
    if zone.visibility == "hidden":
        return False
    if zone.visibility == "private":
        return zone.owner == seat
    return not card.face_down or card.owner == seat


def seen(match: Match, seat: int) -> set[str]:
    """The labels of the cards `seat` may see now."""
    return {f"card-{e.attrs['serial']}" for e in match.s.entities if may_see(e, seat)}


def check_line(line: str, allowed: set[str], where: str):
    assert not PLACED.search(line), f"{where}: a hidden card is placed: {line!r}"
    unseen = set(NAMED.findall(line)) - allowed
    assert not unseen, f"{where}: {line!r} names {sorted(unseen)}, which the seat may not see then"


def test_the_game_is_clean_and_its_labels_are_its_cards(game):
    labels = sorted(f"card-{e.attrs['serial']}" for e in game.new_match(seed=1).s.entities)
    assert labels == [f"card-{10 * r + i}" for r in range(1, 5) for i in range(1, 4)]
    assert all(NAMED.fullmatch(x) for x in labels)


# ------------------------------------------------------------------ the terminal


def play_in_terminal(game_file, seed: int, monkeypatch) -> tuple[str, list]:
    """`rulelang play` with a human at seat 1 (random answers typed in) against a random bot: the
    printed text, and before each move made, (where the text was then, the mover, what the human
    could see then)."""
    out = io.StringIO()
    moments: list[tuple[int, int, set[str]]] = []
    played: list[Match] = []
    apply = Match.apply

    def noting(self, option):
        if not played:
            played.append(self)
        if self is played[0]:
            moments.append((len(out.getvalue()), self.to_move, seen(self, HUMAN)))
        return apply(self, option)

    monkeypatch.setattr(Match, "apply", noting)
    answers = random.Random(seed)
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(answers.choice("12") + "\n" for _ in range(600))))
    with contextlib.redirect_stdout(out):
        code = main(["play", str(game_file), "--seed", str(seed), "--seats", "human,random"])
    text = out.getvalue()
    assert code == 0 and "Game over" in text, text[-2000:]
    moments.append((len(text), None, seen(played[0], HUMAN)))
    return text, moments


def test_the_terminal_tells_each_bot_move_as_the_human_saw_it_then(game_file, monkeypatch):
    told = {"hidden": 0, "named": 0}
    for seed in SEEDS:
        text, moments = play_in_terminal(game_file, seed, monkeypatch)
        bot_moves = [m for m in moments if m[1] not in (None, HUMAN)]
        bot_lines = 0
        # the text printed between two moves is read while the match stands as the later one finds it
        for (start, _, _), (end, _, now) in zip([(0, None, None)] + moments, moments):
            for line in text[start:end].splitlines():
                where = f"seed {seed}"
                check_line(line, now, where)
                found = BOT_LINE.search(line)
                if found:
                    # the k-th bot line tells the k-th bot move: only cards the human saw before it
                    check_line(found.group(1), bot_moves[bot_lines][2], f"{where}, bot move {bot_lines + 1}")
                    told["hidden" if "a hidden card" in line else "named"] += 1
                    bot_lines += 1
        assert bot_lines == len(bot_moves), f"seed {seed}: {bot_lines} lines for {len(bot_moves)} bot moves"
        assert NAMED.search(text), "the human's own cards are named"
    # both kinds were met: cards hidden from the human, and cards shown to them by a rank 2
    assert told["hidden"] > 50 and told["named"] > 0, told


def test_with_only_bots_the_terminal_prints_every_move_as_a_watcher_sees_it_and_the_scores(game_file, monkeypatch):
    """`rulelang play --seats random`: every move is printed (docs/cli.md says so), with only the
    cards a watcher (-1) saw when it was made named, and the match ends with what each player has."""
    WATCHER = -1
    told = {"hidden": 0, "named": 0}
    for seed in range(1, 11):
        out = io.StringIO()
        moments: list[tuple[int, set[str]]] = []
        played: list[Match] = []
        apply = Match.apply

        def noting(self, option):
            if not played:
                played.append(self)
            if self is played[0]:
                moments.append((len(out.getvalue()), seen(self, WATCHER)))
            return apply(self, option)

        monkeypatch.setattr(Match, "apply", noting)
        with contextlib.redirect_stdout(out):
            code = main(["play", str(game_file), "--seed", str(seed), "--seats", "random"])
        text = out.getvalue()
        assert code == 0 and "Game over" in text
        lines = [(i, m) for i, m in enumerate(re.finditer(r"^Player \d \(random\): (.*)$", text, re.M))]
        assert len(lines) == len(moments) > 10, f"seed {seed}: {len(lines)} lines for {len(moments)} moves"
        for (k, found), (before, (start, saw)) in zip(lines, zip([0] + [m[0] for m in moments], moments)):
            assert before <= found.start() < start  # the k-th line tells the k-th move, printed as it is made
            check_line(found.group(1), saw, f"seed {seed}, move {k + 1}")
            told["hidden" if "a hidden card" in found.group(1) else "named"] += 1
        final = played[0]
        end = text[text.index("Game over"):]
        header = next(line for line in end.splitlines() if "Player 1 (random)" in line)
        assert "Player 2 (random)" in header
        row = next(line for line in end.splitlines() if line.strip().startswith("points"))
        assert row.split()[1:] == [str(p.attrs["points"]) for p in final.s.players]
        winners = final.s.winners
        assert all(("Player %d (random) *" % (w + 1)) in header for w in winners)
        monkeypatch.setattr(Match, "apply", apply)
    assert told["hidden"] > 20, told  # cards from a private hand: hidden from the watcher when played


# ------------------------------------------------------------------ the browser table


def test_the_tables_log_and_history_tell_each_move_as_each_seat_saw_it_then(game):
    told = {"hidden": 0, "named": 0}
    rounds_ended_by_a_bot = 0  # the case that leaked: a new deal between a bot's move and its line
    for seed in SEEDS:
        table = Table(game, ["human", "random"], seed=seed)
        rng = random.Random(seed)
        before: list[dict[int, set[str]]] = []  # what the human and the watcher saw before each move
        while not table.match.is_over:
            match = table.match
            seat, round_before = match.to_move, match.s.round
            before.append({v: seen(match, v) for v in (HUMAN, -1)})
            agent = table.agents[seat]
            index = (agent.choose(AgentHandle(match, seat), match.legal_options()) if agent is not None
                     else rng.randrange(match.option_count()))
            assert table.play(index), table.error
            if agent is not None and match.s.round != round_before:
                rounds_ended_by_a_bot += 1
        final = {v: seen(table.match, v) for v in (HUMAN, -1)}
        # every point of the history, the live one last, for the human and for the watcher
        for at in range(len(table.choices) + 1):
            for viewer in (HUMAN, -1):
                message = table.message(viewer, at)
                where = f"seed {seed}, decision {at}, seat {viewer + 1 if viewer >= 0 else 'watcher'}"
                now = (before[at] if at < len(before) else final)[viewer]
                view = json.dumps(message["view"])
                check_line(view, now, where)
                for ref in re.findall(r'"c(\d+)"', view):  # a card's id only for a card the seat sees
                    assert f"card-{table.match.s.entities[int(ref)].attrs['serial']}" in now, (where, ref)
                moves = [item for item in message["feed"] if "log" not in item]
                first = at - len(moves)  # the feed keeps the latest items
                for k, item in enumerate(moves):
                    move = first + k  # 0-based: the move this item tells, as the viewer saw it before it
                    check_line(item["text"], before[move][viewer], f"{where}, move {move + 1}")
                    if at == len(table.choices) and viewer == HUMAN and item["seat"] - 1 != HUMAN:
                        told["hidden" if "a hidden card" in item["text"] else "named"] += 1
                for item in message["feed"]:
                    if "log" in item:
                        check_line(item["log"], now, where)
    assert told["hidden"] > 50 and told["named"] > 0, told
    assert rounds_ended_by_a_bot > 10


# ------------------------------------------------------------------ rulelang replay


def test_replay_tells_each_move_as_the_chosen_seat_saw_it_then(game, game_file, tmp_path):
    file = tmp_path / "courtiers.json"
    write(record(game_file, [], seeds=SEEDS), file)
    stored = json.loads(file.read_text(encoding="utf-8"))
    told = {"hidden": 0, "named": 0}
    for viewer in (HUMAN, -1):
        for entry in stored["games"]:
            seed = entry["seed"]
            # what the viewer could see before each step, and after the last
            match = game.new_match(players=stored["players"], seed=seed)
            moments = []
            for index in entry["choices"]:
                moments.append(seen(match, viewer))
                match.apply(index)
            moments.append(seen(match, viewer))
            args = ["replay", str(file), "--seed", str(seed)] + (["--seat", str(viewer + 1)] if viewer >= 0 else [])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert main(args) == 0
            step = 0
            for line in out.getvalue().splitlines():
                found = re.match(r"step (\d+): Player (\d), .*?: (.*)  \[ok\]$", line)
                step = int(found.group(1)) if found else step
                where = f"seed {seed}, seat {viewer + 1 if viewer >= 0 else 'watcher'}, step {step}"
                if found:  # a move, as the viewer saw it before it was made
                    check_line(found.group(3), moments[step - 1], where)
                    if int(found.group(2)) - 1 != viewer:
                        told["hidden" if "a hidden card" in line else "named"] += 1
                    continue
                check_line(line, moments[step], where)  # the log lines that come after a step
            assert step == len(entry["choices"]), f"seed {seed}: the replay showed {step} steps"
    assert told["hidden"] > 50 and told["named"] > 0, told
