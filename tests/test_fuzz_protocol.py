"""Property-based fuzzing (hypothesis, seeded and bounded) of the frame decoder, every client message
validator, and the server's handling of whatever passes validation (the client's decoder of server
messages is fuzzed in tests/test_messages.py).

Each property says what must hold for any input: the decoder yields maps or raises a
``ProtocolError`` (never anything else, never a partial message); a validator accepts a message
only if every field has its documented type and range, else refuses it with a documented code;
and a server fed any sequence of messages answers each refused one with a documented error code,
never ``server_error``, never logs a traceback, and sends only messages the client's decoder
(ono99_kernel/wire/server.py) reads into values of their declared types."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ono99_kernel.protocol import HEADER, MAX_FRAME, FrameDecoder, ProtocolError, decode_payload, encode
from ono99_kernel.wire.requests import REQUEST_TYPES, FieldRule, Hello, decode_request, field_rules, kind_of
from ono99_kernel.wire.server import decode_server_message
from ono99_server import ServerConfig
from ono99_server.local import EmbeddedServer
from tests.declared import as_declared

FUZZ = settings(max_examples=300, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
FUZZ_SERVER = settings(max_examples=60, derandomize=True, deadline=None, database=None,
                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Every value msgpack can carry (ext types aside, which are refused at the frame).
SCALARS = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False)
           | st.text(max_size=40) | st.binary(max_size=16))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
# Values a real client would send, near the limits of each field.
PLAUSIBLE = st.sampled_from([0, 1, 2, 3, 4, 7, 8, 9, -1, 600, 601, 2**31 - 1, 2**31, "", " ", "Ada", "2022",
                             "1980", "greedy", "strong", "table", "lobby", "7", "-10", "draw", "ONO99x4", "REV",
                             "x" * 41, True, False, None, {}, {"scoring": "points"}, {"manual_draw": True},
                             {"eight_players": True}])
DOCUMENTED_REFUSALS = {"bad_message", "unknown_type", "bad_field"}


def message_of(kind: str, rules: tuple[FieldRule, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """Messages of type ``kind``: each field left out, plausible or anything at all, plus extras."""
    names = {rule.name for rule in rules}
    fields = {name: st.one_of(st.just(...), PLAUSIBLE, VALUES) for name in names}
    extras = st.dictionaries(st.text(max_size=6).filter(lambda k: k not in names and k != "t"), VALUES, max_size=2)

    def build(values: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        return {"t": kind, **extra, **{k: v for k, v in values.items() if v is not ...}}

    return st.builds(build, st.fixed_dictionaries(fields), extras)


ANY_CLIENT_MESSAGE = st.one_of(*(message_of(kind_of(cls), field_rules(cls)) for cls in REQUEST_TYPES),
                               st.dictionaries(st.text(max_size=6), VALUES, max_size=3))


def well_typed(value: Any, rule: FieldRule) -> bool:
    """``value`` is of the field's type (a bool is no int) and passes its check."""
    kind, check = rule.rule.kind, rule.rule.check
    if isinstance(value, bool) and kind is not bool:
        return False
    return isinstance(value, kind) and (check is None or check(value) is None)


# --- the frame decoder ----------------------------------------------------------------------------
@FUZZ
@given(st.binary(max_size=300), st.lists(st.integers(1, 64), max_size=20))
def test_the_decoder_yields_maps_or_a_protocol_error_for_any_bytes(data: bytes, cuts: list[int]) -> None:
    decoder = FrameDecoder()
    position = 0
    try:
        for size in [*cuts, len(data)]:
            for message in decoder.feed(data[position:position + size]):
                assert isinstance(message, dict) and all(type(k) is str for k in message)
            position += size
    except ProtocolError as error:
        assert error.fatal and error.code in ("bad_frame", "frame_too_large")


@FUZZ
@given(st.lists(st.dictionaries(st.text(max_size=10), VALUES, max_size=5), min_size=1, max_size=5),
       st.lists(st.integers(1, 50), max_size=30))
def test_any_valid_frames_come_back_whole_and_in_order_however_they_are_cut(
        messages: list[dict[str, Any]], cuts: list[int]) -> None:
    stream = b"".join(encode(m) for m in messages)
    decoder = FrameDecoder()
    out: list[dict[str, Any]] = []
    position = 0
    for size in [*cuts, len(stream)]:
        out.extend(decoder.feed(stream[position:position + size]))
        position += size
    assert out == messages and decoder.buffered == 0


@FUZZ
@given(VALUES)
def test_a_payload_of_any_value_decodes_to_a_map_with_text_keys_or_is_a_bad_frame(value: Any) -> None:
    payload = msgpack.packb(value, use_bin_type=True)
    try:
        message = decode_payload(payload)
    except ProtocolError as error:
        assert error.fatal and error.code == "bad_frame"
        return
    assert isinstance(value, dict) and message == value


@FUZZ
@given(st.integers(MAX_FRAME + 1, 2**32 - 1), st.binary(max_size=20))
def test_an_oversized_header_is_refused_whatever_follows(length: int, tail: bytes) -> None:
    try:
        list(FrameDecoder().feed(HEADER.pack(length) + tail))
    except ProtocolError as error:
        assert error.code == "frame_too_large"
    else:
        raise AssertionError("an oversized header was accepted")


# --- every validator ------------------------------------------------------------------------------
def check_validator(message: dict[str, Any]) -> None:
    try:
        request = decode_request(message)
    except ProtocolError as error:
        assert not error.fatal and error.code in DOCUMENTED_REFUSALS, error.code
        return
    wire = request.to_wire()
    assert wire["t"] == message["t"]
    for rule in field_rules(type(request)):
        if rule.name in message:
            assert well_typed(message[rule.name], rule), (request.t, rule.name, message[rule.name])
            if rule.name != "seen":  # a hello's seen keeps only what it may say (tested in test_protocol.py)
                assert wire[rule.name] == message[rule.name]  # the value as it came
        else:
            assert not rule.required, (request.t, rule.name)
            assert rule.name not in wire


@FUZZ
@given(ANY_CLIENT_MESSAGE)
def test_every_client_message_validator_accepts_only_what_its_schema_allows(message: dict[str, Any]) -> None:
    check_validator(message)


# --- the server behind the validators ------------------------------------------------------------
async def feed_server(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Say hello, then send ``messages`` through an in-process link; every message received."""
    embedded = EmbeddedServer(ServerConfig(host="", port=None, bot_delay=0, default_turn_seconds=0,
                                           messages_per_second=1e9, message_burst=10**9))
    link = embedded.link()
    received: list[dict[str, Any]] = []
    try:
        await link.send(Hello(version=2, name="Fuzz"))
        for message in messages:
            try:
                await link.send_raw(encode(message))
            except ProtocolError:  # a message encode() itself refuses (too large) never reaches the server
                continue
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)  # let the bots (delay 0) and the answers run
        while not link.inbox.empty():
            item = link.inbox.get_nowait()
            if item is not None:
                received.append(item)
    finally:
        await link.close()
        await embedded.close()
    return received


@FUZZ_SERVER
@given(st.lists(ANY_CLIENT_MESSAGE, min_size=1, max_size=12))
def test_the_server_answers_any_messages_with_documented_errors_only(messages: list[dict[str, Any]]) -> None:
    errors: list[logging.LogRecord] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                errors.append(record)

    handler = Catch()
    logging.getLogger("ono99").addHandler(handler)
    try:
        received = asyncio.run(feed_server(messages))
    finally:
        logging.getLogger("ono99").removeHandler(handler)
    assert not errors, [r.getMessage() for r in errors]
    assert received and received[0]["t"] == "welcome"
    codes = {m["code"] for m in received if m["t"] == "error"}
    assert "server_error" not in codes, codes
    for message in received:  # everything the server sent is a documented server message, of the declared types
        assert as_declared(decode_server_message(message)), message
