"""Arenas on a server: create, join and leave them, seat their free players at new rated tables as
soon as enough are free, count each finished game once, push the standings (at most once a second)
and keep everything in the store (docs/protocol.md section 6b; the rules: ono99_kernel/core/arena.py).

An arena's tables are public tables like play-now ones: the game starts ``arena_starts_in`` seconds after
its players are seated (they are told so), is rated and recorded like any other, and its ranking is
counted into the arena when the table stores the game (``game_over``). Each game is its own table,
so a game's record is found by its table's id; the arena keeps, per game, its table, players and
ranking (``arena_games``), which is what a recount reads.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ono99_kernel.core.arena import Arena, ArenaPlayer, Pairing
from ono99_kernel.protocol import ARENA_TABLE, ProtocolError, option_refusal, options_from_wire, table_name
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import CreateArena, JoinArena, LeaveArena

from .runner import Status
from .table_room import CODE_ALPHABET, Table, TableHost

if TYPE_CHECKING:
    from .directory import TableDirectory
    from .matchmaking import Matchmaker
    from .members import Member
    from .nodes import Nodes
    from .ratings import RatingBook
    from .routes import Router
    from .storage import Database, Storage

log = logging.getLogger("ono99.arena")
GameWriter = Callable[["Database", int], Awaitable[None]]  # rows written with a saved game (its id given)
PUSH_SECONDS = 1.0  # standings are pushed at most this often
SHOWN = 20  # the standings' first lines an ``arena`` message carries
MOST_AHEAD = 7 * 24 * 3600  # how far ahead an arena may be scheduled
KEEP_FINISHED = 3600.0  # a finished arena stays in memory (and its players' screens) this long


class SharedArenas(Protocol):
    """The arenas of every node of several (server/ono99_server/cluster_arena.py): their rows in the database are
    the truth, changed in place; what this node holds is what it shows."""

    def load_all(self) -> None: ...

    def create(self, member: Member, arena: Arena, request_t: str) -> None: ...

    def join(self, member: Member, arena_id: int, rating: float, request_t: str) -> None: ...

    def leave(self, member: Member, arena_id: int, request_t: str) -> None: ...

    def read_then(self, member: Member, request_t: str, then: Callable[[], None]) -> None:
        """Read the arenas other nodes opened, then ``then``."""

    def welcomed(self, member: Member) -> None: ...

    def pair_soon(self, arena_id: int) -> None: ...

    def started(self, table: Table) -> None: ...

    def game_over(self, table: Table, ranking: list[str]) -> GameWriter: ...

    def tick(self) -> None: ...


class ArenaHost(TableHost, Protocol):
    """What the arenas ask of the lobby."""

    @property
    def directory(self) -> TableDirectory: ...

    @property
    def members(self) -> dict[str, Member]: ...

    @property
    def ratings(self) -> RatingBook: ...

    @property
    def matchmaker(self) -> Matchmaker: ...

    @property
    def closed(self) -> bool: ...

    @property
    def storage(self) -> Storage | None: ...

    @property
    def nodes(self) -> Nodes | None: ...

    def is_operator(self, member: Member) -> bool: ...

    def may_guess_code(self, member: Member) -> None: ...

    def missed_code(self, member: Member) -> None: ...


class Arenas:
    """Every arena of the server, and who is in which."""

    def __init__(self, lobby: ArenaHost, clock: Callable[[], float] = time.time) -> None:
        self.lobby = lobby
        self.clock = clock  # Unix time: arenas start at a time of day
        self.arenas: dict[int, Arena] = {}
        self.joined: dict[str, int] = {}  # a player's name -> the arena they are in
        self.tables: dict[int, tuple[int, int]] = {}  # a table's id -> (its arena, the arena's game number)
        self._dirty: set[int] = set()  # arenas whose standings changed since the last push
        self._lobby_dirty = False
        self._ticker: asyncio.TimerHandle | None = None
        self._pairing_soon: set[int] = set()
        self._showing: set[str] = set()  # players whose last game's end is not shown yet: not seated again
        self._next_id = 1
        self.seated_at: dict[str, float] = {}  # when a player was last seated (bench/arena.py reads it)
        self.shared: SharedArenas | None = None  # on a cluster: the arenas' rows are the truth, read from here

    # --- the lobby's hooks ------------------------------------------------------------------------------
    def routes(self, route: Router) -> None:
        route(CreateArena, self.on_create)
        route(JoinArena, self.on_join)
        route(LeaveArena, self.on_leave)

    def start(self) -> None:
        """Read the kept arenas back, and tick every second from now on."""
        storage = self.lobby.storage
        if self.shared is not None:
            self.shared.load_all()
        elif storage is not None:
            now = self.clock()
            for data in storage.run_now(_load_arenas):
                arena = Arena.from_mapping(data, now)
                self.arenas[arena.id] = arena
                self._next_id = max(self._next_id, arena.id + 1)
                for name, player in arena.players.items():
                    if player.present:
                        self.joined[name] = arena.id
            for table_id, arena_id, game in storage.run_now(_load_arena_tables):
                if arena_id in self.arenas and game in self.arenas[arena_id].running:
                    self.tables[table_id] = (arena_id, game)
        self._ticker = asyncio.get_running_loop().call_later(PUSH_SECONDS, self._tick)

    def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def welcomed(self, member: Member) -> None:
        """A player just welcomed: the arenas in the lobby (if there are any), and their own arena if they
        are in one."""
        listing = self.listing()
        if listing.arenas:
            member.send(listing)
        arena = self.arena_of(member) or next(  # else the last one they played in, for its standings
            (a for a in reversed(self.arenas.values()) if member.name in a.players), None)
        if arena is not None:
            member.send(self.message(arena, member.name))
        if self.shared is not None:
            self.shared.welcomed(member)

    def leaves_for_other_play(self, member: Member) -> None:
        """``member`` went to play or watch elsewhere: they leave their arena (keeping their points)."""
        if member.name in self.joined:
            self._leave(member)

    # --- requests -------------------------------------------------------------------------------------------
    def on_create(self, member: Member, request: CreateArena) -> None:
        private = bool(request.private)
        if not private and not self.lobby.is_operator(member):
            raise ProtocolError("not_operator", "only the server's operators can open a public arena; open a "
                                "private one", params={"why": "arena"})
        edition = request.edition or "2022"
        seats = 4 if request.seats is None else request.seats
        try:
            options_from_wire(edition, {}).check_players(seats)
        except ValueError as exc:
            raise option_refusal(exc) from None
        now = self.clock()
        start = now if request.start is None else max(now, float(request.start))
        if start > now + MOST_AHEAD:
            raise ProtocolError("bad_arena", "an arena starts within a week", params={"why": "ahead"})
        mine = next((a for a in self.arenas.values() if a.private and a.creator == member.name
                     and a.status(now) != "finished"), None) if private else None
        if mine is not None:  # its id: the client may take its player back to it
            raise ProtocolError("bad_arena", "you have a private arena open already; it must end first",
                                params={"why": "one_private", "arena": mine.id})
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6)) if private else ""
        arena = Arena(self._next_id, request.name or f"Arena {edition}", edition, seats, start, request.minutes,
                      private=private, code=code, creator=member.name, bot_wait=self.lobby.config.arena_bot_wait)
        if self.shared is not None:  # its id is the database's next one
            self.shared.create(member, arena, request.t)
            return
        self._next_id += 1
        self._save(arena)
        self.opened(member, arena)

    def opened(self, member: Member, arena: Arena) -> None:
        """A new arena is kept: its creator and the lobby are told."""
        self.arenas[arena.id] = arena
        log.info("arena %d (%s) opened by %s: %s, %d seats, %d minutes", arena.id, arena.name, member.name,
                 arena.edition, arena.seats, arena.minutes)
        member.send(self.message(arena, member.name))
        if not arena.private:
            self._lobby_changed()

    def on_join(self, member: Member, request: JoinArena, *, read_again: bool = True) -> None:
        now = self.clock()
        try:  # a code missed on a cluster is read again from the database before it counts as a guess
            arena = self._find(member, request, now, final=self.shared is None or not read_again)
        except ProtocolError as exc:  # on a cluster it may be another node's, opened a moment ago
            if self.shared is None or exc.code != "no_arena" or not read_again:
                raise
            self.shared.read_then(member, request.t, lambda: self.on_join(member, request, read_again=False))
            return
        if arena.status(now) == "finished" or now >= arena.end:
            raise ProtocolError("arena_over", "that arena is over", params={"why": "over"})
        table = member.table
        if table is not None and table.status == Status.PLAYING and table.seat_of(member) is not None \
                and table.id not in self.tables:
            raise ProtocolError("game_running", "you are playing a game; leave the table first",
                                params={"why": "arena"})
        before = self.joined.get(member.name)
        if before is not None and before != arena.id and self.shared is None:
            self._leave(member)
        self.lobby.matchmaker.leave(member)
        if member.identity is not None:
            self.lobby.ratings.learn(member.identity, arena.edition)
        if self.shared is not None:  # joined in the arena's row; its previous arena left once this one is
            self.shared.join(member, arena.id, self.lobby.ratings.mu(member.identity, arena.edition), request.t)
            return
        arena.join(member.name, self.lobby.ratings.mu(member.identity, arena.edition), now)
        self.joined[member.name] = arena.id
        self._save(arena)
        member.send(self.message(arena, member.name))
        self._changed(arena)
        self._pair_soon(arena)

    def on_leave(self, member: Member, request: LeaveArena) -> None:
        if member.name not in self.joined:
            raise ProtocolError("no_arena", "you are in no arena", params={"why": "not_in"})
        self._leave(member)

    def _leave(self, member: Member) -> None:
        if self.shared is not None:
            if member.name in self.joined:
                self.shared.leave(member, self.joined[member.name], LeaveArena().t)
            return
        arena = self.arenas.get(self.joined.pop(member.name, -1))
        if arena is None:
            return
        arena.leave(member.name)
        self._save(arena)
        member.send(self.message(arena, member.name))
        self._changed(arena)

    def _find(self, member: Member, request: JoinArena, now: float, final: bool = True) -> Arena:
        """The arena ``request`` names; a code that names none counts as a guess (``final``: no other
        look follows), as a table's invite code does (server/ono99_server/rates.py)."""
        if request.code:
            self.lobby.may_guess_code(member)
            code = request.code.upper()
            found = next((a for a in self.arenas.values() if a.private and a.code == code), None)
            if found is None:
                if final:
                    self.lobby.missed_code(member)
                raise ProtocolError("no_arena", "no arena has that invite code", params={"why": "code"})
            return found
        if request.arena is not None:
            arena = self.arenas.get(request.arena)
            if arena is None or (arena.private and arena.creator != member.name):  # others need its code
                raise ProtocolError("no_arena", "there is no such arena", params={"why": "id"})
            return arena
        public = sorted((a for a in self.arenas.values() if not a.private and now < a.end), key=lambda a: a.start)
        if not public:
            raise ProtocolError("no_arena", "no arena is running or coming", params={"why": "none"})
        return public[0]

    def arena_of(self, member: Member) -> Arena | None:
        return self.arenas.get(self.joined.get(member.name, -1))

    # --- seating -------------------------------------------------------------------------------------------
    def _pair_soon(self, arena: Arena) -> None:
        """Pair ``arena`` once this loop turn's changes are in (a join, a game's end)."""
        if self.shared is not None:
            self.shared.pair_soon(arena.id)
            return
        if arena.id not in self._pairing_soon:
            self._pairing_soon.add(arena.id)
            asyncio.get_running_loop().call_soon(self._pair_now, arena.id)

    def _pair_now(self, arena_id: int) -> None:
        self._pairing_soon.discard(arena_id)
        arena = self.arenas.get(arena_id)
        if arena is not None and not self.lobby.closed:
            self._pair(arena, self.clock())

    def _pair(self, arena: Arena, now: float) -> None:
        for name in [p.name for p in arena.free()]:  # those who went away while free are out
            member = self.lobby.members.get(name)
            if member is None or member.connection is None:
                arena.leave(name)
                self.joined.pop(name, None)
        pairings = arena.pair(now, self._showing)
        for pairing in pairings:
            self._seat(arena, pairing)
        if pairings:
            self._save(arena)
            self._changed(arena)

    def _seat(self, arena: Arena, pairing: Pairing) -> None:
        members = [self.lobby.members[name] for name in pairing.players]
        table_id = self.lobby.directory.take_id()
        if self.lobby.storage is not None:
            self.lobby.storage.submit(_game_seated(arena.id, pairing.game, table_id, pairing.players),
                                      what=(None, "arena game"))
        self.seat(arena, pairing, members, table_id)

    def seat(self, arena: Arena, pairing: Pairing, members: list[Member], table_id: int) -> Table:
        """Seat a pairing's ``members`` at a new table ``table_id``, bots in the other seats; its game
        starts ``arena_starts_in`` seconds later (players sent on from other nodes not here yet are away
        until they come: a stand-in plays for them)."""
        lobby = self.lobby
        options = options_from_wire(arena.edition, {})
        level = lobby.matchmaker.bot_level_for(members, arena.edition)
        name_params: dict[str, str | int] = {"number": table_id}
        table = Table(lobby, table_id, table_name(ARENA_TABLE, **name_params), options, arena.seats, members[0],
                      turn_seconds=lobby.config.default_turn_seconds, bot_level=level, name_code=ARENA_TABLE,
                      name_params=name_params)
        lobby.directory.add(table)
        self.tables[table_id] = (arena.id, pairing.game)
        now = self.clock()
        starts_in = lobby.config.arena_starts_in  # "your next game starts in 3 s"
        for member in members:
            if member.connection is not None:  # not those sent on from other nodes: theirs told them
                member.send(wire.ArenaGame(arena=arena.id, table=table.id, starts_in=starts_in))
            lobby.matchmaker.leave(member)
            self.seated_at[member.name] = now
        table.seat_together(members)
        table.seating.fill_with_bots()
        table.changed()  # saved once, every player in their seat

        def seated() -> None:
            for member in members:
                member.send(wire.ChatHistory(scope="table", table=table.id, messages=()))

        table.once_shown(seated)
        arriving = {m for m in members if m.connection is None}
        if arriving:  # sent on from other nodes: the game starts once they are here (and the pause is over)
            lobby.matchmaker.start_once_here(table, arriving, asyncio.get_running_loop().time() + starts_in)
        else:
            asyncio.get_running_loop().call_later(starts_in, self._start_game, table)
        if self.shared is not None:
            self.shared.started(table)
        log.info("arena %d: game %d at table %d for %s (%d bots)", arena.id, pairing.game, table.id,
                 ", ".join(pairing.players), pairing.bots)
        return table

    def _start_game(self, table: Table) -> None:
        if table.id in self.lobby.directory.tables and table.status == Status.WAITING and not self.lobby.closed:
            table.start(None)

    # --- a finished game ---------------------------------------------------------------------------------
    def game_over(self, table: Table) -> GameWriter | None:
        """The table stores its finished game: count it into its arena (once). What writes the result
        and the standings in the transaction that saves the game, if it is an arena's."""
        if self.shared is not None:  # any node's arena table, taken over ones too
            game = table.game
            if table.name_code != ARENA_TABLE or game is None or game.outcome is None:
                return None
            return self.shared.game_over(table, [str(table.players[seat]["name"]) for seat in game.outcome.ranking])
        found = self.tables.pop(table.id, None)
        game = table.game
        if found is None or game is None or game.outcome is None:
            return None
        arena = self.arenas.get(found[0])
        if arena is None:
            return None
        ranking = [str(table.players[seat]["name"]) for seat in game.outcome.ranking]
        players = arena.running.get(found[1], ())
        earned = arena.count(found[1], ranking, self.clock())
        self._changed(arena)
        self._showing.update(earned)

        def shown() -> None:  # the game's last state is out: its players may be seated again
            self._showing.difference_update(earned)
            self._pair_soon(arena)

        table.once_finish_shown(shown)
        if found[1] not in arena.counted:
            return None
        return game_counted(arena.id, found[1], players, ranking, earned, arena.to_mapping())

    # --- what players are told ---------------------------------------------------------------------------
    def info(self, arena: Arena, now: float) -> wire.ArenaInfo:
        players = sum(1 for p in arena.players.values() if p.present)
        return wire.ArenaInfo(id=arena.id, name=arena.name, edition="1980" if arena.edition == "1980" else "2022",
                              seats=arena.seats, minutes=arena.minutes, status=arena.status(now),
                              starts_in=round(max(0.0, arena.start - now), 1),
                              ends_in=round(max(0.0, arena.end - now), 1), players=players, private=arena.private,
                              top_table=self.top_table(arena))

    def top_table(self, arena: Arena) -> int | None:
        """The table of the best-placed player playing now (the game spectators are offered)."""
        games = {game: table for table, (arena_id, game) in self.tables.items() if arena_id == arena.id}
        best = min((p for p in arena.players.values() if p.playing in games), key=ArenaPlayer.order, default=None)
        return None if best is None or best.playing is None else games[best.playing]

    def listing(self) -> wire.Arenas:
        now = self.clock()
        shown = sorted((a for a in self.arenas.values() if not a.private and a.status(now) != "finished"),
                       key=lambda a: (a.start, a.id))
        return wire.Arenas(arenas=tuple(self.info(a, now) for a in shown[:wire.MAX_ARENAS]))

    def message(self, arena: Arena, name: str, lines: dict[str, wire.ArenaStanding] | None = None
                ) -> wire.ArenaMessage:
        """The ``arena`` message for ``name``; ``lines``: the standings' lines by name, best first (built
        once for a push to everyone)."""
        now = self.clock()
        if lines is None:
            lines = standing_lines(arena)
        mine = lines.get(name)
        next_in = arena.next_game_in(name, now)
        return wire.ArenaMessage(arena=self.info(arena, now), code=arena.code or None,
                                 joined=self.joined.get(name) == arena.id,
                                 standings=tuple(itertools.islice(lines.values(), SHOWN)), you=mine,
                                 next_in=None if next_in is None else round(next_in, 1),
                                 podium=tuple(p.name for p in arena.podium(now)))

    def _changed(self, arena: Arena) -> None:
        self._dirty.add(arena.id)
        if not arena.private:
            self._lobby_changed()

    def _lobby_changed(self) -> None:
        self._lobby_dirty = True

    def _tick(self) -> None:
        """Every second: pair what the clock now allows (the start, bots' wait, the end), and push what
        changed."""
        self._ticker = asyncio.get_running_loop().call_later(PUSH_SECONDS, self._tick)
        if self.lobby.closed:
            return
        now = self.clock()
        if self.shared is not None:
            self.shared.tick()
        for arena in list(self.arenas.values()):
            before = arena.status(now - PUSH_SECONDS)
            status = arena.status(now)
            if status == "running" and self.shared is None:
                self._pair(arena, now)
            if status != before:
                self._changed(arena)  # started or ended: its players and the lobby are told
            elif status != "finished" and arena.start <= now < arena.end and self._waiting(arena):
                self._dirty.add(arena.id)  # someone's countdown runs (the lobby counts down by itself)
            if status == "finished" and now > arena.end + KEEP_FINISHED and not arena.running:
                self._forget(arena)
        self._push()

    @staticmethod
    def _waiting(arena: Arena) -> bool:
        return any(p.present and p.playing is None for p in arena.players.values())

    def _push(self) -> None:
        dirty, self._dirty = self._dirty, set()
        for arena_id in dirty:
            arena = self.arenas.get(arena_id)
            if arena is None:
                continue
            standings = standing_lines(arena)
            finished = arena.status(self.clock()) == "finished"
            for name in arena.players:
                member = self.lobby.members.get(name)
                if member is None or member.connection is None:
                    continue
                if self.joined.get(name) == arena.id or (finished and name not in self.joined):
                    member.send(self.message(arena, name, standings))  # those in it; all who played, at the end
            if finished:
                for name in [n for n, a in self.joined.items() if a == arena.id]:
                    del self.joined[name]
        if self._lobby_dirty:
            self._lobby_dirty = False
            frame = wire.encode_message(self.listing())
            for member in list(self.lobby.members.values()):
                if member.connection is not None and member.table is None:
                    member.send_frame(frame)

    def _forget(self, arena: Arena) -> None:
        del self.arenas[arena.id]
        for name in [n for n, a in self.joined.items() if a == arena.id]:
            del self.joined[name]

    def _save(self, arena: Arena) -> None:
        if self.lobby.storage is not None and self.shared is None:  # a cluster's rows change only in place
            self.lobby.storage.submit(_arena_saved(arena.id, arena.to_mapping()), what=(None, "arena"))


standing_lines = wire.arena_standings  # every player's line of the standings, by name, best first


# --- the store (portable SQL: SQLite and PostgreSQL) ----------------------------------------------------------
def _arena_saved(arena_id: int, data: dict[str, Any]) -> Callable[[Database], Any]:
    text = json.dumps(data, ensure_ascii=False)

    async def write(db: Database) -> None:
        await db.run("INSERT INTO arenas(id, meta) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET meta = excluded.meta",
                     (arena_id, text))

    return write


def _game_seated(arena_id: int, game: int, table_id: int, players: tuple[str, ...]) -> Callable[[Database], Any]:
    async def write(db: Database) -> None:
        await db.run("INSERT INTO arena_games(arena, game, table_id, players, ranking, points) "
                     "VALUES (?, ?, ?, ?, NULL, NULL) ON CONFLICT(arena, game) DO NOTHING",
                     (arena_id, game, table_id, json.dumps(players, ensure_ascii=False)))

    return write


def game_counted(arena_id: int, game: int, players: tuple[str, ...], ranking: list[str], earned: dict[str, int],
                  data: dict[str, Any]) -> GameWriter:
    """The game's result (with its record's id) and the arena's standings, written in the transaction
    that saves the game: a crash never keeps one without the others."""
    text = json.dumps(data, ensure_ascii=False)

    async def write(db: Database, game_id: int) -> None:
        await db.run("INSERT INTO arena_games(arena, game, table_id, players, ranking, points) VALUES "
                     "(?, ?, 0, ?, NULL, NULL) ON CONFLICT(arena, game) DO NOTHING",
                     (arena_id, game, json.dumps(players, ensure_ascii=False)))  # seated before it was kept
        await db.run("UPDATE arena_games SET ranking = ?, points = ?, game_id = ?, counted = "
                     "(SELECT COALESCE(MAX(counted), 0) + 1 FROM arena_games WHERE arena = ?) "
                     "WHERE arena = ? AND game = ? AND ranking IS NULL",
                     (json.dumps(ranking, ensure_ascii=False), json.dumps(earned, ensure_ascii=False), game_id,
                      arena_id, arena_id, game))
        await db.run("INSERT INTO arenas(id, meta) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET meta = "
                     "excluded.meta", (arena_id, text))

    return write


async def _load_arenas(db: Database) -> list[dict[str, Any]]:
    return [json.loads(meta) for (meta,) in await db.rows("SELECT meta FROM arenas ORDER BY id")]


async def _load_arena_tables(db: Database) -> list[tuple[int, int, int]]:
    rows = await db.rows("SELECT table_id, arena, game FROM arena_games WHERE ranking IS NULL")
    return [(int(t), int(a), int(g)) for t, a, g in rows]


async def arena_results(db: Database, arena_id: int) -> list[tuple[int, int, list[str], list[str]]]:
    """An arena's counted games from the store, in the order they were counted: (arena game, record id,
    players, ranking)."""
    rows = await db.rows("SELECT game, game_id, players, ranking FROM arena_games WHERE arena = ? AND ranking IS "
                         "NOT NULL ORDER BY counted", (arena_id,))
    return [(int(g), int(t), json.loads(p), json.loads(r)) for g, t, p, r in rows]
