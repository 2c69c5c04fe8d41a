"""Agents: seeded, limited to their player's view, and the planning agents beat random play."""
import random

import rulelang
from rulelang.bots.agents import AgentHandle, GreedyAgent, MonteCarloAgent, RandomAgent, RolloutAgent, make_agent, play_match
from rulelang.engine.visibility import visible

TICTACTOE = "examples/tictactoe.rules"


def _winners(game, agents, seed):
    match = game.new_match(seed=seed)
    play_match(match, agents)
    return match.result["winners"]


def test_random_agent_is_deterministic_per_seed():
    game = rulelang.load(TICTACTOE)
    first = [_winners(game, [RandomAgent(s), RandomAgent(s + 100)], s) for s in range(10)]
    again = [_winners(game, [RandomAgent(s), RandomAgent(s + 100)], s) for s in range(10)]
    assert first == again


def test_monte_carlo_beats_random_at_tictactoe():
    game = rulelang.load(TICTACTOE)
    mc_wins = random_wins = 0
    for seed in range(12):
        # the planning agent plays first in even games and second in odd ones
        mc_seat = seed % 2
        agents = [None, None]
        agents[mc_seat] = MonteCarloAgent(seed, playouts=60, max_options=9)
        agents[1 - mc_seat] = RandomAgent(seed)
        winners = _winners(game, agents, seed)
        mc_wins += (mc_seat + 1) in winners
        random_wins += (2 - mc_seat) in winners
    assert mc_wins >= 8 and mc_wins > 3 * random_wins


def test_greedy_agent_finishes_and_beats_random_at_tictactoe():
    game = rulelang.load(TICTACTOE)
    greedy_wins = random_wins = 0
    for seed in range(12):
        winners = _winners(game, [GreedyAgent(seed), RandomAgent(seed)], seed)
        greedy_wins += 1 in winners
        random_wins += 2 in winners
    assert greedy_wins > random_wins


def test_rollout_agent_finishes_and_beats_random_at_tictactoe():
    game = rulelang.load(TICTACTOE)
    greedy_wins = random_wins = 0
    for seed in range(12):
        winners = _winners(game, [RolloutAgent(seed, samples=3), RandomAgent(seed)], seed)
        greedy_wins += 1 in winners
        random_wins += 2 in winners
    assert greedy_wins > random_wins


def test_agent_budgets_from_the_command_line():
    assert make_agent("mc:7", 0).playouts == 7
    assert make_agent("greedy:5", 0).max_options == 5
    assert make_agent("rollout:5", 0).max_options == 5
    for bad in ("nobody", "mc:x", "random:3"):
        try:
            make_agent(bad, 0)
        except ValueError:
            continue
        raise AssertionError(f"{bad} should be refused")


def test_imagined_copies_keep_what_the_player_sees_and_redeal_the_rest():
    game = rulelang.load("games/zemico.rules")
    match = game.new_match(players=4, seed=3)
    seat = match.to_move
    handle = AgentHandle(match, seat)
    rng = random.Random(1)
    true_hidden = {e.id: (e.zone.key, e.zone.items.index(e)) for e in match.s.entities if not visible(e, seat)}
    moved = 0
    for _ in range(5):
        copy = handle.imagine(rng)
        assert handle.view() == match.view(seat)  # imagining never changes the real match
        for e, c in zip(match.s.entities, copy.s.entities):
            if visible(e, seat):
                assert (c.zone.key, c.cell) == (e.zone.key, e.cell)
        # what the player sees is the same in the copy
        assert copy.view(seat)["zones"] == match.view(seat)["zones"]
        moved += sum(1 for c in copy.s.entities if c.id in true_hidden
                     and (c.zone.key, c.zone.items.index(c)) != true_hidden[c.id])
    assert moved > 0


def test_greedy_pauses_the_cycle_collector_only_while_it_decides():
    """Greedy decides with Python's cycle collector paused (it scans the copies a decision makes over
    and over) and leaves it as it found it: on again after the decision, still off if it was off."""
    import gc

    game = rulelang.load(TICTACTOE)
    match = game.new_match(seed=3)
    seen = []
    agent = GreedyAgent(3)
    imagine = AgentHandle.imagine

    def watched(handle, rng):  # what the collector is doing while the decision is worked out
        seen.append(gc.isenabled())
        return imagine(handle, rng)

    AgentHandle.imagine = watched
    try:
        assert gc.isenabled()
        agent.choose(AgentHandle(match, match.to_move), match.legal_options())
        assert seen == [False] and gc.isenabled()
        gc.disable()
        try:
            agent.choose(AgentHandle(match, match.to_move), match.legal_options())
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        AgentHandle.imagine = imagine
