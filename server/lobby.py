"""The lobby: who is connected, the tables, lobby chat, and the dispatch of client messages."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ono99_tui.core.actions import Action
from ono99_tui.core.game import Game
from ono99_tui.core.options import TableOptions
from ono99_tui.protocol import (
    MAX_CHAT,
    MAX_TABLE_NAME,
    PROTOCOL_VERSION,
    ProtocolError,
    check_name,
    clean_text,
    option_refusal,
    options_from_wire,
    table_name,
)
from ono99_tui.wire import server as wire
from ono99_tui.wire.requests import (
    Act,
    AddBot,
    AskLeaderboard,
    CreateTable,
    GiveSeat,
    Hello,
    Join,
    Kick,
    Leave,
    ListTables,
    Ping,
    Prove,
    Rematch,
    RemoveBot,
    Request,
    Say,
    SetTableOptions,
    Sit,
    Spectate,
    Stand,
    Start,
)

from .config import ServerConfig
from .history import ChatLine, ChatRoom
from .matchmaking import Matchmaker
from .metrics import Metrics
from .moderation import Moderation
from .names import NameRegistry, name_keys, name_taken_params, same_name_refusal
from .ratings import RatingBook
from .runner import Status
from .seating import Seat
from .storage import SavedTable, Storage
from .table import Table

log = logging.getLogger("ono99.lobby")
LOBBY_CHAT = 0  # the lobby's chat is saved as that of table 0 (table ids start at 1)
LEAVE_QUEUE_ON = (Join, Spectate, CreateTable)  # a player at another table waits no more
MAX_LISTED_TABLES = 60  # a table's entry is at most ~700 bytes: 60 of them stay far below a frame
MAX_ONLINE = 200  # names in an "online" message (about 40 bytes each)
ONLINE_EVERY = 1.0  # seconds: the lobby's "online" list is pushed at most this often
R = TypeVar("R", bound=Request)
Handler = Callable[["Member", Any], None]  # takes the request type it is routed for (``Router``)


class Link(Protocol):
    """What carries a member's messages to their client: the asyncio connection (server/connection.py)
    or the local game's in-process link (server/local.py), each driving the client's ``Session``."""

    @property
    def closed(self) -> bool: ...

    def send(self, message: wire.ServerMessage) -> None: ...

    def send_frame(self, frame: bytes) -> None: ...

    def close(self, reason: str) -> None:
        """Say goodbye (``bye``) and close once what is already queued has gone. Safe to call twice."""


class Nodes(Protocol):
    """The other nodes on the same database, when this server is one of several (server/cluster.py)."""

    def new_table_id(self) -> int: ...

    def check_open(self) -> None:
        """Refuses (ProtocolError) while a new table could not be saved or found by the other nodes."""

    def remote_tables(self) -> list[wire.TableInfo]: ...

    def seat_elsewhere(self, identity: str | None, token_hash: str | None) -> None: ...

    def send_on(self, member: Member, request: Join | Spectate) -> bool:
        """Whether the table is another node's, and the player was sent on to it."""

    def welcomed(self, member: Member, resume: str | None) -> None: ...

    def remote_online(self) -> list[wire.OnlinePlayer]: ...

    def lobby_said(self, sender: str, text: str) -> None: ...


class Router(Protocol):
    """Sends the requests of type ``kind`` to ``handler``."""

    def __call__(self, kind: type[R], handler: Callable[[Member, R], None]) -> None: ...


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenBucket:
    """Allows ``rate`` events per second with bursts of ``burst``."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level >= 1:
            self.level -= 1
            return True
        return False


class Member:
    """A player known to the server: connected now, or holding a seat while away."""

    def __init__(self, name: str, token_hash_: str, config: ServerConfig, identity: str | None = None) -> None:
        self.name = name
        self.token_hash = token_hash_
        self.identity = identity  # the key fingerprint this player proved; None for a guest
        self.connection: Link | None = None
        self.table: Table | None = None
        self.grace: asyncio.TimerHandle | None = None
        self.chat_bucket = TokenBucket(config.chat_per_minute / 60, config.chat_per_minute / 4)
        self.follows_leaderboard = False  # sent a new leaderboard after each game that changes it
        self.leaderboard_edition: wire.Edition | None = None  # the edition it follows (None: all of them)

    def send(self, message: wire.ServerMessage) -> None:
        if self.connection is not None:
            self.connection.send(message)

    def send_frame(self, frame: bytes) -> None:
        if self.connection is not None:
            self.connection.send_frame(frame)

    def __repr__(self) -> str:
        return f"Member({self.name!r})"


class Lobby:
    def __init__(self, config: ServerConfig, storage: Storage | None) -> None:
        self.config = config
        self.storage = storage
        self.members: dict[str, Member] = {}  # by name: names are unique on a server
        self.by_token: dict[str, Member] = {}  # by token hash
        self.by_identity: dict[str, Member] = {}  # players with a key, by its fingerprint
        self.in_use: dict[str, Member] = {}  # by each of name_keys(name): no two members have names alike
        self.names = NameRegistry(storage)  # names owned by identities, kept in the database
        self.leaderboard_followers: set[Member] = set()  # sent the leaderboard after each counted game
        self.tables: dict[int, Table] = {}
        self.nodes: Nodes | None = None  # one node of several (server/cluster.py): None for a server alone
        self.lobby_chat = ChatRoom(config.chat_history, "lobby", None)
        self._next_table_id = storage.next_table_id() if storage else 1
        self._tables_dirty = False
        self._tables_pushed_at = float("-inf")  # loop time of the last table-list push
        self._online_sent: tuple[wire.OnlinePlayer, ...] | None = None  # the last "online" pushed to the lobby
        self._online_due = False
        self.table_listeners: list[Callable[[], None]] = []  # told once per loop turn with changes (LAN advert)
        self.closed = False
        self.ratings = RatingBook(self)
        self.matchmaker = Matchmaker(self)  # play now
        self.moderation = Moderation(self)  # moderation: operators, bans, mutes, reports (server/moderation.py)
        self.metrics = Metrics(self)  # metrics: server/metrics.py
        self.handlers: dict[type, Handler] = {}  # each request after the welcome: who takes it
        for routes in (self.routes, self.matchmaker.routes, self.ratings.routes, self.moderation.routes):
            routes(self._route)

    def _route(self, kind: type[R], handler: Callable[[Member, R], None]) -> None:
        self.handlers[kind] = handler

    def routes(self, route: Router) -> None:
        """The requests the lobby itself takes."""
        route(Hello, self.on_hello)
        route(Prove, self.on_prove)
        route(Ping, self.on_ping)
        route(ListTables, self.on_list_tables)
        route(CreateTable, self.on_create_table)
        route(Join, self.on_join)
        route(Spectate, self.on_spectate)
        route(Sit, self.on_sit)
        route(Stand, self.on_stand)
        route(Leave, self.on_leave)
        route(AddBot, self.on_add_bot)
        route(RemoveBot, self.on_remove_bot)
        route(GiveSeat, self.on_give_seat)
        route(SetTableOptions, self.on_table_options)
        route(Kick, self.on_kick)
        route(Start, self.on_start)
        route(Rematch, self.on_rematch)
        route(Act, self.on_act)
        route(Say, self.on_chat)
        route(AskLeaderboard, self.on_leaderboard)

    # --- identity -----------------------------------------------------------------------------------
    def hello(self, connection: Link, hello: Hello, identity: str | None, peer: str) -> Member:
        """A hello accepted on ``connection`` from ``peer`` (``identity`` proven, or None for a guest): the
        player with that key comes back (to their seat, if they have one), a guest with a valid
        resume token likewise, anyone else enters under a name they may have. The session checked
        the hello's version before anything else (``Hello.check_version``)."""
        member = self.by_identity.get(identity) if identity is not None else None
        resume = hello.resume
        if member is None and resume:
            known = self.by_token.get(token_hash(resume))
            member = known if known is not None and known.identity is None else None  # a key comes back by its key
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
            holder = next((self.in_use[key] for key in sorted(name_keys(name)) if key in self.in_use), None)
            if holder is not None:
                raise ProtocolError("name_taken", same_name_refusal(name, holder.name),
                                    params=name_taken_params(name, holder.name))
            self.names.check(name, identity)
            if identity is not None:
                self.names.claim(identity, name)
            member = Member(name, token_hash(token), self.config, identity)
            self._remember(member)
        member.connection = connection
        connection.send(wire.Welcome(version=PROTOCOL_VERSION, server=self.config.name, name=member.name,
                                     resume=token, resumed=resumed, table=member.table.id if member.table else None,
                                     identity=member.identity))
        seen = dict(hello.seen or {}) if resumed else {}
        connection.send(self.moderation.history_for(member, self.lobby_chat.history(seen.get("lobby_chat"))))
        if member.table is not None:
            member.table.member_returned(member, seen)
        else:
            connection.send(self.tables_message())
            connection.send(self.online_message())
            connection.send(self.matchmaker.status(member))
        self.online_changed()
        if self.nodes is not None:
            self.nodes.welcomed(member, resume)  # one sent on here to join a table does so
        log.info("%s %s (%s) from %s", "resumed" if resumed else "hello", clean_text(member.name),
                 member.identity or "guest", peer)
        return member

    def _remember(self, member: Member) -> None:
        self.members[member.name] = member
        self.by_token[member.token_hash] = member
        self.in_use.update(dict.fromkeys(name_keys(member.name), member))
        if member.identity is not None:
            self.by_identity[member.identity] = member

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
        if self.members.get(member.name) is member:
            del self.members[member.name]
            self.online_changed()
        if self.by_token.get(member.token_hash) is member:
            del self.by_token[member.token_hash]
        for key in name_keys(member.name):
            if self.in_use.get(key) is member:
                del self.in_use[key]
        if member.identity is not None and self.by_identity.get(member.identity) is member:
            del self.by_identity[member.identity]
        self.leaderboard_followers.discard(member)

    def forget_if_idle(self, member: Member) -> None:
        if member.connection is None and member.table is None:
            self.forget(member)

    # --- dispatch -------------------------------------------------------------------------------------
    def handle(self, member: Member, request: Request) -> None:
        """A welcome member's request, to the handler of its type."""
        self.handlers[type(request)](member, request)
        if isinstance(request, LEAVE_QUEUE_ON):
            self.matchmaker.leave(member)

    def on_hello(self, member: Member, request: Hello) -> None:
        raise ProtocolError("already_hello", "hello was already received on this connection")

    def on_prove(self, member: Member, request: Prove) -> None:
        raise ProtocolError("no_challenge", "prove answers a challenge: this connection is already welcome")

    def on_ping(self, member: Member, request: Ping) -> None:
        member.send(wire.Pong(n=request.n))

    def on_list_tables(self, member: Member, request: ListTables) -> None:
        member.send(self.tables_message())

    def on_create_table(self, member: Member, request: CreateTable) -> None:
        if self.nodes is not None:
            self.nodes.check_open()
        hosted = sum(1 for t in self.tables.values() if t.host_member is member)
        if hosted >= self.config.max_tables_per_player:
            raise ProtocolError("too_many_tables",
                                f"you already host {hosted} tables (the limit is "
                                f"{self.config.max_tables_per_player}); close one first",
                                params={"hosted": hosted, "limit": self.config.max_tables_per_player})
        edition = request.edition or "2022"
        options = options_from_wire(edition, request.options or {})
        seats = 4 if request.seats is None else request.seats
        try:
            options.check_players(seats)
        except ValueError as exc:
            raise option_refusal(exc) from None
        bots = request.bots or 0
        if bots > seats - 1:
            raise ProtocolError("bad_field", f"a table of {seats} seats has room for at most {seats - 1} bots",
                                params={"why": "bots", "seats": seats, "bots": seats - 1})
        named = request.name is not None  # else the host's table, said in each player's language
        name = check_name(request.name if request.name is not None else table_name("hosts_table", host=member.name),
                          "table name", MAX_TABLE_NAME)
        if member.table is not None:
            member.table.leave(member)
        table = Table(self, self._take_table_id(), name, options, seats, member,
                      private=bool(request.private),
                      turn_seconds=self.config.default_turn_seconds if request.turn_seconds is None
                      else request.turn_seconds,
                      bot_level=request.bot_level or "greedy", replace_bots=bool(request.replace_bots),
                      name_code=None if named else "hosts_table", name_params={} if named else {"host": member.name})
        self.tables[table.id] = table
        table.sit(member, 0)
        for _ in range(bots):
            table.add_bot(member, None, None)
        if request.start:
            table.start(member)

    def _take_table_id(self) -> int:
        if self.nodes is not None:
            return self.nodes.new_table_id()
        table_id = self._next_table_id
        self._next_table_id += 1
        if self.storage is not None:
            self.storage.remember_next_table_id(self._next_table_id)
        return table_id

    def _find_table(self, request: Join | Spectate) -> Table:
        code = request.code
        if code:
            wanted = code.strip().upper()
            for table in self.tables.values():
                if table.code and table.code == wanted:
                    return table
            raise ProtocolError("no_table", f"no table has the invite code {wanted[:16]!r}",
                                params={"why": "code", "code": wanted[:16]})
        table_id = request.table
        found = self.tables.get(table_id) if table_id is not None else None
        if found is None or (found.private and not code):
            raise ProtocolError("no_table", f"there is no open table {table_id!r}; list the tables again",
                                params={"why": "id"})
        return found

    def on_join(self, member: Member, request: Join) -> None:
        if self.nodes is not None and self.nodes.send_on(member, request):
            return
        table = self._find_table(request)
        self.moderation.may_join(member, table)  # moderation: a private table's host may block players
        seat = table.seat_for(member, request.seat)  # refused here, you keep your old seat
        was_here = member.table is table
        if member.table is not None and not was_here:
            member.table.leave(member)
        table.sit(member, seat)
        self._welcome_to_table(member, table, was_here)

    def on_spectate(self, member: Member, request: Spectate) -> None:
        if self.nodes is not None and self.nodes.send_on(member, request):
            return
        table = self._find_table(request)
        self.moderation.may_join(member, table)  # moderation: a private table's host may block players
        was_here = member.table is table
        if member.table is not None and not was_here:
            member.table.leave(member)
        if table.seat_of(member) is not None:
            raise ProtocolError("seated", "you are sitting at this table; stand up to watch")
        table.spectate(member)
        self._welcome_to_table(member, table, was_here)

    def _welcome_to_table(self, member: Member, table: Table, was_here: bool = False) -> None:
        """The table, its chat and its game for a newcomer (all of them), or for one who was
        already there (nothing they have seen again)."""
        member.send(wire.TableMessage(table=table.detail(member)))
        member.send(self.moderation.history_for(member, table.chat.history(table.chat.last_id if was_here else None)))
        table.send_state_to(member, table.last_seq if was_here else None)

    def _table_of(self, member: Member) -> Table:
        if member.table is None:
            raise ProtocolError("no_table", "you are not at a table; join one first", params={"why": "none"})
        return member.table

    def on_sit(self, member: Member, request: Sit) -> None:
        table = self._table_of(member)
        if table.status == Status.PLAYING and table.seat_of(member) is None:
            table.wait_for_seat(member)
            return
        table.sit(member, request.seat)
        table.send_state_to(member, table.last_seq)

    def on_stand(self, member: Member, request: Stand) -> None:
        table = self._table_of(member)
        table.stand(member)
        table.send_state_to(member, table.last_seq)

    def on_leave(self, member: Member, request: Leave) -> None:
        table = self._table_of(member)
        table.leave(member)
        member.send(wire.Left(table=table.id))
        member.send(self.tables_message())
        member.send(self.online_message())

    def on_add_bot(self, member: Member, request: AddBot) -> None:
        self._table_of(member).add_bot(member, request.seat, request.level)

    def on_remove_bot(self, member: Member, request: RemoveBot) -> None:
        self._table_of(member).remove_bot(member, request.seat)

    def on_give_seat(self, member: Member, request: GiveSeat) -> None:
        self._table_of(member).give_seat(member, request.seat, request.name)

    def on_table_options(self, member: Member, request: SetTableOptions) -> None:
        self._table_of(member).set_options(member, request.replace_bots)

    def on_kick(self, member: Member, request: Kick) -> None:
        self._table_of(member).kick(member, request.seat)

    def on_start(self, member: Member, request: Start) -> None:
        self._table_of(member).start(member)

    def on_rematch(self, member: Member, request: Rematch) -> None:
        self._table_of(member).rematch(member)

    def on_act(self, member: Member, request: Act) -> None:
        self._table_of(member).act(member, request.action, request.version)

    def on_chat(self, member: Member, request: Say) -> None:
        text = clean_text(request.text).strip()
        if not text:
            raise ProtocolError("empty_chat", "the message is empty")
        if len(text) > MAX_CHAT:
            raise ProtocolError("chat_too_long", f"chat messages are at most {MAX_CHAT} characters",
                                params={"max": MAX_CHAT})
        table = self._table_of(member) if (request.scope or "table") == "table" else None
        self.moderation.check_chat(member, table is None)  # moderation: operators mute in the lobby's chat
        if not member.chat_bucket.take():
            raise ProtocolError("rate_limited", "you are chatting too fast; wait a moment")
        if table is not None:
            table.say(member, text)
            return
        line = self.lobby_chat.add(member.name, text)

        def show() -> None:
            frame = wire.encode_message(self.lobby_chat.message(line))
            for other in self.moderation.hearers(member, self.members.values()):  # moderation: players' mutes
                other.send_frame(frame)

        self.persist_chat(LOBBY_CHAT, line, show)
        if self.nodes is not None:
            self.nodes.lobby_said(member.name, text)  # the other nodes' lobbies hear it too

    def on_leaderboard(self, member: Member, request: AskLeaderboard) -> None:
        edition = request.edition
        if request.follow is not None:
            member.follows_leaderboard = request.follow
            member.leaderboard_edition = edition
            if member.follows_leaderboard:
                self.leaderboard_followers.add(member)
            else:
                self.leaderboard_followers.discard(member)
        self._send_leaderboard([member], edition)

    def _send_leaderboard(self, members: list[Member], edition: wire.Edition | None) -> None:
        if self.storage is None:
            for member in members:
                member.send(wire.Leaderboard(edition=edition, rows=(), bots=()))
            return

        async def answer() -> None:
            assert self.storage is not None
            board = await self.storage.leaderboard(edition)
            for member in members:
                member.send(board)

        asyncio.get_running_loop().create_task(answer())

    def _push_leaderboards(self) -> None:
        """A game changed the stats: a new leaderboard to every player who follows one."""
        followers: dict[wire.Edition | None, list[Member]] = {}
        for member in self.leaderboard_followers:
            if member.connection is not None:
                followers.setdefault(member.leaderboard_edition, []).append(member)
        for edition, members in followers.items():
            self._send_leaderboard(members, edition)

    # --- tables ---------------------------------------------------------------------------------------
    def tables_message(self) -> wire.Tables:
        """The public tables, open ones first, at most MAX_LISTED_TABLES so the list fits in a frame;
        ``total`` counts them all."""
        public = [t for t in self.tables.values() if not t.private]
        order = {Status.WAITING: 0, Status.PLAYING: 1, Status.FINISHED: 2}
        if self.nodes is not None:  # and the other nodes' (server/cluster.py)
            infos = [t.info() for t in public] + self.nodes.remote_tables()
            listed_infos = sorted(infos, key=lambda t: (order.get(t.status, 3), t.id))[:MAX_LISTED_TABLES]
            return wire.Tables(tables=tuple(listed_infos), total=len(infos))
        listed = sorted(public, key=lambda t: (order.get(t.status, 3), t.id))[:MAX_LISTED_TABLES]
        return wire.Tables(tables=tuple(t.info() for t in listed), total=len(public))

    def tables_changed(self) -> None:
        """Push the table list to everyone in the lobby: at once after a quiet spell, then at most
        once per ``lobby_push_interval`` however many changes (the last push shows the latest list)."""
        self.online_changed()  # where people sit is in it
        if self._tables_dirty:
            return
        self._tables_dirty = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._tables_dirty = False
            return
        loop.call_later(max(0.0, self._tables_pushed_at + self.config.lobby_push_interval - loop.time()),
                        self._push_tables)

    def _push_tables(self) -> None:
        self._tables_dirty = False
        self._tables_pushed_at = asyncio.get_running_loop().time()
        for listener in self.table_listeners:
            listener()
        in_lobby = [m for m in self.members.values() if m.table is None and m.connection is not None]
        if not in_lobby:  # nobody to tell: skip building the list (every game's end changes it)
            return
        frame = wire.encode_message(self.tables_message())
        for member in in_lobby:
            member.send_frame(frame)

    def online_changed(self) -> None:
        """Push who is online to everyone in the lobby: at most once a second, however many players
        come and go (a crowd connecting at once must not cost a list per player per arrival)."""
        if self._online_due:
            return
        self._online_due = True
        try:
            asyncio.get_running_loop().call_later(ONLINE_EVERY, self._push_online)
        except RuntimeError:
            self._online_due = False

    def _push_online(self) -> None:
        self._online_due = False
        if self.closed:
            return
        in_lobby = [m for m in self.members.values() if m.table is None and m.connection is not None]
        online = self.online_message()
        if not in_lobby or online.players == self._online_sent:
            self._online_sent = online.players if in_lobby else None
            return
        self._online_sent = online.players
        frame = wire.encode_message(online)
        for member in in_lobby:
            member.send_frame(frame)

    def online_message(self) -> wire.Online:
        """Who is on the server (at most MAX_ONLINE of them, by name), and where."""
        members = sorted(self.members.values(), key=lambda m: m.name.casefold())
        players = tuple(wire.OnlinePlayer(name=m.name, away=m.connection is None,
                                          table=m.table.id if m.table is not None and not m.table.private else None)
                        for m in members[:MAX_ONLINE])
        if self.nodes is not None:  # and the other nodes' players (server/cluster.py)
            everyone = [*players, *self.nodes.remote_online()]
            return wire.Online(players=tuple(sorted(everyone, key=lambda p: p.name.casefold())[:MAX_ONLINE]),
                               total=len(members) + len(everyone) - len(players))
        return wire.Online(players=players, total=len(members))

    def table_emptied_check(self, table: Table) -> None:
        if table.has_people() or table.id not in self.tables:
            return
        if table.status == Status.PLAYING:  # bots play the game out, so it is recorded (Table._finish)
            return
        table.close()
        del self.tables[table.id]
        if self.storage is not None:
            self.storage.drop_table(table.id)
        self.tables_changed()

    # --- persistence ------------------------------------------------------------------------------------
    def persist_table(self, table: Table, new_game: bool = False) -> None:
        if self.storage is not None and table.id in self.tables:
            self.storage.save_table(table.id, table.to_meta(), table.game_no if new_game else None)

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

    def store_game(self, table: Table, record: dict[str, Any], results: list[tuple[str, bool]]) -> None:
        """Save a finished game; ``results`` is (identity, win credited) for each player it counts for."""
        if self.storage is not None:
            now = time.time()
            self.storage.save_game(table.id, record, now, results, then=self.ratings.rater(table, record, now),
                                   viewers=table.record_viewers() if table.private else None)
            if results:
                self._push_leaderboards()  # read after the save: the database thread keeps the order

    def restore(self, only: list[SavedTable] | None = None) -> int:
        """Rebuild the tables saved in the database, exactly as they were, with their chat; their
        human players are away (a bot plays for them at once) until they reconnect with their key
        (or a guest with their resume token). Returns the number of tables. ``only``: these tables
        (a node taking them over, server/cluster.py), else every table and the lobby's chat."""
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
            table.chat.restore(ChatLine(*line) for line in saved.chat)
            for i, seat in enumerate(meta["seats"]):
                member = None
                identity = seat.get("identity")
                if seat["kind"] == "human" and (seat.get("token") or identity):
                    member = self.by_identity.get(identity) if identity else self.by_token.get(seat["token"])
                    if member is None:
                        member = Member(seat["name"], seat.get("token") or "", self.config, identity)
                        self._remember(member)
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
            self.tables[table.id] = table
            restored.append(table)
            self._next_table_id = max(self._next_table_id, table.id + 1)
        loop = asyncio.get_running_loop()
        for member in self.members.values():
            if member.connection is None and member.grace is None:
                member.grace = loop.call_later(self.config.grace_seconds, self._grace_over, member)
        for table in restored:
            if table.status == Status.PLAYING:
                table.stand_ins_for_the_away()
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
        self.matchmaker.close()
        for table in self.tables.values():
            table.close()
        for member in self.members.values():
            if member.grace is not None:
                member.grace.cancel()
                member.grace = None
