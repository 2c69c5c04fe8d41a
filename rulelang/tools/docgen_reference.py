"""The language reference's generated parts: the grammar's rules as written, the table of
built-in functions and values (kept in ``docs/reference.md`` between two marker lines, written by
``python3 -m rulelang.tools.docgen builtins``), and each `rulelang` command's usage from the CLI's
own argument parser (given in, so that the docs do not import the CLI).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from rulelang.tools.docgen_text import cell, code

# ------------------------------------------------------------------ the language reference


def _grammar_text() -> str:
    from rulelang.core.resources import grammar_path

    return grammar_path().read_text(encoding="utf-8")


def grammar_rules_by_name() -> dict[str, str]:
    """Each rule or terminal of the grammar, as written (with its alternatives), by name."""
    text = _grammar_text()
    out: dict[str, str] = {}
    current, lines = None, []
    for line in text.splitlines():
        m = re.match(r"^([?!]?)([A-Za-z_][A-Za-z0-9_]*)\s*:", line)
        if m:
            if current:
                out[current] = "\n".join(lines).rstrip()
            current, lines = m.group(2), [line]
        elif current and line.startswith((" ", "\t")) and line.strip():
            lines.append(line)
        elif current:
            out[current] = "\n".join(lines).rstrip()
            current, lines = None, []
    if current:
        out[current] = "\n".join(lines).rstrip()
    return out


def grammar_rules(names: Iterable[str]) -> str:
    rules = grammar_rules_by_name()
    for name in names:
        if name not in rules:
            raise KeyError(f"the grammar has no rule named {name!r}")
    return "\n".join(rules[n] for n in names)


def builtins_table() -> str:
    """A Markdown table of the built-in functions and values, from the interpreter's own tables."""
    from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS

    out = ["| built-in | arguments | meaning |", "|---|---|---|"]

    def arity(lo, hi):
        if hi is None:
            return f"{lo} or more"
        return str(lo) if lo == hi else f"{lo} to {hi}"

    for b in BUILTINS.values():
        out.append(f"| {code(b.name + '(…)')} | {arity(b.min_args, b.max_args)} | {cell(b.doc)} |")
    for name, (lo, hi, doc) in SPECIAL_FUNCS.items():
        out.append(f"| {code(name + '(…)')} | {arity(lo, hi)} | {cell(doc)} |")
    out.append("")
    out.append("| built-in value | meaning |")
    out.append("|---|---|")
    for name, doc in BUILTIN_VALUES.items():
        out.append(f"| {code(name)} | {cell(doc)} |")
    return "\n".join(out)


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
    out = ["```text", re.sub(r"\s+", " ", usage), "```", "", "| argument | meaning |", "|---|---|"]
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
        out.append(f"| {code(name)} | {cell(help_text)} |")
    return "\n".join(out)


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
