"""Lark's parse tree -> the AST: statements and expressions (`StatementsToAst`).

The methods of the parser's transformer for the grammar's statement and expression rules, as
ast_declarations.py has those of the declarations (whose helpers, `_span` and `_tok_span`, these
use); parser.py puts both together (`_ToAst`).
"""
from __future__ import annotations

from lark import v_args

from rulelang.language import nodes as N
from rulelang.language.ast_declarations import _docs
from rulelang.language.lark_parser import _SyntaxProblem, _refuse_size, _unquote


class StatementsToAst:
    """The statements' and expressions' methods of the parser's transformer (mixed into DeclarationsToAst)."""

    # ---- statements
    def block(self, c):
        return [s for s in c if s is not None]

    def stmt(self, c):
        doc, s = c[0], c[1]
        s.doc = _docs(doc)
        return s

    @v_args(meta=True)
    def let_stmt(self, meta, c):
        return N.Let(span=self._span(meta), name=str(c[0]), value=c[1])

    @v_args(meta=True)
    def assign_stmt(self, meta, c):
        target, op, value, until = c[-4], c[-3], c[-2], c[-1]
        return N.Assign(span=self._span(meta), target=target, op=str(op) if op is not None else None, value=value,
                        until=until)

    def duration(self, c):
        return c[0]

    def until_timing(self, c):
        return str(c[0])

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        other = None
        for x in c[2:]:
            if isinstance(x, tuple) and x[0] == "elif":
                branches.append((x[1], x[2]))
            elif isinstance(x, tuple) and x[0] == "else":
                other = x[1]
        return N.If(span=self._span(meta), branches=branches, other=other)

    def elif_clause(self, c):
        return ("elif", c[0], c[1])

    def else_clause(self, c):
        return ("else", c[0])

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        var, coll, cond, chosen, body = c
        return N.For(span=self._span(meta), var=str(var), coll=coll, cond=cond, chosen_by=chosen, body=body)

    def chosen_by(self, c):
        return c[0]

    @v_args(meta=True)
    def while_stmt(self, meta, c):
        return N.While(span=self._span(meta), cond=c[0], body=c[1])

    @v_args(meta=True)
    def repeat_times_stmt(self, meta, c):
        return N.RepeatTimes(span=self._span(meta), count=c[0], body=c[1])

    @v_args(meta=True)
    def repeat_until_stmt(self, meta, c):
        return N.RepeatUntil(span=self._span(meta), cond=c[0], body=c[1])

    @v_args(meta=True)
    def choose_stmt(self, meta, c):
        var, coll, cond, opts = c
        return N.Choose(span=self._span(meta), var=str(var), coll=coll, cond=cond, opts=opts)

    @v_args(meta=True)
    def choose_opts(self, meta, c):
        by, optional, prompt = c
        return N.ChooseOpts(span=self._span(meta), by=by, optional=optional is not None,
                            prompt=_unquote(prompt) if prompt is not None else None)

    @v_args(meta=True)
    def choose_block(self, meta, c):
        span = self._span(meta)
        if c[0].span.line == 0:  # `choose { ... }` with no options written: they sit where the choose does
            c[0].span = span
        return N.ChooseBlock(span=span, opts=c[0], options=list(c[1:]))

    @v_args(meta=True)
    def option(self, meta, c):
        doc, name = c[0], c[1]
        rest = c[2:]
        body = rest[-1]
        cond = rest[-2]
        bindings = [b for b in rest[:-2] if b is not None]
        return N.Option(span=self._span(meta), doc=_docs(doc), name=str(name), bindings=bindings, cond=cond, body=body)

    @v_args(meta=True)
    def binding(self, meta, c):
        return N.Binding(span=self._span(meta), var=str(c[0]), coll=c[1], cond=c[2])

    def _placement(self, opts, span: N.Span | None = None) -> N.Placement:
        place = N.Placement(span=span) if span is not None else N.Placement()
        for kind, value in opts:
            setattr(place, kind, value)
        return place

    @v_args(meta=True)
    def move_stmt(self, meta, c):
        return N.Move(span=self._span(meta), what=c[0], to=c[1], place=self._placement(c[2:], self._span(meta)))

    def at_place(self, c):
        return ("at", c[0])

    def end_place(self, c):
        return ("end", str(c[0]))

    def face_place(self, c):
        return ("face", str(c[0]))

    def slot_place(self, c):
        return ("place", c[0])

    @v_args(meta=True)
    def discard_stmt(self, meta, c):
        return N.Discard(span=self._span(meta), what=c[0])

    @v_args(meta=True)
    def draw_stmt(self, meta, c):
        return N.Draw(span=self._span(meta), count=c[0], source=c[1], to=c[2], place=self._placement(c[3:], self._span(meta)))

    @v_args(meta=True)
    def draw_up_stmt(self, meta, c):
        return N.Draw(span=self._span(meta), count=c[0], up_to=True, source=c[1], to=c[2], place=self._placement(c[3:], self._span(meta)))

    @v_args(meta=True)
    def shuffle_stmt(self, meta, c):
        return N.Shuffle(span=self._span(meta), zone=c[0])

    @v_args(meta=True)
    def create_stmt(self, meta, c):
        return N.Create(span=self._span(meta), cards=str(c[0]), zone=c[1])

    @v_args(meta=True)
    def reveal_stmt(self, meta, c):
        return N.Reveal(span=self._span(meta), what=c[0], to=c[1])

    @v_args(meta=True)
    def hide_stmt(self, meta, c):
        return N.Hide(span=self._span(meta), what=c[0])

    @v_args(meta=True)
    def flip_stmt(self, meta, c):
        return N.Flip(span=self._span(meta), what=c[0], face=str(c[1]))

    @v_args(meta=True)
    def signal_stmt(self, meta, c):
        return N.Signal(span=self._span(meta), name=str(c[0]), args=[a for a in c[1:] if a is not None])

    @v_args(meta=True)
    def perform_stmt(self, meta, c):
        return N.Perform(span=self._span(meta), what=c[0], on=c[1])

    @v_args(meta=True)
    def win_stmt(self, meta, c):
        return N.Win(span=self._span(meta), who=c[0])

    @v_args(meta=True)
    def end_stmt(self, meta, c):
        return N.End(span=self._span(meta), what=str(c[0]))

    @v_args(meta=True)
    def turns_stmt(self, meta, c):
        stmt = N.TakeTurns(span=self._span(meta), body=c[-1])
        for kind, value in c[:-1]:
            setattr(stmt, kind, value)
        return stmt

    def turns_from(self, c):
        return ("start", c[0])

    def turns_direction(self, c):
        return ("direction", str(c[0]))

    def turns_skipping(self, c):
        return ("skipping", c[0])

    def turns_until(self, c):
        return ("until", c[0])

    def turns_once(self, c):
        return ("once", True)

    def turns_following(self, c):
        return ("following", c[0])

    @v_args(meta=True)
    def step_stmt(self, meta, c):
        return N.StepBlock(span=self._span(meta), name=str(c[0]), body=c[1])

    @v_args(meta=True)
    def log_stmt(self, meta, c):
        return N.Log(span=self._span(meta), message=c[0])

    @v_args(meta=True)
    def fail_stmt(self, meta, c):
        return N.Fail(span=self._span(meta), message=c[0])

    @v_args(meta=True)
    def break_stmt(self, meta, c):
        return N.Break(span=self._span(meta))

    @v_args(meta=True)
    def continue_stmt(self, meta, c):
        return N.Continue(span=self._span(meta))

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return N.Return(span=self._span(meta))

    @v_args(meta=True)
    def eliminate_stmt(self, meta, c):
        return N.Eliminate(span=self._span(meta), who=c[0], until=c[1])

    @v_args(meta=True)
    def respond_stmt(self, meta, c):
        once, var, coll, prompt = c[0], c[1], c[2], c[3]
        return N.Respond(span=self._span(meta), var=str(var), coll=coll, once=once is not None,
                         prompt=_unquote(prompt) if prompt is not None else None, options=list(c[4:]))

    def respond_once(self, c):
        return True

    @v_args(meta=True)
    def offer_stmt(self, meta, c):
        to, by, prompt = c[0], c[1], c[2]
        rest = list(c[3:])
        refused = None
        if rest and isinstance(rest[-1], tuple) and rest[-1][0] == "refused":
            refused = rest.pop()[1]
        elif rest and rest[-1] is None:
            rest.pop()
        return N.Offer(span=self._span(meta), to=to, by=by, prompt=_unquote(prompt) if prompt is not None else None,
                       options=rest, refused=refused)

    def refused_clause(self, c):
        return ("refused", c[0])

    @v_args(meta=True)
    def table_decl(self, meta, c):
        return N.TableDecl(span=self._span(meta), name=str(c[0]), source=c[1])

    # ---- expressions
    @v_args(meta=True)
    def cond_expr(self, meta, c):
        return N.CondExpr(span=self._span(meta), test=c[0], then=c[1], other=c[2])

    @v_args(meta=True)
    def or_expr(self, meta, c):
        return N.BoolOp(span=self._span(meta), op="or", items=list(c))

    @v_args(meta=True)
    def and_expr(self, meta, c):
        return N.BoolOp(span=self._span(meta), op="and", items=list(c))

    @v_args(meta=True)
    def not_expr(self, meta, c):
        return N.Not(span=self._span(meta), operand=c[0])

    @v_args(meta=True)
    def compare(self, meta, c):
        op = {"≥": ">=", "≤": "<=", "≠": "!="}.get(str(c[1]), str(c[1]))
        return N.Compare(span=self._span(meta), op=op, left=c[0], right=c[2])

    @v_args(meta=True)
    def member(self, meta, c):
        return N.Member(span=self._span(meta), elem=c[0], coll=c[1])

    @v_args(meta=True)
    def not_member(self, meta, c):
        return N.Member(span=self._span(meta), elem=c[0], coll=c[1], negated=True)

    @v_args(meta=True)
    def range(self, meta, c):
        return N.Range(span=self._span(meta), low=c[0], high=c[1])

    @v_args(meta=True)
    def binop(self, meta, c):
        return N.BinOp(span=self._span(meta), op=str(c[1]), left=c[0], right=c[2])

    @v_args(meta=True)
    def neg(self, meta, c):
        return N.Neg(span=self._span(meta), operand=c[0])

    @v_args(meta=True)
    def attr(self, meta, c):
        return N.Attr(span=self._span(meta), obj=c[0], name=str(c[1]))

    @v_args(meta=True)
    def index(self, meta, c):
        return N.Index(span=self._span(meta), obj=c[0], index=c[1])

    @v_args(meta=True)
    def int_lit(self, meta, c):
        return N.IntLit(span=self._span(meta), value=int(c[0]))

    @v_args(meta=True)
    def str_lit(self, meta, c):
        return N.StrLit(span=self._span(meta), value=_unquote(c[0]))

    @v_args(meta=True)
    def true_lit(self, meta, c):
        return N.BoolLit(span=self._span(meta), value=True)

    @v_args(meta=True)
    def false_lit(self, meta, c):
        return N.BoolLit(span=self._span(meta), value=False)

    @v_args(meta=True)
    def none_lit(self, meta, c):
        return N.NoneLit(span=self._span(meta))

    @v_args(meta=True)
    def name(self, meta, c):
        return N.Name(span=self._span(meta), id=str(c[0]))

    def player_word(self, c):
        return c[0]  # the keyword's token, read as the name of the call `player(...)`

    @v_args(meta=True)
    def call(self, meta, c):
        call = N.Call(span=self._span(meta), func=str(c[0]))
        for a in c[1:]:
            if a is None:
                continue
            if isinstance(a, N.KwArg):
                call.kwargs.append(a)
            else:
                call.args.append(a)
        return call

    @v_args(meta=True)
    def kw_arg(self, meta, c):
        return N.KwArg(span=self._span(meta), name=str(c[0]), value=c[1])

    @v_args(meta=True)
    def list_lit(self, meta, c):
        items = [x for x in c if x is not None]
        if len(items) > 64:
            _refuse_size(self._span(meta), "this list written out has {:,} items", len(items))
        return N.ListLit(span=self._span(meta), items=items)

    def _filter(self, meta, left, cond, keep="where"):
        if not (isinstance(left, N.Member) and not left.negated and isinstance(left.elem, N.Name)):
            raise _SyntaxProblem(self._span(meta), f'before "{keep}" write "NAME in COLLECTION", as in [c in hand {keep} c.point > 3]')
        return N.FilterList(span=self._span(meta), var=left.elem.id, coll=left.coll, cond=cond, keep=keep)

    @v_args(meta=True)
    def filter_list(self, meta, c):
        return self._filter(meta, c[0], c[1])

    @v_args(meta=True)
    def filter_arg(self, meta, c):
        return self._filter(meta, c[0], c[1])

    @v_args(meta=True)
    def map_list(self, meta, c):
        return N.MapList(span=self._span(meta), expr=c[0], var=str(c[1]), coll=c[2], more=list(c[3:-1]), cond=c[-1])

    @v_args(meta=True)
    def map_arg(self, meta, c):
        return N.MapList(span=self._span(meta), expr=c[0], var=str(c[1]), coll=c[2], more=list(c[3:-1]), cond=c[-1])

    @v_args(meta=True)
    def more_for(self, meta, c):
        return N.ForClause(span=self._span(meta), var=str(c[0]), coll=c[1])

    @v_args(meta=True)
    def while_list(self, meta, c):
        return self._filter(meta, c[0], c[1], "while")

    @v_args(meta=True)
    def until_list(self, meta, c):
        return self._filter(meta, c[0], c[1], "until")

    @v_args(meta=True)
    def cell_lit(self, meta, c):
        return N.CellLit(span=self._span(meta), a=c[0], b=c[1])

    @v_args(meta=True)
    def map_lit(self, meta, c):
        return N.MapLit(span=self._span(meta), entries=[e for e in c if e is not None])

    @v_args(meta=True)
    def map_entry(self, meta, c):
        return N.MapEntry(span=self._span(meta), key=str(c[0]), value=c[1])
