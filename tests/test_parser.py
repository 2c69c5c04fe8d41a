"""The parser: valid constructs give the right nodes, with the right spans.

Every node carries a span (file, line, column); every file in games/ and
examples/ parses.
"""
from __future__ import annotations

import pytest

from conftest import EXAMPLES, GAMES, REPO, assert_plain_words
from rulelang.language import nodes as N
from rulelang.core.errors import RulesError
from rulelang.language.parser import parse_file, parse_text

GAME = 'game "T" {\n  players 2\n  round: play\n}\n'


def parse(text: str, file: str = "t.rules") -> N.RulesFile:
    return parse_text(text, file)


def decl(text: str, kind=None):
    """The single declaration of `text` (after an optional game header)."""
    rules = parse(text)
    decls = [d for d in rules.decls if not isinstance(d, N.GameDecl)] or rules.decls
    assert len(decls) == 1, decls
    if kind is not None:
        assert isinstance(decls[0], kind), type(decls[0])
    return decls[0]


def stmts(body: str) -> list:
    """Statements of a phase body."""
    return decl("phase p {\n" + body + "\n}", N.PhaseDecl).body


def stmt(body: str):
    out = stmts(body)
    assert len(out) == 1, out
    return out[0]


def expr(text: str):
    return decl(f"def x = {text}", N.DefDecl).body


def at(node, line, column):
    assert (node.span.line, node.span.column) == (line, column), f"{type(node).__name__} at {node.span}"


def walk(x):
    if isinstance(x, N.Node):
        yield x
        for name in type(x).model_fields:
            yield from walk(getattr(x, name))
    elif isinstance(x, (list, tuple)):
        for item in x:
            yield from walk(item)
    elif isinstance(x, dict):
        for item in x.values():
            yield from walk(item)


# ------------------------------------------------------------------ declarations


def test_game_declaration():
    g = decl('game "Ten Cards" {\n  players 2..5 default 3\n  turn order counterclockwise\n'
             '  round: draw, play\n  max rounds 12\n}', N.GameDecl)
    assert g.title == "Ten Cards"
    assert (g.players_min, g.players_max, g.players_default) == (2, 5, 3)
    assert g.direction == "counterclockwise"
    assert g.round_phases == ["draw", "play"]
    assert [(s.line, s.column) for s in g.round_spans] == [(4, 10), (4, 16)]
    assert g.max_rounds == 12
    at(g, 1, 1)


def test_single_player_count_and_default_direction():
    g = decl('game "Solo" {\n  players 1\n  round: a\n}', N.GameDecl)
    assert (g.players_min, g.players_max, g.players_default) == (1, 1, None)
    assert g.direction == "clockwise"


def test_enum_with_member_docs():
    e = decl("enum Suit {\n  /// red ones\n  hearts,\n  spades,\n}", N.EnumDecl)
    assert e.name == "Suit"
    assert e.members == ["hearts", "spades"]
    assert e.member_docs == [["red ones"], []]


def test_component_fields_label_and_discard_pile():
    c = decl('component Card {\n  suit: Suit\n  point: int = 1; tags: list of str\n'
             '  label "{suit} {point}"\n  discards to pile\n}', N.ComponentDecl)
    assert [f.name for f in c.fields] == ["suit", "point", "tags"]
    assert c.fields[0].type.name == "Suit"
    assert isinstance(c.fields[1].default, N.IntLit) and c.fields[1].default.value == 1
    assert c.fields[2].type.name == "list" and c.fields[2].type.list_of.name == "str"
    assert c.label == "{suit} {point}"
    assert isinstance(c.discards_to, N.Name) and c.discards_to.id == "pile"
    at(c.fields[1], 3, 3)


def test_player_fields():
    p = decl("player { score: int = 0; passed: bool = false }", N.PlayerDecl)
    assert [f.name for f in p.fields] == ["score", "passed"]
    assert isinstance(p.fields[1].default, N.BoolLit) and p.fields[1].default.value is False


def test_cards_with_generators_and_copies():
    c = decl("cards deck_cards in deck {\n  Card(suit: s, point: p) for s in Suit, p in 1..13\n"
             "  Card(suit: hearts, point: 0) * 2\n}", N.CardsDecl)
    assert c.name == "deck_cards" and c.zone.id == "deck"
    first, second = c.entries
    assert first.ctor.component == "Card"
    assert [a.name for a in first.ctor.args] == ["suit", "point"]
    assert [g.var for g in first.gens] == ["s", "p"]
    assert isinstance(first.gens[1].coll, N.Range)
    assert second.copies == 2 and second.gens == []
    at(first, 2, 3)
    at(second.ctor.args[1], 3, 22)


@pytest.mark.parametrize("text, per_player, visibility, kind", [
    ("zone deck hidden", False, "hidden", None),
    ("zone hand per player private", True, "private", None),
    ("zone pile", False, "public", None),
    ("zone table: board grid 8", False, "public", "grid"),
    ("zone ring: board track 12 loop", False, "public", "track"),
    ("zone map: board hex radius 2", False, "public", "hex"),
])
def test_zones(text, per_player, visibility, kind):
    z = decl(text, N.ZoneDecl)
    assert z.per_player is per_player
    assert z.visibility == visibility
    assert (z.board.kind if z.board else None) == kind


def test_board_topologies():
    assert decl("zone g: board grid 4 size 3 by 2", N.ZoneDecl).board.model_dump(include={"neighbours", "width", "height"}) \
        == {"neighbours": 4, "width": 3, "height": 2}
    t = decl("zone r: board track 12 loop", N.ZoneDecl).board
    assert (t.length, t.loop) == (12, True)
    assert decl("zone h: board hex radius 2", N.ZoneDecl).board.radius == 2
    graph = decl("zone m: board graph { a -- b -- c; c -- a }", N.ZoneDecl).board
    assert graph.nodes == ["a", "b", "c"]
    assert graph.edges == [("a", "b"), ("b", "c"), ("c", "a")]


def test_var_setting_def_procedure():
    v = decl("var leader: player", N.VarDecl)
    assert v.type.name == "player" and v.default is None
    s = decl("setting rule = fast one of fast | slow", N.SettingDecl)
    assert s.default.id == "fast" and s.choices == ["fast", "slow"]
    s = decl("setting hand_size = 5", N.SettingDecl)
    assert s.default.value == 5 and s.choices == []
    d = decl("def bigger(a, b) = if a > b then a else b", N.DefDecl)
    assert [p.name for p in d.params] == ["a", "b"]
    assert isinstance(d.body, N.CondExpr)
    d = decl("def constant = 3", N.DefDecl)
    assert d.params == []
    p = decl("procedure deal(p: player, n: int) { draw n from deck to hand(p) }", N.ProcDecl)
    assert [(x.name, x.type.name) for x in p.params] == [("p", "player"), ("n", "int")]
    assert isinstance(p.body[0], N.Draw)


def test_keyword_members():
    k = decl("keyword boost(n) {\n  usable if n > 0\n  effect { log \"{n}\" }\n"
             "  at end of round { log \"end\" }\n  when c enters pile { log \"in\" }\n"
             "  always { log \"on\" }\n}", N.KeywordDecl)
    assert k.name == "boost" and [p.name for p in k.params] == ["n"]
    assert isinstance(k.usable, N.Compare)
    assert isinstance(k.effect[0], N.Log)
    assert [t.kind for t in k.triggers] == ["at", "enter"]
    assert len(k.always) == 1
    at(k.triggers[1], 5, 3)


def test_phase_setup_result():
    ph = decl("phase trade unless round == 1 { end phase }", N.PhaseDecl)
    assert ph.name == "trade" and isinstance(ph.unless, N.Compare)
    assert isinstance(decl("setup { shuffle deck }", N.SetupDecl).body[0], N.Shuffle)
    assert isinstance(decl("result { win players }", N.ResultDecl).body[0], N.Win)


@pytest.mark.parametrize("text, fields", [
    ("at start of round { }", {"kind": "at", "when": "start", "timing": "round", "phase": None}),
    ("at end of phase play { }", {"kind": "at", "when": "end", "timing": "phase", "phase": "play"}),
    ("at start of turn if current == player(1) as first { }", {"kind": "at", "timing": "turn", "name": "first"}),
    ("at end of game { }", {"kind": "at", "when": "end", "timing": "game"}),
    ("when c enters pile if c.point > 2 { }", {"kind": "enter", "var": "c", "zone": "pile"}),
    ("when c leaves hand { }", {"kind": "leave", "var": "c", "zone": "hand"}),
    ("when scored(p, n) { }", {"kind": "signal", "signal": "scored", "params": ["p", "n"]}),
])
def test_triggers(text, fields):
    t = decl(text, N.TriggerDecl)
    for name, value in fields.items():
        assert getattr(t, name) == value, name


def test_always_named():
    a = decl("always as keep_score { log \"x\" }", N.AlwaysDecl)
    assert a.name == "keep_score" and len(a.body) == 1


def test_variant_overlay_items():
    v = decl('variant quick extends short, easy {\n  replace def limit = 3\n  remove slow_phase\n'
             '  set rule = fast\n  at end of round { end game }\n}', N.VariantDecl)
    assert v.name == "quick" and v.extends == ["short", "easy"]
    replaced, removed, setting, trigger = v.items
    assert isinstance(replaced, N.DefDecl) and replaced.replace
    assert isinstance(removed, N.RemoveDecl) and removed.name == "slow_phase"
    assert isinstance(setting, N.SetSetting) and setting.name == "rule"
    assert isinstance(trigger, N.TriggerDecl) and not trigger.replace
    at(removed, 3, 3)


def test_doc_comments_attach_to_the_next_thing():
    rules = parse('//! Intro line.\n//! Second.\n\n/// The game.\n/// More.\ngame "T" {\n  /// two players\n'
                  '  players 2\n  round: p\n}\n/// The phase.\nphase p {\n  /// says hi\n  log "hi"\n}\n')
    assert rules.header_doc == ["Intro line.", "Second."]
    game, phase = rules.decls
    assert game.doc == ["The game.", "More."]
    assert game.member_docs["players"] == ["two players"]
    assert phase.doc == ["The phase."]
    assert phase.body[0].doc == ["says hi"]


def test_comments_are_ignored():
    ph = decl("phase p { // a comment\n  log \"x\" // another\n}", N.PhaseDecl)
    assert len(ph.body) == 1


# ------------------------------------------------------------------ statements


@pytest.mark.parametrize("text, kind", [
    ("let x = 1", N.Let),
    ("x = 2", N.Assign),
    ("x.score += 2", N.Assign),
    ("set x = 2", N.Assign),
    ("deal(current)", N.Assign),
    ("if a { } elif b { } else { }", N.If),
    ("for each c in hand(current) where c.point > 1 chosen by current { }", N.For),
    ("for c in deck { }", N.For),
    ("while a { }", N.While),
    ("repeat 3 times { }", N.RepeatTimes),
    ("repeat until a { }", N.RepeatUntil),
    ('choose c from hand(current) where c.point > 1 by current optional as "Pick"', N.Choose),
    ("choose by current { option a { } option b(x in xs where x > 1, y in ys) if ok { } }", N.ChooseBlock),
    ("move c to pile at (1, 2) on bottom face down", N.Move),
    ("discard c", N.Discard),
    ("draw 2 from deck to hand(current) face down", N.Draw),
    ("draw up to 4 from deck to hand(current)", N.Draw),
    ("shuffle deck", N.Shuffle),
    ("create starters in deck", N.Create),
    ("reveal c to current", N.Reveal),
    ("hide c", N.Hide),
    ("turn c face down", N.Flip),
    ("signal scored(current, 2)", N.Signal),
    ("perform boost(2) on c", N.Perform),
    ("win current", N.Win),
    ("end turn", N.End),
    ("take turns from player(1) counterclockwise skipping current.passed until done once { }", N.TakeTurns),
    ("step count_up { }", N.StepBlock),
    ('log "hello {current}"', N.Log),
    ('fail "impossible"', N.Fail),
    ("break", N.Break),
    ("continue", N.Continue),
    ("return", N.Return),
])
def test_statement_kinds(text, kind):
    s = stmt(text)
    assert isinstance(s, kind)
    at(s, 2, 1)


def test_statement_details():
    s = stmt("x.score -= 2")
    assert s.op == "-=" and isinstance(s.target, N.Attr) and s.target.name == "score"
    s = stmt("deal(current)")
    assert s.op is None and isinstance(s.target, N.Call) and s.target.func == "deal"
    s = stmt("if a { log \"1\" } elif b { log \"2\" } else { log \"3\" }")
    assert len(s.branches) == 2 and len(s.other) == 1
    s = stmt("for each c in deck where c.point > 1 chosen by current { }")
    assert s.var == "c" and isinstance(s.cond, N.Compare) and isinstance(s.chosen_by, N.Name)
    s = stmt('choose c from hand(current) where c.point > 1 by current optional as "Pick"')
    assert (s.var, s.opts.optional, s.opts.prompt) == ("c", True, "Pick")
    assert s.opts.by.id == "current"
    s = stmt("choose { option a { } option b(x in xs where x > 1, y in ys) if ok { end turn } }")
    assert [o.name for o in s.options] == ["a", "b"]
    assert [b.var for b in s.options[1].bindings] == ["x", "y"]
    assert s.options[1].bindings[0].cond is not None and s.options[1].cond.id == "ok"
    assert s.opts.by is None and not s.opts.optional
    s = stmt("move c to pile at (1, 2) on bottom face down")
    assert isinstance(s.place.at, N.CellLit) and s.place.end == "bottom" and s.place.face == "down"
    s = stmt("draw 2 from deck to hand(current) on top")
    assert s.count.value == 2 and not s.up_to and s.place.end == "top"
    s = stmt("draw from deck to pile")
    assert s.count is None
    s = stmt("draw up to 4 from deck to hand(current)")
    assert s.up_to and s.count.value == 4
    s = stmt("turn c face up")
    assert s.face == "up"
    s = stmt("take turns from player(1) counterclockwise skipping current.passed until done once { }")
    assert s.direction == "counterclockwise" and s.once
    assert isinstance(s.start, N.Call) and isinstance(s.skipping, N.Attr) and s.until.id == "done"
    s = stmt("take turns { }")
    assert s.start is None and s.direction is None and not s.once
    s = stmt("signal scored(current, 2)")
    assert s.name == "scored" and len(s.args) == 2
    s = stmt("perform boost on c")
    assert s.what.id == "boost" and s.on.id == "c"
    s = stmt("end game")
    assert s.what == "game"


def test_statements_separated_by_newlines_or_semicolons():
    assert len(stmts("let a = 1; let b = 2\nlet c = 3")) == 3
    assert len(stmts("let a = 1 let b = 2")) == 2


def test_nested_statement_spans():
    s = stmts("if a {\n  while b {\n    move c to pile\n  }\n}")[0]
    inner = s.branches[0][1][0]
    at(inner, 3, 3)
    at(inner.body[0], 4, 5)
    at(inner.body[0].to, 4, 15)


# ------------------------------------------------------------------ expressions


def test_precedence_of_arithmetic():
    e = expr("1 + 2 * 3 - 4")
    assert isinstance(e, N.BinOp) and e.op == "-"
    assert e.left.op == "+" and e.left.right.op == "*"


def test_precedence_of_logic():
    e = expr("not a and b or c")
    assert e.op == "or"
    assert e.items[0].op == "and" and isinstance(e.items[0].items[0], N.Not)


@pytest.mark.parametrize("text, op", [("a == b", "=="), ("a != b", "!="), ("a <= b", "<="), ("a ≥ b", ">="),
                                      ("a ≤ b", "<="), ("a ≠ b", "!="), ("a > b", ">")])
def test_comparisons(text, op):
    e = expr(text)
    assert isinstance(e, N.Compare) and e.op == op


def test_other_expressions():
    assert isinstance(expr("x in xs"), N.Member) and not expr("x in xs").negated
    assert expr("x not in xs").negated
    r = expr("1..13")
    assert isinstance(r, N.Range) and r.low.value == 1 and r.high.value == 13
    assert isinstance(expr("-x"), N.Neg)
    c = expr("if a then 1 else 2")
    assert isinstance(c, N.CondExpr) and c.then.value == 1
    f = expr("[c in hand(p) where c.point > 3]")
    assert isinstance(f, N.FilterList) and f.var == "c" and isinstance(f.coll, N.Call)
    m = expr("[c.point * 2 for c in deck where c.point > 1]")
    assert isinstance(m, N.MapList) and m.var == "c" and m.cond is not None
    call = expr("count(c in deck where c.point > 3)")
    assert isinstance(call, N.Call) and isinstance(call.args[0], N.FilterList)
    call = expr("sum(c.point for c in deck)")
    assert isinstance(call.args[0], N.MapList)
    cell = expr("(1, -2)")
    assert isinstance(cell, N.CellLit) and isinstance(cell.b, N.Neg)
    assert isinstance(expr("(1 + 2)"), N.BinOp)
    idx = expr("xs[0].name")
    assert isinstance(idx, N.Attr) and isinstance(idx.obj, N.Index)
    lit = expr("[1, 2, 3]")
    assert isinstance(lit, N.ListLit) and len(lit.items) == 3
    assert isinstance(expr("[]"), N.ListLit)
    assert isinstance(expr("none"), N.NoneLit)
    assert expr("true").value is True
    assert expr('"a {b}"').value == "a {b}"
    assert expr('"say \\"hi\\""').value == 'say "hi"'
    kw = expr("Card(point: 3)")
    assert isinstance(kw, N.Call) and kw.kwargs[0].name == "point"


def test_expression_spans():
    e = decl("def total = 1 + count(deck) * 2", N.DefDecl).body
    at(e, 1, 13)
    at(e.left, 1, 13)
    at(e.right, 1, 17)
    at(e.right.left, 1, 17)
    at(e.right.left.args[0], 1, 23)
    assert (e.right.left.span.end_line, e.right.left.span.end_column) == (1, 28)


def test_spans_name_the_file():
    rules = parse(GAME + "phase play { end game }", "some/where.rules")
    for node in walk(rules):
        assert node.span.file == "some/where.rules"


# ------------------------------------------------------------------ the corpus


CORPUS = GAMES + EXAMPLES


@pytest.mark.parametrize("path", CORPUS, ids=[p.relative_to(REPO).as_posix() for p in CORPUS])
def test_every_game_and_example_parses(path):
    rules = parse_file(path)
    assert rules.game() is not None
    nodes = list(walk(rules))
    assert len(nodes) > 20
    for node in nodes:
        assert node.span.file == str(path), f"{type(node).__name__} has file {node.span.file!r}"
        assert node.span.line > 0 and node.span.column > 0, f"{type(node).__name__} has no position: {node.span}"


def test_corpus_is_not_empty():
    assert GAMES and EXAMPLES


# ------------------------------------------------------------------ errors


def test_syntax_error_is_a_rules_error_with_a_position():
    with pytest.raises(RulesError) as info:
        parse(GAME + "phase play {\n  mvoe c to pile\n}")
    (d,) = info.value.diagnostics
    assert (d.span.line, d.span.column) == (6, 3)
    assert "move" in d.hint
    assert_plain_words(info.value.format())


def test_every_syntax_error_of_a_file_is_reported():
    text = GAME + "def a = (1\nphase p { if x = 1 { } }\nzone z hidden\nsetup { log 'x' }\n"
    with pytest.raises(RulesError) as info:
        parse(text)
    assert [d.span.line for d in info.value.diagnostics] == [5, 6, 8]
    assert_plain_words(info.value.format())


def test_unreadable_file():
    with pytest.raises(RulesError) as info:
        parse_file(REPO / "no" / "such.rules")
    assert "cannot read" in info.value.diagnostics[0].message


def _parse_alike(lark, other) -> int:
    """Every .rules file of the repository (its long decks read aside, as parse_text does) gives the
    same AST, spans included, or the same error, with both Lark parsers; how many files."""
    from rulelang.language import parser as P
    from rulelang.language.fastcards import split_card_blocks

    compared = 0
    for path in sorted(p for p in REPO.rglob("*.rules") if p.is_file()):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        fast_text, _ = split_card_blocks(text, str(path))

        def outcome(parser):
            try:
                return P.ToAst(str(path), 0).transform(parser.parse(fast_text))
            except (P.UnexpectedInput, P._SyntaxProblem) as exc:
                return type(exc).__name__ + str(getattr(exc, "line", ""))

        assert outcome(lark) == outcome(other), path
        compared += 1
    return compared


def test_the_shipped_parser_is_made_from_this_grammar():
    """grammar/rulelang.lalr, the parser saved by Lark (`Lark.save`), saves each first parse on a
    machine from building the LALR tables (about half a second). After a grammar change (or a change
    to how the parser is made: its header says), write it again:
    python3 -c "from rulelang.language.lark_parser import write_tables; write_tables()" """
    from rulelang.language import lark_parser as L
    from rulelang.core.resources import grammar_path, tables_path

    grammar = grammar_path().read_text(encoding="utf-8")
    with open(tables_path(), "rb") as f:
        shipped = f.readline().rstrip(b"\n").split()
    expected = L._tables_header(grammar).split()
    assert shipped[:2] == expected[:2], "grammar/rulelang.lalr is older than the grammar: run write_tables()"
    assert shipped[4:] == expected[4:], "the parser is made otherwise than when grammar/rulelang.lalr " \
                                        "was written: run write_tables()"
    # made with another Lark or Python, the file is not used (the parser is built); with these, it is
    assert (L._saved_parser(tables_path(), L._tables_header(grammar)) is not None) == (shipped == expected)


def test_the_shipped_parser_parses_as_lark_built_from_the_grammar():
    from lark import Lark

    from rulelang.language import lark_parser as L

    built = Lark(L.grammar_path().read_text(encoding="utf-8"), **L._options())
    assert _parse_alike(L._lark(), built) > 100


def _without_the_shipped_parser(monkeypatch, tmp_path):
    from rulelang.language import lark_parser as L

    monkeypatch.setattr(L, "tables_path", lambda: tmp_path / "absent.lalr")


def test_a_shipped_parser_that_does_not_fit_is_built_again(tmp_path, monkeypatch):
    from rulelang.language import lark_parser as L

    damaged = tmp_path / "rulelang.lalr"
    grammar = L.grammar_path().read_text(encoding="utf-8")
    header = L._tables_header(grammar)
    damaged.write_bytes(header + b"\nnot a pickle")
    monkeypatch.setattr(L, "tables_path", lambda: damaged)
    monkeypatch.setenv("RULELANG_CACHE", "0")
    assert L._saved_parser(damaged, header) is None
    L._lark.cache_clear()
    try:
        assert parse_text('game "G" { players 2 }').game().title == "G"
    finally:
        L._lark.cache_clear()


def test_the_parser_kept_in_the_cache_parses_as_the_shipped_one(tmp_path, monkeypatch):
    """Without a shipped parser that fits (the grammar was changed since write_tables, or another Lark
    or Python), the first load on a machine builds the parser and saves it into the parse cache;
    later processes load that. It gives every file the same AST, spans included, and the same
    errors; a damaged one is built again."""
    from rulelang.language import lark_parser as L

    shipped = L._lark()
    monkeypatch.setenv("RULELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULELANG_CACHE", raising=False)
    _without_the_shipped_parser(monkeypatch, tmp_path)
    L._lark.cache_clear()
    try:
        built = L._lark()  # built from the grammar, then kept
        kept = list((tmp_path / "cache").glob("parser-*.lark"))
        assert len(kept) == 1
        assert _parse_alike(built, shipped) > 100
        L._lark.cache_clear()
        with monkeypatch.context() as m:
            m.setattr(L.Lark, "__init__", lambda *a, **k: pytest.fail("built again"))
            from_cache = L._lark()
        assert from_cache is not built
        assert _parse_alike(from_cache, shipped) > 100

        kept[0].write_bytes(b"not a parser")
        L._lark.cache_clear()
        assert parse_text('game "G" { players 2 }').game().title == "G"
        assert kept[0].read_bytes() != b"not a parser"  # kept again
    finally:
        L._lark.cache_clear()


def test_a_statement_may_start_with_player_after_a_value():
    """After a value (`let n = 2`), the lexer may read "player" as the keyword (`per player`): a
    statement starting with `player(1).score = ...` parses all the same, as the call it is."""
    from rulelang.language.parser import parse_text

    text = ('game "K" {\n  players 2\n  round: play\n}\nplayer { score: int = 0 }\nzone hand per player\n'
            'phase play {\n  let n = 2\n  player(1).score = 10 / n\n  end game\n}\n')
    rules = parse_text(text, "k.rules")
    phase = [d for d in rules.decls if type(d).__name__ == "PhaseDecl"][0]
    target = phase.body[1].target
    assert target.name == "score" and target.obj.func == "player" and target.obj.args[0].value == 1
