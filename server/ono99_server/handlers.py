"""The requests of a welcome member, each to the part that takes it: the lobby's own (tables, seats,
the game, chat) are here, the others' in matchmaking, ratings, leaderboards and moderation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ono99_kernel.protocol import (
    HOSTS_TABLE,
    MAX_TABLE_NAME,
    ProtocolError,
    check_name,
    option_refusal,
    options_from_wire,
    table_name,
)
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import (
    Act,
    AddBot,
    CreateTable,
    GiveSeat,
    Hello,
    Join,
    Kick,
    Leave,
    ListTables,
    Ping,
    PlayNow,
    Prove,
    Rematch,
    RemoveBot,
    Say,
    SetTableOptions,
    Sit,
    Spectate,
    Stand,
    Start,
    StartSeries,
)

from .lobby_chat import chat_text
from .members import Member
from .runner import Status
from .table_room import Table, TableHost, check_series, new_series, table_of

if TYPE_CHECKING:
    from .directory import TableDirectory
    from .lobby_chat import LobbyChat
    from .moderation import Moderation
    from .nodes import Nodes
    from .presence import Presence
    from .routes import Router

LEAVE_QUEUE_ON = (Join, Spectate, CreateTable)  # a player at another table waits no more
# A player who plays elsewhere leaves their arena; one who watches a game stays in it (seated from there).
LEAVE_ARENA_ON = (Join, CreateTable, PlayNow)


class RequestsHost(TableHost, Protocol):
    """What the lobby's own requests ask of it: the host of the tables they create, the tables, who is
    online, the lobby's chat and moderation."""

    @property
    def directory(self) -> TableDirectory: ...

    @property
    def presence(self) -> Presence: ...

    @property
    def members(self) -> dict[str, Member]: ...

    @property
    def chat(self) -> LobbyChat: ...

    @property
    def moderation(self) -> Moderation: ...

    @property
    def nodes(self) -> Nodes | None: ...

    def may_guess_code(self, member: Member) -> None: ...

    def find_table(self, member: Member, code: str | None, table_id: int | None) -> Table: ...


class LobbyRequests:
    """The requests the lobby itself takes: it finds the table and hands the request to it."""

    def __init__(self, lobby: RequestsHost) -> None:
        self.lobby = lobby

    def routes(self, route: Router) -> None:
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
        route(StartSeries, self.on_series)
        route(Act, self.on_act)
        route(Say, self.on_chat)

    def on_hello(self, member: Member, request: Hello) -> None:
        raise ProtocolError("already_hello", "hello was already received on this connection")

    def on_prove(self, member: Member, request: Prove) -> None:
        raise ProtocolError("no_challenge", "prove answers a challenge: this connection is already welcome")

    def on_ping(self, member: Member, request: Ping) -> None:
        member.send(wire.Pong(n=request.n))

    def on_list_tables(self, member: Member, request: ListTables) -> None:
        member.send(self.lobby.directory.listing())

    def on_create_table(self, member: Member, request: CreateTable) -> None:
        lobby = self.lobby
        if lobby.nodes is not None:
            lobby.nodes.check_open()
        config = lobby.config
        hosted = lobby.directory.hosted_by(member)
        if hosted >= config.max_tables_per_player:
            raise ProtocolError("too_many_tables",
                                f"you already host {hosted} tables (the limit is "
                                f"{config.max_tables_per_player}); close one first",
                                params={"hosted": hosted, "limit": config.max_tables_per_player})
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
        check_series(bool(request.private), request.series_games, request.series_points)
        named = request.name is not None  # else the host's table, said in each player's language
        name = check_name(request.name if request.name is not None else table_name(HOSTS_TABLE, host=member.name),
                          "table name", MAX_TABLE_NAME)
        if member.table is not None:
            member.table.leave(member)
        table = Table(lobby, lobby.directory.take_id(), name, options, seats, member,
                      private=bool(request.private),
                      turn_seconds=config.default_turn_seconds if request.turn_seconds is None
                      else request.turn_seconds,
                      bot_level=request.bot_level or "greedy", replace_bots=bool(request.replace_bots),
                      name_code=None if named else HOSTS_TABLE, name_params={} if named else {"host": member.name})
        table.series = new_series(request.series_games, request.series_points)
        table.hints = bool(request.hints)
        lobby.directory.add(table)
        table.sit(member, 0)
        for _ in range(bots):
            table.add_bot(member, None, None)
        if request.start:
            table.start(member)

    def on_join(self, member: Member, request: Join) -> None:
        if request.code:
            self.lobby.may_guess_code(member)  # before another node is asked too
        if self.lobby.nodes is not None and self.lobby.nodes.send_on(member, request):
            return
        table = self.lobby.find_table(member, request.code, request.table)
        self.lobby.moderation.may_join(member, table)  # moderation: a private table's host may block players
        seat = table.seat_for(member, request.seat)  # refused here, you keep your old seat
        was_here = member.table is table
        if member.table is not None and not was_here:
            member.table.leave(member)
        table.sit(member, seat)
        if not was_here:
            table.arriving(member)
        table.once_shown(lambda: self._welcome_to_table(member, table, was_here))

    def on_spectate(self, member: Member, request: Spectate) -> None:
        if request.code:
            self.lobby.may_guess_code(member)  # before another node is asked too
        if self.lobby.nodes is not None and self.lobby.nodes.send_on(member, request):
            return
        table = self.lobby.find_table(member, request.code, request.table)
        self.lobby.moderation.may_join(member, table)  # moderation: a private table's host may block players
        was_here = member.table is table
        if member.table is not None and not was_here:
            member.table.leave(member)
        if table.seat_of(member) is not None:
            raise ProtocolError("seated", "you are sitting at this table; stand up to watch")
        table.spectate(member)
        self._welcome_to_table(member, table, was_here)  # at once: spectators are not kept over a restart

    def _welcome_to_table(self, member: Member, table: Table, was_here: bool = False) -> None:
        """The table, its chat and its game for a newcomer (all of them), or for one who was
        already there (nothing they have seen again)."""
        table.welcomed(member)
        if member.table is not table:  # it closed, or they left, while their seat was being saved
            return
        member.send(wire.TableMessage(table=table.detail(member)))
        member.send(self.lobby.moderation.history_for(member,
                                                      table.chat.history(table.chat.last_id if was_here else None)))
        table.send_state_to(member, table.last_seq if was_here else None)

    @staticmethod
    def _table_of(member: Member) -> Table:
        table = table_of(member)
        if table is None:
            raise ProtocolError("no_table", "you are not at a table; join one first", params={"why": "none"})
        return table

    def on_sit(self, member: Member, request: Sit) -> None:
        table = self._table_of(member)
        if table.status == Status.PLAYING and table.seat_of(member) is None:
            table.wait_for_seat(member)
            return
        table.sit(member, request.seat)
        table.state_when_shown(member)

    def on_stand(self, member: Member, request: Stand) -> None:
        table = self._table_of(member)
        table.stand(member)
        table.state_when_shown(member)

    def on_leave(self, member: Member, request: Leave) -> None:
        table = self._table_of(member)
        table.leave(member)

        def gone() -> None:
            member.send(wire.Left(table=table.id))
            member.send(self.lobby.directory.listing())
            member.send(self.lobby.presence.online_message())

        table.once_shown(gone)

    def on_add_bot(self, member: Member, request: AddBot) -> None:
        self._table_of(member).add_bot(member, request.seat, request.level)

    def on_remove_bot(self, member: Member, request: RemoveBot) -> None:
        self._table_of(member).remove_bot(member, request.seat)

    def on_give_seat(self, member: Member, request: GiveSeat) -> None:
        self._table_of(member).give_seat(member, request.seat, request.name)

    def on_table_options(self, member: Member, request: SetTableOptions) -> None:
        self._table_of(member).set_options(member, request.replace_bots, request.hints)

    def on_kick(self, member: Member, request: Kick) -> None:
        self._table_of(member).kick(member, request.seat)

    def on_start(self, member: Member, request: Start) -> None:
        self._table_of(member).start(member)

    def on_rematch(self, member: Member, request: Rematch) -> None:
        self._table_of(member).rematch(member)

    def on_series(self, member: Member, request: StartSeries) -> None:
        self._table_of(member).start_series(member, request.games, request.points)

    def on_act(self, member: Member, request: Act) -> None:
        self._table_of(member).act(member, request.action, request.version)

    def on_chat(self, member: Member, request: Say) -> None:
        text = chat_text(request.text)
        table = self._table_of(member) if (request.scope or "table") == "table" else None
        moderation = self.lobby.moderation
        moderation.check_chat(member, table is None)  # moderation: operators mute in the lobby's chat
        if not member.chat_bucket.take():
            raise ProtocolError("rate_limited", "you are chatting too fast; wait a moment")
        if table is not None:
            table.say(member, text)
            return
        self.lobby.chat.say(member, text, lambda sender: moderation.hearers(sender, self.lobby.members.values()))
