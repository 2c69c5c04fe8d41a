"""Spans and diagnostics: every message points at a place in a .rules file.

A diagnostic prints as::

    games/x.rules:12:5: error: <plain words>
       12 |     mvoe c to desk
          |     ^
      expected: a statement such as `move`, `let` or `if`
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from rulelang.core.budgets import current_budgets


class Span(BaseModel):
    """Where a construct starts in its source file (1-based line and column)."""

    # the validation schema is built when a span is first made from values (parsing, an error), not
    # at import: checking a file whose AST comes from the cache makes none
    model_config = ConfigDict(frozen=True, defer_build=True)
    file: str = "<rules>"
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __init__(self, /, *, file: str = "<rules>", line: int = 0, column: int = 0, end_line: int = 0,
                 end_column: int = 0):
        # The parser and the checker make spans from a token's position (a text and whole numbers),
        # so the fields are filled in directly, as Node.__init__ does. pydantic's validation would
        # build the model's schema and load pydantic's plugins on the first span of every process
        # (about 20 ms of a `check` just after an edit).
        if type(line) is not int or type(column) is not int or type(end_line) is not int or type(end_column) is not int \
                or type(file) is not str:
            raise TypeError(f"a span is a file's name and whole numbers, not {(file, line, column, end_line, end_column)!r}")
        _fill_span(self, file, line, column, end_line, end_column)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def __reduce__(self):
        # pickled as its five values: every node of the AST cache has a span
        v = self.__dict__
        return span_of, (v["file"], v["line"], v["column"], v["end_line"], v["end_column"])


def span_of(file: str, line: int, column: int, end_line: int, end_column: int) -> Span:
    """A span of values known good (a text and whole numbers), without Span.__init__'s test of them:
    how the long decks' reader (fastcards) and the AST cache's unpickling make spans."""
    span = _new(Span)
    _fill_span(span, file, line, column, end_line, end_column)
    return span


def _fill_span(span, file: str, line: int, column: int, end_line: int, end_column: int) -> None:
    fill_model(span, {"file": file, "line": line, "column": column, "end_line": end_line, "end_column": end_column},
               _SPAN_FIELDS)


def fill_model(obj, values: dict, given: set) -> None:
    """A pydantic model's instance filled in directly with values known good, the fields given being
    `given`: no validation (spans here, AST nodes in nodes.py). The attributes set are those pydantic
    documents on BaseModel, set with object.__setattr__ as its own `model_construct` sets them
    (model_construct itself makes a new instance and is about four times slower)."""
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", given)
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)


_new = object.__new__
_set = object.__setattr__  # (a model's own __setattr__ would validate, and refuses to set a frozen span)
_SPAN_FIELDS = {"file", "line", "column", "end_line", "end_column"}  # shared by every span: a span is frozen


NO_SPAN = Span.model_construct()  # the defaults, without building the schema

_source_cache: dict[str, list[str] | str] = {}  # a file's lines, or its text until a line is asked for


def remember_source(file: str, text: str) -> None:
    """Keep a file's text so diagnostics and runtime errors can quote it (cut into lines when one is
    quoted: a file of millions of lines that has nothing to say is not cut at all)."""
    _source_cache[file] = text


def remembered_lines(file: str) -> list[str] | None:
    """The lines of a file whose text was remembered (remember_source), or None."""
    lines = _source_cache.get(file)
    if type(lines) is str:
        lines = _source_cache[file] = lines.splitlines()
    return lines


# What splitlines() cuts at besides "\n" and "\r\n" (and "\r" alone)
_OTHER_LINE_ENDS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _nth_line(text: str, n: int) -> str | None:
    """text.splitlines()[n - 1] of a text whose lines end in "\n" (or "\r\n"), without cutting it
    whole: where line n starts is found by halving, counting the "\n" before a point each time."""
    if n < 1 or text.count("\n") + (text[-1:] not in ("", "\n")) < n:
        return None
    low, high = 0, len(text)
    while low < high:  # the first point with n - 1 line ends before it
        middle = (low + high) // 2
        if text.count("\n", 0, middle) >= n - 1:
            high = middle
        else:
            low = middle + 1
    end = text.find("\n", low)
    line = text[low:end if end >= 0 else len(text)]
    return line[:-1] if line.endswith("\r") else line


def source_line(file: str, line: int) -> str | None:
    text = _source_cache.get(file)
    if (type(text) is str and len(text) > 1_000_000 and not any(end in text for end in _OTHER_LINE_ENDS)
            and ("\r" not in text or text.count("\r") == text.count("\r\n"))):
        return _nth_line(text, line)  # (a line of a file of millions: the others are not cut apart for it)
    lines = remembered_lines(file)
    if lines is None:
        try:
            # a folder, a pipe, a device (which may never end), a file larger than a rules file may be:
            # nothing to quote
            if not Path(file).is_file() or Path(file).stat().st_size > current_budgets().source_bytes:
                return None
            lines = Path(file).read_text(encoding="utf-8").splitlines()
        except (OSError, ValueError):  # (ValueError: not UTF-8, or a name with a NUL)
            return None
        _source_cache[file] = lines
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


QUOTED_LINE = 1000  # characters of a line a diagnostic quotes whole; of a longer one, those around the caret


@dataclass
class Diagnostic:
    span: Span
    message: str
    expected: str | None = None
    hint: str | None = None
    severity: str = "error"

    def format(self) -> str:
        out = [f"{self.span}: {self.severity}: {self.message}"]
        text = source_line(self.span.file, self.span.line)
        if text is not None:
            gutter = f"{self.span.line:>5} | "
            text = text.rstrip("\n")
            caret_at = max(self.span.column - 1, 0)
            if len(text) > QUOTED_LINE:  # a line of megabytes: quoted around the caret only
                start = max(min(caret_at, len(text)) - 60, 0)
                text = ("…" if start else "") + text[start:start + 200] + ("…" if start + 200 < len(text) else "")
                caret_at += (1 if start else 0) - start
            out.append(gutter + text)
            # keep tabs so the caret lines up under the same character
            pad = "".join(ch if ch == "\t" else " " for ch in text[:caret_at])
            width = 1
            if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                width = min(self.span.end_column - self.span.column, max(len(text) - caret_at, 1))
            out.append(" " * (len(gutter) - 2) + "| " + pad + "^" * width)
        if self.expected:
            out.append(f"  expected: {self.expected}")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.format()


class RulesError(Exception):
    """One or more diagnostics about a .rules file (syntax, checks or a rule failing at run time)."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.format() for d in diagnostics))

    def __reduce__(self):
        # made again from its diagnostics (its one argument), not from its text: an error raised in a
        # worker process of `simulate --jobs` reaches the parent whole
        return type(self), (self.diagnostics,)

    def format(self) -> str:
        return "\n\n".join(d.format() for d in self.diagnostics)


class RulesRuntimeError(RulesError):
    """A rule failed while a match was running (no options, a loop that never ends, ...)."""


@dataclass
class DiagnosticBag:
    """Collects every problem in a file so they are reported together."""

    items: list[Diagnostic] = field(default_factory=list)
    # how many problems were found, folded ones included (a caller asks "did that add an error?")
    reported: int = 0
    # fold key -> (the first diagnostic, its own hint, what is used again, the lines it is used again on)
    _folds: dict = field(default_factory=dict)

    def error(self, span: Span, message: str, expected: str | None = None, hint: str | None = None,
              fold: tuple[object, str] | None = None) -> None:
        """Add a problem. `fold` (a key, and words such as '"x" is used again') says the problem is the same wherever
        its thing is used, as a name that was never declared: it is reported once, at its first use,
        and the lines of the other uses are listed in its hint instead of repeating it at each."""
        for old in self.items:
            if old.span == span and old.message == message:
                return
        self.reported += 1
        folded = self._folds.get(fold[0]) if fold is not None else None
        if folded is not None:
            first, own_hint, what, lines = folded
            if span.line != first.span.line and span.line not in lines:
                lines.append(span.line)
                first.hint = _again_hint(own_hint, what, lines)
            return
        self.items.append(Diagnostic(span, message, expected, hint))
        if fold is not None:
            self._folds[fold[0]] = (self.items[-1], hint, fold[1], [])

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            self.items.sort(key=lambda d: (d.span.file, d.span.line, d.span.column))
            raise RulesError(list(self.items))


def _again_hint(own_hint: str | None, what: str, lines: list[int], shown: int = 8) -> str:
    lines = sorted(lines)
    words = ", ".join(str(n) for n in lines[:shown])
    if len(lines) > shown:
        words += f" and {len(lines) - shown} more"
    elif len(lines) > 1:
        words = ", ".join(str(n) for n in lines[:-1]) + f" and {lines[-1]}"
    again = f"{what} on line{'s' if len(lines) > 1 else ''} {words}"
    return f"{own_hint} ({again})" if own_hint else again


def reason_of(exc: BaseException) -> str:
    """Why a file could not be read or written, as words inside a sentence ("no such file or
    directory"): an OSError's own words, else the exception's text."""
    text = getattr(exc, "strerror", None) or str(exc)
    return text[:1].lower() + text[1:]


def did_you_mean(name: str, candidates) -> str | None:
    import difflib

    # (never the name itself: a built-in's name declared again is refused, then "not defined")
    close = difflib.get_close_matches(name, sorted(set(candidates) - {name}), n=1, cutoff=0.7)
    return f'did you mean "{close[0]}"?' if close else None
