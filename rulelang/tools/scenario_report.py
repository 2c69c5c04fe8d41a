"""What a scenario run gives back (``ScenarioResult``) and how it fails (``ScenarioFailure`` and
its kinds), with the words its messages use: a name the game lacks (``unknown``), a value and its
kind (``value_words``), whether a value fits a declared type (``fits``, ``type_words``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rulelang.language import nodes as N
from rulelang.model.builtins import describe
from rulelang.core.errors import Diagnostic, Span, did_you_mean
from rulelang.check.types import describe_type
from rulelang.model.things import EnumMap, Entity, Player


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
