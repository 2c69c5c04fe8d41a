"""Fixed chance: the next results of the rules' random functions, queued in advance.

A match's chance comes from its seeded generator (``State.rng``). A ``FixedChance`` put on a
match (``State.fixed_chance``) is asked first by each random built-in: ``roll`` takes its next
queued die faces, ``random`` its next queued item, ``shuffle ZONE`` its next queued order for that
zone. When the queue of a kind is empty, chance comes from the generator as usual. Scenarios fill
it (``next roll 6, 4, 2``); a queued result that no rule used is reported by ``unused``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rulelang.model.builtins import RuleFailure
from rulelang.core.errors import Span
from rulelang.engine.program import RuleError


class ChanceMismatch(RuleFailure):
    """A queued result that does not fit the draw it was given to (a 7 for a six-sided die): said at
    the rule that drew it."""


@dataclass
class Queued:
    value: Any  # a die's face, an item to pick, or for a shuffle the cards' tests from the top
    span: Span
    words: str  # how the scenario wrote it, for a message
    zone: str | None = None  # a shuffle's zone key


@dataclass
class FixedChance:
    rolls: list[Queued] = field(default_factory=list)
    picks: list[Queued] = field(default_factory=list)
    shuffles: list[Queued] = field(default_factory=list)

    def die(self, sides: int, rng: random.Random) -> int:
        """One die of `sides` faces: the next queued face, or a random one."""
        if not self.rolls:
            return rng.randint(1, sides)
        q = self.rolls.pop(0)
        if not 1 <= q.value <= sides:
            raise ChanceMismatch(f"the scenario's queued roll {q.value} ({_where(q.span)}) cannot come up "
                                 f"on a die of {sides} sides")
        return q.value

    def pick(self, items: list, rng: random.Random) -> int:
        """The index of the item random() picks: the next queued one, or a random one."""
        if not self.picks:
            return rng.randrange(len(items))
        q = self.picks.pop(0)
        for i, x in enumerate(items):
            if x is q.value or (type(x) is type(q.value) and x == q.value):
                return i
        raise ChanceMismatch(f"the scenario's queued {q.words} ({_where(q.span)}) is not among the "
                             f"{len(items)} items random() was given")

    def shuffle(self, zone, rng: random.Random, span: Span):
        """Shuffle a zone's cards in place: the cards of the next order queued for this zone on top,
        in that order, the others beneath them in a random order."""
        q = next((q for q in self.shuffles if q.zone == zone.key), None)
        if q is None:
            rng.shuffle(zone.items)
            return
        self.shuffles.remove(q)
        rest = list(zone.items)
        top = []
        for test, words in q.value:
            found = next((e for e in rest if test(e)), None)
            if found is None:
                raise RuleError(span, f"the scenario's queued shuffle of {zone.name} ({_where(q.span)}) puts "
                                     f"{words} on top, but {zone.name} holds no such card when it is shuffled")
            rest.remove(found)
            top.append(found)
        rng.shuffle(rest)
        zone.items[:] = rest + top[::-1]  # (the last item is the top)

    def unused(self) -> list[Queued]:
        return self.rolls + self.picks + self.shuffles


def _where(span: Span) -> str:
    return f"{span.file}:{span.line}"

