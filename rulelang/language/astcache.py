"""A file's parsed AST, kept on disk by the hash of its text, so checking or loading an unchanged
file again skips the parser (and importing Lark); and, for each file path, the declarations of its
last version, so that after an edit only the declarations whose text changed are parsed again.

The key of a whole file is its text and a fingerprint of the code that builds the AST (the
grammar, the parser, the AST nodes, the deck reader, the chunker); the same text at another path
(another checkout, a copy) is found too, and its spans are given that path.
For an editor (the language server: one long-running process), the declarations of the last version
of each file are kept in memory too (`_EditedFile`), so that an edit parses the chunks it changed and
unpickles nothing; the AST given to an editor is good until its next edit of the file is parsed.
Only files that parse without errors are kept; anything unexpected (an unwritable folder, a damaged
entry) falls back to parsing. The folder is ``$RULELANG_CACHE_DIR``, else
``$XDG_CACHE_HOME/rulelang/ast``, else ``~/.cache/rulelang/ast``; ``RULELANG_CACHE=0`` turns the
cache off.

An entry holds the file's declarations in pickled parts, one per top-level chunk of its text
(`chunks.split_top_level`), each with the number of lines its spans must move (a chunk kept from an
earlier version that now starts lower or higher), and the long card blocks read aside (fastcards).
A file's chunks are parsed one by one (the grammar makes that exact: tests/test_astcache.py checks it)
when each chunk parses on its own; otherwise the file is parsed whole and kept as one part.
"""
from __future__ import annotations

import hashlib
import pickle
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rulelang.language import nodes as N
from rulelang.core.cachefiles import collector_paused, parse_cache_dir, prune, write_whole
from rulelang.core.errors import Span, remember_source
from rulelang.core.resources import grammar_path

_FORMAT = b"rulelang-ast-3"
_fingerprint: bytes | None = None


def _builder_fingerprint() -> bytes:
    """What the AST of a text depends on besides the text: the code that builds it."""
    global _fingerprint
    if _fingerprint is None:
        here = Path(__file__).resolve().parent
        h = hashlib.sha256(_FORMAT)
        for path in (grammar_path(), here / "parser.py", here / "lark_parser.py", here / "ast_builder.py",
                     here / "nodes.py", here / "fastcards.py",
                     here.parent / "core" / "errors.py", here / "chunks.py"):
            h.update(path.read_bytes())
        _fingerprint = h.digest()
    return _fingerprint


def _builder_key():
    """A hash started with the builder's fingerprint and the budgets the parser holds a file to (list_size
    for texts and lists written out, cards for long decks, source_tokens): a file parsed under larger ones is not
    taken from the cache under smaller ones."""
    from rulelang.core.budgets import current_budgets

    budgets = current_budgets()
    h = hashlib.sha256(_builder_fingerprint())
    h.update(b"list_size %d cards %d source_tokens %d\0" % (budgets.list_size, budgets.cards, budgets.source_tokens))
    return h


cache_dir = parse_cache_dir  # (the parse cache's folder: cachefiles)
# A text longer than this is parsed whole, never declaration by declaration (a file of a million
# declarations would be a million parses, and its memory is watched by the parser in one parse)
HUGE = 1_000_000


def _entry(folder: Path, text: str) -> Path:
    """A whole text's entry: by the text alone, so the same file at another path (another checkout,
    a copy) is found too, its spans then renamed (`_load`)."""
    h = _builder_key()
    h.update(text.encode("utf-8", "surrogatepass"))
    return folder / (h.hexdigest()[:40] + ".pickle")


def parse_text_cached(text: str, file: str, keep_whole: bool = True) -> N.RulesFile:
    """parser.parse_text(text, file), from the cache when this text, or some of its declarations,
    were parsed before. Without keep_whole, the whole text is not kept, only its declarations: for
    an editor, whose every keystroke makes a version that will not come back (its declarations are
    kept in memory too, and the next call for this file reuses them: their spans move then)."""
    folder = cache_dir()
    if folder is None:
        return _parse(text, file)
    try:
        entry = _entry(folder, text)
    except ValueError:  # a text that cannot be encoded
        return _parse(text, file)
    try:
        loaded = _load(entry.read_bytes(), file, settle=keep_whole)
    except OSError:
        loaded = None
    if loaded is not None:
        rules, settled = loaded
        if settled is not None:
            # its spans had to be moved or renamed: kept as they are now, so that the next load
            # of this text at this path takes none of that walk
            _write(entry, pickle.dumps(settled, protocol=pickle.HIGHEST_PROTOCOL))
        remember_source(file, text)
        return rules
    parse_alone: set[str] = set()  # chunks known to parse on their own (no errors to look for there)
    if len(text) > HUGE and keep_whole:  # parsed whole, as read_and_parse does: the parser watches its memory
        made = None  # as it goes (an editor's buffer is parsed by declarations still: an edit parses one again)
    else:
        with collector_paused():
            try:
                made = _parse_reusing_declarations(folder, text, file, parse_alone, editor=not keep_whole)
            except RecursionError:  # declarations nested too deeply for pickle (parser.MAX_NESTING): not kept
                return _parse(text, file)
    if made is not None:
        rules, record = made
    else:  # a chunk does not parse on its own (a syntax error, a chunk cut inside a declaration), or a huge text
        rules = _parse(text, file, parse_alone)
        try:
            record = {"parts": [(0, pickle.dumps(rules.decls, protocol=pickle.HIGHEST_PROTOCOL))],
                      "cards": None, "header": rules.header_doc, "file": file}
        except Exception:  # an AST that cannot be pickled: no cache
            return rules
    if keep_whole:
        _write(entry, pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    return rules


def _parse(text: str, file: str, parse_alone: set[str] | frozenset = frozenset()) -> N.RulesFile:
    from rulelang.language.parser import parse_text  # imports Lark: only when the text must be parsed

    with collector_paused():
        return parse_text(text, file, parse_alone)


def _load(data: bytes, file: str, settle: bool = True) -> tuple[N.RulesFile, dict | None] | None:
    """The file an entry holds, and None or (with settle), when its spans had to be moved (chunks
    kept from before lines were added above them) or renamed (the same text checked at another
    path), the record of the file as it is now; None for a damaged or foreign entry (parse
    instead)."""
    try:
        with collector_paused():
            record = pickle.loads(data)
            decls: list = []
            renamed = record["file"] if record["file"] != file else None
            for delta, part in record["parts"]:
                part = _load_part(part)
                if part is None:
                    return None
                if delta or renamed is not None:
                    _move_spans(part, delta, renamed, file)
                decls.extend(part)
            settled = None
            if settle and (renamed is not None or any(delta for delta, _ in record["parts"])):
                # pickled before the long decks go back in: they are kept aside
                settled = {**record, "file": file, "parts": [(0, pickle.dumps(decls, pickle.HIGHEST_PROTOCOL))]}
            if record["cards"] is not None:
                from rulelang.language.fastcards import restore_card_blocks

                cards = pickle.loads(record["cards"])
                if renamed is not None:
                    _move_spans([cards], 0, renamed, file)
                    if settled is not None:
                        settled["cards"] = pickle.dumps(cards, protocol=pickle.HIGHEST_PROTOCOL)
                restore_card_blocks(decls, cards)
            return N.RulesFile(span=Span.model_construct(file=file, line=1, column=1), path=file, decls=decls,
                               header_doc=record["header"]), settled
    except Exception:
        return None


def _load_part(data) -> list | None:
    try:
        part = pickle.loads(data)
    except Exception:
        return None
    return part if isinstance(part, list) and all(isinstance(d, N.Node) for d in part) else None


# ------------------------------------------------------------------ declarations kept between edits


def _index_entry(folder: Path, file: str) -> Path:
    h = _builder_key()
    h.update(b"declarations\0" + file.encode("utf-8", "surrogatepass"))
    return folder / ("decls-" + h.hexdigest()[:40] + ".pickle")


def _parse_reusing_declarations(folder: Path, text: str, file: str, parse_alone: set[str],
                                editor: bool = False) -> tuple[N.RulesFile, dict] | None:
    """The file parsed chunk by chunk, reusing the chunks kept from the last version of this path,
    and the record to keep for it; None when a chunk does not parse on its own (parse the whole
    file then). `parse_alone` gets the texts of the chunks found to parse on their own. For an
    editor, the declarations of the last version are taken from memory (`_EditedFile`)."""
    from rulelang.language.chunks import declaration_chunks, header_doc
    from rulelang.language.fastcards import restore_card_blocks

    index = _index_entry(folder, file)
    memory = _EditedFile.take(folder, file) if editor else None
    known = memory.index if memory is not None else _read_index(index)
    chunks, fast_cards = declaration_chunks(text, file)
    # each chunk's kept (offset, pickled declarations), declarations, the line their spans start from now,
    # and those spans if gathered; None for a chunk to parse
    loaded: list = []
    missing: list[tuple[int, str]] = []
    for offset, chunk in chunks:
        held = memory.chunks.get(chunk) if memory is not None else None
        if held is not None and held.decls is not None:
            loaded.append((held.pickled, held.decls, held.offset, held.spans))
        else:
            found = held.pickled if held is not None else known.get(chunk)
            part = _load_part(found[1]) if isinstance(found, tuple) and len(found) == 2 else None
            loaded.append(None if part is None else (found, part, found[0], None))
        if loaded[-1] is None:
            missing.append((offset, chunk))
        else:
            parse_alone.add(chunk)
    if missing:
        parsed = _parse_chunks(missing, file, parse_alone)
        if parsed is None:
            if memory is not None:  # (kept for the edit that mends it)
                _EditedFile.keep(folder, file, memory)
            return None
        parsed = iter(parsed)  # (in the order of the chunks that were missing)
    decls: list = []
    kept: dict[str, tuple[int, bytes]] = {}  # chunk text: (line its spans start from, pickled declarations)
    parts: list[tuple[int, bytes]] = []
    now: dict[str, _Held] = {}
    for (offset, chunk), was in zip(chunks, loaded):
        if was is None:
            data, part = next(parsed)
            found, spans = (offset, data), None
        else:
            found, part, start, spans = was
            if start != offset:  # kept with its old lines: moved on each load until parsed again
                spans = spans if spans is not None else _spans_in(part)  # (gathered once, in memory)
                _move_gathered(spans, offset - start)
        kept[chunk] = found
        parts.append((offset - found[0], found[1]))
        decls.extend(part)
        now[chunk] = _Held(offset, found, part, spans)
    cards = pickle.dumps(fast_cards, protocol=pickle.HIGHEST_PROTOCOL) if fast_cards else None
    if fast_cards:  # a chunk whose deck read aside goes back in is unpickled again next time (its deck may change)
        for held in now.values():
            if any(isinstance(d, N.CardsDecl) and d.span.line in fast_cards for d in held.decls):
                held.decls = held.spans = None
    restore_card_blocks(decls, fast_cards)
    if kept != known:
        _write(index, pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL))
    if editor:
        _EditedFile.keep(folder, file, _EditedFile(kept, now))
    header = header_doc(text)
    rules = N.RulesFile(span=Span.model_construct(file=file, line=1, column=1), path=file, decls=decls,
                        header_doc=header)
    return rules, {"parts": parts, "cards": cards, "header": header, "file": file}


def _read_index(index: Path) -> dict:
    try:
        known = pickle.loads(index.read_bytes())
        return known if isinstance(known, dict) else {}
    except Exception:  # none yet, or damaged
        return {}


@dataclass
class _Held:
    """A chunk of the last version of a file open in an editor."""
    offset: int  # the line its declarations' spans start from now
    pickled: tuple[int, bytes]  # as the index on disk keeps it (the line its spans start from there, the pickle)
    decls: list | None  # None: a deck read aside went back into them (unpickled again next time)
    spans: list | None  # every span in them, once they had to be moved (moved again without a walk)


@dataclass
class _EditedFile:
    """The declarations of the last version of a file that an editor parsed, kept in memory: the
    language server is one long-running process, so an edit parses the chunks it changed and
    unpickles nothing. The next version of the file takes them (and moves their spans): an AST
    parsed for an editor is good until the next edit of the same file is parsed."""
    index: dict[str, tuple[int, bytes]]  # the index of the file's declarations as written on disk
    chunks: dict[str, _Held]

    FILES: ClassVar[int] = 8  # files kept (a server open for days on many files keeps the last edited)
    _kept: ClassVar[dict[tuple, "_EditedFile"]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def take(cls, folder: Path, file: str) -> "_EditedFile | None":
        """The file's kept declarations, taken out (two analyses of one file at once: the second reads
        the cache on disk), or None."""
        with cls._lock:
            return cls._kept.pop((folder, _builder_key().digest(), file), None)

    @classmethod
    def keep(cls, folder: Path, file: str, edited: "_EditedFile") -> None:
        with cls._lock:
            cls._kept[(folder, _builder_key().digest(), file)] = edited
            while len(cls._kept) > cls.FILES:
                del cls._kept[next(iter(cls._kept))]  # (the least recently edited: dicts keep their order)


def _parse_chunks(missing: list[tuple[int, str]], file: str, parse_alone: set[str]) -> list[tuple[bytes, list]] | None:
    """Each chunk's pickled declarations and declarations, in order; None if one does not parse
    on its own (the whole file is parsed then). `parse_alone` gets the texts of those that do."""
    from rulelang.language.parser import parse_declarations

    parsed = parse_declarations(missing, file, parse_alone)
    return None if parsed is None else [(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL), part) for part in parsed]


def _move_spans(decls: list, delta: int, old_file: str | None = None, new_file: str = "") -> None:
    """Move every span of these declarations by delta lines (a kept chunk that now starts
    elsewhere), and rename the file of those that named old_file (the same text at another path)."""
    spans = _spans_in(decls)
    _move_gathered(spans, delta)
    if old_file is not None:
        for x in spans:
            if x.file == old_file:
                x.__dict__["file"] = new_file


def _spans_in(decls: list) -> list[Span]:
    """Every span in these declarations, each once."""
    from pydantic import BaseModel

    seen: set[int] = set()
    spans: list[Span] = []
    stack: list = list(decls)
    while stack:
        x = stack.pop()
        kind = type(x)
        if kind is Span:
            if id(x) not in seen:
                seen.add(id(x))
                spans.append(x)
        elif kind is list or kind is tuple:
            stack.extend(x)
        elif kind is dict:
            stack.extend(x.values())
        elif isinstance(x, BaseModel):
            stack.extend(x.__dict__.values())
    return spans


def _move_gathered(spans: list[Span], delta: int) -> None:
    """Move these spans by delta lines."""
    if not delta:
        return
    for x in spans:
        values = x.__dict__  # frozen for users, not for the cache that made it
        if values["line"]:
            values["line"] += delta
        if values["end_line"]:
            values["end_line"] += delta


def parse_file_cached(path: str | Path) -> N.RulesFile:
    """parser.parse_file(path), from the cache when the file is unchanged since it was parsed."""
    return read_and_parse(path)[1]


def read_and_parse(path: str | Path) -> tuple[str, N.RulesFile]:
    """The text of a rules file and its AST (parse_file_cached), read once: what `check` keeps a
    verdict of is the text it checked."""
    from rulelang.core.sourcefile import read_source

    text = read_source(path)
    if len(text) > HUGE:  # huge files: parser.parse_file's own memory handling
        from rulelang.language.parser import parse_file

        return text, parse_file(path, text)
    return text, parse_text_cached(text, str(path))


KEEP = 200  # entries kept: a designer editing a file leaves one per version checked


def _write(entry: Path, data: bytes) -> None:
    prune(entry.parent, "*.pickle", KEEP - 1)  # forget the least recently written, to make room
    write_whole(entry, data)  # a read-only home, a full disk: no cache
