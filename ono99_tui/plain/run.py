"""Running the plain mode: the link to the game server (the local game's in-process server, or a
server over TLS), coming back after a dropped connection, and this terminal's keys and lines.

``PlainClient`` is the part every plain session shares (here and over SSH): it opens a link with
the ``opener`` it is given, hands each message, decoded, to its ``PlainSession``, sends what the
session sends, and after a lost connection opens another, as the app does. ``run_local`` and
``run_connect`` are ``ono99 --plain`` and ``ono99 connect --plain HOST``.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import random
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ono99_kernel.protocol import PROTOCOL_VERSION, ProtocolError
from ono99_kernel.wire.requests import CreateTable, Hello, Request
from ono99_kernel.wire.server import State, Welcome, decode_server_message

from ..client.connection import Dialer
from ..client.errors import ConnectionLost, ServerError
from ..client.session import AskName, AskTakeBack, AskTrust, ClientSession, ConnectStep, GiveUp, RetryIn
from ..i18n import gettext as _
from ..i18n import ngettext
from ..known_servers import (
    AnnouncementMismatch,
    ServerKeyChanged,
    ServerTrust,
    UnknownServer,
    server_key,
    untrusted_words,
)
from ..links import Link, LocalServer
from ..reasons import said
from . import sentences as words
from .console import Console, plain_text
from .lines import LocalControls, PlainSession

if TYPE_CHECKING:
    from ono99_kernel.identity import Identity

    from ..client.model import Model

LOCAL_BOT_DELAY = 2.0  # seconds a local bot waits: a sentence is heard before the next one comes
LOCAL_DRAW_WINDOW = 8.0
FAREWELL_SECONDS = 5.0  # at most, for what was sent on quitting to go out


class Refused(Exception):
    """The session cannot go on: ``text`` says why, in the player's language."""

    def __init__(self, text: str, exit_code: int = 2) -> None:
        super().__init__(text)
        self.text = text
        self.exit_code = exit_code


# Opens a link for a client (the model holds what a resuming hello needs); raises Refused to end the
# session; what else it raises (a refusal, a server met for the first time, a lost connection) the
# client session says what to do about.
Opener = Callable[["PlainClient"], Awaitable[Link]]


class PlainClient:
    """One plain session's connection: messages in, said; what the player does, sent."""

    def __init__(self, console: Console, opener: Opener, *, local: bool = False, full: bool = False,
                 controls: LocalControls | None = None, first_table: CreateTable | None = None,
                 on_verbosity: Callable[[bool], None] | None = None, retry_random: random.Random | None = None,
                 client: ClientSession | None = None, name: str = "", trust: ServerTrust | None = None) -> None:
        self.console = console
        self.retry_random = retry_random or random.Random()  # the reconnect waits' jitter (tests seed it)
        self.opener = opener
        self.local = local
        self.name = name  # the name to say hello with (another one, once the server refused it)
        self.trust = trust  # the servers this client trusts; a first visit's answer adds one
        client = client or ClientSession(local=local, first_table=first_table, rng=self.retry_random)
        self.session = PlainSession(console, self.send, self.quit, local=local, full=full, controls=controls,
                                    on_verbosity=on_verbosity, client=client)
        self.link: Link | None = None
        self.exit_code = 0
        self.farewell = _("Bye.")
        self._outbox: asyncio.Queue[Request] = asyncio.Queue()
        self._quitting = asyncio.Event()
        console.hold(True)  # until the server has welcomed us, or a question is asked first

    @property
    def model(self) -> Model:
        return self.session.model

    def say(self, *lines: str) -> None:
        self.session.say(*lines)

    def quit(self) -> None:
        self._quitting.set()

    def input_ended(self) -> None:
        """Nothing more can be typed (the input was a script, a file or /dev/null): the session ends,
        as quitting does, rather than wait for keys that never come."""
        if not self.quitting:
            self.say(_("Your input has ended, so this session ends."))
            self.quit()

    @property
    def quitting(self) -> bool:
        return self._quitting.is_set()

    def send(self, message: Request) -> None:
        if self.link is None:
            self.say(_("Not connected yet."))
            return
        self._outbox.put_nowait(message)

    async def ask_line(self, prompt: str) -> str | None:
        """The next line the player types after ``prompt`` (None: they quit meanwhile)."""
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.console.ask_line(prompt, lambda text: _settle(answer, text))
        typed = await self._unless_quitting(answer)
        return None if typed is None else str(typed)

    async def ask_yes(self, question: str) -> bool:
        """y or anything else, to ``question`` (False: they quit meanwhile)."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.session.question(question, lambda yes: _settle(answer, yes))
        self.console.hold(False)
        return bool(await self._unless_quitting(answer))

    async def _unless_quitting(self, future: asyncio.Future[Any]) -> Any:
        quitting = asyncio.ensure_future(self._quitting.wait())
        try:
            await asyncio.wait({future, quitting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            quitting.cancel()
        if not future.done():
            future.cancel()
            return None
        return future.result()

    # --- the connection -----------------------------------------------------------------------------
    async def run(self) -> int:
        """Until the player quits or the session cannot go on; the exit code."""
        client = self.session.client
        try:
            while not self.quitting:
                try:
                    link = await self.opener(self)
                except Refused as exc:
                    self.say(exc.text)
                    self.exit_code = exc.exit_code
                    return self.exit_code
                except (ServerError, UnknownServer, ServerKeyChanged, AnnouncementMismatch, OSError, TimeoutError,
                        ConnectionLost) as exc:
                    if not await self._after_failure(client.connect_failed(exc)):
                        return self.exit_code
                    continue
                await self._serve(link)
                if self.quitting or not await self._after_failure(client.link_lost()):
                    break
        finally:
            self.session.close()
        return self.exit_code

    async def _after_failure(self, step: ConnectStep) -> bool:
        """Carry out the client session's next step after a connection failed or ended: whether to
        connect again."""
        if isinstance(step, AskName):
            self.say(words.sentence(plain_text(said(step.refusal))))
            typed = await self.ask_line(_("Your name: "))
            if typed is None or not typed.strip():
                return self._end(_("No name, no game."), 0)
            self.name = typed.strip()
            return True
        if isinstance(step, AskTrust):
            self.say(*first_visit_lines(step.server))
            if not await self.ask_yes(_("Trust this server and connect?")):
                return self._end(_("Not connected."), 2)
            if self.trust is not None:
                self.trust = self.trust.accept(step.server.host, step.server.port, step.server.fingerprint)
            return True
        if isinstance(step, AskTakeBack):  # the same player connected elsewhere: only when asked
            take_back = self.session.take_back
            return take_back is None or bool(await self._unless_quitting(take_back))
        if isinstance(step, RetryIn):
            await self._wait_to_retry(step)
            return True
        if isinstance(step, GiveUp):
            return self._end(self.give_up_words(step.cause), 2)
        return False

    def give_up_words(self, cause: BaseException) -> str:
        """Why the session cannot go on, in a sentence."""
        if isinstance(cause, ServerError):
            return _("The server refused: {reason}").format(reason=words.clause(plain_text(said(cause.error))))
        if isinstance(cause, ServerKeyChanged | AnnouncementMismatch):
            return " ".join(untrusted_lines(cause))
        return _("The connection failed: {error}").format(error=str(cause) or type(cause).__name__)

    def _end(self, text: str, exit_code: int) -> bool:
        self.say(text)
        self.exit_code = exit_code
        return False

    async def _serve(self, link: Link) -> None:
        """Messages in and out over one link, until it ends or the player quits."""
        self.link = link
        writer = asyncio.create_task(self._write(link))
        welcome = getattr(link, "welcome", None)  # a TCP client's hello was answered already
        if welcome:
            self.receive(welcome)
        quitting = asyncio.ensure_future(self._quitting.wait())
        try:
            while True:
                getting = asyncio.ensure_future(link.inbox.get())
                await asyncio.wait({getting, quitting}, return_when=asyncio.FIRST_COMPLETED)
                if not getting.done():
                    getting.cancel()
                    break
                message = getting.result()
                if message is None:
                    break
                self.receive(message)
        finally:
            quitting.cancel()
            if self.quitting:  # what was sent on the way out (leaving the table) goes before the link closes
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._outbox.join(), FAREWELL_SECONDS)
            writer.cancel()
            with contextlib.suppress(BaseException):
                await writer
            self.link = None
            while not self._outbox.empty():  # unsent moves are not sent on the next link
                self._outbox.get_nowait()
                self._outbox.task_done()
            with contextlib.suppress(Exception):
                await link.close()

    async def _write(self, link: Link) -> None:
        while True:
            message = await self._outbox.get()
            try:
                await link.send(message)
            except Exception as exc:  # the connection is gone: the reader ends, and we come back
                self.say(_("Could not send: {error}").format(error=exc))
                return
            finally:
                self._outbox.task_done()

    def receive(self, message: Mapping[str, Any]) -> None:
        try:
            decoded = decode_server_message(message)
        except ProtocolError as exc:
            self.say(_("The server sent a message this version cannot read: {reason}").format(reason=exc.reason))
            return
        self.handle(decoded)

    def handle(self, message: Any) -> None:
        self.session.receive(message)
        # what was typed ahead is read once there is something to read it: the lobby (or the table one
        # comes back to) after the welcome; a local game's table once its game has started
        if isinstance(message, State) or (isinstance(message, Welcome) and not self.local):
            self.console.hold(False)

    async def _wait_to_retry(self, retry: RetryIn) -> None:
        delay = retry.seconds
        seconds, count = f"{delay:g}", int(delay) if delay == int(delay) else 0  # 0.5: as many as 0, "seconds"
        if retry.farewell:
            self.say(ngettext("Trying again in {seconds} second.", "Trying again in {seconds} seconds.",
                              count).format(seconds=seconds))
        else:
            self.say(ngettext("The connection was lost; trying again in {seconds} second.",
                              "The connection was lost; trying again in {seconds} seconds.", count).format(
                seconds=seconds))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._quitting.wait(), delay)


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


# --- this terminal --------------------------------------------------------------------------------------
@contextlib.contextmanager
def keys_as_typed(fd: int) -> Iterator[bool]:
    """The terminal at ``fd`` hands each key over as it is pressed and echoes nothing (the console
    echoes what is typed); True if it is a terminal. Ctrl+C still interrupts. Restored after."""
    if not os.isatty(fd):
        yield False
        return
    import termios

    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[3] &= ~(termios.ICANON | termios.ECHO)
    mode[6][termios.VMIN] = 1
    mode[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, mode)
    try:
        yield True
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def stdout_writer() -> Callable[[str], None]:
    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()
    return write


async def run_in_terminal(make: Callable[[Console], PlainClient]) -> int:
    """Run a plain client on this process's terminal: stdin's keys in, sentences to stdout."""
    fd = sys.stdin.fileno()
    loop = asyncio.get_running_loop()
    decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
    with keys_as_typed(fd) as is_terminal:
        console = Console(stdout_writer(), newline="\n", keys=is_terminal)
        client = make(console)
        console.on_input_end = client.input_ended

        def readable() -> None:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            if not data:  # the input ended: nothing more will be typed
                loop.remove_reader(fd)
                if not is_terminal:
                    console.end_input()  # a script's input: once what it typed is read
                    return
                client.quit()
                return
            console.feed(decode(data))

        try:
            loop.add_reader(fd, readable)
        except OSError:  # a regular file (ono99 --plain < commands): read at once, each line a command
            with os.fdopen(os.dup(fd), "rb") as commands:
                console.feed(decode(commands.read(), final=True))
            console.end_input()
        try:
            code = await client.run()
        finally:
            loop.remove_reader(fd)
        console.say(client.farewell)
        return code


# --- ono99 --plain --------------------------------------------------------------------------------
def run_local(open_local_game: Callable[[float, float], LocalServer], name: str, *, bot_delay: float | None,
              draw_window: float | None, full: bool, on_verbosity: Callable[[bool], None] | None = None) -> int:
    """A local game against bots, in plain lines."""
    async def main() -> int:
        server = open_local_game(LOCAL_BOT_DELAY if bot_delay is None else bot_delay,
                                 LOCAL_DRAW_WINDOW if draw_window is None else draw_window)

        def fast_forward(on: bool) -> None:
            server.set_bot_delay(0.0 if on else (LOCAL_BOT_DELAY if bot_delay is None else bot_delay))

        async def opener(client: PlainClient) -> Link:
            link = server.link()
            await link.send(Hello(version=PROTOCOL_VERSION, name=name, client="ono99-plain"))
            return link

        def make(console: Console) -> PlainClient:
            console.say(_("Starting a local game…"))
            return PlainClient(console, opener, local=True, full=full,
                               controls=LocalControls(server.pause, fast_forward, server.finished_record),
                               on_verbosity=on_verbosity)

        try:
            return await run_in_terminal(make)
        finally:
            await server.close()

    return _run(main)


# --- ono99 connect --plain HOST ------------------------------------------------------------------------
def run_connect(host: str, port: int, name: str, *, identity: Identity | None, password: str | None,
                trust: ServerTrust | None, full: bool, on_verbosity: Callable[[bool], None] | None = None,
                on_welcome: Callable[[Welcome], None] | None = None) -> int:
    """A server's lobby and tables, in plain lines."""
    dialer = Dialer(client_name="ono99-plain", identity=identity, password=password)

    async def opener(client: PlainClient) -> Link:
        return await dialer.connect(host, port, client.name, client.model, client.trust)

    class Connected(PlainClient):
        def handle(self, message: Any) -> None:
            super().handle(message)
            if isinstance(message, Welcome) and on_welcome is not None:
                on_welcome(message)

        def give_up_words(self, cause: BaseException) -> str:
            if isinstance(cause, OSError | TimeoutError):
                return _("Cannot reach {server}: {error}").format(
                    server=server_key(host, port), error=cause.strerror if isinstance(cause, OSError) and cause.strerror
                    else type(cause).__name__)
            return super().give_up_words(cause)

    async def main() -> int:
        def make(console: Console) -> PlainClient:
            console.say(_("Connecting to {host}…").format(host=host))
            return Connected(console, opener, full=full, on_verbosity=on_verbosity, name=name, trust=trust)

        return await run_in_terminal(make)

    return _run(main)


def first_visit_lines(unknown: UnknownServer) -> list[str]:
    """A first visit: the fingerprint to compare, in sentences."""
    return [_("This is your first visit to {server}.").format(server=server_key(unknown.host, unknown.port)),
            _("Its certificate's fingerprint is {fingerprint}.").format(fingerprint=unknown.fingerprint),
            _("Compare it with the one the host's ono99 serve printed: trust it only if they are the same.")]


def untrusted_lines(exc: ServerKeyChanged | AnnouncementMismatch) -> list[str]:
    """The app's warning (one text), a paragraph a line."""
    return untrusted_words(exc, plain=True).split("\n\n")


def _run(main: Callable[[], Coroutine[Any, Any, int]]) -> int:
    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        sys.stdout.write("\n")
        return 130
