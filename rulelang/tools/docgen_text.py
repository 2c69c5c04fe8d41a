"""The rules' text as the rulebook pages quote it (``docgen``): a file's source (``Source``, a
node's text as written), Markdown helpers (``code``, ``cell``, ``first_sentence``), walking the
AST's statements and naming its declarations, and the ``Assumption`` lines of doc comments.

Nothing here knows any particular game: everything comes from the AST.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from rulelang.language import nodes as N

# ------------------------------------------------------------------ source text


class Source:
    """The text of a .rules file, to quote declarations and expressions exactly as written."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines()

    def of(self, node: N.Node | None, max_len: int | None = None) -> str:
        """The source text of a node (whitespace runs collapsed), or '' when it has no span."""
        if node is None:
            return ""
        s = node.span
        if not s.line or not s.end_line or s.line > len(self.lines):
            return ""
        if s.line == s.end_line:
            text = self.lines[s.line - 1][s.column - 1:s.end_column - 1]
        else:
            parts = [self.lines[s.line - 1][s.column - 1:]]
            parts += self.lines[s.line:s.end_line - 1]
            parts.append(self.lines[s.end_line - 1][:s.end_column - 1])
            text = "\n".join(parts)
        # drop comments inside the quoted text, then collapse the layout
        text = "\n".join(strip_comment(line) for line in text.split("\n"))
        text = re.sub(r"\s+", " ", text).strip()
        if max_len and len(text) > max_len:
            text = text[: max_len - 1].rstrip() + "…"
        return text

    def first_line(self, node: N.Node, max_len: int = 90) -> str:
        """The first source line of a statement or declaration, without its block."""
        s = node.span
        if not s.line or s.line > len(self.lines):
            return ""
        line = strip_comment(self.lines[s.line - 1][s.column - 1:]).strip()
        line = re.sub(r"\s+", " ", _up_to(line, "{")).strip()
        if len(line) > max_len:
            line = line[: max_len - 1].rstrip() + "…"
        return line


def _up_to(line: str, marker: str) -> str:
    """A line up to its first `marker` outside a text (`{`: the block it opens; `//`: a comment)."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string and line.startswith(marker, i):
            return line[:i].rstrip()
    return line


def strip_comment(line: str) -> str:
    """A line without its `//` comment (one outside a text)."""
    return _up_to(line, "//")


def code(text: str) -> str:
    """Inline Markdown code for any text (backticks inside are fenced with more backticks)."""
    text = text.replace("\n", " ")
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def doc_text(lines: list[str]) -> str:
    """Doc comment lines as a Markdown paragraph (doc comments are Markdown)."""
    return "\n".join(lines).strip()


def first_sentence(lines: list[str], max_len: int = 160) -> str:
    text = " ".join(line.strip() for line in lines).strip()
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    if m and not text.startswith('"'):
        text = m.group(1)
    if len(text) > max_len:
        text = text[: max_len - 1].rstrip() + "…"
    return text


# ------------------------------------------------------------------ walking the AST


def child_blocks(stmt: N.Node) -> Iterator[list]:
    """The statement lists directly inside a statement (bodies, branches, options)."""
    if isinstance(stmt, N.If):
        for _cond, body in stmt.branches:
            yield body
        if stmt.other:
            yield stmt.other
    elif isinstance(stmt, (N.ChooseBlock, N.Respond)):
        for option in stmt.options:
            yield option.body
    elif isinstance(stmt, N.Offer):
        for option in stmt.options:
            yield option.body
        if stmt.refused:
            yield stmt.refused
    elif isinstance(stmt, (N.For, N.While, N.RepeatTimes, N.RepeatUntil, N.TakeTurns, N.StepBlock)):
        yield stmt.body


def walk_stmts(stmts: Iterable) -> Iterator[N.Node]:
    """Every statement in a list, depth first, including nested ones."""
    for s in stmts or []:
        yield s
        for body in child_blocks(s):
            yield from walk_stmts(body)


def decl_bodies(decl: N.Node) -> list[list]:
    """The statement lists of a declaration (a keyword has its effect and its triggers)."""
    if isinstance(decl, (N.PhaseDecl, N.SetupDecl, N.ResultDecl, N.ProcDecl, N.TriggerDecl, N.AlwaysDecl)):
        return [decl.body]
    if isinstance(decl, N.KeywordDecl):
        out = [decl.effect] if decl.effect else []
        out += [t.body for t in decl.triggers] + [a.body for a in decl.always]
        return out
    return []


def decl_title(d: N.Node, src: Source | None = None) -> str:
    """How a declaration is named on the page: `phase main`, `at end of round`."""
    if isinstance(d, N.GameDecl):
        return f'game "{d.title}"'
    if isinstance(d, N.PlayerDecl):
        return "player"
    if isinstance(d, (N.SetupDecl, N.ResultDecl)):
        return "setup" if isinstance(d, N.SetupDecl) else "result"
    if isinstance(d, N.TriggerDecl):
        return d.describe() + (f" as {d.name}" if d.name else "")
    if isinstance(d, N.AlwaysDecl):
        return "always" + (f" as {d.name}" if d.name else "")
    if isinstance(d, N.SetSetting):
        return f"set {d.name} = {src.of(d.value) if src else '…'}"
    if isinstance(d, N.ScenarioDecl):
        return f'scenario "{d.name}"'
    if isinstance(d, (N.DefDecl, N.ProcDecl, N.KeywordDecl)):
        word = {N.DefDecl: "def", N.ProcDecl: "procedure", N.KeywordDecl: "keyword"}[type(d)]
        # a procedure is called with (), a keyword without parameters is printed bare: `evade`
        params = f"({', '.join(p.name for p in d.params)})" if d.params or isinstance(d, N.ProcDecl) else ""
        return f"{word} {d.name}{params}"
    word = {N.EnumDecl: "enum", N.ComponentDecl: "component", N.CardsDecl: "cards", N.ZoneDecl: "zone",
            N.VarDecl: "var", N.SettingDecl: "setting", N.PhaseDecl: "phase", N.VariantDecl: "variant",
            N.RemoveDecl: "remove"}.get(type(d), type(d).__name__)
    return f"{word} {getattr(d, 'name', '')}".strip()


# ------------------------------------------------------------------ assumptions

_MID_ASSUMPTION = re.compile(r"(?<![\w`])Assumption:")


def _assumption_at(text: str) -> int | None:
    """Where an assumption starts in a doc comment's text: at its start ("Assumption", as it always
    was), or at an "Assumption:" after other words; None if nowhere."""
    if text.lstrip().startswith("Assumption"):
        return len(text) - len(text.lstrip())
    found = _MID_ASSUMPTION.search(text)
    return found.start() if found is not None else None


@dataclass
class Assumption:
    line: int
    text: str
    before: str  # the first source line of what it documents


def collect_assumptions(source: str) -> list[Assumption]:
    """Every doc comment line (``///`` or ``//!``) that starts with "Assumption", or has "Assumption:"
    after other words (the rule, then the reading taken of it), with its line.

    The text, from "Assumption" on, runs on over the following doc comment lines, up to a blank doc
    line, a line that opens a quotation or another assumption, or the end of the comment; where
    another "Assumption:" is in a line, the words before it are not taken (they are its rule's).
    """
    lines = source.splitlines()
    out: list[Assumption] = []
    i = 0
    doc = re.compile(r"^\s*//[/!](?!/)\s?(.*)$")
    while i < len(lines):
        m = doc.match(lines[i])
        at = _assumption_at(m.group(1)) if m else None
        if at is None:
            i += 1
            continue
        start = i
        text = [m.group(1)[at:].strip()]
        i += 1
        while i < len(lines):
            m2 = doc.match(lines[i])
            if not m2:
                break
            more = m2.group(1).strip()
            if not more or more.startswith(('"', "Assumption", "“")):
                break
            if _assumption_at(more) is not None:  # (another assumption, after the words of its own rule)
                break
            text.append(more)
            i += 1
        before = ""
        j = i
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped and not stripped.startswith("//"):
                before = re.sub(r"\s*\{\s*$", "", strip_comment(stripped))
                break
            j += 1
        out.append(Assumption(start + 1, " ".join(text), before))
    return out
