"""The greedy bot: one ply, the position after each option valued by the rules (not timed)."""
import rulelang
from rulelang.bots.agents import AgentHandle, GreedyAgent, RandomAgent, make_agent

#: A symmetric race: gain 1 or 2 points, or knock every other player back 3; 10 points win.
RACE = '''
game "Race" {
  players 2..4 default 2
  turn order clockwise
  round: play
}

player {
  score: int = 0
}

phase play {
  take turns from player(1) once {
    choose as "Your move" {
      option gain_one { current.score = current.score + 1 }
      option gain_two { current.score = current.score + 2 }
      option knock_back {
        for each p in players where p != current { p.score = p.score - 3 }
      }
    }
    if current.score >= 10 { win current; end game }
  }
  if round >= 30 { end game }
}
'''

HEURISTIC = "def heuristic(p) = p.score\n"


def load(text):
    return rulelang.load("race.rules", text=text)


def choice(game, seat, scores, seed=0, players=2):
    """The option name greedy picks in seat `seat` when the players have these scores, at its turn."""
    match = game.new_match(players=players, seed=seed)
    while match.to_move != seat:
        match.apply(0)
    for p, score in zip(match.s.players, scores):
        p.attrs["score"] = score
    options = match.legal_options()
    return options[GreedyAgent(seed).choose(AgentHandle(match, seat), options)].name


def test_it_takes_a_winning_move_over_a_bigger_lead():
    game = load(RACE + HEURISTIC)
    # knocking back gives the bigger lead (3), but gaining 2 wins at once
    assert {choice(game, 0, [8, 8], seed) for seed in range(5)} == {"gain_two"}
    # with no win in reach, the biggest lead: knock the other player back
    assert {choice(game, 0, [0, 0], seed) for seed in range(5)} == {"knock_back"}


def test_it_is_deterministic_per_seed():
    game = load(RACE + HEURISTIC)

    def decisions(seed):
        match = game.new_match(seed=seed)
        bots, made = [GreedyAgent(seed), RandomAgent(seed + 100)], []
        while not match.is_over:
            seat = match.to_move
            index = bots[seat].choose(AgentHandle(match, seat), match.legal_options())
            made.append(index)
            match.apply(index)
        return made

    assert [decisions(s) for s in range(4)] == [decisions(s) for s in range(4)]


def test_it_uses_the_heuristic_then_the_score_field():
    # the heuristic says fewer points are better: it gains as little as it can
    backwards = load(RACE + "def heuristic(p) = 0 - p.score\n")
    assert {choice(backwards, 0, [0, 0], seed) for seed in range(5)} == {"gain_one"}
    # no heuristic: the player field named score says who is ahead
    assert {choice(load(RACE), 0, [0, 0], seed) for seed in range(5)} == {"knock_back"}


def test_ties_are_broken_at_random():
    # a heuristic that sees no difference: every option is as good, the seed picks one
    flat = load(RACE.replace("score", "points") + "def heuristic(p) = 1\n")
    picked = set()
    for seed in range(20):
        match = flat.new_match(seed=seed)
        picked.add(GreedyAgent(seed).choose(AgentHandle(match, 0), match.legal_options()))
    assert picked == {0, 1, 2}


def test_its_choice_does_not_depend_on_its_seat():
    game = load(RACE + HEURISTIC)
    for players in (2, 3):
        for scores in ([0, 0, 0], [5, 2, 7], [8, 3, 3]):
            mine = scores[:players]
            for seat in range(players):
                # the same scores seen from every seat: its own first, the others after
                seen = mine[players - seat:] + mine[:players - seat]
                assert seen[seat] == mine[0]
                assert choice(game, seat, seen, players=players) == choice(game, 0, mine, players=players), \
                    (players, mine, seat)


def test_it_ends_ahead_of_random_from_either_seat():
    from rulelang.bots.agents import play_match

    game = load(RACE + HEURISTIC)
    ahead = [0, 0]
    for seed in range(10):
        for seat in (0, 1):
            bots = [make_agent("random", seed), make_agent("random", seed)]
            bots[seat] = make_agent("greedy", seed)
            match = game.new_match(seed=seed)
            play_match(match, bots)
            scores = [p.attrs["score"] for p in match.s.players]
            ahead[seat] += scores[seat] > scores[1 - seat] or seat in match.s.winners
    assert ahead == [10, 10], ahead


def test_a_game_saying_nothing_of_who_is_ahead_gets_a_hint():
    from rulelang.check.hints import bot_hint
    from rulelang.language.parser import parse_text as parse

    assert bot_hint(parse(RACE.replace("score", "points"), "race.rules")) is not None
    assert bot_hint(parse(RACE, "race.rules")) is None
    assert bot_hint(parse(RACE.replace("score", "points") + HEURISTIC.replace("score", "points"), "race.rules")) is None
