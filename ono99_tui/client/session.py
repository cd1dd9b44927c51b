"""The client session: every reaction of a client to what the server sends, decided once, without I/O.

``ClientSession.receive`` takes a decoded server message (``ono99_kernel.wire.server``), takes it into the
``Model`` and returns a ``Reaction``: the requests to send (``ono99_kernel.wire.requests``) and the effects
for the face to show (a screen, a question, a refusal, the end of the session). ``connect_failed`` and
``link_lost`` say what to do when a connection cannot be made or ends: ask for another name, ask whether
to trust a server met for the first time, try again after a wait, or give up. The faces (the app, the
plain mode, the SSH and web fronts) carry out the reaction: they send, draw and read keys, and decide
nothing about what the server said.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ono99_kernel.core.words import N_
from ono99_kernel.protocol import BYE_SENT_ON, BYE_TABLE_MOVED
from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import (
    CreateArena,
    CreateTable,
    Join,
    JoinArena,
    Leave,
    PlayNow,
    Request,
    Sit,
    Spectate,
)
from ono99_kernel.wire.server import (
    ArenaMessage,
    Bye,
    ErrorMessage,
    Left,
    ServerMessage,
    TableDetail,
    TableMessage,
    Welcome,
)

from ..known_servers import AnnouncementMismatch, ServerKeyChanged, UnknownServer
from .errors import ConnectionLost, ServerError
from .model import REPLACED, SHUTTING_DOWN, Model

NAME_ERRORS = ("name_taken", "bad_name")  # a hello refused for its name: another name may do
LOCAL_GAME = N_("Local game")  # the local table's name (the faces say it in the player's language)
# The byes a front's session connects again after (any other ends it): the game server shutting down, or
# one node of several sending the player on to another (docs/protocol.md, section 10b).
RECONNECT_AFTER = (SHUTTING_DOWN, BYE_TABLE_MOVED, BYE_SENT_ON)
# Seconds before each try to come back after a lost connection (then the last, again), each made
# longer by a random fraction up to RECONNECT_JITTER: the clients a restart dropped together (many
# behind one address) come back spread out, not in step, within the address's budget of new connections.
RECONNECT_DELAYS = (0.5, 1, 2, 4, 8, 10)
RECONNECT_JITTER = 0.5


def reconnect_delay(attempt: int, rng: random.Random) -> float:
    """The wait before try ``attempt`` (0: the first) to come back, to a tenth of a second."""
    base = RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)]
    return round(base * (1 + RECONNECT_JITTER * rng.random()), 1)


def own_private_arena() -> CreateArena:
    """A player's own private arena, opened from any face: an hour of the server's default games (four
    seats, 2022) from now; its invite code is for their friends."""
    return CreateArena(minutes=60, private=True)


def local_first_table() -> CreateTable:
    """The local game's first table: three greedy bots; standing up, you take your seat back from the
    bot at the next game."""
    return CreateTable(edition="2022", seats=4, bots=3, bot_level="greedy", turn_seconds=0, start=True,
                       name=LOCAL_GAME, replace_bots=True)


@dataclass(frozen=True, slots=True)
class Entry:
    """What a session was opened for, done once after its first welcome: an invite code to join
    (``watch``: to watch its table), play now (edition, seats), or the arena running (``arena``). An SSH
    user name says it."""

    code: str | None = None
    watch: bool = False
    maybe_name: bool = False  # the code only looks like one (it is a user name): no such table is no error
    play_now: tuple[str, int] | None = None
    arena: bool = False  # join the arena running (ssh arena@host)


# --- what the face shows: the effects --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ShowLobby:
    """The player is in the lobby (``rewatching``: for a moment, until the table watched comes back)."""

    rewatching: bool = False


@dataclass(frozen=True, slots=True)
class ShowTable:
    """The player is at a table (seated or watching)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request was refused: say why."""

    error: ErrorMessage


@dataclass(frozen=True, slots=True)
class AskToWatch:
    """A join by invite code was refused because the game runs (``started``) or every seat is taken:
    ask whether to watch instead; the answer goes to ``ClientSession.watch_answer``."""

    code: str
    started: bool


@dataclass(frozen=True, slots=True)
class EnteredByCode:
    """At the table of the session's invite code (``Entry``): say how to go on."""

    code: str
    watching: bool


@dataclass(frozen=True, slots=True)
class CodeNotUsed:
    """Back at the player's own table on arrival: the session's invite code was not used."""

    code: str


@dataclass(frozen=True, slots=True)
class WaitingToPlay:
    """Play now was asked for these (edition, seats), the wish the face offers again later."""

    wish: tuple[str, int]


@dataclass(frozen=True, slots=True)
class Closed:
    """The server closed the connection and it is opened again (``bye.reason`` says why)."""

    bye: Bye


@dataclass(frozen=True, slots=True)
class Replaced:
    """The same player connected again elsewhere: connect again only when the player asks to."""


@dataclass(frozen=True, slots=True)
class End:
    """The session ends: the server closed its link for good (a front's session)."""

    reason: str


Effect = ShowLobby | ShowTable | Refusal | AskToWatch | EnteredByCode | CodeNotUsed | WaitingToPlay | Closed | \
    Replaced | End


@dataclass(frozen=True, slots=True)
class Reaction:
    """What a message asks of the client: ``changed`` is what the model took in (``Model.apply``)."""

    requests: tuple[Request, ...] = ()
    effects: tuple[Effect, ...] = ()
    changed: str = ""


# --- connecting: the next step -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AskName:
    """The hello was refused for its name: ask for another and connect again with it."""

    refusal: ErrorMessage


@dataclass(frozen=True, slots=True)
class AskTrust:
    """A server met for the first time: ask whether to trust its certificate, then connect again."""

    server: UnknownServer


@dataclass(frozen=True, slots=True)
class RetryIn:
    """Wait ``seconds``, then connect again (``farewell``: the server said why it closed)."""

    seconds: float
    farewell: bool


@dataclass(frozen=True, slots=True)
class AskTakeBack:
    """The connection was replaced by the same player's newer one: connect again only if asked to."""


@dataclass(frozen=True, slots=True)
class GiveUp:
    """The session cannot go on: ``cause`` says why (a refusal, a certificate that is not the one
    trusted, a server never reached)."""

    cause: ServerError | ServerKeyChanged | AnnouncementMismatch | OSError | TimeoutError | ConnectionLost


@dataclass(frozen=True, slots=True)
class Stop:
    """The session ends quietly: a local game's link ended (its server lives and ends in this process)."""


ConnectStep = AskName | AskTrust | RetryIn | AskTakeBack | GiveUp | Stop


class ClientSession:
    """One player's client of one server (``local``: the local game's embedded one). ``asks_names``: the
    face asks for another name when a hello is refused for its name (a front's names come from its door).
    ``ends_when_closed``: a server's bye other than a restart or a move ends the session (a front's
    session ends with its link rather than take the seat back). ``entry``: what to do after the first
    welcome. ``rng``: the jitter of the waits before connecting again (tests seed it)."""

    def __init__(self, *, local: bool = False, first_table: CreateTable | None = None, asks_names: bool = True,
                 ends_when_closed: bool = False, entry: Entry | None = None,
                 rng: random.Random | None = None) -> None:
        self.model = Model()
        self.local = local
        self.first_table = first_table
        self.asks_names = asks_names
        self.ends_when_closed = ends_when_closed
        self.rng = rng or random.Random()
        self._entry = entry
        self._entered = False  # the entry is done once a session: a reconnection goes back to where the player is
        self._attempt = 0  # connections tried in a row since the last welcome
        self._reached = False  # welcomed at least once
        self._replaced = False  # told this connection was replaced by a newer one of the same player
        self._table_asked = False  # the player asked for a table before the local game's first one
        self._invite_code: str | None = None  # the code of the last join by code, to offer watching
        self._sit_when_watching = False  # a join by code came too late for this game: sit at the next one
        self._probing_code = False  # the entry's code may be a user name: its refusal is not said
        self._entry_hint: EnteredByCode | None = None  # said once the entry's table is shown
        self._play_now_from: tuple[str, int] | None = None  # play now asked at arrival while back at a table
        self._play_now_after_leaving: tuple[str, int] | None = None
        self._joins_its_arena = False  # opened a private arena: joined once the server says it is open

    # --- what the player asks -----------------------------------------------------------------------
    def asked(self, request: Request) -> Request:
        """A request the face sends: noted where a later message is read by it (a join by invite
        code, refused, is offered as a watch). Returned as it is."""
        if isinstance(request, Join) and request.code is not None:
            self._invite_code = request.code
        elif isinstance(request, CreateTable):
            self._table_asked = True
        elif isinstance(request, CreateArena) and request.private:
            self._joins_its_arena = True
        return request

    def watch_answer(self, question: AskToWatch, watch: bool) -> tuple[Request, ...]:
        """The answer to ``AskToWatch``: watch the table (and sit down at its next game, if a seat is free
        then), or nothing."""
        if not watch:
            return ()
        self._sit_when_watching = question.started
        if self._entry is not None and self._entry.code == question.code:
            self._entry_hint = EnteredByCode(question.code, watching=True)
        return (Spectate(code=question.code),)

    # --- what the server sends ------------------------------------------------------------------------
    def receive(self, message: ServerMessage) -> Reaction:
        before = self.model.table
        changed = self.model.apply(message)
        requests: list[Request] = []
        effects: list[Effect] = []
        if isinstance(message, Welcome):
            self._welcome(message, before, requests, effects)
        elif isinstance(message, TableMessage):
            self._table(message.table, requests, effects)
        elif isinstance(message, Left):
            effects.append(ShowLobby())
            if self._play_now_after_leaving is not None:
                wish, self._play_now_after_leaving = self._play_now_after_leaving, None
                self._play_now(wish, requests, effects)
        elif isinstance(message, ArenaMessage) and self._joins_its_arena and message.arena.private \
                and not message.joined and message.you is None:
            self._joins_its_arena = False  # whoever opens a private arena plays in it
            requests.append(JoinArena(arena=message.arena.id))
        elif isinstance(message, ErrorMessage):
            if message.ref == "arena_create":
                self._joins_its_arena = False
                mine = message.params.get("arena")
                if message.params.get("why") == "one_private" and isinstance(mine, int):
                    requests.append(JoinArena(arena=mine))  # back to the one already open, with its code
            effect = self._refused(message)
            if effect is not None:
                effects.append(effect)
        elif isinstance(message, Bye):
            effects.append(self._bye(message))
        return Reaction(tuple(requests), tuple(effects), changed)

    def _welcome(self, welcome: Welcome, before: TableDetail | None, requests: list[Request],
                 effects: list[Effect]) -> None:
        self._attempt, self._reached = 0, True
        rewatch = before is not None and before.you is None and welcome.table is None
        if before is not None and rewatch:
            # back on a server that did not keep us (spectators are not kept): watch that table again
            requests.append(Spectate(code=before.code) if before.code else Spectate(table=before.id))
        if self.local:
            if welcome.table is None and not self._table_asked:
                requests.append(self.first_table or local_first_table())
            return
        if welcome.table is None:
            effects.append(ShowLobby(rewatching=rewatch))
        if self._entry is not None and not self._entered:
            self._entered = True
            self._enter(self._entry, welcome, requests, effects)

    def _enter(self, entry: Entry, welcome: Welcome, requests: list[Request], effects: list[Effect]) -> None:
        """The session's entry, after its first welcome: the invite code's table, or play now."""
        if entry.code is not None:
            if welcome.table is not None:
                effects.append(CodeNotUsed(entry.code))
                return
            requests.append(Spectate(code=entry.code) if entry.watch else self.asked(Join(code=entry.code)))
            self._probing_code = entry.maybe_name
            self._entry_hint = EnteredByCode(entry.code, watching=entry.watch)
        elif entry.arena:
            if welcome.table is None:  # back at a table: the player's game goes on first
                requests.append(JoinArena())
        elif entry.play_now is not None:
            if welcome.table is not None:
                self._play_now_from = entry.play_now  # its table message tells whether a game waits there
            else:
                self._play_now(entry.play_now, requests, effects)

    def _play_now(self, wish: tuple[str, int], requests: list[Request], effects: list[Effect]) -> None:
        effects.append(WaitingToPlay(wish))
        requests.append(PlayNow(edition=as_edition(wish[0]), seats=wish[1]))

    def _table(self, table: TableDetail, requests: list[Request], effects: list[Effect]) -> None:
        self._invite_code = None  # the join went through: a later refusal is not about that code
        self._probing_code = False
        effects.append(ShowTable())
        if self._sit_when_watching and table.you is None:
            self._sit_when_watching = False
            requests.append(Sit())  # the server answers with a notice: seated at the next game
        if self._play_now_from is not None:
            wish, self._play_now_from = self._play_now_from, None
            if table.status != "playing" or table.you is None:  # nothing to go back to: to play now
                self._play_now_after_leaving = wish
                requests.append(Leave())
        elif self._entry_hint is not None:
            effects.append(self._entry_hint)
            self._entry_hint = None

    def _refused(self, refused: ErrorMessage) -> Effect | None:
        """A refusal: offered as a watch when a join by invite code came too late or found every seat
        taken (a private table is listed nowhere, so the code is the way to watch it too); not said
        when the entry's code was a user name; else said."""
        code, self._invite_code = self._invite_code, None
        why = refused.params.get("why")
        started = refused.code == "game_running" and why == "started"
        if code is not None and refused.ref == "join" and (started or (refused.code == "table_full"
                                                                       and why == "spectate")):
            self._probing_code = False
            self._entry_hint = None  # said again if the answer is to watch
            return AskToWatch(code, started)
        if refused.ref in ("join", "spectate"):
            self._entry_hint = None  # the entry's table was not reached
            if self._probing_code:
                self._probing_code = False  # the user name was a name, not an invite code
                return None
        return Refusal(refused)

    def _bye(self, bye: Bye) -> Effect:
        if self.ends_when_closed and bye.reason not in RECONNECT_AFTER:
            return End(bye.reason)
        if bye.reason == REPLACED:
            self._replaced = True
            return Replaced()
        return Closed(bye)

    # --- connecting -------------------------------------------------------------------------------------
    def connect_failed(self, exc: BaseException) -> ConnectStep:
        """What to do when a connection could not be made (``exc`` re-raised if it is not a connection's)."""
        if isinstance(exc, ServerError):
            if exc.code in NAME_ERRORS and self.asks_names and not self.local:
                return AskName(exc.error)
            return GiveUp(exc)
        if isinstance(exc, UnknownServer):
            return AskTrust(exc)
        if isinstance(exc, ServerKeyChanged | AnnouncementMismatch):
            return GiveUp(exc)
        if isinstance(exc, OSError | TimeoutError | ConnectionLost):
            if not self._reached:  # never reached: nothing to come back to
                return GiveUp(exc)
            return self._retry()
        raise exc

    def link_lost(self) -> ConnectStep:
        """The link ended: connect again after a wait, or only when asked (replaced), or not at all."""
        if self.local:
            return Stop()
        self.model.connected = False
        if self._replaced:  # connecting again by itself would take the seat from the newer session
            self._replaced = False
            return AskTakeBack()
        return self._retry(count=False)  # the first wait after a loss is the first try's, again if it fails

    def _retry(self, count: bool = True) -> RetryIn:
        delay = reconnect_delay(self._attempt, self.rng)
        self._attempt += count
        return RetryIn(delay, farewell=bool(self.model.farewell))
