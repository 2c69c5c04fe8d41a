"""The rooms of rulelang/ (HACKING.md): each room imports only the rooms below it (the
import-linter contract in pyproject.toml, run here), no module imports itself back through others,
and rulelang/ itself holds only the package's public face."""
from __future__ import annotations

import ast
import subprocess
import sys
import tomllib

import networkx as nx

from conftest import REPO

PACKAGE = REPO / "rulelang"


def _contract() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    return layers


def test_each_room_imports_only_the_rooms_below_it():
    """`lint-imports`, on this checkout's rulelang (imports for type checkers only count too)."""
    run = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                          "sys.exit(lint_imports(no_cache=True, no_logo=True))"],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_room_is_in_the_contract():
    rooms = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert sorted(layer.split(".")[1] for layer in _contract()) == rooms


def _module_name(path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path) -> set[str]:
    """The rulelang modules a module imports, anywhere in it: in a function, or for type checkers only."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import (rulelang imports absolutely)"
            if (node.module or "").split(".")[0] == "rulelang":
                out.add(node.module)
                out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name.split(".")[0] == "rulelang")
    return out


def test_no_import_cycles():
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "_bundled" not in p.parts}
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for imported in _imports(path):
            if imported in modules and imported != name and not name.startswith(imported + "."):
                graph.add_edge(name, imported)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, cycles


def test_rulelang_itself_holds_only_its_face():
    """load, Game, Match, ... (`rulelang/__init__.py`) and `python -m rulelang`: the rest is in rooms."""
    flat = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(flat) <= 10, flat
