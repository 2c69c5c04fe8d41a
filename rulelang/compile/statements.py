"""Statements -> ops: the statement half of the compiler.

``StatementCompiler`` has one method per statement node (``s_Let``, ``s_Choose``, ``s_TakeTurns``,
...); each appends ops (``ops.py``) to a block's ``Code``, with jumps for control flow and the loops'
``break``/``continue`` targets patched in. ``code()`` compiles a whole block and lets the code
generator fuse runs of simple statements. Mixed into ``compiler.Compiler``.
"""
from __future__ import annotations

from rulelang.language import nodes as N
from rulelang.model.builtins import as_list, describe
from rulelang.core.errors import Span
from rulelang.check.dependencies import mentioned, readers_of
from rulelang.engine.ops import (CallProc, ChooseAmong, ChooseOne, ClearSlot, EndOp, Exec, FilterOnce, ForChosenNext,
                                 ForInit, ForNext, Jump, JumpIfNot, LoopGuard, PerformOp, RepeatInit, RepeatNext,
                                 ReturnOp, SignalOp, StepOp, TurnEnd, TurnsInit, TurnsNext, _MISSING)
from rulelang.engine.program import EMPTY_BODY, Code, Ctx, RuleError
from rulelang.engine.values import (map_update, move_cards, one_value_changed, set_field, the_cards, the_zone,
                                    whole_number, _put, _update)
from rulelang.model.things import NOBODY, Entity, OUT_KEY, Player, Zone, journal_cards, out_seats, remember_undo


def _whole_body(code: Code):
    """What CallProc may run in place of a procedure's frame: EMPTY_BODY for a procedure without
    ops, its first op when that is a fused op standing for all of them, else None."""
    if not code.ops:
        return EMPTY_BODY
    first = code.ops[0]
    spans = getattr(first, "spans", None)
    if (spans is not None and getattr(first, "start", None) == 0 and len(spans) == len(code.ops)
            and not getattr(first, "unwinds", False)):  # `end ...` unwinds the frames: it needs its own
        return first
    return None


_NEVER_KEYWORDS = (N.IntLit, N.StrLit, N.BoolLit, N.NoneLit, N.Compare, N.Member, N.BoolOp, N.Not, N.Neg, N.Range,
                   N.CellLit)


def _may_be_keyword(x) -> bool:
    """Whether an assigned value could be, or hold, a keyword (a number, a text, a truth value, a
    range or a cell cannot); for `Program.keyword_fields`."""
    if isinstance(x, _NEVER_KEYWORDS):
        return False
    if isinstance(x, N.BinOp):
        return _may_be_keyword(x.left) or _may_be_keyword(x.right)
    return True


class StatementCompiler:
    """The statement half of ``compiler.Compiler``."""

    # ---- statements
    def code(self, name: str, kind: str, span: Span, body: list, params=()) -> Code:
        from rulelang.compile.codegen_statements import RegionRecords, fuse_regions

        code = self.program.new_code(name, kind, span)
        saved = self._regions
        self._regions = records = RegionRecords(code)
        try:
            with self.scoped(set(params)):
                self.block(code, body, loops=[])
                if kind == "always" and self.fused:
                    code.sync = self.gen.sync_block(body, span, records)
        finally:
            self._regions = saved
        if self.fused:
            fuse_regions(self.gen, code, records)  # runs of simple statements, `if`s and loops: one generated op
        if kind == "proc":
            code.inline = _whole_body(code)
        return code

    def block(self, code: Code, stmts: list, loops: list):
        regions = self._regions
        if regions is not None and regions.code is code:
            regions.blocks.append((stmts, regions.parents[-1] if regions.parents else None))
        saved = self.scope
        for s in stmts:
            self.stmt(code, s, loops)
        self.scope = saved

    def stmt(self, code: Code, s, loops: list):
        regions = self._regions
        if regions is None or regions.code is not code:
            getattr(self, "s_" + type(s).__name__)(code, s, loops)
            return
        start = len(code.ops)
        regions.parents.append(s)
        try:
            getattr(self, "s_" + type(s).__name__)(code, s, loops)
        finally:
            regions.parents.pop()
        regions.ranges[id(s)] = (s, start, len(code.ops))  # the statement is kept, so its id stays its own

    def s_Let(self, code, s, loops):
        value, name = self.expr(s.value), s.name

        def let(c):
            c.v[name] = value(c)

        code.ops.append(Exec(let, s.span))
        self.scope = self.scope | {name}

    def readers(self, key: str) -> tuple | None:
        """The defs whose remembered values a change of `key` (a field, or "$global") makes stale
        (dependencies.readers_of, once per key); None without the code generator: all of them."""
        if self.def_reads is None:
            return None
        found = self.readers_by_key.get(key)
        if found is None:
            found = self.readers_by_key[key] = readers_of(self.def_reads, key)
        return found

    def s_Assign(self, code, s, loops):
        span = s.span
        if s.op is None:
            call = s.target
            sym = self.t.symbols.get(call.func)
            if sym is not None and sym.kind == "proc":
                code.ops.append(CallProc(call.func, [self.expr(a) for a in call.args], span))
            else:
                code.ops.append(Exec(self.expr(call), span))
            return
        value = self.expr(s.value)
        op = s.op
        target = s.target
        index_of_map = isinstance(target, N.Index)
        if index_of_map:
            # `p.gems[g] += 1`: the map in p.gems replaced by one with g's number changed (map_update);
            # written as the assignment of that new map
            base, member, entry, entry_op = self.expr(target.obj), self.expr(target.index), value, op

            def value(c):
                return map_update(base(c), member(c), entry(c), entry_op, span)

            op, target = "=", target.obj
        if isinstance(target, N.Name):
            name = target.id
            if name in self.scope:
                def set_local(c):
                    c.v[name] = _update(c.v.get(name), value(c), op, span)  # locals are not game state

                code.ops.append(Exec(set_local, span))
            else:
                until = s.until
                key = "$" + name
                readers = self.readers(key)

                def set_global(c):
                    g = c.s.globals
                    v = value(c)
                    old = g.get(name)
                    new = _update(old, v, op, span)
                    if until is not None:
                        remember_undo(c.s, until, None, name, op, old if op == "=" else v)
                    if g.get(name, _MISSING) != new:
                        g[name] = new
                        one_value_changed(c.s, key, readers)

                code.ops.append(Exec(set_global, span))
            return
        obj = self.expr(target.obj)
        attr = target.name
        if not index_of_map and _may_be_keyword(s.value):
            self.program.keyword_fields.add(attr)
        until = s.until
        readers = self.readers(attr)

        def set_attr(c):
            set_field(c, obj(c), attr, value, op, span, until, readers)

        code.ops.append(Exec(set_attr, span))

    # ---- elimination, responses, offers (the last two are written with choices)
    def s_Eliminate(self, code, s, loops):
        who, span, until = self.expr(s.who), s.span, s.until

        def do_eliminate(c):
            out = list(out_seats(c.s))
            for p in as_list(who(c)):
                if not isinstance(p, Player):
                    raise RuleError(span, f"only players can be eliminated, not {describe(p)}")
                if p.seat not in out:
                    out.append(p.seat)
                    if until is None:
                        c.s.log.append(f"{describe(p)} is eliminated")
                    else:  # back in when the round (turn, phase) ends: model/things.expire
                        remember_undo(c.s, until, None, OUT_KEY, "out", p.seat)
                        c.s.log.append(f"{describe(p)} is out until the end of the {until}")
            c.s.globals[OUT_KEY] = out
            c.s.version += 1
            journal_cards(c.s, ())  # (the globals, where it is noted, are put back whole by a restore)

        code.ops.append(Exec(do_eliminate, span))

    def s_Respond(self, code, s, loops):
        """Each listed player, in order, may answer with one of the options or pass (with `once`, the first
        answer closes the window). Written as a loop over the players with an optional choice by each."""
        span = s.span
        flag = f"__answered_{span.line}_{span.column}"
        mark = N.Assign(span=span, target=N.Name(span=span, id=flag), op="=", value=N.BoolLit(span=span, value=True))
        options = [opt.model_copy(update={"body": [mark] + list(opt.body)}) for opt in s.options]
        ask = N.ChooseBlock(span=span, opts=N.ChooseOpts(span=span, by=N.Name(span=span, id=s.var), optional=True,
                                                         prompt=s.prompt), options=options)
        body = [ask]
        if s.once:
            body = [N.If(span=span, branches=[(N.Not(span=span, operand=N.Name(span=span, id=flag)), body)])]
        self.stmt(code, N.Let(span=span, name=flag, value=N.BoolLit(span=span, value=False)), loops)
        self.stmt(code, N.For(span=span, var=s.var, coll=s.coll, body=body), loops)

    def s_Offer(self, code, s, loops):
        """The offering player picks one offer (an option with its bindings) or none; the player offered to then
        picks "accept" (the option's body runs) or "refuse" (the `refused` block runs). Both answers show the
        offer's values in their labels."""
        span = s.span
        by = s.by if s.by is not None else N.Name(span=span, id="current")
        options = []
        for opt in s.options:
            shown = [N.Binding(span=b.span, var=b.var, coll=N.ListLit(span=b.span, items=[N.Name(span=b.span, id=b.var)]))
                     for b in opt.bindings]
            answer = N.ChooseBlock(span=span, opts=N.ChooseOpts(span=span, by=s.to, optional=False,
                                                                prompt=(s.prompt or opt.name) + ": accept or refuse?"),
                                   options=[N.Option(span=opt.span, name="accept", bindings=shown, body=list(opt.body)),
                                            N.Option(span=opt.span, name="refuse", bindings=shown, body=list(s.refused or []))])
            options.append(opt.model_copy(update={"body": [answer]}))
        self.stmt(code, N.ChooseBlock(span=span, opts=N.ChooseOpts(span=span, by=by, optional=True, prompt=s.prompt),
                                      options=options), loops)

    def s_If(self, code, s, loops):
        ends = []
        for cond, body in s.branches:
            jump = JumpIfNot(self.expr(cond), None, s.span)
            code.ops.append(jump)
            self.block(code, body, loops)
            end_jump = Jump(None, s.span)
            code.ops.append(end_jump)
            ends.append(end_jump)
            jump.target = len(code.ops)
        if s.other is not None:
            self.block(code, s.other, loops)
        for j in ends:
            j.target = len(code.ops)

    def loop_body(self, code, loops, body: list) -> dict:
        """A loop's body; its `break` and `continue` jumps, to patch once their targets are known."""
        jumps = {"breaks": [], "continues": []}
        loops.append(jumps)
        self.block(code, body, loops)
        loops.pop()
        return jumps

    def loop(self, code, loops, top: int, head, body: list, slot: str, span: Span):
        """The shared tail of every loop: `head` (an op with an `end` or `target` to patch) was
        emitted at `top`; compile the body, jump back, and patch `break` / `continue`."""
        jumps = self.loop_body(code, loops, body)
        code.ops.append(Jump(top, span))
        end = len(code.ops)
        code.ops.append(ClearSlot(slot, span))
        if isinstance(head, JumpIfNot):
            head.target = end
        else:
            head.end = end
        for j in jumps["breaks"]:
            j.target = end
        for j in jumps["continues"]:
            j.target = top

    def s_For(self, code, s, loops):
        slot = self.slot("for")
        span = s.span
        code.ops.append(ForInit(slot, self.expr(s.coll), span))
        top = len(code.ops)
        with self.scoped({s.var}):
            if s.chosen_by is not None:
                cond = self.opt(s.cond)
                if cond is not None:
                    # filter once, then let the player order what is left
                    code.ops.append(FilterOnce(slot, s.var, cond, span))
                    top = len(code.ops)
                head = ForChosenNext(slot, s.var, self.expr(s.chosen_by), None, span, "which comes next?")
            else:
                head = ForNext(slot, s.var, self.opt(s.cond), None, span)
            code.ops.append(head)
            self.loop(code, loops, top, head, s.body, slot, span)

    def _guarded_loop(self, code, loops, cond, body, span):
        """`while` and `repeat until`: test, count the turn (a loop that never ends is stopped), body."""
        guard = self.slot("guard")
        top = len(code.ops)
        head = JumpIfNot(cond, None, span)
        code.ops.append(head)
        code.ops.append(LoopGuard(guard, span))
        self.loop(code, loops, top, head, body, guard, span)

    def s_While(self, code, s, loops):
        self._guarded_loop(code, loops, self.expr(s.cond), s.body, s.span)

    def s_RepeatUntil(self, code, s, loops):
        cond = self.expr(s.cond)
        self._guarded_loop(code, loops, lambda c: not cond(c), s.body, s.span)

    def s_RepeatTimes(self, code, s, loops):
        slot = self.slot("repeat")
        code.ops.append(RepeatInit(slot, self.expr(s.count), s.span))
        top = len(code.ops)
        head = RepeatNext(slot, None, s.span)
        code.ops.append(head)
        self.loop(code, loops, top, head, s.body, slot, s.span)

    def s_Break(self, code, s, loops):  # (and s_Continue)
        j = Jump(None, s.span)
        code.ops.append(j)
        loops[-1]["breaks" if type(s) is N.Break else "continues"].append(j)

    s_Continue = s_Break

    def s_Return(self, code, s, loops):
        code.ops.append(ReturnOp(s.span))

    def prompt(self, s):
        """A choice's `as "..."` prompt: one that shows values ("{p} picks a card") becomes a function of the
        moment it is asked in; a plain one stays a string; without one, the choice's doc comment (never
        read as a template), or None."""
        text = s.opts.prompt
        if text is None:
            return s.doc[0] if s.doc else None
        return self.expr(N.StrLit(span=s.span, value=text)) if "{" in text else text

    def s_Choose(self, code, s, loops):
        coll = self.expr(s.coll)
        with self.scoped({s.var}):
            cond = self.opt(s.cond)
        by = self.opt(s.opts.by)
        code.ops.append(ChooseOne(s.var, coll, cond, by, s.opts.optional, self.prompt(s), s.span))
        self.scope = self.scope | {s.var}

    def s_ChooseBlock(self, code, s, loops):
        op = ChooseAmong([], [], self.opt(s.opts.by), s.opts.optional, self.prompt(s), s.span)
        code.ops.append(op)
        ends = []
        for opt in s.options:
            names: list[str] = []
            product = opt.cond is None  # (ChooseAmong: independent bindings without conditions)
            for b in opt.bindings:
                product = product and b.cond is None and not (mentioned(b.coll) & set(names))  # (a text's "{x}" too)
                names.append(b.var)
            # a product's collections as closures; any other option's bindings as generated loops, for
            # the options' walk (the code generator's)
            colls = [self.expr(b.coll) for b in opt.bindings] if product else None
            op.walkers.append(self.gen.option_walker(opt.bindings, opt.cond, opt.span)
                              if opt.bindings and not product else None)
            # (an option without bindings tests its condition here; with bindings, its walker does)
            cond = self.opt(opt.cond) if not opt.bindings else None
            op.alts.append((opt.name, names, colls, cond, len(code.ops)))
            with self.scoped(names):
                self.block(code, opt.body, loops)
            j = Jump(None, opt.span)
            code.ops.append(j)
            ends.append(j)
        end = len(code.ops)
        op.end = end
        for j in ends:
            j.target = end

    def _placement(self, place: N.Placement):
        at = self.opt(place.at)
        return at, place.end == "bottom", place.face == "down", self.opt(place.place)

    def s_Move(self, code, s, loops):
        what, to = self.expr(s.what), self.expr(s.to)
        at, bottom, face_down, slot = self._placement(s.place)
        span = s.span

        def do_move(c):
            zone = the_zone(to(c), span)
            cell = at(c) if at is not None else None
            move_cards(c, what(c), zone, cell, bottom, face_down, span, slot)

        code.ops.append(Exec(do_move, span))

    def s_Discard(self, code, s, loops):
        what = self.expr(s.what)
        span = s.span

        def do_discard(c):
            items = what(c)
            items = list(items.items) if isinstance(items, Zone) else as_list(items)
            for e in items:
                if not isinstance(e, Entity):
                    raise RuleError(span, f"only cards can be discarded, not {describe(e)}")
                target = c.vm.program.discard_zone.get(e.card.component)
                if target is None:
                    raise RuleError(span, f"{e.card.component} cards have no discard pile: add `discards to ZONE` to the component")
                zone = the_zone(target(Ctx({"self": e}, c.s, c.vm)), span,
                                f"{e.card.component} cards are discarded to a zone, not to")
                _put(c, e, zone, None, False, False, span)

        code.ops.append(Exec(do_discard, span))

    def s_Draw(self, code, s, loops):
        count = self.opt(s.count)
        source, to = self.expr(s.source), self.expr(s.to)
        at, bottom, face_down, slot = self._placement(s.place)
        up_to = s.up_to
        span = s.span

        def do_draw(c):
            src = the_zone(source(c), span, "cards are drawn from a zone, not from")
            dst = the_zone(to(c), span, "cards are drawn into a zone, not into")
            n = whole_number(count(c), span, "`draw`") if count is not None else 1
            if up_to:
                n = n - len(dst.items)
            cell = at(c) if at is not None else None
            for _ in range(max(n, 0)):
                if not src.items:
                    break
                _put(c, src.items[-1], dst, cell, bottom, face_down, span, slot(c) if slot is not None else None)

        code.ops.append(Exec(do_draw, span))

    def s_Shuffle(self, code, s, loops):
        zone, span = self.expr(s.zone), s.span

        def do_shuffle(c):
            z = the_zone(zone(c), span, "only a zone can be shuffled, not")
            if c.s.fixed_chance is not None:  # an order queued by a scenario (rulelang/engine/fixed_chance.py)
                c.s.fixed_chance.shuffle(z, c.s.rng, span)
            else:
                c.s.rng.shuffle(z.items)
            for e in z.items:
                e.known = NOBODY
            c.s.version += 1
            journal_cards(c.s, z.items, z)

        code.ops.append(Exec(do_shuffle, s.span))

    def s_Create(self, code, s, loops):
        zone = self.expr(s.zone)
        name = s.cards
        span = s.span

        def do_create(c):
            c.vm.create_cards(name, the_zone(zone(c), span, "cards are created in a zone, not in"), span)

        code.ops.append(Exec(do_create, span))

    def s_Reveal(self, code, s, loops):
        what, to = self.expr(s.what), self.opt(s.to)
        span = s.span

        def do_reveal(c):
            seen_by = None
            if to is not None:
                seen_by = to(c)
                if not isinstance(seen_by, Player):
                    raise RuleError(span, f"cards are revealed to a player, not to {describe(seen_by)}")
            cards = the_cards(what(c), span, "only cards can be revealed, not")
            for e in cards:
                if seen_by is None:
                    e.face_down = False
                    e.known = frozenset(range(len(c.s.players)))
                else:
                    e.known = e.known | {seen_by.seat}
            c.s.version += 1
            c.s.cards_version += 1
            journal_cards(c.s, cards)

        code.ops.append(Exec(do_reveal, s.span))

    def s_Flip(self, code, s, loops):  # (and s_Hide: the cards are not turned)
        what, span = self.expr(s.what), s.span
        down = s.face == "down" if type(s) is N.Flip else None
        refused = "only cards can be hidden, not" if down is None else "only cards can be turned face up or down, not"

        def do_flip(c):  # nobody remembers what the cards showed
            cards = the_cards(what(c), span, refused)
            for e in cards:
                if down is not None:
                    e.face_down = down
                e.known = NOBODY
            c.s.version += 1
            if down is not None:
                c.s.cards_version += 1
            journal_cards(c.s, cards)

        code.ops.append(Exec(do_flip, span))

    s_Hide = s_Flip

    def s_Signal(self, code, s, loops):
        code.ops.append(SignalOp(s.name, [self.expr(a) for a in s.args], s.span))

    def s_Perform(self, code, s, loops):
        code.ops.append(PerformOp(self.expr(s.what), self.opt(s.on), s.span))

    def s_Win(self, code, s, loops):
        who = self.expr(s.who)
        span = s.span

        def do_win(c):
            for p in as_list(who(c)):
                if not isinstance(p, Player):
                    raise RuleError(span, f"only players can win, not {describe(p)}")
                if p.seat not in c.s.winners:
                    c.s.winners.append(p.seat)

        code.ops.append(Exec(do_win, span))

    def s_End(self, code, s, loops):
        code.ops.append(EndOp(s.what, s.span))

    def s_TakeTurns(self, code, s, loops):
        slot = self.slot("turns")
        span = s.span
        code.ops.append(TurnsInit(slot, self.opt(s.start), s.direction, span, self.opt(s.following)))
        top = len(code.ops)
        head = TurnsNext(slot, self.opt(s.until), self.opt(s.skipping), s.once, None, span)
        code.ops.append(head)
        jumps = self.loop_body(code, loops, s.body)
        head.turn_end = len(code.ops)
        code.ops.append(TurnEnd(slot, top, span))
        head.end = len(code.ops)
        for j in jumps["breaks"]:
            j.target = head.end
        for j in jumps["continues"]:
            j.target = head.turn_end

    def s_StepBlock(self, code, s, loops):
        code.ops.append(StepOp(s.name, True, s.span))
        code.step_names.append(s.name)
        self.block(code, s.body, loops)
        code.ops.append(StepOp(s.name, False, s.span))

    def s_Log(self, code, s, loops):
        msg = self.expr(s.message)

        def do_log(c):
            c.s.log.append(describe(msg(c)))

        code.ops.append(Exec(do_log, s.span))

    def s_Fail(self, code, s, loops):
        msg, span = self.expr(s.message), s.span

        def do_fail(c):
            raise RuleError(span, describe(msg(c)))

        code.ops.append(Exec(do_fail, span))
