"""Several game nodes on one PostgreSQL database and one Redis (``ono99 serve --cluster``), all real:
the test run's PostgreSQL server (tests/postgres.py), a ``redis-server`` started for the test
(tests/redis_server.py) and ``ono99 serve`` processes. Tried: a node killed with SIGKILL mid-game,
its table taken over by another node, its players back on a third one (sent on to the new owner)
with nothing lost or doubled; a private table of one node joined and watched by its invite code
from another; a paused owner that resumes after its lease was taken writes nothing
and lets its players go; Redis stopped and started again during play; and, in process, the fence
of two stores on one database."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import psycopg
import pytest

from ono99_kernel.identity import Identity
from ono99_kernel.protocol import BYE_SENT_ON
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import Act, CreateTable, Join, Spectate
from ono99_server.lease import Fence
from ono99_server.storage import Database
from ono99_server.storage_pg import PostgresStorage
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from tests.arena_players import reconnecting
from tests.postgres import start_cluster
from tests.redis_server import RedisServer
from tests.server_helpers import (
    ServerProcess,
    TestClient,
    create_table,
    events_of,
    export_and_check,
    free_port,
    join,
    play,
    play_all,
    plays_of,
    record_events,
    resumed_history,
    server_config,
    start,
    storage_barrier,
    until_closed,
    wait_until,
)
from tests.test_fronts import read_until, ssh_session
from tests.test_identity import ConnectProcess

LEASE = 2.0  # seconds: short, so that take-overs come quickly in the tests
NODE_ARGS = ("--grace", "60", "--bot-delay", "0", "--turn-seconds", "0", "--messages-per-second", "10000",
             "--lease-seconds", f"{LEASE:g}")


@contextlib.asynccontextmanager
async def nodes(tmp_path: Path, db: str, bus: str, count: int = 3, *extra: str) -> AsyncIterator[list[ServerProcess]]:
    """``count`` real ``ono99 serve --cluster`` nodes (n0, n1 …) sharing the database, Redis and one
    TLS certificate (made by the first at its start), started one after the other; all stopped at the end."""
    tls = ("--tls-cert", str(tmp_path / "tls_cert.pem"), "--tls-key", str(tmp_path / "tls_key.pem"))
    started = [ServerProcess(db, tmp_path / f"n{i}.log", *NODE_ARGS, "--cluster", bus, "--node-id", f"n{i}",
                             *tls, *extra) for i in range(count)]
    try:
        for node in started:
            await node.start()
        yield started
    finally:
        for node in started:
            if node.proc is not None and node.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    node.proc.send_signal(signal.SIGCONT)  # a paused node cannot stop otherwise
            await node.stop()


DB_POLL = LEASE / 20  # how often a wait reads the database: each read is a new connection, not one every 10 ms


def owner_of(db: str, table_id: int) -> str | None:
    with psycopg.connect(db) as pg:
        row = pg.execute("SELECT node FROM table_owners WHERE table_id = %s", (table_id,)).fetchone()
    return None if row is None else str(row[0])


def read(db: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(db) as pg:
        return pg.execute(sql, params).fetchall()


async def new_table_once_open(client: TestClient, after: int, what: str) -> None:
    """Until ``client``'s node makes new tables again (it refuses them while Redis or PostgreSQL is
    down, and notices at its next heartbeat that they are back): one is made, with an id after ``after``."""
    for _ in range(100):
        with contextlib.suppress(ServerError):
            assert await create_table(client, seats=2, bots=1) > after
            return
        await asyncio.sleep(LEASE / 10)
    pytest.fail(f"{what} still refuses new tables")


def port_of(client: TestClient) -> int:
    return int(client.writer.get_extra_info("peername")[1])


@pytest.mark.system
async def test_a_node_killed_mid_game_is_taken_over_and_its_players_resume_on_any_node(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Three nodes; Alice (a guest, by her resume token) and Bob play at a table of n0 with two
    bots. n0 is killed with SIGKILL mid-game, every move so far saved. Tried: after the lease, n1 or
    n2 owns the table (PostgreSQL says so) and its stand-ins played on; each player connects to the
    node that did not take it, is sent on to the one that did (same certificate), gets their seat
    back and exactly the events after the last one they saw (sequence numbers: none missed, none
    twice), and they finish the game; the record holds exactly the plays they saw."""
    async with nodes(tmp_path, database, redis_server.url) as cluster:
        n0 = cluster[0]
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        bob = await TestClient.connect("127.0.0.1", n0.port, "bob")
        clients = [alice, bob]
        try:
            table_id = await create_table(alice, seats=4, bots=2)
            bob_seat = await join(bob, table_id)
            assert owner_of(database, table_id) == "n0"
            humans = (0, bob_seat)
            await start(alice)

            def mid_game(message: dict[str, Any]) -> bool:
                return bool(message["view"]["version"] >= 8 and message["view"]["turn"] in humans)

            before = await play_all([alice, bob], seed=3, stop=mid_game)
            assert before[0].last_view["winner"] is None, "the game ended before the kill"
            await storage_barrier(alice)
            await n0.kill9()
            for client in (alice, bob):
                await until_closed(client)

            await wait_until(lambda: owner_of(database, table_id) in ("n1", "n2"),
                             "another node takes the table", every=DB_POLL)
            owner = next(n for n in cluster if f"n{cluster.index(n)}" == owner_of(database, table_id))
            other = next(n for n in cluster[1:] if n is not owner)
            back, missed = {}, {}
            for old, log in zip((alice, bob), before, strict=True):
                last_seq = log.states[-1]["seq"]
                client = await TestClient.connect("127.0.0.1", other.port, old.welcome["name"],
                                                  resume=old.resume_token, seen={"table": table_id, "seq": last_seq})
                clients.append(client)
                assert port_of(client) == owner.port, "not sent on to the table's new owner"
                assert client.welcome["resumed"] is True and client.welcome["table"] == table_id
                state = await client.expect("state")
                missed[client] = resumed_history(client, state, log.states[-1])
                back[client] = state

            after = await asyncio.gather(*(play(c, random.Random(i), initial=s)
                                           for i, (c, s) in enumerate(back.items())))
            winner = after[0].last_view["winner"]
            assert winner is not None and after[1].last_view["winner"] == winner
            await storage_barrier(clients[-1])
            [record] = await export_and_check(database, tmp_path / "games.jsonl")
            assert record["result"]["winner"] == winner
            seen = events_of(before[0].states) + missed[clients[2]] + events_of(after[0].states)
            assert plays_of(record_events(record)) == plays_of(seen)
        finally:
            for client in clients:
                await client.close()


PATIENCE = 10 * LEASE  # how long a player connecting again is told to wait (or sent to the killed node)


def hide_seats_of(redis_url: str, node: str) -> None:
    """Make ``node``'s record in Redis list no seats for a minute: as a node killed right after seating a
    player, before its next record said so (the other nodes then neither send that player on nor
    tell them to wait)."""
    import redis

    bus = redis.Redis.from_url(redis_url)
    record = json.loads(bus.get("ono99:node:" + node) or b"{}")
    assert record, f"no record of {node}"
    record["seated"] = []
    bus.set("ono99:node:" + node, json.dumps(record), px=60_000)


def hold_lease(db: str, table_id: int, held: bool) -> None:
    """The table's lease held for an hour (no node takes it over) or run out now (taken at the next look)."""
    with psycopg.connect(db) as pg:
        pg.execute("UPDATE table_owners SET lease_until = now() + interval '1 hour' * %s - interval '1 second' "
                   "WHERE table_id = %s", (1 if held else 0, table_id))


async def killed_while_seated(cluster: list[ServerProcess], database: str, redis_url: str,
                              clients: list[TestClient]) -> tuple[int, TestClient, TestClient]:
    """Alice and Bob (guests) mid-game at a two-seat table of n0; n0 killed with its record listing no
    seats and the table's lease held; Alice welcomed at n1 with no seat (no node holds her table).
    The table's id and the two clients of before the kill."""
    n0 = cluster[0]
    alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
    bob = await TestClient.connect("127.0.0.1", n0.port, "bob")
    clients += [alice, bob]
    table_id = await create_table(alice, seats=2)
    await join(bob, table_id)
    await start(alice)
    await play_all([alice, bob], seed=5, stop=lambda m: bool(m["view"]["version"] >= 4))
    await storage_barrier(alice)
    await n0.kill9()
    hide_seats_of(redis_url, "n0")
    hold_lease(database, table_id, True)
    for client in (alice, bob):
        await until_closed(client)
    return table_id, alice, bob


@pytest.mark.system
async def test_a_player_welcomed_at_the_node_that_then_takes_their_table_over_is_seated_again_and_plays_on(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Tried: Alice and Bob mid-game at n0's table; n0 killed before its record listed their seats, so
    Alice, connecting again to n1 while no node holds the table, is welcomed there with no seat. Then
    n1 takes the table over. Found: Alice is shown her table and its state at once (she does not sit
    in the lobby while her seat waits for her move, which with no turn clock would wait for good),
    Bob comes back to it, and they play the game to its end."""
    async with nodes(tmp_path, database, redis_server.url, 2) as cluster:
        clients: list[TestClient] = []
        try:
            table_id, alice, bob = await killed_while_seated(cluster, database, redis_server.url, clients)
            alice_back = await reconnecting([cluster[1].port], clients, PATIENCE)(alice)
            assert alice_back.welcome["table"] is None
            hold_lease(database, table_id, False)
            await wait_until(lambda: owner_of(database, table_id) == "n1", "n1 takes the table", every=DB_POLL)
            shown = await alice_back.expect("table", where=lambda m: m["table"]["id"] == table_id)
            assert shown["table"]["status"] == "playing"
            bob_back = await reconnecting([cluster[1].port], clients, PATIENCE)(bob)
            assert bob_back.welcome["table"] == table_id
            ends = await asyncio.gather(play(alice_back, random.Random(1)), play(bob_back, random.Random(2)))
            assert ends[0].last_view["winner"] is not None
            assert ends[0].last_view["winner"] == ends[1].last_view["winner"]
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_a_player_in_one_nodes_lobby_is_sent_on_when_another_node_takes_their_table_over(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Tried: as above on three nodes, Alice welcomed at n1 with no seat; n1 paused (SIGSTOP) while
    n2 takes the table over, then resumed. Found: n1 sends Alice on (its connection ends) once n2's
    record lists her seat, and connecting again as a client does she is at n2, back in her seat."""
    async with nodes(tmp_path, database, redis_server.url, 3) as cluster:
        clients: list[TestClient] = []
        n1, n2 = cluster[1], cluster[2]
        try:
            table_id, alice, _ = await killed_while_seated(cluster, database, redis_server.url, clients)
            alice_back = await reconnecting([n1.port], clients, PATIENCE)(alice)
            assert alice_back.welcome["table"] is None
            assert n1.proc is not None
            n1.proc.send_signal(signal.SIGSTOP)
            try:
                hold_lease(database, table_id, False)
                await wait_until(lambda: owner_of(database, table_id) == "n2", "n2 takes the table", every=DB_POLL)
            finally:
                n1.proc.send_signal(signal.SIGCONT)
            await until_closed(alice_back)
            again = await reconnecting([n1.port], clients, PATIENCE)(alice_back)
            assert port_of(again) == n2.port and again.welcome["table"] == table_id
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_an_owner_paused_past_its_lease_writes_nothing_and_lets_its_players_go(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; Alice hosts a table of n0 (two bots, not started) and says a line. n0 is paused
    (SIGSTOP) until n1 owns the table; meanwhile Alice sends a chat line, which waits in n0's socket.
    Tried, after SIGCONT: whatever n0 does first (read the line or renew its leases), the line is
    never saved nor shown to anyone, n0 says it lost the table and closes Alice's connection; back
    on n0 she is sent on to n1, where her seat and her first line are."""
    async with nodes(tmp_path, database, redis_server.url, 2) as cluster:
        n0, n1 = cluster
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        clients = [alice]
        try:
            table_id = await create_table(alice, seats=3, bots=2)
            await alice.request({"t": "chat", "text": "before the pause"}, "chat")
            await storage_barrier(alice)
            assert n0.proc is not None
            n0.proc.send_signal(signal.SIGSTOP)
            try:
                await wait_until(lambda: owner_of(database, table_id) == "n1",
                                 "n1 takes the paused node's table", every=DB_POLL)
                await alice.send_map({"t": "chat", "text": "from the past"})
            finally:
                n0.proc.send_signal(signal.SIGCONT)
            said = await until_closed(alice)
            assert not any(m["t"] == "chat" and m.get("text") == "from the past" for m in said), said
            assert said[-1]["t"] == "bye" and "another node" in said[-1]["reason"], said
            assert [t for (t,) in read(database, "SELECT text FROM live_chat WHERE table_id = %s ORDER BY id",
                                       table_id)] == ["before the pause"]
            assert "owned by another node now" in (tmp_path / "n0.log").read_text()

            back = await TestClient.connect("127.0.0.1", n0.port, "alice", resume=alice.resume_token)
            clients.append(back)
            assert port_of(back) == n1.port and back.welcome["resumed"] is True
            assert back.welcome["table"] == table_id
            history = await back.expect("chat_history", where=lambda m: m["scope"] == "table")
            assert [m["text"] for m in history["messages"]] == ["before the pause"]
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_redis_restarted_during_play_refuses_new_tables_and_loses_no_move(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; Alice plays at a table of n0 with a bot while Redis is stopped. Tried: her game
    goes on, every move saved; n0 refuses a new table (``unavailable``, the bus) while Redis is down;
    once Redis is back (empty) the nodes write their records again, n1 lists n0's table, and new
    tables open again."""
    async with nodes(tmp_path, database, redis_server.url, 2) as cluster:
        n0, n1 = cluster
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        carol = await TestClient.connect("127.0.0.1", n1.port, "carol")
        clients = [alice, carol]
        try:
            table_id = await create_table(alice, seats=2, bots=1)
            redis_server.stop()
            await start(alice)
            log = await play(alice, random.Random(5))
            assert log.last_view["winner"] is not None
            await storage_barrier(alice)
            [record] = await export_and_check(database, tmp_path / "games.jsonl")
            assert plays_of(record_events(record)) == plays_of(events_of(log.states))

            n0_log = tmp_path / "n0.log"  # the node notices at its next heartbeat (a third of the lease)
            await wait_until(lambda: "the lobby bus (Redis) does not answer" in n0_log.read_text(), "n0 notices")
            await alice.send_map({"t": "create_table", "name": "while redis is down", "seats": 2})
            refusal = await alice.expect("error", where=lambda m: m.get("ref") == "create_table")
            assert (refusal["code"], refusal["params"]["why"]) == ("unavailable", "bus")

            redis_server.start()

            async def listed() -> bool:
                tables = await carol.request({"t": "list_tables"}, "tables")
                return any(t["id"] == table_id for t in tables["tables"])

            for _ in range(100):
                if await listed():
                    break
                await asyncio.sleep(LEASE / 10)
            else:
                pytest.fail("n1 does not list n0's table after Redis came back")
            await new_table_once_open(alice, table_id, "n0, after Redis came back,")
        finally:
            for client in clients:
                await client.close()


async def test_two_stores_on_one_database_the_fence_lets_only_the_owner_write(database: str) -> None:
    """Two stores on one database, as two nodes have. Tried: A claims a table and saves a move; B
    cannot take it while A's lease runs; once it ran out B takes it (epoch 2) and loads A's move;
    A's next move is refused (not written, its ``on_saved`` never called) and A hears it lost the
    table; B's move is written."""
    lost: list[int] = []
    a, b = PostgresStorage(database), PostgresStorage(database)
    try:
        loop = asyncio.get_running_loop()
        a.fence, b.fence = Fence("a", 0.5, lost.append), Fence("b", 30.0, lost.append)
        a.fence.bind(loop)
        b.fence.bind(loop)
        fence_a, fence_b = a.fence, b.fence

        async def claim(db: Database) -> None:
            await fence_a.claim(db, 7)

        fence_a.epochs[7] = 1
        await a.call(claim)
        a.save_table(7, {"game_no": 1})
        saved: list[str] = []
        a.save_action(7, 1, 0, 0, "d", lambda: saved.append("a0"))
        assert await b.call(lambda db: fence_b.take_over(db, 10)) == [], "taken while the lease ran"
        await wait_until(lambda: saved == ["a0"], "A's move saved")
        for _ in range(100):
            taken = await b.call(lambda db: fence_b.take_over(db, 10))
            if taken:
                break
            await asyncio.sleep(0.1)
        [table] = taken
        assert table.actions == [(0, "d")] and fence_b.epochs == {7: 2}
        a.save_action(7, 1, 1, 0, "stale", lambda: saved.append("a1"))
        b.save_action(7, 1, 1, 1, "p", lambda: saved.append("b1"))
        await wait_until(lambda: "b1" in saved and lost == [7], "B's move saved and A told it lost the table")
        await a.call(lambda db: db.row("SELECT 1"))  # every job of A's done
        assert saved == ["a0", "b1"]
        assert read(database, "SELECT n, seat, action FROM live_actions WHERE table_id = 7 ORDER BY n") == \
            [(0, 0, "d"), (1, 1, "p")]
        assert 7 not in fence_a.epochs
    finally:
        a.close()
        b.close()


async def test_a_renewal_ahead_of_a_new_tables_claim_does_not_count_it_lost(database: str) -> None:
    """A node gives a new table its id on the event loop and queues the table's claim; a renewal
    already in the queue runs first. Tried: table 9 is held (its id given) but not yet claimed when
    the renewal runs; then it is claimed and renewed again. Neither renewal counts it lost, and the
    second one renews its row."""
    lost: list[int] = []
    store = PostgresStorage(database)
    try:
        store.fence = fence = Fence("a", 30.0, lost.append)
        fence.bind(asyncio.get_running_loop())
        fence.epochs[9] = 1  # the id is given; the claim is still queued
        assert await store.call(fence.renew) == []
        await store.call(lambda db: fence.claim(db, 9))
        assert await store.call(fence.renew) == []
        assert lost == [] and fence.epochs == {9: 1} and owner_of(database, 9) == "a"
    finally:
        store.close()


@pytest.mark.system
async def test_a_table_listed_from_another_node_is_joined_there(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; Alice hosts a table of three on n0 (one bot). Carol, a guest on n1, sees it in
    n1's list and asks to join it. Tried: n1 says goodbye, saying why; Carol connects again to n1
    as a client does after a lost connection (her resume token), is sent on to n0 (same
    certificate) and is seated there at once: Alice sees her sit down."""
    async with nodes(tmp_path, database, redis_server.url, 2) as cluster:
        n0, n1 = cluster
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        carol = await TestClient.connect("127.0.0.1", n1.port, "carol")
        clients = [alice, carol]
        try:
            table_id = await create_table(alice, seats=3, bots=1)
            for _ in range(100):
                tables = await carol.request({"t": "list_tables"}, "tables")
                if any(t["id"] == table_id for t in tables["tables"]):
                    break
                await asyncio.sleep(LEASE / 10)
            else:
                pytest.fail("n1 does not list n0's table")
            await carol.send_map({"t": "join", "table": table_id})
            said = await until_closed(carol)
            assert said[-1]["t"] == "bye" and "another node" in said[-1]["reason"], said
            back = await TestClient.connect("127.0.0.1", n1.port, "carol", resume=carol.resume_token)
            clients.append(back)
            assert port_of(back) == n0.port, "not sent on to the table's node"
            detail = await back.expect("table", where=lambda m: m["table"]["id"] == table_id)
            assert detail["table"]["you"] is not None
            await alice.expect("table", where=lambda m: any(s.get("name") == "carol" for s in m["table"]["seats"]))
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_a_private_table_of_another_node_is_joined_and_watched_by_its_invite_code(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; Alice hosts a private table of three on n0 (one bot) and Dave a public one after
    it. Tried, on n1: the private table is not in n1's list (which has Dave's); Carol asks to join
    by the invite code, in lower case, and Erin to watch by it: n1 says goodbye, each connects
    again to n1 (resume token), is sent on to n0 and is seated there (Alice sees Carol sit), or
    watches; Frank's code that no table has is refused with the message a server alone gives."""
    async with nodes(tmp_path, database, redis_server.url, 2) as cluster:
        n0, n1 = cluster
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        dave = await TestClient.connect("127.0.0.1", n0.port, "dave")
        carol, erin, frank = [await TestClient.connect("127.0.0.1", n1.port, name)
                              for name in ("carol", "erin", "frank")]
        clients = [alice, dave, carol, erin, frank]
        try:
            await alice.send(CreateTable(name="hidden", seats=3, bots=1, private=True))
            made = (await alice.expect("table", where=lambda m: m["table"]["name"] == "hidden"))["table"]
            table_id, code = int(made["id"]), str(made["code"])
            assert len(code) == 6
            public_id = await create_table(dave, seats=2)
            for _ in range(100):
                tables = await carol.request({"t": "list_tables"}, "tables")
                listed = {t["id"] for t in tables["tables"]}
                if public_id in listed:
                    break
                await asyncio.sleep(LEASE / 10)
            else:
                pytest.fail("n1 does not list n0's public table")
            assert table_id not in listed, "the private table is listed at another node"

            await frank.send(Join(code="zzzzzz"))
            refused = await frank.error()
            assert (refused["code"], refused["reason"], refused["params"]) == (
                "no_table", "no table has the invite code 'ZZZZZZ'", {"why": "code", "code": "ZZZZZZ"})
            assert not frank.closed

            await carol.send(Join(code=code.lower()))
            said = await until_closed(carol)
            assert said[-1]["t"] == "bye" and "another node" in said[-1]["reason"], said
            back = await TestClient.connect("127.0.0.1", n1.port, "carol", resume=carol.resume_token)
            clients.append(back)
            assert port_of(back) == n0.port, "not sent on to the private table's node"
            detail = await back.expect("table", where=lambda m: m["table"]["id"] == table_id)
            assert detail["table"]["you"] is not None and detail["table"]["code"] == code
            await alice.expect("table", where=lambda m: any(s.get("name") == "carol" for s in m["table"]["seats"]))

            await erin.send(Spectate(code=code))
            said = await until_closed(erin)
            assert said[-1]["t"] == "bye" and "another node" in said[-1]["reason"], said
            watcher = await TestClient.connect("127.0.0.1", n1.port, "erin", resume=erin.resume_token)
            clients.append(watcher)
            assert port_of(watcher) == n0.port, "the watcher is not sent on to the private table's node"
            watched = await watcher.expect("table", where=lambda m: m["table"]["id"] == table_id)
            assert watched["table"]["you"] is None
            assert owner_of(database, table_id) == "n0"
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_the_nodes_share_one_lobby_who_is_online_and_its_chat(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; Alice on n0, Carol on n1, both in the lobby. Tried: Carol's list of who is online
    comes to name Alice (n0's record, within a heartbeat); a line Alice says in the lobby reaches
    Carol once, under Alice's name, and Carol's line reaches Alice."""
    async with nodes(tmp_path, database, redis_server.url, 2) as cluster:
        n0, n1 = cluster
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        carol = await TestClient.connect("127.0.0.1", n1.port, "carol")
        clients = [alice, carol]
        try:
            await carol.expect("online", where=lambda m: "alice" in [p["name"] for p in m["players"]],
                               timeout=10 * LEASE)
            await alice.send_map({"t": "chat", "text": "hello from n0", "scope": "lobby"})
            heard = await carol.expect("chat", where=lambda m: m["scope"] == "lobby")
            assert (heard["from"], heard["text"]) == ("alice", "hello from n0")
            await carol.send_map({"t": "chat", "text": "and from n1", "scope": "lobby"})
            heard = await alice.expect("chat", where=lambda m: m["scope"] == "lobby" and m["from"] == "carol")
            assert heard["text"] == "and from n1"
            await storage_barrier(carol)
            again = [m for m in carol.received if m["t"] == "chat" and m["text"] == "hello from n0"]
            assert len(again) == 1, "a line heard twice"
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_the_real_app_follows_its_table_to_another_node_and_back_after_a_kill(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Three nodes. Alice hosts a table of three on n0 (one bot). Bob runs the real ``ono99 connect``
    (a pseudo-terminal) against n1, with n1's fingerprint pinned, and presses j: the table, listed by
    n1, is n0's; his app is sent on there and seated (Alice sees him sit). The game starts, and n0 is
    killed with SIGKILL. Tried: the app connects again to n1 by itself, is sent on to whichever
    node took the table over, and is back in his seat: Alice, back too, sees Bob connected again,
    and Bob's screen shows his seat."""
    bob_dir = tmp_path / "bob"
    async with nodes(tmp_path, database, redis_server.url) as cluster:
        n0, n1 = cluster[0], cluster[1]
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        clients = [alice]
        bob = ConnectProcess(n1.port, bob_dir, "--name", "bob", fingerprint=n1.fingerprint)
        try:
            table_id = await create_table(alice, seats=3, bots=1)

            def bob_seated(message: dict[str, Any], connected: bool = True) -> bool:
                return any(s["name"] == "bob" and s["connected"] is connected for s in message["table"]["seats"])

            await bob.start()
            for _ in range(60):  # j joins the first (only) table of the list, once the app lists it
                bob.press(b"j")
                with contextlib.suppress(TimeoutError):
                    await alice.expect("table", where=bob_seated, timeout=1)
                    break
            else:
                pytest.fail("bob's app never sat at the table")
            await start(alice)
            await alice.expect("state")
            await storage_barrier(alice)
            killed_at = len(bob.output)  # what bob's screen shows from here on: after the kill
            await n0.kill9()
            await until_closed(alice)

            await wait_until(lambda: owner_of(database, table_id) in ("n1", "n2"),
                             "another node takes the table", every=DB_POLL)
            back = await TestClient.connect("127.0.0.1", n1.port, "alice", resume=alice.resume_token)
            clients.append(back)
            assert back.welcome["resumed"] is True and back.welcome["table"] == table_id
            await back.expect("table", where=bob_seated, timeout=60)
            # his app drew its table again once back (it may have, before Alice saw him connected)
            await wait_until(lambda: b"(you)" in bob.output[killed_at:], "bob's table screen with his seat",
                             timeout=60)
        finally:
            await bob.stop()
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_postgresql_down_during_play_loses_no_move_anybody_saw(
        tmp_path: Path, redis_server: RedisServer) -> None:
    """Two nodes on a PostgreSQL server of this test's own. Alice plays at a table of n0 with a bot
    and stops on her turn (every move saved); PostgreSQL is stopped. Tried: her move then cannot be
    saved, so it is never shown: n0 lets the table go and says goodbye; Carol, in n0's lobby, is
    refused a new table (``unavailable``, the database) and a join by invite code (``unavailable``,
    ``code_lookup``: no node can look it up). PostgreSQL is started again: the table is
    taken over (a new epoch) from what was saved, and Alice, back through n0, is sent what followed
    the last event she saw (a stand-in played for her meanwhile), each event once, and plays the game
    to its end; the record holds exactly the plays she saw (her unsaved move is not among them unless
    she saw it made again), and Carol can open a table again."""
    pg = start_cluster()
    try:
        db = pg.new_database()
        async with nodes(tmp_path, db, redis_server.url, 2) as cluster:
            n0 = cluster[0]
            alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
            carol = await TestClient.connect("127.0.0.1", n0.port, "carol")
            clients = [alice, carol]
            try:
                table_id = await create_table(alice, seats=2, bots=1)
                await start(alice)

                def alice_to_play(message: dict[str, Any]) -> bool:
                    return bool(message["view"]["turn"] == 0 and message["view"]["legal"])

                before = await play(alice, random.Random(1), stop=alice_to_play)
                last = before.states[-1]
                await storage_barrier(alice)
                pg.stop_server()
                await alice.send(Act(action=last["view"]["legal"][0], version=last["view"]["version"]))
                said = await until_closed(alice)
                shown = [m for m in said if m["t"] == "state"]
                assert not shown, f"a move shown though it could not be saved: {shown}"
                assert said[-1]["t"] == "bye", said

                log = tmp_path / "n0.log"  # the node notices at its next renewal (a third of the lease)
                await wait_until(lambda: "cannot renew the leases" in log.read_text(), "n0 notices")
                await carol.send_map({"t": "create_table", "name": "while the database is down", "seats": 2})
                refusal = await carol.expect("error", where=lambda m: m.get("ref") == "create_table")
                assert (refusal["code"], refusal["params"]["why"]) == ("unavailable", "database")
                await carol.send(Join(code="ABCDEF"))  # no node can say where that code's table is now
                refusal = await carol.expect("error", where=lambda m: m.get("ref") == "join")
                assert (refusal["code"], refusal["params"]["why"]) == ("unavailable", "code_lookup")
                assert not carol.closed

                pg.start_server()
                await wait_until(lambda: bool(read(db, "SELECT 1 FROM table_owners WHERE table_id = %s AND epoch > 1",
                                                   table_id)), "the table taken over from the database", every=DB_POLL)
                back = await TestClient.connect("127.0.0.1", n0.port, "alice", resume=alice.resume_token,
                                                seen={"table": table_id, "seq": last["seq"]})
                clients.append(back)
                assert back.welcome["resumed"] is True and back.welcome["table"] == table_id
                state = await back.expect("state")
                # what a stand-in played for her since the take-over comes after what she saw, each once
                missed = resumed_history(back, state, last)
                after = await play(back, random.Random(2), initial=state)
                assert after.last_view["winner"] is not None
                await storage_barrier(back)
                [record] = await export_and_check(db, tmp_path / "games.jsonl")
                seen = events_of(before.states) + missed + events_of(after.states)
                assert plays_of(record_events(record)) == plays_of(seen)
                await new_table_once_open(carol, table_id, "n0, after the database came back,")
            finally:
                for client in clients:
                    await client.close()
    finally:
        pg.stop()


@pytest.mark.system
async def test_an_ssh_player_on_one_node_joins_a_table_of_another_and_keeps_the_session(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes sharing a front credential file; n1 has an SSH port (its front in its own process,
    --ssh-workers 0). Alice hosts a table of three on n0 (one bot). Ada logs in over SSH to n1 with
    a key and presses j on the table n1 lists. Tried: the front is told it is sent on, connects
    again by itself and is sent on to n0, which seats her: Alice sees Ada sit, connected, and the SSH
    session goes on."""
    credential = ("--front-credential-file", str(tmp_path / "front.key"))
    ssh_port = free_port()
    async with nodes(tmp_path, database, redis_server.url, 1, *credential) as first:
        n0 = first[0]
        tls = ("--tls-cert", str(tmp_path / "tls_cert.pem"), "--tls-key", str(tmp_path / "tls_key.pem"))
        n1 = ServerProcess(database, tmp_path / "n1.log", *NODE_ARGS, "--cluster", redis_server.url, "--node-id", "n1",
                           *tls, *credential, "--ssh-port", str(ssh_port), "--ssh-workers", "0")
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        conn: asyncssh.SSHClientConnection | None = None
        try:
            await n1.start()
            table_id = await create_table(alice, seats=3, bots=1)
            conn, keys, screen = await ssh_session(ssh_port, "ada", asyncssh.generate_private_key("ssh-ed25519"))
            await read_until(screen, b"you are")
            for _ in range(60):  # j joins the first (only) table of the list, once the front lists it
                keys.write(b"j")
                with contextlib.suppress(TimeoutError):
                    await alice.expect("table", timeout=1, where=lambda m: any(
                        s["name"] == "ada" and s["connected"] for s in m["table"]["seats"]))
                    break
            else:
                pytest.fail("ada never sat at n0's table")
            assert owner_of(database, table_id) == "n0"  # Ada's front speaks to n0 now, and her session is on
            assert not conn.is_closed()
        finally:
            if conn is not None:
                conn.close()
            await alice.close()
            await n1.stop()


@pytest.mark.system
async def test_ssh_players_reach_a_private_table_of_another_node_by_its_invite_code(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """As above, n1 with an SSH port. Alice hosts a private table of three on n0 (one bot). Tried:
    Ada logs in over SSH to n1 as ``join-CODE`` with a key, Bao as ``watch-CODE``: each front is
    sent on to n0 by itself, where Ada sits (Alice sees her, connected) and Bao watches (Alice
    sees one spectator); both sessions go on."""
    credential = ("--front-credential-file", str(tmp_path / "front.key"))
    ssh_port = free_port()
    async with nodes(tmp_path, database, redis_server.url, 1, *credential) as first:
        n0 = first[0]
        tls = ("--tls-cert", str(tmp_path / "tls_cert.pem"), "--tls-key", str(tmp_path / "tls_key.pem"))
        n1 = ServerProcess(database, tmp_path / "n1.log", *NODE_ARGS, "--cluster", redis_server.url, "--node-id", "n1",
                           *tls, *credential, "--ssh-port", str(ssh_port), "--ssh-workers", "0")
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        sessions: list[asyncssh.SSHClientConnection] = []
        try:
            await n1.start()
            await alice.send(CreateTable(name="hidden", seats=3, bots=1, private=True))
            made = (await alice.expect("table", where=lambda m: m["table"]["name"] == "hidden"))["table"]
            table_id, code = int(made["id"]), str(made["code"])
            keys = {}
            for name in ("ada", "bao"):  # each key owns its name, so the front asks for none
                keys[name] = asyncssh.generate_private_key("ssh-ed25519")
                named = await Client.connect("127.0.0.1", n1.port, name, identity=Identity(keys[name]))
                await named.close()
            conn, _, _ = await ssh_session(ssh_port, f"join-{code}", keys["ada"])
            sessions.append(conn)
            await alice.expect("table", where=lambda m: m["table"]["id"] == table_id and any(
                s["name"] == "ada" and s["connected"] for s in m["table"]["seats"]))
            conn, _, _ = await ssh_session(ssh_port, f"watch-{code}", keys["bao"])
            sessions.append(conn)
            await alice.expect("table", where=lambda m: m["table"]["id"] == table_id and m["table"]["spectators"] == 1)
            assert owner_of(database, table_id) == "n0"
            assert not any(session.is_closed() for session in sessions)
        finally:
            for session in sessions:
                session.close()
            await alice.close()
            await n1.stop()


@pytest.mark.system
async def test_the_sending_node_welcoming_a_player_late_leaves_their_ticket_to_the_other_node(
        tmp_path: Path, database: str, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ticket a node leaves in Redis for a player it sends on is the other node's to read. Tried:
    Bao, welcomed at n1 (in this process), asks to watch a private table of n0 by its invite code, and
    n1's own look for a ticket of his, which a welcome starts, comes only after n1 wrote the ticket and
    sent him on (as it did under load: that look took the ticket, and Bao sat in n0's lobby watching
    nothing). He connects again, is sent to n0, and watches the table there."""
    from ono99_server.cluster import Cluster
    from ono99_server.game_server import Server

    async with nodes(tmp_path, database, redis_server.url, 1) as first:
        n0 = first[0]
        config = server_config(tmp_path, db_path=None, db_url=database, cluster_url=redis_server.url,
                               node_id="n1", lease_seconds=LEASE)
        late: list[tuple[Any, str | None]] = []
        welcomed = Cluster.welcomed
        monkeypatch.setattr(Cluster, "welcomed", lambda self, member, resume: late.append((member, resume)))
        n1 = Server(config)
        await n1.start()
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        identity = Identity(asyncssh.generate_private_key("ssh-ed25519"))
        try:
            await alice.send(CreateTable(name="hidden", seats=3, bots=1, private=True))
            made = (await alice.expect("table", where=lambda m: m["table"]["name"] == "hidden"))["table"]
            bao = await TestClient.connect("127.0.0.1", n1.port, "bao", identity=identity)
            await bao.send(Spectate(code=str(made["code"])))
            said = await until_closed(bao)
            assert [m["reason"] for m in said if m["t"] == "bye"] == [BYE_SENT_ON], said
            assert n1.cluster is not None and [m.name for m, _ in late] == ["bao"]
            running = set(n1.cluster._tasks)
            welcomed(n1.cluster, *late[0])  # the welcome's look, late: after the ticket was written
            await asyncio.gather(*(set(n1.cluster._tasks) - running))
            bao = await TestClient.connect("127.0.0.1", n1.port, "bao", identity=identity)
            assert bao.address == ("127.0.0.1", n0.port)
            watched = await bao.expect("table")
            assert watched["table"]["id"] == made["id"] and watched["table"]["you"] is None
            await alice.expect("table", where=lambda m: m["table"]["spectators"] == 1)
            await bao.close()
        finally:
            await alice.close()
            await n1.close()


async def test_a_node_closing_as_its_tables_change_says_nothing_more_to_the_others(
        tmp_path: Path, database: str, redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    """Tried: a node (in this process) closed at once after a table was made, while the lobby's list
    push, which tells the other nodes, is still to come. It used to publish the node's record after
    closing (from a listener gone, an error logged; its record written again after close deleted it)."""
    import redis

    from ono99_server.game_server import Server

    config = server_config(tmp_path, db_path=None, db_url=database, cluster_url=redis_server.url, node_id="n0",
                           lease_seconds=LEASE, lobby_push_interval=0.3)
    server = Server(config)
    await server.start()
    client = await TestClient.connect("127.0.0.1", server.port, "ada")
    try:
        await create_table(client, seats=2, bots=1)
        await create_table(client, seats=2, bots=1)  # the second within the push interval: its push waits
    finally:
        await client.close()
    await server.close()
    await asyncio.sleep(1.0)  # past the push that was to come
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []
    assert redis.Redis.from_url(redis_server.url).get("ono99:node:n0") is None


async def queued_as(client: TestClient, waiting: int, position: int | None = None) -> dict[str, Any]:
    """The ``queue`` message that shows ``client`` waiting with ``waiting`` players in their queue
    (counted over every node; read again within a heartbeat)."""
    def shows(m: dict[str, Any]) -> bool:
        q = m["queued"]
        return q is not None and q["waiting"] == waiting and (position is None or q["position"] == position)

    try:
        return await client.expect("queue", where=shows, timeout=10 * LEASE)
    except TimeoutError:
        raise AssertionError([m for m in client.received if m["t"] == "queue"]) from None


@pytest.mark.system
async def test_players_on_two_nodes_pressing_play_now_meet_at_one_table(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes with a long play-now wait, a queue of four seats. Alice on n0 and Bob on n1 press
    play now: each sees both waiting. Zoe (n1) presses too and disconnects, and Alice leaves the
    queue and comes back: both leave the shared queue (Bob sees the counts fall, and is first).
    Carol (n0) and Dave (n1) make four: Dave's node, n1, seats them at one table of its own; Alice
    and Carol are sent on (bye, then ``elsewhere`` at their hello to n0) and are back in their seats
    at n1 by their resume tokens; the game starts once both are there, with the four of them and no
    bot. One table was made, and nobody waits any more."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)
    async with nodes(tmp_path, database, redis_server.url, 2, "--play-now-wait", "600") as cluster:
        n0, n1 = cluster
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        bob = await TestClient.connect("127.0.0.1", n1.port, "bob")
        zoe = await TestClient.connect("127.0.0.1", n1.port, "zoe")
        clients = [alice, bob, zoe]
        try:
            await alice.send_map({"t": "play_now", "edition": "1980", "seats": 4})
            await queued_as(alice, 1, 1)  # as n0 says at once, before it has put her in Redis's queue
            await wait_until(lambda: bus.zcard("ono99:queue:1980:4") == 1, "n0 puts Alice in the queue")
            await bob.send_map({"t": "play_now", "edition": "1980", "seats": 4})
            await queued_as(bob, 2, 2)
            await queued_as(alice, 2, 1)
            await zoe.send_map({"t": "play_now", "edition": "1980", "seats": 4})
            await queued_as(alice, 3, 1)
            await zoe.close()
            await queued_as(alice, 2, 1)
            await alice.request({"t": "leave_queue"}, "queue", where=lambda m: m["queued"] is None)
            await queued_as(bob, 1, 1)
            await alice.send_map({"t": "play_now", "edition": "1980", "seats": 4})
            await queued_as(alice, 2, 2)
            carol = await TestClient.connect("127.0.0.1", n0.port, "carol")
            clients.append(carol)
            await carol.send_map({"t": "play_now", "edition": "1980", "seats": 4})
            await queued_as(bob, 3, 1)

            dave = await TestClient.connect("127.0.0.1", n1.port, "dave")
            clients.append(dave)
            await dave.send_map({"t": "play_now", "edition": "1980", "seats": 4})
            players = [bob, dave]
            for old in (alice, carol):
                said = await until_closed(old)
                assert said[-1]["t"] == "bye" and "another node" in said[-1]["reason"], said
                back = await TestClient.connect("127.0.0.1", n0.port, old.welcome["name"], resume=old.resume_token)
                clients.append(back)
                assert port_of(back) == n1.port, "not sent on to the node that seated the group"
                assert back.welcome["resumed"] is True and back.welcome["table"] is not None
                players.append(back)
            tables = []
            for client in players:
                detail = await client.expect("table", where=lambda m: m["table"]["status"] == "playing")
                tables.append(detail["table"])
                await client.expect("state")
            assert {t["id"] for t in tables} == {players[-1].welcome["table"]}
            assert sorted(s["name"] for s in tables[0]["seats"]) == ["alice", "bob", "carol", "dave"]
            assert all(s["kind"] == "human" for s in tables[0]["seats"])
            assert sorted(t["you"] for t in tables) == [0, 1, 2, 3]
            for client in players[2:]:  # waiting no more
                assert [m for m in client.received if m["t"] == "queue"][-1]["queued"] is None
            assert read(database, "SELECT count(*) FROM live_tables") == [(1,)]
            assert owner_of(database, tables[0]["id"]) == "n1"
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_a_node_killed_leaves_nobody_waiting_in_the_shared_queue(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Dave waits to play now on n0, which is killed (SIGKILL: it cleans nothing up). Tried: once
    n1 no longer lists n0's players, Erin presses play now on n1 for the same queue and waits alone:
    she is not seated with Dave, and Dave's entry is gone from Redis."""
    import redis

    async with nodes(tmp_path, database, redis_server.url, 2, "--play-now-wait", "600") as cluster:
        n0, n1 = cluster
        dave = await TestClient.connect("127.0.0.1", n0.port, "dave")
        erin = await TestClient.connect("127.0.0.1", n1.port, "erin")
        clients = [dave, erin]
        try:
            await dave.send_map({"t": "play_now", "edition": "2022", "seats": 2})
            await queued_as(dave, 1, 1)
            await erin.expect("queue", where=lambda m: m["queues"] == [{"edition": "2022", "seats": 2, "waiting": 1}],
                              timeout=10 * LEASE)
            await erin.expect("online", where=lambda m: "dave" in [p["name"] for p in m["players"]],
                              timeout=10 * LEASE)
            await n0.kill9()
            await erin.expect("online", where=lambda m: "dave" not in [p["name"] for p in m["players"]],
                              timeout=10 * LEASE)
            await erin.send_map({"t": "play_now", "edition": "2022", "seats": 2})
            await queued_as(erin, 1, 1)
            await storage_barrier(erin)
            assert not any(m["t"] == "table" for m in erin.received), "seated with a player of a dead node"
            entries = redis.Redis.from_url(redis_server.url).hgetall("ono99:queued")
            assert [json.loads(v)["name"] for v in entries.values()] == ["erin"]
        finally:
            for client in clients:
                await client.close()


async def name_refusal(port: int, name: str) -> tuple[str, str, dict[str, Any]]:
    """How the node at ``port`` refuses a guest's hello with ``name``: (code, reason, params). A node
    that had not yet heard of another node's claim welcomes the hello, then says the same and closes."""
    try:
        client = await TestClient.connect("127.0.0.1", port, name)
    except ServerError as exc:
        return exc.code, exc.reason, dict(exc.error.params)
    said = await until_closed(client)
    await client.close()
    [error] = [m for m in said if m["t"] == "error"]
    return str(error["code"]), str(error["reason"]), dict(error["params"])


@pytest.mark.system
async def test_a_name_in_use_at_one_node_is_refused_at_every_node_alike(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; Alice, a guest, is on n0 (her claim on the name is in Redis). Tried: Bob's hello to n1
    as "alice", and as "ALICE", is refused with exactly what n0 itself says to the same hello
    (``name_taken``, same reason and params). Once Alice has left, n1 takes "alice", and n0 then
    refuses it as n1 does. Bob on n0, which is killed: once n1 no longer lists n0's players, n1
    takes "bob" and keeps the player who asked for it."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)

    def claimed(name: str, node: str | None = None) -> bool:
        return any(json.loads(v)["name"] == name and node in (None, json.loads(v)["node"])
                   for v in bus.hvals("ono99:names"))

    async with nodes(tmp_path, database, redis_server.url, 2) as (n0, n1):
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        clients = [alice]
        try:
            await wait_until(lambda: claimed("alice"), "n0 claims the name in Redis")
            for wanted in ("alice", "ALICE"):
                here = await name_refusal(n0.port, wanted)
                assert here[0] == "name_taken"
                assert await name_refusal(n1.port, wanted) == here
            await alice.close()
            await wait_until(lambda: not claimed("alice"), "n0 lets the name go")
            for _ in range(100):  # until n1 has heard that it is free
                with contextlib.suppress(ServerError):
                    clients.append(await TestClient.connect("127.0.0.1", n1.port, "alice"))
                    break
                await asyncio.sleep(LEASE / 20)
            else:
                pytest.fail("n1 does not take a name let go at n0")
            await wait_until(lambda: claimed("alice"), "n1 claims the name in Redis")
            code, reason, params = await name_refusal(n0.port, "alice")
            assert (code, params["why"], params["existing"]) == ("name_taken", "taken", "alice")
            assert reason == "the name 'alice' is taken on this server; choose another"

            bob = await TestClient.connect("127.0.0.1", n0.port, "bob")
            clients.append(bob)
            await wait_until(lambda: claimed("bob", "n0"), "n0 claims Bob's name")
            watcher = clients[-2]  # Alice, at n1
            await watcher.expect("online", where=lambda m: "bob" in [p["name"] for p in m["players"]],
                                 timeout=10 * LEASE)
            await n0.kill9()
            await watcher.expect("online", where=lambda m: "bob" not in [p["name"] for p in m["players"]],
                                 timeout=10 * LEASE)  # n0's record ran out: its claims count no more
            clients.append(await TestClient.connect("127.0.0.1", n1.port, "bob"))
            await wait_until(lambda: claimed("bob", "n1"), "n1 claims the name of a player of a node gone")
            await clients[-1].request({"t": "list_tables"}, "tables")
            assert not any(m["t"] in ("error", "bye") for m in clients[-1].received)
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_the_lobby_chat_of_all_nodes_is_kept_across_a_restart_of_every_node(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; Alice on n0 and Carol on n1 say three lines in the lobby, in turn. Tried: each line
    reaches both of them once, under one id at both nodes, the ids counting up. Then n0 is killed
    (SIGKILL) and n1 stopped, and both are started again: a newcomer at each node is sent the three
    lines in the lobby's chat history, in order, once each, under the same ids; and a line said now
    gets the next id at both nodes."""
    async with nodes(tmp_path, database, redis_server.url, 2) as (n0, n1):
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        carol = await TestClient.connect("127.0.0.1", n1.port, "carol")
        clients = [alice, carol]
        try:
            said = [(alice, "one"), (carol, "two"), (alice, "three")]
            shown: list[tuple[int, str, str]] = []
            for speaker, text in said:
                await speaker.send_map({"t": "chat", "text": text, "scope": "lobby"})

                def this_line(m: dict[str, Any], text: str = text) -> bool:
                    return bool(m["scope"] == "lobby" and m["text"] == text)

                lines = [await c.expect("chat", where=this_line) for c in (alice, carol)]
                assert lines[0]["id"] == lines[1]["id"] and lines[0]["from"] == speaker.welcome["name"]
                shown.append((lines[0]["id"], lines[0]["from"], text))
            assert [i for i, _, _ in shown] == sorted({i for i, _, _ in shown})
            for client in (alice, carol):
                await storage_barrier(client)
                assert len([m for m in client.received if m["t"] == "chat"]) == 3, "a line shown twice"
                await client.close()
            clients = []
            await n0.kill9()
            await n1.stop()
            await n0.start()
            await n1.start()
            for i, node in enumerate((n0, n1)):
                newcomer = await TestClient.connect("127.0.0.1", node.port, f"dora{i}")
                clients.append(newcomer)
                history = await newcomer.expect("chat_history", where=lambda m: m["scope"] == "lobby")
                assert [(m["id"], m["from"], m["text"]) for m in history["messages"]] == shown
            await clients[0].send_map({"t": "chat", "text": "four", "scope": "lobby"})
            for client in clients:
                line = await client.expect("chat", where=lambda m: m["scope"] == "lobby")
                assert (line["id"], line["text"]) == (shown[-1][0] + 1, "four")
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_play_now_fills_a_table_with_bots_for_players_of_two_nodes_once_the_wait_is_over(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes with a play-now wait of 2 s, a queue of three seats. Alice (n0) and Bob (n1) press
    play now. Tried: when Alice's wait is over, one node takes both of them (the first whose timer
    fires) and seats them at one table with one bot; the other is sent on there, and the game starts
    once they are both at that node."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)
    async with nodes(tmp_path, database, redis_server.url, 2, "--play-now-wait", "2") as (n0, n1):
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        bob = await TestClient.connect("127.0.0.1", n1.port, "bob")
        clients = [alice, bob]
        try:
            ports = {alice: n0.port, bob: n1.port}
            await alice.send_map({"t": "play_now", "edition": "2022", "seats": 3})
            await wait_until(lambda: bus.zcard("ono99:queue:2022:3") == 1, "n0 puts Alice in the queue")
            await bob.send_map({"t": "play_now", "edition": "2022", "seats": 3})
            await wait_until(lambda: read(database, "SELECT count(*) FROM live_tables") == [(1,)],
                             "a node opens the table", timeout=10 * LEASE, every=DB_POLL)
            [(table_id,)] = read(database, "SELECT id FROM live_tables")
            seated_at = n0 if owner_of(database, table_id) == "n0" else n1
            players = []
            for old in (alice, bob):
                if ports[old] == seated_at.port:
                    players.append(old)
                    continue
                said = await until_closed(old)
                assert said[-1]["t"] == "bye" and "another node" in said[-1]["reason"], said
                back = await TestClient.connect("127.0.0.1", ports[old], old.welcome["name"],
                                                resume=old.resume_token)
                clients.append(back)
                assert port_of(back) == seated_at.port
                assert back.welcome["table"] == table_id
                players.append(back)
            tables = [(await c.expect("table", where=lambda m: m["table"]["status"] == "playing"))["table"]
                      for c in players]
            assert {t["id"] for t in tables} == {table_id}
            assert sorted(s["kind"] for s in tables[0]["seats"]) == ["bot", "human", "human"]
            assert sorted(s["name"] for s in tables[0]["seats"] if s["kind"] == "human") == ["alice", "bob"]
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_the_real_app_playing_now_is_sent_on_to_the_table_another_node_opened(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes with a long play-now wait. Bob runs the real ``ono99 connect`` (a pseudo-terminal)
    against n1 and presses p: he waits in the queue of four seats. Alice, Carol and Dave press play
    now at n0, which takes the group. Tried: Bob's app, told to go, connects again to n1 by itself,
    is sent on to n0 and is in his seat there: Alice sees him connected at a table whose game runs,
    and Bob's screen shows his seat."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)
    async with nodes(tmp_path, database, redis_server.url, 2, "--play-now-wait", "600") as (n0, n1):
        bob = ConnectProcess(n1.port, tmp_path / "bob", "--name", "bob", fingerprint=n1.fingerprint)
        clients: list[TestClient] = []
        try:
            await bob.start()
            for _ in range(60):  # p, once the app shows the lobby
                bob.press(b"p")
                with contextlib.suppress(AssertionError):
                    await wait_until(lambda: bus.zcard("ono99:queue:2022:4") == 1, "bob waits", timeout=1)
                    break
            else:
                pytest.fail("bob's app never joined the play-now queue")
            queued_at = len(bob.output)
            for name in ("alice", "carol", "dave"):
                client = await TestClient.connect("127.0.0.1", n0.port, name)
                clients.append(client)
                await client.send_map({"t": "play_now", "edition": "2022", "seats": 4})

            def running_with_bob(message: dict[str, Any]) -> bool:
                table = message["table"]
                return table["status"] == "playing" and any(s["name"] == "bob" and s["connected"]
                                                            for s in table["seats"])

            await clients[0].expect("table", where=running_with_bob, timeout=60)
            await wait_until(lambda: b"(you)" in bob.output[queued_at:], "bob's table screen with his seat",
                             timeout=60)
        finally:
            await bob.stop()
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_redis_restarted_empty_gets_back_the_waiting_players_and_the_names_in_use(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes with a long play-now wait; Alice (n0), then Bob (n1), wait to play now at three
    seats. Redis is stopped and started again, empty. Tried: the nodes put both back in the queue,
    Alice still first (her score as before), and claim their names again; then Carol (n0) makes three
    and the three of them are seated at one table."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)

    def queue() -> list[tuple[str, float]]:
        entries = cast(list[tuple[bytes, float]], bus.zrange("ono99:queue:2022:3", 0, -1, withscores=True))
        return [(json.loads(bus.hget("ono99:queued", i) or b"{}").get("name", ""), s) for i, s in entries]

    def names() -> set[str]:
        return {json.loads(v)["name"] for v in bus.hvals("ono99:names")}

    async with nodes(tmp_path, database, redis_server.url, 2, "--play-now-wait", "600") as (n0, n1):
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        bob = await TestClient.connect("127.0.0.1", n1.port, "bob")
        clients = [alice, bob]
        try:
            await alice.send_map({"t": "play_now", "edition": "2022", "seats": 3})
            await wait_until(lambda: len(queue()) == 1, "n0 puts Alice in the queue")
            await bob.send_map({"t": "play_now", "edition": "2022", "seats": 3})
            await wait_until(lambda: len(queue()) == 2, "n1 puts Bob in the queue")
            before = queue()
            assert [n for n, _ in before] == ["alice", "bob"] and names() == {"alice", "bob"}

            redis_server.stop()
            redis_server.start()
            bus = redis.Redis.from_url(redis_server.url)
            await wait_until(lambda: len(queue()) == 2 and names() == {"alice", "bob"},
                             "the nodes put back their waiting players and names", timeout=10 * LEASE)
            assert queue() == before

            carol = await TestClient.connect("127.0.0.1", n0.port, "carol")
            clients.append(carol)
            await carol.send_map({"t": "play_now", "edition": "2022", "seats": 3})
            said = await until_closed(bob)
            assert said[-1]["t"] == "bye" and "another node" in said[-1]["reason"], said
            back = await TestClient.connect("127.0.0.1", n1.port, "bob", resume=bob.resume_token)
            clients.append(back)
            tables = [(await c.expect("table", where=lambda m: m["table"]["status"] == "playing"))["table"]
                      for c in (alice, back, carol)]
            assert len({t["id"] for t in tables}) == 1
            assert sorted(s["name"] for s in tables[0]["seats"]) == ["alice", "bob", "carol"]
        finally:
            for client in clients:
                await client.close()


def test_putting_back_an_entry_already_queued_keeps_and_returns_its_first_place(redis_server: RedisServer) -> None:
    """The queue's put-back script, run by a node's heartbeat while the join that queued the same entry
    is still on its way: tried with a later score, and with none (Redis's clock). The entry keeps the
    score it came with, and the script says that score, not the later one (a node that learned the
    later one put its player back behind others after Redis restarted empty)."""
    import redis

    from ono99_server.cluster_queue import CLAIMED, ENQUEUE, ENTRIES, QUEUE

    bus = redis.Redis.from_url(redis_server.url)
    enqueue = bus.register_script(ENQUEUE)
    queue = QUEUE + "2022:3"
    keys = [queue, ENTRIES, CLAIMED + "n0|a"]
    assert enqueue(keys=keys, args=["n0|a", "{}", 1000]) == 1000
    assert enqueue(keys=keys, args=["n0|a", "{}", 1001]) == 1000
    assert enqueue(keys=keys, args=["n0|a", "{}", ""]) == 1000
    assert bus.zscore(queue, "n0|a") == 1000
    bus.set(CLAIMED + "n0|b", "claiming n1")
    assert enqueue(keys=[queue, ENTRIES, CLAIMED + "n0|b"], args=["n0|b", "{}", 999]) == -1  # taken: not put back
    assert bus.zscore(queue, "n0|b") is None
