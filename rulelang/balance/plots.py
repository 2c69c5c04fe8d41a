"""Balance plots (matplotlib, imported only here): PNG and SVG of each picture.

* ``win_rates.*``: win rate per seat with its interval, the fair share (the average seat's) marked;
* ``length.*``: histogram of game length in rounds and in decisions;
* ``compare_win_rates.*`` / ``compare_length.*``: arms A and B side by side;
* ``sweep_<metric>.*``: a metric across the cells of a sweep, with intervals;
* ``skill_ladder.*``: each rung of a skill ladder against the one below, and how far it climbs.
"""
from __future__ import annotations

from pathlib import Path

COLORS = ["#3b6ea8", "#d9822b", "#4a9a5b", "#b5484b", "#7d5ba6", "#8c6d46"]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, folder: str | Path, name: str) -> list[Path]:
    """The picture as PNG and SVG, every axes without its top and right lines."""
    for ax in fig.axes:
        ax.spines[["top", "right"]].set_visible(False)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for ext in ("png", "svg"):
        path = folder / f"{name}.{ext}"
        fig.savefig(path, dpi=110 if ext == "png" else None, bbox_inches="tight")
        out.append(path)
    _plt().close(fig)
    return out


def _title(summary) -> str:
    return f"{summary.title}" + (f" ({', '.join(summary.variant)})" if summary.variant else "")


def _percent(ax) -> None:
    from matplotlib.ticker import FuncFormatter

    # as many decimals as a tick needs: "2.5%" and "10%" (not "2%" rounded, nor "10.0%")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value * 100:.4g}%"))


def _errors(values: list[float], intervals: list[dict]) -> list[list[float]]:
    """Error bars below and above each value drawn, from intervals with a "low" and a "high" (none
    where there is no interval)."""
    return [[max(0.0, v - r["low"]) if r["low"] is not None else 0.0 for v, r in zip(values, intervals)],
            [max(0.0, r["high"] - v) if r["high"] is not None else 0.0 for v, r in zip(values, intervals)]]


def _win_bars(ax, rates: list[dict], offsets: float = 0.0, width: float = 0.6, color=None, label=None):
    xs = [i + offsets for i in range(len(rates))]
    values = [r["rate"] or 0.0 for r in rates]
    low, high = _errors(values, rates)
    ax.bar(xs, values, width, yerr=[low, high], capsize=4, color=color or COLORS[0], label=label,
           error_kw={"elinewidth": 1.2, "ecolor": "#333333"})
    for x, v, h in zip(xs, values, high):
        ax.text(x, v + h + 0.01, f"{v:.0%}", ha="center", va="bottom", fontsize=8)


def win_rate_axes(ax, summary, metrics: dict, fontsize: int = 8, agents: bool = True) -> None:
    """Win rate per seat with its interval, and the fair share: the average seat's rate, 1/players when
    every game has one winner (and the line first_player_advantage measures from: far lower in a game
    that often names nobody). Drawn by simulate's plot and by the rulebook's balance section."""
    rates = metrics["win_rate"]
    _win_bars(ax, rates)
    fair = sum(r["rate"] or 0.0 for r in rates) / summary.players
    ax.axhline(fair, color="#888888", linestyle="--", linewidth=1, label=f"fair share ({fair:.0%}: the average seat)")
    ax.legend(fontsize=fontsize - 1, frameon=False, loc="best")
    ax.set_xticks(range(len(rates)), [f"seat {r['seat']}" + (f"\n{r['agent']}" if agents else "") for r in rates],
                  fontsize=fontsize)
    ax.set_ylabel("win rate", fontsize=fontsize + 2)
    ax.set_ylim(0, min(1.0, max([r["high"] or 0 for r in rates] + [fair]) * 1.2 + 0.05))
    _percent(ax)


def win_rate_plot(summary, folder, name: str = "win_rates") -> list[Path]:
    metrics = summary.metrics()
    fig, ax = _plt().subplots(figsize=(5.5, 3.6))
    win_rate_axes(ax, summary, metrics)
    nobody = metrics["no_winner_rate"]["rate"] or 0.0
    ax.set_title(f"{_title(summary)}: win rate per seat\n{summary.count} games, 95% Wilson intervals"
                 + (f", no winner in {nobody:.0%}" if nobody else ""), fontsize=9)
    return _save(fig, folder, name)


def length_plot(folder, name: str, title: str, arms: list[tuple]) -> list[Path]:
    """Histograms of game length in rounds and in decisions, for one summary (its mean marked) or
    several overlaid on the same bins: `arms` are (summary, label, colour)."""
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    fig, axes = _plt().subplots(1, 2, figsize=(9, 3.4))
    for ax, key in zip(axes, ("rounds", "decisions")):
        values = [[getattr(g, key) for g in summary.games] for summary, _label, _color in arms]
        everything = [v for vs in values for v in vs]
        lo, hi = min(everything), max(everything)
        bins = np.arange(lo - 0.5, hi + 1.5, 1) if hi - lo <= 40 else np.linspace(lo, hi, 31)
        for vs, (_summary, label, color) in zip(values, arms):
            ax.hist(vs, bins=bins, color=color, alpha=1.0 if len(arms) == 1 else 0.6, label=label,
                    edgecolor="white", linewidth=0.5)
        if len(arms) == 1:
            mean = sum(everything) / max(len(everything), 1)
            ax.axvline(mean, color="#b5484b", linewidth=1.2, label=f"mean {mean:.1f}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if hi - lo < 6:  # a narrow spread: show a few whole numbers around it
            ax.set_xlim(lo - 2, hi + 2)
        ax.legend(fontsize=8, frameon=False, loc="best")  # (where it covers the fewest bars)
        ax.set_xlabel(f"game length ({key})")
        ax.set_ylabel("games")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return _save(fig, folder, name)


def simulate_plots(summary, folder) -> list[Path]:
    return win_rate_plot(summary, folder) + length_plot(
        folder, "length", f"{_title(summary)}: game length, {summary.count} games", [(summary, None, COLORS[0])])


def compare_plots(c, folder) -> list[Path]:
    """A and B side by side: win rate per seat, and the length distributions overlaid."""
    from rulelang.balance.metrics import p_words

    plt = _plt()
    ra, rb = c.summary_a.metrics()["win_rate"], c.summary_b.metrics()["win_rate"]
    fig, ax = plt.subplots(figsize=(max(5.5, 1.4 * len(ra) + 2), 3.6))
    _win_bars(ax, ra, -0.2, 0.38, COLORS[0], f"A: {c.a.spec}")
    _win_bars(ax, rb, +0.2, 0.38, COLORS[1], f"B: {c.b.spec}")
    ax.set_xticks(range(len(ra)), [f"seat {r['seat']}" for r in ra])
    _percent(ax)
    ax.set_ylabel("win rate")
    top = max([r["high"] or 0 for r in ra + rb] + [0.1])
    ax.set_ylim(0, min(1.2, top + 0.18))
    stars = {d.metric: d for d in c.diffs}
    for i in range(len(ra)):
        d = stars.get(f"seat {i + 1} win rate")
        if d is not None and d.significant:
            pair_top = max(ra[i]["high"] or 0, rb[i]["high"] or 0)
            ax.plot([i - 0.2, i - 0.2, i + 0.2, i + 0.2], [pair_top + 0.07, pair_top + 0.09, pair_top + 0.09,
                                                         pair_top + 0.07], color="#b5484b", linewidth=1)
            ax.text(i, pair_top + 0.10, f"p {p_words(d.p_adjusted)}", ha="center", fontsize=7, color="#b5484b")
    ax.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    ax.set_title(f"{c.summary_a.title}: A vs B, {c.summary_a.count} games each, 95% Wilson intervals", fontsize=9)
    return _save(fig, folder, "compare_win_rates") + length_plot(
        folder, "compare_length", f"{c.summary_a.title}: game length, A vs B",
        [(c.summary_a, f"A: {c.a.spec}", COLORS[0]), (c.summary_b, f"B: {c.b.spec}", COLORS[1])])


def sweep_plots(rows: list[dict], folder, title: str) -> list[Path]:
    """One picture per headline metric: its value (with interval) in every cell of the sweep; the
    win rate with one line per seat."""
    plt = _plt()
    out = []
    labels = [r["cell"] for r in rows]
    seats = sorted({k for r in rows for k in r["win_rate"]}, key=lambda s: int(s.split()[1]))
    for key, label in (("win_rate", "win rate"), ("rounds", "game length (rounds)"),
                       ("decisions", "game length (decisions)"), ("no_winner_rate", "no-winner rate")):
        if key == "win_rate":  # (a seat's rate is its "rate", a metric's its "value")
            lines = [(seat, [{**r["win_rate"][seat], "value": r["win_rate"][seat]["rate"]} for r in rows])
                     for seat in seats]
        else:
            lines = [(None, [r[key] for r in rows])]
        fig, ax = plt.subplots(figsize=(max(5.5, 0.9 * len(rows) + 2), 3.8 if key == "win_rate" else 3.4))
        for j, (name, points) in enumerate(lines):
            xs = [i + (j - (len(lines) - 1) / 2) * 0.1 for i in range(len(rows))]
            values = [p["value"] or 0 for p in points]
            ax.errorbar(xs, values, yerr=_errors(values, points), marker="o", capsize=3,
                        color=COLORS[j % len(COLORS)], label=name)
        ax.set_xticks(range(len(rows)), labels, rotation=20 if len(rows) > 4 else 0,
                      ha="right" if len(rows) > 4 else "center", fontsize=8)
        if key.endswith("rate"):
            _percent(ax)
        ax.set_ylabel(label)
        if key == "win_rate":
            ax.legend(fontsize=8, frameon=False)
        ax.set_title(f"{title}: {'win rate per seat' if key == 'win_rate' else label} across the sweep "
                     "(95% intervals)", fontsize=9)
        out += _save(fig, folder, f"sweep_{key}")
    return out


def ladder_plot(data: dict, folder, name: str = "skill_ladder") -> list[Path]:
    """A skill ladder (``tournament.Ladder.to_json``): each rung's share of the games won alone against
    the rung below, with its interval; the rungs that climb (stronger than the rung below by the sign test
    on the seeds) in colour."""
    plt = _plt()
    rungs = data["rungs"]
    fig, ax = plt.subplots(figsize=(1.1 * len(rungs) + 2.2, 3.4))
    rates = [r["rate"] for r in rungs]
    xs = range(len(rungs))
    values = [r["rate"] if r["rate"] is not None else 0.5 for r in rates]
    colors = [COLORS[2] if r["climbs"] else "#aaaaaa" for r in rungs]
    ax.axhline(0.5, color="#888888", linestyle="--", linewidth=1)
    ax.text(-0.45, 0.5, "as strong as the rung below", va="bottom", ha="left", fontsize=7, color="#666666")
    ax.errorbar(xs, values, yerr=_errors(values, rates), fmt="none", ecolor="#333333", elinewidth=1.2, capsize=4)
    ax.scatter(xs, values, s=40, c=colors, zorder=3)
    ax.plot(xs, values, color="#bbbbbb", linewidth=1, zorder=2)
    for x, v in zip(xs, values):
        ax.text(x + 0.08, v, f"{v:.0%}", ha="left", va="center", fontsize=8)
    top = data["climb"]
    if 0 < top < len(rungs):
        ax.axvline(top - 0.5, color=COLORS[3], linestyle=":", linewidth=1.2)
        ax.text(top - 0.45, 0.02, "wins stop rising", fontsize=7, color=COLORS[3], va="bottom")
    ax.set_xticks(list(xs), [f"{r['bot']}\nvs {r['below']}" for r in rungs], fontsize=8)
    ax.set_xlim(-0.5, len(rungs) - 0.5)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of the games won alone")
    _percent(ax)
    ax.set_title(f"{data['game']}: skill ladder ({data['seeds']} seeds per rung, seats swapped)\n"
                 f"{data['summary']}", fontsize=8.5)
    return _save(fig, folder, name)
