"""How a game flows, for its rulebook page (``docgen``): setup -> round -> phases -> steps
(``step NAME { }`` blocks, ``take turns`` loops) with the ``at start|end of ...`` triggers in their
places, as ``FlowNode`` trees drawn three ways: a Mermaid diagram, an SVG picture (no JavaScript),
and a nested list (always readable).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from rulelang.language import nodes as N
from rulelang.tools.docgen_text import (Source, child_blocks, code, decl_bodies, decl_title, first_sentence, shorten,
                                        walk_stmts)

# ------------------------------------------------------------------ flow


@dataclass
class FlowNode:
    kind: str  # setup | call | trigger | round | phase | step | turns | end | result | anytime | note
    label: str
    line: int = 0
    detail: str = ""
    children: list["FlowNode"] = field(default_factory=list)

    @property
    def drawn_detail(self) -> str:
        """The detail the pictures show (names and conditions: doc sentences stay in the list)."""
        return self.detail if self.kind in ("phase", "turns", "round", "trigger", "note") else ""


def _flow_in_body(stmts: list, src: Source) -> list[FlowNode]:
    """Steps and turn loops inside a block, nested as written (other statements are skipped)."""
    out: list[FlowNode] = []
    for s in stmts or []:
        if isinstance(s, N.StepBlock):
            out.append(FlowNode("step", f"step {s.name}", s.span.line, first_sentence(s.doc, 100) if s.doc else "",
                                _flow_in_body(s.body, src)))
        elif isinstance(s, N.TakeTurns):
            parts = [f"from {src.of(s.start)}" if s.start is not None else "", s.direction or ""]
            parts += [f"{word} {src.of(x, 60)}" for word, x in (("following", s.following), ("skipping", s.skipping),
                                                                 ("until", s.until)) if x is not None]
            label = "each player takes one turn" if s.once else "players take turns"
            out.append(FlowNode("turns", label, s.span.line, ", ".join(p for p in parts if p), _flow_in_body(s.body, src)))
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

    ends = [f"line {s.span.line} ({decl_title(d, src)})" for d in decls for body in decl_bodies(d)
            for s in walk_stmts(body) if isinstance(s, N.End) and s.what == "game"]
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


_MERMAID_SHAPES = {"setup": ("([", "])"), "trigger": ("{{", "}}"), "note": ("{{", "}}"), "result": ("([", "])"),
                   "decision": ("{", "}")}


def _column(flow: list[FlowNode]) -> list[FlowNode]:
    """The flow's top level as both pictures draw it: its end is the question "game over?" (no: the
    next round; yes: the game ends)."""
    out: list[FlowNode] = []
    for n in flow:
        out += [FlowNode("decision", "game over?"), FlowNode("end", "the game ends")] if n.kind == "end" else [n]
    return out


def flow_mermaid(flow: list[FlowNode]) -> str:
    """The flow as a Mermaid flowchart (top to bottom)."""
    out = ["flowchart TD"]
    ids = itertools.count(1)

    def label(n: FlowNode) -> str:
        shown = shorten(n.drawn_detail, 70)
        return _mm(n.label + (f"<br/>{shown}" if shown else "")).replace("#lt;br/#gt;", "<br/>")

    def emit(n: FlowNode, indent: str) -> str:
        """Write a node (a subgraph when it has children); return its id."""
        nid = f"n{next(ids)}"
        if n.children and n.kind != "call":
            out.append(f"{indent}subgraph {nid} [{label(n)}]")
            out.append(f"{indent}  direction TB")
            prev = None
            for c in n.children:
                cid = emit(c, indent + "  ")
                if c.kind != "note" and n.kind != "anytime":
                    if prev is not None:
                        out.append(f"{indent}  {prev} --> {cid}")
                    prev = cid
            out.append(f"{indent}end")
        else:
            a, b = _MERMAID_SHAPES.get(n.kind, ("[", "]"))
            out.append(f"{indent}{nid}{a}{label(n)}{b}")
        if n.kind == "turns":
            out.append(f"{indent}{nid} -->|next player| {nid}")
        return nid

    prev = round_id = None
    for n in _column(flow):
        nid = emit(n, "  ")
        if n.kind == "round":
            round_id = nid
        if n.kind == "anytime":
            continue
        if prev is not None:
            out.append(f"  {prev[0]} -->{'|yes|' if prev[1] == 'decision' else ''} {nid}")
        if n.kind == "decision" and round_id is not None:
            out.append(f"  {nid} -->|no: next round| {round_id}")
        prev = nid, n.kind
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

    class Box:
        def __init__(self, node: FlowNode):
            self.node = node
            self.lines = [("↻ " if node.kind == "turns" else "") + shorten(node.label, 64)] + (
                [shorten(node.drawn_detail, 64)] if node.drawn_detail else [])
            self.kids = [Box(c) for c in node.children]
            text_w = max(len(x) for x in self.lines) * char_w + 2 * pad
            if node.children:  # the heading is bold: wider letters
                text_w = max(text_w, len(self.lines[0]) * char_w * 1.15 + 2 * pad)
            if self.kids:
                self.head = len(self.lines) * line_h + 8
                self.w = max(text_w, max(k.w for k in self.kids) + 2 * pad)
                self.h = self.head + sum(k.h for k in self.kids) + gap * (len(self.kids) - 1) + 2 * pad
            elif node.kind == "decision":
                self.w, self.h = len(node.label) * char_w + 60, 40
            else:
                self.w = text_w
                self.h = len(self.lines) * line_h + 14

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
    column = [Box(n) for n in _column(flow)]
    round_box = next((b for b in column if b.node.kind == "round"), None)
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

    def item(n: FlowNode, depth: int, numbered: bool, index: int):
        pad = "    " * depth
        bullet = f"{index}." if numbered else "-"
        text = {"setup": "**Setup**", "round": "**Every round**", "end": "**The game ends**", "result": "**Result**",
                "anytime": "**At any time**", "turns": n.label, "note": code(n.label) + " (every time)"}.get(
            n.kind, code(n.label))
        detail = ((": when " if n.kind == "end" else ": ") + n.detail) if n.detail else ""
        where = "" if not n.line else f" ({line_link(n.line)})" if site else f" (line {n.line})"
        out.append(f"{pad}{bullet} {text}{detail}{where}")
        for i, c in enumerate(n.children, 1):
            item(c, depth + 1, n.kind == "round", i)

    for n in flow:
        item(n, 0, False, 0)
    return "\n".join(out)


def line_link(line: int) -> str:
    # raw HTML: the line anchors live inside the highlighted source, where MkDocs does not look
    return f'<a href="#L-{line}">line {line}</a>'
