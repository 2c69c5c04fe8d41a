"""Golden replays: stored seeded games that show any change of behaviour as a game, a step and a rule.

A replay file (`tests/replays/GAME[--VARIANT][--SETTING=VALUE].json`) holds, for one game and
mode, a few games: each its seed, the index of the option chosen at every decision, and a digest
of the whole match state after every step (step 0 is the state before the first decision).
Replaying checks each digest; the first mismatch names the game, the mode, the seed, the step, the
choice made and the rules line that asked for it. `rulelang replay --record [FILE]`, `--check`
and `rulelang replay FILE.json` (show one) are the commands (HACKING.md has the recipes).

While replaying, `audit` checks after every step that no card was created or lost and that no
player's view holds a card that player may not see; saves taken at random steps are resumed
from JSON and must reach the same digests.

The modes of a game are its base game and each variant (each must have a replay), and any
setting values recorded with `--set` (modes a rulebook describes as a setting's choices): their
files are found in the folder and re-recorded with the game's other modes.
"""
from __future__ import annotations

import functools
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

from rulelang.core.errors import RulesError
from rulelang.compile.loader import load
from rulelang.model.things import Entity
from rulelang.engine.runtime import Match
from rulelang.engine.saves import state_to_json
from rulelang.engine.visibility import move_label, option_label
from rulelang.core.sourcefile import NotAJsonObject, read_json_object

FORMAT = 1
SEEDS = (1, 2)  # games stored per mode
MAX_STEPS = 3000  # a stored game stops here if it has not ended
AUDITED_STEPS = 120  # steps of one game whose cards are audited (all of them in shorter games)
VIEWED_STEPS = 60  # ...and whose views are audited (every player's: they cost most)


def modes(path: str | Path) -> list[list[str]]:
    """The modes of a game: the base game and each variant on its own."""
    from rulelang.language.astcache import parse_file_cached  # (parsed once, read from the cache after)

    return [[]] + [[v] for v in parse_file_cached(path).variants()]


def replay_file(folder: Path, path: str | Path, variants: list[str], settings: dict | None = None) -> Path:
    stem = Path(path).stem + ("--" + "+".join(variants) if variants else "")
    stem += "".join(f"--{name}={value}" for name, value in sorted((settings or {}).items()))
    return folder / f"{stem}.json"


def setting_modes(folder: Path, path: str | Path) -> list[tuple[list[str], dict]]:
    """The (variants, settings) of the stored replays of a game recorded with settings."""
    stored = [read(file) for file in sorted(folder.glob(f"{Path(path).stem}--*=*.json"))]
    return [(data["variants"], data["settings"]) for data in stored
            if data.get("settings") and Path(data["game"]).stem == Path(path).stem]


def digest(match: Match) -> str:
    data = state_to_json(match.s)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def asked_where(match: Match) -> str:
    """The rules line that asks the pending choice (or `over`)."""
    if match.s.pending is None:
        return "game over" if match.is_over else "-"
    span = match.s.pending["span"]
    return f"{span.file}:{span.line}"


def record_game(game, seed: int, players: int | None = None) -> dict:
    match = game.new_match(players=players, seed=seed)
    rng = random.Random(seed)
    choices, digests, asked = [], [digest(match)], []
    while not match.is_over and len(choices) < MAX_STEPS:
        asked.append(asked_where(match))
        index = rng.randrange(match.option_count())
        choices.append(index)
        match.apply(index)
        digests.append(digest(match))
    return {"seed": seed, "choices": choices, "digests": digests, "asked": asked,
            "finished": match.is_over, "winners": match.result["winners"] if match.is_over else None}


def record(path: str | Path, variants: list[str], seeds=SEEDS, settings: dict | None = None) -> dict:
    game = load(str(path), variant=variants, settings=settings or None)
    players = game.program.game.players_default
    data = {"format": FORMAT, "game": Path(path).as_posix(), "title": game.title, "variants": variants}
    if settings:
        data["settings"] = dict(sorted(settings.items()))
    return {**data, "players": players, "games": [record_game(game, s, players) for s in seeds]}


def read(file: Path) -> dict:
    """A replay file as `record` wrote it; anything else (not JSON, not a replay, cut short or edited
    into another shape) is a ValueError that says which file and what is wrong with it."""
    def refuse(why: str):
        raise ValueError(f"{file} is not a replay file ({why}); replay files are written by "
                         "`rulelang replay --record`")

    try:
        data = read_json_object(file)
    except NotAJsonObject as exc:
        refuse(str(exc))
    shape = {"game": (str, "a text"), "variants": (list, "a list"), "players": (int, "a whole number"),
             "games": (list, "a list")}
    for key, (kind, words) in shape.items():
        if not isinstance(data.get(key), kind):
            refuse(f'"{key}" is missing or not {words}')
    if not isinstance(data.get("settings") or {}, dict):
        refuse('"settings" is not an object')
    for stored in data["games"]:
        if not isinstance(stored, dict) or not isinstance(stored.get("seed"), int) or not all(
                isinstance(stored.get(key), list) for key in ("choices", "digests", "asked")):
            refuse('a game lacks its "seed", "choices", "digests" or "asked"')
    return data


def write(data: dict, file: Path) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ checking


class ReplayMismatch(AssertionError):
    """A replay no longer matches: the message names the game, mode, seed, step and rules line."""


@dataclass
class Audit:
    """What a replay checks after every step besides the digest."""

    cards: int = -1

    def __call__(self, match: Match, where: str, views: bool = True):
        check_conservation(match, self, where)
        if views:
            check_views(match, where)


def check_conservation(match: Match, audit: Audit, where: str) -> None:
    """No card created or lost: the same cards as at the start, each in exactly one zone."""
    s = match.s
    if audit.cards < 0:
        audit.cards = len(s.entities)
    if len(s.entities) != audit.cards:
        raise ReplayMismatch(f"{where}: {len(s.entities)} cards exist, {audit.cards} at the start")
    seen: dict[int, str] = {}
    for key, zone in s.zones.items():
        for e in zone.items:
            if e.id in seen:
                raise ReplayMismatch(f"{where}: card #{e.id} ({e.card.component}) is in {seen[e.id]} and in {key}")
            seen[e.id] = key
            if e.zone is not zone:
                raise ReplayMismatch(f"{where}: card #{e.id} is listed in {key} but thinks it is in "
                                     f"{e.zone.key if e.zone else 'no zone'}")
            if s.entities[e.id] is not e:
                raise ReplayMismatch(f"{where}: card #{e.id} is not the match's card #{e.id}")
        if zone.is_board:
            pieces = zone.cells.pieces  # (a piece lies on each of its cells: counted on its first)
            on_cells = sorted(x.id for c in zone.cells.occupied_cells() for x in zone.cells.stack(c)
                              if x.id not in pieces or pieces[x.id][0] == c)
            if any(x not in zone.cells.stack(c) for i, cells in pieces.items() for c in cells for x in (s.entities[i],)):
                raise ReplayMismatch(f"{where}: a piece on board {key} is missing from one of its cells")
            if on_cells != sorted(x.id for x in zone.items):
                raise ReplayMismatch(f"{where}: the cells of board {key} do not hold the cards the board lists")
    lost = [e.id for e in s.entities if e.id not in seen]
    if lost:
        raise ReplayMismatch(f"{where}: card(s) #{', #'.join(map(str, lost[:5]))} are in no zone (lost)")


def may_see(e: Entity, seat: int) -> bool:
    """The visibility rule as the language reference states it (written again here, on purpose)."""
    zone = e.zone
    if seat in e.known:
        return True
    if zone.visibility == "hidden":
        return False
    if zone.visibility == "private":
        return zone.owner == seat
    return not e.face_down or e.owner == seat


def check_views(match: Match, where: str) -> None:
    """No player's view holds a card that player may not see (cards, globals, the options offered)."""
    s = match.s
    for seat in range(len(s.players)):
        view = match.view(seat)
        for key, zone in s.zones.items():
            entry = view["zones"][key]
            if zone.is_board:
                shown = [card for cell in entry.get("cells", []) for card in cell["cards"]]
                actual = [x for c in zone.cells.occupied_cells() for x in zone.cells.stack(c)]
            else:
                shown = entry.get("cards")
                actual = zone.items
                if shown is None:  # only a count: nothing shown
                    continue
            if len(shown) != len(actual):
                raise ReplayMismatch(f"{where}: Player {seat + 1}'s view of {key} lists {len(shown)} cards, "
                                     f"the zone holds {len(actual)}")
            for card, e in zip(shown, actual):
                if "card" in card and not may_see(e, seat):
                    raise ReplayMismatch(f"{where}: Player {seat + 1}'s view of {key} shows {card['card']}, "
                                         "a card that player may not see")
        for name, value in s.globals.items():
            if isinstance(value, Entity) and not may_see(value, seat) and not name.startswith("__"):
                if view["globals"].get(name) != f"a hidden card in {value.zone.key.replace('#', ' of player ')}":
                    raise ReplayMismatch(f"{where}: Player {seat + 1}'s view shows the hidden card in `{name}`")
        if s.pending is not None and s.pending["player"] == seat:
            for option in s.pending["options"]:
                label = option_label(s, option, seat)
                hidden = [v for v in option["values"].values() if isinstance(v, Entity) and not may_see(v, seat)]
                if hidden and label.count("a hidden card") < len(hidden):
                    raise ReplayMismatch(f"{where}: an option offered to Player {seat + 1} ({label}) names a card "
                                         "that player may not see")


@functools.lru_cache(maxsize=8)
def _game(path: str, variants: tuple, settings: tuple = ()):
    return load(path, variant=list(variants), settings=dict(settings) or None)


def verify(data: dict, audit: bool = True, resume_points: int = 2, digest_every: int = 1) -> int:
    """Replay a stored file; raise ReplayMismatch at the first difference. Returns the steps checked.

    `digest_every` > 1 compares the state's digest only every so many steps (and at the last step,
    at saves and at audited steps): a digest costs more than the step itself in long games. A
    mismatch is then traced back to the first step that differs by replaying again with every
    digest, so the message names the same step as a full check would."""
    if digest_every <= 1:
        return _verify(data, audit, resume_points, 1)
    try:
        return _verify(data, audit, resume_points, digest_every)
    except ReplayMismatch as coarse:
        _verify(data, audit, resume_points, 1)  # raises at the first step that differs...
        raise coarse  # ...unless the game does not replay the same way twice: report what was seen


def _verify(data: dict, audit: bool, resume_points: int, digest_every: int) -> int:
    settings = data.get("settings") or {}
    game = _game(data["game"], tuple(data["variants"]), tuple(sorted(settings.items())))
    mode = data["game"] + (f" (variant {', '.join(data['variants'])})" if data["variants"] else "") + "".join(
        f" (setting {k} = {v})" for k, v in settings.items())
    steps = 0
    for stored in data["games"]:
        seed = stored["seed"]
        match = game.new_match(players=data["players"], seed=seed)
        rng = random.Random(seed * 7919)
        n = len(stored["choices"])
        resume_at = set(rng.sample(range(n), min(resume_points, n))) if n else set()
        checker = Audit() if audit else None
        audit_every = max(1, -(-n // AUDITED_STEPS))  # long games: an evenly spread sample of steps
        view_every = audit_every * max(1, -(-min(n, AUDITED_STEPS) // VIEWED_STEPS))

        def fail(step: int, what: str):
            asked = stored["asked"][step - 1] if 0 < step <= len(stored["asked"]) else "the start of the game"
            choice = f", after option {stored['choices'][step - 1]} was chosen at {asked}" if step > 0 else ""
            raise ReplayMismatch(f"{mode}, seed {seed}, step {step}{choice}: {what}\n"
                                 f"  re-record it if the change is intended: rulelang replay --record {data['game']}")

        def compare(step: int):
            audited = checker is not None and (step % audit_every == 0 or step == n)
            if step % digest_every and step != n and not audited:
                return
            got = digest(match)
            if got != stored["digests"][step]:
                fail(step, f"the state differs from the stored replay (now waiting at {asked_where(match)})")
            if audited:
                checker(match, f"{mode}, seed {seed}, step {step}", views=step % view_every == 0 or step == n)

        compare(0)
        for step, index in enumerate(stored["choices"], start=1):
            if match.is_over:
                fail(step, "the game is over, but the replay goes on")
            if index >= match.option_count():
                fail(step, f"option {index} is not offered (only {match.option_count()} are)")
            if step - 1 in resume_at:  # save here, resume from JSON, and play on with the copy
                saved = json.loads(json.dumps(match.to_json()))
                match = game.match_from_json(saved)
                if digest(match) != stored["digests"][step - 1]:
                    fail(step - 1, "a save resumed from JSON is not the same state")
            try:
                match.apply(index)
            except RulesError as exc:
                fail(step, "the rules failed:\n" + exc.format())
            compare(step)
            steps += 1
        if stored["finished"] and not match.is_over:
            fail(n, "the stored game ended here, the replay does not")
    return steps


# ------------------------------------------------------------------ the command


def corpus(root: Path) -> list[Path]:
    """Every game file a replay should cover: games/ and examples/."""
    return sorted((root / "games").glob("*.rules")) + sorted((root / "examples").glob("*.rules"))


def show(file: Path, seed: int | None, console, seat: int | None = None) -> int:
    """Print a stored game step by step: who chose what, where the rules asked, and the digests.
    Each move is told as `seat` (1-based) saw it as it was made, or by default as a watcher, who
    sees only public cards: a card hidden from them then is "a hidden card", never named."""
    say = functools.partial(console.print, markup=False)
    data = read(file)
    if seat is not None and not 1 <= seat <= data["players"]:
        raise ValueError(f"--seat {seat} is not a seat of {file}: its players are 1 to {data['players']}")
    viewer = -1 if seat is None else seat - 1
    game = load(data["game"], variant=data["variants"], settings=data.get("settings") or None)
    stored = next((g for g in data["games"] if seed is None or g["seed"] == seed), None)
    if stored is None:
        raise ValueError(f"{file} has no game with seed {seed}: its seeds are "
                         + ", ".join(str(g["seed"]) for g in data["games"]))
    taken: list = []  # the choices of one option, taken without asking (told between the steps)
    match = game.new_match(players=data["players"], seed=stored["seed"], taken=taken)
    mode = f" ({', '.join(data['variants'])})" if data["variants"] else ""
    mode += "".join(f" ({k} = {v})" for k, v in (data.get("settings") or {}).items())
    who = "a watcher (public cards only)" if seat is None else f"Player {seat}"
    say(f"{game.title}{mode}: seed {stored['seed']}, {data['players']} players, {len(stored['choices'])} steps, "
        f"as {who} sees them")
    ok = digest(match) == stored["digests"][0]
    say(f"step 0: the start  [{'ok' if ok else 'DIFFERS'}]")

    def tell_news(log_from: int, taken_from: int) -> None:
        for item in match.news(log_from, taken_from):
            if isinstance(item, str):
                say(f"    {item}")
            else:
                say(f"    Player {item['seat'] + 1}, {item['prompt'] or 'choose'}: {item['labels'][viewer]}"
                    " (the only option)")

    tell_news(len(match.s.log), 0)  # (the setup's log is not told; its choices of one option are)
    shown_log, shown_taken = len(match.s.log), len(taken)
    for step, index in enumerate(stored["choices"], start=1):
        mover = match.to_move
        where = asked_where(match)
        prompt = match.prompt or "choose"
        if index >= match.option_count():
            say(f"step {step}: Player {mover + 1} cannot choose option {index} (not offered): the replay stops")
            return 1
        label = move_label(match.s, match.s.pending["options"][index], viewer)  # before the move is made
        match.apply(index)
        ok = digest(match) == stored["digests"][step]
        say(f"step {step}: Player {mover + 1}, {prompt} ({where}): {label}  [{'ok' if ok else 'DIFFERS'}]")
        tell_news(shown_log, shown_taken)
        shown_log, shown_taken = len(match.s.log), len(taken)
    if match.is_over:
        say(f"game over {match.result_words()}")
    return 0
