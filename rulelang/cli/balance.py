"""The designer's balance commands: `simulate`'s report, `compare`, `sweep` and `tournament`.

`cli/main.py` registers them (``add_commands``); the work is done by ``simulate``, ``metrics``,
``compare``, ``sweep``, ``tournament`` and ``plots``.
"""
from __future__ import annotations

from rulelang.cli.args import (GAME_FILE, chosen_settings, chosen_variants, output_file, output_folder,
                               whole_number)
from rulelang.cli.console import console, err_console, print_written, progress_bar, write_json

# rich is imported inside the functions that draw: `add_commands` runs for every `rulelang` command,
# and `rulelang check` starts faster without it


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _num(x, digits=2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def rate_cell(r: dict) -> str:
    return "-" if r.get("rate") is None else f"{r['rate']:.1%} [{r['low']:.1%}, {r['high']:.1%}]"


def mean_cell(m: dict, digits=2) -> str:
    return "-" if m.get("mean") is None else f"{m['mean']:.{digits}f} [{m['low']:.{digits}f}, {m['high']:.{digits}f}]"


def _short(x: float) -> str:
    """A mean or a spread in few characters: whole hundreds, tens with one decimal, else two."""
    a = abs(x)
    return f"{x:.0f}" if a >= 100 else f"{x:.1f}" if a >= 10 else f"{x:.2f}"


def print_seats(console, summary) -> None:
    """`simulate`'s first tables: each seat's agent, wins and win rate, then the numbers players end
    with, one row per field. A column per seat when the seats fit the console's width; else one row
    per field with the mean over all seats and the lowest and highest seat (each seat's figures are
    in `--out`'s JSON, under `player_fields`)."""
    from rich.table import Table

    title = summary.title + (f" ({', '.join(summary.variant)})" if summary.variant else "")
    table = Table(title=f"{title}: {summary.count} games, {summary.players} players")
    table.add_column("seat")
    table.add_column("agent")
    table.add_column("wins", justify="right")
    table.add_column("win rate [95% interval]", justify="right")
    rates = summary.metrics()["win_rate"]
    for i, w in enumerate(summary.wins()):
        table.add_row(str(i + 1), summary.agents[i], str(w), rate_cell(rates[i]))
    console.print(table)
    fields = summary.numeric_player_fields()
    if not fields:
        return
    cells = {name: [f"{_short(m)} ± {_short(sd)}" for m, sd in seats] for name, seats in fields.items()}
    name_width = min(max(len(n) for n in fields), 24)
    seat_width = max(max(len(c) for row in cells.values() for c in row), len(f"seat {summary.players}"))
    # a rich table takes 3 characters a column (padding and rule) and one for the edge
    by_seat = name_width + 3 + summary.players * (seat_width + 3) + 1 <= console.width
    ft = Table(title="what players end with (" + ("mean ± sd" if by_seat else "the mean") + " over the games)",
               caption=None if by_seat else "each seat's figures: --out FILE (player_fields)")
    ft.add_column("player field", overflow="fold")
    if by_seat:
        for i in range(summary.players):
            ft.add_column(f"seat {i + 1}", justify="right", no_wrap=True)
        for name, row in cells.items():
            ft.add_row(name, *row)
    else:
        import statistics

        for head in ("all seats", "lowest seat", "highest seat"):
            ft.add_column(head, justify="right", no_wrap=True)
        for name, seats in fields.items():
            means = [m for m, _ in seats]
            low = min(range(len(means)), key=means.__getitem__)
            high = max(range(len(means)), key=means.__getitem__)
            ft.add_row(name, _short(statistics.fmean(means)), f"{_short(means[low])} (seat {low + 1})",
                       f"{_short(means[high])} (seat {high + 1})")
    console.print(ft)


def print_metrics(console, summary) -> None:
    """The balance metrics of a simulation, as tables (the simulate command prints these)."""
    from rich.table import Table

    from rulelang.balance.metrics import TOP_CARDS

    m = summary.metrics()
    conf = f"{m['confidence']:.0%}"
    t = Table(title=f"balance ({conf} intervals; see docs/balance.md)")
    t.add_column("metric")
    t.add_column("value [interval]", justify="right")
    t.add_column("how to read it")
    t.add_row("first-player advantage", mean_cell(m["first_player_advantage"], 3),
              "seat 1's win rate minus the average seat's; 0 is fair")
    t.add_row("no winner", rate_cell(m["no_winner_rate"]), "games that end with nobody winning")
    t.add_row("shared wins", rate_cell(m["shared_win_rate"]), "games won by more than one player (ties, team wins)")
    for key, digits in (("rounds", 2), ("decisions", 1)):
        v = m[key]
        t.add_row(f"length ({key})", mean_cell(v, digits),
                  f"median {_num(v.get('median'), 1)}, from {_num(v.get('min'), 0)} to {_num(v.get('max'), 0)}")
    t.add_row("branching factor", mean_cell(m["branching_factor"], 1), "options per decision (mean per game)")
    for key, name, how in (("lead_changes", "lead changes", "times a new player took the lead (per game)"),
                           ("drama", "drama", "how far behind the winner was on average, 0 to 1"),
                           ("decided_at", "decided at (decisiveness)", "share of the game before the winner led for good; 0 = led all along")):
        v = m[key]
        t.add_row(name, mean_cell(v), how + ("" if v.get("n") == summary.count else f" ({v.get('n', 0)} games)"))
    console.print(t)
    for key, title in (("keywords", "keyword"), ("option_kinds", "option kind"), ("cards", "card")):
        table = m[key]
        if not table:
            continue
        # (the summary keeps only the most used cards: say so when the list may be cut)
        most = f", the {TOP_CARDS} most used" if key == "cards" and len(table) >= TOP_CARDS else ""
        kt = Table(title=f"{title} use{most} (and the win rate of the seats that used it)")
        # the figures never wrap (a narrow console folds the names instead)
        kt.add_column(title, overflow="fold")
        for head in ("uses", "per game", "% of games", "users' win rate"):
            kt.add_column(head, justify="right", no_wrap=True)
        for name, v in table.items():
            kt.add_row(name, str(v["uses"]), f"{v['per_game']:.2f}", _pct(v["games_used"]), rate_cell(v["users_win_rate"]))
        console.print(kt)


# ------------------------------------------------------------------ commands


def cmd_tournament(args) -> int:
    from rulelang.balance.tournament import print_tournament, tournament

    if args.skill:
        return _skill_ladder(args)
    if not args.bots:
        err_console.print("rulelang tournament: say which bots play (--bots random,greedy), or ask for the "
                          "skill ladder (--skill)", markup=False)
        return 2
    bots = [b for b in args.bots.split(",") if b]
    pairs = len(set(bots)) * (len(set(bots)) - 1) // 2
    with progress_bar(args.quiet, "playing", args.n * max(pairs, 1) * (2 if args.duplicate else 1)) as advance:
        result = tournament(args.file, bots, args.n, variant=chosen_variants(args.variant),
                            settings=chosen_settings(args.set), players=args.players, seed=args.seed, jobs=args.jobs,
                            cluster=args.cluster, progress=advance, duplicate=args.duplicate)
    print_tournament(console, result)
    if args.out:
        write_json(args.out, result.to_json())
    return 0


def _skill_ladder(args) -> int:
    """`rulelang tournament FILE --skill`: each rung of the ladder against the one below it."""
    from rulelang.balance.tournament import LADDER, print_ladder, skill_ladder

    rungs = [b for b in (args.bots or ",".join(LADDER)).split(",") if b]
    with progress_bar(args.quiet, "climbing", args.n * 2 * max(len(rungs) - 1, 1)) as advance:
        ladder = skill_ladder(args.file, args.n, rungs, variant=chosen_variants(args.variant),
                              settings=chosen_settings(args.set), players=args.players, seed=args.seed, jobs=args.jobs,
                              cluster=args.cluster, progress=advance)
    print_ladder(console, ladder)
    data = ladder.to_json()
    # how to play it again, for a page that shows the kept results
    data["command"] = " ".join(["rulelang tournament", args.file, "--skill", "--bots", ",".join(rungs), "-n", str(args.n),
                                "--players", str(ladder.players), "--seed", str(args.seed)]
                               + (["--variant", args.variant] if args.variant else [])
                               + [f"--set {pair}" for pair in args.set or []])
    if args.out:
        write_json(args.out, data, end="\n")
    if args.plot:
        from rulelang.balance.plots import ladder_plot

        paths = ladder_plot(data, args.plot)
        console.print("plot: " + ", ".join(str(p) for p in paths), markup=False)
    return 0


def _common(p, n_default: int = 100, out_help: str = "write the results as JSON", out_type=output_file) -> None:
    p.add_argument("file", help=GAME_FILE)
    p.add_argument("-n", type=whole_number(1), default=n_default, help=f"games (default {n_default})")
    p.add_argument("--players", type=int)
    p.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed+i")
    p.add_argument("--jobs", type=whole_number(1), default=None, help="processes to use (default: all cores; 1: no pool)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the games on a Dask cluster (tcp://host:8786)")
    p.add_argument("--out", type=out_type, help=out_help)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_commands(sub) -> None:
    """Register compare, sweep and tournament on the `rulelang` argument parser."""
    p = sub.add_parser("tournament", func=cmd_tournament, help="play bots against each other and print a win matrix")
    _common(p, 20)
    p.add_argument("--bots", help="bots to pit against each other, comma-separated: "
                   "random, greedy, mc, mcts (with a budget: mc:40, mcts:100); with --skill, the rungs, weakest "
                   "first (default: random,greedy,mcts:25,mcts:50,mcts:100,mcts:200)")
    p.add_argument("--variant", help="variant(s) to apply, comma-separated")
    p.add_argument("--set", action="append", metavar="NAME=VALUE")
    p.add_argument("--duplicate", action="store_true",
                   help="play every seed twice, the seats swapped, and test on the seeds (luck of the deal cancels)")
    p.add_argument("--skill", action="store_true",
                   help="the skill ladder: each rung against the one below it (duplicate games), its win rate "
                        "with an interval, and how far the ladder climbs before wins stop rising")
    p.add_argument("--plot", metavar="DIR", help="with --skill: draw the ladder (skill_ladder.png and .svg) into DIR")

    p = sub.add_parser("compare", func=cmd_compare,
                       help="A/B: play two versions of a game on the same seeds and test every difference")
    _common(p, 200)
    p.add_argument("--a", default="base", metavar="VARIANTS_OR_SETTINGS",
                   help='arm A: variants and NAME=VALUE settings, comma-separated ("base": the game as written)')
    p.add_argument("--b", default="base", metavar="VARIANTS_OR_SETTINGS", help="arm B, written the same way")
    p.add_argument("--agents", help="agents per seat (or one for all), the same in both arms")
    p.add_argument("--alpha", type=float, default=0.05, help="the family-wise error rate (default 0.05)")
    p.add_argument("--independent", action="store_true",
                   help="arm B plays other seeds than arm A (default: the same seeds, paired tests)")
    p.add_argument("--plot", metavar="DIR", type=output_folder, help="draw A and B side by side (PNG and SVG) into this folder")

    p = sub.add_parser("sweep", func=cmd_sweep,
                       help="simulate every combination of settings (and variants); a table and plots")
    _common(p, 100, out_help="folder for sweep.csv and sweep.json (default: ./sweep)", out_type=output_folder)
    p.add_argument("--set", action="append", metavar="NAME=V1,V2,...", default=[],
                   help="a setting and the values to try; repeat for a grid")
    p.add_argument("--variant", action="append", metavar="VARIANTS",
                   help='variants to try, one cell each ("a,b" applies both; "base" is none); repeat to add')
    p.add_argument("--agents", help="agents per seat (or one for all)")
    p.add_argument("--plot", metavar="DIR", type=output_folder,
                   help="draw each metric across the sweep (PNG and SVG) into this folder")


def _diff_cell(d) -> str:
    if d.diff is None:
        return "-"
    if d.rate:
        return f"{d.diff:+.1%} [{d.low:+.1%}, {d.high:+.1%}]"
    return f"{d.diff:+.2f} [{d.low:+.2f}, {d.high:+.2f}]"


def _value(d, v) -> str:
    if v is None:
        return "-"
    return f"{v:.1%}" if d.rate else f"{v:.2f}"


def print_comparison(console, c) -> None:
    from rich.table import Table

    from rulelang.balance.metrics import p_words

    sa = c.summary_a
    how = "same seeds (paired)" if c.paired else "different seeds (independent)"
    table = Table(title=f"{sa.title}: A = {c.a.spec}, B = {c.b.spec}; {sa.count} games each, {how}")
    table.add_column("metric")
    for head in ("A", "B", "B - A [95% interval]", "p", "p (Holm)"):
        table.add_column(head, justify="right")
    table.add_column("significant")
    for d in c.diffs:
        table.add_row(d.metric, _value(d, d.a), _value(d, d.b), _diff_cell(d), p_words(d.p, ""),
                      p_words(d.p_adjusted, ""), "yes" if d.significant else "no")
    console.print(table)
    sentences = c.sentences()
    console.print(f"p-values are adjusted for testing {sum(d.p is not None for d in c.diffs)} metrics at once "
                  f"(Holm); significant means adjusted p < {c.alpha}.", markup=False)
    if sentences:
        for s in sentences:
            console.print(f"- {s[0].upper()}{s[1:]}.", markup=False, emoji=False)
    else:
        console.print(f"No significant difference between A and B in {sa.count} games each.", markup=False)


def cmd_compare(args) -> int:
    from rulelang.balance.compare import compare

    agents = args.agents.split(",") if args.agents else None
    with progress_bar(args.quiet, "simulating A and B", 2 * args.n) as advance:
        c = compare(args.file, args.a, args.b, args.n, players=args.players, agents=agents, seed=args.seed,
                    jobs=args.jobs, cluster=args.cluster, alpha=args.alpha, independent=args.independent,
                    progress=advance)
    print_comparison(console, c)
    if args.out:
        write_json(args.out, c.to_json())
    if args.plot:
        from rulelang.balance.plots import compare_plots

        print_written(compare_plots(c, args.plot))
    return 0


def cmd_sweep(args) -> int:
    from rich.table import Table

    from rulelang.balance.sweep import grid, sweep, write_tables

    agents = args.agents.split(",") if args.agents else None
    cells = len(grid(args.set, args.variant))
    with progress_bar(args.quiet, f"{cells} cells", cells * args.n) as advance:
        title, rows = sweep(args.file, args.set, args.variant, args.n, players=args.players, agents=agents,
                            seed=args.seed, jobs=args.jobs, cluster=args.cluster,
                            progress=advance)
    seats = list(dict.fromkeys(k for r in rows for k in r["win_rate"]))
    table = Table(title=f"{title}: {len(rows)} cells, {args.n} games each (the same seeds in every cell)")
    table.add_column("cell")
    for s in seats:
        table.add_column(f"{s} win rate", justify="right")
    for head in ("no winner", "rounds", "decisions"):
        table.add_column(head, justify="right")
    for r in rows:
        table.add_row(r["cell"], *[f"{r['win_rate'][s]['rate']:.1%}" for s in seats],
                      f"{r['no_winner_rate']['value']:.1%}", f"{r['rounds']['value']:.2f}",
                      f"{r['decisions']['value']:.1f}")
    console.print(table)
    out = args.out or "sweep"
    print_written(write_tables(rows, out), "table")
    if args.plot:
        from rulelang.balance.plots import sweep_plots

        print_written(sweep_plots(rows, args.plot, title))
    return 0
