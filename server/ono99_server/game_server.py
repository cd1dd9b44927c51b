"""The server: the TLS listener, connection limits, start-up restore and a graceful shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import ssl
from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit

from ono99_kernel.access import AccessPolicy
from ono99_kernel.fingerprints import fingerprint_digest
from ono99_kernel.limits import HelloQueue
from ono99_kernel.refusal import Refusal, params_of
from ono99_kernel.tls import ServerCertificate, ephemeral_certificate, lean_read_buffers, load_or_create_certificate

from .config import ServerConfig
from .connection import Connection
from .front_link import Channel
from .lobby_state import Lobby
from .metrics import MetricsEndpoint
from .stores import open_storage

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ono99_kernel.wire.requests import Hello, Request

    from .cluster import Cluster
    from .members import Link, Member
    from .moderation import Door
    from .player_session import Session

log = logging.getLogger("ono99.server")
REFUSALS_AT_ONCE = 16  # refused connections told why (inside TLS) at once; those beyond are closed unanswered
READ_LIMIT = 64 * 1024  # a connection's read buffer


class TlsStreamProtocol(asyncio.StreamReaderProtocol):
    """The stream protocol of a connection that is only ever spoken over TLS (``Server._secure``).
    Python 3.11's ``StreamWriter.start_tls`` marks the stream as TLS only when its coroutine resumes
    after the handshake, so a client whose close came with the handshake's end (``ono99 connect``
    reading a certificate, then hanging up) had ``eof_received`` return True inside TLS, and asyncio
    logged a warning for each. Here an end of input never keeps the connection half open: there is no
    plain TCP to go on writing to."""

    def eof_received(self) -> bool:
        super().eof_received()
        return False


class LobbyDoor:
    """The lobby as its sessions see it (server/ono99_server/player_session.py's ``SessionLobby``): each call goes
    to the part of the lobby that answers it (its names, moderation, metrics, or the lobby itself)."""

    def __init__(self, lobby: Lobby) -> None:
        self._lobby = lobby

    @property
    def names_shared(self) -> bool:
        return self._lobby.names.shared

    async def look_up(self, name: str, identity: str | None) -> None:
        await self._lobby.names.look_up(name, identity)

    def name_of(self, identity: str) -> str | None:
        return self._lobby.names.name_of(identity)

    def at_the_door(self, door: Door, hello: Hello) -> Hello | None:
        return self._lobby.moderation.at_the_door(door, hello)

    def hello(self, connection: Link, hello: Hello, identity: str | None, peer: str) -> Member:
        return self._lobby.hello(connection, hello, identity, peer)

    def welcomed(self, member: Member) -> None:
        self._lobby.moderation.welcomed(member)

    def handle(self, member: Member, request: Request) -> None:
        self._lobby.handle(member, request)

    def operator_message(self, door: Door, request: Request) -> None:
        self._lobby.moderation.operator_message(door, request)

    def dropped(self, member: Member) -> None:
        self._lobby.dropped(member)

    def error_sent(self, connection: Session, code: str, params: Mapping[str, str | int] | None) -> None:
        self._lobby.metrics.error_sent(connection, code, params)


class Server:
    """Hosts the lobby and its tables. ``await start()``, then ``await close()`` (safe twice)."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        self.access = AccessPolicy.from_settings(self.config.ssh)  # who may come in, by every listener
        location = self.config.db_url or self.config.db_path  # PostgreSQL, else SQLite, else nothing is kept
        self.storage = open_storage(location) if location is not None else None
        self.lobby = Lobby(self.config, self.storage)
        self.session_lobby = LobbyDoor(self.lobby)  # the port its sessions talk to the lobby through
        self.connections: set[Connection] = set()
        self.channels: set[Channel] = set()  # the players on trusted fronts' links (section 3c)
        self._channels_waiting = 0  # of them, those not welcomed yet: they take no player's place
        self._per_address: Counter[str] = Counter()
        self._refusing: Counter[str] = Counter()  # refused connections whose refusal is being said, by address
        self.waiting: HelloQueue[Connection] = HelloQueue(self.config.max_waiting_hellos,
                                                          self.config.max_waiting_hellos_per_address)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False
        self.restored_tables = 0
        self.certificate: ServerCertificate | None = None  # the listener's, once started
        self._tls: ssl.SSLContext | None = None
        self.metrics_endpoint: MetricsEndpoint | None = None  # --metrics-port
        self.cluster: Cluster | None = None  # one node of several (--cluster), once started

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the listener's TLS certificate, as clients pin it."""
        assert self.certificate is not None, "no TCP listener"
        return self.certificate.fingerprint

    @property
    def certificate_digest(self) -> bytes:
        """The 32 bytes of the fingerprint: what an identity proof made for this server signs."""
        return fingerprint_digest(self.fingerprint)

    @property
    def port(self) -> int:
        """The TCP port actually bound (useful with port 0)."""
        assert self._server is not None and self._server.sockets, "no TCP listener"
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def listening(self) -> bool:
        """Whether the TCP listener is on (``config.port`` None turns it off)."""
        return self._server is not None

    def load_certificate(self) -> ServerCertificate:
        """The listener's certificate: the configured files (made at the first start), else one for
        this run. ValueError says what is wrong with configured files."""
        if self.certificate is None:
            config = self.config
            if config.tls_cert is not None and config.tls_key is not None:
                new = not config.tls_cert.exists() and not config.tls_key.exists()
                self.certificate = load_or_create_certificate(config.tls_cert, config.tls_key)
                if new:  # a host who moved the database or lost the files learns it here, not from players
                    log.warning("made a new TLS certificate %s (%s): players who knew this server by another one "
                                "are warned that its certificate changed until they accept the new fingerprint; "
                                "keep %s and %s to keep it", config.tls_cert, self.certificate.fingerprint,
                                config.tls_cert.name, config.tls_key.name)
            else:
                self.certificate = ephemeral_certificate()
        return self.certificate

    async def start(self) -> None:
        """Restore the saved tables, then listen (TLS 1.3 only: there is no plain TCP)."""
        if self.config.port is not None:
            self._tls = self.load_certificate().context()
            lean_read_buffers()
        if self.config.cluster_url is None:
            self.lobby.arenas.start()  # before the tables: a restored arena game that finishes is counted
            self.restored_tables = self.lobby.restore()
        if self.config.port is not None:
            # TLS starts in _accept, once the connection is counted: a handshake that stalls holds a
            # place of the hello budget (per address too), not one outside every limit.
            loop = asyncio.get_running_loop()
            self._server = await loop.create_server(
                lambda: TlsStreamProtocol(asyncio.StreamReader(limit=READ_LIMIT, loop=loop), self._accept, loop=loop),
                self.config.host, self.config.port)
        if self.config.cluster_url is not None:  # the tables nobody holds are taken once players can reach this node
            from .cluster import Cluster  # redis is loaded only for a node of several

            check_bus_url(self.config.cluster_url)

            self.cluster = Cluster(self)
            self.restored_tables = await self.cluster.start()
        if self.config.metrics_port is not None:
            self.lobby.metrics.watch_logs()
            self.metrics_endpoint = MetricsEndpoint(self.lobby.metrics, self.health, self.config.metrics_host,
                                                    self.config.metrics_port)
            try:
                await self.metrics_endpoint.start()
            except OSError as exc:
                raise ValueError(f"cannot listen on the metrics port {self.config.metrics_host}:"
                                 f"{self.config.metrics_port}: {exc.strerror or exc}") from None

    async def health(self) -> str | None:
        """None when the server takes players and its database answers, else what is wrong (``/health``)."""
        if self._closing:
            return "shutting down"
        if self.config.port is not None and self._server is None:
            return "not listening"
        if self.storage is not None:
            try:
                await asyncio.wait_for(self.storage.call(lambda db: db.row("SELECT 1")), 2.0)
            except Exception as exc:
                return f"the database does not answer ({type(exc).__name__})"
        return None

    def players_full(self) -> bool:
        """Every place for a player is taken (connections that have not said hello do not count)."""
        welcomed = len(self.connections) - len(self.waiting) + len(self.channels) - self._channels_waiting
        return welcomed >= self.config.max_connections

    def said_hello(self, connection: Connection) -> None:
        self.waiting.remove(connection)

    def channel_opened(self, channel: Channel) -> str | None:
        """A player on a front's link counts as a connection of their own: the same budgets (the waiting
        hellos, the players' places, and their address's once their front says it, ``readdress``)."""
        if self._closing:
            return Refusal("the server is shutting down", why="closing")
        if self.players_full():
            return Refusal("the server is full", why="full")
        if self._channels_waiting >= self.config.max_waiting_hellos:
            return Refusal("too many connections are waiting to say hello; try again in a moment", why="waiting")
        self.channels.add(channel)
        self._channels_waiting += 1
        self._per_address[channel.session.address] += 1
        return None

    def channel_welcomed(self, channel: Channel) -> None:
        if channel in self.channels:
            self._channels_waiting -= 1

    def channel_ended(self, channel: Channel) -> None:
        if channel not in self.channels:
            return
        self.channels.discard(channel)
        if not channel.welcomed:
            self._channels_waiting -= 1
        self._forget_address(channel.session.address)

    def trusts(self, credential: str) -> bool:
        """Whether ``credential`` is one of a trusted front's (compared in constant time)."""
        return any(hmac.compare_digest(credential.encode(), known.encode()) for known in self.config.front_credentials)

    def readdress(self, address: str, new: str) -> str | None:
        """A trusted front's connection from ``address`` counts from now on under its player's real
        address ``new``: None, or why that address has no room (the per-address limit, as for a direct
        player)."""
        if new == address:
            return None
        if self._per_address[new] >= self.config.max_connections_per_address:
            return Refusal(f"too many connections from {new}", why="address", address=new)
        self._forget_address(address)
        self._per_address[new] += 1
        return None

    def _forget_address(self, address: str) -> None:
        self._per_address[address] -= 1
        if self._per_address[address] <= 0:
            del self._per_address[address]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = Connection(self, reader, writer)
        address = connection.address
        why: str | None = None
        if self._closing:
            why = Refusal("the server is shutting down", why="closing")
        elif self._per_address[address] >= self.config.max_connections_per_address:
            why = Refusal(f"too many connections from {address}", why="address", address=address)
        elif self.players_full():
            why = Refusal("the server is full", why="full")
        else:
            if self.waiting.waiting_from(address) >= self.config.max_waiting_hellos_per_address:
                # An address's newest connection takes the place of its oldest silent one: a burst of
                # silent connections holds no more than its budget, and locks nobody of that address out.
                self._make_room(self.waiting.oldest_from(address))
            why, making_room = self.waiting.admit(address)
            self._make_room(making_room)
        if why is not None:
            await self._refuse(connection, why)
            return
        self.connections.add(connection)
        self.waiting.add(connection, address)
        self._per_address[address] += 1
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            if await self._secure(connection):
                await connection.run()
        finally:
            self.connections.discard(connection)
            self.waiting.remove(connection)
            self._forget_address(connection.address)  # a front's connection counts under its player's
            if task is not None:
                self._tasks.discard(task)

    def _make_room(self, waiting: Connection | None) -> None:
        if waiting is None:
            return
        log.info("%s: dropped before its hello, to make room", waiting.peer)
        self.waiting.remove(waiting)
        self.connections.discard(waiting)  # it takes no place from now on
        waiting.close("too many connections waiting to say hello: say hello at once after connecting")

    async def _refuse(self, connection: Connection, why: str) -> None:
        """Say why inside TLS (there is no plain text) and close. The refusals being said are few at
        once (one per address, ``REFUSALS_AT_ONCE`` in all): a connection beyond them is closed at its
        accept, so a flood of refused connections holds no more than those while its handshakes stall."""
        address = connection.address
        log.warning("refused %s: %s", connection.peer, why)
        if self._refusing[address] >= 1 or self._refusing.total() >= REFUSALS_AT_ONCE:
            connection.abort()
            return
        self._refusing[address] += 1
        try:
            if not await self._secure(connection):
                return
            connection.session.error("too_many_connections", why, params=params_of(why))
            connection.close(why)
            writer_task = asyncio.create_task(connection._write_loop())
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer_task, self.config.write_timeout)
        finally:
            self._refusing[address] -= 1
            if self._refusing[address] <= 0:
                del self._refusing[address]

    async def _secure(self, connection: Connection) -> bool:
        """The TLS handshake on a connection just accepted, within what is left of its hello time.
        Must be the first thing ``_accept`` awaits: until then nothing reads from the socket, so
        the client's first TLS bytes are still there for it."""
        assert self._tls is not None
        left = max(0.1, connection.hello_by - asyncio.get_running_loop().time())
        task = asyncio.current_task()
        connection.handshake = task
        try:
            await connection.writer.start_tls(self._tls, ssl_handshake_timeout=left)
        except (ssl.SSLError, OSError, TimeoutError) as exc:
            log.info("%s: no TLS session (%s)", connection.peer, exc or type(exc).__name__)
            connection.handshake = None
            connection.abort()
            return False
        except asyncio.CancelledError:
            if task is None or not connection.closed:
                raise
            task.uncancel()  # dropped to make room (``Connection.abort``); the socket is closed
            return False
        finally:
            connection.handshake = None
        if connection.closed:  # dropped just as its handshake ended
            connection.abort()
            return False
        connection.secured = True
        return True

    async def close(self, reason: str = "the server is shutting down") -> None:
        """Stop listening, tell every client, save, and close. Safe to call twice."""
        if self._closing:
            return
        self._closing = True
        if self._server is not None:
            self._server.close()
        if self.metrics_endpoint is not None:
            self.lobby.metrics.unwatch_logs()
            await self.metrics_endpoint.close()
        # Stop the tables' bots and clocks first: players are disconnected below, and nobody should
        # play for them meanwhile; their tables are saved as they are, for the restart.
        self.lobby.close()
        if self.cluster is not None:
            await self.cluster.close()
        for connection in list(self.connections):
            if connection.link is not None:  # each player on a front's link is told, as if on their own
                connection.link.close_channels(reason)
            connection.close(reason)
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=self.config.write_timeout)
        if self.storage is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.storage.close)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)


def check_bus_url(url: str) -> None:
    """A ``rediss://`` bus must check the Redis server's certificate: ValueError says what to give."""
    parts = urlsplit(url)
    if parts.scheme == "rediss":
        query = dict(parse_qsl(parts.query))
        wanted = query.get("ssl_cert_reqs", "required").lower()
        if wanted.removeprefix("cert_") in ("none", "optional"):
            raise ValueError(f"--cluster {parts.scheme}://…: ssl_cert_reqs={wanted} would take any certificate, "
                             "so whoever is in between could read the bus: drop it, and give ssl_ca_certs=FILE "
                             "(the authority that signed the Redis server's certificate, or that certificate itself)")
        # redis-py's words for false; with the machine's authorities, any name they signed would pass
        unnamed = query.get("ssl_check_hostname", "").upper() in ("0", "F", "FALSE", "N", "NO", "OFF")
        if unnamed and not query.get("ssl_ca_certs"):
            raise ValueError(f"--cluster {parts.scheme}://…: ssl_check_hostname={query['ssl_check_hostname']} "
                             "with this machine's authorities would take a certificate they signed for any name, so "
                             "whoever is in between could read the bus: drop it, or give ssl_ca_certs=FILE (the "
                             "authority that signed the Redis server's certificate, or that certificate itself)")
    elif parts.scheme not in ("redis", "unix"):
        raise ValueError(f"--cluster takes redis://HOST:PORT or rediss://HOST:PORT (TLS), not {parts.scheme}://")
