"""The lobby's rules at the protocol level: unique names, hello first, protocol versions, chat, and
the configurable limits on connections per address and tables per player."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.protocol import MAX_CHAT, PROTOCOL_VERSION, encode
from ono99_kernel.wire.requests import Act, CreateTable, Hello, Join, Leave, ListTables, Ping, Say, Start
from ono99_tui.client.errors import ServerError
from tests.server_helpers import TestClient, create_table, hello, join, running_server, until_closed, wait_until


async def test_names_are_unique_on_a_server(tmp_path: Path) -> None:
    """Alice connects; then others try her name, as is and padded with spaces, and names that are
    empty, too long or hold escape sequences. Tried: name_taken for hers while she is connected,
    bad_name for the malformed ones; once she has gone, her name is free again."""
    async with running_server(tmp_path) as h:
        alice = await h.connect("alice")
        for name in ("alice", "  alice "):
            with pytest.raises(ServerError) as taken:
                await h.connect(name)
            assert taken.value.code == "name_taken" and "'alice' is taken" in taken.value.reason
        for name in ("", "x" * 21, "\x1b[31mred", "tab\there"):
            with pytest.raises(ServerError) as bad:
                await h.connect(name)
            assert bad.value.code == "bad_name"
        assert set(h.server.lobby.members) == {"alice"}
        await alice.close()
        await wait_until(lambda: "alice" not in h.server.lobby.members, "alice to leave")
        again = await h.connect("alice")
        assert again.welcome["name"] == "alice" and again.welcome["resumed"] is False


async def test_the_first_message_must_be_hello(tmp_path: Path) -> None:
    """A fresh connection asks for the table list, then tries to create a table, before saying hello.
    Tried: each gets hello_first (the connection stays open), and a hello afterwards is welcomed."""
    async with running_server(tmp_path) as h:
        raw = await h.raw()
        for message in (ListTables(), CreateTable()):
            await raw.send(message)
            error = await raw.error()
            assert (error["code"], error["ref"]) == ("hello_first", message.t)
        await raw.send(hello("late"))
        welcome = await raw.expect("welcome")
        assert welcome["name"] == "late" and welcome["version"] == PROTOCOL_VERSION


async def test_a_client_of_another_protocol_version_is_refused_and_closed(tmp_path: Path) -> None:
    """A hello with the next protocol version. Tried: error version_mismatch naming both versions,
    then bye and the close; the name was not taken."""
    async with running_server(tmp_path) as h:
        raw = await h.raw()
        await raw.send(Hello(version=PROTOCOL_VERSION + 1, name="future"))
        messages = await until_closed(raw)
        assert [m["t"] for m in messages] == ["error", "bye"]
        assert messages[0]["code"] == "version_mismatch"
        assert f"version {PROTOCOL_VERSION}" in messages[0]["reason"]
        assert str(PROTOCOL_VERSION + 1) in messages[0]["reason"]
        assert "future" not in h.server.lobby.members


async def test_chat_is_plain_text_of_limited_length_and_rate(tmp_path: Path) -> None:
    """Alice and Bob at a table. Tried: a line with an ANSI escape, a bell and a bidi override
    reaches Bob with those removed; a line of exactly the limit is delivered, one character more is
    refused (chat_too_long), a line that is only control characters is refused (empty_chat); table
    chat from someone at no table is refused (no_table) while lobby chat works; ten lines at once get
    the burst through and then rate_limited."""
    async with running_server(tmp_path) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        carol = await h.connect("carol")
        table_id = await create_table(alice, seats=2)
        await join(bob, table_id)

        await alice.send(Say(text="hi \x1b[31mbob\x07 \u202eyes\x00"))
        line = await bob.expect("chat")
        assert (line["from"], line["text"], line["scope"], line["table"]) == ("alice", "hi [31mbob yes", "table",
                                                                             table_id)
        await alice.send(Say(text="x" * MAX_CHAT))
        assert (await bob.expect("chat"))["text"] == "x" * MAX_CHAT
        too_long = await alice.request(Say(text="y" * (MAX_CHAT + 1)), "error")
        assert too_long["code"] == "chat_too_long"
        empty = await alice.request(Say(text="\x1b\x07\u200b"), "error")
        assert empty["code"] == "empty_chat"
        assert (await carol.request(Say(text="anyone?"), "error"))["code"] == "no_table"
        lobby_line = await carol.request(Say(text="anyone?", scope="lobby"), "chat")
        assert (lobby_line["scope"], lobby_line["text"]) == ("lobby", "anyone?")

        dave = await h.connect("dave")
        burst = h.config.chat_per_minute // 4
        await dave.send_raw(b"".join(encode({"t": "chat", "text": f"spam {i}", "scope": "lobby"}) for i in range(10)))
        got: list[dict[str, Any]] = []
        while len(got) < 10:
            message = await dave.recv()
            if message["t"] == "error" or (message["t"] == "chat" and message["from"] == "dave"):
                got.append(message)
        delivered = [m["text"] for m in got if m["t"] == "chat"]
        refused = {m["code"] for m in got if m["t"] == "error"}
        assert burst <= len(delivered) < 10 and refused == {"rate_limited"}
        assert delivered == [f"spam {i}" for i in range(len(delivered))]


async def test_connections_per_address_are_limited(tmp_path: Path) -> None:
    """With max_connections_per_address 3, a fourth connection from 127.0.0.1 is refused with
    too_many_connections (then bye and the close); once one of the three has gone, a new one is
    welcomed."""
    async with running_server(tmp_path, max_connections_per_address=3) as h:
        first = await h.connect("one")
        await h.connect("two")
        await h.connect("three")
        with pytest.raises(ServerError) as refused:
            await h.connect("four")
        assert refused.value.code == "too_many_connections" and "127.0.0.1" in refused.value.reason
        raw = await h.raw()
        messages = await until_closed(raw)
        assert [m["t"] for m in messages] == ["error", "bye"] and messages[0]["code"] == "too_many_connections"
        await first.close()
        await wait_until(lambda: len(h.server.connections) == 2, "the first connection to end")
        four = await h.connect("four")
        assert four.welcome["name"] == "four"


async def test_tables_per_player_are_limited(tmp_path: Path) -> None:
    """With max_tables_per_player 1, Alice hosts a table and asks for another: too_many_tables, and
    she is still at her first table. After leaving it she may create one again."""
    async with running_server(tmp_path, max_tables_per_player=1) as h:
        alice: TestClient = await h.connect("alice")
        first = await create_table(alice, seats=2)
        refused = await alice.request(CreateTable(name="second"), "error")
        assert refused["code"] == "too_many_tables"
        assert list(h.server.lobby.tables) == [first]
        assert h.server.lobby.members["alice"].table is h.server.lobby.tables[first]
        await alice.request(Leave(), "left")
        second = await create_table(alice, seats=2)
        assert second != first and set(h.server.lobby.tables) == {second}


async def test_a_long_table_list_is_capped_and_hello_still_works(tmp_path: Path) -> None:
    """Tried: 110 public six-seat tables, far more than fit in one frame. A newcomer's hello is
    welcomed with a table list capped to MAX_LISTED_TABLES (open tables first) and the total, and
    the newcomer can go on to list and join."""
    from ono99_server.directory import MAX_LISTED_TABLES

    async with running_server(tmp_path, max_connections_per_address=200, messages_per_second=1000,
                              message_burst=1000) as h:
        hosts = []
        for i in range(110):
            host = await h.connect(f"host{i}")
            await create_table(host, seats=6)
            hosts.append(host)
        newcomer = await h.connect("newcomer")
        listing = await newcomer.expect("tables")
        assert len(listing["tables"]) == MAX_LISTED_TABLES and listing["total"] == 110
        assert all(t["status"] == "waiting" for t in listing["tables"])
        again = await newcomer.request(ListTables(), "tables")
        assert again["total"] == 110
        seat = await join(newcomer, listing["tables"][0]["id"])
        assert seat == 1


async def test_a_refused_join_keeps_the_old_seat(tmp_path: Path) -> None:
    """Bo sits at table A and tries to join table B, which is full. Tried: table_full, and Bo is
    still in his seat at A (a refused join must not make him leave)."""
    async with running_server(tmp_path) as h:
        ann, bo = await h.connect("ann"), await h.connect("bo")
        table_a = await create_table(ann, seats=2)
        assert await join(bo, table_a) == 1
        cy = await h.connect("cy")
        table_b = await create_table(cy, seats=2, bots=1)
        await bo.send(Join(table=table_b))
        error = await bo.error()
        assert error["code"] == "table_full"
        table = h.server.lobby.tables[table_a]
        assert table.seats[1].member is h.server.lobby.members["bo"]
        assert h.server.lobby.members["bo"].table is table


async def test_the_hello_deadline_is_not_extended_by_other_messages(tmp_path: Path) -> None:
    """Tried: a connection that never says hello but keeps sending pings. It is closed with
    'no hello in time' once the (short, configured) hello timeout has passed."""
    async with running_server(tmp_path, hello_timeout=1.0) as h:
        raw = await h.raw()

        async def chatter() -> None:
            while not raw.closed:
                await raw.send(Ping())
                await asyncio.sleep(0.2)

        task = asyncio.create_task(chatter())
        try:
            messages = await until_closed(raw)
        finally:
            task.cancel()
        assert {"t": "bye", "reason": "no hello in time"} in messages


async def test_a_state_carries_the_clock_of_the_player_now_on_turn(tmp_path: Path) -> None:
    """Two people at a table with a 30 s turn clock: after the first move, the state sent to both
    carries the clock of the player now on turn (it is set before the state goes out)."""
    async with running_server(tmp_path) as h:
        ann, bo = await h.connect("ann"), await h.connect("bo")
        table_id = await create_table(ann, seats=2, turn_seconds=30)
        await join(bo, table_id)
        await ann.send(Start())
        first = await ann.expect("state")
        assert first["clock"] is not None and 0 < first["clock"] <= 30
        view = first["view"]
        mover = ann if view["turn"] == view["seat"] else bo
        if mover is bo:
            view = (await bo.expect("state"))["view"]
        await mover.send(Act(action=view["legal"][0], version=view["version"]))
        after = await mover.expect("state", where=lambda m: m["view"]["version"] > view["version"])
        if after["view"]["winner"] is None:
            assert after["clock"] is not None and 0 < after["clock"] <= 30
