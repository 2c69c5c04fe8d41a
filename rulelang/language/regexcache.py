"""Python's `re`, with the regular expressions it compiled kept on disk between processes.

Lark's lexers compile big regular expressions (every token they may meet): the root lexer's one,
with which the parser reads a text that parses (parser._root_tokens), and, for a text with a syntax
error, which Lark's own parse reads, one for each parser state its contextual lexer reaches. Python
compiles a regular expression in Python code: the 26 states met in one declaration of a large seed
game took about 45 ms. This module is what the parser gives Lark instead of `re`
(`parser._lark`): `compile` keeps the compiled program of each expression (the list of numbers
Python's own compiler makes, `re._compiler._code`) in the parse cache, keyed by the expression and
its flags, and a later process builds the expression from it at once (`_sre.compile`, the call
`re.compile` ends with). Everything else is `re` itself.

The file is for this Python (its version is in the name); a file that does not load, or a Python
whose internals differ, is ignored: the expressions are then compiled as `re` compiles them.
"""
from __future__ import annotations

import atexit
import marshal
import re
import sys

from rulelang.core.cachefiles import parse_cache_dir, write_whole

try:  # the pieces of re.compile: Python's own, so checked before use (_usable)
    import _sre
    from re import _compiler, _parser
except ImportError:  # pragma: no cover - another Python
    _sre = _compiler = _parser = None



def __getattr__(name: str):
    """Everything but `compile` is `re`'s own (`error`, `match`, the flags...)."""
    return getattr(re, name)


KEEP_AT_MOST = 2_000  # expressions kept (a grammar's lexer has a few hundred; older grammars' go)
_kept: dict | None = None  # (pattern, flags) -> (flags, code, groups, groupindex, indexgroup)
_new: dict = {}  # compiled in this process, not yet written


def _path():
    folder = parse_cache_dir()
    if folder is None:
        return None
    return folder / f"regex-{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal"


def _load() -> dict:
    global _kept
    if _kept is None:
        _kept = {}
        path = _path()
        if path is not None:
            try:
                found = marshal.loads(path.read_bytes())
                if isinstance(found, dict):
                    _kept = found
            except Exception:  # none yet, damaged, or of another Python: compiled again
                pass
    return _kept


def compile(pattern, flags=0):  # noqa: A001 - the name Lark calls
    if not _usable or type(pattern) is not str or not isinstance(flags, int):
        return re.compile(pattern, flags)
    flags = int(flags)
    key = (pattern, flags)
    parts = _load().get(key) or _new.get(key)
    if parts is not None:
        try:
            return _sre.compile(pattern, *parts)
        except Exception:  # a damaged entry: compiled again below
            pass
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    parts = (int(flags | parsed.state.flags), [int(n) for n in code], parsed.state.groups - 1, groupindex,
             tuple(indexgroup))  # plain numbers: the opcodes are named numbers, which marshal does not write
    compiled = _sre.compile(pattern, *parts)
    if not _new:
        atexit.register(keep)  # written once, when the process ends (a parse meets new states chunk by chunk)
    _new[key] = parts
    return compiled


def keep() -> None:
    """Write the expressions compiled by this process that the file lacks (at the process's end, when
    it compiled any: the lexer's states are finite, so the file soon holds them all)."""
    global _new
    atexit.unregister(keep)
    if not _new:
        return
    path = _path()
    if path is None:
        return
    merged = dict(_load())
    if len(merged) + len(_new) > KEEP_AT_MOST:  # expressions of older grammars: start again
        merged = {}
    merged.update(_new)
    try:
        data = marshal.dumps(merged)
    except ValueError:  # pragma: no cover - a value marshal cannot write
        return
    write_whole(path, data)
    _kept.update(_new)
    _new = {}


def _check() -> bool:
    """Whether `compile` above gives what re.compile gives, on this Python."""
    if _sre is None:
        return False
    try:
        parsed = _parser.parse("(?P<A>a+)|(?P<B>b)", 0)
        code = _compiler._code(parsed, 0)
        mine = _sre.compile("(?P<A>a+)|(?P<B>b)", parsed.state.flags, code, parsed.state.groups - 1,
                            dict(parsed.state.groupdict), (None, "A", "B"))
        theirs = re.compile("(?P<A>a+)|(?P<B>b)")
        return (mine.match("aab").lastgroup, mine.match("b").lastgroup, mine.groupindex, mine.flags) == \
            (theirs.match("aab").lastgroup, theirs.match("b").lastgroup, theirs.groupindex, theirs.flags)
    except Exception:
        return False


_usable = _check()
