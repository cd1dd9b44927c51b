"""Faults of several game nodes, all real (tests/test_cluster.py's PostgreSQL, Redis and ``ono99
serve`` processes): nodes whose clocks are wrong (libfaketime, Debian's ``faketime``; .ci/run installs
it), and a node that is told to stop after its database and its Redis were lost."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import glob
import os
import random
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from ono99_tui.client.errors import ConnectionLost
from tests.postgres import start_cluster
from tests.redis_server import RedisServer
from tests.server_helpers import (
    TIMEOUT,
    PlayLog,
    ServerProcess,
    TestClient,
    create_table,
    events_of,
    export_and_check,
    play,
    plays_of,
    record_events,
    resumed_history,
    start,
    storage_barrier,
    until_closed,
    wait_until,
)
from tests.test_cluster import DB_POLL, NODE_ARGS, owner_of, read

SKEW = 600  # seconds a skewed node's clock is off: far longer than any wait of these tests
FAKETIME_MISSING = "libfaketime was not found: install it (Debian and Ubuntu: apt-get install faketime; .ci/run does)"


def clock_off_by(seconds: int) -> dict[str, str]:
    """The environment of a process whose wall clock (CLOCK_REALTIME: what NTP gone wrong shifts)
    is ``seconds`` off; its monotonic clock, which no wrong setting moves, stays true."""
    libraries = sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1")
                       + glob.glob("/usr/lib/faketime/libfaketimeMT.so.1"))
    if not libraries:
        raise RuntimeError(FAKETIME_MISSING)
    return {**os.environ, "LD_PRELOAD": libraries[0], "FAKETIME": f"{seconds:+d}",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1"}


def log_clock_offset(log_path: Path) -> float:
    """How far ahead of this process's clock a node's clock was when it wrote its first log line
    (the node logs its local time; both run in this machine's time zone)."""
    text = log_path.read_text()
    stamp = re.search(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+ ", text, re.MULTILINE)
    assert stamp is not None, text
    written = datetime.datetime.strptime(stamp.group(1), "%Y-%m-%d %H:%M:%S")
    return (written - datetime.datetime.now()).total_seconds()


def owner_and_epoch(db: str, table_id: int) -> tuple[str, int]:
    [(node, epoch)] = read(db, "SELECT node, epoch FROM table_owners WHERE table_id = %s", table_id)
    return str(node), int(epoch)


async def mid_game(client: TestClient, seed: int) -> PlayLog:
    """Plays at the client's new table of two (a bot) until it is the client's turn again after a
    few moves: the game stands still there, waiting for the client, its moves saved."""
    await start(client)

    def to_play(message: dict[str, Any]) -> bool:
        return bool(message["view"]["version"] >= 6 and message["view"]["turn"] == 0 and message["view"]["legal"])

    log = await play(client, random.Random(seed), stop=to_play)
    assert log.last_view["winner"] is None, "the game ended before the faults"
    await storage_barrier(client)
    return log


async def resume_and_finish(old: TestClient, before: PlayLog, port: int, table_id: int, seed: int,
                            clients: list[TestClient]) -> list[dict[str, Any]]:
    """The player of ``old`` connects to the node at ``port`` with their resume token and the last
    event they saw, is back in their seat (sent on to its owner if need be) with every event after
    that one once (none missed, none twice, no state older than one seen), and plays the game to
    its end; every event they saw, in order."""
    last_seq = before.states[-1]["seq"]
    client = await TestClient.connect("127.0.0.1", port, old.welcome["name"], resume=old.resume_token,
                                      seen={"table": table_id, "seq": last_seq})
    clients.append(client)
    assert client.welcome["resumed"] is True and client.welcome["table"] == table_id
    state = await client.expect("state")
    missed = resumed_history(client, state, before.states[-1])
    after = await play(client, random.Random(seed), initial=state)
    assert after.last_view["winner"] is not None
    await storage_barrier(client)
    return events_of(before.states) + missed + events_of(after.states)


@pytest.mark.system
async def test_nodes_with_clocks_ahead_and_behind_neither_keep_nor_take_leases_early(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Three nodes: n0's clock is right, n1's ten minutes ahead, n2's ten minutes behind (their wall
    clocks; libfaketime). Alice plays at a table of n0, Bob at one of n2, each with a bot, and stops
    on their turn mid-game. Tried:

    - n1 starts: its first look for leases that ran out (made before its banner ends) takes neither
      table, though by its clock both leases ran out ten minutes ago; Carol then plays at a table of n1.
    - n0 (right) is killed with SIGKILL: Alice's table is taken over by a skewed node, in the time a
      take-over takes (a node behind would wait ten minutes if it judged by its clock).
    - n1 (ahead) is killed with SIGKILL: its tables are taken by n2 (behind), though by n1's clock its
      leases run ten minutes more.
    - Bob's table stays n2's, epoch 1, throughout, and Bob's connection is never closed.
    - Alice and Carol come back (through n2) to their seats with every event once; all three finish,
      and the records hold exactly the plays each saw."""
    tls = ("--tls-cert", str(tmp_path / "tls_cert.pem"), "--tls-key", str(tmp_path / "tls_key.pem"))

    def node(name: str, offset: int) -> ServerProcess:
        return ServerProcess(database, tmp_path / f"{name}.log", *NODE_ARGS, "--lease-seconds", "3",
                             "--cluster", redis_server.url, "--node-id", name, *tls,
                             env=clock_off_by(offset) if offset else None)

    n0, n1, n2 = node("n0", 0), node("n1", SKEW), node("n2", -SKEW)
    clients: list[TestClient] = []
    try:
        await n0.start()  # first: it makes the certificate every node shows
        await n2.start()
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        bob = await TestClient.connect("127.0.0.1", n2.port, "bob")
        clients += [alice, bob]
        table_a = await create_table(alice, seats=2, bots=1)
        table_b = await create_table(bob, seats=2, bots=1)
        alice_before, bob_before = await asyncio.gather(mid_game(alice, 1), mid_game(bob, 2))

        await n1.start()
        assert "(0 tables restored)" in "".join(n1.banner), n1.banner
        assert owner_and_epoch(database, table_a) == ("n0", 1)
        assert owner_and_epoch(database, table_b) == ("n2", 1)
        await wait_until(lambda: (tmp_path / "n1.log").exists() and (tmp_path / "n1.log").read_text() != "",
                         "n1 logs a line")
        assert abs(log_clock_offset(tmp_path / "n1.log") - SKEW) < 60, "n1's clock is not ahead"
        assert abs(log_clock_offset(tmp_path / "n2.log") + SKEW) < 60, "n2's clock is not behind"
        carol = await TestClient.connect("127.0.0.1", n1.port, "carol")
        clients.append(carol)
        table_c = await create_table(carol, seats=2, bots=1)
        carol_before = await mid_game(carol, 3)
        assert owner_and_epoch(database, table_c) == ("n1", 1)
        assert owner_and_epoch(database, table_a) == ("n0", 1), "n1 took a live node's table"

        await n0.kill9()
        await until_closed(alice)
        await wait_until(lambda: owner_of(database, table_a) in ("n1", "n2"),
                         "a skewed node takes n0's table", every=DB_POLL)
        await n1.kill9()
        await until_closed(carol)
        await wait_until(lambda: owner_of(database, table_a) == owner_of(database, table_c) == "n2",
                         "n2 (behind) takes the tables of n1 (ahead)", every=DB_POLL)
        assert owner_and_epoch(database, table_b) == ("n2", 1), "Bob's table changed owner"
        assert not bob.closed

        seen = await asyncio.gather(
            resume_and_finish(alice, alice_before, n2.port, table_a, 4, clients),
            resume_and_finish(carol, carol_before, n2.port, table_c, 5, clients))
        bob_after = await play(bob, random.Random(6), initial=bob_before.states[-1])  # his turn, waiting
        assert bob_after.last_view["winner"] is not None
        await storage_barrier(bob)
        bob_states = bob_before.states + bob_after.states[1:]
        bob_seen = events_of(bob_states)
        seqs = [s["seq"] for s in bob_states]
        assert seqs == sorted(set(seqs)), "Bob saw a state go backwards, or one twice"
        records = await export_and_check(database, tmp_path / "games.jsonl")
        assert sorted(plays_of(record_events(r)) for r in records) == \
            sorted(plays_of(s) for s in [*seen, bob_seen])
    finally:
        for client in clients:
            await client.close()
        for process in (n0, n1, n2):
            await process.stop()


def every_process_of(pid: int) -> list[int]:
    """A process and its children (PostgreSQL's backends are its postmaster's children, each in a
    process group of its own: a signal to the postmaster's group does not reach them)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [pid, *map(int, children)]


@pytest.mark.system
@pytest.mark.parametrize("fault", ["killed", "frozen"])
async def test_a_node_told_to_stop_after_losing_its_database_and_redis_exits_in_bounded_time(
        tmp_path: Path, redis_server: RedisServer, fault: str) -> None:
    """A node on a PostgreSQL server and a Redis of this test's own; Alice hosts a table there.
    PostgreSQL (its postmaster, stopped first so that it starts no backend meanwhile, and every
    backend) and Redis are then killed with SIGKILL, or frozen with SIGSTOP (a machine that hangs, a network
    that drops every packet: connections stay open and nothing answers). Alice says a line at her
    table, which cannot be saved, and the node is sent SIGTERM. Tried: the node exits either way.
    Killed, it finds out at once: its shutdown ends, status 0, and the line's failed write is
    logged. Frozen, its last writes wait for ever (this node used to wait with them, and never
    exited): after its shutdown's bound (10 s) it logs that it did not finish, what it did not
    write (Alice's line, at her table) and which tables it held, and exits with status 1."""
    pg = start_cluster()
    stopped: list[int] = []
    node = ServerProcess(pg.new_database(), tmp_path / "n0.log", *NODE_ARGS, "--cluster", redis_server.url,
                         "--node-id", "n0")
    try:
        await node.start()
        alice = await TestClient.connect("127.0.0.1", node.port, "alice")
        table_id = await create_table(alice, seats=2, bots=1)
        await storage_barrier(alice)
        os.kill(pg.process.pid, signal.SIGSTOP)  # first: it starts no backend from here on
        assert redis_server.process is not None
        stopped = [*every_process_of(pg.process.pid), redis_server.process.pid]
        for pid in stopped:
            os.kill(pid, signal.SIGKILL if fault == "killed" else signal.SIGSTOP)
        await alice.send_map({"t": "chat", "text": "never saved"})
        # Answered after the line was taken (in order), unless its failed write closed the table's
        # connections first: a killed database refuses at once, and the node lets the table go.
        with contextlib.suppress(ConnectionLost):
            await alice.request({"t": "list_tables"}, "tables")
        assert node.proc is not None
        node.proc.send_signal(signal.SIGTERM)
        status = await asyncio.wait_for(node.proc.wait(), TIMEOUT)
        log = (tmp_path / "n0.log").read_text()
        if fault == "killed":
            assert status == 0, log
            assert "could not save a chat line" in log
            assert "shutdown not finished" not in log
        else:
            assert status == 1, log
            assert re.search(rf"shutdown not finished after 10 s, at .*; not written: table {table_id}: "
                             r"[^;]*\b1 chat line\b", log), log
            assert re.search(rf"tables this node held, .*: {table_id}$", log, re.MULTILINE), log
        await alice.close()
    finally:
        for pid in stopped if fault == "frozen" else ():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        await node.stop()
        pg.stop()


async def test_a_name_claimed_on_postgresql_is_dated_by_the_databases_clock(
        database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Of two claims of names that look alike (made on two nodes, each of which checks its own
    list), the older keeps the name at the next start (server/ono99_server/name_claims.py). Tried: a store whose
    process clock says 1970 (this process's ``time.time`` replaced for the store) saves a claim;
    its date is the database's clock, not the node's."""
    import time
    import types

    from ono99_server import storage as storage_module
    from ono99_server.storage_pg import PostgresStorage

    monkeypatch.setattr(storage_module, "time", types.SimpleNamespace(
        time=lambda: 0.0, monotonic=time.monotonic, perf_counter=time.perf_counter))
    store = PostgresStorage(database)
    try:
        store.save_name("key-1", "ada")
        await store.call(lambda db: db.row("SELECT 1"))  # after the write
    finally:
        store.close()
    [(claimed_at, now)] = read(database, "SELECT claimed_at, EXTRACT(EPOCH FROM now()) FROM names "
                                         "WHERE identity = 'key-1'")
    assert abs(float(claimed_at) - float(now)) < 60


@pytest.mark.system
async def test_a_node_whose_database_froze_before_its_first_table_answers_and_stops(tmp_path: Path,
                                                                                   redis_server: RedisServer) -> None:
    """A node (a lease of 30 s: it counts its database as up for that long) on a PostgreSQL server of
    this test's own, which is frozen (SIGSTOP: connections open, nothing answers) before the node made
    any table. Tried: Alice asks for a table (shown once saved: never), says a line there and sends
    a ping: the node answers the ping, after the others, and refuses nothing (it used to wait
    for the database on its event loop to reserve the table's id, and answered nothing more, not
    even SIGTERM); sent SIGTERM, it exits within its bound, status 1, saying it did not write the
    table's claim and Alice's line."""
    pg = start_cluster()
    stopped: list[int] = []
    node = ServerProcess(pg.new_database(), tmp_path / "n0.log", *NODE_ARGS, "--lease-seconds", "30",
                         "--cluster", redis_server.url, "--node-id", "n0")
    try:
        await node.start()
        alice = await TestClient.connect("127.0.0.1", node.port, "alice")
        os.kill(pg.process.pid, signal.SIGSTOP)  # first: it starts no backend from here on
        stopped = every_process_of(pg.process.pid)
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        # The table is shown once saved, which it never is; the pong answers after the requests before it.
        await alice.send_map({"t": "create_table", "name": "frozen", "seats": 2, "bots": 1})
        await alice.send_map({"t": "chat", "text": "never saved"})
        await alice.request({"t": "ping", "n": 99}, "pong", where=lambda m: m.get("n") == 99)
        assert not [m for m in alice.received if m["t"] == "error"], alice.received
        assert node.proc is not None
        node.proc.send_signal(signal.SIGTERM)
        status = await asyncio.wait_for(node.proc.wait(), TIMEOUT)
        log = (tmp_path / "n0.log").read_text()
        assert status == 1, log
        [not_written] = re.findall(r"not written: (.*)$", log, re.MULTILINE)
        assert re.fullmatch(r"table \d+: [^;]*\b1 chat line\b[^;]*", not_written.split("; ")[0]), not_written
        assert "1 ownership claim" in not_written.split("; ")[0], not_written
        await alice.close()
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        await node.stop()
        pg.stop()
