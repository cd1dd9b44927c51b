"""One client connection over TCP: a reader that validates and dispatches, a send queue and a
writer task of its own, so one slow client never delays a table."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ono99_tui.access import refusal_pause
from ono99_tui.fronts import check_front
from ono99_tui.protocol import NONCE_BYTES, FrameDecoder, ProtocolError, clean_text
from ono99_tui.refusal import params_of
from ono99_tui.wire.requests import Hello, Prove, decode_request
from ono99_tui.wire.server import Bye, Challenge, ErrorMessage, ServerMessage, encode_message

from .identity import fingerprint, parse_public_key, verify_proof
from .lobby import Member, TokenBucket

if TYPE_CHECKING:
    from .app import Server
    from .moderation import OperatorSession

log = logging.getLogger("ono99.connection")
READ_CHUNK = 64 * 1024
WRITE_BUFFER_HIGH = 64 * 1024  # bytes buffered in the transport before the writer waits for the client
MAX_STRIKES = 20  # rate-limit refusals in a row before a flooding client is dropped


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


class Connection:
    # The identity (key fingerprint) this connection has proven: by a TCP client's answer to the
    # challenge, or asserted by a trusted front for its SSH login (section 3b). None: a guest so far.
    identity: str | None = None
    key_line = ""  # that key's OpenSSH public key line
    _challenge: tuple[Hello, Any, bytes] | None = None  # (hello, its key, the nonce sent)
    # Whether the access policy was already applied before the hello (a trusted front's player, at
    # the SSH login; the local game): a TCP hello is checked here.
    admitted_at_the_door = False
    front = False  # a trusted front's connection for one of its players (docs/protocol.md section 3b)
    operator: OperatorSession | None = None  # moderation: an operator's own session (`ono99 admin`), not a player
    client_name = ""  # its hello's ``client`` (a front's names the worker: metrics)
    _waiting = 0  # bytes the transport held after the last write (see _write)

    def __init__(self, server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        # From connecting to a successful hello, the TLS handshake included: fixed, chatter without a
        # hello does not extend it.
        self.hello_by = asyncio.get_running_loop().time() + server.config.hello_timeout
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
        self._refused: ProtocolError | None = None  # a hello the access policy refused, answered after a pause
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
        if self.queued_bytes + len(frame) > self.server.config.send_queue_bytes:
            log.warning("%s: dropped, %d bytes waiting (client too slow)", self.peer, self.queued_bytes)
            self.close("too slow: the server could not deliver your updates")
            return
        try:
            self.queue.put_nowait(frame)
            self.queued_bytes += len(frame)
        except asyncio.QueueFull:
            log.warning("%s: dropped, %d frames waiting (client too slow)", self.peer, self.queue.qsize())
            self.close("too slow: the server could not deliver your updates")

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

    def error(self, code: str, reason: str, ref: str | None = None,
              params: Mapping[str, str | int] | None = None) -> None:
        self.server.lobby.metrics.error_sent(self, code, params)  # metrics: refusals and errors, by code
        self.send(ErrorMessage(code=code, reason=reason, ref=ref, params=dict(params or {})))

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

    def close(self, reason: str) -> None:
        """Say goodbye and close after what is already queued. Safe to call twice."""
        if self.closed:
            return
        self.close_reason = reason
        with contextlib.suppress(asyncio.QueueFull, ProtocolError):
            bye = encode_message(Bye(reason=reason))
            self.queue.put_nowait(bye)
            self.queued_bytes += len(bye)
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
        hello_by = self.hello_by
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
                        if self.closed or self._refused is not None:
                            break
                    if self._refused is not None:  # refused at the door: answered after a pause, then closed
                        await asyncio.sleep(refusal_pause(self._refused.params))
                        self.error(self._refused.code, self._refused.reason, "hello", self._refused.params)
                        self.close(self._refused.reason)
                        break
                except ProtocolError as exc:  # framing: the stream cannot be trusted any more
                    log.info("%s: %s: %s, closing", self.peer, exc.code, exc.reason)
                    self.error(exc.code, exc.reason, params=exc.params)
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

    def _hello(self, hello: Hello) -> None:
        """A hello: with a key not yet proven on this connection, challenge it first."""
        hello.check_version()
        self._challenge = None
        if hello.front is not None or self.front:
            self._front_hello(hello)
            return
        if self.server.config.fronts_only:
            raise ProtocolError("access_denied", "this port takes only the server's SSH fronts: play with "
                                                 f"{self.server.access.ssh_hint}", fatal=True,
                                params={"why": "fronts_only", "ssh": self.server.access.ssh_hint})
        if hello.key is not None:  # "" too: a key that does not decode, never a guest
            key = parse_public_key(hello.key)
            if fingerprint(key) != self.identity:
                nonce = secrets.token_bytes(NONCE_BYTES)
                self._challenge = (hello, key, nonce)
                self.send(Challenge(nonce=nonce))
                return
        self._enter(hello)

    def _front_hello(self, hello: Hello) -> None:
        """A trusted front's hello for one of its players: the key and address the front vouches for."""
        asserted = check_front(hello.front)
        if not self.front:
            if not self.server.trusts(asserted.credential):
                log.warning("%s: refused: a front hello with a credential this server does not trust", self.peer)
                raise ProtocolError("not_trusted", "hello.front: this server does not trust that credential",
                                    fatal=True)
            why = self.server.readdress(self, asserted.address)
            if why is not None:
                raise ProtocolError("too_many_connections", why, fatal=True, params=params_of(why))
            self.front = True
            self.identity = asserted.identity
            self.admitted_at_the_door = True  # the front applied the access policy at its SSH login
        elif asserted.identity != self.identity or asserted.address != self.address:
            raise ProtocolError("bad_field", "hello.front: a connection speaks for one player only",
                                params={"why": "front"})
        if self.identity is not None and not hello.name.strip():  # the name this key owns, if any
            hello = dataclasses.replace(hello, name=self.server.lobby.names.name_of(self.identity) or "")
        self._enter(hello)

    def _prove(self, prove: Prove) -> None:
        """The signature answering the challenge: the key is proven, the hello goes on."""
        if self._challenge is None:
            raise ProtocolError("no_challenge", "prove answers a challenge: send hello with your key first")
        hello, key, nonce = self._challenge
        self._challenge = None
        if not verify_proof(key, self.server.certificate_digest, nonce, prove.signature):
            raise ProtocolError("bad_signature", "the signature does not prove that you hold the key; "
                                                 "send hello again for a new challenge")
        self.identity = fingerprint(key)
        self.key_line = key.export_public_key().decode().strip()  # a refusal shows it, for authorized_keys
        self._enter(hello)

    def _enter(self, hello: Hello) -> None:
        """A hello whose key (if any) is proven: the access policy decides, then the lobby takes it."""
        moderation = self.server.lobby.moderation  # moderation: bans, an operator's session, the names deny list
        admitted = moderation.at_the_door(self, hello)
        if admitted is None:
            return
        if not self.admitted_at_the_door:
            self._check_access(admitted)
            if self._refused is not None:
                return
        self.member = self.server.lobby.hello(self, admitted)
        self.server.said_hello(self)
        moderation.welcomed(self.member)

    def hello_credentials(self, hello: Hello) -> tuple[str | None, str | None]:
        """What this connection offers the access policy: the fingerprint of a key it proved it
        holds, and the password of its hello."""
        return self.identity, hello.password

    def _check_access(self, hello: Hello) -> None:
        """Apply the server's access policy to a TCP hello; a refusal closes the connection."""
        if self.server.players_full():
            raise ProtocolError("too_many_connections", "the server is full", fatal=True, params={"why": "full"})
        key_fingerprint, password = self.hello_credentials(hello)
        refusal = self.server.access.decide(key_fingerprint, password, self.address, self.key_line)
        if refusal is not None:
            log.warning("%s: refused at hello: %s", self.peer, refusal)
            self._refused = ProtocolError("access_denied", refusal, fatal=True, params=params_of(refusal))
    def _watching_a_game(self) -> bool:
        """At a table whose game moved within the idle timeout (a game stuck on a vanished player's
        turn does not keep anyone connected)."""
        table = self.member.table if self.member is not None else None
        return table is not None and table.status == "playing" and \
            asyncio.get_running_loop().time() - table.moved_at < self.server.config.idle_timeout

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message.get("t") if isinstance(message.get("t"), str) else None
        ref = kind[:32] if kind is not None else None  # "" is a text t: nil only without one
        if not self.bucket.take():
            self.strikes += 1
            if self.strikes > MAX_STRIKES:
                log.warning("%s: flooding, closing", self.peer)
                self.close("too many messages")
            else:  # every dropped message is answered: a client never waits for a reply that will not come
                self.error("rate_limited", "too many messages; slow down (this one was not carried out)", ref)
            return
        self.strikes = 0
        try:
            request = decode_request(message)
            if self.member is None:
                if isinstance(request, Hello):
                    self._hello(request)
                elif isinstance(request, Prove):
                    self._prove(request)
                else:
                    raise ProtocolError("hello_first", "the first message must be hello")
                return
            if self.operator is not None:  # moderation: an operator's session takes admin commands only
                self.server.lobby.moderation.operator_message(self, request)
                return
            self.server.lobby.handle(self.member, request)
        except ProtocolError as exc:
            log.info("%s: %s: %s", self.peer, exc.code, clean_text(exc.reason))
            self.error(exc.code, exc.reason, ref, exc.params)
            if exc.fatal:
                self.close(exc.reason)
        except Exception:
            log.exception("%s: error handling %s", self.peer, ref)
            self.error("server_error", "the server failed to handle that message; it was not applied", ref)
