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

from . import nodes as N
from . import regexcache  # compiled once per machine, not per process
from .errors import Span, span_of

MIN_ENTRIES = 100  # smaller blocks are parsed as usual

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ATOM = r'"[^"\\{}\n]*"|\d+|' + _NAME
_VALUE = rf"\[\s*(?:(?:{_ATOM})\s*(?:,\s*(?:{_ATOM})\s*)*,?\s*)?\]|{_ATOM}"
_ARG = rf"{_NAME}\s*:\s*(?:{_VALUE})"
_ENTRY = regexcache.compile(
    rf"^(?P<indent>[ \t]*)(?P<comp>{_NAME})\((?P<args>\s*(?:{_ARG}\s*(?:,\s*{_ARG}\s*)*,?)?\s*)\)"
    rf"(?:\s*\*\s*(?P<copies>\d+))?\s*;?\s*(?://(?!/).*)?$")
_ARG_RE = regexcache.compile(rf"({_NAME})\s*:\s*({_VALUE})")
_ATOM_RE = regexcache.compile(_ATOM)
_HEAD = regexcache.compile(rf"^cards[ \t]+(?P<name>{_NAME})\b[^{{}}\n]*\{{[ \t]*(?://(?!/).*)?$")
_SKIP = regexcache.compile(r"^[ \t]*(?://(?!/).*)?$")  # blank, or a plain comment (not a /// doc comment)
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


def _entry(m: re.Match, file: str, line: int) -> N.CardEntry | None:
    # (written out flat: this runs once a card, and calls cost)
    if _LONG_NUMBER.search(m.string, m.start(), m.end()):
        return None
    args = []
    for a in _ARG_RE.finditer(m.string, m.start("args"), m.end("args")):
        value_text = a.group(2)
        if value_text in _NOT_VALUES:
            return None
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
    block's `cards` keyword, the entries read (all but the block's first, which the parser keeps)."""
    if text.count("\n") < MIN_ENTRIES:
        return text, {}
    lines = text.split("\n")
    found: dict[int, list[N.CardEntry]] = {}
    i = 0
    while i < len(lines):
        head = _HEAD.match(lines[i])
        if head is None:
            i += 1
            continue
        j = i + 1
        entries: list[tuple[int, N.CardEntry]] = []
        ok = True
        while j < len(lines):
            line = lines[j]
            if line.strip() == "}":
                break
            if _SKIP.match(line):
                j += 1
                continue
            m = _ENTRY.match(line)
            entry = _entry(m, file, j + 1) if m else None
            if entry is None:
                ok = False
                break
            entries.append((j, entry))
            j += 1
        if ok and j < len(lines) and len(entries) >= MIN_ENTRIES:
            for index, _ in entries[1:]:
                lines[index] = ""
            found[i + 1] = [e for _, e in entries[1:]]
        i = j + 1
    if not found:
        return text, {}
    return "\n".join(lines), found


def restore_card_blocks(decls: list, found: dict[int, list[N.CardEntry]]) -> None:
    """Put the entries read by `split_card_blocks` back into their `cards` declarations."""
    if not found:
        return
    for d in decls:
        if isinstance(d, N.CardsDecl) and d.span.line in found:
            d.entries.extend(found[d.span.line])
