"""The web front: ``https://HOST:8443/`` plays in the terminal app with only a browser.

An HTTPS listener (aiohttp) beside the SSH listener, in the same front processes. It serves one
page (xterm.js, shipped in ``web_static/``: nothing is fetched from elsewhere) and one websocket per
browser tab. Each websocket runs its own ``SessionApp``, the app an SSH session runs, drawing through
the same ``ChannelDriver``: the browser's terminal sends the bytes a terminal sends (keys, paste,
mouse reports) and draws the bytes the app writes. Each player has their own link to the game
server, as an SSH player has; the front is trusted to assert their address. A browser proves no key,
so its player is a guest; the page keeps the guest's resume token (``localStorage``) and offers it
again when the page is loaded again, which brings the player back to their seat.

The websocket speaks binary frames for terminal bytes both ways, and small JSON text frames for the
rest (docs/web.md): the page's ``open`` (size, stored name and token, password, invite code) and
``resize``; the front's ``guest`` (a name and token to keep), ``password`` (ask for it), ``refused``
and ``bye`` (the session is over: the page shows why and a button to connect again).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import weakref
from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from aiohttp import WSCloseCode, WSMsgType, web
from textual import events
from textual.widgets import Input

from ono99_kernel.access import AccessPolicy, refusal_pause
from ono99_kernel.tls import ServerCertificate
from ono99_kernel.wire.page import (
    Closing,
    KeepGuest,
    Open,
    PageMessage,
    PageRequest,
    Refusal,
    Resize,
    Typing,
    decode_page_request,
)
from ono99_kernel.wire.server import ServerMessage, Welcome

from ..client.connection import OtherNodes
from ..i18n import N_, normalize, using
from ..i18n import gettext as _
from ..reasons import render
from . import ssh_words, web_words
from .config import FrontConfig
from .door import PlayerLink, close_front_links, link_player
from .idle import IdleWatch
from .session_app import SessionApp
from .sharing import ScreenSharing, SharingSession, TapInbox, screen_typed_on, tap_link
from .ssh import CODE_ALPHABET, CODE_LENGTH
from .textual_driver import OUTPUT_BACKLOG, ChannelTerminal, keep_task_factory
from .web_page import PageAssets, language_from_accept, security_headers

log = logging.getLogger("ono99.web")

WEB_NAME_HELP = N_("Enter to go to the lobby · Esc to leave. This browser keeps your seat: loading the page again "
                   "brings you back to it.")
CLOSE_WAIT = 5.0  # seconds sessions get to say goodbye at shutdown
MAX_INPUT_FRAME = 64 * 1024  # bytes of one websocket message from the page (a paste is cut into several)
HEARTBEAT = 30.0  # seconds between websocket pings; an unanswered one closes the connection
CONNECTIONS_PER_SESSION = 2  # TCP connections an address may hold per session it may have (a tab's
CONNECTIONS_FOR_THE_PAGE = 8  # websocket, and the page's own requests, which a browser makes a few at a time)
TERM = "xterm-256color"
BROWSER_ENV = {"COLORTERM": "truecolor"}  # xterm.js draws 24-bit colour


HOST_HEADER = re.compile(r"(?P<name>[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::(?P<port>[0-9]{1,5}))?")


def invite_links(host: str, ssh_port: int | None) -> tuple[str, ...]:
    """The ways to a private table on the host a browser reached (its ``Host`` header, checked: it is
    shown to other players), with ``{code}`` for the invite code: the page's link, and the SSH command
    when this front also listens for SSH."""
    match = HOST_HEADER.fullmatch(host)
    if match is None:
        return ()
    links = [f"https://{host}/t/{{code}}"]
    if ssh_port:
        name = match.group("name").strip("[]")  # ssh takes an IPv6 address bare
        links.append(f"ssh {'' if ssh_port == 22 else f'-p {ssh_port} '}{{code}}@{name}")
    return tuple(links)


def invite_code(text: str) -> str | None:
    """``text`` as an invite code (upper case, the codes' alphabet and length), or None."""
    wanted = text.strip().upper()
    return wanted if len(wanted) == CODE_LENGTH and set(wanted) <= CODE_ALPHABET else None


class WebDoor:
    """How one browser's player enters the lobby: a guest, with the name and token the page kept."""

    fingerprint: str | None = None  # a browser proves no key
    play_now: tuple[str, int] | None = None
    arena = False
    maybe_name = False
    keys_kept = False
    name_help = WEB_NAME_HELP

    def __init__(self, front: WebFront, address: str, name: str, resume: str, code: str | None,
                 watch: bool) -> None:
        self.front = front
        self.server_name = front.config.name
        self.address = address
        self.code = code
        self.watch = watch and code is not None
        self.default_name = name
        # With a token the page kept, its name is tried at once: the token brings the player back (their
        # seat, their name); a stale token is a new hello under that name, which asks again if it is taken.
        self.name_hint: str | None = name if name and resume else None
        self._resume = resume or None
        self.link: PlayerLink | None = None
        self.tap: TapInbox | None = None  # the link's inbox, which a shared screen's app may be fed from

    async def enter(self, name: str, resume: str | None = None) -> PlayerLink | tuple[str, bool]:
        resume, self._resume = resume or self._resume, None
        result = await link_player(self.front.config, self.front.opening, self.address, None, name, resume,
                                   "ono99-web", OtherNodes.of(self.link) if resume else None)
        if isinstance(result, tuple):
            return result
        self.link = result
        self.tap = tap_link(result)
        log.info("web %s entered as %r", self.address, result.welcomed_name)
        return result

    async def leave(self) -> None:
        if self.link is not None:
            await self.link.close()  # the seat waits for the grace period, as for a dropped TCP client


class WebSessionApp(SessionApp):
    """A browser's app: a front session's, which tells the page the guest's name and token to keep,
    and whether a text box has the focus (a phone opens its soft keyboard only then)."""

    def __init__(self, terminal: ChannelTerminal, door: WebDoor, keep: Any,
                 typing: Callable[[bool], None] | None = None) -> None:
        self._keep = keep
        self._typing = typing
        self._typing_said = False  # what the page was last told (it starts without a keyboard)
        super().__init__(terminal, door)

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]  # SessionApp's runs after it
        self.screen_change_signal.subscribe(self, lambda _screen: self._say_typing())

    def handle(self, message: ServerMessage) -> None:
        super().handle(message)
        if isinstance(message, Welcome):
            self._keep(message.name, message.resume)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._say_typing()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._say_typing()

    def _say_typing(self) -> None:
        typing = isinstance(self.focused, Input)
        if typing != self._typing_said and self._typing is not None:
            self._typing_said = typing
            self._typing(typing)


class WebSession(SharingSession):
    """One websocket: the page's ``open``, the access policy, then the app until either end stops."""

    def __init__(self, front: WebFront, request: web.Request, socket: web.WebSocketResponse, address: str) -> None:
        self.front = front
        self.request = request
        self.socket = socket
        self.address = address
        self.language = language_from_accept(request.headers.get("Accept-Language", ""))
        self.terminal: ChannelTerminal | None = None
        self.app: WebSessionApp | None = None
        self.door: WebDoor | None = None
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self.last_words = ""
        self._out = bytearray()
        self._out_ready = asyncio.Event()
        self._reading = asyncio.Event()
        self._reading.set()
        self._idle = IdleWatch(self._last_game_update, self._idle_over)
        self._controls: set[asyncio.Task[None]] = set()
        self._typed_on: weakref.ref[object] | None = None  # the screen its app showed when the page last typed

    # --- the socket --------------------------------------------------------------------------------
    async def _control(self, message: PageMessage) -> None:
        if not self.socket.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.socket.send_str(json.dumps(message.to_wire()))

    def _send(self, data: bytes) -> None:
        if self.closed:
            return
        self._out += data
        self._out_ready.set()
        if len(self._out) > OUTPUT_BACKLOG:
            log.info("web %s: not taking its output, closing", self.address)
            self.closed = True
            self.end(web_words.too_slow())

    async def _write(self) -> None:
        """Send what the app drew, as one frame per turn of the loop: a redraw's writes travel together."""
        while True:
            await self._out_ready.wait()
            self._out_ready.clear()
            if not self._out:
                continue
            data, self._out = bytes(self._out), bytearray()
            try:
                await self.socket.send_bytes(data)  # waits while the browser does not take what was sent
            except (ConnectionError, RuntimeError):
                return

    def _keep_guest(self, name: str, resume: str) -> None:
        self._tell(KeepGuest(name=name, resume=resume))

    def _say_typing(self, text: bool) -> None:
        self._tell(Typing(text=text))

    def _tell(self, message: PageMessage) -> None:
        task = asyncio.get_running_loop().create_task(self._control(message))
        self._controls.add(task)  # held until sent: the loop keeps only a weak reference
        task.add_done_callback(self._controls.discard)

    # --- the session -------------------------------------------------------------------------------
    async def run(self) -> None:
        opened = await self._opening()
        if opened is None:
            return
        config = self.front.config
        cols, rows, door = opened
        self.terminal = ChannelTerminal(self._send, term=TERM, size=(cols, rows),
                                        env={**BROWSER_ENV, "LANG": self.language},
                                        bytes_per_second=config.ssh.input_bytes_per_second,
                                        burst=config.ssh.input_burst, pause_reading=self._reading.clear,
                                        resume_reading=self._reading.set)
        self.door = door
        self.app = WebSessionApp(self.terminal, door, self._keep_guest, self._say_typing)
        self.app.after_batch = lambda: self.front.sharing.consider(self)  # a spectator may share a screen
        self.app.model.invite_links = invite_links(self.request.host, self.front.ssh_port)
        self.front.sessions.add(self)
        self._idle.start(config.ssh.idle_timeout)
        writer = asyncio.create_task(self._write())
        self.task = asyncio.create_task(self._run(self.app, door))
        reader = asyncio.create_task(self._read())
        try:
            await asyncio.wait([self.task, reader], return_when=asyncio.FIRST_COMPLETED)
            if not self.task.done():  # the browser went away: the app ends, the seat waits for the grace period
                self.end("the connection was lost")
                await self.task
        finally:
            reader.cancel()
            writer.cancel()  # the farewell waited for the last frames already
            await asyncio.gather(reader, writer, *self._controls, return_exceptions=True)

    async def _opening(self) -> tuple[int, int, WebDoor] | None:
        """Read the page's ``open`` and apply the access policy: (columns, rows, door), or None once
        the page has been told why not."""
        config = self.front.config
        try:
            message = await self.socket.receive(timeout=config.ssh.login_timeout)
        except TimeoutError:
            return None
        opening = _page_request(message)
        if not isinstance(opening, Open):
            return None
        code = invite_code(opening.code)
        # the page's language, as its request's Accept-Language chose it (a websocket's own header may be
        # missing: a proxy, a browser that leaves it out); else the websocket's
        self.language = normalize(opening.lang) or self.language
        with using(self.language):
            refusal = self.front.refusal(self.address, opening.password, self.request.host)
            if refusal is not None:
                kind, text, pause = refusal
                await asyncio.sleep(pause)  # a wrong password's answer waits, as over SSH
                await self._control(Closing(kind=kind, text=text))
                return None
        return opening.cols, opening.rows, WebDoor(self.front, self.address, opening.name, opening.resume, code,
                                                   opening.watch)

    async def _read(self) -> None:
        async for message in self.socket:
            await self._reading.wait()  # a paste flood waits for the app to take what came before
            self._idle.touch()
            if message.type == WSMsgType.BINARY:
                if self.terminal is not None:
                    self.front.sharing.leave(self)  # its own app takes the key, and draws what it does
                    self._typed_on = screen_typed_on(self.app)
                    self.terminal.receive(message.data)
            elif message.type == WSMsgType.TEXT:
                control = _page_request(message)
                if isinstance(control, Resize) and self.terminal is not None:
                    self.front.sharing.leave(self)
                    self.terminal.resize(control.cols, control.rows)
            else:
                return

    async def _run(self, app: WebSessionApp, door: WebDoor) -> None:
        loop = asyncio.get_running_loop()
        try:
            keep_task_factory(loop, self.front.task_factory)
            await app.run_async(mouse=True, size=self.terminal.size if self.terminal else None)
        except Exception:
            log.exception("web %s: the session's app failed", self.address)
            app.farewell = ssh_words.game_failed(self.terminal.env if self.terminal else {})
        finally:
            self.front.sharing.leave(self, repaint=False)
            farewell = app.farewell
            self.app = None
            self.front.sessions.discard(self)
            self._idle.cancel()
            await self.say_farewell(farewell)
            await door.leave()

    async def say_farewell(self, farewell: str) -> None:
        """Tell the page the session is over, and why; then close the websocket."""
        if self.socket.closed:
            return
        await asyncio.sleep(0)  # the app's last frame first
        self._out_ready.set()
        for _round in range(100):
            if not self._out:
                break
            await asyncio.sleep(0.01)
        await self._control(Closing(kind="bye", text=farewell))
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self.socket.close()

    def end(self, reason: str) -> None:
        """Stop the app, which tells the page ``reason``."""
        self._idle.cancel()
        self.front.sharing.leave(self, repaint=False)  # its own app gives the terminal back
        app = self.app
        if app is not None:
            app.farewell = reason
            self.last_words = reason
            app.exit()

    # --- idle timeout (as an SSH session's) --------------------------------------------------------
    def _last_game_update(self) -> float:
        """When the session's screen last showed a running game's move (its link got it, if its app
        is held by a shared screen)."""
        tap = self.tap
        return max(self.app.last_game_update if self.app is not None else 0.0,
                   tap.last_game_update if tap is not None else 0.0)

    def _idle_over(self, timeout: float) -> None:
        log.info("web %s: idle, closing", self.address)
        self.end(ssh_words.idle_closed(self.terminal.env if self.terminal else {}, timeout / 60))


def _page_request(message: Any) -> PageRequest | None:
    """A websocket message from the page, read (``wire.page``); None for anything but a known text one."""
    return decode_page_request(message.data) if message.type == WSMsgType.TEXT else None


class WebFront:
    """The HTTPS listener of a front process: ``await start()``, then ``await close()``. ``access`` and
    ``opening`` are shared with the process's SSH front when there is one: one count of wrong
    passwords, one budget of links opening at once."""

    def __init__(self, config: FrontConfig, certificate: ServerCertificate, *, access: AccessPolicy | None = None,
                 opening: asyncio.Semaphore | None = None) -> None:
        self.config = config
        self.certificate = certificate
        self.access = access if access is not None else AccessPolicy.from_settings(config.ssh)
        self.opening = opening if opening is not None else asyncio.Semaphore(3)
        self.assets = PageAssets()
        self.sessions: set[WebSession] = set()
        self.task_factory: Any = None
        self.sharing = ScreenSharing(config.ssh.shared_screens, "web")  # spectators' screens drawn once for many
        self.ssh_port: int | None = None  # the SSH port of this process's SSH front, for invite links
        self.closing = False
        self._per_address: Counter[str] = Counter()
        self._sockets = 0
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None
        self._connections: Counter[str] = Counter()  # open TCP connections by address, websockets or not

    @property
    def port(self) -> int:
        assert self._listener is not None and self._listener.sockets, "the web front does not listen"
        return int(self._listener.sockets[0].getsockname()[1])

    async def start(self) -> None:
        self.task_factory = self.sharing.task_factory = asyncio.get_running_loop().get_task_factory()
        app = web.Application(middlewares=[security_headers], client_max_size=4096)
        app.router.add_get("/", self._page)
        app.router.add_get("/t/{code}", self._page)
        app.router.add_get("/watch/{code}", self._page)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/static/{name}", self.assets.serve)
        app.router.add_get("/favicon.ico", _no_icon)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        handlers = self._runner.server
        assert handlers is not None
        # aiohttp's own site, with each connection counted first (aiohttp limits none)
        self._listener = await asyncio.get_running_loop().create_server(
            lambda: CountedConnection(handlers(), self), self.config.web_host or None, self.config.web_port or 0,
            ssl=self.certificate.context(), ssl_handshake_timeout=self.config.ssh.login_timeout,
            reuse_port=self.config.reuse_port or None)

    # --- the page ----------------------------------------------------------------------------------
    async def _page(self, request: web.Request) -> web.Response:
        code: str | None = None
        if "code" in request.match_info:
            code = invite_code(request.match_info["code"])
            if code is None:
                raise web.HTTPNotFound()
        language = language_from_accept(request.headers.get("Accept-Language", ""))
        return self.assets.page(language, code=code, watch=request.path.startswith("/watch/"),
                                auth=self.access.mode, server_name=self.config.name)

    # --- the websocket -----------------------------------------------------------------------------
    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        if not _same_origin(request):  # another site's page may not open a session in its visitor's name
            raise web.HTTPForbidden()
        address = request.remote or "?"
        socket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_INPUT_FRAME, compress=False)
        await socket.prepare(request)
        why = self.admit(address)
        if why is not None:
            log.warning("web %s: refused: %s", address, why)
            await socket.send_str(json.dumps(Closing(kind="refused", text=why).to_wire()))
            await socket.close(code=WSCloseCode.TRY_AGAIN_LATER)
            return socket
        session = WebSession(self, request, socket, address)
        try:
            await session.run()
        finally:
            self.release(address)
            if not socket.closed:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await socket.close()
        return socket

    def refusal(self, address: str, password: str, host: str) -> tuple[Refusal, str, float] | None:
        """Whether the access policy lets this browser in: None, or the kind of answer (``password``: ask
        again; ``refused``: no), why, in the current language, and how long to wait before saying so."""
        mode = self.access.mode
        if mode == "any-key":
            return None
        if mode == "authorized-keys":  # a browser proves no key
            match = HOST_HEADER.fullmatch(host)
            hint = self.access.ssh_hint.replace("HOST", match.group("name").strip("[]") if match else "HOST")
            return "refused", render("access_denied", {"why": "no_key", "ssh": hint}, ""), 0.0
        refusal = self.access.decide(None, password or None, address)
        if refusal is None:
            return None
        pause = refusal_pause(refusal.params) if password else 0.0  # no password yet: just ask for it
        return "password", render("access_denied", refusal.params, str(refusal)), pause

    # --- limits ------------------------------------------------------------------------------------
    def admit(self, address: str) -> str | None:
        settings = self.config.ssh
        if self.closing:
            return ssh_words.admission("closing", address)
        if self._sockets >= settings.max_sessions:
            return ssh_words.admission("full", address)
        if self._per_address[address] >= settings.max_sessions_per_address:
            return ssh_words.admission("address", address)
        self._sockets += 1
        self._per_address[address] += 1
        return None

    def release(self, address: str) -> None:
        self._sockets -= 1
        self._per_address[address] -= 1
        if self._per_address[address] <= 0:
            del self._per_address[address]

    @property
    def open_connections(self) -> int:
        return self._connections.total()

    def connection_opened(self, address: str) -> bool:
        """Whether a new TCP connection from ``address`` may stay (counted until ``connection_closed``):
        a browser opens a few for the page beside each tab's websocket."""
        settings = self.config.ssh
        if (self.closing or self._connections.total() >= settings.max_sessions + settings.max_waiting_logins
                or self._connections[address] >= CONNECTIONS_PER_SESSION * settings.max_sessions_per_address
                + CONNECTIONS_FOR_THE_PAGE):
            return False
        self._connections[address] += 1
        return True

    def connection_closed(self, address: str) -> None:
        self._connections[address] -= 1
        if self._connections[address] <= 0:
            del self._connections[address]

    # --- shutdown ----------------------------------------------------------------------------------
    async def close(self, reason: str | None = None, server_lost: bool = False) -> None:
        """End every session (each page is told ``reason``, by default that the server is shutting down,
        in the session's language; ``server_lost``: that the game server stopped unexpectedly) and stop
        listening. Safe twice."""
        self.closing = True
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        await self.sharing.close(CLOSE_WAIT)
        tasks = [s.task for s in self.sessions if s.task is not None]
        for session in list(self.sessions):
            with using(session.language):
                table = session.app.model.table if session.app is not None else None
                seated = table is not None and table.you is not None
                session.end(web_words.server_lost(seated) if server_lost
                            else _("The server closed the session: {reason}").format(
                                reason=reason or ssh_words.shutting_down()))
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT)
        for session in list(self.sessions):  # an app that did not end in time: its words all the same
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.say_farewell(session.last_words), CLOSE_WAIT)
        if self._runner is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._runner.cleanup(), CLOSE_WAIT)
            self._runner = None
        await close_front_links()


class CountedConnection(asyncio.Protocol):
    """An aiohttp connection, counted by address: refused at once over the limits, and closed when
    its first request does not come within the login time (a connection that only holds a place)."""

    def __init__(self, handler: asyncio.Protocol, front: WebFront) -> None:
        self.handler = handler
        self.front = front
        self.address: str | None = None
        self._first: asyncio.TimerHandle | None = None

    def connection_made(self, base: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, base)  # a TLS connection's
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) else "?"
        if not self.front.connection_opened(address):
            log.warning("web %s: too many connections, refused", address)
            transport.abort()
            return
        self.address = address
        self._first = asyncio.get_running_loop().call_later(self.front.config.ssh.login_timeout, transport.abort)
        self.handler.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._first is not None:
            self._first.cancel()
            self._first = None
        self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received()

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._first is not None:
            self._first.cancel()
            self._first = None
        if self.address is not None:
            self.front.connection_closed(self.address)
            self.address = None
            self.handler.connection_lost(exc)


async def _no_icon(request: web.Request) -> web.Response:
    return web.Response(status=204)


def _same_origin(request: web.Request) -> bool:
    """A websocket opened by this server's own page: its ``Origin`` names the host the page came from.
    Browsers always send it with a websocket; one without it is no page's, and is refused too."""
    return request.headers.get("Origin") == f"https://{request.host}"
