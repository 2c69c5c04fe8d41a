"""The browser table (headless Chromium) with pieces, layers and alike cards (issue 41, part B):
a whole game of dominoes played by clicks, each tile drawn as one outlined shape over its two
cells; Survivors' sites drawn on the tiles of its map, not beside it; alike tokens shown once with
their count, even when they can be chosen, and hidden cards that can be chosen never merged."""
from __future__ import annotations

import random
from pathlib import Path

from test_table_browser import browser, open_seat, serve  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parent.parent


def test_a_whole_game_of_dominoes_by_clicks(browser, serve):  # noqa: F811
    served = serve("examples/dominoes.rules", ["human", "random"], seed=3)
    page = open_seat(browser, served.links["Player 1"])
    match = served.table.match
    for _ in range(60):
        if match.is_over:
            break
        page.wait_for_selector("#prompt .ask, #banner.over", timeout=8000)
        if match.is_over:
            break
        cards = page.locator("#mine .card.target")
        if cards.count():
            cards.first.click()
        places = page.locator("button.option[data-key^='cells:']")
        places.first.wait_for(timeout=5000)
        # the place's cells light up on the board while the pointer is on its button
        places.first.hover()
        first = places.first.get_attribute("data-key").split(":")[2].split("|")[0]
        assert page.locator(f'g.preview-first[data-cell="table:{first}"]').count() == 1
        places.first.click()
        page.wait_for_timeout(150)
    page.wait_for_selector("#banner.over", timeout=8000)
    assert match.is_over and not page.errors
    laid = match.s.zones["table"].items
    # each tile on the table is one outlined shape over its two cells, named once
    assert page.locator("g.piece").count() == len(laid) > 2
    for d in laid:
        shape = page.locator(f'g.piece[data-ref="c{d.id}"]')
        assert shape.locator("text.piece-name").text_content() == f"{d.attrs['a']}|{d.attrs['b']}"
        assert shape.locator(".piece-fill").count() == 3  # two squares and the bridge between them
    # the cells under a tile draw no shape of their own
    assert page.locator(".cell-shape.under-piece").count() == 2 * len(laid)


def test_survivors_sites_are_drawn_on_the_map(browser, serve):  # noqa: F811
    served = serve("games/survivors.rules", ["human", "random", "random", "random"], seed=1)
    page = open_seat(browser, served.links["Player 1"])
    rng = random.Random(2)
    for _ in range(12):
        page.wait_for_selector("#prompt .ask", timeout=15000)
        options = page.locator("g.target, #mine .card.target, button.option")
        options.nth(rng.randrange(min(options.count(), 3))).click()
        page.wait_for_timeout(200)
    page.wait_for_selector("#prompt .ask", timeout=15000)
    assert page.locator('.board[data-zone="sites"]').count() == 0  # not beside the map
    assert "with sites on it" in page.locator('.board[data-zone="map"] h2').inner_text()
    sites = served.table.match.s.zones["sites"].cells
    held = [c for c in sites.occupied_cells()]
    assert held  # bases at least
    for c in held:
        key = f"{c[0]},{c[1]}"
        chips = page.locator(f'.board[data-zone="map"] g[data-cell="map:{key}"] .layer-chip')
        assert chips.count() >= 1, key
    assert not page.errors


GAME = """\
game "Tokens" {
  players 2
  round: play
}
component Token { n: int  label "token {n}" }
cards tokens in supply { Token(n: 1) * 4; Token(n: 2) }
cards secrets in pile { Token(n: 5) * 3 }
zone supply
zone pile
zone hand per player private
setup { draw 3 from pile to hand(player(2)) }
phase play {
  choose c from supply by player(1) as "Take a token"
  move c to hand(player(1))
  choose h from hand(player(2)) by player(1) as "Take a card of player 2"
  move h to hand(player(1))
  end game
}
"""


def test_alike_tokens_are_one_card_with_a_count_hidden_ones_stay_apart(browser, serve, tmp_path):  # noqa: F811
    path = tmp_path / "tokens.rules"
    path.write_text(GAME, encoding="utf-8")
    served = serve(path, ["human", "human"])
    page = open_seat(browser, served.links["Player 1"])
    page.wait_for_selector("#prompt .ask")
    supply = page.locator('.zone[data-zone="supply"] .card')
    assert supply.count() == 2  # four alike tokens once, and the other one
    assert supply.nth(0).locator(".times").inner_text() == "×4"
    assert supply.nth(0).get_attribute("class").split().count("target") == 1
    supply.nth(0).click()
    page.wait_for_selector("text=Take a card of player 2")
    # three hidden cards of player 2 that can each be taken: three cards, never one with a count
    hidden = page.locator('.player[data-seat="2"] .card.back')
    assert hidden.count() == 3 and page.locator('.player[data-seat="2"] .times').count() == 0
    assert served.table.match.s.zones["hand#1"].items[0].attrs["n"] == 1
    assert not page.errors
