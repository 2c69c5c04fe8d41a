"""The house rules of the code: a stage never imports a later one, and no import cycles between
the CLI and the docs (HACKING.md maps the stages)."""
from __future__ import annotations

import ast

from conftest import REPO

PACKAGE = REPO / "rulelang"


def _module_file(name: str):
    """rulelang/ROOM/MODULE.py of "ROOM.MODULE"."""
    return PACKAGE.joinpath(*name.split(".")).with_suffix(".py")


def _rulelang_imports(tree) -> set[str]:
    """The rulelang modules (ROOM.MODULE) the import statements of a tree name."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("rulelang."):
            parts = node.module.split(".")
            if len(parts) == 2:  # from rulelang.ROOM import MODULE
                out.update(f"{parts[1]}.{alias.name}" for alias in node.names)
            else:
                out.add(".".join(parts[1:3]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "rulelang" and len(parts) >= 3:
                    out.add(".".join(parts[1:3]))
    return out


def imported_modules(name: str) -> set[str]:
    """Every rulelang module (ROOM.MODULE) a module imports, at the top or inside a function."""
    return _rulelang_imports(ast.parse(_module_file(name).read_text(encoding="utf-8")))


def test_the_runtime_does_not_parse_or_check():
    # loading a file (parse, check, variants, compile) lives in rulelang.compile.loader
    assert imported_modules("engine.runtime") & {"language.parser", "check.checker", "language.variants"} == set()
    # it parses through the AST cache, which imports the parser (and Lark) only when a file must be parsed
    assert {"language.astcache", "check.checker", "language.variants", "compile.compiler",
            "engine.runtime"} <= imported_modules("compile.loader")
    assert "language.parser" in imported_modules("language.astcache")


def test_docs_do_not_import_the_cli():
    assert "cli.main" not in imported_modules("tools.docgen")


def test_load_is_found_where_it_always_was():
    import rulelang
    import rulelang.compile.loader

    assert rulelang.load is rulelang.compile.loader.load


def _imported_at_run_time(name: str) -> set[str]:
    """imported_modules, leaving out what is imported only for type checkers (`if TYPE_CHECKING:`)."""
    tree = ast.parse(_module_file(name).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    return _rulelang_imports(tree)


def test_the_code_generator_s_parts_do_not_import_it_back():
    """codegen.py's Generator is made of the mixins of codegen_facts, _loops, _defs and _statements;
    codegen_helpers is what generated code calls. None imports codegen (no cycle), and the helpers,
    which run with every game, import no part of the generator."""
    parts = ["compile.codegen_facts", "compile.codegen_loops", "compile.codegen_defs", "compile.codegen_statements",
             "compile.codegen_helpers"]
    for part in parts:
        assert "compile.codegen" not in _imported_at_run_time(part), part
    assert not {m for m in _imported_at_run_time("compile.codegen_helpers") if m.startswith("compile.codegen")}
    assert set(parts) - {"compile.codegen_helpers"} <= imported_modules("compile.codegen")


def test_what_a_seat_sees_and_saves_are_below_the_runtime():
    """visibility.py (what each seat may see) and saves.py (copies, JSON saves) are used by the
    runtime and never use it: a view or a save cannot run rules."""
    for name in ("engine.visibility", "engine.saves"):
        assert not imported_modules(name) & {"engine.runtime", "engine.ops", "compile.compiler", "compile.codegen",
                                             "bots.agents"}, name
    assert {"engine.visibility", "engine.saves"} <= imported_modules("engine.runtime")


def test_the_checker_s_halves_do_not_import_it_back():
    """checker.py's Checker is made of check_expr's and check_stmt's checks, with check_types' words
    for types; none of them imports checker (a type named for type checkers aside)."""
    for part in ("check.expressions", "check.statements", "check.types"):
        assert "check.checker" not in _imported_at_run_time(part), part
    assert {"check.expressions", "check.statements", "check.types"} <= imported_modules("check.checker")
