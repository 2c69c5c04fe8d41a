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

A `choose` only queues an answer; the `run` that takes it fails the scenario when it
matches none or several of the options, unless the line after that `run` is
`expect error "matches none"` (or `"matches 2"`): `choose "x"`, `run choice`, `expect error ...`. When labels are equal (two
cards with the same label), name the option another way: `choose option 2` (the second
option as listed), `choose card EXPR` (the option that binds that card, e.g.
`choose card hand(player(1))[0]`) or `choose cell EXPR` (the option at that cell, e.g.
`choose cell (1, 0)`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTINS, describe
from rulelang.compile.compiler import Compiler
from rulelang.engine.program import Code, Ctx, RuleError
from rulelang.core.errors import Diagnostic, RulesError, Span, did_you_mean, reason_of
from rulelang.check.types import BUILTIN_VALUE_TYPES, ENTITY_BUILTIN_ATTRS, PLAYER_BUILTIN_ATTRS, describe_type
from rulelang.model.things import Entity, Player, Zone, move as move_entity, set_owner
from rulelang.language.parser import parse_file, parse_text
from rulelang.core.resources import examples_dir, find_game, games_dir
from rulelang.compile.loader import load
from rulelang.engine.runtime import Frame, Game, Match, _new_state
from rulelang.core.sourcefile import NotAJsonObject, check_file_size, read_json_object
from rulelang.language.tables import confinement_problem
from dataclasses import field
from rulelang.compile.codegen import Generator
from rulelang.engine.fixed_chance import FixedChance, Queued
from rulelang.engine.visibility import visible
from rulelang.engine.ops import StepOp


@dataclass
class ScenarioResult:
    name: str
    span: Span
    passed: bool
    message: str = ""
    failed_at: Span | None = None
    checks: int = 0
    failures: list[tuple[Span, str]] = field(default_factory=list)  # every failure: where, and its report


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
        if quoted and not quoted[0].startswith("  expected:") and not quoted[0].startswith("  hint:"):
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


_UNUSED = {"roll": "the runs rolled no more dice", "random": "the runs picked nothing more at random",
           "shuffle": "the runs did not shuffle that zone again"}


def _at(span: Span) -> str:
    return f"{span.file}:{span.line}:{span.column}"


class AnswerNotOffered(ScenarioFailure):
    """A `choose` that matches none (or several) of the options: `expect error` may check it."""

    def format(self) -> str:
        return self.message


def _unknown(span: Span, what: str, name: str, known) -> ScenarioFailure:
    """`the game has no zone "hnad"`, with the game's own names of that kind and the closest one."""
    known = sorted(known)
    return ScenarioFailure(span, f'the game has no {what} "{name}"',
                           expected=("one of: " + ", ".join(known)) if known else f"(the game has no {what}s)",
                           hint=did_you_mean(name, known))


def _fits(v, tref: N.TypeRef, table) -> bool:
    """Whether a value set by a position is of the kind the var or field is declared with (none
    fits any: a var without a default starts as none)."""
    if v is None or tref is None:
        return True
    if tref.list_of is not None:
        return type(v) is list and all(_fits(x, tref.list_of, table) for x in v)
    name = tref.name
    if name == "int":
        return type(v) is int
    if name == "bool":
        return type(v) is bool
    if name == "str":
        return type(v) is str
    if name == "player":
        return type(v) is Player
    if name == "card":
        return type(v) is Entity
    if name in table.components:
        return type(v) is Entity and v.card.component == name
    if table.kind(name) == "enum":
        return type(v) is str and table.enum_of_member(v) == name
    return True


def _type_words(tref: N.TypeRef, table) -> str:
    def code(tr):
        if tr.list_of is not None:
            return "list:" + code(tr.list_of)
        if tr.name in table.components:
            return "entity:" + tr.name
        if table.kind(tr.name) == "enum":
            return "sym:" + tr.name
        return tr.name
    words = describe_type(code(tref))
    if tref.list_of is None and table.kind(tref.name) == "enum":
        members = [n for n, s in table.symbols.items() if s.kind == "member" and s.type == tref.name]
        words += " (" + ", ".join(members) + ")"
    return words


def _value_words(v) -> str:
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


class ScenarioRunner:
    def __init__(self, scenario: N.ScenarioDecl, base_dir: Path, game_cache: dict):
        self.sc = scenario
        self.base_dir = base_dir
        self.cache = game_cache
        self.answers: list[N.ScenarioItem] = []
        self.last_error: RulesError | None = None
        self.checks = 0
        self.failures: list[ScenarioFailure] = []
        self.chance = FixedChance()  # results of chance the scenario queued (`next roll 6`)
        self.every_choice = False  # `stop at every choice`: runs stop at a choice of one option too
        self.started = False
        self.pending_error = None
        self.lines: dict[str, list[str]] = {}  # the scenario file's lines, to quote a part of an expectation

    # ---- setting up
    def _items(self, kind):
        return [i for i in self.sc.items if i.kind == kind]

    def position_data(self, item) -> dict:
        """The JSON object of a `position from "FILE"` (a saved match, or a position), or a
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
        path = self.base_dir / text
        if not path.is_file():  # a folder of the same name beside the scenario is not the game
            path = find_game(text)
        if not Path(path).exists():
            bundled = sorted({p.stem for d in (games_dir(), examples_dir()) for p in Path(d).glob("*.rules")})
            raise ScenarioFailure(games[0].span, f'cannot find the game "{text}": there is no file {self.base_dir / text} '
                                  "and no bundled game of that name",
                                  expected="a path relative to the scenario file, or a bundled game: " + ", ".join(bundled),
                                  hint=did_you_mean(Path(text).stem, bundled))
        variants = [n for i in self._items("variant") for n in i.names]
        settings = {i.names[0]: i.names[1] for i in self._items("setting")}
        if variants or settings:
            self.check_variants_and_settings(path, games[0], variants)
        key = (str(Path(path).resolve()), tuple(variants))
        if settings:
            key += (tuple(sorted(settings.items())),)
        if key not in self.cache:
            try:
                self.cache[key] = load(str(path), variant=variants, settings=settings)
            except RulesError as exc:  # a setting's value of the wrong kind: said at the scenario's line
                for item in self._items("setting"):
                    for d in exc.diagnostics:
                        if d.message.startswith(f'setting "{item.names[0]}" '):
                            raise ScenarioFailure(item.span, d.message) from None
                raise
        return self.cache[key]

    def check_variants_and_settings(self, path, game_item: N.ScenarioItem, variants: list[str]):
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
                    raise _unknown(item.span, "variant", name, declared)
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
                raise _unknown(item.span, "setting", name, settings)
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
            raise ScenarioFailure(players_items[0].span if players_items else self.sc.span,
                                  f"{info.title} is played by {info.players_min} to {info.players_max} players, not {players}",
                                  expected=f"`players N` with N from {info.players_min} to {info.players_max}")
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
            raise _unknown(step.span, f"step in phase {phase.phase} named", step.phase,
                           program.phases[phase.phase].code.step_names)
        if not holding:
            raise _unknown(step.span, "step", step.phase,
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
                raise _unknown(item.span, "phase", item.phase, match.game.program.phases)
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
            for _ in range(pc.copies):
                e = self.find_card(match, pc, used, names)
                used.add(e.id)
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
                raise _unknown(target.span, "var", name, [n for n, s in table.symbols.items() if s.kind == "var"])
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
        if not _fits(value, tref, table):
            raise ScenarioFailure(item.value.span, f"{what} holds {_type_words(tref, table)}, not {_value_words(value)}")

    def zone(self, match: Match, item: N.PosItem) -> Zone:
        zones = match.game.program.zones
        info = zones.get(item.zone)
        if info is None:
            raise _unknown(item.span, "zone", item.zone, [z for z in zones if not z.startswith("__")])
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

    def find_card(self, match: Match, pc: N.PosCard, used: set[int], names: dict | None = None) -> Entity:
        s = match.s
        program = match.game.program
        if pc.name is not None:
            matches = [e for e in s.entities if e.card.name == pc.name and e.id not in used]
            wanted = f'"{pc.name}"'
            ctor_values = None
        else:
            ctor = pc.ctor
            if ctor.component not in program.components:
                raise _unknown(pc.span, "component", ctor.component, program.components)
            fields = [f.name for f in program.components[ctor.component].fields]
            for a in ctor.args:
                if a.name not in fields and a.name != "name":
                    raise ScenarioFailure(a.span, f'{ctor.component} has no field "{a.name}"',
                                          expected=f"a field of {ctor.component}: " + ", ".join(fields),
                                          hint=did_you_mean(a.name, fields))
            ctor_values = {a.name: self.eval(match, a.value, names) for a in ctor.args}
            matches = [e for e in s.entities if e.card.component == ctor.component and e.id not in used
                       and all(e.attrs.get(k) == v for k, v in ctor_values.items())]
            wanted = f"{ctor.component}(" + ", ".join(f"{k}: {describe(v)}" for k, v in ctor_values.items()) + ")"
        if matches:
            return matches[0]
        # a card of a set that is only created during setup: take it from the game's card lists (with
        # `* N`, as many copies as N: setup may create such a set more than once)
        declared = {name for name, _ in program.auto_sets}
        for set_name, defs in program.card_sets.items():
            for card in defs:
                if pc.name is not None and card.name != pc.name:
                    continue
                if ctor_values is not None and (card.component != pc.ctor.component or
                                                not all(card.values.get(k) == v for k, v in ctor_values.items())):
                    continue
                if any(e.card is card for e in s.entities) and (pc.copies == 1 or set_name in declared):
                    continue
                e = Entity(len(s.entities), card, {k: (list(v) if isinstance(v, list) else v) for k, v in card.values.items()})
                if not card.plain:  # as VM.create_cards: a copy of the match copies its values (State.holding)
                    s.holding.add(e.id)
                s.entities.append(e)
                move_entity(s, e, s.zones["__box"])
                return e
        raise self.no_such_card(match, pc, wanted, ctor_values, used)

    def no_such_card(self, match: Match, pc: N.PosCard, wanted: str, ctor_values, used: set[int]) -> ScenarioFailure:
        """Why no card is left for `wanted`: this position placed it already, or the game has no such card
        (then which values the game's cards of that component do have)."""
        s = match.s
        if pc.name is not None:
            same = [e for e in s.entities if e.card.name == pc.name]
        else:
            same = [e for e in s.entities if e.card.component == pc.ctor.component
                    and all(e.attrs.get(k) == v for k, v in ctor_values.items())]
        if same:
            n = len(same)
            return ScenarioFailure(pc.span, f"every card {wanted} is already placed by this position: the game has "
                                   f"{'only one' if n == 1 else f'{n} of them'} (each card exists only once)")
        if pc.name is not None:
            names = {e.card.name for e in s.entities if e.card.name}
            names |= {c.name for defs in match.game.program.card_sets.values() for c in defs if c.name}
            return _unknown(pc.span, "card named", pc.name, names)
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

    # ---- running
    def run(self) -> ScenarioResult:
        """Run the scenario's lines to the end, or to the first `run` that fails; every failed
        expectation is reported, each at its line."""
        failures: list[ScenarioFailure] = []
        self.failures = failures
        try:
            match = self.build()
            self.started = any(i.kind in ("position", "position_file") for i in self.sc.items)
            self.pending_error: tuple[RulesError, Span] | None = None
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
                                                    + _UNUSED[q.words.split()[0]]))
            if self.checks == 0 and not failures:
                failures.append(ScenarioFailure(self.sc.span, "the scenario checks nothing: add at least one `expect`"))
        except ScenarioFailure as exc:
            failures.append(exc)
        except RulesError as exc:
            return ScenarioResult(self.sc.name, self.sc.span, False, exc.format(), exc.diagnostics[0].span, self.checks,
                                  [(exc.diagnostics[0].span, exc.format())])
        if not failures:
            return ScenarioResult(self.sc.name, self.sc.span, True, checks=self.checks)
        reports = [(f.span, f.report()) for f in failures]
        message = reports[0][1] + "".join(f"\nalso failed at {_at(span)}:\n{report}" for span, report in reports[1:])
        return ScenarioResult(self.sc.name, self.sc.span, False, message, failures[0].span, self.checks, reports)

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
                    self.run_unit(match, item, self.started)
                    self.started = True
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
            tests = []
            for pc in item.cards:
                for _ in range(pc.copies):
                    tests.append((self.card_test(match, pc, names), self.card_words(match, pc, names)))
            fixed.shuffles.append(Queued(tests, item.span, f"shuffle of {zone.name}", zone=zone.key))

    def card_test(self, match: Match, pc: N.PosCard, names=None):
        if pc.name is not None:
            return lambda e, name=pc.name: e.card.name == name
        if pc.ctor.component not in match.game.program.components:
            raise _unknown(pc.span, "component", pc.ctor.component, match.game.program.components)
        values = {a.name: self.eval(match, a.value, names) for a in pc.ctor.args}
        component = pc.ctor.component
        return lambda e: e.card.component == component and all(e.attrs.get(k) == v for k, v in values.items())

    def card_words(self, match: Match, pc: N.PosCard, names=None) -> str:
        if pc.name is not None:
            return f'"{pc.name}"'
        return f"{pc.ctor.component}(" + ", ".join(f"{a.name}: {describe(self.eval(match, a.value, names))}"
                                                 for a in pc.ctor.args) + ")"

    # ---- run units
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
                raise _unknown(item.span, "step", target, names)
        if unit == "phase" and target is not None and target not in program.phases:
            raise _unknown(item.span, "phase", target, program.phases)
        if unit == "setup" and any(i.kind in ("position", "position_file") for i in self.sc.items):
            raise ScenarioFailure(item.span, "a scenario with a position starts after setup: `run setup` has nothing to run",
                                  expected="`run phase NAME`, `run round`, `run choice`... after a position, "
                                  "or `run setup` in a scenario without one")
        was_over = match.s.over
        began = []  # whether the phase or step to run began: the game may end before it comes
        if unit == "step" and match.s.pending is None and not match.s.over and self.jump_to_step(match, target):
            began.append(target)
        if unit in ("phase", "step") and not match.s.over:
            if unit == "phase":
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
            kinds = {type(left), type(right)}
            if expr.op == "==" and len(kinds) == 2 and type(None) not in kinds and kinds != {int, bool}:
                # 0 == "zero" (a text where a number is meant): say the kinds, which describe() does not show
                detail = (f" (left side is {_value_words(left)}, right side is {_value_words(right)}: "
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
            return _value_words(self.eval(match, expr))
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
        check_file_size(path)  # (read whole below: within the budget of a rules file first)
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


def _expectations(items: list[N.ScenarioItem]):
    for item in items:
        if item.kind == "expect":
            yield item
        elif item.kind == "repeat":
            yield from _expectations(item.items)


def check_scenarios(path: str | Path, scenarios: list[N.ScenarioDecl],
                    cache: dict | None = None) -> list[Diagnostic]:
    """The problems `rulelang check` finds in a scenario file without running its steps: for each
    scenario, the game it names is found and loaded (so checked), its variants and settings exist, its
    position is set up (zones, cards, fields and values checked as `rulelang test` does before it runs)
    and each `expect` expression compiles against the game (names and fields exist). A problem of a
    scenario ends that scenario's check; the others are still checked."""
    path = Path(path)
    cache = {} if cache is None else cache
    problems: list[Diagnostic] = []
    for sc in scenarios:
        runner = ScenarioRunner(sc, path.parent, cache)
        try:
            match = runner.build()
            for item in _expectations(sc.items):
                comp = runner.compiler(match)
                names = {"chooser", "offered", "prompt", "game_over", "winners", "turn_number", "current_step"}
                comp.scope = frozenset(comp.scope) | frozenset(n for n in names if n not in comp.t.symbols)
                try:
                    comp.expr(item.expr)
                except RuleError as exc:
                    raise ScenarioFailure(exc.span, exc.message, hint=runner.hint_for(match, exc.message, names)) from None
        except ScenarioFailure as exc:
            problems.append(Diagnostic(exc.span, exc.message, exc.expected, exc.hint))
        except RulesError as exc:  # the game's own errors (or a setting's value of the wrong kind)
            problems.extend(exc.diagnostics)
    return problems
