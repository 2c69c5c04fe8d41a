"""The options of a pending choice, made on demand.

A choice among options such as ``option place(c in hand, cell in spots)`` has one option per
binding of its names: often hundreds. A random or Monte Carlo bot needs only how many there are
and the one it picks, so the options are kept as segments (a product of lists, a list of value
rows, one name over a list, or ready-made options) and an option's dict
``{"alt": ..., "name": ..., "values": {...}}`` is built when someone asks for it. The order of the
options, and each option's values, are exactly those of the full list.

``Options`` behaves as a read-only list of those dicts (``len``, indexing, iteration, equality
with a list), so the views, saves and scenarios that read ``state.pending["options"]`` are
unchanged.
"""
from __future__ import annotations

from itertools import product
from math import prod
from typing import Callable

# segment kinds
_PRODUCT = 0  # (alt, name, names, lists): every combination, the first list outermost
_ROWS = 1  # (alt, name, names, rows): one option per row of values
_ONE = 2  # (alt, name, var, items): one option per item, bound to var
_DICTS = 3  # (dicts,): options already made


class Options:
    """A read-only sequence of option dicts built on first access (see the module's doc)."""

    __slots__ = ("_segments", "_starts", "_len", "_made")

    def __init__(self):
        self._segments: list = []  # (kind, count, payload)
        self._starts: list[int] = []
        self._len = 0
        self._made: dict[int, dict] = {}

    @classmethod
    def of_one(cls, alt, name: str, var: str, items: list) -> "Options":
        """One option per item, bound to var (`add_one` on new Options), made at once: the options of
        every `choose x from list`."""
        options = cls()
        options.add_one(alt, name, var, items)
        return options

    # ---- building
    def _add(self, kind: int, count: int, payload: tuple) -> None:
        if count:
            self._segments.append((kind, count, payload))
            self._starts.append(self._len)
            self._len += count

    def add_product(self, alt, name: str, names: list, lists: list) -> None:
        """Every combination of one item of each list (the first list outermost, the last varying
        fastest), the i-th list's item bound to names[i]."""
        self._add(_PRODUCT, prod(map(len, lists)), (alt, name, tuple(names), tuple(lists)))

    def add_rows(self, alt, name: str, names: list, rows: list) -> None:
        self._add(_ROWS, len(rows), (alt, name, tuple(names), rows))

    def add_one(self, alt, name: str, var: str, items: list) -> None:
        self._add(_ONE, len(items), (alt, name, var, items))

    def add_dict(self, option: dict) -> None:
        self._add(_DICTS, 1, ([option],))

    # ---- reading
    def __len__(self) -> int:
        return self._len

    def _locate(self, index: int):
        starts = self._starts
        # few segments (one per alternative of a choice): a linear scan from the end is fastest
        k = len(starts) - 1
        while starts[k] > index:
            k -= 1
        return self._segments[k], index - starts[k]

    def name_at(self, index: int) -> str:
        """The option's name without building it."""
        if index < 0:
            index += self._len
        (kind, _count, payload), _j = self._locate(index)
        if kind == _DICTS:
            return payload[0][_j]["name"]
        return payload[1]

    def __getitem__(self, index):
        if type(index) is not int or not 0 <= index < self._len:  # (a bot's pick is neither)
            if isinstance(index, slice):
                return [self[i] for i in range(*index.indices(self._len))]
            if index < 0:
                index += self._len
            if not 0 <= index < self._len:
                raise IndexError("option index out of range")
        made = self._made.get(index)
        if made is None:
            made = self._made[index] = self._build(index)
        return made

    def _build(self, index: int) -> dict:
        if len(self._segments) == 1:  # (one segment: no search for it)
            kind, _count, payload = self._segments[0]
            j = index
        else:
            (kind, _count, payload), j = self._locate(index)
        if kind == _PRODUCT:
            alt, name, names, lists = payload
            picked = [None] * len(lists)
            for k in range(len(lists) - 1, -1, -1):
                items = lists[k]
                j, r = divmod(j, len(items))
                picked[k] = items[r]
            return {"alt": alt, "name": name, "values": dict(zip(names, picked))}
        if kind == _ROWS:
            alt, name, names, rows = payload
            return {"alt": alt, "name": name, "values": dict(zip(names, rows[j]))}
        if kind == _ONE:
            alt, name, var, items = payload
            return {"alt": alt, "name": name, "values": {var: items[j]}}
        return payload[0][j]

    def __iter__(self):
        for i in range(self._len):
            yield self[i]

    def named_values(self):
        """Each option in order as (its name, its values in the order of its names), without making
        its dict: what a bot that keys options by their labels reads of every option."""
        for kind, _count, payload in self._segments:
            if kind == _PRODUCT:
                name = payload[1]
                for combination in product(*payload[3]):
                    yield name, combination
            elif kind == _ROWS:
                name = payload[1]
                for row in payload[3]:
                    yield name, row
            elif kind == _ONE:
                name = payload[1]
                for item in payload[3]:
                    yield name, (item,)
            else:
                for option in payload[0]:
                    yield option["name"], tuple(option["values"].values())

    def __bool__(self) -> bool:
        return self._len > 0

    def __eq__(self, other):
        if isinstance(other, (Options, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return f"Options({list(self)!r})"

    # ---- copying (a clone of a match remaps every value to the clone's cards and players)
    def remap(self, fn: Callable, unchanged: Callable[[list], bool] | None = None) -> "Options":
        """The same options with every value v replaced by fn(v). A list of items or a row for
        which unchanged(...) says fn would give back the same values is shared, not copied: an
        Options never changes its lists (and tuple() of a row gives back the row itself)."""
        def each(items):
            return items if unchanged is not None and unchanged(items) else [fn(x) for x in items]

        new = Options()
        new._starts, new._len = list(self._starts), self._len
        segments = []
        for kind, count, payload in self._segments:
            if kind == _PRODUCT:
                alt, name, names, lists = payload
                payload = (alt, name, names, tuple(each(items) for items in lists))
            elif kind == _ROWS:
                alt, name, names, rows = payload
                payload = (alt, name, names, [tuple(each(row)) for row in rows])  # a shared row: itself
            elif kind == _ONE:
                alt, name, var, items = payload
                payload = (alt, name, var, each(items))
            else:
                payload = ([{"alt": o["alt"], "name": o["name"], "values": fn(o["values"])} for o in payload[0]],)
            segments.append((kind, count, payload))
        new._segments = segments
        return new


def option_name(options, index: int) -> str:
    """The name of option `index` of a pending choice's options (an ``Options`` or a plain list)."""
    if isinstance(options, Options):
        return options.name_at(index)
    return options[index]["name"]
