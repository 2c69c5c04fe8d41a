"""The designer's balance loop (issue 12): metrics with intervals, compare, sweep, plots,
tree-search bots, tournaments, and the same results on every backend.

`tests/balance/handicap.rules` is a one-card duel whose `bonus` setting favours player 1:
a change with a known effect."""
from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest

from rulelang.cli.main import main
from rulelang.balance.compare import Arm, compare, compare_summaries
from rulelang.balance.metrics import lead_metrics
from rulelang.balance.simulate import GameRecord, Summary, simulate

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "tests" / "balance" / "handicap.rules")
TICTACTOE = str(ROOT / "examples" / "tictactoe.rules")


# ------------------------------------------------------------------ metrics


def test_metrics_have_intervals_and_are_in_the_json(tmp_path):
    out = tmp_path / "r.json"
    assert main(["simulate", DUEL, "-n", "80", "--quiet", "--jobs", "1", "--out", str(out)]) == 0
    m = json.loads(out.read_text())["metrics"]
    for seat in m["win_rate"]:
        assert seat["low"] <= seat["rate"] <= seat["high"]
        assert seat["of"] == 80
    assert m["rounds"]["mean"] == 1 and m["decisions"]["mean"] == 2
    assert m["branching_factor"]["pooled"] == 3  # each player chooses among 3 cards
    assert set(m["option_kinds"]) == {"choose"}
    assert sum(v["uses"] for v in m["cards"].values()) == 160  # every decision plays one card
    assert m["first_player_advantage"]["low"] <= m["first_player_advantage"]["mean"] <= m["first_player_advantage"]["high"]
    assert m["no_winner_rate"]["rate"] == 0
    assert m["drama"]["n"] == 0 and m["lead_changes"]["n"] == 0  # a one-round game has no course to follow


def test_intervals_are_the_ones_scipy_stats_computes():
    """metrics computes them with scipy.special (a quicker import): the same numbers as scipy.stats."""
    from scipy import stats

    from rulelang.balance.metrics import mean_ci, wilson

    for n in (1, 2, 3, 7, 40, 200, 1001):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            for confidence in (0.9, 0.95, 0.99):
                ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
                got = wilson(k, n, confidence)
                assert (got["low"], got["high"]) == pytest.approx((ci.low, ci.high), rel=1e-12, abs=1e-15)
    rng = random.Random(5)
    for n in (2, 3, 10, 57):
        values = [rng.gauss(10, 3) for _ in range(n)]
        got = mean_ci(values)
        mean, sd = statistics.fmean(values), statistics.stdev(values)
        half = stats.t.ppf(0.975, n - 1) * sd / n ** 0.5
        assert (got["low"], got["high"]) == pytest.approx((mean - half, mean + half), rel=1e-12)


def test_lead_changes_drama_and_decisiveness():
    # player 2 leads, player 1 overtakes in the third round and wins
    standings = [[0, 1], [1, 3], [5, 3], [7, 3]]
    m = lead_metrics(standings, [0])
    assert m["lead_changes"] == 1
    assert m["decided_at"] == pytest.approx(2 / 4)
    assert m["drama"] == pytest.approx((1 + 1 + 0 + 0) / 4)
    assert lead_metrics(standings, [0, 1])["drama"] is None  # shared wins have no single winner to follow


def test_metrics_count_keyword_users():
    summary = simulate(str(ROOT / "games" / "splicers.rules"), 4, seed=5)
    m = summary.metrics()
    assert m["keywords"], "Splicers' keywords are used"
    for v in m["keywords"].values():
        assert v["uses"] > 0 and 0 <= v["users_win_rate"]["of"] <= 2 * 4


# ------------------------------------------------------------------ compare


def test_compare_finds_a_known_effect(tmp_path):
    c = compare(DUEL, "base", "bonus=3", 200, jobs=1)
    by = {d.metric: d for d in c.diffs}
    assert by["seat 1 win rate"].significant and by["seat 1 win rate"].diff > 0.15
    assert by["seat 1 win rate"].low > 0
    assert any(s.startswith("seat 1's win rate rose from") and "p < 0.001" in s for s in c.sentences())
    assert not by["rounds"].significant


def test_compare_on_a_pool_says_what_it_says_in_one_process():
    """On a pool, this process imports the comparison's tests (scipy.stats, statsmodels) while the
    first arm's games are played (compare.TESTS): the same comparison, to the last digit."""
    here, pool = compare(DUEL, "base", "bonus=3", 60, jobs=1), compare(DUEL, "base", "bonus=3", 60, jobs=2)
    assert [d.to_json() for d in here.diffs] == [d.to_json() for d in pool.diffs]
    assert here.sentences() == pool.sentences()


def test_compare_identical_arms_on_the_same_seeds_shows_nothing():
    c = compare(DUEL, "bonus=0", "base", 100, jobs=1)
    assert not any(d.significant for d in c.diffs)
    assert all(d.diff == 0 for d in c.diffs if d.diff is not None)


def _fake_summary(rng: random.Random, n: int, seed0: int) -> Summary:
    s = Summary("fake", [], 2, ["random", "random"])
    for i in range(n):
        winners = [rng.choice([1, 2])] if rng.random() > 0.1 else []
        rounds = rng.randint(3, 9)
        s.games.append(GameRecord(seed0 + i, winners, rounds, rounds * 4, [{}, {}], {}, options_offered=rounds * 12,
                                  choices=rounds * 4, lead_changes=rng.randint(0, 3),
                                  drama=rng.random() if winners else None, decided_at=rng.random() if winners else None))
    return s


def test_identical_arms_are_significant_no_more_often_than_alpha(monkeypatch):
    """Two arms drawn from the same game (independent seeds): over 100 comparisons of the 10
    metrics, Holm's adjustment keeps the share with any significant difference near alpha."""
    import gc

    monkeypatch.setattr(gc, "collect", lambda *args: 0)  # statsmodels' Holm collects garbage on every call
    rng = random.Random(12)
    hits = 0
    trials = 100
    for t in range(trials):
        a, b = _fake_summary(rng, 120, 0), _fake_summary(rng, 120, 120)
        hits += any(d.significant for d in compare_summaries(a, b, paired=False, alpha=0.05))
    # the expected number is at most 5; 12 or more would happen by chance with p < 0.005
    assert hits <= 11, f"{hits} of {trials} identical comparisons were called significant"


def test_arm_parsing():
    arm = Arm.parse("migration,hand_size=3,complex")
    assert arm.variants == ["migration", "complex"] and arm.settings == {"hand_size": "3"}
    assert Arm.parse("base").variants == [] and Arm.parse(None).settings == {}


# ------------------------------------------------------------------ sweep and plots


def _png_ok(path: Path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_sweep_writes_tables_and_plots(tmp_path, capsys):
    out, plots = tmp_path / "table", tmp_path / "plots"
    assert main(["sweep", DUEL, "--set", "bonus=0,3", "-n", "60", "--quiet", "--jobs", "1",
                 "--out", str(out), "--plot", str(plots)]) == 0
    rows = json.loads((out / "sweep.json").read_text())
    assert [r["cell"] for r in rows] == ["bonus=0", "bonus=3"]
    assert rows[1]["win_rate"]["seat 1"]["rate"] > rows[0]["win_rate"]["seat 1"]["rate"]
    lines = (out / "sweep.csv").read_text().splitlines()
    assert lines[0].startswith("cell,variants,bonus,games,seat 1 win rate") and len(lines) == 3
    for name in ("sweep_win_rate", "sweep_rounds", "sweep_no_winner_rate"):
        _png_ok(plots / f"{name}.png")
        assert (plots / f"{name}.svg").read_text().lstrip().startswith("<?xml")


def test_simulate_and_compare_plots(tmp_path, capsys):
    assert main(["simulate", DUEL, "-n", "40", "--quiet", "--jobs", "1", "--plot", str(tmp_path)]) == 0
    _png_ok(tmp_path / "win_rates.png")
    _png_ok(tmp_path / "length.png")
    assert main(["compare", DUEL, "--b", "bonus=3", "-n", "60", "--quiet", "--jobs", "1",
                 "--plot", str(tmp_path)]) == 0
    _png_ok(tmp_path / "compare_win_rates.png")
    _png_ok(tmp_path / "compare_length.png")
    assert (tmp_path / "compare_win_rates.svg").exists()
    text = capsys.readouterr().out
    assert "seat 1's win rate rose from" in text.lower()


# ------------------------------------------------------------------ bots


def test_mcts_takes_a_win_and_blocks_a_loss():
    from rulelang.bots.agents import AgentHandle, make_agent
    from rulelang.compile.loader import load

    game = load(TICTACTOE)
    # crosses on (0,0), (1,0); noughts on (0,1), (1,1): crosses to move must take (2,0)
    match = game.new_match(seed=0)
    for cell in ["(0, 0)", "(0, 1)", "(1, 0)", "(1, 1)"]:
        match.apply(next(o for o in match.legal_options() if o.label == cell))
    bot = make_agent("mcts:300", 1)
    index = bot.choose(AgentHandle(match, match.to_move), match.legal_options())
    assert match.legal_options()[index].label == "(2, 0)"
    # crosses on (0,0), (2,2); noughts on (1,1), (1,0): crosses must block (1,2)
    match = game.new_match(seed=0)
    for cell in ["(0, 0)", "(1, 1)", "(2, 2)", "(1, 0)"]:
        match.apply(next(o for o in match.legal_options() if o.label == cell))
    index = bot.choose(AgentHandle(match, match.to_move), match.legal_options())
    assert match.legal_options()[index].label == "(1, 2)"


def test_ismcts_plans_only_on_what_its_seat_sees():
    """Two deals that differ only in the opponent's hidden hand: the bot, seeded alike, chooses alike."""
    from rulelang.bots.agents import AgentHandle, make_agent
    from rulelang.compile.loader import load

    game = load(DUEL)
    a = game.new_match(seed=3)
    b = a.clone()
    mine = {id(e) for e in a.s.zones["hand#1"].items}
    theirs = b.s.zones["hand#2"].items
    deck = b.s.zones["deck"].items
    theirs[0], deck[0] = deck[0], theirs[0]  # swap one hidden card of the opponent with the deck
    theirs[0].zone, deck[0].zone = b.s.zones["hand#2"], b.s.zones["deck"]
    assert mine and a.view(0) == b.view(0) and a.view(1) != b.view(1)
    ca = make_agent("ismcts:60", 7).choose(AgentHandle(a, 0), a.legal_options())
    cb = make_agent("ismcts:60", 7).choose(AgentHandle(b, 0), b.legal_options())
    assert ca == cb


def test_tournament_prints_a_win_matrix(capsys, tmp_path):
    out = tmp_path / "t.json"
    assert main(["tournament", TICTACTOE, "--bots", "mcts:60,random", "-n", "6", "--quiet", "--jobs", "1",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "win rate of the row bot" in text and "mcts:60 vs random: 6 games" in text
    pair = json.loads(out.read_text())["pairs"][0]
    assert pair["a_win_rate"]["of"] == 6 and pair["games_won_by_a_only"] >= 4


# ------------------------------------------------------------------ backends


def _fingerprint(summary):
    return [(g.seed, g.winners, g.rounds, g.decisions, g.options_offered, g.cards) for g in summary.games]


def test_same_results_in_process_on_a_pool_and_on_a_dask_cluster():
    from distributed import LocalCluster

    here = simulate(TICTACTOE, 12, seed=4, jobs=1)
    pool = simulate(TICTACTOE, 12, seed=4, jobs=2)
    assert _fingerprint(here) == _fingerprint(pool)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = simulate(TICTACTOE, 12, seed=4, cluster=cluster.scheduler_address)
    assert _fingerprint(here) == _fingerprint(remote)
    assert here.metrics()["win_rate"] == remote.metrics()["win_rate"]


def test_a_pool_gives_this_process_work_while_it_waits():
    """simulate imports what the intervals need while a pool of processes plays the games
    (parallel.run_tasks, `meanwhile`): the results are the pool's, in order, and work that fails
    there changes nothing (it fails again, and is reported, where it is needed)."""
    import threading

    from rulelang.balance.metrics import import_statistics
    from rulelang.balance.parallel import run_tasks

    done = threading.Event()
    assert run_tasks(abs, [-3, -1, -2, 5], jobs=2, meanwhile=done.set) == [3, 1, 2, 5]
    assert done.wait(timeout=30)
    assert run_tasks(abs, [-3, -1, -2, 5], jobs=2, meanwhile=lambda: 1 / 0) == [3, 1, 2, 5]
    import_statistics()
    import sys

    assert "scipy.special" in sys.modules


# ------------------------------------------------------------------ the rulebook page


def test_the_rulebooks_small_plot_draws_win_rates_as_simulate_does(monkeypatch):
    # the rulebook's plot drew its own bars, with a 1/players line and no y label: for a game that
    # names nobody in most games every seat lay far under it (the simulate plot's fault, mended there)
    from types import SimpleNamespace

    import matplotlib.pyplot as real_plt

    from rulelang.balance import balance_docs, plots

    figures = []
    monkeypatch.setattr(plots, "_plt", lambda: SimpleNamespace(subplots=real_plt.subplots,
                                                               close=lambda fig: figures.append(fig)))
    rates = [{"seat": s, "agent": "random", "rate": r, "low": r - 0.05, "high": r + 0.3} for s, r in ((1, 0.07), (2, 0.09))]
    summary = SimpleNamespace(players=2, games=[SimpleNamespace(decisions=d) for d in (60, 70, 70)],
                              metrics=lambda: {"win_rate": rates, "no_winner_rate": {"rate": 0.84}})
    assert "<svg" in balance_docs._plot(summary)
    ax = figures[0].axes[0]
    fair = [line for line in ax.get_lines() if line.get_label().startswith("fair share")]
    assert fair and fair[0].get_ydata()[0] == pytest.approx(0.08)
    assert ax.get_ylabel() == "win rate"
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert "10%" in ticks and "10.0%" not in ticks, ticks
    real_plt.close(figures[0])




def test_a_games_page_gets_a_balance_section():
    from rulelang.balance.balance_docs import balance_section

    md, svg = balance_section(DUEL, games=6, plot_name="duel-balance.svg")
    assert md.startswith("## Balance") and "| 1 |" in md and "| 2 |" in md
    assert "![Win rate per seat and game length of 6 seeded games](duel-balance.svg)" in md
    assert "rulelang simulate" in md
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg


def test_a_bot_spec_in_a_table_is_printed_as_written(capsys):
    # rich would turn ":100:" into an emoji (it did: "ismcts💯depth=0"); specs must read as typed
    assert main(["tournament", TICTACTOE, "--bots", "mcts:100:depth=0,random", "-n", "1", "--quiet",
                 "--jobs", "1"]) == 0
    text = capsys.readouterr().out
    assert "mcts:100:depth=0 vs random: 1 games" in text and "\U0001f4af" not in text


def test_duplicate_games_play_every_seed_from_both_sides(monkeypatch):
    # duplicate bridge's idea: the same deal, the seats swapped, so the luck of the deal cancels
    import rulelang.balance.tournament as tournament_module

    played = []
    real_run_tasks = tournament_module.run_tasks

    def recording(fn, tasks, **kw):
        played.extend((task[5], task[6]) for task in tasks)
        return real_run_tasks(fn, tasks, **kw)

    monkeypatch.setattr(tournament_module, "run_tasks", recording)
    t = tournament_module.tournament(DUEL, ["mc:12", "random"], 20, seed=3, jobs=1, duplicate=True)
    assert played[:4] == [(["mc:12", "random"], 3), (["random", "mc:12"], 3),
                          (["mc:12", "random"], 4), (["random", "mc:12"], 4)]
    pair = t.pairs[0]
    assert pair.games == 40 and pair.seeds_a + pair.seeds_b + pair.seeds_even == 20
    # the duel is decided by the cards dealt and by playing the best of them: flat Monte Carlo
    # plays its best card, the random bot only sometimes, so on these seeds none favours the random bot
    assert pair.seeds_b == 0 and pair.seeds_a >= 6
    assert pair.p_value() == pytest.approx(2 * 0.5 ** pair.seeds_a)
    report = pair.to_json()
    assert report["duplicate"] is True and report["seeds_better_for_a"] == pair.seeds_a


def test_duplicate_games_on_the_command_line(capsys):
    assert main(["tournament", DUEL, "--bots", "mc:12,random", "-n", "20", "--seed", "3", "--jobs", "1",
                 "--quiet", "--duplicate"]) == 0
    text = capsys.readouterr().out
    assert "mc:12 vs random: 40 games" in text and "duplicate: 20 seeds, better for mc:12" in text
    assert "mc:12 is stronger" in text


def test_simulate_out_is_the_same_text_whatever_the_process_hash_seed(tmp_path):
    """A seeded game is deterministic, and so is what `simulate --out` writes: the cards chosen are
    counted in the order they were chosen, not in a set's order (which follows the process's hash seed)."""
    import os
    import subprocess
    import sys

    texts = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"out{hash_seed}.json"
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT))
        subprocess.run([sys.executable, "-m", "rulelang", "simulate", str(ROOT / "games" / "splicers.rules"), "-n", "2",
                        "--jobs", "1", "--seed", "1", "--quiet", "--out", str(out)], check=True, env=env,
                       capture_output=True, timeout=120)
        data = json.loads(out.read_text())
        assert any(g["cards"] for g in data["results"])
        data.pop("seconds"), data.pop("games_per_second")
        texts.append(json.dumps(data))
    assert texts[0] == texts[1]


def test_the_length_plots_legend_covers_no_bar(tmp_path, monkeypatch):
    # Zemico's games nearly all last 7 of 8 rounds: "mean 6.8", kept at the upper right, was drawn over
    # the tallest bar
    from types import SimpleNamespace

    from rulelang.balance import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, folder, name: figures.append(fig) or [])
    games = [SimpleNamespace(rounds=7, decisions=70 + i % 20) for i in range(170)] + \
            [SimpleNamespace(rounds=8, decisions=95 + i % 20) for i in range(22)] + \
            [SimpleNamespace(rounds=1, decisions=8) for _ in range(8)]
    plots.length_plot(tmp_path, "length", "a game", [(SimpleNamespace(games=games), None, plots.COLORS[0])])
    fig = figures[0]
    fig.canvas.draw()
    for ax in fig.axes:
        legend = ax.get_legend().get_window_extent()
        covered = [bar for bar in ax.patches if bar.get_height() > 0 and bar.get_window_extent().overlaps(legend)]
        assert not covered, ax.get_xlabel()


def test_the_win_rate_plot_marks_the_average_seat_and_reads_its_ticks_exactly(tmp_path, monkeypatch):
    # Zemico names nobody in most games: every seat lay far under a 1/players "fair share", and the
    # axis, in steps of 2.5%, read "2%, 5%, 8%, 10%, 12%" (rounded to whole percents)
    from types import SimpleNamespace

    from rulelang.balance import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, folder, name: figures.append(fig) or [])
    rates = [{"seat": s, "agent": "random", "rate": r, "low": r - 0.03, "high": r + 0.04} for s, r in ((1, 0.07), (2, 0.09))]
    summary = SimpleNamespace(title="G", variant=[], players=2, count=200,
                              metrics=lambda: {"win_rate": rates, "no_winner_rate": {"rate": 0.84}})
    plots.win_rate_plot(summary, tmp_path)
    ax = figures[0].axes[0]
    figures[0].canvas.draw()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["fair share (8%: the average seat)"]
    fair = [line for line in ax.get_lines() if line.get_label().startswith("fair share")]
    assert fair and fair[0].get_ydata()[0] == pytest.approx(0.08)
    assert "no winner in 84%" in ax.get_title()
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert len(set(ticks)) == len(ticks) and "2.5%" in ticks, ticks
