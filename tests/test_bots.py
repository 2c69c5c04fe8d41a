"""The tree-search bots (issue 12, point 5): seeded, planning only on what their seat may see,
with progressive widening and heuristic cut-offs, and flat Monte Carlo kept to its budget.

These are cheap checks that the bots run and behave; how strong they are is measured with
`rulelang tournament` over hundreds of games (docs/balance.md, "Bots"), not here."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import rulelang
from rulelang.bots.agents import AgentHandle, MonteCarloAgent, make_agent
from rulelang.cli.main import main
from rulelang.bots.mcts import MCTSAgent, cutoff_values

ROOT = Path(__file__).resolve().parent.parent
ZEMICO = str(ROOT / "games" / "zemico.rules")
HIGHCARD = str(ROOT / "examples" / "highcard.rules")
SPLICERS = str(ROOT / "games" / "splicers.rules")
TICTACTOE = str(ROOT / "examples" / "tictactoe.rules")


def _zemico_with_many_options(seed=5, at_least=20):
    """A 2-player Zemico match played at random up to a decision with many options."""
    game = rulelang.load(ZEMICO)
    match = game.new_match(players=2, seed=seed)
    rng = random.Random(seed)
    while match.option_count() < at_least:
        match.apply(rng.randrange(match.option_count()))
        assert not match.is_over
    return match


def _swap_hidden(match, seat_zone: str, deck: str):
    """A copy of the match in which one card of a zone the mover cannot see changed places with
    the top of a deck it cannot see either."""
    other = match.clone()
    theirs, pile = other.s.zones[seat_zone].items, other.s.zones[deck].items
    theirs[0], pile[0] = pile[0], theirs[0]
    theirs[0].zone, pile[0].zone = other.s.zones[seat_zone], other.s.zones[deck]
    return other


def test_settings_after_the_budget():
    bot = make_agent("ismcts:40:depth=8:width=5:exploration=0.5:round_end=1", 1)
    assert (bot.iterations, bot.depth, bot.width, bot.exploration, bot.round_end) == (40, 8, 5, 0.5, True)
    assert isinstance(make_agent("mcts", 0), MCTSAgent)
    assert make_agent("ismcts:10:draw=0", 1).draw == 0.0 and make_agent("ismcts:10", 1).draw is None
    for bad in ("mcts:4:depth=x", "mcts:4:speed=1", "mc:4:depth=3", "mcts:4:width=-1"):
        with pytest.raises(ValueError):
            make_agent(bad, 0)


def test_flat_monte_carlo_keeps_to_its_budget_of_playouts():
    match = _zemico_with_many_options()
    handle = AgentHandle(match, match.to_move)
    imagined = []
    real_imagine = handle.imagine
    handle.imagine = lambda rng: imagined.append(1) or real_imagine(rng)
    MonteCarloAgent(seed=1, playouts=3).choose(handle, match.legal_options())
    assert len(imagined) == 3  # not one per option: three play-outs in all


def test_progressive_widening_narrows_a_big_decision_and_the_bot_only_imagines():
    match = _zemico_with_many_options()
    before = json.dumps(match.to_json(), sort_keys=True) if hasattr(match, "to_json") else None
    version = match.s.version
    options = match.legal_options()
    bot = MCTSAgent(seed=3, iterations=24)
    index = bot.choose(AgentHandle(match, match.to_move), options)
    assert 0 <= index < len(options)
    # 24 visits allow at most max(10, ceil(2 * sqrt(24))) = 10 options at the root, not all of them
    assert len(options) > 10 and 2 <= len(bot.root.children) <= 10
    assert match.s.version == version  # the real match was not touched
    if before is not None:
        assert json.dumps(match.to_json(), sort_keys=True) == before
    wide = MCTSAgent(seed=3, iterations=24, width=100)
    wide.choose(AgentHandle(match, match.to_move), options)
    assert len(wide.root.children) == min(24, len({(o.name, o.label) for o in options}))


def test_cutoff_values_score_an_unfinished_game_between_zero_and_one():
    match = _zemico_with_many_options()
    values = cutoff_values(match.clone())
    assert len(values) == 2 and all(0.0 <= v <= 1.0 for v in values)
    assert sum(values) == pytest.approx(1.0)  # one winner or none now, and a ranking of two


def test_prior_orders_widening_by_the_heuristic_one_move_ahead_and_bias_favours_it():
    from rulelang.bots.mcts import root_prior

    bot = make_agent("ismcts:12:prior=1:bias=0.5", 3)
    assert (bot.prior, bot.bias) == (True, 0.5) and make_agent("ismcts:12", 3).prior is False
    # seven cards on the desk: where a card goes changes how many of them are likely to survive
    match = _zemico_with_many_options(seed=4, at_least=40)
    handle = AgentHandle(match, match.to_move)
    options = match.legal_options()
    keys = {(o.name, o.label): o.index for o in reversed(options)}
    values = root_prior(handle, keys, random.Random(1), None)
    assert set(values) == set(keys) and all(0.0 <= v <= 1.0 for v, _ in values.values())
    assert len({own for _, own in values.values()}) > 1  # the seat's own heuristic, which breaks ties
    bot.choose(handle, options)
    # the first options tried are among the best one move ahead: with 12 iterations and more
    # options than the width, every child of the root is one of the top-valued options
    top = sorted(set(bot._order.values()), reverse=True)
    tried = {bot._order[k] for k in bot.root.children}
    assert tried <= set(top[:len(tried) + 1])
    assert bot._bias and max(bot._bias.values()) == pytest.approx(0.5) and min(bot._bias.values()) == 0.0


@pytest.mark.parametrize("spec", ["ismcts:12", "ismcts:12:depth=0", "ismcts:6:round_end=1",
                                  "ismcts:12:prior=1:bias=1", "ismcts:8:greedy=2:playout=none:exploration=0.1",
                                  "ismcts:4:greedy=2:playout=greedy:depth=2"])
def test_ismcts_chooses_alike_in_deals_that_differ_only_in_what_it_cannot_see(spec):
    """"Players see only what they may see": the opponent's hand and the deck are hidden from
    the mover, so swapping cards between them must not change its choice."""
    a = _zemico_with_many_options()
    seat = a.to_move
    b = _swap_hidden(a, f"hand#{2 - seat}", "organism_deck")
    assert a.view(seat) == b.view(seat) and a.view(1 - seat) != b.view(1 - seat)
    ca = make_agent(spec, 7).choose(AgentHandle(a, seat), a.legal_options())
    cb = make_agent(spec, 7).choose(AgentHandle(b, seat), b.legal_options())
    assert ca == cb


def test_ismcts_does_not_see_through_a_face_down_card_on_the_board():
    """Splicers: "Seeds lie there face down." The opponent's face-down seed on their field and a
    card in their hand trade places: the mover sees the same table and must choose alike (the
    bot re-deals hidden cards in an order that depends only on what its seat sees)."""
    game = rulelang.load(SPLICERS)
    a = game.new_match(seed=4)
    rng = random.Random(4)
    for _ in range(10):  # to a decision of player 1 with player 2's seed face down on the table
        a.apply(rng.randrange(a.option_count()))
    seat = a.to_move
    field, hand = a.s.zones["field#2"], a.s.zones["hand#2"]
    assert seat == 0 and field.items and field.items[0].face_down and hand.items
    b = a.clone()
    field, hand = b.s.zones["field#2"], b.s.zones["hand#2"]
    seed_card, in_hand = field.items[0], hand.items[0]
    assert seed_card.card is not in_hand.card
    # the seed goes to the hand and the hand's card lies face down where the seed was
    cell, place, face_down = seed_card.cell, seed_card.place, seed_card.face_down
    field.cells.remove(cell, seed_card)
    field.items[0], hand.items[0] = in_hand, seed_card
    in_hand.zone, in_hand.cell, in_hand.place, in_hand.face_down = field, cell, place, face_down
    seed_card.zone, seed_card.cell, seed_card.place, seed_card.face_down = hand, None, None, False
    seed_card.known, in_hand.known = in_hand.known, seed_card.known
    field.cells.place(cell, in_hand)
    assert a.view(seat) == b.view(seat) and a.view(1) != b.view(1)
    ca = make_agent("ismcts:8", 5).choose(AgentHandle(a, seat), a.legal_options())
    cb = make_agent("ismcts:8", 5).choose(AgentHandle(b, seat), b.legal_options())
    assert ca == cb


def test_a_handful_of_seeded_games_play_identically_twice(tmp_path):
    runs = []
    for k in range(2):
        out = tmp_path / f"t{k}.json"
        assert main(["tournament", HIGHCARD, "--bots", "ismcts:8:depth=3,mc:8", "-n", "2", "--seed", "11",
                     "--quiet", "--jobs", "1", "--out", str(out)]) == 0
        pair = json.loads(out.read_text())["pairs"][0]
        runs.append({k: v for k, v in pair.items()})
    assert runs[0] == runs[1] and runs[0]["games"] == 2


def test_perfect_information_search_is_plain_uct_without_a_heuristic():
    """Tic-tac-toe has no heuristic and 9 options at most: no cut-off and no narrowing, so the
    bot tries every option and plays every iteration out to the end."""
    game = rulelang.load(TICTACTOE)
    match = game.new_match(seed=0)
    bot = MCTSAgent(seed=2, iterations=12)
    bot.choose(AgentHandle(match, match.to_move), match.legal_options())
    assert len(bot.root.children) == 9 and all(child.visits >= 1 for child in bot.root.children.values())
    narrow = MCTSAgent(seed=2, iterations=12, width=4)  # 12 visits allow ceil(2 * sqrt(12)) = 7
    narrow.choose(AgentHandle(match, match.to_move), match.legal_options())
    assert len(narrow.root.children) == 7


def test_the_value_of_a_game_nobody_wins():
    """By default a game nobody wins is worth a share of one (a draw); `draw=0` counts it as a loss,
    as flat Monte Carlo does, and `draw` is used by the heuristic cut-off too."""
    from rulelang.bots.mcts import cutoff_values, reward

    game = rulelang.load(TICTACTOE)
    match = game.new_match(players=2, seed=1)
    while not match.is_over:  # fill the board in reading order: a game nobody wins? play it out
        match.apply(0)
    match.s.winners = []
    assert reward(match, 0) == 0.5 and reward(match, 0, 0.0) == 0.0 and reward(match, 1, 0.25) == 0.25
    unfinished = game.new_match(players=2, seed=1)
    assert cutoff_values(unfinished.clone(), 0.0) != cutoff_values(unfinished.clone())


def _keys_the_long_way(match) -> dict:
    """What a search tree keys a decision by, read option by option: (name, label) -> first index."""
    out: dict = {}
    for o in match.legal_options():
        out.setdefault((o.name, o.label), o.index)
    return out


@pytest.mark.parametrize("path", sorted([*ROOT.glob("games/*.rules"), *ROOT.glob("examples/*.rules")]),
                         ids=lambda p: p.stem)
def test_option_keys_are_every_option_s_name_and_label(path):
    """`option_keys` reads the options' segments instead of making each option: the same keys, in
    the same order, with the same first index, as each option's name and label as its chooser sees
    them, also for a match resumed from a save (whose options are plain dicts)."""
    from rulelang.engine.visibility import option_keys

    game = rulelang.load(path)
    match = game.new_match(seed=3)
    rng = random.Random(3)
    compared = 0
    while not match.is_over and compared < 40:
        assert list(option_keys(match.s).items()) == list(_keys_the_long_way(match).items())
        compared += 1
        match.apply(rng.randrange(match.option_count()))
    if not match.is_over:
        resumed = game.match_from_json(json.dumps(match.to_json()))
        assert list(option_keys(resumed.s).items()) == list(_keys_the_long_way(resumed).items())
    assert compared


def test_option_keys_show_one_and_true_apart():
    """A cell of whole numbers is shown once per decision, but (1, 2) is not (true, 2)."""
    from rulelang.model.options import Options
    from rulelang.engine.visibility import option_keys

    match = rulelang.load(TICTACTOE).new_match(seed=1)
    options = Options()
    options.add_one(None, "choose", "x", [(1, 2), (True, 2), (1, 2), 1, True])
    match.s.pending = {**match.s.pending, "options": options}
    assert list(option_keys(match.s)) == [("choose", "(1, 2)"), ("choose", "(true, 2)"),
                                          ("choose", "1"), ("choose", "true")]
