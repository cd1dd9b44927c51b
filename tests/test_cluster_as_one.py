"""A cluster that behaves as one server, all real (PostgreSQL, Redis, ``ono99 serve --cluster`` nodes,
OpenSSH-speaking clients): a name a key owns is refused at every node, including a node started
before the claim; operators act on the whole cluster from any node; a kick keeps out its player only."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from tests.redis_server import RedisServer
from tests.server_helpers import (
    ServerProcess,
    TestClient,
    create_table,
    free_port,
    start,
    storage_barrier,
    until_closed,
    wait_until,
)
from tests.test_cluster import DB_POLL, LEASE, NODE_ARGS, name_refusal, nodes, owner_of, read
from tests.test_fronts import read_until, ssh_session
from tests.test_identity import ConnectProcess
from tests.test_web import WsPlayer


def node_with_ssh(tmp_path: Path, db: str, bus: str, node_id: str, ssh_port: int, *extra: str) -> ServerProcess:
    """A node like ``nodes``' (same certificate and front credential) with an SSH port of its own."""
    tls = ("--tls-cert", str(tmp_path / "tls_cert.pem"), "--tls-key", str(tmp_path / "tls_key.pem"))
    return ServerProcess(db, tmp_path / f"{node_id}.log", *NODE_ARGS, "--cluster", bus, "--node-id", node_id,
                         *tls, "--front-credential-file", str(tmp_path / "front.key"),
                         "--ssh-port", str(ssh_port), "--ssh-workers", "0", *extra)


@pytest.mark.system
async def test_a_name_a_key_owns_is_refused_at_a_node_started_before_the_claim(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes, both running before anyone claims a name; n1 has an SSH port. Tom's key claims
    "tom" at n0 and leaves (no node has him online any more). Tried at n1: a guest's hello as "tom"
    and as "TOM" is refused (the name belongs to a player with a key), as n0 refuses it; a second
    key's hello as "tom" is refused; the ``names`` table holds one row for "tom", and the database
    itself refuses a second; Tom's key logging in over SSH to n1 as ``play-3`` (no name given) is
    Tom, and sam's key, which claimed "sam" at n0, keeps its name when it comes to n1 again."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)

    def claimed(name: str) -> bool:
        return any(json.loads(v)["name"] == name for v in bus.hvals("ono99:names"))

    ssh_port = free_port()
    async with nodes(tmp_path, database, redis_server.url, 1, "--front-credential-file",
                     str(tmp_path / "front.key")) as (n0,):
        n1 = node_with_ssh(tmp_path, database, redis_server.url, "n1", ssh_port)
        conn: asyncssh.SSHClientConnection | None = None
        try:
            await n1.start()  # before any claim
            tom_key = asyncssh.generate_private_key("ssh-ed25519")
            tom = await Client.connect("127.0.0.1", n0.port, "tom", identity=Identity(tom_key))
            await tom.close()
            await wait_until(lambda: not claimed("tom"), "n0 lets the name in use go")

            at_n0 = await name_refusal(n0.port, "tom")
            assert (at_n0[0], at_n0[2]["keyed"]) == ("name_taken", 1)
            assert await name_refusal(n1.port, "tom") == at_n0
            code, _, params = await name_refusal(n1.port, "TOM")
            assert (code, params["existing"], params["keyed"]) == ("name_taken", "tom", 1)
            with pytest.raises(ServerError) as refused:
                other = await Client.connect("127.0.0.1", n1.port, "tom",
                                             identity=Identity(asyncssh.generate_private_key("ssh-ed25519")))
                await other.close()
            assert refused.value.code == "name_taken"
            assert read(database, "SELECT count(*) FROM names WHERE lower(name) = 'tom'") == [(1,)]
            with pytest.raises(psycopg.errors.UniqueViolation), psycopg.connect(database) as pg:
                pg.execute("INSERT INTO names(identity, name, claimed_at) VALUES ('someone', 'tom', 0)")

            conn, _, screen = await ssh_session(ssh_port, "play-3", tom_key)
            await read_until(screen, b"tom")
            conn.close()
            conn = None

            sam_key = asyncssh.generate_private_key("ssh-ed25519")
            sam = await Client.connect("127.0.0.1", n0.port, "sam", identity=Identity(sam_key))
            await sam.close()
            await wait_until(lambda: not claimed("sam"), "n0 lets the name in use go")
            conn, _, screen = await ssh_session(ssh_port, "play-3", sam_key)
            await read_until(screen, b"sam")
            assert read(database, "SELECT name FROM names WHERE name IN ('sam', 'tom') ORDER BY name") == \
                [("sam",), ("tom",)]
        finally:
            if conn is not None:
                conn.close()
            await n1.stop()


async def operator_at(port: int, identity: Identity) -> TestClient:
    """An operator's session (``ono99 admin``'s) at the node at ``port``."""
    client = await TestClient.connect("127.0.0.1", port, "", identity=identity, admin=True)
    assert isinstance(client, TestClient)
    return client


async def admin(client: TestClient, command: str, **fields: Any) -> dict[str, Any]:
    return await client.request({"t": "admin", "command": command, **fields}, "admin_result")


async def refusal_at(port: int, name: str, **hello: Any) -> str | None:
    """The error code a hello to the node at ``port`` is refused with, or None (it was welcome)."""
    try:
        client = await TestClient.connect("127.0.0.1", port, name, **hello)
    except ServerError as exc:
        return exc.code
    await client.close()
    return None


async def until_told_of_the_others(port: int, others: int) -> None:
    """Until the node at ``port`` lists ``others`` other nodes at a welcome (it reads their records at
    its heartbeats: a node just started may not know them yet)."""
    for _ in range(100):
        probe = await TestClient.connect("127.0.0.1", port, "probe")
        await probe.close()
        if len(probe.welcome.get("nodes", [])) == others:
            return
        await asyncio.sleep(LEASE / 20)
    pytest.fail(f"the node at {port} never told of {others} other nodes")


async def until_refused(port: int, name: str, code: str, **hello: Any) -> None:
    """Until the node at ``port`` refuses the hello with ``code`` (what another node did reaches it)."""
    for _ in range(100):
        if await refusal_at(port, name, **hello) == code:
            return
        await asyncio.sleep(LEASE / 20)
    pytest.fail(f"the node at {port} never refused {name!r} with {code}")


@pytest.mark.system
async def test_operators_act_on_the_whole_cluster_from_a_node_that_does_not_hold_the_player(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes with one operators' file; every player is at n0, the operator's session at n1. Tried:
    ``who`` at n1 lists n0's players; ``notice`` reaches them; the message of the day set at n1 is
    told to a player arriving at n0; ``mute``, ``close``, ``rename``, ``kick`` and ``ban`` of n0's
    players and table, given at n1, are carried out at n0 (each player told, as by their own node),
    a kick keeps the kicked guest out of both nodes, a ban keeps the key out of both."""
    op = Identity(asyncssh.generate_private_key("ssh-ed25519"))
    admins = tmp_path / "admins"
    admins.write_text(f"{op.public_key} op\n")
    tom_id, bob_id = (Identity(asyncssh.generate_private_key("ssh-ed25519")) for _ in range(2))
    async with nodes(tmp_path, database, redis_server.url, 2, "--admins", str(admins)) as (n0, n1):
        tom = await TestClient.connect("127.0.0.1", n0.port, "tom", identity=tom_id)
        bob = await TestClient.connect("127.0.0.1", n0.port, "bob", identity=bob_id)
        lena = await TestClient.connect("127.0.0.1", n0.port, "lena")
        desk = await operator_at(n1.port, op)
        clients = [tom, bob, lena, desk]
        try:
            who = await admin(desk, "who")
            assert sorted(row["name"] for row in who["rows"]) == ["bob", "lena", "tom"]
            assert (await admin(desk, "notice", text="closing at ten"))["params"]["sent"] == 3
            for player in (tom, bob, lena):
                await player.expect("notice", where=lambda m: m["code"] == "host_notice")

            await admin(desk, "motd", text="be kind")
            for attempt in range(100):  # until n0 has read it again
                newcomer = await TestClient.connect("127.0.0.1", n0.port, f"new{attempt}")
                await newcomer.request({"t": "ping", "n": 1}, "pong")
                await newcomer.close()
                if any(m.get("code") == "motd" for m in newcomer.received):
                    break
                await asyncio.sleep(LEASE / 20)
            else:
                pytest.fail("n0 never told the message of the day set at n1")

            await admin(desk, "mute", target="tom", reason="shouting")
            await tom.expect("notice", where=lambda m: m["code"] == "chat_muted")
            table_id = await create_table(bob, seats=3, bots=2)
            await admin(desk, "close", table=table_id, reason="spam")
            await bob.expect("notice", where=lambda m: m["code"] == "table_closed")
            await admin(desk, "rename", target="bob", name="robert")
            await bob.expect("notice", where=lambda m: m["code"] == "renamed")

            await admin(desk, "kick", target="lena", reason="rude")
            said = await until_closed(lena)
            assert any(m.get("code") == "operator_kick" for m in said)
            assert lena.resume_token
            assert await refusal_at(n0.port, "lena", resume=lena.resume_token) == "kicked"
            await until_refused(n1.port, "lena", "kicked", resume=lena.resume_token)

            await admin(desk, "ban", target="tom", reason="cheating")
            said = await until_closed(tom)
            assert any(m.get("code") == "operator_ban" for m in said)
            assert await refusal_at(n0.port, "tom", identity=tom_id) == "banned"
            assert await refusal_at(n1.port, "tom", identity=tom_id) == "banned"
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_a_kick_keeps_out_its_player_not_the_others_of_the_address_nor_the_operator(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes; everyone connects from 127.0.0.1. The operator (their own session at n1) kicks Lena,
    a guest at n0. Tried: her resume token is refused at both nodes (``kicked``), while Bob's key, a
    new guest and the operator's own session at n0 are welcome from the same address. Then Gina, a
    guest, is kicked with her address (``all``): a new guest from there is refused, Bob's key and the
    operator's session are still welcome."""
    op = Identity(asyncssh.generate_private_key("ssh-ed25519"))
    admins = tmp_path / "admins"
    admins.write_text(f"{op.public_key} op\n")
    bob_id = Identity(asyncssh.generate_private_key("ssh-ed25519"))
    async with nodes(tmp_path, database, redis_server.url, 2, "--admins", str(admins)) as (n0, n1):
        lena = await TestClient.connect("127.0.0.1", n0.port, "lena")
        desk = await operator_at(n1.port, op)
        clients = [lena, desk]
        try:
            await admin(desk, "kick", target="lena", reason="rude")
            await until_closed(lena)
            assert await refusal_at(n0.port, "lena", resume=lena.resume_token) == "kicked"
            await until_refused(n1.port, "lena", "kicked", resume=lena.resume_token)
            for port in (n0.port, n1.port):
                assert await refusal_at(port, "bob", identity=bob_id) is None
                assert await refusal_at(port, "newcomer") is None
            own = await operator_at(n0.port, op)
            clients.append(own)
            await admin(own, "who")

            gina = await TestClient.connect("127.0.0.1", n0.port, "gina")
            clients.append(gina)
            await admin(desk, "kick", target="gina", reason="rude", all=True)
            await until_closed(gina)
            assert await refusal_at(n0.port, "another") == "kicked"
            await until_refused(n1.port, "another", "kicked")
            for port in (n0.port, n1.port):
                assert await refusal_at(port, "bob", identity=bob_id) is None
                clients.append(await operator_at(port, op))
                await admin(clients[-1], "who")
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_ssh_play_3_groups_across_nodes_and_is_not_run_again_where_it_is_sent(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes, n0 with a play-now wait of 2 s; n1 has an SSH port. Lena (n0) presses play now for
    three, then Hans logs in over SSH to n1 as ``play-3`` with a key. Tried: when Lena's wait is
    over n0 seats both at one table with a bot; Hans's front is sent on there by itself, and the
    game starts with Hans in his seat, connected. n0 is then killed (SIGKILL): n1 takes the table
    over, and Hans (his front reconnecting by itself) and Lena are back in their seats. It is the
    only table made for him and nobody waits in the queue: the shortcut is not run again where Hans
    is sent, nor after the take-over; his seat is never handed to a bot. Zed, pressing play now at
    n0 once Hans's screen shows his table, waits alone and gets a table of his own. Bots wait 10 s a
    move, so the game stands still meanwhile."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)
    ssh_port = free_port()
    slow_bots = ("--bot-delay", "10")  # the game stands still: a seat handed to a bot would show
    async with nodes(tmp_path, database, redis_server.url, 1, "--front-credential-file",
                     str(tmp_path / "front.key"), "--play-now-wait", "2", *slow_bots) as (n0,):
        # n0's wait ends first: n0 takes the group, and Hans's front is sent on to it
        n1 = node_with_ssh(tmp_path, database, redis_server.url, "n1", ssh_port, "--play-now-wait", "600",
                           *slow_bots)
        conn: asyncssh.SSHClientConnection | None = None
        lena = await TestClient.connect("127.0.0.1", n0.port, "lena")
        clients = [lena]
        try:
            await n1.start()
            hans_key = asyncssh.generate_private_key("ssh-ed25519")
            named = await Client.connect("127.0.0.1", n1.port, "hans", identity=Identity(hans_key))
            await named.close()
            await lena.send_map({"t": "play_now", "edition": "2022", "seats": 3})
            await wait_until(lambda: bus.zcard("ono99:queue:2022:3") == 1, "n0 puts Lena in the queue")
            conn, _, screen = await ssh_session(ssh_port, "play-3", hans_key)
            await wait_until(lambda: read(database, "SELECT count(*) FROM live_tables") == [(1,)],
                             "a node opens the table", timeout=10 * LEASE, every=DB_POLL)
            [(table_id,)] = read(database, "SELECT id FROM live_tables")
            assert owner_of(database, table_id) == "n0"
            detail = await lena.expect("table", where=lambda m: m["table"]["status"] == "playing" and any(
                s["name"] == "hans" and s["connected"] for s in m["table"]["seats"]), timeout=60)
            assert detail["table"]["id"] == table_id
            assert sorted(s["kind"] for s in detail["table"]["seats"]) == ["bot", "human", "human"]
            assert read(database, "SELECT count(*) FROM live_tables") == [(1,)]

            # Hans's screen shows his table: his app took in the table it was sent on to. Zed then
            # presses play now at n0: he waits alone (Hans is in no queue) and gets a table of his own.
            await read_until(screen, b"(you)")
            zed = await TestClient.connect("127.0.0.1", n0.port, "zed")
            clients.append(zed)
            await zed.send_map({"t": "play_now", "edition": "2022", "seats": 3})
            zeds = await zed.expect("table", where=lambda m: m["table"]["status"] == "playing", timeout=60)
            assert [s["name"] for s in zeds["table"]["seats"] if s["kind"] == "human"] == ["zed"]
            await zed.close()
            await n0.kill9()  # Hans's front comes back through its own node, which takes the table over
            await until_closed(lena)
            await wait_until(lambda: owner_of(database, table_id) == "n1", "n1 takes the table over",
                             timeout=20 * LEASE, every=DB_POLL)
            lena = await TestClient.connect("127.0.0.1", n1.port, "lena", resume=lena.resume_token)
            clients.append(lena)
            assert lena.welcome["table"] == table_id
            await lena.expect("table", where=lambda m: m["table"]["status"] == "playing" and any(
                s["name"] == "hans" and s["kind"] == "human" and s["connected"] for s in m["table"]["seats"]),
                timeout=60)
            await lena.request({"t": "ping", "n": 1}, "pong")
            hans_seats = [s for s in lena.received if s["t"] == "table" for s in s["table"]["seats"]
                          if s["name"] == "hans"]
            assert all(s["kind"] == "human" for s in hans_seats), "Hans's seat went to a bot"
            assert bus.zcard("ono99:queue:2022:3") == 0, "Hans waits for another table"
            assert {i for (i,) in read(database, "SELECT id FROM live_tables")} <= {table_id, zeds["table"]["id"]}
        finally:
            if conn is not None:
                conn.close()
            for client in clients:
                await client.close()
            await n1.stop()


async def back_after_its_node_is_killed(n0: ServerProcess, n1: ServerProcess, alice: TestClient,
                                        clients: list[TestClient], database: str, table_id: int,
                                        seated: Callable[[dict[str, Any]], bool], who: str) -> None:
    """Kill n0 (its table's owner), wait for another node to take the table, bring Alice back at n1 by
    her resume token, and wait there until ``seated`` says the other player is back in their seat:
    within the take-over time and a few seconds."""
    loop = asyncio.get_running_loop()
    killed_at = loop.time()
    await n0.kill9()
    await until_closed(alice)
    await wait_until(lambda: owner_of(database, table_id) in ("n1", "n2"),
                     "another node takes the table", every=DB_POLL)
    back = await TestClient.connect("127.0.0.1", n1.port, "alice", resume=alice.resume_token)
    clients.append(back)
    assert back.welcome["table"] == table_id
    await back.expect("table", where=seated, timeout=60)
    took = loop.time() - killed_at
    print(f"{who} back in the seat {took:.1f} s after the kill")
    assert took < 4 * LEASE + 5, f"{who} was back only {took:.1f} s after the kill"


@pytest.mark.system
@pytest.mark.parametrize("mode", ["app", "plain"])
async def test_the_real_app_whose_node_is_killed_comes_back_through_another_node(
        tmp_path: Path, database: str, redis_server: RedisServer, mode: str) -> None:
    """Three nodes. Bob runs the real ``ono99 connect`` (the app, or ``--plain``) against n0 only (n0's
    address and fingerprint), and joins Alice's table of three at n0 (one bot); the game starts. n0
    is killed with SIGKILL. Tried: Bob's client, told the other nodes at its welcome, connects again
    through one of them by itself (n0 never comes back), is sent on to whichever node took the table
    over, and is back in his seat: Alice, back too, sees Bob connected again within the take-over
    time and a few seconds (and the app's screen shows his seat)."""
    async with nodes(tmp_path, database, redis_server.url) as cluster:
        n0, n1 = cluster[0], cluster[1]
        await until_told_of_the_others(n0.port, 2)
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        clients = [alice]
        plain = ("--plain",) if mode == "plain" else ()
        bob = ConnectProcess(n0.port, tmp_path / "bob", "--name", "bob", *plain, fingerprint=n0.fingerprint)
        try:
            table_id = await create_table(alice, seats=3, bots=1)

            def bob_seated(message: dict[str, Any]) -> bool:
                return any(s["name"] == "bob" and s["connected"] for s in message["table"]["seats"])

            await bob.start()
            for _ in range(60):  # join the table, once the client lists it
                bob.press(f"j {table_id}\n".encode() if plain else b"j")
                with contextlib.suppress(TimeoutError):
                    await alice.expect("table", where=bob_seated, timeout=1)
                    break
            else:
                pytest.fail("bob never sat at the table")
            await start(alice)
            await alice.expect("state")
            await storage_barrier(alice)
            shown = len(bob.output)
            await back_after_its_node_is_killed(n0, n1, alice, clients, database, table_id, bob_seated,
                                                f"{mode}: bob")
            if not plain:
                await wait_until(lambda: b"(you)" in bob.output[shown:], "bob's table screen with his seat",
                                 timeout=60)
        finally:
            await bob.stop()
            for client in clients:
                await client.close()


@pytest.mark.system
@pytest.mark.parametrize("way", ["ssh", "web"])
async def test_a_front_of_its_own_comes_back_through_another_node_when_its_node_is_killed(
        tmp_path: Path, database: str, redis_server: RedisServer, way: str) -> None:
    """Three nodes, and ``ono99 front`` in a process of its own for n0 (``--server`` n0's address).
    Ada logs in to that front (over SSH with a key, or as a guest from a browser's websocket) and
    joins Alice's table of three at n0 (one bot); the game starts, and n0 is killed with SIGKILL.
    Tried: the front, told the other nodes at Ada's welcome, connects again through one of them by
    itself, is sent on to whichever node took the table over, and Ada is back in her seat within
    the take-over time and a few seconds, her session going on."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)
    credential = tmp_path / "front.key"
    async with nodes(tmp_path, database, redis_server.url, 3, "--front-credential-file", str(credential)) as cluster:
        n0, n1 = cluster[0], cluster[1]
        ssh_port, web_port = free_port(), free_port()
        front = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "ono99_tui.cli", "front", "--server", f"127.0.0.1:{n0.port}",
            "--server-fingerprint", n0.fingerprint, "--credential-file", str(credential),
            "--ssh-host", "127.0.0.1", "--ssh-port", str(ssh_port), "--host-key", str(tmp_path / "host_key"),
            "--web-host", "127.0.0.1", "--web-port", str(web_port),
            env={**os.environ, "ONO99_DATA_DIR": str(tmp_path / "front-data")},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        await until_told_of_the_others(n0.port, 2)
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        clients = [alice]
        conn: asyncssh.SSHClientConnection | None = None
        page: WsPlayer | None = None
        try:
            assert front.stdout is not None
            while b"web front" not in (line := await asyncio.wait_for(front.stdout.readline(), 30)):
                assert line, "the front exited"
            table_id = await create_table(alice, seats=3, bots=1)

            def ada_seated(message: dict[str, Any]) -> bool:
                return any(s["name"] == "ada" and s["connected"] for s in message["table"]["seats"])

            ssh_keys: Any = None

            async def press(data: bytes) -> None:
                if page is not None:
                    await page.type(data)
                else:
                    ssh_keys.write(data)

            if way == "ssh":
                conn, ssh_keys, screen = await ssh_session(ssh_port, "ada",
                                                           asyncssh.generate_private_key("ssh-ed25519"))
                await read_until(screen, b"you are")
            else:
                page = await WsPlayer.connect(f"https://127.0.0.1:{web_port}")
                await page.until_shown(b"This browser keeps your seat", "the name screen")
                await page.type(b"ada\r")
                await page.until_shown(b"you are", "the lobby")
            for _ in range(60):  # j joins the first (only) table of the list, once the front lists it
                await press(b"j")
                with contextlib.suppress(TimeoutError):
                    await alice.expect("table", where=ada_seated, timeout=1)
                    break
            else:
                pytest.fail("ada never sat at the table")
            await start(alice)
            await alice.expect("state")
            await storage_barrier(alice)
            # n0's record lists both seats (it is written half a second at most after a change): a guest
            # whose seat no record lists yet would find none at another node (docs/server.md)
            await wait_until(lambda: len(json.loads(bus.get("ono99:node:n0") or b"{}").get("seated", [])) == 2,
                             "n0's record lists Alice's and Ada's seats")
            await back_after_its_node_is_killed(n0, n1, alice, clients, database, table_id, ada_seated,
                                                f"{way}: ada")
            assert (conn is not None and not conn.is_closed()) or (page is not None and not page.closed.is_set())
        finally:
            if conn is not None:
                conn.close()
            if page is not None:
                await page.close()
            for client in clients:
                await client.close()
            if front.returncode is None:
                front.terminate()
                await asyncio.wait_for(front.wait(), 30)
