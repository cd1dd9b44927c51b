"""A trusted front's link (docs/protocol.md section 3c): one TLS connection carrying all the players of a front
process, each on a channel with a ``Session`` of its own, so each player keeps their own identity, limits and
throttles. What the server sends several channels of the link at once (a table's spectator view, the lobby's
news) goes once, with the list of those channels."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Mapping
from typing import Any, Protocol

from ono99_kernel.access import refusal_pause
from ono99_kernel.protocol import FrameDecoder, ProtocolError, encode
from ono99_kernel.refusal import params_of
from ono99_kernel.wire.link import LINK_MAX_FRAME, MAX_CHANNELS, ToFront, ToServer, to_front_frame
from ono99_kernel.wire.server import Bye, ServerMessage, encode_message

from .player_session import Session, SessionHost

log = logging.getLogger("ono99.connection")
READ_CHUNK = 256 * 1024
WATCH_EVERY = 1.0  # seconds between two looks at the channels' hello and idle deadlines


class LinkHost(SessionHost, Protocol):
    """What a link asks of its server (server/ono99_server/game_server.py's ``Server``) beside its sessions'
    needs: a place for each channel (counted as a connection of its own), given back at its end."""

    def channel_opened(self, channel: Channel) -> str | None:
        """None, or why the server has no room for one more player."""

    def channel_welcomed(self, channel: Channel) -> None: ...

    def channel_ended(self, channel: Channel) -> None: ...


class LinkConnection(Protocol):
    """The connection a link runs on (server/ono99_server/connection.py's ``Connection``)."""

    reader: asyncio.StreamReader
    session: Session

    @property
    def peer(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    def send_frame(self, frame: bytes) -> None: ...

    def close(self, reason: str) -> None: ...


class Channel:
    """One player on a front's link: the ``Link`` their member speaks through, driving their ``Session``."""

    def __init__(self, link: FrontLinkServer, number: int, now: float) -> None:
        self.link = link
        self.number = number
        self.heard = now  # loop time of the player's last message: the idle timeout counts from it
        self.welcomed = False
        self.ended = False  # the session is told it ended (once)
        self._closed = False
        self.backlog: deque[Mapping[str, Any]] = deque()  # messages waiting while a hello is looked up
        self.busy = False  # a task works through the backlog (a parked hello, a refusal's pause)
        host = link.host
        self.session = Session(host, self, address=link.placeholder, peer=f"{link.connection.peer}#{number}",
                               now=now, on_welcome=self._welcome, channel=True)

    def _welcome(self) -> None:
        self.welcomed = True
        self.link.host.channel_welcomed(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, message: ServerMessage) -> None:
        self.send_frame(encode_message(message))

    def send_frame(self, frame: bytes) -> None:
        if not self._closed:
            self.link.post(self.number, frame)

    def close(self, reason: str) -> None:
        """Say goodbye and close the channel; its player is away from now on. Safe to call twice."""
        if self._closed:
            return
        with contextlib.suppress(ProtocolError):
            self.link.post(self.number, encode_message(Bye(reason=reason)))
        self._closed = True
        self.link.post_end(self.number, reason)
        self.link.forget(self)

    # --- from the front -------------------------------------------------------------------------------
    def receive(self, message: Any) -> None:
        self.heard = asyncio.get_running_loop().time()
        if self.busy:
            self.backlog.append(message)
            return
        self._take(message)

    def _take(self, message: Any) -> None:
        session = self.session
        if not isinstance(message, dict):
            session.error("bad_frame", "ch.m must be one message, a map", params={})
            self.close("ch.m must be one message, a map")
            return
        session.receive(message)
        if not self._closed and (session.parked is not None or session.refusal is not None):
            self.busy = True
            self.link.spawn(self._wait_then_go_on())

    async def _wait_then_go_on(self) -> None:
        """A hello whose name is looked up in the shared database, or a refusal's pause: the channel's
        messages wait meanwhile, and then go on in order."""
        session = self.session
        try:
            while not self._closed:
                if session.parked is not None:
                    await session.look_up()
                elif session.refusal is not None:
                    await asyncio.sleep(refusal_pause(session.refusal.params))
                    session.refuse()
                    return
                elif self.backlog:
                    self._take_one()
                else:
                    return
        finally:
            self.busy = False

    def _take_one(self) -> None:
        message = self.backlog.popleft()
        session = self.session
        if not isinstance(message, dict):
            self._take(message)
            return
        session.receive(message)

    def end(self) -> None:
        """The player went away (the front ended the channel, or the link is lost)."""
        self._closed = True
        self.link.forget(self)


class FrontLinkServer:
    """The server's end of a front's link, on a ``Connection`` whose first message was a trusted
    ``front_link``: reads the channels' frames, and writes their messages through that connection's
    send queue and writer task (its limits and its watch on a stuck reader cover the whole link)."""

    def __init__(self, host: LinkHost, connection: LinkConnection) -> None:
        self.host = host
        self.connection = connection
        # Channels count under this until their player's address is said (Server.readdress moves them).
        self.placeholder = f"front link {connection.peer}"
        self.channels: dict[int, Channel] = {}
        self._pending: bytes | None = None  # a frame going to several channels, while it is being sent
        self._pending_to: list[int] = []
        self._flush_soon: asyncio.Handle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # --- sending --------------------------------------------------------------------------------------
    def post(self, number: int, frame: bytes) -> None:
        """``frame`` for channel ``number``. The same frame for several channels in a row (a broadcast's
        loop) goes once, to all of them, once this turn of the loop is done."""
        if frame is self._pending:
            self._pending_to.append(number)
            return
        self.flush()
        self._pending, self._pending_to = frame, [number]
        if self._flush_soon is None:
            self._flush_soon = asyncio.get_running_loop().call_soon(self.flush)

    def post_end(self, number: int, reason: str) -> None:
        self.flush()
        self.connection.send_frame(encode(ToFront(to=(number,), end=reason).to_wire()))

    def flush(self) -> None:
        if self._flush_soon is not None:
            self._flush_soon.cancel()
            self._flush_soon = None
        frame, to = self._pending, self._pending_to
        if frame is None:
            return
        self._pending, self._pending_to = None, []
        self.connection.send_frame(to_front_frame(to, frame))

    # --- the link's life --------------------------------------------------------------------------------
    def spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def forget(self, channel: Channel) -> None:
        if self.channels.get(channel.number) is channel:
            del self.channels[channel.number]
        if not channel.ended:
            channel.ended = True
            channel.session.ended()
            self.host.channel_ended(channel)

    def close_channels(self, reason: str) -> None:
        for channel in list(self.channels.values()):
            channel.close(reason)
        self.flush()

    async def run(self, rest: bytes) -> None:
        """Read the link's frames (``rest``: those already received after ``front_link``) until it ends;
        then every channel's player is away."""
        connection = self.connection
        decoder = FrameDecoder(LINK_MAX_FRAME)
        watch = asyncio.create_task(self._watch())
        try:
            data = rest
            while not connection.closed:
                for message in decoder.feed(data):
                    self._frame(message)
                    if connection.closed:
                        break
                data = await connection.reader.read(READ_CHUNK)
                if not data:
                    break
        except ProtocolError as exc:
            log.warning("%s: the front's link broke the protocol (%s: %s), closing it", connection.peer, exc.code,
                        exc.reason)
            connection.session.error(exc.code, exc.reason, params=exc.params)
            self.close_channels("the front's link to the game server broke: connect again")
            connection.close(exc.reason)
        except (ConnectionError, OSError):
            pass
        finally:
            watch.cancel()
            for task in list(self._tasks):
                task.cancel()
            for channel in list(self.channels.values()):
                channel.end()
            self.flush()

    def _frame(self, message: Mapping[str, Any]) -> None:
        frame = ToServer.from_wire(message)  # a broken envelope is the front's fault: the link closes
        channel = self.channels.get(frame.c)
        if frame.end:
            if channel is not None:
                channel.end()
            return
        if channel is None:
            channel = self._open(frame.c)
            if channel is None:
                return
        channel.receive(frame.m)

    def _open(self, number: int) -> Channel | None:
        """A new channel, if the server has room for its player (else it is refused and closed)."""
        channel = Channel(self, number, asyncio.get_running_loop().time())
        why = f"too many players on one front's link (at most {MAX_CHANNELS})" \
            if len(self.channels) >= MAX_CHANNELS else self.host.channel_opened(channel)
        if why is None:
            self.channels[number] = channel
            return channel
        log.warning("%s: channel %d refused: %s", self.connection.peer, number, why)
        channel.ended = True  # it took no place
        channel.session.error("too_many_connections", why, params=params_of(why))
        channel.close(why)
        return None

    async def _watch(self) -> None:
        """Each channel's hello deadline and idle timeout, as a connection's read timeout is."""
        loop = asyncio.get_running_loop()
        idle = self.host.config.idle_timeout
        while True:
            await asyncio.sleep(WATCH_EVERY)
            now = loop.time()
            for channel in list(self.channels.values()):
                session = channel.session
                deadline = session.hello_by if session.member is None else channel.heard + idle
                if now >= deadline and not channel.busy and session.silent(now):
                    channel.heard = now

