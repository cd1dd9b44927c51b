"""The web front against real parts: an in-process ``Server`` with its ``WebFront`` on 127.0.0.1
port 0 over TLS, real websocket clients (aiohttp) sending what a browser's terminal sends, a TCP
protocol client at the same tables, a real ``ono99 serve`` process whose front workers serve the
web port, and headless Chromium (Debian's ``chromium``, driven by Playwright) loading the page.

The server-side app of a session is read only to decide which key a player presses and to check
what a key did; every key goes through the websocket, the driver and Textual's parser. Waits are for
a condition with generous deadlines, never measurements.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import socket
import sqlite3
import ssl
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from ono99_kernel.fronts import new_credential
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.tls import client_context, load_certificate, peer_fingerprint
from ono99_kernel.wire.requests import CreateTable, Join, Spectate, Start
from ono99_kernel.wire.server import PlayEvent, State
from ono99_server import Server, ServerConfig
from ono99_tui.client.connection import Client
from ono99_tui.front.session_app import SessionApp
from ono99_tui.front.ssh import SshFront
from ono99_tui.front.web import WebFront, WebSession, WebSessionApp, invite_code, invite_links
from ono99_tui.front.web_page import language_from_accept
from ono99_tui.known_servers import ServerTrust
from ono99_tui.serve import front_config_for
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.widgets import CardWidget
from tests.server_helpers import TIMEOUT, PlayLog, ServerProcess, TestClient, free_port, play
from tests.test_ssh import Player, key_for_turn, play_through_keys

CREDENTIAL = new_credential()
PATIENCE = 30.0  # seconds a wait may take before the test fails; never a speed requirement
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# where the browser test saves its picture of the table (README's is screenshots/web-table.png)
SCREENSHOT_ENV = "ONO99_WEB_SCREENSHOT"


# --- the rig ----------------------------------------------------------------------------------------
@dataclass
class WebRig:
    server: Server
    front: WebFront

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.front.port}"

    async def close(self) -> None:
        await self.front.close()
        await self.server.close()

    async def host(self, name: str = "host") -> TestClient:
        client = await TestClient.connect("127.0.0.1", self.server.port, name, timeout=TIMEOUT)
        assert isinstance(client, TestClient)
        return client

    def _playing(self, name: str) -> WebSession | None:
        return next((session for session in self.front.sessions
                     if not session.closed and session.app is not None and session.app.player_name == name), None)

    def session_of(self, name: str) -> WebSession:
        session = self._playing(name)
        if session is None:
            raise AssertionError(f"no web session plays as {name}")
        return session

    async def session_playing(self, name: str) -> WebSession:
        """The open web session playing as name, once there is one: a name typed on the page reaches
        the front's app a moment after the key press that sent it."""
        await until(lambda: self._playing(name) is not None, f"a web session playing as {name}")
        return self.session_of(name)


async def start_web_rig(tmp_path: Path, ssh: SshSettings | None = None, **overrides: Any) -> WebRig:
    values: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "bot_delay": 0, "default_turn_seconds": 0,
                              "grace_seconds": 120, "db_path": tmp_path / "x.db", "tls_cert": tmp_path / "tls_cert.pem",
                              "tls_key": tmp_path / "tls_key.pem", "ssh": ssh or SshSettings(),
                              "front_credentials": (CREDENTIAL,), **overrides}
    server = Server(ServerConfig(**values))
    await server.start()
    config = front_config_for(server.config, server.port, server.fingerprint, CREDENTIAL)
    config.listen_ssh, config.web_host, config.web_port = False, "127.0.0.1", 0
    front = WebFront(config, server.load_certificate())
    await front.start()
    return WebRig(server, front)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[WebRig]:
    rig = await start_web_rig(tmp_path)
    try:
        yield rig
    finally:
        await rig.close()


def saved_seat_names(db: Path) -> set[str]:
    """The names in the seats of the tables a server's database keeps (its live_tables rows)."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        rows = connection.execute("SELECT meta FROM live_tables").fetchall()
    return {seat.get("name", "") for (meta,) in rows for seat in json.loads(meta).get("seats", [])
            if isinstance(seat, dict)}


async def until(condition: Callable[[], Any], what: str, timeout: float = PATIENCE) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def insecure() -> ssl.SSLContext:
    """A client context that takes the self-signed certificate (the tests compare its fingerprint)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


# --- a websocket player -----------------------------------------------------------------------------
class WsPlayer:
    """A real websocket client saying what the page's script says: ``open``, then terminal bytes."""

    def __init__(self, http: aiohttp.ClientSession, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.http = http
        self.socket = socket
        self.output = bytearray()
        self.controls: list[dict[str, Any]] = []
        self.closed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, url: str, *, cols: int = 100, rows: int = 30, name: str = "", resume: str = "",
                      password: str = "", code: str | None = None, watch: bool = False,
                      headers: dict[str, str] | None = None) -> WsPlayer:
        http = aiohttp.ClientSession()
        try:
            socket = await http.ws_connect(url.replace("https://", "wss://") + "/ws", ssl=insecure(),
                                           headers={"Origin": url, **(headers or {})})
        except BaseException:
            await http.close()
            raise
        await socket.send_str(json.dumps({"t": "open", "cols": cols, "rows": rows, "name": name, "resume": resume,
                                          "password": password, "code": code, "watch": watch}))
        return cls(http, socket)

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for message in self.socket:
                if message.type == aiohttp.WSMsgType.BINARY:
                    self.output += message.data
                elif message.type == aiohttp.WSMsgType.TEXT:
                    self.controls.append(json.loads(message.data))
        self.closed.set()

    def control(self, kind: str) -> dict[str, Any] | None:
        return next((c for c in reversed(self.controls) if c.get("t") == kind), None)

    async def until_control(self, kind: str) -> dict[str, Any]:
        await until(lambda: self.control(kind) is not None, f"a {kind!r} frame from the front")
        control = self.control(kind)
        assert control is not None
        return control

    async def until_shown(self, text: bytes, what: str) -> None:
        await until(lambda: text in self.output, f"{what} ({text!r} on the page's terminal)")

    async def type(self, data: bytes) -> None:
        await self.socket.send_bytes(data)

    async def resize(self, cols: int, rows: int) -> None:
        await self.socket.send_str(json.dumps({"t": "resize", "cols": cols, "rows": rows}))

    async def close(self) -> None:
        await self.socket.close()
        await self.http.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, PATIENCE)


async def private_table(host: TestClient, seats: int = 3, bots: int = 1) -> tuple[int, str]:
    await host.send(CreateTable(name="friends", seats=seats, bots=bots, private=True))
    table = (await host.expect("table"))["table"]
    return int(table["id"]), str(table["code"])


# --- the page ---------------------------------------------------------------------------------------
async def test_the_page_comes_with_its_own_files_over_tls_with_the_servers_certificate(rig: WebRig) -> None:
    """GET /, /t/CODE and /watch/CODE: the page in the browser's language, its invite code in its
    settings, scripts only from this server (CSP), no framing; xterm.js from the package; a code that
    cannot be one is 404; the TLS certificate is the one TCP players pin."""
    async with aiohttp.ClientSession() as http:
        async with http.get(rig.url + "/", ssl=insecure(), headers={"Accept-Language": "de-CH, en;q=0.5"}) as page:
            assert page.status == 200
            text = await page.text()
            assert '<html lang="de">' in text and "Erneut verbinden" in text
            csp = page.headers["Content-Security-Policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
            assert page.headers["Cache-Control"] == "no-store"
        script = re.search(r'<script src="(/static/xterm\.js\?v=\w+)"', text)
        assert script is not None
        async with http.get(rig.url + script.group(1), ssl=insecure()) as xterm:
            assert xterm.status == 200 and xterm.headers["Content-Type"].startswith("text/javascript")
            assert b"e.Terminal=" in await xterm.read()  # the bundle that defines Terminal
        async with http.get(rig.url + "/t/k7qx2m", ssl=insecure()) as table:
            config = _page_config(await table.text())
            assert config["code"] == "K7QX2M" and config["watch"] is False and config["auth"] == "any-key"
        async with http.get(rig.url + "/watch/K7QX2M", ssl=insecure()) as watch:
            assert _page_config(await watch.text())["watch"] is True
        _reader, writer = await asyncio.open_connection("127.0.0.1", rig.front.port, ssl=client_context())
        assert peer_fingerprint(writer.get_extra_info("ssl_object")) == rig.server.fingerprint
        writer.close()
        for bad in ("/t/K7QX2", "/t/K7QX2M1", "/t/K7QX0M", "/static/../web.py", "/static/nothing.js"):
            async with http.get(rig.url + bad, ssl=insecure()) as missing:
                assert missing.status == 404, bad


def _page_config(page: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="config">(.*?)</script>', page, re.DOTALL)
    assert match is not None
    config: dict[str, Any] = json.loads(match.group(1))
    return config


def test_the_browsers_language_and_invite_codes_are_read_as_the_other_fronts_read_them() -> None:
    assert language_from_accept("de-DE,de;q=0.9,en;q=0.8") == "de"
    assert language_from_accept("fr-FR, vi;q=0.7, de;q=0.6") == "vi"  # French is not offered: the next
    assert language_from_accept("en;q=0.2, ne;q=0.9") == "ne"
    assert language_from_accept("*, gl;q=0") == "en" and language_from_accept("") == "en"
    assert language_from_accept("de;q=abc, af") == "af"
    assert invite_code(" k7qx2m ") == "K7QX2M" and invite_code("K7QX2") is None and invite_code("K7QX0M") is None
    # the links shown to other players name the host the browser used, when it is a host name or address
    assert invite_links("ono.example:8443", 2222) == ("https://ono.example:8443/t/{code}",
                                                      "ssh -p 2222 {code}@ono.example")
    assert invite_links("[::1]:8443", 22) == ("https://[::1]:8443/t/{code}", "ssh {code}@::1")
    assert invite_links("ono.example", None) == ("https://ono.example/t/{code}",)
    assert invite_links("ono.example\x1b[31m", 2222) == () and invite_links("a b", 2222) == ()


# --- sessions ---------------------------------------------------------------------------------------
async def test_a_guest_keeps_a_token_and_comes_back_to_the_seat_after_a_reload(rig: WebRig) -> None:
    """A websocket with no name asks for one (the name screen says the browser keeps the seat); the
    front then sends the name and token to keep. Opened with the invite code it joins that table;
    the socket closed and opened again with the kept token (a reload) is back in the same seat, with
    no name asked."""
    host = await rig.host()
    _table, code = await private_table(host)
    page = await WsPlayer.connect(rig.url, code=code)
    try:
        await page.until_shown(b"This browser keeps your seat", "the name screen")
        await page.type(b"Wren\r")
        guest = await page.until_control("guest")
        assert guest["name"] == "Wren" and len(guest["resume"]) >= 16
        await host.expect("table", where=lambda m: any(s["name"] == "Wren" for s in m["table"]["seats"]))
        session = await rig.session_playing("Wren")
        await until(lambda: session.app is not None and isinstance(session.app.screen, TableScreen), "the table")
        assert session.app is not None and session.app.model.table is not None
        seat = session.app.model.table.you
        assert seat is not None
    finally:
        await page.close()
    await host.expect("table", where=lambda m: m["table"]["seats"][seat]["connected"] is False)
    again = await WsPlayer.connect(rig.url, name=guest["name"], resume=guest["resume"])
    try:
        await host.expect("table", where=lambda m: m["table"]["seats"][seat]["connected"] is True)
        back = await rig.session_playing("Wren")
        await until(lambda: back.app is not None and back.app.model.table is not None
                    and back.app.model.table.you == seat, "the same seat again")
        assert b"This browser keeps your seat" not in again.output  # no name was asked
    finally:
        await again.close()
        await host.close()


async def test_keys_paste_resize_and_the_farewell_reach_the_page(rig: WebRig) -> None:
    """Keys and a bracketed paste typed in the page's terminal reach the app; a resize lays it out
    again; q leaves, and the page is told why the session ended (it shows that and a button to
    connect again)."""
    page = await WsPlayer.connect(rig.url, cols=90, rows=28)
    try:
        await page.until_shown(b"This browser keeps your seat", "the name screen")
        await page.type(b"\x1b[200~Pasted Name\x1b[201~")
        await page.type(b"\r")
        await page.until_control("guest")
        session = await rig.session_playing("Pasted Name")
        await until(lambda: session.app is not None and isinstance(session.app.screen, LobbyScreen), "the lobby")
        await page.resize(120, 40)
        await until(lambda: session.app is not None and tuple(session.app.size) == (120, 40), "the new size")
        await page.type(b"q")
        bye = await page.until_control("bye")
        assert bye["text"] == "Bye."
        await asyncio.wait_for(page.closed.wait(), PATIENCE)
    finally:
        await page.close()


async def test_a_websocket_from_another_sites_page_is_refused(rig: WebRig) -> None:
    """A page elsewhere cannot open a session in its visitor's name: its Origin is refused (403)."""
    with pytest.raises(aiohttp.WSServerHandshakeError) as info:
        await WsPlayer.connect(rig.url, headers={"Origin": "https://elsewhere.example"})
    assert info.value.status == 403


async def test_password_mode_asks_on_the_page_and_keys_mode_refuses_browsers(tmp_path: Path) -> None:
    """--auth password: the page asks (its settings say so); a socket without the password or with a
    wrong one is told to ask again, the right one plays. --auth authorized-keys: a browser proves no
    key, so it is refused with the way in over SSH."""
    rig = await start_web_rig(tmp_path, SshSettings(auth="password", password="open sesame"))
    try:
        async with aiohttp.ClientSession() as http, http.get(rig.url + "/", ssl=insecure()) as page:
            assert _page_config(await page.text())["auth"] == "password"
        for offered, said in (("", "asks for a password"), ("wrong", "wrong password")):
            attempt = await WsPlayer.connect(rig.url, password=offered)
            try:
                assert said in (await attempt.until_control("password"))["text"]
                await asyncio.wait_for(attempt.closed.wait(), PATIENCE)
            finally:
                await attempt.close()
        right = await WsPlayer.connect(rig.url, password="open sesame")
        try:
            await right.until_shown(b"This browser keeps your seat", "the name screen")
        finally:
            await right.close()
    finally:
        await rig.close()
    keys = tmp_path / "authorized_keys"
    from ono99_kernel.ssh_library import asyncssh

    keys.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
    rig = await start_web_rig(tmp_path / "keys", SshSettings(auth="authorized-keys", authorized_keys=keys))
    rig.front.access.ssh_hint = "ssh -p 2222 HOST"  # as an SSH front in the same process says it
    try:
        refused = await WsPlayer.connect(rig.url)
        try:
            text = (await refused.until_control("refused"))["text"]
            assert "only the keys its host listed" in text and "ssh -p 2222 127.0.0.1" in text
        finally:
            await refused.close()
    finally:
        await rig.close()


async def test_sessions_per_address_and_idle_sessions_are_limited(tmp_path: Path) -> None:
    """The SSH limits hold for browsers: past --ssh-max-per-address sessions from one address the
    next is refused with the reason; a session with no key pressed is closed after the idle time.
    Two fronts: the refusal is looked for where nobody goes idle during the test (on a busy machine
    an idle session could end, and free its slot, before the third page arrives)."""
    (tmp_path / "limit").mkdir()
    (tmp_path / "idle").mkdir()
    rig = await start_web_rig(tmp_path / "limit", SshSettings(max_sessions_per_address=2, idle_timeout=3600.0))
    pages: list[WsPlayer] = []
    try:
        for _ in range(2):
            pages.append(await WsPlayer.connect(rig.url))
            await pages[-1].until_shown(b"This browser keeps your seat", "the name screen")
        pages.append(await WsPlayer.connect(rig.url))
        assert "too many sessions from 127.0.0.1" in (await pages[-1].until_control("refused"))["text"]
    finally:
        for page in pages:
            await page.close()
        await rig.close()
    # idle after 2 s: drawing the name screen comes first, whatever the machine's load (the bye waits for it)
    rig = await start_web_rig(tmp_path / "idle", SshSettings(idle_timeout=2.0))
    try:
        page = await WsPlayer.connect(rig.url)
        try:
            await page.until_shown(b"This browser keeps your seat", "the name screen")
            bye = await page.until_control("bye")
            assert "without a key pressed" in bye["text"]
        finally:
            await page.close()
    finally:
        await rig.close()


async def test_ono99_serve_runs_the_web_front_in_its_workers_and_a_guest_outlives_its_kill_9(tmp_path: Path) -> None:
    """A real ``ono99 serve`` with a web port: its banner says where to point a browser and which
    certificate it shows, and a websocket reaches a worker's app over the server's certificate. The
    page's guest sits at a private table; the server is killed with SIGKILL: the page is told the game
    server stopped and that the seat is kept; the server started again on its database, the page's
    kept token brings the guest back to the same seat."""
    web_port = free_port()
    server = ServerProcess(tmp_path / "x.db", tmp_path / "serve.log", "--web-port", str(web_port),
                           "--ssh-workers", "1", "--no-advertise")
    host: Client | None = None
    try:
        await server.start()
        banner = "".join(server.banner)
        assert f"play in a browser: https://127.0.0.1:{web_port}/" in banner
        assert f"web: port {web_port} (open to anyone: browsers play as guests), certificate {server.fingerprint}" \
            in banner
        host = await Client.connect("127.0.0.1", server.port, "Tess", timeout=TIMEOUT,
                                    trust=ServerTrust.pinned(server.fingerprint))
        await host.send(CreateTable(name="friends", seats=3, bots=1, private=True))
        code = (await host.expect("table"))["table"]["code"]
        page = await WsPlayer.connect(f"https://127.0.0.1:{web_port}", code=code)
        try:
            await page.until_shown(b"This browser keeps your seat", "the name screen")
            await page.type(b"Ines\r")
            guest = await page.until_control("guest")
            assert guest["name"] == "Ines"
            seated = await host.expect("table", where=lambda m: any(s["name"] == "Ines" for s in m["table"]["seats"]))
            await page.until_shown(b"friends", "the table on the page: its app knows the seat it would keep")
            seat = next(i for i, s in enumerate(seated["table"]["seats"]) if s["name"] == "Ines")
            # a seat is shown once it is saved, as moves are: the table's row holds the guest already
            assert saved_seat_names(tmp_path / "x.db") >= {"Ines"}
            await host.close()
            host = None
            await server.kill9()
            bye = await page.until_control("bye")
            assert bye["text"] == "The game server stopped unexpectedly. Your seat is kept: connect again in a moment."
        finally:
            await page.close()
        await until(lambda: port_is_free(web_port), "the workers of the killed server to let the web port go",
                    timeout=3 * PATIENCE)  # each worker says goodbye to its sessions first, slower on a busy machine
        await server.start()
        back = await WsPlayer.connect(f"https://127.0.0.1:{web_port}", name=guest["name"], resume=guest["resume"])
        try:
            await back.until_control("guest")
            host = await Client.connect("127.0.0.1", server.port, "Uma", timeout=TIMEOUT,  # Tess's seat waits too
                                        trust=ServerTrust.pinned(server.fingerprint))
            await host.send(Spectate(code=code))
            table = await host.expect("table")
            assert table["table"]["seats"][seat]["name"] == "Ines" and table["table"]["seats"][seat]["connected"]
            assert b"This browser keeps your seat" not in back.output  # no name was asked
        finally:
            await back.close()
    finally:
        if host is not None:
            await host.close()
        await server.stop()


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# --- a real browser ---------------------------------------------------------------------------------
@contextlib.asynccontextmanager
async def chromium(locale: str | None = None) -> AsyncIterator[Any]:
    """Headless Chromium from Debian's package, with a profile of its own; no browser is downloaded."""
    from playwright.async_api import async_playwright

    assert shutil.which(CHROMIUM), "the tests need Debian's chromium package (apt-get install chromium)"
    with tempfile.TemporaryDirectory(prefix="ono99-chromium-") as profile:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, ignore_https_errors=True,
                viewport={"width": 1000, "height": 640}, locale=locale)
            try:
                yield browser
            finally:
                await browser.close()


async def screen_text(page: Any) -> str:
    """The page's terminal as text, from xterm.js's buffer (whichever renderer draws it)."""
    text: str = await page.evaluate("""() => {
        const buffer = window.ono99Terminal.buffer.active;
        const lines = [];
        for (let i = 0; i < buffer.length; i++) { lines.push(buffer.getLine(i).translateToString(true)); }
        return lines.join("\\n");
    }""")
    return text


async def until_on_page(page: Any, text: str, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    while text not in await screen_text(page):
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what} ({text!r} on the page)")
        await asyncio.sleep(0.05)


async def paste(page: Any, text: str) -> None:
    """Paste ``text`` into the page's terminal, as the browser does for Ctrl+V: a paste event on the
    terminal's input element."""
    await page.evaluate("""text => {
        const data = new DataTransfer();
        data.setData("text/plain", text);
        document.querySelector(".xterm-helper-textarea").dispatchEvent(
            new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
    }""", text)


async def open_and_name(page: Any, url: str, name: str) -> None:
    """Open ``url`` in the page, wait for the name screen and give ``name`` (pasted, then Enter)."""
    await page.goto(url)
    await until_on_page(page, "Your name at the tables", "the name screen")
    await paste(page, name)
    await page.keyboard.press("Enter")


async def cell_point(page: Any, column: float, row: float) -> tuple[float, float]:
    """The page's pixel at a cell of the terminal (fractions reach into the cell)."""
    box = await page.evaluate("""() => {
        const r = document.querySelector(".xterm-screen").getBoundingClientRect();
        return [r.left, r.top, r.width, r.height];
    }""")
    cols, rows = await page.evaluate("[window.ono99Terminal.cols, window.ono99Terminal.rows]")
    return box[0] + column * box[2] / cols, box[1] + row * box[3] / rows


async def click_cell(page: Any, column: float, row: float) -> None:
    """A click at a cell of the terminal, as the browser's pixels go."""
    await page.mouse.click(*await cell_point(page, column, row))


async def test_a_browser_joins_by_link_plays_a_card_and_a_reload_returns_to_the_seat(rig: WebRig,
                                                                                      tmp_path: Path) -> None:
    """Chromium opens the invite link /t/CODE, pastes a name, sits at the friends' table, and plays a
    card by clicking it when its turn comes (the host, a TCP client, sees the play); a smaller window
    makes a smaller terminal for the app; a reload of the page comes back to the same seat without
    asking the name; a connection that drops shows the button that connects again, and it does."""
    host = await rig.host()
    _table, code = await private_table(host)
    async with chromium() as browser:
        page = browser.pages[0] if browser.pages else await browser.new_page()
        await open_and_name(page, f"{rig.url}/t/{code}", "Wren")
        await host.expect("table", where=lambda m: any(s["name"] == "Wren" for s in m["table"]["seats"]))
        session = await rig.session_playing("Wren")
        await until(lambda: session.app is not None and isinstance(session.app.screen, TableScreen), "the table")
        assert session.app is not None and session.app.model.table is not None
        seat = session.app.model.table.you
        assert seat is not None
        await host.send(Start())
        hosting = asyncio.create_task(play(host, random.Random(7)))
        try:
            await until(lambda: session.app is not None and key_for_turn(session.app) is not None, "Wren's turn")
            app = session.app
            assert app is not None
            key = key_for_turn(app)
            assert key is not None
            card = None
            if key.isdigit():  # a card to play: click it, once the cards dealt are laid out where they show
                widget = list(app.screen.query(CardWidget))[int(key) - 1]
                await until(lambda: widget.region.width > 0, "the card's place on the screen")
                card = widget.region
                await click_cell(page, card.x + card.width / 2, card.y + card.height / 2)
            else:  # the four-card discard or a draw has no card to click
                await page.keyboard.press(key)
            try:
                await until(lambda: _played(host, seat), "the host seeing Wren's move")
            except AssertionError:
                await page.screenshot(path=str(tmp_path / "no-move.png"))
                raise AssertionError(f"no move after {key} at {card if key.isdigit() else '-'}; the page shows:\n"
                                     f"{await screen_text(page)}") from None
            shot = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "web-table.png")
            await page.screenshot(path=str(shot))
            assert shot.read_bytes().startswith(b"\x89PNG")
            wide = (app.size.width, app.size.height)
            await page.set_viewport_size({"width": 800, "height": 520})
            cols, rows = wide
            while cols >= wide[0]:  # polled: the page's CSP refuses Playwright's evaluated wait predicates
                cols, rows = await page.evaluate("[window.ono99Terminal.cols, window.ono99Terminal.rows]")
                await asyncio.sleep(0.02)
            await until(lambda: tuple(app.size) == (cols, rows), f"the app laid out at {cols}×{rows}, not {wide}")
            await page.reload()
            await until_on_page(page, "Wren", "the table again")
            back = await rig.session_playing("Wren")
            await until(lambda: back.app is not None and back.app.model.table is not None
                        and back.app.model.table.you == seat, "the same seat after the reload")
            assert "Your name at the tables" not in await screen_text(page)
            stored = json.loads(await page.evaluate("localStorage.getItem('ono99.guest')"))
            assert stored["name"] == "Wren"
            await back.socket.close()  # the connection drops: no farewell reaches the page
            await page.wait_for_selector("#reconnect", state="visible", timeout=PATIENCE * 1000)
            assert await page.inner_text("#message") == "The connection was lost."
            await page.click("#reconnect")
            await until(lambda: any(s.app is not None and s is not back and s.app.player_name == "Wren"
                                    for s in rig.front.sessions), "a new session after the button")
            assert await page.is_hidden("#overlay")
        finally:
            hosting.cancel()
            with contextlib.suppress(BaseException):
                await hosting
    await host.close()


def plays_seen(host: TestClient, seat: int) -> int:
    """How many plays (or four-card discards) of ``seat`` the host has seen."""
    return sum(1 for message in host.received if message.get("t") == "state"
               for event in message.get("events", []) if event.get("seat") == seat and event.get("e") == "play")


def _played(host: TestClient, seat: int) -> bool:
    """The host has seen a card played by ``seat`` (or its four-card discard)."""
    return plays_seen(host, seat) > 0


# --- a mixed table ----------------------------------------------------------------------------------
@dataclass
class MixedRig:
    """A game server with an SSH front and a web front in one process, as a front worker runs them."""

    server: Server
    front: SshFront
    web: WebFront

    async def close(self) -> None:
        await self.web.close()
        await self.front.close()
        await self.server.close()


async def start_mixed_rig(tmp_path: Path, db_path: Path | None = None) -> MixedRig:
    """A game server (its database ``db_path``; None: none), its SSH front and its web front."""
    values: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "bot_delay": 0, "default_turn_seconds": 0,
                              "grace_seconds": 120, "db_path": db_path, "tls_cert": tmp_path / "tls_cert.pem",
                              "tls_key": tmp_path / "tls_key.pem", "front_credentials": (CREDENTIAL,),
                              "ssh": SshSettings(host_key=tmp_path / "host_key")}
    server = Server(ServerConfig(**values))
    await server.start()
    config = front_config_for(server.config, server.port, server.fingerprint, CREDENTIAL)
    config.ssh_port, config.web_host, config.web_port = 0, "127.0.0.1", 0
    front = SshFront(config)
    await front.start()
    web = WebFront(config, server.load_certificate(), access=front.access, opening=front.opening)
    web.ssh_port = front.port
    await web.start()
    return MixedRig(server, front, web)


class WebKeys:
    """A websocket player as tests/test_ssh.py's helpers drive a player: its app, keys, waits."""

    def __init__(self, page: WsPlayer, session: WebSession) -> None:
        self.page = page
        self.session = session

    @property
    def app(self) -> WebSessionApp:
        app = self.session.app
        assert app is not None, "the session has ended"
        return app

    async def press(self, *keys: str) -> None:
        for key in keys:
            await self.page.type(key.encode())

    async def until(self, condition: Callable[[WebSessionApp], Any], what: str) -> None:
        await until(lambda: self.session.app is not None and condition(self.session.app), what)


def record_plays(app: SessionApp, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, tuple[str, ...], int]]:
    """Every play the app is handed from now on, as (seat, cards, total), in order."""
    plays: list[tuple[int, tuple[str, ...], int]] = []
    handle = app.handle

    def recording(message: Any) -> None:
        if isinstance(message, State):
            plays.extend((e.seat, e.cards, e.total) for e in message.events if isinstance(e, PlayEvent))
        handle(message)

    monkeypatch.setattr(app, "handle", recording)
    return plays


@pytest.mark.long
async def test_a_browser_an_ssh_player_and_a_tcp_player_play_a_game_to_its_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One table, three ways in: a page's websocket, an SSH session and a protocol client over TCP,
    with a bot. The TCP player hosts a private table; the others come by its invite code (the page
    by its link, the SSH player as the user name). They play the whole game with their keys, and each
    is handed every play once, in the order the host saw them."""
    rig = await start_mixed_rig(tmp_path, tmp_path / "x.db")
    server, front, web = rig.server, rig.front, rig.web
    host = await TestClient.connect("127.0.0.1", server.port, "Tess", timeout=TIMEOUT)
    assert isinstance(host, TestClient)
    page: WsPlayer | None = None
    ssh_player: Player | None = None
    try:
        _table, code = await private_table(host, seats=4, bots=1)
        page = await WsPlayer.connect(f"https://127.0.0.1:{web.port}", code=code)
        await page.until_shown(b"This browser keeps your seat", "the name screen")
        await page.type(b"Wren\r")
        await host.expect("table", where=lambda m: any(s["name"] == "Wren" for s in m["table"]["seats"]))
        browser = WebKeys(page, next(s for s in web.sessions if s.app is not None))
        ssh_player = await Player.connect(rig, code, key=None)  # a guest: asked a name
        await ssh_player.until_shown(b"Your name at the tables", "the SSH name screen")
        await ssh_player.type("Sam\r")
        await host.expect("table", where=lambda m: all(s["kind"] != "empty" for s in m["table"]["seats"]))
        seen = {"Wren": record_plays(browser.app, monkeypatch), "Sam": record_plays(ssh_player.app, monkeypatch)}
        link = f"https://127.0.0.1:{web.port}/t/{code}"
        assert browser.app.model.invite_links == (f"https://127.0.0.1:{web.port}/t/{{code}}",
                                                  f"ssh -p {front.port} {{code}}@127.0.0.1")
        await page.until_shown(link.encode(), "the invite link on the table's banner")
        await host.send(Start())
        log = PlayLog()
        tcp = asyncio.create_task(play(host, random.Random(3), log=log))
        await asyncio.gather(play_through_keys(browser), play_through_keys(ssh_player))
        await asyncio.wait_for(tcp, PATIENCE)
        heard = [(e["seat"], tuple(e["cards"]), e["total"]) for s in log.states for e in s["events"]
                 if e["e"] == "play"]
        assert heard and log.last_view["winner"] is not None
        for name, plays in seen.items():
            assert plays == heard, f"{name} was handed the plays {plays}, the host saw {heard}"
    finally:
        if ssh_player is not None:
            await ssh_player.close()
        if page is not None:
            await page.close()
        await host.close()
        await rig.close()


@pytest.mark.long
async def test_ono99_front_elsewhere_serves_browsers_with_a_certificate_of_its_own(tmp_path: Path) -> None:
    """``ono99 front`` for a game server elsewhere: without --web-cert it makes a certificate once in
    its data directory and says its fingerprint; a page's websocket plays through it on that server."""
    credential_file = tmp_path / "fronts.credential"
    server = ServerProcess(tmp_path / "x.db", tmp_path / "serve.log", "--front-credential-file",
                           str(credential_file), "--no-advertise")
    front: asyncio.subprocess.Process | None = None
    try:
        await server.start()
        web_port = free_port()
        data = tmp_path / "front-data"
        front = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "ono99_tui.cli", "front", "--server", f"127.0.0.1:{server.port}",
            "--server-fingerprint", server.fingerprint, "--credential-file", str(credential_file),
            "--ssh-host", "127.0.0.1", "--ssh-port", str(free_port()), "--host-key", str(tmp_path / "host_key"),
            "--web-host", "127.0.0.1", "--web-port", str(web_port),
            env={**os.environ, "ONO99_DATA_DIR": str(data)}, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL)
        assert front.stdout is not None
        line = ""
        while "ONO 99 web front" not in line:
            line = (await asyncio.wait_for(front.stdout.readline(), PATIENCE)).decode()
            assert line, "the front exited"
        certificate = load_certificate(data / "web_tls_cert.pem", data / "web_tls_key.pem")
        assert f"https://HOST:{web_port}/, certificate {certificate.fingerprint}" in line
        assert certificate.fingerprint != server.fingerprint
        page = await WsPlayer.connect(f"https://127.0.0.1:{web_port}")
        try:
            await page.until_shown(b"This browser keeps your seat", "the name screen")
            await page.type(b"Remy\r")
            await page.until_shown(b"you are", "the lobby of the server elsewhere")
        finally:
            await page.close()
    finally:
        if front is not None and front.returncode is None:
            front.terminate()
            await asyncio.wait_for(front.wait(), PATIENCE)
        await server.stop()


async def test_the_browsers_language_is_the_sessions(rig: WebRig) -> None:
    """Chromium asking for German (Accept-Language de-DE) gets the page and the app in German."""
    async with chromium(locale="de-DE") as browser:
        page = browser.pages[0] if browser.pages else await browser.new_page()
        await page.goto(rig.url + "/")
        assert await page.get_attribute("html", "lang") == "de"
        await until_on_page(page, "Dein Name an den Tischen", "the name screen in German")


async def test_connections_that_hold_places_without_a_session_are_limited(tmp_path: Path) -> None:
    """aiohttp counts no connections: the front does. Tried: with one session allowed per address,
    the address's connections past 2 per session and 8 for the page are closed at once, while the
    others stay (the page loads again once they are gone); with a login time of 1 s, a connection
    that sends no request is closed."""
    rig = await start_web_rig(tmp_path, SshSettings(max_sessions_per_address=1))
    held: list[asyncio.StreamWriter] = []
    try:
        for _ in range(2 * 1 + 8):
            _reader, writer = await asyncio.open_connection("127.0.0.1", rig.front.port, ssl=client_context())
            held.append(writer)
        await until(lambda: rig.front.open_connections == 10, "ten connections counted")
        reader, writer = await asyncio.open_connection("127.0.0.1", rig.front.port, ssl=client_context())
        held.append(writer)
        assert await asyncio.wait_for(reader.read(1), PATIENCE) == b""  # one too many: closed
        assert rig.front.open_connections == 10  # the others are still there (the login time is 30 s)
        for writer in held:
            writer.close()
        await until(lambda: rig.front.open_connections == 0, "the held connections to be closed")
        async with aiohttp.ClientSession() as http, http.get(rig.url + "/", ssl=insecure()) as page:
            assert page.status == 200
    finally:
        for writer in held:
            writer.close()
        await rig.close()
    rig = await start_web_rig(tmp_path / "quick", SshSettings(login_timeout=1.0))
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", rig.front.port, ssl=client_context())
        assert await asyncio.wait_for(reader.read(1), PATIENCE) == b""  # silent: closed after the login time
        writer.close()
    finally:
        await rig.close()


async def watch_in_a_browser(rig: WebRig, name: str, size: tuple[int, int] = (100, 30)) -> WsPlayer:
    """A browser's guest ``name`` who, in the lobby, watches the one table listed (s)."""
    page = await WsPlayer.connect(rig.url, cols=size[0], rows=size[1])
    await page.until_shown(b"Your name at the tables", f"{name}'s name screen")
    await page.type(name.encode() + b"\r")
    await until(lambda: any(s.app is not None and s.app.player_name == name and isinstance(s.app.screen, LobbyScreen)
                            and bool(s.app.model.tables) for s in rig.front.sessions), f"{name}'s lobby with the table")
    await page.type(b"s")
    await page.until_shown(b"spectating", f"{name} watching")
    return page


async def test_browser_spectators_with_the_same_screen_share_one_app_and_a_key_takes_one_back(
        tmp_path: Path) -> None:
    """Bea and Cy watch a table in their browsers at 100×30, Dan at 80×24, while Tess and Gus play
    over TCP. Tried: Bea and Cy share one group's app (their own apps held), Dan's screen is drawn by
    a group of its own; a move drawn by the shared app reaches both their pages; Bea's key gives her
    her own app back while Cy stays in the group; with the host's shared screens off, no browser tab
    shares."""
    await watched_in_browsers(tmp_path / "shared", shared=True)
    await watched_in_browsers(tmp_path / "private", shared=False)


async def watched_in_browsers(tmp_path: Path, shared: bool) -> None:
    from ono99_tui.front.sharing import Group
    from tests.test_ssh_shared import play_slowly

    rig = await start_web_rig(tmp_path, SshSettings(shared_screens=shared))
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    guest = await Client.connect("127.0.0.1", rig.server.port, "gus")
    pages: list[WsPlayer] = []
    game: asyncio.Future[tuple[None, None]] | None = None
    sharing = rig.front.sharing

    def group_of(name: str) -> Group | None:
        return sharing.group_of.get(rig.session_of(name))

    def own_app(name: str) -> WebSessionApp:
        app = rig.session_of(name).app
        assert app is not None
        return app

    try:
        await host.send(CreateTable(name="watched", seats=2, turn_seconds=0))
        table = (await host.expect("table"))["table"]
        await guest.send(Join(table=table["id"]))
        await guest.expect("table")
        bea = await watch_in_a_browser(rig, "bea")
        cy = await watch_in_a_browser(rig, "cy")
        dan = await watch_in_a_browser(rig, "dan", size=(80, 24))
        pages += [bea, cy, dan]
        await host.send(Start())
        game = asyncio.gather(play_slowly(host), play_slowly(guest))
        if not shared:
            seq = own_app("bea").model.seq
            await until(lambda: own_app("bea").model.seq > seq + 2, "moves in Bea's own app")
            assert not sharing.groups and not sharing.group_of
            return
        await until(lambda: group_of("bea") is not None and group_of("bea") is group_of("cy"),
                    "Bea and Cy in one group")
        group = group_of("bea")
        assert group is not None and len(group.members) == 2 and own_app("bea").screen_held
        await until(lambda: group_of("dan") is not None, "Dan in a group")
        assert group_of("dan") is not group and len(sharing.groups) == 2
        seen = group.app.model.seq
        marks = [len(bea.output), len(cy.output)]
        await until(lambda: group.app.model.seq > seen, "a move in the group's app")
        await until(lambda: len(bea.output) > marks[0] and len(cy.output) > marks[1], "the move on both pages")
        await bea.type(b"?")
        await until(lambda: group_of("bea") is None, "Bea's own app back")
        assert not own_app("bea").screen_held and group_of("cy") is group
    finally:
        if game is not None:
            game.cancel()
            await asyncio.gather(game, return_exceptions=True)
        for page in pages:
            await page.close()
        await host.close()
        await guest.close()
        await rig.close()
