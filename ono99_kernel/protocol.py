"""The ONO 99 wire protocol, sans I/O: framing, encoding, the limits and the checks of text, names,
actions and options. Shared by the server and every client; documented in docs/protocol.md.

A frame is a 4-byte big-endian length followed by that many bytes of one msgpack map. Every map has
a text field ``t`` naming the message type. The messages themselves, both ways, are typed values in
ono99_kernel/wire/: what a server sends in ``wire.server``, what a client sends in ``wire.requests``.
"""

from __future__ import annotations

import struct
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

import msgpack

from .bots import BOT_LEVELS
from .core.actions import Action
from .core.errors import MalformedActionError, OptionError
from .core.options import TableOptions
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
SERVER_KEY_BYTES = 32  # the SHA-256 of the server certificate's public key (ono99_kernel/tls.py)
# Signed by a client to prove it holds its key: this text and a zero byte, the SHA-256 of the public key
# of the TLS certificate the client saw, then the server's nonce. The server checks it against its own
# certificate, so a proof made through a relay that shows another certificate proves nothing there.
IDENTITY_PROOF_CONTEXT = b"ono99 identity proof v2\x00"

# The names the server gives tables nobody named, by their ``name_code`` (docs/protocol.md, section 6):
# sent in these English words as the table's ``name`` and, with ``name_params``, said by each client in
# its player's language.
# Byes of one node of several (server/ono99_server/cluster.py, docs/protocol.md section 10b): the client connects
# again at once, and is sent on to the node that holds the table.
BYE_TABLE_MOVED = "your table moved to another node of this server: connect again"
BYE_SENT_ON = "the table is at another node of this server: connecting there"
# The name codes of the tables the server names (``name_code``): a client says such a name in its player's language.
HOSTS_TABLE = "hosts_table"  # a table its host did not name
PLAY_NOW_TABLE = "play_now"  # a table play now opened: rated, its seats filled from the queue
ARENA_TABLE = "arena"  # an arena's table: the arena seats its players, no host starts its games
TABLE_NAMES = {HOSTS_TABLE: N_("{host}'s table"), PLAY_NOW_TABLE: N_("Play now #{number}"),
               ARENA_TABLE: N_("Arena game #{number}")}


def table_name(code: str, **params: str | int) -> str:
    """A server-given table name in English (``table_name(HOSTS_TABLE, host="Ada")``: "Ada's table")."""
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

    def rest(self) -> bytes:
        """The bytes received after the last whole message, taken out (another decoder reads on from them)."""
        rest = bytes(self._buffer)
        self._buffer.clear()
        return rest


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


BOT_LEVEL_NAMES = tuple(BOT_LEVELS)  # the levels a client may ask for
ADMIN_COMMANDS = ("who", "kick", "ban", "unban", "bans", "mute", "unmute", "rename", "release", "close", "motd",
                  "notice", "reports", "resolve", "log")  # an operator's (section 5b)
MAX_BAN_SECONDS = 10 * 365 * 24 * 3600


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
