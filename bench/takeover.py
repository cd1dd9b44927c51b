"""Take-over time of a lost node: from a node's kill -9 to the first state each player of its tables
receives again, through another node (docs/performance.md, "Several nodes: take-over").

Three real ``ono99 serve --cluster`` nodes on a PostgreSQL cluster and a ``redis-server`` started
here (tests/postgres.py, tests/redis_server.py), all on this machine. Each round: on the node to
kill, ``--tables`` players (guests) each start a game with a bot and stop on their own turn; every
move is saved; the node is killed with SIGKILL; each player at once says hello again, with their
resume token and the sequence number of the last event they saw, to one of the other nodes (sent
on to the new owner, retrying as the client does while the table moves) until a ``state`` comes.
Checked each time: the seat is back (``resumed``), and the state's sequence number is the last
one seen plus the events sent since (nothing lost or doubled). The killed node is started again
(same name) before the next round, and the victim goes round the three nodes.

    python bench/takeover.py [--kills 20] [--lease-seconds 2] [--tables 2]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis.asyncio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from measuring import cluster_parts, percentile

from tests.postgres import Cluster
from tests.redis_server import RedisServer
from tests.server_helpers import ServerProcess, TestClient, create_table, start, storage_barrier


async def own_turn(client: TestClient) -> dict[str, Any]:
    """The first state in which it is this player's turn (the bot moves until then)."""
    while True:
        message = await client.expect("state")
        view = message["view"]
        if view["turn"] == view["seat"] and view["winner"] is None:
            return message


async def listed(url: str, node: ServerProcess, tokens: list[str]) -> None:
    """Wait until the node's record in Redis lists these players' seats (a node writes it at most
    half a second after a change: a player seated since is not found by the other nodes)."""
    bus = redis.asyncio.Redis.from_url(url)
    try:
        while True:
            record = await bus.get("ono99:node:" + node.args[node.args.index("--node-id") + 1])
            seated = set(json.loads(record)["seated"]) if record else set()
            if all(f"token:{hashlib.sha256(t.encode()).hexdigest()}" in seated for t in tokens):
                return
            await asyncio.sleep(0.05)
    finally:
        await bus.aclose()


async def come_back(nodes: list[ServerProcess], name: str, token: str, table_id: int, last_seq: int,
                    killed_at: float) -> tuple[float, bool]:
    """(seconds from the kill to the first state again, whether nothing was lost or doubled)."""
    while True:
        node = random.choice(nodes)
        try:
            client = await TestClient.connect("127.0.0.1", node.port, name, resume=token,
                                              seen={"table": table_id, "seq": last_seq}, timeout=30)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        try:
            try:
                state = await client.expect("state")
            except TimeoutError:
                raise AssertionError(f"no state after {client.welcome} from port {node.port}: "
                                     f"{[m['t'] for m in client.received]}") from None
            seconds = time.perf_counter() - killed_at
            history = [m for m in client.received if m["t"] == "history"]
            missed = sum(len(m["events"]) for m in history)
            exact = bool(client.welcome["resumed"] and client.welcome["table"] == table_id
                         and not any(m["reset"] for m in history)
                         and state["seq"] == last_seq + missed + len(state["events"]))
            return seconds, exact
        finally:
            await client.close()


async def main(kills: int, lease: float, tables: int, log_level: str) -> None:
    with cluster_parts() as (pg, bus):
        assert bus is not None
        await rounds(pg, bus, kills, lease, tables, log_level)


async def rounds(pg: Cluster, bus: RedisServer, kills: int, lease: float, tables: int, log_level: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="ono99-takeover-"))
    db = pg.new_database()
    tls = ("--tls-cert", str(folder / "cert.pem"), "--tls-key", str(folder / "key.pem"))
    args = ("--grace", "600", "--bot-delay", "0", "--turn-seconds", "0", "--messages-per-second", "10000",
            "--lease-seconds", f"{lease:g}", "--cluster", bus.url, "--log-level", log_level, *tls)
    print(f"logs in {folder}, database {db}", flush=True)
    nodes = [ServerProcess(db, folder / f"n{i}.log", *args, "--node-id", f"n{i}") for i in range(3)]
    times: list[float] = []
    wrong = 0
    try:
        for node in nodes:
            await node.start()
        for round_no in range(kills):
            victim = nodes[round_no % 3]
            others = [n for n in nodes if n is not victim]
            players = []
            for t in range(tables):
                client = await TestClient.connect("127.0.0.1", victim.port, f"p{round_no}x{t}", timeout=30)
                table_id = await create_table(client, seats=2, bots=1)
                await start(client)
                state = await own_turn(client)
                players.append((client, table_id, int(state["seq"])))
            await storage_barrier(players[-1][0])
            await listed(bus.url, victim, [c.resume_token for c, _, _ in players])
            killed_at = time.perf_counter()
            await victim.kill9()
            results = await asyncio.gather(*(come_back(others, c.welcome["name"], c.resume_token, table_id, seq,
                                                       killed_at) for c, table_id, seq in players))
            for client, _, _ in players:
                await client.close()
            for seconds, exact in results:
                times.append(seconds)
                wrong += not exact
            print(f"kill {round_no + 1}: " + ", ".join(f"{s:.2f} s" for s, _ in results), flush=True)
            await victim.start()
    finally:
        for node in nodes:
            await node.stop()
    load = os.getloadavg()
    print(f"\n{kills} kills, {len(times)} players, --lease-seconds {lease:g}: kill -9 to the first state again "
          f"p50 {percentile(times, 0.5):.2f} s, p99 {percentile(times, 0.99):.2f} s, max {max(times):.2f} s; "
          f"seats back with nothing lost or doubled: {len(times) - wrong} of {len(times)} "
          f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--lease-seconds", type=float, default=2.0)
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--log-level", default="warning", help="the nodes' (their logs are in the folder printed)")
    options = parser.parse_args()
    asyncio.run(main(options.kills, options.lease_seconds, options.tables, options.log_level))
