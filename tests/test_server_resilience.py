"""The server under trouble: kill -9 and restart of a real `ono99 serve` process, hostile and broken
connections beside a running game, floods, a client that stops reading, a graceful shutdown."""

from __future__ import annotations

import asyncio
import logging
import random
import socket
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from ono99_kernel.protocol import HEADER, MAX_FRAME, PROTOCOL_VERSION, encode
from ono99_kernel.wire.requests import Hello, Leave, Ping, Rematch, Request, Spectate
from ono99_server import Server
from ono99_server.connection import Connection, buffered
from ono99_tui.client.errors import ConnectionLost
from tests.server_helpers import (
    FAST_PLAY,
    ServerProcess,
    Store,
    TestClient,
    alice_and_bob_on_a_server_to_kill,
    create_table,
    events_of,
    export_and_check,
    frame,
    hello,
    join,
    play,
    play_all,
    plays_of,
    record_events,
    resumed_history,
    running_server,
    server_config,
    start,
    storage_barrier,
    tls_socket_that_never_reads,
    until_closed,
    wait_until,
)


# --- 5. kill -9 and restart -----------------------------------------------------------------------------
@pytest.mark.system
async def test_kill_9_mid_game_then_restart_brings_the_table_back_exactly(tmp_path: Path, store: Store) -> None:
    """A real `ono99 serve` process (--db, --grace 60, --bot-delay 0, --turn-seconds 0) runs a game of
    Alice, Bob and two bots. Mid-game, with a person on turn and the database thread caught up, each
    client's view is captured and the process is killed with SIGKILL. A new process on the same
    database restores the table, and stand-in bots play for the two at once; they reconnect with
    their resume tokens and the sequence number of the last event they saw. Tried: each gets, not
    reset, exactly the events after that one (what the stand-ins did), then the game at that point;
    they finish the game; the exported record validates, and its plays and Alice's drawn cards are
    exactly those the clients saw before the kill, on their return and after (same seed, same draw
    pile)."""
    async with alice_and_bob_on_a_server_to_kill(tmp_path, "0", store.db) as rig:
        first, second, clients = rig.first, rig.second, rig.clients
        alice, bob, table_id = rig.alice, rig.bob, rig.table_id
        bob_seat = rig.bob_seat
        humans = (0, bob_seat)
        await start(alice)

        def mid_game(message: dict[str, Any]) -> bool:
            return message["view"]["version"] >= 8 and message["view"]["turn"] in humans

        before = await play_all([alice, bob], seed=3, stop=mid_game)
        assert before[0].last_view["winner"] is None, "the game ended before the kill"
        assert before[0].last_view["version"] == before[1].last_view["version"]
        await storage_barrier(alice)  # every action so far is in the database
        await first.kill9()
        for client in (alice, bob):
            await until_closed(client)

        await second.start()
        assert any("1 table restored" in line for line in second.banner), second.banner
        back = {}
        missed = {}
        for old, log in zip((alice, bob), before, strict=True):
            last_seq = log.states[-1]["seq"]
            client = await TestClient.connect("127.0.0.1", second.port, old.welcome["name"], resume=old.resume_token,
                                              seen={"table": table_id, "seq": last_seq})
            clients.append(client)
            assert client.welcome["resumed"] is True and client.welcome["table"] == table_id
            state = await client.expect("state")
            # the state shows what the stand-ins did since: moves not yet saved come with it
            missed[client] = resumed_history(client, state, log.states[-1])
            back[client] = state

        after = await asyncio.gather(*(play(c, random.Random(i), initial=s) for i, (c, s) in enumerate(back.items())))
        winner = after[0].last_view["winner"]
        assert winner is not None and after[1].last_view["winner"] == winner

        await storage_barrier(clients[-1])
        [record] = await export_and_check(store.db, tmp_path / "games.jsonl")
        assert record["result"]["winner"] == winner
        assert [p["kind"] for p in record["players"]] == ["human", "bot:greedy", "bot:greedy", "human"]
        seen = events_of(before[0].states) + missed[clients[2]] + events_of(after[0].states)
        assert plays_of(record_events(record)) == plays_of(seen)
        assert [e["card"] for e in record_events(record) if e["e"] == "draw" and e["seat"] == 0] == \
            [e["card"] for e in seen if e["e"] == "draw" and e["seat"] == 0]


@pytest.mark.system
async def test_kill_9_right_after_a_move_loses_nothing_a_client_saw(tmp_path: Path, store: Store) -> None:
    """Tried: SIGKILL the moment a client has received a state, without waiting for the database
    (a move is only shown once it is saved). Several rounds, each on a fresh table: after every
    restart the restored table is at least at the version the client last saw, and the moves it saw
    are all in it: resuming with the sequence number of the last event it saw, the client is sent
    what followed it, not its log over again."""
    db = store.db
    args = ("--grace", "60", "--bot-delay", "0", "--turn-seconds", "0", "--messages-per-second", "10000")
    servers: list[ServerProcess] = []
    clients: list[TestClient] = []
    try:
        for round_no in range(3):
            server = ServerProcess(db, tmp_path / f"round{round_no}.log", *args)
            servers.append(server)
            port = await server.start()
            alice = await TestClient.connect("127.0.0.1", port, f"alice{round_no}")
            clients.append(alice)
            await create_table(alice, seats=2, bots=1)
            await start(alice)

            def mid_game(message: dict[str, Any]) -> bool:
                return bool(message["view"]["version"] >= 6 and message["view"]["turn"] == 0)

            log = await play(alice, random.Random(round_no), stop=mid_game)
            seen = log.last_view
            assert seen["winner"] is None, "the game ended before the kill"
            await server.kill9()  # at once: no barrier, no pause
            await until_closed(alice)

            after = ServerProcess(db, tmp_path / f"round{round_no}-after.log", *args)
            servers.append(after)
            port = await after.start()
            last_seq = log.states[-1]["seq"]
            back = await TestClient.connect("127.0.0.1", port, f"alice{round_no}", resume=alice.resume_token,
                                            seen={"table": back_table(alice), "seq": last_seq})
            clients.append(back)
            state = await back.expect("state")
            assert state["view"]["version"] >= seen["version"], "a move the client saw was lost"
            history = [m for m in back.received if m["t"] == "history"]
            assert not any(m["reset"] for m in history), "the server did not have every event the client saw"
            # what the stand-in played since: in history, and (moves not yet saved) in the state itself
            assert state["seq"] == last_seq + sum(len(m["events"]) for m in history) + len(state["events"])
            await back.send(Leave())
            await back.expect("left")
            await after.stop()
    finally:
        for client in clients:
            await client.close()
        for server in servers:
            await server.stop()


def back_table(client: TestClient) -> int:
    """The id of the last table the client was sent."""
    return int(next(m for m in reversed(client.received) if m["t"] == "table")["table"]["id"])


# --- 6. hostile and broken connections -----------------------------------------------------------------
def nested_arrays(depth: int) -> bytes:
    return b"\x91" * depth + b"\xc0"  # [[[...nil...]]]


def nested_in_hello(depth: int) -> bytes:
    head: bytes = msgpack.packb({"t": "hello", "version": PROTOCOL_VERSION, "name": "deep"})
    return b"\x84" + head[1:] + b"\xa1x" + b"\x81\xa1x" * depth + b"\xc0"  # hello with x: {x: {x: ...}}


MALFORMED = [
    pytest.param(HEADER.pack(MAX_FRAME + 1) + b"\0" * 64, "frame_too_large", "byte limit", id="header-just-over-limit"),
    pytest.param(HEADER.pack(2**32 - 1), "frame_too_large", "byte limit", id="header-4-GiB"),
    pytest.param(frame(b"\xc1"), "bad_frame", "not valid msgpack", id="invalid-msgpack"),
    pytest.param(frame(b"\x82\xa1t"), "bad_frame", "not valid msgpack", id="truncated-msgpack"),
    pytest.param(frame(msgpack.packb([1, 2, 3])), "bad_frame", "one map", id="not-a-map"),
    pytest.param(frame(msgpack.packb({1: "t"})), "bad_frame", "map key is int", id="non-text-key"),
    pytest.param(frame(msgpack.packb({b"t": "ping"}, use_bin_type=True)), "bad_frame", "map key is bytes",
                 id="bin-key"),
    pytest.param(frame(msgpack.packb({"t": "ping", "x": [{"a": {2: 1}}]})), "bad_frame", "map key is int",
                 id="non-text-key-deep-inside"),
    pytest.param(frame(nested_arrays(5000)), "bad_frame", "nested too deeply", id="deep-nesting"),
    pytest.param(frame(nested_in_hello(3000)), "bad_frame", "nested too deeply", id="deep-nesting-in-a-hello"),
]


@pytest.mark.parametrize("after_hello", [False, True], ids=["before-hello", "after-hello"])
@pytest.mark.parametrize(("data", "code", "why"), MALFORMED)
async def test_a_malformed_frame_gets_an_error_with_a_code_then_a_close(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, data: bytes, code: str, why: str, after_hello: bool) -> None:
    """Send one broken frame (oversized length header, invalid or truncated msgpack, a non-map, a
    non-text key, nesting thousands deep), before or after a hello. Tried: the answer is an error
    with that code and a readable reason, then bye, then the connection closes; the server logs it;
    another client on the server is untouched (its ping is answered)."""
    caplog.set_level(logging.INFO, logger="ono99")
    async with running_server(tmp_path) as h:
        other = await h.connect("other")
        raw = await h.raw()
        if after_hello:
            await raw.send(hello("victim"))
            await raw.expect("welcome")
        await raw.send_raw(data)
        messages = await until_closed(raw)
        errors = [m for m in messages if m["t"] == "error"]
        assert [e["code"] for e in errors] == [code]
        assert why in errors[0]["reason"]
        assert messages[-1] == {"t": "bye", "reason": errors[0]["reason"]}
        assert f"{code}: {errors[0]['reason']}, closing" in caplog.text
        assert (await other.request(Ping(n=7), "pong"))["n"] == 7


async def test_a_flooding_connection_is_rate_limited_then_dropped(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """With the default limits (50 messages a second, bursts of 100): 110 pings in one write get the
    burst's worth of pongs, and every ping over it a rate_limited error, the connection staying
    open; 2000 more get it closed with a bye and a log line. Another client's requests are answered
    throughout."""
    caplog.set_level(logging.INFO, logger="ono99")
    async with running_server(tmp_path) as h:
        assert (h.config.messages_per_second, h.config.message_burst) == (50.0, 100)
        other = await h.connect("other")
        flooder = await h.connect("flooder")
        await flooder.send_raw(encode({"t": "ping", "n": 1}) * 110)
        answers: list[dict[str, Any]] = []
        while len(answers) < 110:
            message = await flooder.recv()
            if message["t"] in ("pong", "error"):
                answers.append(message)
        pongs = [m for m in answers if m["t"] == "pong"]
        refusals = [m for m in answers if m["t"] == "error"]
        assert 99 <= len(pongs) < 110  # the burst of 100, the hello included (plus what refilled meanwhile)
        assert len(pongs) + len(refusals) == 110
        assert all((e["code"], e["ref"]) == ("rate_limited", "ping") for e in refusals)
        assert (await other.request(Ping(n=2), "pong"))["n"] == 2
        await flooder.send_raw(encode({"t": "ping", "n": 3}) * 2000)
        rest = await until_closed(flooder)
        assert rest[-1] == {"t": "bye", "reason": "too many messages"}
        assert "flooding, closing" in caplog.text
        assert (await other.request(Ping(n=4), "pong"))["n"] == 4


async def test_a_client_that_never_reads_is_dropped_and_the_table_plays_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A spectator of a table stops reading (its socket stays open, nothing is read, nothing sent)
    while Alice, Bob and two bots play game after game. Its socket buffers are made small so that a
    few games fill them. Tried: the table runs ahead of it (games end while the server still holds
    data for it), the server drops it (it leaves the lobby, the table's spectators and
    the server's connections, with a log line) and the players' games go on to the end untouched."""
    caplog.set_level(logging.INFO, logger="ono99")
    async with running_server(tmp_path, write_timeout=1.0, send_queue_frames=64, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=4, bots=2)
        await join(bob, table_id)
        table = h.server.lobby.tables[table_id]

        loop = asyncio.get_running_loop()
        stuck: ssl.SSLSocket | None = None
        try:
            stuck = await loop.run_in_executor(None, tls_socket_that_never_reads, h.port,
                                               encode(hello("stuck").to_wire())
                                               + encode(Spectate(table=table_id).to_wire()))
            await wait_until(lambda: any(m.name == "stuck" for m in table.spectators), "the spectator to sit in")
            member = h.server.lobby.members["stuck"]
            connection = member.connection
            assert isinstance(connection, Connection)  # its TLS connection
            # a slow link: the server's kernel buffer for this socket is small too
            connection.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)

            await start(alice)
            games = 0
            ran_ahead = False  # a game ended while the server still held data for the stuck client
            while True:
                logs = await play_all([alice, bob], seed=games)
                games += 1
                assert logs[0].last_view["winner"] is not None and logs[1].last_view["winner"] is not None
                backlog = connection.queue.qsize() + buffered(connection.writer.transport)
                ran_ahead = ran_ahead or connection.closed or backlog > 0
                if connection not in h.server.connections:
                    break
                assert games < 60, "the stuck client was never dropped"
                await alice.send(Rematch())
            assert ran_ahead, "the table waited for the stuck client"
            assert connection.closed
            assert "stuck" not in h.server.lobby.members and member not in table.spectators
            dropped_for = ("(client too slow)", "not taking its data", "took none of its data")
            assert any(why in caplog.text for why in dropped_for)
            # the players go on: one more game after the drop
            await alice.send(Rematch())
            logs = await play_all([alice, bob], seed=99)
            assert logs[0].last_view["winner"] is not None
        finally:
            if stuck is not None:
                stuck.close()


Abuser = Callable[[TestClient, str, random.Random], Awaitable[None]]


async def closed_with(client: TestClient, *codes: str) -> None:
    """The errors up to the close are ``codes``, and the last word is a bye."""
    messages = await until_closed(client)
    assert [m["code"] for m in messages if m["t"] == "error"] == list(codes), messages
    assert messages[-1]["t"] == "bye"


async def answers(client: TestClient, *messages: Request | dict[str, Any]) -> list[str]:
    """Send each message (a map as it is); the error code it got, in order."""
    codes = []
    for message in messages:
        await (client.send_map(message) if isinstance(message, dict) else client.send(message))
        codes.append((await client.error())["code"])
    return codes


async def still_open(client: TestClient) -> None:
    assert (await client.request(Ping(n=5), "pong"))["n"] == 5


async def oversized_header(c: TestClient, name: str, rng: random.Random) -> None:
    await c.send_raw(HEADER.pack(rng.randint(MAX_FRAME + 1, 2**32 - 1)) + rng.randbytes(16))
    await closed_with(c, "frame_too_large")


async def random_unframed_bytes(c: TestClient, name: str, rng: random.Random) -> None:
    await c.send_raw(bytes([rng.randint(1, 255)]) + rng.randbytes(rng.randint(3, 2000)))  # header >= 16 MiB
    await closed_with(c, "frame_too_large")


async def random_framed_bytes(c: TestClient, name: str, rng: random.Random) -> None:
    await c.send_raw(frame(rng.randbytes(rng.randint(1, 300))))
    error = await c.error()
    assert error["code"] in ("bad_frame", "bad_message", "unknown_type", "bad_field", "hello_first"), error
    assert error["reason"]
    if error["code"] == "bad_frame":
        await closed_with(c)


async def invalid_msgpack(c: TestClient, name: str, rng: random.Random) -> None:
    await c.send(hello(name))
    await c.expect("welcome")
    await c.send_raw(frame(rng.choice([b"\xc1", b"\x82\xa1t", b"\xdb\xff\xff\xff\xff", b"\x93\x01"])))
    await closed_with(c, "bad_frame")


async def deep_nesting(c: TestClient, name: str, rng: random.Random) -> None:
    await c.send_raw(frame(nested_arrays(rng.randint(2000, 10000))))
    await closed_with(c, "bad_frame")


async def unknown_types(c: TestClient, name: str, rng: random.Random) -> None:
    await c.send(hello(name))
    await c.expect("welcome")
    codes = await answers(c, {"t": "explode"}, {"t": "welcome", "version": 1}, {"t": 5}, {"x": 1},
                          {"t": "x" * 5000}, {"t": "hello", "version": 2, "name": name})
    assert codes == ["unknown_type", "unknown_type", "bad_message", "bad_message", "unknown_type", "already_hello"]
    await still_open(c)


async def wrong_field_types(c: TestClient, name: str, rng: random.Random) -> None:
    assert await answers(c, {"t": "hello", "version": "1", "name": name}) == ["bad_field"]
    assert await answers(c, {"t": "hello", "version": 2, "name": 7}) == ["bad_field"]
    await c.send(hello(name))
    await c.expect("welcome")
    codes = await answers(
        c,
        {"t": "join", "table": "1"},
        {"t": "act", "action": 7, "version": 0},
        {"t": "act", "action": "7", "version": 1.5},
        {"t": "act", "action": "7"},
        {"t": "create_table", "seats": True},
        {"t": "create_table", "seats": 99},
        {"t": "create_table", "edition": 2022},
        {"t": "create_table", "options": ["manual_draw"]},
        {"t": "chat", "text": ["hi"]},
        {"t": "chat", "text": "x" * 5000},
        {"t": "spectate", "code": 123456},
        {"t": "sit", "seat": -1},
        {"t": "ping", "n": "one"},
    )
    assert codes == ["bad_field"] * 13
    assert await answers(c, {"t": "create_table", "options": {"no_such_option": True}}) == ["bad_options"]
    await still_open(c)


async def meddler(table_id: int) -> Abuser:
    async def meddle(c: TestClient, name: str, rng: random.Random) -> None:
        await c.send(hello(name))
        await c.expect("welcome")
        assert (await answers(c, {"t": "join", "table": table_id}))[0] in ("game_running", "table_full")
        await c.send(Spectate(table=table_id))
        await c.expect("table", where=lambda m: m["table"]["id"] == table_id)
        codes = await answers(c, {"t": "act", "action": "7", "version": 0}, {"t": "start"}, {"t": "kick", "seat": 0},
                              {"t": "remove_bot", "seat": 1}, {"t": "rematch"}, {"t": "add_bot"})
        assert codes == ["not_seated", "not_host", "not_host", "not_host", "not_host", "not_host"]
        await still_open(c)

    return meddle


async def flood(c: TestClient, name: str, rng: random.Random) -> None:
    await c.send(hello(name))
    await c.expect("welcome")
    await c.send_raw(encode({"t": "ping"}) * 3000)
    messages = await until_closed(c)
    # a rate_limited for each refused ping, until the 21st refusal in a row closes the connection
    assert {m["code"] for m in messages if m["t"] == "error"} == {"rate_limited"}
    assert messages[-1] == {"t": "bye", "reason": "too many messages"}


async def bad_names(c: TestClient, name: str, rng: random.Random) -> None:
    codes = await answers(c, hello("x" * 65), hello("y" * 21), hello("\x1b[2Jboom"), hello("   "))
    assert codes == ["bad_field", "bad_name", "bad_name", "bad_name"]
    await c.send(Hello(version=PROTOCOL_VERSION + 1, name=name))
    await closed_with(c, "version_mismatch")


async def test_hostile_connections_get_errors_and_never_disturb_a_running_game(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """While Alice, Bob and two bots play a game, round after round of other raw TCP connections
    throw oversized length headers, random bytes (framed and not), invalid msgpack, nesting
    thousands deep, unknown message types, fields of the wrong type, bad names and versions, moves
    and host commands at the running table, and floods. Tried: each abusive connection gets an error
    with the right code (then bye and a close for framing faults, floods and version mismatches; the
    others stay open and answer a ping); the log names the faults; the game finishes with a winner,
    its players never saw an error of their own, the exported record validates and holds the plays
    the players saw; afterwards the players' connections still work."""
    caplog.set_level(logging.INFO, logger="ono99")
    async with running_server(tmp_path, bot_delay=0.002, messages_per_second=200.0, message_burst=400,
                              max_connections_per_address=64, max_waiting_hellos_per_address=64) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=4, bots=2)
        await join(bob, table_id)
        abusers: list[Abuser] = [oversized_header, random_unframed_bytes, random_framed_bytes, random_framed_bytes,
                                 invalid_msgpack, deep_nesting, unknown_types, wrong_field_types,
                                 await meddler(table_id), flood, bad_names]
        game_over = asyncio.Event()
        first_round = asyncio.Event()
        rounds = 0

        async def abuse(abuser: Abuser, n: int) -> None:
            client = await h.raw()
            try:
                await abuser(client, f"abuser{rounds}_{n}", random.Random(rounds * 100 + n))
            finally:
                await client.close()

        async def storm() -> None:
            nonlocal rounds
            while not game_over.is_set() or rounds < 2:
                await asyncio.gather(*(abuse(a, n) for n, a in enumerate(abusers)))
                rounds += 1
                first_round.set()

        storm_task = asyncio.create_task(storm())
        await asyncio.wait([asyncio.create_task(first_round.wait()), storm_task], return_when=asyncio.FIRST_COMPLETED)
        assert first_round.is_set(), storm_task.result()
        await start(alice)
        logs = await play_all([alice, bob], seed=1)
        game_over.set()
        await storm_task
        assert rounds >= 2

        winner = logs[0].last_view["winner"]
        assert winner is not None and logs[1].last_view["winner"] == winner
        for client in (alice, bob):
            assert not [m for m in client.received if m["t"] == "bye"]
            assert {m["code"] for m in client.received if m["t"] == "error"} <= {"stale_action", "no_game"}
            await still_open(client)
        await storage_barrier(alice)
        [record] = await export_and_check(h.config.db_path, tmp_path / "games.jsonl")
        assert plays_of(record_events(record)) == plays_of(events_of(logs[0].states))
        for logged in ("frame_too_large", "bad_frame", "unknown_type", "bad_field", "not_host", "flooding",
                       "version_mismatch"):
            assert logged in caplog.text, logged


# --- 8. graceful shutdown -------------------------------------------------------------------------------
async def test_a_graceful_shutdown_says_bye_keeps_the_table_and_is_safe_twice(tmp_path: Path, store: Store) -> None:
    """A server with a game in progress (Alice and Bob, mid-game) and a client in the lobby is closed:
    twice at once and once more after. Tried: every client gets a bye with the reason and is
    disconnected; the port no longer accepts connections; a new server on the same database has the
    table back at the version and hands it had, with stand-in bots for the two who are away (slow ones
    here, so that nothing moves), and Alice resumes her seat there with her token."""
    config = server_config(tmp_path, **store.config)
    server = Server(config)
    await server.start()
    port = server.port
    clients: list[TestClient] = []
    try:
        alice = await TestClient.connect("127.0.0.1", port, "alice")
        bob = await TestClient.connect("127.0.0.1", port, "bob")
        carol = await TestClient.connect("127.0.0.1", port, "carol")
        clients += [alice, bob, carol]
        table_id = await create_table(alice, seats=2)
        await join(bob, table_id)
        await start(alice)
        logs = await play_all([alice, bob], seed=2, stop=lambda m: m["view"]["version"] >= 4)
        assert logs[0].last_view["winner"] is None
        game = server.lobby.tables[table_id].game
        assert game is not None
        version, hands = game.version, [game.hand_of(s) for s in range(2)]
        assert logs[0].last_view["version"] == version

        await asyncio.gather(server.close(), server.close())
        await server.close()
        for client in (alice, bob, carol):
            messages = await until_closed(client)
            assert messages[-1] == {"t": "bye", "reason": "the server is shutting down"}
            with pytest.raises(ConnectionLost):
                await client.send(Ping())
        with pytest.raises(OSError):
            await asyncio.open_connection("127.0.0.1", port)

        again = Server(server_config(tmp_path, bot_delay=600, **store.config))
        await again.start()
        try:
            assert again.restored_tables == 1
            assert [again.lobby.tables[table_id].controlled_by_bot(s) for s in range(2)] == [True, True]
            game = again.lobby.tables[table_id].game
            assert game is not None and game.version == version and [game.hand_of(s) for s in range(2)] == hands
            back = await TestClient.connect("127.0.0.1", again.port, "alice", resume=alice.resume_token)
            clients.append(back)
            assert back.welcome["resumed"] is True
            state = await back.expect("state")
            assert state["view"] == logs[0].last_view
        finally:
            await again.close()
    finally:
        for client in clients:
            await client.close()
        await server.close()
