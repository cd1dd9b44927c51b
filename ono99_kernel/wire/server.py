"""Server messages as typed values, both ways: what the server builds and encodes (``to_wire``,
``encode_message``), and what a client decodes every server message into, once, where it arrives.
``decode_server_message`` checks every field as the server checks a client's requests (types,
ranges, lengths, seat numbers within the table) and raises ``ProtocolError`` naming the message
type and the field; everything above it reads attributes, never dict keys.

The shapes are those of docs/protocol.md (sections 5 to 7). Unknown extra fields are ignored, and a
message type this version does not know decodes to ``UnknownMessage`` (a newer server may send
more), which a client ignores. Names and chat are carried as they arrived: shown as plain text.
``to_wire`` writes each map's fields in the order the document lists them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from ..core.arena import ARENA_STATUSES, Arena, ArenaStatus
from ..core.events import Drew, Event, GameOver, HandEnded, HandStarted, MissedDraw, Out, Played, Reshuffled
from ..core.options import TableOptions
from ..core.series import SERIES_KINDS, SeriesKind
from ..core.view import TableView
from ..protocol import ARENA_TABLE, BOT_LEVEL_NAMES, MAX_CHAT, MAX_FRAME, MAX_TABLE_NAME, ProtocolError, encode
from . import reading
from .common import EDITIONS, MAX_SEATS, SCOPES, Edition, Scope
from .reading import MAX_CARDS, MAX_INT, MAX_NAME_WIRE, MAX_TEXT, Params

MAX_NODES = 64  # the other nodes a welcome lists

__all__ = [
    "EDITIONS",
    "MAX_NODES",
    "MAX_SEATS",
    "SCOPES",
    "SEAT_KINDS",
    "SERVER_MESSAGE_TYPES",
    "STATUSES",
    "AdminResult",
    "ArenaGame",
    "ArenaInfo",
    "ArenaMessage",
    "ArenaResults",
    "ArenaStanding",
    "Arenas",
    "Away",
    "Bye",
    "Challenge",
    "Chat",
    "ChatHistory",
    "ChatLine",
    "DrawEvent",
    "Edition",
    "ErrorMessage",
    "GameEvent",
    "GameOverEvent",
    "GameRecord",
    "HandEndedEvent",
    "HandStartedEvent",
    "History",
    "Leaderboard",
    "Left",
    "MissedDrawEvent",
    "NodeAddress",
    "Notice",
    "Obligation",
    "Online",
    "OnlinePlayer",
    "OutEvent",
    "Params",
    "PlayEvent",
    "Pong",
    "Profile",
    "ProfileArena",
    "ProfileEdition",
    "Queue",
    "QueueSize",
    "Queued",
    "RatingPoint",
    "RatingRow",
    "RecentGame",
    "ReshuffleEvent",
    "Safety",
    "Scope",
    "Seat",
    "SeatKind",
    "SeriesInfo",
    "SeriesStanding",
    "ServerMessage",
    "State",
    "TableDetail",
    "TableInfo",
    "TableMessage",
    "TableStatus",
    "Tables",
    "UnknownEvent",
    "UnknownMessage",
    "Unplayable",
    "View",
    "Welcome",
    "arena_standings",
    "decode_server_message",
    "decode_table_detail",
    "edition_of",
    "encode_message",
    "event_of",
    "event_to_wire",
    "options_to_wire",
    "view_of",
    "view_to_wire",
]

SeatKind = Literal["empty", "human", "bot"]
TableStatus = Literal["waiting", "playing", "finished"]
SEAT_KINDS: tuple[SeatKind, ...] = ("empty", "human", "bot")
STATUSES: tuple[TableStatus, ...] = ("waiting", "playing", "finished")


@functools.lru_cache(maxsize=256)
def _options_map(options: TableOptions) -> dict[str, Any]:
    """``options.to_mapping()``, computed once per distinct (immutable) options: every view and table
    carries it, and building it walks the dataclass fields each time. Callers copy it."""
    return options.to_mapping()


def options_to_wire(options: TableOptions) -> dict[str, Any]:
    return dict(_options_map(options))


def edition_of(options: TableOptions) -> Edition:
    return options.edition.value


def _list(values: tuple[Any, ...] | None) -> list[Any] | None:
    return None if values is None else list(values)


# --- tables --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Seat:
    kind: SeatKind
    name: str
    level: str | None  # bots
    connected: bool | None  # humans: False while away

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "level": self.level, "connected": self.connected}


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A table as the lobby lists it (TABLE INFO)."""

    id: int
    name: str
    edition: Edition
    options: TableOptions
    summary: str
    host: str
    status: TableStatus
    private: bool
    seats: tuple[Seat, ...]
    free: int
    bots: int
    spectators: int
    replace_bots: bool
    turn_seconds: int
    bot_level: str
    game_no: int
    winner: int | None
    name_code: str | None  # the kind of name the server gave a table nobody named (protocol.TABLE_NAMES)
    name_params: Params  # its values: a client says such a name in its player's language
    # the host allows hints (a player's client estimates its cards' chances); the table's games are not rated
    hints: bool = field(default=False, kw_only=True)

    @property
    def of_arena(self) -> bool:
        """A table of an arena's game: the arena seats its players and starts it, no host does."""
        return self.name_code == ARENA_TABLE

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "edition": self.edition, "options": options_to_wire(self.options),
                "summary": self.summary, "host": self.host, "status": self.status, "private": self.private,
                "seats": [s.to_wire() for s in self.seats], "free": self.free, "bots": self.bots,
                "spectators": self.spectators, "replace_bots": self.replace_bots, "turn_seconds": self.turn_seconds,
                "bot_level": self.bot_level, "game_no": self.game_no, "winner": self.winner,
                "name_code": self.name_code, "name_params": dict(self.name_params), "hints": self.hints}


@dataclass(frozen=True, slots=True)
class SeriesStanding:
    """A player's line of a series' standings (SERIES STANDING)."""

    name: str
    points: int
    wins: int
    games: int

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "points": self.points, "wins": self.wins, "games": self.games}


@dataclass(frozen=True, slots=True)
class SeriesInfo:
    """The series played at a table, with its standings so far (SERIES, docs/protocol.md section 6)."""

    kind: SeriesKind  # "games": best of ``target`` games; "points": first to ``target`` points
    target: int
    played: int  # games counted so far
    places: tuple[int, ...]  # the points of each place of a game at this table, first place first
    standings: tuple[SeriesStanding, ...]  # best first
    winner: str | None  # once the series is over

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "played": self.played, "places": list(self.places),
                "standings": [s.to_wire() for s in self.standings], "winner": self.winner}


@dataclass(frozen=True, slots=True)
class TableDetail(TableInfo):
    """The table one is at, as one of its members sees it (TABLE DETAIL)."""

    code: str | None  # the invite code of a private table
    you: int | None  # your seat; None for a spectator
    watchers: tuple[str, ...]
    waiting: tuple[str, ...]
    series: SeriesInfo | None = None  # the series played at the table, if one is

    def to_wire(self) -> dict[str, Any]:
        data = TableInfo.to_wire(self)
        data.update(code=self.code, you=self.you, watchers=list(self.watchers), waiting=list(self.waiting),
                    series=self.series.to_wire() if self.series is not None else None)
        return data


# --- arenas ---------------------------------------------------------------------------------------------
MAX_ARENAS = 64  # the arenas an ``arenas`` message lists
MAX_ARENA_SHOWN = 64  # the standings' lines an ``arena`` message carries
MAX_PROFILE_ARENAS = 20  # the arenas a ``profile`` lists


@dataclass(frozen=True, slots=True)
class ArenaInfo:
    """An arena as the lobby lists it (ARENA INFO, docs/protocol.md section 6b)."""

    id: int
    name: str
    edition: Edition
    seats: int
    minutes: int
    status: ArenaStatus
    starts_in: float  # seconds until it starts (0 once it has)
    ends_in: float  # seconds until no table is seated any more (0 once over)
    players: int  # in the arena now
    private: bool
    top_table: int | None  # the table of the best-placed player playing now: featured for spectators

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "edition": self.edition, "seats": self.seats,
                "minutes": self.minutes, "status": self.status, "starts_in": self.starts_in,
                "ends_in": self.ends_in, "players": self.players, "private": self.private,
                "top_table": self.top_table}


@dataclass(frozen=True, slots=True)
class ArenaStanding:
    """A player's line of an arena's standings (ARENA STANDING)."""

    place: int
    name: str
    points: int
    games: int
    wins: int
    fire: bool  # on a streak: their next game's points are doubled
    playing: bool
    present: bool  # False: left the arena (keeping their points)

    def to_wire(self) -> dict[str, Any]:
        return {"place": self.place, "name": self.name, "points": self.points, "games": self.games,
                "wins": self.wins, "fire": self.fire, "playing": self.playing, "present": self.present}


def arena_standings(arena: Arena) -> dict[str, ArenaStanding]:
    """Every player's line of an arena's standings, by name, best first."""
    return {p.name: ArenaStanding(place=place, name=p.name, points=p.points, games=p.games, wins=p.wins,
                                  fire=p.on_fire, playing=p.playing is not None, present=p.present)
            for place, p in enumerate(arena.standings(), start=1)}


# --- views and events ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Obligation:
    seat: int
    plays_left: int
    can_pass: bool

    def to_wire(self) -> dict[str, Any]:
        return {"seat": self.seat, "plays_left": self.plays_left, "can_pass": self.can_pass}


@dataclass(frozen=True, slots=True)
class Unplayable:
    """A card the recipient cannot play now, and why: ``why`` is the key (and ``params`` the values) an
    ``illegal_action`` error refusing it would carry, ``reason`` the server's English text ("" when the
    server sent none); ``why`` is "" from a server that sent the English text alone."""

    card: str
    why: str
    params: Mapping[str, str | int]
    reason: str

    def to_wire(self) -> dict[str, Any]:
        return {"card": self.card, "why": self.why, "params": dict(self.params), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class View:
    """What the recipient may know of a game (VIEW)."""

    edition: Edition
    options: TableOptions
    seats: int
    seat: int | None  # None for a spectator
    hand: tuple[str, ...]
    legal: tuple[str, ...]
    unplayable: tuple[Unplayable, ...]
    hand_number: int
    version: int
    total: int
    direction: int  # 1 or -1
    turn: int | None
    obligation: Obligation | None
    hand_sizes: tuple[int, ...]
    active: tuple[bool, ...]
    in_hand: tuple[bool, ...]
    open_draws: tuple[bool, ...]
    missed_draws: tuple[int, ...]
    tokens: tuple[int, ...] | None
    scores: tuple[int, ...] | None
    draw_pile_size: int
    discard_size: int
    top_card: str | None
    winner: int | None
    ranking: tuple[int, ...] | None  # every seat best first, once the game is over

    def to_wire(self) -> dict[str, Any]:
        obligation = self.obligation
        return {
            "edition": self.edition, "options": options_to_wire(self.options), "seats": self.seats,
            "seat": self.seat, "hand": list(self.hand), "legal": list(self.legal),
            "unplayable": [u.to_wire() for u in self.unplayable], "hand_number": self.hand_number,
            "version": self.version, "total": self.total, "direction": self.direction, "turn": self.turn,
            "obligation": None if obligation is None else obligation.to_wire(),
            "hand_sizes": list(self.hand_sizes), "active": list(self.active), "in_hand": list(self.in_hand),
            "open_draws": list(self.open_draws), "missed_draws": list(self.missed_draws),
            "tokens": _list(self.tokens), "scores": _list(self.scores), "draw_pile_size": self.draw_pile_size,
            "discard_size": self.discard_size, "top_card": self.top_card, "winner": self.winner,
            "ranking": _list(self.ranking),
        }


@dataclass(frozen=True, slots=True)
class PlayEvent:
    seat: int
    cards: tuple[str, ...]  # one card, or four "ONO99"
    total: int

    def to_wire(self) -> dict[str, Any]:
        return {"e": "play", "seat": self.seat, "cards": list(self.cards), "total": self.total}


@dataclass(frozen=True, slots=True)
class DrawEvent:
    seat: int
    card: str | None  # only for the drawing seat itself

    def to_wire(self) -> dict[str, Any]:
        return {"e": "draw", "seat": self.seat, "card": self.card}


@dataclass(frozen=True, slots=True)
class ReshuffleEvent:
    size: int

    def to_wire(self) -> dict[str, Any]:
        return {"e": "reshuffle", "size": self.size, "draw_pile": None}  # the new order is never shown


@dataclass(frozen=True, slots=True)
class MissedDrawEvent:
    seat: int

    def to_wire(self) -> dict[str, Any]:
        return {"e": "missed_draw", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class OutEvent:
    seat: int

    def to_wire(self) -> dict[str, Any]:
        return {"e": "out", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class HandStartedEvent:
    hand: int
    dealer: int
    first: int
    hand_sizes: tuple[int, ...]
    hands: tuple[tuple[str, ...] | None, ...]
    draw_pile_size: int

    def to_wire(self) -> dict[str, Any]:
        return {"e": "hand_started", "hand": self.hand, "dealer": self.dealer, "first": self.first,
                "hand_sizes": list(self.hand_sizes), "hands": [_list(h) for h in self.hands],
                "draw_pile_size": self.draw_pile_size}


@dataclass(frozen=True, slots=True)
class HandEndedEvent:
    hand: int
    loser: int | None
    tokens: tuple[int, ...] | None
    scores: tuple[int, ...] | None
    hand_points: tuple[int, ...] | None
    eliminated: tuple[int, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"e": "hand_ended", "hand": self.hand, "loser": self.loser, "tokens": _list(self.tokens),
                "scores": _list(self.scores), "hand_points": _list(self.hand_points),
                "eliminated": list(self.eliminated)}


@dataclass(frozen=True, slots=True)
class GameOverEvent:
    winner: int

    def to_wire(self) -> dict[str, Any]:
        return {"e": "game_over", "winner": self.winner}


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event kind this version does not know (a newer server's): skipped."""

    e: str

    def to_wire(self) -> dict[str, Any]:
        return {"e": self.e}


GameEvent = (PlayEvent | DrawEvent | ReshuffleEvent | MissedDrawEvent | OutEvent | HandStartedEvent
             | HandEndedEvent | GameOverEvent | UnknownEvent)


# --- lobby, chat, play now, ratings ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChatLine:
    id: int | None
    sender: str  # the wire's "from"
    text: str
    at: float

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "from": self.sender, "text": self.text, "at": self.at}


@dataclass(frozen=True, slots=True)
class OnlinePlayer:
    name: str
    table: int | None
    away: bool

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "table": self.table, "away": self.away}


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A leaderboard row: a player's (``name``) or a bot level's (``name`` is the level)."""

    name: str
    games: int
    wins: int
    rating: float
    mu: float
    sigma: float
    rated: int
    provisional: bool

    def to_wire(self, key: str = "name") -> dict[str, Any]:
        """``key``: "level" for a bot level's row."""
        return {key: self.name, "games": self.games, "wins": self.wins, "rating": self.rating, "mu": self.mu,
                "sigma": self.sigma, "rated": self.rated, "provisional": self.provisional}


@dataclass(frozen=True, slots=True)
class Queued:
    edition: Edition
    seats: int
    waiting: int
    position: int
    fill_in: float

    def to_wire(self) -> dict[str, Any]:
        return {"edition": self.edition, "seats": self.seats, "waiting": self.waiting, "position": self.position,
                "fill_in": self.fill_in}


@dataclass(frozen=True, slots=True)
class QueueSize:
    edition: Edition
    seats: int
    waiting: int

    def to_wire(self) -> dict[str, Any]:
        return {"edition": self.edition, "seats": self.seats, "waiting": self.waiting}


@dataclass(frozen=True, slots=True)
class ProfileEdition:
    edition: Edition
    games: int
    wins: int
    win_rate: float | None
    rating: float
    mu: float
    sigma: float
    rated: int
    provisional: bool

    def to_wire(self) -> dict[str, Any]:
        return {"edition": self.edition, "games": self.games, "wins": self.wins, "win_rate": self.win_rate,
                "rating": self.rating, "mu": self.mu, "sigma": self.sigma, "rated": self.rated,
                "provisional": self.provisional}


@dataclass(frozen=True, slots=True)
class RatingPoint:
    game: int
    edition: Edition
    at: float
    rating: float
    change: float

    def to_wire(self) -> dict[str, Any]:
        return {"game": self.game, "edition": self.edition, "at": self.at, "rating": self.rating,
                "change": self.change}


@dataclass(frozen=True, slots=True)
class RecentGame:
    game: int
    edition: Edition
    at: float
    place: int
    won: bool
    credited: bool
    players: tuple[str, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"game": self.game, "edition": self.edition, "at": self.at, "place": self.place, "won": self.won,
                "credited": self.credited, "players": list(self.players)}


@dataclass(frozen=True, slots=True)
class ProfileArena:
    """An arena the player played games in, as their profile lists it (newest first)."""

    arena: int
    name: str
    edition: Edition
    at: float  # when it started (Unix time)
    status: ArenaStatus
    place: int  # in its standings, of ``players``
    players: int
    points: int
    games: int

    def to_wire(self) -> dict[str, Any]:
        return {"arena": self.arena, "name": self.name, "edition": self.edition, "at": self.at,
                "status": self.status, "place": self.place, "players": self.players, "points": self.points,
                "games": self.games}


@dataclass(frozen=True, slots=True)
class NodeAddress:
    """Where players reach another node of the same server (one of several: ``welcome.nodes``)."""

    host: str
    port: int

    def to_wire(self) -> dict[str, Any]:
        return {"host": self.host, "port": self.port}


# --- messages ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Welcome:
    version: int
    server: str
    name: str
    resume: str
    resumed: bool
    table: int | None
    identity: str | None
    nodes: tuple[NodeAddress, ...] = ()  # the server's other nodes, when it runs on several
    t: Literal["welcome"] = "welcome"

    def to_wire(self) -> dict[str, Any]:
        wired = {"t": self.t, "version": self.version, "server": self.server, "name": self.name,
                 "resume": self.resume, "resumed": self.resumed, "table": self.table, "identity": self.identity}
        if self.nodes:
            wired["nodes"] = [node.to_wire() for node in self.nodes]
        return wired


@dataclass(frozen=True, slots=True)
class Challenge:
    nonce: bytes
    t: Literal["challenge"] = "challenge"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "nonce": self.nonce}


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    code: str
    reason: str
    ref: str | None
    params: Params
    t: Literal["error"] = "error"

    @classmethod
    def of(cls, error: ProtocolError, ref: str | None = None) -> ErrorMessage:
        """The refusal of a request, as ``error`` says it."""
        return cls(code=error.code, reason=error.reason, ref=ref, params=error.params)

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "code": self.code, "reason": self.reason, "ref": self.ref, "params": dict(self.params)}


@dataclass(frozen=True, slots=True)
class Tables:
    tables: tuple[TableInfo, ...]
    total: int
    t: Literal["tables"] = "tables"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "tables": [table.to_wire() for table in self.tables], "total": self.total}


@dataclass(frozen=True, slots=True)
class TableMessage:
    table: TableDetail
    t: Literal["table"] = "table"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "table": self.table.to_wire()}


@dataclass(frozen=True, slots=True)
class Left:
    table: int
    t: Literal["left"] = "left"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "table": self.table}


@dataclass(frozen=True, slots=True)
class State:
    table: int
    game_no: int
    view: View
    events: tuple[GameEvent, ...]
    seq: int | None  # the number of the last event (docs/protocol.md, section 10a)
    clock: float | None
    controlled_by_bot: tuple[bool, ...]
    t: Literal["state"] = "state"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "table": self.table, "game_no": self.game_no, "view": self.view.to_wire(),
                "events": [e.to_wire() for e in self.events], "seq": self.seq, "clock": self.clock,
                "controlled_by_bot": list(self.controlled_by_bot)}


@dataclass(frozen=True, slots=True)
class History:
    table: int
    game_no: int
    seq: int
    reset: bool
    events: tuple[GameEvent, ...]
    t: Literal["history"] = "history"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "table": self.table, "game_no": self.game_no, "reset": self.reset, "seq": self.seq,
                "events": [e.to_wire() for e in self.events]}


@dataclass(frozen=True, slots=True)
class Chat:
    scope: Scope
    table: int | None
    line: ChatLine
    t: Literal["chat"] = "chat"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "scope": self.scope, "table": self.table, **self.line.to_wire()}


@dataclass(frozen=True, slots=True)
class ChatHistory:
    scope: Scope
    table: int | None
    messages: tuple[ChatLine, ...]
    t: Literal["chat_history"] = "chat_history"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "scope": self.scope, "table": self.table,
                "messages": [line.to_wire() for line in self.messages]}


@dataclass(frozen=True, slots=True)
class Notice:
    table: int | None
    text: str
    code: str | None
    params: Params
    t: Literal["notice"] = "notice"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "table": self.table, "text": self.text, "code": self.code, "params": dict(self.params)}


@dataclass(frozen=True, slots=True)
class Away:
    table: int
    text: str
    code: str | None
    params: Params
    t: Literal["away"] = "away"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "table": self.table, "text": self.text, "code": self.code, "params": dict(self.params)}


@dataclass(frozen=True, slots=True)
class Online:
    players: tuple[OnlinePlayer, ...]
    total: int
    t: Literal["online"] = "online"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "players": [p.to_wire() for p in self.players], "total": self.total}


@dataclass(frozen=True, slots=True)
class Leaderboard:
    edition: Edition | None
    rows: tuple[RatingRow, ...]
    bots: tuple[RatingRow, ...]  # ``name`` is the bot level
    t: Literal["leaderboard"] = "leaderboard"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "edition": self.edition, "rows": [row.to_wire() for row in self.rows],
                "bots": [row.to_wire("level") for row in self.bots]}


@dataclass(frozen=True, slots=True)
class Queue:
    queued: Queued | None
    queues: tuple[QueueSize, ...]
    wait: float
    t: Literal["queue"] = "queue"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "queued": None if self.queued is None else self.queued.to_wire(),
                "queues": [q.to_wire() for q in self.queues], "wait": self.wait}


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    you: bool
    editions: tuple[ProfileEdition, ...]
    history: tuple[RatingPoint, ...]
    recent: tuple[RecentGame, ...]
    arenas: tuple[ProfileArena, ...] = ()
    t: Literal["profile"] = "profile"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "name": self.name, "you": self.you, "editions": [e.to_wire() for e in self.editions],
                "history": [p.to_wire() for p in self.history], "recent": [g.to_wire() for g in self.recent],
                "arenas": [a.to_wire() for a in self.arenas]}


@dataclass(frozen=True, slots=True)
class GameRecord:
    game: int
    record: bytes
    t: Literal["game_record"] = "game_record"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "game": self.game, "record": self.record}


@dataclass(frozen=True, slots=True)
class Pong:
    n: int | None
    t: Literal["pong"] = "pong"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "n": self.n}


@dataclass(frozen=True, slots=True)
class Bye:
    reason: str
    t: Literal["bye"] = "bye"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Safety:
    """Your mutes and blocks (by the players' names now), and whether your key is an operator's (section 5b)."""

    muted: tuple[str, ...]
    blocked: tuple[str, ...]
    operator: bool
    t: Literal["safety"] = "safety"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "muted": list(self.muted), "blocked": list(self.blocked), "operator": self.operator}


@dataclass(frozen=True, slots=True)
class AdminResult:
    """The answer to an operator's ``admin`` command (section 5b): its English ``text``, the ``params``
    that text names, and the ``rows`` of a listing (each a map of text or whole numbers)."""

    command: str
    text: str
    params: Params
    rows: tuple[Params, ...]
    t: Literal["admin_result"] = "admin_result"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "command": self.command, "text": self.text, "params": dict(self.params),
                "rows": [dict(row) for row in self.rows]}


@dataclass(frozen=True, slots=True)
class Arenas:
    """The public arenas to come and running, and any arena of yours (section 6b)."""

    arenas: tuple[ArenaInfo, ...]
    t: Literal["arenas"] = "arenas"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "arenas": [a.to_wire() for a in self.arenas]}


@dataclass(frozen=True, slots=True)
class ArenaMessage:
    """The arena you are in: its standings (the first lines), your own line, when your next game
    starts, and its podium once over (section 6b)."""

    arena: ArenaInfo
    code: str | None  # a private arena's invite code
    joined: bool  # you are in it (False: you left, or it is over)
    standings: tuple[ArenaStanding, ...]  # best first, the first lines only
    you: ArenaStanding | None
    next_in: float | None  # seconds until your next game starts at the latest; None while playing
    podium: tuple[str, ...]  # once over: the first three
    t: Literal["arena"] = "arena"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "arena": self.arena.to_wire(), "code": self.code, "joined": self.joined,
                "standings": [s.to_wire() for s in self.standings],
                "you": None if self.you is None else self.you.to_wire(), "next_in": self.next_in,
                "podium": list(self.podium)}


@dataclass(frozen=True, slots=True)
class ArenaGame:
    """You are seated at an arena's table: its game starts in ``starts_in`` seconds."""

    arena: int
    table: int
    starts_in: float
    t: Literal["arena_game"] = "arena_game"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "arena": self.arena, "table": self.table, "starts_in": self.starts_in}


@dataclass(frozen=True, slots=True)
class ArenaResults:
    """An arena's standings as the store keeps them, in answer to ``arena_results`` (from a profile)."""

    arena: int
    name: str
    edition: Edition
    at: float  # when it started (Unix time)
    minutes: int
    status: ArenaStatus
    standings: tuple[ArenaStanding, ...]  # best first, the first lines only
    you: ArenaStanding | None  # the profile's player's line
    podium: tuple[str, ...]
    t: Literal["arena_results"] = "arena_results"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "arena": self.arena, "name": self.name, "edition": self.edition, "at": self.at,
                "minutes": self.minutes, "status": self.status, "standings": [s.to_wire() for s in self.standings],
                "you": None if self.you is None else self.you.to_wire(), "podium": list(self.podium)}


@dataclass(frozen=True, slots=True)
class UnknownMessage:
    """A message type this version does not know (a newer server's): ignored."""

    type: str
    t: Literal["unknown"] = "unknown"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.type}


ServerMessage = (Welcome | Challenge | ErrorMessage | Tables | TableMessage | Left | State | History | Chat
                 | ChatHistory | Notice | Away | Online | Leaderboard | Queue | Profile | GameRecord | Pong | Bye
                 | Safety | AdminResult | Arenas | ArenaMessage | ArenaGame | ArenaResults | UnknownMessage)
SERVER_MESSAGE_TYPES = (Welcome, Challenge, ErrorMessage, Tables, TableMessage, Left, State, History, Chat, ChatHistory,
                        Notice, Away, Online, Leaderboard, Queue, Profile, GameRecord, Pong, Bye, Safety,
                        AdminResult, Arenas, ArenaMessage, ArenaGame, ArenaResults)  # what a server sends


def encode_message(message: ServerMessage) -> bytes:
    """One frame of a server message: the one place the server turns what it says into bytes."""
    return encode(message.to_wire())


# --- from the rules engine's values ------------------------------------------------------------------------
def view_of(view: TableView) -> View:
    """The engine's view (already only what its recipient may see) as the protocol's."""
    obligation = view.obligation
    return View(
        edition_of(view.options), view.options, view.seats, view.seat, tuple([c.code for c in view.hand]),
        tuple([a.code for a in view.legal_actions]),
        tuple([Unplayable(u.card.code, u.why, dict(u.params), u.reason) for u in view.unplayable]),
        view.hand_number, view.version, view.total, view.direction, view.turn,
        None if obligation is None else Obligation(obligation.seat, obligation.plays_left, obligation.can_pass),
        view.hand_sizes, view.active, view.in_hand, view.open_draws, view.missed_draws, view.tokens, view.scores,
        view.draw_pile_size, view.discard_size, view.top_card.code if view.top_card is not None else None,
        view.winner, view.ranking)


def event_of(event: Event) -> GameEvent:
    """An already redacted engine event as the protocol's (hidden cards are None)."""
    if isinstance(event, Played):
        return PlayEvent(event.seat, tuple([c.code for c in event.cards]), event.total)
    if isinstance(event, Drew):
        return DrawEvent(event.seat, event.card.code if event.card is not None else None)
    if isinstance(event, Reshuffled):
        if event.draw_pile is not None:
            raise ValueError("a reshuffle's new order is never sent: redact the event first")
        return ReshuffleEvent(event.size)
    if isinstance(event, MissedDraw):
        return MissedDrawEvent(event.seat)
    if isinstance(event, Out):
        return OutEvent(event.seat)
    if isinstance(event, HandStarted):
        return HandStartedEvent(event.hand, event.dealer, event.first, tuple(event.hand_sizes),
                                tuple(None if h is None else tuple([c.code for c in h]) for h in event.hands),
                                event.draw_pile_size)
    if isinstance(event, HandEnded):
        return HandEndedEvent(event.hand, event.loser, event.tokens, event.scores, event.hand_points,
                              tuple(event.eliminated))
    if isinstance(event, GameOver):
        return GameOverEvent(event.winner)
    raise TypeError(f"not an event: {event!r}")


def view_to_wire(view: TableView) -> dict[str, Any]:
    """An engine view as the map a ``state`` carries."""
    return view_of(view).to_wire()


def event_to_wire(event: Event) -> dict[str, Any]:
    """An already redacted engine event as the map a ``state`` or ``history`` carries."""
    return event_of(event).to_wire()


# --- decoding ----------------------------------------------------------------------------------------------
def _seat(v: Any, where: str) -> Seat:
    r = reading.Reader(v, where)
    return Seat(kind=r.choice("kind", SEAT_KINDS), name=r.text("name", MAX_NAME_WIRE),
                level=r.text("level", 32, nil=True), connected=r.flag("connected", nil=True))


def _table_fields(r: reading.Reader) -> dict[str, Any]:
    edition = r.choice("edition", EDITIONS)
    seats = r.items("seats", _seat, limit=MAX_SEATS)
    if len(seats) < 2:
        raise reading.fault(r.at("seats"), f"must have 2 to {MAX_SEATS} entries, not {len(seats)}")
    return {"id": r.num("id"), "name": r.text("name", MAX_TABLE_NAME * 2), "edition": edition,
            "options": reading.options(edition, r.raw("options", reading.MISSING), r.at("options")),
            "summary": r.text("summary"), "host": r.text("host", MAX_NAME_WIRE), "status": r.choice("status", STATUSES),
            "private": r.flag("private"), "seats": seats, "free": r.num("free", 0, MAX_SEATS),
            "bots": r.num("bots", 0, MAX_SEATS), "spectators": r.num("spectators"),
            "replace_bots": r.flag("replace_bots"), "turn_seconds": r.num("turn_seconds", 0, 86400),
            "bot_level": r.text("bot_level", 32), "game_no": r.num("game_no"),
            "winner": r.num("winner", 0, len(seats) - 1, nil=True),
            "name_code": r.text("name_code", 32, nil=True, default=None),
            "name_params": reading.params(r.raw("name_params", {}), r.at("name_params")),
            "hints": r.flag("hints", default=False)}


def _table_info(v: Any, where: str) -> TableInfo:
    return TableInfo(**_table_fields(reading.Reader(v, where)))


def _series_standing(v: Any, where: str) -> SeriesStanding:
    r = reading.Reader(v, where)
    return SeriesStanding(name=r.text("name", MAX_NAME_WIRE), points=r.num("points"), wins=r.num("wins"),
                          games=r.num("games"))


def _series(r: reading.Reader | None) -> SeriesInfo | None:
    if r is None:
        return None
    return SeriesInfo(kind=r.choice("kind", SERIES_KINDS), target=r.num("target", 1, 1000), played=r.num("played"),
                      places=r.items("places", reading.count, limit=MAX_SEATS),
                      standings=r.items("standings", _series_standing, limit=4096),
                      winner=r.text("winner", MAX_NAME_WIRE, nil=True))


def _table_detail(v: Any, where: str) -> TableDetail:
    r = reading.Reader(v, where)
    fields = _table_fields(r)
    return TableDetail(**fields, code=r.text("code", 16, nil=True),
                       you=r.num("you", 0, len(fields["seats"]) - 1, nil=True),
                       watchers=r.items("watchers", reading.name_text, limit=4096),
                       waiting=r.items("waiting", reading.name_text, limit=4096),
                       series=_series(r.sub("series", nil=True, default=None)))


def _view(v: Any, where: str) -> View:
    r = reading.Reader(v, where)
    edition = r.choice("edition", EDITIONS)
    seats = r.num("seats", 2, MAX_SEATS)
    obligation = r.sub("obligation", nil=True)
    unplayable = r.items("unplayable", _unplayable, limit=MAX_CARDS)
    return View(
        edition=edition, options=reading.options(edition, r.raw("options", reading.MISSING), r.at("options")),
        seats=seats,
        seat=r.num("seat", 0, seats - 1, nil=True), hand=r.items("hand", reading.card, limit=MAX_CARDS),
        legal=r.items("legal", reading.action, limit=MAX_CARDS), unplayable=unplayable,
        hand_number=r.num("hand_number"), version=r.num("version"), total=r.num("total", -MAX_INT, MAX_INT),
        direction=_direction(r), turn=r.num("turn", 0, seats - 1, nil=True),
        obligation=None if obligation is None else Obligation(
            seat=obligation.num("seat", 0, seats - 1), plays_left=obligation.num("plays_left", 1, 2),
            can_pass=obligation.flag("can_pass")),
        hand_sizes=r.items("hand_sizes", reading.count, length=seats),
        active=r.items("active", reading.flag, length=seats), in_hand=r.items("in_hand", reading.flag, length=seats),
        open_draws=r.items("open_draws", reading.flag, length=seats),
        missed_draws=r.items("missed_draws", reading.count, length=seats),
        tokens=r.seq("tokens", reading.count, nil=True, length=seats),
        scores=r.seq("scores", reading.signed, nil=True, length=seats),
        draw_pile_size=r.num("draw_pile_size"), discard_size=r.num("discard_size"),
        top_card=_maybe_card(r, "top_card"),
        winner=r.num("winner", 0, seats - 1, nil=True),
        ranking=_ranking(r, seats))


def _maybe_card(r: reading.Reader, name: str) -> str | None:
    value = r.raw(name, reading.MISSING)
    return None if value is None else reading.card(value, r.at(name))


def _unplayable(v: Any, where: str) -> Unplayable:
    if isinstance(v, list | tuple):  # a server before keys sent [card, English reason]
        pair = reading.read_list(v, where, lambda x, w: x, length=2)
        assert pair is not None
        return Unplayable(card=reading.card(pair[0], f"{where}[0]"), why="", params={},
                          reason=cast(str, reading.read_str(pair[1], f"{where}[1]", MAX_TEXT)))
    r = reading.Reader(v, where)
    return Unplayable(card=reading.card(r.raw("card", reading.MISSING), r.at("card")), why=r.text("why", 64),
                      params=reading.params(r.raw("params", {}), r.at("params")), reason=r.text("reason"))


def _direction(r: reading.Reader) -> int:
    value = r.num("direction", -1, 1)
    if value == 0:
        raise reading.fault(r.at("direction"), "must be 1 or -1, not 0")
    return cast(int, value)


def _ranking(r: reading.Reader, seats: int) -> tuple[int, ...] | None:
    ranking = r.seq("ranking", reading.seat_no(seats), nil=True, length=seats)
    if ranking is not None and len(set(ranking)) != seats:
        raise reading.fault(r.at("ranking"), "must name every seat once")
    return ranking


def _event(seats: int) -> Callable[[Any, str], GameEvent]:
    seat_no = reading.seat_no(seats)

    def read(v: Any, where: str) -> GameEvent:
        r = reading.Reader(v, where)
        kind = r.text("e", 32)
        if kind == "play":
            return PlayEvent(seat=r.num("seat", 0, seats - 1), cards=_play_cards(r), total=r.num("total", -MAX_INT))
        if kind == "draw":
            return DrawEvent(seat=r.num("seat", 0, seats - 1), card=_maybe_card(r, "card"))
        if kind == "reshuffle":
            return ReshuffleEvent(size=r.num("size"))
        if kind == "missed_draw":
            return MissedDrawEvent(seat=r.num("seat", 0, seats - 1))
        if kind == "out":
            return OutEvent(seat=r.num("seat", 0, seats - 1))
        if kind == "hand_started":
            return HandStartedEvent(
                hand=r.num("hand"), dealer=r.num("dealer", 0, seats - 1), first=r.num("first", 0, seats - 1),
                hand_sizes=r.items("hand_sizes", reading.count, limit=seats),
                hands=r.items("hands", lambda x, w: reading.read_list(x, w, reading.card, nil=True, limit=MAX_CARDS),
                              limit=seats),
                draw_pile_size=r.num("draw_pile_size"))
        if kind == "hand_ended":
            return HandEndedEvent(
                hand=r.num("hand"), loser=r.num("loser", 0, seats - 1, nil=True),
                tokens=r.seq("tokens", reading.count, nil=True, limit=seats),
                scores=r.seq("scores", reading.signed, nil=True, limit=seats),
                hand_points=r.seq("hand_points", reading.signed, nil=True, limit=seats),
                eliminated=r.items("eliminated", seat_no, limit=seats))
        if kind == "game_over":
            return GameOverEvent(winner=r.num("winner", 0, seats - 1))
        return UnknownEvent(kind)

    return read


def _play_cards(r: reading.Reader) -> tuple[str, ...]:
    cards = r.items("cards", reading.card, limit=4)
    if len(cards) not in (1, 4):
        raise reading.fault(r.at("cards"), f"must hold one card or four ONO 99, not {len(cards)} cards")
    return cards


def _chat_line(v: Any, where: str) -> ChatLine:
    r = reading.Reader(v, where)
    return ChatLine(id=r.num("id", nil=True, default=None), sender=r.text("from", MAX_NAME_WIRE),
                    text=r.text("text", MAX_CHAT * 4), at=r.real("at"))


def _node_address(v: Any, where: str) -> NodeAddress:
    r = reading.Reader(v, where)
    return NodeAddress(host=r.text("host", 255), port=r.num("port", 1, 65535))


def _online_player(v: Any, where: str) -> OnlinePlayer:
    r = reading.Reader(v, where)
    return OnlinePlayer(name=r.text("name", MAX_NAME_WIRE), table=r.num("table", nil=True), away=r.flag("away"))


def _rating_row(key: str) -> Callable[[Any, str], RatingRow]:
    def read(v: Any, where: str) -> RatingRow:
        r = reading.Reader(v, where)
        return RatingRow(name=r.text(key, MAX_NAME_WIRE) if key == "name" else r.choice(key, BOT_LEVEL_NAMES),
                         games=r.num("games"), wins=r.num("wins"), rating=r.real("rating"), mu=r.real("mu"),
                         sigma=r.real("sigma", low=0.0), rated=r.num("rated"), provisional=r.flag("provisional"))
    return read


def _queued(r: reading.Reader) -> Queued:
    return Queued(edition=r.choice("edition", EDITIONS), seats=r.num("seats", 2, MAX_SEATS),
                  waiting=r.num("waiting", 1), position=r.num("position", 1), fill_in=r.real("fill_in", low=0.0))


def _queue_size(v: Any, where: str) -> QueueSize:
    r = reading.Reader(v, where)
    return QueueSize(edition=r.choice("edition", EDITIONS), seats=r.num("seats", 2, MAX_SEATS),
                     waiting=r.num("waiting", 1))


def _profile_edition(v: Any, where: str) -> ProfileEdition:
    r = reading.Reader(v, where)
    return ProfileEdition(edition=r.choice("edition", EDITIONS), games=r.num("games"), wins=r.num("wins"),
                          win_rate=r.real("win_rate", nil=True, low=0.0), rating=r.real("rating"), mu=r.real("mu"),
                          sigma=r.real("sigma", low=0.0), rated=r.num("rated"), provisional=r.flag("provisional"))


def _rating_point(v: Any, where: str) -> RatingPoint:
    r = reading.Reader(v, where)
    return RatingPoint(game=r.num("game", 1), edition=r.choice("edition", EDITIONS), at=r.real("at"),
                       rating=r.real("rating"), change=r.real("change"))


def _recent_game(v: Any, where: str) -> RecentGame:
    r = reading.Reader(v, where)
    return RecentGame(game=r.num("game", 1), edition=r.choice("edition", EDITIONS), at=r.real("at"),
                      place=r.num("place", 1, MAX_SEATS), won=r.flag("won"), credited=r.flag("credited"),
                      players=r.items("players", reading.name_text, limit=MAX_SEATS))


def _profile_arena(v: Any, where: str) -> ProfileArena:
    r = reading.Reader(v, where)
    return ProfileArena(arena=r.num("arena"), name=r.text("name", MAX_TABLE_NAME * 4),
                        edition=r.choice("edition", EDITIONS), at=r.real("at"),
                        status=r.choice("status", ARENA_STATUSES),
                        place=r.num("place", 1), players=r.num("players", 1), points=r.num("points"),
                        games=r.num("games"))


def _admin_row(value: Any, where: str) -> Params:
    """A row of an ``admin_result`` (or its params): as ``params``, with texts as long as a frame (chat
    lines, a record)."""
    if not isinstance(value, Mapping):
        raise reading.fault(where, f"must be a map, not {reading.type_of(value)}")
    out: dict[str, str | int] = {}
    for key, item in value.items():
        if isinstance(item, str):
            out[key] = cast(str, reading.read_str(item, f"{where}.{key}", MAX_FRAME))
        elif type(item) is int:
            out[key] = item
        else:
            raise reading.fault(f"{where}.{key}", f"must be str or int, not {reading.type_of(item)}")
    return out


def _arena_info(v: Any, where: str) -> ArenaInfo:
    r = reading.Reader(v, where)
    return ArenaInfo(id=r.num("id"), name=r.text("name", MAX_TABLE_NAME * 4), edition=r.choice("edition", EDITIONS),
                     seats=r.num("seats", 2, MAX_SEATS), minutes=r.num("minutes", 1),
                     status=r.choice("status", ARENA_STATUSES), starts_in=r.real("starts_in", low=0.0),
                     ends_in=r.real("ends_in", low=0.0), players=r.num("players"), private=r.flag("private"),
                     top_table=r.num("top_table", nil=True, default=None))


def _arena_standing(v: Any, where: str) -> ArenaStanding:
    r = reading.Reader(v, where)
    return ArenaStanding(place=r.num("place", 1), name=r.text("name", MAX_NAME_WIRE), points=r.num("points"),
                         games=r.num("games"), wins=r.num("wins"), fire=r.flag("fire"), playing=r.flag("playing"),
                         present=r.flag("present"))


def _arena_message(r: reading.Reader) -> ArenaMessage:
    you = r.raw("you", reading.MISSING)
    return ArenaMessage(arena=_arena_info(r.raw("arena", reading.MISSING), r.at("arena")),
                        code=r.text("code", 16, nil=True), joined=r.flag("joined"),
                        standings=r.items("standings", _arena_standing, limit=MAX_ARENA_SHOWN),
                        you=None if you is None else _arena_standing(you, r.at("you")),
                        next_in=r.real("next_in", nil=True, low=0.0),
                        podium=r.items("podium", reading.name_text, limit=MAX_SEATS))


def _state(r: reading.Reader) -> State:
    view = _view(r.raw("view", reading.MISSING), r.at("view"))
    return State(table=r.num("table"), game_no=r.num("game_no"), view=view,
                 events=r.items("events", _event(view.seats)), seq=r.num("seq", nil=True, default=None),
                 clock=r.real("clock", nil=True, low=0.0, default=None),
                 controlled_by_bot=r.items("controlled_by_bot", reading.flag, length=view.seats))


def _decode(kind: str, r: reading.Reader) -> ServerMessage:
    if kind == "state":
        return _state(r)
    if kind == "table":
        return TableMessage(table=_table_detail(r.raw("table", reading.MISSING), r.at("table")))
    if kind == "history":
        return History(table=r.num("table"), game_no=r.num("game_no"), seq=r.num("seq"), reset=r.flag("reset"),
                       events=r.items("events", _event(MAX_SEATS)))
    if kind == "chat":
        return Chat(scope=r.choice("scope", SCOPES), table=r.num("table", nil=True), line=_chat_line(r.data, kind))
    if kind == "chat_history":
        return ChatHistory(scope=r.choice("scope", SCOPES), table=r.num("table", nil=True),
                           messages=r.items("messages", _chat_line))
    if kind == "tables":
        tables = r.items("tables", _table_info)
        return Tables(tables=tables, total=r.num("total", default=len(tables)))
    if kind == "online":
        return Online(players=r.items("players", _online_player), total=r.num("total"))
    if kind == "queue":
        queued = r.sub("queued", nil=True)
        return Queue(queued=None if queued is None else _queued(queued), queues=r.items("queues", _queue_size),
                     wait=r.real("wait", low=0.0))
    if kind == "welcome":
        return Welcome(version=r.num("version"), server=r.text("server", 256), name=r.text("name", MAX_NAME_WIRE),
                       resume=r.text("resume", 256), resumed=r.flag("resumed"), table=r.num("table", nil=True),
                       identity=r.text("identity", 128, nil=True, default=None),
                       nodes=r.items("nodes", _node_address, limit=MAX_NODES, default=()))
    if kind == "error":
        return ErrorMessage(code=r.text("code", 64), reason=r.text("reason"),
                            ref=r.text("ref", 64, nil=True, default=None),
                            params=reading.params(r.raw("params", {}), r.at("params")))
    if kind in ("notice", "away"):
        code, text, params = r.text("code", 64, nil=True, default=None), r.text("text"), reading.params(
            r.raw("params", {}), r.at("params"))
        if kind == "away":
            return Away(table=r.num("table"), text=text, code=code, params=params)
        return Notice(table=r.num("table", nil=True), text=text, code=code, params=params)
    if kind == "left":
        return Left(table=r.num("table"))
    if kind == "leaderboard":
        return Leaderboard(edition=r.choice("edition", EDITIONS, nil=True), rows=r.items("rows", _rating_row("name")),
                           bots=r.items("bots", _rating_row("level"), default=[]))
    if kind == "profile":
        return Profile(name=r.text("name", MAX_NAME_WIRE), you=r.flag("you"),
                       editions=r.items("editions", _profile_edition), history=r.items("history", _rating_point),
                       recent=r.items("recent", _recent_game),
                       arenas=r.items("arenas", _profile_arena, limit=MAX_PROFILE_ARENAS, default=[]))
    if kind == "game_record":
        record = r.raw("record", reading.MISSING)
        if not isinstance(record, bytes):
            raise reading.fault(r.at("record"), f"must be bin, not {reading.type_of(record)}")
        return GameRecord(game=r.num("game", 1), record=record)
    if kind == "challenge":
        nonce = r.raw("nonce", reading.MISSING)
        if not isinstance(nonce, bytes) or len(nonce) > MAX_FRAME:
            raise reading.fault(r.at("nonce"), f"must be bin, not {reading.type_of(nonce)}")
        return Challenge(nonce=nonce)
    if kind == "pong":
        return Pong(n=r.num("n", nil=True, default=None))
    if kind == "bye":
        return Bye(reason=r.text("reason"))
    if kind == "safety":
        return Safety(muted=r.items("muted", reading.name_text), blocked=r.items("blocked", reading.name_text),
                      operator=r.flag("operator"))
    if kind == "admin_result":
        return AdminResult(command=r.text("command", 32), text=r.text("text"),
                           params=_admin_row(r.raw("params", {}), r.at("params")), rows=r.items("rows", _admin_row))
    if kind == "arenas":
        return Arenas(arenas=r.items("arenas", _arena_info, limit=MAX_ARENAS))
    if kind == "arena":
        return _arena_message(r)
    if kind == "arena_results":
        you = r.raw("you", None)
        return ArenaResults(arena=r.num("arena"), name=r.text("name", MAX_TABLE_NAME * 4),
                            edition=r.choice("edition", EDITIONS), at=r.real("at"), minutes=r.num("minutes", 1),
                            status=r.choice("status", ARENA_STATUSES),
                            standings=r.items("standings", _arena_standing, limit=MAX_ARENA_SHOWN),
                            you=None if you is None else _arena_standing(you, r.at("you")),
                            podium=r.items("podium", reading.name_text, limit=MAX_SEATS))
    if kind == "arena_game":
        return ArenaGame(arena=r.num("arena"), table=r.num("table"), starts_in=r.real("starts_in", low=0.0))
    return UnknownMessage(kind)


def decode_online_player(player: Mapping[str, Any]) -> OnlinePlayer:
    """An ONLINE PLAYER map (an entry of an ``online`` message), checked as the decoder checks it there."""
    return _online_player(player, "online.players")


def decode_table_info(table: Mapping[str, Any]) -> TableInfo:
    """A TABLE INFO map (an entry of a ``tables`` message), checked as the decoder checks it there."""
    return _table_info(table, "tables.tables")


def decode_table_detail(table: Mapping[str, Any]) -> TableDetail:
    """A TABLE DETAIL map (a ``table`` message's ``table``), checked as the decoder checks it there."""
    return _table_detail(table, "table.table")


def decode_server_message(message: Mapping[str, Any]) -> ServerMessage:
    """``message`` (a server's map, as the frame decoder yields it) as a typed value. Raises
    ``ProtocolError`` (code ``bad_message`` or ``bad_field``) with a reason naming the message type and
    the field when a field is missing, of the wrong type or out of range; an unknown type decodes to
    ``UnknownMessage``."""
    if not isinstance(message, Mapping):
        raise ProtocolError("bad_message", f"a server message must be a map, not {reading.type_of(message)}")
    kind = message.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a server message needs a text field 't' naming its type")
    kind = kind[:32]
    try:
        return _decode(kind, reading.Reader(message, kind))
    except RecursionError:
        raise ProtocolError("bad_message", f"the server's {kind} is nested too deeply") from None
