"""The checker's statements (`StatementChecks`, a part of `checker.Checker`): one `stmt_*` method
per statement node, found by the node's class in `STMT_CHECKS`; each reports what cannot run where
it is written (a choice in a continuous rule, `end` where nothing it ends runs, `create` outside
setup), and one that binds a name gives back the names after it.
"""
from __future__ import annotations

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTIN_VALUES, BUILTINS, SPECIAL_FUNCS
from rulelang.core.errors import Span, did_you_mean, source_line
from rulelang.language.nodes import BASE_TYPES
from rulelang.check.dependencies import mentioned, names_bound
from rulelang.check.types import describe_type, never_alike, written_whole_number


class StatementChecks:
    """Checks statements and blocks; `stmt` finds the check of a node by its class."""

    def block(self, stmts, scope: set, ctx: set):
        """Check the statements of a block (None: a block left out, as `else`)."""
        stmts = stmts or ()
        scope = set(scope)
        skip = None
        for i, s in enumerate(stmts):
            if s is skip:
                continue
            # (`shufle deck` parses as two bare names: the first one's error covers the line, and
            # stmt_assign says nothing of the second: said_on_this_line)
            bare = isinstance(s, N.Assign) and s.op is None and not isinstance(s.target, N.Call)
            after = stmts[i + 1] if i + 1 < len(stmts) else None
            if bare and self.unknown_word(s.target, scope) and isinstance(after, N.Assign) and after.op == "=" \
                    and after.span.line == s.span.line and isinstance(after.target, N.Name):
                # `var best = ...` / `def best = ...` in a block: a local named with another word than `let`
                scope = self.named_without_let(s.target, after, scope)
                skip = after
                continue
            scope = self.stmt(s, scope, ctx)

    def unknown_word(self, x, scope: set) -> bool:
        return isinstance(x, N.Name) and x.id not in scope and x.id not in self.t.symbols and x.id not in BUILTIN_VALUES

    def named_without_let(self, word: N.Name, assign: N.Assign, scope: set) -> set:
        name = assign.target.id
        hint = None
        if word.id in ("var", "def", "setting", "procedure"):
            message = f"`{word.id}` declares a name at the top of the file, not inside a block"
            if word.id == "var":
                hint = f"for a value kept after this block, declare `var {name}: TYPE` at the top and assign it here"
        elif word.id in BASE_TYPES or word.id in self.t.components or self.t.kind(word.id) == "enum":
            message = f'"{word.id}" is a type; a local name is given its value with `let`, and no type is written'
        else:
            message = f'"{word.id}" is not a keyword of the language'
        self.err(word.span, message, expected=f"let {name} = ...", hint=hint)
        self.expr(assign.value, scope)
        return scope | {name}

    def stmt(self, s, scope: set, ctx: set) -> set:
        """Check a statement and return the names in scope after it (`let` and `choose` add one: their
        checks give back the names after them, the others nothing)."""
        check = STMT_CHECKS.get(type(s))
        after = check(self, s, scope, ctx) if check is not None else None
        return scope if after is None else after

    def stmt_let(self, s: N.Let, scope: set, ctx: set) -> set | None:
        self.expr(s.value, scope)
        self.keyword_values(s.value)  # (`let k = boost`: a keyword made without its values)
        self.not_hiding(s.name, s.span)
        return scope | {s.name}

    def not_hiding(self, name: str, span: Span):
        """`let deck = 3` where deck is a zone: a local hiding a declared name for the rest of its block (a
        setting or an enum member may be hidden: games do, as in `let mode = wild` where mode is a setting)."""
        kind = self.t.kind(name)
        if kind is not None and kind not in ("member", "setting") and name not in BUILTIN_VALUES:
            words = {"cards": "card set", "var": "global variable", "proc": "procedure"}.get(kind, kind)
            self.err(span, f'"{name}" is already a {words}; a local of the same name would hide it for the rest '
                           f"of the block", expected="a new name for the local",
                     hint=f"rename it, as in `let my_{name} = ...`")

    def stmt_assign(self, s: N.Assign, scope: set, ctx: set) -> set | None:
        if s.op is None and not isinstance(s.target, N.Call) and self.said_on_this_line(s.span):
            return
        if s.op is None:
            if isinstance(s.target, N.Name) and s.target.id not in scope and s.target.id not in self.t.symbols \
                    and s.target.id not in BUILTIN_VALUES:
                from rulelang.language.syntax_errors import _LEADING_WORDS, _OTHER_WORDS
                self.err(s.target.span, f'"{s.target.id}" is neither a statement keyword nor a declared name',
                         expected="a statement (move, let, if, choose, ...), a call or an assignment",
                         hint=did_you_mean(s.target.id, set(_LEADING_WORDS) | set(self.t.symbols) | scope)
                         or _OTHER_WORDS.get(s.target.id))
            elif not isinstance(s.target, N.Call):
                performed = isinstance(s.target, N.Name) and self.t.kind(s.target.id) == "keyword"
                line = source_line(s.span.file, s.span.line) or ""
                returned = line[:max(s.span.column - 1, 0)].rstrip().endswith("return")  # `return 3`
                self.err(s.span, "this line does nothing: a statement is a call, an assignment or a keyword statement",
                         hint=f"a keyword is performed: `perform {s.target.id}`, or `perform {s.target.id} on CARD`"
                         if performed else "`return` gives no value: it leaves the block (to hand a value back, "
                         "set a `var`, or write a `def`)" if returned else "to change a value write `x.field = value`")
                self.expr(s.target, scope)
            else:
                self.call(s.target, scope, statement=True)
            return
        if s.until is not None and isinstance(s.target, N.Name) and s.target.id in scope:
            self.err(s.span, f'"{s.target.id}" is a local name; only a field or a global `var` can change '
                             f'until the end of the {s.until}',
                     hint="declare it with `var NAME: TYPE`, or change a field (x.field) instead")
        if isinstance(s.target, N.Index) and isinstance(s.target.obj, (N.Name, N.Attr)):
            # p.gems[g] += 1: one member's number of a map held by a field, a global `var` or a local
            base = s.target.obj
            ty = self.expr(base, scope)
            if isinstance(base, N.Name) and base.id not in scope and self.t.kind(base.id) != "var":
                self.err(base.span, f'"{base.id}" is not a variable, so its numbers cannot be changed')
            elif not ty.startswith("map:") and ty != "any":
                self.err(s.target.span, f"only a map's numbers are changed this way (`p.gems[red] += 1`), "
                                        f"but this is {describe_type(ty)}",
                         hint="a list is a value: make a new one, as in `xs = xs + [x]`")
            elif ty.startswith("map:"):
                self.map_key(ty[4:], s.target.index, scope)
            else:
                self.expr(s.target.index, scope)
            if s.until is not None:
                self.err(s.span, f"one number of a map cannot change only until the end of the {s.until}",
                         hint="change the whole map instead: `x.field = ... until end of ...`")
            self.expect_type(s.value, scope, "int", "a whole number")
            return
        want = None
        if not isinstance(s.target, (N.Name, N.Attr)):
            self.err(s.target.span, "only a variable or a field (x.field) can be assigned")
        elif isinstance(s.target, N.Name):
            kind = self.t.kind(s.target.id)
            if s.target.id not in scope and kind != "var":
                if kind is None and s.op == "=" and s.until is None and s.target.id not in self.t.refused \
                        and s.target.id not in BUILTINS and s.target.id not in SPECIAL_FUNCS:
                    # `best = ...` for `let best = ...`: said once, and the name is known after it
                    candidates = set(scope) | {n for n, sym in self.t.symbols.items() if sym.kind == "var"}
                    guess = did_you_mean(s.target.id, candidates)
                    self.err(s.target.span, f'"{s.target.id}" is not defined, so it cannot be assigned',
                             expected=None if guess else f"let {s.target.id} = ... (a new name)", hint=guess,
                             fold=(("undefined", s.target.id), f'"{s.target.id}" is used again'))
                    self.expr(s.value, scope)
                    return scope | {s.target.id}
                if kind is None:
                    self.undefined(s.target.id, s.target.span, scope)
                else:
                    self.err(s.target.span, f'"{s.target.id}" is a {kind}, not a variable; it cannot be assigned',
                             hint="declare a global with `var NAME: TYPE` or a local with `let`")
            elif kind == "var" and s.target.id not in scope:
                want = self.expr(s.target, scope)  # a global `var`: its declared type
        else:
            want = self.expr(s.target, scope)
        got = self.expr(s.value, scope)
        if s.op in ("+=", "-="):
            self.expect_type(s.value, scope, "int", "a number")
        elif s.op == "=":
            self.assigned_alike(s, want, got)
            if want in ("keyword", "list:keyword"):
                self.keyword_values(s.value)

    def assigned_alike(self, s: N.Assign, want: str | None, got: str):
        """`x.score = "a lot"` where score is a number: a field or a global `var` given a value of another kind."""
        if want is not None and never_alike(want, got):
            what = f'the variable "{s.target.id}"' if isinstance(s.target, N.Name) else f'the field "{s.target.name}"'
            self.err(s.value.span, f"{what} holds {describe_type(want)}, but this is {describe_type(got)}",
                     expected=f"{describe_type(want)}, its declared type")

    def stmt_if(self, s: N.If, scope: set, ctx: set) -> set | None:
        for cond, body in s.branches:
            self.expr(cond, scope)
            self.block(body, scope, ctx)
        self.block(s.other, scope, ctx)

    def stmt_for(self, s: N.For, scope: set, ctx: set) -> set | None:
        walked = self.expr(s.coll, scope)
        self.not_one_value(s.coll, walked, "a loop runs over", f"for each {s.var} in 1..{{n}}")
        inner = scope | {s.var}
        # `for each p in players`: p is a player wherever the loop does not give the name another
        # value (a comprehension, a quantifier or a `let` of the same name inside), so its fields and
        # uses are checked as a player's
        typed = (walked == "list:player" or (walked.startswith("list:sym:") and ":setting:" not in walked)) and (
            s.var not in names_bound([s.cond, s.body]))
        before = self.local_types.get(s.var)
        if typed:
            self.local_types[s.var] = walked[5:]
        else:
            self.local_types.pop(s.var, None)
        try:
            self.expr(s.cond, inner)
            self.expect_player(s.chosen_by, scope)
            self.block(s.body, inner, ctx | {"loop"})
        finally:
            if before is None:
                self.local_types.pop(s.var, None)
            else:
                self.local_types[s.var] = before

    def not_one_value(self, coll, ty: str, what: str, instead: str):
        """`for each p in 3`, `choose c from 5`: a number, a text or true/false where a list is wanted (a single
        value is taken as a list of one, so the loop runs once and the choice has one option)."""
        if ty in ("int", "str", "bool"):
            n = written_whole_number(coll)
            n = "N" if n is None else n
            instead = instead.format(n=n)
            self.err(coll.span, f"{what} the items of a list or a zone, but this is {describe_type(ty)}",
                     expected="a list, a zone or a range", hint=f"for the numbers 1 to {n} write `{instead}`"
                     if ty == "int" else None)

    def stmt_while_or_until(self, s: N.While | N.RepeatUntil, scope: set, ctx: set) -> set | None:
        self.expr(s.cond, scope)
        self.block(s.body, scope, ctx | {"loop"})

    def stmt_repeat_times(self, s: N.RepeatTimes, scope: set, ctx: set) -> set | None:
        self.expect_type(s.count, scope, "int", "a number")
        self.not_negative(s.count, "repeats its block", "times")
        self.block(s.body, scope, ctx | {"loop"})

    def stmt_choose(self, s: N.Choose | N.ChooseBlock, scope: set, ctx: set) -> set | None:
        self.no_choice_in(ctx, s.span, s.opts.by, is_choice=True)
        if isinstance(s, N.Choose):
            self.not_one_value(s.coll, self.expr(s.coll, scope), "a choice is made among",
                               f"choose {s.var} from 1..{{n}}")
            if isinstance(s.coll, N.ListLit) and not s.coll.items and not s.opts.optional:
                self.err(s.coll.span, "a choice among an empty list has nothing to offer",
                         hint="list the options, or write `optional` if choosing nothing is allowed")
            self.expr(s.cond, scope | {s.var})
        self.expect_player(s.opts.by, scope)
        self.prompt(s.opts.prompt, s.span, scope)
        if isinstance(s, N.Choose):
            return scope | {s.var}
        self.options(s.options, scope, ctx)

    def stmt_move(self, s: N.Move, scope: set, ctx: set) -> set | None:
        self.expect_cards(s.what, scope)
        self.expect_zone(s.to, scope)
        self.placement(s.place, scope, s.to)

    def stmt_draw(self, s: N.Draw, scope: set, ctx: set) -> set | None:
        self.expect_type(s.count, scope, "int", "a number")
        self.not_negative(s.count, "draws", "cards")
        self.expect_zone(s.source, scope)
        self.expect_zone(s.to, scope)
        self.placement(s.place, scope, s.to)

    def not_negative(self, count, verb: str, unit: str):
        """A count written as a number below 0 (`draw -1 ...`); a computed one is the match's matter."""
        n = written_whole_number(count) if count is not None else None
        if n is not None and n < 0:
            self.err(count.span, f"this {verb} {n} {unit}, but a count cannot be below 0",
                     expected="a count of 0 or more")

    def stmt_shuffle(self, s: N.Shuffle, scope: set, ctx: set) -> set | None:
        self.expect_zone(s.zone, scope)

    def stmt_create(self, s: N.Create, scope: set, ctx: set) -> set | None:
        if "setup" not in ctx:
            self.err(s.span, "cards can only be created in `setup`: during play cards are moved, never made",
                     hint="put the cards in a zone at setup and move them later")
        if self.t.kind(s.cards) != "cards":
            self.err(s.span, f'"{s.cards}" is not a set of cards', hint=did_you_mean(s.cards, self.t.names("cards")))
        self.expect_zone(s.zone, scope)

    def stmt_reveal(self, s: N.Reveal, scope: set, ctx: set) -> set | None:
        self.expect_cards(s.what, scope)
        self.expect_player(s.to, scope)

    def stmt_on_cards(self, s: N.Discard | N.Hide | N.Flip, scope: set, ctx: set) -> set | None:
        """`discard`, `hide` and `turn ... face`: what they act on must be cards."""
        self.expect_cards(s.what, scope)

    def stmt_signal(self, s: N.Signal, scope: set, ctx: set) -> set | None:
        self.signals_sent.setdefault(s.name, []).append((len(s.args), s.span))
        for a in s.args:
            self.expr(a, scope)

    def stmt_perform(self, s: N.Perform, scope: set, ctx: set) -> set | None:
        if isinstance(s.what, N.Name) and s.what.id == "on" and "on" not in scope and self.t.kind("on") is None:
            self.err(s.what.span, "`perform` names the keyword first, then the card it works on",
                     expected="perform KEYWORD on CARD, as in `perform boost on c`")
            return
        ty = self.expr(s.what, scope)
        if ty not in ("keyword", "any"):
            self.err(s.what.span, f"`perform` uses a keyword, but this is {describe_type(ty)}",
                     expected="a keyword, as in `perform boost(2) on card`")
        self.expect_cards(s.on, scope)
        named = s.what.func if isinstance(s.what, N.Call) else s.what.id if isinstance(s.what, N.Name) else None
        sym = self.t.symbols.get(named) if s.on is None and ty == "keyword" else None
        if sym is not None and sym.kind == "keyword" and sym.decl.effect and "self" in mentioned(sym.decl.effect):
            # (its effect works on `self`, which is the card after `on`: without one it is none)
            self.err(s.span, f'keyword "{named}" works on a card (`self`): say which',
                     expected=f"`perform {named}(...) on CARD`" if sym.decl.params else f"`perform {named} on CARD`")

    def stmt_win_or_eliminate(self, s: N.Win | N.Eliminate, scope: set, ctx: set) -> set | None:
        ty = self.expr(s.who, scope)
        if ty not in ("player", "list:player", "any", "list:any"):
            word, done = ("win", "win") if isinstance(s, N.Win) else ("eliminate", "be eliminated")
            self.err(s.who.span, f"only players can {done}, but this is {describe_type(ty)}",
                     expected=f"a player or a list of players, as in `{word} current`")

    def stmt_respond(self, s: N.Respond, scope: set, ctx: set) -> set | None:
        self.no_choice_in(ctx, s.span, by=s.coll)
        self.expr(s.coll, scope)
        self.prompt(s.prompt, s.span, scope | {s.var})
        self.options(s.options, scope | {s.var}, ctx)

    def stmt_offer(self, s: N.Offer, scope: set, ctx: set) -> set | None:
        self.no_choice_in(ctx, s.span, by=s.by, is_choice=True)
        self.expect_player(s.to, scope)
        self.expect_player(s.by, scope)
        self.prompt(s.prompt, s.span, scope)
        self.options(s.options, scope, ctx)
        self.block(s.refused, scope, ctx)

    def stmt_end(self, s: N.End, scope: set, ctx: set) -> set | None:
        # what is sure to be running where it is written (a procedure or a trigger may run in a turn)
        if "setup" in ctx or "result" in ctx:
            when = "in setup the game has not started" if "setup" in ctx else "the result is worked out once the game is over"
            self.err(s.span, f"`end {s.what}` cannot be used here: {when}",
                     hint="end the game from a phase, a turn, a trigger or a procedure" if s.what == "game" else None)
        elif "game_end" in ctx or ("game_start" in ctx and s.what != "game"):
            self.err(s.span, f"`end {s.what}` cannot be used here: " + (
                "at the end of the game it is already ending" if "game_end" in ctx
                else f"at the start of the game no {s.what} has begun yet"))
        elif s.what == "turn" and "phase" in ctx and "turns" not in ctx:
            self.err(s.span, "`end turn` ends a player's turn, but this is not inside `take turns { ... }`",
                     hint="use `end phase` to leave the phase, or put the statement inside `take turns`")

    def stmt_take_turns(self, s: N.TakeTurns, scope: set, ctx: set) -> set | None:
        self.no_choice_in(ctx, s.span)
        self.expect_player(s.start, scope)
        for x in (s.skipping, s.until):
            self.expr(x, scope)
        if s.following is not None:
            ty = self.expr(s.following, scope)
            if ty in ("int", "bool", "str", "player", "cell", "keyword") or ty.startswith("sym:"):
                self.err(s.following.span, f"`following` takes the turn order as a list of players, "
                         f"but this is {describe_type(ty)}",
                         expected="a list of players, as in `take turns following ranking`")
            if s.direction is not None:
                self.err(s.span, f"a computed turn order (`following`) already says who is next, "
                         f"so it cannot also go {s.direction}",
                         hint="reverse the list instead, or remove the direction")
        self.block(s.body, scope, ctx | {"turns"})

    def stmt_step_block(self, s: N.StepBlock, scope: set, ctx: set) -> set | None:
        self.block(s.body, scope, ctx)

    def stmt_log_or_fail(self, s: N.Log | N.Fail, scope: set, ctx: set) -> set | None:
        self.expr(s.message, scope)

    def stmt_break_or_continue(self, s: N.Break | N.Continue, scope: set, ctx: set) -> set | None:
        if "loop" not in ctx:
            self.err(s.span, f"`{'break' if isinstance(s, N.Break) else 'continue'}` is only allowed inside a loop")

    def no_choice_in(self, ctx: set, span: Span, by=None, is_choice: bool = False):
        if is_choice and by is None and "setup" in ctx and "turns" not in ctx:
            self.err(span, "nobody is taking a turn during setup, so this choice needs to say who makes it",
                     hint="add `by PLAYER`, e.g. `by p` inside `for each p in players`")
        if "always" in ctx:
            self.err(span, "a continuous rule (`always`) cannot ask a player to choose: it must settle by itself")
        if "result" in ctx:
            self.err(span, "the `result` block cannot ask a player to choose")

    def options(self, options: list, scope: set, ctx: set):
        names = set()
        for opt in options:
            if opt.name in names:
                self.err(opt.span, f'two options are named "{opt.name}"')
            names.add(opt.name)
            inner = set(scope)
            for b in opt.bindings:
                self.expr(b.coll, inner)
                inner = inner | {b.var}
                self.expr(b.cond, inner)
            self.expr(opt.cond, inner)
            self.block(opt.body, inner, ctx)

    def table_source(self, d: N.TableDecl):
        """A table's file: a text, or a setting holding one (read when the game is loaded)."""
        from rulelang.language.tables import TableError

        src = d.source
        if not isinstance(src, N.StrLit) and not (isinstance(src, N.Name) and self.t.kind(src.id) == "setting"):
            self.err(src.span, "a table is read from a file named by a text or a setting",
                     expected='a file name, as in `table rows from "maps/valley.csv"`, or the name of a setting')
            return
        name = self.t.table_file(src)
        if name is None:
            self.err(src.span, f'the setting "{src.id}" should name a data file (a text)')
            return
        try:
            self.data_files.columns(name, d.span.file)
        except TableError as exc:
            self.err(src.span, f'table "{d.name}": {exc}',
                     hint="the file is looked for beside the rules file" if exc.missing else None)

    def placement(self, p: N.Placement, scope, to):
        decl = self.zone_decl_of(to)
        board = self.board_of_decl(decl) if decl is not None else None
        if p.at is not None:
            self.expr(p.at, scope)
            if board is not None:
                self.check_cells_written(p.at, board, decl.name)
        if p.place is not None:
            ty = self.expr(p.place, scope)
            if decl is None:
                return
            if board is None:
                self.err(p.place.span, f"`into` puts a card in a place of a board's cell, but {decl.name} is not a board")
            elif board.places is None:
                self.err(p.place.span, f"the board {decl.name} has no places",
                         hint=f"declare them: `zone {decl.name}: board ... places ENUM`")
            elif ty.startswith("sym:") and ty[4:] != board.places:
                self.err(p.place.span, f"the places of {decl.name} are the members of {board.places}, "
                         f"but this is {describe_type(ty)}")

    def check_cells_written(self, at, board: N.Topology, name: str):
        """`at (x, y)` or `at [(x, y), ...]` written out: each cell on a fixed board, none twice."""
        whole = written_whole_number
        items = at.items if isinstance(at, N.ListLit) else [at]
        seen = set()
        for item in items:
            cell = (whole(item.a), whole(item.b)) if isinstance(item, N.CellLit) else None
            if cell is None or None in cell:
                continue
            if cell in seen and isinstance(at, N.ListLit):
                self.err(item.span, f"a card would lie twice on the cell {cell[0], cell[1]} of {name}",
                         expected="each cell of a piece once", hint=f"a piece of 2 cells: at [({cell[0]}, {cell[1]}), "
                         f"({cell[0] + 1}, {cell[1]})]")
            seen.add(cell)
            q, r = cell
            if board.kind == "grid" and board.width is not None or board.shape == "rhombus":
                off = not (0 <= q < board.width and 0 <= r < board.height)
                where = f"its cells go from (0, 0) to ({board.width - 1}, {board.height - 1})"
            elif board.kind == "hex" and board.radius is not None:
                off = max(abs(q), abs(r), abs(q + r)) > board.radius
                where = f"its cells lie at most {board.radius} steps from (0, 0)"
            elif board.kind == "hex" and board.shape == "rectangle":
                off = not (0 <= r < board.height and -(r // 2) <= q < board.width - r // 2)
                where = f"its rows go from 0 to {board.height - 1}, each {board.width} cells wide"
            else:
                continue
            if off:
                self.err(item.span, f"the board {name} has no cell {q, r}", expected=f"a cell of {name}: {where}",
                         hint=f"places_for({name}, card) lists where a piece fits" if isinstance(at, N.ListLit)
                         else f"cells({name}) lists its cells")

    def check_layer(self, d: N.ZoneDecl):
        """`zone NAME: board on BASE`: BASE is a board zone (or a layer of one), not NAME itself,
        shared unless NAME is per player too."""
        span = d.layer_span or d.span
        sym = self.t.symbols.get(d.layer_of)
        boards = [n for n, x in self.t.symbols.items() if x.kind == "zone" and n != d.name
                  and (x.decl.board is not None or x.decl.layer_of is not None)]
        if sym is None or sym.kind != "zone":
            self.err(span, f'a layer lies on a board, but "{d.layer_of}" is not a zone',
                     expected="zone NAME: board on BOARD", hint=did_you_mean(d.layer_of, boards))
            return
        seen = {d.name}
        base = sym.decl
        while base.layer_of is not None and base.name not in seen:
            seen.add(base.name)
            nxt = self.t.symbols.get(base.layer_of)
            if nxt is None or nxt.kind != "zone":
                return  # (said at that layer)
            base = nxt.decl
        if base.name in seen:
            self.err(span, f'the layer {d.name} lies on itself (through {" and ".join(sorted(seen))})',
                     expected="a layer on a board declared with a shape (grid, hex, track, graph)")
        elif base.board is None:
            self.err(span, f'a layer lies on a board, but the zone "{d.layer_of}" is not a board',
                     expected="zone NAME: board on BOARD",
                     hint=f"the boards are {', '.join(boards)}" if boards else
                     f"declare it as a board: zone {d.layer_of}: board grid 4")
        elif sym.decl.per_player and not d.per_player:
            self.err(span, f"{d.layer_of} is a board per player, so a layer on it is per player too",
                     expected=f"zone {d.name} per player: board on {d.layer_of}")

    def check_places(self, d: N.ZoneDecl):
        b = d.board
        span = b.places_span or d.span
        enum = self.t.symbols.get(b.places)
        if enum is None or enum.kind != "enum":
            self.err(span, f'the places of a cell are the members of an enum, but "{b.places}" is not an enum',
                     expected="places ENUM { member: capacity, ... }",
                     hint=did_you_mean(b.places, self.t.names("enum")))
            return
        seen = set()
        for name, limit in b.capacities:
            if name not in enum.decl.members:
                self.err(span, f'"{name}" is not a member of {b.places}, so it is not a place of {d.name}',
                         hint=did_you_mean(name, enum.decl.members))
            if name in seen:
                self.err(span, f'the capacity of place "{name}" is given twice')
            seen.add(name)
            if limit < 1:
                self.err(span, f'place "{name}" must hold at least 1 card (leave it out of the list for no limit)')


_S = StatementChecks
STMT_CHECKS = {
    N.Let: _S.stmt_let, N.Assign: _S.stmt_assign, N.If: _S.stmt_if, N.For: _S.stmt_for,
    N.While: _S.stmt_while_or_until, N.RepeatUntil: _S.stmt_while_or_until, N.RepeatTimes: _S.stmt_repeat_times,
    N.Choose: _S.stmt_choose, N.ChooseBlock: _S.stmt_choose, N.Move: _S.stmt_move, N.Draw: _S.stmt_draw,
    N.Discard: _S.stmt_on_cards, N.Hide: _S.stmt_on_cards, N.Flip: _S.stmt_on_cards, N.Shuffle: _S.stmt_shuffle,
    N.Create: _S.stmt_create, N.Reveal: _S.stmt_reveal, N.Signal: _S.stmt_signal, N.Perform: _S.stmt_perform,
    N.Win: _S.stmt_win_or_eliminate, N.Eliminate: _S.stmt_win_or_eliminate, N.Respond: _S.stmt_respond, N.Offer: _S.stmt_offer,
    N.End: _S.stmt_end, N.TakeTurns: _S.stmt_take_turns, N.StepBlock: _S.stmt_step_block,
    N.Log: _S.stmt_log_or_fail, N.Fail: _S.stmt_log_or_fail, N.Break: _S.stmt_break_or_continue,
    N.Continue: _S.stmt_break_or_continue,
}  # (a statement not listed, `return`, has nothing to check)
