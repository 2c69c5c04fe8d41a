"""The house rules of the code: a stage never imports a later one, and no import cycles between
the CLI and the docs (HACKING.md maps the stages)."""
from __future__ import annotations

import ast

from conftest import REPO

PACKAGE = REPO / "rulelang"


def imported_modules(name: str) -> set[str]:
    """Every rulelang module a module imports, at the top or inside a function."""
    tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rulelang."):
            out.add(node.module.split(".")[1])
    return out


def test_the_runtime_does_not_parse_or_check():
    # loading a file (parse, check, variants, compile) lives in rulelang.loader
    assert imported_modules("runtime") & {"parser", "checker", "variants"} == set()
    # it parses through the AST cache, which imports the parser (and Lark) only when a file must be parsed
    assert {"astcache", "checker", "variants", "compiler", "runtime"} <= imported_modules("loader")
    assert "parser" in imported_modules("astcache")


def test_docs_do_not_import_the_cli():
    assert "cli" not in imported_modules("docgen")


def test_load_is_found_where_it_always_was():
    import rulelang
    import rulelang.loader
    import rulelang.runtime

    assert rulelang.load is rulelang.loader.load
    assert rulelang.runtime.load is rulelang.loader.load
    from rulelang.runtime import load

    assert load is rulelang.loader.load
