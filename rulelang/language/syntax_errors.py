"""Syntax errors in plain words: a Lark exception becomes a `Diagnostic` that never shows Lark's
token reprs (`syntax_diagnostic`).

Like Lark's ``match_examples``, a table of small bad snippets gives each a named message, and the
failing parser state is matched against them; the expected tokens are translated to words
(`_expected_words`); brackets left open, a missing brace, words in the wrong order and a name that
is a language word get their own explanations. Imported only when a text does not parse.
"""
from __future__ import annotations

import re
import time
from functools import lru_cache

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput

from rulelang.language.nodes import BASE_TYPES
from rulelang.core.errors import Diagnostic, Span, did_you_mean, remembered_lines, source_line


# The parser's Lark, given by the parser with each syntax error (`syntax_diagnostic`): this module
# reads its terminals and parses snippets with it, and does not import the parser (which imports it)
_parser = None

# ------------------------------------------------------------------ words for tokens

KEYWORDS_AT_TOP = (
    "game, enum, component, player, cards, zone, var, setting, def, procedure, keyword, "
    "phase, setup, result, at, when, always, variant or scenario"
)

# the tokens that are not one written word or symbol (those are said as written, in quotes)
_TOKEN_WORDS = {
    "NAME": "a name", "INT": "a whole number", "STRING": 'a text in double quotes ("...")',
    "DOC": "a /// doc comment", "COMP_OP": "a comparison such as == or <=", "ADD_OP": '"+" or "-"',
    "MUL_OP": '"*", "/" or "%"', "OPTIONAL": "optional", "REPLACE": "replace", "LOOP": "loop",
    "$END": "the end of the file",
}


def _token_words(names) -> list[str]:
    """Tokens in words, sorted, each once (Lark's anonymous tokens, "__...", left out)."""
    lookup = _literal_patterns()
    return sorted({_TOKEN_WORDS.get(n) or (f'"{lookup[n]}"' if n in lookup else n.lower().replace("_", " "))
                   for n in names if not n.startswith("__")})


def _or_list(words: list[str]) -> str:
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


@lru_cache(maxsize=1)
def _literal_patterns() -> dict[str, str]:
    return {term.name: term.pattern.value for term in _parser.terminals if term.pattern.type == "str"}


@lru_cache(maxsize=1)
def _token_groups() -> tuple[frozenset, frozenset]:
    """The tokens that can start a declaration, and those that can start a statement (read from the
    parse table: what the parser accepts at the top of a file, and at the top of a block)."""
    def accepted(prefix: str) -> frozenset:
        cursor = _parser.parse_interactive(prefix)
        cursor.exhaust_lexer()
        return frozenset(cursor.accepts())
    return accepted(""), accepted("phase a {")


# The tokens that go on an expression (an operator, a field, an index, a call).
_OPERATOR_TOKENS = frozenset({"ADD_OP", "MUL_OP", "COMP_OP", "AND", "OR", "IN", "NOT", "DOT", "LSQB", "LPAR",
                              "__ANON_0"})


def _expected_words(expected: set[str], continuations: bool = True) -> str:
    """`expected` in words; continuations=False leaves out what would go on the declaration or the
    statement at hand (the caret is on a word before the token, not where the token stands)."""
    lookup = _literal_patterns()
    words = _token_words(expected)
    # Everything that can start a value, said once.
    value_starts = {"NAME", "INT", "STRING", "LPAR", "LSQB", "LBRACE", "MINUS", "TRUE", "FALSE", "NONE", "NOT", "IF",
                    "PLAYER"}  # (`player(1)` may read as the keyword)
    if {"NAME", "INT", "STRING"} <= expected and len(expected - value_starts) <= 4:
        words = ["a value (a name, a number, a text, ...)"] + _token_words(expected - value_starts)
    # A long list of every statement keyword helps nobody: summarise it, and name what else could
    # come (what completes the declaration or statement at hand: `zone deck` then "per" or "hidden").
    if len(words) > 12:
        literals = {lookup.get(n) for n in expected}
        decl_starts, stmt_starts = _token_groups()
        groups, covered = [], {"DOC", "SEMICOLON"}
        if {"move", "let", "choose"} <= literals:
            groups.append("a statement (move, let, if, choose, ...)")
            covered |= stmt_starts
        if {"phase", "component", "zone"} <= literals:
            groups.append("a declaration (game, zone, component, def, phase, ...)")
            covered |= decl_starts
        if literals & {"and", "or", "+", "*"} or expected & {"COMP_OP", "ADD_OP", "MUL_OP"}:
            groups.append("an operator (==, +, and, ...)")
            covered |= _OPERATOR_TOKENS
        if "RBRACE" in expected:
            groups.append('"}"')
            covered.add("RBRACE")
        if groups:
            rest = _token_words(expected - covered)
            return _or_list(rest + groups if continuations and len(rest) <= 6 else groups)
        return ", ".join(words[:12]) + ", ..."
    return _or_list(words)


_FOUND_WORDS = {"$END": "the end of the file", "NAME": 'name "{}"', "INT": "number {}", "STRING": "text {}",
                "DOC": "/// doc comment"}


def _token_in_words(token: Token) -> str:
    return _FOUND_WORDS.get(token.type, '"{}"').format(token)


# Named messages for common mistakes (the match_examples idea): each entry is a
# message, what is expected instead, and snippets that fail the same way.
_EXAMPLES: dict[str, tuple[str, list[str]]] = {
    "a statement is missing its block { ... }": ('"{"', [
        "phase a { if x move a to b }",
        "phase a { for each c in d move c to e }",
    ]),
    "a declaration is missing its name": ("a name", [
        "component {",
        "phase {",
        "zone :",
    ]),
    "a var names its type before its value: `var NAME: TYPE = value`": (
        '":" and a type (int, str, bool, player, cell, list of ...)', [
            "var x = 3",
        ]),
    "a /// doc comment must come before a declaration, a member or a statement, not at the end of a block": (
        "a statement after the doc comment (or no doc comment)", [
            "phase a { /// hello\n }",
        ]),
}

# Words that start a statement or a declaration (for "did you mean" on a misspelt one).
_LEADING_WORDS = (
    "let set if elif else for while repeat choose move discard draw shuffle create reveal hide turn signal "
    "perform win end take step log fail break continue return option usable effect "
    "game enum component player cards zone var setting def procedure keyword phase setup result at when "
    "always variant remove replace scenario eliminate respond offer table"
).split()


# Words other games and languages start a statement with, and what this language writes instead.
_OTHER_WORDS = {
    **dict.fromkeys(("deal",), 'cards are dealt with "draw": `draw 3 from deck to hand(p)`'),
    **dict.fromkeys(("give", "put", "place", "play", "send", "add"), '"move" puts cards in a zone: `move c to hand(p)`'),
    **dict.fromkeys(("destroy", "trash", "kill"),
                    '"discard" puts a card where its component discards to: `discard c` (or `move c to pile`)'),
    **dict.fromkeys(("print", "say", "show", "echo"), '"log" writes a line for the players: `log "..."`'),
    **dict.fromkeys(("spawn", "make", "new"), '"create" makes a set of cards in a zone: `create SET in ZONE`'),
    **dict.fromkeys(("foreach", "forEach"), "write `for p in players { ... }` (or `for each p in players`)"),
    **dict.fromkeys(("function", "func", "fn", "fun"),
                    '`def f(x) = ...` gives a value; `procedure f(x) { ... }` runs statements'),
}


# Keywords that only start a member of another construct, and where they belong.
_MEMBER_WORDS = {
    "option": "an option is written inside `choose { option NAME { ... } }`",
    "usable": "`usable if ...` is written inside `keyword NAME { ... }`",
    "effect": "`effect { ... }` is written inside `keyword NAME { ... }`",
    "label": '`label "..."` is written inside `component NAME { ... }`',
    "discards": "`discards to ZONE` is written inside `component NAME { ... }`",
    "covers": "`covers N` (a piece on N cells) is written inside `component NAME { ... }`",
}


def _state(exc: UnexpectedInput) -> tuple[str, frozenset]:
    """Where the parser failed: the type of the token it stopped at, and what its state expected."""
    return getattr(getattr(exc, "token", None), "type", "$END"), frozenset(getattr(exc, "expected", ()) or ())


@lru_cache(maxsize=1)
def _example_states() -> dict[tuple[str, frozenset], tuple[str, str]]:
    """The parser's state at the error of each bad snippet -> (message, expected words)."""
    table = {}
    for message, (expected, snippets) in _EXAMPLES.items():
        for snippet in snippets:
            try:
                _parser.parse(snippet)
            except UnexpectedInput as exc:
                table.setdefault(_state(exc), (message, expected))
    return table


def _acceptable(exc: UnexpectedInput) -> set[str]:
    """The tokens that could really come where the error is. LALR tables share a state between
    contexts (a type after `var x:` and after a parameter's `:`), and the state's own list mixes in
    what follows in the others (")" or ","): each token is tried on a copy of the parser instead."""
    expected = set(getattr(exc, "expected", ()) or ())
    cursor = getattr(exc, "interactive_parser", None)
    if cursor is None:
        return expected
    try:
        accepted = cursor.accepts()
    except Exception:  # noqa: BLE001 - a Lark made otherwise inside: keep the table's list
        return expected
    return accepted or expected


def _named_message(exc: UnexpectedInput) -> tuple[str, str] | None:
    return _example_states().get(_state(exc))


def _code_only(line: str) -> str:
    """A line with its texts blanked and its comment cut off (columns kept)."""
    line = re.sub(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"', lambda m: '"' + " " * (len(m.group()) - 2) + '"', line)
    cut = line.find("//")
    return line if cut < 0 else line[:cut]


def _open_brackets(text: str, stop_line: int, stop_col: int):
    """Brackets still open before (stop_line, stop_col), innermost last, as (char, line, column, indent);
    and the first "{" that a "}" less indented than the opener's line seems to close by mistake."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[tuple[str, int, int, int]] = []
    suspect = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if lineno > stop_line:
            break
        indent = len(line) - len(line.lstrip())
        for col, ch in enumerate(_code_only(line), 1):
            if lineno == stop_line and col >= stop_col:
                break
            if ch in "([{":
                stack.append((ch, lineno, col, indent))
            elif ch in pairs and stack and stack[-1][0] == pairs[ch]:
                opener = stack.pop()
                if ch == "}" and suspect is None and col == indent + 1 and indent < opener[3]:
                    suspect = opener
    return stack, suspect


def _at(file: str, line: int, column: int, width: int = 1) -> Span:
    """The span of `width` characters from (line, column)."""
    return Span(file=file, line=line, column=column, end_line=line, end_column=column + width)


def _in_a_block(text: str, line: int, column: int) -> bool:
    """Whether (line, column) of the text is inside a "{ ... }" (outside every block a "}" is never what
    is missing)."""
    return any(b[0] == "{" for b in _open_brackets(text, line, column)[0])


def _bracket_diagnostic(text, file, line_offset, stop_line, stop_col, expected, found,
                        braces_too: bool, starts: str = "a new declaration") -> Diagnostic | None:
    """An unclosed "(", "[" or "{" explains the error: point at it."""
    at_end = found.startswith("the end of the")
    stack, suspect = _open_brackets(text, stop_line, stop_col)
    never_closed = {b[:3] for b in _open_brackets(text, 10**9, 0)[0]}
    if stack and stack[-1][0] in "([" and stack[-1][:3] in never_closed:
        ch, line, col, _ = stack[-1]
        close = ")" if ch == "(" else "]"
        if at_end or {"(": "RPAR", "[": "RSQB"}[ch] in expected:
            what = "parenthesis" if ch == "(" else "bracket"
            return Diagnostic(_at(file, line + line_offset, col),
                              f'unclosed {what}: this "{ch}" is never closed by a "{close}"',
                              f'"{close}" before {found}')
    braces = [b for b in stack if b[0] == "{"]
    if braces and braces_too:
        ch, line, col, _ = suspect if suspect is not None else braces[-1]
        hint = None if at_end else \
            f"{found} on line {stop_line + line_offset} starts {starts} while this block is still open"
        return Diagnostic(_at(file, line + line_offset, col), 'unclosed block: this "{" is never closed by a "}"',
                          '"}"', hint)
    return None


def syntax_diagnostic(lark, exc: UnexpectedInput, file: str, line_offset: int, text: str,
                      last: bool = True) -> Diagnostic:
    """The diagnostic for a parse error in `text`: the whole file, or (last=False) one declaration of it,
    made plainer where the text shows what went wrong: a "{" missing at the end of the line before
    (`_missing_brace`), a word of the language that the file also gives as a name (`_name_is_a_word`),
    and, for a declaration's text, words in another order (`_words_in_order`) or a symbol left out
    (`_missing_symbol`), found by parsing edited copies of it."""
    global _parser
    _parser = lark
    found = _syntax_diagnostic_of(exc, file, line_offset, text, last)
    token = getattr(exc, "token", None)
    if isinstance(exc, UnexpectedCharacters) or token is None or token.type == "$END":
        return found
    refined = _missing_brace(exc, token, found, file, line_offset) or _field_named_by_a_word(found, file, token) \
        or _name_is_a_word(found, file) or _var_without_type(found, text, token)
    if refined is None and len(text) <= _MAX_EDITED:
        refined = _words_in_order(token, found, text) or _missing_symbol(token, found, text)
    return refined or found


# what may be missing where the parser stopped, in the order it is tried, and what the hint then says
_EDITS = ((",", 'is a "," missing before it?'),
          ("=", 'is a "=" missing before it?'),
          (":", 'is a ":" missing before it?'),
          ("+", "is an operator (+, -, *, ==, and, ...) missing before it?"),
          (")", 'is a ")" missing before it?'),
          ("]", 'is a "]" missing before it?'))
# (taking the word out is not tried: which word is one too many is a guess, as often wrong as right)


_TRY_SECONDS = 0.2  # how long the hints may spend parsing edited copies of one declaration
_MAX_EDITED = 20_000  # (each copy tried is parsed whole: a declaration's text, not a whole file's)


def _reads_well(text: str, deadline: float) -> bool:
    """Whether an edited copy of a declaration parses (False once the time for trying is up)."""
    if time.perf_counter() > deadline:
        return False
    try:
        _parser.parse(text)
    except Exception:  # noqa: BLE001 - it does not
        return False
    return True


def _missing_symbol(token: Token, found: Diagnostic, text: str) -> Diagnostic | None:
    """When the diagnostic has no hint yet: one small insertion where the parser stopped (a ",", a
    "=" or an operator, a bracket closed) after which the declaration parses becomes the hint."""
    if found.hint is not None or found.span.column != token.column:
        return None
    at = token.start_pos
    if at is None or text[at:at + len(token)] != str(token):
        return None
    after_a_word = _language_word_before(text[:at]) is not None
    deadline = time.perf_counter() + _TRY_SECONDS
    for what, hint in _EDITS:
        if what == "+" and after_a_word:  # (`if turn empty(...)`: a word of the language is not a value)
            continue
        if _reads_well(text[:at] + what + " " + text[at:], deadline):
            return Diagnostic(found.span, found.message, found.expected, hint)
    return None


def _words_in_order(token: Token, found: Diagnostic, text: str) -> Diagnostic | None:
    """A word of the language written after words it comes before (`zone hand private per player`):
    if moving it (with the one or two words after it) earlier on its line makes the declaration
    parse, the hint shows the line so written."""
    if found.span.column != token.column or not str(token).isalpha() \
            or str(token) not in _literal_patterns().values():
        return None
    lines = text.split("\n")
    index = token.line - 1
    if not 0 <= index < len(lines):
        return None
    line = lines[index]
    if '"' in line:  # (a text's words are not moved)
        return None
    words = [(m.start(), m.group()) for m in re.finditer(r"\S+", _code_only(line))]
    at = next((i for i, (start, _) in enumerate(words) if start == token.column - 1), None)
    if at is None or at < 2 or len(words) > 12:
        return None
    indent = line[:len(line) - len(line.lstrip())]
    deadline = time.perf_counter() + _TRY_SECONDS
    for size in (1, 2, 3):
        if at + size > len(words):
            break
        moved = [w for _, w in words[at:at + size]]
        rest = [w for _, w in words[:at] + words[at + size:]]
        for place in range(at - 1, 0, -1):
            written = indent + " ".join(rest[:place] + moved + rest[place:])
            if not _reads_well("\n".join(lines[:index] + [written] + lines[index + 1:]), deadline):
                continue
            return Diagnostic(found.span, found.message, found.expected,
                              f"the words are in another order: `{written.strip()}`")
    return None


_VAR_WITHOUT_TYPE = re.compile(r"^\s*var\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def _var_without_type(found: Diagnostic, text: str, token: Token) -> Diagnostic | None:
    """`var score = 0`: the line written with the type its value has, when the value is a whole
    number, a text or true/false."""
    lines = text.split("\n")
    if str(token) != "=" or not 0 < token.line <= len(lines):
        return None
    line = lines[token.line - 1]
    written = _VAR_WITHOUT_TYPE.match(line[:len(_code_only(line))])  # (its comment cut off)
    if written is None:
        return None
    name, value = written.groups()
    kind = ("int" if re.fullmatch(r"-?[0-9]+", value) else "str" if re.fullmatch(r'"[^"]*"', value)
            else "bool" if value in ("true", "false") else None)
    if kind is None:
        return None
    return Diagnostic(found.span, found.message, found.expected, f"var {name}: {kind} = {value}")


def _statement_start(line: str, upto: int) -> int:
    """Where the statement that reaches column `upto` (0-based) of a line begins: after the last "{",
    "}" or ";" before it outside texts in quotes, else at the line's start (also when a text is not
    closed before it)."""
    before = _code_only(line[:upto])
    if before.count('"') % 2:  # (a text not closed: _code_only leaves it as it is)
        return 0
    return max(before.rfind("{"), before.rfind("}"), before.rfind(";")) + 1


def _missing_brace(exc: UnexpectedInput, token: Token, found: Diagnostic, file: str, line_offset: int) -> Diagnostic | None:
    """`phase play` or `if x > 3` with its "{" left out: the parser stops at the first word of the next
    line, where a "{" would have been taken. Said at the end of the line that lacks it."""
    line = token.line + line_offset
    if found.span.line != line or found.span.column != token.column or "LBRACE" not in _acceptable(exc):
        return None
    lines = remembered_lines(file) or []
    if not 0 < line <= len(lines) or lines[line - 1][:token.column - 1].strip():
        return None  # (the word is not the first of its line)
    above = line - 1
    while above >= 1 and not _code_only(lines[above - 1]).strip():
        above -= 1
    if above < 1:
        return None
    code = _code_only(lines[above - 1]).rstrip()
    if code.endswith(("{", "}")):
        return None
    column = len(code) + 1
    return Diagnostic(_at(file, above, column),
                      'a "{" is missing at the end of this line', found.expected,
                      f"`{lines[line - 1].strip()[:40]}` on line {line} would then be the first statement of the block")


def _name_is_a_word(found: Diagnostic, file: str) -> Diagnostic | None:
    """The word just before the error is a word of the language that the file also gives as a name
    (`var move: int`, then `move = 1`): the hint says that the name is the trouble."""
    source = source_line(file, found.span.line) or ""
    word = _language_word_before(source[:max(found.span.column - 1, 0)])
    if word is None:
        return None
    declared = _declaration_of(file, word)
    if declared is None:
        return None
    kind, line = declared
    if line == found.span.line:  # (the declaration itself, which took the word as its name: the trouble is after it)
        return None
    hint = (f'"{word}" is a word of the language, so the {kind} named "{word}" (line {line}) cannot be written '
            f"here: give it another name")
    return Diagnostic(found.span, found.message, found.expected, hint)


_FIELD_LINE = re.compile(r"^\s*([a-z_]+)\s*$")


def _field_named_by_a_word(found: Diagnostic, file: str, token: Token) -> Diagnostic | None:
    """`discards: int = 0` in a block of fields: a name that is a word of the language, which the
    parser reads as the start of a statement, so the ":" after it is what it stops at."""
    if str(token) != ":" or found.span.column != token.column:
        return None
    source = source_line(file, found.span.line) or ""
    before = _FIELD_LINE.match(source[:max(found.span.column - 1, 0)])
    if before is None or before.group(1) not in _literal_patterns().values():
        return None
    word, start = before.group(1), before.start(1) + 1
    return Diagnostic(_at(file, found.span.line, start, len(word)),
                      f'"{word}" is a word of the language, so it cannot be the name of a field',
                      "a name that is not a word of the language",
                      f'give it another name, such as "{word}_count" or "my_{word}"')


def _language_word_before(text: str) -> str | None:
    """The word of the language that `text` ends with (spaces aside; not a field after a "."), or None."""
    before = re.search(r"(?:^|[^A-Za-z0-9_.])([a-z_]+)\s*$", text)
    return before.group(1) if before is not None and before.group(1) in _literal_patterns().values() else None


_DECLARED_AS = {"var": "variable", "let": "local value", "def": "def", "setting": "setting", "zone": "zone",
                "procedure": "procedure", "table": "table", "cards": "card set", "phase": "phase"}


def _declaration_of(file: str, word: str) -> tuple[str, int] | None:
    """Where the file gives `word` as a name (`var move: int`, `let not = ...`): the kind and line."""
    pattern = re.compile(r"^\s*(" + "|".join(_DECLARED_AS) + r")\s+" + re.escape(word) + r"\b")
    for number, text in enumerate(remembered_lines(file) or (), 1):
        found = pattern.match(text)
        if found is not None:
            return _DECLARED_AS[found.group(1)], number
    return None


_CHARACTER_HINTS = {"'": 'texts use double quotes: "like this"',
                    "#": "comments start with // and doc comments with ///",
                    "&": 'write "and"', "|": 'write "or"', "!": 'write "not" (and "!=" for "is not equal to")',
                    "?": "a value chosen by a condition is written `if CONDITION then A else B`"}


def _syntax_diagnostic_of(exc: UnexpectedInput, file: str, line_offset: int, text: str, last: bool = True) -> Diagnostic:
    line = (exc.line or 1) + line_offset
    column = exc.column or 1
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else "?"
        allowed = set(exc.allowed or ())
        if not _in_a_block(text, exc.line or 1, exc.column or 1):
            allowed.discard("RBRACE")
        expected = _expected_words(allowed) if allowed else None
        if ch == '"':
            return Diagnostic(Span(file=file, line=line, column=column),
                              'this text is never closed: its closing " is missing',
                              'a " before the end of the line')
        return Diagnostic(Span(file=file, line=line, column=column),
                          f'this character is not part of the language: "{ch}"', expected, _CHARACTER_HINTS.get(ch))
    token = getattr(exc, "token", None)
    expected_set = _acceptable(exc)
    if token is None or token.type == "$END":
        lines = text.splitlines() or [""]
        stop_line, stop_col = len(lines), len(lines[-1]) + 1
        found = "the end of the file" if last else "the end of the declaration"
    else:
        stop_line, stop_col = exc.line or 1, exc.column or 1
        found = _token_in_words(token)
    if not _in_a_block(text, stop_line, stop_col):
        expected_set.discard("RBRACE")
    # `=` where a comparison was due
    if token is not None and str(token) == "=" and "COMP_OP" in expected_set:
        return Diagnostic(_at(file, line, column), '"=" gives a value; to compare two values write "=="', '"=="')
    # an unclosed bracket: at the end of the file, where a new declaration starts, or where ")" was due
    top_words = KEYWORDS_AT_TOP.replace(" or ", ", ").split(", ")
    at_end = token is None or token.type == "$END"
    new_decl = at_end or (column == 1 and str(token) in top_words)
    first_on_line = not at_end and not text.splitlines()[stop_line - 1][:stop_col - 1].strip()
    if not new_decl and token.type != "NAME" and str(token) in top_words and str(token) not in ("at", "when", "player") \
            and first_on_line:
        # a declaration word starting its line (a keyword in a variant, indented) where the parser wants no
        # declaration: a block above it is still open
        new_decl = True
    if new_decl or expected_set & {"RPAR", "RSQB"}:
        diag = _bracket_diagnostic(text, file, line_offset, stop_line, stop_col, expected_set, found, new_decl)
        if diag is not None:
            return diag
    # `option` (or `effect`, `usable`...) read as its keyword, starting its line, where a statement is due: the
    # block of the option before it is still open
    if first_on_line and str(token) in _MEMBER_WORDS and token.type != "NAME":
        diag = _bracket_diagnostic(text, file, line_offset, stop_line, stop_col, expected_set, found, True,
                                   starts=f"a new {token}")
        if diag is not None:
            return diag
    if at_end:
        line, column = stop_line + line_offset, stop_col
        named = _named_message(exc)
        message = named[0] if named else ("the file ends in the middle of a declaration" if last
                                          else "this declaration stops before it is complete")
        return Diagnostic(Span(file=file, line=line, column=column), message,
                          named[1] if named else _expected_words(expected_set))
    span = _at(file, line, column, len(str(token)))
    # a misspelt keyword at the start of the statement: `mvoe c to discard`, on its own line or after
    # the "{" or ";" before it on the line (`take turns { mvoe c to discard }`)
    lines = text.splitlines()
    source = lines[stop_line - 1] if 0 < stop_line <= len(lines) else ""
    start = _statement_start(source, stop_col - 1)
    lead = re.match(r"(\s*)([A-Za-z_][A-Za-z0-9_]*)(?=\s|$)", source[start:])
    lead_at = start + len(lead.group(1)) if lead else 0  # where the statement's first word stands (0-based)
    word = lead.group(2) if lead else None
    if lead and lead_at < stop_col - 1 or (lead and token.type == "NAME" and lead_at == stop_col - 1):
        guess = did_you_mean(word, _LEADING_WORDS) if word not in _literal_patterns().values() else None
        if guess:
            return Diagnostic(_at(file, line, lead_at + 1, len(word)), f'"{word}" is not a keyword of the language',
                              _expected_words(expected_set, continuations=False), guess)
        # a word other games start a statement with, followed by a value (`deal 3 from deck ...`), and not
        # a keyword, procedure or def of this file
        other = _OTHER_WORDS.get(word)
        if other and re.match(r"\s+[\w\"(\[]", source[lead_at + len(word):]) \
                and not re.search(rf"^\s*(?:keyword|procedure|def)\s+{word}\b", text, re.M):
            return Diagnostic(_at(file, line, lead_at + 1, len(word)), f'"{word}" is not a keyword of the language',
                              _expected_words(expected_set, continuations=False), other)
    # `n++` and `n--`: no such operators
    step = re.match(r"(\s*)([A-Za-z_][\w.]*)\s*(\+\+|--)", source[start:])
    if step and start + step.end() >= stop_col - 1:
        name, op = step.group(2), step.group(3)
        return Diagnostic(_at(file, line, start + step.end() - 1, 2), f'there is no "{op}" in the language',
                          f'"{name} {op[0]}= 1"')
    # a keyword that belongs inside another construct: `option` outside `choose { }`
    # (only where the word was read as a name: inside its construct, `label of "..."` is wrong after the word)
    decl_starts, stmt_starts = _token_groups()
    read_as_name = bool(expected_set & {"RBRACE", "DOT", "EQUAL", "ASSIGN_OP", "LPAR"}) \
        or len(expected_set & stmt_starts) > 3
    if lead and any(_literal_patterns().get(t) == word for t in expected_set):
        read_as_name = False  # the construct takes that word here (`usable if` in a keyword, then a wrong word)
    if word in _MEMBER_WORDS and lead_at < stop_col - 1 and read_as_name:
        return Diagnostic(_at(file, line, lead_at + 1, len(word)), f'"{word}" cannot start a statement here',
                          _expected_words(expected_set, continuations=False), _MEMBER_WORDS[word])
    before = source[:stop_col - 1].rstrip()
    # a "}" with no block to close
    if token.type == "RBRACE" and not _in_a_block(text, stop_line, stop_col):
        return Diagnostic(span, 'this "}" closes no block', _expected_words(expected_set),
                          'remove it, or look for a "{" missing above')
    # `let x == 3`: "==" where one "=" gives a value
    if str(token) == "=" and before.endswith("=") and source[stop_col - 2:stop_col - 1] == "=":
        return Diagnostic(_at(file, line, column - 1, 2),
                          '"==" compares two values; to give a value write one "="', '"="')
    # `Card(rank = 1)`: a card's field is given with ":" (the parser's state is a var's, `var x = 3`)
    made = re.search(r"\b([A-Z]\w*)\((?:[^()]*,)?\s*(\w+)\s*$", before)
    if str(token) == "=" and made:
        return Diagnostic(span, f'a card\'s field is given its value with ":" (found "=")',
                          f'"{made.group(2)}: VALUE"', f"write `{made.group(1)}({made.group(2)}: ...)`")
    named = _named_message(exc)
    if named is None and expected_set == {"LBRACE"} and token.type != "LBRACE":
        named = ("a block in { ... } must come here", '"{"')
    message = f"{named[0]} (found {found})" if named else f"unexpected {found}"
    hint = None
    if token.type == "NAME":
        # a misspelt keyword: first among the words that could come here
        allowed = [lookup for n in expected_set if (lookup := _literal_patterns().get(n)) and lookup.isalpha()]
        hint = did_you_mean(str(token), allowed)
        # (not for a type's name, `cost int`: "into" is no better a guess than a ":" left out)
        # (nor where a "," may be missing between names: `{ red black }` is not "back" misspelt)
        if hint is None and source[stop_col - 1 + len(str(token)):][:1] not in ("(", ".") \
                and str(token) not in BASE_TYPES and "COMMA" not in expected_set:
            hint = did_you_mean(str(token), [v for v in _literal_patterns().values() if v.isalpha()])
    if str(token) == "if" and before.endswith("else"):
        hint = 'write "elif CONDITION { ... }" for "else if"'
    if hint is None and token.type in ("NAME", "INT", "STRING") and "COMMA" in expected_set:
        hint = 'is a "," missing before it?'
    hint = hint or _other_syntax_hint(token, expected_set, before)
    return Diagnostic(span, message, named[1] if named else _expected_words(expected_set), hint)


def _other_syntax_hint(token, expected: frozenset, before: str) -> str | None:
    """What another language's way of writing it becomes here: `if` in a list, `players 2-4`, cards
    separated by ",", a card's values without their fields' names, the round outside the game, a
    board's `size 3x3`, a setting's type."""
    if token.type == "IF" and "WHERE" in expected:
        return 'a list keeps the items that fit with "where": `[p in players where p.score > 1]`'
    if token.type == "MINUS" and re.search(r"\bplayers\s+\d+$", before):
        return 'a range of player counts is written with "..": `players 2..4`'
    if token.type == "COMMA" and {"STAR", "SEMICOLON"} <= expected:
        return 'cards are listed one a line, or with ";" between them'
    if token.type == "COMMA" and "SEMICOLON" in expected and "COMMA" not in expected:
        return 'write ";" between them, or one a line'
    if token.type in ("ROUND", "PLAYERS", "TURN") and "ZONE" in expected:
        return (f'`{token}` is written inside `game "Name" {{ ... }}` (a variant changes it by replacing the game: '
                '`replace game "Name" { ... }`)')
    size = re.search(r"\bsize\s+(\d+)$", before)
    if size and token.type == "NAME" and re.fullmatch(r"x\d+", str(token)):
        return f"write `size {size.group(1)} by {str(token)[1:]}`"
    if token.type == "VBAR" and "OR" in expected:  # `a || b`
        return 'write "or"'
    if expected == {"LBRACE"} and str(token) in ("then", ":", "do"):
        return {"then": "a statement's `if` takes a block: `if CONDITION { ... }` (`then` is for a value: "
                        "`if c then a else b`)",
                ":": 'a block is written in braces, not after ":": `{ ... }`',
                "do": "write the block straight after the condition: `while CONDITION { ... }`"}[str(token)]
    if str(token) == "match" and "GAME" in expected:
        return "the whole match ends with `end game`"
    if "ONCE" in expected and (token.type == "INT" or str(token) in ("twice", "thrice")):
        return "to go round the table more than once write `repeat 2 times { take turns once { ... } }`"
    if expected == {"TO"} and re.search(r"\b(draw|move)\b", before):  # `draw 2 from deck`: to where?
        verb = re.findall(r"\b(draw|move)\b", before)[-1]
        return ("say where the cards go: `draw 2 from deck to hand(current)`" if verb == "draw"
                else "say where it goes: `move c to ZONE`")
    if token.type == "LPAR" and re.search(r"\bfor$", before):
        return "write `for x in LIST { ... }`, without parentheses"
    if token.type == "TO" and re.search(r"\d\s*$", before):
        return 'a range of whole numbers is written with "..": `1..10`'
    if token.type == "EQUAL" and "COLON" in expected and re.search(r"\bplayer\s*\{[^}]*\b\w+\s*$", before):
        return "a player field names its type: `score: int = 0`"
    if token.type == "COLON" and re.search(r"\blet\s+\w+$", before):
        return "a local has the type of its value: `let x = 3`"
    if token.type == "COLON" and re.search(r"\bsetting\s+\w+$", before):
        return "a setting has the type of its value: `setting hand_size = 5`"
    made = re.search(r"([A-Z]\w*)\(\s*$", before)
    if token.type in ("INT", "STRING") and "NAME" in expected and made:
        return f"name the field each value is for: `{made.group(1)}(FIELD: {token})`"
    return None
