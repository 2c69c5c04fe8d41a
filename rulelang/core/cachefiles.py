"""Files kept between processes: the parsed-AST cache and the loaded parser (in the parse cache's
folder), and the compiled generated modules (codegen's own folder). Each is written whole or not
at all, and a big one is read with Python's cycle collector paused.

Nothing here imports the rest of rulelang: the parser, the AST cache and the code generator all
use it.
"""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from pathlib import Path


def parse_cache_dir() -> Path | None:
    """Where parsing keeps what it worked out between processes (parsed files, the loaded parser):
    $RULELANG_CACHE_DIR, else $XDG_CACHE_HOME/rulelang/ast, else ~/.cache/rulelang/ast; None when
    RULELANG_CACHE=0 or RULELANG_CACHE_DIR=off turns it off."""
    if os.environ.get("RULELANG_CACHE", "1").strip().lower() in ("0", "no", "off", "false"):
        return None
    chosen = os.environ.get("RULELANG_CACHE_DIR", "").strip()
    if chosen.lower() in ("off", "none", "0"):  # as for compiled modules (codegen_cache.cache_dir): none kept
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulelang" / "ast"


def write_whole(path: Path, data: bytes) -> bool:
    """Write a file under another name, then rename it: a reader (another process) finds the old
    file or the new one, never half of one. False when it cannot be written (a read-only home, a
    full disk): a cache then only costs the work again next time."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return False


def prune(folder: Path, pattern: str, keep: int) -> None:
    """About the `keep` most recently written files of the folder that match the pattern are kept: a
    designer editing a file leaves one entry per version. The folder is cut down to `keep` once it
    holds a tenth more (a full folder is not sorted by age at every write: about 2 ms each time).
    Another process pruning meanwhile, or a folder not there yet, is no error."""
    from fnmatch import fnmatchcase

    try:
        with os.scandir(folder) as entries:
            files = [e.path for e in entries if fnmatchcase(e.name, pattern)]
        if len(files) <= keep + keep // 10:
            return
        files.sort(key=lambda f: os.stat(f).st_mtime)
        for old in files[:len(files) - keep]:
            try:
                os.unlink(old)
            except FileNotFoundError:
                pass
    except OSError:
        pass


@contextmanager
def collector_paused():
    """Python's cycle collector off for a while: an AST being parsed or unpickled, or a parser being
    loaded, grows by many objects that hold no cycles, which the collector would otherwise scan
    again and again as they grow."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
