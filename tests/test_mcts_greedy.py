"""The tree search that starts where greedy stands (``greedy=W``) and its epsilon-greedy play-outs
(``playout=greedy``): the prior is greedy's own valuation, a search of no iterations plays greedy's
move, an epsilon of 0 plays greedy's move in a play-out, and all of it is the same for a seed."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulelang
from rulelang.bots.agents import AgentHandle, make_agent
from rulelang.bots.valuation import option_values
from rulelang.bots.mcts import MCTSAgent, greedy_prior, greedy_values
from rulelang.engine.visibility import option_keys

ROOT = Path(__file__).resolve().parent.parent
ZEMICO = str(ROOT / "games" / "zemico.rules")
SURVIVORS = str(ROOT / "games" / "survivors.rules")


def _match(path=ZEMICO, seed=5, at_least=20):
    """A 2-player match played at random up to a decision with many options."""
    match = rulelang.load(path).new_match(players=2, seed=seed)
    rng = random.Random(seed)
    while match.option_count() < at_least:
        match.apply(rng.randrange(match.option_count()))
        assert not match.is_over
    return match


def _differing(path, seed=1):
    """A 2-player match played at random up to a decision whose options greedy values differently."""
    match = rulelang.load(path).new_match(players=2, seed=seed)
    rng = random.Random(seed)
    while True:
        if match.option_count() > 5:
            values = option_values(match.clone(), match.to_move, list(option_keys(match.s).values()))
            if len(set(values)) > 2:
                return match
        match.apply(rng.randrange(match.option_count()))
        assert not match.is_over


def _greedy_best(world, seat):
    """The options (by key) greedy ranks first on this world, and every option's greedy value."""
    keys = option_keys(world.s)
    values = dict(zip(keys, option_values(world.clone(), seat, list(keys.values()))))
    top = max(values.values())
    return {k for k, v in values.items() if v == top}, values


def test_the_settings_are_read_and_a_bad_playout_is_refused():
    bot = make_agent("mcts:30:greedy=2:playout=greedy:epsilon=0.1", 1)
    assert (bot.greedy, bot.playout, bot.epsilon) == (2.0, "greedy", 0.1)
    plain = make_agent("mcts:30", 1)
    assert (plain.greedy, plain.playout) == (0.0, "random")
    assert make_agent("mcts:5:playout=none", 1).playout == "none"
    with pytest.raises(ValueError, match="playout"):
        make_agent("mcts:5:playout=smart", 1)


@pytest.mark.parametrize("path", [ZEMICO, SURVIVORS])
def test_the_prior_is_greedy_s_own_valuation_and_its_values_agree_with_its_order(path):
    match = _differing(path)
    seat = match.to_move
    keys = option_keys(match.s)
    prior = greedy_prior(match, keys)
    _, values = _greedy_best(match, seat)
    assert set(prior) == set(keys)
    assert {k: order for k, (order, _) in prior.items()} == values  # exactly greedy's ranking
    assert all(0.0 <= p <= 1.0 for _, p in prior.values())
    # the value follows greedy's lead, and its own value where the leads are equal
    for (a, pa) in prior.values():
        for (b, pb) in prior.values():
            if a[0] == b[0] == 1 and (a[1] == b[1] and a[2] < b[2] or a[2] == b[2] and a[1] < b[1]):
                assert pa < pb
    assert len({p for _, p in prior.values()}) > 1
    assert match.option_count() == len(match.legal_options())  # the match itself is left as it was


def test_greedy_values_are_a_lead_between_zero_and_one():
    match = _match()
    values = greedy_values(match.clone())
    assert len(values) == 2 and all(0.0 <= v <= 1.0 for v in values)
    assert (values[0] - 0.5) * (values[1] - 0.5) <= 0  # one ahead, the other behind (or both level)


@pytest.mark.parametrize("seed", [1, 2])
def test_with_no_iterations_the_search_plays_greedy_s_move(seed):
    match = _differing(SURVIVORS, seed=seed)
    seat = match.to_move
    handle = AgentHandle(match, seat)
    options = match.legal_options()
    # the bot's first draw of its generator imagines the world its prior is made on
    world = handle.imagine(random.Random(seed))
    top, _ = _greedy_best(world, seat)
    choice = MCTSAgent(seed=seed, iterations=0, greedy=2).choose(handle, options)
    assert (options[choice].name, options[choice].label) in top


def test_an_epsilon_of_zero_plays_out_greedy_s_move():
    match = _differing(SURVIVORS, seed=3)
    top, _ = _greedy_best(match, match.to_move)
    keys = option_keys(match.s)
    bot = MCTSAgent(seed=4, playout="greedy", epsilon=0.0)
    for _ in range(3):
        world = match.clone()
        played = []
        world.apply = played.append  # (records the play-out's choice instead of playing it)
        bot._playout_step(world)
        assert len(played) == 1 and played[0] in {keys[k] for k in top}


def test_the_search_grows_from_greedy_s_best_and_is_the_same_for_a_seed():
    match = _differing(SURVIVORS, seed=2)
    seat = match.to_move
    options = match.legal_options()
    picks = []
    for _ in range(2):
        bot = make_agent("mcts:12:greedy=2:playout=greedy:depth=1:epsilon=0.5", 9)
        picks.append(bot.choose(AgentHandle(match, seat), options))
        root = bot.root
        assert root.prior is not None and root.visits == 12
        # the first option added is one greedy ranks first
        best = max(order for order, _ in root.prior.values())
        assert any(root.prior[k][0] == best for k in root.children)
    assert picks[0] == picks[1]
