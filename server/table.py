"""A table: its seats, the game on it, bots and clocks, spectators and chat.

The table is authoritative: only the seat on turn may play, every action is checked by the rules
engine, and each recipient is sent only its own view with the events redacted for it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ono99_tui.bots import SEARCHING_LEVELS
from ono99_tui.bots.players import get_bot
from ono99_tui.core.actions import Action, ActionKind
from ono99_tui.core.errors import IllegalActionError, MalformedActionError
from ono99_tui.core.events import Event
from ono99_tui.core.game import Game
from ono99_tui.core.options import TableOptions
from ono99_tui.core.record import Player as RecordPlayer
from ono99_tui.core.record import game_to_record
from ono99_tui.core.view import TableView
from ono99_tui.protocol import ProtocolError, clean_text, encode, event_to_wire, view_to_wire

from . import standin
from .history import ChatRoom, away_params, away_summary, history_messages
from .storage import viewer_keys

if TYPE_CHECKING:
    from .lobby import Lobby, Member

log = logging.getLogger("ono99.table")

STAND_IN_LEVEL = "greedy"  # plays for dropped players and timed-out turns
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


class Status:
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"


@dataclass(slots=True)
class Seat:
    kind: str = "empty"  # "empty", "human" or "bot"
    name: str = ""
    level: str = ""  # bot level, for bots
    member: Member | None = None  # the human sitting here
    away_seq: int | None = None  # a human away: the table's seq when they left (a bot plays since)

    @property
    def connected(self) -> bool:
        return self.member is not None and self.member.connection is not None

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "level": self.level or None,
                "connected": self.connected if self.kind == "human" else None}


@dataclass(slots=True)
class Table:
    lobby: Lobby
    id: int
    name: str
    options: TableOptions
    seat_count: int
    host_member: Member | None  # who hosts: the player (key or guest), whatever name they go by
    private: bool = False
    code: str = ""
    turn_seconds: int = 0
    bot_level: str = "greedy"
    status: str = Status.WAITING
    seats: list[Seat] = field(default_factory=list)
    spectators: set[Member] = field(default_factory=set)
    waiting: list[Member] = field(default_factory=list)  # spectators who asked for a seat at the next game
    replace_bots: bool = False  # those waiting take bots' seats when no seat is empty
    game: Game | None = None
    game_no: int = 0
    seed: int = 0
    actions: list[tuple[int, str]] = field(default_factory=list)
    chat_room: ChatRoom | None = None
    seq_base: int = 0  # the seq of the event before the current game's first (see server/history.py)
    shown: int = 0  # events of the current game's log shown to the table so far
    moved_at: float = 0.0  # loop time the table last showed a move (its watchers are not idle)
    deadline: float | None = None  # monotonic time the seat on turn must act by
    _timer: asyncio.TimerHandle | None = None
    _clock_of: tuple[int, int, float] | None = None  # (turn, game version, deadline) of the turn's clock
    _clock_running: bool = False  # _timer is that clock
    _thinking: asyncio.Task[None] | None = None  # a searching bot's decision, computed off the loop
    _unsent_events: list[Event] = field(default_factory=list)  # applied, waiting to be saved before shown
    _unsaved_actions: int = 0  # actions handed to the database and not yet saved
    _finish_unannounced: bool = False  # the game is over; the table says so after its last state
    # Returning players whose state waits for moves to be saved: their chat_history and away come after it.
    _after_state: dict[Member, Callable[[], None]] = field(default_factory=dict)
    bot_rng: random.Random = field(default_factory=random.Random)
    # The current game's player of each seat, as at its start ({name, kind, identity}), and the
    # spans of it that a stand-in played for each seat (server/standin.py).
    players: list[dict[str, Any]] = field(default_factory=list)
    stand_in: list[list[dict[str, Any]]] = field(default_factory=list)
    paused: bool = False  # no bot moves while set (a local game with a dialog open)
    # a name the server gave (``protocol.TABLE_NAMES``), which each client says in its player's language
    name_code: str | None = None
    name_params: dict[str, str | int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [Seat() for _ in range(self.seat_count)]
        if self.private and not self.code:
            self.code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
        self.chat_room = ChatRoom(self.lobby.config.chat_history, "table", self.id)

    @property
    def chat(self) -> ChatRoom:
        assert self.chat_room is not None
        return self.chat_room

    @property
    def host(self) -> str:
        """The host's name as it is now (``""`` when nobody hosts)."""
        return self.host_member.name if self.host_member is not None else ""

    @property
    def last_seq(self) -> int:
        """The seq of the last event shown at this table."""
        return self.seq_base + self.shown

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

    def info(self) -> dict[str, Any]:
        """The table as the lobby lists it."""
        game = self.game
        return {
            "id": self.id,
            "name": self.name,
            "edition": self.options.edition.value,
            "options": self.options.to_mapping(),
            "summary": self.options.summary(),
            "host": self.host,
            "status": self.status,
            "private": self.private,
            "seats": [s.to_wire() for s in self.seats],
            "free": sum(1 for s in self.seats if s.kind == "empty"),
            "bots": sum(1 for s in self.seats if s.kind == "bot"),
            "spectators": len(self.spectators),
            "replace_bots": self.replace_bots,
            "turn_seconds": self.turn_seconds,
            "bot_level": self.bot_level,
            "game_no": self.game_no,
            "winner": game.outcome.winner if game is not None and game.outcome is not None else None,
            "name_code": self.name_code,
            "name_params": self.name_params,
        }

    def detail(self, member: Member) -> dict[str, Any]:
        """The table as one of its members sees it (the invite code only for those at the table)."""
        data = self.info()
        data["code"] = self.code or None
        data["you"] = self.seat_of(member)
        data["watchers"] = sorted(m.name for m in self.spectators)[:64]
        data["waiting"] = [m.name for m in self.waiting][:64]
        return data

    # --- seating ------------------------------------------------------------------------------------
    def seat_for(self, member: Member, seat: int | None = None) -> int:
        """The seat ``member`` would get by sitting down (``seat`` or the first free one), or the
        error that refuses it. Changes nothing."""
        current = self.seat_of(member)
        if self.status == Status.PLAYING and current is None:
            raise ProtocolError("game_running", "the game has started; spectate it or wait for the rematch",
                                params={"why": "started"})
        if seat is None:
            if current is not None:
                return current
            seat = self._free_seat(member)
            if seat is None:
                raise ProtocolError("table_full", "every seat is taken; you can spectate", params={"why": "spectate"})
        if not 0 <= seat < self.seat_count:
            raise ProtocolError("bad_seat", f"this table has seats 0 to {self.seat_count - 1}",
                                params={"why": "range", "last": self.seat_count - 1})
        if current == seat:
            return seat
        if self.seats[seat].kind != "empty" and not (self.replace_bots and self.seats[seat].kind == "bot") \
                and not (seat == self._own_stand_in(member) and self.status != Status.PLAYING):
            raise ProtocolError("seat_taken", f"seat {seat} is taken", params={"seat": seat})
        if current is not None and self.status == Status.PLAYING:
            raise ProtocolError("game_running", "you cannot change seats during a game", params={"why": "change_seats"})
        return seat

    def _own_stand_in(self, member: Member) -> int | None:
        """The seat a bot took over when ``member`` left it during a game: theirs again between games."""
        name = f"{member.name} (bot)"
        return next((i for i, s in enumerate(self.seats) if s.kind == "bot" and s.name == name), None)

    def _free_seat(self, member: Member | None = None) -> int | None:
        """The seat a newcomer gets between games: the first empty one, else the seat a bot took over
        when ``member`` left, else (``replace_bots``) a bot's: one standing in for a player who left
        first, then the last added bot."""
        seat = next((i for i, s in enumerate(self.seats) if s.kind == "empty"), None)
        if seat is None and member is not None and self.status != Status.PLAYING:
            seat = self._own_stand_in(member)
        if seat is None and self.replace_bots and self.status != Status.PLAYING:
            bots = [i for i, s in enumerate(self.seats) if s.kind == "bot"]
            stand_ins = [i for i in bots if self.seats[i].name.endswith(" (bot)")]
            seat = (stand_ins or bots[::-1])[0] if bots else None
        return seat

    def wait_for_seat(self, member: Member) -> None:
        """A spectator asks for a seat while a game runs: they sit down when the next game starts,
        if a seat is free then (or a bot's, with ``replace_bots``)."""
        if member not in self.spectators:
            raise ProtocolError("not_watching", "only a spectator of this table can wait for a seat",
                                params={"why": "wait"})
        if member not in self.waiting:
            self.waiting.append(member)
        member.send({"t": "notice", "table": self.id, "code": "waiting_for_seat", "params": {},
                     "text": "You will sit down when the next game starts, if a seat is free then."})
        self.changed()

    def _seat_waiting(self) -> None:
        """Seat the spectators waiting for a seat, first come first served, while seats are free."""
        for member in list(self.waiting):
            if member not in self.spectators or member.connection is None:
                self.waiting.remove(member)
                continue
            seat = self._free_seat(member)
            if seat is None:
                continue  # a player who left may still find their own seat
            self.waiting.remove(member)
            self.sit(member, seat)
            if self.status != Status.PLAYING:
                self.send_state_to(member, self.last_seq)

    def _tell_still_waiting(self) -> None:
        """A game starts with no seat for those waiting: they are told, and so is the host, who can give
        them a seat between games or let late joiners replace bots."""
        if not self.waiting:
            return
        for member in self.waiting:
            member.send({"t": "notice", "table": self.id, "code": "no_seat_free", "params": {},
                         "text": "No seat was free when the game started: you watch it, and sit down at the "
                                 "next game if a seat is free then."})
        host = self.host_member
        if host is not None and host.connection is not None and host not in self.waiting:
            names = ", ".join(m.name for m in self.waiting)
            host.send({"t": "notice", "table": self.id, "code": "seat_wanted",
                       "params": {"names": names},
                       "text": f"Waiting for a seat: {names}. Between games, give one with the seat menu, "
                               "or let late joiners replace bots."})

    def give_seat(self, member: Member, seat: int, name: str) -> None:
        """The host gives an empty or a bot's seat to a spectator, between games."""
        self._require_host(member)
        if self.status == Status.PLAYING:
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
        self.sit(target, seat)
        self.send_state_to(target, self.last_seq)

    def set_options(self, member: Member, replace_bots: bool | None) -> None:
        self._require_host(member)
        if replace_bots is not None:
            self.replace_bots = replace_bots
            if self.status != Status.PLAYING:
                self._seat_waiting()
        self.changed()

    def sit(self, member: Member, seat: int | None = None) -> int:
        seat = self.seat_for(member, seat)
        current = self.seat_of(member)
        if current == seat:
            return seat
        if current is not None:
            self.seats[current] = Seat()
        self.seats[seat] = Seat("human", member.name, member=member)
        self._host_if_nobody_does(member)
        self.spectators.discard(member)
        if member in self.waiting:
            self.waiting.remove(member)
        member.table = self
        self.changed()
        return seat

    def spectate(self, member: Member) -> None:
        self._host_if_nobody_does(member)
        self.spectators.add(member)
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
        self.spectators.discard(member)
        if member in self.waiting:
            self.waiting.remove(member)
        if member.table is self:
            member.table = None
        self._pass_host(member)
        self.changed()
        self.lobby.table_emptied_check(self)

    def _vacate(self, seat: int) -> None:
        """A human leaves a seat: a bot takes it for good during a game, else it is free."""
        old = self.seats[seat]
        if self.status == Status.PLAYING:
            self.seats[seat] = Seat("bot", f"{old.name} (bot)", STAND_IN_LEVEL)
            self._stand_in_begins(seat)
            self.schedule()
        else:
            self.seats[seat] = Seat()

    def _pass_host(self, leaving: Member) -> None:
        if self.host_member is leaving:
            self.host_member = self._heir()

    def _heir(self) -> Member | None:
        """Who hosts next: the first seated human, else a spectator, else nobody."""
        heir = next((s.member for s in self.seats if s.kind == "human" and s.member is not None), None)
        return heir if heir is not None else next(iter(self.spectators), None)

    def _host_if_nobody_does(self, member: Member) -> None:
        """A table nobody hosts (restored without its host) is hosted by whoever comes first."""
        if self.host_member is None:
            self.host_member = member

    def add_bot(self, member: Member, seat: int | None, level: str | None) -> None:
        self._require_host(member)
        if self.status == Status.PLAYING:
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
        level = level or self.bot_level
        self.seats[seat] = Seat("bot", f"Bot {seat + 1}", level)
        self.changed()

    def remove_bot(self, member: Member, seat: int) -> None:
        self._require_host(member)
        if self.status == Status.PLAYING:
            raise ProtocolError("game_running", "bots can be removed between games", params={"why": "remove_bot"})
        if not 0 <= seat < self.seat_count or self.seats[seat].kind != "bot":
            raise ProtocolError("bad_seat", f"there is no bot in seat {seat}", params={"why": "no_bot", "seat": seat})
        self.seats[seat] = Seat()
        self.changed()

    def kick(self, member: Member, seat: int) -> None:
        self._require_host(member)
        if not 0 <= seat < self.seat_count or self.seats[seat].kind != "human":
            raise ProtocolError("bad_seat", f"there is no player in seat {seat}",
                                params={"why": "no_player", "seat": seat})
        target = self.seats[seat].member
        if target is member:
            raise ProtocolError("bad_seat", "you cannot kick yourself; leave instead", params={"why": "self"})
        self._vacate(seat)
        if target is not None:
            if target.table is self:
                target.table = None
            target.send({"t": "left", "table": self.id})
            target.send({"t": "notice", "table": None, "code": "removed", "params": {"table": self.name},
                         "text": f"You were removed from table {self.name!s}."})
            self.lobby.forget_if_idle(target)
        self.changed()

    def _require_host(self, member: Member) -> None:
        if member is not self.host_member:
            raise ProtocolError("not_host", f"only the table's host ({self.host}) can do that",
                                params={"host": self.host})

    # --- the game -------------------------------------------------------------------------------------
    def start(self, member: Member | None) -> None:
        if member is not None:
            self._require_host(member)
        if self.status == Status.PLAYING:
            raise ProtocolError("game_running", "the game is already running", params={"why": "running"})
        self._seat_waiting()
        self._tell_still_waiting()
        for i, seat in enumerate(self.seats):
            if seat.kind == "empty":
                self.seats[i] = Seat("bot", f"Bot {i + 1}", self.bot_level)
        self._send_unsent_events()  # the last game's final moves, if a rematch overtook their saving
        self.game_no += 1
        self.seq_base, self.shown = self.last_seq, 0
        self.seed = secrets.randbits(63)
        self.actions = []
        self.game = Game(self.options, self.seat_count, random.Random(self.seed))
        self._clock_of = None
        self.bot_rng = random.Random(self.seed ^ 0x5EED)
        self.players = [self._player_of(s) for s in self.seats]
        self.stand_in = [[] for _ in self.seats]
        for i, s in enumerate(self.seats):
            if s.kind == "human" and not s.connected:
                self._stand_in_begins(i)
        self.status = Status.PLAYING
        self.lobby.persist_table(self, new_game=True)
        self.changed()
        self.schedule()
        self._broadcast_state(self.game.log)

    def rematch(self, member: Member) -> None:
        self._require_host(member)
        if self.status != Status.FINISHED:
            raise ProtocolError("game_running" if self.status == Status.PLAYING else "not_finished",
                                "a rematch can start once the game is over", params={"why": "rematch"})
        self.start(member)

    def act(self, member: Member, code: str, version: int) -> None:
        game = self.game
        seat = self.seat_of(member)
        if seat is None:
            raise ProtocolError("not_seated", "only seated players can play", params={"why": "play"})
        if game is None or self.status != Status.PLAYING:
            raise ProtocolError("no_game", "no game is running at this table")
        if version != game.version:
            raise ProtocolError("stale_action",
                                f"that action was for state {version}, the table is at {game.version}; "
                                "it was not applied", params={"version": version, "current": game.version})
        try:
            action = Action.parse(code)
            self._apply(seat, action)
        except MalformedActionError as exc:
            raise ProtocolError("bad_action", str(exc), params={"action": clean_text(code)}) from None
        except IllegalActionError as exc:
            raise ProtocolError("illegal_action", str(exc), params={"why": exc.why, **exc.params}) from None

    def _apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        game = self.game
        assert game is not None
        events = game.apply(seat, action)
        self.actions.append((seat, action.code))
        self._unsent_events.extend(events)
        saving = self.lobby.persist_action(self, len(self.actions) - 1, seat, action.code, self._action_saved)
        if saving:
            self._unsaved_actions += 1
        if game.is_over:
            self._finish()
        else:
            self.schedule()  # first, so the state carries the new turn's clock
        if not saving:
            self._send_unsent_events()
        return events

    def _action_saved(self) -> None:
        # A move is shown only once it is saved: a server killed at any moment restarts with every
        # move its players saw. Moves made meanwhile (bots at delay 0) go out together.
        self._unsaved_actions -= 1
        if self._unsaved_actions == 0:
            self._send_unsent_events()

    def _send_unsent_events(self) -> None:
        if self._unsent_events and self.game is not None:
            events, self._unsent_events = self._unsent_events, []
            self._broadcast_state(events)
        if self._after_state:
            waiting, self._after_state = self._after_state, {}
            for rest in waiting.values():
                rest()
        if self._finish_unannounced:  # the game's last state is out: now the table is "finished"
            self._finish_unannounced = False
            self.changed()

    def _finish(self) -> None:
        game = self.game
        assert game is not None and game.outcome is not None
        self.status = Status.FINISHED
        self._cancel_timer()
        self.deadline = None
        if len(self.players) != self.seat_count:  # a game saved before players were noted
            self.players = [self._player_of(s) for s in self.seats]
        players = [RecordPlayer(p["name"], p["kind"]) for p in self.players]
        record = game_to_record(game, players, self.seed)
        results = standin.settle(record, self.players, self.stand_in, standin.record_position(game))
        self.lobby.store_game(self, record, results)
        self.lobby.persist_table(self)
        self._finish_unannounced = True  # announced once the last state has gone out (it waits for saving)
        if not self.has_people():  # played out after the last person left: the table closes now
            asyncio.get_running_loop().call_soon(self.lobby.table_emptied_check, self)

    def record_viewers(self) -> list[str]:
        """Who may read the record of the game just finished here if the table is private: its
        players (by identity; a guest seated at the end by their resume token) and the host."""
        people: list[tuple[str | None, str | None]] = [(p["identity"], None) for p in self.players
                                                       if p.get("identity")]
        people += [(s.member.identity, s.member.token_hash) for s in self.seats if s.member is not None]
        if self.host_member is not None:
            people.append((self.host_member.identity, self.host_member.token_hash))
        return [key for identity, token in people for key in viewer_keys(identity, token)]

    # --- bots and clocks --------------------------------------------------------------------------------
    def controlled_by_bot(self, seat: int) -> bool:
        s = self.seats[seat]
        if s.kind == "bot":
            return True
        return s.kind == "human" and not s.connected

    def schedule(self) -> None:
        """Arrange the next move that is not up to a connected person: a bot's, or a clock. A turn's
        clock runs on across reconnects and seat changes: only a new move starts a fresh one."""
        game = self.game
        if game is None or self.status != Status.PLAYING or game.is_over or self.paused:
            self._cancel_timer()
            self.deadline = None
            if self.paused:
                self._clock_of = None  # a paused local game's turn gets its whole time back
            return
        loop = asyncio.get_running_loop()
        config = self.lobby.config
        turn = game.turn
        if self._clock_of is not None and self._clock_of[:2] != (turn, game.version):
            self._clock_of = None  # a move was made: the next turn's clock starts afresh
        if (self._clock_running and self._clock_of is not None and self.deadline is not None
                and not any(self.controlled_by_bot(seat) for seat in game.actors())):
            return  # this turn's clock runs on
        self._cancel_timer()
        for seat in game.actors():
            if self.controlled_by_bot(seat):
                delay = config.bot_delay if seat == turn else 0.0  # owed draws are taken at once
                draw_open = seat == turn and config.draw_window > delay and any(
                    game.has_open_draw(s) and not self.controlled_by_bot(s) for s in range(self.seat_count))
                if draw_open:
                    delay = config.draw_window  # a person's open draw gets time to be taken
                self._timer = loop.call_later(delay, self._bot_move, seat, game.version)
                # the state's clock says when the bot plays: the person sees how long the draw stays open
                self.deadline = loop.time() + delay if draw_open else None
                return
        if self.turn_seconds > 0 and turn is not None:
            if self._clock_of is None:
                self._clock_of = (turn, game.version, loop.time() + self.turn_seconds)
            self.deadline = self._clock_of[2]  # the time left when a player on turn came back, not a fresh clock
            self._timer = loop.call_later(max(0.0, self.deadline - loop.time()), self._clock_ran_out, turn,
                                          game.version)
            self._clock_running = True
        else:
            self.deadline = None

    def set_paused(self, paused: bool) -> None:
        """Hold the bots (a local game's dialog covers the table) or let them play on. A draw
        window that was counting down is said again: none while they wait, a whole one after."""
        if self.paused == paused:
            return
        counting = self.deadline is not None
        self.paused = paused
        self.schedule()
        game = self.game
        if (counting or self.deadline is not None) and game is not None and self.shown == len(game.log):
            self._broadcast_state(())

    def _cancel_timer(self) -> None:
        self._clock_running = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _bot_move(self, seat: int, version: int) -> None:
        self._timer = None
        game = self.game
        if game is None or game.version != version or game.is_over:
            return
        s = self.seats[seat]
        level = s.level if s.kind == "bot" else STAND_IN_LEVEL
        view = game.seat_view(seat)
        if level in SEARCHING_LEVELS:  # tens of milliseconds of search: think off the event loop
            task = asyncio.get_running_loop().create_task(self._think_off_loop(seat, version, level, view))
            self._thinking = task
            return
        try:
            self._apply(seat, get_bot(level).choose(view, self.bot_rng))
        except Exception:  # a bot must never take the table down
            log.exception("table %d: bot move for seat %d failed", self.id, seat)

    async def _think_off_loop(self, seat: int, version: int, level: str, view: TableView) -> None:
        try:
            action = await asyncio.get_running_loop().run_in_executor(
                None, get_bot(level).choose, view, random.Random(self.bot_rng.getrandbits(64)))
            game = self.game
            if game is not None and game.version == version and not game.is_over:  # nothing moved meanwhile
                self._apply(seat, action)
        except Exception:  # a bot must never take the table down
            log.exception("table %d: bot move for seat %d failed", self.id, seat)

    def _clock_ran_out(self, seat: int, version: int) -> None:
        self._timer = None
        self._clock_running = False
        game = self.game
        if game is None or game.version != version or game.is_over or game.turn != seat:
            return
        action = get_bot(STAND_IN_LEVEL).choose(game.seat_view(seat), self.bot_rng)
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
        self._apply(seat, action)

    # --- people coming and going ------------------------------------------------------------------------
    def member_dropped(self, member: Member) -> None:
        self.spectators.discard(member)
        if member in self.waiting:
            self.waiting.remove(member)
        seat = self.seat_of(member)
        if seat is not None:
            self.seats[seat].away_seq = self.last_seq
            if self.status == Status.PLAYING:
                self._stand_in_begins(seat)
        self.changed()
        if self.status == Status.PLAYING:
            self.schedule()  # a bot stands in while they are away
            if seat is not None:
                self._show_who_plays()

    def member_returned(self, member: Member, seen: dict[str, int] | None = None) -> None:
        """``seen``: what the returning client last saw (its hello's ``seen``)."""
        seen = seen or {}
        here = seen.get("table") == self.id
        seat = self.seat_of(member)
        spans = self._spans(seat) if seat is not None and self.status == Status.PLAYING else None
        if spans is not None and self.game is not None:
            standin.close_span(spans, self.game)
        away_seq = self.seats[seat].away_seq if seat is not None else None
        if seat is not None:
            self.seats[seat].away_seq = None
        self.changed()
        if self.status == Status.PLAYING:
            self.schedule()  # before the state: it shows the clock of a player back on turn
        member.send({"t": "table", "table": self.detail(member)})
        self.send_state_to(member, seen.get("seq") if here else None)

        def rest() -> None:
            """The chat, and what a stand-in played: after the state, counting only the moves it shows."""
            if member.table is not self:
                return
            member.send(self.chat.history(seen.get("chat") if here else None))
            if seat is not None and away_seq is not None and self.game is not None:
                missed = self.game.log[max(0, away_seq - self.seq_base):self.shown]
                text = away_summary(missed, seat, member.name, self.options.edition)
                if text is not None:
                    member.send({"t": "away", "table": self.id, "text": text, "code": "stood_in",
                                 "params": away_params(missed, seat, member.name,
                                                                     self.options.edition)})

        if self.game is not None and self.shown != len(self.game.log):
            self._after_state[member] = rest  # its state comes once the moves are saved (send_state_to)
        else:
            rest()
        if self.status == Status.PLAYING and seat is not None:
            self._show_who_plays(skip=member)

    def grace_expired(self, member: Member) -> None:
        seat = self.seat_of(member)
        if seat is not None:
            self._vacate(seat)
        self.spectators.discard(member)
        self._pass_host(member)
        self.changed()
        self.lobby.table_emptied_check(self)

    @staticmethod
    def _player_of(seat: Seat) -> dict[str, Any]:
        """A seat's player of record: the human's name and identity, or the bot's level."""
        return {"name": seat.name, "kind": "human" if seat.kind == "human" else f"bot:{seat.level}",
                "identity": seat.member.identity if seat.member is not None else None}

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
        self.schedule()

    def _stand_in_begins(self, seat: int) -> None:
        spans = self._spans(seat)
        if spans is not None and self.game is not None:
            standin.open_span(spans, self.game)

    # --- messages ---------------------------------------------------------------------------------------
    def changed(self) -> None:
        """Seats or status changed: tell the table and the lobby."""
        for member in self.members():
            member.send({"t": "table", "table": self.detail(member)})
        self.lobby.tables_changed()
        self.lobby.persist_table(self)

    def say(self, member: Member, text: str) -> None:
        """A chat line: numbered, saved, then shown to everyone at the table."""
        line = self.chat.add(member.name, text)

        def show() -> None:
            frame = encode(self.chat.message(line))
            for m in self.members():
                if m not in self._after_state:  # its chat_history, still to come, will hold the line
                    m.send_frame(frame)

        self.lobby.persist_chat(self.id, line, show)

    def notice(self, text: str, code: str, params: dict[str, str | int]) -> None:
        frame = encode({"t": "notice", "table": self.id, "text": text, "code": code, "params": params})
        for m in self.members():
            m.send_frame(frame)

    def _clock_left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def state_message(self, seat: int | None, events: Sequence[Event],
                      shared: tuple[float | None, list[bool]] | None = None) -> dict[str, Any]:
        """``seat``'s state message; ``shared`` is ``_state_shared()`` when a broadcast built it once.
        ``events`` are the last shown: the last of them has seq ``last_seq``."""
        game = self.game
        assert game is not None
        clock, bots = shared if shared is not None else self._state_shared()
        return {
            "t": "state",
            "table": self.id,
            "game_no": self.game_no,
            "view": view_to_wire(game.view(seat)),
            "events": [event_to_wire(e.seen_by(seat)) for e in events],
            "seq": self.last_seq,
            "clock": clock,
            "controlled_by_bot": list(bots),
        }

    def _state_shared(self) -> tuple[float | None, list[bool]]:
        """The parts of a state message that are the same for every recipient."""
        return self._clock_left(), [self.controlled_by_bot(i) for i in range(self.seat_count)]

    def send_state_to(self, member: Member, seen_seq: int | None = None) -> None:
        """The game as ``member`` sees it now: the events of this game it has not seen (after
        ``seen_seq``; all of them, starting its log over, when None or from an earlier game) in
        ``history`` messages, then a ``state`` with no events. While moves wait to be saved, the
        state is the one that shows them (a view never runs ahead of the events sent)."""
        game = self.game
        if game is None:
            return
        seat = self.seat_of(member)
        reset = seen_seq is None or not self.seq_base <= seen_seq <= self.last_seq
        start = 0 if reset or seen_seq is None else seen_seq - self.seq_base
        for message in history_messages(self.id, self.game_no, game.log[start:self.shown],
                                        self.seq_base + start + 1, seat, reset):
            member.send(message)
        if self.shown != len(game.log):
            return  # moves wait to be saved: the state that shows them comes with them, to everyone here
        member.send(self.state_message(seat, []))

    def _show_who_plays(self, skip: Member | None = None) -> None:
        """A state with no events to everyone at the table but ``skip``, when a player went away or came
        back: its ``controlled_by_bot`` says at once who a bot plays for, not only after the next move.
        Not while a move waits to be shown (its state goes out then)."""
        game = self.game
        if game is None or self.shown != len(game.log):
            return
        shared = self._state_shared()
        for seat_index, seat in enumerate(self.seats):
            if seat.connected and seat.member is not skip:
                assert seat.member is not None
                seat.member.send(self.state_message(seat_index, [], shared))
        watching = [m for m in self.spectators if m.connection is not None and m is not skip]
        if watching:
            frame = encode(self.state_message(None, [], shared))
            for member in watching:
                member.send_frame(frame)

    def _broadcast_state(self, events: Sequence[Event]) -> None:
        """Show ``events``, the newest of the current game's log, to the table."""
        assert self.game is not None
        self.shown = len(self.game.log)
        self.moved_at = asyncio.get_running_loop().time()
        spectator_frame: bytes | None = None
        shared = self._state_shared()
        for seat_index, seat in enumerate(self.seats):
            if seat.connected:
                assert seat.member is not None
                seat.member.send(self.state_message(seat_index, events, shared))
        for member in self.spectators:
            if member.connection is None:
                continue
            if spectator_frame is None:
                spectator_frame = encode(self.state_message(None, events, shared))
            member.send_frame(spectator_frame)

    def close(self) -> None:
        self._cancel_timer()
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None

    # --- persistence --------------------------------------------------------------------------------------
    def to_meta(self) -> dict[str, Any]:
        return {
            "name": self.name, "edition": self.options.edition.value, "options": self.options.to_mapping(),
            "seat_count": self.seat_count, "host": self.host,
            "host_identity": self.host_member.identity if self.host_member is not None else None,
            "host_token": self.host_member.token_hash if self.host_member is not None else None,
            "private": self.private, "code": self.code,
            "turn_seconds": self.turn_seconds, "bot_level": self.bot_level, "status": self.status,
            "replace_bots": self.replace_bots,
            "game_no": self.game_no, "seed": self.seed, "seq_base": self.seq_base,
            "seats": [{"kind": s.kind, "name": s.name, "level": s.level, "away_seq": s.away_seq,
                       "token": s.member.token_hash if s.member is not None else None,
                       "identity": s.member.identity if s.member is not None else None} for s in self.seats],
            "players": self.players, "stand_in": self.stand_in,
            "name_code": self.name_code, "name_params": self.name_params,
        }
