"""Fuzzing: generated and mutated rules files never crash rulelang, only get its own diagnostics.

Two sources of inputs, both driven by hypothesis:

* grammar-aware generation: small games built from the language's constructs (declarations,
  statements, expressions, nested at random), most of them valid enough to load and play;
* mutation: the files of games/ and examples/ with lines deleted, duplicated or swapped, tokens
  replaced, bytes flipped or the file cut off.

Each input is checked, loaded and played for a few seeded random steps with small budgets. Any
exception other than rulelang's own `RulesError` fails the test. In CI the run is bounded (a few
seconds): 20 hypothesis inputs (they shrink a failure to a small file) and 150 inputs of the fast
plain-random runner of tests/fuzzing.py. A long run uses the fast runner and reports its counts:

    RULELANG_FUZZ=100000 python -m pytest tests/test_fuzz.py -s        # or, with crashes saved:
    nice -n 10 python3 tests/fuzzing.py -n 100000 --out fuzz-crashes
"""
from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, GAMES

import rulelang
from rulelang.check.checker import check_rules
from rulelang.core.errors import RulesError
from rulelang.language.parser import parse_text

LONG = int(os.environ.get("RULELANG_FUZZ", "0") or 0)
CI_EXAMPLES = 20  # hypothesis spends ~45 ms drawing an input; the fast runner does the volume
BUDGETS = {"steps": 20_000, "cards": 2_000, "list_size": 5_000, "recursion_depth": 30, "trigger_depth": 20,
           "memory_mb": 256}
# the small examples are drawn more often than the big games (each input is checked and played)
CORPUS = [p.read_text(encoding="utf-8") for p in GAMES] + [p.read_text(encoding="utf-8") for p in EXAMPLES] * 3

# ------------------------------------------------------------------ generation

NAMES = ["a", "b", "c", "x", "n", "p", "card", "hand", "deck", "pile", "score", "kind", "point", "f", "g"]
names = st.sampled_from(NAMES)
ints = st.integers(-3, 40).map(str)
texts = st.sampled_from(['"hi"', '"{p}"', '"{card.point}"', '""', '"a {n} b"', '"\\n"', '"{x.__class__}"'])


def exprs():
    atoms = st.one_of(names, ints, texts, st.sampled_from(["true", "false", "none", "players", "round", "current",
                                                          "player_count", "(0, 1)", "[]"]))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%", "==", "!=", "<", ">=", "and", "or", "in",
                                              ".."]), inner).map(" ".join),
            st.tuples(inner, names).map(lambda t: f"{t[0]}.{t[1]}"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            inner.map(lambda e: f"not {e}"),
            inner.map(lambda e: f"-{e}"),
            st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
            st.tuples(names, inner, inner).map(lambda t: f"[{t[0]} in {t[1]} where {t[2]}]"),
            st.tuples(inner, names, inner).map(lambda t: f"[{t[0]} for {t[1]} in {t[2]}]"),
            st.tuples(st.sampled_from(["count", "sum", "max", "min", "first", "top", "roll", "neighbors", "f",
                                       "random", "empty", "owner", "label", "abs", "player"]),
                      st.lists(inner, min_size=1, max_size=2)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, inner, inner).map(lambda t: f"if {t[0]} then {t[1]} else {t[2]}"),
        )

    return st.recursive(atoms, extend, max_leaves=8)


EXPR = exprs()


def statements():
    simple = st.one_of(
        st.tuples(names, EXPR).map(lambda t: f"let {t[0]} = {t[1]}"),
        st.tuples(names, EXPR).map(lambda t: f"{t[0]} = {t[1]}"),
        st.tuples(names, EXPR).map(lambda t: f"current.{t[0]} += {t[1]}"),
        EXPR.map(lambda e: f'log "{{n}}"'),
        st.tuples(names, EXPR).map(lambda t: f"move {t[0]} to {t[1]}"),
        st.tuples(names, names).map(lambda t: f"draw 1 from {t[0]} to {t[1]}"),
        names.map(lambda n: f"shuffle {n}"),
        names.map(lambda n: f"discard {n}"),
        st.tuples(names, EXPR).map(lambda t: f"choose {t[0]} from {t[1]}"),
        st.just("end turn"), st.just("end game"), st.just("win current"), st.just("break"),
        st.tuples(names, EXPR).map(lambda t: f"signal {t[0]}({t[1]})"),
        EXPR.map(lambda e: f"g({e})"),
        st.just('fail "no"'),
    )

    def extend(inner):
        block = st.lists(inner, min_size=1, max_size=3).map(lambda xs: "{ " + "; ".join(xs) + " }")
        return st.one_of(
            st.tuples(EXPR, block).map(lambda t: f"if {t[0]} {t[1]}"),
            st.tuples(EXPR, block, block).map(lambda t: f"if {t[0]} {t[1]} else {t[2]}"),
            st.tuples(names, EXPR, block).map(lambda t: f"for each {t[0]} in {t[1]} {t[2]}"),
            st.tuples(EXPR, block).map(lambda t: f"while {t[0]} {t[1]}"),
            st.tuples(st.integers(0, 5), block).map(lambda t: f"repeat {t[0]} times {t[1]}"),
            st.tuples(block,).map(lambda t: f"take turns once {t[0]}"),
            st.tuples(names, EXPR, block, block).map(
                lambda t: f"choose {{ option {t[0]}(x in {t[1]}) {t[2]} option other {t[3]} }}"),
        )

    return st.recursive(simple, extend, max_leaves=6)


STMT = statements()
BLOCK = st.lists(STMT, min_size=1, max_size=4).map(lambda xs: "{ " + "\n  ".join(xs) + " }")

DECLS = st.one_of(
    st.sampled_from([
        "enum Kind { red, green, blue }",
        "component Card { kind: Kind; point: int = 0; label \"{kind} {point}\" }",
        "player { score: int = 0; passed: bool = false }",
        "zone deck hidden", "zone hand per player private", "zone pile", "zone desk: board grid 8",
        "zone track: board track 5 loop", "zone grid3: board grid 4 size 3 by 3",
        "cards cards_all in deck { Card(kind: k, point: p) for k in Kind, p in 1..4 }",
        "var x: int = 1", "var card: int", "setting n = 3", "keyword hunt(n) { effect { log \"h\" } }",
        "always { if round > 100 { end game } }", "result { win current }",
    ]),
    st.tuples(names, EXPR).map(lambda t: f"def {t[0]}(x) = {t[1]}"),
    st.tuples(names, BLOCK).map(lambda t: f"procedure {t[0]}(x: int) {t[1]}"),
    st.tuples(names, BLOCK).map(lambda t: f"phase {t[0]} {t[1]}"),
    BLOCK.map(lambda b: f"setup {b}"),
    st.tuples(names, BLOCK).map(lambda t: f"when x enters {t[0]} {t[1]}"),
    st.tuples(st.sampled_from(["start", "end"]), st.sampled_from(["round", "turn", "game"]), BLOCK).map(
        lambda t: f"at {t[0]} of {t[1]} {t[2]}"),
    st.tuples(names, BLOCK).map(lambda t: f"variant {t[0]} {{ at end of round {t[1]} }}"),
)

GAMES_TEXT = st.tuples(
    st.sampled_from(NAMES[:6]), st.lists(DECLS, min_size=1, max_size=8),
).map(lambda t: f'game "Fuzz" {{ players 2..3; round: {t[0]}, a; max rounds 3 }}\n'
                f"phase a {{ take turns once {{ choose c from [1, 2] }} }}\n" + "\n".join(t[1]) + "\n")

# ------------------------------------------------------------------ mutation

TOKENS = ["{", "}", "(", ")", "[", "]", ",", ";", ":", "=", "==", "..", ".", '"', "///", "//", "\\", "\t", "\n",
          "when", "phase", "choose", "option", "move", "end game", "0", "-1", "999999999999", "none", "__x", "é",
          "\x00", "\ufeff", "{x.__class__}", "1..100000000", "repeat 100000 times { }"]


@st.composite
def mutants(draw):
    text = draw(st.sampled_from(CORPUS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "token", "cut", "bytes", "replace_word"]))
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "token":
            line = lines[i]
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(st.sampled_from(TOKENS)) + line[k:]
        elif kind == "cut":
            lines = lines[:i]
        elif kind == "bytes":
            line = lines[i]
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(st.text(max_size=4)) + line[k + 1:]
        elif kind == "replace_word":
            words = lines[i].split(" ")
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.sampled_from(NAMES + TOKENS))
            lines[i] = " ".join(words)
    return "\n".join(lines)


INPUTS = st.one_of(GAMES_TEXT, mutants())

# ------------------------------------------------------------------ the property

COUNTS: Counter = Counter()


def exercise(text: str, seed: int = 0) -> str:
    """Check, load and play a little; return what happened. Anything but a RulesError propagates."""
    try:
        rules = parse_text(text, "fuzz.rules")
        check_rules(rules, all_variants=True)
    except RulesError as exc:
        assert exc.diagnostics and all(d.span.file == "fuzz.rules" for d in exc.diagnostics), exc.format()
        exc.format()
        return "rejected"
    try:
        game = rulelang.load("fuzz.rules", text=text, budgets=BUDGETS)
        match = game.new_match(seed=seed)
        rng = random.Random(seed)
        for _ in range(30):
            if match.is_over:
                break
            match.apply(rng.randrange(match.option_count()))
            match.view(0)
        data = match.to_json()
        game.match_from_json(data)
        return "played"
    except RulesError as exc:
        exc.format()
        # (Python's own error wrapped at the rule's line: a file that checks clean must not reach one)
        internal = [d.message for d in exc.diagnostics if d.message.startswith("this rule could not run:")]
        assert not internal, f"an internal error after a clean check: {internal[0]}\n{text}"
        return "rules error"


def _run(text: str, seed: int):
    try:
        COUNTS[exercise(text, seed)] += 1
    except Exception:  # noqa: BLE001 - the point of the test
        COUNTS["crash"] += 1
        raise
    COUNTS["inputs"] += 1


def _report() -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(COUNTS.items()))


@settings(max_examples=CI_EXAMPLES, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
@given(INPUTS, st.integers(0, 3))
def test_fuzz_never_crashes(text, seed):
    _run(text, seed)


def test_fast_fuzz_runner_never_crashes():
    """The plain-random runner (tests/fuzzing.py): 150 seeded inputs in CI, RULELANG_FUZZ of them in a long run."""
    import fuzzing

    n = LONG or 150
    counts = fuzzing.run(fuzzing.Corpus(), "long" if LONG else "ci", range(n), limit=20.0,
                         out=Path("fuzz-crashes") if LONG else None, every=1000 if LONG else 0)
    report = fuzzing.report(counts)
    print(f"\nfast fuzz: {report}")
    assert counts["inputs"] == n
    assert counts["crash"] == 0 and counts["hang"] == 0, report
    assert counts["played"] > 0, f"no input got past the checker: {report}"


def test_fast_runner_memo_keeps_every_diagnostic():
    """The runner memoizes the parse of a declaration while the parser recovers from a syntax error:
    each input's diagnostics must be exactly those of a plain parse."""
    import fuzzing

    corpus = fuzzing.Corpus()
    inputs = [fuzzing.make_input("memo", i, corpus) for i in range(60)]

    def diagnostics(file, text):
        try:
            parse_text(text, file)
            return "ok"
        except RulesError as exc:
            return exc.format()

    plain = [diagnostics(file, text) for file, text, _ in inputs]
    memo = fuzzing.ChunkMemo()
    real = fuzzing.parser_module._parse_chunk
    fuzzing.parser_module._parse_chunk = memo
    try:
        memoized = []
        for file, text, _ in inputs:
            memo.whole = text
            memoized.append(diagnostics(file, text))
    finally:
        fuzzing.parser_module._parse_chunk = real
    assert memoized == plain
    assert sum(d != "ok" for d in plain) > 20 and len(memo.kept) > 0


def test_fuzz_report():
    """Prints the counts of the run above (`-s` shows them); a long run must have found no crash."""
    if not COUNTS:
        return
    report = _report()
    print(f"\nfuzz: {report}")
    assert COUNTS["crash"] == 0, report
    assert COUNTS["played"] + COUNTS["rules error"] > 0, f"no input got past the checker: {report}"
