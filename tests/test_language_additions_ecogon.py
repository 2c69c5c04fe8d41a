"""Generic additions made for Ecogon (no game's names here):

- `rulelang simulate` summarises the games' global variables at the end: the rate of `true` for
  true/false variables (e.g. a cooperative game's `stable`), and mean, spread and quartiles for
  numbers (e.g. a team score).
- `rulelang render` / `rulelang.tools.render` (tested in tests/test_render.py).
"""
from __future__ import annotations

from rulelang.cli.main import main
from rulelang.balance.simulate import simulate

GAME = """
game "Coins" { players 2 round: flip  max rounds 3 }
var heads: int = 0
var lucky: bool = false
var note: str = "text values are not summarised"
phase flip {
  heads += roll(2) - 1
  lucky = heads >= 2
}
"""


def test_globals_are_summarised(tmp_path):
    path = tmp_path / "coins.rules"
    path.write_text(GAME, encoding="utf-8")
    summary = simulate(str(path), 40, seed=1)
    values = summary.global_values()
    assert set(values) == {"heads", "lucky"}
    heads = [g.globals["heads"] for g in summary.games]
    assert values["heads"]["min"] == min(heads) and values["heads"]["max"] == max(heads)
    assert abs(values["heads"]["mean"] - sum(heads) / len(heads)) < 1e-9
    assert values["heads"]["q1"] <= values["heads"]["median"] <= values["heads"]["q3"]
    lucky = [g.globals["lucky"] for g in summary.games]
    assert values["lucky"] == {"rate": sum(lucky) / len(lucky)}
    assert summary.to_json()["globals"] == values


def test_simulate_prints_the_game_values(tmp_path, capsys):
    path = tmp_path / "coins.rules"
    path.write_text(GAME, encoding="utf-8")
    assert main(["simulate", str(path), "-n", "10", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "game values at the end" in out
    assert "lucky" in out and "% true" in out
    assert "heads" in out
