"""A public host that cannot be locked out, flooded or mis-described: silent connections from many
addresses, clients that never read, the access policy over TCP, answers to every refused message,
table-list storms, and the order of a game's last messages. Every test runs a real server on
loopback; the many addresses are 127.0.0.x source addresses."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import random
import socket
import ssl
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.protocol import MAX_FRAME, encode
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.tls import client_context
from ono99_kernel.wire.requests import (
    AskGameRecord,
    AskLeaderboard,
    AskProfile,
    CreateTable,
    Join,
    Leave,
    Ping,
    Rematch,
    Sit,
    Spectate,
    Stand,
    Start,
)
from ono99_server import ServerConfig
from ono99_server.connection import WRITE_BUFFER_HIGH, Connection
from ono99_server.rates import TokenBucket
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from tests.server_helpers import (
    FAST_PLAY,
    TIMEOUT,
    ServerProcess,
    TestClient,
    create_table,
    hello,
    join,
    new_identity,
    play,
    play_all,
    running_server,
    start,
    tls_socket_that_never_reads,
    until_closed,
    wait_until,
)


async def connect_from(address: str, port: int, name: str, **kwargs: Any) -> TestClient:
    """A player whose connection comes from ``address`` (any 127.0.0.x)."""
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0), ssl=client_context()), TIMEOUT)
    client = TestClient(reader, writer)
    await client.send(hello(name, **kwargs))
    client.welcome = await client.expect("welcome")
    return client


# --- 1. connections that never say hello ------------------------------------------------------------
async def test_silent_connections_from_many_addresses_never_keep_a_new_player_out(tmp_path: Path) -> None:
    """80 connections from 20 addresses (127.0.0.10 to .29) connect and say nothing, on a server
    with room for 40 players whose hello timeout (120 s) is far longer than the test: nothing clears
    them meanwhile. Tried: they hold at most their own budget (24 waiting, 4 per address), a
    player already in is answered, and a new player from another address gets in, as does a
    second one; the players' places were never theirs to take."""
    async with running_server(tmp_path, max_connections=40, max_waiting_hellos=24, max_waiting_hellos_per_address=4,
                              hello_timeout=120.0) as h:
        resident = await h.connect("resident")
        silent: list[asyncio.StreamWriter] = []
        try:
            for i in range(80):
                address = f"127.0.0.{10 + i % 20}"
                _, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", h.port, local_addr=(address, 0)), TIMEOUT)
                silent.append(writer)
            await wait_until(lambda: len(h.server.waiting) == 24, "the waiting budget to be full")
            assert all(h.server.waiting.waiting_from(f"127.0.0.{10 + i}") <= 4 for i in range(20))
            assert (await resident.request(Ping(n=1), "pong"))["n"] == 1
            newcomer = await connect_from("127.0.0.200", h.port, "newcomer")
            assert newcomer.welcome["name"] == "newcomer"
            h.clients.append(newcomer)
            second = await connect_from("127.0.0.201", h.port, "second")
            h.clients.append(second)
            assert {"resident", "newcomer", "second"} <= set(h.server.lobby.members)
            assert len(h.server.waiting) <= 24
        finally:
            for writer in silent:
                writer.close()


async def test_a_refused_connection_says_why_and_a_full_address_does_not_block_another(tmp_path: Path) -> None:
    """One address with its 2 players in is refused a third connection (error, bye, closed, inside
    TLS); another address still gets in."""
    async with running_server(tmp_path, max_connections_per_address=2, hello_timeout=120.0) as h:
        for name in ("one", "two"):
            h.clients.append(await connect_from("127.0.0.50", h.port, name))
        reader, writer = await asyncio.open_connection("127.0.0.1", h.port, local_addr=("127.0.0.50", 0),
                                                       ssl=client_context())
        third = TestClient(reader, writer)  # refused, inside TLS
        h.clients.append(third)
        messages = await until_closed(third)
        assert messages[0]["code"] == "too_many_connections"
        assert "too many connections from 127.0.0.50" in messages[0]["reason"] and messages[-1]["t"] == "bye"
        other = await connect_from("127.0.0.51", h.port, "other")
        h.clients.append(other)


async def test_an_addresss_new_connection_takes_the_place_of_its_oldest_silent_one(tmp_path: Path) -> None:
    """One address with its 3 silent connections (its whole hello budget) connects a fourth: the
    oldest silent one is let go and the fourth says hello and gets in."""
    async with running_server(tmp_path, max_waiting_hellos=100, max_waiting_hellos_per_address=3,
                              hello_timeout=120.0) as h:
        readers, writers = [], []
        try:
            for _ in range(3):
                reader, writer = await asyncio.open_connection("127.0.0.1", h.port, local_addr=("127.0.0.50", 0))
                readers.append(reader)
                writers.append(writer)
            await wait_until(lambda: h.server.waiting.waiting_from("127.0.0.50") == 3, "three waiting")
            fourth = await connect_from("127.0.0.50", h.port, "fourth")
            h.clients.append(fourth)
            assert await asyncio.wait_for(readers[0].read(), TIMEOUT) == b""  # the oldest, let go
            assert h.server.waiting.waiting_from("127.0.0.50") == 2
        finally:
            for writer in writers:
                writer.close()


# --- 2. a client that never reads -------------------------------------------------------------------
def kernel_send_queue(sock: socket.socket) -> int:
    """Bytes in the kernel's send queue of a socket (sent or not, not yet acknowledged)."""
    return int.from_bytes(fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"), "little", signed=True)


async def test_a_client_that_never_reads_is_dropped_in_stated_time_with_bounded_memory(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A spectator reads nothing while two players and two bots play game after game. The server's
    stated bound for what it holds per client is its queue (send_queue_bytes), the transport's
    buffer (64 KiB and one frame) and the kernel's send buffer (socket_send_buffer, which Linux
    doubles). Tried, sampling every few milliseconds: what the server holds for the spectator never
    exceeds that bound, and the spectator is dropped (it took nothing for write_timeout seconds, or
    its queue filled), leaving the lobby and the table, while the game goes on."""
    caplog.set_level(logging.INFO, logger="ono99")
    async with running_server(tmp_path, write_timeout=2.0, **FAST_PLAY) as h:
        config = h.config
        bound = config.send_queue_bytes + WRITE_BUFFER_HIGH + MAX_FRAME + 2 * config.socket_send_buffer
        alice, bob = await h.connect("alice"), await h.connect("bob")
        table_id = await create_table(alice, seats=4, bots=2)
        await join(bob, table_id)
        table = h.server.lobby.tables[table_id]
        loop = asyncio.get_running_loop()
        stuck: ssl.SSLSocket | None = None
        peak = 0
        try:
            stuck = await loop.run_in_executor(None, tls_socket_that_never_reads, h.port,
                                               encode(hello("stuck").to_wire())
                                               + encode(Spectate(table=table_id).to_wire()))
            await wait_until(lambda: any(m.name == "stuck" for m in table.spectators), "the spectator to sit in")
            connection = h.server.lobby.members["stuck"].connection
            assert isinstance(connection, Connection)
            server_socket = connection.writer.get_extra_info("socket")

            async def sample() -> None:
                nonlocal peak
                while not connection.writer.transport.is_closing():
                    peak = max(peak, connection.held_bytes() + kernel_send_queue(server_socket))
                    await asyncio.sleep(0.005)

            sampler = asyncio.create_task(sample())
            await start(alice)
            games = 0
            while connection in h.server.connections:
                logs = await play_all([alice, bob], seed=games)
                assert logs[0].last_view["winner"] is not None
                games += 1
                assert games < 200, "the stuck client was never dropped"
                await alice.send(Rematch())
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
            assert 0 < peak <= bound, (peak, bound)
            assert "stuck" not in h.server.lobby.members
            assert "took none of its data for 2 s" in caplog.text or "(client too slow)" in caplog.text
            logs = await play_all([alice, bob], seed=999)  # the players go on
            assert logs[0].last_view["winner"] is not None
        finally:
            if stuck is not None:
                stuck.close()


# --- 3. one access policy for every way in ----------------------------------------------------------
async def test_under_authorized_keys_a_tcp_client_without_a_listed_key_is_refused(tmp_path: Path) -> None:
    """With --auth authorized-keys, `ono99 connect HOST --name intruder` reached the lobby with
    nothing asked. Tried: its hello is refused (access_denied, telling how to get in), the
    connection closed, and nobody named intruder is in the lobby."""
    keys_file = tmp_path / "authorized_keys"
    keys_file.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
    async with running_server(tmp_path, ssh=SshSettings(auth="authorized-keys", authorized_keys=keys_file)) as h:
        with pytest.raises(ServerError) as info:
            await Client.connect("127.0.0.1", h.port, "intruder", timeout=TIMEOUT)
        assert info.value.code == "access_denied"
        assert "public key line" in info.value.reason and "ssh" in info.value.reason
        raw = await h.raw()
        await raw.send(hello("intruder"))
        messages = await until_closed(raw)
        assert [m["t"] for m in messages] == ["error", "bye"]
        assert "intruder" not in h.server.lobby.members and not h.server.lobby.members


async def test_under_password_a_tcp_hello_needs_the_password(tmp_path: Path) -> None:
    async with running_server(tmp_path, ssh=SshSettings(auth="password", password="open sesame")) as h:
        for offered, why in ((None, "asks for a password"), ("wrong", "wrong password")):
            with pytest.raises(ServerError) as info:
                await Client.connect("127.0.0.1", h.port, "eve", password=offered, timeout=TIMEOUT)
            assert info.value.code == "access_denied" and why in info.value.reason
        ada = await Client.connect("127.0.0.1", h.port, "ada", password="open sesame", timeout=TIMEOUT)
        h.clients.append(ada)
        assert ada.welcome["name"] == "ada" and set(h.server.lobby.members) == {"ada"}


async def test_the_ssh_front_applies_the_servers_own_policy(tmp_path: Path) -> None:
    """The SSH front, a process of its own, is given the server's policy settings by `ono99 serve`
    and decides as the server does."""
    from ono99_tui.front.ssh import SshFront
    from ono99_tui.serve import front_config_for

    async with running_server(tmp_path, ssh_port=0,
                              ssh=SshSettings(auth="password", password="pw", host_key=tmp_path / "hk")) as h:
        front = SshFront(front_config_for(h.server.config, h.port, h.server.fingerprint, "a credential"))
        assert front.auth == h.server.access.mode == "password"
        for offered in ("pw", "nope", None):
            assert front.access.decide(None, offered, "127.0.0.1") == h.server.access.decide(None, offered,
                                                                                            "127.0.0.1")
        assert front.access.decide(None, "nope", "127.0.0.1") == "wrong password"


@pytest.mark.system
async def test_serve_with_tcp_off_and_the_banner_states_each_listeners_policy(tmp_path: Path) -> None:
    """`ono99 serve --port 0` turns TCP off (it picked a random port); all off is refused; the
    banner says who may come in on each listener and the machine's addresses."""
    keys_file = tmp_path / "authorized_keys"
    keys_file.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
    server = ServerProcess(tmp_path / "a.db", tmp_path / "a.log", "--auth", "authorized-keys", str(keys_file),
                           "--ssh-port", "0", "--no-advertise")
    try:
        port = await server.start()
        banner = "".join(server.banner)
        assert f"listening on 127.0.0.1:{port}" in banner
        assert "tcp: only the keys listed in" in banner and "ono99 connect proves its own key" in banner
        assert "ssh: off" in banner
        assert "this machine's addresses: 127.0.0.1" in banner
        with pytest.raises(ServerError) as info:
            await Client.connect("127.0.0.1", port, "intruder", timeout=TIMEOUT)
        assert info.value.code == "access_denied"
    finally:
        await server.stop()
    from tests.server_helpers import ono99

    all_off = await ono99("serve", "--port", "0", "--ssh-port", "0", "--web-port", "0", "--db", str(tmp_path / "b.db"))
    assert all_off.returncode == 2 and "TCP (--port 0), SSH (--ssh-port 0) and the web (--web-port 0) are all off" \
        in all_off.stderr


# --- 4. every refused act is answered; honest play is not limited -----------------------------------
async def test_every_act_over_the_message_limit_is_answered(tmp_path: Path) -> None:
    """At the default limits, 110 acts in one write (the burst is 100): each one is answered, the
    ones over the limit with rate_limited (only the first was, and a client whose act was dropped
    silently waited forever)."""
    async with running_server(tmp_path) as h:
        ada = await h.connect("ada")
        await create_table(ada, seats=2, bots=1, start=True)
        await ada.expect("state")
        await ada.send_raw(encode({"t": "act", "action": "7", "version": 99_999}) * 110)
        answers: list[str] = []
        while len(answers) < 110:
            message = await ada.recv()
            if message["t"] == "error" and message["ref"] == "act":
                answers.append(message["code"])
        assert set(answers) == {"stale_action", "rate_limited"}
        connection = h.server.lobby.members["ada"].connection
        assert connection is not None and not connection.closed  # still open


def test_the_default_message_limit_leaves_the_fastest_honest_play_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four programs playing each other at full speed send about 22 messages a second each. At
    that pace for ten minutes, the default limit refuses nothing (the former 20 a second with bursts
    of 60 refused from the 31st second on)."""
    now = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])  # the clock of server/ono99_server/lobby_state.py's buckets

    def refused_at(rate: float, burst: int, pace: float = 22.0) -> float | None:
        bucket = TokenBucket(rate, burst)
        for i in range(int(600 * pace)):
            now[0] = i / pace
            if not bucket.take():
                return now[0]
        return None

    config = ServerConfig()
    assert refused_at(config.messages_per_second, config.message_burst) is None
    assert refused_at(20.0, 60) is not None  # the check can fail: the old limit refuses at this pace


async def test_four_fast_players_at_the_default_limits_are_never_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path, bot_delay=0) as h:
        players = [await h.connect(f"p{i}") for i in range(4)]
        table_id = await create_table(players[0], seats=4)
        for player in players[1:]:
            await join(player, table_id)
        await start(players[0])
        logs = await play_all(players, seed=5)  # any error other than a late act fails the game
        assert all(log.last_view["winner"] is not None for log in logs)
        assert not any(e["code"] == "rate_limited" for log in logs for e in log.errors)


# --- 5. table-list storms ---------------------------------------------------------------------------
async def test_table_list_pushes_to_the_lobby_are_coalesced(tmp_path: Path) -> None:
    """A player creates and leaves a table 30 times as fast as the server answers, while another
    waits in the lobby. Each change pushed a `tables` message (60 of them); now the lobby gets at
    most one per lobby_push_interval, and the last one shows the list as it ends (no table)."""
    interval = 1.0
    async with running_server(tmp_path, lobby_push_interval=interval, **FAST_PLAY) as h:
        watcher = await h.connect("watcher")
        await watcher.expect("tables")
        churner = await h.connect("churner")
        loop = asyncio.get_running_loop()
        began = loop.time()
        for _ in range(30):
            await create_table(churner, seats=2)
            await churner.request(Leave(), "left")
        ended = loop.time()
        await watcher.expect("tables", where=lambda m: m["total"] == 0 and loop.time() >= ended)
        await watcher.request(Ping(), "pong")
        pushed = [m for m in watcher.received if m["t"] == "tables"]
        assert len(pushed) <= (loop.time() - began) / interval + 2, len(pushed)
        assert len(pushed) < 30
        assert pushed[-1]["total"] == 0


# --- the order of a game's last messages ------------------------------------------------------------
async def test_a_games_last_state_comes_before_its_table_marked_finished(tmp_path: Path) -> None:
    """docs/protocol.md §5: the last state (winner set) comes before the `table` with status
    finished. With a database, the state waits for the save while the table update went at once."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        ada = await h.connect("ada")
        await create_table(ada, seats=2, bots=1, start=True)
        await play(ada, random.Random(3))
        await ada.expect("table", where=lambda m: m["table"]["status"] == "finished")
        kinds = [(m["t"], m["view"]["winner"] if m["t"] == "state" else m.get("table", {}).get("status"))
                 for m in ada.received if m["t"] in ("state", "table")]
        last_state = max(i for i, (kind, winner) in enumerate(kinds) if kind == "state" and winner is not None)
        first_finished = min(i for i, (kind, status) in enumerate(kinds) if kind == "table" and status == "finished")
        assert last_state < first_finished, kinds[-4:]



# --- docs/protocol.md, point by point -----------------------------------------------------------------
async def test_before_hello_the_order_of_checks_is_as_documented(tmp_path: Path) -> None:
    """§2: no text `t` → bad_message, unknown `t` → unknown_type, a bad field → bad_field, and only
    then a valid message other than hello → hello_first."""
    async with running_server(tmp_path) as h:
        raw = await h.raw()
        codes = []
        for message in ({"type": "ping"}, {"t": "fly"}, {"t": "sit", "seat": "x"}, {"t": "ping"}):
            await raw.send_map(message)
            codes.append((await raw.error())["code"])
        assert codes == ["bad_message", "unknown_type", "bad_field", "hello_first"]


async def test_an_empty_t_is_answered_with_its_ref_and_an_empty_key_is_no_guest(tmp_path: Path) -> None:
    """§2: `ref` is nil only without a text `t`, so `{"t": ""}` gets `ref` ""; §3a: a `key` that
    does not decode, "" included, is `bad_key`, never a guest's hello."""
    async with running_server(tmp_path) as h:
        raw = await h.raw()
        await raw.send_map({"t": ""})
        error = await raw.error()
        assert (error["code"], error["ref"]) == ("unknown_type", "")
        await raw.send_map({"t": 7})
        assert (await raw.error())["ref"] is None
        await raw.send(hello("Eve", key=""))
        error = await raw.error()
        assert (error["code"], error["ref"]) == ("bad_key", "hello")
        await raw.send(hello("Eve"))  # the refused hello may be retried: without a key, a guest
        welcome = await raw.expect("welcome")
        assert welcome["identity"] is None and welcome["name"] == "Eve"


async def test_profile_and_game_record_may_come_after_later_replies_and_say_what_they_answer(tmp_path: Path) -> None:
    """§5: read from the database, a `profile` or `game_record` reply may follow the reply to a later
    request: `profile.name` and `game_record.game` (or a refusal's `ref` and `params`) say which request
    it answers. Tried with the database thread kept busy."""
    import threading

    async with running_server(tmp_path, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        await create_table(ada, seats=2, bots=1, start=True)
        await play(ada, random.Random(1))
        await ada.request(AskLeaderboard(), "leaderboard")  # the game is saved
        storage = h.server.storage
        assert storage is not None
        free = threading.Event()
        storage.submit(lambda db: free.wait(60))
        try:
            for message in (AskProfile(name="ADA"), AskGameRecord(game=1), AskGameRecord(game=7), Ping(n=5)):
                await ada.send(message)
            assert (await ada.expect("pong"))["n"] == 5  # first, though asked for last
        finally:
            free.set()
        replies = [await ada.recv() for _ in range(3)]
        profile = next(m for m in replies if m["t"] == "profile")
        assert profile["name"] == "Ada" and profile["you"] is True
        assert next(m for m in replies if m["t"] == "game_record")["game"] == 1
        refused = next(m for m in replies if m["t"] == "error")
        assert (refused["ref"], refused["code"], refused["params"]) == ("game_record", "no_record", {"game": 7})


async def test_refused_requests_leave_you_where_you_were(tmp_path: Path) -> None:
    """§4: a refused join, spectate or create_table changes nothing (said once, and true)."""
    async with running_server(tmp_path) as h:
        ann, bo = await h.connect("ann"), await h.connect("bo")
        table_a = await create_table(ann, seats=2)
        assert await join(bo, table_a) == 1
        table = h.server.lobby.tables[table_a]
        bo_member = h.server.lobby.members["bo"]
        for message, code in ((Spectate(table=999), "no_table"), (CreateTable(name=""), "bad_name"),
                              (CreateTable(seats=7), "bad_options"), (Join(code="NOSUCH"), "no_table")):
            await bo.send(message)
            assert (await bo.error())["code"] == code
            assert table.seats[1].member is bo_member and bo_member.table is table


async def test_which_error_answers_when_several_apply(tmp_path: Path) -> None:
    """§4's order of checks: a full table during a game → game_running; a full waiting table →
    table_full; a seated player asking for a taken seat during a game → seat_taken; a spectator
    sitting down during a game is not refused but waits for the next game (a notice)."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        ann, bo, cy = await h.connect("ann"), await h.connect("bo"), await h.connect("cy")
        waiting = await create_table(ann, seats=2, bots=1)
        await bo.send(Join(table=waiting))
        assert (await bo.error())["code"] == "table_full"
        playing = await create_table(bo, seats=3, bots=1)
        await join(cy, playing)
        await bo.send(Start())
        await bo.expect("state")
        await ann.send(Join(table=playing))
        assert (await ann.error())["code"] == "game_running"
        await cy.send(Sit(seat=0))
        assert (await cy.error())["code"] == "seat_taken"
        await ann.send(Spectate(table=playing))
        await ann.expect("table", where=lambda m: m["table"]["id"] == playing)
        await ann.send(Sit(seat=2))
        notice = await ann.expect("notice")
        assert notice["table"] == playing and "next game" in notice["text"]


async def test_stand_is_answered_by_table_then_state(tmp_path: Path) -> None:
    """§5: after `stand`, the table update, then the state (a spectator's view)."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        ann = await h.connect("ann")
        await create_table(ann, seats=2, bots=1)
        await ann.request(Start(), "state")
        mark = len(ann.received)
        await ann.send(Stand())
        await ann.expect("state", where=lambda m: m["view"]["seat"] is None)
        after = ann.received[mark:]
        standing = next(i for i, m in enumerate(after) if m["t"] == "table" and m["table"]["you"] is None)
        watching = next(i for i, m in enumerate(after) if m["t"] == "state" and m["view"]["seat"] is None)
        assert standing < watching


def test_every_flag_of_serve_has_help_text_and_connect_takes_a_password() -> None:
    import argparse

    from ono99_tui.cli import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = subparsers.choices["serve"]
    silent = [a.option_strings for a in serve._actions if a.option_strings and not a.help]
    assert not silent
    assert parser.parse_args(["connect", "h", "--password", "pw"]).password == "pw"
    assert parser.parse_args(["connect", "h", "--password"]).password == ""  # asked for, not on the command line
    assert parser.parse_args(["serve", "--auth", "password", "--password", "pw"]).ssh_password == "pw"
