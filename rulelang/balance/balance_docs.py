"""The short "Balance" section of a game's rulebook page, from a seeded simulation.

The docs site (``docs/hooks.py``) calls ``balance_section`` for each game when it is built:
a few seeded games between random bots, on all cores, give the win rate per seat, the no-winner
rate and the length, and a small SVG plot. Small on purpose, so the site builds in seconds; the
designer runs ``rulelang simulate`` for real numbers.
"""
from __future__ import annotations

import io
from pathlib import Path

GAMES = 12  # seeded games per page


def balance_section(path: str | Path, games: int = GAMES, seed: int = 0, source_path: str | None = None,
                    plot_name: str = "balance.svg", guide_link: str = "../balance.md",
                    ladder: dict | None = None, ladder_image: str | None = None) -> tuple[str, str]:
    """(markdown, svg) of the balance section of one game's page. `ladder`: a skill ladder kept in the
    repository (what `rulelang tournament FILE --skill --out` wrote), shown as it was played, never
    played here; `ladder_image`: its plot, beside it."""
    from rulelang.balance.simulate import simulate

    summary = simulate(str(path), games, seed=seed, jobs=None)
    m = summary.metrics()
    shown = source_path or str(path)
    out = ["## Balance", "",
           f"From {summary.count} seeded games between random bots ({summary.players} players, seeds {seed} to "
           f"{seed + summary.count - 1}), played when this page was built; see [Balance your game]({guide_link}) "
           "for what the numbers mean and how to measure more.", "",
           "| seat | win rate | 95% interval |", "|---|---|---|"]
    for r in m["win_rate"]:
        out.append(f"| {r['seat']} | {r['rate']:.0%} | {r['low']:.0%} to {r['high']:.0%} |")
    rounds, decisions = m["rounds"], m["decisions"]
    nw = m["no_winner_rate"]
    out += ["",
            f"No winner in {nw['rate']:.0%} of the games. A game lasts {rounds['mean']:.1f} rounds on average "
            f"(from {rounds['min']:.0f} to {rounds['max']:.0f}) and {decisions['mean']:.0f} decisions "
            f"(from {decisions['min']:.0f} to {decisions['max']:.0f}).", "",
            f"![Win rate per seat and game length of {summary.count} seeded games]({plot_name})", "",
            "```bash", f"rulelang simulate {shown} -n 1000 --seed {seed} --plot plots/   # more games, more metrics",
            "```", ""]
    if ladder is not None:
        from rulelang.balance.tournament import ladder_markdown

        out += ["### How much skill it rewards", "", ladder_markdown(ladder), ""]
        if ladder_image:
            out += [f"![Skill ladder: each rung's win rate against the rung below]({ladder_image})", ""]
        if ladder.get("command"):
            out += ["Played once and kept in the repository; this command plays it again:", "",
                    "```bash", ladder["command"], "```", ""]
    return "\n".join(out), _plot(summary)


def _plot(summary) -> str:
    from matplotlib.ticker import MaxNLocator

    from rulelang.balance.plots import COLORS, _plt, win_rate_axes

    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(7.2, 2.6))
    win_rate_axes(ax1, summary, summary.metrics(), fontsize=7, agents=False)
    ax1.set_title("win rate per seat (95% intervals)", fontsize=8)
    values = [g.decisions for g in summary.games]
    ax2.hist(values, bins=min(15, max(1, len(set(values)))), color=COLORS[1], edgecolor="white", linewidth=0.5)
    ax2.set_xlabel("decisions per game", fontsize=8)
    ax2.set_ylabel("games", fontsize=8)
    ax2.set_title("game length", fontsize=8)
    ax2.yaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in (ax1, ax2):
        ax.tick_params(labelsize=7)
        ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()
