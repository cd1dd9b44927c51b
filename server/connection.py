"""One client connection over TCP: a reader that validates and dispatches, a send queue and a
writer task of its own, so one slow client never delays a table."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from ono99_tui.protocol import FrameDecoder, ProtocolError, clean_text, encode, validate

from .lobby import Member, TokenBucket

if TYPE_CHECKING:
    from .app import Server

log = logging.getLogger("ono99.connection")
READ_CHUNK = 64 * 1024
WRITE_BUFFER_HIGH = 64 * 1024  # bytes buffered in the transport before the writer waits for the client
MAX_STRIKES = 20  # rate-limit refusals in a row before a flooding client is dropped


class Connection:
    def __init__(self, server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername")
        self.address = str(peer[0]) if isinstance(peer, tuple) else "local"
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "local"
        config = server.config
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=config.send_queue_frames)
        self.member: Member | None = None
        self.closed = False
        self.close_reason = ""
        self.bucket = TokenBucket(config.messages_per_second, config.message_burst)
        self.strikes = 0
        self._writer_task: asyncio.Task[None] | None = None
        self._draining = False  # the writer task is waiting for the client to take its data

    # --- sending ----------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        self.send_frame(encode(message))

    def send_frame(self, frame: bytes) -> None:
        if self.closed:
            return
        transport = self.writer.transport
        if self._writer_task is not None and not self._draining and self.queue.empty() \
                and not transport.is_closing() and transport.get_write_buffer_size() <= WRITE_BUFFER_HIGH:
            # The writer task is idle and nothing is queued, so every earlier frame is already in the
            # transport: write this one now, as that task would, without waking it for every frame.
            transport.write(frame)
            if transport.get_write_buffer_size() > WRITE_BUFFER_HIGH:
                self.queue.put_nowait(b"")  # an empty frame: the writer task waits for the client, timed
            return
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            log.warning("%s: dropped, %d frames waiting (client too slow)", self.peer, self.queue.qsize())
            self.close("too slow: the server could not deliver your updates")

    def error(self, code: str, reason: str, ref: str | None = None) -> None:
        self.send({"t": "error", "code": code, "reason": reason, "ref": ref})

    async def _write_loop(self) -> None:
        timeout = self.server.config.write_timeout
        try:
            while True:
                frame = await self.queue.get()
                if frame is None or self.writer.transport.is_closing():  # closing or lost: stop writing
                    break
                self.writer.write(frame)
                if self.writer.transport.get_write_buffer_size() > WRITE_BUFFER_HIGH:
                    self._draining = True
                    await asyncio.wait_for(self.writer.drain(), timeout)
                    self._draining = False
            await asyncio.wait_for(self.writer.drain(), timeout)
        except TimeoutError:
            log.info("%s: not taking its data, dropped", self.peer)
            self.writer.transport.abort()  # stuck: what is buffered would never go, and run() must end
        except (ConnectionError, OSError):
            log.info("%s: could not write, closing", self.peer)
        finally:
            self.closed = True
            self.writer.close()

    def close(self, reason: str) -> None:
        """Say goodbye and close after what is already queued. Safe to call twice."""
        if self.closed:
            return
        self.close_reason = reason
        with contextlib.suppress(asyncio.QueueFull, ProtocolError):
            self.queue.put_nowait(encode({"t": "bye", "reason": reason}))
        self.closed = True
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            # A stuck client: drop the connection now. A plain close would wait for the buffered data
            # to go out (never), and run() would keep the member seated and "connected" meanwhile.
            self.writer.transport.abort()

    # --- receiving --------------------------------------------------------------------------------
    async def run(self) -> None:
        self._writer_task = asyncio.create_task(self._write_loop())
        config = self.server.config
        decoder = FrameDecoder()
        loop = asyncio.get_running_loop()
        hello_by = loop.time() + config.hello_timeout  # fixed: chatter without a hello does not extend it
        try:
            while not self.closed:
                deadline = config.idle_timeout if self.member is not None else max(0.0, hello_by - loop.time())
                try:
                    data = await asyncio.wait_for(self.reader.read(READ_CHUNK), deadline)
                except TimeoutError:
                    if self._watching_a_game():
                        continue  # its screen is following a game that moves: not idle
                    self.close("no hello in time" if self.member is None else "idle for too long")
                    break
                if not data:
                    break
                try:
                    for message in decoder.feed(data):
                        self._receive(message)
                        if self.closed:
                            break
                except ProtocolError as exc:  # framing: the stream cannot be trusted any more
                    log.info("%s: %s: %s, closing", self.peer, exc.code, exc.reason)
                    self.error(exc.code, exc.reason)
                    self.close(exc.reason)
                    break
        except (ConnectionError, OSError):
            pass
        finally:
            if not self.closed:
                self.closed = True
                with contextlib.suppress(asyncio.QueueFull):
                    self.queue.put_nowait(None)
            if self.member is not None and self.member.connection is self:
                self.server.lobby.dropped(self.member)
            if self._writer_task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._writer_task, config.write_timeout)
                if not self._writer_task.done():
                    self._writer_task.cancel()
                    self.writer.close()

    def _watching_a_game(self) -> bool:
        """At a table whose game moved within the idle timeout (a game stuck on a vanished player's
        turn does not keep anyone connected)."""
        table = self.member.table if self.member is not None else None
        return table is not None and table.status == "playing" and \
            asyncio.get_running_loop().time() - table.moved_at < self.server.config.idle_timeout

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message.get("t") if isinstance(message.get("t"), str) else None
        ref = kind[:32] if kind else None
        if not self.bucket.take():
            self.strikes += 1
            if self.strikes > MAX_STRIKES:
                log.warning("%s: flooding, closing", self.peer)
                self.close("too many messages")
            elif self.strikes == 1:
                self.error("rate_limited", "too many messages; slow down", ref)
            return
        self.strikes = 0
        try:
            kind = validate(message)
            if self.member is None:
                if kind != "hello":
                    raise ProtocolError("hello_first", "the first message must be hello")
                self.member = self.server.lobby.hello(self, message)
                return
            self.server.lobby.handle(self.member, kind, message)
        except ProtocolError as exc:
            log.info("%s: %s: %s", self.peer, exc.code, clean_text(exc.reason))
            self.error(exc.code, exc.reason, ref)
            if exc.fatal:
                self.close(exc.reason)
        except Exception:
            log.exception("%s: error handling %s", self.peer, ref)
            self.error("server_error", "the server failed to handle that message; it was not applied", ref)
