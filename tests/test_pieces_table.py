"""Pieces, layers and full cells at the table (issue 41, part B): the terminal lists every card of a
grid or hex cell, shows a piece as one (its name on its first cell, arrows towards it on the
others), and draws a layer's cards on its base board's cells; the view of a seat says which cells
a piece covers and which board a layer lies on, and hides what the seat may not see."""
from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

import rulelang
from rulelang.table.tableview import table_view
from rulelang.table.terminal import draw_view

ROOT = Path(__file__).resolve().parent.parent

GAME = """\
game "Stack" {
  players 2
  round: play
}
component Token { n: int  label "token {n}" }
component Tile { n: int  covers 2  label "tile {n}" }
cards tokens in box { Token(n: 1) * 3; Token(n: 2) }
cards tiles in box { Tile(n: 7) }
cards secrets in box { Token(n: 9) * 2 }
zone box
zone table: board BOARD
zone marks: board on table
phase play {
  for each t in [t in box where t.component == "Token" and t.n < 9] { move t to table at (1, 1) }
  move first([t in box where t.n == 9]) to table at (1, 1) face down
  move first([t in box where t.n == 9]) to marks at (0, 0) face down
  move first([t in box where t.component == "Tile"]) to table at [(0, 1), (0, 0)]
  choose c from cells(table) by player(1) as "a cell"
  end game
}
"""


def drawn(tmp_path, board: str, seat: int = 0) -> tuple[str, dict]:
    path = tmp_path / "stack.rules"
    path.write_text(GAME.replace("BOARD", board), encoding="utf-8")
    match = rulelang.load(path).new_match(seed=1)
    view = table_view(match, seat)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    draw_view(console, view)
    return console.file.getvalue(), view


def test_a_grid_cell_lists_every_card_alike_ones_once_hidden_apart(tmp_path):
    text, view = drawn(tmp_path, "grid 4 size 3 by 3")
    cell = next(c for z in view["zones"] if z["key"] == "table" for c in z["cells"] if c["key"] == "1,1")
    assert len(cell["cards"]) == 5
    assert "face down" in text and "3 token 1" in text and "token 2" in text
    # the face-down card is its own line, never merged with the tokens a seat sees
    assert not re.search(r"\d face down", text)


def test_a_piece_is_one_card_on_its_cells_and_its_other_cells_point_to_it(tmp_path):
    text, view = drawn(tmp_path, "grid 4 size 3 by 3")
    table = next(z for z in view["zones"] if z["key"] == "table")
    on = {c["key"]: c["cards"] for c in table["cells"]}
    assert on["0,1"][0]["covers"] == ["0,1", "0,0"] and on["0,0"][0]["ref"] == on["0,1"][0]["ref"]
    assert table["count"] == 6  # 4 tokens, 1 face down, the tile: one card, though on two cells
    assert "▼ tile 7" in text  # (0, 0) points down to (0, 1), the tile's first cell
    assert text.count("tile 7") == 2


def test_a_layer_is_drawn_on_its_base_and_hides_what_it_must(tmp_path):
    text, view = drawn(tmp_path, "hex radius 2")
    marks = next(z for z in view["zones"] if z["key"] == "marks")
    assert marks["layer_of"] == "table"
    assert "table (with marks on it)" in text
    assert "\nmarks" not in text  # not drawn again beside the map
    hidden = next(c for c in marks["cells"] if c["key"] == "0,0")["cards"][0]
    assert hidden == {"ref": hidden["ref"], "hidden": True, "face_down": True}  # no name, no field, no id
    # a watcher sees the same cells, and still not the face-down card
    text2, view2 = drawn(tmp_path, "hex radius 2", seat=-1)
    assert "token 9" not in text2 and "token 9" not in str(view2)


def test_the_dominoes_table_in_the_terminal(tmp_path):
    match = rulelang.load(ROOT / "examples/dominoes.rules").new_match(players=2, seed=3)
    for _ in range(4):
        match.apply(0)
    view = table_view(match, match.to_move)
    tokens = [t for o in view["choice"]["options"] for t in o["tokens"] if t["kind"] == "cells"]
    assert tokens and all(t["zone"] == "table" and len(t["cells"]) == 2 for t in tokens)
    assert tokens[0]["text"] == " – ".join("(" + k.replace(",", ", ") + ")" for k in tokens[0]["cells"])
    console = Console(file=io.StringIO(), width=100, color_system=None)
    draw_view(console, view)
    text = console.file.getvalue()
    laid = match.s.zones["table"].items
    assert len(laid) == 4
    for d in laid:
        label = f"{d.attrs['a']}|{d.attrs['b']}"
        assert text.count(label) >= 2, label  # on both its cells (one pointing to the other)


def _drawn_figure(monkeypatch, tmp_path, match, zone=None):
    """render_board's figure, kept as it is saved."""
    from matplotlib.figure import Figure
    from rulelang.tools.render import render_board

    kept = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (kept.append(fig), real(fig, *a, **k))[1])
    out = render_board(match, tmp_path / "board.png", zone=zone, dpi=40)
    assert out.exists() and out.stat().st_size > 1000
    return kept[0].axes[0]


def test_render_draws_a_piece_as_one_shape_named_once(monkeypatch, tmp_path):
    match = rulelang.load(ROOT / "examples/dominoes.rules").new_match(players=2, seed=3)
    for _ in range(5):
        match.apply(0)
    laid = match.s.zones["table"].items
    ax = _drawn_figure(monkeypatch, tmp_path, match)
    fills = [p for p in ax.patches if p.get_zorder() == 1.6]
    edges = [p for p in ax.patches if p.get_zorder() == 1.5]
    assert len(fills) == len(edges) == 3 * len(laid)  # two squares and the band between them, each
    names = [t.get_text() for t in ax.texts]
    for d in laid:
        assert names.count(f"{d.attrs['a']}|{d.attrs['b']}") == 1


def test_render_draws_a_layer_on_its_base(monkeypatch, tmp_path):
    import random

    match = rulelang.load(ROOT / "games/survivors.rules").new_match(players=4, seed=1)
    rng = random.Random(2)
    for _ in range(30):
        match.apply(rng.randrange(match.option_count()))
    for zone in ("sites", "map"):
        ax = _drawn_figure(monkeypatch, tmp_path, match, zone)
        assert ax.get_title().endswith("map, sites")
        texts = [t.get_text() for t in ax.texts]
        assert texts.count("base") == len([e for e in match.s.zones["sites"].items if e.card.component == "Base"]) > 0


def test_an_open_board_shows_every_cell_a_piece_may_go_to(tmp_path):
    path = tmp_path / "open.rules"
    path.write_text("""\
game "Open" {
  players 2
  round: play
}
component Tile { n: int  covers 2  label "tile {n}" }
cards tiles in box { Tile(n: 1) * 2 }
zone box
zone table: board grid 4
phase play {
  move first(box) to table at [(0, 0), (1, 0)]
  let t = first(box)
  choose cells from places_for(table, t) by player(1) as "where?"
  move t to table at cells
  end game
}
""", encoding="utf-8")
    match = rulelang.load(path).new_match(seed=1)
    view = table_view(match, 0)
    table = next(z for z in view["zones"] if z["key"] == "table")
    shown = {c["key"] for c in table["cells"]}
    wanted = {k for o in view["choice"]["options"] for t in o["tokens"] if t["kind"] == "cells" for k in t["cells"]}
    assert "3,0" in wanted and "-1,1" in wanted  # beyond the frontier: a piece's second cell
    assert wanted <= shown


def test_the_rulebook_page_names_a_layers_base():
    from rulelang.tools.docgen import build_page

    page = build_page(ROOT / "games/survivors.rules")
    assert "| `sites` |  | everyone | on the cells of map |" in page.markdown


HEX_PIECES = """\
game "Hexp" {
  players 2
  round: play
}
component Tri { n: int  covers [(0, 0), (1, 0), (0, 1)]  label "tri {n}" }
component Bar { n: int  covers 3  label "bar {n}" }
cards tris in box { Tri(n: 1) }
cards bars in box { Bar(n: 1) }
zone box
zone map: board hex radius 3
phase play {
  let t = first([t in box where t.component == "Tri"])
  move t to map at placed_at(map, t, (0, 0), 0)
  let b = first([t in box where t.component == "Bar"])
  move b to map at placed_at(map, b, (-1, -2), 0)
  end game
}
"""


def test_render_fills_where_three_cells_of_a_hex_piece_meet(monkeypatch, tmp_path):
    path = tmp_path / "hexp.rules"
    path.write_text(HEX_PIECES, encoding="utf-8")
    match = rulelang.load(path).new_match(seed=1)
    assert match.s.zones["map"].cells.pieces == {0: ((0, 0), (1, 0), (0, 1)), 1: ((-1, -2), (0, -2), (1, -2))}
    ax = _drawn_figure(monkeypatch, tmp_path, match)
    fills = [p for p in ax.patches if p.get_zorder() == 1.6]
    # the tri: 3 hexes, 3 bands, the triangle where they meet; the bar: 3 hexes, 2 bands
    assert len(fills) == 7 + 5
