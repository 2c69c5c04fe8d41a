"""The match a scenario plays (``PositionBuilder`` and ``ScenarioExpressions``, the parts of
``ScenarioRunner``), and what a run gives back (``ScenarioResult``) and how it fails
(``ScenarioFailure`` and its kinds), in the words of its messages (``unknown``, ``value_words``,
``fits``, ``type_words``).

The game it names, loaded with its variants and settings; then the match it starts from: a saved
match or position file, or the lines of ``position { }`` (round, phase, step, ``set``, cards put in
zones, ``for`` loops, queued chance), with the cards taken from the game's own (never made up).

The game's own expressions, as a scenario computes them: compiled against the game with the values
only a scenario has (``chooser``, ``offered``, ``prompt``, ``game_over``, ``winners``,
``turn_number``, ``current_step``) and its two functions (``contains``, ``visible_to``:
``ScenarioGenerator``); a name the game lacks gets a "did you mean".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTINS, describe
from rulelang.compile.codegen import Generator
from rulelang.compile.compiler import Compiler
from rulelang.core.errors import Diagnostic, RulesError, Span, did_you_mean, reason_of
from rulelang.check.types import BUILTIN_VALUE_TYPES, ENTITY_BUILTIN_ATTRS, PLAYER_BUILTIN_ATTRS, describe_type
from rulelang.model.things import EnumMap, Entity, Player, Zone, move as move_entity, set_owner
from rulelang.core.resources import examples_dir, find_game, games_dir
from rulelang.compile.loader import load
from rulelang.balance.coverage import load_for_coverage
from rulelang.engine.program import Code, Ctx, RuleError
from rulelang.engine.runtime import Frame, Game, Match
from rulelang.engine.values import check_piece
from rulelang.engine.visibility import visible
from rulelang.core.sourcefile import NotAJsonObject, read_json_object
from rulelang.language.tables import confinement_problem

# ------------------------------------------------------------------ results, failures and their words


@dataclass
class ScenarioResult:
    name: str
    span: Span
    failures: list[tuple[Span, str]] = field(default_factory=list)  # every failure: where, and its report
    checks: int = 0

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def failed_at(self) -> Span | None:
        return self.failures[0][0] if self.failures else None

    @property
    def message(self) -> str:
        """Every failure's report, the first one first."""
        if not self.failures:
            return ""
        first, *more = self.failures
        return first[1] + "".join(f"\nalso failed at {span}:\n{report}" for span, report in more)


class ScenarioFailure(Exception):
    def __init__(self, span: Span, message: str, expected: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.span = span
        self.message = message
        self.expected = expected
        self.hint = hint

    def report(self) -> str:
        """The message as `rulelang test` shows it under FAIL: its first line, the scenario's line with
        a caret under the place, the rest of the message, then `expected:` and `hint:`."""
        first, _, rest = self.message.partition("\n")
        quoted = Diagnostic(self.span, first, self.expected, self.hint).format().split("\n")[1:]
        lines = [first]
        if quoted and not quoted[0].startswith(("  expected:", "  hint:")):
            lines += quoted[:2]
            quoted = quoted[2:]
        if rest:
            lines.append(rest)
        return "\n".join(lines + [q.strip() for q in quoted])


class StopsTheBlock(ScenarioFailure):
    """A failure that ends the scenario's block: a `run` that failed or could not do what it says."""


class Formatted(ScenarioFailure):
    """A failure whose message is a whole diagnostic already (the rules' own error)."""

    def report(self) -> str:
        return self.message


UNUSED_CHANCE = {"roll": "the runs rolled no more dice", "random": "the runs picked nothing more at random",
                 "shuffle": "the runs did not shuffle that zone again"}


class AnswerNotOffered(ScenarioFailure):
    """A `choose` that matches none (or several) of the options: `expect error` may check it."""

    def format(self) -> str:
        return self.message


def unknown(span: Span, what: str, name: str, known) -> ScenarioFailure:
    """`the game has no zone "hnad"`, with the game's own names of that kind and the closest one."""
    known = sorted(known)
    return ScenarioFailure(span, f'the game has no {what} "{name}"',
                           expected=("one of: " + ", ".join(known)) if known else f"(the game has no {what}s)",
                           hint=did_you_mean(name, known))


_BASE_KINDS = {"int": int, "bool": bool, "str": str, "player": Player, "card": Entity}


def fits(v, tref: N.TypeRef, table) -> bool:
    """Whether a value set by a position is of the kind the var or field is declared with (none
    fits any: a var without a default starts as none)."""
    if v is None or tref is None:
        return True
    if tref.list_of is not None:
        return type(v) is list and all(fits(x, tref.list_of, table) for x in v)
    if tref.per is not None:  # int per Gem: a map of that enum
        return type(v) is EnumMap and v.enum == tref.per
    name = tref.name
    if name in _BASE_KINDS:
        return type(v) is _BASE_KINDS[name]
    if name in table.components:
        return type(v) is Entity and v.card.component == name
    if table.kind(name) == "enum":
        return type(v) is str and table.enum_of_member(v) == name
    return True


def type_words(tref: N.TypeRef, table) -> str:
    def code(tr):
        if tr.list_of is not None:
            return "list:" + code(tr.list_of)
        if tr.per is not None:
            return "map:" + tr.per
        if tr.name in table.components:
            return "entity:" + tr.name
        if table.kind(tr.name) == "enum":
            return "sym:" + tr.name
        return tr.name
    words = describe_type(code(tref))
    if tref.list_of is None and tref.per is None and table.kind(tref.name) == "enum":
        members = [n for n, s in table.symbols.items() if s.kind == "member" and s.type == tref.name]
        words += " (" + ", ".join(members) + ")"
    return words


def value_words(v) -> str:
    """A value and its kind, for a message: `the text "zero"`, `the number 3`, `Player 2`."""
    if type(v) is str:
        return f'the text "{v}"'
    if type(v) is int:
        return f"the number {v}"
    if type(v) is Entity:
        return f"the card {describe(v)}"
    if type(v) is list:
        return f"the list {describe(v)}"
    return describe(v)


# ------------------------------------------------------------------ the game's expressions in a scenario


class ScenarioExpressions:
    """Computing the game's expressions and statements in a scenario (mixed into ScenarioRunner)."""

    def compiler(self, match: Match) -> Compiler:
        program = match.game.program
        comp = Compiler(program.table, match.game.settings)
        comp.program = program
        comp.impure_defs = program.generated.cc.impure_defs
        comp.gen = ScenarioGenerator.beside(comp, program.generated)  # (finish() compiles what it wrote)
        return comp

    def eval(self, match: Match, expr, extra: dict | None = None, run: bool = True):
        """The value of a game's expression in the match (`run` False: only compiled, for `rulelang check`)."""
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
            return fn(Ctx(names, match.s, match.vm)) if run else None
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

class ScenarioGenerator(Generator):
    """The game's expressions, with the functions only a scenario has: `contains(text or list, part)`
    and `visible_to(player, card)`."""

    def g_Call(self, x):
        name = x.func
        if name in SCENARIO_FUNCTIONS and name not in self.cc.scope and name not in self.pylocals \
                and name not in self.cc.t.symbols:
            fn, usage = SCENARIO_FUNCTIONS[name]
            if len(x.args) != 2 or x.kwargs:
                raise RuleError(x.span, f"{name}() takes 2 values: {usage}")
            return f"{self.const(fn, 'B')}({self.x(x.args[0])}, {self.x(x.args[1])}, {self.span(x)})"
        return super().g_Call(x)


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


SCENARIO_FUNCTIONS = {"contains": (_contains, "contains(TEXT, PART) or contains(LIST, ITEM)"),
                      "visible_to": (_visible_to, "visible_to(PLAYER, CARD)")}


def _turn_number(match: Match):
    """The number of the turn being taken in the innermost `take turns` running (1 for the first), or none."""
    return next((v["taken"] for frame in reversed(match.s.stack) for v in frame.vars.values()
                 if type(v) is dict and "taken" in v and "first" in v), None)


# ------------------------------------------------------------------ the game and the position


def game_path(text: str, base_dir: Path) -> Path:
    """The rules file a scenario's `game "..."` line names: beside the scenario, else a bundled game
    (a folder of the same name beside the scenario is not the game)."""
    path = base_dir / text
    return path if path.is_file() else find_game(text)


class PositionBuilder(ScenarioExpressions):
    """The game and the starting match of a scenario (mixed into ScenarioRunner, whose __init__
    sets ``sc``, ``base_dir``, ``cache``, ``coverage`` and ``chance``)."""

    def _items(self, kind):
        return [i for i in self.sc.items if i.kind == kind]

    def position_data(self, item) -> dict:
        """The JSON object of a `position from "FILE"` (a saved match), or a
        ScenarioFailure at that line saying why it cannot be read."""
        def refuse(why: str):
            raise ScenarioFailure(item.span, f'the position file "{item.text}" {why}')

        folder = self.base_dir.resolve()
        outside = confinement_problem(item.text, folder, "scenario")
        if outside:
            refuse(outside)
        path = folder / item.text
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
        path = game_path(text, self.base_dir)
        if not Path(path).exists():
            bundled = sorted({p.stem for d in (games_dir(), examples_dir()) for p in Path(d).glob("*.rules")})
            raise ScenarioFailure(games[0].span, f'cannot find the game "{text}": there is no file {self.base_dir / text} '
                                  "and no bundled game of that name",
                                  expected="a path relative to the scenario file, or a bundled game: " + ", ".join(bundled),
                                  hint=did_you_mean(Path(text).stem, bundled))
        variants = [n for i in self._items("variant") for n in i.names]
        settings = {i.names[0]: i.names[1] for i in self._items("setting")}
        if variants or settings:
            self.check_variants_and_settings(path, variants)
        # (the key's shape is read by tests that put a game of their own in the cache)
        key = (str(Path(path).resolve()), tuple(variants)) + ((tuple(sorted(settings.items())),) if settings else ())
        coverage = self.coverage
        if coverage is not None:
            key += ("coverage",)  # (loaded to note the lines it runs: balance/coverage.py)
        if key not in self.cache:
            try:
                loader = load if coverage is None else load_for_coverage
                self.cache[key] = loader(str(path), variant=variants, settings=settings)
                if coverage is not None:
                    coverage.add_game(self.cache[key])
            except RulesError as exc:  # a setting's value of the wrong kind: said at the scenario's line
                for item in self._items("setting"):
                    for d in exc.diagnostics:
                        if d.message.startswith(f'setting "{item.names[0]}" '):
                            raise ScenarioFailure(item.span, d.message) from None
                raise
        return self.cache[key]

    def check_variants_and_settings(self, path, variants: list[str]):
        """A `variant` or `setting` line naming none of the game's: said at that line of the scenario
        (the loader would point at the game's first line and speak of --variant and --set)."""
        from rulelang.language.astcache import parse_file_cached

        try:
            rules = parse_file_cached(path)
        except RulesError:
            return  # the game's own errors are reported when it is loaded
        declared = {d.name: d for d in rules.decls if isinstance(d, N.VariantDecl)}
        for item in self._items("variant"):
            for name in item.names:
                if name not in declared:
                    raise unknown(item.span, "variant", name, declared)
        chosen = set(variants)
        for name in variants:  # a variant's `extends` are chosen with it
            chosen.update(declared[name].extends)
        settings = {d.name: d for d in rules.decls if isinstance(d, N.SettingDecl)}
        for v in chosen:
            settings.update({d.name: d for d in declared[v].items if isinstance(d, N.SettingDecl)})
        for item in self._items("setting"):
            name, choice = item.names
            if name not in settings:
                owner = next((v for v, d in declared.items()
                              if any(isinstance(x, N.SettingDecl) and x.name == name for x in d.items)), None)
                if owner is not None:
                    raise ScenarioFailure(item.span, f'setting "{name}" belongs to variant {owner}, which this scenario '
                                          "does not choose", expected=f"`variant {owner}` in the scenario")
                raise unknown(item.span, "setting", name, settings)
            decl = settings[name]
            if decl.choices and choice not in decl.choices:
                raise ScenarioFailure(item.span, f'setting "{name}" is one of {", ".join(decl.choices)}, not "{choice}"',
                                      expected=" or ".join(f"`setting {name} = {c}`" for c in decl.choices),
                                      hint=did_you_mean(choice, decl.choices))

    def build(self) -> Match:
        game = self.load_game()
        players_items = self._items("players")
        players = players_items[0].number if players_items else game.program.game.players_default
        info = game.program.game
        if not info.players_min <= players <= info.players_max:
            refused = game.player_count_refused(players)  # (the game's words, said at the scenario's line)
            raise ScenarioFailure(players_items[0].span if players_items else self.sc.span, refused.message,
                                  expected=f"`players N` with N from {info.players_min} to {info.players_max}",
                                  hint=refused.hint)
        seed_items = self._items("seed")
        seed = seed_items[0].number if seed_items else 0
        positions = self._items("position")
        files = self._items("position_file")
        state = game.new_state(players, seed)  # (a default that fails is the rules' error, said at its line)
        match = Match(game, state)
        if not positions and not files:
            state.stack.append(Frame(game.program.flow, 0, {}, [], "flow"))
            return match
        if files:
            data = self.position_data(files[0])
            if "stack" not in data:  # (a JSON object that is no saved match would start nowhere)
                raise ScenarioFailure(files[0].span, f'the position file "{files[0].text}" holds no saved match '
                                      '(it has no "stack")', expected="a match saved as JSON (Match.to_json)")
            return game.match_from_json(data)
        box = Zone("box", "__box", None, "hidden")
        state.zones["__box"] = box
        used: set[int] = set()
        phase = step = None
        for pos in positions:
            for item in pos.position:
                if item.kind == "step":
                    step = item
                    continue
                phase = self.apply_position(match, item, used) or phase
        if step is not None:
            phase = self.step_phase(match, step, phase)
        self.start_at(match, phase)
        if step is not None and not self.jump_to_step(match, step.phase):
            raise ScenarioFailure(step.span, f'the match cannot start at step "{step.phase}": phase {phase.phase} '
                                  "has lines before it that are not steps",
                                  expected=f"`run step {step.phase}` after the position (it runs the phase up to the step)")
        return match

    def step_phase(self, match: Match, step: N.PosItem, phase):
        """The phase of a position's `step NAME`: the one its `phase` line names, else the one phase holding it."""
        program = match.game.program
        holding = [name for name, info in program.phases.items() if step.phase in info.code.step_names]
        if phase is not None and phase.phase in holding:
            return phase
        if phase is not None:
            raise unknown(step.span, f"step in phase {phase.phase} named", step.phase,
                           program.phases[phase.phase].code.step_names)
        if not holding:
            raise unknown(step.span, "step", step.phase,
                           {n for info in program.phases.values() for n in info.code.step_names})
        if len(holding) > 1:
            raise ScenarioFailure(step.span, f'phases {", ".join(holding)} each have a step "{step.phase}"',
                                  expected="`phase NAME` in the position, to say which")
        return N.PosItem(span=step.span, kind="phase", phase=holding[0])

    def apply_position(self, match: Match, item: N.PosItem, used: set[int], names: dict | None = None):
        s = match.s
        if item.kind == "round":
            s.round = item.round
            return None
        if item.kind == "phase":
            if item.phase not in match.game.program.phases:
                raise unknown(item.span, "phase", item.phase, match.game.program.phases)
            return item
        if item.kind == "chance":
            self.queue_chance(match, item.chance, names)
            return None
        if item.kind == "loop":
            values = self.eval(match, item.value, names)
            if not isinstance(values, (list, range)):
                raise ScenarioFailure(item.value.span, f"`for {item.var} in ...` needs a list, not {describe(values)}")
            phase = None
            for v in values:
                for sub in item.items:
                    if sub.kind in ("step", "round", "phase"):
                        raise ScenarioFailure(sub.span, f"`{sub.kind}` is said once, outside the loop")
                    phase = self.apply_position(match, sub, used, {**(names or {}), item.var: v}) or phase
            return phase
        if item.kind == "set":
            self.check_set(match, item, names)
            stmt = N.Assign(span=item.span, target=item.target, op="=", value=item.value)
            self.run_statement(match, stmt, names)
            return None
        zone = self.zone(match, item)
        cell = self.eval(match, item.at, names) if item.at is not None else None
        if zone.is_board and cell is None:
            raise ScenarioFailure(item.span, f"cards on the board {zone.name} need a cell: write `{zone.name} at (x, y): ...`")
        if item.kind == "empty":
            for e in list(zone.cells.stack(cell) if zone.is_board and cell is not None else zone.items):
                move_entity(s, e, s.zones["__box"])
            return None
        # listed from the top down: the first card ends on top
        for pc in reversed(item.cards):
            for k in range(pc.copies):
                try:
                    e = self.find_card(match, pc, used, names)
                except ScenarioFailure as exc:
                    if pc.copies > 1:
                        raise self.too_few_copies(match, pc, k, names) or exc from None
                    raise
                used.add(e.id)
                if zone.is_board and (type(cell) is list or e.card.shape is not None):
                    try:  # a piece lies on as many free cells as its shape, touching (as a move checks)
                        check_piece(zone, cell, e, pc.span)
                    except RuleError as exc:
                        raise ScenarioFailure(pc.span, exc.message) from None
                move_entity(s, e, zone, cell)
                if zone.owner is not None:
                    set_owner(s, e, zone.owner)
        return None

    def check_set(self, match: Match, item: N.PosItem, names: dict | None = None):
        """`set TARGET = EXPR` in a position sets a var, a player's field or a card's field that the game
        declares, to a value of its kind: a misspelt name would otherwise make a new value no rule reads."""
        table = match.game.program.table
        target = item.target
        if isinstance(target, N.Name):
            name = target.id
            kind = table.kind(name)
            if name == "round":
                raise ScenarioFailure(item.span, "the round is not set with `set`", expected="`round N` in the position")
            if name == "phase":
                raise ScenarioFailure(item.span, "the phase is not set with `set`", expected="`phase NAME` in the position")
            if name in BUILTIN_VALUE_TYPES:
                raise ScenarioFailure(item.span, f'"{name}" is worked out by the game as it plays: a position cannot set it')
            if kind == "setting":
                raise ScenarioFailure(item.span, f'"{name}" is a setting of the game, not a var: a position cannot set it',
                                      expected=f"`setting {name} = CHOICE` in the scenario, before its position")
            if kind != "var":
                raise unknown(target.span, "var", name, [n for n, s in table.symbols.items() if s.kind == "var"])
            tref, what = table.symbols[name].decl.type, f'var "{name}"'
        elif isinstance(target, N.Attr):
            owner = self.eval(match, target.obj, names)
            if type(owner) is Player:
                fields, what = table.player_fields, "a player"
            elif type(owner) is Entity:
                comp = match.game.program.components.get(owner.card.component)
                if comp is None:
                    return
                fields, what = {f.name: f for f in comp.fields}, f"a {owner.card.component}"
            else:
                return  # (none, a number, ...: the assignment says it)
            if target.name in ENTITY_BUILTIN_ATTRS or target.name in PLAYER_BUILTIN_ATTRS:
                return  # (the assignment says whether it can be set)
            if target.name not in fields:
                raise ScenarioFailure(target.span, f'{what} has no field "{target.name}"',
                                      expected=f"a field of {what}: " + (", ".join(fields) or "(none)"),
                                      hint=did_you_mean(target.name, list(fields)))
            tref, what = fields[target.name].type, f'field "{target.name}"'
        else:
            return
        value = self.eval(match, item.value, names)
        if not fits(value, tref, table):
            raise ScenarioFailure(item.value.span, f"{what} holds {type_words(tref, table)}, not {value_words(value)}")

    def zone(self, match: Match, item: N.PosItem) -> Zone:
        zones = match.game.program.zones
        info = zones.get(item.zone)
        if info is None:
            raise unknown(item.span, "zone", item.zone, [z for z in zones if not z.startswith("__")])
        if info.counts is not None:  # a family of zones: display(2)
            n = info.counts[len(match.s.players)]
            if item.number is None or not 1 <= item.number <= n:
                raise ScenarioFailure(item.span, f'"{item.zone}" is a family of {n} zones in this match: say which, '
                                                 f"counting from 1", expected=f"`{item.zone}(1)` to `{item.zone}({n})`")
            return match.s.zones[f"{item.zone}#{item.number}"]
        if getattr(item, "number", None) is not None:
            raise ScenarioFailure(item.span, f'"{item.zone}" is one zone, not a family of zones: write it without (...)')
        if info.per_player:
            if item.player is None:
                raise ScenarioFailure(item.span, f'each player has a "{item.zone}": write `{item.zone} of player N`')
            key = f"{item.zone}#{item.player}"
        else:
            if item.player is not None:  # `deck of player 1` would put the cards in the one shared deck
                raise ScenarioFailure(item.span, f'"{item.zone}" is one zone shared by all the players, not one per player',
                                      expected=f"`{item.zone}: ...` (without `of player {item.player}`)")
            key = item.zone
        if key not in match.s.zones:
            n = len(match.s.players)
            raise ScenarioFailure(item.span, f"there is no {item.zone} of player {item.player} in this match: "
                                  f"it has {n} player{'s' if n != 1 else ''}",
                                  expected=f"player 1 to player {n} (or say `players {item.player}` in the scenario)")
        return match.s.zones[key]

    def card_line(self, match: Match, pc: N.PosCard, names=None, fields_checked: bool = False):
        """What a card of a position (`"Name"` or `Component(field: value, ...)`) means: a test of a card's
        definition and values, the card in words, and the values asked for (None for a name). With
        `fields_checked`, a field its component lacks is refused before any value is computed."""
        if pc.name is not None:
            return (lambda card, values: card.name == pc.name), f'"{pc.name}"', None
        ctor, program = pc.ctor, match.game.program
        if ctor.component not in program.components:
            raise unknown(pc.span, "component", ctor.component, program.components)
        fields = [f.name for f in program.components[ctor.component].fields]
        for a in ctor.args if fields_checked else ():
            if a.name not in fields and a.name != "name":
                raise ScenarioFailure(a.span, f'{ctor.component} has no field "{a.name}"',
                                      expected=f"a field of {ctor.component}: " + ", ".join(fields),
                                      hint=did_you_mean(a.name, fields))
        wanted = {a.name: self.eval(match, a.value, names) for a in ctor.args}
        return ((lambda card, values: card.component == ctor.component and all(values.get(k) == v for k, v in wanted.items())),
                f"{ctor.component}(" + ", ".join(f"{k}: {describe(v)}" for k, v in wanted.items()) + ")", wanted)

    def card_test(self, match: Match, pc: N.PosCard, names=None):
        """A test of the match's cards for a position's card, and the card in words (`next shuffle`)."""
        fits, words, _ = self.card_line(match, pc, names)
        return (lambda e: fits(e.card, e.attrs)), words

    def find_card(self, match: Match, pc: N.PosCard, used: set[int], names: dict | None = None) -> Entity:
        s = match.s
        program = match.game.program
        fits, wanted, ctor_values = self.card_line(match, pc, names, fields_checked=True)
        same = [e for e in s.entities if fits(e.card, e.attrs)]
        free = next((e for e in same if e.id not in used), None)
        if free is not None:
            return free
        # a card of a set that is only created during setup: take it from the game's card lists (with
        # `* N`, as many copies as N: setup may create such a set more than once)
        declared = {name for name, _ in program.auto_sets}
        for set_name, defs in program.card_sets.items():
            for card in defs:
                if not fits(card, card.values):
                    continue
                if any(e.card is card for e in s.entities) and (pc.copies == 1 or set_name in declared):
                    continue
                e = Entity(len(s.entities), card, {k: (list(v) if isinstance(v, list) else v) for k, v in card.values.items()})
                if not card.plain:  # as VM.create_cards: a copy of the match copies its values (State.holding)
                    s.holding.add(e.id)
                s.entities.append(e)
                move_entity(s, e, s.zones["__box"])
                return e
        raise self.no_such_card(match, pc, wanted, ctor_values, same)

    def too_few_copies(self, match: Match, pc: N.PosCard, taken: int, names=None) -> ScenarioFailure | None:
        """`CARD * N` of a deck's cards when the game has fewer than N such cards left for this line
        (a position takes the game's own cards, never makes more); None when it has none at all (then
        find_card's own message says so)."""
        fits, words = self.card_test(match, pc, names)
        total = sum(1 for e in match.s.entities if fits(e))
        if total == 0:
            return None
        earlier = total - taken  # placed by the position's lines before this one
        said = f"{words} * {pc.copies} asks for {pc.copies} such cards, but the game has {'only ' if total < pc.copies else ''}{total}"
        if earlier:
            said += f", and {'all' if earlier == total else earlier} of them {'is' if earlier == 1 else 'are'} placed by earlier lines of this position"
        return ScenarioFailure(pc.span, said + ": a position takes the game's own cards (each card of a deck exists once), "
                               "it never makes more",
                               expected=f"at most `* {taken}` here" if taken else "no more of these cards in this position",
                               hint="cards of a set that only `create` makes can be placed as often as you like")

    def no_such_card(self, match: Match, pc: N.PosCard, wanted: str, ctor_values, same: list) -> ScenarioFailure:
        """Why no card is left for `wanted`: this position placed all of `same` already, or the game has no
        such card (then which values the game's cards of that component do have)."""
        s = match.s
        if same:
            n = len(same)
            return ScenarioFailure(pc.span, f"every card {wanted} is already placed by this position: the game has "
                                   f"{'only one' if n == 1 else f'{n} of them'} (each card exists only once)")
        if pc.name is not None:
            names = {e.card.name for e in s.entities if e.card.name}
            names |= {c.name for defs in match.game.program.card_sets.values() for c in defs if c.name}
            return unknown(pc.span, "card named", pc.name, names)
        cards = [e.attrs for e in s.entities if e.card.component == pc.ctor.component]
        cards += [c.values for defs in match.game.program.card_sets.values() for c in defs
                  if c.component == pc.ctor.component]
        if not cards:
            return ScenarioFailure(pc.span, f"the game has no {pc.ctor.component} card at all")
        for k, v in ctor_values.items():  # the first field whose value no card has
            values = {describe(c.get(k)) for c in cards}
            if describe(v) not in values:
                shown = sorted(values, key=lambda x: (len(x), x) if x.lstrip("-").isdigit() else (0, x))
                listing = ", ".join(shown[:20]) + (f" and {len(shown) - 20} more" if len(shown) > 20 else "")
                return ScenarioFailure(pc.span, f"the game has no card {wanted}: no {pc.ctor.component} has {k} {describe(v)}",
                                       expected=f"{k} among: {listing}")
        return ScenarioFailure(pc.span, f"the game has no card {wanted}: no {pc.ctor.component} has all these values together")

    def start_at(self, match: Match, phase_item):
        """The match's flow set to the start of a round (or its result, when the position is over), or
        to the start of the position's phase."""
        program, s = match.game.program, match.s
        ops, handlers = program.flow.ops, [("game", program.result_pc)]
        if phase_item is None:
            pc = program.result_pc if s.over else next(i for i, op in enumerate(ops) if op.what == "round_start")
        else:
            s.round = s.round or 1
            pc = next(i for i, op in enumerate(ops) if op.what == "phase" and op.arg == phase_item.phase)
            handlers.append(("round", program.round_end_pc))
        s.stack = [Frame(program.flow, pc, {}, handlers, "flow")]
