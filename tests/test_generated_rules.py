"""Generated rules files: whatever checks clean loads and plays to its end, or stops with a rules error.

Issue 36: "Nothing that checks clean fails at load or play with an internal error." `Builder` writes
small games out of the language's constructs: a game header, enums, a component and decks made from
written values, ranges, enums, defs, settings or tables, zones and boards (fixed, open, with places),
player fields, variables, settings, defs (recursive ones, board patterns the code generator writes
its own way), keywords, procedures, phases with turns and steps, choices (`choose`, blocks of options
with bindings, `respond`, `offer`), moves and draws, `if`/`for each`/`repeat`/`while`, triggers,
continuous rules, `end`, `eliminate`, durations, a result, a heuristic and variants. Names and values
are random; the statements know the types of the names around them, so most files check clean; in
some files a few expressions are of another kind than the one wanted (`wild`), and a few files lose a
line: the checker refuses those, or the match stops with a rules error.

Hypothesis draws the seeds (`rules_file(seed)` makes a file again). Each file is checked (every
variant); one that checks clean is loaded (its base game or a variant, now and then with other
settings) and one seeded match is played to its end with random choices: every chooser's view and,
now and then, what a seat sees at a table, each answer's label, the match saved and resumed, a copy
played on as a planning bot imagines it, the position scored and the greedy bot asked once. A
`RulesError` whose diagnostics name lines of the file in the rules' words is a fine ending; any other
exception, a diagnostic without a line, or "this rule could not run: SomePythonError" fails.

In CI: 100 files (a few seconds), the same ones every run. A long run draws new ones and prints its
counts and time:

    RULELANG_GENERATED=1500 python -m pytest tests/test_generated_rules.py -s
"""
from __future__ import annotations

import atexit
import os
import random
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import rulelang
from rulelang.language import nodes as N
from rulelang.bots.agents import AgentHandle, GreedyAgent
from rulelang.check.checker import check_rules
from rulelang.core.errors import RulesError
from rulelang.language.parser import parse_text
from rulelang.table.tableview import table_view

LONG = int(os.environ.get("RULELANG_GENERATED", "0") or 0)
EXAMPLES = LONG or 100
BUDGETS = {"steps": 20_000, "cards": 2_000, "list_size": 5_000, "recursion_depth": 30, "trigger_depth": 20,
           "memory_mb": 256}
MAX_DECISIONS = 4_000  # the generated games are bounded (max rounds, turns once): far more means a hang

FOLDER = Path(tempfile.mkdtemp(prefix="rulelang-generated-"))
atexit.register(shutil.rmtree, FOLDER, True)
PATH = FOLDER / "generated.rules"
(FOLDER / "rows.csv").write_text("n,label\n1,one\n2,two\n3,three\n", encoding="utf-8")
(FOLDER / "more.csv").write_text("n,label\n4,four\n5,five\n", encoding="utf-8")

# ------------------------------------------------------------------ generation

WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heath", "inlet", "juniper", "kestrel",
         "larch", "marsh", "nettle", "orchid", "pebble", "quartz", "rowan", "sorrel", "thistle", "umber", "violet",
         "willow", "yarrow", "zephyr"]
LOCALS = ["a", "b", "k", "q", "t", "u", "w", "z", "item", "pick", "gem"]


class Builder:
    """One generated game: what it declared so far (names and their types) and its text."""

    WILDNESS = [0, 0, 0, 2, 5]  # percent of expressions of another kind than the one wanted (see `wild`)

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()
        self.count = 0
        self.decls: list[str] = []
        self.enums: dict[str, list[str]] = {}
        self.fields: dict[str, object] = {}      # the main component's fields -> "int", "bool", "str", ("enum", E), ...
        self.comp = ""
        self.zones: list[str] = []               # shared zones of the main cards
        self.hands: list[str] = []               # per-player zones of the main cards
        self.boards: list[str] = []
        self.supply = ""                         # per-player zone of the board pieces
        self.pfields: dict[str, str] = {}
        self.vars: dict[str, str] = {}
        self.int_settings: list[str] = []
        self.choices: dict[str, list[str]] = {}
        self.card_defs: list[str] = []           # def f(c) = an int of a card
        self.player_defs: list[str] = []         # def f(p) = an int of a player
        self.list_defs: list[str] = []           # def f = a list of whole numbers
        self.bool_defs: list[str] = []           # def f(c) = true or false of a card
        self.keywords: list[str] = []            # keywords without parameters
        self.boosts: list[str] = []              # keywords with one parameter
        self.signals: list[str] = []
        self.procs: list[str] = []
        self.tables: list[str] = []
        self.named_rules: list[str] = []         # triggers with `as NAME` (a variant may remove them)
        self.keyword_names: list[str] = []       # keywords a card may carry in its abilities
        self.created: list[str] = []             # decks made by `create` in setup
        self.created_pieces = ""                 # the board pieces' set
        self.comp_lines: list[str] = []
        self.lattice: dict[str, bool] = {}        # a board -> whether it has directions (grid, hex)
        self.recursive = ""                      # a def that calls itself (on a whole number)
        self.player_vars: list[str] = []         # vars of a player, none until set
        self.last_round = 0                      # without `max rounds`: the round after which a rule ends it
        self.cell_bools: list[tuple] = []         # (def, board): def(p, cell) = true or false
        self.cell_ints: list[tuple] = []          # (def, board): def(p, cell) = a whole number
        self.board_lists: list[tuple] = []        # (def, board): def = a list of cells
        self.player_bools: list[str] = []        # def(p) = true or false
        self.card_procs: list[str] = []          # procedure(howmany: int, which: card)
        self.open_boards: dict[str, bool] = {}   # a board -> whether it grows (no fixed cells)
        self.places: dict[str, list] = {}         # a board -> its limited places
        self.sided: dict[str, bool] = {}          # a board -> whether it has sides (edge)
        self.list_vars: dict[str, str] = {}       # a var -> "cards", "players", "cells" or "ints"
        self.fits = ""                           # def fits(a, b) for matched/matching
        self.discards = False                    # whether the component has a discard pile
        self.variants: list[str] = []
        # how often (percent) an expression is of another kind than the one wanted: none in most files
        self.wildness = self.pick(self.WILDNESS)
        self.deep = self.pick([0, 0, 0, 0, 1, 2, 4])  # levels added to the expressions of some files
        self.nesting = False
        self.wild_now = True

    # ---- drawing
    def pick(self, xs):
        return self.rng.choice(list(xs))

    def num(self, a: int, b: int) -> int:
        return self.rng.randint(a, b)

    def maybe(self, percent: int = 50) -> bool:
        return self.rng.randrange(100) < percent

    def name(self, pool=WORDS) -> str:
        base = self.pick(pool)
        if base in self.used:
            self.count += 1
            base = f"{base}{self.count}"
        self.used.add(base)
        return base

    def local(self) -> str:
        return self.name(LOCALS)

    # ---- expressions (env: local name -> "int", "bool", "player", "card", "cell:BOARD", "text", "any";
    # and flags: "current" (a turn is running), "#loop" and "#while" (break/continue), "#inphase")
    def locals_of(self, env, kind):
        return [n for n, t in env.items() if t == kind]

    def cells(self, env) -> list[tuple[str, str]]:
        """The cell locals and their boards (type "cell:BOARD")."""
        return [(n, t[5:]) for n, t in env.items() if isinstance(t, str) and t.startswith("cell:")]

    def wild(self, env) -> str:
        """Now and then a value of another kind where one kind is wanted (the checker knows the types
        of some values only: what it lets through must fail as a rules error, if at all)."""
        self.wild_now = False
        options = [self.int_expr(env, 0), self.bool_expr(env, 0), self.player_expr(env), self.zone_expr(env),
                   self.text(env), "none", "[]", "(1, 2)", "players", f"[{self.num(0, 3)}, {self.text(env)}]"]
        options += [n for n, t in env.items() if not n.startswith("#")]
        options += list(self.enums) + self.list_defs + self.tables + self.keywords + self.boards
        options += [f"{d}({self.player_expr(env)})" for d in self.player_defs]
        self.wild_now = True
        return self.pick(options)

    def int_expr(self, env, depth=2) -> str:
        if self.wild_now and self.maybe(self.wildness):
            return self.wild(env)
        if self.deep and not self.nesting:  # an expression of its own: deeper in some files
            self.nesting = True
            try:
                return self.int_expr(env, depth + self.deep)
            finally:
                self.nesting = False
        shapes = ["lit", "lit"]
        if self.int_settings:
            shapes.append("setting")
        if any(t == "int" for t in self.vars.values()):
            shapes.append("var")
        if self.locals_of(env, "int"):
            shapes += ["local", "local"]
        if any(t == "int" for t in self.fields.values()) and self.locals_of(env, "card"):
            shapes += ["field", "field"]
        if self.card_defs and self.locals_of(env, "card"):
            shapes.append("card_def")
        shapes += ["pfield", "count", "builtin", "lists"]
        if self.player_defs:
            shapes.append("player_def")
        if self.locals_of(env, "card"):
            shapes.append("card_more")
        if self.boards:
            shapes.append("board")
        if self.cells(env):
            shapes += ["cell", "cell"]
        if self.list_defs:
            shapes.append("list_def")
        if self.recursive and depth > 0:
            shapes.append("recursive")
        if depth > 0:
            shapes += ["arith", "arith", "minmax", "sum", "cond", "roll"]
        shape = self.pick(shapes)
        d = depth - 1
        if shape == "lit":
            return str(self.num(0, 9))
        if shape == "setting":
            return self.pick(self.int_settings)
        if shape == "var":
            return self.pick([n for n, t in self.vars.items() if t == "int"])
        if shape == "local":
            return self.pick(self.locals_of(env, "int"))
        if shape == "field":
            return f"{self.pick(self.locals_of(env, 'card'))}.{self.pick([f for f, t in self.fields.items() if t == 'int'])}"
        if shape == "card_def":
            return f"{self.pick(self.card_defs)}({self.pick(self.locals_of(env, 'card'))})"
        if shape == "pfield":
            return f"{self.player_expr(env)}.{self.pick([f for f, t in self.pfields.items() if t == 'int'])}"
        if shape == "count":
            return f"count({self.cards_expr(env, d)})"
        if shape == "builtin":
            return self.pick(["round", "player_count", "count(players)", f"seat({self.player_expr(env)})"])
        if shape == "player_def":
            return f"{self.pick(self.player_defs)}({self.player_expr(env)})"
        if shape == "card_more":
            c = self.pick(self.locals_of(env, "card"))
            lists = [f for f, t in self.fields.items() if t == "ints"]
            return self.pick([f"{c}.id", f"count(keywords({c}))", f"{c}.id % 3"]
                             + [f"count({c}.{f})" for f in lists] + [f"sum({c}.{f})" for f in lists])
        if shape == "lists":
            x = self.local()
            return self.pick([f"count(distinct([{x}.id % 3 for {x} in {self.zone_expr(env)}]))",
                              f"count(concat({self.zone_expr(env)}, {self.zone_expr(env)}))",
                              f"count(shared({self.zone_expr(env)}, {self.zone_expr(env)}))",
                              f"count(opponents({self.player_expr(env)}))",
                              f"count(turn_order({self.player_expr(env)}))",
                              f"count(matching({self.zone_expr(env)}, {self.zone_expr(env)}, {self.fits}))"
                              if self.fits else "0",
                              f"count(sorted_by(players, [{x}.score for {x} in players]))",
                              f"count(first({self.zone_expr(env)}, {self.int_expr(env, max(d, 0))}))",
                              f"count(last({self.zone_expr(env)}, {self.int_expr(env, max(d, 0))}))",
                              f"count(skip({self.zone_expr(env)}, {self.int_expr(env, max(d, 0))}))",
                              f"count(sample({self.zone_expr(env)}, {self.int_expr(env, max(d, 0))}))",
                              f"count(shuffled({self.zone_expr(env)}))",
                              f"index_of(first({self.zone_expr(env)}), {self.zone_expr(env)})"])
        if shape == "board":
            b = self.pick(self.boards)
            who = self.player_expr(env)
            return self.pick([f"count(occupied_cells({b}))", f"count(empty_cells({b}))", f"count(cells({b}))",
                              f"count(owned_cells({b}, {who}))", f"count(regions({b}, owned_cells({b}, {who})))",
                              f"count(connected_groups({b}))", f"count(frontier({b}))",
                              f"count(cells_around({b}, owned_cells({b}, {who})))",
                              f"count(cards_on({b}, occupied_cells({b})))", f"count({b})"])
        if shape == "cell":
            x, b = self.pick(self.cells(env))
            others = [y for y, c in self.cells(env) if c == b]
            y = self.local()
            return self.pick([f"count(neighbors({b}, {x}))", f"count(empty_cells_around({b}, {x}))",
                              f"count(neighbor_cells({b}, {x}))", f"count(at({b}, {x}))",
                              f"distance({b}, {x}, {self.pick(others)})",
                              f"count(region({b}, {x}, occupied_cells({b})))"]
                             + [f"{d}({self.player_expr(env)}, {x})" for d, c in self.cell_ints if c == b]
                             + ([f"count(ray({b}, {x}, first(directions({b}))))",
                                 f"count([{y} in ray({b}, {x}, last(directions({b}))) while empty(at({b}, {y}))])"]
                                if self.lattice[b] else []))
        if shape == "list_def":
            d = self.pick(self.list_defs)
            x = self.local()
            return self.pick([f"sum({x} * 2 for {x} in {d})", f"count({d})", f"max({d})", f"{d}[0]" if self.maybe(20) else "0"])
        if shape == "recursive":
            return f"{self.recursive}({self.num(0, 5)})"
        if shape == "arith":
            op = self.pick(["+", "-", "*", "/", "%"])
            right = str(self.num(1, 4)) if op in "/%" else self.int_expr(env, d)
            return f"({self.int_expr(env, d)} {op} {right})"
        if shape == "minmax":
            return f"{self.pick(['max', 'min'])}({self.int_expr(env, d)}, {self.int_expr(env, d)})"
        if shape == "sum":
            fields = [f for f, t in self.fields.items() if t == "int"]
            if not fields:
                return "0"
            x = self.local()
            return f"sum({x}.{self.pick(fields)} for {x} in {self.cards_expr(env, d)})"
        if shape == "cond":
            return f"(if {self.bool_expr(env, d)} then {self.int_expr(env, d)} else {self.int_expr(env, d)})"
        return self.pick(["roll(6)", "roll(2, 3)", f"random([1, 2, {self.num(3, 9)}])"])

    def bool_expr(self, env, depth=2) -> str:
        if self.wild_now and self.maybe(self.wildness):
            return self.wild(env)
        if self.deep and not self.nesting:
            self.nesting = True
            try:
                return self.bool_expr(env, depth + self.deep)
            finally:
                self.nesting = False
        shapes = ["compare", "compare", "empty", "lit"]
        cards = self.locals_of(env, "card")
        if cards and any(t == "bool" for t in self.fields.values()):
            shapes.append("field")
        if cards and any(isinstance(t, tuple) for t in self.fields.values()):
            shapes.append("member")
        if cards and self.bool_defs:
            shapes.append("bool_def")
        if cards and self.keywords:
            shapes.append("has")
        if self.choices:
            shapes.append("choice")
        if any(t == "bool" for t in self.vars.values()):
            shapes.append("var")
        if any(t == "bool" for t in self.pfields.values()):
            shapes.append("pfield")
        if cards:
            shapes.append("card_more")
        if self.list_defs and self.locals_of(env, "int"):
            shapes.append("member_of")
        if len(self.cells(env)) >= 1:
            shapes += ["cells", "cells"]
        if self.player_bools:
            shapes.append("player_bool")
        if self.fits:
            shapes.append("matched")
        if depth > 0:
            shapes += ["logic", "not", "any", "players"]
        shape = self.pick(shapes)
        d = depth - 1
        if shape == "card_more":
            c = self.pick(cards)
            more = []
            if self.fields.get("goal") == "cond":
                more.append(f"{c}.goal")
            if "holder" in self.fields:
                more += [f"{c}.holder == {self.player_expr(env)}", f"{c}.holder != none"]
            if "pals" in self.fields:
                more.append(f"{self.pick(cards)} in {c}.pals")
            if "power" in self.fields and self.keywords:
                more.append(f"{c}.power == {self.pick(self.keywords)}")
            return self.pick(more + [f"{c}.face_down", f"face_down({c})", f"owner({c}) == {self.player_expr(env)}",
                              f"zone_of({c}) == {self.pick(self.zones)}", f'label({c}) != ""',
                              f'{c}.component == "{self.comp}"', f"{c} in {self.zone_expr(env)}",
                              f"{c} not in {self.zone_expr(env)}", f"cell_of({c}) == none", f"{c}.owner == none",
                              f"{c}.zone == {self.pick(self.zones)}", f"{c}.cell == none"])
        if shape == "member_of":
            return f"{self.pick(self.locals_of(env, 'int'))} {self.pick(['in', 'not in'])} {self.pick(self.list_defs)}"
        if shape == "cells":
            x, b = self.pick(self.cells(env))
            y = self.pick([y for y, c in self.cells(env) if c == b])
            return self.pick([f"adjacent({x}, {y})", f"empty(at({b}, {x}))", f"{x} == {y}",
                              f"top_at({b}, {x}) == none", f"{x} in empty_cells({b})"]
                             + [f"{d}({self.player_expr(env)}, {x})" for d, c in self.cell_bools if c == b]
                             + [f"{x} in {d}" for d, c in self.board_lists if c == b])
        if shape == "player_bool":
            return f"{self.pick(self.player_bools)}({self.player_expr(env)})"
        if shape == "matched":
            return f"matched({self.cards_expr(env, 0)}, {self.cards_expr(env, 0)}, {self.fits})"
        if shape == "compare":
            return f"{self.int_expr(env, d)} {self.pick(['==', '!=', '<', '<=', '>', '>='])} {self.int_expr(env, d)}"
        if shape == "empty":
            return f"{self.pick(['', 'not '])}empty({self.cards_expr(env, d)})"
        if shape == "lit":
            return self.pick(["true", "false"])
        if shape == "field":
            return f"{self.pick(cards)}.{self.pick([f for f, t in self.fields.items() if t == 'bool'])}"
        if shape == "member":
            field, (_, enum) = self.pick([(f, t) for f, t in self.fields.items() if isinstance(t, tuple)])
            return f"{self.pick(cards)}.{field} {self.pick(['==', '!='])} {self.pick(self.enums[enum])}"
        if shape == "bool_def":
            return f"{self.pick(self.bool_defs)}({self.pick(cards)})"
        if shape == "has":
            return f"has({self.pick(cards)}, {self.pick(self.keywords)})"
        if shape == "choice":
            setting = self.pick(self.choices)
            return f"{setting} == {self.pick(self.choices[setting])}"
        if shape == "var":
            return self.pick([n for n, t in self.vars.items() if t == "bool"])
        if shape == "pfield":
            return f"{self.player_expr(env)}.{self.pick([f for f, t in self.pfields.items() if t == 'bool'])}"
        if shape == "logic":
            return f"({self.bool_expr(env, d)} {self.pick(['and', 'or'])} {self.bool_expr(env, d)})"
        if shape == "not":
            return f"not ({self.bool_expr(env, d)})"
        if shape == "any":
            x = self.local()
            return (f"{self.pick(['any', 'all'])}({x} in {self.cards_expr(env, d)} where "
                    f"{self.bool_expr({**env, x: 'card'}, d)})")
        return f"{self.player_expr(env)} {self.pick(['==', '!='])} {self.player_expr(env)}"

    def player_expr(self, env) -> str:
        if self.wild_now and self.maybe(self.wildness):
            return self.wild(env)
        options = ["player(1)", "first(players)", "last(players)"]
        options += self.locals_of(env, "player") * 3
        if env.get("current"):
            options += ["current", "current", "next_player(current)", "previous_player(current)"]
        return self.pick(options)

    def zone_expr(self, env) -> str:
        if self.wild_now and self.maybe(self.wildness):
            return self.wild(env)
        options = list(self.zones) * 2
        options += [f"{h}({self.player_expr(env)})" for h in self.hands]
        return self.pick(options)

    def cards_expr(self, env, depth=1) -> str:
        if depth > 0 and self.maybe(25):
            x = self.local()
            return f"[{x} in {self.zone_expr(env)} where {self.bool_expr({**env, x: 'card'}, depth - 1)}]"
        return self.zone_expr(env)

    def text(self, env) -> str:
        shown = [n for n, t in env.items() if t in ("int", "player", "card") and n != "current"]
        if shown and self.maybe(60):
            return f'"{self.pick(WORDS)} {{{self.pick(shown)}}}"'
        return f'"{self.pick(WORDS)}"'

    # ---- statements (ctx: "setup", "phase", "turn", "trigger", "final" (at end of game), "proc", "keyword")
    def block(self, env, ctx, depth, lo=1, hi=3, indent="  ", first=()) -> str:
        env = dict(env)
        lines = list(first)
        for _ in range(self.num(lo, hi)):
            lines.extend(self.statement(env, ctx, depth, indent))
        inner = "\n".join(indent + "  " + line for line in lines)
        return "{\n" + inner + "\n" + indent + "}" if lines else "{ }"

    def statement(self, env, ctx, depth, indent) -> list[str]:
        """One statement (a few lines; the block indents them); may add locals to env."""
        cards = self.locals_of(env, "card")
        shapes = ["score", "score", "let", "log", "move", "draw", "shuffle"]
        if self.vars:
            shapes.append("assign_var")
        if cards:
            shapes += ["card_move", "card_field", "card_face"]
            if self.discards:
                shapes.append("discard")
        if ctx in ("turn", "phase", "setup"):
            shapes += ["choose", "choose", "choose_block"]
        if ctx == "turn":
            shapes += ["choose_block", "respond", "offer", "end_turn", "duration"]
        if self.signals and ctx in ("turn", "phase"):
            shapes.append("signal")
        if (self.procs or (self.card_procs and cards)) and ctx not in ("proc", "keyword"):
            shapes.append("call")
        if ctx in ("turn", "phase", "trigger"):
            shapes += ["end_game"]
        if self.boards and self.supply and ctx in ("turn", "setup", "phase"):
            shapes += ["place", "place"]
        if self.keywords and ctx == "turn":
            shapes.append("perform")
        if self.boosts and cards:
            shapes.append("boost")
        if ctx == "turn":
            shapes += ["eliminate", "win"]
        if env.get("#loop"):
            shapes += ["break", "continue"]
        if env.get("#while"):
            shapes.append("break")
        if ctx == "proc":
            shapes.append("return")
        if self.player_vars:
            shapes += ["player_var", "player_var"]
        if self.list_vars:
            shapes += ["list_var", "list_var"]
        if cards and any(t == "ints" for t in self.fields.values()):
            shapes.append("list_field")
        if cards and any(t == "int" for t in self.fields.values()) and ctx in ("turn", "phase", "trigger"):
            shapes.append("card_duration")
        if self.boards and ctx in ("turn", "phase", "setup", "trigger"):
            shapes += ["board_move", "board_loop"]
        if cards and ("holder" in self.fields or "pals" in self.fields or ("power" in self.fields and self.keywords)):
            shapes.append("card_ref")
        if ctx in ("turn", "phase") and env.get("#inphase"):
            shapes.append("end_part")
        if ctx == "phase" and not env.get("current") and depth > 0:
            shapes.append("turns")
        if cards and self.keywords:
            shapes.append("perform_all")
        shapes.append("texts")
        shapes.append("fail")
        if depth > 0:
            shapes += ["if", "if", "for_cards", "for_players", "repeat", "while"]
        shape = self.pick(shapes)
        d = depth - 1
        if shape == "score":
            field = self.pick([f for f, t in self.pfields.items() if t == "int"])
            return [f"{self.player_expr(env)}.{field} {self.pick(['+=', '-=', '='])} {self.int_expr(env, 1)}"]
        if shape == "let":
            x = self.local()
            kind = self.pick(["int", "int", "bool", "player"])
            value = {"int": self.int_expr, "bool": self.bool_expr}.get(kind, lambda e, d=0: self.player_expr(e))(env, 1)
            env[x] = kind
            return [f"let {x} = {value}"]
        if shape == "log":
            return [f"log {self.text(env)}"]
        if shape == "move":
            return [f"move {self.cards_expr(env)} to {self.zone_expr(env)}{self.place_opts()}"]
        if shape == "draw":
            source, target = self.zone_expr(env), self.zone_expr(env)
            how = self.pick(["", f"{self.num(1, 3)} ", f"up to {self.num(1, 3)} "])
            if how.startswith("up"):
                return [f"draw {how}from {source} to {target}{self.place_opts()}"]
            return [f"if not empty({source}) {{ draw {how}from {source} to {target} }}"]
        if shape == "shuffle":
            return [f"shuffle {self.pick(self.zones)}"]
        if shape == "assign_var":
            var, kind = self.pick(list(self.vars.items()))
            value = {"int": lambda: self.int_expr(env, 1), "bool": lambda: self.bool_expr(env, 1),
                     "player": lambda: self.player_expr(env)}[kind]()
            return [f"{var} = {value}"]
        if shape == "card_move":
            return [f"move {self.pick(cards)} to {self.zone_expr(env)}{self.place_opts()}"]
        if shape == "card_field":
            fields = [f for f, t in self.fields.items() if t == "int"]
            if not fields:
                return ["log \"no field\""]
            return [f"{self.pick(cards)}.{self.pick(fields)} {self.pick(['+=', '-=', '='])} {self.int_expr(env, 1)}"]
        if shape == "discard":
            return [f"discard {self.pick(cards)}"]
        if shape == "card_face":
            c = self.pick(cards)
            return [self.pick([f"reveal {c}", f"hide {c}", f"turn {c} face down", f"turn {c} face up",
                               f"reveal {c} to {self.player_expr(env)}"])]
        if shape == "choose":
            return self.choose(env, ctx, d)
        if shape == "choose_block":
            return self.choose_block(env, ctx, d)
        if shape == "respond":
            r = self.local()
            inner = {**env, r: "player"}
            return [f"respond {self.pick(['once ', ''])}{r} in opponents(current) {{",
                    f"  option {self.name()} {self.block(inner, 'trigger', 0, 1, 2, '  ')}",
                    "}"]
        if shape == "offer":
            lines = [f"offer to next_player(current) {{",
                     f"  option {self.name()} {self.block(env, 'trigger', 0, 1, 2, '  ')}",
                     "}"]
            if self.maybe():
                lines[-1] = f"}} refused {self.block(env, 'trigger', 0, 1, 1)}"
            return lines
        if shape == "end_turn":
            return [f"if {self.bool_expr(env, 1)} {{ end turn }}"]
        if shape == "duration":
            field = self.pick([f for f, t in self.pfields.items() if t == "int"])
            return [f"current.{field} += {self.num(1, 3)} until end of {self.pick(['turn', 'phase', 'round'])}"]
        if shape == "signal":
            return [f"signal {self.pick(self.signals)}({self.int_expr(env, 1)})"]
        if shape == "call":
            if self.card_procs and cards and (self.maybe() or not self.procs):
                return [f"{self.pick(self.card_procs)}({self.int_expr(env, 1)}, {self.pick(cards)})"]
            return [f"{self.pick(self.procs)}({self.player_expr(env)})"]
        if shape == "end_game":
            return [f"if {self.bool_expr(env, 1)} {{ end game }}"]
        if shape == "place":
            return self.place(env, ctx)
        if shape == "perform":
            kw = self.pick(self.keywords)
            x = self.local()
            zone = self.zone_expr(env)
            return [f"choose {{",
                    f"  option {self.name()}({x} in {zone} where has({x}, {kw}) and usable({kw}, {x})) {{ perform {kw} on {x} }}",
                    "  option pass { }",
                    "}"]
        if shape == "boost":
            return [f"perform {self.pick(self.boosts)}({self.num(1, 3)}) on {self.pick(cards)}"]
        if shape == "eliminate":
            return [self.pick(["if count(players) > 2 and current.score > 6 { eliminate current }",
                               f"if count(players) > 1 and {self.bool_expr(env, 1)} {{ eliminate {self.player_expr(env)} }}",
                               "if roll(8) == 8 { eliminate current }"])]  # (the last one may leave nobody)
        if shape == "win":
            return [f"if {self.bool_expr(env, 1)} {{ win {self.player_expr(env)}; end game }}"]
        if shape in ("break", "continue"):
            return [f"if {self.bool_expr(env, 1)} {{ {shape} }}"]
        if shape == "return":
            return [f"if {self.bool_expr(env, 1)} {{ return }}"]
        if shape == "fail":
            return [f'if {self.bool_expr(env, 1)} and roll(20) == 20 {{ fail "{self.pick(WORDS)}" }}'] \
                if self.maybe(10) else ['log "on"']
        if shape == "player_var":
            v = self.pick(self.player_vars)
            if self.maybe():
                return [f"{v} = {self.player_expr(env)}"]
            field = self.pick([f for f, t in self.pfields.items() if t == "int"])
            return [f"if {v} != none {{ {v}.{field} += 1 }}"]
        if shape == "list_var":
            v, kind = self.pick(list(self.list_vars.items()))
            if kind == "cards":
                value = self.pick([f"{self.cards_expr(env)}", f"{v} + [{self.pick(cards)}]" if cards else "[]",
                                   f"[{self.local()} in {v} where true]", f"{v} + [{self.local()} in {self.zone_expr(env)} where true]"])
            elif kind == "players":
                value = self.pick([f"{v} + [{self.player_expr(env)}]", "players", f"turn_order({self.player_expr(env)})",
                                   f"distinct({v} + players)"])
            else:
                value = self.pick([f"{v} + [{self.int_expr(env, 1)}]", f"[{self.int_expr(env, 1)}]", "[]"])
            lines = [f"{v} = {value}"]
            if kind == "cards" and self.maybe(40):
                lines.append(f"move [{self.local()} in {v} where true] to {self.zone_expr(env)}")
            if kind == "players" and ctx == "phase" and not env.get("current") and self.maybe(50):
                lines.append(f"take turns following distinct({v}) once {{ current.score += 1 }}")
            return lines
        if shape == "list_field":
            c = self.pick(cards)
            f = self.pick([f for f, t in self.fields.items() if t == "ints"])
            return [self.pick([f"{c}.{f} = {c}.{f} + [{self.int_expr(env, 0)}]", f"{c}.{f} = []",
                               f"{c}.{f} = [{self.num(0, 3)}] + {c}.{f}"])]
        if shape == "card_duration":
            c = self.pick(cards)
            f = self.pick([f for f, t in self.fields.items() if t == "int"])
            return [f"{c}.{f} += {self.num(1, 3)} until end of {self.pick(['turn', 'phase', 'round'])}"]
        if shape == "board_move":
            return self.board_move(env, ctx)
        if shape == "card_ref":
            c = self.pick(cards)
            options = []
            if "holder" in self.fields:
                options += [f"{c}.holder = {self.player_expr(env)}", f"if {c}.holder != none {{ {c}.holder.score += 1 }}"]
            if "pals" in self.fields:
                options += [f"{c}.pals = {c}.pals + [{self.pick(cards)}]", f"{c}.pals = [{c}]",
                            f"for each {self.local()} in {c}.pals {{ log \"pal\" }}"]
            if "power" in self.fields and self.keywords:
                options += [f"{c}.power = {self.pick(self.keywords)}",
                            f"if {c}.power != none and usable({c}.power, {c}) {{ perform {c}.power on {c} }}"]
            return [self.pick(options)]
        if shape == "end_part":
            return [f"if {self.bool_expr(env, 1)} {{ end {self.pick(['phase', 'round'])} }}"]
        if shape == "turns":
            body = self.block({**env, "current": "player"}, "turn", d, 1, 2, indent)
            return [f"take turns {self.pick(['once', 'from player(1) once', 'skipping current.score > 3 once'])} {body}"]
        if shape == "perform_all":
            c = self.pick(cards)
            k = self.local()
            return [f"for each {k} in keywords({c}) {{ if usable({k}, {c}) {{ perform {k} on {c} }} }}"]
        if shape == "texts":
            x = self.local()
            env[x] = "text"
            return [self.pick([f"let {x} = {self.text(env)} + {self.text(env)}",
                               f"let {x} = snapshot({self.pick(self.zones + self.boards)}, round)",
                               f'let {x} = "{{round}}" + label({self.player_expr(env)})'])]
        if shape == "board_loop":
            b = self.pick(self.boards)
            x = self.local()
            inner = {**env, x: f"cell:{b}", "#loop": True}
            source = self.pick([f"occupied_cells({b})", f"cells({b})", f"empty_cells({b})"])
            return [f"for each {x} in {source} {self.block(inner, ctx, max(depth - 1, 0), 1, 2, indent)}"]
        if shape == "if":
            lines = [f"if {self.bool_expr(env, 1)} {self.block(env, ctx, d, 1, 2, indent)}"]
            if self.maybe(30):
                lines[-1] += f" elif {self.bool_expr(env, 1)} {self.block(env, ctx, d, 1, 2, indent)}"
            if self.maybe(40):
                lines[-1] += f" else {self.block(env, ctx, d, 1, 2, indent)}"
            return lines
        if shape == "for_cards":
            x = self.local()
            where = f" where {self.bool_expr({**env, x: 'card'}, 1)}" if self.maybe(40) else ""
            inner = {**env, x: "card", "#loop": True}
            body = self.block(inner, ctx, d, 1, 2, indent)
            return [f"for each {x} in {self.cards_expr(env, 0)}{where} {body}"]
        if shape == "for_players":
            x = self.local()
            inner = {**env, x: "player", "#loop": True}
            chosen = f" chosen by {self.player_expr(env)}" if ctx in ("turn", "phase") and self.maybe(20) else ""
            return [f"for each {x} in players{chosen} {self.block(inner, ctx, d, 1, 2, indent)}"]
        if shape == "repeat":
            return [f"repeat {self.num(0, 3)} times {self.block({**env, '#loop': True}, ctx, d, 1, 2, indent)}"]
        # a loop that stops: its counter goes up first
        i = self.local()
        env[i] = "int"
        inner = {k: v for k, v in env.items() if k != "#loop"}
        inner["#while"] = True
        body = self.block(inner, ctx, d, 1, 2, indent, first=[f"{i} = {i} + 1"])
        if self.maybe():
            return [f"let {i} = 0", f"while {i} < {self.num(1, 3)} {body}"]
        return [f"let {i} = 0", f"repeat until {i} >= {self.num(1, 3)} {body}"]

    def into(self, board: str, cell: str) -> str:
        """A place of a board with places (full or not: a move into a full place is a rules error)."""
        if board not in self.places or self.maybe(30):
            return ""
        place = self.pick(self.places[board])
        return f" into {place}" if self.maybe() else f" into {place}; log \"{{{cell}}}\""

    def board_move(self, env, ctx) -> list[str]:
        b = self.pick(self.boards)
        who = self.player_expr(env)
        by = "" if env.get("current") else f" by {who}"
        x, y = self.local(), self.local()
        inner = {**env, x: f"cell:{b}", y: f"cell:{b}"}
        shape = self.pick(["shift", "lift", "around", "ray", "edge", "places", "cards_near"])
        if shape == "edge" and self.sided.get(b):
            d = self.local()
            return [f"for each {x} in edge({b}, \"{self.pick(['top', 'bottom', 'left', 'right'])}\") "
                    f"{{ for each {d} in directions({b}) {{ let {y} = towards({b}, {x}, {d}, {self.num(1, 2)}) }} }}"]
        if shape == "places" and b in self.places:
            m = self.local()
            place = self.pick(self.places[b])
            return [f"for each {m} in {b} {{ if has_room({b}, {m}.cell, {place}) {{ {m}.place = {place} }} }}",
                    f"log \"{{{b}}}\""]
        if shape == "cards_near":
            m, n = self.local(), self.local()
            return [f"for each {m} in {b} {{ let {n} = count(neighbor_cells({m})) + distance({m}, {m}) }}"]
        if shape == "shift":
            return [f"choose {x} from occupied_cells({b}){by} optional",
                    f"choose {y} from empty_cells({b}){by} optional",
                    f"if {x} != none and {y} != none {{ move top_at({b}, {x}) to {b} at {y} }}"]
        if shape == "lift":
            m = self.local()
            return [f"move [{m} in {b} where owner({m}) == {who}] to {self.supply}({who})" if self.supply else
                    f"log \"{b}\""]
        if shape == "around":
            m = self.local()
            return [f"choose {x} from occupied_cells({b}){by} optional",
                    f"if {x} != none {{ for each {m} in neighbors({b}, {x}) {{ turn {m} face {self.pick(['up', 'down'])} }} }}"]
        if not self.lattice[b]:
            return [f"log \"{b}\""]
        d = self.local()
        return [f"choose {x} from cells({b}){by} optional",
                f"if {x} != none {{ for each {d} in directions({b}) {{ log \"{{{d}}}\"; "
                f"let {y} = towards({b}, {x}, {d}) }} }}"]

    def place_opts(self) -> str:
        return self.pick(["", "", " on bottom", " on top", " face down", " face up"])

    def choose(self, env, ctx, depth) -> list[str]:
        x = self.local()
        kind = self.pick(["cards", "cards", "ints", "players", "texts"] + (["enum"] if self.enums else []))
        by = f" by {self.player_expr(env)}" if self.maybe(20) or not env.get("current") else ""
        prompt = f' as "{self.pick(WORDS)}?"' if self.maybe(30) else ""
        if kind == "cards":
            source = self.zone_expr(env)
            where = f" where {self.bool_expr({**env, x: 'card'}, 1)}" if self.maybe(40) else ""
            inner = {**env, x: "card"}
            return [f"choose {x} from {source}{where}{by} optional{prompt}",
                    f"if {x} != none {self.block(inner, ctx, depth, 1, 2)}"]
        if kind == "ints":
            source = self.pick(self.list_defs + [f"1..{self.num(1, 4)}", "[0, 1, 2]"])
            env[x] = "int"
            return [f"choose {x} from {source}{by}{prompt}"]
        if kind == "enum":
            source = self.pick(list(self.enums))
            return [f"choose {x} from {source}{by}{prompt}", f"log \"{{{x}}}\""]
        if kind == "texts":
            return [f"choose {x} from [{self.text(env)}, {self.text(env)}]{by}{prompt}", f"log {x}"]
        env[x] = "player"
        return [f"choose {x} from players{by}{prompt}"]

    def choose_block(self, env, ctx, depth) -> list[str]:
        by = f" by {self.player_expr(env)}" if self.maybe(20) or not env.get("current") else ""
        optional = " optional" if self.maybe(15) else ""
        lines = [f"choose{by}{optional} {{"]
        for _ in range(self.num(1, 3)):
            x = self.local()
            bindings, inner = "", dict(env)
            if self.maybe(70):
                where = f" where {self.bool_expr({**env, x: 'card'}, 1)}" if self.maybe(40) else ""
                bindings = f"({x} in {self.zone_expr(env)}{where})"
                inner[x] = "card"
                if self.maybe(25):
                    y = self.local()
                    second = self.pick([f"1..{self.num(1, 3)}", f"[{x}.id, {self.num(0, 3)}]", f'["{{{x}}}", "{self.pick(WORDS)}"]',
                                        f"[{self.local()} in {self.zone_expr(env)} where {self.local()} != {x}]"])
                    if "where" in second:  # (the two names of that list are one)
                        z = second.split()[0][1:]
                        second = f"[{z} in {self.zone_expr(env)} where {z} != {x}]"
                    bindings = bindings[:-1] + f", {y} in {second})"
                    inner[y] = "int" if ".." in second else "any"
            cond = f" if {self.bool_expr(env, 1)}" if self.maybe(25) else ""
            lines.append(f"  option {self.name()}{bindings}{cond} {self.block(inner, ctx, depth, 1, 2, '  ')}")
        if self.maybe(85):
            lines.append("  option pass { }")
        lines.append("}")
        return lines

    def place(self, env, ctx) -> list[str]:
        board = self.pick(self.boards)
        who = "current" if env.get("current") else self.player_expr(env)
        x = self.local()
        by = "" if env.get("current") else f" by {who}"
        lists = [d for d, c in self.board_lists if c == board]
        source = self.pick([f"[{x} in cells({board}) where empty(at({board}, {x}))]", f"empty_cells({board})"] + lists)
        if self.open_boards.get(board):
            source = self.pick([f"concat([origin({board})], frontier({board}))", f"frontier({board})",
                                f"[(0, 0), (1, 0), (0, {self.num(1, 2)})]"])
        after = ""
        wins = [d for d, c in self.cell_bools if c == board]
        if wins and ctx in ("turn", "phase", "trigger") and self.maybe(60):
            after = f"; if {self.pick(wins)}({who}, {x}) {{ win {who}; end game }}"
        return [f"if not empty({self.supply}({who})) {{",
                f"  choose {x} from {source}{by} optional",
                f"  if {x} != none and empty(at({board}, {x})) {{ move top({self.supply}({who})) to {board} at {x}"
                f"{self.into(board, x)}{after} }}",
                "}"]

    # ---- declarations
    def game(self) -> str:
        self.header()
        self.enum_decls()
        self.component()
        self.zone_decls()
        self.player_decl()
        self.var_decls()
        self.setting_decls()
        self.def_decls()
        self.keyword_decls()
        self.deck_decls()
        self.board_decls()
        self.signal_and_proc_decls()
        phases = self.phase_decls()
        self.setup_decl()
        self.trigger_decls(phases)
        self.result_decl()
        self.variant_decls(phases)
        head = self.decls[0].replace("ROUND", ", ".join(phases))
        rest = self.decls[1:]
        order = list(range(len(rest)))
        if self.maybe(30):
            self.rng.shuffle(order)
        return head + "\n" + "\n".join(rest[i] for i in order) + "\n"

    def header(self):
        low = self.num(1, 3)
        high = self.num(max(low, 2), 4)
        parts = [f"players {low}..{high}" if high > low else f"players {low}"]
        if high > low and self.maybe(30):
            parts[0] += f" default {self.num(low, high)}"
        if self.maybe(40):
            parts.append(f"turn order {self.pick(['clockwise', 'counterclockwise'])}")
        parts.append("round: ROUND")
        if self.maybe(80):
            parts.append(f"max rounds {self.num(1, 4)}")
        else:  # the game ends by a rule of its own
            self.last_round = self.num(1, 3)
        sep = self.pick(["; ", "\n  "])
        self.decls.append(f'game "{self.pick(WORDS).title()}" {{ {sep.join(parts)} }}')
        self.players = (low, high)

    def enum_decls(self):
        for _ in range(self.num(0, 2)):
            name = self.name().title()
            self.used.add(name)
            members = [self.name() for _ in range(self.num(1, 4))]
            self.enums[name] = members
            self.decls.append(f"enum {name} {{ {', '.join(members)} }}")

    def component(self):
        self.comp = self.name().title()
        lines = []
        for _ in range(self.num(1, 4)):
            field = self.name()
            kind = self.pick(["int", "int", "bool", "str"] + (["enum"] if self.enums else []) + ["ints"])
            if kind == "enum":
                enum = self.pick(list(self.enums))
                self.fields[field] = ("enum", enum)
                default = f" = {self.pick(self.enums[enum])}" if self.maybe(60) else ""
                lines.append(f"{field}: {enum}{default}")
            elif kind == "ints":
                self.fields[field] = "ints"
                lines.append(f"{field}: list of int = []")
            else:
                self.fields[field] = kind
                default = {"int": str(self.num(0, 5)), "bool": "false", "str": '""'}[kind]
                lines.append(f"{field}: {kind}" + (f" = {default}" if self.maybe(60) else ""))
        if self.maybe(25):
            lines.append("holder: player = none")
            self.fields["holder"] = "player"
        if self.maybe(20):
            lines.append(f"pals: list of {self.comp}")
            self.fields["pals"] = "cards"
        if self.maybe(15):
            lines.append("power: keyword = none")
            self.fields["power"] = "kw"
        if self.maybe(30):
            lines.append(f"goal: condition")
            self.fields["goal"] = "cond"
        if self.maybe(40):
            lines.append("abilities: list of keyword = []")
            self.fields["abilities"] = "kws"
        if self.maybe(40):
            shown = self.pick([f for f, t in self.fields.items() if t not in ("cond", "kws", "cards", "kw")] or ["id"])
            lines.append(f'label "{{{shown}}}"')
        self.comp_lines = lines

    def zone_decls(self):
        for _ in range(self.num(1, 3)):
            name = self.name()
            self.zones.append(name)
            self.decls.append(f"zone {name}{self.pick(['', ' hidden', ' public', ': stack'])}")
        for _ in range(self.num(0, 2)):
            name = self.name()
            self.hands.append(name)
            self.decls.append(f"zone {name} per player{self.pick(['', ' private', ' hidden', ' public'])}")
        if self.maybe(30):
            where = self.pick(self.zones + [f"{h}(self.owner)" for h in self.hands] + [f"{h}(player(1))" for h in self.hands])
            self.comp_lines.append(f"discards to {where}")
            self.discards = True
        sep = self.pick(["; ", "\n  "])
        self.decls.insert(1, f"component {self.comp} {{ {sep.join(self.comp_lines)} }}")

    def player_decl(self):
        self.pfields["score"] = "int"
        lines = ["score: int = 0"]
        for _ in range(self.num(0, 2)):
            name = self.name()
            kind = self.pick(["int", "bool"])
            self.pfields[name] = kind
            lines.append(f"{name}: {kind} = {'false' if kind == 'bool' else self.num(0, 3)}")
        self.decls.append(f"player {{ {'; '.join(lines)} }}")

    def var_decls(self):
        for _ in range(self.num(0, 3)):
            name = self.name()
            kind = self.pick(["int", "bool", "player"])
            self.vars[name] = kind
            default = {"int": f" = {self.num(0, 3)}", "bool": self.pick(["", " = true"]), "player": ""}[kind]
            self.decls.append(f"var {name}: {kind}{default}")
        if self.maybe(40):
            name = self.name()
            kind = self.pick(["cards", "players", "ints"])
            self.list_vars[name] = kind
            self.decls.append(f"var {name}: list of {dict(cards=self.comp, players='player', ints='int')[kind]}")
        # a player variable is none until set: read with a test (player_var)
        self.player_vars = [n for n, t in self.vars.items() if t == "player"]
        self.vars = {n: t for n, t in self.vars.items() if t != "player"}

    def setting_decls(self):
        for _ in range(self.num(0, 2)):
            name = self.name()
            self.int_settings.append(name)
            self.decls.append(f"setting {name} = {self.num(1, 4)}")
        if self.maybe(40):
            name = self.name()
            members = [self.name() for _ in range(self.num(2, 3))]
            self.choices[name] = members
            self.decls.append(f"setting {name} = {members[0]} one of {' | '.join(members)}")
        if self.maybe(25):
            name = self.name()
            self.tables.append(name)
            if self.maybe(40):
                path = self.name()
                self.decls.append(f'setting {path} = "{self.pick(["rows.csv", "more.csv"])}"')
                self.decls.append(f"table {name} from {path}")
            else:
                self.decls.append(f'table {name} from "rows.csv"')

    def def_decls(self):
        for _ in range(self.num(0, 2)):
            name = self.name()
            self.list_defs.append(name)
            body = self.pick([f"[{', '.join(str(self.num(0, 6)) for _ in range(self.num(1, 4)))}]",
                              f"1..{self.num(1, 4)}",
                              f"[x * 2 for x in 1..{self.num(1, 3)}]"]
                             + [f"1..{s}" for s in self.int_settings]
                             + [f"[r.n for r in {t}]" for t in self.tables])
            self.decls.append(f"def {name} = {body}")
        ints = [f for f, t in self.fields.items() if t == "int"]
        bools = [f for f, t in self.fields.items() if t == "bool"]
        for _ in range(self.num(0, 2)):
            name = self.name()
            body = f"c.{self.pick(ints)} * {self.num(1, 3)} + {self.num(0, 2)}" if ints else "c.id"
            self.decls.append(f"def {name}(c) = {body}")
            self.card_defs.append(name)
        if self.maybe(50):
            name = self.name()
            body = f"c.{self.pick(bools)}" if bools and self.maybe() else \
                f"c.{self.pick(ints)} > {self.num(0, 4)}" if ints else "c.id % 2 == 0"
            self.decls.append(f"def {name}(c) = {body}")
            self.bool_defs.append(name)
        if self.maybe(60):
            name = self.name()
            self.player_defs.append(name)
            # written before the zones it counts are known to the statements: it uses the score
            self.decls.append(f"def {name}(p) = p.score * {self.num(1, 3)} + {self.num(0, 2)}")
        if self.maybe(40):
            self.decls.append(f"def heuristic(p) = {self.pick(['p.score', 'p.score * 2 - round', 'count(players) - seat(p)'])}")
        if self.maybe(20):
            fits = self.name()
            self.decls.append(f"def {fits}(a, b) = a.id % 2 == b.id % 2 or a.id > b.id")
            self.fits = fits
        if self.maybe(25):
            self.recursive = self.name()
            r = self.recursive
            self.decls.append(f"def {r}(n) = if n <= 1 then 1 else n + {r}(n - 1)")

    def deck_decls(self):
        total = 0
        for _ in range(self.num(1, 2)):
            name = self.name()
            entries = []
            for _ in range(self.num(1, 3)):
                gens, bound = [], []
                for _ in range(self.num(0, 2)):
                    x = self.local()
                    source, kind = self.pick(
                        [(f"1..{self.num(1, 4)}", "int"), (f"[{self.num(0, 3)}, {self.num(4, 7)}]", "int")]
                        + [(e, ("enum", e)) for e in self.enums]
                        + [(d, "int") for d in self.list_defs]
                        + [(f"1..{s}", "int") for s in self.int_settings]
                        + [(t, "row") for t in self.tables])
                    gens.append(f"{x} in {source}")
                    bound.append((x, kind))
                args = []
                for field, kind in self.fields.items():
                    if kind == "cond":
                        if self.maybe(70):
                            args.append(f"goal: {self.pick(['round > 1', 'true', 'count(players) > 1'])}")
                        continue
                    if kind in ("player", "cards"):
                        continue
                    if kind == "kw":
                        if self.keyword_names and self.maybe(60):
                            args.append(f"power: {self.pick(self.keyword_names)}")
                        continue
                    if kind == "kws":
                        if self.keyword_names and self.maybe(60):
                            args.append(f"abilities: [{', '.join(self.pick(self.keyword_names) for _ in range(self.num(1, 2)))}]")
                        continue
                    fitting = [x for x, k in bound if k == kind or (kind in ("int", "str") and k == "row")]
                    if fitting and self.maybe(70):
                        x = self.pick(fitting)
                        row = dict(bound)[x] == "row"
                        value = f"{x}.{'n' if kind == 'int' else 'label'}" if row else x
                        if kind == "int" and self.maybe(30):
                            value = f"{value} {self.pick(['+', '*'])} {self.pick([str(self.num(1, 3))] + self.int_settings)}"
                        args.append(f"{field}: {value}")
                    elif self.maybe(60) or not self.has_default(field):
                        args.append(f"{field}: {self.literal(kind)}")
                copies = f" * {self.num(2, 3)}" if self.maybe(20) else ""
                gen = f" for {', '.join(gens)}" if gens else ""
                entries.append(f"{self.comp}({', '.join(args)}){copies}{gen}")
                total += 1
            where = ""
            if self.maybe(80):
                where = f" in {self.pick(self.zones)}"
            else:
                self.created.append(name)
            sep = self.pick(["; ", "\n  "])
            self.decls.append(f"cards {name}{where} {{ {sep.join(entries)} }}")

    def has_default(self, field) -> bool:
        line = next(line for line in self.comp_lines if line.startswith(f"{field}:"))
        return "=" in line or line.startswith(f"{field}: list of")

    def literal(self, kind) -> str:
        if kind == "int":
            return str(self.num(0, 9))
        if kind == "bool":
            return self.pick(["true", "false"])
        if kind == "str":
            return f'"{self.pick(WORDS)}"'
        if kind == "ints":
            return f"[{self.num(0, 3)}, {self.num(0, 3)}]"
        return self.pick(self.enums[kind[1]])

    def board_decls(self):
        if not self.maybe(35):
            return
        piece = self.name().title()
        self.used.add(piece)
        self.decls.append(f"component {piece} {{ mark: int = 0 }}")
        pile = self.name()
        self.decls.append(f"cards {pile} {{ {piece}(mark: 1) * {self.num(2, 6)} }}")
        self.supply = self.name()
        self.decls.append(f"zone {self.supply} per player")
        self.created_pieces = pile
        for _ in range(self.num(1, 2)):
            board = self.name()
            self.boards.append(board)
            topology = self.pick(["grid 4 size 3 by 3", "grid 8 size 2 by 3", "hex radius 1", "hex rhombus 2 by 3",
                                  "hex rectangle 3 by 2", "track 5", "track 4 loop", "graph { n1 -- n2 -- n3; n3 -- n1 }",
                                  "grid 4", "grid 8", "hex"])
            self.lattice[board] = topology.startswith(("grid", "hex"))
            self.open_boards[board] = topology in ("grid 4", "grid 8", "hex")
            self.sided[board] = "size" in topology or "rhombus" in topology or "rectangle" in topology
            if self.maybe(20):
                slots = self.name().title()
                self.used.add(slots)
                left, right = self.name(), self.name()
                self.decls.append(f"enum {slots} {{ {self.name()}, {left}, {right} }}")
                topology += f" places {slots} {{ {left}: 1, {right}: {self.num(1, 2)} }}"
                self.places[board] = [left, right]
            self.decls.append(f"zone {board}: board {topology}")
            self.board_defs(board, piece)

    def board_defs(self, b: str, piece: str):
        """Defs of a board as games write them (the code generator writes many of these shapes its own way)."""
        if self.maybe(50):
            name = self.name()
            self.player_defs.append(name)
            self.decls.append(f"def {name}(p) = count([x in cells({b}) where any(m in at({b}, x) where owner(m) == p)])")
        owns = ""
        if self.maybe(70):
            owns = self.name()
            self.cell_bools.append((owns, b))
            self.decls.append(f"def {owns}(p, cell) = any(m in at({b}, cell) where owner(m) == p)")
        if self.maybe(50):
            free = self.name()
            self.board_lists.append((free, b))
            self.decls.append(self.pick([f"def {free} = [c in cells({b}) where empty(at({b}, c))]",
                                         f"def {free} = empty_cells({b})",
                                         f"def {free} = [c in cells({b}) where count(neighbors({b}, c)) < 2 "
                                         f"and empty(at({b}, c))]"]))
        if self.maybe(40):
            name = self.name()
            self.player_defs.append(name)
            stones = self.name()
            self.decls.append(f"def {stones}(p) = owned_cells({b}, p)")
            self.decls.append(self.pick([f"def {name}(p) = count(regions({b}, {stones}(p)))",
                                         f"def {name}(p) = max(count(g) for g in regions({b}, owned_cells({b}, p)))",
                                         f"def {name}(p) = count(cells_around({b}, {stones}(p)))"]))
        if self.maybe(30):
            name = self.name()
            self.cell_ints.append((name, b))
            self.decls.append(f"def {name}(p, cell) = count(region({b}, cell, owned_cells({b}, p)))")
        if self.lattice[b] and owns and self.maybe(60):
            run, line = self.name(), self.name()
            self.decls.append(f"def {run}(p, cell, d) = count([c in ray({b}, cell, d) while {owns}(p, c)])")
            self.decls.append(f"def {line}(p, cell) = any(d in directions({b}) where "
                              f"{run}(p, cell, d) + {run}(p, cell, (0 - d[0], 0 - d[1])) >= {self.num(1, 2)})")
            self.cell_bools.append((line, b))
        if self.lattice[b] and owns and self.maybe(30):
            lines, has = self.name(), self.name()
            self.decls.append(f"def {lines} = [[(0, 0), (1, 0)], [(0, 0), (0, 1)], [(1, 1), (0, 1)]]")
            self.decls.append(f"def {has}(p) = any(l in {lines} where all(c in l where {owns}(p, c)))")
            self.player_bools.append(has)
        if self.maybe(30):
            crowd = self.name()
            self.decls.append(f"def {crowd}(m) = count(neighbors(m))")
            self.decls.append(f"always {{ for each m in {b} where {crowd}(m) >= {self.num(1, 3)} {{ m.mark = 2 }} }}")
        if self.maybe(20):
            self.decls.append(f"always {{ if count([m in {b} where count(neighbors(m)) > {self.num(1, 3)}]) > "
                              f"{self.num(2, 5)} {{ end game }} }}")
        if self.maybe(20):
            pairs = self.name()
            self.decls.append(f"def {pairs} = [(x, y) for x in 0..1 for y in 0..1]")
            self.board_lists.append((pairs, b))

    def keyword_decls(self):
        for _ in range(self.num(0, 2)):
            name = self.name()
            self.keywords.append(name)
            self.keyword_names.append(name)
            ints = [f for f, t in self.fields.items() if t == "int"]
            usable = f"\n  usable if self.{self.pick(ints)} >= {self.num(0, 3)}" if ints and self.maybe() else ""
            env = {"self": "card"}
            effect = self.block(env, "keyword", 1, 1, 2, "  ")
            trigger = ""
            if self.maybe(30) and ints:
                trigger = f"\n  at end of round {{ self.{self.pick(ints)} += 1 }}"
            if self.maybe(20) and ints:
                f = self.pick(ints)
                trigger += f"\n  always {{ if self.{f} > 20 {{ self.{f} = 20 }} }}"
            if self.maybe(20):
                x = self.local()
                trigger += f"\n  when {x} enters {self.pick(self.zones)} {{ log \"{{{x}}}\" }}"
            self.decls.append(f"keyword {name} {{{usable}\n  effect {effect}{trigger}\n}}")
        ints = [f for f, t in self.fields.items() if t == "int"]
        if ints and self.maybe(40):
            name = self.name()
            self.boosts.append(name)
            self.decls.append(f"keyword {name}(n) {{ effect {{ self.{self.pick(ints)} += n }} }}")

    def signal_and_proc_decls(self):
        for _ in range(self.num(0, 1)):
            self.signals.append(self.name())
        for _ in range(self.num(0, 2)):
            name = self.name()
            env = {"who": "player"}
            body = self.block(env, "proc", 1, 1, 3)
            self.decls.append(f"procedure {name}(who: player) {body}")
            self.procs.append(name)
        if self.maybe(30):
            name = self.name()
            env = {"howmany": "int", "which": "card"}
            body = self.block(env, "proc", 1, 1, 3)
            self.decls.append(f"procedure {name}(howmany: int, which: {self.comp}) {body}")
            self.card_procs.append(name)

    def phase_decls(self) -> list[str]:
        phases = []
        for i in range(self.num(1, 3)):
            name = self.name()
            phases.append(name)
            unless = f" unless {self.bool_expr({}, 1)}" if self.maybe(15) else ""
            if self.maybe(80):
                head = self.pick(["take turns once", "take turns from player(1) once", "take turns counterclockwise once",
                                  f"take turns skipping current.score > {self.num(2, 6)} once",
                                  "take turns following [p in players where p.score >= 0] once", "COUNTED"])
                env = {"current": "player", "#inphase": True}
                if head == "COUNTED":
                    counter = self.name()
                    self.decls.append(f"var {counter}: int = 0")
                    head = f"take turns until {counter} >= {self.num(1, 4)}"
                    body = self.block(env, "turn", 2, 1, 3, "  ", first=[f"{counter} += 1"])
                    pre = f"  {counter} = 0\n"
                else:
                    body = self.block(env, "turn", 2, 1, 3, "    ")
                    pre = ""
                step = self.maybe(20)
                inner = f"  {head} {body}"
                if step:
                    inner = f"  step {self.name()} {{\n  {inner}\n  }}"
                text = f"phase {name}{unless} {{\n{pre}{inner}\n}}"
            else:
                text = f"phase {name}{unless} {self.block({'#inphase': True}, 'phase', 2, 1, 3, '')}"
            if i == 0 and self.signals:
                text = text[:-1] + f"  signal {self.signals[0]}({self.num(0, 3)})\n}}"
            self.decls.append(text)
        return phases

    def setup_decl(self):
        lines = []
        for name in self.created:
            where = self.pick(self.zones + [f"{h}(p)" for h in self.hands])
            if where.endswith("(p)"):
                lines.append(f"for each p in players {{ create {name} in {where} }}")
                # a set created once per player: the cards budget stays small
            else:
                lines.append(f"create {name} in {where}")
        if self.supply:
            lines.append(f"for each p in players {{ create {self.created_pieces} in {self.supply}(p) }}")
        lines += [f"shuffle {z}" for z in self.zones if self.maybe(40)]
        for hand in self.hands:
            if self.maybe(70):
                lines.append(f"for each p in players {{ draw up to {self.num(1, 3)} from {self.pick(self.zones)} to {hand}(p) }}")
        if self.maybe(50):
            body = self.block({}, "setup", 1, 1, 2, "")
            lines.append(body[1:-1].strip() or 'log "ready"')
        if lines or self.maybe():
            self.decls.append("setup {\n  " + "\n  ".join(lines) + "\n}")

    def trigger_decls(self, phases):
        if self.last_round:
            self.decls.append(f"at end of round {{ if round >= {self.last_round} {{ end game }} }}")
        for sig in self.signals:
            x = self.local()
            self.decls.append(f"when {sig}({x}) {self.block({x: 'int'}, 'trigger', 1, 1, 2, '')}")
        for _ in range(self.num(0, 3)):
            kind = self.pick(["at", "at", "enter", "leave"])
            if kind == "at":
                timing = self.pick(["round", "turn", "phase", "game"])
                which = f" {self.pick(phases)}" if timing == "phase" and self.maybe() else ""
                env = {"current": "player"} if timing == "turn" else {}
                cond = f" if {self.bool_expr(env, 1)}" if self.maybe(30) else ""
                named = ""
                if self.maybe(30):
                    named = self.name()
                    self.named_rules.append(named)
                    named = f" as {named}"
                start = self.pick(["start", "end"])
                # at the end of the game nothing is left to end ("final": no `end`)
                body = self.block(env, "final" if (start, timing) == ("end", "game") else "trigger", 1, 1, 2, "")
                self.decls.append(f"at {start} of {timing}{which}{cond}{named} {body}")
            else:
                x = self.local()
                zone = self.pick(self.zones + self.hands)
                word = "enters" if kind == "enter" else "leaves"
                self.decls.append(f"when {x} {word} {zone} {self.block({x: 'card'}, 'trigger', 1, 1, 2, '')}")
        if self.maybe(25):
            self.decls.append(f"always {{ if {self.bool_expr({}, 1)} {{ end game }} }}")
        if self.maybe(15) and self.vars:
            var, kind = self.pick(list(self.vars.items()))
            value = "true" if kind == "bool" else str(self.num(0, 3))
            self.decls.append(f"always {{ if {var} != {value} {{ {var} = {value} }} }}")
        if self.maybe(25):  # continuous rules that call, signal and perform (each acts once: a flag says so)
            flag = self.name()
            self.decls.append(f"player {{ {flag}: bool = false }}")
            acts = [f"log \"{flag}\""]
            if self.procs:
                acts.append(f"{self.pick(self.procs)}(p)")
            if self.signals:
                acts.append(f"signal {self.pick(self.signals)}(seat(p))")
            if self.keywords:
                m = self.local()
                acts.append(f"for each {m} in {self.pick(self.zones)} where has({m}, {self.pick(self.keywords)}) "
                            f"{{ perform {self.pick(self.keywords)} on {m} }}")
            self.decls.append(f"always {{\n  for each p in players where not p.{flag} and {self.bool_expr({}, 1)} {{\n"
                              f"    p.{flag} = true\n    {self.pick(acts)}\n  }}\n}}")

    def result_decl(self):
        shape = self.pick(["best", "best", "first", "none", "cond"])
        if shape == "best":
            what = self.pick(["p.score"] + [f"{d}(p)" for d in self.player_defs])
            body = f"let best = max({what} for p in players)\n  win [p in players where {what} == best]"
        elif shape == "first":
            body = "win first(players)"
        elif shape == "cond":
            body = f"if {self.bool_expr({}, 1)} {{ win player(1) }} else {{ win last(players) }}"
        else:
            body = 'log "nobody wins"'
        self.decls.append(f"result {{\n  {body}\n}}")

    def variant_decls(self, phases):
        for _ in range(self.num(0, 2)):
            name = self.name()
            shapes = ["rule"]
            if self.int_settings:
                shapes.append("set")
            if self.choices:
                shapes.append("choice")
            if self.list_defs:
                shapes.append("def")
            if self.named_rules:
                shapes.append("remove")
            shape = self.pick(shapes)
            if shape == "set":
                inner = f"set {self.pick(self.int_settings)} = {self.num(1, 5)}"
            elif shape == "choice":
                setting = self.pick(list(self.choices))
                inner = f"set {setting} = {self.pick(self.choices[setting])}"
            elif shape == "def":
                inner = f"replace def {self.pick(self.list_defs)} = [{self.num(0, 5)}, {self.num(0, 5)}]"
            elif shape == "remove":  # (once: a variant extending another must not remove it again)
                named = self.pick(self.named_rules)
                self.named_rules.remove(named)
                inner = f"remove {named}"
            else:
                inner = f"at end of round {self.block({}, 'trigger', 1, 1, 2, '  ')}"
            extends = f" extends {self.pick(self.variants)}" if self.variants and self.maybe(40) else ""
            self.variants.append(name)
            self.decls.append(f"variant {name}{extends} {{\n  {inner}\n}}")


def generated(seed: int) -> tuple[str, bool]:
    """The generated file of a seed, and whether its game is sure to end (hypothesis draws the seeds:
    each file is made by `random.Random(seed)`, whose choices are as likely as the builder says)."""
    rng = random.Random(seed)
    text = Builder(rng).game()
    if rng.randrange(100) < 6:  # a slip: a line left out (the file may no longer check, or end)
        lines = text.split("\n")
        del lines[rng.randrange(1, len(lines))]
        return "\n".join(lines), False
    return text, True


def rules_file(seed: int) -> str:
    """The generated file of a seed (a failing seed makes its file again)."""
    return generated(seed)[0]


# ------------------------------------------------------------------ the property

COUNTS: Counter = Counter()
STARTED = time.perf_counter()


def names_its_line(exc: RulesError) -> bool:
    """A rules error as it should be: each diagnostic names a line of the file, in the rules' words (not
    the words of a Python exception that reached a rule: as_rules_error's last resort)."""
    return bool(exc.diagnostics) and all(d.span.file == str(PATH) and d.span.line >= 1
                                         and "this rule could not run" not in d.message for d in exc.diagnostics)


def exercise(text: str, seed: int, bounded: bool = True) -> str:
    """Check the file; if clean, load it (a variant picked by the seed) and play a match to its end.
    Returns what happened; anything but a RulesError propagates (a RulesError must name a line).
    A game that is not sure to end (`bounded` false: a line of it was left out, its turn counter say)
    may be stopped after MAX_DECISIONS decisions ("long"): rulelang stops it only after 100,000 turns."""
    try:
        rules = parse_text(text, str(PATH))
        check_rules(rules, all_variants=True)
    except RulesError as exc:
        assert names_its_line(exc), exc.format()
        return "rejected"
    COUNTS["checked clean"] += 1
    rng = random.Random(seed)
    variant = rng.choice([None, *rules.variants()])
    try:
        game = rulelang.load(str(PATH), text=text, variant=variant, settings=other_settings(rules, rng),
                             budgets=BUDGETS)
        g = game.program.game
        match = game.new_match(players=rng.randint(g.players_min, g.players_max), seed=seed)
        save_at = rng.randrange(40)
        decisions = 0
        while not match.is_over:
            n = match.option_count()
            assert n > 0, "a choice is pending with no options"
            seat = match.to_move
            match.view(seat)
            if decisions % 5 == 0:  # what a seat sees at a table (the terminal, the browser)
                table_view(match, seat)
            if decisions == save_at:
                match = game.match_from_json(match.to_json())
                imagine(match, rng)
            option = match.legal_options()[rng.randrange(n)]
            option.label  # (as its chooser reads it)
            match.apply(option)
            decisions += 1
            if decisions > MAX_DECISIONS and not bounded:
                return "long"
            assert decisions <= MAX_DECISIONS, "the match does not end"
        assert match.result is not None
        return "played"
    except RulesError as exc:
        assert names_its_line(exc), exc.format()
        return "rules error"


def other_settings(rules, rng: random.Random) -> dict | None:
    """Now and then, settings given as `--set` gives them: another number, choice or data file."""
    if rng.random() < 0.6:
        return None
    chosen = {}
    for d in rules.decls:
        if isinstance(d, N.SettingDecl) and rng.random() < 0.7:
            if d.choices:
                chosen[d.name] = rng.choice(d.choices)
            elif isinstance(d.default, N.StrLit):
                chosen[d.name] = rng.choice(["rows.csv", "more.csv"])
            else:
                chosen[d.name] = str(rng.choice([0, 1, 2, 3, 5, -1, 40]))
    return chosen


def imagine(match, rng: random.Random) -> None:
    """What a planning bot does: play on a copy of the match as one seat may imagine it, and score
    positions (the rules' result and heuristic); now and then the greedy bot picks an option."""
    seat = match.to_move
    copy = match.sample_for(seat, rng) if rng.random() < 0.5 else match.clone()
    for _ in range(10):
        if copy.is_over:
            break
        copy.view(seat)
        copy.apply(rng.randrange(copy.option_count()))
    match.evaluate(seat)
    if rng.random() < 0.3:
        GreedyAgent(seed=rng.randrange(100), max_options=3).choose(AgentHandle(match, seat),
                                                                              match.legal_options())


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not LONG,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**63))
def test_what_checks_clean_loads_and_plays_to_its_end(seed):
    text, bounded = generated(seed)
    try:
        COUNTS[exercise(text, seed, bounded)] += 1
    except Exception:  # noqa: BLE001 - the point of the test: print the file that failed
        COUNTS["crash"] += 1
        print(f"\n---- generated file: rules_file({seed}) ----\n{text}")
        raise
    COUNTS["files"] += 1


def test_generated_report():
    """The counts of the run above (`-s` shows them): a good share of the files check clean and play."""
    if not COUNTS:
        return
    report = ", ".join(f"{k}: {v}" for k, v in sorted(COUNTS.items()))
    print(f"\ngenerated rules files: {report}; {time.perf_counter() - STARTED:.0f} s")
    assert COUNTS["crash"] == 0, report
    assert COUNTS["checked clean"] >= COUNTS["files"] // 3, f"too few files check clean: {report}"
    assert COUNTS["played"] >= COUNTS["checked clean"] // 2, f"too few files play to their end: {report}"
