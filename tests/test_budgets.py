"""Resource budgets: a runaway rules file stops quickly, with its rules line, the budget and how to raise it.

Each test crosses one budget with a small, fast input (a budget lowered for the test where the
default would take long to reach), then raises the budget and sees the same rules run.
"""
from __future__ import annotations

import contextlib
import io
import time

import pytest

from conftest import REPO

import rulelang
from rulelang.core.budgets import Budgets
from rulelang.cli.main import main
from rulelang.core.errors import RulesError


def game(body: str, head: str = "") -> str:
    return f'game "Runaway" {{ players 2; round: a; max rounds 2 }}\n{head}\nphase a {{ {body} }}\n'


def stops(text: str, budget: str, line: int, budgets=None, seconds: float = 60.0) -> str:
    """Load and start a match of `text`: it must fail on the budget, at the line (the 5-second goal is
    measured by bench/_hostile.py, not here: this only catches a runaway that is not stopped)."""
    start = time.perf_counter()
    with pytest.raises(RulesError) as info:
        g = rulelang.load("runaway.rules", text=text, budgets=budgets)
        g.new_match(seed=1)
    assert time.perf_counter() - start < seconds
    message = info.value.format()
    d = info.value.diagnostics[0]
    assert d.span.file == "runaway.rules" and d.span.line == line, message
    assert f"budget {budget} = " in message, message
    assert f"--budget {budget}=" in message and f"budgets={{'{budget}': " in message, message
    return message


def test_cards_a_file_may_create():
    text = ('game "Big deck" { players 2; round: a; max rounds 1 }\ncomponent C { n: int }\nzone pile\n'
            'cards deck in pile { C(n: k) for k in 1..300, j in 1..300 }\nphase a { log "x" }\n')
    stops(text, "cards", 4, budgets={"cards": 50_000})
    assert rulelang.load("big.rules", text=text, budgets={"cards": 100_000}).new_match(seed=1)


def test_cards_created_in_setup():
    text = ('game "Big deck" { players 2; round: a; max rounds 1 }\ncomponent C { n: int }\nzone pile\n'
            'cards deck { C(n: k) for k in 1..100 }\nsetup { repeat 30 times { create deck in pile } }\n'
            'phase a { log "x" }\n')
    stops(text, "cards", 5, budgets={"cards": 1000})


def test_a_range_too_large():
    message = stops(game("let xs = 1..100000000"), "list_size", 3)
    assert "a range of 100,000,000 items" in message


def test_a_text_that_doubles():
    stops(game("repeat 40 times { t = t + t }", 'var t: str = "ab"'), "list_size", 3)


def test_a_list_that_doubles():
    stops(game("repeat 40 times { xs = xs + xs }", "var xs: list of int = [1, 2]"), "list_size", 3)


def test_a_deck_comprehension_too_large():
    text = ('game "Big deck" { players 2; round: a; max rounds 1 }\ncomponent C { n: int }\nzone pile\n'
            'cards deck in pile { C(n: k) for k in 1..10000000 }\nphase a { log "x" }\n')
    stops(text, "list_size", 4)


def test_dice_too_many():
    with pytest.raises(RulesError) as info:
        rulelang.load("dice.rules", text=game("let r = roll(100000000, 6)")).new_match(seed=1)
    assert "list_size" in info.value.format()


def test_steps_without_a_decision():
    stops(game("while true { let x = count(k in 1..1000 where k > 0) }"), "steps", 3)


def test_steps_of_an_exponential_def():
    stops(game("let v = f(60)", "def f(n) = if n == 0 then roll(1) else f(n - 1) + f(n - 1)"), "steps", 2)


def test_trigger_depth():
    text = ('game "Ping" { players 2; round: a; max rounds 1 }\nzone z1\nzone z2\ncomponent C { n: int }\n'
            'cards cs in z1 { C(n: 1) }\nwhen c enters z1 { move c to z2 }\nwhen c enters z2 { move c to z1 }\n'
            'phase a { move top(z1) to z2 }\n')
    stops(text, "trigger_depth", 7)


def test_recursion_depth_of_a_def():
    stops(game("let v = f(1)", "def f(n) = f(n + 1)"), "recursion_depth", 2)


def test_recursion_depth_of_a_procedure():
    stops(game("p(1)", "procedure p(n: int) { p(n + 1) }"), "recursion_depth", 2)


def test_a_deep_but_finite_recursion_runs_when_the_budget_is_raised():
    text = game("let v = f(150)", "def f(n) = if n == 0 then 0 else 1 + f(n - 1)")
    stops(text, "recursion_depth", 2)
    rulelang.load("deep.rules", text=text, budgets={"recursion_depth": 300}).new_match(seed=1)


def test_memory_of_a_match():
    """A list of 400,000 lists: far more memory than the lowered budget allows. Measured in a fresh
    process: the budget counts how much the process grows, and one that earlier tests made big may
    hold enough freed memory to build the list without growing."""
    import subprocess
    import sys

    script = ("import sys; sys.path.insert(0, sys.argv[1]); import test_budgets as t; "
              "print(t.stops(t.game('let xs = [[k, k] for k in 1..400000]'), 'memory_mb', 3, "
              "budgets={'memory_mb': 1, 'list_size': 10_000_000}))")
    done = subprocess.run([sys.executable, "-c", script, str(REPO / "tests")], capture_output=True, text=True,
                          timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the match grew by" in done.stdout


def test_numbers_stay_bounded():
    with pytest.raises(RulesError) as info:
        rulelang.load("n.rules", text=game("repeat 100 times { n = n * n }", "var n: int = 3")).new_match(seed=1)
    assert "a number beyond" in info.value.format()


@pytest.mark.parametrize("statement, what", [
    ("n = sum([1000000000000000000, 1000000000000000000])", "the total is a number beyond"),
    ("n = roll(1000, 1000000000000000000)", "the total of the dice is a number beyond"),
])
def test_totals_stay_bounded(statement, what):
    """A total of numbers each within the bound (a sum, dice) is refused beyond it, as arithmetic
    refuses one: it was kept, and failed only at the next `+`."""
    with pytest.raises(RulesError) as info:
        rulelang.load("n.rules", text=game(statement, "var n: int = 3")).new_match(seed=1)
    assert what in info.value.format() and "n.rules:" in info.value.format()


def test_budgets_from_the_command_line(tmp_path):
    path = tmp_path / "r.rules"
    path.write_text(game("let xs = 1..2000"), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["simulate", str(path), "-n", "1", "--quiet", "--budget", "list_size=1000"])
    assert code == 1
    assert ":3:20: error: this would build a range of 2,000 items (budget list_size = 1,000" in err.getvalue()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["simulate", str(path), "-n", "1", "--quiet", "--budget", "list_size=5000"])
    assert code == 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as bad:
        code = main(["simulate", str(path), "-n", "1", "--quiet", "--budget", "lists=5"])
    assert code == 2 and "unknown budget 'lists'" in bad.getvalue()


def test_a_big_source_file_is_refused_before_parsing(tmp_path):
    path = tmp_path / "big.rules"
    path.write_text('game "Big" { players 2 }\n' + "// padding\n" * 2000, encoding="utf-8")
    with pytest.raises(RulesError) as info:
        rulelang.load(str(path), budgets={"source_bytes": 1000})
    assert "budget source_bytes" in info.value.format()


def test_every_budget_is_documented():
    text = (REPO / "docs" / "safety.md").read_text(encoding="utf-8")
    for name in Budgets.names():
        assert f"`{name}`" in text, name


def test_long_card_lists_read_fast_give_the_same_rules():
    """The fast reader of long decks (rulelang/language/fastcards.py) builds exactly the AST the parser builds."""
    from rulelang.language import fastcards
    from rulelang.language.parser import parse_text

    lines = ['game "Deck" { players 2 }', "enum Suit { red, blue }",
             'component Card { name: str; suit: Suit; point: int = 0; tags: list of str; wild: bool = false }',
             "zone deck", "/// The deck.", "cards pack in deck {"]
    for i in range(300):
        extra = ", wild: true" if i % 7 == 0 else ""
        copies = " * 2" if i % 11 == 0 else ""
        lines.append(f'  Card(name: "Card {i}", suit: {"red" if i % 2 else "blue"}, point: {i}, '
                     f'tags: ["a", "b"]{extra}){copies}' + ("  // a comment" if i % 13 == 0 else ""))
        if i % 50 == 0:
            lines.append("")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    fast = parse_text(text, "deck.rules")
    assert fast_text_was_used(text)
    old = fastcards.MIN_ENTRIES
    fastcards.MIN_ENTRIES = 10**9
    try:
        slow = parse_text(text, "deck.rules")
    finally:
        fastcards.MIN_ENTRIES = old
    assert fast == slow
    assert len(fast.decls[-1].entries) == 300


def fast_text_was_used(text: str) -> bool:
    from rulelang.language.fastcards import split_card_blocks

    return bool(split_card_blocks(text, "deck.rules")[1])


def test_a_long_deck_with_an_error_reports_it_as_before():
    from rulelang.language.parser import parse_text

    lines = ['game "Deck" { players 2 }', "component Card { n: int }", "zone deck", "cards pack in deck {"]
    lines += [f"  Card(n: {i})" for i in range(200)] + ["  Card(n: )"] + ["}"]
    with pytest.raises(RulesError) as info:
        parse_text("\n".join(lines) + "\n", "deck.rules")
    assert info.value.diagnostics[0].span.line == 205


def test_a_huge_fixed_board():
    text = ('game "Board" { players 2; round: a; max rounds 1 }\nzone b: board grid 8 size 100000 by 100000\n'
            'zone h: board hex radius 3\nphase a { log "x" }\n')
    message = stops(text, "list_size", 2)
    assert "a board of 10,000,000,000 items" in message


def _deck_file(n: int) -> str:
    """A file of n declared cards, as bench/_hostile.py --cards writes it."""
    lines = ['game "Many cards" { players 2; round: a; max rounds 1 }', "enum Suit { red, green, blue }",
             'component Card { name: str; suit: Suit; point: int = 0; label "{name}" }', "zone deck hidden",
             "cards pack in deck {"]
    lines += [f'  Card(name: "Card {i}", suit: {("red", "green", "blue")[i % 3]}, point: {i % 13})' for i in range(n)]
    lines += ["}", 'phase a { log "x" }']
    return "\n".join(lines) + "\n"


def test_checking_declared_cards_takes_work_linear_in_their_number():
    """`rulelang check` of 50,000 declared cards must be linear in size (the time is `rulelang bench`'s
    and bench/_hostile.py's to measure): parsing and checking four times as many cards makes at most
    4.4 times as many Python calls and keeps at most 4.4 times as many memory blocks."""
    import gc
    import sys

    from rulelang.check.checker import check_rules
    from rulelang.language.parser import parse_text

    def work(n: int) -> tuple[int, int]:
        text = _deck_file(n)
        calls = 0

        def count(frame, event, arg):
            nonlocal calls
            calls += 1

        gc.collect()
        allocated = sys.getallocatedblocks()
        sys.setprofile(count)
        try:
            rules = parse_text(text, "deck.rules")
            check_rules(rules, all_variants=True)
        finally:
            sys.setprofile(None)
        kept = sys.getallocatedblocks() - allocated
        del rules
        return calls, kept

    work(100)  # the first parse loads the grammar
    small_calls, small_blocks = work(1_000)
    big_calls, big_blocks = work(4_000)
    assert big_calls <= 4.4 * small_calls, (small_calls, big_calls)
    assert big_blocks <= 4.4 * small_blocks, (small_blocks, big_blocks)


def test_a_match_of_a_hundred_million_players_is_not_started(tmp_path):
    # found by the fuzzer: `players 21..100000000` checks clean, and its default match would have
    # built a hundred million players; the players budget stops it at once, naming the game line
    path = tmp_path / "crowd.rules"
    path.write_text('game "Crowd" {\n  players 21..100000000\n  turn order clockwise\n  round: play\n}\n'
                    'phase play { take turns once { choose x from [1, 2] } }\n', encoding="utf-8")
    game = rulelang.load(str(path))
    with pytest.raises(RulesError) as info:
        game.new_match(seed=1)
    text = info.value.format()
    assert "crowd.rules:1:1" in text and "100,000,000 players" in text and "budget players" in text
    assert len(game.new_match(players=21, seed=1).s.players) == 21
    roomy = rulelang.load(str(path), budgets={"players": 2000})
    assert len(roomy.new_match(players=1500, seed=1).s.players) == 1500
