"""`rulelang simulate`'s report in a terminal: readable at 80 columns, whatever the game.

A game whose players carry many numbers (Evacuation has 30) once made a per-seat table of one
column per field: 34 columns of "…" at 80 and at 200 columns. The fields are rows now, and the
seats columns (or, when the seats do not fit, a summary of them; every figure is in --out).
"""
from __future__ import annotations

from pathlib import Path

from rich.console import Console

from rulelang.balance.simulate import GameRecord, Summary
from rulelang.cli.balance import print_metrics, print_seats
from rulelang.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def _summary(players: int, fields: int, games: int = 6) -> Summary:
    records = []
    for g in range(games):
        attrs = [{f"resource_number_{k}": (g + seat + k) % 7 for k in range(fields)} for seat in range(players)]
        records.append(GameRecord(seed=g, winners=[g % players + 1], rounds=3, decisions=30, players=attrs,
                                  keyword_uses={}, options_offered=60, choices=30))
    return Summary(title="Many numbers", variant=[], players=players, agents=["random"] * players, games=records)


def _report(summary: Summary, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    print_seats(console, summary)
    print_metrics(console, summary)
    return console.export_text()


def test_many_player_fields_are_rows_with_a_column_per_seat():
    text = _report(_summary(4, 30), 80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text
    header = next(line for line in lines if "player field" in line)
    assert all(f"seat {i}" in header for i in (1, 2, 3, 4))
    for k in range(30):  # every field on a row of its own, its name whole
        row = [line for line in lines if f"resource_number_{k} " in line]
        assert len(row) == 1 and row[0].count("±") == 4, row


def test_seats_that_do_not_fit_are_summarised_and_the_full_table_is_left_to_out():
    text = _report(_summary(8, 5), 80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80 and "…" not in text
    header = next(line for line in lines if "player field" in line)
    assert "all seats" in header and "lowest seat" in header and "highest seat" in header
    assert "seat 8" not in header
    assert "--out FILE" in text
    row = next(line for line in lines if "resource_number_0 " in line)
    assert "(seat " in row


def test_seed_games_read_at_80_columns(monkeypatch):
    for game in ("evacuation", "splicers"):
        console = Console(width=80, record=True, color_system=None, soft_wrap=True, markup=False)
        monkeypatch.setattr("rulelang.cli.main.console", console)
        assert main(["simulate", str(ROOT / "games" / f"{game}.rules"), "-n", "3", "--quiet", "--jobs", "1"]) == 0
        text = console.export_text()
        assert max(len(line) for line in text.splitlines()) <= 80
        assert "…" not in text, game
        assert "what players end with" in text


def test_the_card_table_says_it_lists_only_the_most_used_cards(monkeypatch):
    # Zemico plays more than 25 different cards; the summary keeps the 25 most used, and the table's
    # title said nothing of it (a reader took the missing cards for never played)
    console = Console(width=80, record=True, color_system=None, soft_wrap=True, markup=False)
    monkeypatch.setattr("rulelang.cli.main.console", console)
    assert main(["simulate", str(ROOT / "games" / "zemico.rules"), "-n", "3", "--quiet", "--jobs", "1"]) == 0
    text = console.export_text()
    assert "card use, the 25 most used" in text
    assert "option kind use (and" in text  # (the short tables say nothing of the kind)
    assert max(len(line) for line in text.splitlines()) <= 80
