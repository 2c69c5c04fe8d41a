"""The code generator (rulelang/compile/codegen.py): the generated code plays the expected matches.

Every game and example, in every mode, plays a seeded match with seeded random answers, and it
must be the expected one: the same number of options at every decision, the same result, the same
log, every card in the same place. The expected values (digests of matches, logs, messages) are in
tests/codegen_expected.json: they are what the closure engine, the second engine rulelang had
before the generator wrote every expression, gave for the same tests (`agrees`). A rules error
raised inside generated code still names its rules line, and loading the same game twice compiles
its module only once.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import re
import warnings
from pathlib import Path

import pytest

import rulelang
from rulelang.compile import codegen_cache, codegen_statements
from rulelang.core.errors import RulesError

REPO = Path(__file__).resolve().parent.parent
DECISIONS = 60


def cases() -> list[tuple[Path, str | None]]:
    from rulelang.language.astcache import parse_file_cached as parse_file  # (collecting: each file parsed once)

    out = []
    for path in sorted([*REPO.glob("games/*.rules"), *REPO.glob("examples/*.rules")]):
        out.append((path, None))
        out.extend((path, v) for v in parse_file(path).variants())
    return out


def load_game(*args, **kwargs):
    game = rulelang.load(*args, **kwargs)
    assert game.program.generated is not None
    return game


EXPECTED_FILE = Path(__file__).resolve().parent / "codegen_expected.json"
EXPECTED = json.loads(EXPECTED_FILE.read_text(encoding="utf-8")) if EXPECTED_FILE.exists() else {}
RECORD = os.environ.get("RULELANG_RECORD_EXPECTED") == "1"  # write codegen_expected.json anew


def agrees(key: str, value, tmp_path=None) -> bool:
    """Whether `value` (a digest, a log, a message: anything JSON holds) is the one expected for
    `key` (tests/codegen_expected.json), the test's folder `tmp_path` written as <tmp>. With
    RULELANG_RECORD_EXPECTED=1 it is recorded instead (an intended change of the expected values)."""
    text = json.dumps(value, sort_keys=True, default=str)
    if tmp_path is not None:
        text = text.replace(str(tmp_path), "<tmp>")
    value = json.loads(text)
    if RECORD:
        EXPECTED[key] = value
        EXPECTED_FILE.write_text(json.dumps(EXPECTED, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return True
    assert key in EXPECTED, f"no expected value for {key!r}"
    return EXPECTED[key] == value


def played(game, seed: int, decisions: int | None = DECISIONS) -> str:
    """A digest of a seeded match with seeded random answers, for so many decisions (None: to its
    end), or of the error that stopped it: every choice, where the game and every card stand (with
    the card's fields) and the log."""
    match = game.new_match(seed=seed)
    rng = random.Random(seed)
    seen = []
    try:
        while not match.is_over and (decisions is None or len(seen) < decisions):
            n = match.option_count()
            i = rng.randrange(n)
            seen.append((n, i, match.legal_options()[i].label))
            match.apply(i)
    except RulesError as exc:
        seen.append(str(exc))
    zones = {key: [e.id for e in zone.items] for key, zone in sorted(match.s.zones.items())}
    cards = [(e.id, sorted(e.attrs.items()), e.cell, e.face_down) for e in match.s.entities]
    record = [seen, match.result, match.s.round, match.s.phase, match.s.current, match.s.decisions, zones, cards,
              match.s.log]
    return hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()


CASES = cases()


@pytest.mark.parametrize("path, mode", CASES, ids=[f"{p.stem}-{m or 'base'}" for p, m in CASES])
def test_every_game_plays_the_expected_match(path, mode):
    generated = load_game(path, variant=mode)
    assert agrees(f"match {path.stem}-{mode or 'base'}", played(generated, 11))


RUNAWAY = """\
game "G" { players 2  round: play }
zone pile
def half(n) = n / 0
def pick(xs) = top(xs)
phase play {
  let n = 3
  if half(n) > 0 { end game }
}
"""


def test_a_rules_error_in_generated_code_names_its_rules_line(tmp_path):
    game = load_game(tmp_path / "g.rules", text=RUNAWAY)
    with pytest.raises(RulesError) as info:
        game.new_match(seed=1)
    message = str(info.value)
    assert "g.rules:3:" in message and "division by zero" in message
    assert agrees("runaway", message, tmp_path)


@pytest.mark.parametrize("body, value, message", [
    ("neighbors(xs)", "3", "3 is not on a board"),  # the built-in says what is wrong
    # a Python error inside the built-in, said in the rules' words
    ("at(pile, xs)", "[3]", "at() could not use these values: a list cannot be a cell or a key"),
    ("count(at(pile, xs))", "[3]", "at() could not use these values"),  # the fast path of count(at(...))
])
def test_a_failing_builtin_in_generated_code_names_its_call(body, value, message, monkeypatch, tmp_path):
    text = RUNAWAY.replace("if half(n) > 0", "if count(pick(n)) > 0").replace("top(xs)", body).replace(
        "let n = 3", f"let n = {value}").replace("zone pile\n", "zone pile: board grid 4 size 3 by 3\n")
    game = load_game(tmp_path / "g.rules", text=text)
    with pytest.raises(RulesError) as info:
        game.new_match(seed=1)
    said = str(info.value)
    assert "g.rules:4:" in said and message in said, said
    assert agrees(f"failing built-in {body}", said, tmp_path)
    generated = load_game(tmp_path / "g.rules", text=text).program.generated
    assert {entry[1].line for entry in generated.linemap if entry is not None} >= {4, 7}  # the line map points into the rules


def test_a_second_load_hits_the_cache(monkeypatch):
    path = REPO / "examples" / "tictactoe.rules"
    load_game(path)
    before = codegen_cache.cache_info()
    game = load_game(path)
    after = codegen_cache.cache_info()
    assert after["hits"] == before["hits"] + 1 and after["misses"] == before["misses"]
    other = load_game(REPO / "examples" / "hex.rules", variant="swap")
    assert codegen_cache.cache_info()["misses"] >= after["misses"]
    assert game.program.generated.filename != other.program.generated.filename
    match = game.new_match(seed=3)
    while not match.is_over:
        match.apply(0)
    assert match.is_over


def test_another_process_finds_the_compiled_module_on_disk(monkeypatch, tmp_path):
    monkeypatch.setenv(codegen_cache.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(codegen_cache, "_CODE_CACHE", {})  # as in a new process
    path = REPO / "examples" / "connect4.rules"
    first = load_game(path)
    # the module's code, and its units kept for the next version of the game (an edit)
    assert len(list(tmp_path.glob("*.marshal"))) == 2 and len(list(tmp_path.glob("units-*.marshal"))) == 1
    monkeypatch.setattr(codegen_cache, "_CODE_CACHE", {})
    before = codegen_cache.cache_info()
    second = load_game(path)
    assert codegen_cache.cache_info()["disk_hits"] == before["disk_hits"] + 1
    assert codegen_cache.cache_info()["misses"] == before["misses"]
    assert played(second, 5) == played(first, 5)
    monkeypatch.setenv(codegen_cache.CACHE_ENV, "off")
    assert codegen_cache.cache_dir() is None


def test_cheap_defs_are_evaluated_each_time_and_others_remembered(monkeypatch):
    """A def cheaper to evaluate than to look up (fields, constant-time built-ins, the cards of one
    cell) is a leaf; one that calls a def or walks a zone is remembered until the state changes."""
    game = load_game(REPO / "examples" / "tictactoe.rules")
    source = game.program.generated.source
    leaves = {line.split("# def ")[1].split(" ")[0] for line in source.splitlines() if "(a leaf," in line}
    remembered = {line.split("# def ")[1].split(" ")[0] for line in source.splitlines() if "(remembered)" in line}
    assert {"cell_x", "cell_y", "owns"} <= leaves
    assert {"has_line", "free_cells"} <= remembered



def generated_def(path, monkeypatch, name: str) -> str:
    """The generated source of a def's evaluation (E_name), with the code generator."""
    source = load_game(path).program.generated.source
    start = source.index(f"def E_{name}(")
    return source[start:source.index("\ndef ", start) + 1]


def first_log(path, key: str) -> list:
    """The log of a new match of the rules file (seed 1), which must be the expected one (agrees)."""
    log = load_game(path).new_match(seed=1).s.log
    assert agrees(key, log), log
    return log


def failure(path, key: str) -> str:
    """The error that starting a match of the rules file gives, which must be the expected one."""
    game = load_game(path)
    with pytest.raises(RulesError) as info:
        game.new_match(seed=1)
    said = str(info.value)
    assert agrees(key, said, path.parent), said
    return said


INLINE_LEAF = """
game "L" { players 2; round: a; max rounds 1 }
component C { point: int }
cards cs { C(point: 1) * 2 }
zone pile
setup { create cs in pile }
def big(x) = x.point > 0
def many = count(c in pile where big(c))
def bad = count(n in [1, 2] where big(n))
phase a { log "{many}"  log "{bad}" }
"""


def test_a_leaf_def_called_with_a_local_is_written_inline_and_fails_at_its_own_line(monkeypatch, tmp_path):
    """`big(c)` inside a comprehension becomes the body of `big` with `c` for `x`: no call. Its values,
    and its error (at the def's line, as the closure engine says), are the same."""
    path = tmp_path / "l.rules"
    path.write_text(INLINE_LEAF, encoding="utf-8")
    out = failure(path, "inline leaf")
    assert "l.rules:7:" in out and 'has no "point"' in out
    many = generated_def(path, monkeypatch, "many")
    assert "D_big(" not in many and "'point'" in many
    path.write_text(INLINE_LEAF.replace('  log "{bad}"', ""), encoding="utf-8")
    assert first_log(path, "inline leaf log")[:1] == ["2"]


COUNT_WHILE = """
game "W" { players 2; round: a; max rounds 1 }
component C { point: int }
cards cs { C(point: 1) * 2 }
zone pile
setup { create cs in pile }
def leading = count([x in [1, 2, 5, 1] while x < 3])
def before = count([x in [1, 2, 5, 1] until x > 1])
def bad = count([x in [1, 2, 3] while x.point > 0])
phase a { log "{leading} {before}"  log "{bad}" }
"""


def test_count_of_a_while_list_is_a_counting_loop_that_fails_at_its_line(monkeypatch, tmp_path):
    """`count([x in coll while cond])` is written as a loop that counts (no list, no lambda): the same
    values and the same error, at the same rules line, as the closure engine."""
    path = tmp_path / "w.rules"
    path.write_text(COUNT_WHILE, encoding="utf-8")
    out = failure(path, "count while")
    assert "w.rules:9:39" in out and 'has no "point"' in out
    body = generated_def(path, monkeypatch, "leading")
    assert "_takewhile" not in body and "+= 1" in body
    path.write_text(COUNT_WHILE.replace('  log "{bad}"', ""), encoding="utf-8")
    log = first_log(path, "count while log")
    assert "2 1" in log, log


EMPTY_EARLY = """
game "E" { players 2; round: a; max rounds 1 }
component C { point: int }
cards low { C(point: 1) * 2 }
cards high { C(point: 3) }
zone pile
setup { create low in pile  create high in pile }
def above(n) = [c in pile where c.point > n]
def has_above(n) = not empty(above(n))
def any_big = not empty([c in pile where c.point > 2])
def none_huge = empty([c in pile where c.point > 5])
def bad_list(x) = [c in pile where c.point > x.point]
def bad(k) = empty(bad_list(k))
phase a { let a0 = has_above(0)  let a5 = has_above(5)  log "{a0} {a5} {any_big} {none_huge}"  let b = bad(1) }
"""


def test_empty_of_a_where_list_stops_at_the_first_item_kept(monkeypatch, tmp_path):
    """`not empty(above(n))`, for a def whose body is `[x in xs where cond]`, and `empty([...])`, are
    loops that stop at the first item kept: the same answers, and the same error at the def's own
    line, as the closure engine, which makes the whole list."""
    path = tmp_path / "e.rules"
    path.write_text(EMPTY_EARLY, encoding="utf-8")
    out = failure(path, "empty early")
    assert "e.rules:12:" in out
    for name in ("has_above", "any_big", "none_huge", "bad"):
        body = generated_def(path, monkeypatch, name)
        assert "not any(" in body and "D_above(" not in body and "D_bad_list(" not in body, body
    path.write_text(EMPTY_EARLY.replace("  let b = bad(1)", ""), encoding="utf-8")
    log = first_log(path, "empty early log")
    assert log[:1] == ["true false true true"], log


SETTING_DEFS = """
game "F" { players 2; round: a, b; max rounds 1 }
setting level = easy_level one of easy_level | hard_level
setting mode = calm one of calm | wild
var bonus: int = 5
var total: int = 0
component C { point: int }
cards cs { C(point: 1) * 2 }
zone pile
setup { create cs in pile }
def hard = level == hard_level
def doubled = if hard then 2 else 1
def wild_mode = mode == wild
def scaled(n) = if hard then n * 2 else n
def gated(n) = not hard or n > 1
always {
  if hard { total = bonus + count(pile) } else { total = count(pile) }
}
phase a { }
phase b {
  let h = hard
  let d = doubled
  let w = wild_mode
  let s3 = scaled(3)
  let g1 = gated(1)
  log "{h} {d} {w} {total} {s3} {g1}"
  let mode = wild
  if mode == wild { log "shadowed" }
}
"""


def test_defs_the_settings_fix_are_written_in_place(monkeypatch, tmp_path):
    """A game is compiled for one set of settings: `def hard = level == hard` is `False` or `True` in
    the generated code, and a continuous rule's branch the settings rule out reads nothing. A name a
    rule binds for itself (`let mode = wild`) is never taken for the setting it hides."""
    path = tmp_path / "f.rules"
    path.write_text(SETTING_DEFS, encoding="utf-8")
    for level, expected in (("easy_level", "false 1 false 2 3 true"), ("hard_level", "true 2 false 7 6 false")):
        log = load_game(path, settings={"level": level}).new_match(seed=1).s.log
        assert agrees(f"setting defs {level}", log)
        assert expected in log and "shadowed" in log, log
        game = load_game(path, settings={"level": level})
        generated = game.program.generated
        hard = level == "hard_level"
        assert generated.setting_defs == {"hard": hard, "doubled": 2 if hard else 1}  # not wild_mode: `let mode`
        calls = re.findall(r"(?<!def )D_(\w+)\(c\)", generated.source)
        assert "hard" not in calls and "doubled" not in calls and "wild_mode" in calls, calls
        # a def with parameters is written with what the settings fix simplified away
        scaled, gated = (generated.source.split(f"def E_{name}(")[1].split("value = ")[1].split("except")[0]
                         for name in ("scaled", "gated"))
        assert ("* 2" in scaled) == hard and " else L_n" not in scaled, scaled  # no `if hard` left
        assert ("True" in gated) != hard and ("1" in gated) == hard, gated
        reads = game.program.always_reads
        assert ("$bonus" in reads) == hard and "#pile" in reads, reads


NEXT_TO = """
game "N" { players 2; round: a, b; max rounds 1 }
component T { point: int }
cards ts { T(point: 2) * 3 }
zone pile
zone desk: board grid 4 size 3 by 3
setup { create ts in pile }
def near(cell) = sum(t.point for t in neighbors(desk, cell))
def crowded = [cell in cells(desk) where count(t in neighbors(desk, cell) where t.point > 1) >= 2]
phase a {
  let before = near((1, 1))
  move top(pile) to desk at (0, 1)
  move top(pile) to desk at (1, 0)
  let after = near((1, 1))
  let busy = count(crowded)
  log "{before} {after} {busy}"
}
phase b { move top(pile) to desk at (2, 1)  let busy = count(crowded)  log "{busy}" }
"""


def test_the_cards_next_to_a_local_cell_of_a_named_board_follow_the_cards(monkeypatch, tmp_path):
    """`neighbors(desk, cell)` walked by a loop, for a board the rules name and a local cell, before
    and after cards come next to it (the board's remembered lists forgotten): the same values as the
    closure engine."""
    path = tmp_path / "n.rules"
    path.write_text(NEXT_TO, encoding="utf-8")
    assert first_log(path, "next to") == ["0 4 2", "3"]


DISTANCES = """
game "D" { players 2; round: a; max rounds 1 }
component T { point: int }
cards ts { T(point: 2) }
zone pile
zone hexes: board hex radius 3
zone squares: board grid 8 size 5 by 5
zone streets: board grid 4 size 5 by 5
setup { create ts in pile }
def far(cell) = [sum(distance(hexes, cell, o) for o in cells(hexes) where o != cell),
                 sum(distance(squares, cell, o) for o in cells(squares)),
                 sum(distance(streets, cell, o) for o in cells(streets))]
def bad(t) = distance(hexes, t, (0, 0))
phase a { let here = far((1, -1))  log "{here}"  let t = top(pile)  let wrong = bad(t) }
"""


def test_distance_on_a_named_grid_or_hex_board_is_its_formula_in_place(monkeypatch, tmp_path):
    """`distance(board, a, b)` on a hex or grid board the rules name is written as the board's formula;
    a value that is not a cell goes to the built-in, which fails as the closure engine does."""
    path = tmp_path / "d.rules"
    path.write_text(DISTANCES, encoding="utf-8")
    out = failure(path, "distances")
    assert "d.rules:13:" in out
    source = load_game(path).program.generated.source
    assert ") // 2 if (type(" in source and "max(abs(" in source  # hexes, and squares (8 neighbours)
    path.write_text(DISTANCES.replace("  let t = top(pile)  let wrong = bad(t)", ""), encoding="utf-8")
    assert len(first_log(path, "distances log")) == 1


CONSTANT_DEFS = """
game "Constants" { players 2  turn order clockwise  round: play  max rounds 2 }
enum Suit { red, blue }
var bonus: int = 1
zone pile
def corners = [(0, 0), (0, 2), (2, 0), (2, 2)]
def steps = [(dx, dy) for dx in -1..1 for dy in -1..1 where dx != 0 or dy != 0]
def suits = [red, blue]
def far = count(d in steps where d[0] != 0 and d[1] != 0) + count(corners)
def with_bonus = count(corners) + bonus
def pile_size = count(pile)
def double(n) = n * 2
phase play { take turns from player(1) once { choose x from corners as "Pick" } }
"""


def test_defs_that_are_the_same_all_game_are_worked_out_once_per_match(tmp_path, monkeypatch):
    """A def without parameters that names only literals, enum members, its own bound names and
    other such defs (a table of lines, a list of directions) is worked out once per match; one that
    reads a global variable, a zone or a parameter is not."""
    from rulelang.check.dependencies import constant_defs
    from rulelang.language.parser import parse_text

    decls = parse_text(CONSTANT_DEFS, "c.rules").decls
    assert constant_defs(decls) == {"corners", "steps", "suits", "far"}
    path = tmp_path / "c.rules"
    path.write_text(CONSTANT_DEFS, encoding="utf-8")
    game = load_game(path)
    match = game.new_match(seed=1)
    program = game.program
    from rulelang.engine.program import Ctx

    ctx = Ctx({}, match.s, match.vm)
    first = program.defs["far"](ctx, ())
    assert first == 8 and match.s.constants["far"] == 8 and "steps" in match.s.constants
    match.apply(0)
    assert program.defs["far"](ctx, ()) == 8 and program.defs["corners"](ctx, ()) is match.s.constants["corners"]
    assert match.clone().s.constants == {}  # a copy works them out again
    ttt = load_game(REPO / "examples" / "tictactoe.rules")
    assert "def lines (a constant, worked out once per match)" in ttt.program.generated.source

TURN_DEFS = """
game "Turns" { players 2  turn order clockwise  round: play  max rounds 2 }
player { score: int = 0 }
def total = sum(p.score for p in players)
def mine = sum(p.score for p in players where p == current)
def doubled = mine * 2 + total
def said = ["{current} has {total}"][0]
phase play {
  take turns from player(1) once {
    choose x from [1, 2] as "Pick"
    current.score += x
  }
}
"""


def test_defs_that_read_no_turn_are_remembered_across_turns(tmp_path, monkeypatch):
    """A def that mentions no `current`, `round` or `phase` (not even through another def, nor in a
    text's {placeholders}) is remembered for as long as the state is unchanged, across turns; one
    that does is remembered only within its turn."""
    path = tmp_path / "turns.rules"
    path.write_text(TURN_DEFS)
    game = load_game(path)
    source = game.program.generated.source
    remembered = {line.split("def R_")[1].split("(")[0] for line in source.splitlines()
                  if line.startswith("def R_") and "(remembered)" in line}
    assert remembered == {"total", "mine", "doubled", "said"}
    block = {name: source.split(f"def R_{name}(")[1].split("\ndef ")[0] for name in remembered}
    assert "s.state_cache" in block["total"]
    assert all("s.def_cache" in block[n] and "s.current" in block[n] for n in ("mine", "doubled", "said"))
    # and the values follow the turn: the same state, another player to move
    match = game.new_match(seed=1)
    match.apply(1)  # player 1 scores 2
    ctx = rulelang.engine.runtime.Ctx({}, match.s, match.vm)
    defs = game.program.defs
    assert (defs["total"](ctx, ()), defs["mine"](ctx, ()), defs["said"](ctx, ())) == (2, 0, "Player 2 has 2")
    match.s.current = 0  # the turn changes, the state does not
    assert (defs["total"](ctx, ()), defs["mine"](ctx, ()), defs["said"](ctx, ())) == (2, 2, "Player 1 has 2")


TRIAL = """
game "Trial" { players 2  turn order clockwise  round: play  max rounds 2 }
player { score: int = 0 }
def weight(p) = sum(x * (p.score + 1) for x in 1..200)
def above(p, n) = count(x in [1, 2, 3] where x + n > p.score)
def heaviest = max(weight(p) for p in players)
phase play {
  take turns from player(1) once {
    choose x from [1, 2] as "Pick"
    current.score += x
  }
}
"""


def test_a_def_is_remembered_whatever_its_calls_did_before(tmp_path):
    """Whether a def's values are remembered is decided when it is written, never by timing its
    calls: a def without chance that is not a leaf is remembered until the state changes, whether
    or not its arguments come back (`above` is never asked the same thing twice). Its values are
    the same either way."""
    path = tmp_path / "trial.rules"
    path.write_text(TRIAL)
    game = load_game(path)
    ns = game.program.generated.ns
    assert all(ns[f"D_{name}"] is ns[f"R_{name}"] for name in ("heaviest", "weight", "above"))
    assert not any(name.startswith(("T_", "_T_")) for name in ns)  # no def on trial
    match = game.new_match(seed=1)
    match.apply(1)
    ctx = rulelang.engine.runtime.Ctx({}, match.s, match.vm)
    defs = game.program.defs
    p1, p2 = match.s.players
    for n in range(20):
        assert defs["weight"](ctx, (p1,)) == 20100 * 3 and defs["above"](ctx, (p2, n)) == 3
        assert defs["heaviest"](ctx, ()) == 20100 * 3
    assert match.s.state_cache["heaviest"] == {(): 20100 * 3}  # (it reads no turn: kept with the state)
    assert len(match.s.state_cache["above"]) == 20
    match.apply(0)  # the state changes; the values follow it
    assert defs["weight"](ctx, (p2,)) == 20100 * 2 and defs["above"](ctx, (p2, -1)) == 1
    assert defs["heaviest"](ctx, ()) == 20100 * 3
    assert agrees("trial", played(game, 3))


SETTLING = """
game "Settling" { players 2  turn order clockwise  round: play  max rounds 3 }
player { score: int = 0  tokens: int = 0 }
component Chip { value: int = 1  label "chip {value}" }
cards chips in bag { Chip(value: v) for v in 1..6 }
zone bag
zone hand per player
zone table
var best: int = 0
def table_total = sum(c.value for c in table)
def holders = [p in players where p.tokens > 0]
/// What it reads: the table (a zone), each chip's value, the global best.
always as bookkeeping {
  if table_total > best { best = table_total }
  for each p in players { p.score = table_total }
}
phase play {
  take turns from player(1) once {
    choose option from ["keep", "show"] as "Keep the chip or show it?"
    draw 1 from bag to hand(current)
    current.tokens += 1
    if option == "show" { move top(hand(current)) to table }
  }
}
"""


def _game_from(tmp_path, text, name="g.rules"):
    path = tmp_path / name
    path.write_text(text)
    return load_game(path)


def _counting_runs(monkeypatch) -> list:
    """The state's version each time a continuous rule runs, from now on."""
    from rulelang.engine import runtime

    runs = []
    real = runtime.VM.run_sync

    def counting(vm, code, vars):
        runs.append(vm.s.version)
        return real(vm, code, vars)

    monkeypatch.setattr(runtime.VM, "run_sync", counting)
    return runs


def _plays_as_expected(key: str, tmp_path, text, seeds: int) -> None:
    """Seeded random games of the text: the expected options, results and globals (agrees)."""
    g = _game_from(tmp_path, text, "game.rules")
    for seed in range(seeds):
        m, rng, counts = g.new_match(seed=seed), random.Random(seed), []
        while not m.is_over:
            counts.append(m.option_count())
            m.apply(rng.randrange(m.option_count()))
        assert agrees(f"{key} {seed}", (counts, m.result, dict(m.s.globals)), tmp_path), seed


def _settling_with(rule: str) -> str:
    """SETTLING with another continuous rule instead of its own."""
    return SETTLING.split("/// What it reads")[0] + rule + "\n" + SETTLING.split("phase play")[0].split("}\n}\n")[-1] + \
        "phase play" + SETTLING.split("phase play")[1]


def test_continuous_rules_are_skipped_when_nothing_they_read_changed(tmp_path, monkeypatch):
    """A continuous rule that reads the table, chips' values and `best` is not run again after a chip
    is drawn into a hand or a player's tokens change; it is after a chip reaches the table. Skipping
    changes nothing: the same seeds give the same matches as the closure engine, which never skips."""
    game = _game_from(tmp_path, SETTLING)
    assert game.program.always_reads == {"#table", "value", "$best", "score"}
    runs = _counting_runs(monkeypatch)
    match = game.new_match(seed=3)
    runs.clear()
    match.apply(0)  # keep: a chip to the hand, a token more; the rule reads neither
    assert runs == []
    match.apply(1)  # show: the chip goes to the table, so the rule runs (and again, to its fixed point)
    assert len(runs) >= 1 and match.s.globals["best"] == match.s.zones["table"].items[0].attrs["value"]
    monkeypatch.undo()
    _plays_as_expected("settling", tmp_path, SETTLING, 12)


def test_a_continuous_rule_that_reads_a_cards_zone_runs_again_after_any_move(tmp_path, monkeypatch):
    """`c.zone` changes when the card moves, between whichever zones: a rule that reads it is run
    again after any card moved (and skipped when none did and nothing else it reads changed)."""
    from rulelang.check.dependencies import CARD_ZONES

    text = _settling_with("always { best = count(c in table where c.zone == table) + sum(c.value for c in table) }")
    game = _game_from(tmp_path, text)
    assert game.program.always_reads == {"#table", CARD_ZONES, "value", "$best"}
    runs = _counting_runs(monkeypatch)
    match = game.new_match(seed=3)
    runs.clear()
    match.apply(0)  # keep: a chip moves from the bag to a hand, zones the rule does not name
    assert runs != []
    runs.clear()
    match.vm.settle()
    assert runs == []  # nothing moved or changed since it settled
    monkeypatch.undo()
    _plays_as_expected("settling with a cards zone", tmp_path, text, 8)


@pytest.mark.parametrize("rule, why", [
    ("var held: Chip\nalways { if held != none { held.value = 1 } }", "a global holding a card leads to any zone"),
    ("always { for each c in table { log \"{c}\" } }", "a log line per pass would be lost"),
    ("always { for each c in table where zone_of(c) != table { c.value = 0 } }", "zone_of leads to a zone not named"),
    ("always { best = count(c in table where label(c) == \"x\") }", "label reads any field"),
    ("always { best = roll(6) }", "chance"),
])
def test_continuous_rules_that_read_what_cannot_be_told_are_never_skipped(tmp_path, monkeypatch, rule, why):
    game = _game_from(tmp_path, _settling_with(rule))
    assert game.program.always_reads is None, why


def test_a_field_change_keeps_the_remembered_values_of_defs_that_do_not_read_it(tmp_path, monkeypatch):
    game = _game_from(tmp_path, SETTLING)
    match = game.new_match(seed=1)
    match.apply(1)  # a chip on the table
    s = match.s
    ctx = rulelang.engine.runtime.Ctx({}, s, match.vm)
    total, holders = game.program.defs["table_total"], game.program.defs["holders"]
    first = (total(ctx, ()), holders(ctx, ()))
    assert {"table_total", "holders"} <= set(s.state_cache)
    from rulelang.check.dependencies import def_reads, readers_of
    from rulelang.language.parser import parse_file
    from rulelang.engine.values import keep_remembered

    readers = readers_of(def_reads(parse_file(tmp_path / "g.rules").decls), "tokens")
    assert readers == ("holders",)
    s.players[1].attrs["tokens"] += 5  # what `p.tokens += 5` does (compile_stmt's set_attr)
    s.version += 1
    keep_remembered(s, readers)  # only the defs that read tokens forget
    assert "table_total" in s.state_cache and "holders" not in s.state_cache
    first = (first[0], [p for p in s.players if p.attrs["tokens"] > 0])
    assert (total(ctx, ()), holders(ctx, ())) == first


NEIGHBOURHOOD = REPO / "tests" / "codegen" / "neighbourhood.rules"


def test_defs_of_a_card_and_its_neighbours_are_found():
    from rulelang.check.dependencies import neighbourhood_defs
    from rulelang.language.parser import parse_file, parse_text

    assert neighbourhood_defs(parse_file(str(NEIGHBOURHOOD)).decls) == {"strength", "crowded", "hemmed"}
    assert {"needs_met", "providers", "surrounded"} <= neighbourhood_defs(parse_file(str(REPO / "games" / "ecogon.rules")).decls)
    text = NEIGHBOURHOOD.read_text(encoding="utf-8")
    # a zone named, the turn read, the neighbours of another card than the parameter: left out
    for body, why in [("count(pile) + count(neighbors(s))", "a zone"),
                      ("count(neighbors(s)) + round", "the turn"),
                      ("count(neighbors(first(neighbors(s))))", "another card's neighbours")]:
        changed = text.replace("def crowded(s) = count(neighbors(s)) >= 2 and strength(s) > 9",
                               f"def crowded(s) = {body}")
        assert neighbourhood_defs(parse_text(changed, "n.rules").decls) == {"strength", "hemmed"}, why


RECURSION = """
game "Loops" { players 2  turn order clockwise  round: play  max rounds 1 }
component Card { power: int = 1  goal: condition = pays(self) }
cards deck_cards in deck { Card() * 2 }
zone deck
keyword bold { usable if deep(1) }
def plain(n) = n + 1
def uses_plain(n) = plain(n) * 2
def down(n) = if n <= 0 then 0 else down(n - 1)
def ping(n) = if n <= 0 then 0 else pong(n - 1)
def pong(n) = ping(n)
def pays(x) = x.power > 0 and all(c in deck where c.goal)
def asks(c) = usable(c, bold)
def deep(n) = asks(first(deck))
def named(n) = "{said}"
def said = named(1)
def passes(n) = matched([n], [n], down)
phase play { take turns once { choose x from [1, 2] as "Pick" } }
"""


def test_defs_that_may_call_themselves_are_found():
    """Only defs on a cycle of calls count their recursion depth. A def calls those it names (also as a
    value or in a text), every def through `usable`, and those that cards' expressions name (a
    condition field is worked out when read)."""
    from rulelang.check.dependencies import recursive_defs
    from rulelang.language.parser import parse_file, parse_text

    found = recursive_defs(parse_text(RECURSION, "loops.rules").decls)
    assert found == {"down", "ping", "pong", "pays", "asks", "deep", "named", "said"}
    ecogon = recursive_defs(parse_file(str(REPO / "games" / "ecogon.rules")).decls)
    assert "may_place" not in ecogon and "colour_ok" not in ecogon


CONTINUOUS = REPO / "tests" / "codegen" / "continuous.rules"


def test_a_continuous_rule_is_one_generated_function(monkeypatch, tmp_path):
    """A continuous rule made of simple statements (a procedure call and a signal among them), `if`,
    `for each ... where`, `break` and `continue` runs as one generated function; one with a `while`
    loop stays the VM's. The closure
    engine runs both on the VM: whole games are the same in both engines, and a rule that fails
    names its line in both."""
    generated = load_game(CONTINUOUS)
    synced = {code.name: code.sync is not None for code in generated.program.codes if code.kind == "always"}
    assert synced == {"tides": True, "drying": False}
    for seed in range(20):
        assert agrees(f"continuous {seed}", played(generated, seed, decisions=None)), seed
    failing = tmp_path / "failing.rules"
    failing.write_text(CONTINUOUS.read_text(encoding="utf-8").replace(
        "    if s.size > most { most = s.size }", "    if s.size > most { most = s.size / (s.size - 5) }"))
    match = load_game(failing).new_match(seed=1)
    with pytest.raises(RulesError) as caught:
        while not match.is_over:
            match.apply(0)
    error = caught.value.diagnostics[0]
    assert error.span.line == 60 and agrees("continuous failing", error.message)


def test_values_remembered_by_neighbourhood_stay_right(monkeypatch):
    """Defs of a card and the cards next to it keep their values across moves elsewhere on the
    board; cards coming and going next to it, a field or global it reads changing, or a card turned
    face down make them stale. The closure engine remembers nothing across moves, so the two engines
    play the same whole games only if the values forgotten are the right ones (this fails when a
    board does not count a card leaving, a cell's neighbours, or a field's readers forgetting)."""
    generated = load_game(NEIGHBOURHOOD)
    for seed in range(25):
        assert agrees(f"neighbourhood {seed}", played(generated, seed, decisions=None)), seed


ARITHMETIC = """
game "Sums" { players 2  turn order clockwise  round: play }
def value(a, b) = EXPR
phase play { end game }
"""


@pytest.mark.parametrize("expr, pairs", [
    # 7 * 2 + 3 - 1 = 16; -14 - 4 - 1 = -19 (division rounds down, as Python's //); a number beyond ±10^18
    ("a * b + a / b - a % b", [(7, 2), (-7, 2), (7, -2), (0, 5), (10**9, 10**9), (10**10, 10**9), (3, 0)]),
    ("a * b", [("ab", 3), (3, "ab"), ([1, 2], 2), (True, 3), ("a", "b"), (2, [1] * 40)]),
    ("a / b", [(1, 0), ("x", 2), (7, 7)]),
    ("a % b", [(1, 0), (-1, 3), (5, True)]),
    ("count([k in 1..3 while k < a]) + sum([k * b for k in -2..2])", [(2, 3), (0, -1)]),
    ("all(k in 0..2 where k * b < a) and any(k in 5..4 where true)", [(10, 2), (3, 2)]),
    # a literal added, taken away, compared: in place for whole numbers, up to the bound and beyond it
    ("[a + 1, a - 1, b + 0, a + b - 3]", [(5, 2), (10**18, 0), (-10**18, 0), (10**18 - 1, 1), ("x", 1),
                                         ([1], 2), (True, 1), (None, 0), (2.5, 1)]),
    ("[a >= 3, a < 0, b > 10, b <= 1000]", [(3, 11), (2, 10), (True, 1000), ("x", 1), (-1, None), (2.5, 1)]),
    # `and`, `or`, `not` and `if then else` around quantifiers: written as Python's own `if`s (logic_lines)
    ("a > 0 and any(k in 1..3 where k == b)", [(1, 2), (0, 2), (1, 5), ("x", 2), (1, "y")]),
    ("not all(k in 1..3 where k < a) or b == 0", [(4, 1), (2, 1), (2, 0), (None, 1)]),
    ("if a > 0 then b else any(k in 1..3 where k == b)", [(1, 7), (0, 2), (0, 9), (1, [1]), (0, "z")]),
    ("any(k in 1..3 where k == a and not any(j in 1..2 where j == b))", [(1, 3), (1, 1), (4, 3), (2, 2)]),
    ("a == 1 or b == 1 or all(k in 1..2 where k / a > 0)", [(1, 0), (0, 1), (0, 0), (2, 0), (-1, 0)]),
    # two values added: whole numbers in place, up to the bound; texts, lists, truth values by the helper
    ("a + b", [(2, 3), (10**18, 1), (10**18, 0), (-10**18, -1), ("x", "y"), ([1], [2]), (True, 1), (None, 1)]),
    # numbers a loop over a literal range walks are whole numbers for sure: nothing is asked of them,
    # and what they make is still bounded, and still the helper's error on a division by zero
    ("[k * k - k / 2 + k % 3 * -1 for k in 1..4]", [(0, 0), (1, 1)]),
    ("[k / (k - 2) for k in 1..3]", [(0, 0), (1, 1)]),
    ("[k % (k + 1) + a * k - k * b for k in 1..2]", [(3, 2), ("x", 1), (1, [2])]),
    ("[k * a * a for k in 1..2]", [(10**9, 0), (-10**9, 0), (3, 0)]),
    ("count([k in 0..5 where k * b < a and k - 1 >= b]) + a / b", [(9, 1), (2, 0), (4, "y")]),
    # a parameter's coordinates, read once at the def's top: the helper's error when there is none
    ("[a[0] * k + a[1] - b for k in 0..1]", [((1, 2), 0), ([3, 4], 1), ("xy", 0), ([5], 0), (3, 0), ((1, 2), "z")]),
    # two values compared: whole numbers in place; texts, truth values and the rest by the helper
    ("[a < b, a <= b, a > b, a >= b]", [(1, 2), (2, 2), ("x", "y"), ("x", 1), (True, 2), (None, 1), (2.5, 1)]),
    # a list whose condition holds a quantifier: a loop that appends (body_lines)
    ("[k in 1..5 where k > a or any(j in 1..3 where j * k == b)]", [(3, 2), (0, 6), (5, 9), ("x", 1), (9, "y")]),
    ("[a in 1..3 where any(j in 1..2 where j == a + b)]", [(0, 0), (0, 1), (1, "z")]),
    # a position outside the list: both engines say positions count from 0
    ("[a[b], a[-1]]", [([1, 2], 1), ([1, 2], 2), ([5], 1), ([], 0), ([3, 4], -3)]),
    # a def whose value is count([... where ...]): a loop that counts (body_lines), no list made
    ("count([k in 0..5 where k * b < a])", [(9, 1), (2, 0), (4, "y")]),
    ("count([k in a where k > b])", [([1, 2, 3], 1), (3, 0), ([1, "x"], 0), ([], 5)]),
    ("count([k in 1..5 where k > a or any(j in 1..3 where j * k == b)])", [(3, 2), (0, 6), ("x", 1)]),
])
def test_arithmetic_in_generated_code_is_the_closure_engines(expr, pairs, monkeypatch, tmp_path):
    """Whole numbers take a short path in generated code (_mul, _div, _mod, a literal range walked
    as its numbers); every value and every error is the closure engine's."""
    outcomes = _values_of(tmp_path, expr, pairs)
    assert agrees(f"arithmetic {expr}", outcomes, tmp_path)
    assert len(pairs) == 2 or len(set(outcomes)) > 1  # values and errors alike


def _values_of(tmp_path, expr: str, pairs: list) -> list:
    """What `def value(a, b) = EXPR` gives for each pair of values: its value, or its error.
    Loading says nothing (no warning from Python's compiler of the generated code)."""
    path = tmp_path / "sums.rules"
    path.write_text(ARITHMETIC.replace("EXPR", expr))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        game = load_game(path)
    match = game.new_match(seed=1)
    ctx = rulelang.engine.runtime.Ctx({}, match.s, match.vm)
    got = []
    for a, b in pairs:
        try:
            got.append(repr(game.program.defs["value"](ctx, (a, b))))
        except RulesError as exc:
            got.append(str(exc))
        except Exception as exc:  # a rule error raised from a def outside the VM's loop
            got.append(f"{type(exc).__name__}: {exc}")
    return got


def test_after_an_edit_only_the_changed_parts_of_the_module_are_compiled(monkeypatch, tmp_path):
    """A generated module is compiled unit by unit (a def and what goes with it). Lines added above
    change no unit's code (only the comments that give rules lines); a changed number changes the
    unit it is in. Either way errors still name the edited file's lines."""
    monkeypatch.setenv(codegen_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(codegen_cache, "_CODE_CACHE", {})
    monkeypatch.setattr(codegen_cache, "_UNIT_CACHE", {})
    text = (REPO / "games" / "zemico.rules").read_text(encoding="utf-8")
    path = tmp_path / "zemico.rules"
    path.write_text(text, encoding="utf-8")

    def span_lines(game) -> set[int]:
        generated = game.program.generated
        return {entry[1].line for entry in generated.linemap if entry is not None}

    original = span_lines(load_game(path))
    monkeypatch.setattr(codegen_cache, "_UNIT_CACHE", {})  # as in a new process: units from the disk

    def compiled_for(new_text: str):
        path.write_text(new_text, encoding="utf-8")
        before = codegen_cache.cache_info()["units_compiled"]
        game = load_game(path)
        return game, codegen_cache.cache_info()["units_compiled"] - before

    shifted = "// a note\n// another\n" + text
    game, compiled = compiled_for(shifted)
    assert compiled == 0
    assert agrees("after an edit, zemico", played(game, 7))
    assert span_lines(game) == {line + 2 for line in original}  # the generated lines name the new lines

    # a designer's tweak of a number: the units of that def are compiled again, and nothing else;
    # the same when an expression is added (names are numbered within each declaration)
    target = "def all_types_present = all(k in Kind where on_desk(k) >= 1)"
    assert target in text
    game, compiled = compiled_for(text.replace(target, target.replace(">= 1", ">= 2")))
    assert 1 <= compiled <= 3, compiled
    game, compiled = compiled_for(text.replace(target, target.replace(">= 1", ">= 1 + 0 * 7")))
    assert 1 <= compiled <= 3, compiled
    assert agrees("after an edit, zemico with 1 + 0 * 7", played(game, 7))


REGIONS = """
game "Regions" { players 2  turn order clockwise  round: play  max rounds 3 }
player { score: int = 0 }
component Chip { value: int = 1  label "chip {value}" }
cards chips in bag { Chip(value: v) for v in 1..9 }
zone bag
zone hand per player
zone table
var moved: int = 0
var bonus: int = 0
/// A chip on the table asks its mover whether it counts double.
when c enters table {
  choose twice from [1, 2] by current as "Does {c} count double?"
  bonus += c.value * twice
}
phase play {
  take turns from player(1) once {
    draw 2 from bag to hand(current)
    for each c in hand(current) where c.value > 2 {
      if c.value % 2 == 0 {
        move c to table
        moved += 1
      } elif c.value > 6 {
        current.score += c.value
      } else {
        for each p in players { p.score += 1 }
      }
      current.score += 1
    }
    if current.score > 10 { bonus += 1 } else { bonus -= 1 }
  }
}
"""


def _resumed_alike(game, match, seed: int) -> None:
    """The match saved to JSON now and resumed plays on as the match itself (a copy of it) does."""
    again = game.match_from_json(json.loads(json.dumps(match.to_json())))
    both = []
    for m in (match.clone(), again):
        r = random.Random(seed * 7)
        while not m.is_over:
            m.apply(r.randrange(m.option_count()))
        both.append((m.result, dict(m.s.globals), [p.attrs["score"] for p in m.s.players]))
    assert both[0] == both[1]


def test_ifs_and_loops_of_simple_statements_are_one_generated_op(tmp_path, monkeypatch):
    """A `for each` loop with `if`s and another loop inside runs as one op (codegen_statements.FusedRegion).
    When a chip it moves sets off a trigger that asks a player, the run stops right after the move,
    with the loop's list and place in the frame, as the loop's own ops keep them: the match saves
    to JSON there and resumes the same, and seeded games are those of the closure engine."""
    game = _game_from(tmp_path, REGIONS)
    turn = next(c for c in game.program.codes if c.kind == "phase")
    regions = [i for i, op in enumerate(turn.ops) if type(op) is codegen_statements.FusedRegion]
    # the draw, the loop (with its ifs and the loop inside) and the last if: the turn's whole body
    assert regions == [2] and len(turn.ops[2].spans) == len(turn.ops) - 3
    stopped_in_loop = 0
    for seed in range(12):
        match, rng = game.new_match(seed=seed), random.Random(seed)
        while not match.is_over:
            loops = [name for frame in match.s.stack for name in frame.vars if name.startswith("__for")]
            if match.s.pending is not None and "double" in str(match.s.pending.get("prompt")) and loops:
                stopped_in_loop += 1
                _resumed_alike(game, match, seed)
            match.apply(rng.randrange(match.option_count()))
    assert stopped_in_loop >= 5
    _plays_as_expected("regions", tmp_path, REGIONS, 12)


def test_a_region_counts_every_op_it_stands_for_and_stops_a_runaway_at_its_line(tmp_path, monkeypatch):
    """The steps budget counts each test, loop turn and statement of a region as its ops would
    count them: a loop that runs too long is stopped at the same rules line in both engines."""
    text = REGIONS.replace("    if current.score > 10 { bonus += 1 } else { bonus -= 1 }",
                           "    for each k in 1..100000 { if k > 0 { bonus += 1 } }")
    path = tmp_path / "game.rules"
    path.write_text(text)
    game = load_game(path, budgets={"steps": 50_000})
    with pytest.raises(RulesError) as info:
        match, rng = game.new_match(seed=1), random.Random(1)
        while not match.is_over:
            match.apply(rng.randrange(match.option_count()))
    stopped = info.value.format()
    assert "steps" in stopped and ":30:" in stopped
    assert agrees("region runaway", stopped, tmp_path)


IN_PLACE = REGIONS.replace("""phase play {""", """/// Simple statements only: run where it is called, without a frame of its own.
procedure tally(c: card) {
  if c.value % 2 == 0 { move c to table; moved += 1 } else { current.score += c.value }
  bonus += 1
}
/// Nothing to do (a variant might give it something).
procedure nothing() {
}
phase play {""").replace("""    for each c in hand(current) where c.value > 2 {
      if c.value % 2 == 0 {""", """    nothing()
    for each c in hand(current) where c.value < 4 { tally(c) }
    for each c in hand(current) where c.value > 2 {
      if c.value % 2 == 0 {""")


def test_a_procedure_of_simple_statements_runs_where_it_is_called(tmp_path, monkeypatch):
    """CallProc runs a procedure whose body is one fused op (or nothing) in place, without a frame
    for the VM to take up. A chip it moves to the table sets off a trigger that asks a player: the
    procedure's frame is then pushed where it stopped, the match saves to JSON there and resumes
    the same, and seeded games are those of the closure engine, which always pushes a frame."""
    game = _game_from(tmp_path, IN_PLACE)
    assert type(game.program.procs["tally"][1].inline) is codegen_statements.FusedRegion
    assert game.program.procs["nothing"][1].inline == "empty"
    stopped_inside = 0
    for seed in range(12):
        match, rng = game.new_match(seed=seed), random.Random(seed)
        while not match.is_over:
            if match.s.pending is not None and any(f.code.name == "tally" for f in match.s.stack):
                stopped_inside += 1
                _resumed_alike(game, match, seed)
            match.apply(rng.randrange(match.option_count()))
    assert stopped_inside >= 3
    _plays_as_expected("in place", tmp_path, IN_PLACE, 12)
    failing = IN_PLACE.replace("  bonus += 1\n}", "  bonus += c.value / 0\n}")
    assert failure_line(tmp_path, failing) == {"line": 19}


def failure_line(tmp_path, text) -> dict:
    """The error a seeded game of the text stops with: its rules line."""
    return {"line": _failure_of(tmp_path, text).diagnostics[0].span.line}


def _failure_of(tmp_path, text):
    """The RulesError a seeded random game of the text stops with."""
    game = _game_from(tmp_path, text, "game.rules")
    with pytest.raises(RulesError) as info:
        match, rng = game.new_match(seed=1), random.Random(1)
        while not match.is_over:
            match.apply(rng.randrange(match.option_count()))
    return info.value


def failure_said(tmp_path, text) -> tuple[int, str]:
    """The rules line and the words of the error a seeded game of the text stops with."""
    exc = _failure_of(tmp_path, text)
    return exc.diagnostics[0].span.line, exc.diagnostics[0].message


def _bearers_by_every_field(match) -> dict:
    """The keyword table as keywords_of finds it, reading every field of every face-up public card."""
    from rulelang.model.builtins import keywords_of

    table: dict = {}
    for e in match.s.entities:
        if e.zone is None or e.face_down or e.zone.visibility != "public":
            continue
        for k in keywords_of(e):
            cards = table.setdefault(k.name, [])
            if not cards or cards[-1] is not e:
                cards.append(e)
    return {name: tuple(cards) for name, cards in table.items()}


@pytest.mark.parametrize("path", [p for p, mode in CASES if mode is None], ids=lambda p: p.stem)
def test_the_keyword_table_reads_only_the_fields_that_may_hold_a_keyword(path, monkeypatch):
    """VM.bearers reads only Program.keyword_fields (fields printed with a keyword, and fields a
    statement may put one into): it finds every card keywords_of finds, reading every field, at
    every decision of seeded random games."""
    game = load_game(path)
    for seed in range(3):
        match, rng = game.new_match(seed=seed), random.Random(seed)
        while not match.is_over:
            match.s.bearers = None
            match.vm.bearers("")
            assert match.s.bearers[1] == _bearers_by_every_field(match)
            match.apply(rng.randrange(match.option_count()))


@pytest.mark.parametrize("path, mode", [(p, m) for p, m in CASES if p.parent.name == "games"],
                         ids=[f"{p.stem}-{m or 'base'}" for p, m in CASES if p.parent.name == "games"])
def test_the_keyword_table_is_kept_while_no_card_changes(path, mode):
    """VM.bearers keeps its table while State.cards_version stays the same (a change of a player's
    field or of a global leaves it): at every decision of seeded random games, the table it answers
    from is the one reading every field of every face-up public card finds now."""
    game = load_game(path, variant=mode)
    keywords = list(game.program.keywords)
    for seed in range(2):
        match, rng = game.new_match(seed=seed), random.Random(seed)
        while not match.is_over:
            fresh = _bearers_by_every_field(match)
            assert {k: match.vm.bearers(k) for k in keywords} == {k: fresh.get(k, ()) for k in keywords}
            match.apply(rng.randrange(match.option_count()))


def test_a_keyword_put_into_a_field_of_another_type_is_still_borne(tmp_path, monkeypatch):
    """The checker lets a rules file put a keyword into a field declared as a number; that field
    then counts as one that may hold a keyword, and the card bears it, at once (a card's field
    changed: State.cards_version)."""
    text = """
game "Borne" { players 2  turn order clockwise  round: play  max rounds 1 }
keyword shiny { }
component Gem { weight: int = 1  label "gem" }
cards gems in table { Gem() * 2 }
zone table
def gift = shiny
phase play {
  take turns from player(1) once {
    choose g from table as "Which gem?"
    g.weight = gift
  }
}
"""
    game = _game_from(tmp_path, text)
    assert "weight" in game.program.keyword_fields
    match = game.new_match(seed=1)
    assert match.vm.bearers("shiny") == ()  # (the table is made, and kept while no card changes)
    match.apply(0)
    assert len(match.vm.bearers("shiny")) == 1 and match.vm.bearers("shiny") == _bearers_by_every_field(match)["shiny"]


def _saved_at_every_decision(game, seed: int):
    """A seeded random game (of a file named g.rules), saved to JSON at every decision and at the
    end: the match, and a digest of the saves (for agrees)."""
    match = game.new_match(seed=seed)
    rng = random.Random(seed)
    saves = []
    while True:
        data = match.to_json()
        data.pop("fingerprint")
        if data["pending"] is not None:
            data["pending"]["span"][0] = "g.rules"
        saves.append(data)
        if match.is_over:
            return match, hashlib.sha256(json.dumps(saves, sort_keys=True, default=str).encode()).hexdigest()
        match.apply(rng.randrange(match.option_count()))


ENDING = REGIONS.replace("""phase play {""", """setup { shuffle bag }
/// Ends the turn of whoever draws a high chip, from inside the procedure.
procedure check(c: card) {
  if c.value == 8 { bonus += 2; end turn }
}
phase play {""").replace("""    draw 2 from bag to hand(current)""", """    choose go from [1, 2] as "Draw how many?"
    draw go from bag to hand(current)""").replace("""      current.score += 1
    }""", """      current.score += 1
      if c.value == 9 { bonus += 5; end turn }
      if bonus > 25 { moved += 100; end game }
    }
    if bonus > 60 { moved += 100; end game }
    for each c in hand(current) { check(c) }""")


def test_a_region_ends_a_turn_or_the_game_as_the_ops_do(tmp_path, monkeypatch):
    """`end turn` and `end game` inside a region (in an `if`, inside a `for each` loop) unwind as
    the VM's EndOp does: at every decision of seeded games the saved match is the closure
    engine's, loop slots left behind included. A procedure holding an `end` keeps its frame."""
    game = _game_from(tmp_path, ENDING)
    turn = next(c for c in game.program.codes if c.kind == "phase")
    regions = [op for op in turn.ops if type(op) is codegen_statements.FusedRegion]
    # the draw, the loop and the `if` after it; then the last `if`, after the loop of calls
    assert len(regions) == 2 and regions[0].unwinds and not regions[1].unwinds
    assert game.program.procs["check"][1].inline is None
    ended_in_loop = 0
    for seed in range(16):
        match, saves = _saved_at_every_decision(game, seed)
        assert match.is_over and agrees(f"ending {seed}", saves)
        ended_in_loop += match.s.globals["moved"] >= 100 and match.s.round < 3
    assert ended_in_loop >= 3


AROUND = """
game "Around" { players 2  turn order clockwise  round: play  max rounds 8 }
enum Kind { root, leaf }
component Tile {
  kind: Kind
  age: int = 0
  label "{kind} {age}"
  discards to compost
}
cards roots in pool { Tile(kind: root) for i in 1..9 }
cards leaves in pool { Tile(kind: leaf) for i in 1..14 }
zone pool
zone compost
zone field: board grid 4 size 4 by 4
var lost: int = 0
var young: int = 3
var crowded: int = 0
setup { shuffle pool }
/// A leaf next to no young root withers.
always {
  let gone = [c in field where c.kind == leaf and not any(n in neighbors(c) where n.kind == root and n.age < young)]
  lost += count(gone)
  discard gone
  let limit = 2
  crowded = count([c in field where count(neighbors(c)) > limit])
}
/// A root among few cards loses a year (a procedure's lists are not lifted: they are made once).
procedure tire(limit: int) {
  for each r in [c in field where count(neighbors(c)) < limit] { r.age += 1 }
}
phase play {
  take turns from player(1) once {
    choose {
      option place(cell in empty_cells(field)) if not empty(pool) { move top(pool) to field at cell }
      option flip(t in field) { t.kind = if t.kind == root then leaf else root }
      option age(t in field) { t.age += 1 }
      option spring { young += 1 }
      option tire { tire(2) }
    }
  }
}
"""


def test_a_value_remembered_by_neighbourhood_is_not_read_on_another_players_board(tmp_path, monkeypatch):
    """A def of a card and its neighbours is remembered for the card's cell of its board: a card
    moved to the same cell of another player's board (a board of the same name), with the same
    count of changes around it, is looked at again (it once read the value remembered on the first
    board)."""
    text = """game "Mats" { players 2; round: play }
component Stone { }
cards stones { Stone() * 3 }
zone bag
zone mat per player: board grid 4 size 2 by 1
def lonely(c) = empty(neighbors(c))
setup { create stones in bag }
phase play {
  let a = top(bag)
  move a to mat(player(1)) at (0, 0)
  let b = top(bag)
  move b to mat(player(1)) at (1, 0)
  let first = lonely(a)
  log "on the first mat: {first}"
  move a to mat(player(2)) at (0, 0)
  let second = lonely(a)
  log "on the second mat: {second}"
  end game
}
"""
    generated = _game_from(tmp_path, text, "m.rules")
    assert "lonely" in generated.program.generated.neighbourhood_defs
    expected = ["on the first mat: false", "on the second mat: true"]
    assert generated.new_match(seed=1).s.log == expected


def test_a_list_condition_that_looks_around_its_card_is_remembered_by_neighbourhood(tmp_path, monkeypatch):
    """`[c in field where ... any(n in neighbors(c) where ...)]` in a continuous rule: the condition
    is lifted into a def of `c` remembered by neighbourhood (dependencies.lifted_conditions), so a
    pass looks again only at cards whose neighbourhood changed. A change of a field or global it
    reads, with no card moving (a flip, an age, `young`), forgets it: at every decision of seeded
    games the saved match is the closure engine's. A condition naming a local is not lifted, nor
    is one outside a continuous rule."""
    game = _game_from(tmp_path, AROUND)
    source = game.program.generated.source
    assert "def D___near1(c, L_c):  # def __near1 (remembered by neighbourhood), rules line 21" in source
    assert "__near2" not in source  # `crowded` names the local `limit`; `tire` is a procedure
    assert set(game.program.generated.lifted) == {(21, 32, "c")}
    # the cards whose condition was worked out (it then walks their neighbours), and all those asked
    ns, inside, evaluated, asked = game.program.generated.ns, [], [], []
    remembered, walk = ns["D___near1"], ns["_next_to"]

    def lifted(c, card):
        asked.append(card)
        inside.append(card)
        try:
            return remembered(c, card)
        finally:
            inside.pop()

    def walking(c, card):
        if inside and inside[-1] is card:
            evaluated.append(card)
        return walk(c, card)

    ns["D___near1"], ns["_next_to"] = lifted, walking
    for seed in range(10):
        match, saves = _saved_at_every_decision(game, seed)
        assert agrees(f"around {seed}", saves)
        assert match.s.globals["lost"] > 0 or seed % 2  # leaves do wither
    assert 0 < len(evaluated) < len(asked) / 2  # most leaves' answers were remembered


def test_a_leaf_def_holding_a_quantifier_is_written_in_place_of_its_calls(tmp_path, monkeypatch):
    """`owns(p, c)` (`any(m in at(grid, cell) where owner(m) == p)`) called with local names inside
    another def's quantifier is written in place, as nested loops (Generator.inlined_call): no call
    of D_owns is left in has_line. A loop name the caller uses too is renamed (connect four's
    `owns` loops over `d`, and `run_from` has a direction `d`). Values are checked by
    test_every_game_plays_the_expected_match; an error in the body is reported at the def's line."""
    tictactoe = load_game(REPO / "examples" / "tictactoe.rules")
    source = tictactoe.program.generated.source
    has_line = source[source.index("def E_has_line"):source.index("def R_has_line")]
    assert "D_owns" not in has_line and "for L_m in" in has_line
    connect4 = load_game(REPO / "examples" / "connect4.rules")
    source = connect4.program.generated.source
    run_from = source[source.index("def E_run_from"):source.index("def R_run_from")]
    assert "D_owns" not in run_from and "for L_d_1 in" in run_from

    text = (REPO / "examples" / "tictactoe.rules").read_text(encoding="utf-8")
    owns = "def owns(p, cell) = any(m in at(grid, cell) where owner(m) == p)"
    assert owns in text
    failing = text.replace(owns, owns.replace("owner(m) == p", "owner(m) == p and 3 / (m.id - m.id) > 0"))
    line = text[:text.index(owns)].count("\n") + 1
    assert failure_line(tmp_path, failing) == {"line": line}


def test_a_leaf_def_holding_a_quantifier_is_written_in_place_of_a_call_with_any_arguments(monkeypatch):
    """`owns(p, (cell[0] + d[0] * i, cell[1] + d[1] * i))`: the arguments are worked out first, into
    Python locals, then the def's loops are written in place (no call of D_owns). The numbers of
    `0..3` are whole numbers for sure: `d[0] * i` asks nothing of `i`. The board's cells are found
    once, at the top of the def (boards_read_once). The matches are the expected ones (agrees)."""
    path = REPO / "tests" / "codegen" / "connect4_plain.rules"
    generated = load_game(path)
    source = generated.program.generated.source
    four_from = source[source.index("def E_four_from"):source.index("def R_four_from")]
    assert "D_owns" not in four_from and "for L_d_1 in" in four_from and "_mul(" in four_from
    assert "type(L_i)" not in four_from and " * L_i)" in four_from
    assert four_from.count("c.s.zones['grid'].cells.stacks") == 1 and "_cells0.get(" in four_from
    # a parameter's coordinates: read once, after one test of what it holds
    assert four_from.count("if type(L_cell) in _TL and len(L_cell) > 1:") == 1 and four_from.count("= L_cell[0]") == 1
    for seed in (1, 2, 3):
        assert agrees(f"connect4 plain {seed}", played(generated, seed, None))


def test_a_small_def_calling_a_leaf_is_written_in_place_with_its_loop_names_kept_apart(tmp_path, monkeypatch):
    """`four_from(p, start, dir) = all(i in 0..3 where owns(p, ...))` walks a range of four numbers
    and calls a leaf: a small def, written in place of its call in has_four's loops (no call of
    D_four_from left there), and owns in place inside it. owns loops over `d`, the name of a loop of
    has_four that four_from does not see: the innermost loop is renamed (`L_d_1`: the closure
    engine's scope holds the names of every body around it), else it would overwrite the direction
    has_four and four_from are walking. The games are the expected ones (agrees)."""
    text = (REPO / "tests" / "codegen" / "connect4_plain.rules").read_text(encoding="utf-8")
    four_from = "def four_from(p, cell, d) = all(i in 0..3 where owns(p, (cell[0] + d[0] * i, cell[1] + d[1] * i)))"
    assert four_from in text
    text = text.replace(four_from, "def four_from(p, start, dir) = "
                        "all(i in 0..3 where owns(p, (start[0] + dir[0] * i, start[1] + dir[1] * i)))")
    path = tmp_path / "c4.rules"
    path.write_text(text, encoding="utf-8")
    generated = load_game(path)
    source = generated.program.generated.source
    has_four = source[source.index("def E_has_four"):source.index("def R_has_four")]
    assert "D_four_from" not in has_four and "D_owns" not in has_four
    assert "for L_i in" in has_four and "for L_d_1 in" in has_four and "for L_d in" in has_four
    for seed in range(6):
        assert agrees(f"connect4 plain renamed {seed}", played(generated, seed, None)), seed
    # a def walking a range that is not written with numbers, or a long one, is called
    for walk in ("0..count(dirs) - 1", "0..20"):
        longer = text.replace("all(i in 0..3 where", f"all(i in {walk} where")
        path.write_text(longer, encoding="utf-8")
        source = load_game(path).program.generated.source
        assert "D_four_from" in source[source.index("def E_has_four"):source.index("def R_has_four")], walk


def test_counting_defs_in_arithmetic_are_written_in_place_before_it(tmp_path, monkeypatch):
    """Connect four's `four_through(p, cell) = any(d in line_directions where run_from(p, cell, d) +
    run_from(p, cell, (-d[0], -d[1])) >= 3)`: run_from counts along a ray of a small fixed board
    (`count([c in ray(grid, cell, d) while owns(p, c)])`), so each of its calls is written in place,
    into a local of its own, in order (`Generator.hoistable`), and the sum and comparison read those
    locals: no call of D_run_from is left in four_through. An expression with anything else that
    could fail before the calls (a field) keeps its calls. A failure in run_from's body is reported
    at run_from's line, as the closure engine reports it."""
    path = REPO / "examples" / "connect4.rules"
    source = load_game(path).program.generated.source
    four_through = source[source.index("def E_four_through"):source.index("def R_four_through")]
    assert "D_run_from" not in four_through and "D_owns" not in four_through
    assert four_through.count("_ray_walk(") == 2 and "_hDefour_through" in four_through

    text = path.read_text(encoding="utf-8")
    sum_of_runs = "run_from(p, cell, d) + run_from(p, cell, (-d[0], -d[1])) >= 3"
    assert sum_of_runs in text
    guarded = text.replace(sum_of_runs, "run_from(p, cell, d) + run_from(p, cell, (-d[0], -d[1])) >= p.threshold") \
        .replace("zone supply per player", "player { threshold: int = 3 }\nzone supply per player")
    (tmp_path / "guarded").mkdir()
    game = _game_from(tmp_path / "guarded", guarded, "g.rules")
    source = game.program.generated.source
    assert "D_run_from" in source[source.index("def E_four_through"):source.index("def R_four_through")]
    for seed in range(3):
        assert agrees(f"connect4 guarded {seed}", played(game, seed, None))

    run_from = "def run_from(p, cell, d) = count([c in ray(grid, cell, d) while owns(p, c)])"
    assert run_from in text
    failing = text.replace(run_from, run_from.replace("while owns(p, c)", "while owns(p, c) and 1 / (c[0] - c[0]) > 0"))
    line = text[:text.index(run_from)].count("\n") + 1
    assert failure_line(tmp_path, failing) == {"line": line}


def test_a_move_in_a_fused_op_works_out_its_zone_first_and_fails_at_its_line(tmp_path, monkeypatch):
    """`move top(supply(current)) to grid at cell`, in the fused op of tic-tac-toe's turn: a value
    that is not a zone fails at the move's line, in the words of values.move_cards; the zone is
    worked out before the cards, so when both are wrong, the zone's error is the one reported."""
    path = REPO / "examples" / "tictactoe.rules"
    game = load_game(path)
    turn = next(c for c in game.program.codes if c.kind == "phase")
    assert any(type(op) is codegen_statements.FusedRegion for op in turn.ops)  # (the move is in one)
    text = path.read_text(encoding="utf-8")
    move = "move top(supply(current)) to grid at cell"
    assert move in text
    line = text[:text.index(move)].count("\n") + 1
    not_a_zone = "(if count(grid) > 2 then [grid, 7][1] else grid)"
    failing = text.replace(move, f"move top(supply(current)) to {not_a_zone} at cell")
    said_line, words = failure_said(tmp_path, failing)
    assert said_line == line and "cards can only be moved to a zone, not to 7" in words
    both = text.replace(move, f"move (if count(grid) > 2 then [top(supply(current)), 7][1] else top(supply(current))) "
                              f"to {not_a_zone} at cell")
    said_line, words = failure_said(tmp_path, both)
    assert said_line == line and "cards can only be moved to a zone, not to 7" in words


ASSIGNING = """
game "Assigning" {
  players 2
  turn order clockwise
  round: play
}
component Chip { worth: int = 1 }
cards chips { Chip() * 3 }
zone pile
player { score: int = 0; best: int = 0 }
var total: int = 0
var leader: player
setup { create chips in pile }
phase play {
  take turns from player(1) {
    choose n from [1, 2, 3] as "How many?"
    total += n
    current.score += n * 2
    current.best = max([current.best, n])
    leader = current
    top(pile).worth -= 1
    if total > LIMIT { leader.score -= total; end game }
    STATEMENT
  }
}
"""


@pytest.mark.parametrize("statement, limit, words", [
    ("", "100", None),
    ("top(pile).face_down = n == 2", "100", None),
    ("first([c in pile where c.worth < -3]).worth = 0", "100", 'cannot set "worth" of nothing'),
    ("total += 999999999999999999", "10", "beyond"),
    ("[leader, 3][n % 2].score = 1", "100", 'cannot set "score" of 3'),
])
def test_assignments_in_fused_ops_play_and_fail_as_expected(tmp_path, monkeypatch, statement, limit, words):
    """`total += n`, `current.score += n * 2`, `top(pile).worth -= 1`, in fused ops: the games are
    the expected ones (agrees); a card's built-in field (`face_down`) is set; a value that is neither
    a card nor a player, and numbers beyond the bound, fail with their words at the statement's line."""
    text = ASSIGNING.replace("STATEMENT", statement).replace("LIMIT", limit)
    game = _game_from(tmp_path, text, "g.rules")
    turn = next(c for c in game.program.codes if c.kind == "phase")
    assert any(type(op) in (codegen_statements.FusedExec, codegen_statements.FusedRegion) for op in turn.ops)
    if words is None:
        for seed in range(4):
            assert agrees(f"assigning {statement} {seed}", played(game, seed, None)), seed
        return
    # (1e18 - 1 is within the bound: the next turn's `total += n` goes beyond it)
    failing = "total += n" if words == "beyond" else statement
    line, said = failure_said(tmp_path, text)
    assert words in said and line == text[:text.index(failing)].count("\n") + 1


def test_the_first_item_of_a_list_is_found_without_making_the_list(tmp_path, monkeypatch):
    """Connect four's `landing(x) = first([(x, y) for y in 0..5 where empty(at(grid, (x, y)))])`
    walks the column up to its lowest empty cell (Generator.first_early), as `empty([...])` stops at
    the first item kept; none when no item is kept. The games are the expected ones (agrees)."""
    source = load_game(REPO / "examples" / "connect4.rules").program.generated.source
    landing = source[source.index("def E_landing"):source.index("def R_landing")]
    assert "next(" in landing and ", None)" in landing
    text = """
game "Firsts" { players 2  turn order clockwise  round: play }
component Tile { size: int = 1  label "tile" }
cards tiles in pile { Tile(size: 1) * 2; Tile(size: 2) * 2 }
zone pile
var picked: int = 0
def biggest_left = first([t.size for t in pile where t.size > 1])
def any_left = first([t in pile where t.size > 0])
phase play {
  take turns from player(1) {
    choose t from pile as "Which tile?"
    discard_tile(t)
    if first([n for n in 0..3 where n > 9]) == none and any_left == none { end game }
  }
}
procedure discard_tile(t: Tile) {
  picked += if biggest_left == none then 1 else biggest_left
  move t to bin
}
zone bin
"""
    game = _game_from(tmp_path, text, "g.rules")
    source = game.program.generated.source
    assert "next(" in source[source.index("def E_biggest_left"):source.index("def R_biggest_left")]
    assert "next(" in source[source.index("def E_any_left"):source.index("def R_any_left")]
    for seed in range(4):
        assert agrees(f"firsts {seed}", played(game, seed, None))


def test_coordinates_of_cells_and_directions_known_to_be_numbers_are_read_as_they_are(tmp_path, monkeypatch):
    """A loop over the cells of a fixed grid or hex board the rules name, or over a list of pairs of
    numbers written out (`dirs = [(1, 0), (0, 1), (1, 1), (1, -1)]`), holds pairs of whole numbers:
    `cell[0] + d[0] * i` reads the coordinates as they are and asks nothing of them
    (Generator.yields_pairs, is_pair_coordinate), also where four_from is written in place. The cells
    of an open board are asked, as anything the rules put there may be a cell. The games are the
    expected ones (agrees)."""
    path = REPO / "tests" / "codegen" / "connect4_plain.rules"
    source = load_game(path).program.generated.source
    has_four = source[source.index("def E_has_four"):source.index("def R_has_four")]
    assert "L_cell[0]) + " in has_four and "L_d[0]) * L_i" in has_four and "_index(" not in has_four
    text = path.read_text(encoding="utf-8").replace("zone grid: board grid 8 size 7 by 6", "zone grid: board grid 8")
    text = text.replace("def moves = [c in cells(grid) where playable(c)]",
                        "def moves = if empty(grid) then [(3, 0)] else [c in frontier(grid) where c[1] >= 0 and c[1] < 6 and playable(c)]")
    text = text.replace("def has_four(p) = any(cell in cells(grid)", "def has_four(p) = any(cell in occupied_cells(grid)")
    open_board = _game_from(tmp_path, text, "g.rules")
    source = open_board.program.generated.source
    has_four = source[source.index("def E_has_four"):source.index("def R_has_four")]
    assert "L_d[0]) * L_i" in has_four and "L_cell[0]) + " not in has_four
    for seed in range(3):
        assert agrees(f"connect4 open board {seed}", played(open_board, seed, None))


@pytest.mark.parametrize("path, function, written, call, failing, failing_def", [
    # Hex's chain(p, cell) = region(board, cell, owned_cells(board, p)), from the new stone
    ("examples/hex.rules", "E_chain", "_region_owned(c.s.zones['board'], L_cell, ",
     "if joins_edges(current, chain(current, cell)) {",
     "if joins_edges(current, chain(if count(board) > 6 then 3 else current, cell)) {", "def chain(p, cell)"),
    # a Hex written plainly: every group of the mover's stones after each stone
    ("tests/codegen/hex_plain.rules", "E_has_won", "_regions_owned(c.s.zones['board'], ",
     "regions(board, owned_cells(board, p))", "regions(board, owned_cells(board, if count(board) > 6 then 3 else p))",
     "def has_won"),
    # Go's group(cell), through `def stones(p) = owned_cells(board, p)`: the player worked out once
    ("examples/go.rules", "E_group", "_region_owned(c.s.zones['board'], L_cell, _t",
     "region(board, cell, stones(holder(cell)))",
     "region(board, cell, stones(if count(board) > 6 then 3 else holder(cell)))", "def stones(p)"),
])
def test_a_players_groups_are_the_boards_own(tmp_path, monkeypatch, path, function, written, call, failing, failing_def):
    """`region(board, cell, owned_cells(board, p))` and `regions(board, owned_cells(board, p))` (or
    through a def that is just `owned_cells(board, p)`) read the groups of the player's cells the
    board keeps up to date (codegen._region_owned, _regions_owned, BoardCells.owned_group,
    owned_groups): the same games as the closure engine, which asks the built-ins. Given anything
    but a player, the built-ins (or the def) say so, at owned_cells' line, in both engines."""
    generated = load_game(REPO / path)
    source = generated.program.generated.source
    start = source.index(f"def {function}")
    assert written in source[start:source.index("\ndef ", start)]
    for seed in range(2):
        assert agrees(f"groups {path} {seed}", played(generated, seed, None))
    text = (REPO / path).read_text(encoding="utf-8")
    assert call in text
    line, words = failure_said(tmp_path, text.replace(call, failing))
    assert "owned_cells() needs a player" in words and line == text[:text.index(failing_def)].count("\n") + 1


def test_a_players_groups_on_an_open_board_are_found_as_the_built_ins_find_them(monkeypatch):
    """On an open board (it grows as cards come), `regions(table, owned_cells(table, p))` and `region`
    of it are found each time (BoardCells.owned_groups, owned_group: no kept groups): whole games
    are the closure engine's."""
    path = REPO / "tests" / "codegen" / "open_groups.rules"
    generated = load_game(path)
    assert "_regions_owned(c.s.zones['table'], " in generated.program.generated.source
    for seed in range(6):
        assert agrees(f"open groups {seed}", played(generated, seed, None))


def test_the_empty_cells_of_a_named_board_written_as_a_list_are_the_boards_own(monkeypatch):
    """`def free_cells = [c in cells(grid) where empty(at(grid, c))]` (tic-tac-toe) is the list of
    empty cells the board keeps up to date as cards come and go, in the same order; other lists of
    cells are walked as written. The games are the expected ones (test_every_game_plays_the_expected_match)."""
    source = load_game(REPO / "examples" / "tictactoe.rules").program.generated.source
    free_cells = source[source.index("def E_free_cells"):source.index("def R_free_cells")]
    assert "_empty_cells_of(c, c.s.zones['grid']" in free_cells
    source = load_game(REPO / "tests" / "codegen" / "connect4_plain.rules").program.generated.source
    moves = source[source.index("def E_moves"):source.index("def R_moves")]
    assert "_empty_cells_of" not in moves  # (playable cells, not empty ones)
    # `playable(cell) = empty(at(grid, cell)) and ...`: emptiness is a length, so the def is a leaf,
    # written in place of its call in the list
    assert "D_playable" not in moves and "a leaf" in source[source.index("def D_playable"):]


CARDS = REPO / "tests" / "codegen" / "cards.rules"


def test_fields_of_a_name_that_holds_a_card_are_read_without_asking_what_it_holds(tmp_path, monkeypatch):
    """A name walking a zone, a player's zone, the cards on a cell or next to a card holds cards
    only (Generator.yields_cards): its fields are read from the card at once, and a missing field is
    the helper's error, as before. A continuous rule's loop name is the loop's own Python name in
    the rule's expressions, unless the loop gives it another value; its `let`s are run by their
    closures, as its other simple statements. Whole games are the closure engine's, and a field a card lacks fails at the same line with the
    same words."""
    generated = load_game(CARDS)
    source = generated.program.generated.source
    assert "(L_g.attrs['points'] if 'points' in L_g.attrs else _attr(c, L_g, 'points'," in source  # worth(p)
    assert "L_n.card.component" in source and "L_g.card.component" in source  # crowded(cell), gem() in place
    rule = "def A" + source.split("def A")[1].split("\ndef ")[0]
    first, second = rule.split("    for ")[1:3]
    loop_name = first.split(" ")[0]
    assert f"if not (((({loop_name}.card.component) == ('Gem')))" in first  # the loop's own name
    assert "v['big'] =" not in first and "c.v['big']" in first  # the `let` is its closure's; `big` is read from v
    assert "c.v['g']" not in first
    assert "c.v['g']" in second  # `g = top(pile)` gives the loop's name another value: read from v
    for seed in range(25):
        assert agrees(f"cards {seed}", played(generated, seed, decisions=None)), seed
    failing = tmp_path / "failing.rules"
    failing.write_text(CARDS.read_text(encoding="utf-8").replace(
        "def worth(p) = sum(g.points for g in hand(p) where gem(g) and g.kept)",
        "def worth(p) = sum(g.points for g in hand(p) where g.kept)"))
    match = load_game(failing).new_match(seed=3)
    rng = random.Random(3)
    with pytest.raises(RulesError) as caught:
        while not match.is_over:
            match.apply(rng.randrange(match.option_count()))
    error = caught.value.diagnostics[0]
    assert error.span.line == 39 and agrees("cards failing", [error.span.column, error.message])
    assert 'has no field "kept"' in error.message  # a stone taken into a hand


# ------------------------------------------------------------------ arithmetic, at random

_ATOMS = ["a", "b", "k", "k", "0", "1", "-3", "7", "1000000000", "999999999999999999", "a[0]", "a[1]", "b[0]",
          "k * k", "count([a, b])", "first([a, b])", "abs(k)", "max([a, k])", "sum([b, k])"]


def _random_expr(rng: random.Random, depth: int) -> str:
    """A random expression of a def's parameters `a` and `b` (given numbers, texts, lists, cells,
    true or none), the number `k` of a loop over a literal range, big literals, coordinates,
    arithmetic, comparisons, membership, quantifiers and built-ins over lists: what the checker
    lets through, so that the values decide what fails."""
    if depth <= 0 or rng.random() < 0.25:
        return rng.choice(_ATOMS)
    left, right = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    kind = rng.random()
    if kind < 0.45:
        return f"({left} {rng.choice(['+', '-', '*', '/', '%'])} {right})"
    if kind < 0.6:
        return f"(if {left} {rng.choice(['<', '<=', '>', '>=', '==', '!='])} {right} then {left} else {right})"
    if kind < 0.7:
        return f"count([j in 0..3 where j * {left} < {right}])"
    if kind < 0.8:
        return f"(if any(j in 1..2 where {left} % j == 0) then {right} else -1)"
    if kind < 0.9:
        return f"(if {left} in [{right}, k] then 1 else 0)"
    return rng.choice([f"max([{left}, {right}])", f"sum([{left}, {right}])"])


PAIRS = [(3, 4), (-7, 2), ((2, 5), 3), ((1,), 0), (10**9, -(10**9)), ("ab", 2), (True, 1), ([4, -4], (0, 0)),
         (10**18, 1), (0, 0), (None, 1), ([1, 2, 3], [4])]


@pytest.mark.parametrize("seed", range(16))
def test_random_arithmetic_in_generated_code_is_the_closure_engines(seed, monkeypatch, tmp_path):
    """Expressions made at random, written in generated code (whole numbers in place, nothing asked
    of a loop's numbers, a parameter's coordinates read once) and run by the closure engine, give
    the same values and the same errors for the same values of their parameters."""
    rng = random.Random(seed)
    exprs = [_random_expr(rng, 3) for _ in range(6)]
    expr = "[" + ", ".join(f"[{e} for k in -2..2]" for e in exprs) + "]"
    outcomes = _values_of(tmp_path, expr, PAIRS)
    assert agrees(f"random arithmetic {seed}", outcomes, tmp_path), exprs


QUANTIFIED_TESTS = REGIONS.replace(
    "    for each c in hand(current) where c.value > 2 {",
    "    for each c in hand(current) where any(p in players where p.score < c.value) {").replace(
    "    if current.score > 10 { bonus += 1 } else { bonus -= 1 }",
    "    for each q in players {\n"
    "      if all(h in hand(q) where h.value > q.score - 5) { bonus += 1 } else { bonus -= 1 }\n"
    "    }")


def test_a_region_writes_its_conditions_in_place(tmp_path, monkeypatch):
    """The conditions of a region's `if`s and `for each ... where` loops are written in the region
    rather than called once per test (`for each line in lines { if all(c in line where ...) }`): the
    same seeded games as the closure engine, and a failure in such a condition is reported as its
    own function reports it, at its line, in the same words."""
    game = _game_from(tmp_path, QUANTIFIED_TESTS)
    regions = [o for code in game.program.codes for o in code.ops if type(o) is codegen_statements.FusedRegion]
    assert regions
    region = game.program.generated.source.split("(op, vm, frame):  # rules lines 18-")[1].split("\ndef ")[0]
    assert "for L_p in" in region and "for L_h in" in region  # both quantifiers' loops, in the region
    _plays_as_expected("quantified tests", tmp_path, QUANTIFIED_TESTS, 12)
    failing = QUANTIFIED_TESTS.replace("h.value > q.score - 5", "h.value > q.score - 5 and empty(at(h, h))")
    message = _failure_of(tmp_path, failing).format()
    assert agrees("quantified tests failing", message, tmp_path)
    assert "at() could not use these values: a card is not a board" in message
