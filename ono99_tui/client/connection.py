"""An asyncio client for the ONO 99 protocol: connect over TLS, check the server's fingerprint, say
hello, send messages, read messages."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from ono99_kernel.fingerprints import fingerprint_digest
from ono99_kernel.protocol import DEFAULT_PORT, MAX_FRAME, PROTOCOL_VERSION, FrameDecoder, ProtocolError, encode
from ono99_kernel.tls import client_context, lean_read_buffers, peer_fingerprint
from ono99_kernel.wire.requests import Hello, Prove, Request
from ono99_kernel.wire.server import ErrorMessage, ServerMessage, Welcome, decode_server_message

from ..i18n import gettext as _
from .errors import ConnectionLost, ServerError

if TYPE_CHECKING:
    from ono99_kernel.fronts import FrontAssertion
    from ono99_kernel.identity import Identity

    from ..known_servers import ServerTrust
    from .model import Model

Answer = TypeVar("Answer", bound=ServerMessage)
CONNECT_TIMEOUT = 10.0
MAX_HOPS = 3  # times a hello follows "elsewhere" to another node of the same server
MOVING_PAUSE = 0.5  # seconds between hellos while the server says the player's table is changing nodes
NODE_TIMEOUT = 3.0  # seconds for a lost node to answer before its server's other nodes are tried


@dataclass(frozen=True, slots=True)
class OtherNodes:
    """The other nodes of the server a client was welcomed by (``welcome.nodes``, docs/protocol.md
    section 10b) and the certificate they all show: where to connect again when its node is lost."""

    fingerprint: str
    addresses: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, client: object) -> OtherNodes | None:
        """Those of a welcomed ``Client``'s server, the node it is at first (None: a server on one
        node, or another link)."""
        if not isinstance(client, Client):
            return None
        nodes = client.welcome.get("nodes")
        told = [(str(n["host"]), int(n["port"])) for n in nodes if isinstance(n, Mapping)] \
            if isinstance(nodes, list) else []
        if not told:
            return None
        here = [client.address] if client.address is not None else []
        return cls(client.server_fingerprint, tuple(dict.fromkeys([*here, *told])))


class Client:
    """One connection to a server. Messages arrive in ``inbox`` in order; ``None`` marks the end."""

    max_frame: ClassVar[int] = MAX_FRAME  # the largest frame it takes from the server

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.ended = asyncio.Event()  # set once nothing more is read
        self.welcome: dict[str, Any] = {}
        self.address: tuple[str, int] | None = None  # the host and port it was welcomed at (``connect``)
        self.closed = False
        # The fingerprint of the certificate the server showed (ono99_kernel/tls.py): what an identity
        # proof on this connection is bound to.
        self.server_fingerprint = peer_fingerprint(writer.get_extra_info("ssl_object"))
        # Cleared while what was read waits to be handed on (a front's link): no more is read meanwhile.
        self.room: asyncio.Event | None = None
        self._reader_task = asyncio.create_task(self._read_loop())

    @classmethod
    async def open(cls, host: str, port: int, *, trust: ServerTrust | None,
                   timeout: float = CONNECT_TIMEOUT) -> Self:
        """A TLS connection to the server, its certificate checked against ``trust`` before anything
        is sent (raises ``UntrustedServer``). ``trust`` None pins nothing: only for tests and
        benchmarks on this machine, where the server is known to be the one just started."""
        lean_read_buffers()  # a front holds one connection per player: 16 KiB each, not 256
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=client_context(), server_hostname=host or None,
                                    ssl_handshake_timeout=timeout), timeout)
        try:
            client = cls(reader, writer)
            if trust is not None:
                trust.check(host, port, client.server_fingerprint)
        except BaseException:
            writer.close()
            raise
        return client

    @classmethod
    async def connect(cls, host: str, port: int, name: str, *, resume: str | None = None,
                      timeout: float = CONNECT_TIMEOUT, client_name: str = "ono99",
                      identity: Identity | None = None, password: str | None = None,
                      seen: dict[str, int] | None = None, front: FrontAssertion | None = None,
                      trust: ServerTrust | None = None, admin: bool = False,
                      others: OtherNodes | None = None) -> Self:
        """Open a TLS connection, check the server against ``trust`` (see ``open``), and complete the
        hello (proving ``identity``'s key when there is one, bound to the certificate seen: without
        one the player is a guest); raises ``ServerError`` if refused. ``password`` is for a server
        that asks for one; ``seen``: what a resuming client last saw (protocol ``hello.seen``), so
        that only the rest is sent. ``front``: a trusted front's word for its player (the SSH front).
        ``admin``: an operator's session (``ono99 admin``, docs/protocol.md section 5b), not a player.
        ``others``: the server's other nodes, told at an earlier welcome: tried in turn when ``host``
        does not answer (its node is lost), each showing the certificate pinned then."""
        hello = Hello(version=PROTOCOL_VERSION, name=name, client=client_name, resume=resume or None,
                      key=identity.public_key if identity is not None else None, password=password,
                      seen=seen or None, front=front.to_wire() if front is not None else None,
                      admin=True if admin else None)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        try:
            client = await cls.open(host, port, trust=trust, timeout=min(timeout, NODE_TIMEOUT) if others else timeout)
        except (OSError, TimeoutError):
            if others is None:
                raise
            client, (host, port) = await cls._open_another(others, max(0.1, end - loop.time()))
        pinned, hops, first = client.server_fingerprint, 0, (host, port)
        while True:
            try:
                await client.send(hello)
                client.welcome = await client._answer_challenge(identity, max(0.0, end - loop.time()))
                client.address = (host, port)
                return client
            except ServerError as exc:
                await client.close()
                params = exc.error.params
                if exc.code == "elsewhere" and hops < MAX_HOPS:
                    # Another node of the same server holds the player's seat (docs/protocol.md, section 10b):
                    # it must show the certificate this one showed, so the pin checked above holds there too.
                    hops += 1
                    host, port = str(params.get("host", "")), int(params.get("port", 0))
                elif exc.code == "unavailable" and params.get("why") == "moving" and loop.time() < end:
                    await asyncio.sleep(MOVING_PAUSE)
                else:
                    raise
            except BaseException:
                await client.close()
                raise
            try:
                client = await cls.open(host, port, trust=None, timeout=max(0.1, end - loop.time()))
            except (OSError, TimeoutError):
                if loop.time() >= end or (host, port) == first:
                    raise
                # That node has just gone (its table is being taken over): ask the first one again.
                await asyncio.sleep(MOVING_PAUSE)
                (host, port), hops = first, 0
                client = await cls.open(host, port, trust=None, timeout=max(0.1, end - loop.time()))
            if client.server_fingerprint != pinned:
                await client.close()
                from ..known_servers import UntrustedServer

                raise UntrustedServer(host, port, client.server_fingerprint)

    @classmethod
    async def _open_another(cls, others: OtherNodes, timeout: float) -> tuple[Self, tuple[str, int]]:
        """A connection to the first of ``others`` that answers, showing their certificate."""
        lost: OSError | TimeoutError = ConnectionRefusedError("the server's other nodes do not answer")
        for host, port in others.addresses:
            try:
                client = await cls.open(host, port, trust=None, timeout=min(timeout, NODE_TIMEOUT))
            except (OSError, TimeoutError) as exc:
                lost = exc
                continue
            if client.server_fingerprint != others.fingerprint:
                await client.close()
                from ..known_servers import UntrustedServer

                raise UntrustedServer(host, port, client.server_fingerprint)
            return client, (host, port)
        raise lost

    async def _answer_challenge(self, identity: Identity | None, timeout: float) -> dict[str, Any]:
        """The ``welcome``, after signing the server's ``challenge`` if it sends one."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await self.recv(max(0.0, end - loop.time()))
            kind = message.get("t")
            if kind == "welcome":
                return message
            if kind == "error":
                raise ServerError.from_wire(message)
            if kind == "challenge" and identity is not None and isinstance(message.get("nonce"), bytes):
                server_key = fingerprint_digest(self.server_fingerprint)
                await self.send(Prove(signature=identity.prove(server_key, message["nonce"])))

    @property
    def welcomed_name(self) -> str | None:
        """The name the server's welcome gives the player (None: no welcome yet, or one this version
        cannot read)."""
        return welcomed_name(self.welcome)

    async def ask(self, request: Request, answer: type[Answer], timeout: float = 30.0) -> Answer:
        """Send ``request`` and wait for its answer, the next message of type ``answer`` (others are
        skipped); a refusal raises ``ServerError``."""
        await self.send(request)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = decode_server_message(await self.recv(max(0.0, end - loop.time())))
            if isinstance(message, ErrorMessage):
                raise ServerError(message)
            if isinstance(message, answer):
                return message

    @property
    def resume_token(self) -> str:
        return str(self.welcome.get("resume", ""))

    async def send(self, message: Request) -> None:
        await self.send_map(message.to_wire())

    async def send_map(self, message: Mapping[str, Any]) -> None:
        if self.closed:
            raise ConnectionLost("the connection is closed")
        self.writer.write(encode(message))
        await self.writer.drain()

    async def send_raw(self, data: bytes) -> None:
        """Bytes as they are (tests use this to send broken frames)."""
        self.writer.write(data)
        await self.writer.drain()

    async def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        message = await asyncio.wait_for(self.inbox.get(), timeout)
        if message is None:
            self.inbox.put_nowait(None)  # keep the end marker for later readers
            raise ConnectionLost("the server closed the connection")
        return message

    async def expect(self, kind: str, timeout: float = 30.0,
                     where: Callable[[dict[str, Any]], bool] | None = None, *,
                     tolerate: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        """The next message of type ``kind`` (skipping others); an ``error`` raises ``ServerError``
        while waiting for something else, unless ``tolerate`` accepts it (then it is skipped too)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await self.recv(max(0.0, end - loop.time()))
            if message.get("t") == kind and (where is None or where(message)):
                return message
            if message.get("t") == "error" and kind != "error" and not (tolerate is not None and tolerate(message)):
                raise ServerError.from_wire(message)

    def take(self, message: dict[str, Any]) -> None:
        """One message read from the server."""
        self.inbox.put_nowait(message)

    async def _read_loop(self) -> None:
        decoder = FrameDecoder(self.max_frame)
        try:
            while True:
                if self.room is not None:
                    await self.room.wait()
                data = await self.reader.read(64 * 1024)
                if not data:
                    break
                for message in decoder.feed(data):
                    self.take(message)
        except (ConnectionError, OSError, ProtocolError):
            pass
        finally:
            self.closed = True
            self.inbox.put_nowait(None)
            self.ended.set()

    async def close(self) -> None:
        self.closed = True
        self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 5)
        self._reader_task.cancel()
        with contextlib.suppress(BaseException):
            await self._reader_task


def welcomed_name(welcome: Mapping[str, Any]) -> str | None:
    """The name a server's ``welcome`` gives the player (None: no welcome yet, or one this version cannot
    read)."""
    try:
        decoded = decode_server_message(welcome) if welcome else None
    except ProtocolError:
        return None
    return decoded.name if isinstance(decoded, Welcome) else None


class Dialer:
    """How one player's client connects to a server, and again after each loss: as the same player
    (the model's resume token and what it saw), through the server's other nodes when its node is lost."""

    def __init__(self, *, client_name: str, identity: Identity | None = None, password: str | None = None) -> None:
        self.client_name = client_name
        self.identity = identity
        self.password = password
        self.others: OtherNodes | None = None  # the server's other nodes, told at the last welcome

    async def connect(self, host: str, port: int, name: str, model: Model, trust: ServerTrust | None) -> Client:
        resuming = bool(model.resume)
        client = await Client.connect(host, port, name, resume=model.resume or None, client_name=self.client_name,
                                      identity=self.identity, password=self.password,
                                      seen=model.seen() if resuming else None, trust=trust,
                                      others=self.others if resuming else None)
        self.others = OtherNodes.of(client)  # where to come back through if this node is lost
        return client


def probe(host: str, port: int, timeout: float = CONNECT_TIMEOUT) -> None:
    """Open a plain TCP connection to ``host:port`` and close it: raises the ``OSError`` (an unknown
    host, nothing listening, no answer) that a connection would meet, before any screen opens."""
    with socket.create_connection((host, port), timeout=timeout):
        pass


def parse_address(text: str) -> tuple[str, int]:
    """``HOST`` or ``HOST:PORT`` (``[v6]:PORT`` for IPv6); ``ValueError`` for a port that is not
    a number from 1 to 65535 or a missing host."""
    text = text.strip()
    if text.startswith("["):
        host, _bracket, rest = text[1:].partition("]")
        port = _port(rest[1:]) if rest.startswith(":") else DEFAULT_PORT
    elif text.count(":") == 1:
        host, port_text = text.split(":")
        port = _port(port_text)
    else:
        host, port = text, DEFAULT_PORT
    if not host:
        raise ValueError(_("the address has no host"))
    return host, port


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise ValueError(_("the port {port} is not a number").format(port=repr(text))) from None
    if not 1 <= port <= 65535:
        raise ValueError(_("the port {port} is not from 1 to 65535").format(port=port))
    return port
