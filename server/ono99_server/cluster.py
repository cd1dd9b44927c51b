"""Several game nodes on one PostgreSQL database and one Redis (``ono99 serve --cluster redis://…``).

PostgreSQL stays the truth: tables, moves, chat and who owns each table (server/ono99_server/lease.py). Redis
carries what a node must hear fast and can rebuild: the nodes alive and where players reach them, and each node's
public tables and seated players (a key per node, ``ono99:node:ID``, that expires unless its node writes it again,
and a ``ono99:lobby`` channel that says a node's key changed). So every node lists every node's tables, and a player
whose seat is at another node's table is sent on there (error ``elsewhere``, docs/protocol.md): all nodes show one
TLS certificate, so the fingerprint the client pinned holds at every node. The play-now queues
(server/ono99_server/cluster_queue.py), the names in use (server/ono99_server/cluster_names.py) and the lobby's chat
(server/ono99_server/cluster_chat.py) are every node's too.

A node that stops renewing (killed, paused, cut off) loses its leases after ``lease_seconds``;
the first node whose next look finds them takes its tables over from PostgreSQL as a restart
does: stand-in bots play for the players until they come back, to any node, with their key or
resume token.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import random
import secrets
import socket
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from ono99_kernel.protocol import BYE_SENT_ON, BYE_TABLE_MOVED, ProtocolError
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import Join, Spectate

from .cluster_arena import CHANNEL as ARENA_CHANNEL
from .cluster_arena import ClusterArenas
from .cluster_chat import CHANNEL as CHAT_CHANNEL
from .cluster_chat import SharedLobbyChat
from .cluster_messages import NodeRecord, QueueEntry, SentOn, read
from .cluster_names import NAMES as NAMES_CHANNEL
from .cluster_names import ClusterNames
from .cluster_operators import CHANNEL as OPERATORS_CHANNEL
from .cluster_operators import ClusterOperators
from .cluster_queue import CHANNEL as QUEUE_CHANNEL
from .cluster_queue import ClusterQueue
from .lease import ID_BLOCK, Fence
from .storage import Database, Row, StorageError

if TYPE_CHECKING:
    from .config import ServerConfig
    from .lobby_state import Lobby
    from .members import Member
    from .storage import Storage

log = logging.getLogger("ono99.cluster")
PREFIX = "ono99:node:"
# + the node they were sent to, ":", their key: the table they were sent on to join or watch there. The node is
# in the name so that the sending node, welcoming the player a moment before, cannot take the ticket itself.
SENT_ON = "ono99:sent-on:"
SENT_ON_SECONDS = 30  # how long a player sent on is expected at the other node
CHANNEL = "ono99:lobby"
MAX_ONLINE = 200  # players a node's record lists as online (as the lobby's "online" message)
TAKE_AT_ONCE = 64  # tables one look may take over (the rest at the next look)


class ClusterHost(Protocol):
    """What a node of several needs of its server (server/ono99_server/game_server.py's Server)."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def lobby(self) -> Lobby: ...

    @property
    def storage(self) -> Storage | None: ...

    @property
    def port(self) -> int: ...


class Cluster:
    """This node: its leases, its record in Redis, and what it knows of the other nodes."""

    def __init__(self, server: ClusterHost) -> None:
        config = server.config
        assert config.cluster_url is not None
        if server.storage is None or server.storage.kind != "postgresql":
            raise ValueError("--cluster needs a PostgreSQL database (--db postgresql://…): every node reads "
                             "and writes the same tables")
        self.server = server
        self.lobby = server.lobby
        self.storage = server.storage
        self.url = config.cluster_url
        self.lease_seconds = config.lease_seconds
        self.node = config.node_id or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"
        self.fence = Fence(self.node, self.lease_seconds, self._lost)
        self.redis: aioredis.Redis = aioredis.from_url(self.url, socket_timeout=max(1.0, self.lease_seconds / 3),
                                                       socket_connect_timeout=max(1.0, self.lease_seconds / 3))
        self.peers: dict[str, NodeRecord] = {}  # other nodes' records, by node id
        # The seated players of nodes whose record ran out, until another node lists them (by then it
        # has taken their tables over) or long after: loop time by which to stop waiting for them.
        self.moving: dict[str, float] = {}
        self.sending: dict[str, tuple[str, int, float]] = {}  # players sent on: key → (host, port, until)
        self.bus_up = False  # Redis answered the last heartbeat
        self.bus_error = ""  # why it did not, the last time
        self.db_up = True  # PostgreSQL answered the last renewal
        self._ids: list[int] = []  # table ids reserved for this node, not given yet
        self._reserving = False  # a block of ids is being reserved
        self._tasks: list[asyncio.Task[None]] = []
        self._published: bytes | None = None
        self._publish_due = False
        self._closing = False  # close() began: nothing more is published (the listener may be gone)
        self._recorded = False  # this node's record was written once: one missing later was lost
        self._subscribed: Any = None  # the Redis channels this node listens to, subscribed at its start
        self.queue = ClusterQueue(self)  # play now, one queue per edition and size for every node
        self.names = ClusterNames(self)  # the names of every node's players
        self.chat = SharedLobbyChat(self)  # the lobby's chat, saved and heard by every node
        self.operators = ClusterOperators(self)  # operators' commands for every node
        self.arenas = ClusterArenas(self)  # arenas, kept in the database, each paired by one node

    @property
    def every(self) -> float:
        """How often leases are renewed, the record written and expired leases looked for."""
        return self.lease_seconds / 3

    def address(self) -> tuple[str, int]:
        """Where players reach this node: ``--node-address``, else the listener's own address."""
        config = self.server.config
        if config.node_address is not None:
            host, _, port = config.node_address.rpartition(":")
            return host, int(port)
        host = config.host if config.host not in ("0.0.0.0", "::", "") else socket.gethostname()
        return host, self.server.port

    # --- start and stop ---------------------------------------------------------------------------
    async def start(self) -> int:
        """Join: read the lobby's chat, take the tables nobody holds, and start the loops; the number
        of tables taken."""
        loop = asyncio.get_running_loop()
        self.fence.bind(loop)
        self.storage.fence = self.fence
        self.lobby.nodes = self
        self.lobby.matchmaker.shared = self.queue
        self.lobby.moderation.relay = self.operators
        self.lobby.arenas.shared = self.arenas
        with contextlib.suppress(RedisError, OSError):  # before the chat is read: no line falls between
            self._subscribed = await self._subscribe()
        self.chat.restore()
        self.lobby.chat.shared = self.chat
        await self.storage.call(self.fence.start_over)
        self._ids = list(await self.storage.call(self.fence.reserve_table_ids))
        self.lobby.arenas.start()  # before the tables: a game taken over that finishes is counted
        taken = await self._take_over()
        await self._heartbeat()
        if not self.bus_up:  # said at once: a bus that never answers (its address, its certificate) is no outage
            log.error("the lobby bus (Redis) does not answer (%s): no new tables until it does", self.bus_error)
        self.lobby.table_listeners.append(self._tables_changed)
        for loop_body in (self._renew_loop, self._take_over_loop, self._heartbeat_loop, self._listen_loop):
            self._tasks.append(asyncio.create_task(self._forever(loop_body)))
        return taken

    async def close(self) -> None:
        """Stop the loops and let this node's leases run out now, so that other nodes take its
        tables at their next look (the tables were saved as they are)."""
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):  # the arenas it pairs: another node takes them at once
            await asyncio.wait_for(self.storage.call(self.arenas.release), self.lease_seconds)
        held = list(self.fence.epochs)
        if held:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.storage.call(lambda db: self.fence.release(db, held)), self.lease_seconds)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.queue.leave_all(), 2.0)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.redis.delete(PREFIX + self.node), 2.0)
            await asyncio.wait_for(self.redis.publish(CHANNEL, self.node), 2.0)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.redis.aclose(), 2.0)

    async def _forever(self, body: Callable[[], Awaitable[None]]) -> None:
        while True:
            try:
                await body()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, StorageError) as exc:  # Redis or the database is down: the heartbeat
                # and the renewals say so, once
                log.debug("cluster: %s: %s; trying again", body.__name__, exc)
            except Exception:
                log.exception("cluster: %s failed; trying again", body.__name__)
            await asyncio.sleep(self.every)

    # --- leases ---------------------------------------------------------------------------------------
    async def _renew_loop(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self.storage.call(self.fence.renew), self.lease_seconds)
                if not self.db_up:
                    log.warning("the database answers again")
                self.db_up = True
            except (TimeoutError, Exception) as exc:
                if self.db_up:
                    log.error("cannot renew the leases (%s): no new tables until the database answers", exc)
                self.db_up = False
            await asyncio.sleep(self.every)

    async def _take_over_loop(self) -> None:
        while True:
            # a little jitter, so that nodes do not all look at the same moment
            await asyncio.sleep(self.every * (0.75 + random.random() / 2))
            await self._take_over()

    async def _take_over(self) -> int:
        taken = await self.storage.call(lambda db: self.fence.take_over(db, TAKE_AT_ONCE))
        if taken:
            self.lobby.restore(only=taken)
            self.lobby.tables_changed()
            self._publish_soon()
        return len(taken)

    def _lost(self, table_id: int) -> None:
        """Another node owns the table now: stop it here and let its players go; they reconnect,
        to any node, and are sent on to its new owner."""
        table = self.lobby.tables.pop(table_id, None)
        if table is None:
            return
        table.close()
        seated: list[Member] = [s.member for s in table.seats if s.member is not None]
        until = asyncio.get_running_loop().time() + 3 * self.lease_seconds + 10
        for member in seated:  # until the new owner's record lists them, they are told to wait
            self.moving[_seat_key(member.identity, member.token_hash)] = until
        for member in [*seated, *table.spectators]:
            if member.table is table:
                member.table = None
            if member.grace is not None:
                member.grace.cancel()
                member.grace = None
            if member.connection is not None:
                member.connection.close(BYE_TABLE_MOVED)
            else:
                self.lobby.forget(member)
        self.lobby.tables_changed()
        self._publish_soon()

    def check_open(self) -> None:
        if not (self.db_up and self.bus_up):
            self._refuse("database" if not self.db_up else "bus")

    @staticmethod
    def _refuse(why: str) -> NoReturn:
        part = "database" if why == "database" else "lobby bus (Redis)"
        raise ProtocolError("unavailable", f"the server cannot open new tables now: its {part} does not answer; "
                            "games in progress go on", params={"why": why})

    def new_table_id(self) -> int:
        """A new table's id, owned by this node from now on; refused while the database or Redis is
        down (a table that could not be saved, or not be found by the other nodes, is not opened).
        The ids come from a block reserved ahead, refilled in the background: the event loop never
        waits for the database, which may hang (a frozen machine) rather than fail."""
        table_id, = self.table_ids(1)
        self.fence.epochs[table_id] = 1
        fence = self.fence

        async def claim(db: Database) -> None:
            await fence.claim(db, table_id)

        # before any write of the table's rows: the database thread keeps the order
        self.storage.submit(claim, what=(table_id, "ownership claim"))
        return table_id

    def table_ids(self, count: int) -> list[int]:
        """Ids for ``count`` new tables from the block reserved ahead, refilled in the background once
        half of it is used; refused while the database or Redis is down, or when the block ran out
        before the database gave the next one. Not claimed yet: ``new_table_id`` claims its one, and
        the transaction that pairs arena games theirs (server/ono99_server/cluster_arena.py)."""
        self.check_open()
        if len(self._ids) - count < ID_BLOCK // 2:
            self._reserve_ids()
        if len(self._ids) < count:
            self._refuse("database")
        taken, self._ids = self._ids[:count], self._ids[count:]
        return taken

    def give_back_table_ids(self, ids: list[int]) -> None:
        """Ids taken for a pairing that was not kept: given to the next tables."""
        self._ids[:0] = ids

    def arriving(self, record: QueueEntry) -> tuple[Member | None, bool]:
        """The member here of a player of another node, seated at a table here (see ``ClusterQueue.arriving``)."""
        return self.queue.arriving(record)

    def _reserve_ids(self) -> None:
        if self._reserving or self._closing:
            return
        self._reserving = True

        async def reserve() -> None:
            try:
                self._ids.extend(await self.storage.call(self.fence.reserve_table_ids))
            except Exception as exc:  # the database is down: asked again at the next new table
                log.debug("cluster: cannot reserve table ids: %s", exc)
            finally:
                self._reserving = False

        self.spawn(reserve())

    # --- Redis: this node's record, and the others' ------------------------------------------------
    def _record(self) -> bytes:
        host, port = self.address()
        public = [t for t in self.lobby.tables.values() if not t.private]
        seated: list[str] = []
        for table in self.lobby.tables.values():
            for seat in table.seats:
                if seat.member is not None:
                    seated.append(_seat_key(seat.member.identity, seat.member.token_hash))
        online = [wire.OnlinePlayer(name=m.name, away=m.connection is None,
                                    table=m.table.id if m.table is not None and not m.table.private else None)
                  for m in list(self.lobby.members.values())[:MAX_ONLINE]]
        return NodeRecord(node=self.node, host=host, port=port, online=tuple(online),
                          tables=tuple(t.info() for t in public), seated=tuple(seated)).to_json().encode()

    async def _heartbeat(self) -> None:
        if self._closing:  # a publish asked for as the node stops: its record is being deleted
            return
        record = self._record()
        try:
            kept = await self.redis.set(PREFIX + self.node, record, px=int(self.lease_seconds * 1000), get=True)
            if record != self._published:
                await self.redis.publish(CHANNEL, self.node)
            self._published = record
            await self._read_peers()
            if not self.bus_up:
                log.info("the lobby bus (Redis) answers")
            if not self.bus_up or (kept is None and self._recorded):  # Redis may have restarted empty
                self.bus_up = True
                self.names.refresh_soon()
            self.bus_up = self._recorded = True
        except (RedisError, OSError) as exc:
            if self.bus_up:
                log.error("the lobby bus (Redis) does not answer (%s): no new tables until it does; games go on", exc)
            self.bus_up = False
            self.bus_error = str(exc)
            self._published = None

    async def _heartbeat_loop(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            await self._heartbeat()
            if self.bus_up:
                if self.names.due:  # a claim that did not reach Redis, or Redis restarted empty
                    self.names.refresh_soon()
                await self.queue.heartbeat()

    def _tables_changed(self) -> None:
        self._publish_soon()

    def _publish_soon(self) -> None:
        if self._publish_due or self._closing:
            return
        self._publish_due = True

        async def publish() -> None:
            self._publish_due = False
            await self._heartbeat()

        task = asyncio.get_running_loop().create_task(publish())
        self._tasks.append(task)
        task.add_done_callback(self._tasks.remove)

    async def _read_peers(self) -> None:
        peers = {}
        async for key in self.redis.scan_iter(match=PREFIX + "*", count=200):
            node = (key.decode() if isinstance(key, bytes) else str(key))[len(PREFIX):]
            if node == self.node:
                continue
            raw = await self.redis.get(key)
            record = read(NodeRecord.from_json, raw, f"the record of node {node!r}") if raw is not None else None
            if record is not None:  # read once here, not at every list a player is sent
                peers[node] = record
        changed = peers.keys() != self.peers.keys() or any(
            peers[n].tables != self.peers[n].tables for n in peers)
        now = asyncio.get_running_loop().time()
        for gone in self.peers.keys() - peers.keys():
            for key in self.peers[gone].seated:
                self.moving[key] = now + 3 * self.lease_seconds + 10
        self._send_on_seated(peers)
        listed = {key for peer in peers.values() for key in peer.seated}
        self.moving = {key: until for key, until in self.moving.items() if until > now and key not in listed}
        online_changed = any(_online(peers.get(n)) != _online(self.peers.get(n))
                             for n in peers.keys() | self.peers.keys())
        self.peers = peers
        if changed:
            self.lobby.tables_changed()
        elif online_changed:
            self.lobby.online_changed()

    def _send_on_seated(self, peers: dict[str, NodeRecord]) -> None:
        """Players in this node's lobby with no seat here whose seat another node lists from now on are
        sent on to it, as their next hello would be: a lost node's table taken over there after they
        were welcomed here while no node held it (their seat newer than the lost node's last record)."""
        newly = {key: peer for node, peer in peers.items()
                 for key in set(peer.seated).difference(self.peers[node].seated if node in self.peers else ())}
        if not newly:
            return
        for member in list(self.lobby.members.values()):
            key = _seat_key(member.identity, member.token_hash)
            if member.connection is None or member.table is not None or key in self.sending:
                continue
            peer = newly.get(key)
            if peer is not None:
                log.info("cluster: %s's seat is at node %s now; sent on", member.name, peer.node)
                self.send_away(member, peer.host, peer.port)

    async def _subscribe(self) -> Any:
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(CHANNEL, CHAT_CHANNEL, QUEUE_CHANNEL, NAMES_CHANNEL, OPERATORS_CHANNEL, ARENA_CHANNEL)
        return pubsub

    async def _listen_loop(self) -> None:
        pubsub, self._subscribed = self._subscribed, None  # the first time, subscribed at the start
        try:
            if pubsub is None:
                pubsub = await self._subscribe()
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                channel = message.get("channel")
                if channel in (CHAT_CHANNEL, CHAT_CHANNEL.encode()):
                    self.chat.heard(message.get("data"))
                elif channel in (NAMES_CHANNEL, NAMES_CHANNEL.encode()):
                    self.names.heard(message.get("data"))
                elif channel in (OPERATORS_CHANNEL, OPERATORS_CHANNEL.encode()):
                    self.operators.heard(message.get("data"))
                elif channel in (ARENA_CHANNEL, ARENA_CHANNEL.encode()):
                    self.arenas.heard(message.get("data"))
                elif channel in (QUEUE_CHANNEL, QUEUE_CHANNEL.encode()):
                    if message.get("data") not in (self.node, self.node.encode()):
                        self.queue.heard()
                elif message.get("data") not in (self.node, self.node.encode()):
                    await self._read_peers()
        finally:
            if pubsub is not None:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    # --- what the lobby asks ------------------------------------------------------------------------
    def check_name(self, name: str, identity: str | None, resumed: str | None) -> None:
        self.names.check(name, identity, resumed)

    def name_used(self, member: Member, resumed: str | None) -> None:
        if not self._closing:
            self.names.used(member, resumed)

    def name_freed(self, member: Member, name: str) -> None:
        if not self._closing:
            self.names.freed(member, name)

    def remote_online(self) -> list[wire.OnlinePlayer]:
        """The players of the other nodes, as their records last said."""
        return [player for peer in self.peers.values() for player in peer.online]

    def remote_tables(self) -> list[wire.TableInfo]:
        """The public tables of the other nodes, as their records last said."""
        return [info for peer in self.peers.values() for info in peer.tables]

    def seat_elsewhere(self, identity: str | None, token_hash: str | None) -> None:
        """Send a player whose seat is at another node's table on to that node (a fatal error
        ``elsewhere`` with its address); nothing when their seat is here, or nowhere."""
        keys = {_seat_key(identity, token_hash)} if identity is not None or token_hash else set()
        now = asyncio.get_running_loop().time()
        self.sending = {key: sent for key, sent in self.sending.items() if sent[2] > now}
        for key in keys & self.sending.keys():
            host, port, _ = self.sending.pop(key)
            raise ProtocolError("elsewhere", f"the table is at another node of this server: connect to {host}:{port}",
                                fatal=True, params={"host": host, "port": port})
        for peer in self.peers.values():
            if keys & set(peer.seated):
                host, port = peer.host, peer.port
                raise ProtocolError("elsewhere", f"your seat is at a table of another node of this server: "
                                    f"connect to {host}:{port}", fatal=True, params={"host": host, "port": port})
        if any(self.moving.get(key, 0.0) > now for key in keys):  # no node lists the seat yet: one will
            raise ProtocolError("unavailable", "your table is being taken over by another node of this server; "
                                "connect again in a few seconds", fatal=True, params={"why": "moving"})


    def other_nodes(self) -> tuple[wire.NodeAddress, ...]:
        """Where players reach the other nodes alive (``welcome.nodes``): a client whose node is lost
        connects again through one of them."""
        return tuple(wire.NodeAddress(peer.host, peer.port)
                     for _, peer in sorted(self.peers.items()))[:wire.MAX_NODES]

    def online_at(self, node: str) -> dict[str, bool] | None:
        """The players another node's record lists online (name → connected now); None for a node gone.
        A record lists at most ``MAX_ONLINE``."""
        peer = self.peers.get(node)
        return None if peer is None else {p.name: not p.away for p in peer.online}

    def alive(self) -> set[str]:
        """The nodes whose record this node read last, and itself."""
        return {self.node, *self.peers}

    def send_away(self, member: Member, host: str, port: int) -> None:
        """A player seated at another node's table (play now): their connection closes (``bye``), and
        their next hello here is answered ``elsewhere`` with that node's address."""
        key = _seat_key(member.identity, member.token_hash)
        self.sending[key] = (host, port, asyncio.get_running_loop().time() + SENT_ON_SECONDS)
        if member.connection is not None:
            member.connection.close(BYE_SENT_ON)
        else:
            self.lobby.forget_if_idle(member)

    def send_on(self, member: Member, request: Join | Spectate) -> bool:
        """A ``join`` or ``spectate`` of a table another node holds: the player is sent on. Their
        connection closes (``bye``); the client connects again as after any lost connection, is
        answered ``elsewhere`` with that node's address, and there joins (or watches) the table.
        A public table is found in the other nodes' records; an invite code in the database (see
        ``_find_code``), so the answer to a code this node does not hold comes a moment later."""
        if member.connection is None:
            return False
        if request.code:
            wanted = request.code.strip().upper()
            if any(table.code == wanted for table in self.lobby.tables.values()):
                return False
            self.spawn(self._find_code(member, request, wanted))
            return True
        table_id = request.table
        if table_id is None or table_id in self.lobby.tables:
            return False
        peer = next((p for p in self.peers.values() if any(i.id == table_id for i in p.tables)), None)
        if peer is None:
            return False
        self._send(member, request, peer, table=table_id)
        return True

    async def _find_code(self, member: Member, request: Join | Spectate, code: str) -> None:
        """Which node holds the private table with invite ``code``: its saved row (``live_tables``)
        and owner (``table_owners``) in the database, which a table's host sees only once saved,
        so a code anybody was shown is found. The player is sent on to that node, or answered as a
        server alone answers a code it does not know."""
        async def owner(db: Database) -> Row | None:
            return await db.row("SELECT o.node FROM live_tables t JOIN table_owners o ON o.table_id = t.id "
                                "WHERE t.meta::jsonb ->> 'code' = ? ORDER BY t.id LIMIT 1", (code,))

        try:
            try:
                if not self.db_up:  # known down: no job is queued behind the ones that wait for it
                    raise ConnectionError("the database did not answer the last lease renewal")
                found = await asyncio.wait_for(self.storage.call(owner), self.lease_seconds)
            except (TimeoutError, Exception) as exc:  # the database does not answer
                log.debug("cluster: looking up an invite code: %s", exc)
                raise ProtocolError("unavailable", "the server cannot look up invite codes now: its database "
                                    "does not answer", params={"why": "code_lookup"}) from exc
            if member.connection is None:
                return
            node = None if found is None else str(found[0])
            if node is None or node == self.node:  # nowhere (or here after all: as a server alone does)
                self.lobby.find_table(member, code, None)  # a code nobody holds: a missed guess, as alone
                self.lobby.handle(member, request)
                return
            peer = self.peers.get(node)
            if peer is None:  # its node was lost and no node has taken the table over yet
                raise ProtocolError("unavailable", "the table of that invite code is moving to another node of "
                                    "this server: try again in a few seconds", params={"why": "code_moving"})
            self._send(member, request, peer, code=code)
        except ProtocolError as exc:
            member.send(wire.ErrorMessage(code=exc.code, reason=exc.reason, ref=request.t, params=exc.params or {}))

    def _send(self, member: Member, request: Join | Spectate, peer: NodeRecord, table: int | None = None,
              code: str | None = None) -> None:
        """Send ``member`` on to ``peer``'s node, with a ticket saying which table (by id, or by invite
        ``code``) to join or watch there."""
        assert member.connection is not None
        key = _seat_key(member.identity, member.token_hash)
        host, port = peer.host, peer.port
        ticket = SentOn(table=table, code=code, seat=request.seat if isinstance(request, Join) else None,
                        watch=isinstance(request, Spectate))
        self.sending[key] = (host, port, asyncio.get_running_loop().time() + SENT_ON_SECONDS)
        connection = member.connection

        async def leave() -> None:
            try:  # said before the goodbye: the other node reads it at the player's hello there
                await self.redis.set(_ticket_key(peer.node, key), ticket.to_json(), ex=SENT_ON_SECONDS)
            except (RedisError, OSError):
                self.sending.pop(key, None)
                member.send(wire.ErrorMessage(code="unavailable", reason="the table is at another node of this "
                                              "server, and the lobby bus (Redis) does not answer",
                                              ref=request.t, params={"why": "bus"}))
                return
            connection.close(BYE_SENT_ON)

        self.spawn(leave())

    def welcomed(self, member: Member, resume: str | None) -> None:
        """A player just welcome here (``resume``: the token their hello brought): if another node sent
        them on to join a table here, they do."""
        if member.table is not None or (member.identity is None and not resume):
            return
        key = _seat_key(member.identity, hashlib.sha256(resume.encode()).hexdigest() if resume else None)

        async def arrive() -> None:
            with contextlib.suppress(RedisError, OSError):
                raw = await self.redis.getdel(_ticket_key(self.node, key))
                if raw is None or member.connection is None or member.table is not None:
                    return
                ticket = read(SentOn.from_json, raw, f"the ticket of {member.name!r} to a table here")
                if ticket is None:
                    return
                code = ticket.code or None  # a private table's, by its code
                table_id = None if code else ticket.table
                request: Join | Spectate = Spectate(table=table_id, code=code) if ticket.watch else \
                    Join(table=table_id, code=code, seat=ticket.seat)
                try:
                    self.lobby.handle(member, request)
                except ProtocolError as exc:
                    member.send(wire.ErrorMessage(code=exc.code, reason=exc.reason, ref=request.t,
                                                  params=exc.params or {}))

        self.spawn(arrive())

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.append(task)
        task.add_done_callback(self._tasks.remove)


def _online(record: NodeRecord | None) -> tuple[wire.OnlinePlayer, ...]:
    return record.online if record is not None else ()


def _seat_key(identity: str | None, token_hash: str | None) -> str:
    return f"key:{identity}" if identity is not None else f"token:{token_hash}"


def _ticket_key(node: str, key: str) -> str:
    """Where a player sent on to ``node`` finds their ticket there (``key``: their ``_seat_key``)."""
    return f"{SENT_ON}{node}:{key}"
