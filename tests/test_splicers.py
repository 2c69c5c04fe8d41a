"""Splicers (games/splicers.rules): what designer scenarios cannot say.

* hidden information: the view handed to an agent (`match.view(seat)`, and the option labels
  when that seat chooses) never holds a card the rules hide from that seat;
* probe shows a card to the prober alone; the face-down event is seen by nobody;
* the other readings of the rulebook's contradictions (settings), run through the same
  scenario files;
* the keywords: every rulebook keyword is declared with its definition, every one is on a card,
  and the passive ones are counted as used;
* the decks, the mulligan, save and resume, and whole games with bots.

Rulebook: Splicers Rules 0.2a (shared/seeds/003_26999bc934add495.txt).
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import rulelang
from rulelang.language import nodes as N
from rulelang.language.parser import parse_file, parse_text
from rulelang.engine.visibility import visible
from rulelang.tools.scenario import ScenarioRunner, run_file

REPO = Path(__file__).resolve().parent.parent
GAME = REPO / "games" / "splicers.rules"
SCENARIOS = REPO / "tests" / "scenarios" / "splicers"

COMMON = ["plus", "minus", "close", "distant", "enemy", "friendly", "devolve", "req", "dominating", "probe",
          "revive", "backup", "bounce", "moulder"]
TING = ["hunt", "evade", "extinguish", "expensive", "graze", "harvest", "roam"]
EVENT = ["crunch", "season"]
ADVANCED = ["farsight", "diminish", "upgrade", "willpower", "shockwave", "jumper", "abomination"]
# keywords that are relations or rules rather than printed abilities: the rules use them
RELATIONS = {"close", "distant", "enemy", "friendly", "devolve", "dominating"}

_GAMES: dict = {}


def game(variant: str | None = None, **settings) -> rulelang.engine.runtime.Game:
    key = (variant, tuple(sorted(settings.items())))
    if key not in _GAMES:
        _GAMES[key] = rulelang.load(str(GAME), variant=variant, settings=settings or None)
    return _GAMES[key]


def position(body: str, variant: str | None = None, seed: int = 0):
    """A match at a scenario position (the scenario runner's own machinery)."""
    text = f'scenario "t" {{\n  game "{GAME}"\n' + (f"  variant {variant}\n" if variant else "") + \
        f"  seed {seed}\n  position {{\n{body}\n  }}\n  expect true\n}}\n"
    sc = [d for d in parse_text(text, "inline.rules").decls if isinstance(d, N.ScenarioDecl)][0]
    cache = {(str(GAME.resolve()), (variant,) if variant else ()): game(variant)}
    match = ScenarioRunner(sc, REPO, cache).build()
    match.vm.run()
    return match


def pick(match, label: str):
    """Answer the pending choice with the option of this exact label."""
    options = match.legal_options()
    found = [o for o in options if o.label == label]
    assert found, f"{label!r} is not one of {[o.label for o in options]}"
    match.apply(found[0])


def card(match, name: str):
    return next(e for e in match.s.entities if e.attrs.get("name") == name)


def names_in(view) -> str:
    return json.dumps(view)


# ------------------------------------------------------------------ hidden information


def hidden_from(match, seat: int) -> list:
    """The opponent's cards the rules hide from `seat` now: hand, deck, face-down cards in play, the
    face-down event; not the ones shown to `seat` (probe, willpower)."""
    s = match.s
    opp = 1 - seat
    out = []
    for e in s.entities:
        if e.owner != opp or e.zone is None or seat in e.known:
            continue
        key = e.zone.key
        if key in (f"hand#{opp + 1}", f"deck#{opp + 1}", "event_slot") or (key.startswith("field#") and e.face_down):
            out.append(e)
    return out


def play_and_check_views(variant, seed):
    """A random game; at every decision both views (and the chooser's option labels) are searched
    for the name of each hidden card of the opponent that the seat never saw before."""
    match = game(variant).new_match(seed=seed)
    rng = random.Random(seed)
    seen = [set(), set()]  # names each seat has been able to see at some point
    checked = 0
    while not match.is_over:
        for seat in (0, 1):
            for e in match.s.entities:
                if e.zone is not None and visible(e, seat):
                    seen[seat].add(e.attrs["name"])
        # a ting evolved and devolved again within one action (a requirement) was face up for
        # everyone in between, though no decision saw it
        for line in match.s.log:
            for pattern in (r" evolves (.+)$", r"^(.+) is devolved$"):
                found = re.search(pattern, line)
                if found:
                    seen[0].add(found.group(1))
                    seen[1].add(found.group(1))
        for seat in (0, 1):
            text = names_in(match.view(seat))
            if match.to_move == seat:
                text += json.dumps([o.label for o in match.legal_options()])
            for e in hidden_from(match, seat):
                name = e.attrs["name"]
                assert not visible(e, seat)
                if name not in seen[seat]:
                    assert name not in text, (f"seat {seat + 1} can read the hidden {name} "
                                              f"({e.zone.key}) in round {match.s.round}")
                    checked += 1
        match.apply(rng.randrange(match.option_count()))
    return checked


@pytest.mark.parametrize("variant", [None, "advanced"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_views_hold_no_hidden_card_of_the_opponent(variant, seed):
    """ "Face down cards in play may only be looked at by their owner." Hands and decks are hidden;
    "The number of cards left in a deck, as well as the number of cards in hand is also public"."""
    assert play_and_check_views(variant, seed) > 100


def test_hand_and_deck_sizes_and_discard_piles_are_public():
    """ "All face up cards (including discard pile) are public information and may be looked at at
    any time. The number of cards left in a deck, as well as the number of cards in hand is also
    public inormation." """
    match = position("""
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 0: "Fen"
    hand of player 2: "Polyp", "Kelp Forest"
    discard of player 2: "Cull"
    field of player 2 at 0: "Razor Eel"
    set card_named("Razor Eel").face_down = true
    """)
    view = match.view(0)
    zones = view["zones"]
    assert zones["hand#2"]["count"] == 2 and "Polyp" not in names_in(view)
    assert zones["deck#2"]["count"] == len(match.s.zones["deck#2"].items) and "cards" not in zones["deck#2"]
    assert zones["discard#2"]["cards"][0]["card"] == "Cull"
    assert zones["field#2"]["cells"][0]["cards"] == [{"hidden": True, "face_down": True}]
    assert "Razor Eel" not in names_in(view)
    # the owner sees their own seed
    assert "Razor Eel" in names_in(match.view(1))


def test_the_face_down_event_is_seen_by_nobody_until_revealed():
    """ "Event cards are played face down. They are revealed (and their abilities trigger) at the end
    of a round before win conditions are checked." """
    match = position("""
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 0: "Fen"
    hand of player 1: "Crunch Beetles", "Reed Bed"
    hand of player 2: "Polyp"
    """)
    pick(match, "event Crunch Beetles")
    assert card(match, "Crunch Beetles").zone.key == "event_slot"
    for seat in (0, 1):
        slot = match.view(seat)["zones"]["event_slot"]
        assert slot["count"] == 1 and "cards" not in slot
        assert "Crunch Beetles" not in names_in(match.view(seat))
    pick(match, "seed Polyp, Fen")  # player 2's last turn; the round ends, the event is revealed
    assert card(match, "Crunch Beetles").zone.key == "discard#1"
    assert "Crunch Beetles" in names_in(match.view(1))


def test_probe_shows_the_card_to_the_prober_alone():
    """ "probe - look at face down or hidden card." """
    match = position("""
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 0: "Fen"
    bioms at 2: "Reef"
    field of player 1 at 0: "Owl Scout"
    field of player 2 at 2: "Razor Eel"
    set card_named("Razor Eel").face_down = true
    hand of player 2: "Polyp"
    """)
    eel = card(match, "Razor Eel")
    assert "Razor Eel" not in names_in(match.view(0))
    pick(match, "ability Owl Scout, probe")  # the only face-down card: chosen without asking
    assert eel.face_down and visible(eel, 0)
    assert "Razor Eel" in names_in(match.view(0))
    assert match.s.stats["probe"] == 1
    # it stays face down for everybody else: a third party would not see it (only two seats here),
    # and its owner keeps seeing it
    assert visible(eel, 1)


def test_probe_can_look_at_the_opponents_face_down_event():
    match = position("""
    round 2
    phase action_phase
    set first_player = player(2)
    bioms at 0: "Fen"
    field of player 1 at 0: "Owl Scout", "Fen Goat", "Reed Bed"
    hand of player 2: "Cull"
    """)
    pick(match, "event Cull")
    assert "Cull" not in names_in(match.view(0))
    pick(match, "ability Fen Goat, graze")  # two more actions: the round goes on after the probe
    pick(match, "ability Owl Scout, probe")
    assert card(match, "Cull").zone.key == "event_slot"
    assert "Cull" in names_in(match.view(0))
    assert "Cull" not in names_in(match.view(1))  # its owner does not see their face-down event


# ------------------------------------------------------------------ the other readings


@pytest.mark.parametrize("file, setting, value", [
    ("dominance.rules", "domination", "more_than"),
    ("dominance.rules", "domination", "at_least"),
    ("splicing.rules", "splice_to", "into_play"),
    ("splicing.rules", "splice_to", "to_hand"),
    ("readings.rules", "round_end", "at_first_pass"),
    ("readings.rules", "round_end", "after_reply"),
])
def test_scenarios_under_each_reading(file, setting, value):
    """The rulebook's contradictions (CONTRA-1, CONTRA-2, CONTRA-3): the same scenarios, written to
    hold under both readings, run with each setting."""
    cache = {(str(GAME.resolve()), ()): game(**{setting: value})}
    results = run_file(SCENARIOS / file, cache)
    failed = [f"{r.name}: {r.message}" for r in results if not r.passed]
    assert not failed, "\n".join(failed)


def test_exactly_the_value_dominates_only_under_at_least():
    """ "at least the amount dominance as a biom's dominance value" (keyword) against "more than the
    dominance value of the biom card" (biom section)."""
    body = """
    round 2
    phase end_of_round
    bioms at 0: "Fen"
    field of player 1 at 0: "Bog Wolf"
    """
    for value, dominated in (("at_least", True), ("more_than", False)):
        cache = {(str(GAME.resolve()), ()): game(domination=value)}
        text = f'scenario "t" {{ game "{GAME}"\n position {{ {body} }}\n run step domination\n' \
               f' expect (biom_named("Fen").dominated_by == player(1)) == {str(dominated).lower()} }}'
        sc = [d for d in parse_text(text, "inline.rules").decls if isinstance(d, N.ScenarioDecl)][0]
        result = ScenarioRunner(sc, REPO, cache).run()
        assert result.passed, f"{value}: {result.message}"


def test_the_settings_can_be_set_from_the_command_line(tmp_path):
    from rulelang.cli.main import main

    out = tmp_path / "sim.json"
    assert main(["simulate", str(GAME), "-n", "3", "--quiet", "--set", "domination=more_than",
                 "--set", "splice_to=into_play", "--set", "round_end=at_first_pass", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["games"] == 3


# ------------------------------------------------------------------ keywords and cards


def keyword_decls():
    rules = parse_file(GAME)
    base = {d.name: d for d in rules.decls if isinstance(d, N.KeywordDecl)}
    variant = rules.variants()["advanced"]
    advanced = {d.name: d for d in variant.items if isinstance(d, N.KeywordDecl)}
    return base, advanced


def test_every_rulebook_keyword_is_declared_with_its_definition():
    base, advanced = keyword_decls()
    for name in COMMON + TING + EVENT:
        assert name in base, f"keyword {name} is not declared in the base game"
    for name in ADVANCED:
        assert name in advanced and name not in base, f"keyword {name} belongs to the advanced variant"
    rulebook = (REPO.parent / "shared" / "seeds" / "003_26999bc934add495.txt")
    for name, decl in {**base, **advanced}.items():
        doc = " ".join(decl.doc)
        if name == "draw_cards":  # a card effect of the sample decks, not a rulebook keyword
            assert "Not a rulebook keyword" in doc
            continue
        assert doc.startswith('"'), f"keyword {name} does not quote the rulebook"
        if name in ("plus", "minus"):
            assert '"+X/-X - change the dominance value by X until the end of the round."' in doc
            assert "`plus(x)`" in doc and "`minus(x)`" in doc or "(`minus(x)` is -X.)" in doc
        elif name == "req":
            assert '"req. [gene] / [type]' in doc
        else:
            assert f'"{name} - ' in doc, f"keyword {name} does not quote its definition"
        if rulebook.exists() and name not in ("plus", "minus", "req"):
            quoted = doc.split('"')[1]
            text = rulebook.read_text(encoding="utf-8").replace("**", "")
            assert quoted in text, f"{name}: {quoted!r} is not the rulebook's text"


def printed_keywords(match) -> dict[str, set[str]]:
    """Keyword name -> the cards that carry it."""
    from rulelang.model.builtins import keywords_of

    out: dict[str, set[str]] = {}

    def walk(k, name):
        out.setdefault(k.name, set()).add(name)
        for a in k.args:
            if hasattr(a, "args") and hasattr(a, "name"):
                walk(a, name)

    for e in match.s.entities:
        for k in keywords_of(e):
            walk(k, e.attrs["name"])
    return out


def test_the_cards_carry_every_keyword():
    """Together the decks use every common keyword; the advanced game's cards every advanced one."""
    base = printed_keywords(game().new_match(seed=1))
    for name in set(COMMON + TING + EVENT) - RELATIONS:
        assert name in base, f"no base card carries {name}"
    adv = printed_keywords(game("advanced").new_match(seed=1))
    for name in ADVANCED:
        assert name in adv, f"no advanced card carries {name}"
        assert name not in base


@pytest.mark.parametrize("variant", [None, "advanced"])
def test_two_decks_of_at_least_18_cards(variant):
    """ "Every deck consists of at least 18 cards, including 1 Splicer card and 2 Biom cards. There
    can only be one copy of each card in the deck." """
    match = game(variant).new_match(seed=1)
    for seat in (0, 1):
        cards = [e for e in match.s.entities if e.owner == seat]
        assert len(cards) >= 18
        assert sum(e.card.component == "Splicer" for e in cards) == 1
        assert sum(e.card.component == "Biom" for e in cards) == 2
        kinds = {e.attrs.get("kind") for e in cards if e.card.component == "Card"}
        assert kinds == {"ting", "mutation", "event"}
    names = [e.attrs["name"] for e in match.s.entities]
    assert len(names) == len(set(names))  # one copy each, and no name shared by the two decks


def uses_after(match, labels: list[str]) -> dict:
    for label in labels:
        pick(match, label)
    return dict(match.s.stats)


def test_passive_keywords_are_counted_as_used():
    """`rulelang simulate` counts keyword uses: passive keywords too, not only `perform`ed ones."""
    # expensive, when the ting evolves
    m = position("""
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 1: "Thicket"
    field of player 1 at 1: "Fen Goat", "Bramble Wall", "Ancient Oak"
    set card_named("Ancient Oak").face_down = true
    """)
    assert uses_after(m, ["ability Fen Goat, graze", "evolve Ancient Oak"]).get("expensive") == 1
    # req (a continuous rule that acts) and devolve
    m = position("""
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 1: "Thicket"
    field of player 1 at 1: "Pond Crab"
    set card_named("Pond Crab").face_down = true
    hand of player 2: "Polyp"
    """)
    stats = uses_after(m, ["evolve Pond Crab"])
    assert stats.get("req") == 1 and stats.get("devolve") == 1
    # evade, when it turns a hunt away
    m = position("""
    round 2
    phase action_phase
    set first_player = player(2)
    bioms at 0: "Fen"
    field of player 2 at 0: "Razor Eel"
    field of player 1 at 0: "Marsh Hare", "Fen Goat"
    """)
    stats = uses_after(m, ["ability Razor Eel, hunt", "Fen Goat"])
    assert stats.get("evade") == 1 and stats.get("hunt") == 1 and stats.get("devolve") == 1
    # backup, when it saves a card from the discard pile
    m = position("""
    round 2
    phase end_of_round
    set first_player = player(1)
    bioms at 0: "Fen"
    field of player 1 at 0: "Moss Carpet"
    event_slot: "Cull"
    """)
    assert m.s.over is False and m.s.stats.get("backup") == 1 and m.s.stats.get("extinguish") == 1
    # season: performed when revealed, and its trigger when the next event is played
    m = position("""
    round 2
    phase action_phase
    set first_player = player(2)
    hand of player 2: "Cull"
    season_slot: "Long Drought"
    """)
    assert uses_after(m, ["event Cull"]).get("season") == 1


def test_advanced_passive_keywords_are_counted_as_used():
    m = position("""
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 0: "Fen"
    field of player 1 at 0: "Beetle Knight"
    set card_named("Beetle Knight").face_down = true
    field of player 2 at 0: "Sky Jelly", "Chimera"
    set card_named("Chimera").face_down = true
    hand of player 1: "Crunch Beetles"
    deck of player 1: "Reed Bed"
    deck of player 2: "Polyp"
    """, variant="advanced")
    # shockwave exhausts Sky Jelly; player 2 can only pass; player 1's event sets off farsight;
    # at the end of the round crunch discards the only seed, Chimera
    stats = uses_after(m, ["evolve Beetle Knight", "event Crunch Beetles"])
    assert stats.get("abomination") == 1  # Chimera began the round an unexhausted seed
    assert stats.get("shockwave") == 1
    assert stats.get("farsight") == 1 and stats.get("plus") == 1
    assert stats.get("crunch") == 1
    assert card(m, "Chimera").zone.key == "discard#2"
    # jumper: played (performed), then back to the hand (its trigger)
    m = position("""
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 0: "Fen"
    hand of player 1: "Seed Jumper"
    deck of player 1: "Reed Bed"
    deck of player 2: "Polyp"
    """, variant="advanced")
    stats = uses_after(m, ["play Seed Jumper, jumper"])
    assert stats.get("jumper") == 2
    assert card(m, "Seed Jumper").zone.key == "hand#1"


@pytest.mark.parametrize("variant", [None, "advanced"])
def test_keyword_uses_reach_the_result(variant):
    match = game(variant).new_match(seed=5)
    rng = random.Random(5)
    while not match.is_over:
        match.apply(rng.randrange(match.option_count()))
    uses = match.result["keyword_uses"]
    assert uses.get("dominating", 0) > 0


# ------------------------------------------------------------------ setup, saving, whole games


def test_mulligan_discards_and_draws_as_many():
    """ "When performing a mulligan, choose any number of cards and discard them, then draw that
    many cards from your deck." """
    match = game().new_match(seed=4)
    first = match.to_move
    hand = match.s.zones[f"hand#{first + 1}"]
    before = len(hand.items)
    deck_before = len(match.s.zones[f"deck#{first + 1}"].items)
    chosen = [o for o in match.legal_options() if o.label != "nothing"][:2]
    names = [o.label for o in chosen]
    pick(match, names[0])
    pick(match, names[1])
    pick(match, "nothing")
    assert len(hand.items) == before
    assert len(match.s.zones[f"deck#{first + 1}"].items) == deck_before - 2
    assert sorted(e.attrs["name"] for e in match.s.zones[f"discard#{first + 1}"].items) == sorted(names)
    assert match.to_move == 1 - first  # then the other player's mulligan, once


def test_save_and_resume_mid_game_plays_on_identically():
    g = game("advanced")
    a = g.new_match(seed=9)
    rng = random.Random(9)
    for _ in range(40):
        a.apply(rng.randrange(a.option_count()))
    b = g.match_from_json(json.loads(json.dumps(a.to_json())))
    rng_a, rng_b = random.Random(1), random.Random(1)
    while not a.is_over:
        assert [o.label for o in a.legal_options()] == [o.label for o in b.legal_options()]
        a.apply(rng_a.randrange(a.option_count()))
        b.apply(rng_b.randrange(b.option_count()))
    assert b.is_over and a.result == b.result


@pytest.mark.parametrize("variant", [None, "advanced"])
def test_bots_finish_games(variant):
    from rulelang.balance.simulate import simulate

    summary = simulate(str(GAME), 20, variant=[variant] if variant else None, seed=100)
    assert summary.count == 20
    assert all(g.rounds >= 1 for g in summary.games)


def test_a_greedy_bot_plays_on_imagined_copies():
    from rulelang.bots.agents import make_agent, play_match

    match = game().new_match(seed=2)
    play_match(match, [make_agent("greedy", 1), make_agent("random", 2)])
    assert match.is_over


def test_a_new_keyword_written_only_in_the_rules_file_works_on_a_card():
    """A designer adds a keyword in the .rules file alone and prints it on a card: an active
    ability ("@: bloom") is offered, performed and counted; a passive one (a trigger) acts and is
    counted; nothing in rulelang/ knows either."""
    source = GAME.read_text(encoding="utf-8")
    source = source.replace(
        'Card(name: "Reed Bed", kind: ting, types: [plant], dominance: 1, genes: [Plant, Nautic])',
        'Card(name: "Reed Bed", kind: ting, types: [plant], dominance: 1, genes: [Plant, Nautic], actions: [bloom(2)])')
    source = source.replace(
        'Card(name: "Polyp", kind: ting, types: [animal], dominance: 1, genes: [Nautic, Mini])',
        'Card(name: "Polyp", kind: ting, types: [animal], dominance: 1, genes: [Nautic, Mini], abilities: [skittish])')
    source += '''
/// "bloom X - this plant gets +X until the end of the round, if a close plant is face up."
keyword bloom(x) {
  usable if any(t in close_tings(self) where plant in t.types)
  effect { perform plus(x) on self }
}
/// "skittish - when an enemy ting evolves in front of the same biom, this ting is exhausted."
keyword skittish {
  when evolved(t) if in_play(self) and is_close(t, self) and t.owner != self.owner {
    self.exhausted = true
  }
}
'''
    new_game = rulelang.load(str(GAME), text=source)
    text = f'''scenario "t" {{
  game "{GAME}"
  position {{
    round 2
    phase action_phase
    set first_player = player(1)
    bioms at 0: "Fen"
    field of player 1 at 0: "Reed Bed", "Bramble Wall", "Bog Wolf"
    set card_named("Bog Wolf").face_down = true
    field of player 2 at 0: "Polyp"
  }}
  expect true
}}
'''
    sc = [d for d in parse_text(text, "inline.rules").decls if isinstance(d, N.ScenarioDecl)][0]
    match = ScenarioRunner(sc, REPO, {(str(GAME.resolve()), ()): new_game}).build()
    match.vm.run()
    labels = [o.label for o in match.legal_options()]
    assert "ability Reed Bed, bloom(2)" in labels
    pick(match, "ability Reed Bed, bloom(2)")
    assert card(match, "Reed Bed").attrs["bonus"] == 2
    assert match.s.stats["bloom"] == 1 and match.s.stats["plus"] == 1
    # player 2 can only pass; player 1's last turn: evolving Bog Wolf makes the enemy Polyp skittish
    assert match.to_move == 0 and match.s.players[1].attrs["passed"]
    pick(match, "evolve Bog Wolf")
    assert match.s.stats["skittish"] == 1
    assert match.s.round == 3  # the round ended; Polyp was exhausted, then unexhausted again
