"""Rule tests that designers write: a position, a step, the expected outcome.

A scenario file holds ``scenario "name" { ... }`` blocks (rules syntax) or is a JSON
file with the same parts. ``rulelang test FILE...`` runs them::

    /// "A piece with no neighbour is removed at the end of the round."
    scenario "a lonely piece is removed" {
      game "games/mygame.rules"
      players 2
      position {
        round 2
        phase cleanup
        set first_player = player(1)
        board at (0, 0): Piece(colour: red, strength: 3)
      }
      run step remove_lonely
      expect count(board) == 0
    }

Cards named in a position are taken from the game's own cards (never made up), so
cards stay conserved. Piles are listed from the top down.

`choose "text"` lines queue answers; a `run` uses them in order for the choices it meets
(an exact label, or the one label containing the text). `run choice` answers one choice
and runs on to the next one; with no `choose` queued it only runs up to the next choice
and stops there. In an `expect`, `chooser` is the player who must answer the pending
choice (none when nothing is asked), `offered` the labels of its options, `game_over` is
true once the game has ended and `winners` lists the players who won::

    run choice
    expect chooser == player(1)
    expect "place red 3, (2, 0)" not in offered

A `choose` that matches none or several of the options fails the scenario, unless the
next line is `expect error "matches none"` (or `"matches 2"`). When labels are equal (two
cards with the same label), name the option another way: `choose option 2` (the second
option as listed), `choose card EXPR` (the option that binds that card, e.g.
`choose card hand(player(1))[0]`) or `choose cell EXPR` (the option at that cell, e.g.
`choose cell (1, 0)`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import nodes as N
from .builtins import describe
from .compiler import Compiler
from .program import Code, Ctx, RuleError
from .errors import RulesError, Span, reason_of
from .model import Entity, Zone, move as move_entity, set_owner
from .parser import parse_file, parse_text
from .resources import find_game
from .loader import load
from .runtime import Frame, Game, Match, _new_state
from .sourcefile import NotAJsonObject, read_json_object


@dataclass
class ScenarioResult:
    name: str
    span: Span
    passed: bool
    message: str = ""
    failed_at: Span | None = None
    checks: int = 0


class ScenarioFailure(Exception):
    def __init__(self, span: Span, message: str):
        super().__init__(message)
        self.span = span
        self.message = message


class AnswerNotOffered(ScenarioFailure):
    """A `choose` that matches none (or several) of the options: `expect error` may check it."""

    def format(self) -> str:
        return self.message


class ScenarioRunner:
    def __init__(self, scenario: N.ScenarioDecl, base_dir: Path, game_cache: dict):
        self.sc = scenario
        self.base_dir = base_dir
        self.cache = game_cache
        self.answers: list[N.ScenarioItem] = []
        self.last_error: RulesError | None = None
        self.checks = 0

    # ---- setting up
    def _items(self, kind):
        return [i for i in self.sc.items if i.kind == kind]

    def position_data(self, item) -> dict:
        """The JSON object of a `position from "FILE"` (a saved match, or a position), or a
        ScenarioFailure at that line saying why it cannot be read."""
        path = self.base_dir / item.text

        def refuse(why: str):
            raise ScenarioFailure(item.span, f'the position file "{item.text}" {why}')

        if not path.exists():
            refuse("does not exist (it is looked for beside the scenario file)")
        try:
            return read_json_object(path)
        except OSError as exc:
            refuse(f"cannot be read: {reason_of(exc)}")
        except NotAJsonObject as exc:
            refuse(f"cannot be used: {exc}")

    def load_game(self) -> Game:
        games = self._items("game")
        if not games:
            raise ScenarioFailure(self.sc.span, 'the scenario does not say which game it tests: add `game "path/to/game.rules"`')
        text = games[0].text
        path = self.base_dir / text
        if not path.is_file():  # a folder of the same name beside the scenario is not the game
            path = find_game(text)
        if not Path(path).exists():
            raise ScenarioFailure(games[0].span, f'cannot find the game "{text}"')
        variants = [n for i in self._items("variant") for n in i.names]
        settings = {i.names[0]: i.names[1] for i in self._items("setting")}
        key = (str(Path(path).resolve()), tuple(variants))
        if settings:
            key += (tuple(sorted(settings.items())),)
        if key not in self.cache:
            self.cache[key] = load(str(path), variant=variants, settings=settings)
        return self.cache[key]

    def build(self) -> Match:
        game = self.load_game()
        players_items = self._items("players")
        players = players_items[0].number if players_items else game.program.game.players_default
        seed_items = self._items("seed")
        seed = seed_items[0].number if seed_items else 0
        positions = self._items("position")
        files = self._items("position_file")
        state = _new_state(game.program, players, seed)
        match = Match(game, state)
        if not positions and not files:
            state.stack.append(Frame(game.program.flow, 0, {}, [], "flow"))
            return match
        if files:
            data = self.position_data(files[0])
            match = game.match_from_json(data) if "stack" in data else match
            if "stack" in data:
                return match
        box = Zone("box", "__box", None, "hidden")
        state.zones["__box"] = box
        used: set[int] = set()
        phase = None
        for pos in positions:
            for item in pos.position:
                phase = self.apply_position(match, item, used) or phase
        self.start_at(match, phase)
        return match

    def apply_position(self, match: Match, item: N.PosItem, used: set[int]):
        s = match.s
        if item.kind == "round":
            s.round = item.round
            return None
        if item.kind == "phase":
            if item.phase not in match.game.program.phases:
                raise ScenarioFailure(item.span, f'the game has no phase "{item.phase}"')
            return item
        if item.kind == "set":
            stmt = N.Assign(span=item.span, target=item.target, op="=", value=item.value)
            self.run_statement(match, stmt)
            return None
        zone = self.zone(match, item)
        cell = self.eval(match, item.at) if item.at is not None else None
        if zone.is_board and cell is None:
            raise ScenarioFailure(item.span, f"cards on the board {zone.name} need a cell: write `{zone.name} at (x, y): ...`")
        if item.kind == "empty":
            for e in list(zone.cells.stack(cell) if zone.is_board and cell is not None else zone.items):
                move_entity(s, e, s.zones["__box"])
            return None
        # listed from the top down: the first card ends on top
        for pc in reversed(item.cards):
            e = self.find_card(match, pc, used)
            used.add(e.id)
            move_entity(s, e, zone, cell)
            if zone.owner is not None:
                set_owner(s, e, zone.owner)
        return None

    def zone(self, match: Match, item: N.PosItem) -> Zone:
        info = match.game.program.zones.get(item.zone)
        if info is None:
            raise ScenarioFailure(item.span, f'the game has no zone "{item.zone}"')
        if info.per_player:
            if item.player is None:
                raise ScenarioFailure(item.span, f'each player has a "{item.zone}": write `{item.zone} of player N`')
            key = f"{item.zone}#{item.player}"
        else:
            key = item.zone
        if key not in match.s.zones:
            raise ScenarioFailure(item.span, f"there is no {item.zone} of player {item.player} in this match")
        return match.s.zones[key]

    def find_card(self, match: Match, pc: N.PosCard, used: set[int]) -> Entity:
        s = match.s
        program = match.game.program
        if pc.name is not None:
            matches = [e for e in s.entities if e.card.name == pc.name and e.id not in used]
            wanted = f'"{pc.name}"'
            ctor_values = None
        else:
            ctor = pc.ctor
            if ctor.component not in program.components:
                raise ScenarioFailure(pc.span, f'the game has no component "{ctor.component}"')
            ctor_values = {a.name: self.eval(match, a.value) for a in ctor.args}
            matches = [e for e in s.entities if e.card.component == ctor.component and e.id not in used
                       and all(e.attrs.get(k) == v for k, v in ctor_values.items())]
            wanted = f"{ctor.component}(" + ", ".join(f"{k}: {describe(v)}" for k, v in ctor_values.items()) + ")"
        if matches:
            return matches[0]
        # a card of a set that is only created during setup: take it from the game's card lists
        for set_name, defs in program.card_sets.items():
            for card in defs:
                if pc.name is not None and card.name != pc.name:
                    continue
                if ctor_values is not None and (card.component != pc.ctor.component or
                                                not all(card.values.get(k) == v for k, v in ctor_values.items())):
                    continue
                if any(e.card is card for e in s.entities):
                    continue
                e = Entity(len(s.entities), card, {k: (list(v) if isinstance(v, list) else v) for k, v in card.values.items()})
                if not card.plain:  # as VM.create_cards: a copy of the match copies its values (State.holding)
                    s.holding.add(e.id)
                s.entities.append(e)
                move_entity(s, e, s.zones["__box"])
                return e
        raise ScenarioFailure(pc.span, f"the game has no card {wanted} left to put here (each card exists only once)")

    def start_at(self, match: Match, phase_item):
        program = match.game.program
        s = match.s
        flow = program.flow
        if phase_item is None:
            pc = program.result_pc if s.over else _round_start_pc(program)
            handlers = [("game", program.result_pc)]
            frame = Frame(flow, pc, {}, handlers, "flow")
            s.stack = [frame]
            return
        if s.round == 0:
            s.round = 1
        index = next(i for i, op in enumerate(flow.ops) if op.what == "phase" and op.arg == phase_item.phase)
        s.stack = [Frame(flow, index, {}, [("game", program.result_pc), ("round", program.round_end_pc)], "flow")]

    # ---- evaluating the game's own expressions
    def compiler(self, match: Match) -> Compiler:
        comp = Compiler(match.game.program.table, match.game.settings)
        comp.program = match.game.program
        return comp

    def eval(self, match: Match, expr):
        try:
            comp = self.compiler(match)
            names = {"chooser": match.s.players[match.to_move] if match.s.pending else None,
                     "offered": [o.label for o in match.legal_options()],
                     "game_over": match.s.over,
                     "winners": [match.s.players[w] for w in match.s.winners]}
            names = {k: v for k, v in names.items() if k not in comp.t.symbols}
            comp.scope = frozenset(comp.scope) | frozenset(names)
            fn = comp.expr(expr)
            return fn(Ctx(names, match.s, match.vm))
        except RuleError as exc:
            raise ScenarioFailure(exc.span, exc.message) from None

    def run_statement(self, match: Match, stmt):
        comp = self.compiler(match)
        code = Code(-1, "scenario", "always", stmt.span)
        try:
            comp.block(code, [stmt], loops=[])
            match.vm.run_sync(code, {})
        except RuleError as exc:
            raise ScenarioFailure(exc.span, exc.message) from None

    # ---- running
    def run(self) -> ScenarioResult:
        try:
            match = self.build()
            steps = [i for i in self.sc.items if i.kind in ("run", "choose", "expect", "expect_error")]
            started = any(i.kind in ("position", "position_file") for i in self.sc.items)
            pending_error: tuple[RulesError, Span] | None = None
            for item in steps:
                if pending_error is not None and item.kind != "expect_error":
                    self.unexpected(pending_error)
                if item.kind == "choose":
                    self.answers.append(item)
                elif item.kind == "run":
                    try:
                        self.run_unit(match, item, started)
                        started = True
                    except (RulesError, AnswerNotOffered) as exc:
                        pending_error = (exc, item.span)
                elif item.kind == "expect":
                    self.expect(match, item)
                elif item.kind == "expect_error":
                    self.checks += 1
                    if pending_error is None:
                        raise ScenarioFailure(item.span, f'expected the rules to fail with "{item.text}", but they did not')
                    if item.text.lower() not in pending_error[0].format().lower():
                        raise ScenarioFailure(item.span, f'expected an error containing "{item.text}", but got:\n'
                                              + pending_error[0].format())
                    pending_error = None
            if pending_error is not None:
                self.unexpected(pending_error)
            if self.answers:
                unused = self.answers[0]
                what = unused.text if unused.unit is None else f"{unused.unit} {unused.number or '...'}"
                raise ScenarioFailure(unused.span, f'this answer was never used: no choice came up for "{what}"')
            if self.checks == 0:
                raise ScenarioFailure(self.sc.span, "the scenario checks nothing: add at least one `expect`")
            return ScenarioResult(self.sc.name, self.sc.span, True, checks=self.checks)
        except ScenarioFailure as exc:
            return ScenarioResult(self.sc.name, self.sc.span, False, exc.message, exc.span, self.checks)
        except RulesError as exc:
            return ScenarioResult(self.sc.name, self.sc.span, False, exc.format(), exc.diagnostics[0].span, self.checks)

    def unexpected(self, pending_error):
        exc, span = pending_error
        if isinstance(exc, AnswerNotOffered):
            raise exc
        raise ScenarioFailure(span, "the rules failed here:\n" + exc.format())

    def run_unit(self, match: Match, item: N.ScenarioItem, started: bool):
        unit, target = item.unit, item.target
        vm = match.vm
        program = match.game.program
        if unit == "step":
            names = sorted({n for code in program.codes for n in code.step_names})
            if target is None:
                raise ScenarioFailure(item.span, "say which step to run: `run step NAME`"
                                      + (f"; the steps are: {', '.join(names)}" if names else ""))
            if target not in names:
                raise ScenarioFailure(item.span, f'the game has no step "{target}"'
                                      + (f"; its steps are: {', '.join(names)}" if names else ""))
        if unit == "phase" and target is not None and target not in program.phases:
            raise ScenarioFailure(item.span, f'the game has no phase "{target}"')
        stop = {"step": target, "phase": f"phase:{target or '*'}", "round": "round", "turn": "turn",
                "setup": "setup", "game": None, "choice": None}[unit]
        vm.stop_at_step = stop
        answered = 0
        try:
            if match.s.pending is None and not match.s.over:
                vm.run()
            while not match.s.over and not vm.stopped and match.s.pending is not None:
                if unit == "choice" and (answered == 1 or not self.answers):
                    break  # one answer given, or none queued: stop at the choice so `expect` can look at it
                index = self.answer(match, item)
                answered += 1
                vm.answer(index)
                vm.run()
        finally:
            vm.stop_at_step = None
        if unit in ("step", "phase", "turn", "round", "setup") and not vm.stopped and not match.s.over:
            raise ScenarioFailure(item.span, f"the {unit} did not finish")

    def answer(self, match: Match, item: N.ScenarioItem):
        options = match.legal_options()
        if not self.answers:
            listing = "\n".join(f"    {o.index + 1}. {o.label}" for o in options)
            raise ScenarioFailure(item.span, f'the match asks Player {match.to_move + 1}: "{match.prompt or "choose"}", '
                                  f"but the scenario has no `choose` left for it. The options are:\n{listing}")
        answer = self.answers.pop(0)
        if answer.unit is not None:
            return self.answer_by_value(match, answer, options)
        text = answer.text.strip().lower()
        exact = [o for o in options if o.label.lower() == text]
        found = exact or [o for o in options if text in o.label.lower()]
        if len(found) != 1:
            listing = "\n".join(f"    {o.index + 1}. {o.label}" for o in options)
            what = "matches none" if not found else f"matches {len(found)}"
            raise AnswerNotOffered(answer.span, f'"{answer.text}" {what} of the options for "{match.prompt or "choose"}":\n{listing}')
        return found[0].index

    def answer_by_value(self, match: Match, answer: N.ScenarioItem, options) -> int:
        """`choose option N` (the N-th option as listed), `choose card EXPR`, `choose cell EXPR`: the one
        option that binds that card (or cell), for options whose labels are equal."""
        listing = "\n".join(f"    {o.index + 1}. {o.label}" for o in options)
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
        elif isinstance(expr, N.Member):
            detail = f" ({describe(self.eval(match, expr.elem))} in {describe(self.eval(match, expr.coll))})"
        quote = " ".join(item.doc) if item.doc else ""
        raise ScenarioFailure(item.span, "expectation failed" + detail + (f'\n  rule: {quote}' if quote else ""))


def _round_start_pc(program) -> int:
    return next(i for i, op in enumerate(program.flow.ops) if op.what == "round_start")


def json_to_rules(data: dict, name: str) -> str:
    """A JSON scenario written as rules syntax (one item per line)."""
    rule = data.get("rule", [])  # the rulebook sentence checked: a text or a list of lines
    lines = [f"/// {line}" for part in ([rule] if isinstance(rule, str) else rule) for line in str(part).splitlines()]
    lines.append(f"scenario {json.dumps(data.get('name', name))} {{")
    if "game" in data:
        lines.append(f"  game {json.dumps(data['game'])}")
    variants = data.get("variant") or data.get("variants")
    if variants:
        lines.append("  variant " + (variants if isinstance(variants, str) else ", ".join(variants)))
    for key in ("players", "seed"):
        if key in data:
            lines.append(f"  {key} {int(data[key])}")
    pos = data.get("position")
    if pos:
        lines.append("  position {")
        if "round" in pos:
            lines.append(f"    round {int(pos['round'])}")
        if "phase" in pos:
            lines.append(f"    phase {pos['phase']}")
        for target, value in (pos.get("set") or {}).items():
            lines.append(f"    set {target} = {value}")
        for zone, cards in (pos.get("zones") or {}).items():
            if isinstance(cards, dict):
                for cell, items in cards.items():
                    lines.append(f"    {zone} at {cell}: " + (", ".join(items) if items else "empty"))
            else:
                lines.append(f"    {zone}: " + (", ".join(cards) if cards else "empty"))
        lines.append("  }")
    for step in data.get("steps", []):
        if "run" in step:
            lines.append(f"  run {step['run']}")
        elif "choose" in step:
            lines.append(f"  choose {json.dumps(step['choose'])}")
        elif "expect" in step:
            if "rule" in step:
                lines.append(f"  /// {step['rule']}")
            lines.append(f"  expect {step['expect']}")
        elif "expect_error" in step:
            lines.append(f"  expect error {json.dumps(step['expect_error'])}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def load_scenarios(path: Path) -> list[N.ScenarioDecl]:
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        items = data if isinstance(data, list) else [data]
        text = "".join(json_to_rules(d, f"{path.stem} {i + 1}") for i, d in enumerate(items))
        rules = parse_text(text, str(path) + " (as rules)")
    else:
        rules = parse_file(path)
    return [d for d in rules.decls if isinstance(d, N.ScenarioDecl)]


def run_file(path: str | Path, cache: dict | None = None) -> list[ScenarioResult]:
    path = Path(path)
    cache = {} if cache is None else cache
    scenarios = load_scenarios(path)
    if not scenarios:
        return [ScenarioResult(str(path), Span(file=str(path), line=1, column=1), False, "the file holds no scenario")]
    return [ScenarioRunner(sc, path.parent, cache).run() for sc in scenarios]
