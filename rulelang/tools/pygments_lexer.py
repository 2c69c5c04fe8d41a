"""A Pygments lexer for rulelang ``.rules`` files.

Registered as the Pygments plugin ``rules`` (aliases ``rules``, ``rulelang``; files ``*.rules``)
through the ``pygments.lexers`` entry point in ``pyproject.toml``, so ``pygmentize -l rules``,
Markdown code blocks marked ``rules`` and the documentation site all highlight the language.

The keyword list is read from the grammar's string literals (``grammar/rulelang.lark``), so a
keyword added to the grammar is highlighted without touching this file; the built-in functions,
values and types come from the interpreter's own tables.
"""
from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String, Text,
                            Whitespace)

from rulelang.language.nodes import BASE_TYPES
from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS

__all__ = ["RulesLexer", "grammar_keywords"]

_CONSTANTS = {"true", "false", "none"}
_WORD_OPERATORS = {"and", "or", "not", "in"}


def grammar_keywords() -> tuple[set[str], set[str]]:
    """(every keyword, the keywords that start a top-level declaration), read from the grammar.

    A keyword is a string literal made of letters (``"phase"``, ``"face"``) or the pattern of a
    named keyword terminal (``REPLACE: "replace"``). A declaration keyword is the first literal of
    a rule whose name ends in ``_decl``.
    """
    from rulelang.core.resources import grammar_path
    from rulelang.tools.docgen_text import strip_comment

    text = "\n".join(strip_comment(line) for line in grammar_path().read_text(encoding="utf-8").splitlines())
    literal = re.compile(r'"([A-Za-z_][A-Za-z_]*)"')
    declaration = {first.group(1) for m in re.finditer(r"^(\w+_decl)\s*:(.*?)(?=^\S|\Z)", text, re.M | re.S)
                   if (first := re.match(r'\s*"([A-Za-z_]+)"', m.group(2)))}
    return set(literal.findall(text)), declaration


_KEYWORDS, _DECLARATIONS = grammar_keywords()
_FUNCTIONS, _VALUES, _TYPES = set(BUILTINS) | set(SPECIAL_FUNCS), set(BUILTIN_VALUES), set(BASE_TYPES)
_PLAIN_KEYWORDS = _KEYWORDS - _DECLARATIONS - _CONSTANTS - _WORD_OPERATORS
# Declarations whose keyword is followed by the name they declare (not `set x = 1`, not `game "T"`).
_NAMING_DECLARATIONS = _DECLARATIONS - {"game", "setup", "result", "always", "set", "player"}


def _alternatives(names) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


class RulesLexer(RegexLexer):
    """Lexer for rulelang game rules (``.rules`` files)."""

    name = "rulelang"
    aliases = ["rules", "rulelang"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rulelang"]
    url = "https://github.com/rulelang/rulelang"

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//[/!].*?$", String.Doc),
            (r"//.*?$", Comment.Single),
            (r'"', String.Double, "string"),
            (r"[0-9]+", Number.Integer),
            (r"\.\.", Operator),
            (r"--", Operator),
            (r"(==|!=|<=|>=|\+=|-=|[<>=+\-*/%]|[≥≤≠])", Operator),
            (r"[{}()\[\],;:.|]", Punctuation),
            (words(sorted(_CONSTANTS), prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(sorted(_WORD_OPERATORS), prefix=r"\b", suffix=r"\b"), Operator.Word),
            # a declaration keyword followed by the name it declares: `zone hand`, `phase main`
            (r"\b(%s)([ \t]+)(?!(?:%s)\b)([A-Za-z_]\w*)" % (_alternatives(_NAMING_DECLARATIONS), _alternatives(_KEYWORDS)),
             bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            # built-in functions where they are called: `player(1)`, `count(hand(p))`
            (words(sorted(_FUNCTIONS), prefix=r"\b", suffix=r"(?=\s*\()"), Name.Builtin),
            # built-in types after `name:` or `list of`
            (r"(?:(?<=:\s)|(?<=\bof\s))(%s)\b" % _alternatives(_TYPES), Keyword.Type),
            (words(sorted(_DECLARATIONS), prefix=r"\b", suffix=r"\b"), Keyword.Declaration),
            (words(sorted(_PLAIN_KEYWORDS), prefix=r"\b", suffix=r"\b"), Keyword),
            (words(sorted(_VALUES), prefix=r"\b", suffix=r"\b"), Name.Builtin.Pseudo),
            (r"(self)\b", Name.Builtin.Pseudo),
            (r"[A-Za-z_]\w*(?=\s*\()", Name.Function),
            (r"[A-Za-z_]\w*", Name),
            (r".", Text),
        ],
        "string": [
            (r'\\.', String.Escape),
            (r"\{[^{}\"\n]*\}", String.Interpol),
            (r'[^"\\{]+', String.Double),
            (r"\{", String.Double),
            (r'"', String.Double, "#pop"),
        ],
    }

    def analyse_text(text):  # noqa: N805 - Pygments calls it on the class
        score = 0.0
        if re.search(r'^\s*game\s+"[^"]*"\s*\{', text, re.M):
            score += 0.3
        if re.search(r"^\s*(phase|zone|cards|procedure)\s+\w+", text, re.M):
            score += 0.2
        return min(score, 1.0)
