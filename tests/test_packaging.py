"""An installed wheel, not only a checkout, must find the grammar and the games."""
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_bundles_grammar_games_and_examples(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    wheel = next(tmp_path.glob("rulelang-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "rulelang/_bundled/grammar/rulelang.lark" in names
    assert "rulelang/_bundled/grammar/rulelang.lalr" in names  # its LALR tables (lark_parser.write_tables)
    for game in (ROOT / "games").glob("*.rules"):
        assert f"rulelang/_bundled/games/{game.name}" in names
    # data files a game reads (`table ... from "maps/..."`) travel with it
    for data in (ROOT / "games").rglob("*.csv"):
        assert f"rulelang/_bundled/games/{data.relative_to(ROOT / 'games').as_posix()}" in names
    for example in (ROOT / "examples").glob("*.rules"):
        assert f"rulelang/_bundled/examples/{example.name}" in names
    for asset in ("table.html", "table.js", "table.css", "favicon.svg"):  # the browser table's page
        assert f"rulelang/table/static/{asset}" in names
    for reference in (ROOT / "bench").glob("*.py"):
        assert f"rulelang/_bundled/bench/{reference.name}" in names  # `rulelang bench` races them
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "rulelang = rulelang.cli.main:command" in zipfile.ZipFile(wheel).read(entry_points).decode()
