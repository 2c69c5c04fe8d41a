"""The abstract syntax tree: pydantic models, data only.

Every node carries a ``span`` (file, line, column) taken from Lark's
``propagate_positions``; the compiler keeps spans so run-time errors point back
into the .rules file. Declarations and statements also keep their ``///`` doc
comments, which become the published rulebook.
"""
# annotations are evaluated as the classes are made: pydantic then reads types, not texts to compile

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

from rulelang.core.errors import NO_SPAN, Span, fill_model


class Node(BaseModel):
    # schemas are built on first use, not at import (dozens of recursive unions are slow to build)
    model_config = ConfigDict(defer_build=True)
    span: Span = NO_SPAN

    def __init__(self, /, **data: Any):
        # The parser builds nodes from values of the right types, so the fields are filled in
        # directly, as pydantic's model_construct does: building the validation schemas of all the
        # node classes takes longer than parsing a whole game, and `rulelang check` would pay for it
        # on every run. tests/test_parser.py validates every node of every file with pydantic.
        plan = _FIELD_PLANS.get(type(self)) or _field_plan(type(self))
        values = {}
        for name, default in plan:
            if name in data:
                values[name] = data[name]
            elif default is _REQUIRED:
                raise TypeError(f"{type(self).__name__} needs a value for {name!r}")
            else:
                values[name] = default()
        fill_model(self, values, {name for name, _ in plan if name in data})

    def __reduce__(self):
        # pickled as its class and its values (and the fields given, when not all were): the AST
        # cache loads a game's thousands of nodes without pydantic's __setstate__ for each
        values, given = self.__dict__, self.model_fields_set
        return node_of, ((type(self), values) if len(given) == len(values) else (type(self), values, given))


def node_of(cls, values: dict, given: set | None = None):
    """A node of `cls` holding `values` (known good), the fields given being `given` or all of them,
    filled in as Node.__init__ fills one: how the long decks' reader (fastcards) and the AST cache's
    unpickling make nodes."""
    node = object.__new__(cls)
    fill_model(node, values, set(values) if given is None else given)
    return node


def nodes_in(tree):
    """Every AST node in a tree (a node, or lists of them), parents before children."""
    todo = [tree]
    while todo:
        x = todo.pop()
        if isinstance(x, Node):
            yield x
            todo.extend(reversed(list(x.__dict__.values())))
        elif isinstance(x, (list, tuple)):
            todo.extend(reversed(x))


_FIELD_PLANS: dict[type, list] = {}
_REQUIRED = object()


def _field_plan(cls: type) -> list:
    """Each field of a node class with a function that makes its default (once per class)."""
    import copy

    plan = []
    for name, field in cls.model_fields.items():
        if field.is_required():
            plan.append((name, _REQUIRED))
        elif field.default_factory is not None:
            plan.append((name, field.default_factory))
        elif isinstance(field.default, (str, int, float, bool, type(None), tuple, frozenset, Span)):
            plan.append((name, lambda value=field.default: value))
        else:  # a mutable default: every node gets its own copy, as pydantic does
            plan.append((name, lambda value=field.default: copy.deepcopy(value)))
    _FIELD_PLANS[cls] = plan
    return plan


# ------------------------------------------------------------------ expressions
class Expr(Node):
    pass


class IntLit(Expr):
    value: int


class StrLit(Expr):
    value: str


class BoolLit(Expr):
    value: bool


class NoneLit(Expr):
    pass


class Name(Expr):
    id: str


class KwArg(Node):
    name: str
    value: "AnyExpr"


class Call(Expr):
    func: str
    args: list["AnyExpr"] = Field(default_factory=list)
    kwargs: list[KwArg] = Field(default_factory=list)


class Attr(Expr):
    obj: "AnyExpr"
    name: str


class Index(Expr):
    obj: "AnyExpr"
    index: "AnyExpr"


class ListLit(Expr):
    items: list["AnyExpr"] = Field(default_factory=list)


class FilterList(Expr):
    """``[x in coll where cond]`` and ``count(x in coll where cond)``; with ``keep`` "while" or "until",
    ``[x in coll while cond]`` keeps the items from the start for as long as cond holds (or until it holds)."""

    var: str
    coll: "AnyExpr"
    cond: "AnyExpr"
    keep: Literal["where", "while", "until"] = "where"


class ForClause(Node):
    """A further ``for y in coll`` clause of a comprehension (nested inside the ones before it)."""

    var: str
    coll: "AnyExpr"


class MapList(Expr):
    """``[expr for x in coll where cond]`` and ``sum(expr for x in coll)``; ``more`` holds any further
    ``for`` clauses: ``[(x, y) for x in 0..2 for y in 0..2]``."""

    expr: "AnyExpr"
    var: str
    coll: "AnyExpr"
    more: list[ForClause] = Field(default_factory=list)
    cond: Optional["AnyExpr"] = None


class CondExpr(Expr):
    test: "AnyExpr"
    then: "AnyExpr"
    other: "AnyExpr"


class BinOp(Expr):
    op: str
    left: "AnyExpr"
    right: "AnyExpr"


class Compare(Expr):
    op: str
    left: "AnyExpr"
    right: "AnyExpr"


class Member(Expr):
    elem: "AnyExpr"
    coll: "AnyExpr"
    negated: bool = False


class BoolOp(Expr):
    op: Literal["and", "or"]
    items: list["AnyExpr"]


class Not(Expr):
    operand: "AnyExpr"


class Neg(Expr):
    operand: "AnyExpr"


class Range(Expr):
    low: "AnyExpr"
    high: "AnyExpr"


class MapEntry(Node):
    """`red: 2` in a map written out."""
    key: str
    value: "AnyExpr"


class MapLit(Expr):
    """`{red: 2, blue: 1}`: a whole number for each member of one enum (the members left out hold 0)."""
    entries: list[MapEntry] = Field(default_factory=list)


class CellLit(Expr):
    a: "AnyExpr"
    b: "AnyExpr"


AnyExpr = Union[
    IntLit, StrLit, BoolLit, NoneLit, Name, Call, Attr, Index, ListLit, FilterList, MapList,
    CondExpr, BinOp, Compare, Member, BoolOp, Not, Neg, Range, CellLit, MapLit,
]


# ------------------------------------------------------------------ statements
class Stmt(Node):
    doc: list[str] = Field(default_factory=list)


class Let(Stmt):
    name: str
    value: AnyExpr


class Assign(Stmt):
    target: AnyExpr
    op: Optional[str] = None  # None: a bare call used as a statement
    value: Optional[AnyExpr] = None
    until: Optional[Literal["round", "turn", "phase"]] = None  # `until end of round`: undone then


class If(Stmt):
    branches: list[tuple[AnyExpr, list["AnyStmt"]]]
    other: Optional[list["AnyStmt"]] = None


class For(Stmt):
    var: str
    coll: AnyExpr
    cond: Optional[AnyExpr] = None
    chosen_by: Optional[AnyExpr] = None
    body: list["AnyStmt"]


class While(Stmt):
    cond: AnyExpr
    body: list["AnyStmt"]


class RepeatTimes(Stmt):
    count: AnyExpr
    body: list["AnyStmt"]


class RepeatUntil(Stmt):
    cond: AnyExpr
    body: list["AnyStmt"]


class ChooseOpts(Node):
    by: Optional[AnyExpr] = None
    optional: bool = False
    prompt: Optional[str] = None


class Choose(Stmt):
    var: str
    coll: AnyExpr
    cond: Optional[AnyExpr] = None
    opts: ChooseOpts


class Binding(Node):
    var: str
    coll: AnyExpr
    cond: Optional[AnyExpr] = None


class Option(Node):
    doc: list[str] = Field(default_factory=list)
    name: str
    bindings: list[Binding] = Field(default_factory=list)
    cond: Optional[AnyExpr] = None
    body: list["AnyStmt"]


class ChooseBlock(Stmt):
    opts: ChooseOpts
    options: list[Option]


class Placement(Node):
    at: Optional[AnyExpr] = None
    end: Optional[Literal["top", "bottom"]] = None
    face: Optional[Literal["up", "down"]] = None
    place: Optional[AnyExpr] = None  # which place of the cell, on a board with places


class Move(Stmt):
    what: AnyExpr
    to: AnyExpr
    place: Placement


class Discard(Stmt):
    what: AnyExpr


class Draw(Stmt):
    count: Optional[AnyExpr] = None
    up_to: bool = False
    source: AnyExpr
    to: AnyExpr
    place: Placement


class Shuffle(Stmt):
    zone: AnyExpr


class Create(Stmt):
    cards: str
    zone: AnyExpr


class Reveal(Stmt):
    what: AnyExpr
    to: Optional[AnyExpr] = None


class Hide(Stmt):
    what: AnyExpr


class Flip(Stmt):
    what: AnyExpr
    face: Literal["up", "down"]


class Signal(Stmt):
    name: str
    args: list[AnyExpr] = Field(default_factory=list)


class Perform(Stmt):
    what: AnyExpr
    on: Optional[AnyExpr] = None


class Win(Stmt):
    who: AnyExpr


class End(Stmt):
    what: Literal["turn", "phase", "round", "game"]


class TakeTurns(Stmt):
    start: Optional[AnyExpr] = None
    direction: Optional[str] = None
    following: Optional[AnyExpr] = None  # a computed turn order: a list of players
    skipping: Optional[AnyExpr] = None
    until: Optional[AnyExpr] = None
    once: bool = False
    body: list["AnyStmt"]


class StepBlock(Stmt):
    name: str
    body: list["AnyStmt"]


class Log(Stmt):
    message: AnyExpr


class Fail(Stmt):
    message: AnyExpr


class Break(Stmt):
    pass


class Continue(Stmt):
    pass


class Return(Stmt):
    pass


class Eliminate(Stmt):
    """`eliminate p`: the player (or list of players) is out of the game; with `until end of round`
    (or turn, phase) only until then."""
    who: AnyExpr
    until: Optional[Literal["round", "turn", "phase"]] = None


class Respond(Stmt):
    """`respond [once] r in players { option ... }`: each listed player may answer with an option or pass."""
    var: str
    coll: AnyExpr
    once: bool = False
    prompt: Optional[str] = None
    options: list[Option]


class Offer(Stmt):
    """`offer to o [by p] { option ... } [refused { ... }]`: p picks an offer (or none), o accepts or refuses."""
    to: AnyExpr
    by: Optional[AnyExpr] = None
    prompt: Optional[str] = None
    options: list[Option]
    refused: Optional[list["AnyStmt"]] = None


AnyStmt = Union[
    Let, Assign, If, For, While, RepeatTimes, RepeatUntil, Choose, ChooseBlock, Move, Discard,
    Draw, Shuffle, Create, Reveal, Hide, Flip, Signal, Perform, Win, End, TakeTurns, StepBlock,
    Log, Fail, Break, Continue, Return, Eliminate, Respond, Offer,
]


# ------------------------------------------------------------------ declarations
class Decl(Node):
    doc: list[str] = Field(default_factory=list)
    replace: bool = False

    @property
    def key(self) -> tuple[str, str]:
        """(namespace, name): what a variant replaces or removes. A declaration that has no name is the
        only one of its kind (`game`, `player`, `setup`, `result`); a trigger or an `always` without
        one is known by its place."""
        kind = type(self).__name__
        if "name" not in type(self).model_fields:
            return (kind, kind.removesuffix("Decl").lower())
        return (kind, self.name or f"@{self.span.line}:{self.span.column}")


class GameDecl(Decl):
    title: str
    players_min: int = 2
    players_max: int = 4
    players_default: Optional[int] = None
    direction: str = "clockwise"
    round_phases: list[str] = Field(default_factory=list)
    round_spans: list[Span] = Field(default_factory=list)
    max_rounds: Optional[int] = None
    member_docs: dict[str, list[str]] = Field(default_factory=dict)


class EnumDecl(Decl):
    name: str
    members: list[str]
    member_docs: list[list[str]] = Field(default_factory=list)
    member_colours: list[Optional[str]] = Field(default_factory=list)  # for pictures of the board


# the types the language names itself (a TypeRef names one of these, a component or an enum)
BASE_TYPES = {"int", "bool", "str", "player", "cell", "keyword", "condition", "zone", "any", "card"}


class TypeRef(Node):
    name: str
    list_of: Optional["TypeRef"] = None
    per: Optional[str] = None  # `int per Gem`: one value (of type `name`) for each member of the enum `per`

    def __str__(self) -> str:
        if self.per is not None:
            return f"{self.name} per {self.per}"
        return f"list of {self.list_of}" if self.list_of else self.name


class FieldDecl(Node):
    doc: list[str] = Field(default_factory=list)
    name: str
    type: TypeRef
    default: Optional[AnyExpr] = None


class LabelCase(Node):
    """`label "Q of {suit}" if rank == 12`: a label used when its condition (on the card's fields) holds."""
    text: str
    when: AnyExpr


class ComponentDecl(Decl):
    name: str
    fields: list[FieldDecl] = Field(default_factory=list)
    label: Optional[str] = None  # the label without a condition
    labels_if: list[LabelCase] = Field(default_factory=list)  # tried first, in order
    back: Optional[str] = None  # what the back of such a card shows to everyone: `label back "level {level}"`
    discards_to: Optional[AnyExpr] = None
    # `covers 2` or `covers [(0, 0), (1, 0)]`: its cards lie on that many cells of a board (a piece)
    covers: Optional[AnyExpr] = None
    colour_by: Optional[str] = None  # `colour by gem`: the field pictures of the board colour these cards by
    colour_by_span: Optional[Span] = None


class PlayerDecl(Decl):
    fields: list[FieldDecl] = Field(default_factory=list)


class CardCtor(Node):
    component: str
    args: list[KwArg] = Field(default_factory=list)


class GenClause(Node):
    var: str
    coll: AnyExpr


class CardEntry(Node):
    doc: list[str] = Field(default_factory=list)
    ctor: CardCtor
    copies: int = 1
    gens: list[GenClause] = Field(default_factory=list)


class CardsDecl(Decl):
    name: str
    zone: Optional[AnyExpr] = None
    entries: list[CardEntry] = Field(default_factory=list)


class Topology(Node):
    kind: Literal["grid", "hex", "track", "graph"]
    neighbours: int = 8
    shape: Optional[Literal["rhombus", "rectangle"]] = None   # fixed hex boards of width by height
    width: Optional[int] = None
    height: Optional[int] = None
    radius: Optional[int] = None
    length: Optional[int] = None
    loop: bool = False
    nodes: list[str] = Field(default_factory=list)
    edges: list[tuple[str, str]] = Field(default_factory=list)
    # places: every cell is divided into the places named by an enum; capacities of the limited ones
    places: Optional[str] = None
    capacities: list[tuple[str, int]] = Field(default_factory=list)
    places_span: Optional[Span] = None


class ZoneDecl(Decl):
    name: str
    per_player: bool = False
    count: Optional[AnyExpr] = None  # `zone display[2 * player_count + 1]`: that many zones, display(1)...
    board: Optional[Topology] = None
    visibility: Literal["public", "hidden", "private"] = "public"
    # `zone bases: board on map`: a layer, a board with the cells of the board `map` and cards of its own
    layer_of: Optional[str] = None
    layer_span: Optional[Span] = None


class VarDecl(Decl):
    name: str
    type: TypeRef
    default: Optional[AnyExpr] = None


class SettingDecl(Decl):
    name: str
    default: AnyExpr
    choices: list[str] = Field(default_factory=list)


class SetSetting(Decl):
    name: str
    value: AnyExpr


class Param(Node):
    name: str
    type: Optional[TypeRef] = None


class DefDecl(Decl):
    name: str
    params: list[Param] = Field(default_factory=list)
    body: AnyExpr


class ProcDecl(Decl):
    name: str
    params: list[Param] = Field(default_factory=list)
    body: list[AnyStmt]


class TriggerDecl(Decl):
    kind: Literal["at", "enter", "leave", "signal"]
    when: Optional[Literal["start", "end"]] = None
    timing: Optional[str] = None  # game | round | phase | turn
    phase: Optional[str] = None  # at start of phase NAME
    var: Optional[str] = None  # when VAR enters ZONE
    zone: Optional[str] = None
    signal: Optional[str] = None
    params: list[str] = Field(default_factory=list)
    cond: Optional[AnyExpr] = None
    name: Optional[str] = None
    body: list[AnyStmt]

    def describe(self) -> str:
        if self.kind == "at":
            return f"at {self.when} of {self.timing}" + (f" {self.phase}" if self.phase else "")
        if self.kind in ("enter", "leave"):
            return f"when {self.var} {self.kind}s {self.zone}"
        return f"when {self.signal}({', '.join(self.params)})"


class AlwaysDecl(Decl):
    name: Optional[str] = None
    body: list[AnyStmt]


class KeywordDecl(Decl):
    name: str
    params: list[Param] = Field(default_factory=list)
    usable: Optional[AnyExpr] = None
    effect: Optional[list[AnyStmt]] = None
    triggers: list[TriggerDecl] = Field(default_factory=list)
    always: list[AlwaysDecl] = Field(default_factory=list)
    effect_span: Optional[Span] = None


class PhaseDecl(Decl):
    name: str
    unless: Optional[AnyExpr] = None
    body: list[AnyStmt]


class SetupDecl(Decl):
    body: list[AnyStmt]


class ResultDecl(Decl):
    body: list[AnyStmt]


class RemoveDecl(Decl):
    name: str


class VariantDecl(Decl):
    name: str
    extends: list[str] = Field(default_factory=list)
    items: list["AnyDecl"] = Field(default_factory=list)


# ------------------------------------------------------------------ scenarios
class PosCard(Node):
    ctor: Optional[CardCtor] = None
    name: Optional[str] = None  # a card picked by its `name` attribute
    copies: int = 1  # `Card(...) * 3`: three such cards


class ChanceItem(Node):
    """`next roll 6, 4`, `next random EXPR, ...`, `next shuffle ZONE: card, ...`: results of chance
    queued by a scenario for the rules' next rolls, random picks or shuffles."""
    what: Literal["roll", "random", "shuffle"]
    numbers: list[int] = Field(default_factory=list)
    values: list[AnyExpr] = Field(default_factory=list)
    zone: Optional[str] = None
    player: Optional[int] = None
    number: Optional[int] = None  # `display(2)`: one zone of a family
    cards: list[PosCard] = Field(default_factory=list)


class PosItem(Node):
    doc: list[str] = Field(default_factory=list)
    kind: Literal["round", "phase", "step", "set", "cards", "empty", "chance", "loop"]
    round: Optional[int] = None
    phase: Optional[str] = None  # (the step's name, for a `step NAME`)
    chance: Optional[ChanceItem] = None
    var: Optional[str] = None  # `for VAR in EXPR { ... }`: the loop's name, `value` its list, `items` its lines
    items: list["PosItem"] = Field(default_factory=list)
    target: Optional[AnyExpr] = None
    value: Optional[AnyExpr] = None
    zone: Optional[str] = None
    player: Optional[int] = None
    number: Optional[int] = None  # `display(2): ...`: one zone of a family
    at: Optional[AnyExpr] = None
    cards: list[PosCard] = Field(default_factory=list)


class ScenarioItem(Node):
    doc: list[str] = Field(default_factory=list)
    kind: Literal["game", "variant", "setting", "players", "seed", "position", "position_file", "run",
                  "choose", "expect", "expect_error", "chance", "stop_every", "repeat"]
    text: Optional[str] = None
    names: list[str] = Field(default_factory=list)
    number: Optional[int] = None
    position: list[PosItem] = Field(default_factory=list)
    unit: Optional[str] = None
    target: Optional[str] = None
    expr: Optional[AnyExpr] = None
    every_choice: bool = False  # `run UNIT stop at every choice`
    chance: Optional[ChanceItem] = None
    items: list["ScenarioItem"] = Field(default_factory=list)  # `repeat N { ... }`


class TableDecl(Decl):
    """`table NAME from "file.csv"`: the rows of a data file, read when the game is loaded."""
    name: str
    source: AnyExpr


class ScenarioDecl(Decl):
    name: str
    items: list[ScenarioItem] = Field(default_factory=list)


AnyDecl = Union[
    GameDecl, EnumDecl, ComponentDecl, PlayerDecl, CardsDecl, ZoneDecl, VarDecl, SettingDecl,
    SetSetting, DefDecl, ProcDecl, KeywordDecl, PhaseDecl, SetupDecl, ResultDecl, TriggerDecl,
    AlwaysDecl, VariantDecl, RemoveDecl, ScenarioDecl, TableDecl,
]


class RulesFile(Node):
    path: str
    decls: list[AnyDecl] = Field(default_factory=list)
    header_doc: list[str] = Field(default_factory=list)

    def variants(self) -> dict[str, VariantDecl]:
        return {d.name: d for d in self.decls if isinstance(d, VariantDecl)}

    def every_declaration(self):
        """The file's declarations and, after each variant, the declarations inside it."""
        todo = list(reversed(self.decls))
        while todo:
            d = todo.pop()
            yield d
            if isinstance(d, VariantDecl):
                todo.extend(reversed(d.items))

    def game(self) -> Optional[GameDecl]:
        return next((d for d in self.decls if isinstance(d, GameDecl)), None)

