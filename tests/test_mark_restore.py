"""Match.mark and Match.restore: options tried one after another on one match, put back as it was
after each (the greedy bot's search), give what the same options give on copies."""

import pytest

import rulelang
from rulelang.bots.valuation import position_value
from rulelang.core.resources import games_dir
from rulelang.engine.visibility import option_keys
from conftest import seeded_positions


def _positions(game, every: int):
    return seeded_positions(game, every, seed=4)


def _dump(match) -> dict:
    """Everything a save holds, and the options in their chooser's words."""
    data = match.to_json()
    data["options"] = sorted(option_keys(match.s).items())
    return data


@pytest.mark.parametrize("name", ["zemico", "survivors", "splicers", "ecogon", "evacuation", "examples/dominoes"])
def test_restore_puts_the_match_back_and_trials_match_copies(name):
    from rulelang.core.resources import examples_dir

    folder, name = (examples_dir(), name.split("/")[1]) if "/" in name else (games_dir(), name)
    game = rulelang.load(str(folder / f"{name}.rules"))
    tried = 0
    for world in _positions(game, every=12 if folder == games_dir() else 3)[:8]:  # (an example's game is short)
        seat = world.to_move
        before = _dump(world)
        for other in range(2):  # values remembered when marked are kept by every restore (as greedy does)
            world.heuristic(other)
        mark = world.mark()
        for index in list(option_keys(world.s).values())[:10]:
            copy = world.clone(answer=index)
            copy.try_option(0)
            world.try_option(index)
            assert position_value(world, seat) == position_value(copy, seat)
            world.restore(mark)
            assert _dump(world) == before
            tried += 1
        # and it plays on as a copy would
        follow = world.clone()
        world.apply(0)
        follow.apply(0)
        assert _dump(world) == _dump(follow)
    assert tried >= 20


_PILE = '''
game "Pile" {
  players 2
  turn order clockwise
  round: play
}
component Chip {
  value: int
}
cards chips { Chip(value: 1) * 3 Chip(value: 2) * 3 Chip(value: 3) * 2 }
zone pile hidden
zone spare
player {
  score: int = 0
}
setup {
  create chips in pile
  reveal top(pile) to player(1)
  turn top(spare) face down
}
phase play {
  take turns from player(1) once {
    choose {
      option mix { shuffle pile
                   current.score += 1 }
      option take { move top(pile) to spare
                    current.score += top(spare).value }
      option show { reveal top(pile) }
      option peek { reveal top(pile) to current }
      option forget { hide pile }
      option down { move top(pile) to spare
                    turn spare face down }
      option up { turn pile face up
                  shuffle pile
                  hide top(pile) }
      option all { shuffle pile
                   reveal pile to current
                   turn top(pile) face down
                   move top(pile) to spare
                   turn top(spare) face up }
      option tag { top(pile).score = 3 }
    }
    if round >= 3 { end game }
  }
}
result {
  let most = max(p.score for p in players)
  win [p in players where p.score == most]
}
'''


def _table(match) -> tuple:
    """The cards where they lie, face up or down, who has seen each, and the players' fields: what a
    match stopped by try_option (its options not listed) can be compared by."""
    s = match.s
    return ({key: [e.id for e in zone.items] for key, zone in s.zones.items()},
            [(e.id, e.face_down, sorted(e.known), e.owner, e.attrs) for e in s.entities],
            [p.attrs for p in s.players], s.rng.getstate())


def test_shuffle_reveal_hide_and_turn_are_put_back_from_the_journal():
    """A shuffle (a zone's order), a reveal, a hide and a turn face up or down (a card's face and who
    has seen it) are recorded as they happen: restore puts back just what they changed (no change of
    the version unaccounted for), the match is as it was, and each trial is what a copy gives."""
    game = rulelang.load("pile.rules", text=_PILE)
    tried = recorded = 0
    for seed in (7, 8):
        match = game.new_match(players=2, seed=seed)
        for _ in range(3):  # a few positions into the game
            if match.is_over:
                break
            before = _dump(match)
            mark = match.mark()
            for index in range(match.option_count()):
                copy = match.clone(answer=index)
                copy.try_option(0)
                match.try_option(index)
                s = match.s
                assert s.version - mark.scalars[6] == s.journal.changes  # every change recorded
                recorded += s.journal.changes
                assert _table(match) == _table(copy)
                match.restore(mark)
                assert _dump(match) == before
                tried += 1
            match.apply(seed % match.option_count())
    assert tried >= 40 and recorded >= 80


@pytest.mark.parametrize("name", ["tictactoe", "connect4", "eights", "gofish", "highcard", "skirmish", "checkers",
                                  "othello", "dominoes"])
def test_greedy_decides_alike_putting_back_or_copying(name):
    """Greedy trying options on one marked copy makes the decisions it makes with a copy per option."""
    from rulelang.bots.agents import AgentHandle, GreedyAgent
    from rulelang.core.resources import examples_dir

    game = rulelang.load(str(examples_dir() / f"{name}.rules"))
    players = max(2, game.program.game.players_min)
    games = []
    for put_back in (True, False):
        chosen = []
        for seed in (1, 2, 3):
            match = game.new_match(players=players, seed=seed)
            bots = [GreedyAgent(seed=seed * 10 + i) for i in range(players)]
            for bot in bots:
                bot.put_back = put_back
            while not match.is_over and len(chosen) < 40 * seed:
                seat = match.to_move
                index = bots[seat].choose(AgentHandle(match, seat), match.legal_options())
                chosen.append(index)
                match.apply(index)
        games.append(chosen)
    assert games[0] == games[1]
    assert len(games[0]) >= 15
