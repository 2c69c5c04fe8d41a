"""Argument types of the command line: a count or a time the designer types is checked where it is
read, so `-n -5` or `--jobs 0` gets argparse's usual one-line error naming the option, not a run that
does nothing or a traceback. Nothing here imports the rest of rulelang."""
from __future__ import annotations

import argparse
from pathlib import Path

# help texts several commands share
GAME_FILE = "a .rules file or the name of a bundled game"
AGENTS = "agents per seat (or one for all): random, greedy, mc, mcts (mcts:ITERATIONS, mc:PLAYOUTS)"


def whole_number(least: int):
    """An argparse type: a whole number of at least `least`."""
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, not {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"takes a whole number of at least {least}, not {value}")
        return value

    read.__name__ = "whole number"
    return read


def seconds(text: str) -> float:
    """An argparse type: a time in seconds, more than zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number of seconds, not {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"takes a number of seconds above 0, not {text}")
    return value


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    value = whole_number(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"takes a port from 0 to 65535, not {value}")
    return value


def output_file(text: str) -> str:
    """An argparse type: a file to write, in a folder that exists (checked before the work that fills
    it: simulating hundreds of games, then failing to write the results, loses them)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder: name a file to write in it")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"the folder {folder} does not exist (make it first)")
    return text


def output_folder(text: str) -> str:
    """An argparse type: a folder to write into (made if missing), which is not a file."""
    if Path(text).exists() and not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    return text


def chosen_variants(value: str | None) -> list[str]:
    """`--variant a,b`: the variants named."""
    return [v for v in (value or "").split(",") if v]


def chosen_settings(pairs: list[str] | None) -> dict[str, str]:
    """`--set NAME=VALUE`, repeated: the settings named."""
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise ValueError(f"--set takes NAME=VALUE, not {pair!r}")
        k, v = pair.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def seat_agents(text: str, players: int, option: str) -> list[str]:
    """One agent per seat, comma-separated (one name: every seat)."""
    names = text.split(",")
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise SystemExit(f"{option} lists {len(names)} {option[2:]} for {players} players")
    return names


def bench_arguments(p) -> None:
    """The arguments of `rulelang bench` (the work: tools/bench.py)."""
    from rulelang.tools.bench import SECTIONS

    p.add_argument("references", nargs="*", metavar="REFERENCE",
                   help="hand-written references to race: a bundled one's name (a file of the bench folder without .py), "
                        "a .py file, or RULES:REFERENCE.py (default: every reference in the bench folder)")
    p.add_argument("--only", metavar="SECTIONS", help=f"comma-separated, among {', '.join(SECTIONS)} (default: all)")
    p.add_argument("--seconds", type=seconds, default=2.0,
                   help="time given to each side of each playout race (default: 2.0)")
    # enough games that starting the pool and waiting for its last game weigh little, as in a
    # designer's runs of hundreds of games
    p.add_argument("--simulate-games", type=whole_number(3), default=96, metavar="N",
                   help="games per simulate run (default: 96)")
    p.add_argument("--simulate-file", metavar="FILE",
                   help="the game simulated for the --jobs comparison (default: the first game in games/)")
    p.add_argument("--quick", action="store_true", help="a tiny run that only shows the command works (no useful figures)")
