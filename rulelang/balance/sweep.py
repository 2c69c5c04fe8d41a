"""Sweeps: the same seeded games over a grid of settings (and variants), as a table.

``--set hand_size=3,5,7 --set bonus=0,2`` makes 6 cells; ``--variant a --variant b`` (or
``--variant a,b`` for both at once; ``base`` for none) multiplies them. Every cell plays the
same seeds, so a difference between cells is the rules' doing, not the dice's.
"""
from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path

from rulelang.balance.simulate import simulate


def grid(sets: list[str], variants: list[str] | None) -> list[tuple[list[str], dict[str, str]]]:
    """The cells: (variants, settings) for every combination."""
    axes: list[tuple[str, list[str]]] = []
    for item in sets or []:
        if "=" not in item:
            raise ValueError(f"--set takes NAME=VALUE,VALUE,..., not {item!r}")
        name, values = item.split("=", 1)
        choices = [v.strip() for v in values.split(",") if v.strip()]
        if not choices:
            raise ValueError(f"--set {name} lists no values")
        axes.append((name.strip(), choices))
    variant_choices = [[x for x in v.split(",") if x and x != "base"] for v in variants or ["base"]]
    return [(vs, {name: value for (name, _), value in zip(axes, combo)})
            for vs in variant_choices for combo in itertools.product(*[values for _, values in axes])]


def cell_name(variants: list[str], settings: dict[str, str]) -> str:
    parts = list(variants) + [f"{k}={v}" for k, v in settings.items()]
    return ", ".join(parts) or "base"


#: The headline metrics of a row, each with its interval (value, low, high), in the order of the table's columns.
METRICS = ("first_player_advantage", "no_winner_rate", "shared_win_rate", "rounds", "decisions", "branching_factor",
           "lead_changes", "drama", "decided_at")


def sweep(path: str, sets: list[str], variants: list[str] | None, n: int, players: int | None = None,
          agents: list[str] | None = None, seed: int = 0, jobs: int | None = 1, cluster: str | None = None,
          progress=None) -> tuple[str, list[dict]]:
    """Simulate every cell; one row of headline metrics per cell (with intervals)."""
    rows = []
    title = ""
    for vs, settings in grid(sets, variants):
        summary = simulate(path, n, variant=vs, players=players, agents=agents, seed=seed, jobs=jobs,
                           settings=settings, progress=progress, cluster=cluster)
        title = summary.title
        m = summary.metrics()
        row = {"cell": cell_name(vs, settings), "variants": vs, "settings": settings, "games": summary.count,
               "players": summary.players,
               "win_rate": {f"seat {r['seat']}": {"rate": r["rate"], "low": r["low"], "high": r["high"]}
                            for r in m["win_rate"]}}
        for key in METRICS:  # (a rate's value is its "rate", a mean's its "mean")
            v = m[key]
            row[key] = {"value": v["rate"] if "rate" in v else v["mean"], "low": v["low"], "high": v["high"]}
        rows.append(row | {"seconds": round(summary.seconds, 2)})
    return title, rows


def to_csv(rows: list[dict]) -> str:
    """One line per cell; every metric as value, low, high columns."""
    buf = io.StringIO()
    setting_names = list(dict.fromkeys(k for r in rows for k in r["settings"]))
    header = ["cell", "variants"] + setting_names + ["games"]
    seats = list(dict.fromkeys(k for r in rows for k in r["win_rate"]))
    for s in seats:
        header += [f"{s} win rate", f"{s} win rate low", f"{s} win rate high"]
    for k in METRICS:
        header += [k, f"{k} low", f"{k} high"]
    w = csv.writer(buf)
    w.writerow(header)
    for r in rows:
        line = [r["cell"], "+".join(r["variants"])] + [r["settings"].get(k, "") for k in setting_names] + [r["games"]]
        for s in seats:
            v = r["win_rate"].get(s, {})
            line += [v.get("rate"), v.get("low"), v.get("high")]
        for k in METRICS:
            line += [r[k]["value"], r[k]["low"], r[k]["high"]]
        w.writerow(["" if x is None else (round(x, 6) if isinstance(x, float) else x) for x in line])
    return buf.getvalue()


def write_tables(rows: list[dict], folder: str | Path) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = folder / "sweep.csv", folder / "sweep.json"
    csv_path.write_text(to_csv(rows), encoding="utf-8")
    json_path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return [csv_path, json_path]
