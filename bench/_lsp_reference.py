"""What the language server serves for a set of files after a sequence of edits, as one text.

Run it before and after a change to `rulelang/tools/lsp.py` or the AST cache, and compare the two
outputs: they must be identical (the diagnostics, spans, symbols, hovers, definitions and completions
of every version). Every version is analysed in one process, as the server does, so that whatever is
kept from one edit to the next is exercised.

    PYTHONPATH=$PWD python bench/_lsp_reference.py > /tmp/before.txt
    (change the code)
    PYTHONPATH=$PWD python bench/_lsp_reference.py > /tmp/after.txt && cmp /tmp/before.txt /tmp/after.txt

`--quick` looks at the seed games and a few bad files only.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path

os.environ["RULELANG_CACHE_DIR"] = tempfile.mkdtemp()  # (starts empty: every run does the same work)

from rulelang.tools.lsp import Analysis  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def versions(text: str):
    """The text as opened, then after a few edits of the kinds a person makes while typing."""
    lines = text.split("\n")
    n = len(lines)
    yield "as opened", text
    yield "a comment line added near the top", "\n".join(lines[:3] + ["// a note"] + lines[3:])
    at = n // 2
    yield "a blank line added in the middle", "\n".join(lines[:at] + [""] + lines[at:])
    yield "a line removed in the middle", "\n".join(lines[:at] + lines[at + 1:])
    yield "a word typed half-way (a syntax error)", "\n".join(lines[:at] + ["  zzz ("] + lines[at:])
    yield "the syntax error fixed", "\n".join(lines[:at] + [""] + lines[at:])
    yield "an unknown name used at the end", text + "\ndef broken_name() { return no_such_name }\n"
    yield "two lines swapped", "\n".join(lines[:at] + lines[at + 1:at + 2] + lines[at:at + 1] + lines[at + 2:])
    yield "back as opened", text


def dump(a: Analysis, out: list[str]) -> None:
    for d in a.diagnostics:
        out.append(f"  diag {d.severity} {d.span.file}:{d.span.line}:{d.span.column}-{d.span.end_line}:"
                   f"{d.span.end_column} {d.message!r} expected={d.expected!r} hint={d.hint!r}")
    if a.rules is not None:
        ast = hashlib.sha256(repr(a.rules.model_dump()).encode()).hexdigest()[:16]
        out.append(f"  ast {ast}")
    for s in a.all_symbols():
        out.append(f"  sym {s.kind} {s.name} {s.span} whole={s.whole} {s.detail!r} doc={s.doc!r}")
    for i in range(0, len(a.lines), 11):
        for m in re.finditer(r"[A-Za-z_]\w*", a.lines[i]):
            h, d = a.hover(i, m.start()), a.definition(i, m.start())
            if h is not None or d is not None:
                out.append(f"  at {i}:{m.start()} hover={h!r} definition={d}")
    out.append(f"  completions {hashlib.sha256(repr(a.completions()).encode()).hexdigest()[:16]}"
               f" fields {hashlib.sha256(repr(a.field_completions()).encode()).hexdigest()[:16]}")


def main() -> int:
    files = sorted((ROOT / "games").glob("*.rules"))
    bad = sorted((ROOT / "tests" / "bad").glob("*.rules"))
    if "--quick" in sys.argv:
        files += bad[::20]
    else:
        files += sorted((ROOT / "examples").glob("*.rules")) + bad[::4]
    out: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for what, version in versions(text):
            out.append(f"{path.relative_to(ROOT)}: {what}")
            dump(Analysis(version, str(path.relative_to(ROOT))), out)
        print("\n".join(out), flush=True)
        out.clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
