"""Zemico's base game written by hand in plain, fast Python: the reference for `games/zemico.rules`.

It plays the same rules as the rules file with its default settings (stored energy capped by the
environment, a skip is final, a starving consumer survives when its food was eaten earlier in the
step, the decomposer step judges a card's point in this stage, ties among achievers) and 4 players,
every decision taken uniformly at random among the same legal options the rules file offers:

- setup: shuffle the decks, draw the environment, each player keeps one of three missions, draws
  4 organisms; a random first player;
- change of cards (not in round 1), in turn from the first player, counterclockwise: discard cards
  one at a time (or stop), then draw up to 4;
- planning: place a card from hand on the desk (the centre first, then any empty cell next to a
  card) or skip, until every player has skipped (a skip is final);
- survival: the player with the fewest cards acts (ties: the first player picks); energy; the
  herbivores then the carnivores eat (the actor orders them and spreads each meal); decomposers;
  the actor becomes the first player;
- the game ends after a round in which the organism deck is empty, or nothing was placed or
  drawn, or after round 60; the achiever of a mission wins (ties: the highest mission), nobody
  wins unless every type of organism is on the desk.

The desk is a flat list of cells (an open grid of 8 neighbours cannot grow past 52 cards from its
centre); the neighbour offsets are computed once, and the empty cells next to a card (where a card
may go) are kept up to date as cards come and go.
"""
from __future__ import annotations

import random

RULES = "zemico"
PLAYERS = 4

DECOMPOSER, PRODUCER, HERBIVORE, CARNIVORE = range(4)
KIND = tuple(i // 13 for i in range(52))  # organism card i: kind i // 13, point i % 13 + 1
POINT = tuple(i % 13 + 1 for i in range(52))
MAX_ROUNDS = 60

SIDE = 2 * 53 + 3  # the desk never reaches 53 cells away from its centre
ORIGIN = (SIDE // 2) * SIDE + SIDE // 2
NEIGHBOURS = (1, -1, SIDE, -SIDE, SIDE + 1, SIDE - 1, -SIDE + 1, -SIDE - 1)


def _achieved(mission: int, counts: list[int], total: int) -> bool:
    d, p, h, c = counts
    if mission == 1:
        return d >= 2
    if mission == 2:
        return p >= 3
    if mission == 3:
        return h >= 2
    if mission == 4:
        return c >= 2
    if mission == 5:
        return total >= 8
    if mission == 6:
        return p > h > c >= 1
    if mission == 7:
        return d >= 3
    if mission == 8:
        return p >= 4 and h >= 3
    if mission == 9:
        return c >= 3
    if mission == 10:
        return total >= 12
    if mission == 11:
        return min(counts) >= 2
    if mission == 12:
        return min(counts) >= 3
    return total >= 16


def playout(rng: random.Random, players: int = PLAYERS) -> tuple[list[int], int]:
    """One game between uniform-random players: (winners as 1-based seats, decisions)."""
    randrange = rng.randrange
    decisions = 0

    def pick(n: int) -> int:
        nonlocal decisions
        if n == 1:
            return 0
        decisions += 1
        return randrange(n)

    organism_deck = list(range(52))
    rng.shuffle(organism_deck)
    energy_deck = list(range(1, 14))
    rng.shuffle(energy_deck)
    environment_deck = list(range(1, 13))
    rng.shuffle(environment_deck)
    mission_deck = list(range(1, 14))
    rng.shuffle(mission_deck)
    environment = environment_deck.pop()
    missions = []
    for _ in range(players):
        offer = [mission_deck.pop() for _ in range(3)]
        missions.append(offer[pick(3)])
    hands = []
    for _ in range(players):
        hand = []
        for _ in range(4):
            hand.append(organism_deck.pop())
        hands.append(hand)
    first = randrange(players)

    occupant = [-1] * (SIDE * SIDE)  # the card on each cell, or -1
    touching = [0] * (SIDE * SIDE)  # how many occupied cells touch each cell
    frontier: set[int] = set()  # empty cells touching a card
    desk: list[int] = []  # the cards on the desk, in the order they were placed
    cell_of = [0] * 52
    current = list(POINT)
    energy_discard: list[int] = []
    stored = 0  # the energy card next to the environment card (0: none yet)

    def place(card: int, cell: int) -> None:
        occupant[cell] = card
        cell_of[card] = cell
        desk.append(card)
        frontier.discard(cell)
        for d in NEIGHBOURS:
            other = cell + d
            touching[other] += 1
            if occupant[other] < 0:
                frontier.add(other)

    def remove(card: int) -> None:
        cell = cell_of[card]
        occupant[cell] = -1
        desk.remove(card)
        for d in NEIGHBOURS:
            other = cell + d
            touching[other] -= 1
            if not touching[other] and occupant[other] < 0:
                frontier.discard(other)
        if touching[cell]:
            frontier.add(cell)

    def neighbours_of_kind(card: int, kind: int) -> list[int]:
        cell = cell_of[card]
        out = []
        for d in NEIGHBOURS:
            other = occupant[cell + d]
            if other >= 0 and KIND[other] == kind:
                out.append(other)
        return out

    def feed(eater: int, food: int, actor: int) -> None:
        for h in [h for h in desk if KIND[h] == eater and not neighbours_of_kind(h, food)]:
            remove(h)
        order = [h for h in desk if KIND[h] == eater]
        while order:
            h = order.pop(pick(len(order)))
            meal = neighbours_of_kind(h, food)
            if not meal:
                continue  # its food was eaten earlier in this step: it survives
            if sum(current[f] for f in meal) >= POINT[h]:
                for _ in range(POINT[h]):
                    fed = [f for f in meal if current[f] > 0]
                    current[fed[pick(len(fed))]] -= 1
            else:
                for f in meal:
                    remove(f)

    rounds = 0
    while True:
        rounds += 1
        deck_at_round_start = len(organism_deck)
        placed = 0
        if rounds > 1:  # change of cards
            for k in range(players):
                hand = hands[(first - k) % players]
                while hand:
                    i = pick(len(hand) + 1)
                    if i == len(hand):
                        break
                    hand.pop(i)
                while len(hand) < 4 and organism_deck:
                    hand.append(organism_deck.pop())
        # planning
        passed = [False] * players
        seat = first
        while not all(passed):
            while passed[seat]:
                seat = (seat - 1) % players
            hand = hands[seat]
            cells = list(frontier) if desk else [ORIGIN]
            n = len(hand) * len(cells)
            i = pick(n + 1)
            if i == n:
                passed[seat] = True
            else:
                place(hand.pop(i // len(cells)), cells[i % len(cells)])
                placed += 1
            seat = (seat - 1) % players
        # survival
        fewest = min(len(h) for h in hands)
        candidates = [p for p in range(players) if len(hands[p]) == fewest]
        actor = candidates[pick(len(candidates))]
        for c in desk:
            current[c] = POINT[c]
        if not energy_deck:
            energy_deck, energy_discard = energy_discard, []
            rng.shuffle(energy_deck)
        drawn = energy_deck.pop()
        energy = drawn + min(stored, environment)
        for c in desk:
            if KIND[c] == PRODUCER:
                current[c] = min(energy, POINT[c])
        if stored:
            energy_discard.append(stored)
        stored = drawn
        feed(HERBIVORE, PRODUCER, actor)
        feed(CARNIVORE, HERBIVORE, actor)
        for d in [d for d in desk if KIND[d] == DECOMPOSER
                  and not any(occupant[cell_of[d] + o] >= 0 and KIND[occupant[cell_of[d] + o]] != DECOMPOSER
                              for o in NEIGHBOURS)]:
            remove(d)
        for c in [c for c in desk if KIND[c] != DECOMPOSER
                  and sum(POINT[d] for d in neighbours_of_kind(c, DECOMPOSER)) < current[c]]:
            remove(c)
        first = actor
        if not organism_deck or (placed == 0 and len(organism_deck) == deck_at_round_start) or rounds >= MAX_ROUNDS:
            break

    counts = [0, 0, 0, 0]
    for c in desk:
        counts[KIND[c]] += 1
    if min(counts) == 0:
        return [], decisions
    achievers = [p for p in range(players) if _achieved(missions[p], counts, len(desk))]
    if len(achievers) == 1:
        return [achievers[0] + 1], decisions
    pool = achievers if achievers else list(range(players))
    best = max(missions[p] for p in pool)
    return [p + 1 for p in pool if missions[p] == best], decisions
