"""The browser table (`rulelang serve`) played by clicks in a real headless Chromium.

Debian's `chromium` is driven by Playwright (which cannot download its own browsers here); the
README's test command installs chromium when it is missing, so these tests run, never skip.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import sync_playwright

from rulelang.compile.loader import load
from rulelang.table.server import Table, create_app

ROOT = Path(__file__).resolve().parent.parent


def chromium_path() -> str:
    for name in (os.environ.get("RULELANG_CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise AssertionError("Debian's chromium is not installed: run `apt-get install -y chromium` "
                         "(the README's test command does it for you)")


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class Served:
    def __init__(self, table: Table):
        self.table = table
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.server = uvicorn.Server(uvicorn.Config(create_app(table), host="127.0.0.1", port=self.port,
                                                    log_level="warning", timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.time() + 10
        while not self.server.started:
            assert time.time() < deadline, "the table did not start"
            time.sleep(0.02)
        self.links = dict(table.links(f"http://127.0.0.1:{self.port}"))

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=5)


@pytest.fixture
def serve(tmp_path):
    started = []

    def start(file, seats, seed=1, variant=None):
        table = Table(load(ROOT / file, variant=variant), seats, seed=seed, bot_delay=0.0, saves=tmp_path)
        started.append(Served(table))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def open_seat(browser, url):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector(".player")
    page.errors = errors
    return page


def test_whole_tic_tac_toe_game_by_clicks(browser, serve):
    served = serve("examples/tictactoe.rules", ["human", "human"])
    one = open_seat(browser, served.links["Player 1"])
    two = open_seat(browser, served.links["Player 2"])
    # crosses take the top row; noughts answer in the middle row
    moves = [(one, "0,0"), (two, "0,1"), (one, "1,0"), (two, "1,1"), (one, "2,0")]
    for page, cell in moves:
        target = page.locator(f'g.target[data-cell="grid:{cell}"]')
        target.wait_for(timeout=5000)
        target.click()
    for page in (one, two):
        page.wait_for_selector("#banner.over")
        assert page.inner_text("#banner") == "Game over after 1 round, Player 1 won."
        assert page.locator("#feed li").count() == 5
        assert not page.errors
    assert served.table.match.result["winners"] == [1]

    # time travel: two decisions back, nothing can be played there, then play on from it
    one.locator("#travel button[title='one decision back']").click()
    one.wait_for_selector("text=Decision 4 of 5")
    one.locator("#travel button[title='one decision back']").click()
    one.wait_for_selector("text=Decision 3 of 5")
    assert "Looking back" in one.inner_text("#banner")
    assert one.locator("g.target").count() == 0
    one.locator("#travel button.primary").click()
    two.wait_for_selector("g.target")  # it is noughts' turn again, after three marks
    assert len(served.table.choices) == 3 and not served.table.match.is_over
    assert two.locator("g.target").count() == 6


def test_some_turns_of_zemico_by_clicks(browser, serve):
    served = serve("games/zemico.rules", ["human", "random", "random", "random"])
    page = open_seat(browser, served.links["Player 1"])
    table = served.table
    placed = 0
    deadline = time.time() + 40
    while placed < 3 and time.time() < deadline and not table.match.is_over:
        page.wait_for_selector("#prompt .ask", timeout=10000)
        ask = page.inner_text("#prompt .ask")
        before = len(table.choices)
        if "mission" in ask.lower():
            page.locator("#mine .player.you .card.target").first.click()
        elif page.locator("#mine .player.you .card.target").count():
            # a card from the hand, then a highlighted place on the desk: two clicks, one option
            card = page.locator("#mine .player.you .card.target").first
            label = card.locator(".name").inner_text()
            card.click()
            assert label.lower() in page.inner_text("#prompt .picked").lower()
            page.locator("#boards g.target").first.click()
            placed += 1
        else:
            page.locator("#prompt button.option").first.click()
        page.wait_for_function(f"document.querySelector('#travel .where').textContent !== 'Now: after decision {before}'")
    assert placed == 3, "three cards were placed by clicks"
    moves = [f for f in table.feed if f.get("seat") == 1 and f["labels"]["0"].startswith("place")]
    assert len(moves) == 3
    assert page.locator("#boards .board g").count() > 3
    assert not page.errors
    page.screenshot(path=str(Path(os.environ.get("RULELANG_SHOTS", "/tmp")) / "zemico-table.png"))


def test_a_seat_never_receives_another_seats_hidden_cards(browser, serve):
    served = serve("games/zemico.rules", ["human", "human", "random", "random"])
    table = served.table
    frames = []
    page = browser.new_page()
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    page.goto(served.links["Player 1"])
    page.wait_for_selector("#prompt .ask")
    # player 2 keeps a mission through its own page: then play a few decisions from seat 1's page
    two = open_seat(browser, served.links["Player 2"])
    for _ in range(6):
        if table.match.to_move == 0:
            page.locator(".card.target, g.target, #prompt button.option").first.click()
        elif table.match.to_move == 1:
            two.locator(".card.target, g.target, #prompt button.option").first.click()
        time.sleep(0.3)
    page.wait_for_timeout(300)
    secret = [e for e in table.match.s.entities
              if e.zone is not None and e.zone.owner == 1 and e.zone.visibility == "private"]
    assert secret, "player 2 holds private cards"
    traffic = "\n".join(f if isinstance(f, str) else f.decode() for f in frames) + page.content()
    assert frames
    for e in secret:
        assert f'"c{e.id}"' not in traffic, f"seat 1 received the id of player 2's {e.card.component}"
    # the mission player 2 keeps has a text nobody else may read
    mission = next(e for e in secret if "text" in e.attrs)
    assert mission.attrs["text"] not in traffic
    # and seat 1 does see its own mission's text
    own = next(e for e in table.match.s.entities if e.zone is not None and e.zone.key == "mission#1")
    assert own.attrs["text"] in traffic


def test_screenshots_of_the_seed_games(browser, serve):
    shots = Path(os.environ.get("RULELANG_SHOTS", "/tmp"))
    for file, seats in (("games/ecogon.rules", ["human", "random", "random", "random"]),
                        ("games/splicers.rules", ["human", "random"])):
        served = serve(file, seats)
        page = open_seat(browser, served.links["Player 1"])
        page.wait_for_selector("#boards .board svg g")
        page.wait_for_selector("#prompt .ask")
        assert page.locator(".card.target, g.target, #prompt button.option").count() > 0
        page.screenshot(path=str(shots / f"{Path(file).stem}-table.png"), full_page=True)
        assert not page.errors
        page.close()


def test_labels_on_a_graphs_nodes_fit_inside_them(browser, serve):
    # Splicers' fields are graphs of round nodes, several cards deep late in a match: every line of
    # a node's label stays inside its circle (it was drawn wider than the circle, over its edges
    # and its neighbours, e.g. "Bramble Wall", "2× face down" on a row near the top)
    import random
    served = serve("games/splicers.rules", ["human", "human"], seed=3)
    rng, table = random.Random(5), served.table
    while not table.match.is_over and len(table.choices) < 70:
        table.play(rng.randrange(len(table.match.s.pending["options"])))
    page = open_seat(browser, served.links["Player 1"])
    page.wait_for_selector("#boards .board svg g")
    overflow = page.evaluate("""() => {
      const out = [];
      let labels = 0;
      for (const g of document.querySelectorAll('.board g[data-cell]')) {
        const c = g.querySelector('circle.cell-shape');
        if (!c) continue;
        const r = Number(c.getAttribute('r')), cx = Number(c.getAttribute('cx')), cy = Number(c.getAttribute('cy'));
        for (const t of g.querySelectorAll('text:not(.coord)')) {
          labels++;
          const b = t.getBBox();
          for (const [x, y] of [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]])
            if (Math.hypot(x - cx, y - cy) > r + 1) { out.push(t.textContent); break; }
        }
      }
      return {labels, out};
    }""")
    assert overflow["labels"] >= 8, overflow
    assert overflow["out"] == [], overflow
    assert not page.errors


def test_a_game_value_holding_an_empty_text_shows_a_dash(browser, serve):
    # Evacuation's `var race_phase: str = ""` read "race phase:" with nothing after it
    served = serve("games/evacuation.rules", ["human", "random", "random", "random"], seed=1)
    page = open_seat(browser, served.links["Player 1"])
    chips = page.eval_on_selector_all("#status .chip", "els => els.map(e => e.textContent)")
    assert "race phase: –" in chips, chips
    assert not [c for c in chips if c.rstrip().endswith(":")], chips
    assert not page.errors


ENDING = (ROOT / "tests/surfaces/ending.rules").read_text(encoding="utf-8")  # (a private kept gem)


def test_the_end_of_a_match_shows_what_every_player_ends_with(browser, tmp_path):
    """As the terminal does: a row per player field, a column per player, the winner starred, and
    only what the seat may see (the other player's kept gem lies in a private hand)."""
    path = tmp_path / "ending.rules"
    path.write_text(ENDING, encoding="utf-8")
    served = Served(Table(load(path), ["human", "random"], seed=1, bot_delay=0.0, saves=tmp_path))
    try:
        page = open_seat(browser, served.links["Player 1"])
        page.locator(".card.target").first.click()
        page.wait_for_selector("#banner.over")
        match = served.table.match
        mine, theirs = (p.attrs for p in match.s.players)
        rows = page.locator("#prompt .end tbody tr")
        cells = [rows.nth(i).locator("th, td").all_inner_texts() for i in range(rows.count())]
        kept, hidden = (f"gem {p['kept'].attrs['worth']}" for p in (mine, theirs))
        assert cells == [["score", str(mine["score"]), str(theirs["score"])],
                         ["kept", kept, "a hidden card in hand of player 2"],
                         ["ready", "yes", "yes"]]
        assert hidden not in page.inner_text("body")
        heads = page.locator("#prompt .end thead th").all_inner_texts()
        winner = match.result["winners"][0]
        assert heads[winner].endswith("\u00a0★") and not heads[3 - winner].endswith("★")
        assert page.locator("#prompt .end th.won").count() == 1
        # on a phone the page keeps its width (a wide table scrolls inside its panel)
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert not page.errors
    finally:
        served.stop()


def test_a_watcher_sees_the_end_of_a_match_without_either_private_card(browser, tmp_path):
    """A watcher sees public cards only: at the end both kept gems (each in a private hand) are
    hidden cards in the table, while the public fields and the winner's mark are shown."""
    path = tmp_path / "ending.rules"
    path.write_text(ENDING, encoding="utf-8")
    served = Served(Table(load(path), ["random", "random"], seed=3, bot_delay=0.0, saves=tmp_path))
    try:
        page = open_seat(browser, served.links["watch (public cards only)"])
        page.wait_for_selector("#banner.over")
        match = served.table.match
        players = [p.attrs for p in match.s.players]
        rows = page.locator("#prompt .end tbody tr")
        cells = [rows.nth(i).locator("th, td").all_inner_texts() for i in range(rows.count())]
        assert cells == [["score", *(str(p["score"]) for p in players)],
                         ["kept", "a hidden card in hand of player 1", "a hidden card in hand of player 2"],
                         ["ready", "yes", "yes"]]
        body = page.inner_text("body")
        for p in players:
            assert f"gem {p['kept'].attrs['worth']}" not in body
        won = page.locator("#prompt .end thead th.won").all_inner_texts()
        assert won == [f"Player {match.result['winners'][0]} (random)\u00a0★"]
        # the table leads the main column at the end; looking back, the prompt is in the side column again
        assert page.locator("#main > #prompt:first-child .end").count() == 1
        page.locator("#travel button[title='one decision back']").click()
        page.wait_for_selector("#side > #prompt:first-child")
        assert page.locator("#prompt .end").count() == 0
        assert not page.errors
    finally:
        served.stop()


def test_the_feed_tells_moves_taken_as_the_only_option_as_the_seat_saw_them(browser, serve):
    """A choice of one option is taken without asking; the feed still tells it, with "(the only
    option)": each player's own shown gem by name, the other's as a hidden card."""
    served = serve("tests/surfaces/only_option.rules", ["human", "random"], seed=3)
    page = open_seat(browser, served.links["Player 1"])
    mine, theirs = (f"gem {e.attrs['worth']}" for e in served.table.match.s.zones["shown"])
    page.locator(".card.target").first.click()  # keep a gem: the other is given up without asking
    page.wait_for_selector("#banner.over")
    feed = page.locator("#feed li").all_inner_texts()
    only = [line for line in feed if line.endswith("(the only option)")]
    assert only[:2] == [f"Player 1: {mine} (the only option)",
                        "Player 2 (random): a hidden card (the only option)"], feed
    assert len(only) == 4 and only[2].startswith("Player 1: gem "), feed
    assert only[3] == "Player 2 (random): a hidden card (the only option)", feed
    assert theirs not in feed[1]
    assert not page.errors
