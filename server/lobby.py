"""The lobby: who is connected, the tables, lobby chat, and the dispatch of client messages."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

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
    encode,
    option_refusal,
    options_from_wire,
    table_name,
)

from .config import ServerConfig
from .history import ChatLine, ChatRoom, seen_of
from .matchmaking import Matchmaker
from .names import NameRegistry, name_keys, name_taken_params, same_name_refusal
from .ratings import RatingBook
from .storage import Storage
from .table import Seat, Status, Table

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger("ono99.lobby")
LOBBY_CHAT = 0  # the lobby's chat is saved as that of table 0 (table ids start at 1)
LEAVE_QUEUE_ON = frozenset({"join", "spectate", "create_table"})  # a player at another table waits no more
MAX_LISTED_TABLES = 60  # a table's entry is at most ~700 bytes: 60 of them stay far below a frame
MAX_ONLINE = 200  # names in an "online" message (about 40 bytes each)
ONLINE_EVERY = 1.0  # seconds: the lobby's "online" list is pushed at most this often


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
        self.connection: Connection | None = None
        self.table: Table | None = None
        self.grace: asyncio.TimerHandle | None = None
        self.chat_bucket = TokenBucket(config.chat_per_minute / 60, config.chat_per_minute / 4)
        self.follows_leaderboard = False  # sent a new leaderboard after each game that changes it
        self.leaderboard_edition: str | None = None  # the edition it follows (None: all of them)

    def send(self, message: dict[str, Any]) -> None:
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
        self.lobby_chat = ChatRoom(config.chat_history, "lobby", None)
        self._next_table_id = storage.next_table_id() if storage else 1
        self._tables_dirty = False
        self._tables_pushed_at = float("-inf")  # loop time of the last table-list push
        self._online_sent: list[dict[str, Any]] | None = None  # the last "online" pushed to the lobby
        self._online_due = False
        self.table_listeners: list[Callable[[], None]] = []  # told once per loop turn with changes (LAN advert)
        self.closed = False
        self.ratings = RatingBook(self)
        self.matchmaker = Matchmaker(self)  # play now
        self.handlers: dict[str, Callable[[Member, dict[str, Any]], None]] = {  # beside the on_ methods
            **self.matchmaker.handlers(), **self.ratings.handlers()}

    # --- identity -----------------------------------------------------------------------------------
    def check_version(self, message: dict[str, Any]) -> None:
        if message["version"] != PROTOCOL_VERSION:
            raise ProtocolError("version_mismatch",
                                f"this server speaks protocol version {PROTOCOL_VERSION}, the client "
                                f"{message['version']}; update the client", fatal=True,
                                params={"server": PROTOCOL_VERSION, "client": str(message["version"])[:20]})

    def hello(self, connection: Connection, message: dict[str, Any]) -> Member:
        """A hello accepted on ``connection`` (whose ``identity`` is proven, or None for a guest): the
        player with that key comes back (to their seat, if they have one), a guest with a valid
        resume token likewise, anyone else enters under a name they may have. The connection checked
        the hello's version before anything else (``check_version``)."""
        identity = connection.identity
        member = self.by_identity.get(identity) if identity is not None else None
        resume = message.get("resume")
        if member is None and resume:
            known = self.by_token.get(token_hash(resume))
            member = known if known is not None and known.identity is None else None  # a key comes back by its key
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
            name = check_name(message["name"])
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
        connection.send({"t": "welcome", "version": PROTOCOL_VERSION, "server": self.config.name,
                         "name": member.name, "resume": token, "resumed": resumed,
                         "table": member.table.id if member.table else None, "identity": member.identity})
        seen = seen_of(message) if resumed else {}
        connection.send(self.lobby_chat.history(seen.get("lobby_chat")))
        if member.table is not None:
            member.table.member_returned(member, seen)
        else:
            connection.send(self.tables_message())
            connection.send(self.online_message())
            connection.send(self.matchmaker.status(member))
        self.online_changed()
        log.info("%s %s (%s) from %s", "resumed" if resumed else "hello", clean_text(member.name),
                 member.identity or "guest", connection.peer)
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
    def handle(self, member: Member, kind: str, message: dict[str, Any]) -> None:
        handler: Callable[[Member, dict[str, Any]], None] | None = getattr(self, f"on_{kind}", None) \
            or self.handlers.get(kind)
        if handler is None:
            raise ProtocolError("unknown_type", f"{kind!r} is not a client message")
        handler(member, message)
        if kind in LEAVE_QUEUE_ON:
            self.matchmaker.leave(member)

    def on_hello(self, member: Member, message: dict[str, Any]) -> None:
        raise ProtocolError("already_hello", "hello was already received on this connection")

    def on_prove(self, member: Member, message: dict[str, Any]) -> None:
        raise ProtocolError("no_challenge", "prove answers a challenge: this connection is already welcome")

    def on_ping(self, member: Member, message: dict[str, Any]) -> None:
        member.send({"t": "pong", "n": message.get("n")})

    def on_list_tables(self, member: Member, message: dict[str, Any]) -> None:
        member.send(self.tables_message())

    def on_create_table(self, member: Member, message: dict[str, Any]) -> None:
        hosted = sum(1 for t in self.tables.values() if t.host_member is member)
        if hosted >= self.config.max_tables_per_player:
            raise ProtocolError("too_many_tables",
                                f"you already host {hosted} tables (the limit is "
                                f"{self.config.max_tables_per_player}); close one first",
                                params={"hosted": hosted, "limit": self.config.max_tables_per_player})
        edition = message.get("edition", "2022")
        options = options_from_wire(edition, message.get("options") or {})
        seats = message.get("seats", 4)
        try:
            options.check_players(seats)
        except ValueError as exc:
            raise option_refusal(exc) from None
        bots = message.get("bots", 0)
        if bots > seats - 1:
            raise ProtocolError("bad_field", f"a table of {seats} seats has room for at most {seats - 1} bots",
                                params={"why": "bots", "seats": seats, "bots": seats - 1})
        named = "name" in message  # else the host's table, said in each player's language
        name = check_name(message["name"] if named else table_name("hosts_table", host=member.name), "table name",
                          MAX_TABLE_NAME)
        if member.table is not None:
            member.table.leave(member)
        table = Table(self, self._take_table_id(), name, options, seats, member,
                      private=message.get("private", False),
                      turn_seconds=message.get("turn_seconds", self.config.default_turn_seconds),
                      bot_level=message.get("bot_level", "greedy"), replace_bots=message.get("replace_bots", False),
                      name_code=None if named else "hosts_table", name_params={} if named else {"host": member.name})
        self.tables[table.id] = table
        table.sit(member, 0)
        for _ in range(bots):
            table.add_bot(member, None, None)
        if message.get("start"):
            table.start(member)

    def _take_table_id(self) -> int:
        table_id = self._next_table_id
        self._next_table_id += 1
        if self.storage is not None:
            self.storage.remember_next_table_id(self._next_table_id)
        return table_id

    def _find_table(self, message: dict[str, Any]) -> Table:
        code = message.get("code")
        if code:
            wanted = code.strip().upper()
            for table in self.tables.values():
                if table.code and table.code == wanted:
                    return table
            raise ProtocolError("no_table", f"no table has the invite code {wanted[:16]!r}",
                                params={"why": "code", "code": wanted[:16]})
        table_id = message.get("table")
        found = self.tables.get(table_id) if isinstance(table_id, int) else None
        if found is None or (found.private and not code):
            raise ProtocolError("no_table", f"there is no open table {table_id!r}; list the tables again",
                                params={"why": "id"})
        return found

    def on_join(self, member: Member, message: dict[str, Any]) -> None:
        table = self._find_table(message)
        seat = table.seat_for(member, message.get("seat"))  # refused here, you keep your old seat
        was_here = member.table is table
        if member.table is not None and not was_here:
            member.table.leave(member)
        table.sit(member, seat)
        self._welcome_to_table(member, table, was_here)

    def on_spectate(self, member: Member, message: dict[str, Any]) -> None:
        table = self._find_table(message)
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
        member.send({"t": "table", "table": table.detail(member)})
        member.send(table.chat.history(table.chat.last_id if was_here else None))
        table.send_state_to(member, table.last_seq if was_here else None)

    def _table_of(self, member: Member) -> Table:
        if member.table is None:
            raise ProtocolError("no_table", "you are not at a table; join one first", params={"why": "none"})
        return member.table

    def on_sit(self, member: Member, message: dict[str, Any]) -> None:
        table = self._table_of(member)
        if table.status == Status.PLAYING and table.seat_of(member) is None:
            table.wait_for_seat(member)
            return
        table.sit(member, message.get("seat"))
        table.send_state_to(member, table.last_seq)

    def on_stand(self, member: Member, message: dict[str, Any]) -> None:
        table = self._table_of(member)
        table.stand(member)
        table.send_state_to(member, table.last_seq)

    def on_leave(self, member: Member, message: dict[str, Any]) -> None:
        table = self._table_of(member)
        table.leave(member)
        member.send({"t": "left", "table": table.id})
        member.send(self.tables_message())
        member.send(self.online_message())

    def on_add_bot(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).add_bot(member, message.get("seat"), message.get("level"))

    def on_remove_bot(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).remove_bot(member, message["seat"])

    def on_give_seat(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).give_seat(member, message["seat"], message["name"])

    def on_table_options(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).set_options(member, message.get("replace_bots"))

    def on_kick(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).kick(member, message["seat"])

    def on_start(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).start(member)

    def on_rematch(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).rematch(member)

    def on_act(self, member: Member, message: dict[str, Any]) -> None:
        self._table_of(member).act(member, message["action"], message["version"])

    def on_chat(self, member: Member, message: dict[str, Any]) -> None:
        text = clean_text(message["text"]).strip()
        if not text:
            raise ProtocolError("empty_chat", "the message is empty")
        if len(text) > MAX_CHAT:
            raise ProtocolError("chat_too_long", f"chat messages are at most {MAX_CHAT} characters",
                                params={"max": MAX_CHAT})
        table = self._table_of(member) if message.get("scope", "table") == "table" else None
        if not member.chat_bucket.take():
            raise ProtocolError("rate_limited", "you are chatting too fast; wait a moment")
        if table is not None:
            table.say(member, text)
            return
        line = self.lobby_chat.add(member.name, text)

        def show() -> None:
            frame = encode(self.lobby_chat.message(line))
            for other in self.members.values():
                other.send_frame(frame)

        self.persist_chat(LOBBY_CHAT, line, show)

    def on_leaderboard(self, member: Member, message: dict[str, Any]) -> None:
        edition = message.get("edition")
        if "follow" in message:
            member.follows_leaderboard = bool(message["follow"])
            member.leaderboard_edition = edition
            if member.follows_leaderboard:
                self.leaderboard_followers.add(member)
            else:
                self.leaderboard_followers.discard(member)
        self._send_leaderboard([member], edition)

    def _send_leaderboard(self, members: list[Member], edition: str | None) -> None:
        if self.storage is None:
            for member in members:
                member.send({"t": "leaderboard", "edition": edition, "rows": [], "bots": []})
            return

        async def answer() -> None:
            assert self.storage is not None
            board = await self.storage.leaderboard(edition)
            for member in members:
                member.send({"t": "leaderboard", "edition": edition, **board})

        asyncio.get_running_loop().create_task(answer())

    def _push_leaderboards(self) -> None:
        """A game changed the stats: a new leaderboard to every player who follows one."""
        followers: dict[str | None, list[Member]] = {}
        for member in self.leaderboard_followers:
            if member.connection is not None:
                followers.setdefault(member.leaderboard_edition, []).append(member)
        for edition, members in followers.items():
            self._send_leaderboard(members, edition)

    # --- tables ---------------------------------------------------------------------------------------
    def tables_message(self) -> dict[str, Any]:
        """The public tables, open ones first, at most MAX_LISTED_TABLES so the list fits in a frame;
        ``total`` counts them all."""
        public = [t for t in self.tables.values() if not t.private]
        order = {Status.WAITING: 0, Status.PLAYING: 1, Status.FINISHED: 2}
        listed = sorted(public, key=lambda t: (order.get(t.status, 3), t.id))[:MAX_LISTED_TABLES]
        return {"t": "tables", "tables": [t.info() for t in listed], "total": len(public)}

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
        frame = encode(self.tables_message())
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
        if not in_lobby or online["players"] == self._online_sent:
            self._online_sent = online["players"] if in_lobby else None
            return
        self._online_sent = online["players"]
        frame = encode(online)
        for member in in_lobby:
            member.send_frame(frame)

    def online_message(self) -> dict[str, Any]:
        """Who is on the server (at most MAX_ONLINE of them, by name), and where."""
        members = sorted(self.members.values(), key=lambda m: m.name.casefold())
        players = [{"name": m.name, "table": m.table.id if m.table is not None and not m.table.private else None,
                    "away": m.connection is None} for m in members]
        return {"t": "online", "players": players[:MAX_ONLINE], "total": len(players)}

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

    def restore(self) -> int:
        """Rebuild the tables saved in the database, exactly as they were, with their chat; their
        human players are away (a bot plays for them at once) until they reconnect with their key
        (or a guest with their resume token). Returns the number of tables."""
        if self.storage is None:
            return 0
        self.lobby_chat.restore(ChatLine(*line) for line in self.storage.load_chat(LOBBY_CHAT))
        for saved in self.storage.load_tables():
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
                table.game = game
                table.shown = len(game.log)  # every saved move was shown, or could have been
                table.actions = list(saved.actions)
                table.bot_rng = random.Random(table.seed ^ 0x5EED ^ len(saved.actions))
            for seat_ in table.seats:  # every player is away now: a bot plays for them at once
                if seat_.member is not None and seat_.away_seq is None:
                    seat_.away_seq = table.last_seq
            self.tables[table.id] = table
            self._next_table_id = max(self._next_table_id, table.id + 1)
        loop = asyncio.get_running_loop()
        for member in self.members.values():
            if member.connection is None and member.grace is None:
                member.grace = loop.call_later(self.config.grace_seconds, self._grace_over, member)
        for table in self.tables.values():
            if table.status == Status.PLAYING:
                table.stand_ins_for_the_away()
        return len(self.tables)

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
