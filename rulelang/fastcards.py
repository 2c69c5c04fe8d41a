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
from .errors import Span

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
_RESERVED = {"true", "false", "none", "and", "or", "not", "in", "if", "then", "else", "for", "where"}


_TEMPLATES: dict[type, tuple[dict, list]] = {}
_set = object.__setattr__


def _make(cls, **values):
    """A pydantic model built without validation or model_construct's overhead (values known good)."""
    template = _TEMPLATES.get(cls)
    if template is None:
        static, factories = {}, []
        for name, f in cls.model_fields.items():
            if f.default_factory is not None:
                factories.append((name, f.default_factory))
            elif not f.is_required():
                static[name] = f.default
        template = _TEMPLATES[cls] = (static, factories)
    static, factories = template
    data = {**static, **values}
    for name, factory in factories:
        if name not in values:
            data[name] = factory()
    obj = object.__new__(cls)
    _set(obj, "__dict__", data)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def _span(file: str, line: int, column: int, end_column: int) -> Span:
    return _make(Span, file=file, line=line, column=column, end_line=line, end_column=end_column)


def _atom(text: str, file: str, line: int, col: int):
    span = _span(file, line, col, col + len(text))
    if text[0] == '"':
        return _make(N.StrLit, span=span, value=text[1:-1])
    if text[0].isdigit():
        return _make(N.IntLit, span=span, value=int(text))
    if text == "true" or text == "false":
        return _make(N.BoolLit, span=span, value=text == "true")
    if text == "none":
        return _make(N.NoneLit, span=span)
    return _make(N.Name, span=span, id=text)


def _value(text: str, file: str, line: int, col: int):
    if not text.startswith("["):
        return _atom(text, file, line, col)
    items = [_atom(m.group(), file, line, col + m.start()) for m in _ATOM_RE.finditer(text, 1)]
    span = _span(file, line, col, col + len(text))
    return _make(N.ListLit, span=span, items=items)


def _entry(m: re.Match, file: str, line: int) -> N.CardEntry | None:
    args = []
    base = m.start("args")
    for a in _ARG_RE.finditer(m.group("args")):
        value_text = a.group(2)
        if value_text in _RESERVED - {"true", "false", "none"}:
            return None
        col = base + a.start() + 1
        vcol = base + a.start(2) + 1
        value = _value(value_text, file, line, vcol)
        arg_span = _span(file, line, col, vcol + len(value_text))
        args.append(_make(N.KwArg, span=arg_span, name=a.group(1), value=value))
    start = len(m.group("indent")) + 1
    end = m.end("copies") + 1 if m.group("copies") else m.end("args") + 2
    ctor_end = m.end("args") + 2
    ctor = _make(N.CardCtor, span=_span(file, line, start, ctor_end),
                                      component=m.group("comp"), args=args)
    copies = int(m.group("copies")) if m.group("copies") else 1
    return _make(N.CardEntry, span=_span(file, line, start, end),
                                       doc=[], ctor=ctor, copies=copies, gens=[])


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
