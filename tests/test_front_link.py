"""One link per front process (docs/protocol.md section 3c): a front's players share one TLS connection to
the game server, each on a channel with a session of its own. Tried here against a real server on loopback
TLS: the link as the wire has it (a raw connection saying ``front_link`` and ``ch``), the front's link client
(ono99_tui/client/front_link.py), and the SSH front's sessions on it with asyncssh clients."""

from __future__ import annotations

import asyncio
import contextvars
import math
import time
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.fronts import FrontAssertion, new_credential
from ono99_kernel.protocol import PROTOCOL_VERSION, ProtocolError, encode
from ono99_kernel.wire.link import FrontLink, ToServer
from ono99_kernel.wire.requests import CreateTable, Hello, Join, Ping, Say, Spectate, Start
from ono99_kernel.wire.server import Pong, encode_message
from ono99_server.connection import Connection
from ono99_tui.client import front_link as front_link_module
from ono99_tui.client.decoding import decode_shared
from ono99_tui.client.errors import ServerError
from ono99_tui.client.front_link import LINK_SLICE, TOO_SLOW, FrontLinkClient, LinkChannel
from ono99_tui.front import door
from tests.server_helpers import TIMEOUT, Harness, TestClient, create_table, running_server, wait_until
from tests.test_ssh import Player, start_rig, until

CREDENTIAL = new_credential()
ADA_ADDRESS = "198.51.100.7"


def typed_hello(name: str, address: str = ADA_ADDRESS) -> Hello:
    """A front's hello for a guest player from ``address``."""
    return Hello(version=PROTOCOL_VERSION, name=name, client="ono99-ssh",
                 front=FrontAssertion(CREDENTIAL, address, None).to_wire())


def front_hello(name: str, address: str = ADA_ADDRESS) -> dict[str, Any]:
    return typed_hello(name, address).to_wire()


class RawLink:
    """A front's link as the wire has it: every frame the server sends, kept in order."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.frames: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, h: Harness, credential: str = CREDENTIAL) -> RawLink:
        """A link said ``front_link`` with ``credential`` (the trusted one: ``linked`` read)."""
        client = await h.raw()
        await client.send_map(FrontLink(version=PROTOCOL_VERSION, credential=credential).to_wire())
        link = cls(client)
        if credential == CREDENTIAL:
            assert (await link.next())["t"] == "linked"
        return link

    async def next(self) -> dict[str, Any]:
        frame = await self.client.recv(TIMEOUT)
        self.frames.append(frame)
        return frame

    async def send(self, channel: int, message: Any) -> None:
        await self.client.send_raw(encode({"t": "ch", "c": channel, "m": message}))

    async def until(self, channel: int, kind: str, where: Any = None) -> dict[str, Any]:
        """The next message of ``kind`` for ``channel`` (alone or among others)."""
        while True:
            frame = await self.next()
            message = frame.get("m")
            if channel in frame.get("to", []) and isinstance(message, dict) and message.get("t") == kind \
                    and (where is None or where(message)):
                return message

    async def ended(self, channel: int) -> str:
        while True:
            frame = await self.next()
            if frame.get("to") == [channel] and "end" in frame:
                return str(frame["end"])

    def messages_to(self, channel: int) -> list[dict[str, Any]]:
        return [f["m"] for f in self.frames if channel in f.get("to", []) and isinstance(f.get("m"), dict)]


@pytest.fixture
async def h(tmp_path: Path) -> Any:
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,)) as harness:
        yield harness


async def test_a_link_needs_a_trusted_credential(h: Harness) -> None:
    """Tried: ``front_link`` with a credential the server does not trust: refused with ``not_trusted`` and
    closed, as a front's hello is; with the trusted one: ``linked``, counted as one connection."""
    refused = await RawLink.open(h, credential="guessed")
    error = await refused.next()
    assert error["t"] == "error" and error["code"] == "not_trusted"
    assert (await refused.next())["t"] == "bye"
    link = await RawLink.open(h)
    assert [c.link is not None for c in h.server.connections] == [True]
    await link.send(1, front_hello("ada"))
    welcome = await link.until(1, "welcome")
    assert welcome["name"] == "ada"


async def test_players_on_one_link_see_their_own_views_and_spectators_get_one_frame(h: Harness) -> None:
    """Tried: Ada and Bob seated at one table and Cy and Di watching it, all four on one link, through a
    game played to the end. Every state that shows a hand goes to that seat's channel alone (no seated
    player's cards reach another channel), and each spectators' state goes once, to both of their
    channels together, as does the table as they see it."""
    link = await RawLink.open(h)
    for number, name in enumerate(("ada", "bob", "cy", "di"), start=1):
        await link.send(number, front_hello(name, address=f"198.51.100.{number}"))
        await link.until(number, "welcome")
    await link.send(1, CreateTable(name="t", seats=2).to_wire())
    table = (await link.until(1, "table"))["table"]
    await link.send(2, Join(table=table["id"]).to_wire())
    await link.until(2, "table", lambda m: m["table"]["you"] == 1)
    for number in (3, 4):
        await link.send(number, Spectate(table=table["id"]).to_wire())
        await link.until(number, "table", lambda m: m["table"]["you"] is None)
    await link.send(1, Start().to_wire())
    seats = {0: 1, 1: 2}  # seat -> channel
    acted: set[tuple[int, int]] = set()
    while True:
        frame = await link.next()
        message = frame.get("m")
        if not isinstance(message, dict) or message.get("t") != "state":
            continue
        view = message["view"]
        if view["seat"] is None:
            assert sorted(frame["to"]) == [3, 4], frame["to"]  # the spectators' view, once for both
            assert view["hand"] == []
        else:
            assert frame["to"] == [seats[view["seat"]]], (view["seat"], frame["to"])
            if view["turn"] == view["seat"] and view["legal"] and (message["game_no"], view["version"]) not in acted:
                acted.add((message["game_no"], view["version"]))
                await link.send(seats[view["seat"]], {"t": "act", "action": view["legal"][0],
                                                      "version": view["version"]})
        if view.get("winner") is not None:
            break
    assert any(sorted(f.get("to", [])) == [3, 4] for f in link.frames)
    tables = [f for f in link.frames if isinstance(f.get("m"), dict) and f["m"]["t"] == "table"]
    watched = [f for f in tables if f["m"]["table"]["you"] is None and f["m"]["table"]["status"] == "playing"]
    assert watched and all(sorted(f["to"]) == [3, 4] for f in watched), watched  # the table, as they see it, once


async def test_a_channels_bad_message_or_flood_closes_that_channel_only(h: Harness) -> None:
    """Tried on one link: a channel sends something that is no message (a number); another floods pings
    far past the rate limit; a third says hello without a front's word. Each is answered and closed
    alone, with its reason; Ada's channel beside them answers a ping after all of it."""
    link = await RawLink.open(h)
    await link.send(1, front_hello("ada"))
    await link.until(1, "welcome")
    await link.send(2, front_hello("bob", address="198.51.100.8"))
    await link.until(2, "welcome")
    await link.send(2, 42)
    assert (await link.until(2, "error"))["code"] == "bad_frame"
    assert "map" in await link.ended(2)
    await link.send(3, front_hello("cy", address="198.51.100.9"))
    await link.until(3, "welcome")
    for n in range(200):
        await link.send(3, Ping(n=n).to_wire())
    assert await link.ended(3) == "too many messages"
    await link.send(4, Hello(version=PROTOCOL_VERSION, name="eve").to_wire())
    assert (await link.until(4, "error"))["code"] == "bad_field"
    await link.ended(4)
    await link.send(1, Ping(n=7).to_wire())
    assert (await link.until(1, "pong"))["n"] == 7
    assert {c.session.member.name for c in h.server.channels if c.session.member is not None} == {"ada"}


async def test_budgets_per_player_hold_behind_the_link(tmp_path: Path) -> None:
    """Tried: a server taking 2 connections an address; on one link, three players from the same address
    and one from another. The third from that address is refused ``too_many_connections`` as it would be
    on connections of its own; the one from elsewhere comes in; one leaving gives its place back."""
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,), max_connections_per_address=2) as h:
        link = await RawLink.open(h)
        for number in (1, 2):
            await link.send(number, front_hello(f"p{number}"))
            await link.until(number, "welcome")
        await link.send(3, front_hello("p3"))
        refusal = await link.until(3, "error")
        assert refusal["code"] == "too_many_connections" and ADA_ADDRESS in refusal["reason"]
        await link.send(4, front_hello("p4", address="203.0.113.5"))
        await link.until(4, "welcome")
        await link.client.send_raw(encode(ToServer(c=1, end=True).to_wire()))
        await wait_until(lambda: len(h.server.channels) == 2, "p1's channel to end")
        await link.send(5, front_hello("p5"))
        assert (await link.until(5, "welcome"))["name"] == "p5"


async def front_link_client(h: Harness) -> FrontLinkClient:
    return FrontLinkClient("127.0.0.1", h.port, CREDENTIAL, h.trust, "ono99-front/test")


async def test_a_session_that_stops_reading_is_dropped_alone(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tried with the front's link client: Ada's session stops taking its messages while her pings'
    answers keep coming; Bob's, on the same link, reads his as they come. Once Ada's oldest unread
    message is older than the limit (1 s here) her channel ends with the server's words for a session
    too slow, and the server lets her go; Bob's channel goes on."""
    monkeypatch.setattr(front_link_module, "CHANNEL_STALL", 1.0)
    link = await front_link_client(h)
    try:
        ada = await link.open_channel(typed_hello("ada"))
        bob = await link.open_channel(typed_hello("bob", "198.51.100.8"))
        bob_read: list[dict[str, Any]] = []

        async def bob_reads() -> None:
            while (message := await bob.inbox.get()) is not None:
                bob_read.append(message)

        reader = asyncio.create_task(bob_reads())
        loop = asyncio.get_running_loop()
        end = loop.time() + TIMEOUT
        n = 0
        while not ada.closed and loop.time() < end:
            n += 1
            await ada.send(Ping(n=n))
            await asyncio.sleep(0.05)
        assert ada.closed
        unread = [ada.inbox.get_nowait() for _ in range(ada.inbox.qsize())]
        assert unread[-2:] == [{"t": "bye", "reason": TOO_SLOW}, None]
        await wait_until(lambda: {c.session.member.name for c in h.server.channels
                                  if c.session.member is not None} == {"bob"}, "the server to let Ada go")
        await bob.send(Ping(n=1))
        await wait_until(lambda: {"t": "pong", "n": 1} in bob_read, "Bob's pong")
        assert not bob.closed
        reader.cancel()
    finally:
        await link.close()


async def test_each_channel_takes_its_messages_in_its_own_sessions_context(h: Harness) -> None:
    """A front session's inbox may act as it takes a message (a shared screen's tap), and that needs the
    session's context: its app, its language. Tried: two sessions, each in a context of its own, open a
    channel on one link (the first opening the link itself); the lobby's news that both are in comes in one
    frame, read by the link's own task; each inbox sees it put there in its own session's context."""
    who: contextvars.ContextVar[str] = contextvars.ContextVar("who")
    link = await front_link_client(h)

    class Recording(asyncio.Queue[dict[str, Any] | None]):
        def __init__(self) -> None:
            super().__init__()
            self.seen_in: list[str] = []
            self.kinds: list[str] = []

        def put_nowait(self, item: dict[str, Any] | None) -> None:
            self.seen_in.append(who.get("none"))
            self.kinds.append(str(item.get("t")) if item is not None else "end")
            super().put_nowait(item)

    async def session(name: str, address: str) -> tuple[LinkChannel, Recording]:
        who.set(name)
        channel = await link.open_channel(typed_hello(name, address))
        channel.inbox = recording = Recording()
        return channel, recording

    try:
        (ada, ada_inbox), (_bob, bob_inbox) = [
            await asyncio.create_task(session(name, address), context=contextvars.Context())
            for name, address in (("ada", ADA_ADDRESS), ("bob", "198.51.100.8"))]
        await wait_until(lambda: "online" in ada_inbox.kinds and "online" in bob_inbox.kinds,
                         "news of Bob to reach both")
        await ada.send(Say(text="hello", scope="lobby"))
        await wait_until(lambda: "chat" in bob_inbox.kinds, "Ada's line to reach Bob")
        assert set(ada_inbox.seen_in) == {"ada"} and set(bob_inbox.seen_in) == {"bob"}
    finally:
        await link.close()


async def test_watchers_on_one_link_share_one_typed_decoding_of_each_state(h: Harness) -> None:
    """What the link hands several channels is one map, and a session's app takes it in with
    ``decode_shared``: decoded into typed values once for all of them. Tried: Ada starts a table with a
    bot, Cy and Di watch it on one link; the game's first state is the same map in both inboxes and
    decodes to the same typed value, while a copy of it (equal, not the same map, as a connection of
    its own would read it) is decoded anew, and a map that is no message is refused at every try."""
    link = await front_link_client(h)
    ada = await TestClient.connect("127.0.0.1", h.port, "ada")
    try:
        table = await create_table(ada, seats=2, bots=1)
        cy, di = [await link.open_channel(typed_hello(name, address))
                  for name, address in (("cy", "198.51.100.9"), ("di", "198.51.100.10"))]
        for channel in (cy, di):
            await channel.send(Spectate(table=table))
        await ada.send(Start())
        states: dict[LinkChannel, list[dict[str, Any]]] = {cy: [], di: []}
        for channel, seen in states.items():
            while not seen:
                message = await asyncio.wait_for(channel.inbox.get(), TIMEOUT)
                assert message is not None
                if message["t"] == "state":
                    seen.append(message)
        for cy_state, di_state in zip(states[cy], states[di], strict=True):
            assert cy_state is di_state
            assert decode_shared(cy_state) is decode_shared(di_state)
            copy = {**cy_state}
            assert decode_shared(copy) is not decode_shared(cy_state) and decode_shared(copy) == decode_shared(cy_state)
        for _ in range(2):
            with pytest.raises(ProtocolError):
                decode_shared({"t": "state", "table": "one"})
    finally:
        await ada.close()
        await link.close()


async def test_a_burst_is_handed_on_in_slices_each_channel_in_its_order(h: Harness) -> None:
    """A front's link reads a burst of frames for many sessions, and must let the front's other work run
    between them without reordering any channel, while a login's frames go first. Tried with the front's link
    client: Ada's, Bob's and Cy's channels, settled (their sessions' first screens are up), send their pings in
    one write (Cy 200 of them, far past the rate limit, so that the server ends his channel right after his
    burst of pongs), and Dee's hello follows, while each of the three inboxes takes 2 ms per message (sessions
    slow to take in). Each channel gets its pongs in the order sent; Cy's end comes after his last pong and
    his bye, last of all. Dee is welcomed while Ada's pongs are still being handed on, though the server sent
    them all before her welcome. And the event loop ran between slices: no turn of it handed on more messages
    than ``LINK_SLICE`` holds at 2 ms each (and the rest of a frame for all three); before, every frame a read
    brought was handed on in one callback, and a welcome behind a burst waited for all of it."""
    loop = asyncio.get_running_loop()
    put_cost = 0.002
    per_turn = [0]  # messages handed on in each turn of the event loop during the burst

    class SlowInbox(asyncio.Queue[dict[str, Any] | None]):
        def put_nowait(self, item: dict[str, Any] | None) -> None:
            time.sleep(put_cost)
            per_turn[-1] += 1
            super().put_nowait(item)

    def burst_over() -> bool:
        return cy.closed and all(channel.inbox.qsize() >= 80 for channel in (ada, bob))

    def next_turn() -> None:
        per_turn.append(0)
        if not burst_over():
            loop.call_soon(next_turn)

    link = await front_link_client(h)
    try:
        channels = [await link.open_channel(typed_hello(name, address)) for name, address in
                    (("ada", ADA_ADDRESS), ("bob", "198.51.100.8"), ("cy", "198.51.100.9"))]
        ada, bob, cy = channels
        for channel in channels:
            channel.inbox = SlowInbox()
            channel.settled()
        pings = {ada: 80, bob: 80, cy: 200}
        for n in range(200):
            for channel, count in pings.items():
                if n < count:
                    await channel.send(Ping(n=n))  # into the TLS buffer without a turn of the loop: one write
        loop.call_soon(next_turn)
        dee = await link.open_channel(typed_hello("dee", "198.51.100.10"))
        assert dee.welcomed_name == "dee" and ada.inbox.qsize() < 80
        await wait_until(burst_over, "every pong, and Cy's end")
        received = {channel: [channel.inbox.get_nowait() for _ in range(channel.inbox.qsize())] for channel in channels}
        for channel in (ada, bob):
            assert [m["n"] for m in received[channel] if m is not None and m["t"] == "pong"] == list(range(80))
        *cys, bye, end = received[cy]
        answered = [m["n"] for m in cys if m is not None and m["t"] == "pong"]
        assert answered == list(range(len(answered))) and len(answered) >= 80
        assert bye == {"t": "bye", "reason": "too many messages"} and end is None
        assert max(per_turn) <= math.ceil(LINK_SLICE / put_cost) + len(channels) - 1, per_turn
    finally:
        await link.close()


async def test_a_refused_hello_on_the_link_is_said_to_that_player(h: Harness) -> None:
    """Tried: the front's link client says hello for two players under one name: the second is refused
    ``name_taken`` (a ``ServerError``, as on a connection of its own) and its channel closed; the first
    stays."""
    link = await front_link_client(h)
    try:
        first = await link.open_channel(typed_hello("ada"))
        with pytest.raises(ServerError) as refused:
            await link.open_channel(typed_hello("ada", "198.51.100.8"))
        assert refused.value.code == "name_taken"
        assert isinstance(first, LinkChannel) and not first.closed and list(link.channels) == [first.number]
    finally:
        await link.close()


async def test_a_login_is_let_in_while_other_sessions_are_flooded(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Logins come before redraws. Tried with the SSH front and asyncssh clients with PTYs: three sessions in
    the lobby, each taking 2 ms per message it is handed (a front busy drawing them); as a fourth player's
    hello goes on the link, the game server has just queued 300 messages for the three (one frame each for
    all three, as a table's states for its spectators), before that hello's welcome. The newcomer's lobby is
    up while the three are still being handed their 300, and each of them gets all 300 in order; before, the
    link handed on the 300 first, the welcome behind them."""
    flood = 300
    rig = await start_rig(tmp_path)
    players: list[Player] = []
    handed: dict[int, list[int]] = {}  # channel -> the flood's pongs handed to it, in order
    deliver = LinkChannel.deliver

    def slow_deliver(channel: LinkChannel, message: dict[str, Any]) -> None:
        if channel.number in handed and message.get("t") == "pong":
            time.sleep(0.002)
            handed[channel.number].append(message["n"])
        deliver(channel, message)

    open_channel = FrontLinkClient.open_channel

    async def flooding_open(link: FrontLinkClient, hello: Hello, timeout: float = 10.0) -> LinkChannel:
        if hello.name == "newcomer":
            on_server = [channel for channel in rig.server.channels if channel.welcomed]
            for n in range(flood):
                frame = encode_message(Pong(n=n))
                for channel in on_server:  # the same frame in a row: one frame on the link for all three
                    channel.send_frame(frame)
        return await open_channel(link, hello, timeout)

    monkeypatch.setattr(LinkChannel, "deliver", slow_deliver)
    monkeypatch.setattr(FrontLinkClient, "open_channel", flooding_open)
    try:
        for name in ("w1", "w2", "w3"):
            players.append(player := await Player.connect(rig, name))
            await player.until_shown(b"you are", f"{name}'s lobby")
        link = door.front_link(rig.front.config)  # the process's link, which the three sessions share
        handed.update({number: [] for number in link.channels})
        newcomer = await Player.connect(rig, "newcomer")
        players.append(newcomer)
        await newcomer.until_shown(b"you are", "the newcomer's lobby")
        assert all(len(pongs) < flood for pongs in handed.values()), [len(pongs) for pongs in handed.values()]
        await until(lambda: all(len(pongs) == flood for pongs in handed.values()), "the flood handed on")
        assert all(pongs == list(range(flood)) for pongs in handed.values())
    finally:
        for player in players:
            await player.close()
        await rig.close()


@pytest.mark.system
async def test_ssh_sessions_share_one_link_and_come_back_when_it_is_lost(tmp_path: Path) -> None:
    """Tried with the SSH front and asyncssh clients with PTYs: Ada and Bob sit at one table; the server
    holds one connection for the front (its link) with their two channels. The link is then cut (the
    server drops the connection): both sessions connect again through a new link, by themselves, and
    are back in their seats, the game going on."""
    rig = await start_rig(tmp_path)
    players: list[Player] = []
    try:
        ada = await Player.connect(rig, "ada")
        players.append(ada)
        await ada.until_shown(b"you are", "Ada's lobby")
        bob = await Player.connect(rig, "bob")
        players.append(bob)
        await bob.until_shown(b"you are", "Bob's lobby")
        ada.app.send_message(CreateTable(name="t", seats=2))
        await until(lambda: ada.app.model.table is not None, "Ada's table")
        table = ada.app.model.table
        assert table is not None
        bob.app.send_message(Join(table=table.id))
        await until(lambda: bob.app.model.table is not None and bob.app.model.table.you == 1, "Bob's seat")
        server = rig.server
        links = [c for c in server.connections if c.link is not None]
        assert len(server.connections) == 1 and len(links) == 1 and len(server.channels) == 2
        cut: Connection = links[0]
        cut.abort()
        await until(lambda: cut not in server.connections, "the link to be gone")
        await until(lambda: len(server.channels) == 2 and all(c.welcomed for c in server.channels),
                    "both players back on a new link")
        assert len([c for c in server.connections if c.link is not None]) == 1
        seated = server.lobby.tables[table.id].seating.seats
        await until(lambda: all(seat.connected for seat in seated), "both seats connected again")
        assert [seat.member.name for seat in seated if seat.member is not None] == ["ada", "bob"]
    finally:
        for player in players:
            await player.close()
        await rig.close()
