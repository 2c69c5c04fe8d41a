"""A rules file cut into its top-level chunks: each starts at a line that opens a declaration.

The parser uses the chunks to report every syntax error of a file at once (each chunk is parsed on
its own when the whole file does not parse), and the AST cache uses them to parse again only the
declarations an edit touched (tests/test_astcache.py checks the property of the grammar that makes
that give the same AST).
This module does not import the parser, so a file whose chunks are all cached needs no Lark.
"""
from __future__ import annotations

import re
from rulelang.core.errors import remember_source
from rulelang.language.fastcards import split_card_blocks

_TOP_START = re.compile(
    r"^(///|replace\b|game\b|enum\b|component\b|player\b|cards\b|zone\b|var\b|setting\b|set\b|def\b|"
    r"procedure\b|keyword\b|phase\b|setup\b|result\b|at\b|when\b|always\b|variant\b|remove\b|scenario\b)"
)
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')  # (the grammar's STRING)


# Lines that change nothing of the cutting, a run of them read at once (possessive: nothing kept per
# line), so that a file of a million lines costs no Python step per line: at the top level, lines
# without braces that open no declaration; inside braces, lines without braces.
_QUIET_AT_TOP = re.compile(r"(?:(?!(?![ \t])[^\S\n]*+" + _TOP_START.pattern[1:] + r")[^{}\n]*+\n)++")
_QUIET_INSIDE = re.compile(r"(?:[^{}\n]*+\n)++")
_COMMENTS_ONLY = re.compile(r"(?:[^\S\n]*+(?://[^\n]*+)?+\n)*+")  # blank and comment lines


def split_top_level(text: str) -> list[tuple[int, str]]:
    """Chunks of text (first line's index from 0, text), each starting at a line that opens a
    top-level declaration at brace depth 0; a run of /// lines (and comments) goes with the
    declaration after it. (Lines are cut at "\\n" only, as the parser counts them: each chunk is a
    stretch of the text.)"""
    chunks: list[tuple[int, str]] = []
    depth = 0
    start_line, start = 0, 0  # the chunk being read: its first line (index, offset)
    index, pos, size = 0, 0, len(text)  # the line being read
    while pos < size:
        quiet = (_QUIET_AT_TOP if depth == 0 else _QUIET_INSIDE).match(text, pos)
        if quiet is not None:
            index += text.count("\n", pos, quiet.end())
            pos = quiet.end()
            continue
        end = text.find("\n", pos)
        end = size if end < 0 else end + 1
        line = text[pos:end]
        at_col0 = line[:1] not in (" ", "\t")
        if depth == 0 and at_col0 and _TOP_START.match(line.lstrip()):
            if not (start < pos and _COMMENTS_ONLY.fullmatch(text, start, pos)):
                if start < pos:
                    chunks.append((start_line, text[start:pos]))
                start_line, start = index, pos
        if "{" in line or "}" in line:
            code = _STRING.sub('""', line).split("//", 1)[0]
            depth = max(depth + code.count("{") - code.count("}"), 0)
        index, pos = index + 1, end
    if start < size:
        chunks.append((start_line, text[start:]))
    return chunks


def declaration_chunks(text: str, file: str) -> tuple[list[tuple[int, str]], dict]:
    """The chunks of a file's text once its long card blocks are read aside (fastcards), and those."""
    remember_source(file, text)
    fast_text, fast_cards = split_card_blocks(text, file)
    return split_top_level(fast_text), fast_cards


def header_doc(text: str) -> list[str]:
    """`//!` lines at the top of a file: the prose that opens its rulebook page."""
    if not text.lstrip().startswith("//!"):
        return []
    size = 4096  # the lines of a longer and longer start of the text (a file of a million lines is not cut whole)
    while True:
        lines = text[:size].splitlines()
        if size < len(text):
            lines.pop()  # (it may go on past the cut)
        out = []
        for line in lines:
            if line.startswith("//!"):
                out.append(line[3:].lstrip(" ") if line[3:4] == " " else line[3:])
            elif line.strip():
                return out
        if size >= len(text):
            return out
        size *= 4
