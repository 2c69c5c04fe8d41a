"""`rulelang lsp`: a language server for .rules files (pygls, LSP over standard input and output).

docs/editors.md lists what it offers: diagnostics as you type (debounced, run off the editor's
thread), hover, go to definition, completion, document symbols, and hints on the lines no scenario
reaches (``unreached_hints``: worked out off the editor's thread when a file is opened or saved,
and kept while the file and its scenarios are unchanged).

The analysis (`Analysis`) is plain Python with no pygls in it, so it is tested directly and by a
language-server client (tests/test_lsp.py).
"""
from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from urllib.parse import unquote, urlparse

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS
from rulelang.core.errors import Diagnostic, RulesError, Span, span_of

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CARD_PSEUDO_FIELDS = {
    "owner": "the player who owns the card (or none)", "zone": "the zone the card is in",
    "cell": "the cell of a card on a board", "face_down": "true when the card lies face down",
    "component": "the name of the card's component, as a text", "id": "the card's number",
}
DEBOUNCE_SECONDS = 0.3


@lru_cache(maxsize=1)
def language_keywords() -> tuple[str, ...]:
    """Every keyword of the grammar, as the highlighting reads them (``pygments_lexer.grammar_keywords``)."""
    from rulelang.tools.pygments_lexer import grammar_keywords

    return tuple(sorted(grammar_keywords()[0]))


@dataclass
class Symbol:
    name: str
    kind: str  # enum, member, component, field, player field, cards, zone, var, setting, choice, def, procedure, keyword, phase, variant, game
    span: Span  # where its name is written
    doc: list[str] = field(default_factory=list)
    detail: str = ""
    children: list["Symbol"] = field(default_factory=list)
    whole: Span | None = None  # the whole declaration


def _find_name(lines: list[str], name: str, line: int, column: int, last_line: int | None = None) -> Span:
    """Where `name` is first written as a whole word from (line, column) on (1-based)."""
    pattern = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])")
    end = min(len(lines), last_line or line + 200)
    for i in range(max(line, 1), end + 1):
        text = lines[i - 1]
        start = column - 1 if i == line else 0
        m = pattern.search(text, max(start, 0))
        while m is not None and _in_comment_or_text(text, m.start()):
            m = pattern.search(text, m.end())
        if m is not None:
            return Span(line=i, column=m.start() + 1, end_line=i, end_column=m.end() + 1)
    return Span(line=line, column=column, end_line=line, end_column=column + len(name))


def _own(span: Span) -> Span:
    """A copy of a span of the AST: the next edit's analysis moves the declarations' spans (astcache), not this."""
    return span_of(span.file, span.line, span.column, span.end_line, span.end_column)


def _in_comment_or_text(text: str, index: int) -> bool:
    before = text[:index]
    return "//" in before or before.count('"') % 2 == 1


class Analysis:
    """What the language server knows about one version of a .rules file."""

    def __init__(self, text: str, path: str = "<rules>"):
        self.text = text
        self.path = path
        self.lines = text.splitlines() or [""]
        self.diagnostics: list[Diagnostic] = []
        self.rules: N.RulesFile | None = None
        self.symbols: list[Symbol] = []
        self._analyse()

    # ---- checking
    def _analyse(self):
        from rulelang.language.astcache import parse_text_cached
        from rulelang.check.checker import check_rules
        from rulelang.core.sourcefile import check_text_size

        try:
            check_text_size(self.text, self.path)  # the budgets of every command (source_bytes)
            # an edit parses again only the declarations it changed (astcache)
            self.rules = parse_text_cached(self.text, self.path, keep_whole=False)
        except RulesError as exc:
            self.diagnostics = list(exc.diagnostics)
            return
        try:
            check_rules(self.rules, all_variants=True)
            from rulelang.check.hints import hints

            found = hints(self.rules)  # (a file that checks clean may still get hints)
        except RulesError as exc:
            found = exc.diagnostics
        self.diagnostics = [replace(d, span=_own(d.span)) for d in found]
        self.symbols = self._collect(self.rules)

    # ---- symbols
    def _collect(self, rules: N.RulesFile) -> list[Symbol]:
        out: list[Symbol] = []
        lines = self.lines

        def at(name, span: Span):
            return _find_name(lines, name, span.line, span.column, span.end_line or None)

        for d in rules.decls:
            sp = _own(d.span)  # (kept as `whole`)
            if isinstance(d, N.GameDecl):
                out.append(Symbol(d.title, "game", at("game", sp), d.doc, f"game \"{d.title}\"", whole=sp))
            elif isinstance(d, N.EnumDecl):
                where = _after(at(d.name, sp))
                members = [Symbol(m, "member", at(m, where), d.member_docs[i] if i < len(d.member_docs) else [],
                                  f"member of enum {d.name}") for i, m in enumerate(d.members)]
                out.append(Symbol(d.name, "enum", at(d.name, sp), d.doc, "enum " + d.name + " { " + ", ".join(d.members) + " }",
                                  members, whole=sp))
            elif isinstance(d, (N.ComponentDecl, N.PlayerDecl)):
                name, kind, of = ("player", "player field", "") if isinstance(d, N.PlayerDecl) else \
                    (d.name, "field", f" of component {d.name}")
                fields = [Symbol(f.name, kind, at(f.name, f.span if f.span.line else sp), f.doc,
                                 f"{kind} {f.name}: {f.type}{of}") for f in d.fields]
                out.append(Symbol(name, "player" if of == "" else "component", at(name, sp), d.doc,
                                  "player { ... }" if of == "" else "component " + name, fields, whole=sp))
            elif isinstance(d, N.SettingDecl):
                where = _after(at(d.name, sp))
                choices = [Symbol(c, "choice", at(c, where), [], f"a choice of setting {d.name}") for c in d.choices]
                detail = f"setting {d.name}" + (" = one of " + " | ".join(d.choices) if d.choices else "")
                out.append(Symbol(d.name, "setting", at(d.name, sp), d.doc, detail, choices, whole=sp))
            elif type(d) in _DECL_KINDS:
                kind = _DECL_KINDS[type(d)]
                out.append(Symbol(d.name, kind, at(d.name, sp), d.doc, _detail(d, kind), whole=sp))
        return out

    def all_symbols(self):
        for s in self.symbols:
            yield s
            yield from s.children

    def find(self, name: str) -> Symbol | None:
        """The symbol of that name: a top-level one first, else a member or field."""
        return next((s for s in [*self.symbols, *self.all_symbols()] if s.name == name and s.kind not in ("game", "player")),
                    None)

    # ---- positions (0-based, as LSP counts)
    def word_at(self, line: int, character: int) -> str | None:
        m = self._word_match(line, character)
        return m.group() if m is not None else None

    def _word_match(self, line: int, character: int) -> re.Match | None:
        if not 0 <= line < len(self.lines):
            return None
        return next((m for m in WORD.finditer(self.lines[line]) if m.start() <= character <= m.end()), None)

    def hover(self, line: int, character: int) -> str | None:
        word = self.word_at(line, character)
        if word is None:
            return None
        sym = self.find(word)
        if sym is not None:
            doc = "\n".join(sym.doc).strip()
            return f"```rules\n{sym.detail or sym.kind + ' ' + sym.name}\n```" + (f"\n\n{doc}" if doc else "")
        # A local name shadows a built-in or a word the language also uses as a keyword (`cell`).
        bound = self.local_definition(word, line, character)
        if bound is not None and (bound.line - 1, bound.column - 1) != (line, self._word_match(line, character).start()):
            return f"`{word}`: a local name, bound at line {bound.line}:\n```rules\n{self.lines[bound.line - 1].strip()}\n```"
        return builtin_help(word)

    def definition(self, line: int, character: int) -> Span | None:
        word = self.word_at(line, character)
        if word is None:
            return None
        sym = self.find(word)
        return sym.span if sym is not None else self.local_definition(word, line, character)

    def local_definition(self, word: str, line: int, character: int) -> Span | None:
        """Where a local name is bound: the nearest `let x`, `for each x`, `choose x from`, `x in`
        (an option's or a list's binding) or parameter, looking back from the cursor to the start of
        the declaration around it (0-based line and character in, a 1-based span out)."""
        start = max((s.whole.line - 1 for s in self.symbols if s.whole is not None and s.whole.line - 1 <= line),
                    default=0)
        w = re.escape(word)
        binders = [re.compile(p) for p in (
            rf"\blet\s+({w})\b", rf"\bfor\s+each\s+({w})\b", rf"\bchoose\s+({w})\s+from\b",
            rf"[\[(,]\s*({w})\s+in\b", rf"\bfor\s+({w})\s+in\b", rf"\bwhen\s+({w})\s+(?:enters|leaves)\b",
            rf"\b(?:def|procedure|keyword|signal)\s+[A-Za-z_]\w*\s*\([^)]*?\b({w})\b")]
        for i in range(line, start - 1, -1):
            text = self.lines[i]
            if i == line:
                text = text[:character + len(word)]
            best = max((m for b in binders for m in b.finditer(text) if not _in_comment_or_text(text, m.start(1))),
                       key=lambda m: m.start(1), default=None)  # (the binding nearest the cursor)
            if best is not None:
                return Span(line=i + 1, column=best.start(1) + 1, end_line=i + 1, end_column=best.end(1) + 1)
        return None

    def field_completions(self) -> list[tuple[str, str, str]]:
        """(label, kind, detail) for what can follow a dot: fields of components and players, and
        the pseudo-fields every card has."""
        return _first_of_each([(s.name, s.kind, s.detail) for s in self.all_symbols()
                               if s.kind in ("field", "player field")]
                              + [(name, "field", doc) for name, doc in CARD_PSEUDO_FIELDS.items()])

    def completions(self) -> list[tuple[str, str, str]]:
        """(label, kind, detail) for every name that can be written here."""
        return _first_of_each([(s.name, s.kind, s.detail) for s in self.all_symbols() if s.kind not in ("game", "player")]
                              + [(name, "built-in", b.doc) for name, b in BUILTINS.items()]
                              + [(name, "built-in", doc) for name, (_, _, doc) in SPECIAL_FUNCS.items()]
                              + [(name, "built-in value", doc) for name, doc in BUILTIN_VALUES.items()]
                              + [(k, "keyword", "a keyword of the language") for k in language_keywords()])


def _first_of_each(items: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The items, each name once (its first)."""
    first: dict[str, tuple[str, str, str]] = {}
    for item in items:
        first.setdefault(item[0], item)
    return list(first.values())


def after_dot(line_text: str, character: int) -> bool:
    """True when the cursor follows `something.` (perhaps with part of a field name typed)."""
    return re.search(r"\.([A-Za-z_][A-Za-z0-9_]*)?$", line_text[:character]) is not None


def builtin_help(word: str) -> str | None:
    if word in BUILTINS:
        from rulelang.tools.docgen_text import arity

        b = BUILTINS[word]
        words = arity(b.min_args, b.max_args) + (" argument" if b.max_args == b.min_args == 1 else " arguments")
        return f"```rules\n{word}(...)\n```\n\nBuilt-in function ({words}): {b.doc}"
    if word in SPECIAL_FUNCS:
        return f"```rules\n{word}(...)\n```\n\nBuilt-in function: {SPECIAL_FUNCS[word][2]}"
    if word in BUILTIN_VALUES:
        return f"```rules\n{word}\n```\n\nBuilt-in value: {BUILTIN_VALUES[word]}"
    if word in language_keywords():
        return f"`{word}`: a keyword of the language (see the language reference)"
    return None


_DECL_KINDS = {N.CardsDecl: "cards", N.ZoneDecl: "zone", N.VarDecl: "var", N.DefDecl: "def", N.ProcDecl: "procedure",
               N.KeywordDecl: "keyword", N.PhaseDecl: "phase", N.VariantDecl: "variant"}


def _after(span: Span) -> Span:
    return Span(line=span.line, column=span.end_column, end_line=span.line + 200)


def _detail(d, kind: str) -> str:
    if isinstance(d, (N.DefDecl, N.ProcDecl, N.KeywordDecl)):
        params = ", ".join(p.name + (f": {p.type}" if p.type is not None else "") for p in d.params)
        return f"{kind} {d.name}" + (f"({params})" if params or kind != "keyword" else "")
    if isinstance(d, N.ZoneDecl):
        where = " per player" if d.per_player else ""
        board = f": board {d.board.kind}" if d.board is not None else ""
        return f"zone {d.name}{board}{where} {d.visibility}"
    if isinstance(d, N.VarDecl):
        return f"var {d.name}: {d.type}"
    return f"{kind} {d.name}"


# ------------------------------------------------------------------ the server (pygls)


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def _range(span: Span, lines: list[str]):
    from lsprotocol import types as T

    line = max(span.line - 1, 0)
    col = max(span.column - 1, 0)
    if span.end_line and (span.end_line, span.end_column) > (span.line, span.column):
        end = T.Position(line=span.end_line - 1, character=max(span.end_column - 1, 0))
    else:  # a point: mark the word there (or one character)
        text = lines[line] if line < len(lines) else ""
        m = WORD.match(text, col)
        end = T.Position(line=line, character=m.end() if m else min(col + 1, max(len(text), col + 1)))
    return T.Range(start=T.Position(line=line, character=col), end=end)


def to_lsp_diagnostic(d: Diagnostic, lines: list[str]):
    from lsprotocol import types as T

    message = d.message + (f"\nexpected: {d.expected}" if d.expected else "") + (f"\nhint: {d.hint}" if d.hint else "")
    severity = {"warning": T.DiagnosticSeverity.Warning, "hint": T.DiagnosticSeverity.Hint}.get(
        d.severity, T.DiagnosticSeverity.Error)
    return T.Diagnostic(range=_range(d.span, lines), message=message, severity=severity, source="rulelang")


_HINTS: dict[str, tuple[tuple, list[Diagnostic]]] = {}  # path -> (what they were worked out from, the hints)
UNREACHED = "no scenario reaches this line (rulelang test --coverage)"


def unreached_hints(path: str) -> list[Diagnostic]:
    """A hint (severity "hint") on each rules line of the file at ``path`` that none of its scenarios
    reaches; none when it has no scenarios, or does not load. The scenarios are run once for each
    version of the file and of its scenario files (by modification time)."""
    from pathlib import Path

    from rulelang.balance.coverage import Coverage
    from rulelang.tools.scenario import run_file, scenario_files_for

    try:
        rules = Path(path).resolve()
        files = scenario_files_for(rules)
        key = (rules.stat().st_mtime_ns, tuple((str(f), f.stat().st_mtime_ns) for f in files))
    except OSError:
        return []
    kept = _HINTS.get(str(rules))
    if kept is not None and kept[0] == key:
        return kept[1]
    coverage = Coverage()
    cache: dict = {}
    for f in files:
        try:
            run_file(f, cache, coverage=coverage)
        except RulesError:
            continue  # (a scenario file that does not read: `rulelang test` says why)
    hints = []
    for report in coverage.reports():
        if Path(report.path).resolve() != rules:
            continue
        lines = rules.read_text(encoding="utf-8", errors="replace").split("\n")
        for u in report.unreached:
            text = lines[u.line - 1] if 0 < u.line <= len(lines) else ""
            column = len(text) - len(text.lstrip()) + 1
            span = Span(file=str(rules), line=u.line, column=column, end_line=u.line, end_column=len(text.rstrip()) + 1)
            hints.append(Diagnostic(span, UNREACHED, severity="hint"))
    _HINTS[str(rules)] = (key, hints)
    return hints


# a kind of name: how LSP calls it as a document symbol, and as a completion (one word: both)
KINDS = {
    "game": "File", "enum": "Enum", "member": "EnumMember", "component": "Class", "field": "Field",
    "player": "Struct", "player field": "Field", "cards": "Array Value", "zone": "Namespace Module",
    "var": "Variable", "setting": "Constant", "choice": "EnumMember", "def": "Function", "procedure": "Method",
    "keyword": "Interface", "phase": "Event", "variant": "Module", "built-in": "Function", "built-in value": "Constant",
}


def make_server():
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer

    from rulelang import __version__

    server = LanguageServer("rulelang", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Full)
    analyses: dict[str, Analysis] = {}
    pending: dict[str, asyncio.Task] = {}
    hints: dict[str, tuple[str, list[Diagnostic]]] = {}  # uri -> (the text they are for, the hints)

    def latest(uri: str) -> Analysis:
        doc = server.workspace.get_text_document(uri)
        a = analyses.get(uri)
        if a is None or (a.text != doc.source and a.rules is None):
            a = analyses[uri] = Analysis(doc.source, uri_to_path(uri))
        return a

    async def refresh(uri: str, delay: float, coverage: bool = False):
        if delay:
            await asyncio.sleep(delay)
        doc = server.workspace.get_text_document(uri)
        text = doc.source
        analysis = await asyncio.to_thread(Analysis, text, uri_to_path(uri))
        if server.workspace.get_text_document(uri).source != text:
            return  # typed on meanwhile: the next refresh reports
        old = analyses.get(uri)
        if analysis.rules is None and old is not None and old.rules is not None:
            # a syntax error: keep the names of the last version that parsed for hover and completion
            analysis.rules, analysis.symbols = old.rules, old.symbols
        analyses[uri] = analysis
        publish(uri, doc.version, analysis)
        if coverage and uri.startswith("file:") and not any(d.severity == "error" for d in analysis.diagnostics):
            found = await asyncio.to_thread(unreached_hints, uri_to_path(uri))
            hints[uri] = (text, found)
            if server.workspace.get_text_document(uri).source == text:
                publish(uri, doc.version, analysis)

    def publish(uri: str, version, analysis: Analysis):
        kept = hints.get(uri)
        extra = kept[1] if kept is not None and kept[0] == analysis.text else []  # (lines move as one types)
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, version=version,
            diagnostics=[to_lsp_diagnostic(d, analysis.lines) for d in [*analysis.diagnostics, *extra]]))

    def schedule(uri: str, delay: float, coverage: bool = False):
        task = pending.get(uri)
        if task is not None and not task.done():
            task.cancel()
        pending[uri] = asyncio.get_running_loop().create_task(refresh(uri, delay, coverage))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    async def did_open_or_save(ls, params):
        schedule(params.text_document.uri, 0, coverage=True)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls, params: T.DidChangeTextDocumentParams):
        schedule(params.text_document.uri, DEBOUNCE_SECONDS)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: T.DidCloseTextDocumentParams):
        analyses.pop(params.text_document.uri, None)
        hints.pop(params.text_document.uri, None)
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: T.HoverParams):
        text = latest(params.text_document.uri).hover(params.position.line, params.position.character)
        return None if text is None else T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: T.DefinitionParams):
        a = latest(params.text_document.uri)
        span = a.definition(params.position.line, params.position.character)
        return None if span is None else T.Location(uri=params.text_document.uri, range=_range(span, a.lines))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
    def completion(ls, params: T.CompletionParams):
        a = latest(params.text_document.uri)
        # the text as typed now (the analysis may be of an earlier version)
        doc = server.workspace.get_text_document(params.text_document.uri)
        lines = doc.source.splitlines()
        line = lines[params.position.line] if params.position.line < len(lines) else ""
        found = a.field_completions() if after_dot(line, params.position.character) else a.completions()
        items = [T.CompletionItem(label=label, kind=getattr(T.CompletionItemKind, KINDS[kind].split()[-1]),
                                  detail=kind, documentation=detail or None)
                 for label, kind, detail in found]
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls, params: T.DocumentSymbolParams):
        a = latest(params.text_document.uri)

        def convert(s: Symbol):
            sel = _range(s.span, a.lines)
            whole = _range(s.whole, a.lines) if s.whole is not None else sel
            if (whole.start.line, whole.start.character) > (sel.start.line, sel.start.character) or \
                    (whole.end.line, whole.end.character) < (sel.end.line, sel.end.character):
                whole = T.Range(start=min(whole.start, sel.start, key=lambda p: (p.line, p.character)),
                                end=max(whole.end, sel.end, key=lambda p: (p.line, p.character)))
            return T.DocumentSymbol(name=s.name, kind=getattr(T.SymbolKind, KINDS[s.kind].split()[0]),
                                    range=whole, selection_range=sel, detail=s.detail or None,
                                    children=[convert(c) for c in s.children] or None)

        return [convert(s) for s in a.symbols]

    return server


def main() -> int:
    make_server().start_io()
    return 0
