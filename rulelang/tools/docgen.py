"""Rulebook pages: a Markdown page for a game, rendered from its parsed ``.rules`` file.

``rulelang docs FILE`` prints the page; the documentation site renders one page per
``games/*.rules`` file at build time (``docs/hooks.py``), so a page never goes stale.

A page holds, in this order:

* the ``//!`` header prose, then the game at a glance (players, turn order, round, variants);
* how a game flows: a Mermaid diagram of setup -> round -> phases -> steps (``step NAME { }``
  blocks, ``take turns`` loops) with the ``at start|end of ...`` triggers in their places, and
  the same flow as a nested list (Mermaid needs JavaScript; the list always reads);
* the rules as prose: every ``///`` doc comment in file order, under the declaration it
  documents, with ``// ---- title`` divider comments as section headings;
* components (fields and types), enums, zones, and the decks: the cards are computed by loading
  the game with ``rulelang.load`` and reading ``game.program.card_sets``;
* settings, and a glossary of the game's keywords;
* each variant as what it changes against the base game (replaced, removed and added
  declarations, settings changed), with its own flow when it changes the flow;
* every doc comment line that starts with ``Assumption`` or has ``Assumption:`` after the rule it
  reads, with its line number;
* the full rules source.

Nothing here knows any particular game: everything comes from the AST.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from rulelang.language import nodes as N
from rulelang.core.errors import DiagnosticBag, RulesError

__all__ = [
    "GamePage", "Assumption", "FlowNode", "render_game_page", "build_page", "collect_assumptions",
    "build_flow", "flow_mermaid", "flow_list", "flow_svg", "grammar_rule", "grammar_rules", "builtins_table",
    "builtins_section", "with_builtins_table",
]


# ------------------------------------------------------------------ source text


class Source:
    """The text of a .rules file, to quote declarations and expressions exactly as written."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines()

    def of(self, node: N.Node | None, max_len: int | None = None) -> str:
        """The source text of a node (whitespace runs collapsed), or '' when it has no span."""
        if node is None:
            return ""
        s = node.span
        if not s.line or not s.end_line or s.line > len(self.lines):
            return ""
        if s.line == s.end_line:
            text = self.lines[s.line - 1][s.column - 1:s.end_column - 1]
        else:
            parts = [self.lines[s.line - 1][s.column - 1:]]
            parts += self.lines[s.line:s.end_line - 1]
            parts.append(self.lines[s.end_line - 1][:s.end_column - 1])
            text = "\n".join(parts)
        # drop comments inside the quoted text, then collapse the layout
        text = "\n".join(_strip_comment(line) for line in text.split("\n"))
        text = re.sub(r"\s+", " ", text).strip()
        if max_len and len(text) > max_len:
            text = text[: max_len - 1].rstrip() + "…"
        return text

    def first_line(self, node: N.Node, max_len: int = 90) -> str:
        """The first source line of a statement or declaration, without its block."""
        s = node.span
        if not s.line or s.line > len(self.lines):
            return ""
        line = _strip_comment(self.lines[s.line - 1][s.column - 1:]).strip()
        line = re.sub(r"\s+", " ", _before_block(line)).strip()
        if len(line) > max_len:
            line = line[: max_len - 1].rstrip() + "…"
        return line


def _before_block(line: str) -> str:
    """A line up to its first `{` outside a text."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif ch == "{" and not in_string:
            return line[:i].rstrip()
    return line


def _strip_comment(line: str) -> str:
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i].rstrip()
    return line


def code(text: str) -> str:
    """Inline Markdown code for any text (backticks inside are fenced with more backticks)."""
    text = text.replace("\n", " ")
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def doc_text(lines: list[str]) -> str:
    """Doc comment lines as a Markdown paragraph (doc comments are Markdown)."""
    return "\n".join(lines).strip()


def first_sentence(lines: list[str], max_len: int = 160) -> str:
    text = " ".join(line.strip() for line in lines).strip()
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    if m and not text.startswith('"'):
        text = m.group(1)
    if len(text) > max_len:
        text = text[: max_len - 1].rstrip() + "…"
    return text


# ------------------------------------------------------------------ walking the AST


def child_blocks(stmt: N.Node) -> Iterator[list]:
    """The statement lists directly inside a statement (bodies, branches, options)."""
    if isinstance(stmt, N.If):
        for _cond, body in stmt.branches:
            yield body
        if stmt.other:
            yield stmt.other
    elif isinstance(stmt, (N.ChooseBlock, N.Respond)):
        for option in stmt.options:
            yield option.body
    elif isinstance(stmt, N.Offer):
        for option in stmt.options:
            yield option.body
        if stmt.refused:
            yield stmt.refused
    elif isinstance(stmt, (N.For, N.While, N.RepeatTimes, N.RepeatUntil, N.TakeTurns, N.StepBlock)):
        yield stmt.body


def walk_stmts(stmts: Iterable) -> Iterator[N.Node]:
    """Every statement in a list, depth first, including nested ones."""
    for s in stmts or []:
        yield s
        for body in child_blocks(s):
            yield from walk_stmts(body)


def decl_bodies(decl: N.Node) -> list[list]:
    """The statement lists of a declaration (a keyword has its effect and its triggers)."""
    if isinstance(decl, (N.PhaseDecl, N.SetupDecl, N.ResultDecl, N.ProcDecl, N.TriggerDecl, N.AlwaysDecl)):
        return [decl.body]
    if isinstance(decl, N.KeywordDecl):
        out = [decl.effect] if decl.effect else []
        out += [t.body for t in decl.triggers] + [a.body for a in decl.always]
        return out
    return []


def decl_title(d: N.Node, src: Source | None = None) -> str:
    """How a declaration is named on the page: `phase main`, `at end of round`."""
    if isinstance(d, N.GameDecl):
        return f'game "{d.title}"'
    if isinstance(d, N.PlayerDecl):
        return "player"
    if isinstance(d, (N.SetupDecl, N.ResultDecl)):
        return "setup" if isinstance(d, N.SetupDecl) else "result"
    if isinstance(d, N.TriggerDecl):
        return d.describe() + (f" as {d.name}" if d.name else "")
    if isinstance(d, N.AlwaysDecl):
        return "always" + (f" as {d.name}" if d.name else "")
    if isinstance(d, N.SetSetting):
        return f"set {d.name} = {src.of(d.value) if src else '…'}"
    if isinstance(d, N.ScenarioDecl):
        return f'scenario "{d.name}"'
    if isinstance(d, (N.DefDecl, N.ProcDecl, N.KeywordDecl)):
        word = {N.DefDecl: "def", N.ProcDecl: "procedure", N.KeywordDecl: "keyword"}[type(d)]
        # a procedure is called with (), a keyword without parameters is printed bare: `evade`
        params = f"({', '.join(p.name for p in d.params)})" if d.params or isinstance(d, N.ProcDecl) else ""
        return f"{word} {d.name}{params}"
    word = {N.EnumDecl: "enum", N.ComponentDecl: "component", N.CardsDecl: "cards", N.ZoneDecl: "zone",
            N.VarDecl: "var", N.SettingDecl: "setting", N.PhaseDecl: "phase", N.VariantDecl: "variant",
            N.RemoveDecl: "remove"}.get(type(d), type(d).__name__)
    return f"{word} {getattr(d, 'name', '')}".strip()


# ------------------------------------------------------------------ assumptions

_MID_ASSUMPTION = re.compile(r"(?<![\w`])Assumption:")


def _assumption_at(text: str) -> int | None:
    """Where an assumption starts in a doc comment's text: at its start ("Assumption", as it always
    was), or at an "Assumption:" after other words; None if nowhere."""
    if text.lstrip().startswith("Assumption"):
        return len(text) - len(text.lstrip())
    found = _MID_ASSUMPTION.search(text)
    return found.start() if found is not None else None


@dataclass
class Assumption:
    line: int
    text: str
    before: str  # the first source line of what it documents


def collect_assumptions(source: str) -> list[Assumption]:
    """Every doc comment line (``///`` or ``//!``) that starts with "Assumption", or has "Assumption:"
    after other words (the rule, then the reading taken of it), with its line.

    The text, from "Assumption" on, runs on over the following doc comment lines, up to a blank doc
    line, a line that opens a quotation or another assumption, or the end of the comment; where
    another "Assumption:" is in a line, the words before it are not taken (they are its rule's).
    """
    lines = source.splitlines()
    out: list[Assumption] = []
    i = 0
    doc = re.compile(r"^\s*//[/!](?!/)\s?(.*)$")
    while i < len(lines):
        m = doc.match(lines[i])
        at = _assumption_at(m.group(1)) if m else None
        if at is None:
            i += 1
            continue
        start = i
        text = [m.group(1)[at:].strip()]
        i += 1
        while i < len(lines):
            m2 = doc.match(lines[i])
            if not m2:
                break
            more = m2.group(1).strip()
            if not more or more.startswith(('"', "Assumption", "“")):
                break
            if _assumption_at(more) is not None:  # (another assumption, after the words of its own rule)
                break
            text.append(more)
            i += 1
        before = ""
        j = i
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped and not stripped.startswith("//"):
                before = re.sub(r"\s*\{\s*$", "", _strip_comment(stripped))
                break
            j += 1
        out.append(Assumption(start + 1, " ".join(text), before))
    return out


# ------------------------------------------------------------------ flow


@dataclass
class FlowNode:
    kind: str  # setup | call | trigger | round | phase | step | turns | end | result | anytime | note
    label: str
    line: int = 0
    detail: str = ""
    children: list["FlowNode"] = field(default_factory=list)


def _flow_in_body(stmts: list, src: Source) -> list[FlowNode]:
    """Steps and turn loops inside a block, nested as written (other statements are skipped)."""
    out: list[FlowNode] = []
    for s in stmts or []:
        if isinstance(s, N.StepBlock):
            out.append(FlowNode("step", f"step {s.name}", s.span.line, first_sentence(s.doc, 100) if s.doc else "",
                                _flow_in_body(s.body, src)))
        elif isinstance(s, N.TakeTurns):
            parts = []
            if s.start is not None:
                parts.append(f"from {src.of(s.start)}")
            if s.direction:
                parts.append(s.direction)
            if s.following is not None:
                parts.append(f"following {src.of(s.following, 60)}")
            if s.skipping is not None:
                parts.append(f"skipping {src.of(s.skipping, 60)}")
            if s.until is not None:
                parts.append(f"until {src.of(s.until, 60)}")
            label = "each player takes one turn" if s.once else "players take turns"
            out.append(FlowNode("turns", label, s.span.line, ", ".join(parts), _flow_in_body(s.body, src)))
        else:
            for body in child_blocks(s):
                out.extend(_flow_in_body(body, src))
    return out


def _trigger_node(t: N.TriggerDecl, src: Source) -> FlowNode:
    label = t.describe() + (f" ({t.name})" if t.name else "")
    detail = f"if {src.of(t.cond, 60)}" if t.cond is not None else ""
    return FlowNode("trigger", label, t.span.line, detail, _flow_in_body(t.body, src))


def build_flow(decls: list, src: Source) -> list[FlowNode]:
    """The flow of a game: setup, the round and its phases, the end, and what may happen at any time."""
    game = next((d for d in decls if isinstance(d, N.GameDecl)), None)
    phases = {d.name: d for d in decls if isinstance(d, N.PhaseDecl)}
    triggers = [d for d in decls if isinstance(d, N.TriggerDecl)]
    at = lambda when, timing, phase=None: [_trigger_node(t, src) for t in triggers  # noqa: E731
                                          if t.kind == "at" and t.when == when and t.timing == timing
                                          and (t.phase == phase)]
    flow: list[FlowNode] = []

    setup = next((d for d in decls if isinstance(d, N.SetupDecl)), None)
    if setup is not None:
        node = FlowNode("setup", "setup", setup.span.line, first_sentence(setup.doc, 100) if setup.doc else "")
        for s in setup.body:
            if isinstance(s, N.Assign) and s.op is None and isinstance(s.target, N.Call):
                node.children.append(FlowNode("call", src.of(s.target, 60) or f"{s.target.func}()", s.span.line))
        node.children.extend(_flow_in_body(setup.body, src))
        flow.append(node)
    flow.extend(at("start", "game"))

    round_node = FlowNode("round", "every round", game.span.line if game else 0,
                          f"at most {game.max_rounds} rounds" if game and game.max_rounds else "")
    round_node.children.extend(at("start", "round"))
    for name in (game.round_phases if game else []):
        round_node.children.extend(at("start", "phase", name))
        d = phases.get(name)
        if d is None:
            round_node.children.append(FlowNode("phase", f"phase {name}", 0, "not declared"))
        else:
            detail = f"skipped when {src.of(d.unless, 60)}" if d.unless is not None else ""
            round_node.children.append(FlowNode("phase", f"phase {name}", d.span.line, detail, _flow_in_body(d.body, src)))
        round_node.children.extend(at("end", "phase", name))
    round_node.children.extend(at("end", "round"))
    every = at("start", "phase") + at("end", "phase") + at("start", "turn") + at("end", "turn")
    for t in every:
        t.kind = "note"
    round_node.children.extend(every)
    flow.append(round_node)

    ends = []
    for d in decls:
        for body in decl_bodies(d):
            for s in walk_stmts(body):
                if isinstance(s, N.End) and s.what == "game":
                    ends.append(f"line {s.span.line} ({decl_title(d, src)})")
    reasons = []
    if ends:
        reasons.append("`end game` runs: " + ", ".join(ends))
    if game and game.max_rounds:
        reasons.append(f"round {game.max_rounds} is over (max rounds)")
    flow.append(FlowNode("end", "the game ends", 0, "; or ".join(reasons) or "no `end game` and no round limit"))
    flow.extend(at("end", "game"))
    result = next((d for d in decls if isinstance(d, N.ResultDecl)), None)
    if result is not None:
        flow.append(FlowNode("result", "result", result.span.line, first_sentence(result.doc, 100) if result.doc else ""))

    anytime = [_trigger_node(t, src) for t in triggers if t.kind != "at"]
    anytime += [FlowNode("trigger", decl_title(a), a.span.line, "continuous rule") for a in decls if isinstance(a, N.AlwaysDecl)]
    if anytime:
        flow.append(FlowNode("anytime", "at any time", 0, "", anytime))
    return flow


def _mm(text: str) -> str:
    """A Mermaid node label: quoted, with the characters Mermaid reads specially escaped."""
    text = text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    return f'"{text}"'


def flow_mermaid(flow: list[FlowNode]) -> str:
    """The flow as a Mermaid flowchart (top to bottom)."""
    out = ["flowchart TD"]
    counter = [0]

    def new_id() -> str:
        counter[0] += 1
        return f"n{counter[0]}"

    def label(n: FlowNode) -> str:
        # doc sentences stay in the list; the diagram shows names and conditions only
        shown = n.detail if n.kind in ("phase", "turns", "round", "trigger", "note") else ""
        if len(shown) > 70:
            shown = shown[:69].rstrip() + "…"
        text = n.label + (f"<br/>{shown}" if shown else "")
        return _mm(text).replace("#lt;br/#gt;", "<br/>")

    def emit(n: FlowNode, indent: str) -> tuple[str, str]:
        """Write a node (a subgraph when it has children); return (entry id, exit id)."""
        nid = new_id()
        shapes = {"setup": ("([", "])"), "trigger": ("{{", "}}"), "note": ("{{", "}}"), "result": ("([", "])"),
                  "call": ("[", "]"), "end": ("{", "}")}
        if n.children and n.kind not in ("call",):
            out.append(f"{indent}subgraph {nid} [{label(n)}]")
            out.append(f"{indent}  direction TB")
            prev = None
            for c in n.children:
                cin, cout = emit(c, indent + "  ")
                if prev is not None and c.kind not in ("note",) and n.kind != "anytime":
                    out.append(f"{indent}  {prev} --> {cin}")
                if c.kind != "note" and n.kind != "anytime":
                    prev = cout
            out.append(f"{indent}end")
            if n.kind == "turns":
                out.append(f"{indent}{nid} -->|next player| {nid}")
            return nid, nid
        a, b = shapes.get(n.kind, ("[", "]"))
        out.append(f"{indent}{nid}{a}{label(n)}{b}")
        if n.kind == "turns":
            out.append(f"{indent}{nid} -->|next player| {nid}")
        return nid, nid

    prev = None
    round_id = None
    for n in flow:
        if n.kind == "end":
            nid = new_id()
            out.append(f"  {nid}{{{_mm('game over?')}}}")
            if prev is not None:
                out.append(f"  {prev} --> {nid}")
            if round_id is not None:
                out.append(f"  {nid} -->|no: next round| {round_id}")
            prev = nid
            end_id = new_id()
            out.append(f"  {end_id}[{_mm('the game ends')}]")
            out.append(f"  {nid} -->|yes| {end_id}")
            prev = end_id
            continue
        cin, cout = emit(n, "  ")
        if n.kind == "round":
            round_id = cin
        if n.kind == "anytime":
            continue
        if prev is not None:
            out.append(f"  {prev} --> {cin}")
        prev = cout
    return "\n".join(out)


def flow_svg(flow: list[FlowNode], ident: str = "flow") -> str:
    """The flow as an inline SVG picture (no JavaScript needed): boxes in boxes, arrows between them.

    The same drawing as the Mermaid diagram, laid out here so that the site shows it offline.
    """
    from html import escape

    char_w, line_h, pad, gap = 6.6, 15, 10, 14
    colours = {"setup": "#e8f0fe", "result": "#e8f0fe", "round": "#fafafa", "phase": "#f1f8e9",
               "turns": "#fff8e1", "step": "#ffffff", "trigger": "#fce4ec", "note": "#fce4ec",
               "call": "#ffffff", "end": "#eeeeee", "anytime": "#f3e5f5", "decision": "#eeeeee"}

    def short(text: str, n: int = 64) -> str:
        return text if len(text) <= n else text[: n - 1].rstrip() + "…"

    def lines_of(n: FlowNode) -> list[str]:
        shown = n.detail if n.kind in ("phase", "turns", "round", "trigger", "note") else ""
        out = [short(n.label)]
        if shown:
            out.append(short(shown))
        if n.kind == "turns":
            out[0] = "↻ " + out[0]
        return out

    class Box:
        def __init__(self, node: FlowNode):
            self.node = node
            self.lines = lines_of(node)
            self.kids = [Box(c) for c in node.children]
            text_w = max(len(x) for x in self.lines) * char_w + 2 * pad
            if node.children:  # the heading is bold: wider letters
                text_w = max(text_w, len(self.lines[0]) * char_w * 1.15 + 2 * pad)
            if self.kids:
                self.head = len(self.lines) * line_h + 8
                self.w = max(text_w, max(k.w for k in self.kids) + 2 * pad)
                self.h = self.head + sum(k.h for k in self.kids) + gap * (len(self.kids) - 1) + 2 * pad
            else:
                self.w = text_w
                self.h = len(self.lines) * line_h + 14

    def decision_box(text: str) -> Box:
        b = Box(FlowNode("decision", text))
        b.h = 40
        b.w = len(text) * char_w + 60
        return b

    parts: list[str] = []
    arrows: list[str] = []

    def draw(b: Box, x: float, y: float):
        """Draw a box with its top-left at (x, y); remember where it is."""
        b.x, b.y = x, y
        kind = b.node.kind
        fill = colours.get(kind, "#ffffff")
        dash = ' stroke-dasharray="4 3"' if kind in ("trigger", "note", "anytime") else ""
        radius = 14 if kind in ("setup", "result") else 4
        if kind == "decision":
            cx, cy = x + b.w / 2, y + b.h / 2
            parts.append(f'<polygon points="{cx},{y} {x + b.w},{cy} {cx},{y + b.h} {x},{cy}" fill="{fill}" stroke="#666"/>')
        else:
            parts.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{b.w:.0f}" height="{b.h:.0f}" rx="{radius}" '
                         f'fill="{fill}" stroke="#888"{dash}/>')
        if b.kids:
            ty = y + pad + 11
            for i, text in enumerate(b.lines):
                weight = ' font-weight="bold"' if i == 0 else ' fill="#555"'
                parts.append(f'<text x="{x + pad:.0f}" y="{ty:.0f}"{weight}>{escape(text)}</text>')
                ty += line_h
            cy = y + pad + b.head
            prev = None
            for k in b.kids:
                draw(k, x + (b.w - k.w) / 2, cy)
                if prev is not None and kind != "anytime" and k.node.kind != "note" and prev.node.kind != "note":
                    arrow(prev, k)
                prev = k
                cy += k.h + gap
        else:
            ty = y + b.h / 2 - (len(b.lines) - 1) * line_h / 2 + 4
            for i, text in enumerate(b.lines):
                colour = "" if i == 0 else ' fill="#555"'
                parts.append(f'<text x="{x + b.w / 2:.0f}" y="{ty:.0f}" text-anchor="middle"{colour}>{escape(text)}</text>')
                ty += line_h

    def arrow(a: Box, b: Box):
        x = a.x + a.w / 2 if abs((a.x + a.w / 2) - (b.x + b.w / 2)) < 1 else b.x + b.w / 2
        arrows.append(f'<line x1="{x:.0f}" y1="{a.y + a.h:.0f}" x2="{x:.0f}" y2="{b.y - 2:.0f}" stroke="#444" marker-end="url(#{ident}-arrow)"/>')

    # the top level: a column; the round loops back from the "game over?" question
    column: list[Box] = []
    round_box = None
    for n in flow:
        if n.kind == "end":
            column.append(decision_box("game over?"))
            column.append(Box(FlowNode("end", "the game ends")))
            continue
        b = Box(n)
        column.append(b)
        if n.kind == "round":
            round_box = b
    width = max(b.w for b in column) + 120
    y = 10.0
    prev = None
    for b in column:
        draw(b, (width - 120 - b.w) / 2 + 10, y)
        if prev is not None and b.node.kind != "anytime":
            arrow(prev, b)
        if b.node.kind == "decision" and round_box is not None:
            # "no": back up to the start of the round, on the right
            rx = max(round_box.x + round_box.w, b.x + b.w) + 30
            arrows.append(f'<path d="M{b.x + b.w:.0f},{b.y + b.h / 2:.0f} H{rx:.0f} V{round_box.y + 12:.0f} '
                          f'H{round_box.x + round_box.w + 2:.0f}" fill="none" stroke="#444" marker-end="url(#{ident}-arrow)"/>')
            parts.append(f'<text x="{rx + 4:.0f}" y="{(b.y + round_box.y) / 2:.0f}" fill="#555">no: next round</text>')
            parts.append(f'<text x="{b.x + b.w / 2 + 6:.0f}" y="{b.y + b.h + 12:.0f}" fill="#555">yes</text>')
        prev = b
        y += b.h + gap + (6 if b.node.kind == "decision" else 0)
    height = y + 4
    return (f'<svg class="rules-flow" xmlns="http://www.w3.org/2000/svg" width="{width + 100:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width + 100:.0f} {height:.0f}" font-family="sans-serif" font-size="12" role="img">'
            f'<defs><marker id="{ident}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker></defs>'
            + "".join(parts) + "".join(arrows) + "</svg>")


def flow_list(flow: list[FlowNode], site: bool = False) -> str:
    """The flow as a nested Markdown list."""
    out: list[str] = []

    def line_ref(n: FlowNode) -> str:
        if not n.line:
            return ""
        return f" ({_line_link(n.line)})" if site else f" (line {n.line})"

    def item(n: FlowNode, depth: int, numbered: bool, index: int):
        pad = "    " * depth
        bullet = f"{index}." if numbered else "-"
        text = {"setup": "**Setup**", "round": "**Every round**", "end": "**The game ends**",
                "result": "**Result**", "anytime": "**At any time**"}.get(n.kind)
        if text is None:
            text = code(n.label) if n.kind != "turns" else n.label
            if n.kind == "note":
                text = code(n.label) + " (every time)"
        detail = ""
        if n.detail:
            detail = f" when {n.detail}" if n.kind == "end" else f": {n.detail}"
            if n.kind == "end":
                detail = ": when " + n.detail
        out.append(f"{pad}{bullet} {text}{detail}{line_ref(n)}")
        for i, c in enumerate(n.children, 1):
            item(c, depth + 1, n.kind == "round", i)

    for n in flow:
        item(n, 0, False, 0)
    return "\n".join(out)


def _line_link(line: int) -> str:
    # raw HTML: the line anchors live inside the highlighted source, where MkDocs does not look
    return f'<a href="#L-{line}">line {line}</a>'


# ------------------------------------------------------------------ cards


def _format_value(v, top: bool = False) -> str:
    """A card's value as the rules would write it (a top-level list without its brackets)."""
    from rulelang.model.things import KeywordValue

    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, KeywordValue):
        return v.name + (f"({', '.join(_format_value(a) for a in v.args)})" if v.args else "")
    if isinstance(v, (list, tuple)):
        if top:
            return ", ".join(_format_value(x) for x in v) if v else "–"
        return "[" + ", ".join(_format_value(x) for x in v) + "]"
    return str(v)


def _value_summary(values: list) -> str:
    distinct = list(dict.fromkeys(_format_value(v) for v in values))
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if len(ints) == len(values) and ints:
        uniq = sorted(set(ints))
        if uniq == list(range(uniq[0], uniq[-1] + 1)) and len(uniq) > 2:
            return f"{uniq[0]} to {uniq[-1]}"
        return ", ".join(str(x) for x in uniq)
    return ", ".join(distinct)


def cards_section(rules: N.RulesFile, card_sets: dict | None, src: Source, level: int = 3) -> list[str]:
    """The decks: one summary table, then the cards of each `cards` declaration."""
    out: list[str] = []
    decls = [d for d in rules.decls if isinstance(d, N.CardsDecl)]
    if not decls:
        return ["This game declares no cards."]
    out.append("| cards | component | how many | where they start |")
    out.append("|---|---|---:|---|")
    for d in decls:
        defs = (card_sets or {}).get(d.name)
        count = str(len(defs)) if defs is not None else "?"
        comps = sorted({e.ctor.component for e in d.entries})
        where = code(src.of(d.zone)) if d.zone is not None else "made by `create` (setup)"
        out.append(f"| {code(d.name)} | {', '.join(comps)} | {count} | {where} |")
    out.append("")
    for d in decls:
        out.append(f"{'#' * level} Cards {code(d.name)}")
        out.append("")
        if d.doc:
            out.append(doc_text(d.doc))
            out.append("")
        defs = (card_sets or {}).get(d.name)
        if defs is None:
            out.append("The cards could not be computed (the game does not load).")
            out.append("")
            continue
        out.extend(_cards_table(d, defs, src))
        out.append("")
    return out


def _cards_table(d: N.CardsDecl, defs: list, src: Source) -> list[str]:
    # condition/effect fields are code: show the expression as written in the entry
    entry_by_pos = {(e.span.line, e.span.column): e for e in d.entries}
    fields: list[str] = []
    for cd in defs:
        for k in list(cd.values) + list(cd.code):
            if k not in fields:
                fields.append(k)
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
    out: list[str] = []
    components = {r[0] for r in rows}
    code_fields = {f for cd in defs for f in cd.code}
    if len(fields) <= 1 and len(components) == 1:
        copies = set(rows.values())
        each = "one of each" if copies == {1} else (f"{next(iter(copies))} of each" if len(copies) == 1 else "")
        if not fields:
            return [f"{len(defs)} {next(iter(components))} cards, all alike."]
        values = _value_summary([cd.values.get(fields[0]) for cd in defs])
        if len(rows) == 1:
            return [f"{len(defs)} cards, all with {code(fields[0])} {values}."]
        return [f"{len(defs)} cards: {code(fields[0])} {values}" + (f", {each}." if each else ".")]
    columns = list(zip(*[r for r in rows]))
    total = 1
    for col in columns[1:]:
        total *= len(set(col))
    combination = len(components) == 1 and len(fields) > 1 and total == len(rows)
    if combination or len(rows) > 80:
        # every combination of a few values (a suit-and-rank deck), or very many cards: a summary
        out.append(f"{len(defs)} cards, {len(rows)} different ones.")
        out.append("")
        out.append("| field | values |")
        out.append("|---|---|")
        for f in fields:
            summary = _value_summary([cd.values.get(f) for cd in defs]) if f not in code_fields else "an expression per card"
            out.append(f"| {code(f)} | {cell(summary)} |")
        if combination:
            copies = set(rows.values())
            each = "once" if copies == {1} else (f"{copies.pop()} times" if len(copies) == 1 else "")
            out.append("")
            out.append(f"One card for every combination of {', '.join(code(f) for f in fields)}" + (f", each {each}." if each else "."))
        return out
    show_copies = set(rows.values()) != {1}
    head = (["component"] if len(components) > 1 else []) + fields + (["copies"] if show_copies else [])
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r, n in rows.items():
        vals = [cell(code(v)) if f in code_fields else cell(v) for f, v in zip(fields, r[1:])]
        vals = ([r[0]] if len(components) > 1 else []) + vals + ([str(n)] if show_copies else [])
        out.append("| " + " | ".join(vals) + " |")
    return out


# ------------------------------------------------------------------ the page


@dataclass
class GamePage:
    name: str  # the file's stem: games/NAME.rules -> NAME
    title: str
    markdown: str
    problems: list[str] = field(default_factory=list)  # why parts of the page could not be made


def render_game_page(path: str | Path, site: bool = False) -> str:
    """The Markdown page of a .rules file (raises RulesError when the file does not parse)."""
    return build_page(path, site=site).markdown


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
        self.rules = rules
        self.src = Source(text)
        self.text = text
        self.path = path
        self.shown = shown
        self.site = site
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
        return _line_link(line) if self.site else f"line {line}"

    def w(self, *lines: str):
        self.out.extend(lines)

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
            self.w("!!! warning", "")
            for p in self.problems:
                self.w(f"    {p}")
            self.w("")
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
        md = "\n".join(self.out).rstrip() + "\n"
        md = re.sub(r"\n{3,}", "\n\n", md)
        return GamePage(self.path.stem, title, md, self.problems)

    def glance(self, game: N.GameDecl | None):
        self.w("## At a glance", "")
        if game is None:
            self.w("The file declares no `game`.", "")
            return
        players = f"{game.players_min}" if game.players_min == game.players_max else f"{game.players_min} to {game.players_max}"
        if game.players_default and game.players_default not in (game.players_min, game.players_max) or \
                (game.players_default and game.players_min != game.players_max):
            players += f" (default {game.players_default})"
        rows = [("players", players), ("turn order", game.direction),
                ("a round", " → ".join(code(p) for p in game.round_phases) or "(no phases)")]
        if game.max_rounds:
            rows.append(("round limit", str(game.max_rounds)))
        variants = list(self.rules.variants())
        rows.append(("variants", ", ".join(f"[{v}](#variant-{v})" if self.site else code(v) for v in variants) or "none"))
        settings = [d.name for d in self.base if isinstance(d, N.SettingDecl)]
        rows.append(("settings", ", ".join(code(s) for s in settings) or "none"))
        n_assumptions = len(collect_assumptions(self.text))
        rows.append(("assumptions", f"[{n_assumptions}](#assumptions)" if self.site else str(n_assumptions)))
        rows.append(("source", code(self.shown)))
        self.w("| | |", "|---|---|")
        for k, v in rows:
            self.w(f"| {k} | {v} |")
        self.w("")
        if game.doc:
            self.w(doc_text(game.doc), "")
        for key in ("players", "direction", "round", "max_rounds"):
            if game.member_docs.get(key):
                label = {"direction": "turn order", "max_rounds": "max rounds"}.get(key, key)
                self.w(f"- **{label}**: " + " ".join(game.member_docs[key]))
        self.w("")
        self.w("Play it: " + code(f"rulelang play {self.shown}") + "; check it: " + code(f"rulelang check {self.shown}") + ".", "")

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
        self.w("The same flow as a list:" if level == 2 else "As a list:", "")
        self.w(flow_list(flow, self.site), "")

    def prose(self):
        self.w("## The rules", "")
        self.w("The rules in the order of the file: each declaration with its doc comments.", "")
        dividers = []
        for i, line in enumerate(self.src.lines, 1):
            m = re.match(r"^//\s*[-=]{3,}\s*(.*?)\s*[-=]*\s*$", line)
            if m and m.group(1):
                dividers.append((i, m.group(1)))
        items: list = [(line, "divider", title) for line, title in dividers]
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
        parts = []
        if d.doc:
            parts.append(doc_text(d.doc))
        members = self.member_docs(d)
        nested = self.nested_docs(d)
        if not parts and not members and not nested:
            return
        lead = f"**{code(('replace ' if d.replace else '') + decl_title(d, self.src))}** ({self.ref(d)})"
        self.w(lead, "")
        for p in parts:
            self.w(p, "")
        if members:
            self.w(*members, "")
        if nested:
            self.w(*nested, "")

    def member_docs(self, d: N.Node) -> list[str]:
        out = []
        if isinstance(d, N.EnumDecl):
            for name, doc in zip(d.members, d.member_docs):
                if doc:
                    out.append(f"- {code(name)}: " + " ".join(doc))
        elif isinstance(d, (N.ComponentDecl, N.PlayerDecl)):
            for f in d.fields:
                if f.doc:
                    out.append(f"- {code(f.name)}: " + " ".join(f.doc))
        elif isinstance(d, N.CardsDecl):
            for e in d.entries:
                if e.doc:
                    out.append(f"- {code(self.src.first_line(e, 70))}: " + " ".join(e.doc))
        elif isinstance(d, N.GameDecl):
            return []  # shown at a glance
        return out

    def nested_docs(self, d: N.Node) -> list[str]:
        out: list[str] = []

        def visit(stmts, depth):
            for s in stmts or []:
                pad = "    " * depth
                shown = depth
                if s.doc:
                    if isinstance(s, N.StepBlock):
                        head = f"step {code(s.name)}"
                    else:
                        head = code(self.src.first_line(s, 70))
                    out.append(f"{pad}- {head} ({self.ref(s)}): " + " ".join(s.doc))
                    shown = depth + 1
                if isinstance(s, (N.ChooseBlock, N.Respond, N.Offer)):
                    for o in s.options:
                        opad = "    " * shown
                        if o.doc:
                            out.append(f"{opad}- option {code(o.name)} ({self.ref(o)}): " + " ".join(o.doc))
                        visit(o.body, shown + (1 if o.doc else 0))
                    if isinstance(s, N.Offer) and s.refused:
                        visit(s.refused, shown)
                    continue
                for body in child_blocks(s):
                    visit(body, shown)

        if isinstance(d, N.KeywordDecl):
            if d.effect:
                visit(d.effect, 0)
            for t in d.triggers:
                if t.doc:
                    out.append(f"- {code(t.describe())} ({self.ref(t)}): " + " ".join(t.doc))
                visit(t.body, 1 if t.doc else 0)
        else:
            for body in decl_bodies(d):
                visit(body, 0)
        return out

    def components(self):
        self.w("## Components and cards", "")
        enums = [d for d in self.base if isinstance(d, N.EnumDecl)]
        if enums:
            self.w("### Enums", "")
            self.w("| enum | members |", "|---|---|")
            for e in enums:
                self.w(f"| {code(e.name)} | {', '.join(code(m) for m in e.members)} |")
            self.w("")
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
                self.w("| field | type | default | meaning |", "|---|---|---|---|")
                for f in c.fields:
                    default = code(self.src.of(f.default)) if f.default is not None else ""
                    self.w(f"| {code(f.name)} | {cell(str(f.type))} | {cell(default)} | {cell(' '.join(f.doc))} |")
                self.w("")
            extra = []
            if isinstance(c, N.ComponentDecl) and c.label:
                extra.append(f"label {code(chr(34) + c.label + chr(34))}")
            if isinstance(c, N.ComponentDecl) and c.discards_to is not None:
                extra.append(f"discarded to {code(self.src.of(c.discards_to))}")
            if extra:
                self.w("; ".join(extra).capitalize() + ".", "")
        self.w("### Decks", "")
        self.w(*cards_section(self.rules, self.card_sets, self.src, level=4), "")
        zones = [d for d in self.base if isinstance(d, N.ZoneDecl)]
        self.w("### Zones", "")
        if zones:
            self.w("| zone | one per player | who sees the cards | board | meaning |", "|---|---|---|---|---|")
            for z in zones:
                board = self.topology(z.board) if z.board else ""
                seen = {"public": "everyone", "hidden": "nobody", "private": "the owner"}[z.visibility]
                self.w(f"| {code(z.name)} | {'yes' if z.per_player else ''} | {seen} | {cell(board)} | {cell(first_sentence(z.doc) if z.doc else '')} |")
            self.w("")
        else:
            self.w("No zones are declared.", "")
        variables = [d for d in self.base if isinstance(d, N.VarDecl)]
        if variables:
            self.w("### Game state", "")
            self.w("| var | type | starts as | meaning |", "|---|---|---|---|")
            for v in variables:
                default = code(self.src.of(v.default)) if v.default is not None else ""
                self.w(f"| {code(v.name)} | {cell(str(v.type))} | {cell(default)} | {cell(' '.join(v.doc))} |")
            self.w("")

    @staticmethod
    def topology(t: N.Topology) -> str:
        return _Renderer.topology_shape(t) + _Renderer.places_text(t)

    @staticmethod
    def topology_shape(t: N.Topology) -> str:
        if t.kind == "grid":
            size = f", {t.width} by {t.height}" if t.width else ", open (grows)"
            return f"square grid, {t.neighbours} neighbours{size}"
        if t.kind == "hex" and t.shape is not None:
            return f"hex grid, a {t.shape} of {t.width} by {t.height} cells"
        if t.kind == "hex":
            return "hex grid" + (f", radius {t.radius}" if t.radius is not None else ", open (grows)")
        if t.kind == "track":
            return f"track of {t.length} spaces" + (", a loop" if t.loop else "")
        return f"graph of {len(t.nodes)} nodes and {len(t.edges)} edges"

    @staticmethod
    def places_text(t: N.Topology) -> str:
        if t.places is None:
            return ""
        caps = ", ".join(f"{name} holds {n}" for name, n in t.capacities)
        return f"; each cell divided into the places of {t.places}" + (f" ({caps}; the others any number)" if caps else "")

    def settings(self):
        settings = [d for d in self.base if isinstance(d, N.SettingDecl)]
        self.w("## Settings", "")
        if not settings:
            self.w("This game has no settings.", "")
            return
        self.w("Change one with `--set NAME=VALUE` on the command line, or with `set NAME = value` in a variant.", "")
        self.w("| setting | default | choices | meaning |", "|---|---|---|---|")
        for s in settings:
            self.w(f"| {code(s.name)} | {code(self.src.of(s.default))} | {', '.join(code(c) for c in s.choices) or 'any value'} | {cell(' '.join(s.doc))} |")
        self.w("")

    def keywords(self):
        kws = [d for d in self.rules.decls if isinstance(d, N.KeywordDecl)]
        for v in self.rules.variants().values():
            kws += [d for d in v.items if isinstance(d, N.KeywordDecl)]
        self.w("## Keywords", "")
        if not kws:
            self.w("This game declares no keywords.", "")
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
        self.w("## Variants", "")
        if not variants:
            self.w("This game has no variants.", "")
            return
        self.w("Each variant is shown as what it changes against the base game. "
               f"Play one with {code('--variant NAME')}.", "")
        base_by_name = {}
        for d in self.base:
            base_by_name.setdefault(d.key[1], d)
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
                    sets.append(f"| {code(item.name)} | {was} | {code(self.src.of(item.value))} |")
                elif isinstance(item, N.RemoveDecl):
                    base = base_by_name.get(item.name)
                    what = code(decl_title(base, self.src)) if base else code(item.name)
                    removed.append(f"- {what}" + (f" ({self.ref(base)})" if base else "") + (f": {first_sentence(base.doc)}" if base is not None and base.doc else ""))
                elif item.replace:
                    replaced.append(item)
                else:
                    added.append(item)
            if replaced:
                self.w("**Replaced**", "")
                for item in replaced:
                    self.w(f"- {code(decl_title(item, self.src))} ({self.ref(item)})" + (f": {first_sentence(item.doc)}" if item.doc else ""))
                self.w("")
            if removed:
                self.w("**Removed**", "")
                self.w(*removed, "")
            if added:
                self.w("**Added**", "")
                for item in added:
                    self.w(f"- {code(decl_title(item, self.src))} ({self.ref(item)})" + (f": {first_sentence(item.doc)}" if item.doc else ""))
                self.w("")
            if sets:
                self.w("**Settings changed**", "")
                self.w("| setting | base game | this variant |", "|---|---|---|", *sets, "")
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
            prose_start = len(self.out)
            self.w(f"#### The rules of {v.name}", "")
            before = len(self.out)
            for item in v.items:
                self.decl_prose(item)
            if len(self.out) == before:
                del self.out[prose_start:]

    def assumptions(self):
        items = collect_assumptions(self.text)
        self.w("## Assumptions", "")
        if not items:
            self.w("No doc comment has an `Assumption`.", "")
            return
        self.w("Every `Assumption` in a doc comment: where the rulebook is silent, unclear or "
               "contradicts itself, and the reading chosen.", "")
        for a in items:
            where = self.ref(a.line)
            before = f" (on {code(a.before if len(a.before) < 50 else a.before[:49].rstrip() + '…')})" if a.before else ""
            self.w(f"- {where}{before}: {a.text}")
        self.w("")

    def source(self):
        self.w("## Source", "")
        self.w(f"The complete rules, {code(self.shown)}:", "")
        fence = "```"
        while fence in self.text:
            fence += "`"
        if self.site:
            self.w(fence + '{ .rules linenums="1" lineanchors="L" anchorlinenos="1" }')
        else:
            self.w(fence + "rules")
        self.w(self.text.rstrip("\n"), fence, "")


# ------------------------------------------------------------------ the language reference


def _grammar_text() -> str:
    from rulelang.core.resources import grammar_path

    return grammar_path().read_text(encoding="utf-8")


def grammar_rules_by_name() -> dict[str, str]:
    """Each rule or terminal of the grammar, as written (with its alternatives), by name."""
    text = _grammar_text()
    out: dict[str, str] = {}
    current, lines = None, []
    for line in text.splitlines():
        m = re.match(r"^([?!]?)([A-Za-z_][A-Za-z0-9_]*)\s*:", line)
        if m:
            if current:
                out[current] = "\n".join(lines).rstrip()
            current, lines = m.group(2), [line]
        elif current and line.startswith((" ", "\t")) and line.strip():
            lines.append(line)
        elif current:
            out[current] = "\n".join(lines).rstrip()
            current, lines = None, []
    if current:
        out[current] = "\n".join(lines).rstrip()
    return out


def grammar_rule(name: str) -> str:
    rules = grammar_rules_by_name()
    if name not in rules:
        raise KeyError(f"the grammar has no rule named {name!r}")
    return rules[name]


def grammar_rules(names: Iterable[str]) -> str:
    return "\n".join(grammar_rule(n) for n in names)


def builtins_table() -> str:
    """A Markdown table of the built-in functions and values, from the interpreter's own tables."""
    from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS

    out = ["| built-in | arguments | meaning |", "|---|---|---|"]

    def arity(lo, hi):
        if hi is None:
            return f"{lo} or more"
        return str(lo) if lo == hi else f"{lo} to {hi}"

    for b in BUILTINS.values():
        out.append(f"| {code(b.name + '(…)')} | {arity(b.min_args, b.max_args)} | {cell(b.doc)} |")
    for name, (lo, hi, doc) in SPECIAL_FUNCS.items():
        out.append(f"| {code(name + '(…)')} | {arity(lo, hi)} | {cell(doc)} |")
    out.append("")
    out.append("| built-in value | meaning |")
    out.append("|---|---|")
    for name, doc in BUILTIN_VALUES.items():
        out.append(f"| {code(name)} | {cell(doc)} |")
    return "\n".join(out)


# The table of built-ins is text in docs/reference.md, between these two lines, so that the page
# reads as it is (in the repository, online, in an editor), not only on the built site. This
# command writes it anew from the interpreter; tests/test_docs.py fails while it differs.
REGENERATE_BUILTINS = "python3 -m rulelang.tools.docgen builtins"
BUILTINS_BEGIN = ("<!-- begin: built-in functions and values, written by "
                  f"{REGENERATE_BUILTINS} from the interpreter; do not edit by hand -->")
BUILTINS_END = "<!-- end: built-in functions and values -->"


def _builtins_bounds(text: str) -> tuple[int, int] | None:
    """Where the table lies in a page's text: from the end of the first marker's line to the start
    of the second marker; None when the page has neither; ValueError when only one, or both out of order."""
    begin, end = text.find(BUILTINS_BEGIN), text.find(BUILTINS_END)
    if begin == -1 and end == -1:
        return None
    if begin == -1 or end == -1 or end < begin:
        raise ValueError("the table of built-ins needs both of its marker lines, in this order:\n"
                         f"{BUILTINS_BEGIN}\n{BUILTINS_END}")
    return begin + len(BUILTINS_BEGIN), end


def builtins_section(text: str) -> str | None:
    """The table of built-ins that a page holds between its markers (blank lines around it left
    out), or None when the page has no such table."""
    bounds = _builtins_bounds(text)
    return None if bounds is None else text[bounds[0]:bounds[1]].strip("\n")


def with_builtins_table(text: str) -> str:
    """A page's text with the table between its markers written anew from the interpreter."""
    bounds = _builtins_bounds(text)
    if bounds is None:
        raise ValueError("the page has no table of built-ins: put these two lines where it goes:\n"
                         f"{BUILTINS_BEGIN}\n{BUILTINS_END}")
    return text[:bounds[0]] + "\n\n" + builtins_table() + "\n\n" + text[bounds[1]:]


# what an argument means when the command's parser gives it no help text
_CLI_MEANINGS = {
    "file": "a .rules file, or the name of a bundled game or example (its file name without .rules)",
    "files": ".rules files (or bundled games' names)",
    "variant": "variant(s) to apply, comma-separated, in order",
    "players": "how many players (default: the game's default)",
    "seed": "the seed of the match's random numbers",
    "set": "change a setting of the game: NAME=VALUE (repeatable)",
}


def cli_usage(command: str, parser) -> str:
    """The usage and options of one `rulelang` subcommand, from the CLI's own argument parser
    (``rulelang.cli.main.build_parser()``, passed in so that the docs do not import the CLI)."""
    import argparse

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if command not in sub.choices:
        raise KeyError(f"rulelang has no command {command!r}")
    p = sub.choices[command]
    usage = p.format_usage().replace("usage: ", "").strip()
    out = ["```text", re.sub(r"\s+", " ", usage), "```", "", "| argument | meaning |", "|---|---|"]
    for action in p._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        name = ", ".join(action.option_strings) or action.dest
        if action.option_strings and action.nargs != 0:
            name += " " + (action.metavar or action.dest.upper())
        help_text = action.help or _CLI_MEANINGS.get(action.dest, "")
        if action.default not in (None, False, argparse.SUPPRESS) and action.option_strings:
            help_text += f" (default: {action.default})"
        out.append(f"| {code(name)} | {cell(help_text)} |")
    return "\n".join(out)


# ------------------------------------------------------------------ python3 -m rulelang.tools.docgen


def _reference_page() -> Path:
    """docs/reference.md of the checkout this rulelang runs from."""
    return Path(__file__).resolve().parent.parent.parent / "docs" / "reference.md"


def main(argv: list[str] | None = None) -> int:
    """``python3 -m rulelang.tools.docgen builtins [PAGE] [--check]``: write the table of built-ins into
    the language reference (``docs/reference.md``), or with ``--check`` only say whether it is the
    interpreter's. The exit code is 1 when ``--check`` finds it differs, 2 when the page cannot be used."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python3 -m rulelang.tools.docgen",
                                     description="Write the generated parts of the documentation's pages.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("builtins", help="write the table of built-in functions and values into the language reference")
    p.add_argument("page", nargs="?", help="the page holding the table (default: docs/reference.md of this checkout)")
    p.add_argument("--check", action="store_true",
                   help="change nothing: exit with 1 when the page's table is not the interpreter's")
    args = parser.parse_args(argv)
    page = Path(args.page) if args.page else _reference_page()
    try:
        text = page.read_bytes().decode("utf-8")
        new = with_builtins_table(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        where = "" if args.page else " (an installed rulelang has no docs/: give the page's path)"
        print(f"{page}: {exc}{where}", file=sys.stderr)
        return 2
    if new == text:
        print(f"{page}: the table of built-ins is the interpreter's")
        return 0
    if args.check:
        print(f"{page}: the table of built-ins is not the interpreter's: run `{REGENERATE_BUILTINS}` "
              "to write it", file=sys.stderr)
        return 1
    page.write_bytes(new.encode("utf-8"))
    print(f"{page}: table of built-ins written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
