"""Play now for every node of several: one queue per edition and table size, in Redis.

Each queue is a sorted set ``ono99:queue:EDITION:SEATS`` of entry ids (``NODE|RANDOM``), scored by
when the player came, in Redis's own clock (milliseconds), so that no node's clock decides who
waited longest; ``ono99:queued`` holds each entry's player (node, name, key, resume token hash). A
group is taken by one Lua script (``CLAIM``), which Redis runs alone: it drops the entries of nodes
whose record ran out (a node that died leaves no player waiting for ever), then takes the first
``seats`` entries, or all of them once the first has waited ``--play-now-wait``, and marks each taken
entry ``ono99:queue-claimed:ID`` with the node that took it. So two nodes never seat one entry.

The node that takes a group seats it at a new table of its own (server/ono99_server/matchmaking.py): it holds at
least one of the players (it took the group when one of its players came, or when its own first
player's wait ended), and it is alive and can save the table at once; handing the table to the node
holding most of the group would be a second step that could fail halfway (that node could be gone)
for a saving of one reconnection per player. Its other players are made members of the table here,
and their entries say where it is (``{"host", "port", "table"}``); their nodes read that (told on
the ``ono99:queue`` channel, and at every heartbeat) and send them on: ``bye`` "the table is at
another node of this server", the client connects again and is answered ``elsewhere``, as for a
table joined from the list. An entry missing from its queue without a mark (Redis restarted empty)
is put back with its first score.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol, cast

from redis.exceptions import RedisError

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire.common import as_edition

from .cluster_messages import QueueEntry, SeatedAt, read
from .cluster_part import NodePart
from .members import Member

if TYPE_CHECKING:

    from ono99_kernel.wire import server as wire

    from .lobby_state import Lobby
    from .matchmaking import Waiting

log = logging.getLogger("ono99.cluster")
QUEUE = "ono99:queue:"  # + EDITION:SEATS: a sorted set of entry ids, by when they came (Redis's clock, ms)
ENTRIES = "ono99:queued"  # entry id → the waiting player (JSON)
CLAIMED = "ono99:queue-claimed:"  # + entry id: "claiming NODE", then where its table is (JSON)
CHANNEL = "ono99:queue"  # a node says its queues changed
NODE_RECORD = "ono99:node:"  # + node id: the node's record (server/ono99_server/cluster.py); gone when the node is
CLAIMED_MS = 120_000  # how long a taken entry's mark is kept
RETRY_SECONDS = 1.0  # after a group could not be seated, how long before a wait's end takes one again

# KEYS: the queue, the entries. ARGV: seats, the wait (ms), the node record prefix, the mark prefix,
# the mark, how long it is kept (ms). Returns id, entry, score for each entry taken.
CLAIM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local seats = tonumber(ARGV[1])
local live = {}
local ids = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #ids, 2 do
  local raw = redis.call('HGET', KEYS[2], ids[i])
  local node = raw and cjson.decode(raw)['node']
  if node and redis.call('EXISTS', ARGV[3] .. node) == 1 then
    live[#live + 1] = {ids[i], raw, ids[i + 1]}
  else
    redis.call('ZREM', KEYS[1], ids[i])
    redis.call('HDEL', KEYS[2], ids[i])
  end
end
local take = 0
if #live >= seats then
  take = seats
elseif #live > 0 and tonumber(live[1][3]) + tonumber(ARGV[2]) <= now then
  take = #live
end
local out = {}
for i = 1, take do
  redis.call('ZREM', KEYS[1], live[i][1])
  redis.call('HDEL', KEYS[2], live[i][1])
  redis.call('SET', ARGV[4] .. live[i][1], ARGV[5], 'PX', ARGV[6])
  out[#out + 1] = live[i][1]
  out[#out + 1] = live[i][2]
  out[#out + 1] = live[i][3]
end
return out
"""

# KEYS: the queue, the entries, the entry's mark. ARGV: id, entry, score ('' : now). An entry taken
# already (its mark is there) is not put back. Returns the entry's score in the queue (the one it
# had if it was there already: a heartbeat racing the join must not learn a later one), or -1.
ENQUEUE = """
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
local score = ARGV[3]
if score == '' then
  local t = redis.call('TIME')
  score = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZADD', KEYS[1], 'NX', score, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
"""


class QueueNode(NodePart, Protocol):
    """What the shared queue needs of its node (server/ono99_server/cluster.py's Cluster)."""

    def address(self) -> tuple[str, int]: ...

    def alive(self) -> set[str]:
        """The nodes whose record this node read last, itself included."""

    def send_away(self, member: Member, host: str, port: int) -> None:
        """Close ``member``'s connection, to be sent on to ``host:port`` at their next hello here."""


def _queue_key(edition: str, seats: int) -> str:
    return f"{QUEUE}{edition}:{seats}"


def _ms(raw: Any) -> float:
    return float(raw)


class ClusterQueue:
    """This node's side of the shared play-now queues (``matchmaking.SharedQueue``)."""

    def __init__(self, node: QueueNode) -> None:
        self.node = node
        self.ids: dict[Member, str] = {}  # this node's waiting players' entry ids
        self.scores: dict[str, float] = {}  # their scores, as Redis gave them
        # every queue as last read: (edition, seats) → [(entry id, score)], the first first
        self.snapshot: dict[tuple[wire.Edition, int], list[tuple[str, float]]] = {}
        self.clock: tuple[float, float] = (0.0, 0.0)  # (Redis's time in ms, this loop's time) at that read
        self._lock = asyncio.Lock()  # one queue operation at a time, in the order they were asked
        self._timers: dict[tuple[wire.Edition, int], asyncio.TimerHandle] = {}
        self._closed = False
        self._retry_at = 0.0  # the loop's time before which no wait's end takes a group (one failed)
        self._claim: Any = node.redis.register_script(CLAIM)
        self._enqueue: Any = node.redis.register_script(ENQUEUE)

    @property
    def lobby(self) -> Lobby:
        return self.node.lobby

    # --- what the matchmaker asks ----------------------------------------------------------------------
    def joined(self, entry: Waiting, before: Waiting | None) -> None:
        old = self.ids.pop(entry.member, None) if before is not None else None
        entry_id = f"{self.node.node}|{secrets.token_hex(6)}"
        self.ids[entry.member] = entry_id
        member = entry.member
        record = QueueEntry(node=self.node.node, name=member.name, identity=member.identity,
                            token=member.token_hash).to_json()

        async def join() -> None:
            if old is not None and before is not None:
                await self._remove(old, before.edition, before.seats)
            score = await self._enqueue(keys=[_queue_key(entry.edition, entry.seats), ENTRIES, CLAIMED + entry_id],
                                        args=[entry_id, record, ""])
            if int(score) >= 0:
                self.scores[entry_id] = _ms(score)
            if await self._take(entry.edition, entry.seats) is None:  # the other nodes count them now
                await self.node.redis.publish(CHANNEL, self.node.node)

        self._run(join())

    def left(self, entry: Waiting) -> None:
        entry_id = self.ids.pop(entry.member, None)
        if entry_id is None:
            return
        self.scores.pop(entry_id, None)
        self._run(self._remove(entry_id, entry.edition, entry.seats))

    def sizes(self) -> dict[tuple[wire.Edition, int], int]:
        counts = {queue: len(entries) for queue, entries in self.snapshot.items() if entries}
        for entry in self.lobby.matchmaker.waiting.values():  # this node's, not read back yet
            if self._where(entry) is None:
                counts[(entry.edition, entry.seats)] = counts.get((entry.edition, entry.seats), 0) + 1
        return counts

    def place(self, entry: Waiting) -> tuple[int, int, float]:
        queue = self.snapshot.get((entry.edition, entry.seats), [])
        index = self._where(entry)
        position, waiting = (index + 1, len(queue)) if index is not None else (len(queue) + 1, len(queue) + 1)
        first = queue[0][1] if queue else self.scores.get(self.ids.get(entry.member, ""))
        if first is None:
            return position, waiting, float(self.lobby.config.play_now_wait)
        return position, waiting, self._seconds_until(first + self.lobby.config.play_now_wait * 1000)

    def close(self) -> None:
        self._closed = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    async def leave_all(self) -> None:
        """This node stops: its players leave the queues (they are disconnected)."""
        for entry in list(self.lobby.matchmaker.waiting.values()):
            entry_id = self.ids.pop(entry.member, None)
            if entry_id is not None:
                with contextlib.suppress(RedisError, OSError):
                    await self._remove(entry_id, entry.edition, entry.seats)

    # --- what the node tells it ------------------------------------------------------------------------
    def heard(self) -> None:
        """Another node said its queues changed."""
        self._run(None)

    async def heartbeat(self) -> None:
        """Every third of a lease: read the queues again (entries of nodes gone drop out of the counts,
        a group taken while the channel's message was lost is found)."""
        async with self._lock:
            await self._sync_now()

    # --- the work ------------------------------------------------------------------------------------------
    def _run(self, work: Coroutine[Any, Any, Any] | None) -> None:
        """``work`` (if any), then read the queues again: one at a time, in the order asked."""
        async def in_turn() -> None:
            try:
                async with self._lock:
                    if work is not None:
                        await work
                    await self._sync_now()
            except (RedisError, OSError) as exc:
                log.warning("play now: the lobby bus (Redis) does not answer (%s); the queues are read again "
                            "at the next heartbeat", exc)
            except Exception:
                log.exception("play now: the shared queues failed; read again at the next heartbeat")

        self.node.spawn(in_turn())

    async def _remove(self, entry_id: str, edition: str, seats: int) -> None:
        async with self.node.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(_queue_key(edition, seats), entry_id)
            pipe.hdel(ENTRIES, entry_id)
            await pipe.execute()
        await self.node.redis.publish(CHANNEL, self.node.node)

    async def _take(self, edition: wire.Edition, seats: int) -> list[Member] | None:
        """Take a group from a queue if one is due (Redis decides, for every node at once), and seat it."""
        if self._closed:
            return None
        mine = f"claiming {self.node.node}"
        raw = await self._claim(keys=[_queue_key(edition, seats), ENTRIES],
                                args=[seats, int(self.lobby.config.play_now_wait * 1000), NODE_RECORD, CLAIMED,
                                      mine, CLAIMED_MS])
        if not raw:
            return None
        taken = [(_text(raw[i]), entry, _ms(raw[i + 2])) for i in range(0, len(raw), 3)
                 if (entry := read(QueueEntry.from_json, raw[i + 1], "a play-now entry")) is not None]
        by_id = {entry_id: member for member, entry_id in self.ids.items()}
        for entry_id, _, _ in taken:
            if entry_id in by_id:
                self.scores.pop(self.ids.pop(by_id[entry_id]), None)
        identities = [record.identity for _, record, _ in taken]
        for identity in identities:
            if identity is not None:
                self.lobby.ratings.learn(identity, edition)
        await self.lobby.ratings.ready(identities)
        members: list[Member] = []
        away: list[str] = []
        made: list[Member] = []
        waiting = self.lobby.matchmaker.waiting
        for entry_id, record, _ in taken:
            member = by_id.get(entry_id)
            if member is not None:  # this node's player, unless they left (or asked again) meanwhile
                if member in waiting and member not in self.ids:
                    members.append(member)
            elif record.node != self.node.node:
                member, new = self.arriving(record)
                if member is not None:
                    members.append(member)
                    away.append(entry_id)
                    if new:
                        made.append(member)
        if not members:
            return None
        try:
            table = self.lobby.matchmaker.seat(members, edition, seats)
        except Exception as exc:  # the database or Redis is down: the group waits again, as it was
            log.warning("play now: could not open a table (%s); the group waits again", exc)
            self._retry_at = asyncio.get_running_loop().time() + RETRY_SECONDS
            for member in made:
                self.lobby.forget(member)
            for entry_id, record, score in taken:
                await self.node.redis.delete(CLAIMED + entry_id)
                member = by_id.get(entry_id)
                if record.node == self.node.node and (member not in waiting or member in self.ids):
                    continue  # a player of this node who left (or asked again) meanwhile
                await self._enqueue(keys=[_queue_key(edition, seats), ENTRIES, CLAIMED + entry_id],
                                    args=[entry_id, record.to_json(), int(score)])
                if member is not None:
                    self.ids[member] = entry_id
                    self.scores[entry_id] = score
            return None
        host, port = self.node.address()
        where = SeatedAt(host=host, port=port, table=table.id).to_json()
        for entry_id in away:
            await self.node.redis.set(CLAIMED + entry_id, where, px=CLAIMED_MS)
        await self.node.redis.publish(CHANNEL, self.node.node)
        return members

    def arriving(self, record: QueueEntry) -> tuple[Member | None, bool]:
        """The member here of a player of another node's entry (made now, and whether it was): away
        until they arrive. None for one already at a table here, or whose name is someone else's here."""
        presence = self.lobby.presence
        identity, token, name = record.identity, record.token, record.name
        known = presence.by_identity.get(identity) if identity is not None else presence.by_token.get(token)
        if known is not None:
            return (known if known.table is None else None), False
        if presence.holder(name) is not None:  # taken here meanwhile (names are checked across nodes at the hello)
            log.warning("play now: %r from another node has a name taken here; not seated", name)
            return None, False
        member = Member(name, token, self.lobby.config, identity)
        presence.remember(member)
        return member, True

    async def _sync_now(self) -> None:
        """Read every queue; send on this node's players whose group another node took; put back an
        entry Redis lost; time the waits; tell the lobby if anything changed."""
        redis = self.node.redis
        alive = self.node.alive()
        seconds, micros = await redis.time()
        clock = (seconds * 1000 + micros / 1000, asyncio.get_running_loop().time())
        snapshot: dict[tuple[wire.Edition, int], list[tuple[str, float]]] = {}
        async for key in redis.scan_iter(match=QUEUE + "*", count=100):
            edition, _, seats = _text(key)[len(QUEUE):].partition(":")
            try:
                queue = (as_edition(edition), int(seats))
            except (ProtocolError, ValueError):
                continue
            pairs = cast(list[tuple[Any, Any]], await redis.zrange(key, 0, -1, withscores=True))
            entries = [(_text(i), _ms(s)) for i, s in pairs]
            snapshot[queue] = [(i, s) for i, s in entries if i.rpartition("|")[0] in alive]
            for stale, _ in entries:  # left by this node before a restart under the same id
                if stale.rpartition("|")[0] == self.node.node and stale not in self.ids.values():
                    await redis.zrem(key, stale)
                    await redis.hdel(ENTRIES, stale)
        listed = {i for entries in snapshot.values() for i, _ in entries}
        for entry in list(self.lobby.matchmaker.waiting.values()):
            entry_id = self.ids.get(entry.member)
            if entry_id is None or entry_id in listed:
                continue
            mark = await redis.get(CLAIMED + entry_id)
            if mark is None:  # Redis lost it: back, in its place
                score = self.scores.get(entry_id)
                record = QueueEntry(node=self.node.node, name=entry.member.name, identity=entry.member.identity,
                                    token=entry.member.token_hash).to_json()
                back = await self._enqueue(keys=[_queue_key(entry.edition, entry.seats), ENTRIES, CLAIMED + entry_id],
                                           args=[entry_id, record, "" if score is None else int(score)])
                if int(back) >= 0:
                    self.scores[entry_id] = _ms(back)
                    snapshot.setdefault((entry.edition, entry.seats), []).append((entry_id, _ms(back)))
                continue
            if _text(mark).startswith("claiming "):
                continue  # its table is being opened at another node
            where = read(SeatedAt.from_json, mark, f"where {entry.member.name!r} was seated")
            if where is None:
                continue
            self.ids.pop(entry.member, None)
            self.scores.pop(entry_id, None)
            self.lobby.matchmaker.waiting.pop(entry.member, None)
            log.info("play now: %s is seated at table %s of another node", entry.member.name, where.table)
            self.node.send_away(entry.member, where.host, where.port)
        for entries in snapshot.values():
            entries.sort(key=lambda e: (e[1], e[0]))
        changed = snapshot != self.snapshot
        self.snapshot, self.clock = snapshot, clock
        self._time_the_waits()
        if changed:
            self.lobby.matchmaker.changed()

    def _time_the_waits(self) -> None:
        """A timer for each queue this node has players in: when its first player's wait is over, this
        node tries to take the group (the first node whose timer fires does)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        for entry in self.lobby.matchmaker.waiting.values():
            queue = (entry.edition, entry.seats)
            if queue in self._timers or not self.snapshot.get(queue):
                continue
            first = self.snapshot[queue][0][1]
            due = self._seconds_until(first + self.lobby.config.play_now_wait * 1000)
            delay = max(due, self._retry_at - loop.time())
            edition, seats = queue
            self._timers[queue] = loop.call_later(max(0.0, delay) + 0.05, self._due, edition, seats)

    def _due(self, edition: wire.Edition, seats: int) -> None:
        self._timers.pop((edition, seats), None)

        async def take() -> None:
            await self._take(edition, seats)

        self._run(take())

    def _seconds_until(self, at_ms: float) -> float:
        redis_then, loop_then = self.clock
        now_ms = redis_then + (asyncio.get_running_loop().time() - loop_then) * 1000
        return (at_ms - now_ms) / 1000

    def _where(self, entry: Waiting) -> int | None:
        entry_id = self.ids.get(entry.member)
        for i, (listed, _) in enumerate(self.snapshot.get((entry.edition, entry.seats), [])):
            if listed == entry_id:
                return i
        return None


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(cast(str, raw))
