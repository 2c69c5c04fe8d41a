"""Running a scenario (``ScenarioRunner``): its lines in order (``run``, ``choose``, ``expect``,
``expect error``, ``next ...``, ``repeat``, ``stop at every choice``), the run units (setup, step,
phase, turn, round, choice, game), the queued answers and chance, and what a failed ``expect``
reports: the values of its parts and where the match stands.
"""
from __future__ import annotations

from pathlib import Path

from rulelang.language import nodes as N
from rulelang.model.builtins import describe
from rulelang.core.errors import RulesError, Span
from rulelang.model.things import Entity
from rulelang.engine.runtime import Match
from rulelang.engine.fixed_chance import FixedChance, Queued
from rulelang.engine.ops import StepOp
from rulelang.tools.scenario_position import (UNUSED_CHANCE, AnswerNotOffered, Formatted, PositionBuilder,
                                              ScenarioFailure, ScenarioResult, StopsTheBlock, unknown, value_words)


class ScenarioRunner(PositionBuilder):
    """One scenario, run (``run``) or only set up (``build``, for `rulelang check`)."""

    def __init__(self, scenario: N.ScenarioDecl, base_dir: Path, game_cache: dict, coverage=None):
        self.sc = scenario
        self.coverage = coverage  # a balance.coverage.Coverage noting the rules lines the scenario runs, or None
        self.base_dir = base_dir
        self.cache = game_cache
        self.answers: list[N.ScenarioItem] = []
        self.checks = 0
        self.failures: list[ScenarioFailure] = []
        self.chance = FixedChance()  # results of chance the scenario queued (`next roll 6`)
        self.every_choice = False  # `stop at every choice`: runs stop at a choice of one option too
        self.pending_error: tuple[RulesError, Span] | None = None  # a failed `run`, for the `expect error` after it
        self.lines: dict[str, list[str]] = {}  # the scenario file's lines, to quote a part of an expectation

    # ---- running
    def run(self) -> ScenarioResult:
        """Run the scenario's lines to the end, or to the first `run` that fails; every failed
        expectation is reported, each at its line."""
        failures = self.failures
        try:
            match = self.build()
            if self.coverage is not None:
                self.coverage.watch(match)
            try:
                self.run_items(match, self.sc.items)
                if self.pending_error is not None:
                    self.unexpected(self.pending_error)
            except ScenarioFailure as exc:  # a failed `run` ends the block
                failures.append(exc)
            except RulesError as exc:
                failures.append(Formatted(exc.diagnostics[0].span, exc.format()))
            if not failures or not isinstance(failures[-1], StopsTheBlock):
                for unused in self.answers:
                    what = unused.text if unused.unit is None else f"{unused.unit} {unused.number or '...'}"
                    failures.append(ScenarioFailure(unused.span, f'this answer was never used: no choice came up for "{what}"'))
                    break
                for q in self.chance.unused():
                    failures.append(ScenarioFailure(q.span, f"this queued {q.words} was never used: "
                                                    + UNUSED_CHANCE[q.words.split()[0]]))
            if self.checks == 0 and not failures:
                failures.append(ScenarioFailure(self.sc.span, "the scenario checks nothing: add at least one `expect`"))
        except ScenarioFailure as exc:
            failures.append(exc)
        except RulesError as exc:
            return ScenarioResult(self.sc.name, self.sc.span, [(exc.diagnostics[0].span, exc.format())], self.checks)
        return ScenarioResult(self.sc.name, self.sc.span, [(f.span, f.report()) for f in failures], self.checks)

    def run_items(self, match: Match, items: list[N.ScenarioItem]):
        for item in items:
            if item.kind not in ("run", "choose", "expect", "expect_error", "chance", "stop_every", "repeat"):
                continue
            if self.pending_error is not None and item.kind != "expect_error":
                self.unexpected(self.pending_error)
            if item.kind == "choose":
                self.answers.append(item)
            elif item.kind == "chance":
                self.queue_chance(match, item.chance)
            elif item.kind == "stop_every":
                self.every_choice = True
            elif item.kind == "repeat":
                for _ in range(item.number):
                    self.run_items(match, item.items)
            elif item.kind == "run":
                try:
                    self.run_unit(match, item)
                except (RulesError, AnswerNotOffered) as exc:
                    self.pending_error = (exc, item.span)
            elif item.kind == "expect":
                try:
                    self.expect(match, item)
                except ScenarioFailure as exc:
                    self.failures.append(exc)
            elif item.kind == "expect_error":
                self.checks += 1
                pending, self.pending_error = self.pending_error, None
                if pending is None:
                    self.failures.append(ScenarioFailure(item.span, f'expected the rules to fail with "{item.text}", '
                                                         "but they did not"))
                elif item.text.lower() not in pending[0].format().lower():
                    self.failures.append(ScenarioFailure(item.span, f'expected an error containing "{item.text}", but got:\n'
                                                         + pending[0].format()))

    def unexpected(self, pending_error):
        exc, span = pending_error
        if isinstance(exc, AnswerNotOffered):
            raise StopsTheBlock(exc.span, exc.message)
        raise StopsTheBlock(span, "the rules failed here:\n" + exc.format())

    # ---- fixed chance
    def queue_chance(self, match: Match, item: N.ChanceItem, names: dict | None = None):
        """`next roll 6, 4`, `next random EXPR`, `next shuffle ZONE: cards`: results for the rules' next
        draws of chance, taken before the match's seeded generator."""
        fixed = self.chance
        match.s.fixed_chance = fixed
        if item.what == "roll":
            for n in item.numbers:
                if n < 1:
                    raise ScenarioFailure(item.span, f"a die shows 1 or more, not {n}")
                fixed.rolls.append(Queued(n, item.span, f"roll {n}"))
        elif item.what == "random":
            for expr in item.values:
                value = self.eval(match, expr, names)
                fixed.picks.append(Queued(value, expr.span, f"random pick {describe(value)}"))
        else:
            zone = self.zone(match, item)
            tests = [self.card_test(match, pc, names) for pc in item.cards for _ in range(pc.copies)]
            fixed.shuffles.append(Queued(tests, item.span, f"shuffle of {zone.name}", zone=zone.key))

    # ---- run units
    def run_unit(self, match: Match, item: N.ScenarioItem):
        unit, target = item.unit, item.target
        vm = match.vm
        program = match.game.program
        if unit == "step":
            names = sorted({n for code in program.codes for n in code.step_names})
            if target is None:
                raise ScenarioFailure(item.span, "say which step to run: `run step NAME`"
                                      + (f"; the steps are: {', '.join(names)}" if names else ""))
            if target not in names:
                raise unknown(item.span, "step", target, names)
        if unit == "phase" and target is not None and target not in program.phases:
            raise unknown(item.span, "phase", target, program.phases)
        if unit == "setup" and any(i.kind in ("position", "position_file") for i in self.sc.items):
            raise ScenarioFailure(item.span, "a scenario with a position starts after setup: `run setup` has nothing to run",
                                  expected="`run phase NAME`, `run round`, `run choice`... after a position, "
                                  "or `run setup` in a scenario without one")
        was_over = match.s.over
        began = []  # whether the phase or step to run began: the game may end before it comes
        if unit == "step" and match.s.pending is None and not match.s.over and self.jump_to_step(match, target):
            began.append(target)
        if unit == "phase" and not match.s.over:
            fire_at = vm.fire_at

            def watch(when, timing, phase=None):
                if when == "start" and timing == "phase" and (target is None or phase == target):
                    began.append(phase)
                return fire_at(when, timing, phase)

            vm.fire_at = watch
        stop = {"step": target, "phase": f"phase:{target or '*'}", "round": "round", "turn": "turn",
                "setup": "setup", "game": None, "choice": None}[unit]
        vm.stop_at_step = stop
        vm.ask_single = self.every_choice or item.every_choice
        answered = 0
        try:
            if match.s.pending is None and not match.s.over:
                vm.run()
            while True:
                while not match.s.over and not vm.stopped and match.s.pending is not None:
                    if (unit == "choice" and answered == 1) or not self.answers:
                        break  # one answer given, or none queued: stop at the choice so `expect` can look at it
                    index = self.answer(match, item)
                    answered += 1
                    vm.answer(index)
                    vm.run()
                if not (match.s.ending and not match.s.over and match.s.pending is None):
                    break
                vm.stop_at_step = None  # the game is ending: its ending is resolved completely
                vm.run()
        finally:
            vm.stop_at_step = None
            vm.ask_single = False
            vm.__dict__.pop("fire_at", None)
        if match.s.pending is not None and not vm.stopped:
            return  # stopped at a choice no answer is queued for: the scenario can look at it
        if unit in ("step", "phase", "turn", "round", "setup") and not vm.stopped and not match.s.over:
            raise StopsTheBlock(item.span, f"the {unit} did not finish")
        if unit == "step" and match.s.globals.get("__step") == target:
            began.append(target)  # (the game ended inside the step)
        if unit in ("phase", "step") and match.s.over and not vm.stopped and not began:
            s = match.s
            name = f'{unit} "{target}"' if target is not None else "any phase"
            max_rounds = program.game.max_rounds
            if was_over:
                raise StopsTheBlock(item.span, f"the game is already over (in round {s.round}): {name} cannot run")
            why = (f"the game has max rounds {max_rounds} and this is round {s.round}"
                   if max_rounds is not None and s.round >= max_rounds else
                   "the position already meets a condition of the rules that ends the game (an `end game`)")
            raise StopsTheBlock(item.span, f"the game ended before {name} ran, in round {s.round}", hint=why)

    def jump_to_step(self, match: Match, name: str) -> bool:
        """When the match stands at the start of a phase whose lines before step NAME are all other
        steps, start at NAME: those steps are skipped and the phase's start-of-phase triggers do not
        fire. True when it did; otherwise the run goes on from where the match stands."""
        s = match.s
        program = match.game.program
        if len(s.stack) != 1 or s.stack[0].code is not program.flow:
            return False
        frame = s.stack[0]
        op = program.flow.ops[frame.pc]
        if op.what != "phase" or name not in program.phases[op.arg].code.step_names:
            return False
        phase = op.arg
        decl = next((d for d in match.game.rules.decls if isinstance(d, N.PhaseDecl) and d.name == phase), None)
        if decl is None:
            return False
        for stmt in decl.body:
            if not isinstance(stmt, N.StepBlock):
                return False
            if stmt.name == name:
                break
        else:
            return False
        info = program.phases[phase]
        begin = next((i for i, o in enumerate(info.code.ops) if isinstance(o, StepOp) and o.begin and o.name == name), None)
        if begin is None:
            return False
        s.phase = phase
        frame.handlers.append(("phase", frame.pc + 1))
        frame.pc += 1
        match.vm.push(info.code, {}, "phase")
        s.stack[-1].pc = begin
        return True

    def answer(self, match: Match, item: N.ScenarioItem):
        options = match.legal_options()
        listing = "\n".join(f"    {o.index + 1}. {o.label}" for o in options)
        if not self.answers:
            raise ScenarioFailure(item.span, f'the match asks Player {match.to_move + 1}: "{match.prompt or "choose"}", '
                                  f"but the scenario has no `choose` left for it. The options are:\n{listing}")
        answer = self.answers.pop(0)
        if answer.unit is not None:
            return self.answer_by_value(match, answer, options, listing)
        text = answer.text.strip().lower()
        exact = [o for o in options if o.label.lower() == text]
        found = exact or [o for o in options if text in o.label.lower()]
        if len(found) != 1:
            what = "matches none" if not found else f"matches {len(found)}"
            raise AnswerNotOffered(answer.span, f'"{answer.text}" {what} of the options for "{match.prompt or "choose"}":\n{listing}')
        return found[0].index

    def answer_by_value(self, match: Match, answer: N.ScenarioItem, options, listing: str) -> int:
        """`choose option N` (the N-th option as listed), `choose card EXPR`, `choose cell EXPR`: the one
        option that binds that card (or cell), for options whose labels are equal."""
        prompt = match.prompt or "choose"
        if answer.unit == "option":
            if not 1 <= answer.number <= len(options):
                raise AnswerNotOffered(answer.span, f"option {answer.number} matches none of the {len(options)} "
                                       f'options for "{prompt}":\n{listing}')
            return answer.number - 1
        value = self.eval(match, answer.expr)
        if answer.unit == "card" and not isinstance(value, Entity):
            raise ScenarioFailure(answer.span, f"`choose card` needs a card, but this is {describe(value)}")
        if answer.unit == "cell" and isinstance(value, list):
            value = tuple(value)

        def binds(raw: dict) -> bool:
            for v in raw["values"].values():
                if v is value if answer.unit == "card" else (v == value and not isinstance(v, Entity)):
                    return True
                if answer.unit == "card" and isinstance(v, list) and any(x is value for x in v):
                    return True
            return False

        found = [i for i, raw in enumerate(match.s.pending["options"]) if binds(raw)]
        if len(found) != 1:
            what = "matches none" if not found else f"matches {len(found)}"
            raise AnswerNotOffered(answer.span, f"{answer.unit} {describe(value)} {what} of the options for "
                                   f'"{prompt}":\n{listing}')
        return found[0]

    def expect(self, match: Match, item: N.ScenarioItem):
        self.checks += 1
        expr = item.expr
        value = self.eval(match, expr)
        if value:
            return
        detail = ""
        if isinstance(expr, N.Compare):
            left, right = self.eval(match, expr.left), self.eval(match, expr.right)
            detail = f" (left side is {describe(left)}, right side is {describe(right)})"
            kinds = {type(left), type(right)}
            if expr.op == "==" and len(kinds) == 2 and type(None) not in kinds and kinds != {int, bool}:
                # 0 == "zero" (a text where a number is meant): say the kinds, which describe() does not show
                detail = (f" (left side is {value_words(left)}, right side is {value_words(right)}: "
                          "values of two kinds are never equal)")
        elif isinstance(expr, N.Member):
            detail = f" ({describe(self.eval(match, expr.elem))} in {describe(self.eval(match, expr.coll))})"
        parts = [] if detail else self.parts(match, expr)
        quote = " ".join(item.doc) if item.doc else ""
        raise ScenarioFailure(item.span, "expectation failed" + detail
                              + "".join(f"\n  {words} is {value}" for words, value in parts)
                              + f"\n  the match: {self.standing(match)}"
                              + (f'\n  rule: {quote}' if quote else ""))

    def parts(self, match: Match, expr) -> list[tuple[str, str]]:
        """The values of the parts of a failed expectation that is not a comparison: a call's values,
        each side of `and`/`or`, what `not` negates, the value itself for a name or a field."""
        if isinstance(expr, N.Not):
            return self.parts(match, expr.operand) or [(self.source(expr.operand), self.shown(match, expr.operand))]
        if isinstance(expr, N.BoolOp):
            subs = expr.items
        elif isinstance(expr, N.Call):
            subs = [a for a in expr.args if not isinstance(a, (N.IntLit, N.StrLit, N.BoolLit, N.NoneLit, N.FilterList))]
        elif isinstance(expr, (N.Name, N.Attr, N.Index)):
            subs = [expr.obj] if isinstance(expr, N.Attr) and not isinstance(expr.obj, N.Call) else []
            subs = subs + [expr]
        else:
            subs = []
        return [(self.source(x), self.shown(match, x)) for x in subs]

    def shown(self, match: Match, expr) -> str:
        try:
            return value_words(self.eval(match, expr))
        except ScenarioFailure as exc:
            return f"not known ({exc.message})"

    def source(self, expr) -> str:
        """The text of an expression as the scenario writes it (on one line), or its kind of node."""
        span = expr.span
        try:
            if span.line == span.end_line and span.end_column > span.column:
                lines = self.lines.get(span.file)
                if lines is None:
                    lines = self.lines[span.file] = Path(span.file).read_text(encoding="utf-8").split("\n")
                return lines[span.line - 1][span.column - 1:span.end_column - 1]
        except (OSError, IndexError, UnicodeDecodeError):
            pass
        return type(expr).__name__.lower()

    def standing(self, match: Match) -> str:
        """Where the match stands: round, phase, step, turn, who is to choose and the prompt."""
        s = match.s
        if s.over:
            winners = ", ".join(f"Player {w + 1}" for w in s.winners) or "nobody"
            return f"the game is over after round {s.round}; winners: {winners}"
        words = [f"round {s.round}", f"phase {s.phase or '(none)'}"]
        if s.globals.get("__step"):
            words.append(f"step {s.globals['__step']}")
        if s.current is not None:
            words.append(f"Player {s.current + 1}'s turn")
        if s.pending is not None:
            labels = [o.label for o in match.legal_options()]
            shown = ", ".join(labels[:8]) + (f" and {len(labels) - 8} more" if len(labels) > 8 else "")
            words.append(f'Player {match.to_move + 1} is to choose "{match.prompt or "choose"}" among: {shown}')
        else:
            words.append("no choice is pending")
        return ", ".join(words)
