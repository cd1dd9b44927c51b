"""The lobby: the server's parts and a member's arrival, absence and departure.

Its parts each do one thing and are tested alone: who is on the server and the "online" list (``Presence``,
server/ono99_server/presence.py), the tables by id and code and their list (``TableDirectory``,
server/ono99_server/directory.py), the lobby's chat (``LobbyChat``, server/ono99_server/lobby_chat.py), the
leaderboard's followers (``Leaderboards``, server/ono99_server/leaderboards.py), and the requests each of them takes
(``Dispatch`` and ``LobbyRequests``, server/ono99_server/handlers.py). The lobby welcomes a hello, keeps a dropped
player's seat for the grace time, and saves and restores the tables.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any

from ono99_kernel.core.actions import Action
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import TableOptions
from ono99_kernel.core.series import Series
from ono99_kernel.protocol import PROTOCOL_VERSION, ProtocolError, check_name, clean_text
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import CreateArena, Hello, Request

from .arena import Arenas, GameWriter
from .config import ServerConfig
from .directory import TableDirectory
from .handlers import LEAVE_ARENA_ON, LEAVE_QUEUE_ON, LobbyRequests
from .history import ChatLine, ChatRoom
from .leaderboards import Leaderboards
from .lobby_chat import LOBBY_CHAT, LobbyChat
from .matchmaking import Matchmaker
from .members import Link, Member, token_hash
from .metrics import Metrics
from .moderation import Moderation, address_of
from .name_claims import NameRegistry, let_go_for_name, name_taken_params, same_name_refusal
from .nodes import Nodes
from .presence import Presence
from .rates import CodeGuesses, NewNames
from .ratings import RatingBook, leaderboard_of
from .routes import Dispatch, Handler
from .runner import Status
from .seating import Seat
from .storage import Database, SavedTable, Storage
from .table_room import Table

log = logging.getLogger("ono99.lobby")


def then_both(first: GameWriter, second: GameWriter) -> GameWriter:
    """Two writers of a saved game's rows, in its transaction, one after the other."""
    async def both(db: Database, game_id: int) -> None:
        await first(db, game_id)
        await second(db, game_id)

    return both


class Lobby:
    def __init__(self, config: ServerConfig, storage: Storage | None) -> None:
        self.config = config
        self.storage = storage
        self.presence = Presence()
        self.directory = TableDirectory(storage, lambda: self.config.lobby_push_interval, self.presence.in_lobby)
        self.chat = LobbyChat(config.chat_history, self.persist_chat)
        self.leaderboards = Leaderboards(leaderboard_of(storage) if storage is not None else None)
        self.names = NameRegistry(storage)  # names owned by identities, kept in the database
        self.code_guesses = CodeGuesses()  # failed invite-code lookups, by address and by key
        self.new_names = NewNames(config.new_names_per_hour, config.new_names_burst)  # claims of new keys
        self.names.lost = self._name_lost
        self.closed = False
        self.ratings = RatingBook(self)
        self.matchmaker = Matchmaker(self)  # play now
        self.arenas = Arenas(self)  # arenas (server/ono99_server/arena.py)
        # operators, bans, mutes, reports (server/ono99_server/moderation.py)
        self.moderation: Moderation = Moderation(self)
        self.metrics = Metrics(self)  # metrics: server/ono99_server/metrics.py
        self.moderation.for_operators[CreateArena] = self.arenas.on_create  # `ono99 admin tournament create`
        self.dispatch = Dispatch()  # each request after the welcome: who takes it
        for routes in (LobbyRequests(self).routes, self.leaderboards.routes, self.matchmaker.routes,
                       self.ratings.routes, self.moderation.routes, self.arenas.routes):
            routes(self.dispatch.route)

    # --- its parts' state, as the other parts and the tests read it ------------------------------------
    @property
    def nodes(self) -> Nodes | None:
        """The other nodes, when this server is one of several (server/ono99_server/cluster.py); None for a server
        alone."""
        return self.directory.nodes

    @nodes.setter
    def nodes(self, nodes: Nodes | None) -> None:
        self.directory.nodes = self.presence.nodes = nodes

    @property
    def members(self) -> dict[str, Member]:
        """Who is on the server, by name (names are unique on a server)."""
        return self.presence.members

    @property
    def by_token(self) -> dict[str, Member]:
        return self.presence.by_token

    @property
    def by_identity(self) -> dict[str, Member]:
        return self.presence.by_identity

    @property
    def tables(self) -> dict[int, Table]:
        return self.directory.tables

    @property
    def table_listeners(self) -> list[Callable[[], None]]:
        return self.directory.listeners

    @property
    def lobby_chat(self) -> ChatRoom:
        return self.chat.room

    @property
    def handlers(self) -> dict[type, Handler]:
        return self.dispatch.handlers

    def tables_message(self) -> wire.Tables:
        return self.directory.listing()

    def may_guess_code(self, member: Member) -> None:
        """Raise ``rate_limited`` if ``member`` has missed too many invite codes to look one up now."""
        self.code_guesses.check(address_of(member.connection), member.identity)

    def find_table(self, member: Member, code: str | None, table_id: int | None) -> Table:
        """The table with invite ``code`` for ``member``, else the public table ``table_id``. A code
        that names no table counts as a guess (``CodeGuesses``)."""
        if not code:
            return self.directory.find(None, table_id)
        self.may_guess_code(member)
        try:
            return self.directory.find(code, None)
        except ProtocolError:
            self.missed_code(member)
            raise

    def missed_code(self, member: Member) -> None:
        """``member`` tried an invite code (a table's or an arena's) that names nothing: a guess."""
        self.code_guesses.missed(address_of(member.connection), member.identity)

    def online_message(self) -> wire.Online:
        return self.presence.online_message()

    # --- identity -----------------------------------------------------------------------------------
    def hello(self, connection: Link, hello: Hello, identity: str | None, peer: str) -> Member:
        """A hello accepted on ``connection`` from ``peer`` (``identity`` proven, or None for a guest): the
        player with that key comes back (to their seat, if they have one), a guest with a valid
        resume token likewise, anyone else enters under a name they may have. The session checked
        the hello's version before anything else (``Hello.check_version``)."""
        resume = hello.resume
        member = self.presence.returning(identity, resume)
        if self.nodes is not None and (member is None or member.table is None):  # a seat at another node's table
            self.nodes.seat_elsewhere(identity, token_hash(resume) if resume and identity is None else None)
        resumed = member is not None
        token = secrets.token_urlsafe(24)
        if member is not None:
            if member.connection is not None:
                member.connection.close("you connected again from elsewhere")
            if member.grace is not None:
                member.grace.cancel()
                member.grace = None
            if member.identity is None:
                token = resume or token
            else:  # a new token each time: only the key brings a key's player back
                self.by_token.pop(member.token_hash, None)
                member.token_hash = token_hash(token)
                self.by_token[member.token_hash] = member
        else:
            name = check_name(hello.name)
            holder = self.presence.holder(name)
            if holder is not None:
                raise ProtocolError("name_taken", same_name_refusal(name, holder.name),
                                    params=name_taken_params(name, holder.name))
            came_with = token_hash(resume) if resume and identity is None else None
            if self.nodes is not None:  # one node of several: a name another node's player has is taken too
                self.nodes.check_name(name, identity, came_with)
                if came_with is not None and resume is not None:
                    # A guest from another node keeps their token: it is who they are on every node (a
                    # seat of theirs that a node here takes over later is found by it).
                    token = resume
            self.names.check(name, identity)
            if identity is not None:
                if self.names.name_of(identity) is None:  # a new key: names are not hoarded in bulk
                    self.new_names.take(address_of(connection))
                self.names.claim(identity, name)
            member = Member(name, token_hash(token), self.config, identity)
            self.presence.remember(member, came_with)
        member.connection = connection
        if identity is not None:
            self.names.seen(identity)
        connection.send(wire.Welcome(version=PROTOCOL_VERSION, server=self.config.name, name=member.name,
                                     resume=token, resumed=resumed, table=member.table.id if member.table else None,
                                     identity=member.identity,
                                     nodes=self.nodes.other_nodes() if self.nodes is not None else ()))
        seen = dict(hello.seen or {}) if resumed else {}
        connection.send(self.moderation.history_for(member, self.lobby_chat.history(seen.get("lobby_chat"))))
        if member.table is not None:
            member.table.member_returned(member, seen)
            self.matchmaker.arrived(member)  # sent on here from another node to a play-now or arena table
        else:
            connection.send(self.directory.listing())
            connection.send(self.presence.online_message())
            connection.send(self.matchmaker.status(member))
        self.arenas.welcomed(member)
        self.online_changed()
        if self.nodes is not None:
            self.nodes.welcomed(member, resume)  # one sent on here to join a table does so
        log.info("%s %s (%s) from %s", "resumed" if resumed else "hello", clean_text(member.name),
                 member.identity or "guest", peer)
        return member

    def _name_lost(self, identity: str, name: str, other: str) -> None:
        """A key's claim of ``name`` lost in the database to another node's (as ``other``)."""
        for member in list(self.members.values()):
            if member.identity == identity:
                let_go_for_name(member, name, other)

    def dropped(self, member: Member) -> None:
        """A member's connection closed."""
        member.connection = None
        self.matchmaker.leave(member)
        if self.closed:  # the server is shutting down: every seat and table stays as it is
            return
        table = member.table
        if table is not None and table.seat_of(member) is not None:
            loop = asyncio.get_running_loop()
            member.grace = loop.call_later(self.config.grace_seconds, self._grace_over, member)
            table.member_dropped(member)
        else:
            if table is not None:
                table.leave(member)
            self.forget(member)

    def _grace_over(self, member: Member) -> None:
        member.grace = None
        if member.connection is not None:
            return
        if member.table is not None:
            table = member.table
            member.table = None
            table.grace_expired(member)
        self.forget(member)

    def forget(self, member: Member) -> None:
        self.presence.forget(member)
        self.leaderboards.forget(member)

    def forget_if_idle(self, member: Member) -> None:
        if member.connection is None and member.table is None:
            self.forget(member)

    def handle(self, member: Member, request: Request) -> None:
        """A welcome member's request, to the handler of its type."""
        self.dispatch(member, request)
        if isinstance(request, LEAVE_QUEUE_ON):
            self.matchmaker.leave(member)
        if isinstance(request, LEAVE_ARENA_ON):
            self.arenas.leaves_for_other_play(member)

    # --- what the lobby is told -------------------------------------------------------------------------
    def tables_changed(self) -> None:
        """A table came, went or changed: the lobby's table list and who is online (where people sit is
        in it) are pushed again."""
        self.online_changed()
        self.directory.changed()

    def online_changed(self) -> None:
        self.presence.changed()

    def is_operator(self, member: Member) -> bool:
        return member.identity is not None and member.identity in self.moderation.admins

    def table_emptied_check(self, table: Table) -> None:
        if self.directory.close_if_empty(table):
            self.tables_changed()

    # --- persistence ------------------------------------------------------------------------------------
    def persist_table(self, table: Table, new_game: bool = False, on_saved: Callable[[], None] | None = None) -> bool:
        """Save a table; True if ``on_saved`` will be called once it is saved, False if nothing is
        saved (no database, or a table already closed), so there is nothing to wait for."""
        if self.storage is None or table.id not in self.tables:
            return False
        self.storage.save_table(table.id, table.to_meta(), table.game_no if new_game else None, on_saved)
        return True

    def persist_action(self, table: Table, n: int, seat: int, action: str,
                       on_saved: Callable[[], None]) -> bool:
        """Save an action; True if ``on_saved`` will be called once it is saved, False if nothing
        is saved (no database), so there is nothing to wait for."""
        if self.storage is None:
            return False
        self.storage.save_action(table.id, table.game_no, n, seat, action, on_saved)
        return True

    def persist_chat(self, table_id: int, line: ChatLine, show: Callable[[], None]) -> None:
        """Save a chat line (``table_id`` LOBBY_CHAT for the lobby's), then ``show`` it: a line
        anybody saw is never lost by a crash."""
        if self.storage is None:
            show()
            return
        self.storage.save_chat(table_id, line.id, line.sender, line.text, line.at, self.config.chat_history, show)

    def store_game(self, table: Table, record: dict[str, Any], results: list[tuple[str, bool]],
                   restored: bool = False) -> None:
        """Save a finished game, and its table as it is now (in one transaction: a crash never leaves a
        recorded game at a table saved as still playing it); ``results`` is (identity, win credited)
        for each player it counts for. ``restored``: a game whose last move was saved before a crash
        and whose end was not, finished at its restore; not recorded again if it was."""
        arena_result = self.arenas.game_over(table)  # an arena's game: its result, kept with the game
        if self.storage is not None:
            now = time.time()
            rate = self.ratings.rater(table, record, now)
            self.storage.save_game(table.id, record, now, results, then=rate if arena_result is None else
                                   then_both(rate, arena_result),
                                   viewers=table.record_viewers() if table.private else None,
                                   table_meta=table.to_meta() if table.id in self.tables else None,
                                   unless_recorded=restored)
            if results:
                self.leaderboards.push()  # read after the save: the database thread keeps the order

    def restore(self, only: list[SavedTable] | None = None) -> int:
        """Rebuild the tables saved in the database, exactly as they were, with their chat; their
        human players are away (a bot plays for them at once) until they reconnect with their key
        (or a guest with their resume token). Returns the number of tables. ``only``: these tables
        (a node taking them over, server/ono99_server/cluster.py), else every table and the lobby's chat."""
        if self.storage is None:
            return 0
        if only is None:
            self.lobby_chat.restore(ChatLine(*line) for line in self.storage.load_chat(LOBBY_CHAT))
        restored: list[Table] = []
        for saved in self.storage.load_tables() if only is None else only:
            meta = saved.meta
            options = TableOptions.from_mapping(meta["edition"], meta["options"])
            table = Table(self, saved.id, meta["name"], options, meta["seat_count"], None,
                          private=meta["private"], code=meta["code"], turn_seconds=meta["turn_seconds"],
                          bot_level=meta["bot_level"], status=meta["status"], game_no=meta["game_no"],
                          seed=meta["seed"], seq_base=meta.get("seq_base", 0),
                          replace_bots=meta.get("replace_bots", False), name_code=meta.get("name_code"),
                          name_params=dict(meta.get("name_params") or {}))
            table.players = list(meta.get("players") or [])
            table.stand_in = [list(spans) for spans in meta.get("stand_in") or []]
            table.series = Series.from_mapping(meta["series"]) if meta.get("series") else None
            table.hints = bool(meta.get("hints", False))
            table.chat.restore(ChatLine(*line) for line in saved.chat)
            for i, seat in enumerate(meta["seats"]):
                member = None
                identity = seat.get("identity")
                if seat["kind"] == "human" and (seat.get("token") or identity):
                    member = self.by_identity.get(identity) if identity else self.by_token.get(seat["token"])
                    if member is None:
                        member = Member(seat["name"], seat.get("token") or "", self.config, identity)
                        self.presence.remember(member)
                    if member.connection is not None and member.table is not None:
                        # A node taking the table over finds its player at another table here now: a
                        # stand-in plays this seat to the game's end (one person, one seat).
                        member = None
                    else:
                        member.table = table
                table.seats[i] = Seat(seat["kind"], seat["name"], seat["level"], member, seat.get("away_seq"))
            table.host_member = self._restored_host(table, meta)
            if table.status != Status.WAITING and table.game_no:
                game = Game(options, table.seat_count, random.Random(table.seed))
                for seat_index, code in saved.actions:
                    game.apply(seat_index, Action.parse(code))
                table.runner.resume(game, list(saved.actions))  # every saved move was shown, or could have been
            for seat_ in table.seats:  # every player is away now: a bot plays for them at once
                if seat_.member is not None and seat_.away_seq is None:
                    seat_.away_seq = table.last_seq
            self.directory.add(table)
            restored.append(table)
        loop = asyncio.get_running_loop()
        for member in self.members.values():
            if member.connection is None and member.grace is None:
                member.grace = loop.call_later(self.config.grace_seconds, self._grace_over, member)
        for table in restored:
            if table.status == Status.PLAYING:
                if table.game is not None and table.game.is_over:  # stopped between its last move and its end
                    table.finish_restored()
                else:
                    table.stand_ins_for_the_away()
            for seat_ in table.seats:
                # A node taking the table over: its player connected here meanwhile (welcomed while
                # no node held the table) is seated again and shown the table, as after a resume.
                if seat_.member is not None and seat_.member.connection is not None:
                    table.member_returned(seat_.member)
        return len(restored)

    @staticmethod
    def _restored_host(table: Table, meta: dict[str, Any]) -> Member | None:
        """The host of a restored table: its seated player with the host's key (or a guest's resume
        token; a table saved before hosts were kept so: the host's name), else the first seated player,
        as when a host leaves (spectators are not restored)."""
        identity, token, name = meta.get("host_identity"), meta.get("host_token"), meta.get("host")
        seated = [s.member for s in table.seats if s.kind == "human" and s.member is not None]
        for member in seated:
            if identity is not None:
                if member.identity == identity:
                    return member
            elif token is not None:
                if member.identity is None and member.token_hash == token:
                    return member
            elif name and member.name == name:
                return member
        return seated[0] if seated else None

    def close(self) -> None:
        """Stop every clock, bot and grace timer (the server is shutting down)."""
        self.closed = True
        self.presence.closed = True
        self.matchmaker.close()
        self.arenas.close()
        for table in self.tables.values():
            table.close()
        for member in self.members.values():
            if member.grace is not None:
                member.grace.cancel()
                member.grace = None
