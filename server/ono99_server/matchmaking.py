"""Play now: one queue per edition and table size, filled into tables.

A player who asks to play now waits in the queue of their edition and table size. As soon as
enough players wait there to fill a table, the first of them (in the order they came) are seated
together and the game starts. When the first player in a queue has waited ``play_now_wait``
seconds (``ono99 serve --play-now-wait``), everyone waiting there is seated at one table and the
other seats go to bots of one level: the level whose rating (server/ono99_server/ratings.py) is nearest the
mean rating of the table's players. A player leaves the queue by asking, by joining, creating or
watching a table, or by disconnecting. The queue lives in memory: a restart empties it (its
players were disconnected anyway).

One node of several (server/ono99_server/cluster.py) shares one queue per edition and size with every other node
(``SharedQueue``, server/ono99_server/cluster_queue.py): the node that forms a group seats it, and its players
from other nodes are sent on to that node; the game starts once they have arrived (at most
``ARRIVAL_SECONDS``, then stand-ins play for those who did not).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ono99_kernel.bots import BOT_LEVELS
from ono99_kernel.protocol import PLAY_NOW_TABLE, ProtocolError, option_refusal, options_from_wire, table_name
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import LeaveQueue, PlayNow

from .ratings import bot_identity
from .runner import Status
from .table_room import Table, TableHost

if TYPE_CHECKING:
    from .directory import TableDirectory
    from .members import Member
    from .nodes import Nodes
    from .ratings import RatingBook
    from .routes import Router

log = logging.getLogger("ono99.matchmaking")
# Bot levels in the order a tie between equally near ratings is settled (unrated levels all start equal).
FILL_PREFERENCE = tuple(sorted(BOT_LEVELS, key=lambda name: BOT_LEVELS[name].fill_rank))
ARRIVAL_SECONDS = 15.0  # how long a play-now table waits for its players sent on from other nodes


@dataclass(slots=True)
class Waiting:
    member: Member
    edition: wire.Edition
    seats: int
    since: float  # the loop's time when they joined the queue


class SharedQueue(Protocol):
    """The play-now queues of every node of several (server/ono99_server/cluster_queue.py): this node's players
    join and leave them, and what the queues look like, as last read."""

    def joined(self, entry: Waiting, before: Waiting | None) -> None:
        """``entry`` waits now (``before``: the same player's entry it replaces)."""

    def left(self, entry: Waiting) -> None: ...

    def sizes(self) -> dict[tuple[wire.Edition, int], int]: ...

    def place(self, entry: Waiting) -> tuple[int, int, float]:
        """Where ``entry`` waits: its position (1 first), how many wait in its queue, and the seconds
        until its first player's wait is over."""

    def close(self) -> None: ...


class MatchmakerHost(TableHost, Protocol):
    """What the matchmaker asks of the lobby: the host of the tables it fills, their directory, who is
    online, the ratings, and whether the server is closing."""

    @property
    def directory(self) -> TableDirectory: ...

    @property
    def members(self) -> dict[str, Member]: ...

    @property
    def ratings(self) -> RatingBook: ...

    @property
    def closed(self) -> bool: ...

    @property
    def nodes(self) -> Nodes | None: ...

    def dropped(self, member: Member) -> None: ...


class Matchmaker:
    def __init__(self, lobby: MatchmakerHost) -> None:
        self.lobby = lobby
        self.waiting: dict[Member, Waiting] = {}  # in the order they came
        self._timers: dict[tuple[wire.Edition, int], asyncio.TimerHandle] = {}
        self._filling: set[asyncio.Task[None]] = set()
        self._dirty = False
        self.shared: SharedQueue | None = None  # one node of several: the queues every node shares
        # sent on, not here yet: who, the timer that starts the game anyway, the loop's time it starts at the soonest
        self._arriving: dict[Table, tuple[set[Member], asyncio.TimerHandle, float]] = {}

    @property
    def wait(self) -> float:
        return self.lobby.config.play_now_wait

    # --- joining and leaving ------------------------------------------------------------------------
    def routes(self, route: Router) -> None:
        """The play-now requests, which the matchmaker takes."""
        route(PlayNow, self.on_play_now)
        route(LeaveQueue, self.on_leave_queue)

    def on_play_now(self, member: Member, request: PlayNow) -> None:
        self.join(member, request.edition or "2022", 4 if request.seats is None else request.seats)

    def on_leave_queue(self, member: Member, request: LeaveQueue) -> None:
        if not self.leave(member):
            raise ProtocolError("not_queued", "you are not waiting to play now")
        member.send(self.status(member))

    def join(self, member: Member, edition: wire.Edition, seats: int) -> None:
        if self.lobby.nodes is not None:  # one node of several: no new table while its database or Redis is down
            self.lobby.nodes.check_open()
        table = member.table
        if table is not None and table.status == Status.PLAYING and table.seat_of(member) is not None:
            raise ProtocolError("game_running", "you are playing a game; leave the table first",
                                params={"why": "play_now"})
        try:
            options_from_wire(edition, {}).check_players(seats)
        except ValueError as exc:
            raise option_refusal(exc) from None
        before = self.waiting.pop(member, None)  # asked again (perhaps for another queue): to the back of it
        entry = self.waiting[member] = Waiting(member, edition, seats, asyncio.get_running_loop().time())
        if member.identity is not None:
            self.lobby.ratings.learn(member.identity, edition)
        if self.shared is not None:
            self.shared.joined(entry, before)
        else:
            self._match(edition, seats)
        self._changed()

    def leave(self, member: Member) -> bool:
        """Take ``member`` out of the queue; False if they were not in it."""
        entry = self.waiting.pop(member, None)
        if entry is None:
            return False
        if self.shared is not None:
            self.shared.left(entry)
        else:
            self._match(entry.edition, entry.seats)  # the next player's wait decides the bots now
        self._changed()
        return True

    def queue_of(self, edition: wire.Edition, seats: int) -> list[Waiting]:
        return [w for w in self.waiting.values() if w.edition == edition and w.seats == seats]

    # --- seating ----------------------------------------------------------------------------------------
    def _match(self, edition: wire.Edition, seats: int) -> None:
        """Seat full tables from a queue, then time its first player's wait."""
        queue = self.queue_of(edition, seats)
        while len(queue) >= seats:
            self.seat([w.member for w in queue[:seats]], edition, seats)
            queue = queue[seats:]
        timer = self._timers.pop((edition, seats), None)
        if timer is not None:
            timer.cancel()
        if queue:
            loop = asyncio.get_running_loop()
            delay = max(0.0, queue[0].since + self.wait - loop.time())
            self._timers[(edition, seats)] = loop.call_later(delay, self._fill, edition, seats)

    def _fill(self, edition: wire.Edition, seats: int) -> None:
        """The first player's wait is over: seat everyone waiting here, with bots (once their
        ratings, read when they joined, are known)."""
        self._timers.pop((edition, seats), None)
        queue = self.queue_of(edition, seats)
        if queue:
            task = asyncio.get_running_loop().create_task(self._fill_when_known(edition, seats, queue))
            self._filling.add(task)
            task.add_done_callback(self._filling.discard)

    async def _fill_when_known(self, edition: wire.Edition, seats: int, queue: list[Waiting]) -> None:
        await self.lobby.ratings.ready([w.member.identity for w in queue])
        queue = self.queue_of(edition, seats)  # as it is now: some may have left meanwhile
        if queue and not self.lobby.closed and (edition, seats) not in self._timers:
            self.seat([w.member for w in queue], edition, seats)
            self._changed()

    def bot_level_for(self, members: list[Member], edition: str) -> str:
        """The bot level whose rating is nearest the mean rating of the players."""
        book = self.lobby.ratings
        mean = sum(book.mu(m.identity, edition) for m in members) / len(members)
        return min(FILL_PREFERENCE, key=lambda level: (abs(book.mu(bot_identity(level), edition) - mean),
                                                       FILL_PREFERENCE.index(level)))

    def seat(self, members: list[Member], edition: wire.Edition, seats: int) -> Table:
        """Seat ``members`` at a new play-now table and start its game (once those sent on from other
        nodes, not connected here yet, have arrived)."""
        lobby = self.lobby
        table_id = lobby.directory.take_id()  # refused (one node of several, its database down): they wait on
        for member in members:
            self.waiting.pop(member, None)
        level = self.bot_level_for(members, edition)
        table = Table(lobby, table_id, table_name(PLAY_NOW_TABLE, number=table_id), options_from_wire(edition, {}),
                      seats, members[0], turn_seconds=lobby.config.default_turn_seconds, bot_level=level,
                      name_code=PLAY_NOW_TABLE, name_params={"number": table_id})
        lobby.directory.add(table)
        table.seat_together(members)  # saved once, below
        arriving = {m for m in members if m.connection is None}
        if arriving:  # sent on from other nodes: the game starts when they are here
            table.seating.fill_with_bots()
            table.changed()
            self.start_once_here(table, arriving)
        else:
            table.start(None)  # the empty seats get bots of the table's level

        def seated() -> None:
            for member in members:
                member.send(wire.ChatHistory(scope="table", table=table.id, messages=()))
                member.send(self.status(member))

        table.once_shown(seated)
        log.info("play now: table %d for %s (%s, %d seats, %s bots)", table.id,
                 ", ".join(m.name for m in members), edition, seats, level)
        return table

    def start_once_here(self, table: Table, arriving: set[Member], not_before: float = 0.0) -> None:
        """Start ``table``'s game once ``arriving`` (players sent on from other nodes: a play-now or an
        arena table) have all said hello here, but not before the loop's time ``not_before``; at most
        ``ARRIVAL_SECONDS`` from now."""
        timer = asyncio.get_running_loop().call_later(ARRIVAL_SECONDS, self._start, table)
        self._arriving[table] = (arriving, timer, not_before)

    def arrived(self, member: Member) -> None:
        """A player sent on from another node to a table here has said hello: the game starts once
        all of them have."""
        for table, (arriving, _, not_before) in list(self._arriving.items()):
            if member in arriving:
                arriving.discard(member)
                if table.name_code == PLAY_NOW_TABLE:
                    member.send(self.status(member))
                if not arriving:
                    wait = not_before - asyncio.get_running_loop().time()
                    if wait > 0:
                        asyncio.get_running_loop().call_later(wait, self._start, table)
                    else:
                        self._start(table)

    def _start(self, table: Table) -> None:
        """Start a play-now table that waited for players from other nodes; those not here yet are
        away, as after a lost connection (a stand-in plays, their seat waits the grace time)."""
        arriving, timer, _ = self._arriving.pop(table, (set(), None, 0.0))
        if timer is not None:
            timer.cancel()
        if table.id not in self.lobby.directory.tables or table.status != Status.WAITING or self.lobby.closed:
            return
        for member in arriving:
            if member.connection is None and member.table is table:
                self.lobby.dropped(member)
        table.start(None)

    # --- what the queue looks like --------------------------------------------------------------------------
    def status(self, member: Member) -> wire.Queue:
        """The ``queue`` message for ``member``: their place, if waiting, and every queue's size."""
        counts: dict[tuple[wire.Edition, int], int] = {}
        for w in self.waiting.values():
            counts[(w.edition, w.seats)] = counts.get((w.edition, w.seats), 0) + 1
        if self.shared is not None:
            counts = self.shared.sizes()
        queues = tuple(wire.QueueSize(edition=e, seats=s, waiting=n) for (e, s), n in sorted(counts.items()))
        entry = self.waiting.get(member)
        queued: wire.Queued | None = None
        if entry is not None and self.shared is not None:
            position, waiting, left = self.shared.place(entry)
            queued = wire.Queued(edition=entry.edition, seats=entry.seats, waiting=waiting, position=position,
                                 fill_in=round(max(0.0, left), 1))
        elif entry is not None:
            queue = self.queue_of(entry.edition, entry.seats)
            left = queue[0].since + self.wait - asyncio.get_running_loop().time()
            queued = wire.Queued(edition=entry.edition, seats=entry.seats, waiting=len(queue),
                                 position=queue.index(entry) + 1, fill_in=round(max(0.0, left), 1))
        return wire.Queue(queued=queued, queues=queues, wait=float(self.wait))

    def changed(self) -> None:
        """The queues changed (one node of several: as another node said)."""
        self._changed()

    def _changed(self) -> None:
        """Tell the lobby (everyone not at a table, and every waiting player), once per loop turn."""
        if self._dirty:
            return
        self._dirty = True
        asyncio.get_running_loop().call_soon(self._push)

    def _push(self) -> None:
        self._dirty = False
        shared: bytes | None = None
        for member in list(self.lobby.members.values()):
            if member.connection is None:
                continue
            if member in self.waiting:
                member.send(self.status(member))
            elif member.table is None:
                if shared is None:
                    shared = wire.encode_message(self.status(member))  # the same for everyone not waiting
                member.send_frame(shared)

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in self._filling:
            task.cancel()
        for _, timer, _ in self._arriving.values():
            timer.cancel()
        self._arriving.clear()
        if self.shared is not None:
            self.shared.close()
