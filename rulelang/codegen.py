"""The code generator: checked expressions and defs -> Python source, one module per game.

The compiler (``compiler.py``) asks this module for every expression it needs as a function
``fn(ctx)``. Instead of a tree of closures, the expression is written out as Python source: names,
fields, arithmetic, comparisons, boolean operators, built-in calls with positional arguments,
quantifiers and list comprehensions as real Python comprehensions with real Python locals, and def
calls as direct calls of generated functions with positional parameters. Every function of a game
(and of one set of variants and settings) goes into ONE source, compiled once with ``compile()``
and cached by the hash of that source (with rulelang's and Python's versions): in the process, and
as marshalled code in the user's cache folder (`cache_dir()`), so a second load, even by another
process, does not compile again (Jinja2 compiles and caches a template the same way).

A node the generator does not write yet is compiled by the closure engine and called from the
generated code as a constant of the module's namespace, so every game always works.

Errors keep naming their rules line: the generator keeps a line map (generated line -> the rules
construct and its span). A built-in that fails inside generated code is found on its line of the
traceback and becomes the same ``RuleError`` (same message, same span) the closure engine raises;
everything that can fail with a value-dependent message (fields, arithmetic, comparisons, indexes)
goes through helpers that raise the closure engine's errors themselves.

``RULELANG_ENGINE=closures`` in the environment switches the generator off (the closure engine
alone), for comparison and as a fallback.
"""
from __future__ import annotations

import hashlib
import itertools
import linecache
import marshal
import os
import re
import sys
import time
import types
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

from . import nodes as N
from .budgets import NUMBER_BOUND, check_size, exceeded
from .cachefiles import prune, write_whole
from .builtins import BUILTIN_VALUES, BUILTINS, RuleFailure, as_list, describe, keywords_of
from .model import PLAIN_TYPES, BoardZone, Entity, KeywordValue, Player, Zone, out_seats, players_in

from .compile_expr import ExpressionCompiler
from .dependencies import TEMPLATE_NAMES, free_names, nodes_in, rebuilt
from .ops import CallProc, ClearSlot, EndOp, Exec, ForInit, ForNext, Jump, JumpIfNot, Op, PerformOp, SignalOp
from .program import DEF_CALL_WORK, Code, Ctx, RuleError
from .values import (_CARD_PSEUDO_FIELDS, _arith, _plain, _update, entity_extra, move_cards, one_value_changed,
                     outside_the_list, set_field, the_zone)

ENGINE_ENV = "RULELANG_ENGINE"
GENERATOR_VERSION = "43"  # bump when the generated code changes shape (part of the cache key)
_FAILURES = (TypeError, AttributeError, KeyError, IndexError, ValueError)
_CATCH = (RuleFailure,) + _FAILURES


def engine() -> str:
    """The engine new games are compiled with: "codegen" (default) or "closures" (RULELANG_ENGINE)."""
    chosen = os.environ.get(ENGINE_ENV, "").strip().lower()
    return "closures" if chosen in ("closures", "closure", "old") else "codegen"


# ------------------------------------------------------------------ the compiled-code cache

_CODE_CACHE: dict[str, list[types.CodeType]] = {}  # by the whole source: its units, placed
_STATS = {"hits": 0, "disk_hits": 0, "misses": 0, "units_compiled": 0}
CACHE_ENV = "RULELANG_CACHE_DIR"


def cache_info() -> dict:
    """How often a generated module was found compiled already in this process (hits), on disk
    (disk_hits), or compiled anew (misses)."""
    return {**_STATS, "size": len(_CODE_CACHE)}


def cache_dir() -> Path | None:
    """Where compiled modules are kept between processes: $RULELANG_CACHE_DIR, else the user's cache
    folder ($XDG_CACHE_HOME or ~/.cache) /rulelang/codegen. `RULELANG_CACHE_DIR=off` keeps none."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() in ("off", "none", "0"):
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulelang" / "codegen"


CACHE_KEEP = 200  # compiled modules kept on disk (about 0.1 to 0.6 MB each); the oldest go first


def _compiled(units: list[tuple[int, str]], filename: str, key: str, label: str) -> list[types.CodeType]:
    """The code of a generated module, one code object per top-level unit (a def and what goes with
    it), each placed at its line of the module and named by its file: from this process's cache,
    from the disk, or compiled. After an edit, only the units whose text changed are compiled again:
    the others come from the units kept for the last version of the same game (`_unit_code`)."""
    codes = _CODE_CACHE.get(key)
    if codes is not None and codes and codes[0].co_filename == filename:
        _STATS["hits"] += 1
        return codes
    folder = cache_dir()
    path = folder / f"{key}.marshal" if folder is not None else None
    codes = None
    if path is not None:
        try:
            codes = marshal.loads(path.read_bytes())
            if not (isinstance(codes, list) and len(codes) == len(units)
                    and all(isinstance(c, types.CodeType) and c.co_filename == filename for c in codes)):
                codes = None
        except (OSError, ValueError, EOFError, TypeError):
            codes = None  # not there, unreadable or from another Python: compile again
    if codes is not None:
        _STATS["disk_hits"] += 1
    else:
        _STATS["misses"] += 1
        codes = _unit_code(units, filename, label, folder)
        if path is not None:
            _write_marshal(folder, path, codes)
    if len(_CODE_CACHE) > 64:  # a long session editing rules: keep the newest
        _CODE_CACHE.pop(next(iter(_CODE_CACHE)))
    _CODE_CACHE[key] = codes
    return codes


# units compiled at line 1 under a neutral name, by their text (comments giving rules lines left out)
_UNIT_CACHE: dict[str, types.CodeType] = {}
_UNIT_FILE = "<rulelang generated unit>"
_RULES_LINE_COMMENT = re.compile(r"^(def [^\n]*?:  # [^\n]*?)rules lines? [0-9]+(?:-[0-9]+)?$", re.M)


class TooDeepToGenerate(Exception):
    """Rules nested deeper than Python compiles them (parentheses in parentheses, loops in loops) or
    than the generator writes them: the compiler plays that game with the closure engine instead."""


# what Python's compiler says of code nested too deeply (its limits, not mistakes of the generator)
_TOO_DEEP = ("too many nested parentheses", "too many statically nested blocks", "too many levels of indentation")


def _unit_code(units: list[tuple[int, str]], filename: str, label: str, folder: Path | None) -> list[types.CodeType]:
    from . import __version__

    kept: dict = {}
    keep_path = None
    if folder is not None:
        # the units of the last module made for a game of this title (another version of the file)
        name = hashlib.sha256(f"{__version__}/{GENERATOR_VERSION}/{sys.version}/{label}".encode()).hexdigest()
        keep_path = folder / f"units-{name[:40]}.marshal"
        try:
            kept = marshal.loads(keep_path.read_bytes())
            if not isinstance(kept, dict):
                kept = {}
        except (OSError, ValueError, EOFError, TypeError):
            kept = {}
    codes, now = [], {}
    for first, text in units:
        # the comments that give rules lines change when lines are added above: not the code
        unit_key = hashlib.sha256(_RULES_LINE_COMMENT.sub(r"\1", text).encode()).hexdigest()
        code = _UNIT_CACHE.get(unit_key) or kept.get(unit_key)
        if not isinstance(code, types.CodeType):
            try:
                code = compile(text, _UNIT_FILE, "exec")
            except SyntaxError as exc:
                if any(words in str(exc.msg) for words in _TOO_DEEP):
                    raise TooDeepToGenerate(exc.msg) from None
                raise
            except (RecursionError, MemoryError) as exc:  # (Python's parser, on deeply nested code)
                raise TooDeepToGenerate(str(exc)) from None
            _STATS["units_compiled"] += 1
        _UNIT_CACHE[unit_key] = now[unit_key] = code
        codes.append(_placed(code, first, filename))
    if len(_UNIT_CACHE) > 50_000:
        _UNIT_CACHE.clear()
    if keep_path is not None:
        _write_marshal(folder, keep_path, now)
    return codes


def _placed(code: types.CodeType, lines_above: int, filename: str) -> types.CodeType:
    """A unit's code (compiled as if it began at line 1) moved down to its line of the module, in its
    file, nested code (comprehensions, lambdas) included: tracebacks then name the module's lines."""
    consts = tuple(_placed(c, lines_above, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + lines_above, co_filename=filename, co_consts=consts)


def _write_marshal(folder: Path, path: Path, value) -> None:
    try:
        data = marshal.dumps(value)
    except ValueError:  # (only code objects and plain values are written: not expected)
        return
    if write_whole(path, data):  # best effort: a read-only home only costs the compile next time
        prune(folder, "*.marshal", CACHE_KEEP)


# built-ins that take constant time (a def calling only these, and no def, is a leaf: see Generator._is_leaf)
_CHEAP_BUILTINS = frozenset({"at", "owner", "top", "bottom", "abs", "face_down", "seat", "empty"})
# built-ins that walk their argument: cheap over the cards of one cell
_CHEAP_WALKS = frozenset({"any", "all", "count", "sum", "max", "min"})
# the most items a def written in place of its call may walk in one loop (Generator._is_leaf with small)
SMALL_WALK = 16

# the pseudo-fields of a card that are plain slots of Entity (see values.entity_extra)
_ENTITY_SLOTS = ("face_down", "zone", "cell", "place", "id")

# ------------------------------------------------------------------ helpers the generated code calls
# Each raises exactly the error the closure engine raises for the same construct.


def _attr(c, o, name, span):
    if type(o) is Entity:
        attrs = o.attrs
        if name in attrs:
            return attrs[name]
        return entity_extra(c, o, name, span)
    if type(o) is Player:
        if name in o.attrs:
            return o.attrs[name]
        if name == "seat":
            return o.seat + 1
    elif type(o) is dict:
        if name in o:
            return o[name]
        raise RuleError(span, f'this row has no "{name}"; its fields are: ' + ", ".join(map(str, o)))
    elif isinstance(o, Zone):
        if name == "size":
            return len(o.items)
        if name == "owner":
            return c.s.players[o.owner] if o.owner is not None else None
    if o is None:
        raise RuleError(span, f'cannot read "{name}" of nothing (the value is none)')
    raise RuleError(span, f'{describe(o)} has no "{name}"')


def _index(obj, i, span):
    if (type(obj) is tuple or type(obj) is list) and type(i) is int and -len(obj) <= i < len(obj):
        return obj[i]  # the common case: a cell's coordinate, an item of a list
    items = as_list(obj)
    if not -len(items) <= i < len(items):
        raise RuleError(span, outside_the_list(i, len(items)))
    return items[i]


def _each(c, value, span):
    """The items a comprehension walks; long lists count as work (the steps budget)."""
    items = value if type(value) is list or type(value) is tuple else as_list(value)  # walked, never changed
    if len(items) > 64 and c.vm is not None:
        c.vm.meter.charge(len(items), span)
    return items


def _add(c, l, r, span):
    if type(l) is int and type(r) is int:
        result = l + r
        if -_BIG <= result <= _BIG:
            return result
    if isinstance(l, list) or isinstance(r, list):
        l, r = as_list(l), as_list(r)
        if len(l) + len(r) > 64:
            check_size(len(l) + len(r), span, "a list", c.vm.meter if c.vm is not None else None)
        return l + r
    if isinstance(l, str) or isinstance(r, str):
        l, r = describe(l), describe(r)
        if len(l) + len(r) > 64:
            check_size(len(l) + len(r), span, "a text", c.vm.meter if c.vm is not None else None)
        return l + r
    return _arith(l, r, "+", span)


_BIG = NUMBER_BOUND
INT = "#int "  # in Generator.card_locals: INT + a Python local that holds a whole number for sure
PAIR = "#pair "  # in Generator.card_locals: PAIR + a Python local that holds a tuple of two whole numbers for sure
# operations nested deeper than this are written as calls of their helpers (one level of Python's
# parentheses each, not three): a long sum still compiles (Python's parser stops at 200 levels)
ARITH_IN_PLACE = 16


def _sub(l, r, span):
    if type(l) is int and type(r) is int:
        result = l - r
        if -_BIG <= result <= _BIG:
            return result
    return _arith(l, r, "-", span)


def _mul(l, r, span):
    if type(l) is int and type(r) is int:
        result = l * r
        if -_BIG <= result <= _BIG:
            return result
    return _arith(l, r, "*", span)


def _div(l, r, span):
    if type(l) is int and type(r) is int and r:
        return l // r
    return _arith(l, r, "/", span)


def _mod(l, r, span):
    if type(l) is int and type(r) is int and r:
        return l % r
    return _arith(l, r, "%", span)


def _not_ordered(op, l, r, span):
    return RuleError(span, f'"{op}" compares numbers, but got {describe(l)} and {describe(r)}')


# one function per comparison, so that none tests which comparison it is each time
def _lt(l, r, span):
    try:
        return l < r
    except TypeError:
        raise _not_ordered("<", l, r, span) from None


def _le(l, r, span):
    try:
        return l <= r
    except TypeError:
        raise _not_ordered("<=", l, r, span) from None


def _gt(l, r, span):
    try:
        return l > r
    except TypeError:
        raise _not_ordered(">", l, r, span) from None


def _ge(l, r, span):
    try:
        return l >= r
    except TypeError:
        raise _not_ordered(">=", l, r, span) from None


def _range(c, a, b, span):
    if type(a) is int and type(b) is int and b - a >= 64:
        check_size(b - a + 1, span, "a range", c.vm.meter if c.vm is not None else None)
    return list(range(a, b + 1))


def _player_zone(c, p, name, span):
    if not isinstance(p, Player):
        raise RuleError(span, f'{name}(...) needs a player, but got {describe(p)}')
    return c.s.zones[f"{name}#{p.seat + 1}"]


def _cellstack(board, cell):  # the generated code inlines it: board.cells.stacks.get(cell, _NOCARDS)
    return board.cells.stack(cell)


def _current(s):
    return s.players[s.current] if s.current is not None else None


def _next_to(c, x, cell=None):
    """neighbors(x) or neighbors(board, cell) for a loop that only reads it: the board's remembered
    list, not a copy. Anything else (not a card on a board, not a board) is the built-in's."""
    if cell is None:
        if type(x) is Entity:
            zone = x.zone
            if zone is not None and zone.is_board:
                return zone.cells.cards_next_to_view(x.cell)
    elif type(x) is BoardZone:
        return x.cells.cards_next_to_view(cell)
    return _NEIGHBORS(c, x, cell)


_NEIGHBORS = BUILTINS["neighbors"].impl


def _empty_cells_of(c, board, span):
    """`[c in cells(board) where empty(at(board, c))]` of a board the rules name: the board's own
    empty cells (BoardCells.empty_cells), the walk of its cells counted as work as _each counts it."""
    cells = board.cells
    if len(cells.stacks) > 64 and c.vm is not None:
        c.vm.meter.charge(len(cells.stacks), span)
    return cells.empty_cells()


def _ray_walk(c, board, cell, d):
    """ray(board, cell, d) for a loop that only reads it: the tuple the board's shape remembers
    once the built-in has walked that ray (BoardCells.ray), not a copy; else the built-in's."""
    if type(board) is BoardZone and type(d) is tuple and len(d) == 2 and type(d[0]) is int and type(d[1]) is int:
        cells = board.cells
        if cells._shared:  # (the ray BoardCells.ray walked, kept with the shape)
            try:
                found = cells.topology.ray_cache.get((cell, d[0], d[1]))
            except TypeError:  # a cell that cannot be a key: the built-in says why
                found = None
            if found is not None:
                return found
    return _RAY(c, board, cell, d)


_RAY = BUILTINS["ray"].impl


def _region_owned(board, cell, p):
    """region(board, cell, owned_cells(board, p)) for a board the rules name and a player: the
    group the board keeps of the player's cells that holds the cell (BoardCells.owned_group), not
    a walk through a set made of their list (the same cells, in the same order)."""
    if type(cell) is Entity:
        cell = cell.cell
    return board.cells.owned_group(p.seat, cell)  # (a value that cannot be a cell fails here, as in the built-in)


def _regions_owned(board, p):
    """regions(board, owned_cells(board, p)) for a board the rules name and a player: the groups the
    board keeps of the player's cells (BoardCells.owned_groups)."""
    return board.cells.owned_groups(p.seat)


def _recursion(span, name, meter):
    return exceeded(span, "recursion_depth", f'def "{name}" calls itself (or other defs) more than '
                    f"{meter.budgets.recursion_depth} deep; it probably never stops", meter.budgets.recursion_depth)


def _has(e, name):
    return any(k.name == name for k in keywords_of(e))


TRIAL_CALLS = 1000  # calls of a remembered def counted before it is decided whether remembering pays
LOOKUP_SECONDS = 0.5e-6  # about what looking a value up costs (a stamp, a key, two dict reads)


def _settle_trial(ns: dict, name: str) -> None:
    """After a remembered def's trial: keep remembering it when what its hits saved (hits times the
    mean cost of a miss) exceeds what its look-ups cost (calls times LOOKUP_SECONDS); otherwise
    evaluate it every time. Only speed depends on this, never a value."""
    calls, hits, seconds = ns[f"_T_{name}"]
    misses = calls - hits
    saved = hits * (seconds / misses) if misses else float("inf")
    ns[f"D_{name}"] = ns[f"R_{name}" if saved > calls * LOOKUP_SECONDS else f"E_{name}"]


class _NotSimple(Exception):
    """A statement `Generator.sync_block` does not write: the block stays the VM's."""


#: statements that steer the VM (loops with guards, choices, turns, returns; `for ... chosen by`, and
#: `break`/`continue` outside a loop of the block): sync_block does not write them
_SYNC_CONTROL = (N.For, N.While, N.RepeatTimes, N.RepeatUntil, N.Choose, N.ChooseBlock, N.TakeTurns, N.StepBlock,
                 N.Break, N.Continue, N.Return, N.End, N.Respond, N.Offer)


# the generated code's helper for each operator but "+" (_add, which also joins lists and texts)
_ARITHMETIC = {"-": "_sub", "*": "_mul", "/": "_div", "%": "_mod"}


def _literal_range(node) -> tuple | None:
    """The numbers of `a..b` written with whole numbers (at most 64 of them), else None."""
    if type(node) is not N.Range:
        return None
    bounds = []
    for end in (node.low, node.high):
        sign = 1
        if type(end) is N.Neg:
            sign, end = -1, end.operand
        if type(end) is not N.IntLit or type(end.value) is not int:
            return None
        bounds.append(sign * end.value)
    low, high = bounds
    return tuple(range(low, high + 1)) if high - low < 64 else None


def _placeholder(c):
    raise RuntimeError("a generated function was called before its module was compiled")


_HELPERS = {
    "_attr": _attr, "_index": _index, "_each": _each, "_add": _add, "_sub": _sub, "_mul": _mul, "_div": _div, "_mod": _mod, "_range": _range,
    "_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge,
    "_player_zone": _player_zone, "_cellstack": _cellstack, "_NOCARDS": (), "_MISS": object(), "_current": _current, "_recursion": _recursion, "_next_to": _next_to, "_ray_walk": _ray_walk, "_empty_cells_of": _empty_cells_of,
    "_as_list": as_list, "_enumerate": enumerate, "_players_in": players_in, "_BoardZone": BoardZone, "_region_owned": _region_owned, "_regions_owned": _regions_owned, "_the_zone": the_zone, "_move_cards": move_cards, "_set_field": set_field, "_update": _update, "_value_changed": one_value_changed, "_PLAIN": PLAIN_TYPES, "_out_seats": out_seats, "_Entity": Entity, "_Player": Player,
    "_EP": (Entity, Player), "_TL": (tuple, list), "_CATCH": _CATCH, "_clock": time.perf_counter, "_settle_trial": _settle_trial, "_takewhile": itertools.takewhile, "_describe": describe, "_has": _has, "_KeywordValue": KeywordValue,
}


# ------------------------------------------------------------------ the generator


class Generator:
    """Writes the Python source of one game's expressions and defs; `finish()` compiles it."""

    def __init__(self, compiler, label: str):
        self.cc = compiler
        self.label = label
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.ns.update({"_Ctx": Ctx, "_RuleError": RuleError, "_arith": _arith, "_translate": self._translate,
                        "__name__": "rulelang_generated"})
        self.sources: list[str] = []       # finished functions
        self.expression_bodies: dict[int, str] = {}  # id(an expression's function) -> its body (function)
        self.entries: list[tuple] = []     # marked constructs: (kind, span, detail)
        self.stubs: list[tuple[types.FunctionType, str]] = []
        self.part = "m"  # the declaration being compiled: names are numbered within it (fresh)
        self.numbers: dict[str, int] = {}
        self.pylocals: dict[str, str] = {}  # rules name -> Python local, inside the function being written
        # the Python locals that hold a card for sure (a loop over a zone, the cards on a cell, the
        # cards next to one): their fields are read without asking what they hold (g_Attr); and,
        # as INT + name, those that hold a whole number for sure (a loop over `0..3`): arithmetic
        # on them asks nothing of them (is_int). One set, so that every place that enters or leaves
        # a function or a scope keeps both
        self.card_locals: frozenset = frozenset()
        self.in_def = False
        self.no_walrus = False
        # while a def is written: its parameters' Python names that nothing in its body binds again,
        # and the coordinates of them read once at its top, (name, index) -> Python local (g_Index)
        self.fixed_params: set = set()
        self.param_reads: dict = {}
        # and the defs the same all game that it reads, each looked up once per call: name -> Python
        # local (g_Name); None while no def is written
        self.constant_reads: dict | None = None
        self.arith_depth = 0  # operations written inside one another (g_BinOp)
        self.active = True
        self.linemap: list = []
        self.filename = "<rulelang generated>"
        self.source = ""
        self.def_decls: dict = {}  # the defs of the game by name (leaves are written inline: inline_leaf)
        self._inlinable: dict[str, bool] = {}  # per def: a leaf without lists (inline_leaf), decided once
        self.hoisted: dict[int, str] = {}  # calls already worked out into Python locals (body_lines), by id
        self.constant_defs: set[str] = set()  # defs with the same value all game (dependencies.constant_defs)
        self.setting_defs: dict = {}  # defs whose value the settings fix, and that value (dependencies.setting_defs)
        # defs of a card and the cards next to it (dependencies.neighbourhood_defs)
        self.neighbourhood_defs: set[str] = set()
        # list conditions that look around their card, as such defs (dependencies.lifted_conditions):
        # (line, column, variable) of the condition -> its def; and those written so far
        self.lifted: dict = {}
        self.lifted_written: set[str] = set()
        self.turn_defs: set[str] | None = None  # defs that read the turn (None: any may); see dependencies.turn_defs
        self.recursive_defs: set[str] | None = None  # defs that may call themselves (None: any may)

    # ---- bookkeeping
    def fresh(self, prefix: str) -> str:
        """A new name, numbered within the declaration being compiled (`enter`): an edit of one
        declaration renames nothing in the others, so their generated code stays the same (and
        compiled: _unit_code)."""
        n = self.numbers[self.part] = self.numbers.get(self.part, 0) + 1
        return f"{prefix}{self.part}_{n}"

    def enter(self, kind: str, name: str | None = None) -> None:
        """Names made from now on belong to this declaration (`kind`: a few letters, such as "De" for
        a def; `name`: its name, or None for one of a kind without names, numbered in order)."""
        if name is None:
            name = str(self.numbers.get("#" + kind, 0))
            self.numbers["#" + kind] = int(name) + 1
        elif not (name.isascii() and name.replace("_", "a").isalnum()):
            name = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        self.part = f"{kind}{name}"

    def const(self, value, prefix: str = "K") -> str:
        name = self.fresh(prefix)
        self.ns[name] = value
        return name

    def mark(self, kind: str, span, detail=None) -> str:
        """Start a new line for a construct whose failures are reported at `span`."""
        self.entries.append((kind, span, detail))
        return f"\n\x01{len(self.entries) - 1}\x02"

    def stub(self, fname: str) -> Callable:
        fn = types.FunctionType(_placeholder.__code__, self.ns, fname)
        self.stubs.append((fn, fname))
        return fn

    # ---- entry points used by the compiler
    def function(self, x) -> Callable:
        """A top-level expression: a function fn(ctx). Its body (which leaves the value in `value`)
        is kept in `expression_bodies`: a fused region writes it in place of a call (_RegionWriter.value_of)."""
        saved = self.pylocals, self.in_def, self.no_walrus, self.card_locals
        self.pylocals, self.in_def, self.no_walrus, self.card_locals = {}, False, False, frozenset()
        try:
            with self.no_def_parameters():
                body = self.read_once("\n".join(self.body_lines(x, "value", "        ")), "        ")
        finally:
            self.pylocals, self.in_def, self.no_walrus, self.card_locals = saved
        fname = self.fresh("e")
        line = getattr(getattr(x, "span", None), "line", 0)
        self.sources.append(f"def {fname}(c):  # rules line {line}\n"
                            f"    try:\n"
                            f"{body}\n"
                            f"    except _CATCH as exc:\n"
                            f"        raise _translate(exc) from None\n"
                            f"    return value\n")
        stub = self.stub(fname)
        self.expression_bodies[id(stub)] = body
        return stub

    def read_once(self, body: str, indent: str) -> str:
        """An expression's or a def's body with what stays the same while it is worked out read once,
        at its top, not at each read in its loops: the cells of each board it reads (`c.s.zones['grid']
        .cells.stacks`, the table of a shared board the rules name: the built-in `at`), and the current
        player when a loop reads it. Such a board always exists, and nothing moves and no turn passes
        while an expression is worked out, so each is the same object throughout. (Another zone given
        to `at` fails where it is read, at the call's line.)"""
        zones = self.cc.program.zones
        boards = [z for z in dict.fromkeys(_BOARD_CELLS.findall(body))
                  if (info := zones.get(z[1:-1])) is not None and info.topology is not None and not info.per_player]
        top = ""
        if boards:
            names = {zone: f"_cells{i}" for i, zone in enumerate(boards)}
            body = _BOARD_CELLS.sub(lambda m: names.get(m.group(1), m.group(0)), body)
            top = "".join(f"{indent}{names[zone]} = c.s.zones[{zone}].cells.stacks\n" for zone in boards)
        if _CURRENT in body and _LOOP.search(body):  # (read once even where only one branch needs it: a call)
            body = body.replace(_CURRENT, "_current0")
            top += f"{indent}_current0 = {_CURRENT}\n"
        return top + body

    @contextmanager
    def no_def_parameters(self):
        """While another function is written (an expression's, a continuous rule's, an option's
        walker), possibly in the middle of a def's: no name is one of the def's parameters (g_Index
        reads those once, at the def's top, which this function does not have)."""
        saved = self.fixed_params, self.param_reads, self.constant_reads
        self.fixed_params, self.param_reads, self.constant_reads = set(), {}, None
        try:
            yield
        finally:
            self.fixed_params, self.param_reads, self.constant_reads = saved

    def sync_block(self, body: list, span) -> Callable | None:
        """A continuous rule's block as one generated function run(vm, frame), or None when it
        holds a statement other than a simple one (an assignment, a move, a discard, a signal, a
        procedure call, `perform`...), `if`, `for each ... [where ...]`, `break` and `continue`. A
        continuous rule runs to its end at once (VM.run_sync: no choice, no trigger until it ends),
        so Python's own `if` and `for` can stand for the VM's jumps. Each simple statement is the closure the statement compiler makes
        for it; conditions are generated expressions; the steps budget counts each statement, test
        and turn of a loop."""
        lines: list[str] = []
        saved = self.pylocals, self.in_def, self.no_walrus, self.cc.scope, self.card_locals
        self.pylocals, self.in_def, self.no_walrus, self.card_locals = {}, False, False, frozenset()
        try:
            with self.no_def_parameters():
                self._sync_block(body, lines, "        ", False)
        except _NotSimple:
            return None
        finally:
            self.pylocals, self.in_def, self.no_walrus = saved[:3]
            self.cc.scope, self.card_locals = saved[3:]
        fname = self.fresh("A")
        self.sources.append("\n".join(
            [f"def {fname}(vm, frame):  # rules line {span.line}",
             "    v = frame.vars",
             "    c = _Ctx(v, vm.s, vm)",
             "    meter = vm.meter",
             "    stack = vm.s.stack",
             "    level = len(stack)  # this rule's frame is stack[level - 1]",
             "    try:"] + lines + [
             "        pass",
             "    except _CATCH as exc:",
             "        raise _translate(exc) from None", ""]))
        return self.stub(fname)

    def _sync_block(self, stmts: list, lines: list, indent: str, in_loop: bool) -> None:
        saved = self.cc.scope
        for st in stmts:
            self._sync_stmt(st, lines, indent, in_loop)
        self.cc.scope = saved
        if not stmts:
            lines.append(f"{indent}pass")

    def _sync_step(self, lines: list, indent: str, span) -> None:
        lines += [f"{indent}meter.work += 1",
                  f"{indent}if meter.work >= meter.checkpoint:",
                  f"{indent}    meter.check({self.const(span, 'S')})"]

    def _sync_stmt(self, st, lines: list, indent: str, in_loop: bool) -> None:
        kind = type(st)
        if kind is N.If:
            self._sync_step(lines, indent, st.span)
            for k, (cond, body) in enumerate(st.branches):
                lines += [f"{indent}{'elif' if k else 'if'} ({self.x(cond)}", f"{indent}):"]
                self._sync_block(body, lines, indent + "    ", in_loop)
            if st.other is not None:
                lines.append(f"{indent}else:")
                self._sync_block(st.other, lines, indent + "    ", in_loop)
        elif kind is N.For and st.chosen_by is None:
            self._sync_step(lines, indent, st.span)
            item = self.fresh("_i")
            # the collection as the built-in gives it (a copy of a zone or a cell), not a board's
            # own list: the loop's body may move cards
            lines.append(f"{indent}for {item} in _as_list({self.x(st.coll)}):")
            inner = indent + "    "
            lines.append(f"{inner}v[{st.var!r}] = {item}")
            saved = self.pylocals, self.card_locals
            if not _rebinds(st.body, st.var):
                # the loop's own Python name stands for its variable in the expressions written here
                # (the statements' closures read it from v)
                self.pylocals = {**self.pylocals, st.var: item}
                if self.yields_cards(st.coll):  # (`item` is a fresh name: no other place holds it)
                    self.card_locals = self.card_locals | {item}
            try:
                with self.cc.scoped({st.var}):
                    if st.cond is not None:
                        lines += [f"{inner}if not ({self.x(st.cond)}", f"{inner}):", f"{inner}    continue"]
                    self._sync_step(lines, inner, st.span)
                    self._sync_block(st.body, lines, inner, True)
            finally:
                self.pylocals, self.card_locals = saved
        elif kind in (N.Break, N.Continue) and in_loop:
            lines.append(f"{indent}{'break' if kind is N.Break else 'continue'}")
        elif kind in _SYNC_CONTROL:
            raise _NotSimple()
        elif kind is N.Let:
            # `let x = e` written here, its value with the names this block knows (a loop's card)
            self._sync_step(lines, indent, st.span)
            value = self.fresh("_v")
            lines += self.body_lines(st.value, value, indent)
            lines.append(f"{indent}v[{st.name!r}] = {value}")
            self.cc.scope = self.cc.scope | {st.name}
        else:
            scratch = Code(-1, "", "always", st.span)
            self.cc.stmt(scratch, st, [])
            if len(scratch.ops) != 1 or type(scratch.ops[0]) not in (Exec, SignalOp, CallProc, PerformOp):
                raise _NotSimple()
            op = scratch.ops[0]
            self._sync_step(lines, indent, st.span)
            if type(op) is Exec:
                lines.append(f"{indent}{self.const(op.fn, 'F')}(c)")
                return
            lines.append(f"{indent}{self.const(op, 'O')}.run(vm, frame)")  # the op itself (its pc is not read)
            if type(op) is not SignalOp:
                # a procedure or a keyword's effect was pushed above this rule's frame: run it to its
                # end now, as VM.run_sync does (False: the rule itself was unwound)
                lines += [f"{indent}if len(stack) != level and not vm.finish_pushed(level):",
                          f"{indent}    return"]

    def option_walker(self, bindings: list, cond, span) -> Callable:
        """One option of `choose { option name(x in xs where c, y in ys) if cond {...} }` as nested
        Python loops: W(c, rows) appends the values of every binding that passes, in the order
        ChooseAmong.enumerate's walk finds them. A collection that names no earlier binding is
        worked out once, when first reached; each bound name is also set in c.v, for the parts the
        code generator leaves to closures."""
        fname = self.fresh("W")
        head = [f"def {fname}(c, rows):  # rules line {span.line}", "    v = c.v"]
        lines = []
        saved = self.pylocals, self.in_def, self.no_walrus, self.card_locals
        self.in_def, self.no_walrus, self.card_locals = False, False, frozenset()
        names: list[str] = []

        def written(node, walrus=False) -> str:
            self.pylocals = {n: f"L_{n}" for n in names}
            with self.cc.scoped(set(names)), self.no_def_parameters():
                return self.iterable(node, walrus=True) if walrus else self.x(node)

        try:
            indent = "        "
            for k, b in enumerate(bindings):
                items = written(b.coll, walrus=True)
                if not self.walks_cards(b.coll):
                    items = f"_as_list({items})"
                if not (free_names(b.coll) & set(names)):
                    head.append(f"    F{k} = None")
                    lines += [f"{indent}if F{k} is None:", f"{indent}    F{k} = {items}"]
                    items = f"F{k}"
                names.append(b.var)
                lines.append(f"{indent}for L_{b.var} in {items}:")
                indent += "    "
                lines.append(f"{indent}v[{b.var!r}] = L_{b.var}")
                if b.cond is not None:
                    lines += [f"{indent}if not ({written(b.cond)}", f"{indent}):", f"{indent}    continue"]
            row = "(" + "".join(f"L_{n}, " for n in names) + ")"
            if cond is not None:
                lines += [f"{indent}if ({written(cond)}", f"{indent}):", f"{indent}    rows.append({row})"]
            else:
                lines.append(f"{indent}rows.append({row})")
        finally:
            self.pylocals, self.in_def, self.no_walrus, self.card_locals = saved
        self.sources.append("\n".join(head + ["    try:"] + lines + [
            "    except _CATCH as exc:",
            "        raise _translate(exc) from None", ""]))
        return self.stub(fname)

    def define(self, d: N.DefDecl, pure: bool, charge: bool = True, card_params: frozenset = frozenset()) -> Callable:
        """A def: E_name evaluates it (budgets, recursion), D_name adds the cache of chance-free defs,
        P_name(c, args) is the compiler's calling convention (program.defs). Without `charge`, an
        evaluation counts no work (a lifted condition, which the rules do not call as a def).
        `card_params`: the parameters every call gives a card (a lifted condition's)."""
        name = d.name
        params = [p.name for p in d.params]
        py = [f"L_{p}" for p in params]
        saved = (self.pylocals, self.in_def, self.no_walrus, self.card_locals, self.fixed_params, self.param_reads,
                 self.constant_reads)
        self.pylocals, self.in_def, self.no_walrus = dict(zip(params, py)), True, False
        self.card_locals = frozenset(f"L_{p}" for p in card_params)
        rebound = {x.var for x in nodes_in(d.body) if isinstance(getattr(x, "var", None), str)}
        self.fixed_params, self.param_reads = {f"L_{p}" for p in params if p not in rebound}, {}
        self.constant_reads = {}
        try:
            with self.cc.scoped(set(params)):
                body = "\n".join(self.body_lines(d.body, "value", "        "))
                # a parameter's coordinate (`cell[0]`), read once at the top (g_Index); a def the same all
                # game, looked up where first read (g_Name)
                body = _coordinates_read(self.param_reads, "        ") + "".join(
                    f"        {var} = _MISS\n" for var in self.constant_reads.values()) + body
                body = self.read_once(body, "        ")
        finally:
            (self.pylocals, self.in_def, self.no_walrus, self.card_locals, self.fixed_params, self.param_reads,
             self.constant_reads) = saved
        span = self.const(d.span, "S")
        sig = ", ".join(["c"] + py)
        message = repr(f'def "{name}" calls itself too deeply; it never stops' if charge else
                       "this condition calls defs too deeply; they never stop")
        guarded = (  # the body, its errors reported as the closure engine reports them
            f"    try:\n"
            f"{body}\n"
            f"    except RecursionError:\n"
            f"        raise _RuleError({span}, {message}) from None\n"
            f"    except _CATCH as exc:\n"
            f"        raise _translate(exc) from None\n")
        charged = (  # the body and the work it counts, without a recursion depth
            f"    vm = c.vm\n"
            f"    if vm is not None:\n"
            f"        meter = vm.meter\n"
            f"        meter.work += {DEF_CALL_WORK}  # meter.charge, inline\n"
            f"        if meter.work >= meter.checkpoint:\n"
            f"            meter.check({span})\n"
            f"{guarded}") if charge else guarded
        if self.recursive_defs is not None and name not in self.recursive_defs:
            # it calls no def that calls it back, so it cannot nest deeper than the defs it calls: no
            # recursion depth to count (dependencies.recursive_defs), only its work
            evaluate = charged
        else:
            evaluate = (  # the closure engine's compile_def/evaluate: recursion depth, steps, errors
                f"    vm = c.vm\n"
                f"    meter = vm.meter if vm is not None else None\n"
                f"    if meter is not None:\n"
                f"        meter.depth += 1\n"
                f"        if meter.depth > meter.budgets.recursion_depth:\n"
                f"            meter.depth = 0\n"
                f"            raise _recursion({span}, {name!r}, meter)\n"
                f"        meter.work += {DEF_CALL_WORK}  # meter.charge, inline\n"
                f"        if meter.work >= meter.checkpoint:\n"
                f"            meter.check({span})\n"
                f"{guarded}"
                f"    finally:\n"
                f"        if meter is not None and meter.depth > 0:\n"
                f"            meter.depth -= 1\n")
        self.sources.append(f"def E_{name}({sig}):  # def {name}, rules line {d.span.line}\n{evaluate}    return value\n")
        args = ", ".join(py)
        if pure and self._is_leaf(d.body, set(params)):
            # a leaf (fields, comparisons, arithmetic; no calls, no lists built): evaluating it costs less
            # than looking it up, so it is not remembered. It calls no def, so it cannot recurse.
            self.sources.append(
                f"def D_{name}({sig}):  # def {name} (a leaf, evaluated each time), rules line {d.span.line}\n"
                f"{charged}"
                f"    return value\n")
        elif pure and name in self.constant_defs:
            # the same value all game (dependencies.constant_defs): worked out once per match
            self.sources.append(
                f"def D_{name}(c):  # def {name} (a constant, worked out once per match), rules line {d.span.line}\n"
                f"    constants = c.s.constants\n"
                f"    found = constants.get({name!r}, _MISS)\n"
                f"    if found is _MISS:\n"
                f"        found = constants[{name!r}] = E_{name}(c)\n"
                f"    return found\n")
        elif pure and name in self.neighbourhood_defs:
            # a value worked out from a card and the cards next to it (dependencies.neighbourhood_defs)
            # stays right while nothing comes to or leaves its cell or the cells next to it
            # (near_version), the fields and globals it reads keep their values (a change of one
            # forgets the values of the defs that read it: values.one_value_changed) and nothing else
            # changed (version - accounted): it is remembered across moves elsewhere on the board.
            # A card that is not on a board is worked out each time.
            card = py[0]
            self.sources.append(
                f"def D_{name}(c, {card}):  # def {name} (remembered by neighbourhood), rules line {d.span.line}\n"
                f"    s = c.s\n"
                f"    try:\n"
                f"        where = {card}.cell\n"
                f"        zone = {card}.zone\n"
                f"        near = zone.cells._near  # (BoardCells.near_version, inline)\n"
                f"        count = near.get(where, 0) if near is not None else zone.cells.near_version(where)\n"
                f"    except AttributeError:\n"
                f"        return E_{name}(c, {card})\n"
                f"    changed = s.version - s.accounted\n"
                f"    local = s.local_cache\n"
                f"    mine = local.get({name!r})\n"
                f"    if mine is None:\n"
                f"        mine = local[{name!r}] = {{}}\n"
                f"    found = mine.get({card})  # (what changed elsewhere, count, zone, cell, value)\n"
                f"    if found is not None and found[0] == changed and found[1] == count and found[2] is zone \\\n"
                f"            and found[3] == where:\n"
                f"        return found[4]\n"
                f"{evaluate}"
                f"    mine[{card}] = (changed, count, zone, where, value)\n"
                f"    return value\n")
        elif pure:
            # a def without chance is a pure function of the state: its values are remembered until the
            # state changes (the closure engine's cache, same keys, same stamp); a miss evaluates inline
            # each def's values in a table of its own (`cache[name]`), so that a change of one field or
            # global forgets only the values of the defs that read it (values.keep_remembered)
            key = f"({args},)" if py else "()"
            if self.turn_defs is None or name in self.turn_defs:  # remembered for this turn of this state
                stamp, cache = "(s.version, s.current, s.round, s.phase)", "s.def_cache"
            else:  # it reads no turn (dependencies.turn_defs): remembered for as long as the state stays
                stamp, cache = "s.version", "s.state_cache"
            def remembered(fname: str, what: str, hit: str = "", before: str = "", after: str = "") -> str:
                timing = "    began = _clock()\n" if after else ""
                return (
                    f"def {fname}({sig}):  # def {name} ({what}), rules line {d.span.line}\n"
                    f"{before}"
                    f"    s = c.s\n"
                    f"    stamp = {stamp}\n"
                    f"    cache = {cache}\n"
                    f"    if cache.get('__stamp') != stamp:\n"
                    f"        cache.clear()\n"
                    f"        cache['__stamp'] = stamp\n"
                    f"    mine = cache.get({name!r})\n"
                    f"    if mine is None:\n"
                    f"        mine = cache[{name!r}] = {{}}\n"
                    f"    key = {key}\n"
                    f"    try:\n"
                    f"        found = mine.get(key, _MISS)\n"  # not mine[key]: a miss raising KeyError costs more
                    f"    except TypeError:\n"
                    f"        return E_{name}({sig})\n"
                    f"    if found is not _MISS:\n"
                    f"{hit}"
                    f"        return found\n"
                    f"{timing}"
                    f"{evaluate}"
                    f"    mine[key] = value\n"
                    f"{after}"
                    f"    return value\n")

            # Remembering costs a look-up on every call; it pays only when the same arguments come
            # back before the state changes (a def of the cell just played never does). The first
            # TRIAL_CALLS calls (T_) count the hits and time the misses, then D_ becomes the
            # remembering version (R_) or plain evaluation (E_), whichever costs less (_settle_trial).
            # Values are the same either way, so games are too.
            self.ns[f"_T_{name}"] = [0, 0, 0.0]  # calls, hits, seconds spent on misses
            self.sources.append(remembered(f"R_{name}", "remembered"))
            self.sources.append(remembered(
                f"T_{name}", "remembered, on trial",
                before=(f"    trial = _T_{name}\n"
                        f"    trial[0] += 1\n"
                        f"    if trial[0] == {TRIAL_CALLS}:\n"
                        f"        _settle_trial(globals(), {name!r})\n"),
                hit="        trial[1] += 1\n",
                after="    trial[2] += _clock() - began\n"))
            self.sources.append(f"D_{name} = T_{name}\n")
        else:
            self.sources.append(f"D_{name} = E_{name}\n")
        self.sources.append(f"def P_{name}(c, args):\n    return D_{name}(c, *args)\n")
        return self.stub(f"P_{name}")

    def _is_leaf(self, body, params: set, small: bool = False) -> bool:
        """Whether a def's body is cheaper to evaluate than to look up: it reads names, fields and
        literals, calls only constant-time built-ins (`owner`, `top`, ...), calls no def, and walks no
        collection but the cards on one cell (`any(m in at(board, cell) where ...)`).
        With `small`, whether it takes a bounded time that is small enough to write in place of a
        call (`_quantified_leaf`): it may also walk a range between two numbers, a list written out
        or a constant def's list written out, each of at most SMALL_WALK items, read a constant
        def, and call defs that are leaves (`four_from(p, cell, d) = all(i in 0..3 where owns(p,
        (cell[0] + d[0] * i, cell[1] + d[1] * i)))`)."""
        symbols = self.cc.t.symbols

        def one_cell(coll) -> bool:
            return isinstance(coll, N.Call) and coll.func == "at" and len(coll.args) == 2 and not coll.kwargs

        def small_walk(coll) -> bool:
            if isinstance(coll, N.Range):
                return (isinstance(coll.low, N.IntLit) and isinstance(coll.high, N.IntLit)
                        and coll.high.value - coll.low.value < SMALL_WALK)
            if isinstance(coll, N.ListLit):
                return len(coll.items) <= SMALL_WALK and all(leaf(item) for item in coll.items)
            if isinstance(coll, N.Name) and coll.id not in params:
                listed = self.listed_def(coll.id)
                return listed is not None and coll.id in self.constant_defs and len(listed.items) <= SMALL_WALK
            return False

        def small_ray(coll) -> bool:  # `ray(board, cell, d)` on a fixed board at most SMALL_WALK across
            if not (self.is_builtin(coll, "ray", 3) and isinstance(coll.args[0], N.Name)
                    and coll.args[0].id not in params):
                return False
            info = self.zone_named(coll.args[0])
            t = info.topology if info is not None else None
            if t is None or t.open or t.kind not in ("grid", "hex"):
                return False
            across = 2 * t.radius + 1 if t.radius is not None else max(t.width or 0, t.height or 0)
            return 0 < across <= SMALL_WALK

        def leaf(x) -> bool:
            if isinstance(x, (N.FilterList, N.MapList)):
                if getattr(x, "more", None):
                    return False
                if one_cell(x.coll) or (small and small_ray(x.coll)):
                    walked = [x.coll.args]
                elif small and small_walk(x.coll):
                    walked = []
                else:
                    return False
                inner = {x.var}
                parts = walked + [x.cond] + ([x.expr] if isinstance(x, N.MapList) else [])
                return all(leaf_in(part, params | inner) for part in parts)
            if isinstance(x, N.Call):
                if x.kwargs:
                    return False
                if symbols.get(x.func) is not None:
                    if small and x.func not in params and self._leaf_callee(x.func):
                        return all(leaf(a) for a in x.args)
                    return False  # a def, a procedure, a zone of a player...
                if x.func == "count" and len(x.args) == 1 and not isinstance(x.args[0], (N.FilterList, N.MapList)):
                    return leaf(x.args[0])  # how many cards a cell holds: a length
                if x.func in _CHEAP_WALKS:
                    return len(x.args) == 1 and isinstance(x.args[0], (N.FilterList, N.MapList)) and leaf(x.args[0])
                if x.func not in _CHEAP_BUILTINS:
                    return False
                return all(leaf(a) for a in x.args)
            if isinstance(x, N.ListLit) and small:
                return len(x.items) <= SMALL_WALK and all(leaf(item) for item in x.items)
            if isinstance(x, (N.Range, N.ListLit)):
                return False
            if isinstance(x, N.Name) and x.id not in params:
                sym = symbols.get(x.id)
                if sym is not None and sym.kind in ("def", "proc"):
                    d = self.def_decls.get(x.id)
                    return small and d is not None and not d.params and x.id in self.constant_defs
            if isinstance(x, N.Node):
                return all(leaf(v) for k, v in x.__dict__.items() if k != "span")
            if isinstance(x, (list, tuple)):
                return all(leaf(v) for v in x)
            return True

        def leaf_in(x, names: set) -> bool:
            nonlocal params
            saved, params = params, names
            try:
                return leaf(x)
            finally:
                params = saved

        return leaf(body)

    def _leaf_callee(self, name: str) -> bool:
        """Whether a def that a small def calls (`_is_leaf` with small) is a leaf itself, chance-free
        and never calling itself back; or, without parameters, a constant (read, not worked out)."""
        d = self.def_decls.get(name)
        if d is None or name in self.cc.impure_defs or self.recursive_defs is None or name in self.recursive_defs:
            return False
        key = ("callee", name)
        found = self._inlinable.get(key)
        if found is None:
            found = self._inlinable[key] = (not d.params and name in self.constant_defs) or (
                bool(d.params) and self._is_leaf(d.body, {p.name for p in d.params}))
        return found

    def finish(self) -> None:
        """Assemble the module, compile it (or take it from the cache) and bind every stub."""
        out: list[str] = []
        linemap: list = []
        units: list[tuple[int, str]] = []  # each source's first line (from 0) and text
        for src in self.sources:
            first = len(out)
            for raw in src.split("\n"):
                entry = None
                if "\x01" in raw:
                    head, _, rest = raw.partition("\x01")
                    number, _, tail = rest.partition("\x02")
                    entry = self.entries[int(number)]
                    raw = "            " + head + tail
                out.append(raw)
                linemap.append(entry)
            units.append((first, "\n".join(out[first:]) + "\n"))
        source = "\n".join(out) + "\n"
        from . import __version__

        key = hashlib.sha256(f"{__version__}/{GENERATOR_VERSION}/{sys.version}\n{source}".encode()).hexdigest()
        label = "".join(ch if ch.isprintable() else "?" for ch in self.label)  # a title may hold any character
        self.filename = f"<rulelang generated {label} {key[:12]}>"
        self.source = source
        self.linemap = linemap
        codes = _compiled(units, self.filename, key, label)
        linecache.cache[self.filename] = (len(source), None, source.splitlines(True), self.filename)
        for code in codes:  # the module's statements in order, as exec of the whole module would run them
            exec(code, self.ns)
        for fn, fname in self.stubs:
            real = self.ns[fname]
            fn.__code__ = real.__code__
            fn.__defaults__ = real.__defaults__

    def fused(self, execs: list, start: int):
        """The generated `run` of a FusedExec standing for `execs` (ops start, start+1, ...)."""
        op = FusedExec(start, [o.span for o in execs])
        fname = self.fresh("X")
        first, last = execs[0].span.line, execs[-1].span.line
        lines = [f"def {fname}(op, vm, frame):  # rules lines {first}-{last}",
                 "    s = vm.s",
                 "    c = _Ctx(frame.vars, s, vm)",
                 "    meter = vm.meter",
                 "    op.at = 0",
                 "    try:"]
        for k, o in enumerate(execs):
            if k:
                lines.append(f"        op.at = {k}")
            self.statement(o, lambda line: lines.append(f"        {line}"))
            if k < len(execs) - 1:
                lines += ["        if s.events:",
                          f"            frame.pc = {start + k + 1}",
                          "            return",
                          "        meter.work += 1",
                          "        if meter.work >= meter.checkpoint:",
                          f"            meter.check({self.const(o.span, 'S')})"]
        lines.append(f"        frame.pc = {start + len(execs)}")
        return self._bound(op, fname, lines, start)

    def _bound(self, op, fname: str, lines: list, start: int, translate: bool = False):
        """A fused op's generated `run`, its lines closed (an error leaves the frame at the op that
        failed), with the op bound to it. `translate`: expressions are written in it, their
        failures reported as their own functions report them."""
        lines += ["    except BaseException as exc:" if translate else "    except BaseException:",
                  f"        frame.pc = {start} + op.at"]
        if translate:
            lines += ["        if isinstance(exc, _CATCH):", "            raise _translate(exc) from None"]
        lines += ["        raise", ""]
        self.sources.append("\n".join(lines))
        op.run = types.MethodType(self.stub(fname), op)
        return op

    def fused_region(self, ops: list, run: list, ranges: dict, start: int, stop: int):
        """The generated `run` of a FusedRegion standing for the statements `run` (ops start to
        stop - 1: simple statements, and `if`s and `for each` loops made of them), or None when it
        would nest too deeply. Python's own `if` and `for` stand for the VM's jumps and loop ops;
        `ops` are the block's ops as the statement compiler made them."""
        op = FusedRegion(start, [o.span for o in ops[start:stop]])
        op.unwinds = any(type(o) is EndOp for o in ops[start:stop])
        fname = self.fresh("X")
        lines = [f"def {fname}(op, vm, frame):  # rules lines {run[0].span.line}-{run[-1].span.line}",
                 "    s = vm.s",
                 "    v = frame.vars",
                 "    c = _Ctx(v, s, vm)",
                 "    meter = vm.meter",
                 "    try:"]
        writer = _RegionWriter(self, ops, ranges, start, stop, lines)
        try:
            writer.block(run, "        ", [])
        except _NotSimple:
            return None
        lines += ["        meter.work -= 1  # the VM counts this op as one step: every op above is counted",
                  f"        frame.pc = {stop}"]
        return self._bound(op, fname, lines, start, translate=writer.inlined)

    def statement(self, o, emit: Callable, value_of: Callable | None = None) -> None:
        """One statement of a fused run, its lines given to `emit` in order: `let x = e` and `x = e`
        on a local as Python; `move` with its values worked out here, in the closure's order, and the
        cards put by `values.move_cards`; `=`, `+=`, `-=` of a global, or of a card's or player's own
        field, as the closure does them (`values.set_field` for anything else); the others by their
        closure. `value_of(fn)`: how the value of an expression is written (a call of its function,
        unless a region writes its body in place, before the line that reads it: each value is kept
        in a local of its own first)."""
        def value(fn) -> str:
            return value_of(fn) if value_of is not None else f"{self.const(fn, 'F')}(c)"

        parts = getattr(o.fn, "parts", None)
        if parts is not None and parts[0] == "let":
            _kind, name, fn = parts
            emit(f"c.v[{name!r}] = {value(fn)}")
        elif parts is not None and parts[0] == "move" and parts[6] is None:
            _kind, what, to, at, bottom, face_down, _slot, span = parts
            zone, cell = self.fresh("_z"), self.fresh("_m")
            emit(f"{zone} = {value(to)}")
            emit(f"if type({zone}) is not _BoardZone:")
            emit(f"    {zone} = _the_zone({zone}, {self.const(span, 'S')})")
            emit(f"{cell} = {value(at) if at is not None else 'None'}")
            emit(f"_move_cards(c, {value(what)}, {zone}, {cell}, {bottom}, {face_down}, {self.const(span, 'S')})")
        elif parts is not None and parts[0] == "global" and parts[3] in ("=", "+=", "-="):
            _kind, name, fn, op, key, readers, span = parts
            v, g, old = self.fresh("_v"), self.fresh("_g"), self.fresh("_o")
            emit(f"{v} = {value(fn)}")
            emit(f"{g} = c.s.globals")
            emit(f"{old} = {g}.get({name!r})")
            new = self._updated(old, v, op, span, emit)
            emit(f"if {g}.get({name!r}, _MISS) != {new}:")
            emit(f"    {g}[{name!r}] = {new}")
            emit(f"    _value_changed(c.s, {key!r}, {self.const(readers, 'K')})")
        elif parts is not None and parts[0] == "field" and parts[4] in ("=", "+=", "-="):
            # a card's or a player's own field here; anything else (a card's built-in field, a value
            # that is neither) as the closure does it (values.set_field), the value worked out there
            _kind, obj, attr, fn, op, readers, span = parts
            o, a, v, old = self.fresh("_f"), self.fresh("_a"), self.fresh("_v"), self.fresh("_o")
            emit(f"{o} = {value(obj)}")
            card = f"type({o}) is _Entity" + (f" and {attr!r} in {o}.attrs" if attr in _CARD_PSEUDO_FIELDS else "")
            emit(f"if type({o}) is _Player or {card}:")

            def emit_inner(line: str) -> None:
                emit(f"    {line}")

            emit_inner(f"{a} = {o}.attrs")
            emit_inner(f"{v} = {self.const(fn, 'F')}(c)")
            emit_inner(f"{old} = {a}.get({attr!r})")
            new = self._updated(old, v, op, span, emit_inner)
            emit_inner(f"if type({new}) not in _PLAIN and type({o}) is _Entity:")
            emit_inner(f"    c.s.holding.add({o}.id)")
            emit_inner(f"if {a}.get({attr!r}, _MISS) != {new}:")
            emit_inner(f"    {a}[{attr!r}] = {new}")
            emit_inner(f"    if type({o}) is _Entity and {attr!r} in c.vm.program.keyword_fields:")
            emit_inner("        c.s.cards_version += 1")
            emit_inner(f"    _value_changed(c.s, {attr!r}, {self.const(readers, 'K')})")
            emit("else:")
            emit(f"    _set_field(c, {o}, {attr!r}, {self.const(fn, 'F')}, {op!r}, {self.const(span, 'S')}, None, "
                 f"{self.const(readers, 'K')})")
        else:
            emit(f"{self.const(o.fn, 'F')}(c)")

    def _updated(self, old: str, v: str, op: str, span, emit: Callable) -> str:
        """The Python local holding `old op v` (values._update): whole numbers added or taken away
        here when the result stays within the bound, anything else by the helper."""
        if op == "=":
            return v
        new = self.fresh("_n")
        sign = "+" if op == "+=" else "-"
        emit(f"{new} = ({new} if type({old}) is int and type({v}) is int and {-_BIG} <= ({new} := {old} {sign} {v}) "
             f"<= {_BIG} else _update({old}, {v}, {op!r}, {self.const(span, 'S')}))")
        return new

    # ---- errors
    def span_at(self, line: int):
        """The rules span of a generated line (the construct marked on it), or None."""
        if 1 <= line <= len(self.linemap) and self.linemap[line - 1] is not None:
            return self.linemap[line - 1][1]
        return None

    def _translate(self, exc: BaseException) -> BaseException:
        """A Python exception out of generated code, as the closure engine would have reported it."""
        line = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        entry = self.linemap[line - 1] if line is not None and 1 <= line <= len(self.linemap) else None
        if entry is None:
            return exc
        kind, span, detail = entry
        if kind == "builtin":
            if isinstance(exc, RuleFailure):
                return RuleError(span, str(exc))
            if isinstance(exc, _FAILURES):
                return RuleError(span, f"{detail}() could not use these values: {_plain(exc)}")
        elif kind == "at" and isinstance(exc, _FAILURES):
            return RuleError(span, f"at() could not use these values: {_plain(exc)}")
        return exc

    # ---- expressions
    def x(self, node) -> str:
        method = getattr(self, "g_" + type(node).__name__, None)
        if method is None:
            return self.fallback(node)
        return method(node)

    def fallback(self, node) -> str:
        """The closure engine compiles this node; the generated code calls it (its sub-expressions
        become generated functions of their own)."""
        fn = getattr(ExpressionCompiler, "x_" + type(node).__name__)(self.cc, node)
        k = self.const(fn, "F")
        if not self.pylocals:
            return f"{k}(c)"
        used = free_names(node)
        names = [n for n in self.pylocals if n in used]
        if not names:
            return f"{k}(c)"
        pairs = ", ".join(f"{n!r}: {self.pylocals[n]}" for n in names)
        base = "" if self.in_def else "**c.v, "
        return f"{k}(_Ctx({{{base}{pairs}}}, c.s, c.vm))"

    def span(self, node) -> str:
        return self.const(node.span, "S")

    def g_IntLit(self, x):
        return repr(x.value)

    def g_BoolLit(self, x):
        return "True" if x.value else "False"

    def g_NoneLit(self, x):
        return "None"

    def text(self, value: str) -> str:
        """A text of the rules as Python: its literal, or a constant's name when it could be taken for
        generated code that read_once rewrites (a text holding "c.s" or "_current")."""
        if "c.s" in value or "_current" in value:
            return self.const(value, "K")
        return repr(value)

    def g_StrLit(self, x):
        if "{" not in x.value:
            return self.text(x.value)
        # a text showing values, "{p} draws {n} cards": the compiler's template, as a join
        parts, pos = [], 0
        for m in TEMPLATE_NAMES.finditer(x.value):
            if m.start() > pos:
                parts.append(self.text(x.value[pos:m.start()]))
            names = m.group(1).split(".")
            node: Any = N.Name(span=x.span, id=names[0])
            for attr in names[1:]:
                node = N.Attr(span=x.span, obj=node, name=attr)
            parts.append(f"_describe({self.x(node)})")
            pos = m.end()
        if pos < len(x.value):
            parts.append(self.text(x.value[pos:]))
        return "''.join((" + ", ".join(parts) + ",))"

    def g_Name(self, x):
        name = x.id
        if name in self.pylocals:
            return self.pylocals[name]
        if name in self.cc.scope:
            return f"c.v[{name!r}]"
        if name in BUILTIN_VALUES:
            simple = {"players": "_players_in(c.s)", "all_players": "c.s.players", "round": "c.s.round",
                      "current": "_current(c.s)", "phase": "c.s.phase", "player_count": "len(c.s.players)"}
            if name in simple:
                return simple[name]
            return self.fallback(x)
        sym = self.cc.t.symbols.get(name)
        if sym is None:
            return self.fallback(x)
        kind = sym.kind
        if kind == "var":
            return f"c.s.globals[{name!r}]"
        if kind == "setting":
            value = self.cc.settings[name]
            if type(value) in (int, str, bool) or value is None:
                return repr(value)
            return self.const(value)
        if kind == "table":
            return self.const(self.cc.table_rows(sym.decl))
        if kind == "member":
            return repr(name)
        if kind == "enum":
            return f"list({self.const(tuple(sym.decl.members))})"
        if kind == "zone":
            return f"c.s.zones[{name!r}]"
        if kind == "def" and name in self.setting_defs:  # fixed by the settings (dependencies.setting_defs)
            return repr(self.setting_defs[name])
        if kind == "def" and name in self.def_decls:
            if name in self.constant_defs and self.constant_reads is not None and not self.no_walrus \
                    and not self.def_decls[name].params:
                # the same value all game (dependencies.constant_defs), read again in a def's loops
                # (`d in directions` for every cell): looked up once per call of the def, where first read
                var = self.constant_reads.get(name)
                if var is None:
                    var = self.constant_reads[name] = self.fresh("_k")
                return f"({var} if {var} is not _MISS else ({var} := D_{name}(c)))"
            return f"D_{name}(c)"
        if kind == "keyword":
            return self.const(KeywordValue(name))
        if kind == "phase":
            return repr(name)
        return self.fallback(x)

    def loop_scope(self, var: str, coll):
        """local_scope for a loop's name over `coll`, with what the collection says its items are."""
        return self.local_scope([var], self.yields_cards(coll), self.yields_ints(coll), self.yields_pairs(coll))

    def local_scope(self, names: list[str], cards: bool = False, ints: bool = False, pairs: bool = False):
        """Enter a comprehension: its names become Python locals (and locals of the closure engine's scope,
        for nodes that fall back). With `cards`, they hold cards (yields_cards); with `ints`, whole
        numbers (yields_ints); with `pairs`, tuples of two whole numbers (yields_pairs)."""
        generator = self

        class _Scope:
            def __enter__(self):
                self.saved = dict(generator.pylocals), generator.card_locals
                for n in names:
                    generator.pylocals[n] = f"L_{n}"
                py = {f"L_{n}" for n in names}
                known = generator.card_locals - py - {INT + n for n in py} - {PAIR + n for n in py}
                generator.card_locals = known | (py if cards else set()) | ({INT + n for n in py} if ints else set()) \
                    | ({PAIR + n for n in py} if pairs else set())
                self.scoped = generator.cc.scoped(set(names))
                self.scoped.__enter__()

            def __exit__(self, *exc):
                self.scoped.__exit__(*exc)
                generator.pylocals, generator.card_locals = self.saved

        return _Scope()

    def iterable(self, node, walrus: bool = False) -> str:
        """The collection of a comprehension (Python forbids `:=` there, unless it is a `for` statement's).
        The cards on a cell, `at(board, cell)`, are walked without copying the stack: the loop only reads it."""
        saved = self.no_walrus
        self.no_walrus = saved if walrus else True
        try:
            if self.is_builtin(node, "at", 2):
                board, cell = self.x(node.args[0]), self.x(node.args[1])
                return f"{self.mark('builtin', node.span, 'at')}{board}.cells.stacks.get({cell}, _NOCARDS)"
            if self.is_builtin(node, "ray", 3):
                # a fixed board's ray, as the board shape remembers it: the loop only reads it
                args = ", ".join(self.x(a) for a in node.args)
                return f"{self.mark('builtin', node.span, 'ray')}_ray_walk(c, {args})"
            if self.is_builtin(node, "neighbors", 1) or self.is_builtin(node, "neighbors", 2):
                # the board's own list of the cards next to a cell: the loop only reads it
                args = [self.x(a) for a in node.args]
                mark = self.mark('builtin', node.span, 'neighbors')
                if len(args) == 2 and self.is_board_zone(node.args[0]) and isinstance(node.args[1], N.Name) \
                        and node.args[1].id in self.pylocals:
                    # a board the rules name, and a local cell: its remembered list read in place (an
                    # empty one, or none yet, is the helper's)
                    board, cell = args
                    return f"{mark}({board}.cells._next_to.get({cell}) or _next_to(c, {board}, {cell}))"
                return f"{mark}_next_to(c, {', '.join(args)})"
            numbers = _literal_range(node)
            if numbers is not None:  # `k in 1..3` walked: the numbers themselves, not a new list each time
                return repr(numbers)
            return self.x(node)
        finally:
            self.no_walrus = saved

    def zone_named(self, node):
        """The ZoneInfo of a zone that is not a player's, when `node` is its name (not shadowed): the
        name's value is always that Zone; else None."""
        if not isinstance(node, N.Name) or node.id in self.pylocals or node.id in self.cc.scope:
            return None
        sym = self.cc.t.symbols.get(node.id)
        info = self.cc.program.zones.get(node.id) if sym is not None and sym.kind == "zone" else None
        return info if info is not None and not info.per_player else None

    def is_board_zone(self, node) -> bool:
        """The name of a shared board zone (not shadowed): its value is always that BoardZone."""
        info = self.zone_named(node)
        return info is not None and info.topology is not None

    def walks_cards(self, node) -> bool:
        """Whether `iterable(node)` is a list or tuple as it is (a board's own `at`, `neighbors`,
        `ray`, or the numbers of a literal range): no as_list needed around it."""
        return (self.is_builtin(node, "at", 2) or self.is_builtin(node, "neighbors", 1)
                or self.is_builtin(node, "neighbors", 2) or self.is_builtin(node, "ray", 3)
                or _literal_range(node) is not None)

    def yields_cards(self, node) -> bool:
        """Whether every item of the collection `node` is a card: a zone the rules name (or a
        player's, `hand(p)`), the cards on a cell or next to one, or such a list filtered."""
        while isinstance(node, N.FilterList):
            node = node.coll
        if isinstance(node, N.Name):
            return self.zone_named(node) is not None
        if isinstance(node, N.Call) and not node.kwargs and node.func not in self.cc.scope \
                and node.func not in self.pylocals:
            sym = self.cc.t.symbols.get(node.func)
            if sym is not None:
                return sym.kind == "zone" and len(node.args) == 1 and node.func in self.cc.program.zones
            return (self.is_builtin(node, "at", 2) or self.is_builtin(node, "neighbors", 1)
                    or self.is_builtin(node, "neighbors", 2))
        return False

    def is_empty_cells(self, x) -> bool:
        """Whether a list is `[c in cells(board) where empty(at(board, c))]` of a board the rules name."""
        if not (isinstance(x, N.FilterList) and x.keep == "where" and self.is_builtin(x.coll, "cells", 1)
                and self.is_board_zone(x.coll.args[0]) and self.is_builtin(x.cond, "empty", 1)):
            return False
        at = x.cond.args[0]
        return (self.is_builtin(at, "at", 2) and isinstance(at.args[0], N.Name) and at.args[0].id == x.coll.args[0].id
                and isinstance(at.args[1], N.Name) and at.args[1].id == x.var
                and x.var not in self.pylocals and x.var not in self.cc.scope)

    def listed_def(self, name: str):
        """The body of a def without parameters whose value is a list written out (`dirs = [(1, 0),
        (0, 1)]`), else None."""
        d = self.def_decls.get(name)
        sym = self.cc.t.symbols.get(name)
        if sym is None or sym.kind != "def" or d is None or d.params or not isinstance(d.body, N.ListLit):
            return None
        return d.body

    def yields_pairs(self, node) -> bool:
        """Whether every item of the collection `node` is a tuple of two whole numbers: the cells of a
        fixed grid or hex board the rules name (`cells(grid)`, `empty_cells(grid)`), or a list of
        such pairs written out (`[(1, 0), (0, 1)]`), or a def without parameters whose body is one
        (`line_directions`), or such a collection filtered."""
        while isinstance(node, N.FilterList):
            node = node.coll

        def literal_pairs(items) -> bool:
            return all(isinstance(i, N.CellLit) and all(
                type(v) is N.IntLit or (type(v) is N.Neg and type(v.operand) is N.IntLit) for v in (i.a, i.b))
                for i in items)

        if isinstance(node, N.ListLit):
            return literal_pairs(node.items)
        if isinstance(node, N.Name) and node.id not in self.pylocals and node.id not in self.cc.scope:
            listed = self.listed_def(node.id)
            return listed is not None and node.id not in self.setting_defs and literal_pairs(listed.items)
        if (self.is_builtin(node, "cells", 1) or self.is_builtin(node, "empty_cells", 1)) and self.is_board_zone(node.args[0]):
            t = self.zone_named(node.args[0]).topology
            return not t.open and t.kind in ("grid", "hex")
        return False

    def yields_ints(self, node) -> bool:
        """Whether every item of the collection `node` is a whole number: a range written with
        whole numbers (`0..3`), or such a range filtered."""
        while isinstance(node, N.FilterList):
            node = node.coll
        return _literal_range(node) is not None

    def is_int(self, node) -> bool:
        """Whether the value of `node` is a whole number for sure: one written as such, or a local
        that holds one (card_locals)."""
        if type(node) is N.Neg:
            node = node.operand
        if type(node) is N.IntLit:
            return type(node.value) is int
        if type(node) is N.BinOp:  # of two whole numbers: a whole number, or the helper's error
            return node.op in ("+", "-", "*", "/", "%") and self.is_int(node.left) and self.is_int(node.right)
        if type(node) is N.Index:
            return self.is_pair_coordinate(node)
        return type(node) is N.Name and INT + self.pylocals.get(node.id, "") in self.card_locals

    def is_pair_coordinate(self, node) -> bool:
        """`d[0]` or `cell[1]` of a Python local that holds a tuple of two whole numbers for sure
        (yields_pairs): a whole number, read as it is."""
        return (isinstance(node.index, N.IntLit) and type(node.index.value) is int and node.index.value in (0, 1)
                and isinstance(node.obj, N.Name) and node.obj.id in self.pylocals
                and PAIR + self.pylocals[node.obj.id] in self.card_locals)

    def is_builtin(self, node, name: str, arity: int) -> bool:
        """A call of the built-in `name` (not shadowed by a local or a declaration of the game)."""
        return (isinstance(node, N.Call) and node.func == name and len(node.args) == arity and not node.kwargs
                and name not in self.cc.scope and name not in self.pylocals and self.cc.t.symbols.get(name) is None)

    def is_quantifier(self, node) -> bool:
        return (isinstance(node, N.Call) and node.func in ("any", "all") and node.func not in self.cc.scope
                and node.func not in self.pylocals and len(node.args) == 1 and isinstance(node.args[0], N.FilterList)
                and node.args[0].keep == "where")

    def holds_quantifier(self, node) -> bool:
        """Whether `node` is a quantifier, or `and`/`or`/`not`/`if then else` around one."""
        if isinstance(node, N.BoolOp):
            return any(self.holds_quantifier(item) for item in node.items)
        if isinstance(node, N.Not):
            return self.holds_quantifier(node.operand)
        if isinstance(node, N.CondExpr):
            return self.holds_quantifier(node.then) or self.holds_quantifier(node.other)
        return (self.is_quantifier(node) or self._quantified_leaf(node, bind=True) is not None
                or self.hoistable(node) is not None)

    def _counts(self, node) -> bool:
        """`count([x in coll while cond])` or `count([x in coll where cond])`: body_lines writes it as a
        loop that counts."""
        return self.is_builtin(node, "count", 1) and isinstance(node.args[0], N.FilterList)

    def hoistable(self, node) -> list | None:
        """The calls of defs written in place (inlined_call) in `run_from(p, cell, d) + run_from(p,
        cell, back) >= 3`, in the order they are worked out, when nothing else in the expression but
        arithmetic, comparisons, numbers and local names could fail or be worked out before them:
        body_lines writes each into a Python local first, then the expression with those locals; else
        None (also when there is no such call)."""
        if not isinstance(node, (N.Compare, N.BinOp)):
            return None
        calls: list = []

        def walk(x) -> bool:
            kind = type(x)
            if kind is N.Compare or (kind is N.BinOp and x.op in ("+", "-", "*")):
                return walk(x.left) and walk(x.right)
            if kind is N.Neg:
                return walk(x.operand)
            if kind in (N.IntLit, N.BoolLit):
                return True
            if kind is N.Name:
                return x.id in self.pylocals or x.id in self.cc.scope
            if kind is N.Call and self._quantified_leaf(x, bind=True) is not None:
                calls.append(x)
                return True
            return False

        return calls if walk(node) and calls else None

    def _quantified_leaf(self, node, bind: bool = False):
        """(def, its loop names that the caller uses too) of a call that body_lines writes in place
        (inlined_call), else None. With `bind`, its arguments may be any expressions (body_lines
        keeps their values in Python locals first)."""
        if not isinstance(node, N.Call) or node.kwargs or node.func in self.cc.scope or node.func in self.pylocals:
            return None
        sym = self.cc.t.symbols.get(node.func)
        d = self.def_decls.get(node.func)
        if sym is None or sym.kind != "def" or d is None:
            return None
        if not (self._called_with_locals(d, node.args) or (bind and len(d.params) == len(node.args))):
            return None
        key = ("quantified", node.func)
        bound = self._inlinable.get(key)
        if bound is None:
            params = {p.name for p in d.params}
            found = {x.var for x in nodes_in(d.body) if isinstance(x, (N.FilterList, N.MapList, N.ForClause))}
            small = node.func not in self.cc.impure_defs and self.recursive_defs is not None \
                and node.func not in self.recursive_defs
            bound = self._inlinable[key] = (found if self._is_leaf(d.body, params, small=small) and not found & params
                                            and (self.holds_quantifier(d.body) or self._counts(d.body)) else False)
        if bound is False:
            return None
        # (the closure engine's scope holds the names of every body written around this one too)
        clashes = bound & (set(self.pylocals) | set(self.cc.scope) | _arg_names(node.args))
        if any(self.cc.t.symbols.get(v) is not None for v in clashes):
            return None  # (a loop name that is also a global's, which renaming would change: left as it is)
        return d, clashes

    def inlined_call(self, node, bind: bool = False):
        """(def, arguments) of a call that body_lines writes in place: a leaf def (`_is_leaf`: it
        walks at most the cards on one cell) whose body holds a quantifier, `owns(p, cell) =
        any(m in at(grid, cell) where owner(m) == p)`, given local names (`_called_with_locals`), or
        with `bind` any arguments; else None. Its loop names that the caller uses too are renamed.
        As with `inline_leaf`, only the call and its work count are saved."""
        found = self._quantified_leaf(node, bind)
        if found is None:
            return None
        d, clashes = found
        if clashes:
            used = set(self.pylocals) | set(self.cc.scope) | _arg_names(node.args) | free_names(d.body)
            mapping = {}
            for v in sorted(clashes):
                k = 1
                while f"{v}_{k}" in used:
                    k += 1
                mapping[v] = f"{v}_{k}"
                used.add(mapping[v])
            d = d.model_copy(update={"body": _renamed(d.body, mapping)})
        return d, node.args

    def logic_lines(self, node, target: str, indent: str) -> list[str]:
        """body_lines of `a and any(...)`, `not any(...)`, `if t then x else all(...)`: Python's own
        `if`s around the quantifiers' loops, evaluating what the expression would, in its order, with
        the same short-circuits (g_BoolOp, g_Not, g_CondExpr)."""
        if isinstance(node, N.BoolOp):
            lines = self.body_lines(node.items[0], target, indent)
            for item in node.items[1:]:  # once false (`and`) or true (`or`), every later test fails
                lines.append(f"{indent}if {'' if node.op == 'and' else 'not '}{target}:")
                lines += self.body_lines(item, target, indent + "    ")
            return lines + [f"{indent}{target} = bool({target})"]
        if isinstance(node, N.Not):
            return self.body_lines(node.operand, target, indent) + [f"{indent}{target} = not {target}"]
        lines = [f"{indent}if ({self.x(node.test)}", f"{indent}):"]
        lines += self.body_lines(node.then, target, indent + "    ")
        lines.append(f"{indent}else:")
        return lines + self.body_lines(node.other, target, indent + "    ")

    def body_lines(self, node, target: str, indent: str) -> list[str]:
        """Statements that leave the value of `node` in `target`. A quantifier is written as a `for` loop
        with `break` (nested quantifiers as nested loops): no generator per call, same short-circuit."""
        if (self.is_builtin(node, "count", 1) and isinstance(node.args[0], N.FilterList)
                and node.args[0].var not in self.pylocals and node.args[0].var not in self.cc.scope
                and (node.args[0].keep != "where" or self.lifted_condition(node.args[0]) is None)):
            # `count([x in coll while cond])`, `count([x in coll where cond])`: a loop that counts,
            # without building the list or a lambda
            f = node.args[0]
            coll = self.iterable(f.coll, walrus=True)
            stop = "not " if f.keep == "while" else ""
            walked = self.fresh("_w")  # a tuple too short to count as work (a ray) is walked as it is
            lines = [f"{indent}{target} = 0",
                     f"{indent}for L_{f.var} in ({walked} if type({walked} := ({coll}", f"{indent})) is tuple "
                     f"and len({walked}) <= 64 else _each(c, {walked}, {self.span(f)})):"]
            with self.loop_scope(f.var, f.coll):
                if self.holds_quantifier(f.cond):
                    inner = self.fresh("_q")
                    lines += self.body_lines(f.cond, inner, indent + "    ") + [f"{indent}    if {stop}{inner}:"]
                else:
                    lines += [f"{indent}    if {stop}({self.x(f.cond)}", f"{indent}    ):"]
            if f.keep == "where":
                return lines + [f"{indent}        {target} += 1"]
            return lines + [f"{indent}        break", f"{indent}    {target} += 1"]
        if (isinstance(node, N.FilterList) and node.keep == "where" and node.var not in self.pylocals
                and node.var not in self.cc.scope and self.lifted_condition(node) is None
                and self.holds_quantifier(node.cond)):
            # `[x in coll where ... any(...)]`: a loop that appends, with the condition's quantifiers as
            # loops inside it (no generator for every item), as the comprehension would keep them
            coll = self.iterable(node.coll)
            inner = self.fresh("_q")
            lines = [f"{indent}{target} = []", f"{indent}for L_{node.var} in _each(c, {coll}, {self.span(node)}):"]
            with self.loop_scope(node.var, node.coll):
                lines += self.body_lines(node.cond, inner, indent + "    ")
            return lines + [f"{indent}    if {inner}:", f"{indent}        {target}.append(L_{node.var})"]
        found = self.inlined_call(node, bind=True)
        if found is not None:
            # the arguments that are not local names are worked out first, in order, into Python
            # locals (as a call would, before its body): `owns(p, (x + dx, y + dy))`
            d, args = found
            lines, values = [], []
            for arg in args:
                if isinstance(arg, N.Name) and arg.id in self.pylocals:
                    values.append(None)
                    continue
                # (a rule's variable too: read from the frame's variables once, not at each use)
                kept = self.fresh("_a")
                lines += [f"{indent}{kept} = ({self.x(arg)}", f"{indent})"]
                values.append(kept)
            with self._body_of(d, args, values):
                return lines + self.body_lines(d.body, target, indent)
        if not self.is_quantifier(node):
            calls = self.hoistable(node)
            if calls is not None:
                # each call written in place into a local of its own, in order; then the expression
                lines, kept = [], []
                for call in calls:
                    local = self.fresh("_h")
                    lines += self.body_lines(call, local, indent)
                    kept.append((id(call), local))
                self.hoisted.update(kept)
                try:
                    return lines + [f"{indent}{target} = ({self.x(node)}", f"{indent})"]
                finally:
                    for key, _local in kept:
                        del self.hoisted[key]
            if self.holds_quantifier(node):
                return self.logic_lines(node, target, indent)
            return [f"{indent}{target} = ({self.x(node)}", f"{indent})"]
        want_all = node.func == "all"
        f = node.args[0]
        coll = self.iterable(f.coll, walrus=True)
        walked = self.fresh("_w")  # a list is walked as it is (as_list would return it too, at the cost of a call)
        walk = walked if self.walks_cards(f.coll) else f"({walked} if type({walked}) is list else _as_list({walked}))"
        lines = [f"{indent}{target} = {want_all}", f"{indent}{walked} = ({coll}", f"{indent})",
                 f"{indent}for L_{f.var} in {walk}:"]
        with self.loop_scope(f.var, f.coll):
            if self.holds_quantifier(f.cond):
                inner = self.fresh("_q")
                lines += self.body_lines(f.cond, inner, indent + "    ")
                test = f"not {inner}" if want_all else inner
                lines += [f"{indent}    if {test}:"]
            else:
                cond = self.x(f.cond)
                lines += [f"{indent}    if {'not ' if want_all else ''}({cond}", f"{indent}    ):"]
        lines += [f"{indent}        {target} = {not want_all}", f"{indent}        break"]
        return lines

    def g_Call(self, x):
        hoisted = self.hoisted.get(id(x))
        if hoisted is not None:  # worked out just before, in place (body_lines)
            return hoisted
        name = x.func
        scope = self.cc.scope
        if name in scope or name in self.pylocals:
            return self.fallback(x)
        if name in ("any", "all") and len(x.args) == 1 and isinstance(x.args[0], N.FilterList) \
                and x.args[0].keep == "where":
            f = x.args[0]
            coll = self.iterable(f.coll)
            with self.loop_scope(f.var, f.coll):
                cond = self.x(f.cond)
            var = f"L_{f.var}"
            if self.walks_cards(f.coll):  # already a list or tuple of cards
                return f"{name}(({cond}) for {var} in {coll})"
            if coll.isidentifier():  # a local: a list is walked as it is, without a call to as_list
                return f"{name}(({cond}) for {var} in ({coll} if type({coll}) is list else _as_list({coll})))"
            return f"{name}(({cond}) for {var} in _as_list({coll}))"
        if name == "empty" and len(x.args) == 1 and self.is_builtin(x, "empty", 1):
            found = self.empty_early(x.args[0])
            if found is not None:
                return found
        if name == "first" and len(x.args) == 1 and self.is_builtin(x, "first", 1):
            found = self.first_early(x.args[0])
            if found is not None:
                return found
        if name == "has" and len(x.args) == 2 and isinstance(x.args[1], N.Name):
            return f"_has({self.x(x.args[0])}, {x.args[1].id!r})"
        if name in ("has", "usable", "matched", "matching"):
            return self.fallback(x)
        sym = self.cc.t.symbols.get(name)
        if sym is None and name in BUILTINS:
            return self.builtin(x, name)
        kind = sym.kind if sym else None
        if kind == "def" and name in self.def_decls:
            inline = self.inline_leaf(name, x.args)
            if inline is not None:
                return inline
            args = "".join(f", {self.x(a)}" for a in x.args)
            return f"D_{name}(c{args})"
        if kind == "keyword":
            return f"_KeywordValue({name!r}, (" + "".join(f"{self.x(a)}, " for a in x.args) + "))"
        if kind == "zone" and len(x.args) == 1:
            return f"_player_zone(c, {self.x(x.args[0])}, {name!r}, {self.span(x)})"
        return self.fallback(x)

    def empty_early(self, arg) -> str | None:
        """`empty([x in xs where cond])`, or `empty(d(a))` of a def whose body is such a list (called
        with local names, and without chance), as a loop that stops at the first item kept:
        `not empty(new_places(card))` asks whether a card has a place, not where all its places are."""
        def early(found: N.FilterList) -> str:
            coll = self.iterable(found.coll)
            with self.loop_scope(found.var, found.coll):
                cond = self.x(found.cond)
            var = f"L_{found.var}"
            return f"(not any(({cond}) for {var} in _each(c, {coll}, {self.span(found)})))"

        if isinstance(arg, N.FilterList) and arg.keep == "where":
            return early(arg)
        if isinstance(arg, N.Call) and arg.func in self.def_decls and not arg.kwargs \
                and arg.func not in self.cc.scope and arg.func not in self.pylocals \
                and arg.func not in self.cc.impure_defs:
            d = self.def_decls[arg.func]
            if isinstance(d.body, N.FilterList) and d.body.keep == "where" and self._called_with_locals(d, arg.args):
                with self._body_of(d, arg.args):
                    return early(d.body)
        return None

    def first_early(self, arg) -> str | None:
        """`first([x in xs where cond])` and `first([e for x in xs where cond])`: the items walked until
        the first one kept (none when none is), as empty_early stops at the first: the lowest empty
        cell of a column is found without testing the cells above it."""
        if isinstance(arg, N.FilterList) and arg.keep == "where":
            expr, cond = None, arg.cond
        elif isinstance(arg, N.MapList) and not arg.more:
            expr, cond = arg.expr, arg.cond
        else:
            return None
        coll = self.iterable(arg.coll)
        var = f"L_{arg.var}"
        with self.loop_scope(arg.var, arg.coll):
            item = var if expr is None else f"({self.x(expr)})"
            test = "" if cond is None else f" if ({self.x(cond)})"
        return f"next(({item} for {var} in _each(c, {coll}, {self.span(arg)}){test}), None)"

    def _called_with_locals(self, d: N.DefDecl, args: list) -> bool:
        """Whether a call gives a def each of its parameters as a local name (a loop's card, a def's
        parameter, a rule's variable): its body can then be written in place (`_body_of`)."""
        return len(d.params) == len(args) and all(
            isinstance(a, N.Name) and (a.id in self.pylocals or a.id in self.cc.scope) for a in args)

    @contextmanager
    def _body_of(self, d: N.DefDecl, args: list, kept: list | None = None):
        """While writing a def's body in place of a call (`_called_with_locals`): its parameters are
        the caller's names (or the Python locals `kept` holds for some), and nothing else of the
        caller is in scope."""
        params = [p.name for p in d.params]
        # a Python local, or a rules variable read as c.v[name]
        values = [self.x(a) if kept is None or kept[i] is None else kept[i] for i, a in enumerate(args)]
        saved = self.pylocals, self.in_def
        self.pylocals, self.in_def = dict(zip(params, values)), True
        try:
            with self.cc.scoped(set(params)):
                yield
        finally:
            self.pylocals, self.in_def = saved

    def inline_leaf(self, name: str, args: list) -> str | None:
        """A call of a leaf def (`Generator._is_leaf`) without lists in its body, whose values are
        local names (a loop's card, a def's parameter, a rule's variable): the body itself, written with those names for
        its parameters, so no function is called (`is_habitat(n)` becomes `(L_n.kind == ...)`). A leaf
        is evaluated each time anyway; only the call (and its work count) is saved."""
        d = self.def_decls[name]
        if not self._called_with_locals(d, args):
            return None
        inlinable = self._inlinable.get(name)
        if inlinable is None:
            inlinable = self._inlinable[name] = self._is_leaf(d.body, {p.name for p in d.params}) and not any(
                isinstance(n, (N.FilterList, N.MapList)) for n in nodes_in(d.body))
        if not inlinable:
            return None
        with self._body_of(d, args):
            return f"({self.x(d.body)})"

    def builtin(self, x, name: str) -> str:
        if name == "owner" and len(x.args) == 1 and not self.no_walrus:
            # the built-in's own code, inline; a failure is reported as the built-in's (its line is marked)
            t = self.fresh("_t")
            return (f"{self.mark('builtin', x.span, name)}(c.s.players[{t}.owner] if ({t} := {self.x(x.args[0])}).owner "
                    f"is not None else None)")
        inner = x.args[0] if len(x.args) == 1 else None
        if (name in ("empty", "count") and isinstance(inner, N.Call) and inner.func == "at" and len(inner.args) == 2
                and "at" not in self.cc.scope and "at" not in self.pylocals and self.cc.t.symbols.get("at") is None):
            board, cell = self.x(inner.args[0]), self.x(inner.args[1])
            stack = f"{self.mark('at', inner.span)}{board}.cells.stacks.get({cell}, _NOCARDS)"
            return f"(len({stack}) == 0)" if name == "empty" else f"len({stack})"
        if name == "region" and len(x.args) == 3 and not self.no_walrus and self.is_owned_region(x):
            # region(board, cell, owned_cells(board, p)): the group the board keeps (_region_owned);
            # anything but a player is the built-ins' (and their failures, at their lines)
            board, cell = self.x(x.args[0]), self.x(x.args[1])
            t = self.fresh("_t")
            p, owned = self.owned_cells_of(x.args[2], x.args[0].id, board, t)
            return (f"{self.mark('builtin', x.span, name)}(_region_owned({board}, {cell}, {t}) if type({t} := {p}) is _Player "
                    f"else {self.const(BUILTINS[name].impl, 'B')}(c, {board}, {cell}, {owned}))")
        if name == "regions" and len(x.args) == 2 and not self.no_walrus and self.is_owned_regions(x):
            # regions(board, owned_cells(board, p)): the groups the board keeps (_regions_owned); anything
            # but a player is the built-ins' (and their failures, at their lines)
            board = self.x(x.args[0])
            t = self.fresh("_t")
            p, owned = self.owned_cells_of(x.args[1], x.args[0].id, board, t)
            return (f"{self.mark('builtin', x.span, name)}(_regions_owned({board}, {t}) if type({t} := {p}) is _Player "
                    f"else {self.const(BUILTINS[name].impl, 'B')}(c, {board}, {owned}))")
        if name == "distance" and len(x.args) == 3 and not self.no_walrus and self.is_board_zone(x.args[0]):
            inline = self.board_distance(x)
            if inline is not None:
                return inline
        impl = self.const(BUILTINS[name].impl, "B")
        args = "".join(f", {self.x(a)}" for a in x.args)
        return f"{self.mark('builtin', x.span, name)}{impl}(c{args})"

    def is_owned_region(self, x) -> bool:
        """`region(board, cell, owned_cells(board, p))` on a board the rules name, the cell a local name
        (nothing that can fail is worked out before the player, in either order), the player anything;
        `owned_cells(board, p)` may be a def that is just that (`stones(p) = owned_cells(board, p)`)."""
        board, cell, owned = x.args
        return (self.is_board_zone(board) and isinstance(cell, N.Name)
                and (cell.id in self.pylocals or cell.id in self.cc.scope) and self.owned_cells_call(owned, board.id))

    def is_owned_regions(self, x) -> bool:
        """`regions(board, owned_cells(board, p))` on a board the rules name (or a def that is just
        `owned_cells(board, p)`)."""
        board, owned = x.args
        return self.is_board_zone(board) and self.owned_cells_call(owned, board.id)

    def owned_cells_call(self, node, board: str) -> bool:
        """`owned_cells(board, p)`, or a call of a def with one parameter whose body is just
        `owned_cells(board, parameter)`."""
        if self.is_builtin(node, "owned_cells", 2):
            return isinstance(node.args[0], N.Name) and node.args[0].id == board
        if not (isinstance(node, N.Call) and len(node.args) == 1 and not node.kwargs and node.func not in self.cc.scope
                and node.func not in self.pylocals):
            return False
        sym, d = self.cc.t.symbols.get(node.func), self.def_decls.get(node.func)
        if sym is None or sym.kind != "def" or d is None or len(d.params) != 1:
            return False
        body, param = d.body, d.params[0].name
        return (isinstance(body, N.Call) and body.func == "owned_cells" and len(body.args) == 2 and not body.kwargs
                and self.cc.t.symbols.get("owned_cells") is None and param not in ("owned_cells", board)
                and isinstance(body.args[0], N.Name) and body.args[0].id == board
                and isinstance(body.args[1], N.Name) and body.args[1].id == param)

    def owned_cells_of(self, node, board_id: str, board: str, t: str) -> tuple[str, str]:
        """For an owned_cells_call: the player's expression, and the call of the cells with the player
        in Python local t (the built-in, or the def: a failure is said at its own line)."""
        if self.is_builtin(node, "owned_cells", 2):
            impl = f"{self.mark('builtin', node.span, 'owned_cells')}{self.const(BUILTINS['owned_cells'].impl, 'B')}"
            return self.x(node.args[1]), f"{impl}(c, {board}, {t})"
        return self.x(node.args[0]), f"D_{node.func}(c, {t})"

    def board_distance(self, x) -> str | None:
        """`distance(board, a, b)` on a grid or hex board the rules name: the board's formula
        (board.Topology.distance) written in place for two cells; anything else is the built-in's."""
        topology = self.cc.program.zones[x.args[0].id].topology
        board, a, b = (self.x(arg) for arg in x.args)
        ta, tb = self.fresh("_t"), self.fresh("_t")
        dx, dy = f"{ta}[0] - {tb}[0]", f"{ta}[1] - {tb}[1]"
        if topology.kind == "hex":
            formula = f"(abs({dx}) + abs({dy}) + abs({dx} + {dy})) // 2"
        elif topology.kind == "grid":
            formula = f"max(abs({dx}), abs({dy}))" if topology.neighbours == 8 else f"abs({dx}) + abs({dy})"
        else:
            return None
        impl = self.const(BUILTINS["distance"].impl, "B")
        # (`&`, not `and`: both cells are worked out, whichever is not a cell)
        return (f"{self.mark('builtin', x.span, 'distance')}({formula} if (type({ta} := {a}) is tuple) "
                f"& (type({tb} := {b}) is tuple) else {impl}(c, {board}, {ta}, {tb}))")

    def g_Attr(self, x):
        obj = self.x(x.obj)
        name = x.name
        span = self.span(x)
        if obj in self.card_locals and isinstance(x.obj, N.Name):
            # a local that holds a card (yields_cards): no need to ask what it is
            if name in _ENTITY_SLOTS:
                return f"{obj}.{name}"
            if name == "component":
                return f"{obj}.card.component"
            if name != "owner":
                return f"({obj}.attrs[{name!r}] if {name!r} in {obj}.attrs else _attr(c, {obj}, {name!r}, {span}))"
        if self.no_walrus:
            return f"_attr(c, {obj}, {name!r}, {span})"
        t = self.fresh("_t")
        if name in _ENTITY_SLOTS:  # a card's own property (no component may declare a field of that name)
            return f"({t}.{name} if type({t} := {obj}) is _Entity else _attr(c, {t}, {name!r}, {span}))"
        if name == "component":  # a card's component, as a text (values.entity_extra)
            return f"({t}.card.component if type({t} := {obj}) is _Entity else _attr(c, {t}, 'component', {span}))"
        if name == "owner":  # a card's owner, a player or none (values.entity_extra); a zone's is _attr's
            seat = self.fresh("_t")
            return (f"((c.s.players[{seat}] if ({seat} := {t}.owner) is not None else None) "
                    f"if type({t} := {obj}) is _Entity else _attr(c, {t}, 'owner', {span}))")
        return (f"({t}.attrs[{name!r}] if type({t} := {obj}) in _EP and {name!r} in {t}.attrs "
                f"else _attr(c, {t}, {name!r}, {span}))")

    def g_Index(self, x):
        if self.is_pair_coordinate(x):  # `d[0]` of a local holding a tuple of two whole numbers
            return f"{self.pylocals[x.obj.id]}[{x.index.value}]"
        if isinstance(x.index, N.IntLit) and type(x.index.value) is int and x.index.value >= 0 \
                and isinstance(x.obj, N.Name) and self.pylocals.get(x.obj.id) in self.fixed_params:
            # `cell[0]` of a def's parameter, which keeps its value while the def is worked out: read
            # once, at the def's top, when it is there (else _index says why not, here)
            name, k = self.pylocals[x.obj.id], x.index.value
            var = self.param_reads.get((name, k))
            if var is None:
                var = self.param_reads[(name, k)] = self.fresh("_p")
            return f"({var} if {var} is not _MISS else _index({name}, {k}, {self.span(x)}))"
        if isinstance(x.index, N.IntLit) and x.index.value >= 0 and not self.no_walrus:
            # `d[0]`: a cell's or direction's coordinate, read inline; anything else is _index's
            t, k = self.fresh("_t"), x.index.value
            return (f"({t}[{k}] if type({t} := {self.x(x.obj)}) in _TL and len({t}) > {k} "
                    f"else _index({t}, {k}, {self.span(x)}))")
        return f"_index({self.x(x.obj)}, {self.x(x.index)}, {self.span(x)})"

    def g_ListLit(self, x):
        return "[" + ", ".join(self.x(i) for i in x.items) + "]"

    def g_FilterList(self, x):
        if self.is_empty_cells(x):
            # `[c in cells(board) where empty(at(board, c))]`: the board's empty cells, which it keeps
            # up to date as cards come and go (empty_cells), in the same order
            return f"{self.mark('builtin', x.span, 'cells')}_empty_cells_of(c, {self.x(x.coll.args[0])}, {self.span(x)})"
        coll = self.iterable(x.coll)
        var = f"L_{x.var}"
        lifted = self.lifted_condition(x)
        if lifted is not None:
            return f"[{var} for {var} in _each(c, {coll}, {self.span(x)}) if D_{lifted}(c, {var})]"
        saved = self.no_walrus
        self.no_walrus = saved or x.keep != "where"  # the condition of `while`/`until` is a lambda's body
        try:
            with self.loop_scope(x.var, x.coll):
                cond = self.x(x.cond)
        finally:
            self.no_walrus = saved
        if x.keep == "where":
            return f"[{var} for {var} in _each(c, {coll}, {self.span(x)}) if ({cond})]"
        # `[x in coll while cond]`: the items from the start for as long as cond holds (`until`: until it does)
        test = f"({cond})" if x.keep == "while" else f"not ({cond})"
        return f"list(_takewhile(lambda {var}: {test}, _each(c, {coll}, {self.span(x)})))"

    def lifted_condition(self, x) -> str | None:
        """The name of the def a list's condition was lifted into (dependencies.lifted_conditions),
        written on first use; None when it was not, or when the condition names a local of this
        place (the lifted def would read a global of that name instead)."""
        if x.keep != "where" or self.no_walrus:
            return None
        d = self.lifted.get((x.cond.span.line, x.cond.span.column, x.var))
        if d is None or (free_names(x.cond) - {x.var}) & (set(self.cc.scope) | set(self.pylocals)):
            return None
        if d.name not in self.lifted_written:
            self.lifted_written.add(d.name)
            self.define(d, True, charge=False,
                        card_params=frozenset({x.var}) if self.yields_cards(x.coll) else frozenset())
        return d.name

    def g_MapList(self, x):
        clauses = [(x.var, x.coll)] + [(f.var, f.coll) for f in x.more]
        span = self.span(x)
        parts = []
        saved = dict(self.pylocals)
        entered = []
        try:
            for var, coll in clauses:
                parts.append(f"for L_{var} in _each(c, {self.iterable(coll)}, {span})")
                scope = self.loop_scope(var, coll)
                scope.__enter__()
                entered.append(scope)
            expr = self.x(x.expr)
            cond = f" if ({self.x(x.cond)})" if x.cond is not None else ""
        finally:
            for scope in reversed(entered):
                scope.__exit__(None, None, None)
            self.pylocals = saved
        return f"[({expr}) {' '.join(parts)}{cond}]"

    def g_CondExpr(self, x):
        return f"(({self.x(x.then)}) if ({self.x(x.test)}) else ({self.x(x.other)}))"

    def g_BinOp(self, x):
        self.arith_depth += 1
        try:
            return self._binop(x)
        finally:
            self.arith_depth -= 1

    def _binop(self, x):
        a, b = self.x(x.left), self.x(x.right)
        span = self.span(x)

        def helper(left: str, right: str = b) -> str:  # whole numbers at once; anything else as the closure engine does
            if x.op == "+":
                return f"_add(c, {left}, {right}, {span})"
            name = _ARITHMETIC.get(x.op)
            return f"{name}({left}, {right}, {span})" if name is not None else f"_arith({left}, {right}, {x.op!r}, {span})"

        if self.no_walrus or self.arith_depth > ARITH_IN_PLACE:
            return helper(a)
        k = x.right.value if type(x.right) is N.IntLit else None
        if x.op in ("+", "-") and type(k) is int and 0 <= k <= _BIG and not self.is_int(x.left):
            # `n + 1`, `y - 1`: a whole number and a literal add up here, when the result stays within
            # the bound; anything else (or a result beyond it) goes to the helper, as before
            t = self.fresh("_t")
            low, high = (-_BIG - k, _BIG - k) if x.op == "+" else (-_BIG + k, _BIG + k)
            return f"({t} {x.op} {b} if type({t} := {a}) is int and {low} <= {t} <= {high} else {helper(t)})"
        if x.op in ("+", "-", "*", "/", "%"):
            # two whole numbers (`run_from(p, cell, d) + run_from(p, cell, back)`, `d[0] * i`) are
            # worked out here: both sides first (`&`, not `and`), and what is not a whole number for
            # sure is asked (is_int); anything else, a result beyond the bound or a division by zero,
            # goes to the helper, which says so
            known = self.is_int(x.left), self.is_int(x.right)
            sides, names, tests = [], [], []
            for node, text, sure in ((x.left, a, known[0]), (x.right, b, known[1])):
                if sure and (type(node) is N.IntLit or text.isidentifier()):
                    sides.append(text)  # a literal or a local: read again at no cost, and cannot fail
                    names.append(text)
                    continue
                t = self.fresh("_t")
                names.append(t)
                if all(known):  # nothing to ask: each side is kept as the operation reads it, in order
                    sides.append(f"({t} := {text})")
                else:
                    sides.append(t)
                    tests.append(f"(type({t} := {text}) is int)")
            ta, tb = sides
            test = " & ".join(tests)
            fallback = helper(*names)
            if x.op in ("/", "%"):
                pyop = "//" if x.op == "/" else "%"
                if all(known):  # both sides read in order (a side kept in a local), then the divisor asked for zero
                    read = f"({ta} is not None) & " if ta != names[0] else ""
                    return f"({names[0]} {pyop} {names[1]} if {read}({tb} != 0) else {fallback})"
                return f"({ta} {pyop} {tb} if {test + ' and ' if test else ''}{tb} else {fallback})"
            total = self.fresh("_t")
            result = f"{-_BIG} <= ({total} := {ta} {x.op} {tb}) <= {_BIG}"
            return f"({total} if {test + ' and ' if test else ''}{result} else {fallback})"
        return helper(a)

    def g_Compare(self, x):
        a, b = self.x(x.left), self.x(x.right)
        if x.op in ("==", "!="):
            return f"(({a}) {x.op} ({b}))"
        helper = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}[x.op]
        if self.no_walrus:
            return f"{helper}({a}, {b}, {self.span(x)})"
        if type(x.right) is N.IntLit and type(x.right.value) is int:
            # `count(...) >= 3`: a whole number is compared here; anything else by the helper
            if self.is_int(x.left) and a.isidentifier():
                return f"({a} {x.op} {b})"
            t = self.fresh("_t")
            return f"({t} {x.op} {b} if type({t} := {a}) is int else {helper}({t}, {b}, {self.span(x)}))"
        # two values: whole numbers compared here (both sides first), anything else by the helper
        ta, tb = self.fresh("_t"), self.fresh("_t")
        return (f"({ta} {x.op} {tb} if (type({ta} := {a}) is int) & (type({tb} := {b}) is int) "
                f"else {helper}({ta}, {tb}, {self.span(x)}))")

    def g_Member(self, x):
        op = "not in" if x.negated else "in"
        if not self.no_walrus:  # a list is searched as it is; anything else as _as_list makes it one
            t = self.fresh("_t")
            return f"(({self.x(x.elem)}) {op} ({t} if type({t} := {self.x(x.coll)}) is list else _as_list({t})))"
        return f"(({self.x(x.elem)}) {op} _as_list({self.x(x.coll)}))"

    def g_BoolOp(self, x):
        joiner = f" {x.op} "
        return "bool(" + joiner.join(f"({self.x(i)})" for i in x.items) + ")"

    def g_Not(self, x):
        return f"(not ({self.x(x.operand)}))"

    def g_Neg(self, x):
        return f"(-({self.x(x.operand)}))"

    def g_Range(self, x):
        return f"_range(c, {self.x(x.low)}, {self.x(x.high)}, {self.span(x)})"

    def g_CellLit(self, x):
        return f"({self.x(x.a)}, {self.x(x.b)})"


# ------------------------------------------------------------------ fused statements


def _coordinates_read(reads: dict, indent: str) -> str:
    """The lines at a def's top that read its parameters' coordinates (g_Index): for each
    parameter, one test of what it holds, then each coordinate read, or _MISS for all of them
    (each read then asks _index in place, which says why, or reads a shorter one)."""
    by_name: dict = {}
    for (name, k), var in reads.items():
        by_name.setdefault(name, []).append((k, var))
    lines = []
    for name, items in by_name.items():
        top = max(k for k, _ in items)
        lines.append(f"{indent}if type({name}) in _TL and len({name}) > {top}:")
        lines += [f"{indent}    {var} = {name}[{k}]" for k, var in items]
        lines += [f"{indent}else:", f"{indent}    {' = '.join(var for _, var in items)} = _MISS"]
    return "".join(line + "\n" for line in lines)


_BOARD_CELLS = re.compile(r"c\.s\.zones\[('[A-Za-z_][A-Za-z_0-9]*')\]\.cells\.stacks")  # (read_once)
_CURRENT = "_current(c.s)"  # the current player, as g_Name writes it (read_once)
_LOOP = re.compile(r"^\s*for |\bfor\b.*\bin\b", re.M)  # a loop, or a comprehension


def _arg_names(args: list) -> set:
    """The names a call's arguments read (those that are names, and those inside the others)."""
    return set().union(*(free_names(a) for a in args)) if args else set()


def _rebinds(body: list, name: str) -> bool:
    """Whether a statement of `body` gives `name` a new value (`let`, an assignment, a loop or a
    choice of that name)."""
    for x in nodes_in(body):
        if isinstance(x, N.Let) and x.name == name:
            return True
        if isinstance(x, N.Assign) and isinstance(x.target, N.Name) and x.target.id == name:
            return True
        if isinstance(x, (N.For, N.Choose, N.Binding, N.Respond)) and x.var == name:
            return True
    return False


def _renamed(node, mapping: dict):
    """A copy of an expression with the names a comprehension binds renamed (`mapping`), for a def
    body written in place of a call (Generator.inlined_call); nodes without them are shared."""
    if isinstance(node, N.Name):
        return node.model_copy(update={"id": mapping[node.id]}) if node.id in mapping else node
    node = rebuilt(node, lambda child: _renamed(child, mapping))
    if isinstance(node, (N.FilterList, N.MapList, N.ForClause)) and node.var in mapping:
        node = node.model_copy(update={"var": mapping[node.var]})
    return node


class FusedExec(Op):
    """A run of consecutive simple statements (the compiler's `Exec` ops: assignments, moves, draws...)
    as ONE op whose generated `run` calls them one after the other, instead of one trip through the VM
    per statement. It behaves exactly like the ops it stands for: the steps budget counts each
    statement, pending events (a card entered a watched zone) stop the run right after the statement
    that caused them so that triggers fire at the same point, and an error or the steps budget names
    the statement's own line (`span`). The original ops stay in place after it, so a jump or a saved
    position that lands inside the run still works."""

    __slots__ = ("run", "spans", "start", "at")

    def __init__(self, start: int, spans: list):
        self.start, self.spans, self.at = start, spans, 0
        self.run = None  # the generated function run(vm, frame), bound by Generator.fuse

    @property
    def span(self):
        return self.spans[self.at]


class FusedRegion(FusedExec):
    """Consecutive simple statements, `if`s and `for each` loops made of them, as ONE op whose
    generated `run` is Python's own `if` and `for` (Generator.fused_region). Like FusedExec it
    behaves exactly like the ops it stands for: every op it stands for counts as a step of the
    budget, at the same point, with its own span; when a statement leaves events pending (a card
    entered a watched zone), the run stops right after it, with the frame as the ops themselves
    would have left it (the position after the statement, and each loop's list and next index in its
    slot), and the original ops, still in place, carry on once the triggers have run."""

    __slots__ = ("unwinds",)  # whether it holds an `end ...` (so a procedure of it keeps its frame)


class _RegionWriter:
    """Writes the body of a FusedRegion: each op it stands for, in the order the VM would run it."""

    MAX_DEPTH = 40  # levels of Python indentation a region may use (the tokenizer allows 100)

    INLINE_LINES = 80  # an expression's body longer than this is called, not written in place

    def __init__(self, gen: "Generator", ops: list, ranges: dict, start: int, stop: int, lines: list):
        self.gen, self.ops, self.ranges, self.start, self.stop, self.lines = gen, ops, ranges, start, stop, lines
        self.inlined = False  # an expression's body is written in the region

    def value_of(self, fn, indent: str, loops: list) -> str:
        """The Python value of an expression the compiler made into fn (a condition, a loop's list, a
        `let`'s value): fn's generated body written in place, its value left in `value` (no call per
        test: `for each line in lines { if all(...) }`), or a call of fn when it has no body, is
        long, or would nest too deeply for Python."""
        body = self.gen.expression_bodies.get(id(fn))
        if body is not None:
            rows = body.split("\n")
            levels = max((len(r) - len(r.lstrip(" "))) // 4 - 1 for r in rows if r.strip())
            loops_in = max([(len(r) - len(r.lstrip(" "))) // 4 - 1 for r in rows if r.lstrip().startswith("for ")],
                           default=0)
            # Python allows 20 nested blocks (the region's `try` and loops, and the body's loops) and
            # 100 levels of indentation
            if len(rows) <= self.INLINE_LINES and len(loops) + loops_in + 2 < 20 \
                    and len(indent) // 4 + levels < self.MAX_DEPTH:
                self.lines += [indent + r[8:] if r.startswith("        ") else r for r in rows]
                self.inlined = True
                return "value"
        return f"{self.gen.const(fn, 'F')}(c)"

    def step(self, k: int, indent: str) -> None:
        """The VM's count of op k as one step of work."""
        self.lines += [f"{indent}meter.work += 1",
                       f"{indent}if meter.work >= meter.checkpoint:",
                       f"{indent}    meter.check({self.gen.const(self.ops[k].span, 'S')})"]

    def block(self, stmts: list, indent: str, loops: list) -> None:
        for st in stmts:
            self.stmt(st, indent, loops)

    def deeper(self, indent: str) -> str:
        """The indentation one level in (a region too deeply nested is left to the VM's ops)."""
        if len(indent) // 4 >= self.MAX_DEPTH:
            raise _NotSimple()
        return indent + "    "

    def stmt(self, st, indent: str, loops: list) -> None:
        _, a, b = self.ranges[id(st)]
        ops, lines = self.ops, self.lines
        if b == a:
            return  # a statement with no op of its own
        kind = type(st)
        if kind is N.If:
            self.branches(st, a, b, indent, loops)
        elif kind is N.For:
            init, head = ops[a], ops[a + 1]
            n = len(loops)
            items, index, item = f"_items{n}", f"_i{n}", f"_x{n}"
            lines.append(f"{indent}op.at = {a - self.start}")
            lines.append(f"{indent}{items} = _as_list({self.value_of(init.coll, indent, loops)})")
            self.step(a, indent)
            inner = self.deeper(indent)
            lines += [f"{indent}for {index}, {item} in _enumerate({items}, 1):",
                      f"{inner}v[{head.var!r}] = {item}"]
            if head.cond is not None:
                lines.append(f"{inner}op.at = {a + 1 - self.start}")
                lines += [f"{inner}if not {self.value_of(head.cond, inner, loops + [(head.slot, items, index)])}:",
                          f"{inner}    continue"]
            self.step(a + 1, inner)  # the ForNext that gave this item
            self.block(st.body, inner, loops + [(head.slot, items, index)])
            self.step(b - 2, inner)  # the jump back to the ForNext
            self.step(a + 1, indent)  # the ForNext that found no more items
            self.step(b - 1, indent)  # the ClearSlot after the loop
        elif type(ops[a]) is EndOp:
            # `end turn`, `end game`...: the VM unwinds to what handles it and goes on from there; it
            # counts this op as the step of the region (so no step here). Open loops keep their
            # slots, as the VM's loop ops would leave them.
            o = ops[a]
            lines += [f"{indent}op.at = {a - self.start}"]
            self.keep_slots(indent, loops)
            lines += [f"{indent}frame.pc = {a + 1}",
                      f"{indent}vm.unwind({o.what!r}, {self.gen.const(o.span, 'S')})",
                      f"{indent}return"]
        else:
            o = ops[a]
            lines.append(f"{indent}op.at = {a - self.start}")
            self.gen.statement(o, lambda line: lines.append(f"{indent}{line}"), lambda fn: self.value_of(fn, indent, loops))
            if a + 1 < self.stop or loops:
                lines += [f"{indent}if s.events:"]
                self.keep_slots(indent + "    ", loops)
                lines += [f"{indent}    frame.pc = {a + 1}", f"{indent}    return"]
            self.step(a, indent)

    def keep_slots(self, indent: str, loops: list) -> None:
        """Each open loop's list and next index in its slot, as its ops keep them (before the region
        hands over to the VM)."""
        self.lines += [f"{indent}v[{slot!r}] = [{items}, {index}]" for slot, items, index in loops]

    def branches(self, st, a: int, b: int, indent: str, loops: list) -> None:
        """An `if` chain: each test a JumpIfNot (to the next test), each branch ends with a Jump to the end."""
        ops, lines = self.ops, self.lines
        p = a
        for cond, body in st.branches:
            test = ops[p]
            q = test.target - 1  # the branch's closing Jump
            lines.append(f"{indent}op.at = {p - self.start}")
            lines.append(f"{indent}if {self.value_of(test.cond, indent, loops)}:")
            inner = self.deeper(indent)
            self.step(p, inner)
            self.block(body, inner, loops)
            self.step(q, inner)
            lines.append(f"{indent}else:")
            self.step(p, inner)  # the test failed: on to the next one (or the `else`, or the end)
            indent, p = inner, test.target
        if st.other is not None:
            self.block(st.other, indent, loops)


class RegionRecords:
    """What the statement compiler notes while compiling one block of ops (`Code`), for
    `fuse_regions`: the op range of every statement, and every block of statements with the
    statement it belongs to (None: the code's own body)."""

    __slots__ = ("code", "ranges", "blocks", "parents")

    def __init__(self, code):
        self.code = code
        self.ranges: dict = {}  # id(statement) -> (statement, first op, op after the last)
        self.blocks: list = []  # (statements, the statement they belong to or None)
        self.parents: list = []  # the statements being compiled, outermost first


def fuse_regions(gen: "Generator", code, records: RegionRecords) -> None:
    """Replace the first op of every run of fusable statements (simple ones, and `if`s and `for each`
    loops made only of them) by a FusedRegion; a run of simple statements alone is left to fuse_code."""
    ops = list(code.ops)  # as compiled: regions are written from these
    ranges = records.ranges
    known: dict[int, bool] = {}

    def fusable(st) -> bool:
        found = known.get(id(st))
        if found is None:
            found = known[id(st)] = _fusable(st)
        return found

    def _fusable(st) -> bool:
        entry = ranges.get(id(st))
        if entry is None or entry[0] is not st:
            return False
        _, a, b = entry
        kind = type(st)
        if b == a:
            return kind not in (N.If, N.For)
        if kind is N.If:
            if type(ops[a]) is not JumpIfNot:
                return False
            bodies = [body for _, body in st.branches] + ([st.other] if st.other is not None else [])
            return all(fusable(x) for body in bodies for x in body) and _contiguous(st, a, b)
        if kind is N.For:
            return (st.chosen_by is None and b - a >= 4 and type(ops[a]) is ForInit and type(ops[a + 1]) is ForNext
                    and type(ops[b - 2]) is Jump and ops[b - 2].target == a + 1 and type(ops[b - 1]) is ClearSlot
                    and ops[a + 1].end == b - 1 and _span_of(st.body, a + 2) == b - 2
                    and all(fusable(x) for x in st.body))
        return b - a == 1 and type(ops[a]) in (Exec, EndOp)

    def _contiguous(st, a: int, b: int) -> bool:
        """An `if` laid out as s_If lays it out: test, branch, jump to the end; the next test..."""
        p = a
        for _cond, body in st.branches:
            test = ops[p] if p < b else None
            if type(test) is not JumpIfNot or not p < test.target <= b:
                return False
            q = test.target - 1
            if type(ops[q]) is not Jump or ops[q].target != b or _span_of(body, p + 1) != q:
                return False
            p = test.target
        return _span_of(st.other or [], p) == b

    def _span_of(body: list, first: int) -> int | None:
        """Where the ops of a body end if its statements follow each other from `first`, else None."""
        at = first
        for x in body:
            entry = ranges.get(id(x))
            if entry is None or entry[1] != at:
                return None
            at = entry[2]
        return at

    for stmts, parent in records.blocks:
        if parent is not None and fusable(parent):
            continue  # written inside its parent's region
        run: list = []
        for st in list(stmts) + [None]:
            if st is not None and fusable(st) and (not run or ranges[id(run[-1])][2] == ranges[id(st)][1]):
                run.append(st)
                continue
            if any(type(x) in (N.If, N.For) for x in run):
                start, stop = ranges[id(run[0])][1], ranges[id(run[-1])][2]
                region = gen.fused_region(ops, run, ranges, start, stop)
                if region is not None:
                    code.ops[start] = region
            run = [st] if st is not None and fusable(st) else []


def fuse_code(gen: "Generator", code) -> None:
    """Replace the first op of every run of two or more `Exec` ops of a block by a `FusedExec`."""
    ops = code.ops
    i = 0
    while i < len(ops):
        if type(ops[i]) is not Exec:
            i += 1
            continue
        j = i
        while j < len(ops) and type(ops[j]) is Exec:
            j += 1
        if j - i >= 2:
            ops[i] = gen.fused(ops[i:j], i)
        i = j
