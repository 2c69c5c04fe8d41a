"""A rules file cut into its top-level chunks: each starts at a line that opens a declaration.

The parser uses the chunks to report every syntax error of a file at once (each chunk is parsed on
its own when the whole file does not parse), and the AST cache uses them to parse again only the
declarations an edit touched (see `parser.chunks_are_exact` for why that gives the same AST).
This module does not import the parser, so a file whose chunks are all cached needs no Lark.
"""
from __future__ import annotations

from . import regexcache  # compiled once per machine, not per process
from .errors import remember_source
from .fastcards import split_card_blocks

_TOP_START = regexcache.compile(
    r"^(///|replace\b|game\b|enum\b|component\b|player\b|cards\b|zone\b|var\b|setting\b|set\b|def\b|"
    r"procedure\b|keyword\b|phase\b|setup\b|result\b|at\b|when\b|always\b|variant\b|remove\b|scenario\b)"
)
_STRING = regexcache.compile(r'"([^"\\\n]|\\.)*"')


def _lines(text: str) -> list[str]:
    """The lines of a text with their ends, cut at "\\n" only, as the parser counts lines."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    return lines


def split_top_level(text: str) -> list[tuple[int, str]]:
    """Chunks of text (first line's index from 0, text), each starting at a line that opens a
    top-level declaration at brace depth 0; a run of /// lines (and comments) goes with the
    declaration after it."""
    chunks: list[tuple[int, list[str]]] = []
    depth = 0
    current: list[str] = []
    start_line = 0
    for index, line in enumerate(_lines(text)):
        at_col0 = line[:1] not in (" ", "\t")
        if depth == 0 and at_col0 and _TOP_START.match(line.lstrip()):
            if not (current and all(l.lstrip().startswith("//") or not l.strip() for l in current)):
                if current:
                    chunks.append((start_line, current))
                current, start_line = [], index
        current.append(line)
        if "{" in line or "}" in line:
            code = _STRING.sub('""', line).split("//", 1)[0]
            depth = max(depth + code.count("{") - code.count("}"), 0)
    if current:
        chunks.append((start_line, current))
    return [(offset, "".join(lines)) for offset, lines in chunks]


def declaration_chunks(text: str, file: str) -> tuple[list[tuple[int, str]], dict]:
    """The chunks of a file's text once its long card blocks are read aside (fastcards), and those."""
    remember_source(file, text)
    fast_text, fast_cards = split_card_blocks(text, file)
    return split_top_level(fast_text), fast_cards


def header_doc(text: str) -> list[str]:
    """`//!` lines at the top of a file: the prose that opens its rulebook page."""
    out = []
    for line in text.splitlines():
        if line.startswith("//!"):
            out.append(line[3:].lstrip(" ") if line[3:4] == " " else line[3:])
        elif line.strip():
            break
    return out
