"""The game's own expressions, as a scenario computes them (``ScenarioExpressions``, a part of
``ScenarioRunner``): compiled against the game with the values only a scenario has (``chooser``,
``offered``, ``prompt``, ``game_over``, ``winners``, ``turn_number``, ``current_step``) and its two
functions (``contains``, ``visible_to``: ``ScenarioCompiler``); a name the game lacks gets a
"did you mean".
"""
from __future__ import annotations

import re

from rulelang.model.builtins import BUILTINS, describe
from rulelang.compile.codegen import Generator
from rulelang.compile.compiler import Compiler
from rulelang.engine.program import Code, Ctx, RuleError
from rulelang.core.errors import did_you_mean
from rulelang.check.types import BUILTIN_VALUE_TYPES
from rulelang.model.things import Entity, Player
from rulelang.engine.runtime import Match
from rulelang.engine.visibility import visible
from rulelang.tools.scenario_report import ScenarioFailure


# the values only a scenario's expressions have (computed by ScenarioExpressions.eval)
SCENARIO_VALUES = ("chooser", "offered", "prompt", "game_over", "winners", "turn_number", "current_step")


class ScenarioExpressions:
    """Computing the game's expressions and statements in a scenario (mixed into ScenarioRunner)."""

    def compiler(self, match: Match) -> Compiler:
        program = match.game.program
        comp = ScenarioCompiler(program.table, match.game.settings)
        comp.program = program
        comp.impure_defs = program.generated.cc.impure_defs
        comp.gen = ScenarioGenerator.beside(comp, program.generated)  # (finish() compiles what it wrote)
        return comp

    def eval(self, match: Match, expr, extra: dict | None = None):
        names = {}
        try:
            comp = self.compiler(match)
            names = {"chooser": match.s.players[match.to_move] if match.s.pending else None,
                     "offered": [o.label for o in match.legal_options()],
                     "prompt": (match.prompt or "choose") if match.s.pending else None,
                     "game_over": match.s.over,
                     "winners": [match.s.players[w] for w in match.s.winners],
                     "turn_number": _turn_number(match),
                     "current_step": match.s.globals.get("__step")}
            names = {k: v for k, v in names.items() if k not in comp.t.symbols}
            names.update(extra or {})
            comp.scope = frozenset(comp.scope) | frozenset(names)
            fn = comp.expr(expr)
            comp.gen.finish()
            return fn(Ctx(names, match.s, match.vm))
        except RuleError as exc:
            raise ScenarioFailure(exc.span, exc.message, hint=self.hint_for(match, exc.message, names)) from None

    def hint_for(self, match: Match, message: str, names) -> str | None:
        """did you mean ...? for a name or a field of an expression (the game's checker does not see
        the scenario's expressions)."""
        table = match.game.program.table
        if (m := re.fullmatch(r'"(\w+)" is not defined', message)) is not None:
            known = set(table.symbols) | set(names) | set(BUILTIN_VALUE_TYPES) | set(BUILTINS)
            return did_you_mean(m.group(1), known)
        if (m := re.fullmatch(r'(Player \d+|.+) has no "(\w+)"', message)) is not None:
            fields = set(table.player_fields) if m.group(1).startswith("Player ") else table.all_fields()
            return did_you_mean(m.group(2), fields)
        return None

    def run_statement(self, match: Match, stmt, names: dict | None = None):
        comp = self.compiler(match)
        comp.scope = frozenset(comp.scope) | frozenset(names or {})
        code = Code(-1, "scenario", "always", stmt.span)
        try:
            comp.block(code, [stmt], loops=[])
            comp.gen.finish()
            match.vm.run_sync(code, dict(names or {}))
        except RuleError as exc:
            raise ScenarioFailure(exc.span, exc.message) from None

class ScenarioCompiler(Compiler):
    """The game's expressions and statements, written by a ScenarioGenerator (`compiler`)."""


class ScenarioGenerator(Generator):
    """The game's expressions, with the functions only a scenario has: `contains(text or list, part)`
    and `visible_to(player, card)`."""

    def g_Call(self, x):
        name = x.func
        if name in SCENARIO_FUNCTIONS and name not in self.cc.scope and name not in self.pylocals \
                and name not in self.cc.t.symbols:
            if len(x.args) != 2 or x.kwargs:
                raise RuleError(x.span, f"{name}() takes 2 values: {SCENARIO_FUNCTIONS[name]}")
            fn = self.const(_contains if name == "contains" else _visible_to, "B")
            return f"{fn}({self.x(x.args[0])}, {self.x(x.args[1])}, {self.span(x)})"
        return super().g_Call(x)


SCENARIO_FUNCTIONS = {"contains": "contains(TEXT, PART) or contains(LIST, ITEM)",
                      "visible_to": "visible_to(PLAYER, CARD)"}


def _contains(whole, part, span) -> bool:
    if type(whole) is str:
        if type(part) is not str:
            raise RuleError(span, f"contains() looks for a text in a text, not for {describe(part)}")
        return part in whole
    if type(whole) is list:
        return any(x is part or (type(x) is type(part) and x == part) for x in whole)
    raise RuleError(span, f"contains() looks in a text or a list, not in {describe(whole)}")


def _visible_to(player, card, span) -> bool:
    if type(player) is not Player or type(card) is not Entity:
        raise RuleError(span, f"visible_to() takes a player and a card, not {describe(player)} and {describe(card)}")
    return visible(card, player.seat)


def _turn_number(match: Match):
    """The number of the turn being taken in the innermost `take turns` running (1 for the first), or none."""
    for frame in reversed(match.s.stack):
        for v in frame.vars.values():
            if type(v) is dict and "taken" in v and "first" in v:
                return v["taken"]
    return None


def round_start_pc(program) -> int:
    return next(i for i, op in enumerate(program.flow.ops) if op.what == "round_start")
