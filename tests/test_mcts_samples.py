"""The tree search's ``samples`` setting: a position cut off before the end is valued, for each
seat, as the mean over M copies in which what that seat cannot see is re-dealt; it reads only
imagined copies, and it is the same for a seed."""
from __future__ import annotations

import random

import pytest

from rulelang.bots.agents import AgentHandle, make_agent
from rulelang.bots.mcts import MCTSAgent, greedy_values

from test_mcts_greedy import _match  # a 2-player Zemico match (secret missions) at a placement


def test_the_setting_is_read_and_one_is_the_default():
    assert make_agent("mcts:8:greedy=2:samples=6", 1).samples == 6
    assert make_agent("mcts:8", 1).samples == 1
    with pytest.raises(ValueError, match="samples"):
        make_agent("mcts:8:samples=many", 1)


def test_a_cut_off_position_is_the_mean_over_copies_each_seat_imagines():
    match = _match()
    world = match.sample_for(0, random.Random(3))
    bot = MCTSAgent(seed=1, greedy=2, samples=5)
    bot.rng = random.Random(11)
    got = bot._cut_values(world.clone(), greedy_values)
    # the same draws, by hand: 5 copies as seat 0 imagines the position, then 5 as seat 1 does
    rng = random.Random(11)
    want = []
    for seat in range(2):
        values = [greedy_values(world.sample_for(seat, rng))[seat] for _ in range(5)]
        want.append(sum(values) / 5)
    assert got == pytest.approx(want)
    assert all(0.0 <= v <= 1.0 for v in got)
    # with one sample, the position itself is valued (no copies)
    one = MCTSAgent(seed=1, greedy=2)
    assert one._cut_values(world.clone(), greedy_values) == greedy_values(world.clone())
    # the other seat's secret mission is re-dealt in the copies: they do not all agree
    rng = random.Random(4)
    assert len({greedy_values(world.sample_for(0, rng))[0] for _ in range(20)}) > 1


def test_the_search_with_samples_is_the_same_for_a_seed_and_leaves_the_match_alone():
    match = _match(seed=7)
    seat = match.to_move
    options = match.legal_options()
    before = (match.s.version, match.s.decisions, match.option_count())
    picks, trees = [], []
    for _ in range(2):
        bot = make_agent("mcts:6:greedy=2:playout=greedy:depth=1:exploration=0.1:samples=3", 9)
        picks.append(bot.choose(AgentHandle(match, seat), options))
        assert bot.root.visits == 6
        trees.append({k: (ch.visits, round(ch.wins, 12)) for k, ch in bot.root.children.items()})
    assert picks[0] == picks[1] and trees[0] == trees[1]
    assert (match.s.version, match.s.decisions, match.option_count()) == before


def test_top_searches_only_greedy_s_best_options_and_plays_one_of_them():
    match = _match(seed=5)
    seat = match.to_move
    options = match.legal_options()
    picks = []
    for _ in range(2):
        bot = make_agent("mcts:6:greedy=2:playout=none:exploration=0.1:top=2", 3)
        assert bot.top == 2
        picks.append(bot.choose(AgentHandle(match, seat), options))
        root = bot.root
        assert len(options) > 2 and root.prior is not None
        best = max(order for order, _ in root.prior.values())
        # only two options were searched, each among greedy's best (its ranking of this decision)
        assert 1 <= len(root.children) <= 2
        ranked = sorted(root.prior.values(), key=lambda v: v[0], reverse=True)
        second = ranked[1][0]
        assert all(root.prior[k][0] >= second for k in root.children)
        chosen = (options[picks[-1]].name, options[picks[-1]].label)
        assert chosen in root.children and root.prior[chosen][0] >= second
        if sum(order == best for order, _ in root.prior.values()) >= 2:  # ties: both searched are top
            assert all(root.prior[k][0] == best for k in root.children)
    assert picks[0] == picks[1]
    # without it, the same budget spreads over more options (here greedy ranks all of them alike)
    wide = make_agent("mcts:6:greedy=2:playout=none:exploration=0.1", 3)
    wide.choose(AgentHandle(match, seat), options)
    assert len(wide.root.children) > 2


def test_top_is_off_by_default_and_a_budget_of_none_plays_greedy_s_best():
    assert make_agent("mcts:8:greedy=2", 1).top == 0
    match = _match(seed=6)
    seat = match.to_move
    handle = AgentHandle(match, seat)
    options = match.legal_options()
    bot = MCTSAgent(seed=2, iterations=0, greedy=2, top=1)
    choice = bot.choose(handle, options)
    best = max(order for order, _ in bot.root.prior.values())
    assert bot.root.prior[(options[choice].name, options[choice].label)][0] == best
