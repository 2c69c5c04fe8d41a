"""MkDocs hooks for the rulelang site (registered in ``mkdocs.yml`` under ``hooks:``).

* One page per game, rendered from ``games/*.rules`` when the site is built
  (``rulelang.tools.docgen``), and one per example in ``examples/*.rules``; nothing is copied
  by hand, so editing a ``.rules`` file and rebuilding updates its page. ``mkdocs serve``
  watches both folders.
* The "Games" and "Examples" sections of the navigation list those pages.
* ``<!-- grammar: rule other_rule -->`` on a line of its own becomes a code block quoting those rules
  from ``grammar/rulelang.lark``; ``<!-- cli: check -->`` the usage and options of a command,
  read from its argument parser. The reference cannot drift from them.
* The table of built-in functions and values is text in ``docs/reference.md`` (so the page reads
  without a build), written by ``python3 -m rulelang.tools.docgen builtins``; a page whose table is not
  the interpreter's is a warning, which fails ``mkdocs build --strict``.
* Each game's page gets a short "Balance" section from a seeded simulation
  (``rulelang.balance.balance_docs``): win rate per seat, length, a small SVG plot.
* ``css/pygments.css``: the colours of the ``codehilite`` highlighting (the ``rules``
  lexer is ``rulelang.tools.pygments_lexer``).
"""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from mkdocs.structure.files import File

from rulelang.cli.main import build_parser
from rulelang.tools.docgen import build_page
from rulelang.tools.docgen_text import REGENERATE_BUILTINS, builtins_section, builtins_table, cli_usage, grammar_rules

log = logging.getLogger("mkdocs.hooks.rulelang")

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = {"Games": ("games", ROOT / "games"), "Examples": ("examples", ROOT / "examples")}
_pages: dict[str, list[tuple[str, str]]] = {}  # section -> [(title, src_uri)]


def _rules_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.rules")) if folder.is_dir() else []


def _render(section: str, path: Path) -> tuple[str, str]:
    """(title, markdown) of one rules file; a file that does not parse gets a page saying so."""
    from rulelang.core.errors import RulesError

    shown = path.relative_to(ROOT).as_posix()
    try:
        page = build_page(path, site=True, source_path=shown)
    except RulesError as exc:
        log.warning("%s does not parse, its page only shows the errors:\n%s", shown, exc.format())
        text = path.read_text(encoding="utf-8")
        md = (f"# {path.stem}\n\n`{shown}` does not parse, so this page cannot be made yet.\n\n"
              f"```text\n{exc.format()}\n```\n\n## Source\n\n```rules\n{text}\n```\n")
        return path.stem, md
    for problem in page.problems:
        log.warning("%s: %s", shown, problem)
    return page.title, page.markdown


_balance_cache: dict = {}  # (path, modification time) -> (markdown, svg): `mkdocs serve` rebuilds fast


def _with_balance(md: str, path: Path, folder_uri: str, config, files) -> str:
    """The page with its "Balance" section (a seeded simulation, rulelang.balance.balance_docs) before the
    assumptions and the source, and the section's plot as a generated SVG beside it."""
    from rulelang.balance.balance_docs import balance_section
    from rulelang.core.errors import RulesError

    key = (str(path), path.stat().st_mtime_ns)
    if key not in _balance_cache:
        kept = ROOT / "docs" / "ladders" / f"{path.stem}.json"  # a skill ladder played once and kept
        ladder = json.loads(kept.read_text(encoding="utf-8")) if kept.is_file() else None
        image = f"../ladders/{path.stem}.png" if (kept.with_suffix(".png")).is_file() else None
        try:
            _balance_cache[key] = balance_section(path, source_path=path.relative_to(ROOT).as_posix(),
                                                  plot_name=f"{path.stem}-balance.svg", ladder=ladder,
                                                  ladder_image=image)
        except (RulesError, ValueError) as exc:
            log.warning("%s: no balance section, the simulation failed: %s", path.name, exc)
            return md
    section, svg = _balance_cache[key]
    files.append(File.generated(config, f"{folder_uri}/{path.stem}-balance.svg", content=svg))
    for heading in ("\n## Assumptions", "\n## Source"):
        at = md.find(heading)
        if at != -1:
            return md[:at] + "\n" + section + md[at:]
    return md + "\n" + section


def on_config(config):
    _pages.clear()
    for section, (folder_uri, folder) in SECTIONS.items():
        entries = []
        for path in _rules_files(folder):
            entries.append((path.stem, f"{folder_uri}/{path.stem}.md"))
        _pages[section] = entries
    # fill the (empty) "Games" and "Examples" sections of the nav: written anew on every build
    nav = config.get("nav") or []
    for item in nav:
        if isinstance(item, dict):
            for key in item:
                if key in _pages:
                    overview = [{"Overview": "games/index.md"}] if key == "Games" else []
                    item[key] = overview + [{title: uri} for title, uri in _pages[key]]
    return config


def on_files(files, config):
    for section, (folder_uri, folder) in SECTIONS.items():
        titles = []
        for path in _rules_files(folder):
            title, md = _render(section, path)
            if section == "Games":
                md = _with_balance(md, path, folder_uri, config, files)
            uri = f"{folder_uri}/{path.stem}.md"
            titles.append((title, uri))
            if files.get_file_from_path(uri) is not None:
                files.remove(files.get_file_from_path(uri))
            files.append(File.generated(config, uri, content=md))
        _pages[section] = titles
    files.append(File.generated(config, "games/index.md", content=_games_index()))
    from pygments.formatters import HtmlFormatter

    css = HtmlFormatter(style="friendly").get_style_defs(".codehilite")
    css += "\n.codehilite .linenos, .codehilitetable .linenos { color: #999; padding-right: .5em; user-select: none; }\n"
    css += ".codehilitetable { border: none; width: 100%; } .codehilitetable td { padding: 0; border: none; }\n"
    css += ".codehilitetable td.code { width: 100%; }\n"
    css += _LAYOUT_CSS
    files.append(File.generated(config, "css/pygments.css", content=css))
    return files


# Layout fixes for the readthedocs theme, checked in a real browser (headless Chromium):
# * its table cells never wrap (white-space: nowrap), so a table with a sentence in a cell
#   (the reference's example conventions, a game's "At a glance" settings) ran off the
#   right edge behind a scroll bar; cells now wrap between words, code in them too
#   (a long expression in a card table), but never inside a word ("poin" / "t"); not
#   the source listings with line numbers, which are tables too (codehilitetable);
# * the text column stopped at 800px on any screen, so code blocks scrolled sideways;
# * in a source listing with line numbers, the numbers were set 1.4 lines high and the code
#   1.5, and the code was centred vertically: line 13 stood beside the code of line 8;
# * a table whose header row is all empty cells ("| | |", a key/value table) showed an
#   empty grey band above its rows.
_LAYOUT_CSS = """
.wy-nav-content { max-width: 1100px; }
.wy-table-responsive table:not(.codehilitetable) td,
.wy-table-responsive table:not(.codehilitetable) th { white-space: normal; }
.rst-content table:not(.codehilitetable) td code,
.rst-content table:not(.codehilitetable) th code { white-space: normal; word-break: normal; overflow-wrap: normal; }
.rst-content table thead:not(:has(th:not(:empty))) { display: none; }
.codehilitetable td { vertical-align: top; }
.rst-content .codehilitetable .linenodiv pre { font-size: 12px; line-height: 18px; padding: 12px; margin: 0; }
.rst-content .codehilitetable td.code pre { margin: 0; line-height: 18px; }
.rst-content .codehilitetable td.code pre code { line-height: 18px; padding: 12px; }
"""


def _games_index() -> str:
    """The overview of the games: one row per games/*.rules file."""
    from rulelang.core.errors import RulesError
    from rulelang.language.parser import parse_file
    from rulelang.tools.docgen_text import first_sentence

    out = ["# Games", "",
           "Every game in `games/` has a page made from its `.rules` file when the site is built: "
           "the rules as prose, the flow of a round, the cards, the variants and every assumption.", "",
           "| game | players | variants | about |", "|---|---|---|---|"]
    for path in _rules_files(ROOT / "games"):
        try:
            rules = parse_file(path)
        except RulesError:
            out.append(f"| [{path.stem}]({path.stem}.md) | | | does not parse yet |")
            continue
        game = rules.game()
        title = game.title if game else path.stem
        players = "" if game is None else (f"{game.players_min}" if game.players_min == game.players_max
                                           else f"{game.players_min} to {game.players_max}")
        variants = ", ".join(f"`{v}`" for v in rules.variants()) or "none"
        about = first_sentence(rules.header_doc, 140).replace("|", "\\|") if rules.header_doc else ""
        out.append(f"| [{title}]({path.stem}.md) | {players} | {variants} | {about} |")
    out += ["", "How the five seed games map onto the language is in "
            "[the language design](../language.md#the-five-seed-games).", ""]
    return "\n".join(out)


def on_nav(nav, config, files):
    # give generated pages the game's title in the navigation
    titles = {uri: title for entries in _pages.values() for title, uri in entries}
    for page in nav.pages:
        uri = page.file.src_uri
        if uri in titles:
            page.title = titles[uri]
    return nav


# a directive stands alone on its line (so a page can mention one in `code`)
_GRAMMAR = re.compile(r"^<!--\s*grammar:\s*([\w\s]+?)\s*-->[ \t]*$", re.M)
_CLI = re.compile(r"^<!--\s*cli:\s*(\w+)\s*-->[ \t]*$", re.M)


def on_page_markdown(markdown, page, config, files):
    def grammar(m: re.Match) -> str:
        names = m.group(1).split()
        try:
            text = grammar_rules(names)
        except KeyError as exc:
            log.warning("%s: %s", page.file.src_uri, exc.args[0])
            return m.group(0)
        return "```text\n" + text + "\n```"

    markdown = _GRAMMAR.sub(grammar, markdown)
    try:
        table = builtins_section(markdown)
    except ValueError as exc:
        log.warning("%s: %s", page.file.src_uri, exc)
    else:
        if table is not None and table != builtins_table():
            log.warning("%s: its table of built-ins is not the interpreter's: run `%s` to write it",
                        page.file.src_uri, REGENERATE_BUILTINS)

    def cli(m: re.Match) -> str:
        try:
            return cli_usage(m.group(1), build_parser())
        except KeyError as exc:
            log.warning("%s: %s", page.file.src_uri, exc.args[0])
            return m.group(0)

    markdown = _CLI.sub(cli, markdown)
    return markdown


def on_serve(server, config, builder):
    for _section, (_uri, folder) in SECTIONS.items():
        if folder.is_dir():
            server.watch(str(folder))
    server.watch(str(ROOT / "grammar"))
    return server
