"""Data files read by `table NAME from "file.csv"`: one row per line, the first line names the columns.

Blank lines and lines starting with `#` are skipped. Whole numbers become numbers; every other value
stays a text (an enum member is its name, so `row.terrain == forest` compares as expected). Used by
the checker (the column names, so `row.q` is known) and the compiler (the rows).
"""
from __future__ import annotations

import csv
from pathlib import Path

from .budgets import BEYOND_BOUND, NUMBER_BOUND


class TableError(Exception):
    """A data file that cannot be read; the message says where and why. `columns`: its column
    names, when its header was read (a later line is wrong); `missing`: it could not be opened."""

    def __init__(self, message: str, columns: list[str] | None = None, missing: bool = False):
        super().__init__(message)
        self.columns, self.missing = columns, missing


def table_path(name: str, rules_file: str | None) -> Path:
    """A table's file, relative to the rules file that names it."""
    path = Path(name)
    if not path.is_absolute():
        path = Path(rules_file or ".").resolve().parent / path
    return path


def read_table(path: Path, shown: str | None = None) -> tuple[list[str], list[dict]]:
    """The column names and the rows of a data file; `shown` is how messages name it (as written)."""
    try:
        if path.exists() and not path.is_file():  # a folder, a pipe, a device (which may never end)
            raise TableError(f"the data file {shown or path.name} is not a file of text")
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise TableError(f"cannot read the data file {shown or path.name}", missing=True) from None
    except UnicodeDecodeError as exc:
        raise TableError(f"the data file {shown or path.name} is not UTF-8 text (byte offset {exc.start})") from None
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise TableError(f"the data file {path.name} is empty (it needs a header line naming the columns)")
    parsed = list(csv.reader([line for _i, line in lines], skipinitialspace=True))
    header = [h.strip() for h in parsed[0]]
    for h in header:
        if not h.isidentifier():
            raise TableError(f'{path.name}:{lines[0][0]}: the column name "{h}" is not a name '
                             "(letters, digits and _, not starting with a digit)")
    rows = []
    for (line_no, _line), values in zip(lines[1:], parsed[1:]):
        if len(values) != len(header):
            raise TableError(f"{path.name}:{line_no}: {len(values)} values, but the header names "
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
                raise TableError(f"{path.name}:{line_no}: the number in column {h} is {BEYOND_BOUND}", header)
        rows.append(row)
    return header, rows
