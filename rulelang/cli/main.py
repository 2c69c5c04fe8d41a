"""The `rulelang` command: check, play, simulate, test, docs."""
from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

from rulelang.cli.args import (AGENTS, GAME_FILE, chosen_settings, chosen_variants, output_file, output_folder,
                               port_number, seat_agents, whole_number)
from rulelang.cli.console import console, err_console, print_written, progress_bar, write_json

# (errors, and with them pydantic, are imported where needed: a `check` of a file that passed before
# answers from its kept verdict without them)


def cmd_check(args) -> int:
    from rulelang.core.resources import find_game
    from rulelang.check.verdicts import Verdict, passed_before, remember_pass

    failed = 0
    scenario_games: dict = {}  # the games scenario files name, loaded once for the files of this check
    for name in args.files:
        path = find_game(name)
        verdict = passed_before(path)  # unchanged since it passed, with the same rulelang
        if verdict is None:
            from rulelang.language.astcache import read_and_parse  # an unchanged file is not parsed again
            from rulelang.check.checker import DataFiles, check_rules
            from rulelang.core.errors import RulesError

            try:
                text, rules = read_and_parse(path)
                scenarios_failed = _check_scenario_file(path, rules, scenario_games)
                if scenarios_failed is not None:
                    failed += scenarios_failed
                    continue
                data_files = DataFiles()
                check_rules(rules, all_variants=True, data_files=data_files)
                from rulelang.check.hints import bot_hint, hints
                hint = bot_hint(rules)
                # (the file passes: hints are printed after "ok", not counted)
                notes = [d.format() for d in hints(rules)] + ([f"{path}: hint: {hint}"] if hint else [])
                verdict = Verdict(rules.variants(), notes)
                remember_pass(path, text, verdict, data_files.paths)
            except RulesError as exc:
                failed += 1
                _print_errors(path, exc)
                continue
        # plain lines: no need to import rich here
        print(f"{path}: ok (variants: {', '.join(verdict.variants) or 'none'})")
        for note in verdict.notes:
            print(note)
    return 1 if failed else 0


def _print_errors(path, exc) -> None:
    sys.stdout.flush()
    n = len(exc.diagnostics)
    sys.stderr.write(f"{exc.format()}\n{path}: {n} error{'s' if n != 1 else ''}\n")
    sys.stderr.flush()


def _check_scenario_file(path, rules, games: dict) -> int | None:
    """A file whose declarations are scenarios and no game (`rulelang test`), checked without running
    their steps: 1 when it has problems (said on stderr), else 0; None for any other file. (Told
    from the AST alone: a game's check imports nothing of the scenario runner.)"""
    from rulelang.language import nodes as N

    scenarios = [d for d in rules.decls if isinstance(d, N.ScenarioDecl)]
    if not scenarios or any(isinstance(d, N.GameDecl) for d in rules.decls):
        return None
    from rulelang.core.errors import RulesError
    from rulelang.tools.scenario import check_scenarios

    problems = check_scenarios(path, scenarios, games)
    if problems:
        _print_errors(path, RulesError(problems))
        return 1
    n = len(scenarios)
    print(f"{path}: ok ({n} scenario{'s' if n != 1 else ''})")
    return 0


def cmd_simulate(args) -> int:
    from rich.table import Table

    from rulelang.cli.balance import print_metrics, print_seats
    from rulelang.balance.simulate import simulate

    agents = args.agents.split(",") if args.agents else ["random"]
    with progress_bar(args.quiet, "simulating", args.n) as advance:
        summary = simulate(args.file, args.n, variant=chosen_variants(args.variant), players=args.players,
                           agents=agents, seed=args.seed, jobs=args.jobs, settings=chosen_settings(args.set),
                           progress=advance, cluster=args.cluster, profile=args.profile,
                           coverage=args.coverage)
    print_seats(console, summary)
    rounds_mean, rounds_sd = summary.length("rounds")
    decisions_mean, decisions_sd = summary.length("decisions")
    console.print(f"no winner: {summary.no_winner_rate():.1%}")
    console.print(f"game length: {rounds_mean:.2f} ± {rounds_sd:.2f} rounds, {decisions_mean:.1f} ± {decisions_sd:.1f} decisions")
    values = summary.global_values()
    if values:
        gt = Table(title="game values at the end (global variables)")
        gt.add_column("variable")
        gt.add_column("rate / mean ± sd", justify="right")
        gt.add_column("min  q1  median  q3  max", justify="right")
        for k, v in values.items():
            if "rate" in v:
                gt.add_row(k, f"{v['rate']:.1%} true", "")
            else:
                gt.add_row(k, f"{v['mean']:.2f} ± {v['stdev']:.2f}",
                           "  ".join(f"{v[q]:g}" for q in ("min", "q1", "median", "q3", "max")))
        console.print(gt)
    print_metrics(console, summary)
    console.print(f"{summary.count} games in {summary.seconds:.2f} s: {summary.count / max(summary.seconds, 1e-9):.1f} games per second"
                  + (" (one process, under the profiler)" if summary.profile is not None else "")
                  + (" (one process, recording the rules lines run)" if summary.coverage is not None else ""))
    if summary.profile is not None:
        from rich.text import Text

        from rulelang.balance.rulesprofile import format_profile

        rows = format_profile(summary.profile)
        pt = Table(title=f"where the time goes: {summary.profile.rules_share:.0%} in the rules' own code",
                   caption="share: of the time, in the line and in what it calls (the lines it uses too); "
                           "own: in the line alone")
        for i, head in enumerate(rows[0]):
            if i == 1:
                pt.add_column(head, no_wrap=True, overflow="ellipsis", max_width=60)
            else:
                pt.add_column(head, justify="right" if i else "left", no_wrap=True, min_width=max(len(head), 6))
        for row in rows[1:]:
            pt.add_row(*(Text(cell) for cell in row))  # rules text, not markup: `[origin(desk)]`
        console.print(pt)
    if summary.coverage is not None:
        _print_coverage([summary.coverage])
    if args.out:
        write_json(args.out, summary.to_json())
    if args.plot:
        from rulelang.balance.plots import simulate_plots

        print_written(simulate_plots(summary, args.plot))
    return 0


def _print_coverage(reports) -> None:
    from rulelang.balance.coverage import format_coverage, relative

    for report in reports:
        for line in format_coverage(report, relative(report.path)):
            console.print(line, markup=False, highlight=False)


def _load(args):
    """The game a command plays (FILE with its --variant and --set) and its players (--players, else its default)."""
    from rulelang.compile.loader import load

    game = load(args.file, variant=chosen_variants(args.variant), settings=chosen_settings(args.set))
    return game, args.players or game.program.game.players_default


def _human_then_random(players: int) -> str:
    """The seats of `play` and `serve` without --seats: a person, then random bots."""
    return ",".join(["human"] + ["random"] * (players - 1))


def cmd_play(args) -> int:
    from rulelang.bots.agents import AgentHandle, seat_bots
    from rulelang.engine.visibility import move_label
    from rulelang.table.tableview import table_view
    from rulelang.table.terminal import QUIT, ask, draw_result

    game, players = _load(args)
    names = seat_agents(args.seats or _human_then_random(players), players, "--seats")
    agents = seat_bots(names, args.seed)
    humans = [i for i, a in enumerate(agents) if a is None]
    # who reads the bots' moves: the one human, or with several at one screen, a watcher (public cards only)
    viewer = humans[0] if len(humans) == 1 else -1
    taken: list = []  # the choices of one option, taken without asking (each is said as a move)
    match = game.new_match(players=players, seed=args.seed, taken=taken)
    from rich.markup import escape  # (a title, like any text of the rules file, is shown as it is written)

    console.print(f"[bold]{escape(game.title)}[/bold]: {players} players, seed {args.seed}. "
                  f"Seats: {escape(', '.join(names))}", markup=True)
    shown_log = shown_taken = 0
    while True:
        for item in match.news(shown_log, shown_taken):
            if isinstance(item, str):
                console.print(f"  {item}", style="dim", markup=False)
            else:
                console.print(f"Player {item['seat'] + 1} ({names[item['seat']]}): {item['labels'][viewer]}"
                              " (the only option)", markup=False)
        shown_log, shown_taken = len(match.s.log), len(taken)
        if match.is_over:
            break
        seat = match.to_move
        if agents[seat] is not None:
            index = agents[seat].choose(AgentHandle(match, seat), match.legal_options())
            # what the bot does, as the human (or, with no human or several, a watcher) sees it as
            # it is done: said before the move is applied, so a card hidden from them then is "a
            # hidden card", neither named nor placed where the move (or a new round) puts it
            label = move_label(match.s, match.s.pending["options"][index], viewer)
            console.print(f"Player {seat + 1} ({names[seat]}): {label}", markup=False)
        else:
            index = ask(console, match, seat, seats=names)
            if index is None or index == QUIT:
                return 1 if index is None else 0
        match.apply(index)
    console.print(f"[bold]Game over[/bold] {escape(match.result_words())}.", markup=True)
    draw_result(console, table_view(match, viewer), names)
    return 0


def cmd_serve(args) -> int:
    try:
        from rulelang.table.server import Table, serve
    except ImportError as exc:
        raise SystemExit(f"rulelang serve needs the web extra: pip install 'rulelang[web]' ({exc})")
    game, players = _load(args)
    names = (args.seats or _human_then_random(players)).split(",")
    table = Table(game, names, seed=args.seed, players=players, bot_delay=args.bot_delay, saves=args.saves)
    if args.load:
        data = table.load_file(Path(args.load))
        table.restart(data["base"], data["choices"])
    serve(table, host=args.host, port=args.port, announce=lambda line: console.print(line, markup=False))
    return 0


def cmd_lsp(args) -> int:
    try:
        from rulelang.tools.lsp import main as lsp_main
    except ImportError as exc:
        raise SystemExit(f"rulelang lsp needs the lsp extra: pip install 'rulelang[lsp]' ({exc})")
    return lsp_main()


def cmd_test(args) -> int:
    from rulelang.core.errors import RulesError
    from rulelang.tools.scenario import run_file

    files: list[Path] = []
    for p in map(Path, args.files):  # a folder: every scenario file under it
        files += (sorted(x for x in p.rglob("*") if x.suffix in (".rules", ".json") and x.is_file())
                  if p.is_dir() else [p])
    passed = failed = 0
    cache: dict = {}
    coverage = None
    if args.coverage:
        from rulelang.balance.coverage import Coverage

        coverage = Coverage()
    for path in files:
        try:
            results = run_file(path, cache, coverage=coverage)
        except RulesError as exc:
            err_console.print(exc.format(), markup=False)
            failed += 1
            continue
        for r in results:
            if r.passed:
                passed += 1
                if args.verbose:
                    console.print(f"PASS {r.span.file}:{r.span.line}: {r.name}", markup=False)
            else:
                failed += 1
                for where, message in r.failures:  # each failure at its line
                    console.print(f"FAIL {where}: {r.name}", markup=False)
                    for line in message.splitlines():
                        console.print(f"     {line}", markup=False)
    console.print(f"{passed} passed, {failed} failed")
    if coverage is not None:
        _print_coverage(coverage.reports())
    return 1 if failed or not (passed + failed) else 0


def cmd_docs(args) -> int:
    from rulelang.tools.docgen import build_page
    from rulelang.core.resources import find_game

    page = build_page(find_game(args.file))
    for problem in page.problems:
        err_console.print(f"rulelang docs: {problem}", markup=False)
    if args.out:
        Path(args.out).write_text(page.markdown, encoding="utf-8")
        console.print(f"{page.title}: page written to {args.out}", markup=False)
    else:
        sys.stdout.write(page.markdown)
    return 1 if page.problems else 0


def cmd_render(args) -> int:
    from rulelang.bots.agents import AgentHandle, seat_bots
    from rulelang.tools.render import board_zones, describe_boards, render_board

    game, players = _load(args)
    if not args.list and not args.out:
        raise SystemExit("rulelang render: error: name the image to write with -o FILE "
                         "(or --list the boards the game has)")
    # checked before the game is played: a dot or a colour for a field no card has shows nothing
    fields = sorted({f.name for c in game.program.components.values() for f in c.fields})
    for option, value in (("--mark", args.mark), ("--colour-by", args.colour_by)):
        if value and value not in fields:
            from rulelang.core.errors import did_you_mean

            hint = did_you_mean(value, fields)
            raise ValueError(f'{option} names a field of the cards, and no component of {game.title} has "{value}"'
                             + (f"; {hint}" if hint else f"; the fields are: {', '.join(fields)}"))
    names = seat_agents(args.agents or "random", players, "--agents")
    agents = seat_bots(names, args.seed, humans=False)
    match = game.new_match(players=players, seed=args.seed)
    if args.list:
        lines = describe_boards(match)
        console.print(f"the boards of {game.title} with {players} players (--zone NAME):" if lines
                      else f"{game.title} has no board to draw", markup=False)
        for line in lines:
            console.print(f"  {line}", markup=False)
        return 0
    while not match.is_over and (args.after is None or match.s.decisions < args.after):
        seat = match.to_move
        match.apply(agents[seat].choose(AgentHandle(match, seat), match.legal_options()))
    where = "game over" if match.is_over else f"after {match.s.decisions} decisions"
    variants = f" ({', '.join(game.variants)})" if game.variants else ""
    title = f"{game.title}{variants}: seed {args.seed}, {players} players, round {match.s.round}, {where}"
    out = render_board(match, args.out, zone=args.zone, title=title, mark=args.mark, colour_by=args.colour_by)
    boards = [z.key for z in board_zones(match)]
    if args.zone is None and len(boards) > 1:
        console.print(f"board {boards[0]} written to {out}; the game's other boards: {', '.join(boards[1:])} "
                      "(draw one with --zone NAME; --list says whose each is)", markup=False)
    else:
        console.print(f"board written to {out}", markup=False)
    return 0


def cmd_replay(args) -> int:
    from rulelang.tools import replay

    folder = Path(args.dir)
    if args.record:
        chosen = chosen_settings(args.set)
        for path in [Path(p) for p in args.files] or replay.corpus(Path(".")):
            wanted = [([], chosen)] if chosen else \
                [(v, {}) for v in replay.modes(path)] + replay.setting_modes(folder, path)
            for variants, settings in wanted:
                data = replay.record(path.as_posix(), variants, settings=settings)
                file = replay.replay_file(folder, path, variants, settings)
                replay.write(data, file)
                lengths = ", ".join(str(len(g["choices"])) for g in data["games"])
                console.print(f"recorded {file}: {len(data['games'])} games ({lengths} steps)", markup=False)
        return 0
    if args.check:
        failed = 0
        for file in [Path(p) for p in args.files] or sorted(folder.glob("*.json")):
            try:
                console.print(f"{file}: {replay.verify(replay.read(file))} steps match", markup=False)
            except replay.ReplayMismatch as exc:
                failed += 1
                console.print(f"{file}: MISMATCH {exc}", markup=False)
        return 1 if failed else 0
    if len(args.files) != 1:
        raise ValueError("name one replay file to show (or use --record / --check)")
    return replay.show(Path(args.files[0]), args.seed, console, seat=args.seat)


# ------------------------------------------------------------------ the parser and main


def _match_arguments(p, file_help: str | None = None) -> None:
    """FILE, --variant, --players, --seed: the match a command plays."""
    p.add_argument("file", help=file_help)
    p.add_argument("--variant", help="variant(s) to apply, comma-separated")
    p.add_argument("--players", type=int)
    p.add_argument("--seed", type=int, default=0)


class CommandParser(argparse.ArgumentParser):
    """An argument parser that keeps what each `add_argument` was given (`arguments`: a name or the
    option strings, and the keywords), so the reference can list a command's options (docgen's
    `cli_usage`) from argparse's public API alone; `commands`: the subcommands' parsers by name."""

    def __init__(self, *args, func=None, **kwargs):
        self.arguments: list[tuple[tuple, dict]] = []
        self.commands: dict[str, "CommandParser"] = {}
        super().__init__(*args, **kwargs)
        if func is not None:  # a subcommand's parser, given the function that runs it
            self.set_defaults(func=func)

    def add_argument(self, *names, **options):
        if options.get("action") != "help":
            self.arguments.append((names, options))
        return super().add_argument(*names, **options)

    def add_mutually_exclusive_group(self, **kwargs):
        group = super().add_mutually_exclusive_group(**kwargs)
        add = group.add_argument

        def add_argument(*names, **options):  # (kept here too, in the order given)
            self.arguments.append((names, options))
            return add(*names, **options)

        group.add_argument = add_argument
        return group


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="rulelang", description="Check, play and simulate board and card games written as .rules files.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)

    p = sub.add_parser("check", help="check .rules files and report every problem")
    p.add_argument("files", nargs="+")
    p.set_defaults(func=cmd_check, short_lived=True)

    p = sub.add_parser("play", func=cmd_play, help="play a game in the terminal")
    _match_arguments(p)
    p.add_argument("--seats", help="one agent per seat, comma-separated: human, random, greedy, mc, mcts")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", help="change a setting of the game")

    p = sub.add_parser("serve", func=cmd_serve, help="play a game at a table in the browser (people and bots)")
    _match_arguments(p)
    p.add_argument("--seats", help="one per seat, comma-separated: human, random, greedy, mc (default: human then random)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", help="change a setting of the game")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    p.add_argument("--port", type=port_number, default=8000, help="port to listen on (default: 8000; 0: any free one)")
    p.add_argument("--bot-delay", type=float, default=0.4, metavar="SECONDS", help="pause before each bot move")
    p.add_argument("--saves", default=".", metavar="DIR", help="folder for the table's saves (default: here)")
    p.add_argument("--load", metavar="FILE", help="start from a save (a table save or a Match.to_json() file)")

    p = sub.add_parser("lsp", func=cmd_lsp,
                       help="a language server for .rules files (LSP over standard input and output)")

    p = sub.add_parser("simulate", func=cmd_simulate, help="play many seeded games with bots and summarise them")
    p.add_argument("file")
    p.add_argument("-n", type=whole_number(1), default=100, help="number of games")
    p.add_argument("--variant")
    p.add_argument("--players", type=int)
    p.add_argument("--agents", help=AGENTS)
    p.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed+i")
    p.add_argument("--jobs", type=whole_number(1), default=None, help="processes to use (default: all cores; 1: no pool)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the games on a Dask cluster (tcp://host:8786)")
    p.add_argument("--out", type=output_file, help="write every result as JSON")
    p.add_argument("--plot", metavar="DIR", type=output_folder, help="draw the balance plots (PNG and SVG) into this folder")
    p.add_argument("--set", action="append", metavar="NAME=VALUE")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    one_process = p.add_mutually_exclusive_group()
    one_process.add_argument("--profile", action="store_true",
                             help="play the games in one process under Python's profiler and show where the time "
                                  "goes, by rules line")
    one_process.add_argument("--coverage", action="store_true",
                             help="play the games in one process and list the rules lines they never reached "
                                  "(with the share of lines they ran)")

    from rulelang.cli.balance import add_commands

    add_commands(sub)

    p = sub.add_parser("test", func=cmd_test, help="run scenario files (a position, a step, the expected outcome)")
    p.add_argument("files", nargs="+", help="scenario files or folders")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--coverage", action="store_true",
                   help="after the scenarios, list for each game they test the rules lines they never reached "
                        "(with the share of lines they ran)")

    p = sub.add_parser("docs", func=cmd_docs, help="write a game's rulebook page as Markdown")
    p.add_argument("file", help=GAME_FILE)
    p.add_argument("-o", "--out", type=output_file, help="write the page to this file (default: print it)")

    p = sub.add_parser("render", func=cmd_render,
                       help="draw a board of a match (played by seeded bots) as an image (needs matplotlib)")
    _match_arguments(p, file_help=GAME_FILE)
    p.add_argument("--agents", help=AGENTS)
    p.add_argument("--set", action="append", metavar="NAME=VALUE")
    p.add_argument("--zone", help="the board zone to draw (default: the first board; a player's board is NAME#SEAT, "
                                  "tableau#2; --list lists them); several, comma-separated, "
                                  "draw the others' cards on the first (e.g. map,sites)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--after", type=whole_number(0), metavar="N", help="draw the board after N decisions")
    when.add_argument("--to-end", action="store_true", help="draw the board at the end of the game (the default)")
    p.add_argument("--mark", metavar="FIELD", help="put a dot on cards whose FIELD is true (e.g. established)")
    p.add_argument("--colour-by", metavar="FIELD", help="colour the cards by this field (default: a field named "
                   "colour, color, kind, suit or type, else the first field holding an enum member)")
    p.add_argument("--list", action="store_true", help="list the game's boards (per-player boards are named "
                   "NAME#SEAT, e.g. tableau#2) and whose each is, and draw nothing")
    p.add_argument("-o", "--out", type=output_file, help="the image file to write (.png, .svg, .pdf)")

    from rulelang.cli.args import bench_arguments
    from rulelang.tools.bench import run_bench  # (bench_arguments imports it too: it imports little at the top)

    p = sub.add_parser("bench", func=run_bench,
                       help="measure playouts per second against hand-written Python, check time, clone speed, "
                            "simulate --jobs scaling")
    bench_arguments(p)

    p = sub.add_parser("replay", func=cmd_replay,
                       help="show a stored golden replay step by step, or record and check them")
    p.add_argument("files", nargs="*", help="a replay file to show; with --record, games (default: games/ and "
                   "examples/); with --check, replay files (default: all in --dir)")
    p.add_argument("--record", action="store_true", help="(re)record the replays of these games, every mode")
    p.add_argument("--check", action="store_true", help="replay stored files and check every step")
    p.add_argument("--seed", type=int, help="which stored game to show (default: the first)")
    p.add_argument("--seat", type=int, metavar="N", help="show the moves as Player N saw them (default: as a "
                   "watcher, who sees only public cards)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="with --record: record the mode these settings choose (a file of its own)")
    p.add_argument("--dir", default="tests/replays", help="where replay files live (default: tests/replays)")

    parser.commands = dict(sub.choices)
    for p in parser.commands.values():
        p.add_argument("--budget", action="append", metavar="NAME=N",
                       help="raise (or lower) a resource budget: cards, list_size, steps, trigger_depth, "
                            "recursion_depth, memory_mb, source_bytes, source_tokens, players")
    return parser


def command() -> int:
    """The `rulelang` program (`python -m rulelang` too): main(), then its objects left to the
    operating system as the process ends, not scanned once more by Python's cycle collector while
    the interpreter shuts down (20 to 45 ms of a `check` of the largest games just after an edit:
    `rulelang bench --only check`)."""
    code = main(program=True)
    gc.freeze()
    return code


def main(argv: list[str] | None = None, program: bool = False) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if program and getattr(args, "short_lived", False):
        # a command that ends in a moment (`check`) makes no garbage worth collecting, but the
        # collector would scan its growing heap (the AST, the checker's tables) again and again:
        # 50 to 70 ms of a check of the largest games just after an edit. Tests call main() and
        # keep theirs.
        gc.disable()
    budgets_before = os.environ.get("RULELANG_BUDGETS")
    try:
        if getattr(args, "budget", None):
            from rulelang.core.budgets import parse_budget_args, set_process_budgets

            set_process_budgets(parse_budget_args(args.budget))
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from rulelang.core.errors import RulesError

        if isinstance(exc, RulesError):
            err_console.print(exc.format(), markup=False)
            return 1
        if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
            # a file that cannot be read or written: its name and the reason, in plain words
            from rulelang.core.errors import reason_of

            err_console.print(f"rulelang: {exc.filename}: {reason_of(exc)}", markup=False)
            return 2
        if isinstance(exc, (ValueError, OSError)):
            err_console.print(f"rulelang: {exc}", markup=False)
            return 2
        # a bug in rulelang itself: say so plainly
        if os.environ.get("RULELANG_DEBUG"):
            raise
        err_console.print(f"rulelang: internal error: {type(exc).__name__}: {exc}\n"
                          "  this is a bug in rulelang, not in your rules; set RULELANG_DEBUG=1 to see the details",
                          markup=False)
        return 3
    finally:
        if budgets_before is None:
            os.environ.pop("RULELANG_BUDGETS", None)
        else:
            os.environ["RULELANG_BUDGETS"] = budgets_before


if __name__ == "__main__":
    sys.exit(main())
