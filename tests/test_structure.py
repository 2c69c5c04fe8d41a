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


def _imported_at_run_time(name: str) -> set[str]:
    """imported_modules, leaving out what is imported only for type checkers (`if TYPE_CHECKING:`)."""
    tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_the_code_generator_s_parts_do_not_import_it_back():
    """codegen.py's Generator is made of the mixins of codegen_facts, _loops, _defs and _statements;
    codegen_helpers is what generated code calls. None imports codegen (no cycle), and the helpers,
    which run with every game, import no part of the generator."""
    parts = ["codegen_facts", "codegen_loops", "codegen_defs", "codegen_statements", "codegen_helpers"]
    for part in parts:
        assert "codegen" not in _imported_at_run_time(part), part
    assert not {m for m in _imported_at_run_time("codegen_helpers") if m.startswith("codegen")}
    assert set(parts) - {"codegen_helpers"} <= imported_modules("codegen")


def test_what_a_seat_sees_and_saves_are_below_the_runtime():
    """visibility.py (what each seat may see) and saves.py (copies, JSON saves) are used by the
    runtime and never use it: a view or a save cannot run rules."""
    for name in ("visibility", "saves"):
        assert not imported_modules(name) & {"runtime", "ops", "compiler", "codegen", "agents"}, name
    assert {"visibility", "saves"} <= imported_modules("runtime")


def test_the_checker_s_halves_do_not_import_it_back():
    """checker.py's Checker is made of check_expr's and check_stmt's checks, with check_types' words
    for types; none of them imports checker (a type named for type checkers aside)."""
    for part in ("check_expr", "check_stmt", "check_types"):
        assert "checker" not in _imported_at_run_time(part), part
    assert {"check_expr", "check_stmt", "check_types"} <= imported_modules("checker")
