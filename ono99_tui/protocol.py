"""The ONO 99 wire protocol, sans I/O: framing, encoding, validation, and the plain forms of views
and events. Shared by the server and every client; documented in docs/protocol.md.

A frame is a 4-byte big-endian length followed by that many bytes of one msgpack map. Every map has
a text field ``t`` naming the message type; each type a client sends has a schema here that a message
must satisfy (what a server sends is read by ``messages.decode_server_message``).
"""

from __future__ import annotations

import functools
import struct
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgpack

from .bots import BOT_LEVELS
from .core.actions import Action
from .core.cards import Card
from .core.errors import MalformedActionError, OptionError
from .core.events import Drew, Event, GameOver, HandEnded, HandStarted, MissedDraw, Out, Played, Reshuffled
from .core.options import TableOptions
from .core.view import TableView
from .core.words import N_

PROTOCOL_VERSION = 2  # 2: over TLS, with the identity proof bound to the server's certificate
DEFAULT_PORT = 9999
MAX_FRAME = 64 * 1024  # bytes of one frame's payload
HEADER = struct.Struct(">I")
MAX_NAME = 20
MAX_CHAT = 300
MAX_TABLE_NAME = 40
MAX_WIRE_INT = 2**31 - 1  # the largest table id, action version or ping number a client may send
MAX_PUBLIC_KEY = 1024  # characters of an OpenSSH public key line in hello.key
NONCE_BYTES = 32
SERVER_KEY_BYTES = 32  # the SHA-256 of the server certificate's public key (ono99_tui/tls.py)
# Signed by a client to prove it holds its key: this text and a zero byte, the SHA-256 of the public key
# of the TLS certificate the client saw, then the server's nonce. The server checks it against its own
# certificate, so a proof made through a relay that shows another certificate proves nothing there.
IDENTITY_PROOF_CONTEXT = b"ono99 identity proof v2\x00"

# The names the server gives tables nobody named, by their ``name_code`` (docs/protocol.md, section 6):
# sent in these English words as the table's ``name`` and, with ``name_params``, said by each client in
# its player's language.
TABLE_NAMES = {"hosts_table": N_("{host}'s table"), "play_now": N_("Play now #{number}")}


def table_name(code: str, **params: str | int) -> str:
    """A server-given table name in English (``table_name("hosts_table", host="Ada")``: "Ada's table")."""
    return TABLE_NAMES[code].format(**params)


def identity_proof_message(server_key: bytes, nonce: bytes) -> bytes:
    """The bytes a client signs with its key to answer the server's ``challenge``: ``server_key`` is
    the 32-byte digest of the server certificate's public key, as the client saw it."""
    if len(server_key) != SERVER_KEY_BYTES:
        raise ValueError(f"server_key must be {SERVER_KEY_BYTES} bytes, not {len(server_key)}")
    return IDENTITY_PROOF_CONTEXT + server_key + nonce


class ProtocolError(ValueError):
    """A message that breaks the protocol. ``code`` is the error code sent back; ``fatal`` errors
    (framing) close the connection, the others answer with an ``error`` message. ``params`` are
    the values a client needs to say ``reason`` in its player's language (docs/protocol.md, section 9)."""

    def __init__(self, code: str, reason: str, *, fatal: bool = False,
                 params: Mapping[str, str | int] | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.fatal = fatal
        self.params: dict[str, str | int] = dict(params or {})


# --- framing ---------------------------------------------------------------------------------------
def encode(message: Mapping[str, Any]) -> bytes:
    """One frame: header and msgpack payload."""
    payload: bytes = msgpack.packb(message, use_bin_type=True)
    if len(payload) > MAX_FRAME:
        raise ProtocolError("too_large", f"message of {len(payload)} bytes is over the {MAX_FRAME} byte limit")
    return HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Turns a byte stream into messages. The length header is checked before any payload is
    buffered, so an oversized header costs nothing."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[dict[str, Any]]:
        """Yield each complete message; raise a fatal ``ProtocolError`` on a framing fault."""
        buffer = self._buffer
        buffer += data
        while len(buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(buffer)
            if length > self.max_frame:
                raise ProtocolError("frame_too_large",
                                    f"frame of {length} bytes is over the {self.max_frame} byte limit", fatal=True)
            if len(buffer) < HEADER.size + length:
                return
            payload = bytes(buffer[HEADER.size:HEADER.size + length])
            del buffer[:HEADER.size + length]
            yield decode_payload(payload)

    @property
    def buffered(self) -> int:
        return len(self._buffer)


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ValueError("msgpack ext types are not part of the protocol")


class _NonTextKey(ValueError):
    pass


def _text_keys_only(value: dict[Any, Any]) -> dict[Any, Any]:
    """Every map, at any depth, has text keys only: one rule for integer, binary and other keys."""
    for key in value:
        if type(key) is not str:
            raise _NonTextKey(f"a map key is {type(key).__name__}, not text")
    return value


def decode_payload(payload: bytes) -> dict[str, Any]:
    try:
        message = msgpack.unpackb(payload, raw=False, strict_map_key=False, use_list=True,
                                  max_str_len=MAX_FRAME, max_bin_len=MAX_FRAME,
                                  max_array_len=4096, max_map_len=256, max_ext_len=0, ext_hook=_refuse_ext,
                                  object_hook=_text_keys_only)
    except (msgpack.StackError, RecursionError):
        raise ProtocolError("bad_frame", "message nested too deeply", fatal=True) from None
    except _NonTextKey as exc:
        raise ProtocolError("bad_frame", f"not a valid message: {exc}", fatal=True) from None
    except Exception as exc:  # msgpack raises several types for corrupt input
        raise ProtocolError("bad_frame", f"not valid msgpack: {type(exc).__name__}", fatal=True) from None
    if not isinstance(message, dict):
        raise ProtocolError("bad_frame", "a frame must hold one map", fatal=True)
    return message


# --- text safety --------------------------------------------------------------------------------------
# control, format (bidi overrides, zero-width), surrogate, private use, line and paragraph separators
_UNSAFE_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Co", "Zl", "Zp"))


def clean_text(text: str) -> str:
    """``text`` with control and format characters (escape sequences, bidi overrides) removed."""
    return "".join(ch for ch in text if unicodedata.category(ch) not in _UNSAFE_CATEGORIES)


def check_name(name: str, what: str = "name", limit: int = MAX_NAME) -> str:
    name = name.strip()
    table = "table_" if what == "table name" else ""  # params.why: control, length, table_control, table_length
    if clean_text(name) != name:
        raise ProtocolError("bad_name", f"the {what} may not contain control characters",
                            params={"why": f"{table}control"})
    if not 1 <= len(name) <= limit:
        raise ProtocolError("bad_name", f"the {what} must be 1 to {limit} characters long",
                            params={"why": f"{table}length", "limit": limit})
    return name


# --- schemas ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Field:
    kind: type | tuple[type, ...]
    required: bool = True
    check: Callable[[Any], str | None] | None = None  # returns a reason when the value is wrong


def _range(low: int, high: int) -> Callable[[Any], str | None]:
    return lambda v: None if low <= v <= high else f"must be from {low} to {high}"


def _one_of(*values: str) -> Callable[[Any], str | None]:
    return lambda v: None if v in values else f"must be one of {', '.join(values)}"


def _max_len(limit: int) -> Callable[[Any], str | None]:
    return lambda v: None if len(v) <= limit else f"must be at most {limit} characters"


BOT_LEVEL_NAMES = tuple(BOT_LEVELS)  # the levels a client may ask for
SCOPES = ("table", "lobby")

# Client to server.
CLIENT_MESSAGES: dict[str, dict[str, Field]] = {
    "hello": {"version": Field(int), "name": Field(str, check=_max_len(64)),
              "resume": Field(str, False, _max_len(128)), "client": Field(str, False, _max_len(64)),
              "key": Field(str, False, _max_len(MAX_PUBLIC_KEY)), "password": Field(str, False, _max_len(256)),
              "seen": Field(dict, False),
              "front": Field(dict, False)},  # checked by ono99_tui.fronts.check_front
    "prove": {"signature": Field(bytes, check=_max_len(1024))},
    "list_tables": {},
    "create_table": {
        "name": Field(str, False, _max_len(MAX_TABLE_NAME)),
        "edition": Field(str, False, _one_of("2022", "1980")),
        "options": Field(dict, False),
        "seats": Field(int, False, _range(2, 8)),
        "bots": Field(int, False, _range(0, 7)),
        "bot_level": Field(str, False, _one_of(*BOT_LEVEL_NAMES)),
        "turn_seconds": Field(int, False, _range(0, 600)),
        "private": Field(bool, False),
        "start": Field(bool, False),
        "replace_bots": Field(bool, False),
    },
    "join": {"table": Field(int, False, _range(0, MAX_WIRE_INT)), "code": Field(str, False, _max_len(16)),
             "seat": Field(int, False, _range(0, 7))},
    "spectate": {"table": Field(int, False, _range(0, MAX_WIRE_INT)), "code": Field(str, False, _max_len(16))},
    "sit": {"seat": Field(int, False, _range(0, 7))},
    "give_seat": {"seat": Field(int, check=_range(0, 7)), "name": Field(str, check=_max_len(64))},
    "table_options": {"replace_bots": Field(bool, False)},
    "stand": {},
    "leave": {},
    "add_bot": {"seat": Field(int, False, _range(0, 7)), "level": Field(str, False, _one_of(*BOT_LEVEL_NAMES))},
    "remove_bot": {"seat": Field(int, check=_range(0, 7))},
    "kick": {"seat": Field(int, check=_range(0, 7))},
    "start": {},
    "rematch": {},
    "act": {"action": Field(str, check=_max_len(16)), "version": Field(int, check=_range(0, MAX_WIRE_INT))},
    "chat": {"text": Field(str, check=_max_len(MAX_CHAT * 4)), "scope": Field(str, False, _one_of(*SCOPES))},
    "leaderboard": {"edition": Field(str, False, _one_of("2022", "1980")), "follow": Field(bool, False)},
    "ping": {"n": Field(int, False, _range(0, MAX_WIRE_INT))},
    # play now and ratings (docs/protocol.md section 5a)
    "play_now": {"edition": Field(str, False, _one_of("2022", "1980")), "seats": Field(int, False, _range(2, 8))},
    "leave_queue": {},
    "profile": {"name": Field(str, False, _max_len(64))},
    "game_record": {"game": Field(int, check=_range(1, MAX_WIRE_INT))},
}
# Server to client: ono99_tui/messages.py decodes and checks every server message into typed values.


def validate(message: Mapping[str, Any], schemas: Mapping[str, Mapping[str, Field]] = CLIENT_MESSAGES) -> str:
    """Check ``message`` against its type's schema; return the type. Unknown extra fields are
    ignored (a newer peer may send more)."""
    kind = message.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a text field 't' naming its type")
    schema = schemas.get(kind)
    if schema is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:32]!r}")
    for name, spec in schema.items():
        if name not in message:
            if spec.required:
                raise ProtocolError("bad_field", f"{kind}: field {name!r} is missing",
                                    params={"why": "missing", "message": kind, "field": name})
            continue
        value = message[name]
        expected = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
        if not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
            names = " or ".join("nil" if k is type(None) else k.__name__ for k in expected)
            raise ProtocolError("bad_field", f"{kind}: field {name!r} must be {names}, not {type(value).__name__}",
                                params={"why": "type", "message": kind, "field": name})
        if spec.check is not None and value is not None:
            problem = spec.check(value)
            if problem:
                raise ProtocolError("bad_field", f"{kind}: field {name!r} {problem}",
                                    params={"why": "value", "message": kind, "field": name})
    return kind


def options_from_wire(edition: str, options: Mapping[str, Any]) -> TableOptions:
    try:
        return TableOptions.from_mapping(edition, options)
    except OptionError as exc:
        raise option_refusal(exc) from None


def option_refusal(exc: ValueError) -> ProtocolError:
    """The ``bad_options`` error of refused options (or seats): the engine's English text, and its
    ``why`` and params (section 9a) when it is an ``OptionError``."""
    if not isinstance(exc, OptionError):
        return ProtocolError("bad_options", str(exc))
    params: dict[str, str | int] = {key: str(value) if isinstance(value, str) else value
                                    for key, value in exc.params.items()}
    return ProtocolError("bad_options", str(exc), params={"why": exc.why, **params})


def action_from_wire(code: str) -> Action:
    try:
        return Action.parse(code)
    except MalformedActionError as exc:
        raise ProtocolError("bad_action", str(exc), params={"action": clean_text(code)[:16]}) from None


# --- views and events ---------------------------------------------------------------------------------
def _codes(cards: tuple[Card, ...] | None) -> list[str] | None:
    return None if cards is None else [c.code for c in cards]


def event_to_wire(event: Event) -> dict[str, Any]:
    """An already redacted event as a plain map (hidden cards are nil)."""
    if isinstance(event, Played):
        return {"e": "play", "seat": event.seat, "cards": _codes(event.cards), "total": event.total}
    if isinstance(event, Drew):
        return {"e": "draw", "seat": event.seat, "card": event.card.code if event.card is not None else None}
    if isinstance(event, Reshuffled):
        return {"e": "reshuffle", "size": event.size, "draw_pile": _codes(event.draw_pile)}
    if isinstance(event, MissedDraw):
        return {"e": "missed_draw", "seat": event.seat}
    if isinstance(event, Out):
        return {"e": "out", "seat": event.seat}
    if isinstance(event, HandStarted):
        return {"e": "hand_started", "hand": event.hand, "dealer": event.dealer, "first": event.first,
                "hand_sizes": list(event.hand_sizes),
                "hands": [_codes(h) for h in event.hands], "draw_pile_size": event.draw_pile_size}
    if isinstance(event, HandEnded):
        return {"e": "hand_ended", "hand": event.hand, "loser": event.loser,
                "tokens": list(event.tokens) if event.tokens is not None else None,
                "scores": list(event.scores) if event.scores is not None else None,
                "hand_points": list(event.hand_points) if event.hand_points is not None else None,
                "eliminated": list(event.eliminated)}
    if isinstance(event, GameOver):
        return {"e": "game_over", "winner": event.winner}
    raise TypeError(f"not an event: {event!r}")


@functools.lru_cache(maxsize=256)
def _options_to_wire(options: TableOptions) -> dict[str, Any]:
    """``options.to_mapping()``, computed once per distinct (immutable) options: every view carries
    it, and building it walks the dataclass fields each time. Callers copy it."""
    return options.to_mapping()


def view_to_wire(view: TableView) -> dict[str, Any]:
    """A view as a plain map. It holds only what its recipient may see."""
    obligation = view.obligation
    return {
        "edition": view.options.edition.value,
        "options": dict(_options_to_wire(view.options)),
        "seats": view.seats,
        "seat": view.seat,
        "hand": [c.code for c in view.hand],
        "legal": [a.code for a in view.legal_actions],
        "unplayable": [{"card": u.card.code, "why": u.why, "params": dict(u.params), "reason": u.reason}
                       for u in view.unplayable],
        "hand_number": view.hand_number,
        "version": view.version,
        "total": view.total,
        "direction": view.direction,
        "turn": view.turn,
        "obligation": None if obligation is None else {
            "seat": obligation.seat, "plays_left": obligation.plays_left, "can_pass": obligation.can_pass},
        "hand_sizes": list(view.hand_sizes),
        "active": list(view.active),
        "in_hand": list(view.in_hand),
        "open_draws": list(view.open_draws),
        "missed_draws": list(view.missed_draws),
        "tokens": list(view.tokens) if view.tokens is not None else None,
        "scores": list(view.scores) if view.scores is not None else None,
        "draw_pile_size": view.draw_pile_size,
        "discard_size": view.discard_size,
        "top_card": view.top_card.code if view.top_card is not None else None,
        "winner": view.winner,
        "ranking": list(view.ranking) if view.ranking is not None else None,
    }
