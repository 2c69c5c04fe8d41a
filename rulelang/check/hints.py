"""Hints: rules that check clean but probably do not do what their designer means.

A hint is a `Diagnostic` of severity "hint": `rulelang check` prints it after "ok" (the file still
passes), and the language server shows it as a hint:

- **face-down cards nobody owns in a player's public zone.** A face-down card in a public zone is
  seen by the card's owner only (`engine/visibility.visible`), and moving a card never changes its
  owner, so a card drawn face down from a shared zone into `tableau(p)` is hidden from p too,
  unless the rules set `c.owner`. Hinted at each such `move` or `draw` whose cards come from a
  shared zone, in a declaration that never sets an owner.
"""
from __future__ import annotations

from rulelang.core.errors import Diagnostic
from rulelang.language import nodes as N
from rulelang.language.nodes import nodes_in


def hints(rules: N.RulesFile) -> list[Diagnostic]:
    """The hints of a file (its variants' declarations included), in the order of the file."""
    decls = [d for d in rules.every_declaration() if not isinstance(d, N.VariantDecl)]
    zones = {d.name: d for d in decls if isinstance(d, N.ZoneDecl)}
    shared = {name for name, z in zones.items() if not z.per_player}
    players_public = {name for name, z in zones.items() if z.per_player and z.visibility == "public" and z.board is None}
    out: list[Diagnostic] = []
    if not players_public:
        return []
    for decl in decls:
        if not isinstance(decl, _WITH_STATEMENTS):  # (a deck of thousands of cards holds no move)
            continue
        moves, owner_set = [], False
        for x in nodes_in(decl):
            if isinstance(x, (N.Move, N.Draw)) and x.place.face == "down" and _zone_named(x.to) in players_public:
                moves.append(x)
            elif isinstance(x, N.Assign) and isinstance(x.target, N.Attr) and x.target.name == "owner":
                owner_set = True
        if owner_set:
            continue
        for x in moves:
            into = _zone_named(x.to)
            source = x.source if isinstance(x, N.Draw) else x.what
            if not any(isinstance(n, N.Name) and n.id in shared for n in nodes_in(source)):
                continue
            out.append(Diagnostic(
                x.span, f'nobody owns these face-down cards in "{into}", so its player cannot see them: a '
                        "face-down card is seen by its owner only, and a card from a shared zone has none",
                hint=f"set the owner after the move (`c.owner = p`), or declare `zone {into} per player private`",
                severity="hint"))
    return sorted(out, key=lambda d: (d.span.line, d.span.column))


#: the declarations that hold statements
_WITH_STATEMENTS = (N.SetupDecl, N.PhaseDecl, N.TriggerDecl, N.AlwaysDecl, N.ProcDecl, N.KeywordDecl, N.ResultDecl)


def _zone_named(expr) -> str | None:
    """The zone a destination names: `pile` or `tableau(p)`."""
    if isinstance(expr, N.Name):
        return expr.id
    if isinstance(expr, N.Call) and not expr.kwargs:
        return expr.func
    return None


#: The player field a game without ``def heuristic(p)`` may name for who is ahead.
SCORE_FIELD = "score"


def bot_hint(rules) -> str | None:
    """What ``rulelang check`` says about a parsed rules file (``nodes.RulesFile``) that tells the
    bots nothing about who is ahead mid-game: neither ``def heuristic(p)`` nor a player field named
    ``score`` (in the file or any of its variants). None when it has either."""
    for d in rules.every_declaration():
        if isinstance(d, N.DefDecl) and d.name == "heuristic" and len(d.params) == 1:
            return None
        if isinstance(d, N.PlayerDecl) and any(f.name == SCORE_FIELD for f in d.fields):
            return None
    return ("the greedy bot cannot tell who is ahead before the game ends: add `def heuristic(p) = ...` "
            f"(bigger is better for player p), or a player field named `{SCORE_FIELD}`")
