"""Every .rules file as an OpenSpiel game (a pyspiel game written in Python): `load_game(path or
bundled name, variant=None, players=None, settings=None, **parameters)`, described for users in
docs/environments.md (parameters, chance, observations, serialization).

A game is registered under a short name of its own (one per rules text, variant, settings and
number of players). A game whose rules use chance starts with one explicit chance node whose
outcomes are the match's seed; all later chance comes from the match's own seeded generator. Nobody
observes the seed, so such a game is of imperfect information even without hidden cards.

A state plays an `environments.Episode` (the match, the turn, the action ids, the views, the
end and the returns, as PettingZoo's environment does); it adds OpenSpiel's chance node, the
information state and copies that share the match until one of them moves on.
The information state of a seat is its view (`visibility.player_view`) with a digest of every move
as that seat saw it made (`visibility.move_label`) and of its own view at each of its choices:
perfect recall, never more than the seat may see. `clone()` copies with `Match.clone()`;
`serialize()` pickles the match's JSON save, so another process needs `load_game` called first.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import PurePath

import numpy as np
import pyspiel

from rulelang.tools.environments import (DEFAULT_BOARD_RADIUS, DEFAULT_MAX_GAME_LENGTH, DEFAULT_NUM_ACTIONS, Encoding,
                                         Episode, Rules, load_rules_game, player_count)
from rulelang.engine.runtime import Game
from rulelang.engine.visibility import move_label

#: the lines of the log that a seat's view shows, and a copy of a match keeps
VIEWED_LOG = 20

#: the chance outcomes (seeds) of a game with chance, unless asked otherwise
DEFAULT_SEEDS = 1000

PARAMETERS = {"num_actions": DEFAULT_NUM_ACTIONS, "seeds": DEFAULT_SEEDS,
              "max_game_length": DEFAULT_MAX_GAME_LENGTH, "board_radius": DEFAULT_BOARD_RADIUS}

_GAMES: dict[str, "_Rules"] = {}  # short name -> the rules registered under it (this process)


class _Rules(Rules):
    """One registered game (`environments.Rules`), shared by every state of the game: copied and
    pickled as its short name."""

    def __init__(self, short_name: str, game: Game, players: int):
        super().__init__(game, players)
        self.short_name = short_name

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_rules_named, (self.short_name,))


def _rules_named(short_name: str) -> _Rules:
    try:
        return _GAMES[short_name]
    except KeyError:
        raise ValueError(f"{short_name} is not loaded in this process: call rulelang.openspiel.load_game "
                         "with the same file, variant, settings and players first") from None


def short_name(game: Game, players: int) -> str:
    """The name a game is registered under: the file's stem and a digest of the rules text, the
    variants, the settings and the number of players."""
    stem = re.sub(r"[^a-z0-9]+", "_", PurePath(game.path).stem.lower()).strip("_")
    digest = hashlib.sha256(f"{game.fingerprint}|{players}".encode()).hexdigest()[:10]
    return f"rulelang_{stem or 'game'}_{digest}"


def load_game(path_or_bundled_name, variant=None, players: int | None = None, settings: dict | None = None,
              **parameters) -> pyspiel.Game:
    """The rules as a pyspiel game (see the module's doc); `parameters` are OpenSpiel's
    (num_actions, seeds, max_game_length, board_radius)."""
    game = load_rules_game(path_or_bundled_name, variant, settings)
    n = player_count(game, players)
    unknown = set(parameters) - set(PARAMETERS)
    if unknown:
        raise ValueError(f"unknown parameter {', '.join(sorted(unknown))} (known: {', '.join(PARAMETERS)})")
    name = short_name(game, n)
    if name not in _GAMES:
        register(name, game, n)
    return pyspiel.load_game(name, {k: int(v) for k, v in parameters.items()})


def register(name: str, game: Game, players: int) -> None:
    rules = _Rules(name, game, players)
    facts = rules.facts
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"{game.title} ({', '.join(game.variants) or 'base game'}, {players} players, rulelang)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if facts.chance
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if facts.chance or facts.hidden
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(PARAMETERS))
    _GAMES[name] = rules
    # registered as a class of its own, as OpenSpiel's Python games are: pyspiel keeps the function
    # that makes the game until the process ends, and a class outlives the interpreter's shutdown
    made = type(f"RulesGame_{name}", (RulesGame,), {"_rules": rules, "_game_type": game_type,
                                                     "__module__": __name__})
    pyspiel.register_game(game_type, made)


class RulesGame(pyspiel.Game):
    """A .rules game for OpenSpiel (made by `load_game`)."""

    _rules: _Rules
    _game_type: object

    def __init__(self, params=None):
        rules, game_type = self._rules, self._game_type
        values = {**PARAMETERS, **{k: int(v) for k, v in (params or {}).items()}}
        self.num_actions = values["num_actions"]
        self.seeds = values["seeds"] if rules.facts.chance else 0
        self.max_length = values["max_game_length"]
        self.board_radius = values["board_radius"]
        if self.num_actions < 1 or self.max_length < 1 or self.board_radius < 0 or (rules.facts.chance and self.seeds < 1):
            raise ValueError(f"parameters out of range: {values}")
        info = pyspiel.GameInfo(
            num_distinct_actions=self.num_actions,
            max_chance_outcomes=self.seeds,
            num_players=rules.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=self.max_length)
        super().__init__(game_type, info, values)
        self.rules = rules

    def new_initial_state(self, state=None):
        if state is not None:
            raise ValueError("a rulelang game starts only from its beginning (deserialize a saved state instead)")
        return RulesState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return ViewObserver(self, iig_obs_type, params)

    def encoding(self) -> Encoding:
        """The layout of the observation tensor (`environments.Encoding`)."""
        return self.rules.encoding(self.board_radius)


class _Position(Episode):
    """A state's episode and what each seat saw happen (a digest per seat, the last one for a
    watcher). Copied with `Match.clone()`, pickled as the match's JSON save."""

    __slots__ = ("_sharing", "digests", "_texts", "_text")

    def __init__(self, rules: _Rules, seed: int | None, num_actions: int, max_length: int, match=None,
                 decisions: int = 0, truncated: bool = False, digests=None):
        super().__init__(rules, seed, num_actions, max_length, match, decisions, truncated)
        # the positions sharing this one's match (a copy shares it until one of them moves on)
        self._sharing = [1]
        self.digests = digests if digests is not None else ("",) * (rules.players + 1)

    def _forget(self):
        super()._forget()
        self._texts, self._text = {}, None

    def _own_match(self):
        """The match, this position's alone (copied first if another position shares it)."""
        if self._sharing[0] > 1:
            self._sharing[0] -= 1
            self._match = self._match.clone()
            self._sharing = [1]
        return self.match

    def view_text(self, seat: int) -> str:
        found = self._texts.get(seat)
        if found is None:
            found = self._texts[seat] = json.dumps(self.view(seat), sort_keys=True, separators=(",", ":"), default=str)
        return found

    def apply(self, option_index: int):
        match = self._own_match()
        raw = match.legal_options()[option_index].raw
        mover = match.to_move
        if self.rules.facts.hidden:  # each seat sees the move as it may; the mover remembers what it saw
            seats = list(range(self.rules.players)) + [-1]
            seen = _chain("", self.view_text(mover))
            self.digests = tuple(_chain(d, (f"seeing {seen}, " if seat == mover else "")
                                        + f"Player {mover + 1}: {move_label(match.s, raw, seat)}")
                                 for d, seat in zip(self.digests, seats))
        else:  # nothing is hidden: every seat sees the move as its chooser does
            line = f"Player {mover + 1}: {move_label(match.s, raw, mover)}"
            self.digests = tuple(_chain(d, line) for d in self.digests)
        super().apply(option_index)

    def __deepcopy__(self, memo):
        # the same position: the match is shared (copied when one of them moves on), and what was
        # worked out of it stays true (it is never changed in place)
        new = _Position.__new__(_Position)
        for name in Episode.__slots__ + _Position.__slots__:
            setattr(new, name, getattr(self, name))
        if self._match is not None:
            self._sharing[0] += 1
        return new

    def __reduce__(self):
        save = json.dumps(self._match.to_json()) if self._match is not None else None
        return (_position_from_save, (self.rules.short_name, self.seed, self.num_actions, self.max_length, save,
                                      self.digests, self.decisions, self.truncated))


def _position_from_save(short_name, seed, num_actions, max_length, save, digests, decisions, truncated) -> _Position:
    rules = _rules_named(short_name)
    match = rules.game.match_from_json(save) if save is not None else None
    return _Position(rules, seed, num_actions, max_length, match, decisions, truncated, tuple(digests))


def _chain(digest: str, line: str) -> str:
    return hashlib.blake2b((digest + "\n" + line).encode("utf-8"), digest_size=16).hexdigest()


class RulesState(pyspiel.State):
    """A match of a .rules game, as OpenSpiel sees it."""

    def __init__(self, game: RulesGame):
        super().__init__(game)
        self._seeds = game.seeds
        self._position = _Position(game.rules, None if game.rules.facts.chance else 0, game.num_actions,
                                   game.max_length)

    # ---- what the rules give
    @property
    def match(self):
        """The rulelang `Match` (None before the chance node's seed is drawn)."""
        return self._position.match

    def current_player(self):
        pos = self._position
        if pos.seed is None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if pos.over else pos.to_move

    def _legal_actions(self, player):
        return list(self._position.decision().ids)

    def chance_outcomes(self):
        return [(seed, 1.0 / self._seeds) for seed in range(self._seeds)]

    def _apply_action(self, action):
        pos = self._position
        if pos.seed is None:
            pos.draw_seed(action)
        else:
            pos.play(action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        label = self._position.decision().labels.get(action)
        return label if label is not None else f"action {action}"

    def is_terminal(self):
        return self._position.over

    def returns(self):
        return self._position.returns()

    def __str__(self):
        pos = self._position
        if pos.seed is None:
            return "the seed is not drawn yet"
        if pos._text is None:
            m = pos.match
            s = m.s
            head = (f"{m.game.title}, seed {pos.seed}, decision {pos.decisions}, round {s.round}, phase {s.phase}: "
                    + ("cut short" if pos.truncated else f"over, winners {m.result['winners']}" if m.is_over
                       else f"Player {m.to_move + 1} to choose ({m.prompt or 'choose'})"))
            data = m.to_json()
            data["log"] = data["log"][-VIEWED_LOG:]  # (a copy keeps the last lines only: those the views show)
            save = hashlib.blake2b(json.dumps(data, sort_keys=True).encode("utf-8"), digest_size=16).hexdigest()
            pos._text = f"{head}\nsave {save}"
        return pos._text

    def option_action(self, option_index: int) -> int:
        """The action id of `match.legal_options()[option_index]` (for a rulelang agent's answer)."""
        return self._position.decision().action_of(self.match, option_index)

    # ---- a state the player cannot tell from this one
    def resample(self, player: int, seed: int | None = None) -> "RulesState":
        """A copy in which the cards `player` cannot see are dealt again among the places it cannot
        see and chance is seeded anew (`Match.sample_for`): for information-set search, e.g.
        `ISMCTSBot.set_resampler(lambda state, player: state.resample(player))`."""
        new = self.clone()
        pos = new._position
        if pos.seed is not None and not pos.over:
            rng = random.Random(seed)
            pos._match, pos._sharing = pos.match.sample_for(player, rng), [1]
            own = pos.digests[player]
            pos.digests = tuple(own if i == player else _chain(own, f"imagined by Player {player + 1}")
                                for i in range(len(pos.digests)))
            pos._forget()
        return new


class ViewObserver:
    """OpenSpiel's observer of a .rules game: strings and tensors from a seat's view only (an observer
    of public information sees as a watcher does; none sees every seat's private cards)."""

    def __init__(self, game: RulesGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; given {params}")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        private = iig_obs_type.private_info if iig_obs_type is not None else pyspiel.PrivateInfoType.SINGLE_PLAYER
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("a rulelang game shows each seat only what it may see: no observer sees every seat's cards")
        self.watcher = private == pyspiel.PrivateInfoType.NONE
        self.game = game
        if self.perfect_recall or self.watcher:
            self.tensor, self.dict = None, {}
        else:
            self.tensor = np.zeros(game.encoding().size, np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state: RulesState, player: int):
        if self.tensor is not None:
            state._position.vector(player, self.game.board_radius, self.tensor)

    def string_from(self, state: RulesState, player: int) -> str:
        pos = state._position
        if pos.seed is None:
            return "the seed is not drawn yet"
        seat = -1 if self.watcher else player
        text = pos.view_text(seat)
        return f"seen {pos.digests[seat]} after {pos.decisions} moves\n{text}" if self.perfect_recall else text
