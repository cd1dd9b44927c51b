"""One client connection over TCP/TLS: the adapter that drives a client's ``Session``
(server/ono99_server/player_session.py)
with the bytes it reads, and sends what the session and the lobby say through a send queue and a writer
task of its own, so one slow client never delays a table."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Protocol

from ono99_kernel.access import refusal_pause
from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire.server import Bye, ServerMessage, encode_message

from .front_link import FrontLinkServer, LinkHost
from .members import Member
from .player_session import Session

LINK_BUDGET = 64  # a front's link carries many players: it may hold this many times a player's queue

log = logging.getLogger("ono99.connection")
READ_CHUNK = 64 * 1024
WRITE_BUFFER_HIGH = 64 * 1024  # bytes buffered in the transport before the writer waits for the client


def buffered(transport: asyncio.BaseTransport) -> int:
    """Bytes a transport holds that the kernel has not taken: under TLS, what waits to be encrypted
    or sent by the TLS layer plus what the TCP transport under it holds (asyncio counts only the
    first, so the second is read from the layer below). 0 once it is closing."""
    if transport.is_closing() or not isinstance(transport, asyncio.WriteTransport):
        return 0
    size = transport.get_write_buffer_size()
    below = getattr(getattr(transport, "_ssl_protocol", None), "_transport", None)
    if isinstance(below, asyncio.WriteTransport) and not below.is_closing():
        size += below.get_write_buffer_size()
    return size


class ConnectionHost(LinkHost, Protocol):
    """What a connection asks of its server (server/ono99_server/game_server.py's ``Server``): its sessions'
    host, told when the client has said hello (it waits for one no longer)."""

    def said_hello(self, connection: Connection) -> None: ...


class Connection:
    _waiting = 0  # bytes the transport held after the last write (see _write)

    def __init__(self, server: ConnectionHost, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername")
        config = server.config
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()  # bounded by ``frames_budget``
        self.frames_budget = config.send_queue_frames
        self.bytes_budget = config.send_queue_bytes
        self.link: FrontLinkServer | None = None  # a trusted front's link for its players (section 3c)
        self.closed = False
        self.close_reason = ""
        self.secured = False  # its TLS handshake is done: until then nothing can be said to the client
        self.handshake: asyncio.Task[None] | None = None  # the task awaiting the TLS handshake, meanwhile
        self.session = Session(server, self, address=str(peer[0]) if isinstance(peer, tuple) else "local",
                               peer=f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "local",
                               now=asyncio.get_running_loop().time(), on_welcome=lambda: server.said_hello(self),
                               may_link=True)
        self._writer_task: asyncio.Task[None] | None = None
        self._draining = False  # the writer task is waiting for the client to take its data
        # What is held for this client is bounded: the kernel's send buffer (set small here), the
        # transport's buffer (WRITE_BUFFER_HIGH and one frame) and the queue (send_queue_bytes).
        self.queued_bytes = 0
        self.written = 0  # bytes handed to the transport
        self._taken = 0  # bytes the client had taken (handed to the kernel) at the last check
        self._stalled_since: float | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        sock = writer.get_extra_info("socket")
        if sock is not None and config.socket_send_buffer:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, config.socket_send_buffer)

    @property
    def address(self) -> str:
        """Where the player is: the peer's address, or the one its trusted front says."""
        return self.session.address

    @property
    def peer(self) -> str:
        return self.session.peer

    @property
    def hello_by(self) -> float:
        """The loop time by which the hello must be accepted, the TLS handshake included."""
        return self.session.hello_by

    @property
    def member(self) -> Member | None:
        return self.session.member

    # --- sending ----------------------------------------------------------------------------------
    def send(self, message: ServerMessage) -> None:
        self.send_frame(encode_message(message))

    def send_frame(self, frame: bytes) -> None:
        if self.closed:
            return
        transport = self.writer.transport
        if self._writer_task is not None and not self._draining and self.queue.empty() \
                and not transport.is_closing() and self._waiting <= WRITE_BUFFER_HIGH:
            # The writer task is idle and nothing is queued, so every earlier frame is already in the
            # transport: write this one now, as that task would, without waking it for every frame.
            if self._write(frame) > WRITE_BUFFER_HIGH:
                self.queue.put_nowait(b"")  # an empty frame: the writer task waits for the client, timed
            return
        if self.queued_bytes + len(frame) > self.bytes_budget:
            log.warning("%s: dropped, %d bytes waiting (client too slow)", self.peer, self.queued_bytes)
            self.close("too slow: the server could not deliver your updates")
            return
        if self.queue.qsize() >= self.frames_budget:
            log.warning("%s: dropped, %d frames waiting (client too slow)", self.peer, self.queue.qsize())
            self.close("too slow: the server could not deliver your updates")
            return
        self.queue.put_nowait(frame)
        self.queued_bytes += len(frame)

    def _write(self, frame: bytes) -> int:
        """Hand a frame to the transport; watch that the client keeps taking its data. Returns the
        bytes the transport then holds, also kept as ``_waiting`` for the next frame to decide by
        without asking again: the kernel may have taken some since, so it can only be too high, and
        then a frame merely goes through the writer task, which writes it as soon as it may."""
        transport = self.writer.transport
        transport.write(frame)
        self.written += len(frame)
        self._waiting = waiting = buffered(transport)
        if self._watchdog is None and waiting > 0:
            # The kernel's buffer is full (the transport keeps only what the socket would not take).
            loop = asyncio.get_running_loop()
            self._taken = self.written - waiting
            self._stalled_since = loop.time()
            self._watchdog = loop.call_later(self._watch_interval(), self._watch)
        return waiting

    def _watch_interval(self) -> float:
        return max(0.05, self.server.config.write_timeout / 4)

    def _watch(self) -> None:
        """A client that takes none of its data for ``write_timeout`` seconds is dropped."""
        self._watchdog = None
        transport = self.writer.transport
        if transport.is_closing():
            return
        waiting = buffered(transport)
        self._waiting = waiting
        if waiting == 0:
            return  # all taken: nothing to watch until the kernel's buffer fills again
        loop = asyncio.get_running_loop()
        taken = self.written - waiting
        if taken > self._taken or self._stalled_since is None:
            self._taken = taken
            self._stalled_since = loop.time()
        elif loop.time() - self._stalled_since >= self.server.config.write_timeout:
            log.info("%s: took none of its data for %g s, dropped", self.peer, self.server.config.write_timeout)
            self.closed = True
            transport.abort()  # what is buffered would never go
            return
        self._watchdog = loop.call_later(self._watch_interval(), self._watch)

    def held_bytes(self) -> int:
        """Bytes this server holds for the client outside the kernel: queued and in the transport."""
        return self.queued_bytes + buffered(self.writer.transport)

    async def _write_loop(self) -> None:
        timeout = self.server.config.write_timeout
        try:
            while True:
                frame = await self.queue.get()
                if frame is None or self.writer.transport.is_closing():  # closing or lost: stop writing
                    break
                self.queued_bytes -= len(frame)
                if self._write(frame) > WRITE_BUFFER_HIGH:
                    self._draining = True
                    await asyncio.wait_for(self.writer.drain(), timeout)
                    self._draining = False
                    self._waiting = buffered(self.writer.transport)  # taken meanwhile: frames go direct again
            await asyncio.wait_for(self.writer.drain(), timeout)
        except TimeoutError:
            log.info("%s: not taking its data, dropped", self.peer)
            self.writer.transport.abort()  # stuck: what is buffered would never go, and run() must end
        except (ConnectionError, OSError):
            log.info("%s: could not write, closing", self.peer)
        finally:
            self.closed = True
            if self._watchdog is not None:
                self._watchdog.cancel()
                self._watchdog = None
            self.writer.close()
            # Nothing more is read once this side is closed: under TLS the transport waits for the
            # client's own close (up to half a minute) before the reader would see the end.
            self.reader.feed_eof()

    def abort(self) -> None:
        """Drop the connection at once, saying nothing (the socket is let go now)."""
        self.closed = True
        if self.handshake is not None:
            self.handshake.cancel()  # the handshake closes the socket as it ends (asyncio's start_tls)
        else:
            self.writer.transport.abort()

    def close(self, reason: str) -> None:
        """Say goodbye and close after what is already queued. Safe to call twice. Before its TLS
        handshake is done nothing can be said: the connection is dropped at once."""
        if self.closed:
            return
        if not self.secured:
            self.close_reason = reason
            self.abort()
            return
        self.close_reason = reason
        stuck = self.queue.qsize() >= self.frames_budget
        if not stuck:
            with contextlib.suppress(ProtocolError):
                bye = encode_message(Bye(reason=reason))
                self.queue.put_nowait(bye)
                self.queued_bytes += len(bye)
        self.closed = True
        self.queue.put_nowait(None)
        if stuck:
            # A stuck client: drop the connection now. A plain close would wait for the buffered data
            # to go out (never), and run() would keep the member seated and "connected" meanwhile.
            self.writer.transport.abort()

    # --- receiving --------------------------------------------------------------------------------
    async def run(self) -> None:
        """Read the client's bytes into the session until either side ends it."""
        self._writer_task = asyncio.create_task(self._write_loop())
        loop = asyncio.get_running_loop()
        session = self.session
        try:
            while not self.closed:
                try:
                    data = await asyncio.wait_for(self.reader.read(READ_CHUNK), session.patience(loop.time()))
                except TimeoutError:
                    if session.silent(loop.time()):
                        continue
                    break
                if not data:
                    break
                session.feed(data)
                if session.linked is not None:  # a front's link: its channels are read from here on
                    self.frames_budget *= LINK_BUDGET
                    self.bytes_budget *= LINK_BUDGET
                    self.link = FrontLinkServer(self.server, self)
                    await self.link.run(session.rest_of_stream())
                    break
                while session.parked is not None:
                    await session.look_up()
                if session.refusal is not None:  # refused at the door: answered after a pause, then closed
                    await asyncio.sleep(refusal_pause(session.refusal.params))
                    session.refuse()
                    break
        except (ConnectionError, OSError):
            pass
        finally:
            if not self.closed:
                self.closed = True
                self.queue.put_nowait(None)
            session.ended()
            if self._writer_task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._writer_task, self.server.config.write_timeout)
                if not self._writer_task.done():
                    self._writer_task.cancel()
                    self.writer.close()
