"""Parsing: .rules text -> pydantic AST (``nodes``), with plain-words syntax errors.

The entry points (`parse_text`, `parse_file`, `parse_declarations`). A text is read by Lark's parser
(lark_parser.py: the parser, and what it refuses as it reads) into Lark's tree, which `ToAst`
(ast_builder.py) makes into the AST. Long `cards` blocks are read
aside (fastcards.py) and put back after.

Syntax errors never show Lark's token reprs: ``syntax_errors.py`` says each in words (imported
only when a text does not parse). To report every syntax error in a file at once, a file that
fails to parse is split into its top-level declarations, and each one is parsed on its own.
"""
from __future__ import annotations

import gc
from collections.abc import Collection
from pathlib import Path

from lark.exceptions import UnexpectedInput

from rulelang.core.errors import Diagnostic, RulesError, Span, remember_source
from rulelang.language import nodes as N
from rulelang.language.ast_builder import ToAst
from rulelang.language.chunks import header_doc, split_top_level
from rulelang.language.fastcards import restore_card_blocks, split_card_blocks
from rulelang.language.lark_parser import (MAX_NESTING, _lark, _OverBudget, _refuse_long_lists,
                                           _refuse_too_many_tokens, _SyntaxProblem, _too_deep, watching)


def _in_file(span: Span, file: str, offset: int) -> Span:
    """A span made outside the transformer (a text's escapes) knows neither its file nor its chunk."""
    if span.file != "<rules>":
        return span
    return span.model_copy(update={"file": file, "line": span.line + offset, "end_line": span.line + offset,
                                   "end_column": span.column + 1})


def _parse_chunk(text: str, file: str, offset: int) -> list[N.AnyDecl]:
    _refuse_long_lists(text)
    with watching():  # (the memory_mb budget, looked at as Lark reads)
        tree = _lark().parse(text)
    deep = _too_deep(tree)
    if deep is not None:
        meta = deep.meta
        line, column = (meta.line, meta.column) if not getattr(meta, "empty", True) else (1, 1)
        raise _SyntaxProblem(Span(line=line, column=column),
                             f"this is nested too deeply (more than {MAX_NESTING} levels of expressions inside "
                             "expressions or blocks inside blocks); give a part of it a name with `let` or a `def`")
    return ToAst(file, offset).transform(tree)


def parse_text(text: str, file: str = "<rules>", parse_alone: Collection[str] = ()) -> N.RulesFile:
    """Parse a whole file; raise RulesError listing every syntax error found. `parse_alone`: texts of
    top-level chunks known to parse on their own (the AST cache's, parsed under the same budgets):
    when the file does not parse, those chunks are not parsed again to look for errors (they have
    none; the declarations of the others are not kept either)."""
    remember_source(file, text)
    fast_text, fast_cards = split_card_blocks(text, file)  # long decks read line by line (fastcards.py)
    try:
        _refuse_too_many_tokens(fast_text)
        decls = _parse_chunk(fast_text, file, 0)
        restore_card_blocks(decls, fast_cards)
    except (UnexpectedInput, _SyntaxProblem) as problem:
        if isinstance(problem, _OverBudget) and problem.whole:  # (not parsed again, declaration by declaration)
            raise RulesError(_diagnostic(problem, file, 0, text)) from None
        diagnostics: list[Diagnostic] = []
        chunks = split_top_level(text)
        for i, (offset, chunk) in enumerate(chunks):
            if chunk in parse_alone:
                continue
            try:
                _parse_chunk(chunk, file, offset)
            except (UnexpectedInput, _SyntaxProblem) as exc:
                diagnostics.append(_diagnostic(exc, file, offset, chunk, last=i == len(chunks) - 1))
                if isinstance(exc, _OverBudget) and exc.whole:
                    break
        if not diagnostics:  # splitting changed the meaning; report the whole-file error
            try:
                _parse_chunk(text, file, 0)
            except (UnexpectedInput, _SyntaxProblem) as exc:
                diagnostics.append(_diagnostic(exc, file, 0, text))
        raise RulesError(diagnostics) from None
    return N.RulesFile(span=Span(file=file, line=1, column=1), path=file, decls=decls, header_doc=header_doc(text))


def _diagnostic(problem: UnexpectedInput | _SyntaxProblem, file: str, offset: int, text: str,
                last: bool = True) -> Diagnostic:
    """What went wrong in `text` (lines from `offset` in `file`) in plain words."""
    if isinstance(problem, UnexpectedInput):
        from rulelang.language.syntax_errors import syntax_diagnostic  # (only a text that does not parse needs it)

        return syntax_diagnostic(_lark(), problem, file, offset, text, last)
    return Diagnostic(_in_file(problem.span, file, offset), problem.message, hint=problem.hint)


# ------------------------------------------------------------------ parsing declaration by declaration
# A file can be parsed as its top-level chunks (`chunks.split_top_level`), each on its own, so that an edit
# re-parses only the declarations it touched (astcache keeps the others). When every chunk parses
# alone, the chunks' declarations are exactly the whole file's, because of a property of the grammar
# that tests/test_parser.py checks on the parse table (in every state where the text could end, a
# token that opens a declaration acts as the end of the text does, or opens a new declaration: no
# declaration can run on into the next chunk); when one does not, the caller parses the whole
# file, which reports the errors as always.


def parse_declarations(chunks: list[tuple[int, str]], file: str, parse_alone: set[str]) -> list[list] | None:
    """The declarations of each chunk (its first line, its text), spans in the whole file; None when one
    does not parse alone (`parse_alone` gets the texts of those before it, which do). Their words and
    symbols are held together to the source_tokens budget before any is parsed, as a whole file's are."""
    counted = 0
    for offset, chunk in chunks:
        try:
            counted = _refuse_too_many_tokens(chunk, counted)
        except _OverBudget as over:
            raise RulesError(_diagnostic(over, file, offset, chunk)) from None
    parsed = []
    for offset, chunk in chunks:
        try:
            parsed.append(_parse_chunk(chunk, file, offset))
        except (UnexpectedInput, _SyntaxProblem):
            return None
        parse_alone.add(chunk)
    return parsed


def parse_file(path: str | Path, text: str | None = None) -> N.RulesFile:
    """Parse a file; anything that is not a readable UTF-8 text file gets a `file:line:col` diagnostic.
    (`text`: the file's text, read already by `sourcefile.read_source`.)"""
    from rulelang.core.sourcefile import read_source

    if text is None:
        text = read_source(path)
    # A big file makes a big AST at once: Python's cycle collector would scan it again and
    # again while it grows (most of the time of a 50,000-card file); nodes hold no cycles.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return parse_text(text, str(path))
    finally:
        if was_enabled:
            if len(text) > 1_000_000:
                gc.freeze()  # and keep the collector from scanning the new AST again later
            gc.enable()
