"""The runtime: a small VM that runs a compiled ``Program`` as a match.

The match state is data (``model.State``), including the VM's frames, so a match
saves to JSON at any point, even while a player is choosing, and resumes
identically. Every player decision is a choice among enumerated legal options.
Triggers run from an event queue after the statement that caused them; the
queue, loops and trigger chains are bounded, and a runaway names its rules line.
"""
from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence

from rulelang.language import nodes as N
from rulelang.core.budgets import BudgetExceeded, Meter, as_budgets
from rulelang.model.builtins import describe, keywords_of
from rulelang.check.dependencies import CARD_ZONES
from rulelang.engine.program import Code, Ctx, Frame, Program, RuleError, as_rules_error, keyword_values
from rulelang.core.errors import Diagnostic, RulesError, Span
from rulelang.model.options import option_name
from rulelang.model.things import Entity, KeywordValue, Player, State, Zone, make_zones, out_seats
from rulelang.engine.saves import Mark, copy_state, mark_state, restore_state, state_from_json, state_to_json
from rulelang.engine.visibility import determinize, move_label, option_label, player_view, result_attrs

SETTLE_LIMIT = 100


class VM:
    def __init__(self, program: Program, state: State):
        self.program = program
        self.s = state
        self.sync_floor: int | None = None
        self.stop_at_step: str | None = None
        self.stopped = False
        self.stop_when_depth: int | None = None
        self.ask_single = False  # ask even a choice of one option (scenarios), instead of taking it
        # when a list, each choice of one option taken without asking is told there (`took`): the
        # surfaces show such moves, which no answer records
        self.taken: list | None = None
        # stop at the next choice of two or more options without listing them (ops.NOT_LISTED): a
        # match tried one option ahead only to be scored (Match.try_option)
        self.probe = False
        # the rules lines this VM has run, when they are recorded (balance/coverage.py: only the ops of a
        # game loaded for coverage read it); None records nothing, as in every copy of a match
        self.coverage: set | None = None
        budgets = program.budgets or as_budgets(None)
        self.meter = Meter(budgets, program.memory_base)

    # ---- frames
    def push(self, code: Code, vars: dict, kind: str):
        budgets = self.meter.budgets
        if kind == "trigger":
            depth = sum(1 for f in self.s.stack if f.kind == "trigger")
            if depth >= budgets.trigger_depth:
                raise BudgetExceeded(code.span, "trigger_depth", f"triggers set each other off more than "
                               f"{budgets.trigger_depth} times in a row; this chain never ends", budgets.trigger_depth)
        elif kind == "proc" and len(self.s.stack) > budgets.recursion_depth:
            depth = sum(1 for f in self.s.stack if f.kind == "proc")
            if depth >= budgets.recursion_depth:
                raise BudgetExceeded(code.span, "recursion_depth", f"procedures call each other more than "
                               f"{budgets.recursion_depth} deep; a procedure that calls itself never stops",
                               budgets.recursion_depth)
        self.s.stack.append(Frame(code, 0, vars, [], kind))

    def unwind(self, kind: str, span: Span):
        stack = self.s.stack
        if kind == "game":
            self.s.ending = True
        floor = self.sync_floor or 0
        while len(stack) > floor:
            frame = stack[-1]
            for i in range(len(frame.handlers) - 1, -1, -1):
                if frame.handlers[i][0] == kind:
                    del frame.handlers[i + 1:]
                    frame.pc = frame.handlers[i][1]
                    return
            if kind == "game" and len(stack) == 1 and frame.kind == "flow" and frame.pc < self.program.result_pc:
                # setup is still running (a continuous rule, a trigger or a procedure ended the game
                # before its handler is in place): the game ends there, and its result is worked out
                del frame.handlers[:]
                frame.pc = self.program.result_pc
                return
            stack.pop()
        if self.sync_floor is not None and kind == "game":
            return  # a continuous rule ended the game: the main loop finishes the unwinding
        raise RuleError(span, f"`end {kind}` was used where no {kind} is running")

    # ---- choices
    def chooser(self, by, ctx, span) -> Player:
        if by is not None:
            p = by(ctx)
            if not isinstance(p, Player):
                raise RuleError(span, f"a choice is made by a player, not by {describe(p)}")
            return p
        if self.s.current is not None:
            return self.s.players[self.s.current]
        raise RuleError(span, "nobody is taking a turn here, so say who makes this choice: add `by PLAYER`")

    def ask(self, player: Player, options: list[dict], prompt: str | None, span: Span):
        if self.sync_floor is not None:
            raise RuleError(span, "a choice was asked for inside a continuous rule or a value computation")
        self.s.pending = {"player": player.seat, "options": options, "prompt": prompt, "span": span}

    def took(self, by, ctx, option: dict, prompt, span: Span) -> None:
        """Tell `taken` of a choice of one option taken without asking: who took it, the option as
        each seat (and a watcher, -1) sees it before it is made, the prompt, and the log's length
        then. Working out who and the prompt leaves chance and the work counted as they were, so a
        match that is told plays on exactly as one that is not; when they cannot be worked out,
        nothing is told."""
        s, meter = self.s, self.meter
        rng, counted = s.rng_state(), (meter.work, meter.checkpoint, meter.depth)
        try:
            seat = self.chooser(by, ctx, span).seat
            shown = prompt(ctx) if callable(prompt) else prompt
        except Exception:  # (a chooser the rules never had to name, or a prompt that fails: not a move to tell)
            return
        finally:
            s.set_rng_state(rng)
            meter.work, meter.checkpoint, meter.depth = counted
        labels = {viewer: move_label(s, option, viewer, seat) for viewer in range(-1, len(s.players))}
        self.taken.append({"seat": seat, "labels": labels, "prompt": shown, "log": len(s.log)})

    def answer(self, index: int):
        pending = self.s.pending
        option = pending["options"][index]
        self.s.pending = None
        self.s.decisions += 1
        frame = self.s.stack[-1]
        op = frame.code.ops[frame.pc]
        try:
            op.resume(self, frame, option)
        except Exception as exc:
            raise as_rules_error(exc, op) from None

    # ---- triggers
    def fire_at(self, when: str, timing: str, phase: str | None = None):
        if (when, timing) not in self.program.at_timings:
            return
        keys = [("at", when, timing, None)]
        if phase is not None:
            keys.append(("at", when, timing, phase))
        infos = []
        for key in keys:
            infos.extend((info, {}) for info in self.program.triggers.get(key, ()))
            for info in self.program.keyword_triggers.get(key, ()):
                infos.extend((info, {"self": e}) for e in self.bearers(info.keyword))
        self._push_triggers(infos)

    def bearers(self, keyword: str) -> tuple:
        """The face-up cards of public zones that carry a keyword, in card order. One pass over the
        cards finds those of every keyword, kept while no card changes (`State.cards_version`: a
        player's field or a global changing leaves it): continuous rules and triggers ask again and
        again in between."""
        s = self.s
        found = s.bearers
        if found is None or found[0] != s.cards_version:
            table: dict[str, list] = {}
            fields = self.program.keyword_fields  # the only fields a keyword can be in
            for e in s.entities:
                zone = e.zone
                if zone is None or e.face_down or zone.visibility != "public":
                    continue
                # keywords_of(e) over these fields only, written in place: this runs for every face-up
                # card after every change, and a call and a list per card cost a keyword-heavy game 3-6%
                attrs = e.attrs
                for name in fields:
                    value = attrs.get(name)
                    kind = type(value)
                    if kind is KeywordValue:
                        bears = (value,)
                    elif kind is list:
                        bears = value
                    else:
                        continue
                    for k in bears:
                        if type(k) is KeywordValue:
                            cards = table.setdefault(k.name, [])
                            if not cards or cards[-1] is not e:  # a card carrying a keyword twice bears it once
                                cards.append(e)
            found = s.bearers = (s.cards_version, {name: tuple(cards) for name, cards in table.items()})
        return found[1].get(keyword, ())

    def _push_triggers(self, infos):
        ready = []
        for info, bound in infos:
            if info.keyword is not None:
                kw = next((k for k in keywords_of(bound["self"]) if k.name == info.keyword), None)
                params = self.program.keywords[info.keyword].params
                if kw is not None:
                    bound = {**bound, **keyword_values(params, kw, info.span)}
            if info.cond is not None and not info.cond(Ctx(dict(bound), self.s, self)):
                continue
            ready.append((info, bound))
            if info.keyword is not None:  # a keyword's trigger that runs is a use of the keyword
                self.s.stats[info.keyword] = self.s.stats.get(info.keyword, 0) + 1
        for info, bound in reversed(ready):
            self.push(info.code, dict(bound), "trigger")

    def dispatch(self):
        s = self.s
        events, s.events = s.events, []
        infos = []
        tables = ((self.program.triggers, False), (self.program.keyword_triggers, True))
        for kind, what, value in events:  # ("enter" | "leave", zone, card) or ("signal", name, args)
            for table, keyword in tables:
                for info in table.get((kind, what), ()):
                    bound = dict(zip(info.params, value)) if kind == "signal" else {info.var: value}
                    if keyword:
                        infos.extend((info, {**bound, "self": b}) for b in self.bearers(info.keyword))
                    else:
                        infos.append((info, bound))
        self._push_triggers(infos)

    # ---- continuous rules
    def settle(self):
        """Run every `always` rule until nothing changes (a fixed point)."""
        s = self.s
        if not self.program.has_continuous or s.settled_version == s.version:
            return
        reads = self.program.always_reads
        if reads is not None and s.touched_version == s.version \
                and not (s.touched & reads) and ("@turn" not in reads or s.settled_turn == (s.current, s.round, s.phase)) \
                and (CARD_ZONES not in reads or not any(key[0] == "#" for key in s.touched)):
            # every change since the last fixed point is recorded, and the rules read none of it: they
            # would do nothing again (dependencies.always_reads)
            self._settled()
            return
        for _ in range(SETTLE_LIMIT):
            before = s.version
            for code in self.program.always:
                self.run_sync(code, {})
            for info in self.program.keywords.values():
                for code in info.always:
                    for e in self.bearers(info.name):
                        kw = next(k for k in keywords_of(e) if k.name == info.name)
                        changed = s.version
                        self.run_sync(code, {"self": e, **keyword_values(info.params, kw, code.span)})
                        if s.version != changed:  # a keyword's continuous rule that acts is a use
                            s.stats[info.name] = s.stats.get(info.name, 0) + 1
            if s.version == before:
                self._settled()
                if s.ending and not s.over:
                    self._end_game_from_rule()
                return
        code = self.program.always[0] if self.program.always else None
        raise RuleError(code.span if code else Span(),
                        f"the continuous rules keep changing the game after {SETTLE_LIMIT} passes; they never settle")

    def _settled(self):
        s = self.s
        s.settled_version = s.touched_version = s.version
        s.touched.clear()
        s.settled_turn = (s.current, s.round, s.phase)

    def _end_game_from_rule(self):
        flow = self.s.stack[0] if self.s.stack else None
        if flow is not None and flow.pc < self.program.result_pc:
            self.unwind("game", Span())

    def settle_before_choice(self) -> bool:
        """Settle continuous rules before a player decides; True when other work must run first."""
        depth = len(self.s.stack)
        self.settle()
        if self.s.events and self.sync_floor is None:
            self.dispatch()
        return len(self.s.stack) != depth

    def run_sync(self, code: Code, vars: dict):
        """Run a block to its end right now (continuous rules); it may not ask for a choice."""
        saved_floor = self.sync_floor
        floor = len(self.s.stack)
        self.sync_floor = floor
        try:
            stack = self.s.stack
            frame = Frame(code, 0, vars, [], "always")
            stack.append(frame)
            if code.sync is not None:  # the whole block, generated (codegen.Generator.sync_block)
                code.sync(self, frame)
            else:
                self.finish_pushed(floor)
        finally:
            del self.s.stack[floor:]
            self.sync_floor = saved_floor

    def finish_pushed(self, level: int) -> bool:
        """Run the frames above the first `level` ones to their end, now: a continuous rule's
        (run_sync), or a procedure or keyword's effect that a rule's generated block pushed
        (codegen.Generator.sync_block). False when the frame at `level - 1` is gone too (unwound)."""
        stack = self.s.stack
        meter = self.meter
        while len(stack) > level:
            frame = stack[-1]
            ops = frame.code.ops
            end = len(ops)
            while True:  # the frame on top, op after op, until it ends or another comes on top
                pc = frame.pc
                if pc >= end:
                    stack.pop()
                    break
                op = ops[pc]
                op.run(self, frame)
                meter.work += 1
                if meter.work >= meter.checkpoint:
                    meter.check(op.span)
                if not stack or stack[-1] is not frame:
                    break
        return len(stack) == level

    # ---- steps (for scenarios)
    def finished(self, *names: str):
        """A step, turn, phase or round finished: when a scenario runs until one of `names`, stop
        once whatever this point sets off (end-of-X triggers) has run."""
        if self.stop_at_step in names:
            self.stop_when_depth = len(self.s.stack)

    # ---- the main loop
    def run(self):
        """Run until a player must choose, the game is over, or a requested stop is reached."""
        s = self.s
        op = None
        self.stopped = False
        meter = self.meter
        meter.reset()
        try:
            while s.pending is None and not s.over and not self.stopped:
                stack = s.stack
                if not stack:
                    s.over = True
                    break
                frame = stack[-1]
                ops = frame.code.ops
                end = len(ops)
                # the ops of the frame on top, one after the other, until it ends, another frame
                # comes on top, a choice is asked, the game is over or a requested stop is reached
                while True:
                    pc = frame.pc
                    if pc >= end:
                        stack.pop()
                        if self.stop_when_depth is not None and len(stack) <= self.stop_when_depth:
                            self.stop_when_depth = None  # (the end-of-X triggers of a requested stop have run)
                            self.stopped = True
                        break
                    op = ops[pc]
                    op.run(self, frame)
                    if s.events:
                        self.dispatch()
                    if self.stop_when_depth is not None and len(stack) <= self.stop_when_depth:
                        self.stop_when_depth = None
                        self.stopped = True
                    meter.work += 1
                    if meter.work >= meter.checkpoint:
                        meter.check(op.span)
                    if s.pending is not None or s.over or self.stopped or not stack or stack[-1] is not frame:
                        break
        except Exception as exc:
            raise as_rules_error(exc, op) from None

    def create_cards(self, set_name: str, zone: Zone, span: Span):
        cards = self.program.card_sets[set_name]
        limit = self.meter.budgets.cards
        if len(self.s.entities) + len(cards) > limit:
            raise BudgetExceeded(span, "cards", f"creating {len(cards):,} more cards would make "
                           f"{len(self.s.entities) + len(cards):,}", limit)
        if cards and zone.is_board:
            raise RuleError(span, "cards are created into a pile or hand, then moved onto a board")
        # what model.place does for each new card, done once for the set (a new match creates every card)
        s = self.s
        entities, items, owner = s.entities, zone.items, zone.owner
        for card in cards:
            attrs = dict(card.values)
            for k in card.list_fields:
                attrs[k] = list(attrs[k])
            e = Entity(len(entities), card, attrs, owner)
            e.zone = zone
            if not card.plain:
                s.holding.add(e.id)
            entities.append(e)
            items.append(e)
        s.version += len(cards)
        s.cards_version += 1
        if s.journal is not None:  # (the cards made are taken away by restore_state: the list is cut)
            s.journal.zones.add(zone)
            s.journal.changes += len(cards)


# ------------------------------------------------------------------ public API


class LegalOptions(Sequence):
    """The pending choice's options as a read-only list of `Option`s, each made when first read:
    a random bot reads only how many there are."""

    __slots__ = ("_state", "_seat", "_options", "_made")

    def __init__(self, state: State, seat: int, options):
        self._state, self._seat, self._options, self._made = state, seat, options, {}

    def __len__(self) -> int:
        return len(self._options)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._options)))]
        if not -len(self._options) <= index < len(self._options):
            raise IndexError("option index out of range")
        index %= len(self._options)
        made = self._made.get(index)
        if made is None:
            made = self._made[index] = Option(index, self._state, self._seat, self._options)
        return made

    def __eq__(self, other):
        if isinstance(other, (LegalOptions, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


class Option:
    """One legal answer to the pending choice; its name, its dict and its label (as its chooser sees it)
    are made when first read."""

    __slots__ = ("index", "_state", "_seat", "_options", "_name", "_raw", "_label")

    def __init__(self, index: int, state: State, seat: int, options):
        self.index, self._state, self._seat, self._options = index, state, seat, options
        self._name = self._raw = self._label = None

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = option_name(self._options, self.index)
        return self._name

    @property
    def raw(self) -> dict:
        if self._raw is None:
            self._raw = self._options[self.index]
        return self._raw

    @property
    def label(self) -> str:
        if self._label is None:
            self._label = option_label(self._state, self.raw, self._seat)
        return self._label

    @property
    def bindings(self) -> dict:
        """The option's parts, in order: each name it binds and its value (a card, a cell, a player,
        a plain value), so a table can let a person choose them one at a time."""
        return dict(self.raw["values"])

    def __str__(self):
        return self.label

    def __repr__(self):
        return f"Option({self.index}, {self.label!r})"

    def __eq__(self, other):
        return isinstance(other, Option) and (self.index, self.name, self.label) == (other.index, other.name, other.label)

    def __hash__(self):
        return hash((self.index, self.name))


class Game:
    """A loaded, checked and compiled game (with its variants applied)."""

    def __init__(self, program: Program, rules: N.RulesFile, variants: list[str], settings: dict, path: str, source: str,
                 game_decl: N.GameDecl | None = None):
        self.program = program
        self.rules = rules
        # the `game` declaration in force: the base file's, or the one a variant put in its place
        self.game_decl = game_decl or rules.game()
        self.variants = variants
        self.settings = settings
        self.path = path
        self.fingerprint = hashlib.sha256((source + "|" + ",".join(variants) + "|" +
                                           json.dumps(settings, sort_keys=True, default=str)).encode()).hexdigest()[:16]

    @property
    def title(self) -> str:
        return self.program.game.title

    def player_count_refused(self, n: int) -> Diagnostic:
        """Why `n` players cannot play, at the `game` line that says how many may: a variant's own
        `game` when a variant replaced it."""
        g = self.program.game
        span = self.game_decl.span if self.game_decl else Span()
        counts = str(g.players_min) if g.players_min == g.players_max else f"{g.players_min} to {g.players_max}"
        base = self.rules.game()
        by_variant = base is not None and self.game_decl is not base
        who = f"{g.title} with the variant {', '.join(self.variants)}" if by_variant else g.title
        hint = (f"without the variant, {base.title} is played by {base.players_min} to {base.players_max} players"
                if by_variant else None)
        return Diagnostic(span, f"{who} is played by {counts} players, not {n}", hint=hint)

    def new_match(self, players: int | None = None, seed: int = 0, taken: list | None = None) -> "Match":
        """A match set up and at its first choice. With `taken`, the choices of one option it takes
        without asking, from its setup on, are told in that list (`Match.taken`)."""
        n = players if players is not None else self.program.game.players_default
        g = self.program.game
        if not g.players_min <= n <= g.players_max:
            raise RulesError(self.player_count_refused(n))
        match = Match(self, self.new_state(n, seed), taken)
        match.start()
        return match

    def new_state(self, players: int, seed: int) -> State:
        """A match's state before its setup runs, under the players budget; the defaults of player
        fields and globals are rules expressions too, and their errors are the rules' errors."""
        try:
            limit = (self.program.budgets or as_budgets(None)).players
            if players > limit:
                span = self.rules.game().span if self.rules.game() else Span()
                raise BudgetExceeded(span, "players", f"a match of {players:,} players is more than a match may have",
                                     limit)
            return new_state(self.program, players, seed)
        except (RuleError, BudgetExceeded, MemoryError, RecursionError) as exc:
            raise as_rules_error(exc, None) from None

    def match_from_json(self, data: dict | str, taken: list | None = None) -> "Match":
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except (ValueError, RecursionError) as exc:  # not JSON, or nested deeper than Python reads
                raise RulesError(Diagnostic(Span(file=self.path), "this saved match is not JSON that can be read "
                                            f"({type(exc).__name__}: {str(exc)[:200]})")) from None
        if not isinstance(data, dict) or data.get("fingerprint") != self.fingerprint:
            raise RulesError(Diagnostic(Span(file=self.path), "this saved match was made with different rules "
                                        "(the .rules file, variant or settings changed since it was saved)"))
        try:
            return Match(self, state_from_json(self.program, data), taken)
        except RulesError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as exc:  # edited by hand, cut short
            raise RulesError(Diagnostic(Span(file=self.path), f"this saved match is damaged and cannot be read "
                                        f"({type(exc).__name__}: {str(exc)[:200]})")) from None


def new_state(program: Program, n: int, seed: int) -> State:
    s = State(seed)
    vm = VM(program, s)
    for seat in range(n):
        s.players.append(Player(seat, {}))
    make_zones(program, s)  # (first: a starting value may name a zone, `display(1)` or `count(pile)`)
    ctx = Ctx({}, s, vm)
    for p in s.players:
        for name, default in program.player_fields:
            p.attrs[name] = default(ctx)
    for name, default in program.global_vars:
        s.globals[name] = default(ctx)
    for set_name, zone_fn in program.auto_sets:
        vm.create_cards(set_name, zone_fn(ctx), Span())
    s.version = 0
    return s


class Match:
    """One game being played: ask it for legal options and apply one at a time."""

    def __init__(self, game: Game, state: State, taken: list | None = None):
        self.game = game
        self.s = state
        self.vm = VM(game.program, state)
        self.vm.taken = taken

    def start(self):
        self.s.stack.append(Frame(self.game.program.flow, 0, {}, [], "flow"))
        self.vm.run()

    # ---- playing
    @property
    def is_over(self) -> bool:
        return self.s.over

    @property
    def to_move(self) -> int | None:
        """The seat (0-based) that must answer the pending choice."""
        return self.s.pending["player"] if self.s.pending else None

    @property
    def prompt(self) -> str | None:
        return self.s.pending["prompt"] if self.s.pending else None

    def legal_options(self) -> "LegalOptions | list":
        if self.s.pending is None:
            return []
        # each option is made (and labelled) only when asked for: a random bot needs none of them
        return LegalOptions(self.s, self.s.pending["player"], self.s.pending["options"])

    def option_count(self) -> int:
        return len(self.s.pending["options"]) if self.s.pending else 0

    def apply(self, option: Option | int):
        pending = self.s.pending
        if pending is None:
            raise ValueError("no choice is pending: the match is over")
        index = option if type(option) is int else option.index if isinstance(option, Option) else int(option)
        if not 0 <= index < len(pending["options"]):
            raise ValueError(f"option {index} is not one of the {len(pending['options'])} legal options")
        vm = self.vm
        vm.answer(index)
        vm.run()

    @property
    def taken(self) -> list | None:
        """With a list given to the match, each choice of one option it took without asking, as
        {"seat", "labels": the move as each seat (-1: a watcher) saw it, "prompt", "log": the log's
        length then}: no answer records such a move, and play, replay and serve show it (`VM.took`)."""
        return self.vm.taken

    def news(self, log_from: int, taken_from: int) -> list:
        """What happened since: the log's lines from `log_from` (texts) and the choices told in
        `taken` from `taken_from` (dicts), in the order they came."""
        log, out, at = self.s.log, [], log_from
        for told in (self.taken or ())[taken_from:]:
            out += log[at:told["log"]]
            at = max(at, told["log"])
            out.append(told)
        return out + log[at:]

    def try_option(self, index: int):
        """Apply an option to look at the position after it: as `apply`, but the match stops at the
        next choice of two or more options without listing them (listing them is often most of the
        work): it can then be looked at and scored (`heuristic`, `is_over`, `s`), not played on. A
        choice of one option is taken, as `apply` does. For copies a bot throws away."""
        vm = self.vm
        vm.probe = True
        try:
            self.apply(index)
        finally:
            vm.probe = False

    @property
    def result(self) -> dict | None:
        if not self.s.over:
            return None
        return {
            "winners": [w + 1 for w in self.s.winners],
            "rounds": self.s.round,
            "decisions": self.s.decisions,
            "players": [dict(result_attrs(p.attrs)) for p in self.s.players],
            "keyword_uses": dict(self.s.stats),
            **({"eliminated": [i + 1 for i in out_seats(self.s)]} if out_seats(self.s) else {}),
        }

    def result_words(self) -> str:
        """A finished match in a line: "after 3 rounds, Player 2 won" (play, replay and the browser table)."""
        rounds = self.s.round  # (what `result` says, without making the rest of it)
        winners = " and ".join(f"Player {w + 1}" for w in self.s.winners) or "nobody"
        return f"after {rounds} round{'' if rounds == 1 else 's'}, {winners} won"

    # ---- views
    def view(self, seat: int) -> dict:
        return player_view(self.s, seat)

    # ---- saving
    def to_json(self) -> dict:
        data = state_to_json(self.s)
        data["fingerprint"] = self.game.fingerprint
        data["game"] = self.game.title
        data["variants"] = self.game.variants
        return data

    def clone(self, answer: int | None = None) -> "Match":
        """A copy of the match. With `answer`, its pending choice keeps only that option, as its
        option 0 (``saves.copy_state``): ``clone(i).apply(0)`` plays option i on a copy, cheaper."""
        return Match(self.game, copy_state(self.s, answer))

    def mark(self) -> Mark:
        """Mark the match to try options on it and put it back after each (`restore`), instead of
        trying each on a copy: from now on it records what changes (``saves.mark_state``)."""
        return mark_state(self.s)

    def restore(self, mark: Mark) -> None:
        """Put the match back as it was when marked (``saves.restore_state``)."""
        restore_state(self.s, mark)
        self.vm.meter.reset()  # (as a new copy's)
        self.vm.meter.depth = 0
        self.vm.sync_floor = None

    def sample_for(self, seat: int, rng: random.Random) -> "Match":
        """A copy of the match as the given player might imagine it: every card they cannot see is
        shuffled among the places they cannot see (same component only), and chance is reseeded."""
        copy = self.clone()
        determinize(copy.s, seat, rng)
        return copy

    def heuristic(self, seat: int) -> float | None:
        """The rules' `def heuristic(p)` of a seat now, or None when the rules have none. A failure in
        it, or a value that is no number, is a rules error at the def's line."""
        program = self.game.program
        if program.heuristic is None:
            return None
        try:
            h = program.heuristic(Ctx({}, self.s, self.vm), (self.s.players[seat],))
        except Exception as exc:
            raise as_rules_error(exc, self._heuristic_at()) from None
        if h is not None and type(h) not in (int, float, bool):
            raise RulesError(Diagnostic(self._heuristic_at(), f"`def heuristic(p)` tells the bots how well a "
                                        f"player stands, as a number, but it gave {describe(h)}"))
        return float(h or 0)

    def _heuristic_at(self) -> Span:
        """Where a failure of the rules' heuristic is reported: the def's line."""
        program = self.game.program
        sym = program.table.symbols.get("heuristic") if program.table is not None else None
        return sym.decl.span if sym is not None else Span()

    def winners_now(self) -> list[int] | None:
        """The seats the rules' ``result`` makes winners when run now, or None when there is no result or
        it cannot be worked out mid-game. Runs the result on this match: call it on a throw-away copy."""
        result = self.game.program.result
        if result is None:
            return None
        self.s.winners = []
        try:
            self.vm.run_sync(result, {})
        except Exception:  # a result that cannot be worked out mid-game says nothing
            return None
        return self.s.winners

    def evaluate(self, seat: int, in_place: bool = False) -> float:
        """How good the position is for a seat if the game ended now: 1 per win, plus the rules' heuristic.
        With in_place the match itself is used up (for throw-away copies)."""
        copy = self if in_place else self.clone()
        # (a finished game's winners as the game named them; else the result run now, if it can be)
        winners = copy.s.winners if copy.s.over else copy.winners_now() or ()
        value = 1.0 if seat in winners else 0.0
        h = copy.heuristic(seat)
        if h is not None:
            value += 0.01 * h
        return value
