"""What the nodes of one server say to each other through Redis, typed as the wire's messages are: each a frozen
dataclass with ``to_json`` and ``from_json``, in this one place. The field names are the JSON keys (the Lua scripts
of server/ono99_server/cluster_queue.py and server/ono99_server/cluster_names.py read some of them).

A payload this node cannot read (not JSON, not a map, a field missing or of another type: another
version's, or damaged) raises ``BadPayload`` naming what is wrong; ``read`` logs it and drops it, so
one bad message never stops a node."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire import server as wire

log = logging.getLogger("ono99.cluster")
T = TypeVar("T")


class BadPayload(ValueError):
    """A payload from Redis this node cannot read; the text says what is wrong with it."""


# --- reading fields ------------------------------------------------------------------------------------
def _map(raw: str | bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (ValueError, TypeError) as exc:  # UnicodeDecodeError is a ValueError
        raise BadPayload(f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise BadPayload(f"not a map but {type(value).__name__}")
    return value


def _field(said: dict[str, Any], key: str, kind: type[T] | tuple[type, ...], optional: bool = False) -> Any:
    """``said[key]``, of type ``kind`` (``optional``: or null, or left out)."""
    value = said.get(key)
    if value is None and optional:
        return None
    if key not in said:
        raise BadPayload(f"field {key!r} is missing")
    # JSON has no int/float split for whole numbers; a bool is no number here
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float, (int, float))):
        raise BadPayload(f"field {key!r} is {type(value).__name__}, not {_kind_name(kind)}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _text(said: dict[str, Any], key: str) -> str:
    return str(_field(said, key, str))


def _int(said: dict[str, Any], key: str) -> int:
    return int(_field(said, key, int))


def _number(said: dict[str, Any], key: str) -> float:
    return float(_field(said, key, (int, float)))


def _texts(said: dict[str, Any], key: str) -> tuple[str, ...]:
    values = _field(said, key, list)
    if not all(isinstance(v, str) for v in values):
        raise BadPayload(f"field {key!r} holds something other than text")
    return tuple(values)


def _dump(said: dict[str, Any]) -> str:
    return json.dumps(said)


def read(decode: Callable[[str | bytes], T], raw: str | bytes, what: str) -> T | None:
    """``decode(raw)``, or None once a payload it cannot read is logged (``what`` it was) and dropped."""
    try:
        return decode(raw)
    except BadPayload as exc:
        log.warning("cluster: %s from Redis that this node cannot read (%s); dropped", what, exc)
        return None


def _readable(node: str, decode: Callable[[Any], T], entries: list[Any]) -> tuple[T, ...]:
    """The entries of a node's record this node can read (one it cannot is left out, and logged)."""
    out = []
    for entry in entries:
        try:
            out.append(decode(entry))
        except (ProtocolError, TypeError, AttributeError) as exc:
            log.warning("node %s: an entry of its record this node cannot read (%s); left out", node, exc)
    return tuple(out)


# --- the nodes -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NodeRecord:
    """A node's record (``ono99:node:ID``, renewed with its lease): where players reach it, who is online
    there (a first part), its public tables, and the seats its players hold (``seat_key``)."""

    node: str
    host: str
    port: int
    online: tuple[wire.OnlinePlayer, ...]
    tables: tuple[wire.TableInfo, ...]
    seated: tuple[str, ...]

    def to_json(self) -> str:
        return _dump({"node": self.node, "host": self.host, "port": self.port,
                      "online": [p.to_wire() for p in self.online], "tables": [t.to_wire() for t in self.tables],
                      "seated": list(self.seated)})

    @classmethod
    def from_json(cls, raw: str | bytes) -> NodeRecord:
        """The record; an online player or table of it this node cannot read is left out (and logged)."""
        said = _map(raw)
        node = _text(said, "node")
        return cls(node=node, host=_text(said, "host"), port=_int(said, "port"),
                   online=_readable(node, wire.decode_online_player, _field(said, "online", list)),
                   tables=_readable(node, wire.decode_table_info, _field(said, "tables", list)),
                   seated=_texts(said, "seated"))


@dataclass(frozen=True, slots=True)
class SentOn:
    """A player sent on to another node (``ono99:sent_on:SEAT_KEY``): the table to join or watch there, by
    id, or by a private table's invite ``code``."""

    table: int | None
    code: str | None
    seat: int | None
    watch: bool

    def to_json(self) -> str:
        return _dump({"table": self.table, "code": self.code, "seat": self.seat, "watch": self.watch})

    @classmethod
    def from_json(cls, raw: str | bytes) -> SentOn:
        said = _map(raw)
        ticket = cls(table=_field(said, "table", int, optional=True), code=_field(said, "code", str, optional=True),
                     seat=_field(said, "seat", int, optional=True), watch=bool(_field(said, "watch", bool)))
        if ticket.table is None and not ticket.code:
            raise BadPayload("neither a table nor a code")
        return ticket


# --- the lobby's chat ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChatSaid:
    """A lobby chat line said at ``node`` and saved there as line ``id``."""

    node: str
    id: int
    sender: str
    text: str
    at: float

    def to_json(self) -> str:
        return _dump({"node": self.node, "id": self.id, "sender": self.sender, "text": self.text, "at": self.at})

    @classmethod
    def from_json(cls, raw: str | bytes) -> ChatSaid:
        said = _map(raw)
        return cls(node=_text(said, "node"), id=_int(said, "id"), sender=_text(said, "sender"),
                   text=_text(said, "text"), at=_number(said, "at"))


# --- names -----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NameHeld:
    """A claim on a name as the names hash keeps it (written by server/ono99_server/cluster_names.py's Lua): the node,
    the name as its player goes by it, and whose it is (``whose``)."""

    node: str
    name: str
    who: str

    @classmethod
    def from_json(cls, raw: str | bytes) -> NameHeld:
        said = _map(raw)
        return cls(node=_text(said, "node"), name=_text(said, "name"), who=_text(said, "who"))


@dataclass(frozen=True, slots=True)
class NameClaimed:
    """A node claimed a name for one of its players, or released it (``gone``)."""

    node: str
    name: str
    who: str
    gone: bool

    def to_json(self) -> str:
        return _dump({"node": self.node, "name": self.name, "who": self.who, "gone": self.gone})

    @classmethod
    def from_json(cls, raw: str | bytes) -> NameClaimed:
        said = _map(raw)
        return cls(node=_text(said, "node"), name=_text(said, "name"), who=_text(said, "who"),
                   gone=bool(_field(said, "gone", bool)))


# --- play now --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QueueEntry:
    """A player waiting in a shared play-now queue (the entries hash; its Lua reads ``node``)."""

    node: str
    name: str
    identity: str | None
    token: str  # their resume token's hash

    def to_json(self) -> str:
        return _dump({"node": self.node, "name": self.name, "identity": self.identity, "token": self.token})

    @classmethod
    def from_json(cls, raw: str | bytes) -> QueueEntry:
        said = _map(raw)
        return cls(node=_text(said, "node"), name=_text(said, "name"),
                   identity=_field(said, "identity", str, optional=True), token=str(_field(said, "token", str)))


@dataclass(frozen=True, slots=True)
class ArenaChanged:
    """An arena's rows changed: read them again (server/ono99_server/cluster_arena.py). With a ``table``: the
    pairing node opened it at ``host:port`` for ``players`` of other nodes, whose nodes send them on."""

    node: str
    arena: int
    table: int | None = None
    host: str = ""
    port: int = 0
    players: tuple[str, ...] = ()
    starts_in: float = 0.0

    def to_json(self) -> str:
        return _dump({"node": self.node, "arena": self.arena, "table": self.table, "host": self.host,
                      "port": self.port, "players": list(self.players), "starts_in": self.starts_in})

    @classmethod
    def from_json(cls, raw: str | bytes) -> ArenaChanged:
        said = _map(raw)
        return cls(node=_text(said, "node"), arena=_int(said, "arena"), table=_field(said, "table", int, optional=True),
                   host=_text(said, "host"), port=_int(said, "port"), players=_texts(said, "players"),
                   starts_in=_number(said, "starts_in"))


@dataclass(frozen=True, slots=True)
class SeatedAt:
    """Where a group taken from a play-now queue was seated: the node's address and the table there."""

    host: str
    port: int
    table: int

    def to_json(self) -> str:
        return _dump({"host": self.host, "port": self.port, "table": self.table})

    @classmethod
    def from_json(cls, raw: str | bytes) -> SeatedAt:
        said = _map(raw)
        return cls(host=_text(said, "host"), port=_int(said, "port"), table=_int(said, "table"))


# --- operators -------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OperatorAsk:
    """An operator's command (an ``admin`` request's map) asked of the other nodes, ``id`` for the answers."""

    sender: str  # the node that asks
    id: str
    operator: tuple[str, str]  # (identity, name)
    request: dict[str, Any]
    kind: Literal["ask"] = "ask"

    def to_map(self) -> dict[str, Any]:
        return {"kind": self.kind, "from": self.sender, "id": self.id, "operator": list(self.operator),
                "request": self.request}


@dataclass(frozen=True, slots=True)
class OperatorAnswer:
    """A node's answer ``to`` the node that asked (``ask``'s ``id``): a command's answer or ``error``."""

    sender: str
    id: str
    to: str
    answer: dict[str, Any]
    kind: Literal["answer"] = "answer"

    def to_map(self) -> dict[str, Any]:
        return {"kind": self.kind, "from": self.sender, "id": self.id, "to": self.to, "answer": self.answer}


@dataclass(frozen=True, slots=True)
class OperatorKicked:
    """A kick at ``sender``: every node keeps out whom it keeps out (``holds``) for ``seconds``."""

    sender: str
    holds: tuple[str, ...]
    seconds: float
    reason: str
    kind: Literal["kicked"] = "kicked"

    def to_map(self) -> dict[str, Any]:
        return {"kind": self.kind, "from": self.sender, "holds": list(self.holds), "seconds": self.seconds,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ModerationChanged:
    """``sender`` changed moderation kept in the database: every node reads it again."""

    sender: str
    kind: Literal["changed"] = "changed"

    def to_map(self) -> dict[str, Any]:
        return {"kind": self.kind, "from": self.sender}


OperatorSaid = OperatorAsk | OperatorAnswer | OperatorKicked | ModerationChanged


def operator_json(said: OperatorSaid) -> str:
    return _dump(said.to_map())


def operator_from_json(raw: str | bytes) -> OperatorSaid:
    said = _map(raw)
    kind, sender = _text(said, "kind"), _text(said, "from")
    if kind == "ask":
        operator = _texts(said, "operator")
        if len(operator) != 2:
            raise BadPayload("field 'operator' is not (identity, name)")
        return OperatorAsk(sender=sender, id=_text(said, "id"), operator=(operator[0], operator[1]),
                           request=_field(said, "request", dict))
    if kind == "answer":
        return OperatorAnswer(sender=sender, id=_text(said, "id"), to=_text(said, "to"),
                              answer=_field(said, "answer", dict))
    if kind == "kicked":
        return OperatorKicked(sender=sender, holds=_texts(said, "holds"), seconds=_number(said, "seconds"),
                              reason=_text(said, "reason"))
    if kind == "changed":
        return ModerationChanged(sender=sender)
    raise BadPayload(f"no message of kind {kind[:32]!r}")
