"""A front's link, both ways (docs/protocol.md section 3c): one TLS connection from a front process to the
game server carrying all its players, each on a channel of its own. The front says ``front_link`` first, with
its credential; then every frame is a channel's: ``ch`` with the channel's id and one message of the ordinary
protocol inside (``m``), or its end. The server sends a message meant for several channels once, with their
ids (``to``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import msgpack

from ..protocol import HEADER, MAX_FRAME, MAX_WIRE_INT, PROTOCOL_VERSION, ProtocolError
from .requests import Rule, rule

MAX_CHANNELS = 4096  # channels open at once on one link: a ``to`` list holds them all (the decoder's array limit)
# The largest frame on a link: one message of the ordinary limit and its envelope, ``to`` listing every channel.
LINK_MAX_FRAME = MAX_FRAME + 5 * MAX_CHANNELS + 64
FRONT_LINK = "front_link"  # the ``t`` of a front's first message on its link
CHANNEL = "ch"  # the ``t`` of every frame after it, both ways
CHANNEL_ID = rule(int, lambda v: None if 1 <= v <= MAX_WIRE_INT else f"must be from 1 to {MAX_WIRE_INT}")


def _field(value: Mapping[str, Any], kind: str, name: str, spec: dict[str, Rule], required: bool) -> Any:
    """``value[name]`` checked by its rule (``bad_field`` as for any request); None when left out."""
    if name not in value:
        if required:
            raise ProtocolError("bad_field", f"{kind}: field {name!r} is missing",
                                params={"why": "missing", "message": kind, "field": name})
        return None
    fault = spec["rule"].fault(value[name])
    if fault is not None:
        why, problem = fault
        raise ProtocolError("bad_field", f"{kind}: field {name!r} {problem}",
                            params={"why": why, "message": kind, "field": name})
    return value[name]


@dataclass(frozen=True, slots=True, kw_only=True)
class FrontLink:
    """A front's first message on its link: the protocol version and the credential it is trusted by."""

    version: int
    credential: str
    client: str | None = None  # names the front process (the server's logs and metrics)
    t: Literal["front_link"] = "front_link"

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"t": self.t, "version": self.version, "credential": self.credential}
        if self.client is not None:
            wire["client"] = self.client
        return wire

    @classmethod
    def from_wire(cls, value: Mapping[str, Any]) -> FrontLink:
        kind = FRONT_LINK
        version = _field(value, kind, "version", rule(int), True)
        credential = _field(value, kind, "credential", rule(str, lambda v: None if 1 <= len(v) <= 128 else
                                                            "must be 1 to 128 characters"), True)
        client = _field(value, kind, "client", rule(str, lambda v: None if len(v) <= 64 else
                                                    "must be at most 64 characters"), False)
        if version != PROTOCOL_VERSION:
            raise ProtocolError("version_mismatch",
                                f"this server speaks protocol version {PROTOCOL_VERSION}, the front {version}; "
                                "update the front", fatal=True,
                                params={"server": PROTOCOL_VERSION, "client": str(version)[:20]})
        return cls(version=version, credential=credential, client=client)


@dataclass(frozen=True, slots=True)
class Linked:
    """The server's answer to a trusted ``front_link``: channels may open."""

    version: int = PROTOCOL_VERSION
    channels: int = MAX_CHANNELS  # how many may be open at once
    t: Literal["linked"] = "linked"

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.t, "version": self.version, "channels": self.channels}


def _channel_frame(head: dict[str, Any], message: Mapping[str, Any] | None, end: object) -> dict[str, Any]:
    """A ``ch`` frame of either direction: its header, and the message and the end it carries, if any."""
    if message is not None:
        head["m"] = message
    if end is not None:
        head["end"] = end
    return head


@dataclass(frozen=True, slots=True, kw_only=True)
class ToServer:
    """A channel's frame from the front: its player's message (``m``; the first one is its ``hello``), or
    its end (``end``: the player went away)."""

    c: int = field(metadata=CHANNEL_ID)
    m: Mapping[str, Any] | None = None
    end: bool | None = None
    t: Literal["ch"] = "ch"

    def to_wire(self) -> dict[str, Any]:
        return _channel_frame({"t": self.t, "c": self.c}, self.m, self.end)

    @classmethod
    def from_wire(cls, value: Mapping[str, Any]) -> ToServer:
        """A front's ``ch``; the message inside is checked by the channel's session, not here (a channel's
        bad message closes that channel only)."""
        kind = CHANNEL
        if value.get("t") != kind:
            raise ProtocolError("bad_message", "on a front's link every message after front_link is ch",
                                fatal=True)
        channel = _field(value, kind, "c", CHANNEL_ID, True)
        end = _field(value, kind, "end", rule(bool), False)
        return cls(c=channel, m=value.get("m"), end=end)


@dataclass(frozen=True, slots=True)
class ToFront:
    """The server's frame for one or more channels of a link: a message for each (``m``), or their end
    (``end``, why: the channel is closed, after its ``bye``)."""

    to: tuple[int, ...]
    m: dict[str, Any] | None = None
    end: str | None = None
    t: Literal["ch"] = "ch"

    def to_wire(self) -> dict[str, Any]:
        return _channel_frame({"t": self.t, "to": list(self.to)}, self.m, self.end)

    @classmethod
    def from_wire(cls, value: Mapping[str, Any]) -> ToFront:
        to, message, end = value.get("to"), value.get("m"), value.get("end")
        if value.get("t") != "ch" or not isinstance(to, list) or not all(type(c) is int for c in to) \
                or not (message is None or isinstance(message, dict)) or not (end is None or isinstance(end, str)):
            raise ProtocolError("bad_frame", "not a channel's frame of a front's link", fatal=True)
        return cls(tuple(to), message, end)


_T_CH_TO: bytes = msgpack.packb("t") + msgpack.packb(CHANNEL) + msgpack.packb("to")
_M: bytes = msgpack.packb("m")


def to_front_frame(to: Sequence[int], frame: bytes) -> bytes:
    """The link's frame carrying ``frame`` (one ordinary frame, encoded once for all of them) to the channels
    ``to``: the map ``ToFront`` says, with the message's bytes put in as they are, not encoded again."""
    listed: bytes = msgpack.packb(list(to))
    body = b"\x83" + _T_CH_TO + listed + _M + frame[HEADER.size:]
    return HEADER.pack(len(body)) + body
