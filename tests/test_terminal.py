"""`rulelang play` in the terminal: boards drawn as boards, options chosen part by part, bots one line each."""
from __future__ import annotations

import io
import random
import re
from pathlib import Path

from rich.console import Console

from rulelang.compile.loader import load
from rulelang.table.tableview import table_view
from rulelang.table.terminal import QUIT, ask, draw_view

ROOT = Path(__file__).resolve().parent.parent


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=120, color_system=None, highlight=False), out


def test_a_square_grid_is_drawn_as_a_grid_with_numbered_places():
    game = load(ROOT / "examples/tictactoe.rules")
    match = game.new_match(seed=1)
    match.apply(4)  # a cross in the middle
    c, out = console()
    answers = iter(["3"])
    index = ask(c, match, 1, read=lambda _: next(answers))
    text = out.getvalue()
    assert "┌" in text and "┼" in text and "┘" in text  # a grid, not a list of coordinates
    assert "cross" in text and "[8]" in text
    rows = [line for line in text.splitlines() if line.startswith("│")]
    assert len(rows) == 6  # three rows of cells, two lines each
    assert match.legal_options()[index].label == "(2, 0)"


def test_an_option_is_chosen_a_card_then_a_place():
    game = load(ROOT / "games/zemico.rules")
    match = game.new_match(players=4, seed=2)
    rng = random.Random(0)
    while not (match.to_move == 0 and match.prompt == "Place a card or skip" and match.option_count() > 10):
        match.apply(rng.randrange(match.option_count()))
    c, out = console()
    answers = iter(["1", "b", "1", "2"])  # a card, back, the card again, then a place
    index = ask(c, match, 0, read=lambda _: next(answers))
    chosen = match.legal_options()[index]
    assert chosen.name == "place"
    text = out.getvalue()
    first = text.split("Place a card or skip")[1].split(">")[0]
    hand = [z for z in table_view(match, 0)["zones"] if z["key"] == "hand#1"][0]["cards"]
    numbered = [line for line in first.splitlines() if line.strip()[:2].rstrip(".").isdigit()]
    assert len(numbered) == len(hand) + 1  # each card of the hand and "skip", not every card × every place
    assert match.option_count() > len(numbered)
    assert "a place marked [n] on desk" in text and "chosen: " in text
    assert list(chosen.bindings.values())[0].card.component == "Organism"


def test_quitting_and_saving(tmp_path):
    game = load(ROOT / "examples/tictactoe.rules")
    match = game.new_match(seed=1)
    c, out = console()
    # a save that cannot be written is said, and the game goes on (it used to end the game)
    answers = iter(["nonsense", f"save {tmp_path / 'no' / 's.json'}", f"save {tmp_path}", f"save {tmp_path / 's.json'}", "q"])
    assert ask(c, match, 0, read=lambda _: next(answers)) == QUIT
    assert "type a number from 1 to 9" in out.getvalue()
    assert f"could not save to {tmp_path / 'no' / 's.json'}: no such file or directory" in out.getvalue()
    assert f"could not save to {tmp_path}: is a directory" in out.getvalue()
    assert game.match_from_json((tmp_path / "s.json").read_text()).to_move == 0


def test_a_hex_map_is_drawn_in_offset_rows():
    game = load(ROOT / "games/ecogon.rules")
    match = game.new_match(seed=3)
    rng = random.Random(1)
    for _ in range(8):
        match.apply(rng.randrange(match.option_count()))
    c, out = console()
    draw_view(c, table_view(match, match.to_move))
    lines = out.getvalue().splitlines()
    start = lines.index("ecosystem") + 1
    board = []
    for line in lines[start:]:
        if not line.startswith(" "):
            break
        board.append(line)
    coords = [line for line in board if "," in line]
    indents = {len(line) - len(line.lstrip()) for line in coords}
    assert len(indents) > 1  # rows are shifted against each other
    placed = [e for e in match.s.zones["ecosystem"].items]
    assert placed and all(any(e.attrs.get("name", "") in line for line in board) for e in placed[:3])


def test_bots_moves_are_one_line_each():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "rulelang", "play", "games/zemico.rules", "--seed", "2",
                          "--seats", "human,random,random,random"], input="1\n" * 30, capture_output=True,
                         text=True, timeout=120, cwd=ROOT).stdout
    bot_lines = [line for line in out.splitlines() if line.startswith(("Player 2 (random):", "Player 3 (random):"))]
    assert len(bot_lines) >= 4
    for line in bot_lines:
        rest = out.split(line, 1)[1].lstrip("\n")
        assert rest.startswith(("Player ", "Zemico", "  ")), "a bot's move is one line"


def asked_at_80_columns(name: str, seed: int, seat: int | None = None) -> str:
    """What the terminal prints when it asks the seat to move (or `seat`) at 80 columns."""
    match = load(ROOT / f"games/{name}.rules").new_match(players=2, seed=seed)
    out = io.StringIO()
    c = Console(file=out, width=80, color_system=None, highlight=False, soft_wrap=True)
    ask(c, match, match.to_move if seat is None else seat, read=lambda _: "1")
    return out.getvalue()


def test_long_lines_wrap_between_words_at_80_columns():
    # the CLI's console leaves wrapping to the terminal (soft wrap, so simulate's figures can be
    # copied whole); the table's lines of cards and options must still wrap between words at the
    # terminal's width, not cut "mission discard" into "mis" / "sion discard"
    lines = asked_at_80_columns("zemico", 3, seat=0).splitlines()
    assert any("mission offer" in line for line in lines)
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]


def test_at_80_columns_a_line_breaks_between_a_players_values_and_between_cards():
    # Splicers at 80 columns read "... turn over: no · dominated:" over "0", and "Gills [4]  Bog Wolf"
    # over "[5]": a value was parted from its name, a card from its number
    lines = asked_at_80_columns("splicers", 4).splitlines()
    options = [m.groups() for m in map(re.compile(r"\s+(\d+)\. (.+)$").match, lines) if m]
    assert len(options) == 7 and options[-1][1] == "nothing"
    for number, card in options[:-1]:  # each card of the hand with its number, on one line
        assert any(f"{card} [{number}]" in line for line in lines), (card, lines)
    assert [line for line in lines if "dominated: 0" in line] and not [line for line in lines if line.rstrip().endswith(":")]
    assert max(len(line) for line in lines) <= 80


def test_a_hex_cells_name_is_cut_between_words_never_inside_one():
    # Survivors' map at 120 columns: "Supermarket" was drawn "Supermark" over "et [2]", "Industrial
    # zone" as "Industria" over "l z… [10]"; a word too long for its cell is cut with "…" instead
    game = load(ROOT / "games/survivors.rules")
    match = game.new_match(players=2, seed=3)
    c, out = console()
    draw_view(c, table_view(match, 0))
    text = out.getvalue()
    assert "Supermar…" in text and "Industri…" in text
    words = set(text.split())
    assert not {"et", "l", "rui…"} & words, sorted({"et", "l", "rui…"} & words)


def test_a_narrow_hex_cell_keeps_its_whole_number():
    # Survivors' map at 80 columns: a cell holding a site read "r… [10" (the number cut, for a
    # letter of the site's name); a cell too narrow for both shows the number alone
    text = asked_at_80_columns("survivors", 4)
    assert "1-48. a place marked [n] on map" in text
    assert all(f"[{n}]" in text for n in range(1, 49)), [n for n in range(1, 49) if f"[{n}]" not in text]
    assert not re.search(r"\[\d+(?!\d|\])", text)


def test_a_game_value_holding_an_empty_text_shows_a_dash():
    # Evacuation's `var race_phase: str = ""` read "race phase:" with nothing after it, as in the browser
    from rulelang.table.terminal import value_text

    assert [value_text(v) for v in ("", None, True, 0, "race_end")] == ["-", "-", "yes", "0", "race end"]


def test_the_table_at_the_end_draws_the_views_end_rows_and_hides_the_other_players_private_card():
    """`draw_result` draws the rows the browser page draws too (`end`, made once by the table
    view): the seat's own kept gem is named, the other player's is a hidden card, the winner starred."""
    from rulelang.table.terminal import draw_result

    match = load(ROOT / "tests/surfaces/ending.rules").new_match(seed=1)
    while not match.is_over:
        match.apply(0)
    view = table_view(match, 0)
    mine, theirs = (p.attrs for p in match.s.players)
    assert view["end"] == [["score", [mine["score"], theirs["score"]]],
                           ["kept", [f"gem {mine['kept'].attrs['worth']}", "a hidden card in hand of player 2"]],
                           ["ready", [True, True]]]
    c, out = console()
    draw_result(c, view)
    text = out.getvalue()
    assert f"gem {mine['kept'].attrs['worth']}" in text and "a hidden card in hand of player 2" in text
    assert f"gem {theirs['kept'].attrs['worth']}" not in text
    winner = match.result["winners"][0]
    header = next(line for line in text.splitlines() if "Player 1" in line)
    starred = [name for name in re.split(r"\s{2,}", header.strip()) if name.endswith(" *")]
    assert starred == ["Player 1 (you) *" if winner == 1 else "Player 2 *"]
    assert "* won" in text
