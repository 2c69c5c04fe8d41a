"""A fast path for long card lists, so loading a file of 50,000 cards takes time linear and small.

A deck written out card by card (`cards deck in pile { Card(name: "A", point: 3) ... }`, one
card a line) is most of a big rules file. Lark and pydantic validation cost about a millisecond
a card; this module reads such lines with one regular expression each and builds the same AST
nodes without validation (their values are checked by the regular expression). Only blocks
whose every line is a plain card (literal values: texts without escapes, whole numbers, names,
true/false/none and flat lists of these) take the fast path; anything else is left to the
parser, so the language and its diagnostics are unchanged.

`split_card_blocks(text)` returns the text with the fast lines blanked (line numbers unchanged)
and the entries read; `restore_card_blocks(decls, entries)` puts them back after parsing.
"""
from __future__ import annotations

import re

from rulelang.language import nodes as N
from rulelang.core.budgets import BudgetExceeded, current_budgets, resident_mb
from rulelang.core.errors import Diagnostic, RulesError, Span, span_of

MIN_ENTRIES = 100  # smaller blocks are parsed as usual

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ATOM = r'"[^"\\{}\n]*"|\d+|' + _NAME
_VALUE = rf"\[\s*(?:(?:{_ATOM})\s*(?:,\s*(?:{_ATOM})\s*)*,?\s*)?\]|{_ATOM}"
_ARG = rf"{_NAME}\s*:\s*(?:{_VALUE})"
_ENTRY = re.compile(
    rf"^(?P<indent>[ \t]*)(?P<comp>{_NAME})\((?P<args>\s*(?:{_ARG}\s*(?:,\s*{_ARG}\s*)*,?)?\s*)\)"
    rf"(?:\s*\*\s*(?P<copies>\d+))?\s*;?\s*(?://(?!/).*)?$")
_ARG_RE = re.compile(rf"({_NAME})\s*:\s*({_VALUE})")
_ATOM_RE = re.compile(_ATOM)
_HEAD = re.compile(rf"^cards[ \t]+(?P<name>{_NAME})\b[^{{}}\n]*\{{[ \t]*(?://(?!/).*)?$")
_SKIP = re.compile(r"^[ \t]*(?://(?!/).*)?$")  # blank, or a plain comment (not a /// doc comment)
_HEADS = re.compile(_HEAD.pattern, re.M)  # a block's head at the start of any line
_HEAD_START = re.compile(r"\ncards[ \t]")  # where one may start (words first: a quick search)
_SKIPPED = re.compile(r"(?:[ \t]*+(?://(?!/)[^\n]*+)?+\n)++")  # lines as _SKIP, a run of them at once
_NOT_VALUES = frozenset({"and", "or", "not", "in", "if", "then", "else", "for", "where"})  # words, not values


# Nodes and spans are made without pydantic's validation or model_construct's overhead (the values
# are known good: the regular expressions matched them), as nodes.Node.__init__ fills them in
# (nodes.node_of, errors.span_of). About a microsecond a node, 16 nodes a card.
_obj = N.node_of


def _span(file: str, line: int, column: int, end_column: int) -> Span:
    return span_of(file, line, column, line, end_column)


def _atom(text: str, file: str, line: int, col: int):
    span = _span(file, line, col, col + len(text))
    first = text[0]
    if first == '"':
        return _obj(N.StrLit, {"span": span, "value": text[1:-1]})
    if first.isdigit():
        return _obj(N.IntLit, {"span": span, "value": int(text)})
    if text == "true" or text == "false":
        return _obj(N.BoolLit, {"span": span, "value": text == "true"})
    if text == "none":
        return _obj(N.NoneLit, {"span": span})
    return _obj(N.Name, {"span": span, "id": text})


def _value(text: str, file: str, line: int, col: int):
    if not text.startswith("["):
        return _atom(text, file, line, col)
    items = [_atom(m.group(), file, line, col + m.start()) for m in _ATOM_RE.finditer(text, 1)]
    return _obj(N.ListLit, {"span": _span(file, line, col, col + len(text)), "items": items})


_LONG_NUMBER = re.compile(r"[0-9]{19}")  # may be beyond the bound of every number: the parser says so


def _plain(m: re.Match) -> bool:
    """A line that matched _ENTRY holds only values the fast path reads as the parser would."""
    if _LONG_NUMBER.search(m.string, m.start(), m.end()):
        return False
    return not any(a.group(2) in _NOT_VALUES for a in _ARG_RE.finditer(m.string, m.start("args"), m.end("args")))


def _entry(m: re.Match, file: str, line: int) -> N.CardEntry:
    # (written out flat: this runs once a card, and calls cost)
    args = []
    for a in _ARG_RE.finditer(m.string, m.start("args"), m.end("args")):
        value_text = a.group(2)
        vcol = a.start(2) + 1
        vend = vcol + len(value_text)
        value = _atom(value_text, file, line, vcol) if value_text[0] != "[" else _value(value_text, file, line, vcol)
        args.append(_obj(N.KwArg, {"span": _span(file, line, a.start() + 1, vend), "name": a.group(1),
                                   "value": value}))
    start = m.end("indent") + 1
    ctor_end = m.end("args") + 2
    copies_text = m.group("copies")
    ctor = _obj(N.CardCtor, {"span": _span(file, line, start, ctor_end), "component": m.group("comp"), "args": args})
    return _obj(N.CardEntry, {"span": _span(file, line, start, m.end("copies") + 1 if copies_text else ctor_end),
                              "doc": [], "ctor": ctor, "copies": int(copies_text) if copies_text else 1, "gens": []})


def split_card_blocks(text: str, file: str) -> tuple[str, dict[int, list[N.CardEntry]]]:
    """Blank the plain card lines of long `cards` blocks; return the text and, by the line of each
    block's `cards` keyword, the entries read (all but the block's first, which the parser keeps).
    (The text is walked by offsets: the blocks' heads are searched for, and blank and comment lines
    skipped a run at a time, so a file of a million lines costs no Python step per line.)"""
    if text.count("\n") < MIN_ENTRIES:
        return text, {}
    found: dict[int, list[N.CardEntry]] = {}
    blanked: list[tuple[int, int]] = []  # (start, end) of each line blanked
    budgets = current_budgets()
    longest = budgets.list_size
    memory_base, read = resident_mb(), 0  # (the memory_mb budget, looked at every WATCH_EVERY cards read)
    pos, line_no = 0, 0  # where line number line_no (from 0) starts
    while True:
        head, at = _HEADS.match(text, pos), pos
        while head is None:
            start = _HEAD_START.search(text, at)
            if start is None:
                break
            at = start.start() + 1
            head = _HEADS.match(text, at)
        if head is None:
            break
        i = line_no + text.count("\n", pos, head.start())
        start, j = head.end() + 1, i + 1  # line j starts at start
        if start > len(text):  # (the head is the last line)
            break
        lines: list[tuple[int, int, int, re.Match]] = []  # (a block's cards are counted before any is built)
        closed, made = False, 0  # (the cards budget: a deck of more cards than a file may create is not read on)
        while start <= len(text):
            run = _SKIPPED.match(text, start)
            if run is not None:
                j += text.count("\n", start, run.end())
                start = run.end()
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            line = text[start:end]
            if line.strip() == "}":
                closed = True
                break
            if _SKIP.match(line):
                j, start = j + 1, end + 1
                continue
            if len(line) > longest:  # a text or list longer than a game's may be in it: the parser says so
                break
            m = _ENTRY.match(line)
            if m is None or not _plain(m):
                break
            lines.append((start, end, j, m))
            made += int(m.group("copies") or 1)
            if made > budgets.cards:
                _over(_entry(m, file, j + 1).span, "cards", f"this would make more than {budgets.cards:,} cards",
                      budgets.cards)
            j, start = j + 1, end + 1
        else:  # the text ended inside the block
            break
        if closed and len(lines) >= MIN_ENTRIES:
            blanked.extend((a, b) for a, b, _, _ in lines[1:])
            entries = found[i + 1] = []
            for _, _, at, m in lines[1:]:
                entries.append(_entry(m, file, at + 1))
                read += 1
                if not read % WATCH_EVERY and resident_mb() - memory_base > budgets.memory_mb:
                    _over(entries[-1].span, "memory_mb", "reading the rules up to here took "
                          f"{resident_mb() - memory_base:,.0f} MiB of memory", budgets.memory_mb)
        pos, line_no = end + 1, j + 1  # after the block's last line ("}", or the line that is no card)
        if pos > len(text):
            break
    if not found:
        return text, {}
    kept = zip([0] + [end for _, end in blanked], [start for start, _ in blanked] + [len(text)])  # (between blanks)
    return "".join(text[start:end] for start, end in kept), found


WATCH_EVERY = 1 << 14


def _over(span: Span, budget: str, words: str, limit: int) -> None:
    """A budget crossed while long decks are read: the diagnostic, before the rest is read."""
    over = BudgetExceeded(span, budget, words, limit)
    raise RulesError(Diagnostic(span, over.message, hint=over.hint))


def restore_card_blocks(decls: list, found: dict[int, list[N.CardEntry]]) -> None:
    """Put the entries read by `split_card_blocks` back into their `cards` declarations."""
    if not found:
        return
    for d in decls:
        if isinstance(d, N.CardsDecl) and d.span.line in found:
            d.entries.extend(found[d.span.line])
