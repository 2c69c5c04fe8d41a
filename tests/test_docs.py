"""The documentation cannot rot: its examples run, its game pages are made from the rules.

Every ```rules block in docs/ is checked according to its first line (the convention is
written down in docs/reference.md, "Examples in these pages"):

* no marker: a complete file. It must parse and check (every variant too); if it declares a
  game, the game is loaded and played to the end with random choices, base game and variants.
* ``// snippet``: top-level declarations that use names declared elsewhere: parsed only.
* ``// snippet: statements``: statements, parsed as the body of a block.
* ``// from PATH``: a piece of the file PATH (relative to the repository): its lines must
  appear in that file, in order. The file itself is checked and played below.
* a block holding only ``scenario`` declarations is run like ``rulelang test`` and must pass.

```python blocks in docs/api.md run in order, in one namespace, from the repository root.

Then the game pages: ``rulelang.tools.docgen`` must render every ``games/*.rules`` (and every example)
with its tables, flow diagram and assumptions, and a changed doc comment must change the page.
``mkdocs build --strict`` itself runs in CI (``.ci/run``); here the hook's parts are tested.
"""
from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path

import pytest

import rulelang
from rulelang.language import nodes as N
from rulelang.check.checker import check_rules
from rulelang.language.parser import parse_text

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
GAMES = sorted((REPO / "games").glob("*.rules"))
EXAMPLES = sorted((REPO / "examples").glob("*.rules"))

FENCE = re.compile(r"^(?P<fence>`{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)


def code_blocks(language: str) -> list[tuple[str, int, str]]:
    """(page, line, text) of every fenced block of one language in docs/*.md."""
    out = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            info = m.group("info").strip()
            lang = info.lstrip("{ .").split()[0] if info else ""
            if lang == language:
                line = text.count("\n", 0, m.start()) + 2
                out.append((page.relative_to(DOCS).as_posix(), line, m.group("body")))
    return out


RULES_BLOCKS = code_blocks("rules")


def _kind(body: str) -> str:
    first = body.lstrip().split("\n", 1)[0].strip()
    if first.startswith("// snippet: statements"):
        return "statements"
    if first.startswith("// snippet"):
        return "snippet"
    if first.startswith("// from "):
        return "from"
    return "file"


def play_to_end(game, seed: int = 0, limit: int = 5000) -> dict:
    rng = random.Random(seed)
    match = game.new_match(seed=seed)
    steps = 0
    while not match.is_over:
        match.apply(rng.randrange(match.option_count()))
        steps += 1
        assert steps < limit, f"{game.title}: the game does not end within {limit} choices"
    return match.result


def test_the_docs_have_rules_examples():
    assert len(RULES_BLOCKS) >= 20, "the pages should show the language with examples"


@pytest.mark.parametrize("page,line,body", RULES_BLOCKS, ids=[f"{p}:{n}" for p, n, _ in RULES_BLOCKS])
def test_rules_example(page, line, body, tmp_path):
    where = f"docs/{page}:{line}"
    kind = _kind(body)
    if kind == "statements":
        parse_text("setup {\n" + body + "\n}\n", where)
        return
    if kind == "snippet":
        parse_text(body, where)
        return
    if kind == "from":
        first, rest = body.split("\n", 1)
        source = REPO / first.strip()[len("// from "):].strip()
        assert source.exists(), f"{where}: {source} does not exist"
        wanted = [ln.strip() for ln in rest.splitlines() if ln.strip()]
        have = [ln.strip() for ln in source.read_text(encoding="utf-8").splitlines()]
        pos = 0
        for ln in wanted:
            try:
                pos = have.index(ln, pos) + 1
            except ValueError:
                pytest.fail(f"{where}: this line is not in {source.relative_to(REPO)} (in this order): {ln}")
        return
    rules = parse_text(body, where)
    if rules.decls and all(isinstance(d, N.ScenarioDecl) for d in rules.decls):
        from rulelang.tools.scenario import run_file

        path = tmp_path / "scenario.rules"
        path.write_text(body, encoding="utf-8")
        results = run_file(path)
        failed = [f"{r.name}: {r.message}" for r in results if not r.passed]
        assert not failed, f"{where}: " + "; ".join(failed)
        return
    check_rules(rules, all_variants=True)
    if rules.game() is not None:
        for variant in [None, *rules.variants()]:
            game = rulelang.load(where, text=body, variant=variant)
            play_to_end(game)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_check_and_play_to_the_end(path):
    rules = parse_text(path.read_text(encoding="utf-8"), str(path))
    check_rules(rules, all_variants=True)
    for variant in [None, *rules.variants()]:
        result = play_to_end(rulelang.load(str(path), variant=variant), seed=1)
        assert result["rounds"] >= 1


def test_api_page_runs(monkeypatch):
    monkeypatch.chdir(REPO)
    blocks = [b for p, _, b in code_blocks("python") if p == "api.md"]
    assert blocks, "docs/api.md shows no Python"
    namespace: dict = {"__name__": "docs_api"}
    for body in blocks:
        exec(compile(body, "docs/api.md", "exec"), namespace)  # noqa: S102 - our own documentation


# ------------------------------------------------------------------ the reference covers the grammar


def _load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_grammar_quotes_resolve():
    hooks = _load_hooks()
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        out = hooks.on_page_markdown(text, type("P", (), {"file": type("F", (), {"src_uri": page.name})})(), None, None)
        for directive in ("grammar:", "builtins", "cli:"):
            assert not re.search(rf"^<!--\s*{directive}", out, re.M), f"docs/{page.name}: a {directive} directive was not resolved"


def test_every_declaration_and_statement_is_in_the_reference():
    """Each alternative of `decl` and `bare_stmt` in the grammar is quoted somewhere in docs/."""
    from rulelang.tools.docgen_text import grammar_rules_by_name

    rules = grammar_rules_by_name()
    wanted = set()
    for name in ("decl", "bare_stmt"):
        wanted |= set(re.findall(r"\b([a-z_]+)\b", rules[name].split(":", 1)[1]))
    quoted = set()
    for page in DOCS.rglob("*.md"):
        for m in re.finditer(r"^<!--\s*grammar:\s*([\w\s]+?)\s*-->", page.read_text(encoding="utf-8"), re.M):
            quoted |= set(m.group(1).split())
    missing = sorted(wanted - quoted)
    assert not missing, f"constructs of the grammar that no page quotes with <!-- grammar: ... -->: {missing}"


def test_the_reference_lists_the_interpreters_builtins():
    """docs/reference.md holds the table of built-ins as text, so that it reads without building
    the site: the table must be the one the interpreter's own list gives (BUILTINS, the board
    geometry's among them, and the special functions and values)."""
    import rulelang.model.builtins  # noqa: F401 - registers the board geometry's built-ins in BUILTINS
    from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS
    from rulelang.tools.docgen_text import REGENERATE_BUILTINS, builtins_section, builtins_table

    regenerate = (f"run `{REGENERATE_BUILTINS}` (it writes the table into docs/reference.md) "
                  "and commit docs/reference.md")
    committed = builtins_section((DOCS / "reference.md").read_text(encoding="utf-8"))
    assert committed is not None, f"docs/reference.md has lost the two marker lines of its table of built-ins; {regenerate}"
    assert "directions" in BUILTINS and "ray" in BUILTINS, "the board geometry's built-ins are not registered"
    missing = ([name for name in [*BUILTINS, *SPECIAL_FUNCS] if f"| `{name}(…)` |" not in committed]
               + [name for name in BUILTIN_VALUES if f"| `{name}` |" not in committed])
    assert not missing, f"built-ins that docs/reference.md does not list: {missing}; {regenerate}"
    assert committed == builtins_table(), (
        f"the table of built-ins in docs/reference.md is not the interpreter's (a built-in's doc, "
        f"arguments or order changed); {regenerate}")


def test_the_builtins_command_writes_only_the_table(tmp_path, capsys):
    from rulelang.tools.docgen_text import BUILTINS_BEGIN, BUILTINS_END, builtins_table, main

    page = tmp_path / "reference.md"
    stale = f"# Reference\n\nbefore\n\n{BUILTINS_BEGIN}\n\n| `gone(…)` | 1 | stale |\n\n{BUILTINS_END}\n\nafter\n"
    page.write_text(stale, encoding="utf-8")
    assert main(["builtins", "--check", str(page)]) == 1
    assert page.read_text(encoding="utf-8") == stale  # --check changes nothing
    assert "python3 -m rulelang.tools.docgen builtins" in capsys.readouterr().err
    assert main(["builtins", str(page)]) == 0
    assert page.read_text(encoding="utf-8") == (
        f"# Reference\n\nbefore\n\n{BUILTINS_BEGIN}\n\n{builtins_table()}\n\n{BUILTINS_END}\n\nafter\n")
    assert main(["builtins", "--check", str(page)]) == 0
    page.write_text(f"# Reference\n\n{BUILTINS_END}\n\n{BUILTINS_BEGIN}\n", encoding="utf-8")
    assert main(["builtins", str(page)]) == 2  # markers out of order: nothing written
    assert "marker" in capsys.readouterr().err


def test_the_site_build_warns_of_a_stale_builtins_table(caplog):
    """A warning fails `mkdocs build --strict`: a page whose table is not the interpreter's is not published."""
    from rulelang.tools.docgen_text import BUILTINS_BEGIN, BUILTINS_END, builtins_table

    hooks = _load_hooks()
    page = type("P", (), {"file": type("F", (), {"src_uri": "reference.md"})})()
    fresh = f"{BUILTINS_BEGIN}\n\n{builtins_table()}\n\n{BUILTINS_END}\n"
    with caplog.at_level("WARNING", logger="mkdocs.hooks.rulelang"):
        assert hooks.on_page_markdown(fresh, page, None, None) == fresh
        assert not caplog.records
        hooks.on_page_markdown(fresh.replace("| 1 |", "| 2 |", 1), page, None, None)
    assert "python3 -m rulelang.tools.docgen builtins" in caplog.text


def test_the_builtins_command_runs_as_documented():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "rulelang.tools.docgen", "builtins", "--check", str(DOCS / "reference.md")],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------ game pages


@pytest.mark.parametrize("path", GAMES + EXAMPLES, ids=[p.name for p in GAMES + EXAMPLES])
def test_docgen_renders_a_page(path):
    from rulelang.tools.docgen import build_page
    from rulelang.tools.docgen_text import collect_assumptions

    page = build_page(path, site=True, source_path=path.relative_to(REPO).as_posix())
    md = page.markdown
    assert not page.problems, page.problems
    rules = parse_text(path.read_text(encoding="utf-8"), str(path))
    game = rules.game()
    assert md.startswith(f"# {game.title}\n")
    for heading in ("## At a glance", "## How a game flows", "## The rules", "## Components and cards",
                    "## Settings", "## Keywords", "## Variants", "## Assumptions", "## Source"):
        assert f"\n{heading}" in md, f"{path.name}: no {heading!r}"
    # the flow: a picture (inline SVG), a mermaid diagram with every phase of the round, and a list
    assert '<svg class="rules-flow"' in md
    assert "```mermaid\nflowchart TD" in md
    for phase in game.round_phases:
        assert f'"phase {phase}' in md, f"{path.name}: the diagram lacks phase {phase}"
        assert f"`phase {phase}`" in md
    for decl in rules.decls:
        if isinstance(decl, N.PhaseDecl) and decl.name in game.round_phases:
            for s in _walk(decl.body):
                if isinstance(s, N.StepBlock):
                    assert f'"step {s.name}"' in md, f"{path.name}: the diagram lacks step {s.name}"
                    assert f">step {s.name}</text>" in md, f"{path.name}: the picture lacks step {s.name}"
    # the decks: one row per cards declaration, with the number of cards computed by loading the game
    loaded = rulelang.load(str(path))
    for name, defs in loaded.program.card_sets.items():
        assert re.search(rf"\| `{name}` \| [^|]+ \| {len(defs)} \|", md), f"{path.name}: no deck row for {name}"
    # the components table
    for decl in rules.decls:
        if isinstance(decl, N.ComponentDecl):
            assert f"#### `{decl.name}`" in md
            for f in decl.fields:
                assert f"| `{f.name}` |" in md
    # every assumption, with its line number
    for a in collect_assumptions(path.read_text(encoding="utf-8")):
        assert f'href="#L-{a.line}">line {a.line}</a>' in md
    # variants
    for v in rules.variants():
        assert f"### Variant `{v}`" in md
    # the source, with line anchors for the links
    assert 'lineanchors="L"' in md


def _walk(stmts):
    from rulelang.tools.docgen_text import walk_stmts

    return list(walk_stmts(stmts))


GAME = '''//! A tiny game for the docgen tests.

/// The one and only game.
game "Tiny" {
  players 2
  round: only
}

/// A counter.
component Chip {
  /// How much it is worth.
  worth: int
  discards to spent
}

cards chips in pile { Chip(worth: w) for w in 1..6 }
zone pile hidden
zone spent

/// Assumption: the rulebook says nothing about who starts.
phase only {
  /// Take the top chip.
  step take {
    draw from pile to spent
  }
  if empty(pile) { end game }
}

/// Twice as good.
keyword double {
  usable if true
}

variant quick {
  set speed = 2
  remove only
}

setting speed = 1
'''


def test_docgen_follows_the_doc_comments(tmp_path):
    from rulelang.tools.docgen import build_page

    path = tmp_path / "tiny.rules"
    path.write_text(GAME, encoding="utf-8")
    first = build_page(path).markdown
    assert "A tiny game for the docgen tests." in first
    assert "| `chips` | Chip | 6 | `pile` |" in first
    assert "| `worth` | int |  | How much it is worth. |" in first
    assert "- line 20 (on `phase only`): Assumption: the rulebook says nothing about who starts." in first
    assert '"step take"' in first
    assert "**`double`**" in first
    assert "| `speed` | `1` | `2` |" in first
    assert "**Removed**\n\n- `phase only`" in first

    path.write_text(GAME.replace("/// Take the top chip.", "/// Take the top chip, face up."), encoding="utf-8")
    second = build_page(path).markdown
    assert second != first
    assert "Take the top chip, face up." in second

    path.write_text(GAME.replace("/// Assumption: the rulebook", "/// Assumption: nothing in the rulebook"), encoding="utf-8")
    third = build_page(path).markdown
    assert "Assumption: nothing in the rulebook" in third


def test_an_assumption_after_the_rule_it_reads_is_listed():
    from rulelang.tools.docgen_text import collect_assumptions

    source = ("/// Each player draws two cards. Assumption: from the top,\n"
              "/// not the bottom.\n"
              "/// The next rule. Assumption: a second reading.\n"
              "/// It holds for every round.\n"
              "phase draw {\n}\n")
    found = [(a.line, a.text, a.before) for a in collect_assumptions(source)]
    assert found == [(1, "Assumption: from the top, not the bottom.", "phase draw"),
                     (3, "Assumption: a second reading. It holds for every round.", "phase draw")]


def test_cli_docs_writes_the_page(tmp_path, capsys):
    from rulelang.cli.main import main

    out = tmp_path / "page.md"
    assert main(["docs", str(EXAMPLES[0]), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# ") and "```rules" in text


def test_pygments_lexer_is_registered():
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.token import Error, Keyword

    lexer = get_lexer_by_name("rules")
    assert type(lexer).__name__ == "RulesLexer"
    assert type(get_lexer_by_name("rulelang")).__name__ == "RulesLexer"
    assert type(get_lexer_for_filename("x.rules")).__name__ == "RulesLexer"
    for path in GAMES + EXAMPLES:
        tokens = list(lexer.get_tokens(path.read_text(encoding="utf-8")))
        assert not [t for t in tokens if t[0] is Error], path.name
    kinds = {v: t for t, v in lexer.get_tokens("phase play { take turns once { draw from deck to hand(current) } }")}
    assert kinds["take"] in Keyword and kinds["draw"] in Keyword and kinds["phase"] in Keyword


def test_lexer_keywords_come_from_the_grammar():
    from rulelang.tools.pygments_lexer import grammar_keywords

    keywords, declarations = grammar_keywords()
    assert {"phase", "zone", "cards", "variant", "keyword"} <= declarations
    assert {"move", "draw", "shuffle", "reveal", "skipping", "optional", "replace"} <= keywords


def test_every_command_has_its_section_in_the_cli_reference():
    """docs/cli.md quotes each command's usage (`<!-- cli: NAME -->`): a command without one is
    one a designer cannot find."""
    from rulelang.cli.main import build_parser

    commands = re.search(r"\{([\w,]+)\}", build_parser().format_usage()).group(1).split(",")
    assert "check" in commands and "replay" in commands
    written = set(re.findall(r"^<!--\s*cli:\s*(\w+)\s*-->", (DOCS / "cli.md").read_text(encoding="utf-8"), re.M))
    assert sorted(set(commands) - written) == []
