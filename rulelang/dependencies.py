"""What an expression or a def depends on, read from the AST before compiling: the names it
mentions (`free_names`), whether it uses chance (`impure_defs`: never remembered) and whether it reads
the turn (`turn_defs`: remembered only within a turn).
"""
from __future__ import annotations

import re

from . import nodes as N

# built-ins whose value changes from one call to the next (chance), so a def using them is not cached
IMPURE_CALLS = {"roll", "random"}


def impure_defs(decls) -> set[str]:
    """The defs that use chance, directly or through other defs: their values are never cached."""
    bodies = {d.name: free_names(d.body) for d in decls if isinstance(d, N.DefDecl)}
    impure: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, names in bodies.items():
            if name not in impure and (names & IMPURE_CALLS or names & impure):
                impure.add(name)
                changed = True
    return impure


#: what a def may read that changes without `State.version` changing (the turn, not the state)
TURN_NAMES = {"current", "round", "phase"}


def reads_turn(node) -> bool:
    """Whether an expression mentions the turn (`current`, `round`, `phase`), also inside a text's
    `{...}` placeholders (a safe over-approximation)."""
    if free_names(node) & TURN_NAMES:
        return True
    found = False

    def visit(x):
        nonlocal found
        if found:
            return
        if isinstance(x, N.StrLit) and "{" in x.value:
            found = any(m.split(".")[0] in TURN_NAMES for m in _TEMPLATE_NAMES.findall(x.value))
        elif isinstance(x, N.Node):
            for value in x.__dict__.values():
                visit(value)
        elif isinstance(x, (list, tuple)):
            for item in x:
                visit(item)

    visit(node)
    return found


_TEMPLATE_NAMES = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")


def turn_defs(decls) -> set[str] | None:
    """The defs whose value may depend on whose turn, which round or which phase it is, directly or
    through other defs: they are remembered only for one turn; the others for as long as the state
    does not change. None when the cards' own rules (a condition field, computed when read) mention
    the turn: then every def may, through a card's field."""
    for d in decls:
        if isinstance(d, (N.CardsDecl, N.ComponentDecl)) and reads_turn(d):
            return None
    defs = [d for d in decls if isinstance(d, N.DefDecl)]
    names = {d.name: free_names(d.body) for d in defs}
    out = {d.name for d in defs if reads_turn(d.body)}
    changed = True
    while changed:
        changed = False
        for name, used in names.items():
            if name not in out and used & out:
                out.add(name)
                changed = True
    return out


def free_names(node) -> set[str]:
    """Every name an expression mentions (a safe over-approximation of what it depends on)."""
    out: set[str] = set()

    def visit(x):
        if isinstance(x, N.Name):
            out.add(x.id)
        elif isinstance(x, N.Call):
            out.add(x.func)
        if isinstance(x, N.Node):
            for value in x.__dict__.values():
                visit(value)
        elif isinstance(x, (list, tuple)):
            for item in x:
                visit(item)

    visit(node)
    return out
