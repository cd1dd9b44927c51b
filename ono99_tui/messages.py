"""Server messages as typed values: what a client decodes every server message into, once, where
it arrives. ``decode_server_message`` checks every field as the server checks a client's messages
(types, ranges, lengths, seat numbers within the table) and raises ``ProtocolError`` naming the
message type and the field; everything above it reads attributes, never dict keys.

The shapes are those of docs/protocol.md (sections 5 to 7). Unknown extra fields are ignored, and a
message type this version does not know decodes to ``UnknownMessage`` (a newer server may send
more), which a client ignores. Names and chat are carried as they arrived: shown as plain text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

from .core.cards import CODES
from .core.errors import OptionError
from .core.options import TableOptions
from .protocol import BOT_LEVEL_NAMES, MAX_CHAT, MAX_FRAME, MAX_TABLE_NAME, ProtocolError

Edition = Literal["2022", "1980"]
SeatKind = Literal["empty", "human", "bot"]
TableStatus = Literal["waiting", "playing", "finished"]
Scope = Literal["table", "lobby"]
EDITIONS: tuple[Edition, ...] = ("2022", "1980")
SEAT_KINDS: tuple[SeatKind, ...] = ("empty", "human", "bot")
STATUSES: tuple[TableStatus, ...] = ("waiting", "playing", "finished")
SCOPES: tuple[Scope, ...] = ("table", "lobby")

MAX_SEATS = 8  # the most seats a table has (docs/protocol.md, create_table.seats)
MAX_INT = 2**63 - 1  # counters the server keeps (ids, seq, versions, chat ids)
MAX_NAME_WIRE = 64  # a player's name as the server sends it (20 characters, or "<name> (bot)")
MAX_TEXT = 4096  # English reasons and notices, summaries
MAX_CARDS = 200  # cards in one hand or pile: a deck holds fewer
CARD_CODES = frozenset(CODES)
ACTION_CODES = CARD_CODES | {"ONO99x4", "draw"}
PARAM_LIMIT = 256  # characters of one reason parameter


# --- tables --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Seat:
    kind: SeatKind
    name: str
    level: str | None  # bots
    connected: bool | None  # humans: False while away


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


@dataclass(frozen=True, slots=True)
class TableDetail(TableInfo):
    """The table one is at, as one of its members sees it (TABLE DETAIL)."""

    code: str | None  # the invite code of a private table
    you: int | None  # your seat; None for a spectator
    watchers: tuple[str, ...]
    waiting: tuple[str, ...]


# --- views and events ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Obligation:
    seat: int
    plays_left: int
    can_pass: bool


@dataclass(frozen=True, slots=True)
class Unplayable:
    """A card the recipient cannot play now, and why: ``why`` is the key (and ``params`` the values) an
    ``illegal_action`` error refusing it would carry, ``reason`` the server's English text ("" when the
    server sent none); ``why`` is "" from a server that sent the English text alone."""

    card: str
    why: str
    params: Mapping[str, str | int]
    reason: str


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


@dataclass(frozen=True, slots=True)
class PlayEvent:
    seat: int
    cards: tuple[str, ...]  # one card, or four "ONO99"
    total: int


@dataclass(frozen=True, slots=True)
class DrawEvent:
    seat: int
    card: str | None  # only for the drawing seat itself


@dataclass(frozen=True, slots=True)
class ReshuffleEvent:
    size: int


@dataclass(frozen=True, slots=True)
class MissedDrawEvent:
    seat: int


@dataclass(frozen=True, slots=True)
class OutEvent:
    seat: int


@dataclass(frozen=True, slots=True)
class HandStartedEvent:
    hand: int
    dealer: int
    first: int
    hand_sizes: tuple[int, ...]
    hands: tuple[tuple[str, ...] | None, ...]
    draw_pile_size: int


@dataclass(frozen=True, slots=True)
class HandEndedEvent:
    hand: int
    loser: int | None
    tokens: tuple[int, ...] | None
    scores: tuple[int, ...] | None
    hand_points: tuple[int, ...] | None
    eliminated: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOverEvent:
    winner: int


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event kind this version does not know (a newer server's): skipped."""

    e: str


GameEvent = (PlayEvent | DrawEvent | ReshuffleEvent | MissedDrawEvent | OutEvent | HandStartedEvent
             | HandEndedEvent | GameOverEvent | UnknownEvent)


# --- lobby, chat, play now, ratings ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChatLine:
    id: int | None
    sender: str  # the wire's "from"
    text: str
    at: float


@dataclass(frozen=True, slots=True)
class OnlinePlayer:
    name: str
    table: int | None
    away: bool


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


@dataclass(frozen=True, slots=True)
class Queued:
    edition: Edition
    seats: int
    waiting: int
    position: int
    fill_in: float


@dataclass(frozen=True, slots=True)
class QueueSize:
    edition: Edition
    seats: int
    waiting: int


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


@dataclass(frozen=True, slots=True)
class RatingPoint:
    game: int
    edition: Edition
    at: float
    rating: float
    change: float


@dataclass(frozen=True, slots=True)
class RecentGame:
    game: int
    edition: Edition
    at: float
    place: int
    won: bool
    credited: bool
    players: tuple[str, ...]


# --- messages ----------------------------------------------------------------------------------------------
Params = Mapping[str, str | int]


@dataclass(frozen=True, slots=True)
class Welcome:
    version: int
    server: str
    name: str
    resume: str
    resumed: bool
    table: int | None
    identity: str | None
    t: Literal["welcome"] = "welcome"


@dataclass(frozen=True, slots=True)
class Challenge:
    nonce: bytes
    t: Literal["challenge"] = "challenge"


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    code: str
    reason: str
    ref: str | None
    params: Params
    t: Literal["error"] = "error"


@dataclass(frozen=True, slots=True)
class Tables:
    tables: tuple[TableInfo, ...]
    total: int
    t: Literal["tables"] = "tables"


@dataclass(frozen=True, slots=True)
class TableMessage:
    table: TableDetail
    t: Literal["table"] = "table"


@dataclass(frozen=True, slots=True)
class Left:
    table: int
    t: Literal["left"] = "left"


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


@dataclass(frozen=True, slots=True)
class History:
    table: int
    game_no: int
    seq: int
    reset: bool
    events: tuple[GameEvent, ...]
    t: Literal["history"] = "history"


@dataclass(frozen=True, slots=True)
class Chat:
    scope: Scope
    table: int | None
    line: ChatLine
    t: Literal["chat"] = "chat"


@dataclass(frozen=True, slots=True)
class ChatHistory:
    scope: Scope
    table: int | None
    messages: tuple[ChatLine, ...]
    t: Literal["chat_history"] = "chat_history"


@dataclass(frozen=True, slots=True)
class Notice:
    table: int | None
    text: str
    code: str | None
    params: Params
    t: Literal["notice"] = "notice"


@dataclass(frozen=True, slots=True)
class Away:
    table: int
    text: str
    code: str | None
    params: Params
    t: Literal["away"] = "away"


@dataclass(frozen=True, slots=True)
class Online:
    players: tuple[OnlinePlayer, ...]
    total: int
    t: Literal["online"] = "online"


@dataclass(frozen=True, slots=True)
class Leaderboard:
    edition: Edition | None
    rows: tuple[RatingRow, ...]
    bots: tuple[RatingRow, ...]  # ``name`` is the bot level
    t: Literal["leaderboard"] = "leaderboard"


@dataclass(frozen=True, slots=True)
class Queue:
    queued: Queued | None
    queues: tuple[QueueSize, ...]
    wait: float
    t: Literal["queue"] = "queue"


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    you: bool
    editions: tuple[ProfileEdition, ...]
    history: tuple[RatingPoint, ...]
    recent: tuple[RecentGame, ...]
    t: Literal["profile"] = "profile"


@dataclass(frozen=True, slots=True)
class GameRecord:
    game: int
    record: bytes
    t: Literal["game_record"] = "game_record"


@dataclass(frozen=True, slots=True)
class Pong:
    n: int | None
    t: Literal["pong"] = "pong"


@dataclass(frozen=True, slots=True)
class Bye:
    reason: str
    t: Literal["bye"] = "bye"


@dataclass(frozen=True, slots=True)
class UnknownMessage:
    """A message type this version does not know (a newer server's): ignored."""

    type: str
    t: Literal["unknown"] = "unknown"


ServerMessage = (Welcome | Challenge | ErrorMessage | Tables | TableMessage | Left | State | History | Chat
                 | ChatHistory | Notice | Away | Online | Leaderboard | Queue | Profile | GameRecord | Pong | Bye
                 | UnknownMessage)


# --- reading fields ----------------------------------------------------------------------------------------
T = TypeVar("T")
_MISSING = object()


class _Reader:
    """The fields of one map of a message, each checked as it is read. ``where`` names the map in
    a reason, e.g. ``state.view`` or ``tables.tables[3].seats[0]``."""

    __slots__ = ("data", "where")

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, Mapping):
            raise _fault(where, f"must be a map, not {_type(data)}")
        self.data: Mapping[str, Any] = data
        self.where = where

    def _get(self, name: str, default: object) -> Any:
        value = self.data.get(name, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise _fault(f"{self.where}.{name}", "is missing")
            return default
        return value

    def at(self, name: str) -> str:
        return f"{self.where}.{name}"

    def num(self, name: str, low: int = 0, high: int = MAX_INT, *, nil: bool = False,
            default: object = _MISSING) -> Any:
        return _int(self._get(name, default), self.at(name), low, high, nil=nil)

    def text(self, name: str, limit: int = MAX_TEXT, *, nil: bool = False, default: object = _MISSING) -> Any:
        return _str(self._get(name, default), self.at(name), limit, nil=nil)

    def choice(self, name: str, choices: Sequence[str], *, nil: bool = False, default: object = _MISSING) -> Any:
        return _choice(self._get(name, default), self.at(name), choices, nil=nil)

    def flag(self, name: str, *, nil: bool = False, default: object = _MISSING) -> Any:
        return _bool(self._get(name, default), self.at(name), nil=nil)

    def real(self, name: str, *, nil: bool = False, low: float = -math.inf, default: object = _MISSING) -> Any:
        return _float(self._get(name, default), self.at(name), nil=nil, low=low)

    def seq(self, name: str, item: Callable[[Any, str], T], *, nil: bool = False, length: int | None = None,
             limit: int = 4096, default: object = _MISSING) -> tuple[T, ...] | None:
        return _list(self._get(name, default), self.at(name), item, nil=nil, length=length, limit=limit)

    def items(self, name: str, item: Callable[[Any, str], T], *, length: int | None = None,
              limit: int = 4096, default: object = _MISSING) -> tuple[T, ...]:
        """A list that is never nil."""
        return cast(tuple[T, ...], self.seq(name, item, length=length, limit=limit, default=default))

    def sub(self, name: str, *, nil: bool = False, default: object = _MISSING) -> _Reader | None:
        value = self._get(name, default)
        if value is None and nil:
            return None
        return _Reader(value, self.at(name))


def _fault(where: str, problem: str) -> ProtocolError:
    return ProtocolError("bad_field", f"the server's {where} {problem}")


def _type(value: object) -> str:
    return "nil" if value is None else type(value).__name__


def _int(value: Any, where: str, low: int, high: int, *, nil: bool = False) -> int | None:
    if value is None and nil:
        return None
    if type(value) is not int:
        raise _fault(where, f"must be int{' or nil' if nil else ''}, not {_type(value)}")
    if not low <= value <= high:
        raise _fault(where, f"must be from {low} to {high}, not {value}")
    return value


def _str(value: Any, where: str, limit: int, *, nil: bool = False) -> str | None:
    if value is None and nil:
        return None
    if not isinstance(value, str):
        raise _fault(where, f"must be str{' or nil' if nil else ''}, not {_type(value)}")
    if len(value) > limit:
        raise _fault(where, f"must be at most {limit} characters, not {len(value)}")
    return value


def _choice(value: Any, where: str, choices: Sequence[str], *, nil: bool = False) -> str | None:
    if value is None and nil:
        return None
    if not isinstance(value, str) or value not in choices:
        shown = value[:32] if isinstance(value, str) else _type(value)
        raise _fault(where, f"must be one of {', '.join(choices)}{' or nil' if nil else ''}, not {shown!r}")
    return value


def _bool(value: Any, where: str, *, nil: bool = False) -> bool | None:
    if value is None and nil:
        return None
    if not isinstance(value, bool):
        raise _fault(where, f"must be bool{' or nil' if nil else ''}, not {_type(value)}")
    return value


def _float(value: Any, where: str, *, nil: bool = False, low: float = -math.inf) -> float | None:
    """A float; a whole number is taken too (a float that happens to be whole may be packed as one)."""
    if value is None and nil:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fault(where, f"must be float{' or nil' if nil else ''}, not {_type(value)}")
    number = float(value) if isinstance(value, float) or abs(value) < 2**53 else math.nan
    if not math.isfinite(number) or number < low:
        raise _fault(where, f"must be a finite number of at least {low}, not {value}")
    return number


def _list(value: Any, where: str, item: Callable[[Any, str], T], *, nil: bool = False,
          length: int | None = None, limit: int = 4096) -> tuple[T, ...] | None:
    if value is None and nil:
        return None
    if not isinstance(value, list | tuple):
        raise _fault(where, f"must be a list{' or nil' if nil else ''}, not {_type(value)}")
    if length is not None and len(value) != length:
        raise _fault(where, f"must have {length} entries (one per seat), not {len(value)}")
    if len(value) > limit:
        raise _fault(where, f"must have at most {limit} entries, not {len(value)}")
    return tuple(item(v, f"{where}[{i}]") for i, v in enumerate(value))


# element readers
def _seat_no(seats: int) -> Callable[[Any, str], int]:
    return lambda v, where: cast(int, _int(v, where, 0, seats - 1))


def _count(v: Any, where: str) -> int:
    return cast(int, _int(v, where, 0, MAX_INT))


def _signed(v: Any, where: str) -> int:
    return cast(int, _int(v, where, -MAX_INT, MAX_INT))


def _flag(v: Any, where: str) -> bool:
    return cast(bool, _bool(v, where))


def _card(v: Any, where: str) -> str:
    return cast(str, _choice(v, where, tuple(CODES)))


def _action(v: Any, where: str) -> str:
    if not isinstance(v, str) or v not in ACTION_CODES:
        raise _fault(where, f"must be an action code, not {v!r}"[:200])
    return v


def _name(v: Any, where: str) -> str:
    return cast(str, _str(v, where, MAX_NAME_WIRE))


def _options(edition: str, value: Any, where: str) -> TableOptions:
    if not isinstance(value, Mapping):
        raise _fault(where, f"must be a map, not {_type(value)}")
    try:  # options a newer server adds are ignored, as unknown fields are
        return TableOptions.from_mapping(edition, value, strict=False)
    except (OptionError, TypeError, ValueError) as exc:
        raise _fault(where, f"are not valid: {exc}"[:300]) from None


def _params(value: Any, where: str) -> Params:
    if not isinstance(value, Mapping):
        raise _fault(where, f"must be a map, not {_type(value)}")
    out: dict[str, str | int] = {}
    for key, item in value.items():
        if isinstance(item, str):
            out[key] = cast(str, _str(item, f"{where}.{key}", PARAM_LIMIT))
        elif type(item) is int:
            out[key] = item
        else:
            raise _fault(f"{where}.{key}", f"must be str or int, not {_type(item)}")
    return out


# --- decoding ----------------------------------------------------------------------------------------------
def _seat(v: Any, where: str) -> Seat:
    r = _Reader(v, where)
    return Seat(kind=r.choice("kind", SEAT_KINDS), name=r.text("name", MAX_NAME_WIRE),
                level=r.text("level", 32, nil=True), connected=r.flag("connected", nil=True))


def _table_fields(r: _Reader) -> dict[str, Any]:
    edition = r.choice("edition", EDITIONS)
    seats = r.items("seats", _seat, limit=MAX_SEATS)
    if len(seats) < 2:
        raise _fault(r.at("seats"), f"must have 2 to {MAX_SEATS} entries, not {len(seats)}")
    return {"id": r.num("id"), "name": r.text("name", MAX_TABLE_NAME * 2), "edition": edition,
            "options": _options(edition, r._get("options", _MISSING), r.at("options")),
            "summary": r.text("summary"), "host": r.text("host", MAX_NAME_WIRE), "status": r.choice("status", STATUSES),
            "private": r.flag("private"), "seats": seats, "free": r.num("free", 0, MAX_SEATS),
            "bots": r.num("bots", 0, MAX_SEATS), "spectators": r.num("spectators"),
            "replace_bots": r.flag("replace_bots"), "turn_seconds": r.num("turn_seconds", 0, 86400),
            "bot_level": r.text("bot_level", 32), "game_no": r.num("game_no"),
            "winner": r.num("winner", 0, len(seats) - 1, nil=True),
            "name_code": r.text("name_code", 32, nil=True, default=None),
            "name_params": _params(r._get("name_params", {}), r.at("name_params"))}


def _table_info(v: Any, where: str) -> TableInfo:
    return TableInfo(**_table_fields(_Reader(v, where)))


def _table_detail(v: Any, where: str) -> TableDetail:
    r = _Reader(v, where)
    fields = _table_fields(r)
    return TableDetail(**fields, code=r.text("code", 16, nil=True),
                       you=r.num("you", 0, len(fields["seats"]) - 1, nil=True),
                       watchers=r.items("watchers", _name, limit=4096), waiting=r.items("waiting", _name, limit=4096))


def _view(v: Any, where: str) -> View:
    r = _Reader(v, where)
    edition = r.choice("edition", EDITIONS)
    seats = r.num("seats", 2, MAX_SEATS)
    obligation = r.sub("obligation", nil=True)
    unplayable = r.items("unplayable", _unplayable, limit=MAX_CARDS)
    return View(
        edition=edition, options=_options(edition, r._get("options", _MISSING), r.at("options")), seats=seats,
        seat=r.num("seat", 0, seats - 1, nil=True), hand=r.items("hand", _card, limit=MAX_CARDS),
        legal=r.items("legal", _action, limit=MAX_CARDS), unplayable=unplayable,
        hand_number=r.num("hand_number"), version=r.num("version"), total=r.num("total", -MAX_INT, MAX_INT),
        direction=_direction(r), turn=r.num("turn", 0, seats - 1, nil=True),
        obligation=None if obligation is None else Obligation(
            seat=obligation.num("seat", 0, seats - 1), plays_left=obligation.num("plays_left", 1, 2),
            can_pass=obligation.flag("can_pass")),
        hand_sizes=r.items("hand_sizes", _count, length=seats), active=r.items("active", _flag, length=seats),
        in_hand=r.items("in_hand", _flag, length=seats), open_draws=r.items("open_draws", _flag, length=seats),
        missed_draws=r.items("missed_draws", _count, length=seats),
        tokens=r.seq("tokens", _count, nil=True, length=seats),
        scores=r.seq("scores", _signed, nil=True, length=seats),
        draw_pile_size=r.num("draw_pile_size"), discard_size=r.num("discard_size"),
        top_card=_maybe_card(r, "top_card"),
        winner=r.num("winner", 0, seats - 1, nil=True),
        ranking=_ranking(r, seats))


def _maybe_card(r: _Reader, name: str) -> str | None:
    value = r._get(name, _MISSING)
    return None if value is None else _card(value, r.at(name))


def _unplayable(v: Any, where: str) -> Unplayable:
    if isinstance(v, list | tuple):  # a server before keys sent [card, English reason]
        pair = _list(v, where, lambda x, w: x, length=2)
        assert pair is not None
        return Unplayable(card=_card(pair[0], f"{where}[0]"), why="", params={},
                          reason=cast(str, _str(pair[1], f"{where}[1]", MAX_TEXT)))
    r = _Reader(v, where)
    return Unplayable(card=_card(r._get("card", _MISSING), r.at("card")), why=r.text("why", 64),
                      params=_params(r._get("params", {}), r.at("params")), reason=r.text("reason"))


def _direction(r: _Reader) -> int:
    value = r.num("direction", -1, 1)
    if value == 0:
        raise _fault(r.at("direction"), "must be 1 or -1, not 0")
    return cast(int, value)


def _ranking(r: _Reader, seats: int) -> tuple[int, ...] | None:
    ranking = r.seq("ranking", _seat_no(seats), nil=True, length=seats)
    if ranking is not None and len(set(ranking)) != seats:
        raise _fault(r.at("ranking"), "must name every seat once")
    return ranking


def _event(seats: int) -> Callable[[Any, str], GameEvent]:
    seat_no = _seat_no(seats)

    def read(v: Any, where: str) -> GameEvent:
        r = _Reader(v, where)
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
                hand_sizes=r.items("hand_sizes", _count, limit=seats),
                hands=r.items("hands", lambda x, w: _list(x, w, _card, nil=True, limit=MAX_CARDS), limit=seats),
                draw_pile_size=r.num("draw_pile_size"))
        if kind == "hand_ended":
            return HandEndedEvent(
                hand=r.num("hand"), loser=r.num("loser", 0, seats - 1, nil=True),
                tokens=r.seq("tokens", _count, nil=True, limit=seats),
                scores=r.seq("scores", _signed, nil=True, limit=seats),
                hand_points=r.seq("hand_points", _signed, nil=True, limit=seats),
                eliminated=r.items("eliminated", seat_no, limit=seats))
        if kind == "game_over":
            return GameOverEvent(winner=r.num("winner", 0, seats - 1))
        return UnknownEvent(kind)

    return read


def _play_cards(r: _Reader) -> tuple[str, ...]:
    cards = r.items("cards", _card, limit=4)
    if len(cards) not in (1, 4):
        raise _fault(r.at("cards"), f"must hold one card or four ONO 99, not {len(cards)} cards")
    return cards


def _chat_line(v: Any, where: str) -> ChatLine:
    r = _Reader(v, where)
    return ChatLine(id=r.num("id", nil=True, default=None), sender=r.text("from", MAX_NAME_WIRE),
                    text=r.text("text", MAX_CHAT * 4), at=r.real("at"))


def _online_player(v: Any, where: str) -> OnlinePlayer:
    r = _Reader(v, where)
    return OnlinePlayer(name=r.text("name", MAX_NAME_WIRE), table=r.num("table", nil=True), away=r.flag("away"))


def _rating_row(key: str) -> Callable[[Any, str], RatingRow]:
    def read(v: Any, where: str) -> RatingRow:
        r = _Reader(v, where)
        return RatingRow(name=r.text(key, MAX_NAME_WIRE) if key == "name" else r.choice(key, BOT_LEVEL_NAMES),
                         games=r.num("games"), wins=r.num("wins"), rating=r.real("rating"), mu=r.real("mu"),
                         sigma=r.real("sigma", low=0.0), rated=r.num("rated"), provisional=r.flag("provisional"))
    return read


def _queued(r: _Reader) -> Queued:
    return Queued(edition=r.choice("edition", EDITIONS), seats=r.num("seats", 2, MAX_SEATS),
                  waiting=r.num("waiting", 1), position=r.num("position", 1), fill_in=r.real("fill_in", low=0.0))


def _queue_size(v: Any, where: str) -> QueueSize:
    r = _Reader(v, where)
    return QueueSize(edition=r.choice("edition", EDITIONS), seats=r.num("seats", 2, MAX_SEATS),
                     waiting=r.num("waiting", 1))


def _profile_edition(v: Any, where: str) -> ProfileEdition:
    r = _Reader(v, where)
    return ProfileEdition(edition=r.choice("edition", EDITIONS), games=r.num("games"), wins=r.num("wins"),
                          win_rate=r.real("win_rate", nil=True, low=0.0), rating=r.real("rating"), mu=r.real("mu"),
                          sigma=r.real("sigma", low=0.0), rated=r.num("rated"), provisional=r.flag("provisional"))


def _rating_point(v: Any, where: str) -> RatingPoint:
    r = _Reader(v, where)
    return RatingPoint(game=r.num("game", 1), edition=r.choice("edition", EDITIONS), at=r.real("at"),
                       rating=r.real("rating"), change=r.real("change"))


def _recent_game(v: Any, where: str) -> RecentGame:
    r = _Reader(v, where)
    return RecentGame(game=r.num("game", 1), edition=r.choice("edition", EDITIONS), at=r.real("at"),
                      place=r.num("place", 1, MAX_SEATS), won=r.flag("won"), credited=r.flag("credited"),
                      players=r.items("players", _name, limit=MAX_SEATS))


def _state(r: _Reader) -> State:
    view = _view(r._get("view", _MISSING), r.at("view"))
    return State(table=r.num("table"), game_no=r.num("game_no"), view=view,
                 events=r.items("events", _event(view.seats)), seq=r.num("seq", nil=True, default=None),
                 clock=r.real("clock", nil=True, low=0.0, default=None),
                 controlled_by_bot=r.items("controlled_by_bot", _flag, length=view.seats))


def _decode(kind: str, r: _Reader) -> ServerMessage:
    if kind == "state":
        return _state(r)
    if kind == "table":
        return TableMessage(table=_table_detail(r._get("table", _MISSING), r.at("table")))
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
                       identity=r.text("identity", 128, nil=True, default=None))
    if kind == "error":
        return ErrorMessage(code=r.text("code", 64), reason=r.text("reason"),
                            ref=r.text("ref", 64, nil=True, default=None),
                            params=_params(r._get("params", {}), r.at("params")))
    if kind in ("notice", "away"):
        code, text, params = r.text("code", 64, nil=True, default=None), r.text("text"), _params(
            r._get("params", {}), r.at("params"))
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
                       recent=r.items("recent", _recent_game))
    if kind == "game_record":
        record = r._get("record", _MISSING)
        if not isinstance(record, bytes):
            raise _fault(r.at("record"), f"must be bin, not {_type(record)}")
        return GameRecord(game=r.num("game", 1), record=record)
    if kind == "challenge":
        nonce = r._get("nonce", _MISSING)
        if not isinstance(nonce, bytes) or len(nonce) > MAX_FRAME:
            raise _fault(r.at("nonce"), f"must be bin, not {_type(nonce)}")
        return Challenge(nonce=nonce)
    if kind == "pong":
        return Pong(n=r.num("n", nil=True, default=None))
    if kind == "bye":
        return Bye(reason=r.text("reason"))
    return UnknownMessage(kind)


def decode_server_message(message: Mapping[str, Any]) -> ServerMessage:
    """``message`` (a server's map, as the frame decoder yields it) as a typed value. Raises
    ``ProtocolError`` (code ``bad_message`` or ``bad_field``) with a reason naming the message type and
    the field when a field is missing, of the wrong type or out of range; an unknown type decodes to
    ``UnknownMessage``."""
    if not isinstance(message, Mapping):
        raise ProtocolError("bad_message", f"a server message must be a map, not {_type(message)}")
    kind = message.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a server message needs a text field 't' naming its type")
    kind = kind[:32]
    try:
        return _decode(kind, _Reader(message, kind))
    except RecursionError:
        raise ProtocolError("bad_message", f"the server's {kind} is nested too deeply") from None
