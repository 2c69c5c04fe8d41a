"""Where the grammar and the bundled games live, in a checkout or an installed wheel."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # rulelang/ (this is rulelang/core/resources.py)


def _bundled(*parts: str) -> Path:
    """In a wheel, what a checkout keeps beside the package is bundled into it (rulelang/_bundled/)."""
    inside = _PACKAGE.joinpath("_bundled", *parts)
    return inside if inside.exists() else _PACKAGE.parent.joinpath(*parts)


def grammar_path() -> Path:
    return _bundled("grammar", "rulelang.lark")


def tables_path() -> Path:
    """The grammar's LALR tables, saved beside it (lark_parser.write_tables)."""
    return grammar_path().with_suffix(".lalr")


def games_dir() -> Path:
    return _bundled("games")


def examples_dir() -> Path:
    return _bundled("examples")


def bench_dir() -> Path:
    """The hand-written Python references of `rulelang bench` (bench/ in a checkout)."""
    return _bundled("bench")


def find_game(name_or_path: str) -> Path:
    """A path as given, or the name of a bundled game ("chess" -> games/chess.rules)."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    # a bare name ("chess") is a bundled game even when a folder of that name is in the way
    if path.is_dir() and (path.suffix == ".rules" or path.name != name_or_path.strip("/")):
        return path  # the user named this folder: the reader says it is a folder
    for folder in (games_dir(), examples_dir()):
        for candidate in (folder / name_or_path, folder / f"{name_or_path}.rules"):
            if candidate.is_file():
                return candidate
    return path
