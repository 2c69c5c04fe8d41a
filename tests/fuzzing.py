"""A fast fuzzer for rules files: generated and mutated inputs never crash rulelang, only get its own diagnostics.

The hypothesis test (tests/test_fuzz.py) is good at shrinking a failure but spends about 45 ms
drawing each input; a long run of 100,000 inputs uses this plain `random` runner instead. It
builds the same two kinds of input:

* grammar-aware generation: small games from the language's constructs (declarations,
  statements, expressions, nested at random), many of them valid enough to load and play;
* mutation: the files of games/ and examples/ with lines deleted, duplicated or swapped, tokens
  inserted, words replaced, characters changed, the file cut off.

Each input is parsed and checked (all variants) in this process; one that checks clean is loaded
with small budgets and played for 30 seeded random steps (views, save, resume). Anything but
rulelang's own `RulesError` is a crash, and so is a Python exception the engine wrapped at a rule's
line ("this rule could not run: KeyError ...") in a file that checked clean; an input that takes
more than `--limit` CPU seconds is a hang. Both are saved to `--out` (one `.rules` file each, named by input number) and counted:

    nice -n 10 python3 tests/fuzzing.py -n 100000 --out /tmp/fuzz-crashes > fuzz.log 2>&1

Input number i is made by `random.Random(f"{seed}:{i}")` alone, so `--only I` makes one again.
The big games are drawn less often than the examples: a mutant of a big game costs about 50
times as much to parse and check as a generated game.
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import rulelang  # noqa: E402
from rulelang.language import astcache  # noqa: E402
from rulelang.check.checker import check_rules  # noqa: E402
from rulelang.core.errors import RulesError  # noqa: E402
from rulelang.language import parser as parser_module  # noqa: E402
from rulelang.language.parser import parse_text  # noqa: E402
from lark.exceptions import UnexpectedInput  # noqa: E402

GAMES = sorted((REPO / "games").glob("*.rules"))
EXAMPLES = sorted((REPO / "examples").glob("*.rules"))
BUDGETS = {"steps": 20_000, "cards": 2_000, "list_size": 5_000, "recursion_depth": 30, "trigger_depth": 20,
           "memory_mb": 256}
PLAY_STEPS = 30

# ------------------------------------------------------------------ generation

NAMES = ["a", "b", "c", "x", "n", "p", "card", "hand", "deck", "pile", "score", "kind", "point", "f", "g"]
ATOMS = NAMES + ["true", "false", "none", "players", "round", "current", "player_count", "(0, 1)", "[]"]
TEXTS = ['"hi"', '"{p}"', '"{card.point}"', '""', '"a {n} b"', '"\\n"', '"{x.__class__}"']
BINARY = ["+", "-", "*", "/", "%", "==", "!=", "<", ">=", "and", "or", "in", ".."]
CALLS = ["count", "sum", "max", "min", "first", "top", "roll", "neighbors", "f", "random", "empty", "owner", "label",
         "abs", "player"]


def expr(rng: random.Random, depth: int = 3) -> str:
    if depth <= 0 or rng.random() < 0.35:
        kind = rng.random()
        if kind < 0.5:
            return rng.choice(ATOMS)
        if kind < 0.8:
            return str(rng.randint(-3, 40))
        return rng.choice(TEXTS)
    d = depth - 1
    shape = rng.randrange(11)
    if shape == 0:
        return f"{operand(rng, d)} {rng.choice(BINARY)} {operand(rng, d)}"
    if shape == 1:
        return f"{expr(rng, d)}.{rng.choice(NAMES)}"
    if shape == 2:
        return f"{expr(rng, d)}[{expr(rng, d)}]"
    if shape == 3:
        return f"not {operand(rng, d)}"
    if shape == 4:
        return f"-{operand(rng, d)}"
    if shape == 5:
        return "[" + ", ".join(expr(rng, d) for _ in range(rng.randint(0, 3))) + "]"
    if shape == 6:
        return f"[{rng.choice(NAMES)} in {expr(rng, d)} where {expr(rng, d)}]"
    if shape == 7:
        return f"[{expr(rng, d)} for {rng.choice(NAMES)} in {expr(rng, d)}]"
    if shape == 8:
        args = ", ".join(expr(rng, d) for _ in range(rng.randint(1, 2)))
        return f"{rng.choice(CALLS)}({args})"
    if shape == 9:
        return f"if {expr(rng, d)} then {expr(rng, d)} else {expr(rng, d)}"
    return f"({expr(rng, d)})"


def operand(rng: random.Random, depth: int) -> str:
    """An operand of an operator: mostly in parentheses when compound (else most inputs would not parse)."""
    e = expr(rng, depth)
    return f"({e})" if " " in e and rng.random() < 0.85 else e


def simple_statement(rng: random.Random) -> str:
    n, e = rng.choice(NAMES), expr(rng)
    return rng.choice([
        f"let {n} = {e}", f"{n} = {e}", f"current.{n} += {e}", 'log "{n}"', f"move {n} to {e}",
        f"draw 1 from {n} to {rng.choice(NAMES)}", f"shuffle {n}", f"discard {n}", f"choose {n} from {e}",
        "end turn", "end game", "win current", "break", f"signal {n}({e})", f"g({e})", 'fail "no"',
    ])


def statement(rng: random.Random, depth: int = 2) -> str:
    if depth <= 0 or rng.random() < 0.5:
        return simple_statement(rng)
    d = depth - 1
    shape = rng.randrange(7)
    if shape == 0:
        return f"if {expr(rng)} {block(rng, d)}"
    if shape == 1:
        return f"if {expr(rng)} {block(rng, d)} else {block(rng, d)}"
    if shape == 2:
        return f"for each {rng.choice(NAMES)} in {expr(rng)} {block(rng, d)}"
    if shape == 3:
        return f"while {expr(rng)} {block(rng, d)}"
    if shape == 4:
        return f"repeat {rng.randint(0, 5)} times {block(rng, d)}"
    if shape == 5:
        return f"take turns once {block(rng, d)}"
    return (f"choose {{ option {rng.choice(NAMES)}(x in {expr(rng)}) {block(rng, d)} "
            f"option other {block(rng, d)} }}")


def block(rng: random.Random, depth: int = 2, sep: str = "; ") -> str:
    return "{ " + sep.join(statement(rng, depth) for _ in range(rng.randint(1, 3))) + " }"


FIXED_DECLS = [
    "enum Kind { red, green, blue }",
    'component Card { kind: Kind; point: int = 0; label "{kind} {point}" }',
    "player { score: int = 0; passed: bool = false }",
    "zone deck hidden", "zone hand per player private", "zone pile", "zone desk: board grid 8",
    "zone track: board track 5 loop", "zone grid3: board grid 4 size 3 by 3",
    "cards cards_all in deck { Card(kind: k, point: p) for k in Kind, p in 1..4 }",
    "var x: int = 1", "var card: int", "setting n = 3", 'keyword hunt(n) { effect { log "h" } }',
    "always { if round > 100 { end game } }", "result { win current }",
]


def declaration(rng: random.Random) -> str:
    shape = rng.randrange(9)
    body = block(rng, 2, "\n  ")
    if shape <= 1:
        return rng.choice(FIXED_DECLS)
    if shape == 2:
        return f"def {rng.choice(NAMES)}(x) = {expr(rng)}"
    if shape == 3:
        return f"procedure {rng.choice(NAMES)}(x: int) {body}"
    if shape == 4:
        return f"phase {rng.choice(NAMES)} {body}"
    if shape == 5:
        return f"setup {body}"
    if shape == 6:
        return f"when x enters {rng.choice(NAMES)} {body}"
    if shape == 7:
        return f"at {rng.choice(['start', 'end'])} of {rng.choice(['round', 'turn', 'game'])} {body}"
    return f"variant {rng.choice(NAMES)} {{ at end of round {body} }}"


def generated(rng: random.Random) -> str:
    decls = [declaration(rng) for _ in range(rng.randint(1, 6))]
    # a generated game mostly declares what its statements name, so more of them get past the checker
    if rng.random() < 0.6:
        chosen = set(rng.sample(range(len(FIXED_DECLS)), rng.randint(3, 9)))
        if rng.random() < 0.9:  # with what they need: the cards their component, its enum and their zone
            for needs, needed in ((9, (1, 3)), (1, (0,))):
                if needs in chosen:
                    chosen.update(needed)
        decls = [FIXED_DECLS[k] for k in sorted(chosen)] + decls
    phases = [d.split()[1] for d in decls if d.startswith("phase ")]
    if rng.random() < 0.1:
        phases.append(rng.choice(NAMES))  # a round naming a phase that is not there
    rng.shuffle(phases)
    round_list = ", ".join(dict.fromkeys(["a", *phases]))
    return (f'game "Fuzz" {{ players 2..3; round: {round_list}; max rounds 3 }}\n'
            "phase a { take turns once { choose c from [1, 2] } }\n" + "\n".join(decls) + "\n")


# ------------------------------------------------------------------ mutation

TOKENS = ["{", "}", "(", ")", "[", "]", ",", ";", ":", "=", "==", "..", ".", '"', "///", "//", "\\", "\t", "\n",
          "when", "phase", "choose", "option", "move", "end game", "0", "-1", "999999999999", "none", "__x", "é",
          "\x00", "\ufeff", "{x.__class__}", "1..100000000", "repeat 100000 times { }"]
ODD_CHARS = "\x00\x01\x7f\u00e9\u2028\ufeff\U0001f600\\\"{}()[];:,.=<>+-*/% \t\nabcXYZ019_"


def mutated(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        kind = rng.choice(["delete", "duplicate", "swap", "token", "cut", "chars", "replace_word", "move_block"])
        i = rng.randrange(len(lines))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "token":
            k = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:k] + rng.choice(TOKENS) + lines[i][k:]
        elif kind == "cut":
            lines = lines[:i]
        elif kind == "chars":
            k = rng.randint(0, len(lines[i]))
            new = "".join(rng.choice(ODD_CHARS) for _ in range(rng.randint(0, 4)))
            lines[i] = lines[i][:k] + new + lines[i][k + 1:]
        elif kind == "replace_word":
            words = lines[i].split(" ")
            k = rng.randrange(len(words))
            words[k] = rng.choice(NAMES + TOKENS + ATOMS)
            lines[i] = " ".join(words)
        else:  # a few lines moved elsewhere: a rule out of its place
            j = min(len(lines), i + rng.randint(1, 6))
            chunk, lines[i:j] = lines[i:j], []
            k = rng.randint(0, len(lines))
            lines[k:k] = chunk
    return "\n".join(lines)


class Corpus:
    """The files mutated, read once; the small examples are drawn `example_weight` times as often as
    a big game."""

    def __init__(self, example_weight: int = 20):
        self.files = [(p, p.read_text(encoding="utf-8")) for p in GAMES] + \
                     [(p, p.read_text(encoding="utf-8")) for p in EXAMPLES] * example_weight


def make_input(seed: str, i: int, corpus: Corpus) -> tuple[str, str, int]:
    """Input number i: (its file name, its text, the seed of its match)."""
    rng = random.Random(f"{seed}:{i}")
    if rng.random() < 0.4:
        return str(REPO / "examples" / "fuzz.rules"), generated(rng), rng.randrange(4)
    path, text = rng.choice(corpus.files)
    # beside its original, so data files (tables) the game reads are found
    return str(path.parent / "fuzz.rules"), mutated(rng, text), rng.randrange(4)


# ------------------------------------------------------------------ running an input


INTERNAL = "this rule could not run:"  # how the engine words a Python exception that reached a rule


def exercise(text: str, file: str, seed: int = 0) -> str:
    """Parse and check; load, play a little, save and resume what checks clean. Returns what happened:
    "rejected" (diagnostics), "played" or "rules error" (a runtime diagnostic). Any other exception
    propagates: that is a crash."""
    rules = None
    try:
        rules = parse_text(text, file)
        check_rules(rules, all_variants=True)
    except RulesError as exc:
        assert exc.diagnostics, "a RulesError without a diagnostic"
        for d in exc.diagnostics:
            assert d.span.file == file, f"a diagnostic names {d.span.file!r}, not the file checked"
        return "rejected"
    try:
        game = _load_parsed(file, text, rules)
        match = game.new_match(seed=seed)
        rng = random.Random(seed)
        for _ in range(PLAY_STEPS):
            if match.is_over:
                break
            match.apply(rng.randrange(match.option_count()))
            match.view(0)
        game.match_from_json(match.to_json())
        return "played"
    except RulesError as exc:
        exc.format()
        internal = [d.message for d in exc.diagnostics if d.message.startswith(INTERNAL)]
        # (Python's own error wrapped at the rule's line: a file that checks clean must not reach one)
        assert not internal, f"an internal error after a clean check: {internal[0]}"
        return "rules error"


def _load_parsed(file: str, text: str, rules):
    """`rulelang.load` of a text just parsed, without parsing it again (half the time of a big game)."""
    real = astcache.parse_text_cached
    astcache.parse_text_cached = lambda t, f: rules if t is text else real(t, f)
    try:
        return rulelang.load(file, text=text, budgets=BUDGETS)
    finally:
        astcache.parse_text_cached = real


class ChunkMemo:
    """Memoizes the parser's parse of one top-level chunk (declaration) while it recovers from a
    syntax error: a third of the time of an input.

    A file with a syntax error is parsed again chunk by chunk, to report every error. A mutant
    shares most of its declarations with its original and with other mutants of it, so their
    parses are kept: a chunk that parses, or whose syntax error Lark reports (at a line of the
    chunk), is the same wherever it stands (the declarations are dropped: the file has an error);
    a problem the tree builder reports carries its file line, so it is kept with that line. The
    whole file is always parsed as usual: its AST goes on to be checked and played.

    `run` parses every `verify_every`-th input both ways and counts any difference as "memo
    differs" (tests/test_fuzz.py checks the same on inputs of its own)."""

    def __init__(self, size: int = 8_000):
        self.size = size
        self.kept: dict = {}
        self.whole: str | None = None
        self.real = parser_module._parse_chunk

    def _keep(self, key, hit):
        if len(self.kept) >= self.size:
            self.kept.clear()
        self.kept[key] = hit

    def __call__(self, text: str, file: str, offset: int):
        if text is self.whole or text == self.whole:
            return self.real(text, file, offset)
        hit = self.kept.get((text, file)) or self.kept.get((text, file, offset))
        if hit is None:
            try:
                hit, key = (True, self.real(text, file, offset)), (text, file)
            except UnexpectedInput as exc:
                hit, key = (False, exc.with_traceback(None)), (text, file)
            except parser_module._SyntaxProblem as exc:
                hit, key = (False, exc.with_traceback(None)), (text, file, offset)
            self._keep(key, hit)
        ok, value = hit
        if ok:
            return value
        raise value


class Hang(BaseException):
    """An input ran longer than its time limit (BaseException: rulelang must not catch it)."""


def _on_alarm(signum, frame):
    raise Hang()


def run_one(text: str, file: str, seed: int, limit: float) -> tuple[str, str]:
    """(outcome, details): outcome is rejected / played / rules error / crash / hang."""
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        return exercise(text, file, seed), ""
    except Hang:
        return "hang", f"more than {limit} s of CPU"
    except Exception as exc:  # noqa: BLE001 - the point of the fuzzer
        return "crash", "".join(traceback.format_exception(exc))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=1000, help="number of inputs")
    ap.add_argument("--seed", default="0", help="seed of the run (input i depends on seed and i only)")
    ap.add_argument("--start", type=int, default=0, help="first input number")
    ap.add_argument("--only", type=int, help="run input number I alone and print it")
    ap.add_argument("--limit", type=float, default=20.0, help="CPU seconds an input may take")
    ap.add_argument("--out", default="fuzz-crashes", help="folder for crashing and hanging inputs")
    ap.add_argument("--every", type=int, default=1000, help="print the counts every N inputs")
    args = ap.parse_args(argv)
    corpus = Corpus()
    counts = run(corpus, args.seed, range(args.only, args.only + 1) if args.only is not None
                 else range(args.start, args.start + args.n), args.limit, Path(args.out), args.every,
                 show=args.only is not None)
    return 1 if counts["crash"] or counts["hang"] or counts["memo differs"] else 0


def memo_agrees(memo: ChunkMemo, text: str, file: str) -> bool:
    """The plain and the memoized parse of an input give the same AST, or the same diagnostics."""
    def outcome():
        try:
            return parse_text(text, file)
        except RulesError as exc:
            return exc.format()
        except Exception as exc:  # noqa: BLE001 - a crash of the parser: the run reports it anyway
            return repr(exc)

    parser_module._parse_chunk = memo.real
    try:
        plain = outcome()
    finally:
        parser_module._parse_chunk = memo
    return outcome() == plain


def _save(out: Path | None, kind: str, seed: str, i: int, text: str, details: str) -> None:
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{kind}-{seed}-{i}.rules").write_text(text, encoding="utf-8", errors="surrogatepass")
    (out / f"{kind}-{seed}-{i}.txt").write_text(details + "\n", encoding="utf-8")


def run(corpus: Corpus, seed: str, numbers, limit: float, out: Path | None, every: int = 0,
        show: bool = False, verify_every: int = 20) -> Counter:
    counts: Counter = Counter()
    started = time.time()
    memo = ChunkMemo()
    parser_module._parse_chunk = memo
    previous = signal.signal(signal.SIGPROF, _on_alarm)
    cache_setting = os.environ.get("RULELANG_CACHE")
    os.environ["RULELANG_CACHE"] = "0"  # no input comes twice: keeping each one's AST on disk would only cost
    try:
        for i in numbers:
            file, text, match_seed = make_input(seed, i, corpus)
            if show:
                print(text)
            memo.whole = text
            if verify_every and i % verify_every == 0 and not memo_agrees(memo, text, file):
                counts["memo differs"] += 1
                _save(out, "memo-differs", seed, i, text, f"input {i}: the memoized parse differs from the plain parse")
            outcome, details = run_one(text, file, match_seed, limit)
            _count(counts, outcome, details, text, seed, i, match_seed, file, out)
            if every and counts["inputs"] % every == 0:
                print(f"[{time.time() - started:7.0f} s] {report(counts)}", flush=True)
    finally:
        parser_module._parse_chunk = memo.real
        signal.signal(signal.SIGPROF, previous)
        if cache_setting is None:
            os.environ.pop("RULELANG_CACHE", None)
        else:
            os.environ["RULELANG_CACHE"] = cache_setting
    if every:
        print(f"[{time.time() - started:7.0f} s] done: {report(counts)}", flush=True)
    return counts


def _count(counts: Counter, outcome: str, details: str, text: str, seed: str, i: int, match_seed: int, file: str,
           out: Path | None) -> None:
    counts[outcome] += 1
    counts["inputs"] += 1
    if outcome in ("crash", "hang"):
        first = details.strip().splitlines()[-1] if details else outcome
        counts[f"{outcome}: {first[:100]}"] += 1
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{outcome}-{seed}-{i}.rules").write_text(text, encoding="utf-8", errors="surrogatepass")
            (out / f"{outcome}-{seed}-{i}.txt").write_text(
                f"input {i} of seed {seed!r}, match seed {match_seed}, file {file}\n{details}\n",
                encoding="utf-8")
        print(f"{outcome.upper()} at input {i}:\n{details}", flush=True)


def report(counts: Counter) -> str:
    main_keys = ["inputs", "rejected", "played", "rules error", "crash", "hang", "memo differs"]
    text = ", ".join(f"{k}: {counts[k]}" for k in main_keys)
    extra = sorted(k for k in counts if k not in main_keys)
    return text + "".join(f"\n  {k}: {counts[k]}" for k in extra)


if __name__ == "__main__":
    sys.exit(main())
