"""A file's parsed AST, kept on disk by the hash of its text, so checking or loading an unchanged
file again skips the parser (and importing Lark).

The key is the file's text, its path as given (spans name it) and a fingerprint of the code that
builds the AST (the grammar, the parser, the AST nodes, the deck reader). Only files that parse
without errors are kept; anything unexpected (an unwritable folder, a damaged entry) falls back
to parsing. The folder is ``$RULELANG_CACHE_DIR``, else ``$XDG_CACHE_HOME/rulelang/ast``, else
``~/.cache/rulelang/ast``; ``RULELANG_CACHE=0`` turns the cache off.
"""
from __future__ import annotations

import gc
import hashlib
import os
import pickle
from pathlib import Path

from . import nodes as N
from .errors import remember_source

_FORMAT = b"rulelang-ast-1"
_fingerprint: bytes | None = None


def _builder_fingerprint() -> bytes:
    """What the AST of a text depends on besides the text: the code that builds it."""
    global _fingerprint
    if _fingerprint is None:
        from .resources import grammar_path

        here = Path(__file__).resolve().parent
        h = hashlib.sha256(_FORMAT)
        for path in (grammar_path(), here / "parser.py", here / "nodes.py", here / "fastcards.py", here / "errors.py"):
            h.update(path.read_bytes())
        _fingerprint = h.digest()
    return _fingerprint


def cache_dir() -> Path | None:
    if os.environ.get("RULELANG_CACHE", "1").strip().lower() in ("0", "no", "off", "false"):
        return None
    if os.environ.get("RULELANG_CACHE_DIR"):
        return Path(os.environ["RULELANG_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulelang" / "ast"


def _entry(folder: Path, text: str, file: str) -> Path:
    h = hashlib.sha256(_builder_fingerprint())
    h.update(file.encode("utf-8", "surrogatepass") + b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return folder / (h.hexdigest()[:40] + ".pickle")


def parse_text_cached(text: str, file: str) -> N.RulesFile:
    """parser.parse_text(text, file), from the cache when this text was parsed before."""
    folder = cache_dir()
    entry = None
    if folder is not None:
        try:
            entry = _entry(folder, text, file)
            data = entry.read_bytes()
        except (OSError, ValueError):
            data = None
        if data is not None:
            rules = _load(data)
            if rules is not None:
                remember_source(file, text)
                return rules
    from .parser import parse_text  # imports Lark: only when the text must be parsed

    was_enabled = gc.isenabled()
    gc.disable()  # as parser.parse_file: a growing AST holds no cycles worth scanning for
    try:
        rules = parse_text(text, file)
    finally:
        if was_enabled:
            gc.enable()
    if entry is not None:
        _store(entry, rules)
    return rules


def parse_file_cached(path: str | Path) -> N.RulesFile:
    """parser.parse_file(path), from the cache when the file is unchanged since it was parsed."""
    from .sourcefile import read_source

    text = read_source(path)
    if len(text) > 1_000_000:  # huge files: parser.parse_file's own memory handling
        from .parser import parse_file

        return parse_file(path)
    return parse_text_cached(text, str(path))


def _load(data: bytes) -> N.RulesFile | None:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        rules = pickle.loads(data)
    except Exception:  # a damaged or foreign entry: parse instead
        return None
    finally:
        if was_enabled:
            gc.enable()
    return rules if isinstance(rules, N.RulesFile) else None


KEEP = 200  # entries kept: a designer editing a file leaves one per version checked


def _store(entry: Path, rules: N.RulesFile) -> None:
    try:
        data = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
        entry.parent.mkdir(parents=True, exist_ok=True)
        old = list(entry.parent.glob("*.pickle"))
        if len(old) >= KEEP:  # forget the least recently written
            old.sort(key=lambda p: p.stat().st_mtime)
            for stale in old[: len(old) - KEEP + 1]:
                stale.unlink(missing_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, entry)
    except Exception:  # a read-only home, a full disk, an AST that cannot be pickled: no cache
        try:
            tmp.unlink()  # type: ignore[possibly-undefined]
        except Exception:
            pass
