"""Golden test: every file in tests/bad/ gets exactly its expected diagnostics.

Each ``tests/bad/NAME.rules`` holds one mistake (or several, reported together),
and ``tests/bad/NAME.expected`` the exact text ``rulelang check tests/bad/NAME.rules``
prints on stderr when run from the repository root.

To regenerate the expected files after improving a message, run::

    UPDATE_GOLDEN=1 python -m pytest tests/test_bad_files.py

and read the diff before committing it.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys

from pathlib import Path
from unittest import mock

import pytest

from conftest import REPO, assert_plain_words
from rulelang.cli.main import main
from rulelang.core.sourcefile import printable_line

BAD = REPO / "tests" / "bad"
FILES = sorted(BAD.glob("*.rules"))
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
HEADER = re.compile(r"^(tests/bad/[\w.]+\.rules):(\d+):(\d+): error: \S.*$")


# Files that are not readable rules text (tests/bad/file_*): a folder, binary junk, another
# encoding, an empty file... `file_unreadable.rules` is made unreadable for the test (the suite
# runs as root in CI, where permissions do not stop a read), by refusing the read as the OS would.
UNREADABLE = "file_unreadable"


def run_check(rel: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if Path(rel).stem == UNREADABLE:
            real_bytes, real_text, real_open = Path.read_bytes, Path.read_text, Path.open

            def refuse(real):
                def read(self, *args, **kwargs):
                    if self.name == f"{UNREADABLE}.rules":
                        raise PermissionError(13, "Permission denied", str(self))
                    return real(self, *args, **kwargs)
                return read

            with mock.patch.object(Path, "read_bytes", refuse(real_bytes)), \
                    mock.patch.object(Path, "read_text", refuse(real_text)), \
                    mock.patch.object(Path, "open", refuse(real_open)):
                code = main(["check", rel])
        else:
            code = main(["check", rel])
    return code, out.getvalue(), err.getvalue()


def source_lines(path: Path) -> list[str]:
    """The file's lines as diagnostics show them (bytes that are not UTF-8, or control characters, as U+FFFD)."""
    if path.is_dir():
        return []
    return printable_line(path.read_bytes().decode("utf-8", errors="replace")).splitlines()


def test_there_are_enough_bad_files():
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_bad_file(path, repo_cwd):
    rel = path.relative_to(REPO).as_posix()
    code, out, err = run_check(rel)
    assert code == 1, f"rulelang check {rel} should fail"
    assert out == ""
    expected_file = path.with_suffix(".expected")
    if UPDATE or not expected_file.exists():
        expected_file.write_text(err, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"wrote the missing {expected_file.name}: read it, then run again")
    assert err == expected_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_bad_file_diagnostics_are_plain(path):
    """Every diagnostic: `path:line:col: error: words`, the source line, a caret; no parser internals."""
    text = path.with_suffix(".expected").read_text(encoding="utf-8")
    assert_plain_words(text)
    rel = path.relative_to(REPO).as_posix()
    blocks = text.rstrip("\n").split("\n\n")
    *diagnostics, last = blocks
    diagnostics.append("\n".join(last.splitlines()[:-1]))
    count = int(re.fullmatch(rf"{re.escape(rel)}: (\d+) errors?", last.splitlines()[-1]).group(1))
    assert count == len(diagnostics)
    for block in diagnostics:
        lines = block.splitlines()
        m = HEADER.match(lines[0])
        assert m, f"not a diagnostic header: {lines[0]!r}"
        assert m.group(1) == rel
        line, col = int(m.group(2)), int(m.group(3))
        source = source_lines(path)
        if path.stem == UNREADABLE or line > len(source):  # nothing to quote: a folder, an empty file
            assert line == 1 and col == 1
            for extra in lines[1:]:
                assert extra.startswith(("  expected: ", "  hint: ")), extra
            continue
        assert lines[1] == f"{line:>5} | {source[line - 1]}"
        assert lines[2].startswith("      | ")
        caret = lines[2][len("      | "):]
        assert caret.strip() and set(caret.strip()) == {"^"}
        assert len(caret) - len(caret.lstrip()) == col - 1, "the caret is not under the column"
        for extra in lines[3:]:
            assert extra.startswith(("  expected: ", "  hint: ")), extra


@pytest.mark.parametrize("name", ["syntax_several_errors", "check_several_errors"])
def test_several_errors_are_reported_together(name):
    text = (BAD / f"{name}.expected").read_text(encoding="utf-8")
    assert len(re.findall(r": error: ", text)) >= 3


def test_expected_files_match_rules_files():
    stems = {p.stem for p in FILES}
    orphans = [p.name for p in BAD.glob("*.expected") if p.stem not in stems]
    assert not orphans, f"expected files without a .rules file: {orphans}"


def test_command_line_prints_the_same(repo_cwd):
    """The in-process run above prints what the real `rulelang check` command prints."""
    for name in ("syntax_unclosed_brace", "check_undefined_name"):
        rel = f"tests/bad/{name}.rules"
        proc = subprocess.run([sys.executable, "-m", "rulelang.cli.main", "check", rel], cwd=REPO,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1
        assert proc.stdout == ""
        assert proc.stderr == (BAD / f"{name}.expected").read_text(encoding="utf-8")
