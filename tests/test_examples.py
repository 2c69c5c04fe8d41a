"""Every file in examples/ checks clean and plays to its end with seeded random bots,
in every mode (base and each variant), at several player counts."""
from __future__ import annotations

import re

import pytest

import rulelang
from conftest import EXAMPLES, REPO
from rulelang.language import nodes as N
from rulelang.bots.agents import AgentHandle, make_agent, play_match
from rulelang.check.checker import check_rules
from rulelang.language.astcache import parse_file_cached
from rulelang.language.parser import parse_file

SEEDS = range(5)


def modes(path):
    return [None] + list(parse_file_cached(path).variants())  # (collecting: each file parsed once)


CASES = [(path, mode) for path in EXAMPLES for mode in modes(path)]
_GAMES: dict = {}


def loaded(path, mode):
    key = (path, mode)
    if key not in _GAMES:
        _GAMES[key] = rulelang.load(path, variant=mode)
    return _GAMES[key]


def test_there_are_examples():
    names = {p.name for p in EXAMPLES}
    assert "tictactoe.rules" in names and "eights.rules" in names


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_checks_clean(path):
    rules = parse_file(path)
    check_rules(rules, all_variants=True)
    assert rules.header_doc, "an example opens with //! prose that says what it shows"


@pytest.mark.parametrize("path, mode", CASES, ids=[f"{p.stem}-{m or 'base'}" for p, m in CASES])
def test_example_plays_to_the_end(path, mode):
    game = loaded(path, mode)
    g = game.program.game
    counts = sorted({g.players_min, g.players_max, g.players_default or g.players_min})
    for seed in SEEDS:
        for players in counts:
            match = game.new_match(players=players, seed=seed)
            agents = [make_agent("random", seed * 100 + seat) for seat in range(players)]
            play_match(match, agents)
            result = match.result
            assert match.is_over and result is not None
            assert result["rounds"] >= 1 and result["decisions"] >= 1
            assert all(1 <= w <= players for w in result["winners"])
            assert len(result["players"]) == players


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_is_deterministic(path):
    game = loaded(path, None)

    def run():
        match = game.new_match(seed=3)
        play_match(match, [make_agent("random", 7 + seat) for seat in range(len(match.s.players))])
        return match.result, match.s.log

    assert run() == run()


def test_eights_documents_every_declaration():
    """The learning example explains itself: every declaration carries a /// doc comment."""
    rules = parse_file(REPO / "examples" / "eights.rules")
    for d in rules.decls:
        if isinstance(d, N.VariantDecl):
            assert d.doc, f"variant {d.name} has no doc comment"
        else:
            assert d.doc, f"{type(d).__name__} at line {d.span.line} has no /// doc comment"


def test_eights_rules_of_play():
    """Every card played matches the suit to follow or the rank on top, or is an eight."""
    game = loaded(REPO / "examples" / "eights.rules", None)
    for seed in range(3):
        match = game.new_match(players=3, seed=seed)
        agents = [make_agent("random", seed + seat) for seat in range(3)]
        while not match.is_over:
            pile = match.s.zones["pile"].items
            top, follow = pile[-1], match.s.globals["suit_to_follow"]
            before = len(pile)
            seat = match.to_move
            match.apply(agents[seat].choose(AgentHandle(match, seat), match.legal_options()))
            pile = match.s.zones["pile"].items
            if len(pile) == before + 1:
                card = pile[-1]
                assert card.attrs["rank"] == 8 or card.attrs["suit"] == follow or card.attrs["rank"] == top.attrs["rank"]
        total = sum(len(z.items) for z in match.s.zones.values())
        assert total == 32
        if match.s.globals["winner"] is not None:
            assert match.result["winners"] == [match.s.globals["winner"].seat + 1]
            assert not match.s.zones[f"hand#{match.result['winners'][0]}"].items


def _strings(x, out):
    if isinstance(x, str):
        out.append(x)
    elif isinstance(x, dict):
        for v in x.values():
            _strings(v, out)
    elif isinstance(x, list):
        for v in x:
            _strings(v, out)
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_views_never_show_a_card_the_player_cannot_see(path):
    """At every step of a whole game, a player's view names no card hidden from them (the log,
    which is public history, aside)."""
    from rulelang.model.builtins import describe
    from rulelang.engine.visibility import visible

    game = loaded(path, None)
    for seed in range(2):
        match = game.new_match(seed=seed)
        agents = [make_agent("random", seed + seat) for seat in range(len(match.s.players))]
        while True:
            for seat in range(len(match.s.players)):
                view = match.view(seat)
                view.pop("log")
                shown = "\n".join(_strings(view, []))
                seen = {describe(e) for e in match.s.entities if visible(e, seat)}
                secret = {describe(e) for e in match.s.entities if not visible(e, seat)} - seen
                for label in secret:
                    assert not re.search(rf"(?<!\w){re.escape(label)}(?!\w)", shown), \
                        f"seat {seat + 1} sees the hidden card {label!r}"
            if match.is_over:
                break
            seat = match.to_move
            match.apply(agents[seat].choose(AgentHandle(match, seat), match.legal_options()))
