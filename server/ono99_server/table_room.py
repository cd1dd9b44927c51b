"""A table: its seats, the game on it, its spectators and chat, and what it keeps.

The table is authoritative: only the seat on turn may play, every action is checked by the rules
engine, and each recipient is sent only its own view with the events redacted for it. Its parts
each do one thing and are tested alone: who sits where (``Seating``, server/ono99_server/seating.py), the game
and its clocks (``GameRunner``, server/ono99_server/runner.py), what the table's people are told (``Broadcaster``,
server/ono99_server/broadcast.py). The table runs a request through them in order, keeps the stand-in spans of
the game's record and saves itself.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ono99_kernel.core.actions import Action, ActionKind
from ono99_kernel.core.events import Event
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import TableOptions
from ono99_kernel.core.record import Player as RecordPlayer
from ono99_kernel.core.record import game_to_record
from ono99_kernel.core.series import Series, points_table
from ono99_kernel.protocol import PLAY_NOW_TABLE, ProtocolError
from ono99_kernel.wire import server as wire

from . import standin
from .broadcast import Broadcaster
from .history import ChatLine, ChatRoom, away_params, away_summary
from .runner import Clock, GameRunner, RunnerMetrics, Status
from .seating import STAND_IN_LEVEL, Seat, Seating
from .storage import viewer_keys

if TYPE_CHECKING:
    from .config import ServerConfig
    from .members import Member

log = logging.getLogger("ono99.table")
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def table_of(member: Member) -> Table | None:
    """The table ``member`` is at (``Member.table`` names only what members.py may know of it)."""
    table = member.table
    assert table is None or isinstance(table, Table), table  # only a Table seats a member
    return table


def check_series(private: bool, games: int | None, points: int | None) -> None:
    """Refuse a series the table cannot have: only a private table plays one, of games or of points."""
    if games is not None and points is not None:
        raise ProtocolError("bad_series", "a series is a number of games or a number of points, not both",
                            params={"why": "both"})
    if (games is not None or points is not None) and not private:
        raise ProtocolError("bad_series", "a series is played at a private table", params={"why": "private"})


def new_series(games: int | None, points: int | None) -> Series | None:
    return Series("games", games) if games is not None else Series("points", points) if points is not None else None


class ChatFilter(Protocol):
    """Whose chat a member hears (server/ono99_server/moderation.py: players' mutes)."""

    def hearers(self, speaker: Member, members: Iterable[Member]) -> Iterable[Member]: ...

    def history_for(self, member: Member, history: wire.ChatHistory) -> wire.ChatHistory: ...


class TableHost(Protocol):
    """What a table asks of the server it is on (server/ono99_server/lobby_state.py's ``Lobby``): saving, the
    lobby's lists, forgetting those who left, the chat's hearers and the metrics."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def metrics(self) -> RunnerMetrics: ...

    @property
    def moderation(self) -> ChatFilter: ...

    def persist_table(self, table: Table, new_game: bool = False, on_saved: Callable[[], None] | None = None) -> bool:
        """Save ``table``; True if ``on_saved`` will be called once it is saved."""

    def persist_action(self, table: Table, n: int, seat: int, action: str, on_saved: Callable[[], None]) -> bool:
        """Save a move; True if ``on_saved`` will be called once it is saved."""

    def persist_chat(self, table_id: int, line: ChatLine, show: Callable[[], None]) -> None:
        """Save a chat line, then ``show`` it."""

    def store_game(self, table: Table, record: dict[str, Any], results: list[tuple[str, bool]],
                   restored: bool = False) -> None: ...

    def tables_changed(self) -> None: ...

    def table_emptied_check(self, table: Table) -> None: ...

    def forget_if_idle(self, member: Member) -> None: ...


class Table:
    def __init__(self, lobby: TableHost, id: int, name: str, options: TableOptions, seat_count: int,
                 host_member: Member | None, *, private: bool = False, code: str = "", turn_seconds: int = 0,
                 bot_level: str = "greedy", status: wire.TableStatus = Status.WAITING, game_no: int = 0,
                 seed: int = 0, seq_base: int = 0, replace_bots: bool = False, clock: Clock | None = None,
                 name_code: str | None = None, name_params: dict[str, str | int] | None = None) -> None:
        self.lobby = lobby
        self.id = id
        self.name = name
        # a name the server gave (``protocol.TABLE_NAMES``), which each client says in its player's language
        self.name_code = name_code
        self.name_params: dict[str, str | int] = dict(name_params or {})
        self.options = options
        self.private = private
        self.code = code or ("".join(secrets.choice(CODE_ALPHABET) for _ in range(6)) if private else "")
        self.turn_seconds = turn_seconds
        self.seating = Seating(seat_count, host_member, bot_level=bot_level, replace_bots=replace_bots)
        self.runner = GameRunner(self, lobby.config, options, seat_count, turn_seconds=turn_seconds, status=status,
                                 game_no=game_no, seed=seed, seq_base=seq_base, clock=clock,
                                 metrics=lobby.metrics)
        self.broadcast = Broadcaster(id, self.seating, self.runner)
        self.chat = ChatRoom(lobby.config.chat_history, "table", id)
        # The current game's player of each seat, as at its start ({name, kind, identity}), and the
        # spans of it that a stand-in played for each seat (server/ono99_server/standin.py).
        self.players: list[dict[str, Any]] = []
        self.stand_in: list[list[dict[str, Any]]] = []
        # Returning players whose state waits for moves to be saved: their chat_history and away come after it.
        self._after_state: dict[Member, Callable[[], None]] = {}
        self._after_finish: list[Callable[[], None]] = []  # once a finished game's end is shown (arenas)
        self._finish_unannounced = False  # the game is over; the table says so after its last state
        self._restoring = False  # finishing a game restored over (``finish_restored``)
        # For each save of a change to the seats or the status not committed yet: what shows it, in order.
        self._unshown: deque[list[Callable[[], None]]] = deque()
        self.closed = False  # dropped from the lobby: its people were told, and hear nothing more of it
        self.series: Series | None = None  # the series played here, its standings kept with the table
        self.hints = False  # the host allows hints (each player's client estimates its cards); not rated

    # --- its parts' state, as the lobby and the tests read it --------------------------------------------
    @property
    def seat_count(self) -> int:
        return self.seating.seat_count

    @property
    def seats(self) -> list[Seat]:
        return self.seating.seats

    @property
    def spectators(self) -> set[Member]:
        return self.seating.spectators

    @property
    def waiting(self) -> list[Member]:
        return self.seating.waiting

    @property
    def host_member(self) -> Member | None:
        return self.seating.host_member

    @host_member.setter
    def host_member(self, member: Member | None) -> None:
        self.seating.host_member = member

    @property
    def host(self) -> str:
        return self.seating.host

    @property
    def bot_level(self) -> str:
        return self.seating.bot_level

    @property
    def replace_bots(self) -> bool:
        return self.seating.replace_bots

    @property
    def status(self) -> wire.TableStatus:
        return self.runner.status

    @property
    def game(self) -> Game | None:
        return self.runner.game

    @property
    def game_no(self) -> int:
        return self.runner.game_no

    @property
    def seed(self) -> int:
        return self.runner.seed

    @property
    def actions(self) -> list[tuple[int, str]]:
        return self.runner.actions

    @property
    def seq_base(self) -> int:
        return self.runner.seq_base

    @property
    def shown(self) -> int:
        return self.runner.shown

    @property
    def last_seq(self) -> int:
        return self.runner.last_seq

    @property
    def moved_at(self) -> float:
        return self.runner.moved_at

    @property
    def deadline(self) -> float | None:
        return self.runner.deadline

    @property
    def paused(self) -> bool:
        return self.runner.paused

    # --- who is here --------------------------------------------------------------------------------
    def members(self) -> list[Member]:
        """Everyone connected at this table: seated players and spectators."""
        return self.seating.members()

    def seat_of(self, member: Member) -> int | None:
        return self.seating.seat_of(member)

    def has_people(self) -> bool:
        return self.seating.has_people()

    def controlled_by_bot(self, seat: int) -> bool:
        return self.seating.controlled_by_bot(seat)

    def level_of(self, seat: int) -> str:
        s = self.seats[seat]
        return s.level if s.kind == "bot" else STAND_IN_LEVEL

    def _info_fields(self) -> dict[str, Any]:
        game = self.game
        return {
            "id": self.id, "name": self.name, "edition": wire.edition_of(self.options), "options": self.options,
            "summary": self.options.summary(), "host": self.host, "status": self.status, "private": self.private,
            "seats": tuple(s.sent() for s in self.seats), "free": self.seating.count("empty"),
            "bots": self.seating.count("bot"), "spectators": len(self.spectators),
            "replace_bots": self.replace_bots, "turn_seconds": self.turn_seconds, "bot_level": self.bot_level,
            "game_no": self.game_no,
            "winner": game.outcome.winner if game is not None and game.outcome is not None else None,
            "name_code": self.name_code,
            "name_params": self.name_params,
            "hints": self.hints,
        }

    def info(self) -> wire.TableInfo:
        """The table as the lobby lists it."""
        return wire.TableInfo(**self._info_fields())

    def detail(self, member: Member) -> wire.TableDetail:
        """The table as one of its members sees it (the invite code only for those at the table)."""
        return wire.TableDetail(**self._info_fields(), code=self.code or None, you=self.seat_of(member),
                                watchers=tuple(sorted(m.name for m in self.spectators)[:64]),
                                waiting=tuple(m.name for m in self.waiting[:64]), series=self.series_info())

    def series_info(self) -> wire.SeriesInfo | None:
        series = self.series
        if series is None:
            return None
        return wire.SeriesInfo(kind=series.kind, target=series.target, played=series.played,
                               places=points_table(self.seat_count),
                               standings=tuple(wire.SeriesStanding(e.name, e.points, e.wins, e.games)
                                               for e in series.standings()),
                               winner=series.winner)

    # --- seating ------------------------------------------------------------------------------------
    def seat_for(self, member: Member, seat: int | None = None) -> int:
        """The seat ``member`` would get by sitting down (``seat`` or the first free one), or the
        error that refuses it. Changes nothing."""
        return self.seating.seat_for(member, seat, playing=self.runner.playing)

    def wait_for_seat(self, member: Member) -> None:
        """A spectator asks for a seat while a game runs: they sit down when the next game starts,
        if a seat is free then (or a bot's, with ``replace_bots``)."""
        self.seating.ask_for_seat(member)
        member.send(wire.Notice(table=self.id, code="waiting_for_seat", params={},
                                text="You will sit down when the next game starts, if a seat is free then."))
        self.changed()

    def _seat_waiting(self) -> None:
        """Seat the spectators waiting for a seat, first come first served, while seats are free."""
        for member in list(self.waiting):
            if member not in self.spectators or member.connection is None:
                self.waiting.remove(member)
                continue
            seat = self.seating.free_seat(member, playing=self.runner.playing)
            if seat is None:
                continue  # a player who left may still find their own seat
            self.waiting.remove(member)
            self.sit(member, seat)
            if not self.runner.playing:
                self.state_when_shown(member)

    def _tell_still_waiting(self) -> None:
        """A game starts with no seat for those waiting: they are told, and so is the host, who can give
        them a seat between games or let late joiners replace bots."""
        if not self.waiting:
            return
        for member in self.waiting:
            member.send(wire.Notice(table=self.id, code="no_seat_free", params={},
                                    text="No seat was free when the game started: you watch it, and sit down "
                                         "at the next game if a seat is free then."))
        host = self.host_member
        if host is not None and host.connection is not None and host not in self.waiting:
            names = ", ".join(m.name for m in self.waiting)
            host.send(wire.Notice(table=self.id, code="seat_wanted", params={"names": names},
                                  text=f"Waiting for a seat: {names}. Between games, give one with the seat menu, "
                                       "or let late joiners replace bots."))

    def give_seat(self, member: Member, seat: int, name: str) -> None:
        """The host gives an empty or a bot's seat to a spectator, between games."""
        target = self.seating.give_seat(member, seat, name, playing=self.runner.playing)
        self.sit(target, seat)
        self.state_when_shown(target)

    def set_options(self, member: Member, replace_bots: bool | None, hints: bool | None = None) -> None:
        self.seating.require_host(member)
        if hints is not None and hints != self.hints:
            self.allow_hints(hints)
        if replace_bots is not None:
            self.seating.replace_bots = replace_bots
            if not self.runner.playing:
                self._seat_waiting()
        self.changed()

    def allow_hints(self, hints: bool) -> None:
        """Hints on or off, between games: a game started with them is not rated, one started without them
        may be; a play-now table is for rated games only."""
        if hints and self.name_code == PLAY_NOW_TABLE:
            raise ProtocolError("rated_table", "a play-now table is rated: hints are for tables of your own",
                                params={"why": "play_now"})
        if self.runner.playing:
            raise ProtocolError("game_running", "hints can be turned on or off between games",
                                params={"why": "hints"})
        self.hints = hints

    def sit(self, member: Member, seat: int | None = None) -> int:
        seat = self.seat_for(member, seat)
        if self.seat_of(member) == seat:
            return seat
        self.seating.take(member, seat)
        member.table = self
        self.changed()
        return seat

    def seat_together(self, members: Sequence[Member]) -> None:
        """Seat the players the server put together at this new table (play now, an arena), each
        leaving the table they were at, as one change that the caller saves (``changed`` or ``start``):
        a crash between two saves must not keep the table with only some of the players it was made
        for, whom their arena already counts as playing there."""
        for member in members:
            if member.table is not None and member.table is not self:
                member.table.leave(member)
            self.seating.take(member, self.seat_for(member))
            member.table = self

    def spectate(self, member: Member) -> None:
        self.seating.watch(member)
        member.table = self
        self.changed()

    def stand(self, member: Member) -> None:
        """Leave the seat but stay to watch."""
        seat = self.seat_of(member)
        if seat is None:
            raise ProtocolError("not_seated", "you are not sitting at this table", params={"why": "stand"})
        self._vacate(seat)
        self.spectators.add(member)
        self.changed()

    def leave(self, member: Member) -> None:
        seat = self.seat_of(member)
        if seat is not None:
            self._vacate(seat)
        self.seating.forget(member)
        self.broadcast.arriving.discard(member)
        if member.table is self:
            member.table = None
        self.seating.pass_host(member)
        self.changed()
        self.lobby.table_emptied_check(self)

    def _vacate(self, seat: int) -> None:
        """A human leaves a seat: a bot plays it during a game, else it is free."""
        if self.seating.vacate(seat, playing=self.runner.playing):
            self._stand_in_begins(seat)
            self.runner.schedule()

    def add_bot(self, member: Member, seat: int | None, level: str | None) -> None:
        self.seating.add_bot(member, seat, level, playing=self.runner.playing)
        self.changed()

    def remove_bot(self, member: Member, seat: int) -> None:
        self.seating.remove_bot(member, seat, playing=self.runner.playing)
        self.changed()

    def kick(self, member: Member, seat: int) -> None:
        target = self.seating.kick_target(member, seat)
        self._vacate(seat)
        if target is not None and target.table is self:
            target.table = None
        self.changed()
        if target is not None:
            removed = target

            def tell() -> None:
                removed.send(wire.Left(table=self.id))
                removed.send(wire.Notice(table=None, code="removed", params={"table": self.name},
                                         text=f"You were removed from the table: {self.name!s}."))

            self.once_shown(tell)
            self.lobby.forget_if_idle(target)

    # --- the game -------------------------------------------------------------------------------------
    def start(self, member: Member | None) -> None:
        if member is not None:
            self.seating.require_host(member)
        if self.runner.playing:
            raise ProtocolError("game_running", "the game is already running", params={"why": "running"})
        self._seat_waiting()
        self._tell_still_waiting()
        self.seating.fill_with_bots()
        self.runner.flush()  # the last game's final moves, if a rematch overtook their saving
        if self.series is not None and self.series.over:
            self.series = self.series.fresh()  # the next series of the same length, from nothing
        self.runner.new_game(secrets.randbits(63))
        self.players = [self._player_of(s) for s in self.seats]
        self.stand_in = [[] for _ in self.seats]
        for i, s in enumerate(self.seats):
            if s.kind == "human" and not s.connected:
                self._stand_in_begins(i)
        self.runner.status = Status.PLAYING
        self.changed(new_game=True)
        self.once_shown(self._begin)  # the deal, once the game's seed is saved

    def _begin(self) -> None:
        if not self.closed:
            self.runner.begin()

    def rematch(self, member: Member) -> None:
        self.seating.require_host(member)
        if self.status != Status.FINISHED:
            raise ProtocolError("game_running" if self.runner.playing else "not_finished",
                                "a rematch can start once the game is over", params={"why": "rematch"})
        self.start(member)

    def start_series(self, member: Member, games: int | None, points: int | None) -> None:
        """The host starts a series of ``games`` games or to ``points`` points (neither: no series any
        more), between games; its first game is the next one started."""
        self.seating.require_host(member)
        check_series(self.private, games, points)
        if self.runner.playing:
            raise ProtocolError("game_running", "a series can start between games", params={"why": "series"})
        self.series = new_series(games, points)
        self.changed()

    def act(self, member: Member, code: str, version: int) -> None:
        seat = self.seat_of(member)
        if seat is None:
            raise ProtocolError("not_seated", "only seated players can play", params={"why": "play"})
        self.runner.act(seat, code, version)

    # the runner's host
    def persist_action(self, n: int, seat: int, code: str, on_saved: Callable[[], None]) -> bool:
        return self.lobby.persist_action(self, n, seat, code, on_saved)

    def show(self, events: Sequence[Event]) -> None:
        self.broadcast.states(events)

    def all_shown(self) -> None:
        if self._after_state:
            waiting, self._after_state = self._after_state, {}
            for rest in waiting.values():
                rest()
        if self._finish_unannounced:  # the game's last state is out: now the table is "finished"
            self._finish_unannounced = False
            self.changed()
            finished, self._after_finish = self._after_finish, []
            for then in finished:
                self.once_shown(then)

    def record(self) -> dict[str, Any]:
        """The record of the table's game (the one played, or the last one finished)."""
        assert self.game is not None
        return game_to_record(self.game, [RecordPlayer(p["name"], p["kind"]) for p in self.players], self.seed)

    def game_over(self) -> None:
        game = self.game
        assert game is not None and game.outcome is not None
        if len(self.players) != self.seat_count:  # a game saved before players were noted
            self.players = [self._player_of(s) for s in self.seats]
        record = self.record()
        results = standin.settle(record, self.players, self.stand_in, standin.record_position(game))
        if self.series is not None and not self.series.over:  # saved with the table, in the game's transaction
            names = self._series_names()
            self.series.count([names[seat] for seat in game.outcome.ranking])
        self.lobby.store_game(self, record, results, restored=self._restoring)  # with the table, "finished"
        self._finish_unannounced = True  # announced once the last state has gone out (it waits for saving)
        if not self.has_people():  # played out after the last person left: the table closes now
            asyncio.get_running_loop().call_soon(self.lobby.table_emptied_check, self)

    def finish_restored(self) -> None:
        """After a restart or a take-over: the restored game is over (its last move was saved, and the
        server stopped before its end was): it ends now as a live game does, recorded and rated once,
        and the table is "finished" for its players when they come back."""
        self._restoring = True
        try:
            self.runner.finish()
        finally:
            self._restoring = False

    def clock_ran_out(self, seat: int, action: Action) -> None:
        game = self.game
        assert game is not None
        edition = self.options.edition
        played = "four ONO 99" if action.kind is ActionKind.DISCARD_FOUR else \
            "a draw" if action.card is None else action.card.label(edition)  # a card's name, not its code
        text = f"{self.seats[seat].name}'s clock ran out: the {STAND_IN_LEVEL} bot played {played} for them"
        log.info("table %d: %s", self.id, text)
        self.notice(text, "clock_ran_out", {"name": self.seats[seat].name, "bot": STAND_IN_LEVEL, "card": action.code,
                                            "edition": edition.value})
        spans = self._spans(seat)
        if spans is not None and not standin.is_open(spans):
            spans.append(standin.one_move_span(game))
            self.lobby.persist_table(self)  # the span is kept across a restart, with the move

    def record_viewers(self) -> list[str]:
        """Who may read the record of the game just finished here if the table is private: its
        players (by identity; a guest seated at the end by their resume token) and the host."""
        people: list[tuple[str | None, str | None]] = [(p["identity"], None) for p in self.players
                                                       if p.get("identity")]
        people += [(s.member.identity, s.member.token_hash) for s in self.seats if s.member is not None]
        if self.host_member is not None:
            people.append((self.host_member.identity, self.host_member.token_hash))
        return [key for identity, token in people for key in viewer_keys(identity, token)]

    def schedule(self) -> None:
        self.runner.schedule()

    def set_paused(self, paused: bool) -> None:
        self.runner.set_paused(paused)

    # --- people coming and going ------------------------------------------------------------------------
    def member_dropped(self, member: Member) -> None:
        self.seating.forget(member)
        seat = self.seat_of(member)
        if seat is not None:
            self.seats[seat].away_seq = self.last_seq
            if self.runner.playing:
                self._stand_in_begins(seat)
        self.changed()
        if self.runner.playing:
            self.runner.schedule()  # a bot stands in while they are away
            if seat is not None:
                self.broadcast.who_plays()

    def member_returned(self, member: Member, seen: dict[str, int] | None = None) -> None:
        """``seen``: what the returning client last saw (its hello's ``seen``)."""
        seen = seen or {}
        here = seen.get("table") == self.id
        seat = self.seat_of(member)
        spans = self._spans(seat) if seat is not None and self.runner.playing else None
        if spans is not None and self.game is not None:
            standin.close_span(spans, self.game)
        away_seq = self.seats[seat].away_seq if seat is not None else None
        if seat is not None:
            self.seats[seat].away_seq = None
        self.changed()
        if self.runner.playing:
            self.runner.schedule()  # before the state: it shows the clock of a player back on turn
        member.send(wire.TableMessage(table=self.detail(member)))
        self.send_state_to(member, seen.get("seq") if here else None)

        def rest() -> None:
            """The chat, and what a stand-in played: after the state, counting only the moves it shows."""
            if member.table is not self:
                return
            history = self.chat.history(seen.get("chat") if here else None)
            member.send(self.lobby.moderation.history_for(member, history))  # moderation: players' mutes
            if seat is not None and away_seq is not None and self.game is not None:
                missed = self.game.log[max(0, away_seq - self.seq_base):self.shown]
                text = away_summary(missed, seat, member.name, self.options.edition)
                if text is not None:
                    member.send(wire.Away(table=self.id, text=text, code="stood_in",
                                          params=away_params(missed, seat, member.name, self.options.edition)))

        if not self.runner.all_moves_shown:
            self._after_state[member] = rest  # its state comes once the moves are saved (send_state_to)
        else:
            rest()
        if self.runner.playing and seat is not None:
            self.broadcast.who_plays(skip=member)

    def grace_expired(self, member: Member) -> None:
        seat = self.seat_of(member)
        if seat is not None:
            self._vacate(seat)
        self.spectators.discard(member)
        self.seating.pass_host(member)
        self.changed()
        self.lobby.table_emptied_check(self)

    @staticmethod
    def _player_of(seat: Seat) -> dict[str, Any]:
        """A seat's player of record: the human's name and identity, or the bot's level."""
        return {"name": seat.name, "kind": "human" if seat.kind == "human" else f"bot:{seat.level}",
                "identity": seat.member.identity if seat.member is not None else None}

    def _series_names(self) -> list[str]:
        """Whom each seat's result in the series counts for: its player at the game's start. A stand-in
        that took over a player's seat in an earlier game (``"NAME (bot)"``) plays for that player,
        unless the player has a seat of their own in this game (they sat down elsewhere): then it
        counts for the stand-in itself. Never two seats for one name."""
        names = [str(p["name"]) for p in self.players]
        taken = {name for name, p in zip(names, self.players, strict=True) if p["kind"] == "human"}
        for seat, player in enumerate(self.players):
            if player["kind"] == "human":
                continue
            owner = names[seat].removesuffix(" (bot)")
            name = owner if owner not in taken else names[seat]
            while name in taken:  # a second stand-in of the same player
                name += f" {seat + 1}"
            names[seat] = name
            taken.add(name)
        return names

    def _spans(self, seat: int) -> list[dict[str, Any]] | None:
        """The stand-in spans of a seat whose player is human in the current game (else None)."""
        if self.game is None or seat >= len(self.stand_in) or seat >= len(self.players) \
                or self.players[seat].get("kind") != "human":
            return None
        return self.stand_in[seat]

    def stand_ins_for_the_away(self) -> None:
        """After a restart: a bot plays at once for every human seat whose player is away, and the
        game notes it (a stand-in span)."""
        for i, seat in enumerate(self.seats):
            if seat.kind == "human" and not seat.connected:
                self._stand_in_begins(i)
        self.runner.schedule()

    def _stand_in_begins(self, seat: int) -> None:
        spans = self._spans(seat)
        if spans is not None and self.game is not None:
            standin.open_span(spans, self.game)

    # --- messages ---------------------------------------------------------------------------------------
    def changed(self, new_game: bool = False) -> None:
        """Seats or status changed (``new_game``: a game starts): saved, then the table and the lobby are
        told, the table as it was at the change. A seat or a game anybody saw is never lost by a crash,
        as a move is not (the runner); changes are shown in the order they were made."""
        show = self.broadcast.tables(self.detail, closed=lambda: self.closed)
        if self.lobby.persist_table(self, new_game, self._change_saved):
            self._unshown.append([show, self.lobby.tables_changed])
        else:  # nothing to wait for (no database, or the table is closed) but the changes before it
            self.once_shown(show)
            self.once_shown(self.lobby.tables_changed)

    def _change_saved(self) -> None:
        for then in self._unshown.popleft():
            then()

    def arriving(self, member: Member) -> None:
        """``member`` came to the table and is welcomed once their seat is saved (``welcome``): until then
        they are told nothing more of it (what is shown meanwhile comes in their welcome)."""
        if self._unshown:
            self.broadcast.arriving.add(member)

    def welcomed(self, member: Member) -> None:
        self.broadcast.arriving.discard(member)

    def once_finish_shown(self, then: Callable[[], None]) -> None:
        """``then`` once the game that just ended has been shown over: its last state, then the table
        "finished" (call it from ``game_over``)."""
        self._after_finish.append(then)

    def once_shown(self, then: Callable[[], None]) -> None:
        """``then`` (what tells someone of a change to the table) once the table's changes made so far
        are saved and shown: at once if none waits."""
        if self._unshown:
            self._unshown[-1].append(then)
        else:
            then()

    def say(self, member: Member, text: str) -> None:
        """A chat line: numbered, saved, then shown to everyone at the table."""
        line = self.chat.add(member.name, text)

        def show() -> None:
            hearers = self.lobby.moderation.hearers(member, self.members())  # not those who muted the speaker
            # a member whose chat_history is still to come (after its state) gets the line in it
            self.broadcast.everyone(self.chat.message(line), to=hearers, but=self._after_state)

        self.lobby.persist_chat(self.id, line, show)

    def notice(self, text: str, code: str, params: dict[str, str | int]) -> None:
        self.broadcast.notice(text, code, params)

    def send_state_to(self, member: Member, seen_seq: int | None = None) -> None:
        self.broadcast.send_state_to(member, seen_seq)

    def state_when_shown(self, member: Member) -> None:
        """The game as ``member`` sees it, after what they saw, once the table's changes are shown."""
        self.once_shown(lambda: self.send_state_to(member, self.last_seq) if member.table is self else None)

    def close(self) -> None:
        self.closed = True
        self.runner.close()

    # --- persistence --------------------------------------------------------------------------------------
    def to_meta(self) -> dict[str, Any]:
        return {
            "name": self.name, "edition": self.options.edition.value, "options": self.options.to_mapping(),
            "seat_count": self.seat_count, "host": self.host,
            "host_identity": self.host_member.identity if self.host_member is not None else None,
            "host_token": self.host_member.token_hash if self.host_member is not None else None,
            "private": self.private, "code": self.code,
            "turn_seconds": self.turn_seconds, "bot_level": self.bot_level, "status": self.status,
            "replace_bots": self.replace_bots, "hints": self.hints,
            "game_no": self.game_no, "seed": self.seed, "seq_base": self.seq_base,
            "seats": [{"kind": s.kind, "name": s.name, "level": s.level, "away_seq": s.away_seq,
                       "token": s.member.token_hash if s.member is not None else None,
                       "identity": s.member.identity if s.member is not None else None} for s in self.seats],
            "players": self.players, "stand_in": self.stand_in,
            "name_code": self.name_code, "name_params": self.name_params,
            "series": self.series.to_mapping() if self.series is not None else None,
        }
