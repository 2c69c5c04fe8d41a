"""The generated modules' compiled code, kept: in this process, and on disk in the user's cache
folder (`cache_dir()`), by the hash of the whole source; each top-level unit (a def and what goes
with it) by its own text too, so that after an edit only the units whose text changed are compiled
again (`_unit_code`). Written for `codegen.Generator.finish`.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import re
import sys
import types
from pathlib import Path

from rulelang.core.cachefiles import prune, write_whole

GENERATOR_VERSION = "55"  # bump when the generated code changes shape (part of the cache key)

_CODE_CACHE: dict[str, list[types.CodeType]] = {}  # by the whole source: its units, placed
_STATS = {"hits": 0, "disk_hits": 0, "misses": 0, "units_compiled": 0}
CACHE_ENV = "RULELANG_CACHE_DIR"


def cache_info() -> dict:
    """How often a generated module was found compiled already in this process (hits), on disk
    (disk_hits), or compiled anew (misses)."""
    return {**_STATS, "size": len(_CODE_CACHE)}


def cache_dir() -> Path | None:
    """Where compiled modules are kept between processes: $RULELANG_CACHE_DIR, else the user's cache
    folder ($XDG_CACHE_HOME or ~/.cache) /rulelang/codegen. `RULELANG_CACHE_DIR=off` keeps none."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() in ("off", "none", "0"):
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulelang" / "codegen"


CACHE_KEEP = 200  # compiled modules kept on disk (about 0.1 to 0.6 MB each); the oldest go first


def _compiled(units: list[tuple[int, str]], filename: str, key: str, label: str,
              on_disk: bool = True) -> list[types.CodeType]:
    """The code of a generated module, one code object per top-level unit (a def and what goes with
    it), each placed at its line of the module and named by its file: from this process's cache,
    from the disk, or compiled. After an edit, only the units whose text changed are compiled again:
    the others come from the units kept for the last version of the same game (`_unit_code`)."""
    codes = _CODE_CACHE.get(key)
    if codes is not None and codes and codes[0].co_filename == filename:
        _STATS["hits"] += 1
        return codes
    folder = cache_dir() if on_disk else None
    path = folder / f"{key}.marshal" if folder is not None else None
    codes = _read_marshal(path)
    if not (isinstance(codes, list) and len(codes) == len(units)
            and all(isinstance(c, types.CodeType) and c.co_filename == filename for c in codes)):
        codes = None
    if codes is not None:
        _STATS["disk_hits"] += 1
    else:
        _STATS["misses"] += 1
        codes = _unit_code(units, filename, label, folder)
        if path is not None:
            _write_marshal(folder, path, codes)
    if len(_CODE_CACHE) > 64:  # a long session editing rules: keep the newest
        _CODE_CACHE.pop(next(iter(_CODE_CACHE)))
    _CODE_CACHE[key] = codes
    return codes


# units compiled at line 1 under a neutral name, by their text (comments giving rules lines left out)
_UNIT_CACHE: dict[str, types.CodeType] = {}
_UNIT_FILE = "<rulelang generated unit>"
_RULES_LINE_COMMENT = re.compile(r"^(def [^\n]*?:  # [^\n]*?)rules lines? [0-9]+(?:-[0-9]+)?$", re.M)


def _unit_code(units: list[tuple[int, str]], filename: str, label: str, folder: Path | None) -> list[types.CodeType]:
    from rulelang import __version__

    kept: dict = {}
    keep_path = None
    if folder is not None:
        # the units of the last module made for a game of this title (another version of the file)
        name = hashlib.sha256(f"{__version__}/{GENERATOR_VERSION}/{sys.version}/{label}".encode()).hexdigest()
        keep_path = folder / f"units-{name[:40]}.marshal"
        kept = _read_marshal(keep_path)
        if not isinstance(kept, dict):
            kept = {}
    codes, now = [], {}
    for first, text in units:
        # the comments that give rules lines change when lines are added above: not the code
        unit_key = hashlib.sha256(_RULES_LINE_COMMENT.sub(r"\1", text).encode()).hexdigest()
        code = _UNIT_CACHE.get(unit_key) or kept.get(unit_key)
        if not isinstance(code, types.CodeType):
            # (rules nested deeper than Python compiles are split into functions: Generator.split)
            code = compile(text, _UNIT_FILE, "exec")
            _STATS["units_compiled"] += 1
        _UNIT_CACHE[unit_key] = now[unit_key] = code
        codes.append(_placed(code, first, filename))
    if len(_UNIT_CACHE) > 50_000:
        _UNIT_CACHE.clear()
    if keep_path is not None:
        _write_marshal(folder, keep_path, now)
    return codes


def _placed(code: types.CodeType, lines_above: int, filename: str) -> types.CodeType:
    """A unit's code (compiled as if it began at line 1) moved down to its line of the module, in its
    file, nested code (comprehensions, lambdas) included: tracebacks then name the module's lines."""
    consts = tuple(_placed(c, lines_above, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + lines_above, co_filename=filename, co_consts=consts)


def _read_marshal(path: Path | None):
    """What a file of the cache holds, or None: not there, unreadable or from another Python (compile again)."""
    try:
        return marshal.loads(path.read_bytes()) if path is not None else None
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _write_marshal(folder: Path, path: Path, value) -> None:
    try:
        data = marshal.dumps(value)
    except ValueError:  # (only code objects and plain values are written: not expected)
        return
    if write_whole(path, data):  # best effort: a read-only home only costs the compile next time
        prune(folder, "*.marshal", CACHE_KEEP)
