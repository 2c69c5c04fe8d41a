"""The table behind `rulelang serve`: each seat's view, options in parts, history, saves and the
web server's routes (driven here without a browser; tests/test_table_browser.py clicks in one)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from rulelang.compile.loader import load
from rulelang.table.server import Table, create_app
from rulelang.table.tableview import table_view

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def zemico():
    return load(ROOT / "games/zemico.rules")


def played(game, decisions, seed=1, players=4):
    match = game.new_match(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        match.apply(rng.randrange(match.option_count()))
    return match


def test_a_view_names_only_the_cards_its_seat_may_see(zemico):
    match = played(zemico, 12)
    text = json.dumps(table_view(match, 0))
    for e in match.s.entities:
        zone = e.zone
        if zone is not None and zone.visibility == "private" and zone.owner not in (None, 0):
            assert f'"c{e.id}"' not in text  # not even its id
    hand = [z for z in table_view(match, 0)["zones"] if z["key"] == "hand#2"][0]
    assert all(c == {"ref": c["ref"], "hidden": True} for c in hand["cards"])
    assert hand["count"] == len(match.s.zones["hand#2"].items)
    deck = [z for z in table_view(match, 0)["zones"] if z["key"] == "organism_deck"][0]
    assert "cards" not in deck and deck["count"] > 0  # a face-down pile is only its size


def test_options_come_in_parts_a_card_then_a_cell(zemico):
    match = played(zemico, 8)
    while match.prompt != "Place a card or skip" or match.to_move is None:
        match.apply(0)
    seat = match.to_move
    choice = table_view(match, seat)["choice"]
    place = [o for o in choice["options"] if o["tokens"][0]["key"] == "name:place"]
    assert place and all([t["kind"] for t in o["tokens"]] == ["name", "card", "cell"] for o in place)
    assert all(o["tokens"][2]["zone"] == "desk" for o in place)
    # every cell an option names is drawn on the board, so it can be clicked
    desk = [z for z in table_view(match, seat)["zones"] if z["key"] == "desk"][0]
    drawn = {c["key"] for c in desk["cells"]}
    assert {o["tokens"][2]["key"].split(":")[-1] for o in place} <= drawn
    skip = [o for o in choice["options"] if o["tokens"][0]["key"] == "name:skip"]
    assert len(skip) == 1 and len(skip[0]["tokens"]) == 1
    # the runtime's general API: an option's bindings in order
    opt = match.legal_options()[place[0]["index"]]
    assert list(opt.bindings) == ["c", "cell"]
    assert table_view(match, (seat + 1) % 4)["choice"] is None


def test_history_replays_rewinds_saves_and_loads(zemico, tmp_path):
    table = Table(zemico, ["human", "random", "random", "random"], seed=3, saves=tmp_path)
    rng = random.Random(0)
    for _ in range(15):
        table._apply(rng.randrange(table.match.option_count()))
    now = json.dumps(table.match.to_json(), sort_keys=True)
    assert json.dumps(table.replay(15).to_json(), sort_keys=True) == now
    past = table.message(0, at=5)
    assert past["history"] == {"at": 5, "length": 15, "live": False} and past["view"]["choice"] is None
    path = table.save()
    table.restart(table.base, table.choices[:5])
    assert len(table.choices) == 5
    data = table.read_save(path.name)
    table.restart(data["base"], data["choices"])
    assert json.dumps(table.match.to_json(), sort_keys=True) == now
    assert table.save_files() == [path.name]
    # a plain saved match (Match.to_json) loads too: its history starts there
    plain = table.load_data(table.match.to_json())
    assert plain["choices"] == []


def test_a_file_that_is_not_a_save_is_named_with_what_is_wrong(tmp_path):
    """`serve --load FILE` and the table's own saves: a file that is not a saved match (not UTF-8,
    not JSON, JSON nested too deeply, not an object, saved with other rules) is a ValueError naming
    it, never an internal error; a save of the saves folder is named by its name only (the browser
    sees no server path)."""
    game = load(ROOT / "examples/tictactoe.rules")
    table = Table(game, ["human", "human"], seed=0, bot_delay=0, saves=tmp_path)
    other = Table(load(ROOT / "examples/connect4.rules"), ["human", "human"], seed=0, bot_delay=0, saves=tmp_path)
    cases = {"binary.json": (b"\xff\xfe", "is not a saved match (it is not UTF-8 text)"),
             "text.json": (b"root:x:0:0", "is not a saved match (it is not JSON: Expecting value at line 1 column 1)"),
             "deep.json": (b"[" * 100_000 + b"]" * 100_000, "is not a saved match (its JSON is nested too deeply)"),
             "list.json": (b"[1, 2]", "is not a saved match (it holds no JSON object)"),
             "other.json": (json.dumps(other.match.to_json()).encode(),
                            "cannot start this table: this saved match was made with different rules")}
    for name, (content, words) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError) as caught:
            table.load_file(tmp_path / name)
        assert str(caught.value).startswith(f"{tmp_path / name} {words}"), caught.value
        with pytest.raises(ValueError) as caught:
            table.read_save(name)
        assert str(caught.value).startswith(f"{name} {words}") and str(tmp_path) not in str(caught.value)


def test_a_message_of_another_shape_is_answered_and_the_table_goes_on(tmp_path):
    """A browser (or anyone with a link) sending an index that is a list, a time that is not a
    number or a number too big for an integer gets a notice; its connection and the table go on."""
    game = load(ROOT / "examples/tictactoe.rules")
    table = Table(game, ["human", "human"], seed=0, bot_delay=0, saves=tmp_path)
    token = dict(table.links("http://testserver"))["Player 1"].rsplit("/", 1)[1]
    client = TestClient(create_app(table))
    with client.websocket_connect(f"/ws/{token}") as ws:
        ws.receive_json()
        for odd in ({"type": "choose", "index": [1], "at": 0}, {"type": "travel", "to": None},
                    {"type": "rewind", "to": {"a": 1}}, {"type": "choose", "index": 1e400, "at": 0}):
            ws.send_json(odd)
            notice = ws.receive_json()
            assert notice == {"type": "notice", "text": "the table did not understand that message", "error": True}
        ws.send_json({"type": "choose", "index": 4, "at": 0})
        assert ws.receive_json()["history"]["length"] == 1


def test_a_title_is_shown_as_text_in_the_pages(tmp_path):
    """A game's title is the rules file's text: the pages show it, escaped, never as markup."""
    import rulelang

    text = (ROOT / "examples/tictactoe.rules").read_text(encoding="utf-8").replace(
        'game "Tic-tac-toe"', 'game "<script>alert(1)</script> & co"')
    table = Table(rulelang.load(tmp_path / "t.rules", text=text), ["human", "human"], seed=0, bot_delay=0,
                  saves=tmp_path)
    client = TestClient(create_app(table))
    token = dict(table.links("http://testserver"))["Player 1"].rsplit("/", 1)[1]
    for page in (client.get("/").text, client.get(f"/t/{token}").text):
        assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in page


def test_the_server_gives_each_token_its_own_seat(tmp_path):
    game = load(ROOT / "examples/tictactoe.rules")
    table = Table(game, ["human", "human"], seed=0, bot_delay=0, saves=tmp_path)
    links = dict(table.links("http://testserver"))
    client = TestClient(create_app(table))
    token_one = links["Player 1"].rsplit("/", 1)[1]
    token_two = links["Player 2"].rsplit("/", 1)[1]
    page = client.get(f"/t/{token_one}")
    assert page.status_code == 200 and "/static/table.js" in page.text
    assert client.get("/t/not-a-token").status_code == 404
    assert client.get("/static/table.js").status_code == 200
    with client.websocket_connect(f"/ws/{token_one}") as one, client.websocket_connect(f"/ws/{token_two}") as two:
        first, other = one.receive_json(), two.receive_json()
        assert first["view"]["you"] == 1 and other["view"]["you"] == 2
        assert first["view"]["choice"] and other["view"]["choice"] is None
        # player 2 cannot answer player 1's choice
        two.send_json({"type": "choose", "index": 0, "at": 0})
        assert two.receive_json()["history"]["length"] == 0
        one.send_json({"type": "choose", "index": 4, "at": 0})
        assert one.receive_json()["history"]["length"] == 1
        after = two.receive_json()
        assert after["view"]["choice"] and after["feed"][0]["text"] == "(1, 1)"
        two.send_json({"type": "save"})
        assert "saved on the server" in two.receive_json()["text"]
    assert table.save_files()


def test_a_page_lists_the_saves_and_loads_one_back_to_its_position(tmp_path):
    """The browser's saves: a page asks for the list, loads one, and every page is back where the
    save was made; a name that is not a save of the folder is refused in words."""
    game = load(ROOT / "examples/tictactoe.rules")
    table = Table(game, ["human", "human"], seed=0, bot_delay=0, saves=tmp_path)
    links = dict(table.links("http://testserver"))
    client = TestClient(create_app(table))
    token_one, token_two = (links[f"Player {n}"].rsplit("/", 1)[1] for n in (1, 2))
    with client.websocket_connect(f"/ws/{token_one}") as one, client.websocket_connect(f"/ws/{token_two}") as two:
        one.receive_json(), two.receive_json()
        one.send_json({"type": "choose", "index": 4, "at": 0})
        one.receive_json(), two.receive_json()
        one.send_json({"type": "save"})
        saved = one.receive_json()["text"].rsplit(" ", 1)[1]
        two.send_json({"type": "choose", "index": 0, "at": 1})
        assert two.receive_json()["history"]["length"] == 2
        one.receive_json()
        one.send_json({"type": "saves"})
        assert one.receive_json() == {"type": "saves", "files": [saved]}
        one.send_json({"type": "load", "file": "../elsewhere.json"})
        refused = one.receive_json()
        assert refused == {"type": "notice", "error": True,
                           "text": "could not load it: elsewhere.json could not be read: no such file or directory"}
        one.send_json({"type": "load", "file": saved})
        back_one, back_two = one.receive_json(), two.receive_json()
        assert back_one["history"]["length"] == back_two["history"]["length"] == 1
        assert back_two["view"]["choice"] and back_one["view"]["choice"] is None
