"""The wire protocol without I/O (ono99_kernel/protocol.py, ono99_kernel/wire/): framing, decoding faults,
the validation of client requests, text safety, and the plain forms of views and events, which must
never carry a card that their recipient may not see."""

from __future__ import annotations

import dataclasses
import random
import struct
from typing import Any

import msgpack
import pytest

from ono99_kernel.core import (
    DISCARD_FOUR,
    DRAW,
    Card,
    Drew,
    Game,
    HandStarted,
    Reshuffled,
    TableOptions,
)
from ono99_kernel.protocol import (
    HEADER,
    MAX_CHAT,
    MAX_FRAME,
    MAX_NAME,
    MAX_TABLE_NAME,
    FrameDecoder,
    ProtocolError,
    action_from_wire,
    check_name,
    clean_text,
    decode_payload,
    encode,
    options_from_wire,
)
from ono99_kernel.wire.requests import (
    REQUEST_TYPES,
    Act,
    AddBot,
    AskLeaderboard,
    AskProfile,
    CreateTable,
    Hello,
    Join,
    JoinArena,
    Leave,
    LeaveArena,
    LeaveQueue,
    ListTables,
    Ping,
    PlayNow,
    Prove,
    Rematch,
    Say,
    SetTableOptions,
    Sit,
    Spectate,
    Stand,
    Start,
    StartSeries,
    decode_request,
    field_rules,
    kind_of,
)
from ono99_kernel.wire.server import (
    History,
    State,
    UnknownEvent,
    View,
    Welcome,
    decode_server_message,
    event_to_wire,
    view_to_wire,
)

SAMPLE_MESSAGES: list[dict[str, Any]] = [
    {"t": "hello", "version": 2, "name": "Ada", "client": "test/1"},
    {"t": "ping"},
    {"t": "chat", "text": "héllo wörld · 你好 · 🃏", "scope": "lobby"},
    {"t": "act", "action": "-10", "version": 2**40},
    {"t": "x", "nested": {"a": [1, -2, 3.5, None, True, False, b"\x00\xff"], "b": {"c": []}}, "n": -(2**63)},
]


def frames(messages: list[dict[str, Any]]) -> bytes:
    return b"".join(encode(m) for m in messages)


def fatal(payload: bytes) -> ProtocolError:
    """The fatal error that decoding ``payload`` as a frame raises."""
    with pytest.raises(ProtocolError) as info:
        list(FrameDecoder().feed(HEADER.pack(len(payload)) + payload))
    assert info.value.fatal
    return info.value


# --- framing ---------------------------------------------------------------------------------------
def test_a_frame_is_a_big_endian_length_and_one_msgpack_map() -> None:
    message = {"t": "ping", "n": 7}
    frame = encode(message)
    payload = msgpack.packb(message, use_bin_type=True)
    assert frame == struct.pack(">I", len(payload)) + payload
    assert HEADER.size == 4


def test_round_trip_in_one_chunk() -> None:
    decoder = FrameDecoder()
    assert list(decoder.feed(frames(SAMPLE_MESSAGES))) == SAMPLE_MESSAGES
    assert decoder.buffered == 0


def test_round_trip_byte_by_byte_yields_each_message_on_its_last_byte() -> None:
    decoder = FrameDecoder()
    received: list[dict[str, Any]] = []
    for message in SAMPLE_MESSAGES:
        frame = encode(message)
        for i in range(len(frame)):
            got = list(decoder.feed(frame[i:i + 1]))
            if i < len(frame) - 1:
                assert got == []
                assert decoder.buffered == i + 1
            else:
                assert got == [message]
                assert decoder.buffered == 0
            received += got
    assert received == SAMPLE_MESSAGES


@pytest.mark.parametrize("seed", range(5))
def test_round_trip_in_random_chunks_across_frame_boundaries(seed: int) -> None:
    rng = random.Random(seed)
    messages = [{"t": "chat", "text": "x" * rng.randrange(0, 3000), "i": i} for i in range(200)]
    data = frames(messages)
    decoder = FrameDecoder()
    received: list[dict[str, Any]] = []
    position = 0
    while position < len(data):
        size = rng.choice([1, 2, 3, 5, 4096, 70_000])
        received += decoder.feed(data[position:position + size])
        position += size
    assert received == messages
    assert decoder.buffered == 0


def test_many_small_frames_in_one_chunk_keep_their_order() -> None:
    messages = [{"t": "ping", "n": i} for i in range(5000)]
    decoder = FrameDecoder()
    assert list(decoder.feed(frames(messages))) == messages
    assert decoder.buffered == 0


def test_an_empty_chunk_and_a_partial_header_yield_nothing() -> None:
    decoder = FrameDecoder()
    assert list(decoder.feed(b"")) == []
    frame = encode({"t": "ping"})
    assert list(decoder.feed(frame[:3])) == []
    assert decoder.buffered == 3
    assert list(decoder.feed(frame[3:])) == [{"t": "ping"}]


def payload_of_size(size: int) -> dict[str, Any]:
    """A message whose msgpack payload is exactly ``size`` bytes."""
    overhead = len(msgpack.packb({"t": "chat", "text": ""}, use_bin_type=True))
    for text_length in range(size - overhead - 5, size - overhead + 1):
        message = {"t": "chat", "text": "x" * text_length}
        if len(msgpack.packb(message, use_bin_type=True)) == size:
            return message
    raise AssertionError(f"no message of exactly {size} bytes")


def test_a_frame_of_exactly_max_frame_bytes_passes_both_ways() -> None:
    message = payload_of_size(MAX_FRAME)
    frame = encode(message)
    assert len(frame) == HEADER.size + MAX_FRAME
    assert list(FrameDecoder().feed(frame)) == [message]


def test_encode_refuses_a_message_over_max_frame() -> None:
    with pytest.raises(ProtocolError) as info:
        encode(payload_of_size(MAX_FRAME + 1))
    assert info.value.code == "too_large"
    assert str(MAX_FRAME) in info.value.reason


@pytest.mark.parametrize("length", [MAX_FRAME + 1, 2**31, 2**32 - 1])
def test_an_oversized_header_is_refused_before_any_payload_is_buffered(length: int) -> None:
    decoder = FrameDecoder()
    header = struct.pack(">I", length)
    assert list(decoder.feed(header[:2])) == []
    with pytest.raises(ProtocolError) as info:
        list(decoder.feed(header[2:]))
    assert info.value.code == "frame_too_large"
    assert info.value.fatal
    assert decoder.buffered <= HEADER.size


def test_the_header_limit_follows_max_frame_of_the_decoder() -> None:
    decoder = FrameDecoder(max_frame=10)
    assert list(decoder.feed(struct.pack(">I", 10))) == []  # allowed: waits for the payload
    small = FrameDecoder(max_frame=10)
    with pytest.raises(ProtocolError, match="over the 10 byte limit"):
        list(small.feed(struct.pack(">I", 11)))
    assert small.buffered == HEADER.size


def test_an_oversized_header_after_a_good_frame_still_delivers_the_good_frame_first() -> None:
    decoder = FrameDecoder()
    received = []
    with pytest.raises(ProtocolError) as info:
        for message in decoder.feed(encode({"t": "ping"}) + struct.pack(">I", MAX_FRAME + 1)):
            received.append(message)
    assert received == [{"t": "ping"}]
    assert info.value.code == "frame_too_large"


@pytest.mark.parametrize("payload", [
    b"\xc1",  # a byte msgpack never uses
    b"\x82\xa1t",  # a map cut short
    msgpack.packb({"t": "ping"}) + b"\x00",  # two objects in one frame
    b"\x81\xa1t\xa2\xff\xfe",  # a string that is not UTF-8
    msgpack.packb({"t": msgpack.ExtType(1, b"abc")}),  # an ext type
    b"",  # an empty frame
], ids=["reserved-byte", "truncated", "extra-data", "bad-utf8", "ext-type", "empty"])
def test_invalid_msgpack_is_a_fatal_bad_frame(payload: bytes) -> None:
    error = fatal(payload)
    assert error.code == "bad_frame"
    assert "msgpack" in error.reason


@pytest.mark.parametrize(("value", "kind"), [
    ({1: "ping"}, "int"),
    ({"t": "ping", b"x": 1}, "bytes"),
    ({b"t": "ping"}, "bytes"),
    ({"t": "ping", "x": [{"a": {2.5: 1}}]}, "float"),
    ({"t": "ping", "x": {None: 1}}, "NoneType"),
    ({"t": "ping", "x": {True: 1}}, "bool"),
], ids=["int", "bin-beside-t", "bin-t", "deep-float", "nil", "bool"])
def test_a_map_key_that_is_not_text_is_a_fatal_bad_frame_at_any_depth(value: dict[Any, Any], kind: str) -> None:
    """One rule for every non-text key (integer, binary, ...), wherever the map is."""
    error = fatal(msgpack.packb(value, use_bin_type=True))
    assert error.code == "bad_frame"
    assert f"a map key is {kind}, not text" in error.reason


@pytest.mark.parametrize("value", [[1, 2], "ping", 7, None, True, b"map"])
def test_a_frame_that_is_not_a_map_is_a_fatal_bad_frame(value: object) -> None:
    error = fatal(msgpack.packb(value, use_bin_type=True))
    assert error.code == "bad_frame"
    assert "map" in error.reason


@pytest.mark.parametrize("depth", [2000, 20_000])
def test_deeply_nested_data_is_a_fatal_bad_frame(depth: int) -> None:
    payload = b"\x81\xa1t" + b"\x91" * depth + b"\x00"  # {"t": [[[...0...]]]}
    error = fatal(payload)
    assert error.code == "bad_frame"
    assert "nested" in error.reason


def test_moderate_nesting_is_accepted() -> None:
    value: Any = 0
    for _ in range(100):
        value = [value]
    assert list(FrameDecoder().feed(encode({"t": "x", "v": value}))) == [{"t": "x", "v": value}]


def test_oversized_collections_inside_a_frame_are_refused() -> None:
    assert fatal(msgpack.packb({"t": "x", "v": list(range(5000))})).code == "bad_frame"
    assert fatal(msgpack.packb({f"k{i}": i for i in range(300)})).code == "bad_frame"


def test_decode_payload_returns_the_map() -> None:
    assert decode_payload(msgpack.packb({"t": "ping", "n": 3})) == {"t": "ping", "n": 3}


# --- validation --------------------------------------------------------------------------------------
VALID_CLIENT_MESSAGES: dict[str, dict[str, Any]] = {
    "hello": {"t": "hello", "version": 2, "name": "Ada", "seen": {"table": 1, "seq": 40, "chat": 3}},
    "prove": {"t": "prove", "signature": b"\x00\x00\x00\x0bssh-ed25519" + bytes(68)},
    "list_tables": {"t": "list_tables"},
    "create_table": {"t": "create_table", "name": "Ada's table", "edition": "1980", "options": {"scoring": "points"},
                     "seats": 8, "bots": 7, "bot_level": "random", "turn_seconds": 600, "private": True,
                     "start": False, "replace_bots": True, "series_points": 10},
    "join": {"t": "join", "table": 3, "seat": 0},
    "spectate": {"t": "spectate", "code": "ABC234"},
    "sit": {"t": "sit", "seat": 7},
    "stand": {"t": "stand"},
    "leave": {"t": "leave"},
    "add_bot": {"t": "add_bot", "seat": 1, "level": "greedy"},
    "remove_bot": {"t": "remove_bot", "seat": 1},
    "kick": {"t": "kick", "seat": 2},
    "give_seat": {"t": "give_seat", "seat": 2, "name": "Bo"},
    "table_options": {"t": "table_options", "replace_bots": True},
    "start": {"t": "start"},
    "rematch": {"t": "rematch"},
    "series": {"t": "series", "games": 5},
    "act": {"t": "act", "action": "ONO99x4", "version": 0},
    "chat": {"t": "chat", "text": "hi", "scope": "table"},
    "leaderboard": {"t": "leaderboard", "edition": "2022"},
    "ping": {"t": "ping", "n": 1},
    "play_now": {"t": "play_now", "edition": "1980", "seats": 3},
    "leave_queue": {"t": "leave_queue"},
    "profile": {"t": "profile", "name": "Ada"},
    "game_record": {"t": "game_record", "game": 12},
    "mute": {"t": "mute", "name": "Bo", "on": False},
    "block": {"t": "block", "name": "Bo", "on": True},
    "report": {"t": "report", "name": "Bo", "reason": "insults in the chat"},
    "admin": {"t": "admin", "command": "ban", "target": "Bo", "address": "203.0.113.0/24", "reason": "spam",
              "seconds": 3600, "name": "Robert", "table": 4, "text": "hello", "id": 2, "all": True},
    "arena_create": {"t": "arena_create", "minutes": 60, "edition": "2022", "seats": 4, "start": 1_800_000_000,
                     "name": "Friday arena", "private": True},
    "arena_join": {"t": "arena_join", "arena": 3, "code": "K7QX2M"},
    "arena_leave": {"t": "arena_leave"},
    "arena_results": {"t": "arena_results", "arena": 3, "name": "Bob"},
}


def validate(message: dict[str, Any]) -> str:
    """The type of the request ``message`` decodes to."""
    return decode_request(message).t


def refused(message: dict[str, Any], code: str = "bad_field") -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode_request(message)
    assert info.value.code == code
    assert not info.value.fatal
    return info.value


def test_every_client_message_type_has_a_valid_example() -> None:
    assert set(VALID_CLIENT_MESSAGES) == {kind_of(cls) for cls in REQUEST_TYPES}
    for kind, message in VALID_CLIENT_MESSAGES.items():
        request = decode_request(message)
        assert request.t == kind
        assert request.to_wire() == message  # and it says itself back as it came


def test_optional_fields_may_be_left_out() -> None:
    for cls in REQUEST_TYPES:
        kind = kind_of(cls)
        minimal = {"t": kind, **{rule.name: VALID_CLIENT_MESSAGES[kind][rule.name]
                                 for rule in field_rules(cls) if rule.required}}
        assert validate(minimal) == kind
        assert decode_request(minimal).to_wire() == minimal  # what is left out stays out


@pytest.mark.parametrize("message", [{}, {"type": "ping"}, {"t": 1}, {"t": None}, {"t": b"ping"}, {"t": ["ping"]}])
def test_a_message_without_a_text_t_is_refused(message: dict[str, Any]) -> None:
    refused(message, "bad_message")


def test_an_unknown_type_is_refused_and_its_name_is_cut_short() -> None:
    error = refused({"t": "fly"}, "unknown_type")
    assert "'fly'" in error.reason
    error = refused({"t": "z" * 1000}, "unknown_type")
    assert "z" * 32 in error.reason and "z" * 33 not in error.reason


def test_server_messages_are_not_client_messages() -> None:
    refused({"t": "welcome", "version": 2, "server": "s", "name": "n", "resume": "r", "resumed": False,
             "table": None}, "unknown_type")


@pytest.mark.parametrize("message, field", [
    ({"t": "hello", "name": "Ada"}, "version"),
    ({"t": "hello", "version": 2}, "name"),
    ({"t": "act", "action": "7"}, "version"),
    ({"t": "act", "version": 3}, "action"),
    ({"t": "give_seat", "seat": 1}, "name"),
    ({"t": "remove_bot"}, "seat"),
    ({"t": "kick"}, "seat"),
    ({"t": "chat", "scope": "lobby"}, "text"),
])
def test_a_missing_required_field_is_refused(message: dict[str, Any], field: str) -> None:
    error = refused(message)
    assert repr(field) in error.reason and "missing" in error.reason


@pytest.mark.parametrize("message, field", [
    ({"t": "hello", "version": "1", "name": "Ada"}, "version"),
    ({"t": "hello", "version": 2.0, "name": "Ada"}, "version"),
    ({"t": "hello", "version": True, "name": "Ada"}, "version"),
    ({"t": "hello", "version": 2, "name": b"Ada"}, "name"),
    ({"t": "hello", "version": 2, "name": None}, "name"),
    ({"t": "hello", "version": 2, "name": "Ada", "resume": 5}, "resume"),
    ({"t": "act", "action": 7, "version": 0}, "action"),
    ({"t": "act", "action": "7", "version": False}, "version"),
    ({"t": "sit", "seat": True}, "seat"),
    ({"t": "sit", "seat": 1.0}, "seat"),
    ({"t": "create_table", "seats": True}, "seats"),
    ({"t": "create_table", "options": [["scoring", "points"]]}, "options"),
    ({"t": "create_table", "private": 1}, "private"),
    ({"t": "create_table", "start": "yes"}, "start"),
    ({"t": "join", "table": "3"}, "table"),
    ({"t": "join", "table": None}, "table"),
    ({"t": "ping", "n": True}, "n"),
    ({"t": "chat", "text": ["hi"]}, "text"),
])
def test_a_field_of_the_wrong_type_is_refused(message: dict[str, Any], field: str) -> None:
    error = refused(message)
    assert repr(field) in error.reason and "must be" in error.reason


@pytest.mark.parametrize("message", [
    {"t": "create_table", "seats": 1},
    {"t": "create_table", "seats": 9},
    {"t": "create_table", "bots": -1},
    {"t": "create_table", "bots": 8},
    {"t": "create_table", "turn_seconds": -1},
    {"t": "create_table", "turn_seconds": 601},
    {"t": "create_table", "edition": "2023"},
    {"t": "create_table", "bot_level": "smart"},
    {"t": "create_table", "name": "x" * (MAX_TABLE_NAME + 1)},
    {"t": "join", "seat": 8},
    {"t": "join", "code": "x" * 17},
    {"t": "sit", "seat": -1},
    {"t": "sit", "seat": 8},
    {"t": "add_bot", "level": "expert"},
    {"t": "kick", "seat": 99},
    {"t": "act", "action": "x" * 17, "version": 0},
    {"t": "chat", "text": "x" * (MAX_CHAT * 4 + 1)},
    {"t": "chat", "text": "hi", "scope": "world"},
    {"t": "hello", "version": 2, "name": "x" * 65},
    {"t": "hello", "version": 2, "name": "Ada", "resume": "x" * 129},
    {"t": "leaderboard", "edition": "1999"},
    {"t": "hello", "version": 2, "name": "Ada", "key": "x" * 1025},
    {"t": "prove", "signature": "a text, not bytes"},
    {"t": "prove", "signature": bytes(1025)},
    {"t": "act", "action": "7", "version": -1},
    {"t": "act", "action": "7", "version": 2**31},
    {"t": "act", "action": "7", "version": 2**64 - 1},
    {"t": "join", "table": -1},
    {"t": "join", "table": 2**63},
    {"t": "spectate", "table": -(2**63)},
    {"t": "ping", "n": -1},
    {"t": "ping", "n": 2**64 - 1},
    {"t": "hello", "version": 2, "name": "Ada", "password": "p" * 257},
])
def test_out_of_range_values_are_refused(message: dict[str, Any]) -> None:
    refused(message)


@pytest.mark.parametrize("message", [
    {"t": "create_table", "seats": 2, "bots": 0, "turn_seconds": 0},
    {"t": "create_table", "seats": 8, "bots": 7, "turn_seconds": 600, "name": "x" * MAX_TABLE_NAME},
    {"t": "sit", "seat": 0},
    {"t": "chat", "text": "x" * (MAX_CHAT * 4)},
    {"t": "hello", "version": 2, "name": "x" * 64, "resume": "r" * 128},
    {"t": "act", "action": "x" * 16, "version": 2**31 - 1},
    {"t": "act", "action": "7", "version": 0},
    {"t": "join", "table": 0},
    {"t": "join", "table": 2**31 - 1},
    {"t": "spectate", "table": 2**31 - 1},
    {"t": "ping", "n": 0},
    {"t": "ping", "n": 2**31 - 1},
])
def test_values_at_the_limits_are_accepted(message: dict[str, Any]) -> None:
    assert validate(message) == message["t"]


def test_extra_unknown_fields_are_ignored() -> None:
    message = {"t": "act", "action": "7", "version": 3, "future": {"x": [1, 2]}, "hint": None}
    assert validate(message) == "act"
    assert validate({"t": "leave", "why": "bored"}) == "leave"


def test_a_hellos_seen_keeps_only_the_whole_numbers_it_may_say() -> None:
    """Tried: a bool, a float, text, nil and unknown keys beside the four keys a hello's seen may have."""
    hello = decode_request({"t": "hello", "version": 2, "name": "Ada", "seen": {
        "table": 1, "seq": True, "chat": 2.0, "lobby_chat": 7, "x": 1, "seqs": None, "chat ": "3"}})
    assert isinstance(hello, Hello) and hello.seen == {"table": 1, "lobby_chat": 7}


def test_a_request_built_by_a_client_is_what_the_server_reads() -> None:
    """Every request type, built as a client builds it, encoded and decoded again: the same value."""
    built = [Hello(version=2, name="Ada", client="ono99", key="ssh-ed25519 AAAA", seen={"table": 3}),
             Join(code="ABC234"), Join(table=4, seat=2), Say(text="hi", scope="lobby"), Act(action="7", version=9),
             AskLeaderboard(follow=False), PlayNow(edition="1980", seats=3), Prove(signature=b"\x00" * 8)]
    bare = [ListTables(), CreateTable(), Join(), Spectate(), Sit(), Stand(), Leave(), AddBot(), SetTableOptions(),
            Start(), Rematch(), StartSeries(), AskLeaderboard(), Ping(), PlayNow(), LeaveQueue(), AskProfile(),
            JoinArena(), LeaveArena()]
    assert [type(r) for r in bare] == [c for c in REQUEST_TYPES if not any(rule.required for rule in field_rules(c))]
    built += bare
    for request in built:
        payload = list(FrameDecoder().feed(encode(request.to_wire())))
        assert decode_request(payload[0]) == request


def test_server_messages_are_no_requests() -> None:
    """A server message type is unknown to the decoder of requests (ono99_kernel/wire/requests.py), and the
    decoder of server messages (ono99_kernel/wire/server.py) reads it."""
    welcome = {"t": "welcome", "version": 2, "server": "ONO 99", "name": "Ada", "resume": "tok",
               "resumed": False, "table": None}
    refused(welcome, "unknown_type")
    assert decode_server_message({**welcome, "table": 4}) == Welcome(
        version=2, server="ONO 99", name="Ada", resume="tok", resumed=False, table=4, identity=None)
    for wrong in ({**welcome, "table": "4"}, {**welcome, "resumed": 0}):
        with pytest.raises(ProtocolError) as info:
            decode_server_message(wrong)
        assert info.value.code == "bad_field" and not info.value.fatal


def test_action_and_options_from_wire_answer_with_protocol_errors() -> None:
    assert action_from_wire("REV").card is Card.REVERSE
    assert action_from_wire("ONO99x4") is DISCARD_FOUR
    assert action_from_wire("draw") is DRAW
    with pytest.raises(ProtocolError) as info:
        action_from_wire("11")
    assert info.value.code == "bad_action" and not info.value.fatal
    assert options_from_wire("1980", {"scoring": "points"}).points_target == 100
    refused: list[tuple[str, dict[str, Any]]] = [("2022", {"scoring": "tokens"}), ("1980", {"nope": True}),
                                                 ("1999", {}), ("1980", {"manual_draw": 1}),
                                                 ("1980", {"scoring": ["points"]})]
    for edition, options in refused:
        with pytest.raises(ProtocolError) as info:
            options_from_wire(edition, options)
        assert info.value.code == "bad_options" and not info.value.fatal


# --- text safety -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dirty, clean", [
    ("\x1b[31mred\x1b[0m", "[31mred[0m"),
    ("bell\x07 nul\x00 del\x7f", "bell nul del"),
    ("two\nlines\r\tand tab", "twolinesand tab"),
    ("c1\x9b2J csi", "c12J csi"),
    ("\u202eevil\u202c \u202aa\u202b \u2066b\u2067\u2068\u2069", "evil a b"),
    ("zero\u200bwidth\u200d \ufeffbom \u061c", "zerowidth bom "),
    ("private\ue000use", "privateuse"),
])
def test_clean_text_removes_control_format_and_bidi_characters(dirty: str, clean: str) -> None:
    assert clean_text(dirty) == clean


def test_clean_text_keeps_ordinary_text() -> None:
    text = "Ada's table · ONO 99 — Zoë, 你好, مرحبا, 🃏 -10 REV"
    assert clean_text(text) == text


def test_check_name_strips_and_accepts_1_to_20_characters() -> None:
    assert check_name("  Ada  ") == "Ada"
    assert check_name("A") == "A"
    assert check_name("x" * MAX_NAME) == "x" * MAX_NAME
    assert check_name("Zoë 🃏") == "Zoë 🃏"


@pytest.mark.parametrize("name", ["", "   ", "x" * (MAX_NAME + 1), "A\x1bB", "Ada\u202e", "A\nB", "\u200b"])
def test_check_name_refuses_bad_names(name: str) -> None:
    with pytest.raises(ProtocolError) as info:
        check_name(name)
    assert info.value.code == "bad_name" and not info.value.fatal


def test_check_name_takes_the_limit_and_the_name_of_what_is_checked() -> None:
    assert check_name("x" * MAX_TABLE_NAME, "table name", MAX_TABLE_NAME) == "x" * MAX_TABLE_NAME
    with pytest.raises(ProtocolError, match=f"table name must be 1 to {MAX_TABLE_NAME}"):
        check_name("x" * (MAX_TABLE_NAME + 1), "table name", MAX_TABLE_NAME)


# --- views and events on the wire -----------------------------------------------------------------
VIEW_FIELDS = {field.name for field in dataclasses.fields(View)}  # the client's reading names every wire field
CARD_CODES = {card.code for card in Card}
GAMES = [
    ("2022", {}, 2), ("2022", {}, 4), ("2022", {"manual_draw": True}, 3), ("2022", {"eight_players": True}, 8),
    ("1980", {}, 3), ("1980", {"scoring": "points"}, 4), ("1980", {"manual_draw": True}, 4),
    ("1980", {"bust_over_99": True, "ono99_sets_99": True}, 2),
]


def codes(cards: tuple[Card, ...]) -> list[str]:
    return [card.code for card in cards]


def check_view(game: Game, seat: int | None) -> dict[str, Any]:
    wire = view_to_wire(game.view(seat))
    assert set(wire) == VIEW_FIELDS
    assert wire["seat"] == seat
    if seat is None:
        assert wire["hand"] == [] and wire["legal"] == [] and wire["unplayable"] == []
    else:
        own = codes(game.hand_of(seat))
        assert wire["hand"] == own
        assert {entry["card"] for entry in wire["unplayable"]} <= set(own)
        assert set(wire["legal"]) <= set(own) | {"draw", "ONO99x4"}
        assert wire["legal"] == [a.code for a in game.legal_actions(seat)]
    assert wire["hand_sizes"] == [len(game.hand_of(s)) for s in range(game.seats)]
    assert wire["version"] == game.version and wire["total"] == game.total
    assert wire["draw_pile_size"] == len(game.draw_pile())
    state = decode_server_message({"t": "state", "table": 1, "game_no": 1, "view": wire, "events": [],
                                   "controlled_by_bot": [False] * game.seats})
    assert isinstance(state, State)
    assert {name: getattr(state.view, name) for name in ("hand", "legal", "hand_sizes", "seat", "winner")} == {
        "hand": tuple(wire["hand"]), "legal": tuple(wire["legal"]), "hand_sizes": tuple(wire["hand_sizes"]),
        "seat": wire["seat"], "winner": wire["winner"]}
    return wire


def check_events(game: Game, events: tuple[Any, ...], seat: int | None, seen: set[str]) -> None:
    """The events of one action as ``seat`` receives them (``None``: a spectator)."""
    for event in events:
        wire = event_to_wire(event.seen_by(seat))
        seen.add(wire["e"])
        if wire["e"] == "draw":
            assert isinstance(event, Drew)
            if event.seat == seat:
                assert event.card is not None and wire["card"] == event.card.code
            else:
                assert wire["card"] is None
        elif wire["e"] == "hand_started":
            assert isinstance(event, HandStarted)
            assert "draw_pile" not in wire
            for s, hand in enumerate(wire["hands"]):
                dealt = event.hands[s]
                if s == seat:
                    assert dealt is not None and hand == codes(dealt)
                else:
                    assert hand is None
        elif wire["e"] == "reshuffle":
            assert isinstance(event, Reshuffled)
            assert wire["draw_pile"] is None and wire["size"] == event.size
        elif wire["e"] == "play":
            assert set(wire["cards"]) <= CARD_CODES
        history = decode_server_message({"t": "history", "table": 1, "game_no": 1, "seq": 1, "reset": False,
                                         "events": [wire]})
        assert isinstance(history, History) and not isinstance(history.events[0], UnknownEvent)
        # the map survives the wire as it is
        assert list(FrameDecoder().feed(encode({"t": "e", "e": wire}))) == [{"t": "e", "e": wire}]


@pytest.mark.parametrize("edition, options, seats", GAMES)
def test_views_and_events_never_carry_other_seats_cards(edition: str, options: dict[str, Any], seats: int) -> None:
    seen: set[str] = set()
    for seed in range(6):
        game = Game(TableOptions.from_mapping(edition, options), seats, random.Random(seed))
        rng = random.Random(1000 + seed)
        for seat in [*range(seats), None]:
            check_events(game, tuple(game.log), seat, seen)
        steps = 0
        while not game.is_over:
            seat = rng.choice(game.actors())
            events = game.apply(seat, rng.choice(game.legal_actions(seat)))
            steps += 1
            for recipient in [*range(seats), None]:
                check_events(game, events, recipient, seen)
                if steps % 7 == 0 or game.is_over:
                    check_view(game, recipient)
                    check_events(game, game.view(recipient).recent_events, recipient, set())
        final = check_view(game, None)
        assert game.outcome is not None and final["winner"] == game.outcome.winner and final["turn"] is None
    assert {"hand_started", "play", "draw", "out", "game_over"} <= seen
    if edition == "1980":
        assert "hand_ended" in seen
    if options.get("manual_draw"):
        assert "missed_draw" in seen


def test_a_reshuffle_never_shows_the_new_draw_pile() -> None:
    """Random games almost never empty the draw pile, so the event is built here."""
    pile = (Card.N7, Card.REVERSE, Card.ONO99)
    event = Reshuffled(3, pile)
    for recipient in (0, 1, None):
        assert event_to_wire(event.seen_by(recipient)) == {"e": "reshuffle", "size": 3, "draw_pile": None}
    with pytest.raises(ValueError):  # the protocol has no way to say the new order at all
        event_to_wire(event)


def test_the_spectator_view_has_no_hand() -> None:
    game = Game(TableOptions(), 4, random.Random(11))
    wire = check_view(game, None)
    assert wire["hand"] == [] and wire["seat"] is None
    assert wire["hand_sizes"] == [4, 4, 4, 4]
    (dealt,) = game.log
    assert event_to_wire(dealt.seen_by(None))["hands"] == [None, None, None, None]


def test_a_seat_sees_its_own_deal_and_nothing_else() -> None:
    game = Game(TableOptions(), 3, random.Random(5))
    (dealt,) = game.log
    for seat in range(3):
        wire = event_to_wire(dealt.seen_by(seat))
        assert wire["hands"][seat] == codes(game.hand_of(seat))
        assert [h for s, h in enumerate(wire["hands"]) if s != seat] == [None, None]
        assert wire["hand_sizes"] == [4, 4, 4]
        assert wire["draw_pile_size"] == len(game.draw_pile())


def test_event_to_wire_refuses_what_is_not_an_event() -> None:
    with pytest.raises(TypeError):
        event_to_wire(("play", 0))  # type: ignore[arg-type]  # a wrong type on purpose


def test_ext_values_are_refused_even_empty_ones_in_ignored_fields() -> None:
    """Tried: a zero-length msgpack ext value in a field the schema ignores."""
    payload = msgpack.packb({"t": "ping", "extra": msgpack.ExtType(1, b"")})
    with pytest.raises(ProtocolError) as info:
        decode_payload(payload)
    assert info.value.fatal and info.value.code == "bad_frame"


def test_clean_text_removes_line_and_paragraph_separators() -> None:
    assert clean_text("a\u2028b\u2029c") == "abc"
