"""The typed model of the protocol (ono99_kernel/wire/) is the one description of every message, both ways:
what the server sends decodes into values that encode back to the very same bytes; docs/protocol.md's
list of requests is the request types' fields; every request type has a handler on the server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from ono99_kernel.protocol import PROTOCOL_VERSION, encode
from ono99_kernel.wire.requests import (
    REQUEST_TYPES,
    Act,
    Admin,
    AskGameRecord,
    AskLeaderboard,
    AskProfile,
    CreateTable,
    Hello,
    Leave,
    LeaveQueue,
    ListTables,
    Mute,
    Ping,
    PlayNow,
    Report,
    Say,
    field_rules,
    kind_of,
)
from ono99_kernel.wire.server import decode_server_message
from ono99_server import ServerConfig
from ono99_server.local import EmbeddedServer, LocalLink
from tests.server_helpers import may_act
from tests.test_protocol_doc import section, table_rows

IDENTITY = "SHA256:" + "A" * 43  # a key's fingerprint, as if proven


async def next_of(link: LocalLink, kind: str, got: list[dict[str, Any]], timeout: float = 30.0) -> dict[str, Any]:
    """The next message of ``kind`` on ``link``; every message read meanwhile goes to ``got``."""
    while True:
        message = await asyncio.wait_for(link.inbox.get(), timeout)
        assert message is not None, f"the link closed while waiting for {kind}"
        got.append(message)
        if message["t"] == kind:
            return message


async def a_session(db: Path) -> list[dict[str, Any]]:
    """Everything a keyed player is sent in a session that touches every kind of server message: the
    lobby, chat, a ping, play now, a refused request, a game against a bot played to the end, the
    leaderboard, the profile and the game's record, leaving the table, and a goodbye (the same key
    connected again elsewhere)."""
    embedded = EmbeddedServer(ServerConfig(host="", port=None, db_path=db, bot_delay=0, default_turn_seconds=0,
                                           grace_seconds=3600))
    got: list[dict[str, Any]] = []
    link = embedded.link()
    link.connection.session.identity = IDENTITY
    try:
        await link.send(Hello(version=PROTOCOL_VERSION, name="Ada", client="test"))
        await next_of(link, "queue", got)
        await link.send(Ping(n=7))
        await next_of(link, "pong", got)
        await link.send(Say(text="hello lobby", scope="lobby"))
        await next_of(link, "chat", got)
        await link.send(ListTables())
        await next_of(link, "tables", got)
        await link.send(PlayNow(edition="1980", seats=3))
        await next_of(link, "queue", got)
        await link.send(LeaveQueue())
        await next_of(link, "queue", got)
        await link.send(Act(action="7", version=0))
        await next_of(link, "error", got)
        await link.send(CreateTable(name="Wire", seats=2, bots=1, start=True, turn_seconds=0))
        while True:
            message = await next_of(link, "state", got)
            view = message["view"]
            if view["winner"] is not None:
                break
            if may_act(view):
                await link.send(Act(action=view["legal"][0], version=view["version"]))
        await next_of(link, "notice", got)  # the rating after the game
        await link.send(Say(text="gg"))
        await next_of(link, "chat", got)
        await link.send(AskLeaderboard(edition="2022"))
        await next_of(link, "leaderboard", got)
        await link.send(AskProfile())
        profile = await next_of(link, "profile", got)
        await link.send(AskGameRecord(game=profile["recent"][0]["game"]))
        await next_of(link, "game_record", got)
        await link.send(Leave())
        await next_of(link, "left", got)
        await next_of(link, "online", got)
        again = embedded.link()  # the same key connects again elsewhere: this session is told goodbye
        again.connection.session.identity = IDENTITY
        await again.send(Hello(version=PROTOCOL_VERSION, name="Ada"))
        await next_of(link, "bye", got)
        await again.close()
    finally:
        await link.close()
        await embedded.close()
    return got


async def test_what_the_server_sends_decodes_into_values_that_encode_to_the_same_bytes(tmp_path: Path) -> None:
    """The server builds typed values and encodes them (``to_wire``); a client decodes them. Decoding and
    encoding again gives back each message's bytes exactly: field for field, in the same order."""
    got = await a_session(tmp_path / "games.sqlite")
    kinds = {message["t"] for message in got}
    assert kinds >= {"welcome", "chat_history", "tables", "online", "queue", "pong", "chat", "error", "table",
                     "state", "notice", "leaderboard", "profile", "game_record", "left", "bye"}, kinds
    for message in got:
        assert encode(decode_server_message(message).to_wire()) == encode(message), message["t"]


async def a_moderated_session(db: Path) -> list[dict[str, Any]]:
    """Everything an operator playing is sent while muting and reporting a guest and trying the
    operators' commands (docs/protocol.md section 5b), the listings read from the database included."""
    embedded = EmbeddedServer(ServerConfig(host="", port=None, db_path=db, bot_delay=0, default_turn_seconds=0))
    embedded.server.lobby.moderation.admins = {IDENTITY}  # as if listed in --admins
    got: list[dict[str, Any]] = []
    ada, bob = embedded.link(), embedded.link()
    ada.connection.session.identity = IDENTITY
    try:
        await ada.send(Hello(version=PROTOCOL_VERSION, name="Ada", client="test"))
        await next_of(ada, "safety", got)  # an operator is told so at the welcome
        await bob.send(Hello(version=PROTOCOL_VERSION, name="Bob"))
        await next_of(bob, "welcome", [])
        await bob.send(Say(text="buy gold", scope="lobby"))
        await next_of(ada, "chat", got)
        await ada.send(Mute(name="Bob"))
        await next_of(ada, "safety", got)
        await ada.send(Report(name="Bob", reason="spam"))
        await next_of(ada, "notice", got)
        await ada.send(Admin(command="who"))
        await next_of(ada, "admin_result", got)
        await ada.send(Admin(command="motd", text="Be kind"))
        await next_of(ada, "admin_result", got)
        await ada.send(Admin(command="reports", id=1))  # the report whole, read from the database
        await next_of(ada, "admin_result", got)
        await ada.send(Admin(command="log"))
        await next_of(ada, "admin_result", got)
        await ada.send(Admin(command="resolve", id=99))
        await next_of(ada, "error", got)
    finally:
        await bob.close()
        await ada.close()
        await embedded.close()
    return got


async def test_what_moderation_sends_decodes_into_values_that_encode_to_the_same_bytes(tmp_path: Path) -> None:
    got = await a_moderated_session(tmp_path / "games.sqlite")
    assert {message["t"] for message in got} >= {"safety", "notice", "admin_result", "error"}
    results = [message for message in got if message["t"] == "admin_result"]
    assert [r["command"] for r in results] == ["who", "motd", "reports", "log"]
    assert "buy gold" in results[2]["rows"][0]["chat"]
    for message in got:
        assert encode(decode_server_message(message).to_wire()) == encode(message), message["t"]


# --- docs/protocol.md section 4 is the list of request types ----------------------------------------------
WIRE_TYPES = {int: "int", str: "str", bytes: "bin", dict: "map", bool: "bool"}


def documented_requests() -> dict[str, list[tuple[str, bool, str]]]:
    """Section 4's table: per ``t``, its fields as (name, optional, type), in the document's order."""
    text = section("## 4. Client → server messages")
    table = text[text.index("| `t` | field |"):text.index("\n\n", text.index("| `t` | field |"))]
    found: dict[str, list[tuple[str, bool, str]]] = {}
    kind = ""
    for row in table_rows(table):
        kind = row[0].strip("`") or kind
        fields = found.setdefault(kind, [])
        if row[1]:
            name = re.fullmatch(r"`([a-z_]+)`( \*opt\*)?", row[1])
            assert name is not None, row
            fields.append((name.group(1), bool(name.group(2)), row[2]))
    return found


def test_section_4_lists_each_request_with_the_fields_of_its_type_their_types_and_which_may_be_left_out() -> None:
    documented = documented_requests()
    assert list(documented) == [kind_of(cls) for cls in REQUEST_TYPES]
    for cls in REQUEST_TYPES:
        declared = [(rule.name, not rule.required, WIRE_TYPES[rule.rule.kind]) for rule in field_rules(cls)]
        assert documented[kind_of(cls)] == declared, kind_of(cls)


def test_every_request_type_has_a_handler_on_the_server() -> None:
    embedded = EmbeddedServer()
    assert set(embedded.server.lobby.handlers) == set(REQUEST_TYPES)
