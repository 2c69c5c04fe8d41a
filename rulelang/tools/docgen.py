"""Rulebook pages: a Markdown page for a game, rendered from its parsed ``.rules`` file.

``rulelang docs FILE`` prints the page; the documentation site renders one page per
``games/*.rules`` file at build time (``docs/hooks.py``), so a page never goes stale. The page's
sections are ``_Renderer.page``'s calls, in order. The cards are computed by loading the game
(``game.program.card_sets``); everything else comes from the AST, and nothing here knows any
particular game. A file that parses but does not load still gets a page that says what is missing.
Its parts live beside it: ``docgen_text`` (the text it quotes) and ``docgen_flow`` (the flow).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rulelang.language import nodes as N
from rulelang.core.errors import DiagnosticBag, RulesError
from rulelang.tools.docgen_flow import build_flow, flow_list, flow_mermaid, flow_svg, line_link
from rulelang.tools.docgen_text import (Source, cell, child_blocks, code, collect_assumptions, decl_bodies, decl_title,
                                        doc_text, first_sentence, main, table)

# ------------------------------------------------------------------ cards


def _format_value(v, top: bool = False) -> str:
    """A card's value as the rules would write it (a top-level list without its brackets)."""
    from rulelang.model.builtins import describe
    from rulelang.model.things import EnumMap, KeywordValue

    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, KeywordValue):
        return v.name + (f"({', '.join(_format_value(a) for a in v.args)})" if v.args else "")
    if isinstance(v, (list, tuple)):
        items = ", ".join(_format_value(x) for x in v)
        return (items or "–") if top else f"[{items}]"
    if type(v) is EnumMap:  # a number per member: "2 ruby, 1 jade" in a table, else as written, {ruby: 2, jade: 1}
        return describe(v) if top else "{" + ", ".join(f"{k}: {n}" for k, n in v.values.items() if n) + "}"
    return str(v)


def _value_summary(values: list) -> str:
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if len(ints) == len(values) and ints:
        uniq = sorted(set(ints))
        if uniq == list(range(uniq[0], uniq[-1] + 1)) and len(uniq) > 2:
            return f"{uniq[0]} to {uniq[-1]}"
        return ", ".join(str(x) for x in uniq)
    return ", ".join(dict.fromkeys(_format_value(v) for v in values))


def cards_section(rules: N.RulesFile, card_sets: dict | None, src: Source, level: int = 3) -> list[str]:
    """The decks: one summary table, then the cards of each `cards` declaration."""
    decls = [d for d in rules.decls if isinstance(d, N.CardsDecl)]
    if not decls:
        return ["This game declares no cards."]
    card_sets = card_sets or {}
    out = table("cards | component | how many: | where they start", (
        [code(d.name), ", ".join(sorted({e.ctor.component for e in d.entries})),
         str(len(card_sets[d.name])) if d.name in card_sets else "?",
         code(src.of(d.zone)) if d.zone is not None else "made by `create` (setup)"] for d in decls)) + [""]
    for d in decls:
        out += [f"{'#' * level} Cards {code(d.name)}", ""]
        if d.doc:
            out += [doc_text(d.doc), ""]
        defs = card_sets.get(d.name)
        out += (["The cards could not be computed (the game does not load)."] if defs is None
                else _cards_table(d, defs, src)) + [""]
    return out


def _cards_table(d: N.CardsDecl, defs: list, src: Source) -> list[str]:
    # condition/effect fields are code: show the expression as written in the entry
    entry_by_pos = {(e.span.line, e.span.column): e for e in d.entries}
    fields = list(dict.fromkeys(k for cd in defs for k in [*cd.values, *cd.code]))
    # leave out fields that no entry sets and that keep one value (defaults such as `current: int = 0`)
    given = {a.name for e in d.entries for a in e.ctor.args}
    fields = [f for f in fields if f in given or len({_format_value(cd.values.get(f)) for cd in defs}) > 1]

    def row(cd) -> tuple:
        vals = []
        for f in fields:
            if f in cd.code:
                e = entry_by_pos.get((cd.span.line, cd.span.column))
                arg = next((a for a in e.ctor.args if a.name == f), None) if e else None
                vals.append(src.of(arg.value) if arg else "(code)")
            else:
                vals.append(_format_value(cd.values.get(f), top=True))
        return (cd.component,) + tuple(vals)

    rows = Counter(row(cd) for cd in defs)
    components = {r[0] for r in rows}
    code_fields = {f for cd in defs for f in cd.code}
    copies = set(rows.values())
    alike = next(iter(copies)) if len(copies) == 1 else None  # the copies of each card, when all have as many
    if len(fields) <= 1 and len(components) == 1:
        each = "" if alike is None else "one of each" if alike == 1 else f"{alike} of each"
        if not fields:
            return [f"{len(defs)} {next(iter(components))} cards, all alike."]
        values = _value_summary([cd.values.get(fields[0]) for cd in defs])
        if len(rows) == 1:
            return [f"{len(defs)} cards, all with {code(fields[0])} {values}."]
        return [f"{len(defs)} cards: {code(fields[0])} {values}" + (f", {each}." if each else ".")]
    different = math.prod(len(set(column)) for column in list(zip(*rows))[1:])
    combination = len(components) == 1 and len(fields) > 1 and different == len(rows)
    if combination or len(rows) > 80:
        # every combination of a few values (a suit-and-rank deck), or very many cards: a summary
        out = [f"{len(defs)} cards, {len(rows)} different ones.", ""] + table("field | values", (
            [code(f), cell(_value_summary([cd.values.get(f) for cd in defs]) if f not in code_fields
                           else "an expression per card")] for f in fields))
        if combination:
            each = "" if alike is None else "once" if alike == 1 else f"{alike} times"
            out += ["", f"One card for every combination of {', '.join(code(f) for f in fields)}"
                    + (f", each {each}." if each else ".")]
        return out
    show_copies = copies != {1}
    head = (["component"] if len(components) > 1 else []) + fields + (["copies"] if show_copies else [])
    return table(" | ".join(head), (([r[0]] if len(components) > 1 else [])
                                    + [cell(code(v)) if f in code_fields else cell(v) for f, v in zip(fields, r[1:])]
                                    + ([str(n)] if show_copies else []) for r, n in rows.items()))


# ------------------------------------------------------------------ the page


@dataclass
class GamePage:
    name: str  # the file's stem: games/NAME.rules -> NAME
    title: str
    markdown: str
    problems: list[str] = field(default_factory=list)  # why parts of the page could not be made


def build_page(path: str | Path, site: bool = False, source_path: str | None = None) -> GamePage:
    """Render a .rules file's page. ``site`` adds anchors and line numbers for the documentation site.

    A file that parses but does not check or compile still gets a page; what could not be made
    is said on the page and listed in ``problems``.
    """
    from rulelang.language.parser import parse_text
    from rulelang.core.sourcefile import read_source

    path = Path(path)
    text = read_source(path)  # (a folder, a device, a binary file: a diagnostic, as for check)
    shown = source_path or str(path)
    rules = parse_text(text, shown)
    return _Renderer(rules, text, path, shown, site).page()


class _Renderer:
    def __init__(self, rules: N.RulesFile, text: str, path: Path, shown: str, site: bool):
        self.rules, self.src, self.text, self.path, self.shown, self.site = rules, Source(text), text, path, shown, site
        self.problems: list[str] = []
        self.out: list[str] = []
        self.base = [d for d in rules.decls if not isinstance(d, (N.VariantDecl, N.ScenarioDecl))]
        self.card_sets = self._load()

    def _load(self) -> dict | None:
        from rulelang.compile.loader import load

        try:
            game = load(self.path, text=self.text)
        except RulesError as exc:
            first = exc.diagnostics[0] if getattr(exc, "diagnostics", None) else None
            msg = f"{first.span.line}: {first.message}" if first else str(exc)
            self.problems.append(f"{self.shown} does not load: line {msg}")
            return None
        return game.program.card_sets

    def ref(self, node_or_line) -> str:
        line = node_or_line if isinstance(node_or_line, int) else node_or_line.span.line
        if not line:
            return ""
        return line_link(line) if self.site else f"line {line}"

    def w(self, *lines: str):
        self.out.extend(lines)

    def section(self, heading: str, items, none: str) -> bool:
        """A section's heading; `none` in its place when it has no `items` (then False)."""
        self.w(heading, "")
        if not items:
            self.w(none, "")
        return bool(items)

    # ---- sections
    def page(self) -> GamePage:
        game = self.rules.game()
        title = game.title if game else self.path.stem
        self.w(f"# {title}", "")
        if self.site:
            self.w(f"*This page is generated from {code(self.shown)} when the site is built; "
                   f"edit the rules file, not this page.*", "")
        if self.rules.header_doc:
            self.w(doc_text(self.rules.header_doc), "")
        if self.problems:
            self.w("!!! warning", "", *(f"    {p}" for p in self.problems), "")
            self.w("**Not everything on this page could be made:** " + "; ".join(self.problems), "")
        self.glance(game)
        self.flow()
        self.prose()
        self.components()
        self.settings()
        self.keywords()
        self.variants()
        self.assumptions()
        self.source()
        md = re.sub(r"\n{3,}", "\n\n", "\n".join(self.out).rstrip() + "\n")
        return GamePage(self.path.stem, title, md, self.problems)

    def glance(self, game: N.GameDecl | None):
        if not self.section("## At a glance", game, "The file declares no `game`."):
            return
        players = f"{game.players_min}" if game.players_min == game.players_max else f"{game.players_min} to {game.players_max}"
        if game.players_default and (game.players_default not in (game.players_min, game.players_max)
                                     or game.players_min != game.players_max):
            players += f" (default {game.players_default})"
        rows = [("players", players), ("turn order", game.direction),
                ("a round", " → ".join(code(p) for p in game.round_phases) or "(no phases)")]
        if game.max_rounds:
            rows.append(("round limit", str(game.max_rounds)))
        settings = [d.name for d in self.base if isinstance(d, N.SettingDecl)]
        n_assumptions = len(collect_assumptions(self.text))
        rows += [("variants", ", ".join(f"[{v}](#variant-{v})" if self.site else code(v) for v in self.rules.variants())
                  or "none"),
                 ("settings", ", ".join(code(s) for s in settings) or "none"),
                 ("assumptions", f"[{n_assumptions}](#assumptions)" if self.site else str(n_assumptions)),
                 ("source", code(self.shown))]
        self.w("| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows), "")
        if game.doc:
            self.w(doc_text(game.doc), "")
        for key in ("players", "direction", "round", "max_rounds"):
            if game.member_docs.get(key):
                label = {"direction": "turn order", "max_rounds": "max rounds"}.get(key, key)
                self.w(f"- **{label}**: " + " ".join(game.member_docs[key]))
        play, check = code(f"rulelang play {self.shown}"), code(f"rulelang check {self.shown}")
        self.w("", f"Play it: {play}; check it: {check}.", "")

    def flow(self, decls: list | None = None, level: int = 2, title: str = "How a game flows"):
        flow = build_flow(decls if decls is not None else self.base, self.src)
        self.w(f"{'#' * level} {title}", "")
        if self.site:
            # the site draws the picture itself (no script), and keeps the Mermaid text to copy
            ident = "flow-" + re.sub(r"\W+", "-", title.lower()).strip("-")
            self.w('<div class="rules-flow-picture">' + flow_svg(flow, ident) + "</div>", "")
            self.w(flow_list(flow, self.site), "")
            self.w('<details markdown="1">', "<summary>The diagram as Mermaid</summary>", "")
            self.w("```mermaid", flow_mermaid(flow), "```", "", "</details>", "")
            return
        self.w("```mermaid", flow_mermaid(flow), "```", "")
        self.w("The same flow as a list:" if level == 2 else "As a list:", "", flow_list(flow, self.site), "")

    def prose(self):
        self.w("## The rules", "", "The rules in the order of the file: each declaration with its doc comments.", "")
        items: list = [(i, "divider", m.group(1)) for i, line in enumerate(self.src.lines, 1)
                       if (m := re.match(r"^//\s*[-=]{3,}\s*(.*?)\s*[-=]*\s*$", line)) and m.group(1)]
        items += [(d.span.line, "decl", d) for d in self.rules.decls if not isinstance(d, (N.VariantDecl, N.ScenarioDecl))]
        items.sort(key=lambda x: x[0])
        heading = None
        for line, kind, what in items:
            if kind == "divider":
                heading = f"### {what[:1].upper() + what[1:]}"
                continue
            before = len(self.out)
            self.decl_prose(what)
            if heading and len(self.out) > before:  # a divider heads a section only if it has prose
                self.out[before:before] = [heading, ""]
                heading = None

    def decl_prose(self, d: N.Node):
        members = self.member_docs(d)
        nested = self.nested_docs(d)
        if not d.doc and not members and not nested:
            return
        self.w(f"**{code(('replace ' if d.replace else '') + decl_title(d, self.src))}** ({self.ref(d)})", "")
        for part in ([doc_text(d.doc)] if d.doc else [], members, nested):
            if part:
                self.w(*part, "")

    def member_docs(self, d: N.Node) -> list[str]:
        """The doc comments of an enum's members, a component's fields or a deck's entries (a game's
        are shown at a glance)."""
        if isinstance(d, N.EnumDecl):
            docs = zip(d.members, d.member_docs)
        elif isinstance(d, (N.ComponentDecl, N.PlayerDecl)):
            docs = ((f.name, f.doc) for f in d.fields)
        elif isinstance(d, N.CardsDecl):
            docs = ((self.src.first_line(e, 70), e.doc) for e in d.entries)
        else:
            return []
        return [f"- {code(name)}: " + " ".join(doc) for name, doc in docs if doc]

    def nested_docs(self, d: N.Node) -> list[str]:
        """The doc comments inside a declaration's blocks (steps, statements, options; a keyword's
        effect and triggers), as a list nested as they are."""
        out: list[str] = []

        def noted(depth: int, head: str, node) -> int:
            """The node's doc as an item at `depth` (if it has one); the depth of what is inside it."""
            if not node.doc:
                return depth
            out.append("    " * depth + f"- {head} ({self.ref(node)}): " + " ".join(node.doc))
            return depth + 1

        def visit(stmts, depth: int):
            for s in stmts or []:
                inner = noted(depth, f"step {code(s.name)}" if isinstance(s, N.StepBlock)
                              else code(self.src.first_line(s, 70)), s)
                if not isinstance(s, (N.ChooseBlock, N.Respond, N.Offer)):
                    for body in child_blocks(s):
                        visit(body, inner)
                    continue
                for o in s.options:
                    visit(o.body, noted(inner, f"option {code(o.name)}", o))
                if isinstance(s, N.Offer) and s.refused:
                    visit(s.refused, inner)

        if isinstance(d, N.KeywordDecl):
            visit(d.effect, 0)
            for t in d.triggers:
                visit(t.body, noted(0, code(t.describe()), t))
        else:
            for body in decl_bodies(d):
                visit(body, 0)
        return out

    def components(self):
        self.w("## Components and cards", "")
        enums = [d for d in self.base if isinstance(d, N.EnumDecl)]
        if enums:
            self.w("### Enums", "", *table("enum | members", ([code(e.name), ", ".join(code(m) for m in e.members)]
                                                            for e in enums)), "")
        comps = [d for d in self.base if isinstance(d, (N.ComponentDecl, N.PlayerDecl))]
        self.w("### Components", "")
        if not comps:
            self.w("No components are declared.", "")
        for c in comps:
            name = "player" if isinstance(c, N.PlayerDecl) else c.name
            self.w(f"#### {code(name)}" if isinstance(c, N.ComponentDecl) else "#### Every player", "")
            if c.doc:
                self.w(first_sentence(c.doc), "")
            if c.fields:
                self.w(*self.typed_table("field | type | default | meaning", c.fields), "")
            extra = []
            if isinstance(c, N.ComponentDecl) and c.label:
                extra.append(f"label {code(chr(34) + c.label + chr(34))}")
            if isinstance(c, N.ComponentDecl) and c.discards_to is not None:
                extra.append(f"discarded to {code(self.src.of(c.discards_to))}")
            if extra:
                self.w("; ".join(extra).capitalize() + ".", "")
        self.w("### Decks", "", *cards_section(self.rules, self.card_sets, self.src, level=4), "")
        zones = [d for d in self.base if isinstance(d, N.ZoneDecl)]
        self.w("### Zones", "")
        if zones:
            seen = {"public": "everyone", "hidden": "nobody", "private": "the owner"}
            self.w(*table("zone | one per player | who sees the cards | board | meaning", (
                # a family of zones shows how many: `display[2 * player_count + 1]`
                [code(z.name if z.count is None else f"{z.name}[{self.src.of(z.count)}]"), "yes" if z.per_player else "",
                 seen[z.visibility], cell(self.topology(z.board) if z.board else
                                          f"on the cells of {z.layer_of}" if z.layer_of else ""),
                 cell(first_sentence(z.doc) if z.doc else "")] for z in zones)), "")
        else:
            self.w("No zones are declared.", "")
        variables = [d for d in self.base if isinstance(d, N.VarDecl)]
        if variables:
            self.w("### Game state", "", *self.typed_table("var | type | starts as | meaning", variables), "")

    def typed_table(self, head: str, items) -> list[str]:
        """A table of fields or vars: name, type, default, doc."""
        return table(head, ([code(x.name), cell(str(x.type)), cell(code(self.src.of(x.default)) if x.default is not None
                                                                    else ""), cell(" ".join(x.doc))] for x in items))

    @staticmethod
    def topology(t: N.Topology) -> str:
        if t.kind == "grid":
            size = f", {t.width} by {t.height}" if t.width else ", open (grows)"
            shape = f"square grid, {t.neighbours} neighbours{size}"
        elif t.kind == "hex" and t.shape is not None:
            shape = f"hex grid, a {t.shape} of {t.width} by {t.height} cells"
        elif t.kind == "hex":
            shape = "hex grid" + (f", radius {t.radius}" if t.radius is not None else ", open (grows)")
        elif t.kind == "track":
            shape = f"track of {t.length} spaces" + (", a loop" if t.loop else "")
        else:
            shape = f"graph of {len(t.nodes)} nodes and {len(t.edges)} edges"
        if t.places is None:
            return shape
        caps = ", ".join(f"{name} holds {n}" for name, n in t.capacities)
        return shape + f"; each cell divided into the places of {t.places}" + (
            f" ({caps}; the others any number)" if caps else "")

    def settings(self):
        settings = [d for d in self.base if isinstance(d, N.SettingDecl)]
        if not self.section("## Settings", settings, "This game has no settings."):
            return
        self.w("Change one with `--set NAME=VALUE` on the command line, or with `set NAME = value` in a variant.", "")
        self.w(*table("setting | default | choices | meaning", (
            [code(s.name), code(self.src.of(s.default)), ", ".join(code(c) for c in s.choices) or "any value",
             cell(" ".join(s.doc))] for s in settings)), "")

    def keywords(self):
        kws = [d for d in [*self.rules.decls, *(i for v in self.rules.variants().values() for i in v.items)]
               if isinstance(d, N.KeywordDecl)]
        if not self.section("## Keywords", kws, "This game declares no keywords."):
            return
        for k in kws:
            params = f"({', '.join(p.name for p in k.params)})" if k.params else ""
            self.w(f"**{code(k.name + params)}** ({self.ref(k)})", "")
            if k.doc:
                self.w(doc_text(k.doc), "")
            facts = []
            if k.usable is not None:
                facts.append(f"usable if {code(self.src.of(k.usable, 120))}")
            if k.effect is not None:
                facts.append("has an effect (`perform`)")
            for t in k.triggers:
                facts.append(f"triggers {code(t.describe())}")
            if k.always:
                facts.append("has a continuous rule (`always`)")
            if facts:
                self.w("- " + "\n- ".join(facts), "")

    def variants(self):
        from rulelang.language.variants import apply_variants

        variants = self.rules.variants()
        if not self.section("## Variants", variants, "This game has no variants."):
            return
        self.w("Each variant is shown as what it changes against the base game. "
               f"Play one with {code('--variant NAME')}.", "")
        base_by_name = {d.key[1]: d for d in reversed(self.base)}  # (the first declaration of a name)
        base_settings = {d.name: d for d in self.base if isinstance(d, N.SettingDecl)}
        for v in variants.values():
            anchor = " {#variant-" + v.name + "}" if self.site else ""
            self.w(f"### Variant {code(v.name)}{anchor}", "")
            if v.extends:
                self.w("Extends " + ", ".join(code(e) for e in v.extends) + " (applied first).", "")
            if v.doc:
                self.w(doc_text(v.doc), "")
            replaced, removed, added, sets = [], [], [], []
            for item in v.items:
                if isinstance(item, N.SetSetting):
                    base = base_settings.get(item.name)
                    was = code(self.src.of(base.default)) if base else "(not a setting of the base game)"
                    sets.append([code(item.name), was, code(self.src.of(item.value))])
                elif isinstance(item, N.RemoveDecl):
                    base = base_by_name.get(item.name)
                    removed.append(self.item_line(base) if base else f"- {code(item.name)}")
                elif item.replace:
                    replaced.append(item)
                else:
                    added.append(item)
            for heading, items in (("Replaced", replaced), ("Removed", removed), ("Added", added)):
                if items:
                    self.w(f"**{heading}**", "", *(i if type(i) is str else self.item_line(i) for i in items), "")
            if sets:
                self.w("**Settings changed**", "", *table("setting | base game | this variant", sets), "")
            if not (replaced or removed or added or sets):
                self.w("It changes nothing.", "")
            changes_flow = any(isinstance(i, (N.GameDecl, N.PhaseDecl, N.SetupDecl, N.ResultDecl)) or
                               (isinstance(i, N.TriggerDecl) and i.kind == "at") for i in replaced + added) or \
                any(isinstance(base_by_name.get(i.name), (N.PhaseDecl, N.TriggerDecl)) for i in v.items if isinstance(i, N.RemoveDecl))
            if changes_flow:
                bag = DiagnosticBag()
                decls, _ = apply_variants(self.rules, [v.name], bag)
                if not bag.items:
                    self.flow(decls, level=4, title=f"How a game flows in {v.name}")
            before = len(self.out)
            for item in v.items:
                self.decl_prose(item)
            if len(self.out) > before:
                self.out[before:before] = [f"#### The rules of {v.name}", ""]

    def item_line(self, item: N.Node) -> str:
        return f"- {code(decl_title(item, self.src))} ({self.ref(item)})" + (
            f": {first_sentence(item.doc)}" if item.doc else "")

    def assumptions(self):
        items = collect_assumptions(self.text)
        if not self.section("## Assumptions", items, "No doc comment has an `Assumption`."):
            return
        self.w("Every `Assumption` in a doc comment: where the rulebook is silent, unclear or "
               "contradicts itself, and the reading chosen.", "")
        for a in items:
            where = self.ref(a.line)
            before = f" (on {code(a.before if len(a.before) < 50 else a.before[:49].rstrip() + '…')})" if a.before else ""
            self.w(f"- {where}{before}: {a.text}")
        self.w("")

    def source(self):
        self.w("## Source", "", f"The complete rules, {code(self.shown)}:", "")
        fence = "```"
        while fence in self.text:
            fence += "`"
        self.w(fence + ('{ .rules linenums="1" lineanchors="L" anchorlinenos="1" }' if self.site else "rules"),
               self.text.rstrip("\n"), fence, "")


if __name__ == "__main__":
    raise SystemExit(main())
