"""Who sits where at a table, who watches, who waits for a seat and who hosts: a table's seating rules
on their own, with no game, clock or message (server/ono99_server/table_room.py tells people,
server/ono99_server/runner.py plays).

Each check raises the ``ProtocolError`` that refuses a request and changes nothing; each change is
made only once every check passed. Whether a game is running (``playing``) is the caller's to say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire import server as wire

if TYPE_CHECKING:
    from .members import Member

STAND_IN_LEVEL = "greedy"  # plays for dropped players and timed-out turns


@dataclass(slots=True)
class Seat:
    kind: wire.SeatKind = "empty"
    name: str = ""
    level: str = ""  # bot level, for bots
    member: Member | None = None  # the human sitting here
    away_seq: int | None = None  # a human away: the table's seq when they left (a bot plays since)

    @property
    def connected(self) -> bool:
        return self.member is not None and self.member.connection is not None

    def sent(self) -> wire.Seat:
        """The seat as a table's message shows it."""
        return wire.Seat(kind=self.kind, name=self.name, level=self.level or None,
                         connected=self.connected if self.kind == "human" else None)


class Seating:
    """The seats of a table, its spectators, those waiting for a seat, and its host."""

    def __init__(self, seat_count: int, host_member: Member | None, *, bot_level: str = "greedy",
                 replace_bots: bool = False) -> None:
        self.seat_count = seat_count
        self.seats = [Seat() for _ in range(seat_count)]
        self.spectators: set[Member] = set()
        self.waiting: list[Member] = []  # spectators who asked for a seat at the next game, first come first
        self.host_member = host_member  # who hosts: the player (key or guest), whatever name they go by
        self.bot_level = bot_level  # of the bots added without a level
        self.replace_bots = replace_bots  # those waiting take bots' seats when no seat is empty

    @property
    def host(self) -> str:
        """The host's name as it is now (``""`` when nobody hosts)."""
        return self.host_member.name if self.host_member is not None else ""

    # --- who is here --------------------------------------------------------------------------------
    def members(self) -> list[Member]:
        """Everyone connected at this table: seated players and spectators."""
        seated = [s.member for s in self.seats if s.member is not None and s.member.connection is not None]
        return seated + [m for m in self.spectators if m.connection is not None]

    def seat_of(self, member: Member) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.member is member:
                return i
        return None

    def has_people(self) -> bool:
        return any(s.kind == "human" for s in self.seats) or bool(self.spectators)

    def controlled_by_bot(self, seat: int) -> bool:
        """A bot plays the seat: a bot's, or a human's who is away."""
        s = self.seats[seat]
        if s.kind == "bot":
            return True
        return s.kind == "human" and not s.connected

    def count(self, kind: wire.SeatKind) -> int:
        return sum(1 for s in self.seats if s.kind == kind)

    # --- sitting down -------------------------------------------------------------------------------
    def seat_for(self, member: Member, seat: int | None, *, playing: bool) -> int:
        """The seat ``member`` would get by sitting down (``seat`` or the first free one), or the
        error that refuses it. Changes nothing."""
        current = self.seat_of(member)
        if playing and current is None:
            raise ProtocolError("game_running", "the game has started; spectate it or wait for the rematch",
                                params={"why": "started"})
        if seat is None:
            if current is not None:
                return current
            seat = self.free_seat(member, playing=playing)
            if seat is None:
                raise ProtocolError("table_full", "every seat is taken; you can spectate", params={"why": "spectate"})
        if not 0 <= seat < self.seat_count:
            raise ProtocolError("bad_seat", f"this table has seats 0 to {self.seat_count - 1}",
                                params={"why": "range", "last": self.seat_count - 1})
        if current == seat:
            return seat
        if self.seats[seat].kind != "empty" and not (self.replace_bots and self.seats[seat].kind == "bot") \
                and not (seat == self.own_stand_in(member) and not playing):
            raise ProtocolError("seat_taken", f"seat {seat} is taken", params={"seat": seat})
        if current is not None and playing:
            raise ProtocolError("game_running", "you cannot change seats during a game", params={"why": "change_seats"})
        return seat

    def own_stand_in(self, member: Member) -> int | None:
        """The seat a bot took over when ``member`` left it during a game: theirs again between games."""
        name = f"{member.name} (bot)"
        return next((i for i, s in enumerate(self.seats) if s.kind == "bot" and s.name == name), None)

    def free_seat(self, member: Member | None, *, playing: bool) -> int | None:
        """The seat a newcomer gets: the first empty one, else, between games, the seat a bot took over
        when ``member`` left, else (``replace_bots``) a bot's: one standing in for a player who left
        first, then the last added bot."""
        seat = next((i for i, s in enumerate(self.seats) if s.kind == "empty"), None)
        if seat is None and member is not None and not playing:
            seat = self.own_stand_in(member)
        if seat is None and self.replace_bots and not playing:
            bots = [i for i, s in enumerate(self.seats) if s.kind == "bot"]
            stand_ins = [i for i in bots if self.seats[i].name.endswith(" (bot)")]
            seat = (stand_ins or bots[::-1])[0] if bots else None
        return seat

    def take(self, member: Member, seat: int) -> None:
        """``member`` sits in ``seat`` (checked by ``seat_for``), leaving the one they had."""
        current = self.seat_of(member)
        if current is not None:
            self.seats[current] = Seat()
        self.seats[seat] = Seat("human", member.name, member=member)
        self.host_if_nobody_does(member)
        self.spectators.discard(member)
        if member in self.waiting:
            self.waiting.remove(member)

    def watch(self, member: Member) -> None:
        self.host_if_nobody_does(member)
        self.spectators.add(member)

    def ask_for_seat(self, member: Member) -> None:
        """A spectator asks for a seat while a game runs: seated when the next game starts."""
        if member not in self.spectators:
            raise ProtocolError("not_watching", "only a spectator of this table can wait for a seat",
                                params={"why": "wait"})
        if member not in self.waiting:
            self.waiting.append(member)

    # --- leaving --------------------------------------------------------------------------------------
    def vacate(self, seat: int, *, playing: bool) -> bool:
        """A human leaves a seat: during a game a bot takes it for good (True), else it is free."""
        old = self.seats[seat]
        if playing:
            self.seats[seat] = Seat("bot", f"{old.name} (bot)", STAND_IN_LEVEL)
            return True
        self.seats[seat] = Seat()
        return False

    def forget(self, member: Member) -> None:
        """``member`` neither watches nor waits any more."""
        self.spectators.discard(member)
        if member in self.waiting:
            self.waiting.remove(member)

    def pass_host(self, leaving: Member) -> None:
        if self.host_member is leaving:
            self.host_member = self.heir()

    def heir(self) -> Member | None:
        """Who hosts next: the first seated human, else a spectator, else nobody."""
        heir = next((s.member for s in self.seats if s.kind == "human" and s.member is not None), None)
        return heir if heir is not None else next(iter(self.spectators), None)

    def host_if_nobody_does(self, member: Member) -> None:
        """A table nobody hosts (restored without its host) is hosted by whoever comes first."""
        if self.host_member is None:
            self.host_member = member

    # --- the host's requests --------------------------------------------------------------------------
    def require_host(self, member: Member) -> None:
        if member is not self.host_member:
            raise ProtocolError("not_host", f"only the table's host ({self.host}) can do that",
                                params={"host": self.host})

    def add_bot(self, member: Member, seat: int | None, level: str | None, *, playing: bool) -> None:
        self.require_host(member)
        if playing:
            raise ProtocolError("game_running", "bots can be added before the game starts", params={"why": "add_bot"})
        if seat is None:
            seat = next((i for i, s in enumerate(self.seats) if s.kind == "empty"), None)
            if seat is None:
                raise ProtocolError("table_full", "every seat is taken", params={"why": "bot"})
        if not 0 <= seat < self.seat_count:
            raise ProtocolError("bad_seat", f"this table has seats 0 to {self.seat_count - 1}",
                                params={"why": "range", "last": self.seat_count - 1})
        if self.seats[seat].kind != "empty":
            raise ProtocolError("seat_taken", f"seat {seat} is taken", params={"seat": seat})
        self.seats[seat] = Seat("bot", f"Bot {seat + 1}", level or self.bot_level)

    def remove_bot(self, member: Member, seat: int, *, playing: bool) -> None:
        self.require_host(member)
        if playing:
            raise ProtocolError("game_running", "bots can be removed between games", params={"why": "remove_bot"})
        if not 0 <= seat < self.seat_count or self.seats[seat].kind != "bot":
            raise ProtocolError("bad_seat", f"there is no bot in seat {seat}", params={"why": "no_bot", "seat": seat})
        self.seats[seat] = Seat()

    def kick_target(self, member: Member, seat: int) -> Member | None:
        """The player the host ``member`` may remove from ``seat`` (None: an away guest's seat)."""
        self.require_host(member)
        if not 0 <= seat < self.seat_count or self.seats[seat].kind != "human":
            raise ProtocolError("bad_seat", f"there is no player in seat {seat}",
                                params={"why": "no_player", "seat": seat})
        target = self.seats[seat].member
        if target is member:
            raise ProtocolError("bad_seat", "you cannot kick yourself; leave instead", params={"why": "self"})
        return target

    def give_seat(self, member: Member, seat: int, name: str, *, playing: bool) -> Member:
        """The host gives an empty or a bot's seat to the spectator called ``name``, between games:
        the seat is freed for them (they are seated by ``take``) and they wait no more."""
        self.require_host(member)
        if playing:
            raise ProtocolError("game_running", "seats can be given between games", params={"why": "give_seat"})
        if not 0 <= seat < self.seat_count or self.seats[seat].kind == "human":
            raise ProtocolError("bad_seat", f"seat {seat} is not empty and has no bot",
                                params={"why": "not_free", "seat": seat})
        target = next((m for m in self.spectators if m.name == name and m.connection is not None), None)
        if target is None:
            raise ProtocolError("not_watching", f"{name[:20]!r} is not watching this table",
                                params={"why": "name", "name": name[:20]})
        if target in self.waiting:
            self.waiting.remove(target)
        self.seats[seat] = Seat()
        return target

    def fill_with_bots(self) -> None:
        """A game starts: the empty seats get bots of the table's level."""
        for i, seat in enumerate(self.seats):
            if seat.kind == "empty":
                self.seats[i] = Seat("bot", f"Bot {i + 1}", self.bot_level)
