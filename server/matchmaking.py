"""Play now: one queue per edition and table size, filled into tables.

A player who asks to play now waits in the queue of their edition and table size. As soon as
enough players wait there to fill a table, the first of them (in the order they came) are seated
together and the game starts. When the first player in a queue has waited ``play_now_wait``
seconds (``ono99 serve --play-now-wait``), everyone waiting there is seated at one table and the
other seats go to bots of one level: the level whose rating (server/ratings.py) is nearest the
mean rating of the table's players. A player leaves the queue by asking, by joining, creating or
watching a table, or by disconnecting. The queue lives in memory: a restart empties it (its
players were disconnected anyway).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ono99_tui.bots import BOT_LEVELS
from ono99_tui.protocol import ProtocolError, option_refusal, options_from_wire, table_name
from ono99_tui.wire import server as wire
from ono99_tui.wire.requests import LeaveQueue, PlayNow

from .ratings import bot_identity
from .runner import Status
from .table import Table, TableHost

if TYPE_CHECKING:
    from .directory import TableDirectory
    from .members import Member
    from .nodes import Nodes
    from .ratings import RatingBook
    from .routes import Router

log = logging.getLogger("ono99.matchmaking")
# Bot levels in the order a tie between equally near ratings is settled (unrated levels all start equal).
FILL_PREFERENCE = tuple(sorted(BOT_LEVELS, key=lambda name: BOT_LEVELS[name].fill_rank))


@dataclass(slots=True)
class Waiting:
    member: Member
    edition: wire.Edition
    seats: int
    since: float  # the loop's time when they joined the queue


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


class Matchmaker:
    def __init__(self, lobby: MatchmakerHost) -> None:
        self.lobby = lobby
        self.waiting: dict[Member, Waiting] = {}  # in the order they came
        self._timers: dict[tuple[wire.Edition, int], asyncio.TimerHandle] = {}
        self._filling: set[asyncio.Task[None]] = set()
        self._dirty = False

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
        self.waiting.pop(member, None)  # asked again (perhaps for another queue): to the back of it
        self.waiting[member] = Waiting(member, edition, seats, asyncio.get_running_loop().time())
        if member.identity is not None:
            self.lobby.ratings.learn(member.identity, edition)
        self._match(edition, seats)
        self._changed()

    def leave(self, member: Member) -> bool:
        """Take ``member`` out of the queue; False if they were not in it."""
        entry = self.waiting.pop(member, None)
        if entry is None:
            return False
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
            self._seat(queue[:seats], edition, seats)
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
            self._seat(queue, edition, seats)
            self._changed()

    def bot_level_for(self, members: list[Member], edition: str) -> str:
        """The bot level whose rating is nearest the mean rating of the players."""
        book = self.lobby.ratings
        mean = sum(book.mu(m.identity, edition) for m in members) / len(members)
        return min(FILL_PREFERENCE, key=lambda level: (abs(book.mu(bot_identity(level), edition) - mean),
                                                       FILL_PREFERENCE.index(level)))

    def _seat(self, group: list[Waiting], edition: wire.Edition, seats: int) -> Table:
        lobby = self.lobby
        members = [w.member for w in group]
        table_id = lobby.directory.take_id()  # refused (one node of several, its database down): they wait on
        for member in members:
            del self.waiting[member]
        level = self.bot_level_for(members, edition)
        table = Table(lobby, table_id, table_name("play_now", number=table_id), options_from_wire(edition, {}), seats,
                      members[0], turn_seconds=lobby.config.default_turn_seconds, bot_level=level,
                      name_code="play_now", name_params={"number": table_id})
        lobby.directory.add(table)
        for member in members:
            if member.table is not None:
                member.table.leave(member)
            table.sit(member)
        table.start(None)  # the empty seats get bots of the table's level

        def seated() -> None:
            for member in members:
                member.send(wire.ChatHistory(scope="table", table=table.id, messages=()))
                member.send(self.status(member))

        table.once_shown(seated)
        log.info("play now: table %d for %s (%s, %d seats, %s bots)", table.id,
                 ", ".join(m.name for m in members), edition, seats, level)
        return table

    # --- what the queue looks like --------------------------------------------------------------------------
    def status(self, member: Member) -> wire.Queue:
        """The ``queue`` message for ``member``: their place, if waiting, and every queue's size."""
        counts: dict[tuple[wire.Edition, int], int] = {}
        for w in self.waiting.values():
            counts[(w.edition, w.seats)] = counts.get((w.edition, w.seats), 0) + 1
        queues = tuple(wire.QueueSize(edition=e, seats=s, waiting=n) for (e, s), n in sorted(counts.items()))
        entry = self.waiting.get(member)
        queued: wire.Queued | None = None
        if entry is not None:
            queue = self.queue_of(entry.edition, entry.seats)
            left = queue[0].since + self.wait - asyncio.get_running_loop().time()
            queued = wire.Queued(edition=entry.edition, seats=entry.seats, waiting=len(queue),
                                 position=queue.index(entry) + 1, fill_in=round(max(0.0, left), 1))
        return wire.Queue(queued=queued, queues=queues, wait=float(self.wait))

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
