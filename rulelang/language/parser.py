"""Parsing: .rules text -> pydantic AST (``nodes``), with plain-words syntax errors.

Syntax errors never show Lark's token reprs: ``syntax_errors.py`` says each in words (imported
only when a text does not parse). To report every syntax error in a file at once, a file that
fails to parse is split into its top-level declarations, and each one is parsed on its own.
"""
from __future__ import annotations

import gc
import hashlib
import io
import pickle
import re
import sys
from functools import lru_cache
from itertools import chain
from pathlib import Path
from types import ModuleType

# Lark imports the `regex` package whenever it is installed, only to measure terminals written with
# Unicode categories (`\p{...}`), which our grammar has none of: kept out while Lark is imported
# (about 11 ms of every parse), and importable as before afterwards
_regex_absent = "regex" not in sys.modules
if _regex_absent:
    sys.modules["regex"] = None  # type: ignore[assignment]
try:
    from lark import Lark, Token, Transformer, Tree, v_args
finally:
    if _regex_absent:
        del sys.modules["regex"]
from lark.exceptions import GrammarError, UnexpectedInput, VisitError
from lark.visitors import Discard as _LARK_DISCARD
from lark.parsers.lalr_analysis import Reduce, Shift
from lark.parsers.lalr_parser_state import ParseConf, ParserState

from rulelang.language import nodes as N
from rulelang.core.budgets import NUMBER_BOUND, current_budgets, exceeded, resident_mb
from rulelang.core.cachefiles import collector_paused, parse_cache_dir, write_whole
from rulelang.core.errors import Diagnostic, RulesError, Span, remember_source
from rulelang.language.chunks import header_doc, split_top_level
from rulelang.language.fastcards import restore_card_blocks, split_card_blocks
from rulelang.core.resources import grammar_path, tables_path

# ------------------------------------------------------------------ the parser


_BUILD_OPTIONS = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": True}


def _load_options() -> dict:
    """The options given again when the parser is loaded from saved tables."""
    # NAME last: Lark chains a callback to a terminal that keywords share (NAME) with a test written as
    # `lambda t: t.type == type_` inside its loop over the callbacks, so it sees the last name of the
    # loop; INT, which no keyword shares, gets its callback as it is
    return {"propagate_positions": True, "lexer_callbacks": {"INT": _refuse_huge_numbers, "STRING": _refuse_long_texts,
                                                             "NAME": _refuse_python_names}}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The parser: as shipped (grammar/rulelang.lalr), else as the parse cache keeps it, else built
    from the grammar (then kept)."""
    grammar = grammar_path().read_text(encoding="utf-8")
    header = _tables_header(grammar)
    lark = _shipped_parser(header)
    if lark is None:  # the grammar changed since write_tables(), or another Lark or Python
        kept = _kept_parser_path(header)
        lark = _pickled_parser(kept) if kept is not None else None
        if lark is None:
            lark = Lark(grammar, **_BUILD_OPTIONS, **_load_options(),
                        cache=True)  # the LALR tables are kept in a temporary file between runs
            if kept is not None:
                _keep_parser(kept, lark)
    _quicker_reductions(lark)
    return lark


# The parser ships pickled whole (grammar/rulelang.lalr, written by write_tables()): building its
# LALR tables from the grammar takes about half a second, loading Lark's own saved form of them about
# 60 ms (Lark rebuilds its rules, parse table and lexers from their description), unpickling the
# parser about 15 ms. It is pickled before it has parsed anything (its lexers' regular expressions
# are compiled on first use, in each process, with Python's `re`), and before _quicker_reductions, applied
# at each load, so that it holds nothing of this module but the lexer callbacks it names. Lark's
# two parser actions are compared by identity (`action is Shift`) and its lexers hold the `re`
# module: those are pickled by name and given back as they are. A grammar changed since the file
# was written, or another Lark or Python, builds the parser from the grammar instead, and keeps it
# in the parse cache.


def _tables_header(grammar: str) -> bytes:
    """What the pickled parser depends on: the grammar, Lark, Python, how the parser is built and
    loaded, and the format of the file."""
    import lark

    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()
    callbacks = sorted((kind, f"{f.__module__}.{f.__qualname__}") for kind, f in _load_options()["lexer_callbacks"].items())
    how = hashlib.sha256(repr((sorted(_BUILD_OPTIONS.items()), callbacks)).encode()).hexdigest()[:16]
    return (f"rulelang-lalr-2 {digest} lark-{lark.__version__} python-{sys.version_info[0]}.{sys.version_info[1]} "
            f"options-{how}").encode()


def _kept_parser_path(header: bytes) -> Path | None:
    folder = parse_cache_dir()
    if folder is None:
        return None
    return folder / f"parser-{hashlib.sha256(header).hexdigest()[:40]}.pickle"


class _ParserPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if obj is Shift:
            return "Shift"
        if obj is Reduce:
            return "Reduce"
        if isinstance(obj, ModuleType):
            return ("module", obj.__name__)
        return None


class _ParserUnpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        if pid == "Shift":
            return Shift
        if pid == "Reduce":
            return Reduce
        if isinstance(pid, tuple) and pid[0] == "module" and pid[1] in sys.modules:
            return sys.modules[pid[1]]
        raise pickle.UnpicklingError(f"not a rulelang parser: {pid!r}")


def _pickled_parser(path: Path, header: bytes | None = None) -> Lark | None:
    """The parser pickled in a file (after a first line that must be `header`, when given)."""
    try:
        with open(path, "rb") as f, collector_paused():
            if header is not None and f.readline().rstrip(b"\n") != header:
                return None
            lark = _ParserUnpickler(f).load()
        return lark if isinstance(lark, Lark) else None
    except Exception:  # none yet, damaged, or from another version: built again
        return None


def _shipped_parser(header: bytes) -> Lark | None:
    return _pickled_parser(tables_path(), header)


def _parser_bytes(lark: Lark) -> bytes | None:
    # without the grammar's description, which a parser loaded from Lark's own saved form has not
    # either and nothing reads after the build (a sixth of the pickle, half of its loading time)
    vars(lark).pop("grammar", None)
    buffer = io.BytesIO()
    try:
        _ParserPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(lark)
    except Exception:  # a parser that does not pickle (another Lark, made otherwise): not kept
        return None
    return buffer.getvalue()


def _keep_parser(path: Path, lark: Lark) -> None:
    data = _parser_bytes(lark)
    if data is not None:
        write_whole(path, data)  # a read-only home, a full disk: not kept


def write_tables() -> Path:
    """Write grammar/rulelang.lalr, the parser pickled, for this grammar, Lark and Python (after a
    grammar change: `python3 -c "from rulelang.language.parser import write_tables; write_tables()"`)."""
    grammar = grammar_path().read_text(encoding="utf-8")
    data = _parser_bytes(Lark(grammar, **_BUILD_OPTIONS, **_load_options()))
    if data is None:
        raise RuntimeError("this Lark's parser does not pickle")
    path = tables_path()
    if not write_whole(path, _tables_header(grammar) + b"\n" + data):
        raise OSError(f"{path} could not be written")
    return path


def _quicker_reductions(lark: Lark) -> None:
    """A `?rule: other` alternative (one rule, kept, nothing else) gives back its child as it is.
    Lark does that too, through three wrappers, and also copies the child's own extent into the
    child's "container" positions, which then read the same as its own: the result, spans included,
    is unchanged (tests/test_parser.py compares with plain Lark on every file). An expression climbs
    a dozen such rules of the precedence ladder: this is about half the time of a whole parse.
    The other rules' position wrappers are _Positions."""
    from lark.grammar import NonTerminal

    try:
        callbacks = lark.parser.parser.parser.callbacks
        builders = lark._parse_tree_builder.rule_builders
    except AttributeError:  # another version of Lark, made otherwise inside: parse as it does
        return
    from lark.parse_tree_builder import PropagatePositions

    for rule, _ in builders:
        if rule.options.expand1 and not rule.alias and len(rule.expansion) == 1:
            only = rule.expansion[0]
            if isinstance(only, NonTerminal) and not only.name.startswith("_"):
                callbacks[rule] = _first_child
                continue
        callback = callbacks.get(rule)
        if type(callback) is PropagatePositions and callback.node_filter is None:
            callbacks[rule] = _Positions(callback.node_builder)


def _first_child(children: list):
    return children[0]


class _Positions:
    """Lark's PropagatePositions (a new tree starts where its first child's container starts, ends
    where its last child's container ends), giving the same positions in fewer steps: a token's
    positions are read directly (Lark asks it for container positions a token never has, which
    costs Python an exception each time)."""

    __slots__ = ("node_builder",)

    def __init__(self, node_builder):
        self.node_builder = node_builder

    def __call__(self, children):
        # (the two ends written out, as Lark writes them: one helper for both, naming the
        # attributes it sets, makes the whole parse loop about a quarter slower)
        tree = self.node_builder(children)
        if not isinstance(tree, Tree):
            return tree
        meta = tree.meta
        first = _outer_meta(children)
        if first is not None:
            if isinstance(first, Token):
                line, column, pos = first.line, first.column, first.start_pos
            else:
                line = getattr(first, "container_line", first.line)
                column = getattr(first, "container_column", first.column)
                pos = getattr(first, "container_start_pos", first.start_pos)
            if not hasattr(meta, "line"):  # (set already when the rule was inlined, as `?rule`)
                meta.line, meta.column, meta.start_pos, meta.empty = line, column, pos, False
            meta.container_line, meta.container_column, meta.container_start_pos = line, column, pos
        last = _outer_meta(reversed(children))
        if last is not None:
            if isinstance(last, Token):
                line, column, pos = last.end_line, last.end_column, last.end_pos
            else:
                line = getattr(last, "container_end_line", last.end_line)
                column = getattr(last, "container_end_column", last.end_column)
                pos = getattr(last, "container_end_pos", last.end_pos)
            if not hasattr(meta, "end_line"):
                meta.end_line, meta.end_column, meta.end_pos, meta.empty = line, column, pos, False
            meta.container_end_line, meta.container_end_column, meta.container_end_pos = line, column, pos
        return tree


def _outer_meta(children):
    """The positions of the first child that has any, as Lark's PropagatePositions finds them."""
    for child in children:
        if isinstance(child, Tree):
            meta = child.meta
            if not meta.empty:
                return meta
        elif isinstance(child, Token):
            return child
        elif hasattr(child, "__lark_meta__"):
            return child.__lark_meta__()
    return None


def _refuse_huge_numbers(tok: Token) -> Token:
    """A number written beyond the bound of every number of a game (read as text first: Python refuses
    to read a number of more than 4,300 digits)."""
    if len(tok) > 19 or int(tok) > NUMBER_BOUND:
        raise _SyntaxProblem(Span(line=tok.line, column=tok.column, end_line=tok.line, end_column=tok.column + len(tok)),
                             f"this number is beyond ±{NUMBER_BOUND:,}: the numbers of a game stay smaller")
    return tok


def _refuse_long_texts(tok: Token) -> Token:
    """A text written longer than the list_size budget allows any text of a game (refused where it is
    read, before the rest of the file is parsed)."""
    if len(tok) - 2 > current_budgets().list_size:
        _refuse_size(Span(line=tok.line, column=tok.column, end_line=tok.line, end_column=tok.column + 1),
                     "this text is {:,} characters long", len(_unquote(tok)))  # (an escape is one character)
    return tok


def _refuse_size(span: Span, words: str, n: int, counted: bool = True) -> None:
    """A value written out in the file (a text, a list) of n items (or more, not `counted`): over the
    list_size budget, a diagnostic (`words` say what it is, with n in their {})."""
    limit = current_budgets().list_size
    if n > limit:
        over = exceeded(span, "list_size", words.format(n if counted else limit) + ", more than a value of a game "
                        "may hold", limit)
        raise _OverBudget(span, over.message, over.hint if not counted else
                          f"if the rules are right, raise it: --budget list_size={n} on the command line, or "
                          f"budgets={{'list_size': {n}}} in Python")


def _refuse_python_names(tok: Token) -> Token:
    """Names with two leading underscores are Python's (`__class__`, `__import__`): never the rules'."""
    if tok.startswith("__"):
        raise _SyntaxProblem(Span(line=tok.line, column=tok.column),
                             f'"{tok}": names starting with two underscores are reserved (a rules file cannot '
                             "reach the interpreter's own names)")
    return tok


# ------------------------------------------------------------------ tree -> AST


def _docs(tree) -> list[str]:
    if tree is None:
        return []
    out = []
    for tok in tree.children:
        text = str(tok)[3:]
        out.append(text[1:] if text.startswith(" ") else text)
    return out


class _ToAst(Transformer):
    def __init__(self, file: str, line_offset: int, watch: "_MemoryWatch | None" = None):
        super().__init__(visit_tokens=False)
        self.file = file
        self.offset = line_offset
        self.watch, self.made = watch, 0

    def transform(self, tree):
        # Lark's walk (each node's children, then the node: the same calls in the same order, a
        # method that gives Lark's Discard drops its node), without a generator for every node
        result = self._walk(tree)
        return None if result is _LARK_DISCARD else result

    def _walk(self, tree):
        children = []
        for child in tree.children:
            if isinstance(child, Tree):
                child = self._walk(child)
                if child is _LARK_DISCARD:
                    continue
            children.append(child)
        return self._call_userfunc(tree, children)

    def _call_userfunc(self, tree, new_children=None):
        # Lark's own looks the method up with getattr, which makes a new v_args wrapper (and copies
        # the function's name and docs into it) for every node; here the plain function is called
        # from a table made once (_ToAst.CALLS, after the class). Same calls, same errors.
        found = _ToAst.CALLS.get(tree.data)
        self.made += 1
        if not self.made % WATCH_EVERY and self.watch is not None and not getattr(tree.meta, "empty", True):
            self.watch.check(tree.meta.line, tree.meta.column)
        if found is None:
            return super()._call_userfunc(tree, new_children)
        function, with_meta = found
        children = new_children if new_children is not None else tree.children
        try:
            return function(self, tree.meta, children) if with_meta else function(self, children)
        except GrammarError:
            raise
        except Exception as e:
            raise VisitError(tree.data, tree, e)

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
            elif isinstance(spec, tuple) and spec[0] == "label":
                decl.label = spec[1]
            elif isinstance(spec, tuple) and spec[0] == "discards":
                decl.discards_to = spec[1]

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
        return ("label", _unquote(c[0]), self._span(meta))

    @v_args(meta=True)
    def discards_spec(self, meta, c):
        return ("discards", c[0], self._span(meta))

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
        name, per_player, kind, visibility = c
        decl = N.ZoneDecl(span=self._span(meta), name=str(name), per_player=per_player is not None)
        if isinstance(kind, N.Topology):
            decl.board = kind
        if visibility is not None:
            decl.visibility = str(visibility)
        return decl

    def per_player(self, c):
        return True

    def stack_kind(self, c):
        return "stack"

    def board_kind(self, c):
        topo = c[0]
        if len(c) > 1 and c[1] is not None:
            topo.places, topo.capacities, topo.places_span = c[1]
        return topo

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
        (zone, player), cards = c[0], [x for x in c[1:] if x is not None]
        return N.ChanceItem(span=self._span(meta), what="shuffle", zone=zone, player=player, cards=cards)

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

    def pos_item(self, c):
        doc, item = c[0], c[1]
        item.doc = _docs(doc)
        return item

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
        (zone, player), at, cards = c[0], c[1], [x for x in c[2:] if x is not None]
        return N.PosItem(span=self._span(meta), kind="cards", zone=zone, player=player, at=at, cards=cards)

    @v_args(meta=True)
    def pos_empty(self, meta, c):
        (zone, player), at = c[0], c[1]
        return N.PosItem(span=self._span(meta), kind="empty", zone=zone, player=player, at=at)

    def pos_zone(self, c):
        return (str(c[0]), int(c[1]) if c[1] is not None else None)

    @v_args(meta=True)
    def pos_card(self, meta, c):
        x = c[0]
        copies = int(c[1]) if len(c) > 1 and c[1] is not None else 1
        if isinstance(x, N.CardCtor):
            return N.PosCard(span=self._span(meta), ctor=x, copies=copies)
        return N.PosCard(span=self._span(meta), name=_unquote(x), copies=copies)

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

    def _placement(self, opts, span: Span | None = None) -> N.Placement:
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
        return N.Eliminate(span=self._span(meta), who=c[0])

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


def _userfunc_table(cls) -> dict:
    """Each rule's method of a transformer: (plain function, whether it takes the node's meta)."""
    from lark.visitors import _vargs_meta

    table = {}
    for klass in reversed(cls.__mro__):
        if klass is object or not issubclass(klass, Transformer) or klass.__module__.startswith("lark"):
            continue
        for name, attr in vars(klass).items():
            if name.startswith("_") or not (callable(attr) or hasattr(attr, "base_func")):  # _rules are inlined
                continue
            wrapper = getattr(attr, "visit_wrapper", None)
            if wrapper is None:
                table[name] = (attr, False)
            elif wrapper is _vargs_meta:
                table[name] = (attr.base_func, True)
            else:
                table.pop(name, None)  # another kind of v_args: Lark's own call
    return table


_ToAst.CALLS = _userfunc_table(_ToAst)


class _SyntaxProblem(Exception):
    def __init__(self, span: Span, message: str, hint: str | None = None):
        self.span = span
        self.message = message
        self.hint = hint


class _OverBudget(_SyntaxProblem):
    """A value written out beyond a budget: said at once, without Lark's own parse of the text (which
    would build it again, at length, where the quick parse stopped). `whole`: said for the whole file,
    which is not then parsed again declaration by declaration to find its other errors (memory)."""

    def __init__(self, span: Span, message: str, hint: str | None = None, whole: bool = False):
        super().__init__(span, message, hint)
        self.whole = whole


class _MemoryWatch:
    """The memory a parse takes, against the memory_mb budget: looked at every WATCH_EVERY tokens read,
    tokens parsed and nodes made (a text of millions of tokens takes a kilobyte or so for each)."""

    __slots__ = ("base", "limit")

    def __init__(self):
        self.base = resident_mb()
        self.limit = current_budgets().memory_mb

    def check(self, line: int, column: int) -> None:
        grown = resident_mb() - self.base
        if grown > self.limit:
            span = Span(line=line, column=column, end_line=line, end_column=column + 1)
            over = exceeded(span, "memory_mb", f"reading the rules up to here took {grown:,.0f} MiB of memory",
                            self.limit)
            raise _OverBudget(span, over.message, over.hint, whole=True)


WATCH_EVERY = 1 << 14  # (a power of two)


def _in_file(span: Span, file: str, offset: int) -> Span:
    """A span made outside the transformer (a text's escapes) knows neither its file nor its chunk."""
    if span.file != "<rules>":
        return span
    return span.model_copy(update={"file": file, "line": span.line + offset, "end_line": span.line + offset,
                                   "end_column": span.column + 1})


def _unquote(tok) -> str:
    s = str(tok)
    if "\\" not in s:
        return s[1:-1]
    try:
        return bytes(s[1:-1], "utf-8").decode("unicode_escape")
    except UnicodeDecodeError as exc:
        span = Span(line=getattr(tok, "line", 0) or 0, column=getattr(tok, "column", 0) or 0)
        raise _SyntaxProblem(span, f"this text has a backslash that is not a known escape ({exc.reason})") from None


# ------------------------------------------------------------------ entry points


# How deep the grammar's rules may nest in one declaration (an `if` in an `if` is three levels, an
# operand of `+` or of `not` one more). The seed games nest about 25 deep; the later stages (the
# tree's transformation, the checker, the compilers, the AST cache) recurse once or a few times per
# level, and all of them work at this depth. Past it, a file gets a diagnostic, not a crash.
MAX_NESTING = 200


def _too_deep(tree: Tree) -> Tree | None:
    """The first node found below MAX_NESTING levels of the tree (walked without recursion), or None."""
    todo = [(tree, 1)]
    pop, push = todo.pop, todo.append
    while todo:
        node, depth = pop()
        if depth > MAX_NESTING:
            return node
        depth += 1
        for child in node.children:
            if type(child) is Tree:
                push((child, depth))
    return None


def _tree_of(text: str, watch: "_MemoryWatch | None" = None):
    """Lark's parse tree of a text, as `_lark().parse(text)` makes it. A text that parses is read
    by a loop over Lark's own tables and tree builders (`_quick_tree`); anything else goes to Lark's
    own parse, which raises the error it raises."""
    try:
        return _quick_tree(text, watch)
    except _OverBudget:
        raise
    except Exception:  # a syntax error (or a Lark made otherwise inside): Lark's own parse says it
        return _lark().parse(text)


# Lark's contextual lexer reads each token with an expression of the tokens the parser accepts in
# its state: Lark compiles one per state it meets (238 different sets of tokens in this grammar),
# and reads the text a token at a time between parser steps. _quick_tree reads the whole text at
# once with the root lexer's one expression of every token instead (`_root_tokens`, in a loop over
# its matches), which gives the same tokens wherever the parser accepts them: the root lexer takes
# the first token of its order that matches, the contextual lexer the first of that order among
# those the state accepts, so when the root lexer's token is accepted both agree, provided no
# word is read as a keyword (a string embedded in a pattern, as `if` in NAME) at a place of the
# order that the contextual lexer would not give it. `_root_lexing` checks that on the lexer (each
# such keyword comes after the pattern it is embedded in) and otherwise lexes as Lark does. A
# keyword the state does not accept, read where it accepts the pattern (`player` where a name is
# expected), is the name the contextual lexer reads there (`_as_read_here`); any other token the
# state does not accept is a syntax error, which Lark's own parse reports. (The state is the one
# the contextual lexer reads the token in: the parser's, after the token before was shifted.)


@lru_cache(maxsize=1)
def _root_lexing():
    """(the root lexer's expression, the tokens it ignores, those that may hold newlines, what its
    callbacks do to each kind of token) when lexing with it gives the contextual lexer's tokens;
    else None. A pattern's keywords are looked up in a dict (Lark matches an expression of them all,
    about 10 µs a name); Lark's other callbacks are called as Lark calls them."""
    from lark.lexer import CallChain, UnlessCallback

    root = getattr(_lark().parser.lexer, "root_lexer", None)
    try:
        expressions = root.scanner._mres
        rank = {terminal.name: i for i, terminal in enumerate(root.terminals)}
        plans = {}  # kind -> (its keywords by text or None, the callback after them or None, when it applies)
        for kind, callback in root.callback.items():
            then = when = None
            if isinstance(callback, CallChain) and isinstance(callback.callback1, UnlessCallback):
                callback, then, when = callback.callback1, callback.callback2, callback.cond
            if isinstance(callback, UnlessCallback):
                keywords = callback.scanner.terminals
                if any(k.pattern.type != "str" or k.pattern.flags or rank[k.name] < rank[kind] for k in keywords):
                    return None
                plans[kind] = ({k.pattern.value: k.name for k in keywords}, then, when)
            elif callable(callback) and not isinstance(callback, (CallChain, UnlessCallback)):
                plans[kind] = (None, callback, None)
            else:
                return None
        if len(expressions) != 1:
            return None
        return expressions[0], root.ignore_types, root.newline_types, plans
    except Exception:  # another Lark, made otherwise inside: lex as it does
        return None


def _root_tokens(text: str, lexing, watch: "_MemoryWatch | None" = None) -> tuple[list, dict]:
    """The tokens of a text as the root lexer reads them (with Lark's positions and callbacks), and
    the kind each token read as a keyword had before (by its index)."""
    expression, ignore, newlines, plans = lexing
    tokens: list = []
    read_as: dict = {}
    pos, line, line_start = 0, 1, 0
    new = str.__new__
    for match in expression.finditer(text):
        start, end = match.span()
        if start != pos:
            raise ValueError("a character no token matches")  # (Lark's parse says where)
        pos = end
        kind = match.lastgroup
        value = match.group()
        first_line, column = line, start - line_start + 1
        if kind in newlines and "\n" in value:
            line += value.count("\n")
            line_start = start + value.rindex("\n") + 1
        if kind in ignore and kind not in plans:
            continue
        token = new(Token, value)
        token.type, token.value, token.start_pos, token.line, token.column = kind, value, start, first_line, column
        token.end_line, token.end_column, token.end_pos = line, end - line_start + 1, end
        plan = plans.get(kind)
        if plan is not None:
            keywords, then, when = plan
            if keywords is not None:
                keyword = keywords.get(value)
                if keyword is not None:
                    token.type = keyword
                    read_as[len(tokens)] = kind
            if then is not None and (when is None or when(token)):
                token = then(token)
        if kind not in ignore:
            tokens.append(token)
            if not len(tokens) % WATCH_EVERY and watch is not None:
                watch.check(first_line, column)
    if pos != len(text):
        raise ValueError("a character no token matches")
    tokens.append(Token.new_borrow_pos("$END", "", tokens[-1]) if tokens else Token("$END", "", 0, 1, 1))  # (as Lark)
    return tokens, read_as


def _as_read_here(token, was: str, actions: dict, lexing) -> str:
    """The kind of a token read as a keyword the parser's state does not accept, when the state
    accepts what it was read from (the contextual lexer reads it so there, and calls the callback
    that kind has after its keywords); else a syntax error."""
    if was not in actions:
        raise ValueError("a token the parser does not accept here")
    token.type = was
    _, then, when = lexing[3][was]
    if then is not None and (when is None or when(token)):
        then(token)
    return was


_REDUCTIONS: dict = {}  # id of each rule of the parse table -> (the rule, its length, its callback, the symbol it makes)


def _quick_tree(text: str, watch: "_MemoryWatch | None" = None):
    """Lark's parse tree of a text that parses, read by a loop of our own over its tables and tree
    builders: Lark's loop checks each action against the end state with an assert that compares
    rules, and looks up what each reduction does."""
    lark = _lark()
    frontend = lark.parser
    table_parser = frontend.parser.parser  # (lalr_parser._Parser: the table and the tree builders)
    conf = ParseConf(table_parser.parse_table, table_parser.callbacks, frontend.parser_conf.start[0])
    states, callbacks, reductions = conf.states, conf.callbacks, _REDUCTIONS
    end_state = conf.end_state
    lexing = _root_lexing()
    if lexing is not None:
        tokens, read_as = _root_tokens(text, lexing, watch)
        state_stack, value_stack = [conf.start_state], []
    else:  # Lark's contextual lexer, lexing as the parser goes: it reads the parser's state
        stream = frontend._make_lexer_thread(text)
        state = ParserState(conf, stream)
        state_stack, value_stack = state.state_stack, state.value_stack
        read_as = {}

        def contextual():  # the text's tokens, then its end
            token = None
            for token in stream.lex(state):
                yield token
            yield Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)  # (as Lark)

        tokens = contextual()

    for i, token in enumerate(tokens):
        kind = token.type
        if not i % WATCH_EVERY and i and watch is not None:
            watch.check(token.line, token.column)
        if i in read_as and kind not in states[state_stack[-1]]:  # (the state the contextual lexer reads it in)
            kind = _as_read_here(token, read_as[i], states[state_stack[-1]], lexing)
        while True:
            action, arg = states[state_stack[-1]][kind]  # (a token the state does not accept: Lark's parse says why)
            if action is Shift:
                if kind == "$END":
                    raise ValueError("the parse table shifts the end of the text")
                state_stack.append(arg)
                value_stack.append(token if kind not in callbacks else callbacks[kind](token))
                break
            found = reductions.get(id(arg))  # (by identity: a rule hashes in Python)
            if found is None or found[0] is not arg:
                found = reductions[id(arg)] = (arg, len(arg.expansion), callbacks[arg],
                                               str(arg.origin.name))  # (a plain str: a Token compares in Python)
            _, size, callback, origin = found
            if callback is _first_child:  # a `?rule: other` step: the value stays, only the state changes
                state_stack[-1] = states[state_stack[-2]][origin][1]
                if kind == "$END" and state_stack[-1] == end_state:
                    return value_stack[-1]
                continue
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value = callback(children)
            state_stack.append(states[state_stack[-1]][origin][1])
            value_stack.append(value)
            if kind == "$END" and state_stack[-1] == end_state:  # the start symbol is made
                return value_stack[-1]
    raise ValueError("the text ended before the parse did")


# What decides where a list written out starts and ends, found without parsing it: its brackets, and
# the texts and comments that hide the brackets and commas they hold.
# (each alternative a character first, which Python's `re` then looks for alone: a third of the time)
_BRACKETS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*|\[|\]|\(|\)|\{|\}')


def _refuse_long_lists(text: str) -> None:
    """More items written out between two brackets than the list_size budget allows a list: said
    before the text is parsed (a list of a million numbers makes millions of tokens and nodes first).
    The commas between two brackets, texts or comments are counted at once; a list one item over is
    left to the parser (`list_lit`)."""
    limit = current_budgets().list_size
    if text.count(",") <= limit:
        return
    open_at: list[int] = []  # where each bracket still open starts
    commas: list[int] = []  # the commas directly inside it
    last = 0
    for m in chain(_BRACKETS.finditer(text), [None]):  # (None: the end of the text)
        if commas:
            commas[-1] += text.count(",", last, m.start() if m is not None else len(text))
            if commas[-1] > limit:
                start = open_at[-1]
                line = text.count("\n", 0, start) + 1
                column = start - text.rfind("\n", 0, start)
                _refuse_size(Span(line=line, column=column, end_line=line, end_column=column + 1),
                             "this list written out has more than {:,} items" if text[start] == "[" else
                             "more than {:,} items are written out between these brackets", commas[-1] + 1,
                             counted=False)
        if m is None:
            break
        last = m.end()
        ch = text[m.start()]
        if ch in "[({":
            open_at.append(m.start())
            commas.append(0)
        elif ch in "])}" and commas:
            open_at.pop()
            commas.pop()


def _parse_chunk(text: str, file: str, offset: int) -> list[N.AnyDecl]:
    _refuse_long_lists(text)
    watch = _MemoryWatch()
    tree = _tree_of(text, watch)
    deep = _too_deep(tree)
    if deep is not None:
        meta = deep.meta
        line, column = (meta.line, meta.column) if not getattr(meta, "empty", True) else (1, 1)
        raise _SyntaxProblem(Span(line=line, column=column),
                             f"this is nested too deeply (more than {MAX_NESTING} levels of expressions inside "
                             "expressions or blocks inside blocks); give a part of it a name with `let` or a `def`")
    try:
        return _ToAst(file, offset, watch).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, _SyntaxProblem):
            raise exc.orig_exc from None
        raise


def parse_text(text: str, file: str = "<rules>") -> N.RulesFile:
    """Parse a whole file; raise RulesError listing every syntax error found."""
    remember_source(file, text)
    fast_text, fast_cards = split_card_blocks(text, file)  # long decks read line by line (fastcards.py)
    try:
        decls = _parse_chunk(fast_text, file, 0)
        restore_card_blocks(decls, fast_cards)
    except (UnexpectedInput, _SyntaxProblem) as problem:
        if isinstance(problem, _OverBudget) and problem.whole:  # (not parsed again, declaration by declaration)
            raise RulesError(Diagnostic(_in_file(problem.span, file, 0), problem.message, hint=problem.hint)) from None
        from rulelang.language.syntax_errors import syntax_diagnostic  # (only a text that does not parse needs it)

        diagnostics: list[Diagnostic] = []
        decls = []
        chunks = split_top_level(text)
        for i, (offset, chunk) in enumerate(chunks):
            try:
                decls.extend(_parse_chunk(chunk, file, offset))
            except UnexpectedInput as exc:
                diagnostics.append(syntax_diagnostic(_lark(), exc, file, offset, chunk, last=i == len(chunks) - 1))
            except _SyntaxProblem as exc:
                diagnostics.append(Diagnostic(_in_file(exc.span, file, offset), exc.message, hint=exc.hint))
                if isinstance(exc, _OverBudget) and exc.whole:
                    break
        if not diagnostics:  # splitting changed the meaning; report the whole-file error
            try:
                _parse_chunk(text, file, 0)
            except UnexpectedInput as exc:
                diagnostics.append(syntax_diagnostic(_lark(), exc, file, 0, text))
            except _SyntaxProblem as exc:
                diagnostics.append(Diagnostic(_in_file(exc.span, file, 0), exc.message, hint=exc.hint))
        raise RulesError(diagnostics) from None
    return _rules_file(text, file, decls)


def _rules_file(text: str, file: str, decls: list[N.AnyDecl]) -> N.RulesFile:
    return N.RulesFile(span=Span(file=file, line=1, column=1), path=file, decls=decls, header_doc=header_doc(text))


# ------------------------------------------------------------------ parsing declaration by declaration
# A file can be parsed as its top-level chunks (`chunks.split_top_level`), each on its own, so that an edit
# re-parses only the declarations it touched (astcache keeps the others). When every chunk parses
# alone, the chunks' declarations are exactly the whole file's, because of a property of the grammar
# that `chunks_are_exact` checks on the parse table; when one does not, the caller parses the whole
# file, which reports the errors as always.


@lru_cache(maxsize=1)
def chunks_are_exact() -> bool:
    """True when, in every parser state where the text could end, each token that can open a
    declaration acts as the end of the text does, or opens a new declaration: then no declaration can
    run on into the next chunk, and parsing the chunks one by one gives the whole file's declarations.
    (No token but whitespace spans lines, and each chunk starts a line, so the tokens are the same.)"""
    table = _lark().parser.parser.parser.parse_table
    states = table.states
    first = table.start_states["start"]
    openers = [t for t in states[first] if t != "$END" and t.isupper()]  # terminals; the others are gotos
    for actions in states.values():
        at_end = actions.get("$END")
        if at_end is None:
            continue
        for token in openers:
            action = actions.get(token)
            if action != at_end and action != states[first][token]:
                return False
    return True


def ready() -> None:
    """Load the parser and build its lexer's expression now (before a fork: the copy has them)."""
    _root_lexing()


def parse_declarations(chunk: str, file: str, offset: int) -> list[N.AnyDecl] | None:
    """The declarations of one chunk, spans in the whole file; None if it does not parse alone."""
    try:
        return _parse_chunk(chunk, file, offset)
    except (UnexpectedInput, _SyntaxProblem):
        return None


def parse_file(path: str | Path, text: str | None = None) -> N.RulesFile:
    """Parse a file; anything that is not a readable UTF-8 text file gets a `file:line:col` diagnostic.
    (`text`: the file's text, read already by `sourcefile.read_source`.)"""
    from rulelang.core.sourcefile import read_source

    if text is None:
        text = read_source(path)
    # A big file makes a big AST at once: Python's cycle collector would scan it again and
    # again while it grows (most of the time of a 50,000-card file); nodes hold no cycles.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return parse_text(text, str(path))
    finally:
        if was_enabled:
            if len(text) > 1_000_000:
                gc.freeze()  # and keep the collector from scanning the new AST again later
            gc.enable()
