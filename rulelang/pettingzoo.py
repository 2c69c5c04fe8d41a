"""Every .rules file as a PettingZoo AEC environment: `env(path or bundled name, variant=None,
players=None, settings=None, **options)`, described for users in docs/environments.md.

Agents are `player_0`, `player_1`, ... (seat 0 is the rules' Player 1). Each reset starts an
`environments.Episode`, which the environment wraps: an observation is the agent's view encoded
(`environments.Encoding`) and an `action_mask` over the action ids (`environments.decision`);
rewards come at the end only (`environments.returns`), and a match still going after
`max_game_length` decisions is truncated.
"""
from __future__ import annotations

import random
from pathlib import PurePath

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rulelang.table.terminal import table_text
from rulelang.tools.environments import (DEFAULT_BOARD_RADIUS, DEFAULT_MAX_GAME_LENGTH, DEFAULT_NUM_ACTIONS, HIGH, LOW,
                                         NO_DECISION, Episode, Rules, load_rules_game, player_count)


def env(path_or_bundled_name, variant=None, players: int | None = None, settings: dict | None = None, **options):
    """The rules as a PettingZoo AEC environment (`raw_env` in PettingZoo's order-enforcing wrapper).
    `options`: num_actions, max_game_length, board_radius, render_mode, render_seat, seed."""
    return wrappers.OrderEnforcingWrapper(raw_env(path_or_bundled_name, variant, players, settings, **options))


class raw_env(AECEnv):
    """A .rules game as a PettingZoo AEC environment (see the module's doc)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "rulelang_v0", "is_parallelizable": False}

    def __init__(self, path_or_bundled_name, variant=None, players: int | None = None, settings: dict | None = None,
                 *, num_actions: int = DEFAULT_NUM_ACTIONS, max_game_length: int = DEFAULT_MAX_GAME_LENGTH,
                 board_radius: int = DEFAULT_BOARD_RADIUS, render_mode: str | None = None,
                 render_seat: int | None = None, seed: int | None = None):
        super().__init__()
        game = load_rules_game(path_or_bundled_name, variant, settings)
        n = player_count(game, players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.game, self.players, self.rules = game, n, Rules(game, n)
        self.num_actions, self.max_game_length = int(num_actions), int(max_game_length)
        self.board_radius = board_radius
        self.encoding = self.rules.encoding(board_radius)
        self.render_mode, self.render_seat = render_mode, render_seat
        self.metadata = {**self.metadata, "name": f"rulelang_{PurePath(game.path).stem}"}
        self.possible_agents = [f"player_{seat}" for seat in range(n)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        box = spaces.Box(LOW, HIGH, (self.encoding.size,), np.float32)
        mask = spaces.Box(0, 1, (self.num_actions,), np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._seeds = random.Random(seed)
        self.episode: Episode | None = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---- playing
    @property
    def match(self):
        """The rulelang `Match` (None before the first reset)."""
        return self.episode.match if self.episode is not None else None

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._seeds = random.Random(seed)
            match_seed = int(seed)
        else:
            match_seed = self._seeds.randrange(2**31)
        self.episode = Episode(self.rules, match_seed, self.num_actions, self.max_game_length,
                               self.game.new_match(players=self.players, seed=match_seed))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._end_if_over()
        self.agent_selection = self.possible_agents[self.match.to_move if not self.match.is_over else 0]

    def legal_actions(self) -> list[int]:
        """The action ids the agent choosing may take now."""
        return list(self._current().ids)

    def action_label(self, action: int) -> str:
        """An action id's option as the agent choosing sees it."""
        return self._current().labels[int(action)]

    def _current(self):
        return self.episode.decision() if self.episode is not None else NO_DECISION

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.episode.play(action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._end_if_over()
        seat = self.match.to_move if self.match.to_move is not None else (self._seats[agent] + 1) % self.players
        self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_if_over(self):
        if self.match.is_over:
            self.rewards.update(zip(self.possible_agents, self.episode.returns()))
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.episode.truncated:
            self.truncations = dict.fromkeys(self.agents, True)

    # ---- seeing
    def observe(self, agent):
        seat = self._seats[agent]
        mask = np.zeros(self.num_actions, np.int8)
        if agent == self.agent_selection:
            mask[list(self._current().ids)] = 1
        return {"observation": self.episode.vector(seat, self.board_radius), "action_mask": mask}

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (\"human\" or \"ansi\")")
            return None
        over = self.episode.over  # (then drawn as a watcher sees it)
        seat = self.render_seat if self.render_seat is not None else -1 if over else self.match.to_move
        text = table_text(self.match, seat)
        if self.render_mode == "ansi":
            return text
        print(text, end="")
        return None

    def close(self):
        pass
