"""A front process's one link to its game server (docs/protocol.md section 3c), and its players' channels on
it: each channel is a link like a ``Client`` of its own (an inbox of the server's messages, ``send``,
``close``), so a front's session reads it through the same connect loop. A message the server sends several
channels at once is decoded once and handed to each."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections import deque
from itertools import count
from typing import TYPE_CHECKING, Any

from ono99_kernel.protocol import PROTOCOL_VERSION, ProtocolError, encode
from ono99_kernel.tls import widen_read_buffer
from ono99_kernel.wire.link import LINK_MAX_FRAME, FrontLink, ToFront, ToServer
from ono99_kernel.wire.requests import Hello, Request
from ono99_kernel.wire.server import Bye

from .connection import CONNECT_TIMEOUT, MOVING_PAUSE, Client, welcomed_name
from .errors import ConnectionLost, ServerError

if TYPE_CHECKING:
    from ..known_servers import ServerTrust

log = logging.getLogger("ono99.front_link")
# A channel's session is dropped alone when it has left messages unread this long: its app takes all that
# came at each of its frames, the slowest 5 s apart (ono99_tui/front/pacing.py HELD_FRAME), so it has stopped
# reading, and the link must not hold its messages for it. Or this many, whatever the time (a full-speed
# table sends a few hundred a second).
CHANNEL_STALL = 60.0
CHANNEL_BACKLOG = 20_000
# Seconds the link hands frames on before the front's other work runs: a frame may wake many sessions, and one
# read brings dozens (a full-speed table's states for a hundred watchers), so the front's logins, keys and
# timers run between two slices, as they did between the reads of a connection per session.
LINK_SLICE = 0.005
# Frames read and not handed on yet past which the link reads no more until they are: the game server's queue
# for the link then holds the rest, and its limit says when the front is too slow.
LINK_WAITING = 10_000
LINK_READ_BUFFER = 256 * 1024  # bytes the link reads from its socket per turn of the loop (asyncio's default)
TOO_SLOW = "too slow: the server could not deliver your updates"  # the server's own words for a stuck client


class LinkChannel:
    """One player's channel on a front's link."""

    def __init__(self, link: FrontLinkClient, number: int) -> None:
        self.front_link = link
        self.number = number
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.welcome: dict[str, Any] = {}
        self.closed = False
        # What comes is put in the inbox in the context of the session that opened the channel (its app, its
        # language), as a connection of its own reads in the context it was opened in: an inbox may act as it
        # takes a message (a shared screen's tap, ono99_tui/front/sharing.py).
        self.context = contextvars.copy_context()
        self.unread_since = 0.0  # loop time of the oldest message its session has not taken (with a backlog)
        # Until its session has taken its first batch (``settled``: its welcome and first lobby), what comes for
        # the channel is handed on as soon as it is read, ahead of what waits for the other channels: logins
        # before redraws. A session that never says so (the plain line mode's, whose lines cost little) keeps
        # getting its frames at once.
        self.opening = True

    @property
    def welcomed_name(self) -> str | None:
        return welcomed_name(self.welcome)

    @property
    def resume_token(self) -> str:
        return str(self.welcome.get("resume", ""))

    def settled(self) -> None:
        """Its session has taken its welcome and what came with it: from now on what comes for it waits its turn
        behind what came before for the other channels."""
        self.opening = False

    async def send(self, message: Request) -> None:
        if self.closed:
            raise ConnectionLost("the connection is closed")
        await self.front_link.write(ToServer(c=self.number, m=message.to_wire()))

    async def close(self) -> None:
        """The player went away: the channel ends (the server keeps their seat for the grace period)."""
        if self.closed:
            return
        self.closed = True
        self.front_link.forget(self)
        with contextlib.suppress(ConnectionLost, OSError):
            await self.front_link.write(ToServer(c=self.number, end=True))

    def deliver(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        now = asyncio.get_running_loop().time()
        if self.inbox.empty():
            self.unread_since = now
        elif now - self.unread_since >= CHANNEL_STALL or self.inbox.qsize() >= CHANNEL_BACKLOG:
            # stopped reading: dropped alone, the link goes on
            log.warning("channel %d: %d messages unread, dropped", self.number, self.inbox.qsize())
            self.context.run(self.inbox.put_nowait, Bye(reason=TOO_SLOW).to_wire())
            self.lost()
            self.front_link.forget(self)
            self.front_link.end_soon(self.number)
            return
        self.context.run(self.inbox.put_nowait, message)

    def lost(self) -> None:
        """The channel ended (by the server, or with the whole link): its session's link is lost."""
        if not self.closed:
            self.closed = True
            self.context.run(self.inbox.put_nowait, None)

    async def welcomed(self, timeout: float) -> dict[str, Any]:
        """The ``welcome`` to its hello; an ``error`` raises ``ServerError``, an end ``ConnectionLost``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await asyncio.wait_for(self.inbox.get(), max(0.0, end - loop.time()))
            if message is None:
                self.inbox.put_nowait(None)
                raise ConnectionLost("the server closed the connection")
            if message.get("t") == "welcome":
                self.welcome = message
                return message
            if message.get("t") == "error":
                raise ServerError.from_wire(message)


class _LinkConnection(Client):
    """The TLS connection of a link: its frames are the channels', read into them as they come."""

    max_frame = LINK_MAX_FRAME

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.front_link: FrontLinkClient | None = None  # once linked, the frames go to its channels
        super().__init__(reader, writer)

    def take(self, message: dict[str, Any]) -> None:
        if self.front_link is None:
            super().take(message)
        else:
            self.front_link.demultiplex(message)


class FrontLinkClient:
    """The link of one front process: opened when a first player needs it, and again after it is lost (each
    channel's session then connects again, through a new link, as after any lost connection)."""

    def __init__(self, host: str, port: int, credential: str, trust: ServerTrust | None, client_name: str) -> None:
        self.host = host
        self.port = port
        self.credential = credential
        self.trust = trust
        self.client_name = client_name
        self.channels: dict[int, LinkChannel] = {}
        self._numbers = count(1)
        self._connection: _LinkConnection | None = None
        self._opening = asyncio.Lock()
        # Frames read for settled channels, handed on in order, a slice per turn of the event loop; each with
        # the channels it is still for.
        self._waiting: deque[tuple[list[int], ToFront]] = deque()
        self._hand_on_soon: asyncio.Handle | None = None
        self._room = asyncio.Event()  # set while fewer than LINK_WAITING frames wait: the link reads on
        self._room.set()

    async def open_channel(self, hello: Hello, timeout: float = CONNECT_TIMEOUT) -> LinkChannel:
        """A channel for one player, welcomed (its ``hello`` carries the front's word for them); raises
        ``ServerError`` when refused, ``OSError``/``TimeoutError`` when the server is not reached. While
        the server says the player's table is changing nodes, it says hello again."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            # Opened outside the session's context: the link's tasks outlive it, and must not keep its app alive.
            await asyncio.create_task(self._linked(max(0.1, end - loop.time())), context=contextvars.Context())
            channel = LinkChannel(self, next(self._numbers))
            self.channels[channel.number] = channel
            try:
                await channel.send(hello)
                await channel.welcomed(max(0.0, end - loop.time()))
                return channel
            except ServerError as exc:
                await channel.close()
                if exc.code == "unavailable" and exc.error.params.get("why") == "moving" and loop.time() < end:
                    await asyncio.sleep(MOVING_PAUSE)
                    continue
                raise
            except ConnectionLost as exc:
                await channel.close()
                raise ConnectionResetError(str(exc)) from None
            except BaseException:
                await channel.close()
                raise

    async def _linked(self, timeout: float) -> _LinkConnection:
        async with self._opening:
            connection = self._connection
            if connection is not None and not connection.closed:
                return connection
            connection = await _LinkConnection.open(self.host, self.port, trust=self.trust, timeout=timeout)
            widen_read_buffer(connection.writer.transport, LINK_READ_BUFFER)
            try:
                await connection.send_map(FrontLink(version=PROTOCOL_VERSION, credential=self.credential,
                                                    client=self.client_name).to_wire())
                message = await connection.recv(timeout)
                if message.get("t") == "error":
                    raise ServerError.from_wire(message)
                if message.get("t") != "linked":
                    raise ConnectionLost(f"the server answered front_link with {str(message.get('t'))[:32]!r}")
            except BaseException:
                await connection.close()
                raise
            connection.front_link = self
            connection.room = self._room
            while not connection.inbox.empty():  # none come before ``linked``, but keep the order all the same
                queued = connection.inbox.get_nowait()
                if queued is not None:
                    self.demultiplex(queued)
            self._connection = connection
            asyncio.get_running_loop().create_task(self._watch(connection))
            log.info("linked to the game server at %s:%d", self.host, self.port)
            return connection

    async def _watch(self, connection: _LinkConnection) -> None:
        """When the link ends, every channel's session has lost its link."""
        with contextlib.suppress(BaseException):
            await connection.ended.wait()
        self._hand_on(budget=None)  # every frame read comes before the end
        if self._connection is connection:
            self._connection = None
        for channel in list(self.channels.values()):
            channel.lost()
        self.channels.clear()

    def demultiplex(self, message: dict[str, Any]) -> None:
        if message.get("t") != "ch":  # the link's own error or bye: it ends, and each channel with it
            return
        try:
            frame = ToFront.from_wire(message)
        except ProtocolError as exc:
            log.warning("the game server sent a frame that is no channel's (%s): ignored", exc.reason)
            return
        # Each channel's frames stay in their order: an opening channel's all go at once, as they are read, and
        # once settled all wait their turn, in the order read.
        later = [number for number in frame.to if not self._hand(number, frame, opening_only=True)]
        if later:
            self._waiting.append((later, frame))
            if len(self._waiting) >= LINK_WAITING:
                self._room.clear()
            if self._hand_on_soon is None:
                self._hand_on_soon = asyncio.get_running_loop().call_soon(self._hand_on, LINK_SLICE)

    def _hand(self, number: int, frame: ToFront, opening_only: bool = False) -> bool:
        """``frame`` handed to channel ``number`` (False: not, for a settled channel when ``opening_only``)."""
        channel = self.channels.get(number)
        if channel is None:
            return True
        if opening_only and not channel.opening:
            return False
        if frame.m is not None:
            channel.deliver(frame.m)  # one decoded message for all of them
        if frame.end is not None:
            channel.lost()
            self.forget(channel)
        return True

    def _hand_on(self, budget: float | None) -> None:
        """Hand on the frames waiting, for ``budget`` seconds at most (None: all), then again at the next turn
        of the event loop."""
        if self._hand_on_soon is not None:
            self._hand_on_soon.cancel()  # its own handle, or (the link ended) one due later
            self._hand_on_soon = None
        waiting = self._waiting
        until = time.perf_counter() + budget if budget is not None else None
        while waiting:
            numbers, frame = waiting.popleft()
            for number in numbers:
                self._hand(number, frame)
            if until is not None and time.perf_counter() >= until:
                break
        if len(waiting) < LINK_WAITING // 2:
            self._room.set()
        if waiting:
            self._hand_on_soon = asyncio.get_running_loop().call_soon(self._hand_on, LINK_SLICE)

    def forget(self, channel: LinkChannel) -> None:
        if self.channels.get(channel.number) is channel:
            del self.channels[channel.number]

    def end_soon(self, number: int) -> None:
        connection = self._connection
        if connection is not None and not connection.closed:
            connection.writer.write(encode(ToServer(c=number, end=True).to_wire()))

    async def write(self, frame: ToServer) -> None:
        connection = self._connection
        if connection is None or connection.closed:
            raise ConnectionLost("the link to the game server is lost")
        await connection.send_map(frame.to_wire())

    async def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()
