"""`rulelang lsp` driven by a language-server client (pygls's), over stdio, with broken and fixed files."""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

from rulelang.tools.lsp import Analysis, after_dot, builtin_help

ROOT = Path(__file__).resolve().parent.parent
TICTACTOE = (ROOT / "examples/tictactoe.rules").read_text(encoding="utf-8")
BROKEN = TICTACTOE.replace("move top(supply(current)) to grid at cell", "move top(suply(current)) to grid at cell")


def line_of(text: str, needle: str) -> tuple[int, int]:
    for i, line in enumerate(text.splitlines()):
        if needle in line:
            return i, line.index(needle)
    raise AssertionError(needle)


def test_hover_tells_built_in_values_keywords_and_the_special_functions():
    a = Analysis(TICTACTOE, "tictactoe.rules")
    line, col = line_of(TICTACTOE, "has_line(current)")
    assert a.hover(line, col + len("has_line(") + 1).endswith("Built-in value: the player whose turn it is")
    line, col = line_of(TICTACTOE, "move top(supply(current))")
    assert a.hover(line, col + 1) == "`move`: a keyword of the language (see the language reference)"
    assert builtin_help("has") == ("```rules\nhas(...)\n```\n\n"
                                   "Built-in function: true when a card carries a keyword: has(card, flying)")
    assert builtin_help("no_such_word") is None


def test_the_analysis_knows_names_docs_and_builtins():
    a = Analysis(TICTACTOE, "tictactoe.rules")
    assert a.diagnostics == []
    line, col = line_of(TICTACTOE, "has_line(current)")
    assert "def has_line(p)" in a.hover(line, col + 2)
    assert a.definition(line, col + 2).line == line_of(TICTACTOE, "def has_line")[0] + 1
    line, col = line_of(TICTACTOE, "empty(free_cells)")
    assert "Built-in function" in a.hover(line, col + 1)
    line, col = line_of(TICTACTOE, "zone grid")
    assert "3 by 3 cells" in a.hover(line, col + 6)  # the zone's doc comment
    names = {label for label, _, _ in a.completions()}
    assert {"free_cells", "cross", "Piece", "neighbors", "players", "choose", "move"} <= names
    # local names: a choice's binding and a def's parameter
    line, col = line_of(TICTACTOE, "to grid at cell")
    target = a.definition(line, col + len("to grid at "))
    assert (target.line - 1, target.column - 1) == (line_of(TICTACTOE, "choose cell")[0],
                                                    line_of(TICTACTOE, "choose cell")[1] + len("choose "))
    line, col = line_of(TICTACTOE, "dx * i")
    target = a.definition(line, col)
    def_line, def_col = line_of(TICTACTOE, "def line_through(cell, dx")
    assert (target.line - 1, target.column - 1) == (def_line, def_col + len("def line_through(cell, "))
    line, col = line_of(TICTACTOE, "where all(c in line where")
    target = a.definition(line, col + len("where all(c in line where owns(p, ") + 1)
    assert target.line - 1 == line and TICTACTOE.splitlines()[line][target.column - 1] == "c"
    line, col = line_of(TICTACTOE, "to grid at cell")
    assert "local name, bound at line" in a.hover(line, col + len("to grid at "))
    fields = {label for label, _, _ in a.field_completions()}
    assert {"mark", "owner", "face_down"} <= fields and "choose" not in fields
    assert after_dot("  x = card.ma", 13) and after_dot("card.", 5) and not after_dot("count(x)", 5)
    kinds = {s.name: s.kind for s in a.symbols}
    assert kinds["Mark"] == "enum" and kinds["grid"] == "zone" and kinds["play"] == "phase"
    assert [c.name for c in a.symbols if c.name == "Mark"][0] == "Mark"


async def session(tmp_path: Path) -> dict:
    client = LanguageClient("rulelang-test", "1")
    published: list = []
    arrived = asyncio.Event()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: T.PublishDiagnosticsParams):
        published.append(params)
        arrived.set()

    async def next_diagnostics(timeout=30.0):
        await asyncio.wait_for(arrived.wait(), timeout)
        arrived.clear()
        return published[-1]

    await client.start_io(sys.executable, "-m", "rulelang", "lsp")
    out: dict = {}
    try:
        await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                         root_uri=tmp_path.as_uri()))
        client.initialized(T.InitializedParams())
        uri = (tmp_path / "tictactoe.rules").as_uri()
        client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
            uri=uri, language_id="rules", version=1, text=BROKEN)))
        out["broken"] = await next_diagnostics()

        # typed quickly: only the last version is checked (debounced), and it is clean
        for version, text in ((2, BROKEN.replace("suply", "supp")), (3, TICTACTOE)):
            client.text_document_did_change(T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
        started = time.perf_counter()
        out["fixed"] = await next_diagnostics()
        out["fixed_after"] = time.perf_counter() - started
        out["published"] = len(published)

        line, col = line_of(TICTACTOE, "has_line(current)")
        doc = T.TextDocumentIdentifier(uri=uri)
        out["hover"] = await client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=T.Position(line=line, character=col + 1)))
        out["builtin"] = await client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=T.Position(line=line_of(TICTACTOE, "empty(free")[0],
                                                   character=line_of(TICTACTOE, "empty(free")[1] + 1)))
        out["definition"] = await client.text_document_definition_async(T.DefinitionParams(
            text_document=doc, position=T.Position(line=line, character=col + 1)))
        out["completion"] = await client.text_document_completion_async(T.CompletionParams(
            text_document=doc, position=T.Position(line=line, character=col)))
        out["symbols"] = await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=doc))
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    return out


def test_a_client_gets_diagnostics_hover_definition_completion_and_symbols(tmp_path):
    out = asyncio.run(session(tmp_path))
    broken = out["broken"].diagnostics
    assert len(broken) == 1
    d = broken[0]
    line, col = line_of(BROKEN, "suply(")
    assert (d.range.start.line, d.range.start.character) == (line, col)
    assert d.range.end.line == line and d.range.end.character >= col + len("suply")
    assert '"suply" is not defined' in d.message and 'did you mean "supply"' in d.message
    assert d.source == "rulelang"

    assert list(out["fixed"].diagnostics) == []
    assert out["published"] == 2, "the two quick edits were checked once, after the typing stopped"

    assert "def has_line(p)" in out["hover"].contents.value
    assert "Built-in function" in out["builtin"].contents.value
    target = out["definition"]
    target = target[0] if isinstance(target, list) else target
    assert target.range.start.line == line_of(TICTACTOE, "def has_line")[0]
    assert target.range.start.character == line_of(TICTACTOE, "def has_line")[1] + len("def ")

    labels = {item.label for item in out["completion"].items}
    assert {"has_line", "free_cells", "cross", "Piece", "count", "players", "choose"} <= labels

    symbols = {s.name: s for s in out["symbols"]}
    assert symbols["Mark"].kind == T.SymbolKind.Enum
    assert [c.name for c in symbols["Mark"].children] == ["cross", "nought"]
    assert symbols["has_line"].kind == T.SymbolKind.Function
    assert symbols["play"].kind == T.SymbolKind.Event


def test_check_does_not_load_the_server_libraries():
    """`rulelang check` starts fast: the web table's and language server's libraries stay unloaded."""
    import subprocess

    code = ("import sys; from rulelang.cli.main import main; main(['check', %r]); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'starlette', 'uvicorn', 'pygls', 'lsprotocol', 'playwright'}))"
            % str(ROOT / "examples/tictactoe.rules"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]"), out


def test_an_analysis_keeps_its_spans_while_the_next_edit_is_analysed(tmp_path, monkeypatch):
    """The server keeps the last analysis for hover while it analyses the next version of the text,
    whose declarations are the same objects moved down: the kept one's diagnostics and symbols stay
    where they were."""
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    text = "\n".join(['game "G" { players 2 }', "zone pile", "var n: int = 0", "def f = no_such_name", ""])
    first = Analysis(text, "g.rules")
    before = ([str(d.span) for d in first.diagnostics], [(str(s.span), str(s.whole)) for s in first.symbols])
    assert before[0] == ["g.rules:4:9"]
    second = Analysis("// a note\n// another\n" + text, "g.rules")
    assert [str(d.span) for d in second.diagnostics] == ["g.rules:6:9"]
    assert ([str(d.span) for d in first.diagnostics], [(str(s.span), str(s.whole)) for s in first.symbols]) == before
