"""Games as environments (docs/environments.md): every .rules file is an OpenSpiel game
(`rulelang.openspiel`) and a PettingZoo AEC environment (`rulelang.pettingzoo`).

* OpenSpiel's own conformance test, `pyspiel.random_sim_test` (clone, serialize and deserialize,
  legal actions sorted and masked, unique action strings, observations, returns), on every mode
  (the base game and each variant) of every seed game (games/*.rules) and of every example.
  The long seed games are played up to `LONG` decisions (`max_game_length`: the match is then cut
  short, a terminal state with returns 0: OpenSpiel's test looks at every seat's observations at
  every step, which takes seconds a match there); every other mode is played to its end.
* PettingZoo's `api_test` on every mode of every seed game, its first match played to the end.
* OpenSpiel's MCTS bot (`MCTSBot` with `RandomRolloutEvaluator`) playing two games through the
  wrapper against a random bot.
* What a seat sees: a state whose hidden cards are dealt again looks the same to the seat.

Everything is seeded: OpenSpiel's test draws from its own seeded generator, the bots from
seeded generators.
"""
from __future__ import annotations

import contextlib
import io
import json
import warnings

import numpy as np
import pytest

import pyspiel  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from conftest import EXAMPLES, GAMES  # noqa: E402
from rulelang.language.astcache import parse_file_cached  # noqa: E402
from rulelang.tools.environments import Encoding, GameFacts, decision, load_rules_game  # noqa: E402
from rulelang.openspiel import load_game  # noqa: E402
from rulelang.pettingzoo import env as make_env  # noqa: E402

#: seed games whose random matches are long and slow to observe: played up to this many decisions
LONG = {"evacuation": 30, "survivors": 30}


def modes(path):
    return [None] + list(parse_file_cached(path).variants())


SEED_CASES = [(path, mode) for path in GAMES for mode in modes(path)]
EXAMPLE_CASES = [(path, mode) for path in EXAMPLES for mode in modes(path)]


def _ids(cases):
    return [f"{p.stem}-{m or 'base'}" for p, m in cases]


@pytest.mark.parametrize("path, mode", SEED_CASES + EXAMPLE_CASES, ids=_ids(SEED_CASES + EXAMPLE_CASES))
def test_openspiel_random_sim_test(path, mode):
    parameters = {"max_game_length": LONG[path.stem]} if path.stem in LONG else {}
    game = load_game(path, variant=mode, **parameters)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("path, mode", SEED_CASES, ids=_ids(SEED_CASES))
def test_pettingzoo_api_test(path, mode):
    env = make_env(path, variant=mode, render_mode="ansi", seed=0)
    with warnings.catch_warnings():
        # a dict of observation and action mask is what PettingZoo's own board games give,
        # yet its test warns of it for any game but its own
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        with contextlib.redirect_stdout(io.StringIO()):
            api_test(env, num_cycles=5000)  # (its first match is played to the end: every agent finishes)


def test_pettingzoo_plays_to_the_end_and_renders():
    env = make_env("tictactoe", render_mode="ansi")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    finished = []
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            finished.append((agent, reward))
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert sorted(legal) == env.unwrapped.legal_actions()
        env.step(int(rng.choice(legal)))
    assert sorted(a for a, _ in finished) == ["player_0", "player_1"]
    assert sorted(r for _, r in finished) in ([-1.0, 1.0], [0.0, 0.0])
    text = env.unwrapped.render()
    assert "Tic-tac-toe" in text and "grid" in text


def test_pettingzoo_reset_with_a_seed_replays_the_same_match():
    def observations(seed):
        env = make_env("highcard")
        env.reset(seed=seed)
        seen = []
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            seen.append(observation["observation"].tobytes())
            env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
        return seen

    assert observations(7) == observations(7)
    assert observations(7) != observations(8)


def test_pettingzoo_truncates_a_long_match():
    env = make_env("tictactoe", max_game_length=3)
    env.reset(seed=0)
    for _ in range(3):
        observation, *_ = env.last()
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0.0}


def test_both_apis_play_the_same_episode():
    """OpenSpiel's state and PettingZoo's environment wrap one episode: on the same seed, the same
    seat chooses among the same action ids, every seat gets the same vector, and the ends agree."""
    game = load_game("highcard")
    state = game.new_initial_state()
    state.apply_action(7)  # the chance node's seed
    env = make_env("highcard").unwrapped
    env.reset(seed=7)
    while not state.is_terminal():
        assert env.agent_selection == f"player_{state.current_player()}"
        assert state.legal_actions() == env.legal_actions()
        for seat in range(2):
            assert np.array_equal(state.observation_tensor(seat), env.observe(f"player_{seat}")["observation"])
        action = state.legal_actions()[-1]
        state.apply_action(action)
        env.step(action)
    assert all(env.terminations.values()) and env.legal_actions() == []
    assert [env.rewards[f"player_{seat}"] for seat in range(2)] == state.returns() != [0.0, 0.0]


def _play(game, bots, rng):
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(game.max_chance_outcomes())))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state.returns()


@pytest.mark.parametrize("name, simulations", [("tictactoe", 100), ("connect4", 60)])
def test_openspiel_mcts_bot_beats_random_play(name, simulations):
    game = load_game(name)
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), random_state=rng)
    results = []
    for seat in (0, 1):
        bots = [uniform_random.UniformRandomBot(p, rng) for p in range(2)]
        bots[seat] = bot
        results.append(_play(game, bots, np.random.default_rng(seat))[seat])
    assert min(results) >= 0.0, results  # never loses
    assert max(results) == 1.0, results


def test_game_type_follows_the_declarations():
    ttt = load_game("tictactoe")
    assert ttt.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert ttt.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert ttt.max_chance_outcomes() == 0
    cards = load_game("highcard", players=3, seeds=50)
    assert cards.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert cards.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert cards.num_players() == 3 and cards.max_chance_outcomes() == 50
    state = cards.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 50
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "seed 7"
    state.apply_action(7)
    assert state.match.s.seed == 7
    assert load_game("highcard").get_type().short_name != load_game("highcard", variant="lowball").get_type().short_name
    assert GameFacts.of(load_rules_game("checkers")) == GameFacts(chance=False, hidden=False)


def test_action_ids_are_stable_and_labelled():
    game = load_game("tictactoe")
    state = game.new_initial_state()
    labels = {a: state.action_to_string(0, a) for a in state.legal_actions()}
    # the ids are hashes of what the chooser sees: the same in every process and every position
    assert labels == {11: "(2, 0)", 205: "(0, 1)", 396: "(0, 0)", 413: "(1, 0)", 457: "(2, 1)",
                      522: "(1, 2)", 827: "(2, 2)", 918: "(0, 2)", 1002: "(1, 1)"}
    state.apply_action(1002)
    assert {a: state.action_to_string(1, a) for a in state.legal_actions()} == \
        {a: label for a, label in labels.items() if a != 1002}
    rules = load_rules_game("highcard")
    match = rules.new_match(players=2, seed=0)
    small = decision(match, num_actions=3)  # five cards in hand, three ids: the first three are offered
    assert len(small.ids) == 3 and small.left_out == 2


def test_serialized_state_is_the_match_save():
    game = load_game("highcard")
    state = game.new_initial_state()
    state.apply_action(3)
    state.apply_action(state.legal_actions()[1])
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()
    assert again.match.to_json()["fingerprint"] == state.match.to_json()["fingerprint"]
    assert again.information_state_string(0) == state.information_state_string(0)


def test_a_seat_sees_only_its_view():
    game = load_game("highcard")
    state = game.new_initial_state()
    state.apply_action(11)
    state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    other = state.resample(seat, seed=5)  # the cards this seat cannot see dealt again
    assert str(other) != str(state)
    assert other.observation_string(seat) == state.observation_string(seat)
    assert other.information_state_string(seat) == state.information_state_string(seat)
    assert other.observation_tensor(seat) == state.observation_tensor(seat)
    assert other.legal_actions() == state.legal_actions()
    view = json.loads(state.observation_string(seat))
    hidden = [z for k, z in view["zones"].items() if k.startswith("hand#") and z["owner"] != seat + 1]
    assert hidden and all(card == {"hidden": True} for z in hidden for card in z["cards"])


def test_encoding_layout():
    rules = load_rules_game("tictactoe")
    encoding = Encoding(rules, 2)
    assert sum(length for _, _, length in encoding.blocks) == encoding.size
    names = [name for name, _, _ in encoding.blocks]
    assert names[:3] == ["seat", "turn", "phase"] and "zone:grid" in names
    match = rules.new_match(players=2, seed=0)
    match.apply(0)
    vector = encoding.encode(match.view(1))
    _, start, length = encoding.blocks[names.index("zone:grid")]
    grid = vector[start:start + length]
    assert grid[0] == 1  # one mark on the grid, owned by the other seat (slot 1)
    per_cell = grid[1:].reshape(9, -1)
    assert per_cell[:, 1].sum() == 1 and per_cell[:, 0].sum() == 0


def test_the_page_s_examples_run(repo_cwd):
    """The ```python blocks of docs/environments.md run in order, in one namespace; the match-up
    of bots plays 2 games of 20 simulations a move instead of 20 of 200."""
    import re

    from conftest import REPO

    text = (REPO / "docs" / "environments.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)
    assert len(blocks) >= 5
    namespace: dict = {}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()) as out:
        warnings.simplefilter("ignore")
        for block in blocks:
            shrunk = block.replace('GAME, GAMES, BUDGET = "connect4", 20, 200', 'GAME, GAMES, BUDGET = "connect4", 2, 20')
            exec(compile(shrunk, "docs/environments.md", "exec"), namespace)
    assert namespace["encoding"].size == 86
    assert sum(namespace["score"].values()) == 2
    assert "High card" in out.getvalue()
