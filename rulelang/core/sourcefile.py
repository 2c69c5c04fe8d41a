"""Reading a .rules file from disk: whatever is at the path, the answer is text or a diagnostic.

A designer may point rulelang at anything: a folder, a file they may not read, a picture, a
file saved in another encoding, an empty file. Each gets a `file:line:col` diagnostic in plain
words (a byte that is not UTF-8 is named by its line and column, and its byte offset), never a
Python exception. A file larger than the source-size budget is refused before it is parsed.
"""
from __future__ import annotations

import re
import stat
from pathlib import Path

from rulelang.core.budgets import current_budgets
from rulelang.core.errors import Diagnostic, RulesError, Span, remember_source

# Control characters that never appear in a text file (tab, newline, carriage return and form
# feed are fine). A file holding one is binary, or damaged.
_CONTROL = {chr(c) for c in range(32)} - {"\t", "\n", "\r", "\f"} | {"\x7f"}
_CONTROL_RE = re.compile("[" + "".join(sorted(_CONTROL)) + "]")
# every byte but those (in UTF-8 a control character is its one byte, which no other character holds)
_NOT_CONTROL_BYTES = bytes(b for b in range(256) if chr(b) not in _CONTROL)


def _error(path: str, line: int, column: int, message: str, expected: str | None = None,
           hint: str | None = None) -> RulesError:
    return RulesError(Diagnostic(Span(file=path, line=line, column=column, end_line=line, end_column=column + 1),
                                 message, expected, hint))


def _where(data: bytes, offset: int) -> tuple[int, int, str]:
    """Line, column (in characters) and the decoded text of that line, for a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    line_end = data.find(b"\n", offset)
    if line_end < 0:
        line_end = len(data)
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    shown = data[line_start:line_end].decode("utf-8", errors="replace").rstrip("\r")
    return line, column, shown


def printable_line(text: str) -> str:
    """A line as a diagnostic may show it: one U+FFFD for each control character (columns stay put)."""
    return "".join("\ufffd" if ch in _CONTROL else ch for ch in text)


def read_source(path: str | Path) -> str:
    """The text of a .rules file, or a RulesError that says why it cannot be read."""
    name = str(path)
    p = Path(path)
    limit = current_budgets().source_bytes
    try:
        if p.is_dir():
            raise _error(name, 1, 1, "this is a folder, not a rules file", expected="a .rules file (a text file)",
                         hint=f"name a file inside it, e.g. {name.rstrip('/')}/GAME.rules")
        info = p.stat()
        if not stat.S_ISREG(info.st_mode):
            # a device such as /dev/zero never ends, a pipe waits for a writer: neither is read
            raise _error(name, 1, 1, "this is not a file of text but a device, a pipe or a socket",
                         expected="a .rules file (a text file)")
        if info.st_size > limit:
            raise _too_big(name, f"the file is {info.st_size:,} bytes", info.st_size, limit, p)
        with p.open("rb") as f:
            data = f.read(limit + 1)  # (a file that grew since: no more than the budget is read)
        if len(data) > limit:
            raise _too_big(name, f"the file is more than {limit:,} bytes", limit + 1, limit, p)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise _error(name, 1, 1, f"cannot read the file: {reason}")
    if data.startswith(b"\xef\xbb\xbf"):  # a byte order mark some editors write: not part of the text
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if _CONTROL_RE.search(data[:exc.start].decode("utf-8")):
            _control_character(name, data, data[:exc.start].decode("utf-8"))
        line, column, shown = _where(data, exc.start)
        remember_source(name, "\n" * (line - 1) + printable_line(shown))
        raise _error(name, line, column,
                     f"byte 0x{data[exc.start]:02x} at byte offset {exc.start} is not UTF-8 text: "
                     f"this file is binary or saved in another encoding",
                     expected="a text file in UTF-8", hint="save the file as UTF-8 text") from None
    _control_character(name, data, text)
    if not text.strip():
        remember_source(name, text)
        raise _error(name, 1, 1, "the file is empty", expected='a game: `game "Name" { players 2..4 }`, then its '
                     "zones, components, phases and rules")
    return text


def check_file_size(path: str | Path) -> None:
    """A file read as rules another way (a scenario written as JSON) is held to the source_bytes budget
    too: a RulesError if it is larger (else nothing; a file that is not there is the reader's to say)."""
    limit = current_budgets().source_bytes
    try:
        info = Path(path).stat()
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_size > limit:
        raise _too_big(str(path), f"the file is {info.st_size:,} bytes", info.st_size, limit, Path(path))


def check_text_size(text: str, name: str) -> None:
    """A rules text given whole rather than read from a file (`rulelang.load(text=...)`, an editor's
    buffer) is held to the source_bytes budget as a file is: a RulesError if it is larger."""
    limit = current_budgets().source_bytes
    if len(text) <= limit // 4:  # (a character is at most 4 bytes of UTF-8)
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise _too_big(name, f"the text is {size:,} bytes", size, limit, text[:4096])


def _too_big(name: str, words: str, size: int, limit: int, first: Path | str) -> RulesError:
    """The source_bytes diagnostic, quoting the file's first line (read alone, not the whole file)."""
    if isinstance(first, Path):
        try:
            with open(first, "rb") as f:
                first = f.read(4096).split(b"\n", 1)[0].decode("utf-8", errors="replace")
        except OSError:
            first = ""
    remember_source(name, printable_line(first.split("\n", 1)[0]))
    return _error(name, 1, 1, f"{words}, more than the {limit:,} bytes a rules file may have (budget source_bytes)",
                  hint=f"raise it with --budget source_bytes={size} (Python: budgets={{'source_bytes': {size}}})")


def _control_character(name: str, data: bytes, text: str) -> None:
    """Raise at the first control character of the text, if any (a binary or damaged file)."""
    if not data.translate(None, _NOT_CONTROL_BYTES):  # none at all: said at once, for megabytes too
        return
    bad = _CONTROL_RE.search(text)
    if bad is None:
        return
    i, ch = bad.start(), bad.group()
    offset = len(text[:i].encode("utf-8"))
    line, column, shown = _where(data, offset)
    remember_source(name, "\n" * (line - 1) + printable_line(shown))
    raise _error(name, line, column,
                 f"control character 0x{ord(ch):02x} at byte offset {offset}: this is not a text file",
                 expected="a text file in UTF-8 (letters, digits, spaces, tabs and newlines)",
                 hint="a .rules file is plain text; check that this is the file you meant")


class NotAJsonObject(ValueError):
    """A file that should hold a JSON object (a replay, a save, a position) and does not; its text is
    the reason, in words that follow "it": "it is not JSON: ...", "it holds no JSON object"."""


def read_json_object(path: str | Path) -> dict:
    """The JSON object a file holds, or NotAJsonObject saying why not (a pipe or a device is refused
    without being read: one waits for a writer, the other never ends). A missing file is the OSError."""
    import json

    p = Path(path)
    if p.exists() and not p.is_file():
        raise NotAJsonObject("it is not a file of text")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise NotAJsonObject("it is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise NotAJsonObject(f"it is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise NotAJsonObject("its JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise NotAJsonObject("it holds no JSON object")
    return data
