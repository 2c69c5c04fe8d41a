"""A variant's check leaves out the declarations it keeps unchanged (`checker.unchanged_declarations`):
the same problems must be found as when every declaration is checked again. Every game and example
is checked with its own variants, and with variants made to change what other declarations read:
a def's or a procedure's parameters, an enum's members, a zone's owner, a global's or
a setting's kind, a keyword's parameters, a component's fields (by name, in a component added), a
declaration removed, a global named like a local name."""
from __future__ import annotations

import random

import pytest

from conftest import EXAMPLES, GAMES
from rulelang.language import nodes as N
from rulelang.language.astcache import parse_file_cached
from rulelang.check.checker import DataFiles, build_symbols, check_rules
from rulelang.check.dependencies import nodes_in
from rulelang.core.errors import DiagnosticBag, RulesError
from rulelang.language.parser import parse_declarations
from rulelang.language.variants import apply_variants

MUTATIONS_PER_FILE = 45  # a sample (fixed seed) of each file's mutations: each is two checks of the file


def problems(rules, reuse: bool) -> str:
    try:
        check_rules(rules, all_variants=True, data_files=DataFiles(), reuse=reuse)
    except RulesError as exc:
        return exc.format()
    return ""


def mutations(rules) -> list[str]:
    """Variants that each change one thing other declarations may read."""
    decls, _ = apply_variants(rules, [], DiagnosticBag())
    table = build_symbols(decls, DiagnosticBag(), DataFiles())
    out = []
    for name, sym in sorted(table.symbols.items()):
        d = sym.decl
        if sym.kind == "def":
            params = ", ".join(f"q{i}" for i in range(len(d.params) + 1))
            out.append(f"replace def {name}({params}) = 0")
        elif sym.kind == "proc":
            params = ", ".join(f"q{i}: int" for i in range(len(d.params)))
            out.append(f"replace procedure {name}({params}) {{ }}")
        elif sym.kind == "enum":
            out.append(f"replace enum {name} {{ zz_only }}")
        elif sym.kind == "zone":
            out.append(f"replace zone {name}" + ("" if d.per_player else " per player"))
        elif sym.kind == "var":
            out.append(f'replace var {name}: str = "x"')
        elif sym.kind == "setting":
            out.append(f'replace setting {name} = "x"')
        elif sym.kind == "keyword":
            params = ", ".join(f"q{i}" for i in range(len(d.params) + 1))
            out.append(f"replace keyword {name}({params}) {{ effect {{ }} }}")
        if sym.kind in ("def", "proc", "enum", "zone", "var", "setting", "keyword", "cards", "phase", "component"):
            out.append(f"remove {name}")
    fields = sorted({f.name for comp in table.components.values() for f in comp.fields})
    if fields:
        out.append("component ZzText { " + "; ".join(f"{f}: str" for f in fields) + " }")
        out.append("component ZzList { " + "; ".join(f"{f}: list of int" for f in fields) + " }")
    locals_ = sorted({x.id for d in decls for x in nodes_in(d) if isinstance(x, N.Name)} - set(table.symbols))
    out.extend(f"var {name}: int = 0" for name in locals_[:12])
    return out


def with_variant(rules, body: str):
    line = 100_000  # spans of the variant past the file's end
    (variant,) = parse_declarations(f"variant zz_probe {{\n{body}\n}}\n", rules.path or "<rules>", line)
    base = [d for d in rules.decls if not isinstance(d, N.VariantDecl)]
    return rules.model_copy(update={"decls": base + [variant]})


@pytest.mark.parametrize("path", GAMES + EXAMPLES, ids=lambda p: p.stem)
def test_a_variant_check_finds_what_checking_everything_finds(path):
    rules = parse_file_cached(path)
    assert problems(rules, reuse=True) == problems(rules, reuse=False) == ""
    found = mutations(rules)
    assert found, "no mutation made"
    sample = random.Random(path.stem).sample(found, min(MUTATIONS_PER_FILE, len(found)))
    differing = []
    reported = 0
    for body in sample:
        changed = with_variant(rules, body)
        with_reuse, without = problems(changed, reuse=True), problems(changed, reuse=False)
        reported += bool(without)
        if with_reuse != without:
            differing.append(f"{body}\n--- with reuse:\n{with_reuse}\n--- checking everything:\n{without}")
    assert not differing, "\n\n".join(differing[:3])
    assert reported >= len(sample) // 3, "the mutations should mostly break something"


SMALL = """game "T" { players 2; round: play }
enum Suit { red, black }
component Card { suit: Suit; point: int = 1; label "{suit} {point}" }
player { score: int = 0 }
cards deck_cards in deck { Card(suit: red, point: 1) * 3 }
zone deck
zone hand per player
var leader: player
procedure give(c: Card, s: Suit) { move c to hand(current) }
def points(p) = sum(c.point for c in hand(p))
phase play {
  take turns from player(1) {
    let c = top(deck)
    give(c, c.suit)
    log "{leader.score} points"
    if points(current) > 3 or empty(deck) { end game }
  }
}
"""


@pytest.mark.parametrize("body, said", [
    # a name only written inside a text's braces
    ('replace var leader: str = "x"', "score"),
    # a def's parameters, read where it is called
    ("replace def points(p, q) = 0", "points"),
    # a procedure's parameters, read where it is called
    ("replace procedure give(c: Card) { }", "give"),
    # an enum's members, read by a component's cards
    ("replace enum Suit { green }", "red"),
    # a zone's owner
    ("replace zone hand", "hand"),
    # a type that is no longer an enum: the component's field, the procedure's parameter
    ("remove Suit\ncomponent Suit { x: int }", "red"),
])
def test_a_variant_check_of_small_changes(body, said):
    from rulelang.language.parser import parse_text

    rules = parse_text(SMALL + f"variant probe {{\n{body}\n}}\n", "small.rules")
    with_reuse, without = problems(rules, reuse=True), problems(rules, reuse=False)
    assert without and said in without
    assert with_reuse == without
