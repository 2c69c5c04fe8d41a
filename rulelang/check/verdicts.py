"""Checks that passed, kept on disk, so that `rulelang check` of a file that passed before answers
at once: without importing the parser, the AST's models (pydantic) or the checker.

A check's answer depends on the file's text, the data files its tables read, and rulelang's own
code. A passed check is kept under a key made of the text, the rules file's folder (data files are
found beside it) and a fingerprint of the code: every module of rulelang, the grammar and its
tables, the installed Lark and pydantic, the Python version, and the resource budgets in force.
The kept verdict lists the data files read with the hash of each (a changed data file is a miss), and
the lines a pass prints after "ok" (its hints), which quote the file by the path it was given: that
path is part of the key too, so a kept answer prints what the check printed. Only passes are kept:
a file with errors is checked again, so its messages are always made fresh.

The verdicts live in the parse cache's folder (`cachefiles.parse_cache_dir`), in `verdicts/`;
``RULELANG_CACHE=0`` turns them off with the rest of the cache. Anything unexpected (an unreadable
folder, a damaged verdict) is a miss, and the file is checked.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import NamedTuple

from rulelang.core.budgets import current_budgets
from rulelang.core.cachefiles import parse_cache_dir, prune, write_whole

_FORMAT = b"rulelang-verdict-1"
KEEP = 200  # verdicts kept: one per version of a file that passed
_fingerprint: bytes | None = None


def _code_fingerprint() -> bytes:
    """What a check's answer depends on besides its inputs: rulelang's code and what it runs on."""
    global _fingerprint
    if _fingerprint is None:
        import importlib.util

        from rulelang.core.resources import grammar_path, tables_path

        h = hashlib.blake2b(_FORMAT)
        h.update(sys.version.encode())
        here = Path(__file__).resolve().parent.parent  # rulelang/: the modules of every room
        for path in sorted(here.rglob("*.py")):
            h.update(path.relative_to(here).as_posix().encode() + b"\0" + path.read_bytes())
        for path in (grammar_path(), tables_path()):
            h.update(path.read_bytes())
        for package in ("lark", "pydantic", "pydantic_core"):  # a reinstall changes these files
            spec = importlib.util.find_spec(package)
            origin = spec.origin if spec else None
            stat = os.stat(origin) if origin else None
            h.update(f"{package}|{origin}|{stat and stat.st_size}|{stat and stat.st_mtime_ns}".encode())
        _fingerprint = h.digest()
    return _fingerprint


class Verdict(NamedTuple):
    variants: list[str]
    notes: list[str]  # the lines printed after "ok" (hints)


def _entry(folder: Path, path: Path, text: bytes) -> Path:
    h = hashlib.blake2b(_code_fingerprint())
    h.update(os.environ.get("RULELANG_BUDGETS", "").encode() + b"\0")
    h.update(str(path.resolve().parent).encode("utf-8", "surrogatepass") + b"\0")
    h.update(str(path).encode("utf-8", "surrogatepass") + b"\0")
    h.update(text)
    return folder / "verdicts" / (h.hexdigest()[:40] + ".json")


def _file_hash(path: str) -> str | None:
    try:
        if not Path(path).is_file():  # (a pipe or a device is never read: it may never end)
            return None
        return hashlib.blake2b(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def passed_before(path: str | Path) -> Verdict | None:
    """The variants and printed hints of a rules file whose text passed `check` before, unchanged
    since, with the same data files and the same rulelang; None when it must be checked."""
    folder = parse_cache_dir()
    if folder is None:
        return None
    try:
        path = Path(path)
        if not path.is_file():  # a folder, a pipe, a device: checked (and refused) by reading it as rules
            return None
        limit = current_budgets().source_bytes
        with path.open("rb") as f:
            data = f.read(limit + 1) if os.fstat(f.fileno()).st_size <= limit else b""
        if not data or len(data) > limit:  # larger than a rules file may be: refused as rules (sourcefile)
            return None
        text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data  # (as read_source reads it: no byte order mark)
        verdict = json.loads(_entry(folder, path, text).read_bytes())
        variants, data_files, notes = verdict["variants"], verdict["data_files"], verdict["notes"]
        if not (isinstance(variants, list) and isinstance(notes, list) and isinstance(data_files, dict)
                and all(isinstance(v, str) for v in variants + notes)):
            return None
        return None if any(_file_hash(f) != digest for f, digest in data_files.items()) else Verdict(variants, notes)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remember_pass(path: str | Path, text: str, verdict: Verdict, data_files: list[Path]) -> None:
    """Keep that this text of the rules file at `path` passed `check`, having read these data files
    and printed these lines after "ok"."""
    folder = parse_cache_dir()
    if folder is None:
        return
    try:
        entry = _entry(folder, Path(path), text.encode("utf-8", "surrogatepass"))
    except (OSError, ValueError):
        return
    hashes = {}
    for data_file in data_files:
        digest = _file_hash(str(data_file))
        if digest is None:  # read by the check, gone now: nothing worth keeping
            return
        hashes[str(data_file)] = digest
    kept = {"variants": list(verdict.variants), "data_files": hashes, "notes": list(verdict.notes)}
    if write_whole(entry, json.dumps(kept).encode()):
        prune(entry.parent, "*.json", KEEP)  # a designer editing a file leaves one per version that passed
