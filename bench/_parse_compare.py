"""Do two versions of the parser read every .rules file of the repository alike?

Not a reference for `rulelang bench` (the leading `_`). Run it once in each checkout to compare
(each with its own code on PYTHONPATH), then compare the two dumps:

    PYTHONPATH=/path/to/old python bench/_parse_compare.py dump /tmp/old.json
    PYTHONPATH=/path/to/new python bench/_parse_compare.py dump /tmp/new.json
    python bench/_parse_compare.py compare /tmp/old.json /tmp/new.json

For each file listed by `git ls-files '*.rules'` (run from the checkout's top folder) the dump holds
a digest of what `parse_text` gives (the AST's `model_dump()`, spans included, or the formatted
errors) and of what `parse_declarations` gives for each of its top-level chunks (the AST cache's
way of parsing). `compare` names the files whose digests differ and exits 1 if any does.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys


def dump(out: str) -> None:
    from rulelang.core.errors import RulesError
    from rulelang.language.chunks import declaration_chunks
    from rulelang.language.parser import parse_declarations, parse_text

    files = sorted(subprocess.run(["git", "ls-files", "*.rules"], capture_output=True, text=True,
                                  check=True).stdout.split())
    digests: dict[str, dict] = {}
    for name in files:
        with open(name, encoding="utf-8", errors="replace") as f:
            text = f.read()
        try:
            whole = ("ok", parse_text(text, name).model_dump(mode="json"))
        except RulesError as exc:
            whole = ("errors", exc.format())
        chunks, _cards = declaration_chunks(text, name)
        alone = []
        for offset, chunk in chunks:
            decls = parse_declarations(chunk, name, offset)
            alone.append(None if decls is None else [d.model_dump(mode="json") for d in decls])
        digests[name] = {"kind": whole[0],
                         "whole": hashlib.sha256(json.dumps(whole, sort_keys=True, default=str).encode()).hexdigest(),
                         "chunks": hashlib.sha256(json.dumps(alone, sort_keys=True, default=str).encode()).hexdigest()}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(digests, f, indent=1, sort_keys=True)
    errors = sum(1 for d in digests.values() if d["kind"] == "errors")
    print(f"{len(digests)} files ({errors} with errors) -> {out}")


def compare(old_path: str, new_path: str) -> int:
    with open(old_path, encoding="utf-8") as f:
        old = json.load(f)
    with open(new_path, encoding="utf-8") as f:
        new = json.load(f)
    differ = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    for name in differ:
        a, b = old.get(name), new.get(name)
        what = ("only in one" if a is None or b is None else
                ", ".join(k for k in ("kind", "whole", "chunks") if a[k] != b[k]))
        print(f"  {name}: {what}")
    print(f"{len(old.keys() | new.keys())} files, {len(differ)} read differently")
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
