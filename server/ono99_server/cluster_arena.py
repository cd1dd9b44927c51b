"""Arenas on several nodes: PostgreSQL holds each arena's state, one node at a time pairs it, and its games
are played and counted on any node (server/ono99_server/arena.py is the one-node part, which calls this one).

- **The truth** is the arena's row (``arenas.meta``: players, points, streaks, games running and counted)
  and its games' rows (``arena_games``); ``arena_players`` says at which node each player was last seen.
  Every change (a join, a leave, a pairing, a counted game) is one transaction that locks the arena's
  row (``FOR UPDATE``), reads it, changes it and writes it back, so changes made at once by several
  nodes never overwrite each other; a node's copy in memory is only what it shows.
- **One pairing node** per arena holds a lease (``arena_pairers``: node, fencing epoch, ``lease_until``
  from the database's ``now()``, renewed every third of ``--lease-seconds``, taken by another node
  once it runs out, as table leases are: server/ono99_server/lease.py). Its pairing is one transaction that checks
  the lease is still its own and that the row is still the one it paired from, marks the players
  playing, and writes each game's row and its new table's owner row (``table_owners``) together: a
  pairing is kept with the table that plays it, or not at all. It seats players of other nodes as
  play now does (server/ono99_server/cluster_queue.py): they are made members of its new table, and their nodes,
  told on the ``ono99:arena`` channel, send them the ``arena_game`` and then on (``bye``, ``elsewhere``).
  Even two nodes pairing at once could not seat anybody twice: each pairing reads the locked row.
- **A game's result** is counted by whichever node stores the game, in the transaction that records
  it (found by its table's id: a table taken over from a killed node counts its game too), and only
  if the game's row has no result yet: a game is counted once. A game whose table is gone (its node
  died before saving it) is dropped by the pairing node, and its players are free again.
- **Standings** are pushed by each node to its own players from the rows: every node reads the row
  of each arena not over yet at every tick (one small row a second: a result counted at a table
  taken over from a killed node, whose node cannot tell which arena it was of, is seen there), and
  a node that changed an arena says so on the channel, so that the pairing node pairs at once.
  Reading the row rather than sending the standings over Redis keeps one source for every node,
  and no lost message can leave a node's players with old standings.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from redis.exceptions import RedisError

from ono99_kernel.core.arena import Arena, Pairing
from ono99_kernel.protocol import ARENA_TABLE, ProtocolError
from ono99_kernel.wire import server as wire

from .arena import game_counted
from .cluster_messages import ArenaChanged, QueueEntry, read
from .cluster_part import NodePart
from .storage import Database, StorageError

if TYPE_CHECKING:
    from .arena import Arenas, GameWriter
    from .lease import Fence
    from .members import Member
    from .storage import Storage
    from .table_room import Table

log = logging.getLogger("ono99.arena")
CHANNEL = "ono99:arena"


class ArenaNode(NodePart, Protocol):
    """What arenas need of their node (server/ono99_server/cluster.py's Cluster)."""

    @property
    def fence(self) -> Fence: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def lease_seconds(self) -> float: ...

    def address(self) -> tuple[str, int]: ...

    def online_at(self, node: str) -> dict[str, bool] | None:
        """The players another node's record lists online (name → connected now); None for a node gone."""

    def send_away(self, member: Member, host: str, port: int) -> None: ...

    def table_ids(self, count: int) -> list[int]: ...

    def give_back_table_ids(self, ids: list[int]) -> None: ...

    def arriving(self, record: QueueEntry) -> tuple[Member | None, bool]: ...


class ClusterArenas:
    """This node's side of the arenas of a cluster."""

    def __init__(self, node: ArenaNode) -> None:
        self.node = node
        self.texts: dict[int, str] = {}  # each arena's row as last read
        self.epochs: dict[int, int] = {}  # arenas this node pairs → its lease's epoch
        self.held_until = 0.0  # loop time until which the last renewal holds the leases (sent before it)
        self.stale: set[int] = set()  # arenas another node said changed: read at the next tick
        self._busy: set[int] = set()  # arenas being paired now (one pairing at a time each)
        self._again: set[int] = set()  # paired while busy: pair again after
        self._starting: set[int] = set()  # arena tables here whose game start is timed
        self._leases_due = 0.0

    @property
    def arenas(self) -> Arenas:
        return self.node.lobby.arenas

    @property
    def storage(self) -> Storage:
        return self.node.storage

    # --- the store's rows --------------------------------------------------------------------------
    def load_all(self) -> None:
        """At the node's start: every arena as the database has it."""
        for arena_id, text in self.storage.run_now(_all_rows):
            self._took(arena_id, text)

    def _took(self, arena_id: int, text: str) -> bool:
        """An arena's row as read: the copy here follows it; whether it changed."""
        if self.texts.get(arena_id) == text:
            return False
        self.texts[arena_id] = text
        arenas = self.arenas
        arena = Arena.from_mapping(json.loads(text), arenas.clock())
        arenas.arenas[arena.id] = arena
        arenas._next_id = max(arenas._next_id, arena.id + 1)
        over = arena.status(arenas.clock()) == "finished"
        for name, player in arena.players.items():
            if player.present and not over:
                arenas.joined[name] = arena.id
            elif arenas.joined.get(name) == arena.id:
                del arenas.joined[name]
        arenas._changed(arena)
        return True

    async def _publish(self, said: ArenaChanged) -> None:
        try:
            await self.node.redis.publish(CHANNEL, said.to_json())
        except (RedisError, OSError) as exc:  # the others read the row at their next look
            log.debug("arena %d: could not tell the other nodes (%s)", said.arena, exc)

    def _changed(self, arena_id: int) -> None:
        self.node.spawn(self._publish(ArenaChanged(node=self.node.node, arena=arena_id)))

    def _run(self, member: Member, request_t: str, job: Callable[[Database], Any],
             done: Callable[[Any], None]) -> None:
        """``job`` on the database; ``done`` with its answer on the loop; a refusal or an error told to ``member``."""
        async def work() -> None:
            try:
                try:
                    answer = await self.storage.call(job)
                except (StorageError, OSError) as exc:
                    raise ProtocolError("unavailable", "the server's database does not answer; try again "
                                        "in a moment", params={"why": "database"}) from exc
                done(answer)
            except ProtocolError as exc:
                member.send(wire.ErrorMessage(code=exc.code, reason=exc.reason, ref=request_t, params=exc.params or {}))

        self.node.spawn(work())

    # --- requests ----------------------------------------------------------------------------------
    def create(self, member: Member, arena: Arena, request_t: str) -> None:
        """A new arena: its id is the database's next one."""
        def made(arena_id: int) -> None:
            arena.id = arena_id
            self.texts[arena_id] = _row_text(arena)
            self.arenas.opened(member, arena)
            self._changed(arena_id)

        self._run(member, request_t, lambda db: _create(db, arena), made)

    def read_then(self, member: Member, request_t: str, then: Callable[[], None]) -> None:
        """Read the arenas opened since the last read (another node's, not heard of yet), then ``then``."""
        known = max(self.texts, default=0)

        def read(rows: list[tuple[int, str]]) -> None:
            for arena_id, text in rows:
                self._took(arena_id, text)
            then()

        self._run(member, request_t, lambda db: _rows_after(db, known), read)

    def join(self, member: Member, arena_id: int, rating: float, request_t: str) -> None:
        now = self.arenas.clock()

        def change(arena: Arena) -> None:
            if arena.status(now) == "finished" or now >= arena.end:
                raise ProtocolError("arena_over", "that arena is over", params={"why": "over"})
            arena.join(member.name, rating, now)

        where = (self.node.node, member.identity, member.token_hash)
        self._run(member, request_t, lambda db: _change(db, arena_id, change, where=(member.name, *where)),
                  lambda text: self._joined(member, arena_id, text))

    def _joined(self, member: Member, arena_id: int, text: str) -> None:
        self._took(arena_id, text)
        arena = self.arenas.arenas[arena_id]
        before = self.arenas.joined.get(member.name)
        self.arenas.joined[member.name] = arena_id
        if before is not None and before != arena_id:
            self.leave(member, before, "arena_join")
        member.send(self.arenas.message(arena, member.name))
        self._changed(arena_id)

    def leave(self, member: Member, arena_id: int, request_t: str) -> None:
        def change(arena: Arena) -> None:
            arena.leave(member.name)

        def left(text: str) -> None:
            self._took(arena_id, text)
            if self.arenas.joined.get(member.name) == arena_id:
                del self.arenas.joined[member.name]
            member.send(self.arenas.message(self.arenas.arenas[arena_id], member.name))
            self._changed(arena_id)

        self._run(member, request_t, lambda db: _change(db, arena_id, change), left)

    def welcomed(self, member: Member) -> None:
        """A player of an arena came to this node: pairing finds them here from now on."""
        arena_id = self.arenas.joined.get(member.name)
        if arena_id is None:
            return
        where = (member.name, self.node.node, member.identity, member.token_hash)

        async def here(db: Database) -> None:
            await _player_at(db, arena_id, where)

        self.storage.submit(here, what=(None, "arena player's node"))

    # --- the tick -----------------------------------------------------------------------------------
    def tick(self) -> None:
        """Every second: the leases (every third of a lease), the arena tables here to start, the rows of
        the arenas not over (and of those said changed), and a pairing of each arena this node pairs."""
        loop = asyncio.get_running_loop()
        self._start_tables()
        if loop.time() >= self._leases_due:
            self._leases_due = loop.time() + self.node.lease_seconds / 3
            self.node.spawn(self._leases())
        now = self.arenas.clock()
        running = {a.id for a in self.arenas.arenas.values() if a.status(now) != "finished"}
        wanted = self.stale | running | {a for a in self.epochs if self.holds(a)}
        self.stale.clear()
        if wanted:
            self.node.spawn(self._read_again(sorted(wanted)))

    def holds(self, arena_id: int) -> bool:
        return arena_id in self.epochs and asyncio.get_running_loop().time() < self.held_until

    async def _read_again(self, arena_ids: list[int]) -> None:
        try:
            rows = await self.storage.call(lambda db: _rows(db, arena_ids))
        except (StorageError, OSError) as exc:
            log.debug("arenas: cannot read their rows (%s)", exc)
            return
        for arena_id, text in rows:
            changed = self._took(arena_id, text)
            if self.holds(arena_id):
                if changed:
                    self._changed(arena_id)
                await self._dropped_games(arena_id)
                await self.pair(arena_id)

    async def _leases(self) -> None:
        """Renew the pairing leases this node holds, and take those that ran out (or nobody holds)."""
        now = self.arenas.clock()
        open_ids = [a.id for a in self.arenas.arenas.values() if a.status(now) != "finished"]
        sent = asyncio.get_running_loop().time()
        node, lease = self.node.node, self.node.lease_seconds
        held = {arena_id: epoch for arena_id, epoch in self.epochs.items() if arena_id in open_ids}
        try:
            epochs = await self.storage.call(lambda db: _leases(db, node, lease, held, open_ids))
            known = max(self.texts, default=0)
            opened = await self.storage.call(lambda db: _rows_after(db, known))  # if a message was lost
        except (StorageError, OSError) as exc:
            log.debug("arenas: cannot renew the pairing leases (%s)", exc)
            return
        for arena_id, text in opened:
            self._took(arena_id, text)
        for arena_id in (set(self.epochs) & set(open_ids)) - set(epochs):
            log.warning("arena %d: paired by another node now", arena_id)
        for arena_id in set(epochs) - set(self.epochs):
            log.info("arena %d: paired by this node (epoch %d)", arena_id, epochs[arena_id])
        self.epochs = epochs
        self.held_until = sent + lease

    async def release(self, db: Database) -> None:
        """This node stops: the leases of the arenas it pairs run out now (on the database thread)."""
        await db.run("UPDATE arena_pairers SET lease_until = now() - interval '1 second' WHERE node = ?",
                     (self.node.node,))
        self.epochs = {}

    # --- pairing -------------------------------------------------------------------------------------
    def pair_soon(self, arena_id: int) -> None:
        if self.holds(arena_id):
            self.node.spawn(self.pair(arena_id))

    async def pair(self, arena_id: int) -> None:
        """Pair the arena's free players reachable now, if this node holds its lease."""
        if arena_id in self._busy:
            self._again.add(arena_id)
            return
        self._busy.add(arena_id)
        try:
            while self.holds(arena_id):
                self._again.discard(arena_id)
                if not await self._pair_once(arena_id) and arena_id not in self._again:
                    break
        finally:
            self._busy.discard(arena_id)

    async def _pair_once(self, arena_id: int) -> bool:
        """One pairing; True if it must be tried again at once (the row changed meanwhile)."""
        lobby = self.arenas.lobby
        if lobby.closed:
            return False
        try:
            text, where = await self.storage.call(lambda db: _state(db, arena_id))
        except (StorageError, OSError):
            return False
        self._took(arena_id, text)
        now = self.arenas.clock()
        arena = Arena.from_mapping(json.loads(text), now)
        here = self.node.node
        away = set(self.arenas._showing)
        for name in arena.players:  # paired only if connected to a node alive (as its record says)
            node = where.get(name, (None, None, ""))[0]
            if node == here:
                member = lobby.members.get(name)
                connected = member is not None and member.connection is not None
            else:
                connected = node is not None and (self.node.online_at(node) or {}).get(name, False)
            if not connected:
                away.add(name)
        pairings = arena.pair(now, away)
        if not pairings:
            return False
        try:
            ids = self.node.table_ids(len(pairings))
        except ProtocolError:  # the database or Redis is down: paired at a later tick
            return False
        epoch = self.epochs.get(arena_id)
        new_text = _row_text(arena)
        fence, lease = self.node.fence, self.node.lease_seconds
        games = [(p.game, table_id, p.players) for p, table_id in zip(pairings, ids, strict=True)]
        for table_id in ids:
            fence.epochs[table_id] = 1
        try:
            done = await self.storage.call(lambda db: _paired(db, arena_id, here, epoch, text, new_text, games,
                                                              fence, lease))
        except (StorageError, OSError):
            done = False
        if not done:
            for table_id in ids:
                fence.epochs.pop(table_id, None)
                fence.claimed.discard(table_id)
            self.node.give_back_table_ids(ids)
            return self.holds(arena_id)
        self._took(arena_id, new_text)
        arena = self.arenas.arenas[arena_id]
        for pairing, table_id in zip(pairings, ids, strict=True):
            self._seat(arena, pairing, table_id, where)
        self._changed(arena_id)
        return False

    def _seat(self, arena: Arena, pairing: Pairing, table_id: int,
              where: dict[str, tuple[str | None, str | None, str]]) -> None:
        lobby = self.arenas.lobby
        members: list[Member] = []
        remote: list[str] = []
        for name in pairing.players:
            member = lobby.members.get(name)
            node, identity, token = where.get(name, (None, None, ""))
            if member is not None and member.connection is None and member.table is not None:
                member.table.leave(member)  # away at their last game's table here: the arena has them free
            if member is None or member.connection is None:
                made, _ = self.node.arriving(QueueEntry(node=node or "", name=name, identity=identity, token=token))
                if made is None:  # cannot be seated here (a name held by someone else): a bot plays instead
                    continue
                member = made
                remote.append(name)
            members.append(member)
        if not members:
            return
        table = self.arenas.seat(arena, pairing, members, table_id)
        host, port = self.node.address()
        if remote:
            self.node.spawn(self._publish(ArenaChanged(node=self.node.node, arena=arena.id, table=table.id, host=host,
                                                       port=port, players=tuple(remote),
                                                       starts_in=lobby.config.arena_starts_in)))

    async def _dropped_games(self, arena_id: int) -> None:
        """Games whose table is gone without a result (its node died before it was saved): their
        players are free again, and the games never count."""
        now = self.arenas.clock()
        try:
            text = await self.storage.call(lambda db: _drop_lost(db, arena_id, now))
        except (StorageError, OSError):
            return
        if text is not None:
            self._took(arena_id, text)
            self._changed(arena_id)

    # --- tables and results --------------------------------------------------------------------------
    def _start_tables(self) -> None:
        """Arena tables here waiting for their game (taken over from a killed node before it started
        them): started after the usual pause."""
        lobby = self.arenas.lobby
        tables = lobby.directory.tables
        self._starting &= set(tables)
        for table in list(tables.values()):
            if table.name_code == ARENA_TABLE and table.id not in self._starting and table.game is None:
                self._starting.add(table.id)
                asyncio.get_running_loop().call_later(lobby.config.arena_starts_in, self.arenas._start_game, table)

    def started(self, table: Table) -> None:
        self._starting.add(table.id)

    def game_over(self, table: Table, ranking: list[str]) -> GameWriter:
        """What counts a finished arena game in the transaction that records it: its arena and game are
        read from its row by the table's id; nothing if it has a result already."""
        now = self.arenas.clock()
        found = self.arenas.tables.pop(table.id, None)
        if found is not None:
            arena_id = found[0]
            showing = self.arenas._showing
            showing.update(ranking)

            def shown() -> None:  # the players saw the end: they may be paired (the result is saved by now)
                showing.difference_update(ranking)
                self.stale.add(arena_id)
                self._changed(arena_id)
                self.pair_soon(arena_id)

            table.once_finish_shown(shown)

        async def write(db: Database, game_id: int) -> None:
            row = await db.row("SELECT arena, game, players FROM arena_games WHERE table_id = ? AND ranking IS NULL",
                               (table.id,))
            if row is None:
                return
            arena_id, game = int(row[0]), int(row[1])
            meta = await db.row("SELECT meta FROM arenas WHERE id = ? FOR UPDATE", (arena_id,))
            if meta is None:
                return
            arena = Arena.from_mapping(json.loads(meta[0]), now)
            players = tuple(json.loads(row[2]))
            try:
                earned = arena.count(game, ranking, now)
            except ValueError as exc:
                log.error("arena %d: game %d not counted: %s", arena_id, game, exc)
                return
            if game in arena.counted:  # with points or not (its players sat down elsewhere or nowhere)
                await game_counted(arena_id, game, players, ranking, earned, arena.to_mapping())(db, game_id)

        return write

    # --- what the other nodes say ---------------------------------------------------------------------
    def heard(self, raw: Any) -> None:
        said = read(ArenaChanged.from_json, raw, "an arena's change")
        if said is None or said.node == self.node.node:
            return
        self.stale.add(said.arena)
        self.pair_soon(said.arena)  # a game of it ended at another node, or a player joined there
        if said.table is None:
            return
        lobby = self.arenas.lobby
        for name in said.players:
            member = lobby.members.get(name)
            if member is None or member.connection is None:
                continue
            member.send(wire.ArenaGame(arena=said.arena, table=said.table, starts_in=said.starts_in))
            if member.table is not None:  # their last game's table here: their hello here must send them on
                member.table.leave(member)
            self.node.send_away(member, said.host, said.port)


# --- the database's side -----------------------------------------------------------------------------
def _row_text(arena: Arena) -> str:
    """An arena as its row keeps it (``arenas.meta``)."""
    return json.dumps(arena.to_mapping(), ensure_ascii=False)


def _until(lease: float) -> str:
    return f"now() + {float(lease)!r} * interval '1 second'"


async def _all_rows(db: Database) -> list[tuple[int, str]]:
    return [(int(i), str(m)) for i, m in await db.rows("SELECT id, meta FROM arenas ORDER BY id")]


async def _rows(db: Database, arena_ids: list[int]) -> list[tuple[int, str]]:
    return [(int(i), str(m)) for i, m in await db.rows("SELECT id, meta FROM arenas WHERE id = ANY(?)", (arena_ids,))]


async def _rows_after(db: Database, arena_id: int) -> list[tuple[int, str]]:
    return [(int(i), str(m)) for i, m in await db.rows("SELECT id, meta FROM arenas WHERE id > ? ORDER BY id",
                                                        (arena_id,))]


async def _create(db: Database, arena: Arena) -> int:
    async with db.transaction():
        await db.run("LOCK TABLE arenas IN SHARE ROW EXCLUSIVE MODE")  # one new id at a time
        row = await db.row("SELECT COALESCE(MAX(id), 0) + 1 FROM arenas")
        assert row is not None
        arena.id = int(row[0])
        await db.run("INSERT INTO arenas(id, meta) VALUES (?, ?)",
                     (arena.id, _row_text(arena)))
    return arena.id


async def _change(db: Database, arena_id: int, change: Callable[[Arena], None],
                  where: tuple[str, str, str | None, str] | None = None) -> str:
    """Change an arena's row under its lock (``change`` may refuse with a ProtocolError: nothing is
    written); ``where``: (name, node, identity, token hash) of the player it is about."""
    async with db.transaction():
        row = await db.row("SELECT meta FROM arenas WHERE id = ? FOR UPDATE", (arena_id,))
        if row is None:
            raise ProtocolError("no_arena", "there is no such arena", params={"why": "id"})
        arena = Arena.from_mapping(json.loads(row[0]), 0.0)
        change(arena)
        text = _row_text(arena)
        await db.run("UPDATE arenas SET meta = ? WHERE id = ?", (text, arena_id))
        if where is not None:
            await _player_at(db, arena_id, where)
    return text


async def _player_at(db: Database, arena_id: int, where: tuple[str, str, str | None, str]) -> None:
    """Where the arena's player is now: ``where`` is (name, node, identity, token hash)."""
    await db.run("INSERT INTO arena_players(arena, name, node, identity, token) VALUES (?, ?, ?, ?, ?) "
                 "ON CONFLICT(arena, name) DO UPDATE SET node = excluded.node, identity = excluded.identity, "
                 "token = excluded.token", (arena_id, *where))


async def _state(db: Database, arena_id: int) -> tuple[str, dict[str, tuple[str | None, str | None, str]]]:
    row = await db.row("SELECT meta FROM arenas WHERE id = ?", (arena_id,))
    assert row is not None
    rows = await db.rows("SELECT name, node, identity, token FROM arena_players WHERE arena = ?", (arena_id,))
    return str(row[0]), {str(n): (str(node), i, str(t)) for n, node, i, t in rows}


async def _leases(db: Database, node: str, lease: float, held: dict[int, int], arena_ids: list[int]) -> dict[int, int]:
    """Renew the leases ``held`` (arena → epoch), take those of ``arena_ids`` that ran out or that
    nobody holds; the leases this node holds now."""
    holds: dict[int, int] = {}
    if held:
        rows = await db.rows(f"UPDATE arena_pairers SET lease_until = {_until(lease)} WHERE node = ? AND "
                             "arena = ANY(?) RETURNING arena, epoch", (node, list(held)))
        holds = {int(a): int(e) for a, e in rows if held.get(int(a)) == int(e)}
    for arena_id in arena_ids:
        if arena_id in holds:
            continue
        row = await db.row("INSERT INTO arena_pairers(arena, node, epoch, lease_until) "
                           f"VALUES (?, ?, 1, {_until(lease)}) "
                           "ON CONFLICT(arena) DO UPDATE SET node = excluded.node, epoch = arena_pairers.epoch + 1, "
                           "lease_until = excluded.lease_until WHERE arena_pairers.lease_until < now() "
                           "RETURNING epoch", (arena_id, node))
        if row is not None:
            holds[arena_id] = int(row[0])
    return holds


async def _paired(db: Database, arena_id: int, node: str, epoch: int | None, before: str, after: str,
                  games: list[tuple[int, int, tuple[str, ...]]], fence: Fence, lease: float) -> bool:
    """Keep a pairing made from the row ``before``: the arena's new row, each game's row and its new
    table's owner row, if this node still holds the arena's lease and the row is unchanged."""
    async with db.transaction():
        held = await db.row("SELECT node, epoch FROM arena_pairers WHERE arena = ? AND lease_until > now() FOR SHARE",
                            (arena_id,))
        if held is None or held[0] != node or int(held[1]) != epoch:
            return False
        row = await db.row("SELECT meta FROM arenas WHERE id = ? FOR UPDATE", (arena_id,))
        if row is None or row[0] != before:
            return False
        await db.run("UPDATE arenas SET meta = ? WHERE id = ?", (after, arena_id))
        for game, table_id, players in games:
            await fence.claim(db, table_id)
            await db.run("INSERT INTO arena_games(arena, game, table_id, players, ranking, points) "
                         "VALUES (?, ?, ?, ?, NULL, NULL)",
                         (arena_id, game, table_id, json.dumps(players, ensure_ascii=False)))
            await db.run("UPDATE arena_players SET node = ? WHERE arena = ? AND name = ANY(?)",
                         (node, arena_id, list(players)))
    return True


async def _drop_lost(db: Database, arena_id: int, now: float) -> str | None:
    """Free the players of the arena's games whose table has no owner any more and no result; the
    arena's new row, or None if there were none."""
    lost = await db.rows("SELECT g.game FROM arena_games g LEFT JOIN table_owners o ON o.table_id = g.table_id "
                         "WHERE g.arena = ? AND g.ranking IS NULL AND o.table_id IS NULL", (arena_id,))
    if not lost:
        return None
    async with db.transaction():
        row = await db.row("SELECT meta FROM arenas WHERE id = ? FOR UPDATE", (arena_id,))
        if row is None:
            return None
        arena = Arena.from_mapping(json.loads(row[0]), now)
        dropped = []
        for (game,) in lost:
            gone = await db.row("DELETE FROM arena_games g WHERE arena = ? AND game = ? AND ranking IS NULL AND NOT "
                                "EXISTS (SELECT 1 FROM table_owners o WHERE o.table_id = g.table_id) RETURNING game",
                                (arena_id, int(game)))
            if gone is not None:
                arena.unpair(int(game), now)
                dropped.append(int(game))
        if not dropped:
            return None
        text = _row_text(arena)
        await db.run("UPDATE arenas SET meta = ? WHERE id = ?", (text, arena_id))
    log.warning("arena %d: games %s lost with their tables; their players are free again", arena_id, dropped)
    return text
