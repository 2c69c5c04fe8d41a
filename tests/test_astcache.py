"""The parsed-AST cache: an edited file is parsed again only where its text changed, and the AST is
always the one the parser makes of the whole file (spans included)."""
import random

import pytest
from conftest import REPO

import rulelang
from rulelang.language import astcache, parser
from rulelang.language.chunks import split_top_level
from rulelang.core.errors import RulesError

CORPUS = sorted(p for p in REPO.rglob("*.rules") if p.is_file() and ".git" not in p.parts)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULELANG_CACHE", raising=False)
    return tmp_path / "cache"


def _parsed_whole(text: str, file: str):
    try:
        return parser.parse_text(text, file)
    except RulesError as exc:
        return exc


def _parsed_cached(text: str, file: str):
    try:
        return astcache.parse_text_cached(text, file)
    except RulesError as exc:
        return exc


def _same(a, b) -> bool:
    if isinstance(a, RulesError) or isinstance(b, RulesError):
        return str(a) == str(b)
    return a == b


def test_the_grammar_lets_a_file_be_parsed_declaration_by_declaration():
    """No declaration can run on into a line that opens the next one, so parsing a file's chunks one
    by one gives the whole file's declarations (astcache relies on it): in every state of the parse
    table where the text could end, each token that can open a declaration acts as the end of the
    text does, or opens a new declaration. (No token but whitespace spans lines, and each chunk
    starts a line, so the tokens are the same.) Read in Lark's parse table, which only this test does."""
    table = parser._lark().parser.parser.parser.parse_table
    states = table.states
    first = table.start_states["start"]
    openers = [t for t in states[first] if t != "$END" and t.isupper()]  # terminals; the others are gotos
    assert len(openers) > 10
    checked = 0
    for actions in states.values():
        at_end = actions.get("$END")
        if at_end is None:
            continue
        for token in openers:
            action = actions.get(token)
            assert action == at_end or action == states[first][token], token
        checked += 1
    assert checked > 10


def test_chunks_cut_a_file_at_its_top_level_declarations_and_keep_every_line():
    text = ("//! A header.\n\n/// The game.\ngame \"G\" {\n  players 2\n}\n/// Docs\n// a plain comment\n"
            "def x = 1\n  def not_top = 2\ndef s = \"{ // }\"\nzone z\r\nzone w\u2028zone v\n")
    chunks = split_top_level(text)
    assert "".join(chunk for _, chunk in chunks) == text
    assert [offset for offset, _ in chunks] == [0, 6, 10, 11, 12]
    # the header, doc comments and plain comments go with the declaration after them
    assert chunks[0][1].startswith("//! A header.") and chunks[1][1].startswith("/// Docs\n// a plain")
    assert "def not_top" in chunks[1][1]  # indented: not a top-level line
    # lines are counted at "\n" only, as the parser counts them: the last chunk is one line
    assert chunks[-1][1] == "zone w\u2028zone v\n"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(REPO)))
def test_a_file_parsed_by_the_cache_is_the_file_parsed_whole(path, cache):
    def whole():
        return parser.parse_file(path)

    def cached():
        return astcache.parse_file_cached(path)

    expected = _outcome(whole)
    assert _same(_outcome(cached), expected)  # parsed chunk by chunk, or whole
    assert _same(_outcome(cached), expected)  # from the cache


def _outcome(parse):
    try:
        return parse()
    except RulesError as exc:
        return exc


@pytest.mark.parametrize("name", ["games/evacuation.rules", "games/zemico.rules", "examples/checkers.rules",
                                  "tests/scenarios/survivors/activities.rules"])
def test_an_edited_file_is_parsed_again_only_where_it_changed(name, cache, monkeypatch):
    path = REPO / name
    file = str(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert astcache.parse_text_cached("\n".join(lines), file) == parser.parse_text("\n".join(lines), file)
    parsed: list[int] = []
    real = parser.parse_declarations

    def counting(chunk, file, offset):
        parsed.append(offset)
        return real(chunk, file, offset)

    monkeypatch.setattr(parser, "parse_declarations", counting)
    rng = random.Random(name)
    for step in range(6):
        where = rng.randrange(len(lines))
        if step % 3 == 0:  # lines added above many declarations: those are moved, not parsed
            lines[where:where] = ["", "// a note"]
        elif step % 3 == 1:
            del lines[where]
        else:
            lines[where] = lines[where] + "  "
        text = "\n".join(lines)
        parsed.clear()
        got = _parsed_cached(text, file)
        assert _same(got, _parsed_whole(text, file)), f"step {step}: line {where + 1}"
        if not isinstance(got, RulesError):
            assert len(parsed) <= 3, f"step {step} parsed the chunks at lines {parsed}"


def test_a_long_file_parsed_the_first_time_gives_the_whole_file_s_ast(tmp_path, monkeypatch):
    """A long file parsed for the first time is parsed chunk by chunk: the AST is the one the parser
    makes of the whole file; a chunk that does not parse on its own makes the whole file parsed, its
    errors reported as always."""
    path = REPO / "games" / "evacuation.rules"
    text, file = path.read_text(encoding="utf-8"), str(path)
    whole = parser.parse_text(text, file)
    monkeypatch.delenv("RULELANG_CACHE", raising=False)

    def first_parse(name: str, text: str):
        monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / name))  # a cache that has seen nothing
        return _parsed_cached(text, file)

    assert first_parse("plain", text) == whole
    last = text.rindex("\n}", 0, len(text) - 10)
    broken = text[:last] + "\n  = =" + text[last:]  # in the last declaration
    got = first_parse("broken", broken)
    assert isinstance(got, RulesError) and _same(got, _parsed_whole(broken, file))


def test_an_edit_that_breaks_a_declaration_is_reported_as_the_whole_file_would_be(cache):
    path = REPO / "examples" / "tictactoe.rules"
    text = path.read_text(encoding="utf-8")
    file = str(path)
    astcache.parse_text_cached(text, file)
    broken = text.replace("def owns(p, cell) =", "def owns(p, cell) = = ")
    with pytest.raises(RulesError) as cached:
        astcache.parse_text_cached(broken, file)
    with pytest.raises(RulesError) as whole:
        parser.parse_text(broken, file)
    assert str(cached.value) == str(whole.value)
    # a declaration cut in two by a line that looks like the start of another is parsed whole
    cut = text.replace("def owns(p, cell) = any(m in at(grid, cell)", "def owns(p, cell) = any(m in\nat(grid, cell)")
    assert cut != text and split_top_level(cut) != split_top_level(text)
    assert astcache.parse_text_cached(cut, file) == parser.parse_text(cut, file)


def test_a_damaged_declaration_index_is_parsed_again(cache):
    path = REPO / "examples" / "connect4.rules"
    text = path.read_text(encoding="utf-8")
    file = str(path)
    first = astcache.parse_text_cached(text, file)
    for entry in cache.glob("*.pickle"):
        entry.write_bytes(b"not a pickle")
    assert astcache.parse_text_cached(text + "\n", file) == parser.parse_text(text + "\n", file)
    assert astcache.parse_text_cached(text, file) == first


def test_the_language_server_reuses_declarations_without_keeping_every_version(cache, monkeypatch):
    from rulelang.tools.lsp import Analysis

    text = (REPO / "games" / "zemico.rules").read_text(encoding="utf-8")
    file = str(cache.parent / "zemico.rules")
    assert not Analysis(text, file).diagnostics
    parsed: list[int] = []
    real = parser.parse_declarations
    monkeypatch.setattr(parser, "parse_declarations", lambda c, f, o: parsed.append(o) or real(c, f, o))
    edited = text.replace("\ndef ", "\ndef  ", 1)
    analysis = Analysis(edited, file)
    assert not analysis.diagnostics and analysis.rules == parser.parse_text(edited, file)
    assert len(parsed) == 1
    assert [p.name for p in cache.glob("*.pickle")] == [p.name for p in cache.glob("decls-*.pickle")]


def test_the_same_text_at_another_path_is_not_parsed_again(cache, monkeypatch, tmp_path):
    """Another checkout or a copy of a file: the cached AST, with every span naming the new path."""
    text = (REPO / "games" / "evacuation.rules").read_text(encoding="utf-8")
    first, second = str(tmp_path / "a" / "evacuation.rules"), str(tmp_path / "b" / "game.rules")
    astcache.parse_text_cached(text, first)

    def refuse(*args):
        raise AssertionError("parsed again")

    with monkeypatch.context() as m:
        m.setattr(parser, "parse_text", refuse)
        m.setattr(parser, "parse_declarations", refuse)
        moved = astcache.parse_text_cached(text, second)
    assert moved == parser.parse_text(text, second)
    assert first not in repr(moved)


def _long_deck() -> str:
    lines = ['game "Deck" { players 2 }', "enum Suit { red, blue }",
             "component Card { name: str; suit: Suit; point: int = 0 }", "zone deck", "/// The deck.",
             "cards pack in deck {"]
    lines += [f'  Card(name: "Card {i}", suit: {"red" if i % 2 else "blue"}, point: {i})' for i in range(150)]
    lines += ["}", "def total = sum([c.point for c in deck])", ""]
    return "\n".join(lines)


def test_a_long_deck_read_aside_is_kept_moved_and_renamed_with_its_file(cache, tmp_path):
    from rulelang.language.fastcards import split_card_blocks

    text = _long_deck()
    assert split_card_blocks(text, "x")[1]  # the fast reader of long decks takes this one
    first, second = str(tmp_path / "deck.rules"), str(tmp_path / "copy" / "deck.rules")
    for version in (text, "// a note\n" + text, "// a note\n" + text.replace("point: 7)", "point: 70)")):
        assert astcache.parse_text_cached(version, first) == parser.parse_text(version, first)
        assert astcache.parse_text_cached(version, second) == parser.parse_text(version, second)


def test_spans_moved_or_renamed_on_a_load_are_kept_so_for_the_next(cache, monkeypatch, tmp_path):
    """A text found at another path, or whose kept declarations moved down when lines were added
    above them, has its spans moved on load: the entry is then written again as the file is now,
    so the next load of it (another `check`, a `simulate`) moves nothing."""
    text = (REPO / "games" / "zemico.rules").read_text(encoding="utf-8")
    first, second = str(tmp_path / "a" / "zemico.rules"), str(tmp_path / "b" / "zemico.rules")
    moves = []
    real_move = astcache._move_spans
    monkeypatch.setattr(astcache, "_move_spans", lambda *a: moves.append(a[1:]) or real_move(*a))

    astcache.parse_text_cached(text, first)
    assert astcache.parse_text_cached(text, second) == parser.parse_text(text, second)
    assert moves, "found at another path: renamed"
    moves.clear()
    assert astcache.parse_text_cached(text, second) == parser.parse_text(text, second)
    assert not moves, "renamed once, kept so"

    edited = "// a note\n// another\n" + text  # every declaration two lines down
    assert astcache.parse_text_cached(edited, first) == parser.parse_text(edited, first)  # kept, moved
    moves.clear()
    assert astcache.parse_text_cached(edited, first) == parser.parse_text(edited, first)
    assert moves and all(delta == 2 for delta, *_ in moves), "the kept declarations, moved on this load"
    moves.clear()
    assert astcache.parse_text_cached(edited, first) == parser.parse_text(edited, first)
    assert not moves, "moved once, kept so"


def test_cache_dir_off_keeps_nothing_anywhere(tmp_path, monkeypatch):
    """RULELANG_CACHE_DIR=off keeps no parse cache, as it keeps no compiled modules: nothing is
    written, not even into a folder named "off"."""
    from rulelang.compile import codegen_cache
    from rulelang.core.cachefiles import parse_cache_dir
    from rulelang.language.parser import parse_file

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RULELANG_CACHE", raising=False)
    for word in ("off", "OFF", "none", "0"):
        monkeypatch.setenv("RULELANG_CACHE_DIR", word)
        assert parse_cache_dir() is None and codegen_cache.cache_dir() is None
    rulelang.load(REPO / "examples" / "tictactoe.rules")
    parse_file(REPO / "examples" / "connect4.rules")
    assert list(tmp_path.iterdir()) == []


def test_a_cache_folder_keeps_about_its_newest_entries(tmp_path):
    """cachefiles.prune keeps the `keep` newest files of a pattern, cutting the folder down only once
    it holds a tenth more (a full folder is not sorted at every write); other files stay."""
    import os

    from rulelang.core.cachefiles import prune

    def write(name: str, age: int):
        path = tmp_path / name
        path.write_bytes(b"x")
        os.utime(path, (1_000_000 + age, 1_000_000 + age))

    (tmp_path / "other.json").write_bytes(b"{}")
    for i in range(11):
        write(f"{i:02}.pickle", i)
    prune(tmp_path, "*.pickle", 10)
    assert len(list(tmp_path.glob("*.pickle"))) == 11  # within a tenth more: left as it is
    write("11.pickle", 11)
    prune(tmp_path, "*.pickle", 10)
    assert sorted(p.name for p in tmp_path.glob("*.pickle")) == [f"{i:02}.pickle" for i in range(2, 12)]
    assert (tmp_path / "other.json").exists()
    prune(tmp_path / "absent", "*.pickle", 10)  # no folder yet: no error


def test_an_editor_s_edit_parses_the_touched_declaration_from_memory(cache, monkeypatch):
    """The language server is one process: the declarations of the last version of a file stay in
    memory, so an edit parses only the declaration it touched even when the cache on disk is gone,
    and the AST is the whole file's (a deck read aside is put back as it is now)."""
    path = REPO / "games" / "evacuation.rules"
    file = str(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    astcache.parse_text_cached("\n".join(lines), file, keep_whole=False)
    parsed: list[int] = []
    real = parser.parse_declarations
    monkeypatch.setattr(parser, "parse_declarations", lambda c, f, o: parsed.append(o) or real(c, f, o))
    for step, where in enumerate((len(lines) // 2, 5, len(lines) - 20)):
        for entry in cache.glob("*.pickle"):
            entry.unlink()  # nothing on disk to read
        lines[where:where] = [f"// note {step}"]
        text = "\n".join(lines)
        parsed.clear()
        assert astcache.parse_text_cached(text, file, keep_whole=False) == parser.parse_text(text, file)
        assert len(parsed) == 1, f"step {step} parsed the chunks at lines {parsed}"


def test_an_editor_s_long_deck_is_read_again_as_it_is_now(cache):
    file = str(cache.parent / "deck.rules")
    text = _long_deck()
    for version in (text, "// a note\n" + text, "// a note\n" + text.replace("point: 7)", "point: 70)"),
                    text.replace("point: 7)", "point: 70)"), text):
        assert astcache.parse_text_cached(version, file, keep_whole=False) == parser.parse_text(version, file)
