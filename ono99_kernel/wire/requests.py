"""Client requests as typed values, both ways: what a client builds and sends (``to_wire``), and
what the server validates every client message into, once, at its edge (``decode_request``).

Each request is a frozen dataclass; each of its fields declares the one rule a value must meet on the
wire (its type and, for some, a range, a length or a set of values; docs/protocol.md section 4). A
field the client leaves out is None, and ``to_wire`` leaves a None field out. Unknown extra fields
are ignored (a newer client may send more). What depends on the server's state (names taken, the
table's seats, the options' combinations) is judged by the handler the request goes to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Literal

from ..core.arena import ARENA_MINUTES, ARENA_SEATS
from ..core.series import SERIES_GAMES, SERIES_POINTS
from ..protocol import (
    ADMIN_COMMANDS,
    BOT_LEVEL_NAMES,
    MAX_BAN_SECONDS,
    MAX_CHAT,
    MAX_PUBLIC_KEY,
    MAX_TABLE_NAME,
    MAX_WIRE_INT,
    PROTOCOL_VERSION,
    ProtocolError,
)
from .common import EDITIONS, SCOPES, Edition, Scope

SEEN_KEYS = ("table", "seq", "chat", "lobby_chat")  # what a hello's ``seen`` may say (docs/protocol.md section 10)


@dataclass(frozen=True, slots=True)
class Rule:
    """What a field's value must be on the wire."""

    kind: type
    check: Callable[[Any], str | None] | None = None  # the reason a value of that kind is wrong, if it is
    convert: Callable[[Any], Any] | None = None  # the typed value of a valid one, when it is not the value itself

    def fault(self, value: Any) -> tuple[str, str] | None:
        """Whether ``value`` breaks this rule by its ``"type"`` or its ``"value"``, and how (the end of a
        reason: "must be ..."); None when it keeps it."""
        if not isinstance(value, self.kind) or (isinstance(value, bool) and self.kind is not bool):
            return "type", f"must be {self.kind.__name__}, not {type(value).__name__}"
        problem = None if self.check is None else self.check(value)
        return None if problem is None else ("value", problem)


def rule(kind: type, check: Callable[[Any], str | None] | None = None,
         convert: Callable[[Any], Any] | None = None) -> dict[str, Rule]:
    """A field's metadata: its rule."""
    return {"rule": Rule(kind, check, convert)}


def _range(low: int, high: int) -> Callable[[Any], str | None]:
    return lambda v: None if low <= v <= high else f"must be from {low} to {high}"


def _one_of(*values: str) -> Callable[[Any], str | None]:
    return lambda v: None if v in values else f"must be one of {', '.join(values)}"


def _max_len(limit: int) -> Callable[[Any], str | None]:
    return lambda v: None if len(v) <= limit else f"must be at most {limit} characters"


def _seen(value: Mapping[str, Any]) -> dict[str, int]:
    """A hello's ``seen``: only its known keys whose values are whole numbers (the others are ignored)."""
    return {k: v for k, v in value.items() if k in SEEN_KEYS and type(v) is int}


SEAT = _range(0, 7)
TABLE_ID = _range(0, MAX_WIRE_INT)
EDITION = _one_of(*EDITIONS)
BOT_LEVEL = _one_of(*BOT_LEVEL_NAMES)
SERIES_GAMES_RANGE = _range(*SERIES_GAMES)
SERIES_POINTS_RANGE = _range(*SERIES_POINTS)


@dataclass(frozen=True, slots=True)
class _Request:
    """What every request does: say its fields as the protocol's map."""

    _kind: ClassVar[str] = ""  # its ``t`` (each type's field ``t`` has that one value)
    _names: ClassVar[tuple[str, ...]] = ()  # its fields but ``t``, in order

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"t": self._kind}
        for name in self._names:
            value = getattr(self, name)
            if value is not None:
                wire[name] = dict(value) if isinstance(value, Mapping) else value
        return wire


# --- before the welcome ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(_Request):
    """The first request (section 3). Its ``version`` and ``front`` are judged where the server takes the
    hello, after its fields: a wrong version is ``version_mismatch`` (fatal), a front is checked by
    ``ono99_kernel.fronts.check_front``."""

    version: int = field(metadata=rule(int))
    name: str = field(metadata=rule(str, _max_len(64)))
    resume: str | None = field(default=None, metadata=rule(str, _max_len(128)))
    client: str | None = field(default=None, metadata=rule(str, _max_len(64)))
    key: str | None = field(default=None, metadata=rule(str, _max_len(MAX_PUBLIC_KEY)))
    password: str | None = field(default=None, metadata=rule(str, _max_len(256)))
    admin: bool | None = field(default=None, metadata=rule(bool))  # an operator's session (section 5b)
    seen: Mapping[str, int] | None = field(default=None, metadata=rule(dict, convert=_seen))
    front: Mapping[str, Any] | None = field(default=None, metadata=rule(dict))
    t: Literal["hello"] = "hello"

    def check_version(self) -> None:
        if self.version != PROTOCOL_VERSION:
            raise ProtocolError("version_mismatch",
                                f"this server speaks protocol version {PROTOCOL_VERSION}, the client "
                                f"{self.version}; update the client", fatal=True,
                                params={"server": PROTOCOL_VERSION, "client": str(self.version)[:20]})


@dataclass(frozen=True, slots=True, kw_only=True)
class Prove(_Request):
    signature: bytes = field(metadata=rule(bytes, _max_len(1024)))
    t: Literal["prove"] = "prove"


# --- the lobby and tables ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class ListTables(_Request):
    t: Literal["list_tables"] = "list_tables"


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTable(_Request):
    """``options`` is checked with the edition when the table is made (``bad_options``)."""

    name: str | None = field(default=None, metadata=rule(str, _max_len(MAX_TABLE_NAME)))
    edition: Edition | None = field(default=None, metadata=rule(str, EDITION))
    options: Mapping[str, Any] | None = field(default=None, metadata=rule(dict))
    seats: int | None = field(default=None, metadata=rule(int, _range(2, 8)))
    bots: int | None = field(default=None, metadata=rule(int, _range(0, 7)))
    bot_level: str | None = field(default=None, metadata=rule(str, BOT_LEVEL))
    turn_seconds: int | None = field(default=None, metadata=rule(int, _range(0, 600)))
    private: bool | None = field(default=None, metadata=rule(bool))
    start: bool | None = field(default=None, metadata=rule(bool))
    replace_bots: bool | None = field(default=None, metadata=rule(bool))
    hints: bool | None = field(default=None, metadata=rule(bool))
    series_games: int | None = field(default=None, metadata=rule(int, SERIES_GAMES_RANGE))
    series_points: int | None = field(default=None, metadata=rule(int, SERIES_POINTS_RANGE))
    t: Literal["create_table"] = "create_table"


@dataclass(frozen=True, slots=True, kw_only=True)
class Join(_Request):
    table: int | None = field(default=None, metadata=rule(int, TABLE_ID))
    code: str | None = field(default=None, metadata=rule(str, _max_len(16)))
    seat: int | None = field(default=None, metadata=rule(int, SEAT))
    t: Literal["join"] = "join"


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectate(_Request):
    table: int | None = field(default=None, metadata=rule(int, TABLE_ID))
    code: str | None = field(default=None, metadata=rule(str, _max_len(16)))
    t: Literal["spectate"] = "spectate"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sit(_Request):
    seat: int | None = field(default=None, metadata=rule(int, SEAT))
    t: Literal["sit"] = "sit"


@dataclass(frozen=True, slots=True, kw_only=True)
class GiveSeat(_Request):
    seat: int = field(metadata=rule(int, SEAT))
    name: str = field(metadata=rule(str, _max_len(64)))
    t: Literal["give_seat"] = "give_seat"


@dataclass(frozen=True, slots=True, kw_only=True)
class SetTableOptions(_Request):
    replace_bots: bool | None = field(default=None, metadata=rule(bool))
    hints: bool | None = field(default=None, metadata=rule(bool))
    t: Literal["table_options"] = "table_options"


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand(_Request):
    t: Literal["stand"] = "stand"


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(_Request):
    t: Literal["leave"] = "leave"


@dataclass(frozen=True, slots=True, kw_only=True)
class AddBot(_Request):
    seat: int | None = field(default=None, metadata=rule(int, SEAT))
    level: str | None = field(default=None, metadata=rule(str, BOT_LEVEL))
    t: Literal["add_bot"] = "add_bot"


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveBot(_Request):
    seat: int = field(metadata=rule(int, SEAT))
    t: Literal["remove_bot"] = "remove_bot"


@dataclass(frozen=True, slots=True, kw_only=True)
class Kick(_Request):
    seat: int = field(metadata=rule(int, SEAT))
    t: Literal["kick"] = "kick"


@dataclass(frozen=True, slots=True, kw_only=True)
class Start(_Request):
    t: Literal["start"] = "start"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch(_Request):
    t: Literal["rematch"] = "rematch"


@dataclass(frozen=True, slots=True, kw_only=True)
class StartSeries(_Request):
    """The host starts a series at a private table between games (``games`` or ``points``), or ends
    the one played there (neither)."""

    games: int | None = field(default=None, metadata=rule(int, SERIES_GAMES_RANGE))
    points: int | None = field(default=None, metadata=rule(int, SERIES_POINTS_RANGE))
    t: Literal["series"] = "series"


@dataclass(frozen=True, slots=True, kw_only=True)
class Act(_Request):
    action: str = field(metadata=rule(str, _max_len(16)))
    version: int = field(metadata=rule(int, _range(0, MAX_WIRE_INT)))
    t: Literal["act"] = "act"


@dataclass(frozen=True, slots=True, kw_only=True)
class Say(_Request):
    """A chat line; its text is cleaned and measured by the server (``empty_chat``, ``chat_too_long``)."""

    text: str = field(metadata=rule(str, _max_len(MAX_CHAT * 4)))
    scope: Scope | None = field(default=None, metadata=rule(str, _one_of(*SCOPES)))
    t: Literal["chat"] = "chat"


@dataclass(frozen=True, slots=True, kw_only=True)
class AskLeaderboard(_Request):
    edition: Edition | None = field(default=None, metadata=rule(str, EDITION))
    follow: bool | None = field(default=None, metadata=rule(bool))  # None: following stays as it was
    t: Literal["leaderboard"] = "leaderboard"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(_Request):
    n: int | None = field(default=None, metadata=rule(int, _range(0, MAX_WIRE_INT)))
    t: Literal["ping"] = "ping"


# --- play now and ratings (docs/protocol.md section 5a) --------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayNow(_Request):
    edition: Edition | None = field(default=None, metadata=rule(str, EDITION))
    seats: int | None = field(default=None, metadata=rule(int, _range(2, 8)))
    t: Literal["play_now"] = "play_now"


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveQueue(_Request):
    t: Literal["leave_queue"] = "leave_queue"


@dataclass(frozen=True, slots=True, kw_only=True)
class AskProfile(_Request):
    name: str | None = field(default=None, metadata=rule(str, _max_len(64)))
    t: Literal["profile"] = "profile"


@dataclass(frozen=True, slots=True, kw_only=True)
class AskGameRecord(_Request):
    game: int = field(metadata=rule(int, _range(1, MAX_WIRE_INT)))
    t: Literal["game_record"] = "game_record"


@dataclass(frozen=True, slots=True, kw_only=True)
class AskArenaResults(_Request):
    """An arena's standings from the store (one a profile lists), answered by ``arena_results``."""

    arena: int = field(metadata=rule(int, TABLE_ID))
    name: str | None = field(default=None, metadata=rule(str, _max_len(64)))  # whose line is ``you``
    t: Literal["arena_results"] = "arena_results"


# --- arenas (docs/protocol.md section 6b) ---------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class CreateArena(_Request):
    """A new arena: a public one (an operator's, ``not_operator`` otherwise) or a ``private`` one that
    anyone may open, joined with its invite code."""

    minutes: int = field(metadata=rule(int, _range(*ARENA_MINUTES)))
    edition: Edition | None = field(default=None, metadata=rule(str, EDITION))
    seats: int | None = field(default=None, metadata=rule(int, _range(*ARENA_SEATS)))
    start: int | None = field(default=None, metadata=rule(int, _range(0, 2**40)))  # Unix time; absent: now
    name: str | None = field(default=None, metadata=rule(str, _max_len(MAX_TABLE_NAME)))
    private: bool | None = field(default=None, metadata=rule(bool))
    t: Literal["arena_create"] = "arena_create"


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinArena(_Request):
    """Join an arena by its id or its invite code; with neither, the public arena running now (else the
    next to start)."""

    arena: int | None = field(default=None, metadata=rule(int, TABLE_ID))
    code: str | None = field(default=None, metadata=rule(str, _max_len(16)))
    t: Literal["arena_join"] = "arena_join"


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveArena(_Request):
    t: Literal["arena_leave"] = "arena_leave"


# --- players protect themselves, and operators (docs/protocol.md section 5b) ------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Mute(_Request):
    name: str = field(metadata=rule(str, _max_len(64)))
    on: bool | None = field(default=None, metadata=rule(bool))
    t: Literal["mute"] = "mute"


@dataclass(frozen=True, slots=True, kw_only=True)
class Block(_Request):
    name: str = field(metadata=rule(str, _max_len(64)))
    on: bool | None = field(default=None, metadata=rule(bool))
    t: Literal["block"] = "block"


@dataclass(frozen=True, slots=True, kw_only=True)
class Report(_Request):
    name: str = field(metadata=rule(str, _max_len(64)))
    reason: str = field(metadata=rule(str, _max_len(MAX_CHAT * 4)))
    t: Literal["report"] = "report"


@dataclass(frozen=True, slots=True, kw_only=True)
class Admin(_Request):
    """An operator's command; which of the other fields it needs is judged by the command's handler."""

    command: str = field(metadata=rule(str, _one_of(*ADMIN_COMMANDS)))
    target: str | None = field(default=None, metadata=rule(str, _max_len(128)))
    address: str | None = field(default=None, metadata=rule(str, _max_len(64)))
    reason: str | None = field(default=None, metadata=rule(str, _max_len(MAX_CHAT * 4)))
    seconds: int | None = field(default=None, metadata=rule(int, _range(0, MAX_BAN_SECONDS)))
    name: str | None = field(default=None, metadata=rule(str, _max_len(64)))
    table: int | None = field(default=None, metadata=rule(int, TABLE_ID))
    text: str | None = field(default=None, metadata=rule(str, _max_len(MAX_CHAT * 4)))
    id: int | None = field(default=None, metadata=rule(int, _range(1, MAX_WIRE_INT)))
    all: bool | None = field(default=None, metadata=rule(bool))
    t: Literal["admin"] = "admin"


Request = (Hello | Prove | ListTables | CreateTable | Join | Spectate | Sit | Stand | Leave | AddBot | RemoveBot
           | Kick | GiveSeat | SetTableOptions | Start | Rematch | StartSeries | Act | Say | AskLeaderboard | Ping
           | PlayNow | LeaveQueue | AskProfile | AskGameRecord | AskArenaResults | Mute | Block | Report | Admin
           | CreateArena | JoinArena | LeaveArena)
REQUEST_TYPES: tuple[type[Request], ...] = (  # in the order of docs/protocol.md section 4
    Hello, Prove, ListTables, CreateTable, Join, Spectate, Sit, Stand, Leave, AddBot, RemoveBot, Kick, GiveSeat,
    SetTableOptions, Start, Rematch, StartSeries, Act, Say, AskLeaderboard, Ping, PlayNow, LeaveQueue, Mute, Block,
    Report, Admin, AskProfile, AskGameRecord, CreateArena, JoinArena, LeaveArena, AskArenaResults)


@dataclass(frozen=True, slots=True)
class FieldRule:
    name: str
    rule: Rule
    required: bool


def field_rules(cls: type[_Request]) -> tuple[FieldRule, ...]:
    """The fields of a request type (``t`` aside), in order, with their rules."""
    return tuple(FieldRule(f.name, f.metadata["rule"], f.default is MISSING)
                 for f in fields(cls) if f.name != "t")


def kind_of(cls: type[_Request]) -> str:
    """The ``t`` a request type is sent with."""
    (kind,) = (f.default for f in fields(cls) if f.name == "t")
    assert isinstance(kind, str)
    return kind


_RULES: dict[str, tuple[type[Request], tuple[FieldRule, ...]]] = {}
for _cls in REQUEST_TYPES:
    _cls._kind, _cls._names = kind_of(_cls), tuple(f.name for f in field_rules(_cls))
    _RULES[kind_of(_cls)] = (_cls, field_rules(_cls))


def claimed_kind(message: Mapping[str, Any]) -> str | None:
    """The type a client's map says it is (its text ``t``), before it is decoded: what an error about it
    refers to (``ref``). None without a text ``t``."""
    kind = message.get("t")
    return kind if isinstance(kind, str) else None


def decode_request(message: Mapping[str, Any]) -> Request:
    """A client's map, as the frame decoder yields it, as a typed request; ``ProtocolError`` (not
    fatal) when it is not one: ``bad_message`` without a text ``t``, ``unknown_type``, or ``bad_field``
    for the first field, in the type's order, that is missing, of the wrong type or out of range."""
    kind = claimed_kind(message)
    if kind is None:
        raise ProtocolError("bad_message", "a message needs a text field 't' naming its type")
    found = _RULES.get(kind)
    if found is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:32]!r}")
    cls, rules = found
    values: dict[str, Any] = {}
    for spec in rules:
        name = spec.name
        if name not in message:
            if spec.required:
                raise ProtocolError("bad_field", f"{kind}: field {name!r} is missing",
                                    params={"why": "missing", "message": kind, "field": name})
            continue
        value = message[name]
        fault = spec.rule.fault(value)
        if fault is not None:
            why, problem = fault
            raise ProtocolError("bad_field", f"{kind}: field {name!r} {problem}",
                                params={"why": why, "message": kind, "field": name})
        values[name] = value if spec.rule.convert is None else spec.rule.convert(value)
    return cls(**values)
