"""Lark's parse tree -> the AST (`ToAst`).

`ToAst.transform` walks Lark's tree (its public `data`, `children` and `meta`): each node's children
first, then the method named by the node's rule, given the node's positions (`meta`, which become a
`span` in the whole file: `line_offset` is the lines above the text parsed) and its children. Most
rules make one node from their children in order, so their methods are made by `_node` from the
node's class and its fields' names.
"""
from __future__ import annotations

from lark import Token, Tree

from rulelang.core.errors import Span
from rulelang.language import nodes as N
from rulelang.language.lark_parser import _refuse_size, _SyntaxProblem, _unquote


def _plain(value):
    """A child as a node's field holds it: a token as its text, anything else as it is."""
    return str(value) if isinstance(value, Token) else value


def _text(value):
    return _unquote(value) if value is not None else None


def _given(value) -> bool:
    return value is not None


def _node(cls, *fields, **fixed):
    """The method of a rule whose children are, in order, the node's `fields` (each a name, or a
    (name, conversion) pair; `_plain` by default), the other fields being `fixed`. A last field
    "*NAME" is a list of the children left (those present)."""
    specs = [(f, _plain) if isinstance(f, str) else f for f in fields]
    rest = specs.pop() if specs and specs[-1][0].startswith("*") else None
    def build(self, meta, c):
        # (_plain written out: a call for each child of each node cost a tenth of the transformation)
        values = {name: (str(v) if isinstance(v, Token) else v) if convert is _plain else convert(v)
                  for (name, convert), v in zip(specs, c)}
        if rest is not None:
            values[rest[0][1:]] = [rest[1](v) for v in c[len(specs):] if v is not None]
        return cls(span=self._span(meta), **fixed, **values)
    return build


def _tag(kind, convert=_plain):
    """The method of a rule that is one part of the construct above it: (kind, its value)."""
    def tagged(self, meta, c):
        return (kind, convert(c[0]))
    return tagged


def _spec(kind, convert=_plain):
    """As `_tag`, with the part's span after its value (and any further children)."""
    def spec(self, meta, c):
        return (kind, convert(c[0]), self._span(meta), *c[1:])
    return spec


def _filtered(keep):
    """The method of `[x in coll where cond]` (or `while`, `until`): its left side must be `NAME in COLL`."""
    def build(self, meta, c):
        left, cond = c
        if not (isinstance(left, N.Member) and not left.negated and isinstance(left.elem, N.Name)):
            raise _SyntaxProblem(self._span(meta), f'before "{keep}" write "NAME in COLLECTION", as in '
                                                   f'[c in hand {keep} c.point > 3]')
        return N.FilterList(span=self._span(meta), var=left.elem.id, coll=left.coll, cond=cond, keep=keep)
    return build


def _placed(cls, *fields, **fixed):
    """The method of a statement whose children are its `fields`, then where it puts the cards."""
    def build(self, meta, c):
        span = self._span(meta)
        place = N.Placement(span=span)
        for kind, value in c[len(fields):]:
            setattr(place, kind, value)
        return cls(span=span, **fixed, **dict(zip(fields, c)), place=place)
    return build


def _const(value):
    """The method of a rule that is a fixed value (`per player`: true)."""
    return lambda self, meta, c: value


def _child(convert):
    """The method of a rule that hands on its one child, converted."""
    return lambda self, meta, c: convert(c[0])


_MEMBER_FIELDS = {"label": "label", "back": "back", "discards": "discards_to", "covers": "covers"}


class ToAst:
    """Lark's tree of a text -> its declarations (AST nodes), spans in the whole file (`line_offset`:
    the lines above the text parsed)."""

    def __init__(self, file: str, line_offset: int = 0):
        self.file = file
        self.offset = line_offset

    def transform(self, tree: Tree):
        # (Lark's own Transformer does the same, and makes a wrapper for each call of a method that
        # wants the positions, a third of its time; the parser refuses a tree deeper than Python recurses)
        children = [self.transform(c) if type(c) is Tree else c for c in tree.children]
        return getattr(self, tree.data)(tree.meta, children)

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(file=self.file)
        return Span(file=self.file, line=meta.line + self.offset, column=meta.column,
                    end_line=meta.end_line + self.offset, end_column=meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        return Span(file=self.file, line=tok.line + self.offset, column=tok.column,
                    end_line=tok.end_line + self.offset, end_column=tok.end_column)

    # ---- rules that hand on their child (its text, or itself), the children present, or a fixed value
    def _present(self, meta, c):
        return [x for x in c if x is not None]

    def _documented(self, meta, c):
        return (c[0], c[1])

    direction = assign_op = visibility = start_end = timing = top_bottom = up_down = end_what = run_unit = \
        until_timing = _child(str)
    # (player_word: the keyword's token, read as the name of the call `player(...)`)
    duration = chosen_by = zone_count = player_word = _child(lambda child: child)
    card_copies = _child(int)
    start = block = params = card_gen = _present
    game_member = comp_member = kw_member = _documented
    per_player = run_every = respond_once = _const(True)
    stack_kind = _const("stack")
    turns_once = _const(("once", True))

    # ---- top level
    def doc(self, meta, children):
        """The texts of a run of /// doc comments (the slashes and one space after them left out)."""
        return [t[4:] if t[3:4] == " " else t[3:] for t in map(str, children)]

    def replace_mark(self, meta, children):
        return bool(children and children[0] is not None)

    def item(self, meta, children):
        doc, replace, decl = children
        decl.doc = doc + decl.doc
        decl.replace = replace
        return decl

    # ---- declarations
    def game_decl(self, meta, children):
        decl = N.GameDecl(span=self._span(meta), title=_unquote(children[0]))
        for doc, (kind, fields) in children[1:]:  # (a member of the game: its fields' values)
            for name, value in fields.items():
                setattr(decl, name, value)
            if doc:
                decl.member_docs[kind] = doc
        return decl

    def players_spec(self, meta, c):
        low, high, default = (int(x) if x is not None else None for x in c)
        return ("players", {"players_min": low, "players_max": high if high is not None else low,
                            "players_default": default})

    def round_spec(self, meta, c):
        phases = [t for t in c if t is not None]
        return ("round", {"round_phases": [str(t) for t in phases], "round_spans": [self._tok_span(t) for t in phases]})

    turn_order_spec = _tag("direction", lambda word: {"direction": str(word)})
    max_rounds_spec = _tag("max_rounds", lambda count: {"max_rounds": int(count)})
    def enum_decl(self, meta, c):
        members = [m for m in c[1:] if m is not None]
        return N.EnumDecl(span=self._span(meta), name=str(c[0]), members=[m[1] for m in members],
                          member_docs=[m[0] for m in members], member_colours=[m[2] for m in members])

    def enum_member(self, meta, c):
        return (c[0], str(c[1]), _text(c[2]))
    def component_decl(self, meta, c):
        decl = N.ComponentDecl(span=self._span(meta), name=str(c[0]))
        self._fill_members(decl, c[1:])
        return decl

    def _fill_members(self, decl, members):
        for doc, spec in members:
            if isinstance(spec, N.FieldDecl):
                spec.doc = doc
                decl.fields.append(spec)
            elif spec[0] == "label" and spec[3] is not None:
                decl.labels_if.append(N.LabelCase(span=spec[2], text=spec[1], when=spec[3]))
            elif spec[0] == "colour":
                decl.colour_by, decl.colour_by_span = spec[1], spec[2]
            else:
                setattr(decl, _MEMBER_FIELDS[spec[0]], spec[1])
    def player_decl(self, meta, c):
        decl = N.PlayerDecl(span=self._span(meta))
        for _, spec in c:
            if isinstance(spec, tuple):  # the grammar shares a component's members with the player block
                raise _SyntaxProblem(spec[2], f'a player block declares fields only: "{spec[0]}" belongs in a '
                                              "component (it says how its cards are named or where they go)")
        self._fill_members(decl, c)
        return decl

    field = _node(N.FieldDecl, "name", "type", "default")
    label_spec = _spec("label", _unquote)
    back_spec = _spec("back", _unquote)
    discards_spec = _spec("discards")
    covers_spec = _spec("covers")
    def colour_spec(self, meta, c):
        if str(c[0]) not in ("colour", "color"):
            raise _SyntaxProblem(self._span(meta), f'"{c[0]} by {c[1]}" is not a line of a component: only '
                                                   '`colour by FIELD` is written with "by"',
                                 hint=f"a field is written `{c[0]}: TYPE`")
        return ("colour", str(c[1]), self._span(meta))

    simple_type = _node(N.TypeRef, "name")
    map_type = _node(N.TypeRef, "name", "per")
    list_type = _node(N.TypeRef, "list_of", name="list")

    cards_decl = _node(N.CardsDecl, "name", "zone", "*entries")
    def card_entry(self, meta, c):
        doc, ctor, copies, gens = c
        return N.CardEntry(span=self._span(meta), doc=doc, ctor=ctor,
                           copies=copies if copies is not None else 1, gens=gens or [])

    card_ctor = _node(N.CardCtor, "component", "*args")

    gen_clause = _node(N.GenClause, "var", "coll")
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

    def board_kind(self, meta, c):
        topo = c[0]
        if len(c) > 1 and c[1] is not None:
            topo.places, topo.capacities, topo.places_span = c[1]
        return topo

    layer_kind = _spec("layer")
    def places_spec(self, meta, c):
        return str(c[0]), [x for x in c[1:] if x is not None], self._span(meta)

    def place_cap(self, meta, c):
        return (str(c[0]), int(c[1]))

    grid_topology = _node(N.Topology, ("neighbours", int), kind="grid")
    fixed_grid_topology = _node(N.Topology, ("neighbours", int), ("width", int), ("height", int), kind="grid")
    hex_topology = _node(N.Topology, kind="hex", neighbours=6)
    hex_radius_topology = _node(N.Topology, ("radius", int), kind="hex", neighbours=6)
    hex_rhombus_topology = _node(N.Topology, ("width", int), ("height", int), kind="hex", neighbours=6,
                                 shape="rhombus")
    hex_rectangle_topology = _node(N.Topology, ("width", int), ("height", int), kind="hex", neighbours=6,
                                   shape="rectangle")
    track_topology = _node(N.Topology, ("length", int), ("loop", _given), kind="track", neighbours=2)
    def graph_topology(self, meta, c):
        topo = N.Topology(span=self._span(meta), kind="graph")
        for chain in c:
            for n in chain:
                if n not in topo.nodes:
                    topo.nodes.append(n)
            topo.edges.extend(zip(chain, chain[1:]))
        return topo

    def graph_item(self, meta, c):
        return [str(t) for t in c if t is not None]

    var_decl = _node(N.VarDecl, "name", "type", "default")
    table_decl = _node(N.TableDecl, "name", "source")

    setting_decl = _node(N.SettingDecl, "name", "default", "*choices")

    set_setting_decl = _node(N.SetSetting, "name", "value")
    def_decl = _node(N.DefDecl, "name", ("params", lambda ps: ps or []), "body")
    proc_decl = _node(N.ProcDecl, "name", ("params", lambda ps: ps or []), "body")
    param = _node(N.Param, "name", "type")
    def keyword_decl(self, meta, c):
        decl = N.KeywordDecl(span=self._span(meta), name=str(c[0]), params=c[1] or [])
        for doc, spec in c[2:]:
            if isinstance(spec, tuple) and spec[0] == "usable":
                decl.usable = spec[1]
            elif isinstance(spec, tuple) and spec[0] == "effect":
                decl.effect, decl.effect_span = spec[1], spec[2]
                decl.doc.extend(doc)
            elif isinstance(spec, (N.TriggerDecl, N.AlwaysDecl)):
                spec.doc = doc + spec.doc
                (decl.triggers if isinstance(spec, N.TriggerDecl) else decl.always).append(spec)
        return decl

    usable_spec = _tag("usable")
    effect_spec = _spec("effect")
    phase_decl = _node(N.PhaseDecl, "name", "unless", "body")
    setup_decl = _node(N.SetupDecl, "body")
    result_decl = _node(N.ResultDecl, "body")
    def trigger_decl(self, meta, c):
        head, cond, name, body = c
        return N.TriggerDecl(span=self._span(meta), **head, cond=cond, name=_plain(name), body=body)

    def at_trigger(self, meta, c):
        return dict(kind="at", when=str(c[0]), timing=str(c[1]), phase=_plain(c[2]))

    def enter_trigger(self, meta, c):
        return dict(kind="enter", var=str(c[0]), zone=str(c[1]))

    def leave_trigger(self, meta, c):
        return dict(kind="leave", var=str(c[0]), zone=str(c[1]))

    def signal_trigger(self, meta, c):
        return dict(kind="signal", signal=str(c[0]), params=[str(t) for t in c[1:] if t is not None])

    always_decl = _node(N.AlwaysDecl, "name", "body")
    def variant_decl(self, meta, c):
        extends = [str(x) for x in c[1:] if isinstance(x, Token)]
        items = [x for x in c[1:] if x is not None and not isinstance(x, Token)]
        return N.VariantDecl(span=self._span(meta), name=str(c[0]), extends=extends, items=items)

    remove_decl = _node(N.RemoveDecl, "name")

    # ---- scenarios
    scenario_decl = _node(N.ScenarioDecl, ("name", _unquote), "*items")

    def scen_item(self, meta, c):
        doc, item = c[0], c[1]
        item.doc = doc
        return item

    pos_item = scen_item  # (a position's line and its doc comment, as a scenario's)

    scen_game = _node(N.ScenarioItem, ("text", _unquote), kind="game")
    scen_players = _node(N.ScenarioItem, ("number", int), kind="players")
    scen_seed = _node(N.ScenarioItem, ("number", int), kind="seed")
    scen_position_file = _node(N.ScenarioItem, ("text", _unquote), kind="position_file")
    scen_next = _node(N.ScenarioItem, "chance", kind="chance")
    scen_stop_every = _node(N.ScenarioItem, kind="stop_every")
    scen_choose = _node(N.ScenarioItem, ("text", _unquote), kind="choose")
    scen_choose_index = _node(N.ScenarioItem, ("number", int), kind="choose", unit="option")
    scen_choose_card = _node(N.ScenarioItem, "expr", kind="choose", unit="card")
    scen_choose_cell = _node(N.ScenarioItem, "expr", kind="choose", unit="cell")
    scen_expect = _node(N.ScenarioItem, "expr", kind="expect")
    scen_expect_error = _node(N.ScenarioItem, ("text", _unquote), kind="expect_error")

    scen_variant = _node(N.ScenarioItem, "*names", kind="variant")

    scen_setting = _node(N.ScenarioItem, "*names", kind="setting")

    def scen_value(self, meta, c):
        """A setting's value in a scenario, as the text `--set NAME=VALUE` would give."""
        if len(c) == 1 and c[0].type == "STRING":
            return _unquote(c[0])
        return "".join(str(t) for t in c)

    scen_position = _node(N.ScenarioItem, "*position", kind="position")
    def scen_run(self, meta, c):
        unit, target, every = c[0]
        return N.ScenarioItem(span=self._span(meta), kind="run", unit=unit, target=target, every_choice=every)

    def run_target(self, meta, c):
        return (str(c[0]), _plain(c[1]), c[2] is not None)

    scen_repeat = _node(N.ScenarioItem, ("number", int), "*items", kind="repeat")
    chance_roll = _node(N.ChanceItem, ("*numbers", int), what="roll")
    chance_random = _node(N.ChanceItem, "*values", what="random")
    def chance_shuffle(self, meta, c):
        (zone, player, number), cards = c[0], [x for x in c[1:] if x is not None]
        return N.ChanceItem(span=self._span(meta), what="shuffle", zone=zone, player=player, number=number, cards=cards)

    pos_round = _node(N.PosItem, ("round", int), kind="round")
    pos_phase = _node(N.PosItem, "phase", kind="phase")
    pos_step = _node(N.PosItem, "phase", kind="step")
    pos_next = _node(N.PosItem, "chance", kind="chance")
    pos_set = _node(N.PosItem, "target", "value", kind="set")
    pos_loop = _node(N.PosItem, "var", "value", "*items", kind="loop")
    def pos_cards(self, meta, c):  # (and `ZONE: empty`, which names no card)
        (zone, player, number), at, *cards = c
        return N.PosItem(span=self._span(meta), kind="cards" if cards else "empty", zone=zone, player=player,
                         number=number, at=at, cards=[x for x in cards if x is not None])

    pos_empty = pos_cards

    def pos_zone(self, meta, c):
        return (str(c[0]), int(c[1]) if c[1] is not None else None, None)

    def pos_family_zone(self, meta, c):
        return (str(c[0]), None, int(c[1]))
    def pos_card(self, meta, c):
        copies = int(c[1]) if len(c) > 1 and c[1] is not None else 1
        if isinstance(c[0], N.CardCtor):
            return N.PosCard(span=self._span(meta), ctor=c[0], copies=copies)
        return N.PosCard(span=self._span(meta), name=_unquote(c[0]), copies=copies)

    # ---- statements
    stmt = scen_item  # (a statement and its doc comment)
    let_stmt = _node(N.Let, "name", "value")

    assign_stmt = _node(N.Assign, "target", "op", "value", "until")
    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])] + [(x[1], x[2]) for x in c[2:] if isinstance(x, tuple) and x[0] == "elif"]
        other = next((x[1] for x in c[2:] if isinstance(x, tuple) and x[0] == "else"), None)
        return N.If(span=self._span(meta), branches=branches, other=other)

    def elif_clause(self, meta, c):
        return ("elif", c[0], c[1])

    else_clause = _tag("else")
    for_stmt = _node(N.For, "var", "coll", "cond", "chosen_by", "body")
    while_stmt = _node(N.While, "cond", "body")
    repeat_times_stmt = _node(N.RepeatTimes, "count", "body")
    repeat_until_stmt = _node(N.RepeatUntil, "cond", "body")
    choose_stmt = _node(N.Choose, "var", "coll", "cond", "opts")
    choose_opts = _node(N.ChooseOpts, "by", ("optional", _given), ("prompt", _text))
    def choose_block(self, meta, c):
        span = self._span(meta)
        if c[0].span.line == 0:  # `choose { ... }` with no options written: they sit where the choose does
            c[0].span = span
        return N.ChooseBlock(span=span, opts=c[0], options=list(c[1:]))
    def option(self, meta, c):
        doc, name, *bindings, cond, body = c
        return N.Option(span=self._span(meta), doc=doc, name=str(name),
                        bindings=[b for b in bindings if b is not None], cond=cond, body=body)

    binding = _node(N.Binding, "var", "coll", "cond")

    move_stmt = _placed(N.Move, "what", "to")
    draw_stmt = _placed(N.Draw, "count", "source", "to")
    draw_up_stmt = _placed(N.Draw, "count", "source", "to", up_to=True)

    at_place, end_place, face_place, slot_place = _tag("at"), _tag("end"), _tag("face"), _tag("place")
    discard_stmt = _node(N.Discard, "what")
    shuffle_stmt = _node(N.Shuffle, "zone")
    create_stmt = _node(N.Create, "cards", "zone")
    reveal_stmt = _node(N.Reveal, "what", "to")
    hide_stmt = _node(N.Hide, "what")
    flip_stmt = _node(N.Flip, "what", "face")

    signal_stmt = _node(N.Signal, "name", "*args")

    perform_stmt = _node(N.Perform, "what", "on")
    win_stmt = _node(N.Win, "who")
    end_stmt = _node(N.End, "what")
    def turns_stmt(self, meta, c):
        stmt = N.TakeTurns(span=self._span(meta), body=c[-1])
        for kind, value in c[:-1]:
            setattr(stmt, kind, value)
        return stmt

    turns_from, turns_direction, turns_skipping = _tag("start"), _tag("direction"), _tag("skipping")
    turns_until, turns_following = _tag("until"), _tag("following")

    step_stmt = _node(N.StepBlock, "name", "body")
    log_stmt = _node(N.Log, "message")
    fail_stmt = _node(N.Fail, "message")
    break_stmt = _node(N.Break)
    continue_stmt = _node(N.Continue)
    return_stmt = _node(N.Return)
    eliminate_stmt = _node(N.Eliminate, "who", "until")
    def respond_stmt(self, meta, c):
        once, var, coll, prompt, *options = c
        return N.Respond(span=self._span(meta), var=str(var), coll=coll, once=once is not None, prompt=_text(prompt),
                         options=options)
    def offer_stmt(self, meta, c):
        to, by, prompt, *options = c
        refused = None
        if options and isinstance(options[-1], tuple) and options[-1][0] == "refused":
            refused = options.pop()[1]
        elif options and options[-1] is None:
            options.pop()
        return N.Offer(span=self._span(meta), to=to, by=by, prompt=_text(prompt), options=options, refused=refused)

    refused_clause = _tag("refused")

    # ---- expressions
    cond_expr = _node(N.CondExpr, "test", "then", "other")

    or_expr = _node(N.BoolOp, "*items", op="or")
    and_expr = _node(N.BoolOp, "*items", op="and")

    not_expr = _node(N.Not, "operand")
    def compare(self, meta, c):
        op = {"≥": ">=", "≤": "<=", "≠": "!="}.get(str(c[1]), str(c[1]))
        return N.Compare(span=self._span(meta), op=op, left=c[0], right=c[2])

    member = _node(N.Member, "elem", "coll")
    not_member = _node(N.Member, "elem", "coll", negated=True)
    range = _node(N.Range, "low", "high")
    binop = _node(N.BinOp, "left", "op", "right")
    neg = _node(N.Neg, "operand")
    attr = _node(N.Attr, "obj", "name")
    index = _node(N.Index, "obj", "index")
    int_lit = _node(N.IntLit, ("value", int))
    str_lit = _node(N.StrLit, ("value", _unquote))
    true_lit = _node(N.BoolLit, value=True)
    false_lit = _node(N.BoolLit, value=False)
    none_lit = _node(N.NoneLit)
    name = _node(N.Name, "id")
    def call(self, meta, c):
        args = [a for a in c[1:] if a is not None]
        return N.Call(span=self._span(meta), func=str(c[0]), args=[a for a in args if not isinstance(a, N.KwArg)],
                      kwargs=[a for a in args if isinstance(a, N.KwArg)])

    kw_arg = named_arg = _node(N.KwArg, "name", "value")
    def list_lit(self, meta, c):
        items = [x for x in c if x is not None]
        if len(items) > 64:
            _refuse_size(self._span(meta), "this list written out has {:,} items", len(items))
        return N.ListLit(span=self._span(meta), items=items)

    filter_list = filter_arg = _filtered("where")
    while_list = _filtered("while")
    until_list = _filtered("until")
    def map_list(self, meta, c):
        return N.MapList(span=self._span(meta), expr=c[0], var=str(c[1]), coll=c[2], more=list(c[3:-1]), cond=c[-1])

    map_arg = map_list
    more_for = _node(N.ForClause, "var", "coll")
    cell_lit = _node(N.CellLit, "a", "b")

    map_lit = _node(N.MapLit, "*entries")

    map_entry = _node(N.MapEntry, "key", "value")
