"""The Lark parser of grammar/rulelang.lark, and the limits a text is held to while it is read.

The parser is Lark's own LALR parser (contextual lexer, positions propagated to every node, `None`
for an optional part left out), loaded with Lark's documented `Lark.save` / `Lark.load`: from
grammar/rulelang.lalr as shipped (`write_tables()` writes it), else from the parse cache, else built
from the grammar (about half a second: the LALR tables) and then kept in the parse cache. A
first line before Lark's data says what it was made from (grammar, Lark, Python, options); a file
made from anything else is not used.

While Lark reads, its lexer callbacks refuse what no game may hold: a number beyond NUMBER_BOUND, a
text longer than the list_size budget, a name of Python's own (`__class__`); and they count the
names, numbers and texts read, so that the memory a parse takes is looked at as it grows
(`watching`). Before Lark reads, a file's words and symbols are counted against the source_tokens
budget (`_refuse_too_many_tokens`: parsing time grows with them), and a list written out longer
than list_size is refused (`_refuse_long_lists`); after, a tree nested deeper than MAX_NESTING
(`_too_deep`).

Measured and not taken (first `check` of the largest seed game, empty caches; the figures and
commands are in the commit that added this paragraph; bench/_parse_speed.py and
bench/_parse_compare.py): Lark's standalone parser (`python -m lark.tools.standalone`) loads through
the same deserialization as `Lark.load` (about 45 ms of its 58 ms; unpickling is 11 ms), so it is no
faster; `Lark(..., cache=True)` is `Lark.load` again; `regex=True` parses slower; `lexer="basic"`
reads keywords where the rules have names (`round`, `turn`, `phase`...): 116 files of the repository
read differently, 97 of them no longer parse; without `propagate_positions` the parse takes about 90
ms less, but a node's span then cannot be the same: it starts and ends at tokens the transformer
never sees (the `game` of `game "X" { ... }`, a closing brace), which only the rule's full expansion
knows. Nor Lark's `keep_all_tokens` with spans made from each node's first and last token (0.21 ->
0.12 s for the largest game's parse): with `maybe_placeholders`, an optional part left out then
holds a None for each of its keywords too, so which parts were written can no longer be told from
the children without the rule's expansion, which only Lark's internals hold. Nor an expression
grammar read flat (operands and operators in one rule, nested by precedence after the parse): a
name passes 12 precedence rules, so the largest game's parse makes 52,140 reductions, and a flat
rule makes 28,645 to 33,155, but the first parse gained only 10 to 40 ms. Spelling out
the same language flat takes 1,900 rules (loading them: 0.5 s), and a flat rule that accepts more
(`a < b < c`) must refuse it after the parse, in words other than today's.
"""
from __future__ import annotations

import hashlib
import re
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from itertools import chain
from pathlib import Path

from lark import Lark, Token, Tree

from rulelang.core.budgets import NUMBER_BOUND, BudgetExceeded, current_budgets, resident_mb
from rulelang.core.cachefiles import parse_cache_dir, write_whole
from rulelang.core.errors import Span
from rulelang.core.resources import grammar_path, tables_path

# ------------------------------------------------------------------ the parser


def _options() -> dict:
    """How the parser is made (and given again to Lark when it is loaded)."""
    # NAME last: Lark chains a callback to a terminal that keywords share (NAME) with a test written as
    # `lambda t: t.type == type_` inside its loop over the callbacks, so it sees the last name of the
    # loop; INT, which no keyword shares, gets its callback as it is
    return {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": True, "propagate_positions": True,
            "lexer_callbacks": {"INT": _refuse_huge_numbers, "STRING": _refuse_long_texts,
                                "NAME": _refuse_python_names}}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The parser: as shipped (grammar/rulelang.lalr), else as the parse cache keeps it, else built
    from the grammar (then kept)."""
    grammar = grammar_path().read_text(encoding="utf-8")
    header = _tables_header(grammar)
    lark = _saved_parser(tables_path(), header)
    if lark is None:  # the grammar changed since write_tables(), or another Lark or Python
        folder = parse_cache_dir()
        kept = folder / f"parser-{hashlib.sha256(header).hexdigest()[:40]}.lark" if folder is not None else None
        lark = _saved_parser(kept, header) if kept is not None else None
        if lark is None:
            lark = Lark(grammar, **_options())
            data = _saved_bytes(lark, header) if kept is not None else None
            if data is not None:
                write_whole(kept, data)  # a read-only home, a full disk: not kept
    return lark


def _tables_header(grammar: str) -> bytes:
    """What a saved parser depends on: the grammar, Lark, Python, how the parser is made."""
    import lark

    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()
    options = {k: (sorted((kind, f"{f.__module__}.{f.__qualname__}") for kind, f in v.items())
                   if k == "lexer_callbacks" else v) for k, v in _options().items()}
    how = hashlib.sha256(repr(sorted(options.items())).encode()).hexdigest()[:16]
    return (f"rulelang-lalr-3 {digest} lark-{lark.__version__} python-{sys.version_info[0]}.{sys.version_info[1]} "
            f"options-{how}").encode()


def _saved_parser(path: Path, header: bytes) -> Lark | None:
    """The parser saved in a file by `Lark.save`, after a first line that must be `header`."""
    try:
        with open(path, "rb") as f:
            if f.readline().rstrip(b"\n") != header:
                return None
            lark = Lark.load(f)
        return lark if isinstance(lark, Lark) else None
    except Exception:  # none yet, damaged, or from another version: built again
        return None


def _saved_bytes(lark: Lark, header: bytes) -> bytes | None:
    import io

    buffer = io.BytesIO()
    try:
        lark.save(buffer)  # (its lexer callbacks are saved by their names, and found again on load)
    except Exception:  # a parser that does not save: not kept
        return None
    return header + b"\n" + buffer.getvalue()


def write_tables() -> Path:
    """Write grammar/rulelang.lalr, the parser saved by Lark, for this grammar, Lark and Python (after a
    grammar change: `python3 -c "from rulelang.language.lark_parser import write_tables; write_tables()"`)."""
    grammar = grammar_path().read_text(encoding="utf-8")
    data = _saved_bytes(Lark(grammar, **_options()), _tables_header(grammar))
    if data is None:
        raise RuntimeError("this Lark's parser does not save")
    path = tables_path()
    if not write_whole(path, data):
        raise OSError(f"{path} could not be written")
    return path


# ------------------------------------------------------------------ refused as it is read


def _refuse_huge_numbers(tok: Token) -> Token:
    """A number written beyond the bound of every number of a game (read as text first: Python refuses
    to read a number of more than 4,300 digits)."""
    if len(tok) > 19 or int(tok) > NUMBER_BOUND:
        raise _SyntaxProblem(Span(line=tok.line, column=tok.column, end_line=tok.line, end_column=tok.column + len(tok)),
                             f"this number is beyond ±{NUMBER_BOUND:,}: the numbers of a game stay smaller")
    return _counted(tok)


def _refuse_long_texts(tok: Token) -> Token:
    """A text written longer than the list_size budget allows any text of a game (refused where it is
    read, before the rest of the file is parsed)."""
    if len(tok) - 2 > current_budgets().list_size:
        _refuse_size(Span(line=tok.line, column=tok.column, end_line=tok.line, end_column=tok.column + 1),
                     "this text is {:,} characters long", len(_unquote(tok)))  # (an escape is one character)
    return _counted(tok)


def _refuse_size(span: Span, words: str, n: int, counted: bool = True) -> None:
    """A value written out in the file (a text, a list) of n items (or more, not `counted`): over the
    list_size budget, a diagnostic (`words` say what it is, with n in their {})."""
    limit = current_budgets().list_size
    if n > limit:
        over = BudgetExceeded(span, "list_size", words.format(n if counted else limit) + ", more than a value of a game "
                        "may hold", limit)
        raise _OverBudget(span, over.message, over.hint if not counted else
                          f"if the rules are right, raise it: --budget list_size={n} on the command line, or "
                          f"budgets={{'list_size': {n}}} in Python")


def _refuse_python_names(tok: Token) -> Token:
    """Names with two leading underscores are Python's (`__class__`, `__import__`): never the rules'."""
    if tok.startswith("__"):
        raise _SyntaxProblem(Span(line=tok.line, column=tok.column),
                             f'"{tok}": names starting with two underscores are reserved (a rules file cannot '
                             "reach the interpreter's own names)")
    return _counted(tok)



class _SyntaxProblem(Exception):
    def __init__(self, span: Span, message: str, hint: str | None = None):
        self.span = span
        self.message = message
        self.hint = hint


class _OverBudget(_SyntaxProblem):
    """A value written out beyond a budget, or a parse beyond the memory budget: said where it was
    found. `whole`: said for the whole file, which is not then parsed again declaration by
    declaration to find its other errors (memory)."""

    def __init__(self, span: Span, message: str, hint: str | None = None, whole: bool = False):
        super().__init__(span, message, hint)
        self.whole = whole


class _MemoryWatch:
    """The memory a parse takes, against the memory_mb budget: looked at every WATCH_EVERY names,
    numbers and texts the lexer reads (`_counted`; a text of millions of tokens takes a kilobyte or
    so for each). `watching()` sets the watch of a parse (each thread has its own)."""

    __slots__ = ("base", "limit", "read")

    def __init__(self):
        self.base = resident_mb()
        self.limit = current_budgets().memory_mb
        self.read = 0


WATCH_EVERY = 1 << 14  # (a power of two)
_watch: ContextVar[_MemoryWatch | None] = ContextVar("rulelang_parse_watch", default=None)  # (each thread its own)


@contextmanager
def watching():
    """The memory of the parse made inside, held to the memory_mb budget (by the lexer callbacks)."""
    token = _watch.set(_MemoryWatch())
    try:
        yield
    finally:
        _watch.reset(token)


def _counted(tok: Token) -> Token:
    watch = _watch.get()
    if watch is not None:
        watch.read += 1
        if not watch.read % WATCH_EVERY and (grown := resident_mb() - watch.base) > watch.limit:
            span = Span(line=tok.line, column=tok.column, end_line=tok.line, end_column=tok.column + 1)
            over = BudgetExceeded(span, "memory_mb", f"reading the rules up to here took {grown:,.0f} MiB of memory",
                                  watch.limit)
            raise _OverBudget(span, over.message, over.hint, whole=True)
    return tok


# A word, a number, a text or a symbol as the parser will read them, or a comment, which it skips.
# (Parsing takes tens of microseconds a token: their number, not the file's size, makes a dense file slow.)
_TOKEN = re.compile(r'(//[^\n]*)|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\w+|\S')


def _refuse_too_many_tokens(text: str, counted: int = 0) -> int:
    """`counted` plus the words and symbols of `text` (the tokens of a file's texts read before it),
    held to the source_tokens budget before the parser reads any of them."""
    limit = current_budgets().source_tokens
    for m in _TOKEN.finditer(text):
        if m.lastindex is None:
            counted += 1
            if counted > limit:
                start = m.start()
                line = text.count("\n", 0, start) + 1
                column = start - text.rfind("\n", 0, start)
                span = Span(line=line, column=column, end_line=line, end_column=column + len(m.group()))
                over = BudgetExceeded(span, "source_tokens", f"the file has more than {limit:,} words and symbols "
                                "for the parser to read", limit)
                raise _OverBudget(span, over.message, over.hint, whole=True)
    return counted


def _unquote(tok) -> str:
    s = str(tok)
    if "\\" not in s:
        return s[1:-1]
    try:
        return bytes(s[1:-1], "utf-8").decode("unicode_escape")
    except UnicodeDecodeError as exc:
        span = Span(line=getattr(tok, "line", 0) or 0, column=getattr(tok, "column", 0) or 0)
        raise _SyntaxProblem(span, f"this text has a backslash that is not a known escape ({exc.reason})") from None



# ------------------------------------------------------------------ refused before or after


# How deep the grammar's rules may nest in one declaration (an `if` in an `if` is three levels, an
# operand of `+` or of `not` one more). The seed games nest about 25 deep; the later stages (the
# tree's transformation, the checker, the compilers, the AST cache) recurse once or a few times per
# level, and all of them work at this depth. Past it, a file gets a diagnostic, not a crash.
MAX_NESTING = 200


def _too_deep(tree: Tree) -> Tree | None:
    """The first node found below MAX_NESTING levels of the tree (walked without recursion), or None."""
    todo = [(tree, 1)]
    pop, push = todo.pop, todo.append
    while todo:
        node, depth = pop()
        if depth > MAX_NESTING:
            return node
        depth += 1
        for child in node.children:
            if type(child) is Tree:
                push((child, depth))
    return None


# What decides where a list written out starts and ends, found without parsing it: its brackets, and
# the texts and comments that hide the brackets and commas they hold.
# (each alternative a character first, which Python's `re` then looks for alone: a third of the time)
_BRACKETS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|\[|\]|\(|\)|\{|\}')


def _refuse_long_lists(text: str) -> None:
    """More items written out between two brackets than the list_size budget allows a list: said
    before the text is parsed (a list of a million numbers makes millions of tokens and nodes first).
    The commas between two brackets, texts or comments are counted at once; a list one item over is
    left to the parser (`list_lit`)."""
    limit = current_budgets().list_size
    if text.count(",") <= limit:
        return
    open_at: list[int] = []  # where each bracket still open starts
    commas: list[int] = []  # the commas directly inside it
    last = 0
    for m in chain(_BRACKETS.finditer(text), [None]):  # (None: the end of the text)
        if commas:
            commas[-1] += text.count(",", last, m.start() if m is not None else len(text))
            if commas[-1] > limit:
                start = open_at[-1]
                line = text.count("\n", 0, start) + 1
                column = start - text.rfind("\n", 0, start)
                _refuse_size(Span(line=line, column=column, end_line=line, end_column=column + 1),
                             "this list written out has more than {:,} items" if text[start] == "[" else
                             "more than {:,} items are written out between these brackets", commas[-1] + 1,
                             counted=False)
        if m is None:
            break
        last = m.end()
        ch = text[m.start()]
        if ch in "[({":
            open_at.append(m.start())
            commas.append(0)
        elif ch in "])}" and commas:
            open_at.pop()
            commas.pop()
