"""`rulelang bench`: how fast rules files play, measured side by side with hand-written Python.

Five sections (``SECTIONS``), each printed with the figures it is made of; docs/cli.md ("rulelang
bench") says what each measures: playouts against a reference (``race``), the wall time of
``rulelang check`` (``check_times``), copies of a match (``clone_rate``), ``simulate --jobs 1`` and
``2``, and the greedy bot's search (``search_rates``). A reference is a Python file with ``RULES``
(a bundled game's name or a path beside the reference), ``PLAYERS`` and ``playout(rng) ->
(winners, decisions)``, found in ``bench/`` (a checkout) or ``rulelang/_bundled/bench`` (a wheel).

Timings are for comparing, not for asserting: the ratios are what a busy machine does not spoil.
"""
from __future__ import annotations

# the parser of every `rulelang` command reads SECTIONS (cli/args.py): this module imports little at the top
import itertools
import os
import sys
import time
from pathlib import Path
from types import ModuleType

from rulelang.core.resources import bench_dir, find_game, games_dir

SECTIONS = ("playouts", "check", "clone", "simulate", "search")


# ------------------------------------------------------------------ references


class Reference:
    """A hand-written reference: its name, its module, the rules file it plays and how many players."""

    # (a plain class, not a dataclass: the parser of every command imports this module, and
    # dataclasses imports inspect, 9 ms of a `rulelang check` answered from its kept verdict)
    def __init__(self, name: str, module: ModuleType, rules: Path, players: int):
        self.name, self.module, self.rules, self.players = name, module, rules, players


def _load_module(path: Path) -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"rulelang_bench_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for needed in ("RULES", "PLAYERS", "playout"):
        if not hasattr(module, needed):
            raise ValueError(f"{path}: a reference defines RULES, PLAYERS and playout(rng); {needed} is missing")
    return module


def _rules_path(text: str, beside: Path) -> Path:
    candidate = beside / text
    if candidate.exists():
        return candidate
    if not text.endswith(".rules") and (beside / f"{text}.rules").exists():
        return beside / f"{text}.rules"
    return find_game(text)


def find_references(names: list[str]) -> list[Reference]:
    folder = bench_dir()
    if not names:
        if not folder.is_dir():
            raise ValueError(f"no hand-written references found: rulelang looks in {folder} "
                             "(bench/ in a checkout, rulelang/_bundled/bench in an installed wheel); "
                             "name a reference file instead: rulelang bench my_reference.py")
        names = [p.stem for p in sorted(folder.glob("*.py")) if not p.name.startswith("_")]
    out = []
    for name in names:
        rules_override = None
        if ":" in name and name.split(":", 1)[0].endswith(".rules"):
            rules_override, name = name.split(":", 1)
        path = Path(name)
        if not path.exists():
            path = folder / (name if name.endswith(".py") else f"{name}.py")
        if not path.exists():
            raise ValueError(f"no reference {name!r}: not a file, and not in {folder}")
        module = _load_module(path)
        rules = Path(rules_override) if rules_override else _rules_path(module.RULES, path.parent)
        out.append(Reference(path.stem, module, rules, int(module.PLAYERS)))
    return out


# ------------------------------------------------------------------ measurements


def random_match(game, players: int, seed: int, rng, decisions: int | None = None):
    """A match of a rules file between uniform-random players, played to its end (or to `decisions`)."""
    match = game.new_match(players=players, seed=seed)
    randrange = rng.randrange
    while not match.s.over and (decisions is None or match.s.decisions < decisions):
        match.apply(randrange(match.option_count()))
    return match


def rules_playout(game, players: int, seed: int, rng) -> tuple[list[int], int]:
    """One match of a rules file between uniform-random players: its winners and decisions."""
    match = random_match(game, players, seed, rng)
    return match.result["winners"], match.s.decisions


def race(game, ref: Reference, seconds: float, slices: int = 6) -> dict:
    """Playouts of both sides in alternating slices of time; counts, times and mean decisions."""
    import random

    from rulelang.balance.parallel import frozen_heap

    rng_rules, rng_ref, seeds = random.Random(1), random.Random(2), itertools.count()
    playouts = {"rules": lambda: rules_playout(game, ref.players, next(seeds), rng_rules),
                "reference": lambda: ref.module.playout(rng_ref)}
    sides = {side: [0, 0.0, 0] for side in playouts}  # playouts, seconds, decisions
    with frozen_heap():  # as simulate plays its games (parallel.run_tasks)
        for _ in range(slices):
            for side, playout in playouts.items():
                tally = sides[side]

                def once():
                    tally[2] += playout()[1]

                n, spent = _repeat_for(seconds / slices, once)
                tally[0] += n
                tally[1] += spent
    return {side: {"playouts": n, "seconds": t, "rate": n / t, "decisions": d / n} for side, (n, t, d) in sides.items()}


def _repeat_for(seconds: float, once) -> tuple[int, float]:
    """`once()` called again and again for about `seconds` (at least once): how many times, and the time taken."""
    count, start = 0, time.perf_counter()
    while True:
        once()
        count += 1
        if time.perf_counter() >= start + seconds:
            return count, time.perf_counter() - start


def check_times(files: list[Path], repeats: int, first: bool = False, edit: bool = False,
                verdicts: bool = True) -> list[tuple[Path, list[float], int]]:
    """Wall time of whole `rulelang check FILE` processes (interpreter start and imports included).
    With first, each run has an empty cache of its own: it parses the whole file and keeps its AST
    and verdict, as the first check of a new file does. With edit, each run checks a copy of the file
    (in a cache of its own) just after one of its lines changed, as a designer does after an edit:
    only the declaration holding that line is parsed again. With verdicts False (in a cache of its
    own), the kept verdict of the file's last pass is removed before each run: its AST comes from
    the cache, and it is checked again."""
    import shutil
    import subprocess
    import tempfile

    env = dict(os.environ)
    env.pop("RULELANG_CACHE", None)
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = []
    with tempfile.TemporaryDirectory() as scratch:
        if edit or not verdicts:
            env["RULELANG_CACHE_DIR"] = os.path.join(scratch, "cache")
        for path in files:
            lines = path.read_text(encoding="utf-8").split("\n")
            checked = Path(scratch) / path.name if edit else path
            times = []
            code = 0
            primed = edit or not verdicts  # the first run only fills the cache
            for run in range(repeats + 1 if primed else repeats):
                if edit:
                    lines[len(lines) // 2] += " "
                    checked.write_text("\n".join(lines), encoding="utf-8")
                if not verdicts:
                    shutil.rmtree(os.path.join(scratch, "cache", "verdicts"), ignore_errors=True)
                if first:
                    env["RULELANG_CACHE_DIR"] = tempfile.mkdtemp(dir=scratch)
                start = time.perf_counter()
                proc = subprocess.run([sys.executable, "-m", "rulelang", "check", str(checked)], env=env,
                                      capture_output=True, stdin=subprocess.DEVNULL)
                if run or not primed:
                    times.append(time.perf_counter() - start)
                code = code or proc.returncode
            out.append((path, times, code))
    return out


def clone_rate(game, players: int, seconds: float) -> tuple[float, int]:
    """Clones per second of a match halfway through a seeded random game (and at which decision)."""
    import random

    from rulelang.balance.parallel import frozen_heap

    halfway = random_match(game, players, 3, random.Random(3)).s.decisions // 2
    match = random_match(game, players, 3, random.Random(3), decisions=halfway)
    with frozen_heap():  # as in simulate, where planning bots copy matches (parallel.run_tasks)
        count, elapsed = _repeat_for(seconds, match.clone)
    return count / elapsed, match.s.decisions


def search_rates(game, players: int, seconds: float, positions: int = 24, slices: int = 6) -> dict:
    """Options tried per second by the greedy bot's search, at up to ``positions`` decisions spread
    over a seeded random game, each tried as the bot tries them (``valuation.option_values``): "put
    back" (the position marked once, each option tried on it and put back), "copy" with a copy of
    the position per option instead. Alternating slices, as in ``race``."""
    import random

    from rulelang.bots.valuation import option_values
    from rulelang.engine.visibility import option_keys

    rng = random.Random(5)
    match = game.new_match(players=players, seed=5)
    kept = []
    while not match.s.over:
        kept.append(match.clone())
        match.apply(rng.randrange(match.option_count()))
    step = max(1, len(kept) // positions)
    trials = [(w, w.to_move, list(option_keys(w.s).values())) for w in kept[::step][:positions]]
    sides = {"put back": [0, 0.0], "copy": [0, 0.0], "random": [0, 0.0]}
    per_slice = seconds / slices
    for _ in range(slices):
        for side in sides:
            count, spent = 0, 0.0
            while spent < per_slice:
                for world, seat, indexes in trials:
                    if side == "random":  # a random bot's decision here: list the options, apply one
                        world = world.clone()
                        start = time.perf_counter()
                        world.apply(rng.randrange(world.option_count()))
                        count += 1
                    else:
                        start = time.perf_counter()
                        option_values(world, seat, indexes, put_back=side == "put back")
                        count += len(indexes)
                    spent += time.perf_counter() - start
            sides[side][0] += count
            sides[side][1] += spent
    options = sum(len(t[2]) for t in trials) / max(len(trials), 1)
    return {"options per decision": options, **{side: n / t for side, (n, t) in sides.items()}}


# ------------------------------------------------------------------ the command


def _table(rows: list[list[str]], right: set[int] = frozenset()) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def run_bench(args) -> int:
    import statistics

    from rulelang.compile.loader import load

    write = sys.stdout.write
    only = {s.strip() for s in args.only.split(",")} if args.only else set(SECTIONS)
    unknown = only - set(SECTIONS)
    if unknown:
        raise ValueError(f"--only takes {', '.join(SECTIONS)}, not {', '.join(sorted(unknown))}")
    quick = args.quick
    seconds = 0.05 if quick else args.seconds
    write(f"rulelang bench: Python {sys.version.split()[0]}, {os.cpu_count()} cores"
          f"{' (quick: the figures mean nothing)' if quick else ''}\n\n")

    if "playouts" in only:
        refs = find_references(args.references or (["tictactoe"] if quick else []))
        where = sorted({_shown(Path(r.module.__file__).parent) for r in refs})
        write(f"playouts: random playouts per second, rules file vs hand-written Python, interleaved in one process\n"
              f"references from {', '.join(where)}\n")
        rows = [["game", "rules file", "rules/s", "reference/s", "ratio", "decisions/game (rules | reference)"]]
        for ref in refs:
            game = load(ref.rules)
            r = race(game, ref, seconds, slices=2 if quick else 6)
            ours, theirs = r["rules"], r["reference"]
            rows.append([ref.name, _shown(ref.rules), f"{ours['rate']:,.1f}", f"{theirs['rate']:,.1f}",
                         f"{ours['rate'] / theirs['rate']:.4f}", f"{ours['decisions']:.1f} | {theirs['decisions']:.1f}"])
        write(_table(rows, right={2, 3, 4}) + "\n\n")

    seed_games = sorted(games_dir().glob("*.rules"))
    if "check" in only:
        files = seed_games[:1] if quick else seed_games
        few = 1 if quick else 3
        write("check: wall time of a whole `rulelang check FILE` process (best and median of "
              f"{1 if quick else 5}; an unchanged file that passed answers from its kept verdict after the "
              f"first run; checked again: its verdict removed, its AST from the cache, best of {few}; "
              f"after an edit: one line of the file changed since the last check, best of {few}; "
              f"first time: an empty cache each time, best of {few})\n")
        rows = [["file", "best s", "median s", "checked again: best s", "after an edit: best s",
                 "first time: best s", "exit"]]
        cold = {path: times for path, times, _ in check_times(files, few, first=True)}
        edited = {path: times for path, times, _ in check_times(files, few, edit=True)}
        again = {path: times for path, times, _ in check_times(files, few, verdicts=False)}
        for path, times, code in check_times(files, 1 if quick else 5):
            rows.append([_shown(path), f"{min(times):.3f}", f"{statistics.median(times):.3f}",
                         f"{min(again[path]):.3f}", f"{min(edited[path]):.3f}", f"{min(cold[path]):.3f}", str(code)])
        write(_table(rows, right={1, 2, 3, 4, 5, 6}) + "\n\n")

    if "clone" in only:
        files = [find_game("tictactoe")] if quick else list(dict.fromkeys(  # (a reference's game once, if it is a seed game)
            [p.resolve() for p in seed_games] + [r.rules.resolve() for r in find_references([])]))
        write("clone: copies of a match halfway through a seeded random game, per second\n")
        rows = [["file", "at decision", "clones/s", "µs per clone"]]
        for path in files:
            game = load(path)
            rate, at = clone_rate(game, game.program.game.players_default, seconds)
            rows.append([_shown(path), str(at), f"{rate:,.0f}", f"{1e6 / rate:,.0f}"])
        write(_table(rows, right={1, 2, 3}) + "\n\n")

    if "simulate" in only:
        from rulelang.balance.simulate import simulate

        path = find_game("tictactoe" if quick else args.simulate_file) if quick or args.simulate_file else seed_games[0]
        n = 4 if quick else args.simulate_games
        write(f"simulate: {n} random games of {_shown(path)}, --jobs 1 and --jobs 2 alternately "
              f"(pool start-up included)\n")
        rates: dict[int, list[float]] = {1: [], 2: []}
        for jobs in (1, 2, 1, 2) if not quick else (1, 2):
            summary = simulate(str(path), n, jobs=jobs)
            rates[jobs].append(summary.count / summary.seconds)
        one, two = max(rates[1]), max(rates[2])
        rows = [["jobs", "games/s (best)", "speed-up"], ["1", f"{one:,.1f}", "1.00"], ["2", f"{two:,.1f}", f"{two / one:.2f}"]]
        write(_table(rows, right={1, 2}) + "\n")

    if "search" in only:
        files = [find_game("tictactoe")] if quick else seed_games
        write("\nsearch: options tried per second by the greedy bot (the position marked once; each option "
              "applied up to the next choice, scored, and the position put back), at decisions spread over a "
              "seeded random game; \"copy\": the same with a copy of the position per option instead; "
              "\"random\": a random bot's decision at the same positions (its options listed, one applied); "
              "\"greedy / random\": greedy's decisions per second over random's, options x µs per option "
              "against µs per random decision (greedy's copy of the match per decision left out, so it is "
              "at most this); alternating slices\n")
        rows = [["file", "players", "options/decision", "tried/s (put back)", "µs per option", "µs (copy)",
                 "µs per random decision", "greedy / random"]]
        for path in files:
            game = load(path)
            players = min(2, game.program.game.players_max) if not quick else 2
            players = max(players, game.program.game.players_min)
            r = search_rates(game, players, seconds, positions=4 if quick else 24, slices=1 if quick else 4)
            per_option, per_random = 1e6 / r["put back"], 1e6 / r["random"]
            greedy = per_random + r["options per decision"] * per_option  # its own move, and every option tried
            rows.append([_shown(path), str(players), f"{r['options per decision']:.1f}", f"{r['put back']:,.0f}",
                         f"{per_option:,.0f}", f"{1e6 / r['copy']:,.0f}", f"{per_random:,.0f}",
                         f"{per_random / greedy:.1%}"])
        write(_table(rows, right={1, 2, 3, 4, 5, 6, 7}) + "\n")
    return 0
