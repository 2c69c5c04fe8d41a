"""Lark's parse tree -> the AST: the top level, the declarations and the scenarios (`DeclarationsToAst`).

A Lark `Transformer` (Lark's own walk: each node's children, then the node's method, by the rule's
name); a method with `@v_args(meta=True)` gets the node's positions, which become its `span`. The
statements and expressions are in ast_statements.py; parser.py puts both together (`_ToAst`).
"""
from __future__ import annotations

from lark import Token, Transformer, Tree, v_args

from rulelang.core.errors import Span
from rulelang.language import nodes as N
from rulelang.language.lark_parser import _SyntaxProblem, _unquote



def _docs(tree) -> list[str]:
    if tree is None:
        return []
    out = []
    for tok in tree.children:
        text = str(tok)[3:]
        out.append(text[1:] if text.startswith(" ") else text)
    return out


class DeclarationsToAst(Transformer):
    """Lark's tree of a text -> its declarations (AST nodes), spans in the whole file (`line_offset`:
    the lines above the text parsed). The methods for statements and expressions are StatementsToAst's."""

    def __init__(self, file: str, line_offset: int = 0):
        super().__init__(visit_tokens=False)
        self.file = file
        self.offset = line_offset

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(file=self.file)
        return Span(
            file=self.file,
            line=meta.line + self.offset,
            column=meta.column,
            end_line=meta.end_line + self.offset,
            end_column=meta.end_column,
        )

    def _tok_span(self, tok: Token) -> Span:
        return Span(file=self.file, line=tok.line + self.offset, column=tok.column,
                    end_line=tok.end_line + self.offset, end_column=tok.end_column)

    # ---- one-word choices such as `clockwise` or `face up`
    def _word(self, c):
        return str(c[0])

    direction = assign_op = visibility = start_end = timing = top_bottom = up_down = end_what = run_unit = _word

    # ---- top level
    def start(self, children):
        return [c for c in children if c is not None]

    def doc(self, children):
        return Tree("doc", children)

    def replace_mark(self, children):
        return bool(children and children[0] is not None)

    def item(self, children):
        doc, replace, decl = children
        decl.doc = _docs(doc) + decl.doc
        decl.replace = replace
        return decl

    @v_args(meta=True)
    def game_decl(self, meta, children):
        title = _unquote(children[0])
        decl = N.GameDecl(span=self._span(meta), title=title)
        for doc, spec in children[1:]:
            kind, data = spec
            if kind == "players":
                lo, hi, default = data
                decl.players_min = lo
                decl.players_max = hi if hi is not None else lo
                decl.players_default = default
            elif kind == "direction":
                decl.direction = data
            elif kind == "round":
                decl.round_phases = [str(t) for t in data]
                decl.round_spans = [self._tok_span(t) for t in data]
            elif kind == "max_rounds":
                decl.max_rounds = data
            if doc:
                decl.member_docs[kind] = doc
        return decl

    def game_member(self, children):
        return (_docs(children[0]), children[1])

    def players_spec(self, c):
        return ("players", (int(c[0]), int(c[1]) if c[1] is not None else None, int(c[2]) if c[2] is not None else None))

    def turn_order_spec(self, c):
        return ("direction", str(c[0]))

    def round_spec(self, c):
        return ("round", [t for t in c if t is not None])

    def max_rounds_spec(self, c):
        return ("max_rounds", int(c[0]))

    @v_args(meta=True)
    def enum_decl(self, meta, c):
        members = [m for m in c[1:] if m is not None]
        return N.EnumDecl(span=self._span(meta), name=str(c[0]), members=[m[1] for m in members],
                          member_docs=[m[0] for m in members], member_colours=[m[2] for m in members])

    def enum_member(self, c):
        return (_docs(c[0]), str(c[1]), _unquote(c[2]) if c[2] is not None else None)

    @v_args(meta=True)
    def component_decl(self, meta, c):
        decl = N.ComponentDecl(span=self._span(meta), name=str(c[0]))
        self._fill_members(decl, c[1:])
        return decl

    def _fill_members(self, decl, members):
        for doc, spec in members:
            if isinstance(spec, N.FieldDecl):
                spec.doc = doc
                decl.fields.append(spec)
            elif isinstance(spec, tuple) and spec[0] == "label" and spec[3] is not None:
                decl.labels_if.append(N.LabelCase(span=spec[2], text=spec[1], when=spec[3]))
            elif isinstance(spec, tuple) and spec[0] == "label":
                decl.label = spec[1]
            elif isinstance(spec, tuple) and spec[0] == "back":
                decl.back = spec[1]
            elif isinstance(spec, tuple) and spec[0] == "discards":
                decl.discards_to = spec[1]
            elif isinstance(spec, tuple) and spec[0] == "covers":
                decl.covers = spec[1]
            elif isinstance(spec, tuple) and spec[0] == "colour":
                decl.colour_by, decl.colour_by_span = spec[1], spec[2]

    @v_args(meta=True)
    def player_decl(self, meta, c):
        decl = N.PlayerDecl(span=self._span(meta))
        for _, spec in c:
            if isinstance(spec, tuple):  # the grammar shares a component's members with the player block
                raise _SyntaxProblem(spec[2], f'a player block declares fields only: "{spec[0]}" belongs in a '
                                              "component (it says how its cards are named or where they go)")
        self._fill_members(decl, c)
        return decl

    def comp_member(self, c):
        return (_docs(c[0]), c[1])

    @v_args(meta=True)
    def field(self, meta, c):
        return N.FieldDecl(span=self._span(meta), name=str(c[0]), type=c[1], default=c[2])

    @v_args(meta=True)
    def label_spec(self, meta, c):
        return ("label", _unquote(c[0]), self._span(meta), c[1])

    @v_args(meta=True)
    def back_spec(self, meta, c):
        return ("back", _unquote(c[0]), self._span(meta))

    @v_args(meta=True)
    def discards_spec(self, meta, c):
        return ("discards", c[0], self._span(meta))

    @v_args(meta=True)
    def covers_spec(self, meta, c):
        return ("covers", c[0], self._span(meta))

    @v_args(meta=True)
    def colour_spec(self, meta, c):
        if str(c[0]) not in ("colour", "color"):
            raise _SyntaxProblem(self._span(meta), f'"{c[0]} by {c[1]}" is not a line of a component: only '
                                                   '`colour by FIELD` is written with "by"',
                                 hint=f"a field is written `{c[0]}: TYPE`")
        return ("colour", str(c[1]), self._span(meta))

    @v_args(meta=True)
    def map_type(self, meta, c):
        return N.TypeRef(span=self._span(meta), name=str(c[0]), per=str(c[1]))

    @v_args(meta=True)
    def simple_type(self, meta, c):
        return N.TypeRef(span=self._span(meta), name=str(c[0]))

    @v_args(meta=True)
    def list_type(self, meta, c):
        return N.TypeRef(span=self._span(meta), name="list", list_of=c[0])

    @v_args(meta=True)
    def cards_decl(self, meta, c):
        return N.CardsDecl(span=self._span(meta), name=str(c[0]), zone=c[1], entries=[e for e in c[2:] if e])

    @v_args(meta=True)
    def card_entry(self, meta, c):
        doc, ctor, copies, gens = c
        return N.CardEntry(span=self._span(meta), doc=_docs(doc), ctor=ctor,
                           copies=copies if copies is not None else 1, gens=gens or [])

    @v_args(meta=True)
    def card_ctor(self, meta, c):
        return N.CardCtor(span=self._span(meta), component=str(c[0]), args=[a for a in c[1:] if a is not None])

    @v_args(meta=True)
    def named_arg(self, meta, c):
        return N.KwArg(span=self._span(meta), name=str(c[0]), value=c[1])

    def card_copies(self, c):
        return int(c[0])

    def card_gen(self, c):
        return list(c)

    @v_args(meta=True)
    def gen_clause(self, meta, c):
        return N.GenClause(span=self._span(meta), var=str(c[0]), coll=c[1])

    @v_args(meta=True)
    def zone_decl(self, meta, c):
        name, count, per_player, kind, visibility = c
        decl = N.ZoneDecl(span=self._span(meta), name=str(name), per_player=per_player is not None, count=count)
        if isinstance(kind, N.Topology):
            decl.board = kind
        elif isinstance(kind, tuple):  # ("layer", base, span)
            decl.layer_of, decl.layer_span = kind[1], kind[2]
        if visibility is not None:
            decl.visibility = str(visibility)
        return decl

    def per_player(self, c):
        return True

    def zone_count(self, c):
        return c[0]

    def stack_kind(self, c):
        return "stack"

    def board_kind(self, c):
        topo = c[0]
        if len(c) > 1 and c[1] is not None:
            topo.places, topo.capacities, topo.places_span = c[1]
        return topo

    @v_args(meta=True)
    def layer_kind(self, meta, c):
        return ("layer", str(c[0]), self._span(meta))

    @v_args(meta=True)
    def places_spec(self, meta, c):
        caps = [x for x in c[1:] if x is not None]
        return str(c[0]), caps, self._span(meta)

    def place_cap(self, c):
        return (str(c[0]), int(c[1]))

    @v_args(meta=True)
    def grid_topology(self, meta, c):
        return N.Topology(span=self._span(meta), kind="grid", neighbours=int(c[0]))

    @v_args(meta=True)
    def fixed_grid_topology(self, meta, c):
        return N.Topology(span=self._span(meta), kind="grid", neighbours=int(c[0]), width=int(c[1]), height=int(c[2]))

    @v_args(meta=True)
    def hex_topology(self, meta, c):
        return N.Topology(span=self._span(meta), kind="hex", neighbours=6)

    @v_args(meta=True)
    def hex_radius_topology(self, meta, c):
        return N.Topology(span=self._span(meta), kind="hex", neighbours=6, radius=int(c[0]))

    @v_args(meta=True)
    def hex_rhombus_topology(self, meta, c):
        return N.Topology(span=self._span(meta), kind="hex", neighbours=6, shape="rhombus", width=int(c[0]), height=int(c[1]))

    @v_args(meta=True)
    def hex_rectangle_topology(self, meta, c):
        return N.Topology(span=self._span(meta), kind="hex", neighbours=6, shape="rectangle", width=int(c[0]), height=int(c[1]))

    @v_args(meta=True)
    def track_topology(self, meta, c):
        return N.Topology(span=self._span(meta), kind="track", neighbours=2, length=int(c[0]), loop=c[1] is not None)

    @v_args(meta=True)
    def graph_topology(self, meta, c):
        topo = N.Topology(span=self._span(meta), kind="graph")
        for chain in c:
            for n in chain:
                if n not in topo.nodes:
                    topo.nodes.append(n)
            topo.edges.extend(zip(chain, chain[1:]))
        return topo

    def graph_item(self, c):
        return [str(t) for t in c if t is not None]

    @v_args(meta=True)
    def var_decl(self, meta, c):
        return N.VarDecl(span=self._span(meta), name=str(c[0]), type=c[1], default=c[2])

    @v_args(meta=True)
    def setting_decl(self, meta, c):
        return N.SettingDecl(span=self._span(meta), name=str(c[0]), default=c[1],
                             choices=[str(t) for t in c[2:] if t is not None])

    @v_args(meta=True)
    def set_setting_decl(self, meta, c):
        return N.SetSetting(span=self._span(meta), name=str(c[0]), value=c[1])

    @v_args(meta=True)
    def def_decl(self, meta, c):
        return N.DefDecl(span=self._span(meta), name=str(c[0]), params=c[1] or [], body=c[2])

    @v_args(meta=True)
    def proc_decl(self, meta, c):
        return N.ProcDecl(span=self._span(meta), name=str(c[0]), params=c[1] or [], body=c[2])

    def params(self, c):
        return [p for p in c if p is not None]

    @v_args(meta=True)
    def param(self, meta, c):
        return N.Param(span=self._span(meta), name=str(c[0]), type=c[1])

    @v_args(meta=True)
    def keyword_decl(self, meta, c):
        decl = N.KeywordDecl(span=self._span(meta), name=str(c[0]), params=c[1] or [])
        for doc, spec in c[2:]:
            if isinstance(spec, tuple) and spec[0] == "usable":
                decl.usable = spec[1]
            elif isinstance(spec, tuple) and spec[0] == "effect":
                decl.effect = spec[1]
                decl.effect_span = spec[2]
                decl.doc.extend(doc)
            elif isinstance(spec, N.TriggerDecl):
                spec.doc = doc + spec.doc
                decl.triggers.append(spec)
            elif isinstance(spec, N.AlwaysDecl):
                spec.doc = doc + spec.doc
                decl.always.append(spec)
        return decl

    def kw_member(self, c):
        return (_docs(c[0]), c[1])

    def usable_spec(self, c):
        return ("usable", c[0])

    @v_args(meta=True)
    def effect_spec(self, meta, c):
        return ("effect", c[0], self._span(meta))

    @v_args(meta=True)
    def phase_decl(self, meta, c):
        return N.PhaseDecl(span=self._span(meta), name=str(c[0]), unless=c[1], body=c[2])

    @v_args(meta=True)
    def setup_decl(self, meta, c):
        return N.SetupDecl(span=self._span(meta), body=c[0])

    @v_args(meta=True)
    def result_decl(self, meta, c):
        return N.ResultDecl(span=self._span(meta), body=c[0])

    @v_args(meta=True)
    def trigger_decl(self, meta, c):
        head, cond, name, body = c
        head.update(cond=cond, name=str(name) if name is not None else None, body=body)
        return N.TriggerDecl(span=self._span(meta), **head)

    def at_trigger(self, c):
        return dict(kind="at", when=str(c[0]), timing=str(c[1]), phase=str(c[2]) if c[2] is not None else None)

    def enter_trigger(self, c):
        return dict(kind="enter", var=str(c[0]), zone=str(c[1]))

    def leave_trigger(self, c):
        return dict(kind="leave", var=str(c[0]), zone=str(c[1]))

    def signal_trigger(self, c):
        return dict(kind="signal", signal=str(c[0]), params=[str(t) for t in c[1:] if t is not None])

    @v_args(meta=True)
    def always_decl(self, meta, c):
        return N.AlwaysDecl(span=self._span(meta), name=str(c[0]) if c[0] is not None else None, body=c[1])

    @v_args(meta=True)
    def variant_decl(self, meta, c):
        name = str(c[0])
        extends = []
        items = []
        for x in c[1:]:
            if isinstance(x, Token):
                extends.append(str(x))
            elif x is not None:
                items.append(x)
        return N.VariantDecl(span=self._span(meta), name=name, extends=extends, items=items)

    @v_args(meta=True)
    def remove_decl(self, meta, c):
        return N.RemoveDecl(span=self._span(meta), name=str(c[0]))

    # ---- scenarios
    @v_args(meta=True)
    def scenario_decl(self, meta, c):
        return N.ScenarioDecl(span=self._span(meta), name=_unquote(c[0]), items=[i for i in c[1:] if i])

    def scen_item(self, c):
        doc, item = c[0], c[1]
        item.doc = _docs(doc)
        return item

    @v_args(meta=True)
    def scen_game(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="game", text=_unquote(c[0]))

    @v_args(meta=True)
    def scen_variant(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="variant", names=[str(t) for t in c if t is not None])

    @v_args(meta=True)
    def scen_setting(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="setting", names=[str(c[0]), c[1]])

    def scen_value(self, c):
        """A setting's value in a scenario, as the text `--set NAME=VALUE` would give."""
        if len(c) == 1 and c[0].type == "STRING":
            return _unquote(c[0])
        return "".join(str(t) for t in c)

    @v_args(meta=True)
    def scen_players(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="players", number=int(c[0]))

    @v_args(meta=True)
    def scen_seed(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="seed", number=int(c[0]))

    @v_args(meta=True)
    def scen_position(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="position", position=[p for p in c if p])

    @v_args(meta=True)
    def scen_position_file(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="position_file", text=_unquote(c[0]))

    @v_args(meta=True)
    def scen_run(self, meta, c):
        unit, target, every = c[0]
        return N.ScenarioItem(span=self._span(meta), kind="run", unit=unit, target=target, every_choice=every)

    def run_target(self, c):
        return (str(c[0]), str(c[1]) if c[1] is not None else None, c[2] is not None)

    def run_every(self, c):
        return True

    @v_args(meta=True)
    def scen_next(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="chance", chance=c[0])

    @v_args(meta=True)
    def scen_stop_every(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="stop_every")

    @v_args(meta=True)
    def scen_repeat(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="repeat", number=int(c[0]), items=[i for i in c[1:] if i])

    @v_args(meta=True)
    def chance_roll(self, meta, c):
        return N.ChanceItem(span=self._span(meta), what="roll", numbers=[int(x) for x in c])

    @v_args(meta=True)
    def chance_random(self, meta, c):
        return N.ChanceItem(span=self._span(meta), what="random", values=list(c))

    @v_args(meta=True)
    def chance_shuffle(self, meta, c):
        (zone, player, number), cards = c[0], [x for x in c[1:] if x is not None]
        return N.ChanceItem(span=self._span(meta), what="shuffle", zone=zone, player=player, number=number, cards=cards)

    @v_args(meta=True)
    def scen_choose(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="choose", text=_unquote(c[0]))

    @v_args(meta=True)
    def scen_choose_index(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="choose", unit="option", number=int(c[0]))

    @v_args(meta=True)
    def scen_choose_card(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="choose", unit="card", expr=c[0])

    @v_args(meta=True)
    def scen_choose_cell(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="choose", unit="cell", expr=c[0])

    @v_args(meta=True)
    def scen_expect(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="expect", expr=c[0])

    @v_args(meta=True)
    def scen_expect_error(self, meta, c):
        return N.ScenarioItem(span=self._span(meta), kind="expect_error", text=_unquote(c[0]))

    pos_item = scen_item  # (a position's line and its doc comment, as a scenario's)

    @v_args(meta=True)
    def pos_round(self, meta, c):
        return N.PosItem(span=self._span(meta), kind="round", round=int(c[0]))

    @v_args(meta=True)
    def pos_phase(self, meta, c):
        return N.PosItem(span=self._span(meta), kind="phase", phase=str(c[0]))

    @v_args(meta=True)
    def pos_step(self, meta, c):
        return N.PosItem(span=self._span(meta), kind="step", phase=str(c[0]))

    @v_args(meta=True)
    def pos_next(self, meta, c):
        return N.PosItem(span=self._span(meta), kind="chance", chance=c[0])

    @v_args(meta=True)
    def pos_loop(self, meta, c):
        return N.PosItem(span=self._span(meta), kind="loop", var=str(c[0]), value=c[1], items=[i for i in c[2:] if i])

    @v_args(meta=True)
    def pos_set(self, meta, c):
        return N.PosItem(span=self._span(meta), kind="set", target=c[0], value=c[1])

    @v_args(meta=True)
    def pos_cards(self, meta, c):
        (zone, player, number), at, cards = c[0], c[1], [x for x in c[2:] if x is not None]
        return N.PosItem(span=self._span(meta), kind="cards", zone=zone, player=player, number=number, at=at, cards=cards)

    @v_args(meta=True)
    def pos_empty(self, meta, c):
        (zone, player, number), at = c[0], c[1]
        return N.PosItem(span=self._span(meta), kind="empty", zone=zone, player=player, number=number, at=at)

    def pos_zone(self, c):
        return (str(c[0]), int(c[1]) if c[1] is not None else None, None)

    def pos_family_zone(self, c):
        return (str(c[0]), None, int(c[1]))

    @v_args(meta=True)
    def pos_card(self, meta, c):
        x = c[0]
        copies = int(c[1]) if len(c) > 1 and c[1] is not None else 1
        if isinstance(x, N.CardCtor):
            return N.PosCard(span=self._span(meta), ctor=x, copies=copies)
        return N.PosCard(span=self._span(meta), name=_unquote(x), copies=copies)
