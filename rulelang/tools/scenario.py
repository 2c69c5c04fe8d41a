"""Rule tests that designers write: a position, a step, the expected outcome (`rulelang test FILE...`).

This module reads scenario files and runs them (``run_file``, ``check_scenarios`` for `rulelang
check`, ``scenario_files_for``). A scenario file holds ``scenario "name" { ... }`` blocks (rules
syntax) or is a JSON file with the same parts, written here as the rules syntax that the parser then
reads (``json_file_to_rules``); docs/scenarios.md describes every line and every JSON key.

The parts live beside it: ``scenario_position`` (the game, the position and the game's expressions
in a scenario; results and failures) and ``scenario_run`` (``ScenarioRunner``: the lines, the run
units, the expectations).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from rulelang.language import nodes as N
from rulelang.core.errors import Diagnostic, RulesError, Span
from rulelang.language.parser import parse_file, parse_text
from rulelang.core.sourcefile import check_file_size
from rulelang.tools.scenario_position import ScenarioFailure, ScenarioResult, game_path
from rulelang.tools.scenario_run import ScenarioRunner

__all__ = ["ScenarioFailure", "ScenarioResult", "ScenarioRunner", "check_scenarios", "json_file_to_rules",
           "load_scenarios", "run_file", "scenario_files_for"]

# ------------------------------------------------------------------ scenario files in JSON form

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SCENARIO_KEYS = ("name", "rule", "game", "variant", "variants", "players", "seed", "setting", "settings",
                 "position", "position_file", "steps")
POSITION_KEYS = ("round", "phase", "step", "set", "zones", "next_roll", "next_random", "next_shuffle", "for")
LOOP_KEYS = ("var", "in", "set", "zones", "next_roll", "next_random", "next_shuffle", "for")
STEPS_ARE_A_LIST = '"steps" is a list of steps in a JSON scenario'
STEP_KEYS = ("run", "choose", "choose_option", "choose_card", "choose_cell", "expect", "expect_error", "next_roll",
             "next_random", "next_shuffle", "stop_at_every_choice", "repeat")


class JsonScenario:
    """One JSON scenario file's text, turned into rules syntax (expressions and cards stay texts of the
    rules language: ``"player(2)"``, ``"Card(rank: 3) * 2"``); its problems said at their place."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path

    # ---- problems, at their place in the JSON text
    def where(self, key: str | None) -> Span:
        at = self.text.find(json.dumps(key)) if key is not None else -1
        if at < 0:
            return Span(file=self.path, line=1, column=1)
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return Span(file=self.path, line=line, column=column, end_line=line, end_column=column + len(json.dumps(key)))

    def refuse(self, key: str | None, message: str, expected: str | None = None):
        raise RulesError(Diagnostic(self.where(key), message, expected))

    def check_keys(self, obj, known: tuple, what: str):
        if not isinstance(obj, dict):
            self.refuse(None, f"{what} is an object in a JSON scenario, not {json.dumps(obj)[:60]}")
        for key in obj:
            if key not in known:
                self.refuse(key, f'{what} has no key "{key}"', expected="one of: " + ", ".join(known))

    def typed(self, obj: dict, key: str, fits, words: str, default=None):
        """`obj[key]` (or `default`), refused at its place unless `fits` it."""
        value = obj.get(key, default)
        if not fits(value):
            self.refuse(key, f'"{key}" is {words} in a JSON scenario, not {json.dumps(value)[:60]}')
        return value

    def shaped(self, obj: dict, key: str, kind, message: str, expected: str | None = None, default=None):
        """`obj[key]` (or `default`), refused at its place with `message` unless it is a `kind`."""
        value = obj.get(key, default)
        if not isinstance(value, kind):
            self.refuse(key, message, expected)
        return value

    def text_of(self, obj: dict, key: str) -> str:
        return self.typed(obj, key, lambda v: isinstance(v, str), "a text")

    def number_of(self, obj: dict, key: str) -> int:
        return self.typed(obj, key, lambda v: type(v) is int, "a whole number")

    def flag(self, obj: dict, key: str) -> bool:
        return self.typed(obj, key, lambda v: isinstance(v, bool), "true or false", default=False)

    def numbers_of(self, obj: dict, key: str) -> list[int]:
        """A whole number, or a list of them."""
        one = isinstance(obj[key], (str, int)) and not isinstance(obj[key], bool)
        return self.typed({key: [obj[key]] if one else obj[key]}, key,
                          lambda v: isinstance(v, list) and all(type(x) is int for x in v), "a list of whole numbers")

    # ---- the scenario
    def rules(self) -> str:
        """The whole file as rules syntax (raises RulesError at the JSON's place when it cannot be)."""
        try:
            data = json.loads(self.text)
        except json.JSONDecodeError as exc:
            raise RulesError(Diagnostic(Span(file=self.path, line=exc.lineno, column=exc.colno),
                                        f"this JSON scenario file does not read: {exc.msg}")) from None
        items = data if isinstance(data, list) else [data]
        stem = re.sub(r"\.json$", "", self.path.replace("\\", "/").rsplit("/", 1)[-1])
        return "".join(self.scenario(d, f"{stem} {i + 1}") for i, d in enumerate(items))

    def scenario(self, data, name: str) -> str:
        self.check_keys(data, SCENARIO_KEYS, "a scenario")
        lines = self.doc(data, "")
        title = self.text_of(data, "name") if "name" in data else name
        lines.append(f"scenario {json.dumps(title)} {{")
        if "game" in data:
            lines.append(f"  game {json.dumps(self.text_of(data, 'game'))}")
        lines += ["  variant " + ", ".join(self.names(data, key)) for key in ("variant", "variants") if key in data]
        lines += [f"  {key} {self.number_of(data, key)}" for key in ("players", "seed") if key in data]
        for key in ("setting", "settings"):
            if key in data:
                settings = self.shaped(data, key, dict,
                                       f'"{key}" is an object of settings and values in a JSON scenario',
                                       '{"hand_size": 3, "scoring": "doubled"}')
                for setting, value in settings.items():
                    lines.append(f"  setting {self.name(setting, key)} = {self.setting_value(setting, value)}")
        if "position" in data:
            lines += ["  position {", *self.position(data["position"], "    ", POSITION_KEYS, "the position"), "  }"]
        if "position_file" in data:
            lines.append(f"  position from {json.dumps(self.text_of(data, 'position_file'))}")
        lines += self.steps(self.shaped(data, "steps", list, STEPS_ARE_A_LIST, default=[]), "  ")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def doc(self, obj: dict, indent: str) -> list[str]:
        rule = self.shaped(obj, "rule", (str, list),
                           '"rule" is a text or a list of texts (the rulebook sentence checked)', default=[])
        return [f"{indent}/// {line}" for part in ([rule] if isinstance(rule, str) else rule)
                for line in str(part).splitlines()]

    def name(self, name, key: str) -> str:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            self.refuse(key, f'"{key}" holds names of the game (letters, digits and _), not {json.dumps(name)}')
        return name

    def names(self, data: dict, key: str) -> list[str]:
        value = data[key]
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list):
            self.refuse(key, f'"{key}" is a name or a list of names in a JSON scenario')
        out = []
        for v in values:
            out += [self.name(part.strip(), key) for part in v.split(",")] if isinstance(v, str) else [self.name(v, key)]
        return out

    def setting_value(self, setting: str, value) -> str:
        if isinstance(value, bool) or type(value) is int:
            return self.expr(value, setting)
        if isinstance(value, str):
            return value if _NAME.fullmatch(value) else json.dumps(value)
        self.refuse(setting, f'setting "{setting}" takes a choice, a whole number, a text, true or false, '
                             f"not {json.dumps(value)[:60]}")

    # ---- the position
    def position(self, pos, indent: str, known: tuple, what: str) -> list[str]:
        self.check_keys(pos, known, what)
        lines = [f"{indent}round {self.number_of(pos, 'round')}"] if "round" in pos else []
        lines += [f"{indent}{key} {self.name(pos[key], key)}" for key in ("phase", "step") if key in pos]
        if "set" in pos:
            targets = self.shaped(pos, "set", dict, '"set" is an object of targets and expressions in a JSON scenario',
                                  '{"first_player": "player(1)"}')
            for target, value in targets.items():
                lines.append(f"{indent}set {target} = {self.expr(value, target)}")
        if "zones" in pos:
            zones = self.shaped(pos, "zones", dict, '"zones" is an object of zones and their cards in a JSON scenario')
            for zone, cards in zones.items():
                if isinstance(cards, dict):
                    for cell, items in cards.items():
                        lines.append(f"{indent}{zone} at {cell}: " + self.cards(items, zone))
                else:
                    lines.append(f"{indent}{zone}: " + self.cards(cards, zone))
        lines += self.chance(pos, indent)
        for loop in self.shaped(pos, "for", list, '"for" is a list of loops ({"var": NAME, "in": LIST, ...}) in a JSON '
                                "scenario", default=[]):
            self.check_keys(loop, LOOP_KEYS, "a position's loop")
            if "var" not in loop or "in" not in loop:
                self.refuse("for", 'a position\'s loop needs "var" (a name) and "in" (a list)',
                            expected='{"var": "x", "in": "0..4", "zones": {...}}')
            lines.append(f"{indent}for {self.name(loop['var'], 'var')} in {self.expr(loop['in'], 'in')} {{")
            lines += [*self.position({k: v for k, v in loop.items() if k not in ("var", "in")}, indent + "  ",
                                     LOOP_KEYS, "a position's loop"), f"{indent}}}"]
        return lines

    def expr(self, value, key: str) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if type(value) is int:
            return str(value)
        if not isinstance(value, str):
            self.refuse(key, f'"{key}" is an expression of the rules language, as a text, not {json.dumps(value)[:60]}')
        return value

    def cards(self, cards, key: str) -> str:
        if cards == [] or cards == "empty":
            return "empty"
        if isinstance(cards, str):
            cards = [cards]
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            self.refuse(key, f'the cards of "{key}" are a list of texts: ["Card(rank: 3)", "Card(rank: 5) * 2"]')
        return ", ".join(cards)

    def chance(self, obj: dict, indent: str) -> list[str]:
        lines = []
        if "next_roll" in obj:
            lines.append(f"{indent}next roll " + ", ".join(str(n) for n in self.numbers_of(obj, "next_roll")))
        if "next_random" in obj:
            values = obj["next_random"]
            values = values if isinstance(values, list) else [values]
            lines.append(f"{indent}next random " + ", ".join(self.expr(v, "next_random") for v in values))
        if "next_shuffle" in obj:
            shuffles = obj["next_shuffle"]
            if not isinstance(shuffles, dict) or not shuffles:
                self.refuse("next_shuffle", '"next_shuffle" is an object of a zone and its cards from the top',
                            expected='{"deck": ["Card(suit: hearts, rank: 8)"]}')
            for zone, cards in shuffles.items():
                lines.append(f"{indent}next shuffle {zone}: " + self.cards(cards, zone))
        return lines

    # ---- the steps
    def steps(self, steps: list, indent: str) -> list[str]:
        lines = []
        for step in steps:
            self.check_keys(step, STEP_KEYS + ("rule", "steps"), "a step")
            lines += self.doc(step, indent)
            kinds = [k for k in STEP_KEYS if k in step]
            if len(kinds) != 1 and kinds != ["run", "stop_at_every_choice"]:
                self.refuse(kinds[1] if len(kinds) > 1 else "rule",
                            f"a step does one thing, not {' and '.join(kinds) or 'nothing'}",
                            expected="one of: " + ", ".join(STEP_KEYS))
            if "steps" in step and kinds != ["repeat"]:
                self.refuse("steps", '"steps" inside a step goes with "repeat"', expected='{"repeat": 3, "steps": [...]}')
            kind = kinds[0]
            if kind == "run":
                every = " stop at every choice" if self.flag(step, "stop_at_every_choice") else ""
                lines.append(f"{indent}run {self.text_of(step, 'run')}{every}")
            elif kind == "stop_at_every_choice":
                if self.flag(step, kind):
                    lines.append(f"{indent}stop at every choice")
            elif kind in ("choose", "expect_error"):
                lines.append(f"{indent}{kind.replace('_', ' ')} {json.dumps(self.text_of(step, kind))}")
            elif kind == "choose_option":
                lines.append(f"{indent}choose option {self.number_of(step, kind)}")
            elif kind in ("choose_card", "choose_cell", "expect"):
                lines.append(f"{indent}{kind.replace('_', ' ')} {self.expr(step[kind], kind)}")
            elif kind == "repeat":
                inner = self.shaped(step, "steps", list, STEPS_ARE_A_LIST, default=[])
                lines.append(f"{indent}repeat {self.number_of(step, 'repeat')} {{")
                lines += self.steps(inner, indent + "  ")
                lines.append(f"{indent}}}")
            else:
                lines += self.chance(step, indent)
        return lines


def json_file_to_rules(text: str, path: str) -> str:
    """A JSON scenario file's text (an object, or a list of them) written as rules syntax; RulesError
    at the JSON's place when it does not read or has a key or value the JSON form does not take."""
    return JsonScenario(text, path).rules()


# ------------------------------------------------------------------ reading and running scenario files


def load_scenarios(path: Path) -> list[N.ScenarioDecl]:
    if path.suffix == ".json":
        check_file_size(path)  # (read whole below: within the budget of a rules file first)
        text = json_file_to_rules(path.read_text(encoding="utf-8"), str(path))
        rules = parse_text(text, str(path) + " (as rules)")
    else:
        rules = parse_file(path)
    return [d for d in rules.decls if isinstance(d, N.ScenarioDecl)]


def run_file(path: str | Path, cache: dict | None = None, coverage=None) -> list[ScenarioResult]:
    """Run every scenario of a file. ``cache``: the games loaded so far (shared between files);
    ``coverage``: a ``balance.coverage.Coverage`` that notes the rules lines the scenarios run."""
    path = Path(path)
    cache = {} if cache is None else cache
    scenarios = load_scenarios(path)
    if not scenarios:
        span = Span(file=str(path), line=1, column=1)
        return [ScenarioResult(str(path), span, [(span, "the file holds no scenario")])]
    return [ScenarioRunner(sc, path.parent, cache, coverage).run() for sc in scenarios]


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
                runner.eval(match, item.expr, run=False)
        except ScenarioFailure as exc:
            problems.append(Diagnostic(exc.span, exc.message, exc.expected, exc.hint))
        except RulesError as exc:  # the game's own errors (or a setting's value of the wrong kind)
            problems.extend(exc.diagnostics)
    return problems


def scenario_files_for(rules_path: str | Path, limit: int = 2000) -> list[Path]:
    """The scenario files that test a rules file, where a designer keeps them: beside it (its folder)
    and under a ``tests/`` folder of it or of a folder above it, up to the project's top (a folder
    holding ``.git`` or ``pyproject.toml``). A file counts when one of its scenarios names this game.
    At most ``limit`` files are looked at (the language server calls this on each save)."""
    rules_path = Path(rules_path).resolve()
    folders = [rules_path.parent]
    for above in [rules_path.parent, *rules_path.parent.parents][:6]:
        if (above / "tests").is_dir():
            folders.append(above / "tests")
        if (above / ".git").exists() or (above / "pyproject.toml").is_file():
            break
    seen: set[Path] = set()
    found: list[Path] = []
    looked = 0
    for folder in folders:
        files = folder.glob("*") if folder == rules_path.parent else folder.rglob("*")
        for f in sorted(files):
            if f.suffix not in (".rules", ".json") or f in seen or f.resolve() == rules_path or not f.is_file():
                continue
            seen.add(f)
            looked += 1
            if looked > limit:
                return found
            try:
                if f.stat().st_size > 1_000_000:
                    continue
                text = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if rules_path.stem not in text or ("scenario" not in text and '"steps"' not in text):
                continue  # (cheap: a file that names neither is not parsed)
            try:
                scenarios = load_scenarios(f)
            except (RulesError, ValueError, RecursionError):
                continue  # (a file that does not read is `rulelang test`'s to report)
            for sc in scenarios:
                games = [i for i in sc.items if i.kind == "game"]
                if games and game_path(games[0].text, f.parent).resolve() == rules_path:
                    found.append(f)
                    break
    return found
