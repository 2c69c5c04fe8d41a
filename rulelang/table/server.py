"""`rulelang serve`: a local web table for any .rules file (Starlette + uvicorn, WebSockets).

The page is plain HTML, CSS and JavaScript shipped in `rulelang/table/static/` (no build step, nothing
fetched from the internet). Each human seat gets its own link with a secret token; over its
WebSocket the server sends that seat only its own view (`tableview.table_view`), so no page can
see another player's hidden cards, not in its source and not in its traffic. Bots play their
seats on the server.

The match is deterministic: the table keeps the starting state and every answer given, so any
earlier decision can be rebuilt by replaying (time travel), and the table can rewind and play on
from there. Saves are written on the server (into the saves folder), never sent to a browser,
because a save holds every hidden card.
"""
from __future__ import annotations

import asyncio
import html
import itertools
import json
import secrets
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import FileResponse, HTMLResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from rulelang.bots.agents import AgentHandle, seat_bots
from rulelang.core.errors import RulesError, reason_of
from rulelang.engine.runtime import Game, Match
from rulelang.engine.visibility import move_label
from rulelang.table.tableview import table_view
from rulelang.core.sourcefile import NotAJsonObject, read_json_object

STATIC = Path(__file__).resolve().parent / "static"
SAVE_KIND = "rulelang-table"


class Table:
    """One match at a table: seats (people and bots), the history of answers, and who is watching."""

    def __init__(self, game: Game, seats: list[str], seed: int = 0, players: int | None = None,
                 bot_delay: float = 0.4, saves: Path | None = None):
        self.game = game
        self.players = players or game.program.game.players_default
        if len(seats) == 1:
            seats = seats * self.players
        if len(seats) != self.players:
            raise ValueError(f"--seats lists {len(seats)} seats for {self.players} players")
        self.seats = seats
        self.seed = seed
        self.bot_delay = bot_delay
        self.saves = Path(saves or ".")
        self.agents = seat_bots(seats, seed)
        # one secret token per human seat, and one for watching (public cards only)
        self.tokens: dict[str, int] = {secrets.token_urlsafe(12): i for i, s in enumerate(seats) if s == "human"}
        self.tokens[secrets.token_urlsafe(12)] = -1
        self.sockets: dict[WebSocket, int] = {}
        self.travel: dict[WebSocket, int] = {}  # a socket looking at an earlier decision
        self.lock = asyncio.Lock()
        self.generation = 0  # bumped when the match is replaced (rewind, load): stale bot answers are dropped
        self.bots_task: asyncio.Task | None = None
        taken: list = []
        self.start_base = game.new_match(players=self.players, seed=seed, taken=taken).to_json()
        # the setup's choices of one option, first in the feed of every match from that start
        self.opening = [self._told(0, item) for item in taken]
        self.restart(self.start_base, [])

    # ---- links
    def links(self, base: str) -> list[tuple[str, str]]:
        out = [(f"Player {seat + 1}" if seat >= 0 else "watch (public cards only)", f"{base}/t/{token}")
               for token, seat in self.tokens.items()]
        return sorted(out, key=lambda x: (x[0].startswith("watch"), x[0]))

    # ---- history
    def restart(self, base: dict, choices: list[int]):
        """Start from a saved starting state and replay the answers given since."""
        self.base = base
        self.error: str | None = None  # a rules error that stopped the match (shown on every page)
        self.choices: list[int] = []
        # moves and log lines, each with the decision it came after
        self.feed: list[dict] = list(self.opening) if base == self.start_base else []
        self.taken: list = []  # the choices of one option the match took without asking
        self.match = self.game.match_from_json(base, taken=self.taken)
        self.generation += 1
        for index in choices:
            if self.match.is_over:
                break
            self._apply(index)

    def replay(self, upto: int) -> Match:
        match = self.game.match_from_json(self.base)
        for index in self.choices[:upto]:
            match.apply(index)
        return match

    def play(self, index: int) -> bool:
        """Apply an answer to the live match; a rules error stops the match and is shown to all."""
        try:
            self._apply(index)
            return True
        except RulesError as exc:
            self.error = exc.format()
            return False

    def _apply(self, index: int):
        match = self.match
        seat = match.to_move
        raw = match.s.pending["options"][index]
        # the question is worth repeating only when the answer alone does not say what it was for
        prompt = match.prompt if raw["name"] in ("choose", "next", "none") else None
        # the move as each seat sees it as it is made, worked out before it is applied: a card hidden
        # from a seat then is "a hidden card" to it, neither named nor placed where the move puts it
        labels = {str(v): move_label(match.s, raw, v) for v in range(-1, self.players)}
        log_before, taken_before = len(match.s.log), len(self.taken)
        match.apply(index)
        self.choices.append(index)
        step = len(self.choices)
        self.feed.append({"at": step, "seat": seat + 1, "who": self.seats[seat], "labels": labels, "prompt": prompt})
        self.feed += (self._told(step, item) for item in match.news(log_before, taken_before))

    def _told(self, step: int, item) -> dict:
        """A feed's item of what `Match.news` says: a log line, or a choice of one option taken."""
        if isinstance(item, str):
            return {"at": step, "log": item}
        labels = {str(viewer): label for viewer, label in item["labels"].items()}
        return {"at": step, "seat": item["seat"] + 1, "who": self.seats[item["seat"]], "labels": labels,
                "prompt": None, "only": True}

    # ---- messages
    def message(self, seat: int, at: int | None = None) -> dict:
        live = at is None or at >= len(self.choices)
        match = self.match if live else self.replay(at)
        position = len(self.choices) if live else at
        view = table_view(match, seat)
        if not live:
            view["choice"] = None  # the past is only looked at; "play from here" rewinds
        # (the feed is in the order of the decisions: what came after this position is not shown)
        feed = [{"log": item["log"]} if "log" in item else
                {"seat": item["seat"], "who": item["who"], "text": item["labels"][str(seat)], "prompt": item["prompt"],
                 "only": item.get("only", False)}
                for item in itertools.takewhile(lambda item: item["at"] <= position, self.feed)]
        return {"type": "view", "view": view, "feed": feed[-60:], "error": self.error,
                "history": {"at": position, "length": len(self.choices), "live": live},
                "seats": [{"seat": i + 1, "who": s} for i, s in enumerate(self.seats)]}

    async def send(self, ws: WebSocket):
        seat = self.sockets[ws]
        try:
            await ws.send_json(self.message(seat, self.travel.get(ws)))
        except (RuntimeError, WebSocketDisconnect):
            self.sockets.pop(ws, None)

    async def broadcast(self):
        for ws in list(self.sockets):
            await self.send(ws)

    # ---- bots
    def wake_bots(self):
        if self.bots_task is None or self.bots_task.done():
            self.bots_task = asyncio.get_running_loop().create_task(self.run_bots())

    async def run_bots(self):
        while True:
            async with self.lock:
                match = self.match
                if match.is_over or self.error or self.agents[match.to_move] is None:
                    return
                seat, generation = match.to_move, self.generation
            await asyncio.sleep(self.bot_delay)
            agent = self.agents[seat]
            copy = match.clone()  # the bot thinks on its own copy while the table stays responsive
            index = await asyncio.to_thread(agent.choose, AgentHandle(copy, seat), copy.legal_options())
            async with self.lock:
                if generation != self.generation or self.match is not match or match.to_move != seat:
                    continue
                self.play(index)
            await self.broadcast()

    # ---- what a browser may ask
    async def handle(self, ws: WebSocket, seat: int, msg: dict):
        kind = msg.get("type")
        if kind == "choose":
            async with self.lock:
                if self.match.to_move != seat or msg.get("at") != len(self.choices) or self.error:
                    return await self.send(ws)  # stale click: show the current position again
                index = int(msg.get("index", -1))
                if not 0 <= index < self.match.option_count():
                    return await self.notify(ws, "that is not one of the options")
                self.play(index)
            await self.broadcast()
            self.wake_bots()
        elif kind == "travel":
            at = max(0, min(int(msg.get("to", 0)), len(self.choices)))
            if at >= len(self.choices):
                self.travel.pop(ws, None)
            else:
                self.travel[ws] = at
            await self.send(ws)
        elif kind == "rewind" and seat >= 0:
            at = max(0, min(int(msg.get("to", 0)), len(self.choices)))
            await self.restart_all(self.base, self.choices[:at])
        elif kind == "save" and seat >= 0:
            path = self.save()
            await ws.send_json({"type": "notice", "text": f"saved on the server as {path.name}"})
        elif kind == "saves":
            await ws.send_json({"type": "saves", "files": self.save_files()})
        elif kind == "load" and seat >= 0:
            try:
                data = self.read_save(str(msg.get("file", "")))
            except (OSError, ValueError, RulesError) as exc:
                return await self.notify(ws, f"could not load it: {exc}")
            await self.restart_all(data["base"], data["choices"])

    async def restart_all(self, base: dict, choices: list[int]):
        """The match started again (rewound, or loaded), shown to every page at its live position."""
        async with self.lock:
            self.restart(base, choices)
            self.travel.clear()
        await self.broadcast()
        self.wake_bots()

    async def notify(self, ws: WebSocket, text: str):
        await ws.send_json({"type": "notice", "text": text, "error": True})

    # ---- saving
    def save_data(self) -> dict:
        return {"kind": SAVE_KIND, "game": self.game.title, "file": self.game.path, "variants": self.game.variants,
                "fingerprint": self.game.fingerprint, "players": self.players, "seats": self.seats,
                "base": self.base, "choices": list(self.choices), "state": self.match.to_json()}

    def save(self) -> Path:
        self.saves.mkdir(parents=True, exist_ok=True)
        stem = Path(self.game.path).stem
        path = self.saves / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{len(self.choices)}.json"
        path.write_text(json.dumps(self.save_data()), encoding="utf-8")
        return path

    def save_files(self) -> list[str]:
        if not self.saves.is_dir():
            return []
        out = []
        for p in sorted(self.saves.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError):
                continue
            if isinstance(data, dict) and data.get("kind") == SAVE_KIND and data.get("fingerprint") == self.game.fingerprint:
                out.append(p.name)
        return out[:30]

    def read_save(self, name: str) -> dict:
        name = Path(name).name  # a file of the saves folder, nothing else (and named so to the browser)
        try:
            return self.load_file(self.saves / name, shown=name)
        except OSError as exc:  # (in words, without the server's folders)
            raise ValueError(f"{name} could not be read: {reason_of(exc)}") from None

    def load_file(self, path: Path, shown: str | None = None) -> dict:
        """load_data of a file; a file that is not a save (not JSON, not UTF-8, nested too deeply, saved
        with other rules...) is a ValueError that names it (as `shown`) and says what is wrong."""
        name = shown or str(path)
        try:
            data = read_json_object(path)
        except NotAJsonObject as exc:
            raise ValueError(f"{name} is not a saved match ({exc})") from None
        try:
            return self.load_data(data)
        except ValueError as exc:
            raise ValueError(f"{name} cannot start this table: {exc}") from None
        except RulesError as exc:  # (a state saved with other rules, or damaged)
            raise ValueError(f"{name} cannot start this table: {exc.diagnostics[0].message}") from None

    def load_data(self, data: dict) -> dict:
        """A table save (start + answers), or a plain `Match.to_json()` state (history starts there)."""
        if data.get("kind") == SAVE_KIND:
            if data.get("fingerprint") != self.game.fingerprint:
                raise ValueError("it was saved with different rules, variant or settings")
            if data.get("players") != self.players:
                raise ValueError(f"it has {data.get('players')} players, this table {self.players}")
            return {"base": data["base"], "choices": list(data["choices"])}
        self.game.match_from_json(data)  # raises a clear error for other rules
        return {"base": data, "choices": []}


def create_app(table: Table) -> Starlette:
    page = (STATIC / "table.html").read_text(encoding="utf-8")
    title = html.escape(table.game.title)  # the rules file's text, shown as text in the pages (never as markup)

    async def home(request):
        return HTMLResponse(f"<!doctype html><meta charset=utf-8><title>{title}</title>"
                            "<body style='font-family:sans-serif;margin:3em'>"
                            f"<h1>{title}</h1><p>Open the link of your seat: "
                            "<code>rulelang serve</code> printed one per seat in its terminal.</p>")

    async def seat_page(request):
        if request.path_params["token"] not in table.tokens:
            return HTMLResponse("<p>This link is not a seat of this table.</p>", status_code=404)
        return HTMLResponse(page.replace("{{TITLE}}", title))

    async def socket(ws: WebSocket):
        token = ws.path_params["token"]
        if token not in table.tokens:
            await ws.close(code=4403)
            return
        seat = table.tokens[token]
        await ws.accept()
        table.sockets[ws] = seat
        await table.send(ws)
        table.wake_bots()
        try:
            while True:
                msg = await ws.receive_json()
                if not isinstance(msg, dict):
                    continue
                try:
                    await table.handle(ws, seat, msg)
                except (TypeError, ValueError, OverflowError, KeyError, AttributeError):
                    # a message of another shape (an index that is a list, a time that is not a number):
                    # said to its sender, and the table goes on
                    await table.notify(ws, "the table did not understand that message")
        except (WebSocketDisconnect, RuntimeError, ValueError):
            pass
        finally:
            table.sockets.pop(ws, None)
            table.travel.pop(ws, None)

    async def favicon(request):
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def health(request):
        return JSONResponse({"ok": True, "decisions": len(table.choices), "over": table.match.is_over})

    app = Starlette(routes=[Route("/", home), Route("/t/{token}", seat_page), Route("/favicon.ico", favicon),
                            Route("/health", health), WebSocketRoute("/ws/{token}", socket),
                            Mount("/static", StaticFiles(directory=str(STATIC)), name="static")])
    app.state.table = table
    return app


def listening_socket(host: str, port: int):
    """A socket bound to host:port (port 0: any free one), or a ValueError saying in plain words why
    the table cannot listen there (a name that is no address, a port taken or not allowed)."""
    import socket

    sock = socket.socket(family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as exc:
        sock.close()
        raise ValueError(f"the table cannot listen on {host} port {port}: {reason_of(exc)}") from None
    return sock


def serve(table: Table, host: str = "127.0.0.1", port: int = 8000, announce=print) -> None:
    import uvicorn

    # log_config=None: uvicorn leaves the process's logging as it is (its own set-up closes every
    # handler other libraries made, such as one writing to a stream a test or an editor holds)
    config = uvicorn.Config(create_app(table), host=host, port=port, log_level="warning", log_config=None)
    server = uvicorn.Server(config)
    sock = listening_socket(host, port)  # bound before the links are shown: they then work
    port = sock.getsockname()[1]
    if host in ("127.0.0.1", "::1", "localhost"):
        shown = "localhost"
    elif host in ("0.0.0.0", "::"):
        import socket

        shown = socket.gethostname()  # listening everywhere: give friends this machine's name
    else:
        shown = host
    base = f"http://{shown}:{port}"
    announce(f"{table.game.title}: {table.players} players, seed {table.seed}. Seats: {', '.join(table.seats)}")
    for who, url in table.links(base):
        announce(f"  {who}: {url}")
    announce("Each link is secret: give each person only their own. Ctrl-C stops the table.")
    server.run(sockets=[sock])

