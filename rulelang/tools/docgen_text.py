"""The text the rulebook pages quote (``docgen``) and the reference's generated parts.

A file's source (``Source``, a node's text as written), Markdown helpers (``code``, ``cell``,
``first_sentence``), walking the AST's statements and naming its declarations, and the
``Assumption`` lines of doc comments. Nothing here knows any particular game: everything comes
from the AST.

The language reference's generated parts: the grammar's rules as written, the table of built-in
functions and values (kept in ``docs/reference.md`` between two marker lines, written by
``python3 -m rulelang.tools.docgen builtins``), and each `rulelang` command's usage from the CLI's
own argument parser (given in, so that the docs do not import the CLI).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from rulelang.language import nodes as N

# ------------------------------------------------------------------ source text


class Source:
    """The text of a .rules file, to quote declarations and expressions exactly as written."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines()

    def of(self, node: N.Node | None, max_len: int | None = None) -> str:
        """The source text of a node (comments dropped, whitespace runs collapsed), or '' when it has no span."""
        s = node.span if node is not None else None
        if s is None or not s.line or not s.end_line or s.line > len(self.lines):
            return ""
        lines = self.lines[s.line - 1:s.end_line]
        lines[-1] = lines[-1][:s.end_column - 1]  # (the last line first: it may be the first too)
        lines[0] = lines[0][s.column - 1:]
        text = " ".join(strip_comment(line) for line in lines)
        return shorten(re.sub(r"\s+", " ", text).strip(), max_len)

    def first_line(self, node: N.Node, max_len: int = 90) -> str:
        """The first source line of a statement or declaration, without its block."""
        s = node.span
        if not s.line or s.line > len(self.lines):
            return ""
        line = strip_comment(self.lines[s.line - 1][s.column - 1:]).strip()
        return shorten(re.sub(r"\s+", " ", _up_to(line, "{")).strip(), max_len)


def shorten(text: str, max_len: int | None) -> str:
    """The text cut to `max_len` characters, an ellipsis ending it when it was longer."""
    return text if not max_len or len(text) <= max_len else text[:max_len - 1].rstrip() + "…"


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
    return f"`{text}`" if "`" not in text else f"`` {text} ``"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def table(head: str, rows) -> list[str]:
    """A Markdown table's lines: `head` its columns' names ("setting | default", a name ending in ":"
    is aligned right), then a line per row (a row: its cells, already made safe with `cell`)."""
    names = [h.strip() for h in head.split("|")]
    return (["| " + " | ".join(n.rstrip(":") for n in names) + " |",
             "|" + "".join("---:|" if n.endswith(":") else "---|" for n in names)]
            + ["| " + " | ".join(row) + " |" for row in rows])


def doc_text(lines: list[str]) -> str:
    """Doc comment lines as a Markdown paragraph (doc comments are Markdown)."""
    return "\n".join(lines).strip()


def first_sentence(lines: list[str], max_len: int = 160) -> str:
    text = " ".join(line.strip() for line in lines).strip()
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return shorten(m.group(1) if m and not text.startswith('"') else text, max_len)


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
            # (a quotation, or another assumption: perhaps after the words of its own rule)
            if not more or more.startswith(('"', "“")) or _assumption_at(more) is not None:
                break
            text.append(more)
            i += 1
        before = next((re.sub(r"\s*\{\s*$", "", strip_comment(line.strip())) for line in lines[i:]
                       if line.strip() and not line.strip().startswith("//")), "")
        out.append(Assumption(start + 1, " ".join(text), before))
    return out


# ------------------------------------------------------------------ the language reference


def grammar_rules_by_name() -> dict[str, str]:
    """Each rule or terminal of the grammar, as written (with its indented alternatives), by name."""
    from rulelang.core.resources import grammar_path

    text = grammar_path().read_text(encoding="utf-8")
    return {m.group(1): m.group(0).rstrip()
            for m in re.finditer(r"^[?!]?([A-Za-z_][A-Za-z0-9_]*)[ \t]*:.*(?:\n[ \t]+\S.*)*", text, re.M)}


def grammar_rules(names: Iterable[str]) -> str:
    rules = grammar_rules_by_name()
    for name in names:
        if name not in rules:
            raise KeyError(f"the grammar has no rule named {name!r}")
    return "\n".join(rules[n] for n in names)


def arity(lo: int, hi: int | None) -> str:
    """A built-in's number of arguments in words ("2", "1 to 3", "2 or more"): the reference and hover say it alike."""
    return f"{lo} or more" if hi is None else str(lo) if lo == hi else f"{lo} to {hi}"


def builtins_table() -> str:
    """A Markdown table of the built-in functions and values, from the interpreter's own tables."""
    from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS

    functions = [(b.name, b.min_args, b.max_args, b.doc) for b in BUILTINS.values()]
    functions += [(name, lo, hi, doc) for name, (lo, hi, doc) in SPECIAL_FUNCS.items()]
    return "\n".join(table("built-in | arguments | meaning", ([code(name + "(…)"), arity(lo, hi), cell(doc)]
                                                             for name, lo, hi, doc in functions))
                     + [""] + table("built-in value | meaning", ([code(n), cell(d)] for n, d in BUILTIN_VALUES.items())))


# The table of built-ins is text in docs/reference.md, between these two lines, so that the page
# reads as it is (in the repository, online, in an editor), not only on the built site. This
# command writes it anew from the interpreter; tests/test_docs.py fails while it differs.
REGENERATE_BUILTINS = "python3 -m rulelang.tools.docgen builtins"
BUILTINS_BEGIN = ("<!-- begin: built-in functions and values, written by "
                  f"{REGENERATE_BUILTINS} from the interpreter; do not edit by hand -->")
BUILTINS_END = "<!-- end: built-in functions and values -->"


def _builtins_bounds(text: str) -> tuple[int, int] | None:
    """Where the table lies in a page's text: from the end of the first marker's line to the start
    of the second marker; None when the page has neither; ValueError when only one, or both out of order."""
    begin, end = text.find(BUILTINS_BEGIN), text.find(BUILTINS_END)
    if begin == -1 and end == -1:
        return None
    if begin == -1 or end == -1 or end < begin:
        raise ValueError("the table of built-ins needs both of its marker lines, in this order:\n"
                         f"{BUILTINS_BEGIN}\n{BUILTINS_END}")
    return begin + len(BUILTINS_BEGIN), end


def builtins_section(text: str) -> str | None:
    """The table of built-ins that a page holds between its markers (blank lines around it left
    out), or None when the page has no such table."""
    bounds = _builtins_bounds(text)
    return None if bounds is None else text[bounds[0]:bounds[1]].strip("\n")


def with_builtins_table(text: str) -> str:
    """A page's text with the table between its markers written anew from the interpreter."""
    bounds = _builtins_bounds(text)
    if bounds is None:
        raise ValueError("the page has no table of built-ins: put these two lines where it goes:\n"
                         f"{BUILTINS_BEGIN}\n{BUILTINS_END}")
    return text[:bounds[0]] + "\n\n" + builtins_table() + "\n\n" + text[bounds[1]:]


# what an argument means when the command's parser gives it no help text
_CLI_MEANINGS = {
    "file": "a .rules file, or the name of a bundled game or example (its file name without .rules)",
    "files": ".rules files (or bundled games' names)",
    "variant": "variant(s) to apply, comma-separated, in order",
    "players": "how many players (default: the game's default)",
    "seed": "the seed of the match's random numbers",
    "set": "change a setting of the game: NAME=VALUE (repeatable)",
}


def cli_usage(command: str, parser) -> str:
    """The usage and options of one `rulelang` subcommand, from the CLI's own argument parser
    (``rulelang.cli.main.build_parser()``, passed in so that the docs do not import the CLI: its
    `commands` by name, each keeping the `arguments` it was given)."""
    if command not in parser.commands:
        raise KeyError(f"rulelang has no command {command!r}")
    p = parser.commands[command]
    usage = p.format_usage().replace("usage: ", "").strip()
    rows = []
    for names, options in p.arguments:
        flags = [n for n in names if n.startswith("-")]
        dest = options.get("dest") or (names[0] if not flags else
                                        next((f for f in flags if f.startswith("--")), flags[0]).lstrip("-").replace("-", "_"))
        name = ", ".join(flags) or dest
        if flags and options.get("action") not in ("store_true", "store_false", "count", "version"):
            name += " " + (options.get("metavar") or dest.upper())
        help_text = options.get("help") or _CLI_MEANINGS.get(dest, "")
        default = options.get("default")
        if default not in (None, False) and flags:
            help_text += f" (default: {default})"
        rows.append([code(name), cell(help_text)])
    return "\n".join(["```text", re.sub(r"\s+", " ", usage), "```", ""] + table("argument | meaning", rows))


# ------------------------------------------------------------------ python3 -m rulelang.tools.docgen


def _reference_page() -> Path:
    """docs/reference.md of the checkout this rulelang runs from."""
    return Path(__file__).resolve().parent.parent.parent / "docs" / "reference.md"


def main(argv: list[str] | None = None) -> int:
    """``python3 -m rulelang.tools.docgen builtins [PAGE] [--check]``: write the table of built-ins into
    the language reference (``docs/reference.md``), or with ``--check`` only say whether it is the
    interpreter's. The exit code is 1 when ``--check`` finds it differs, 2 when the page cannot be used."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python3 -m rulelang.tools.docgen",
                                     description="Write the generated parts of the documentation's pages.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("builtins", help="write the table of built-in functions and values into the language reference")
    p.add_argument("page", nargs="?", help="the page holding the table (default: docs/reference.md of this checkout)")
    p.add_argument("--check", action="store_true",
                   help="change nothing: exit with 1 when the page's table is not the interpreter's")
    args = parser.parse_args(argv)
    page = Path(args.page) if args.page else _reference_page()
    try:
        text = page.read_bytes().decode("utf-8")
        new = with_builtins_table(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        where = "" if args.page else " (an installed rulelang has no docs/: give the page's path)"
        print(f"{page}: {exc}{where}", file=sys.stderr)
        return 2
    if new == text:
        print(f"{page}: the table of built-ins is the interpreter's")
        return 0
    if args.check:
        print(f"{page}: the table of built-ins is not the interpreter's: run `{REGENERATE_BUILTINS}` "
              "to write it", file=sys.stderr)
        return 1
    page.write_bytes(new.encode("utf-8"))
    print(f"{page}: table of built-ins written")
    return 0
