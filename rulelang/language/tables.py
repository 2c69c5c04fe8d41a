"""Data files read by `table NAME from "file.csv"`: one row per line, the first line names the columns.

Blank lines and lines starting with `#` are skipped. Whole numbers become numbers; every other value
stays a text (an enum member is its name, so `row.terrain == forest` compares as expected). Used by
the checker (the column names, so `row.q` is known) and the compiler (the rows).
"""
from __future__ import annotations

import csv
import os
import stat
from pathlib import Path

from rulelang.core.budgets import BEYOND_BOUND, NUMBER_BOUND


class TableError(Exception):
    """A data file that cannot be read; the message says where and why. `columns`: its column
    names, when its header was read (a later line is wrong); `missing`: it could not be opened."""

    def __init__(self, message: str, columns: list[str] | None = None, missing: bool = False):
        super().__init__(message)
        self.columns, self.missing = columns, missing


def table_path(name: str, rules_file: str | None) -> Path:
    """A table's file as written, relative to the folder of the rules file that names it."""
    return folder_of(rules_file) / name


def folder_of(rules_file: str | None) -> Path:
    """The folder whose tree a rules file (or scenario file) may read: its own, symlinks followed."""
    return Path(rules_file or "x").resolve().parent


def read_confined(name: str, folder: Path, limit: int) -> str:
    """The text of the file `name` (as written in the rules) inside `folder`'s tree, or a
    TableError saying why not. A rules file is a stranger's program: it reads only files of text in
    its own folder and below it (symlinks followed before the test), at most `limit` bytes
    (the source_bytes budget). Messages name the file as written and quote nothing of a refused file."""
    why = confinement_problem(name, folder)
    if why:
        raise TableError(f"the data file {name} {why}")
    path = (folder / name).resolve()
    try:
        # O_NONBLOCK: a named pipe without a writer opens at once and is then refused, never waited on
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        raise TableError(f"cannot read the data file {name}", missing=True) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # a folder, a pipe, a device (which may never end)
        os.close(fd)
        raise TableError(f"the data file {name} is not a file of text")
    with open(fd, "rb") as f:
        data = f.read(limit + 1) if info.st_size <= limit else None
    if data is None or len(data) > limit:  # (or it grew while being read)
        raise TableError(f"the data file {name} is larger than {limit:,} bytes (budget source_bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TableError(f"the data file {name} is not UTF-8 text (byte offset {exc.start})") from None


def confinement_problem(name: str, folder: Path, reader: str = "rules file") -> str | None:
    """Why `name` may not be read from `folder` (the folder of `reader`), in words, or None when it
    lies inside the folder's tree."""
    rule = f"a {reader} reads only files in its own folder and below it"
    if Path(name).is_absolute():
        return f"is named by an absolute path; {rule}"
    try:
        (folder / name).resolve().relative_to(folder)
    except ValueError:
        return f"lies outside the {reader}'s folder; {rule}"
    except (OSError, RuntimeError):  # a loop of symlinks
        return "cannot be followed to a file"
    return None


def read_table(name: str, rules_file: str | None) -> tuple[list[str], list[dict]]:
    """The column names and the rows of data file `name`, as written beside `rules_file`."""
    from rulelang.core.budgets import current_budgets

    text = read_confined(name, folder_of(rules_file), current_budgets().source_bytes)
    shown = Path(name).name
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise TableError(f"the data file {shown} is empty (it needs a header line naming the columns)")
    parsed = list(csv.reader([line for _i, line in lines], skipinitialspace=True))
    header = [h.strip() for h in parsed[0]]
    for h in header:
        if not h.isidentifier():
            raise TableError(f'{shown}:{lines[0][0]}: the column name "{h}" is not a name '
                             "(letters, digits and _, not starting with a digit)")
    rows = []
    for (line_no, _line), values in zip(lines[1:], parsed[1:]):
        if len(values) != len(header):
            raise TableError(f"{shown}:{line_no}: {len(values)} values, but the header names "
                             f"{len(header)} columns ({', '.join(header)})", header)
        row = {}
        for h, v in zip(header, values):
            v = v.strip()
            try:
                row[h] = int(v)
            except ValueError:
                row[h] = v
                continue
            if not -NUMBER_BOUND <= row[h] <= NUMBER_BOUND:
                raise TableError(f"{shown}:{line_no}: the number in column {h} is {BEYOND_BOUND}", header)
        rows.append(row)
    return header, rows
