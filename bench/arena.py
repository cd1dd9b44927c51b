"""An arena under load: time from a game's end to its players' next seating (docs/performance.md,
"Arenas"), on one server or (``--cluster``) on three nodes, one of them killed mid-arena.

One in-process server (SQLite file, TLS on 127.0.0.1, bots at delay 0, no turn clock) runs a public
arena of ``--seats``-seat tables; ``--players`` simulated players (tests/arena_players.py: protocol
clients written from docs/protocol.md section 6b, each acting at once with a random legal action,
all in this same process) join it and play for ``--seconds``, then the arena's clock is moved past
its end and every game still running finishes. Measured per player and game: from the final state
of its game reaching the client to the ``arena_game`` that seats it again (p50, p99, max), with the
games counted and the checks of the test (nobody seated again before their game ended, every game a
player finished counted once). Bots fill a table after ``--bot-wait`` seconds (the server's default
is 20; a short wait keeps the leftovers moving).

With ``--cluster``: three ``ono99 serve --cluster`` processes on a PostgreSQL cluster and a
``redis-server`` started here (tests/postgres.py, tests/redis_server.py); a player opens a private
arena and the simulated players join it by its code, a third at each node; halfway through, the node
that pairs the arena is killed (SIGKILL), and its players connect again to the others (with their
resume tokens, as the app does). At ``--seconds`` the arena's end is moved to now in its row. Checked
from the database after the end (tests/arena_players.py, ``check_arena_in_database``): every game
recorded at an arena table counted exactly once, every game a player saw end among them, the
standings equal to a recount of the saved results (rankings replayed from the records), nobody seated
again before their game's end reached them, the podium the first three.

    python bench/arena.py [--players 200] [--seconds 60] [--seats 4] [--bot-wait 2] [--cluster]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from measuring import cluster_parts, machine, percentile

from ono99_kernel.wire.requests import CreateArena
from tests.arena_players import ArenaLog, arena_player, check_arena_in_database, end_now, pairing_node, reconnecting
from tests.server_helpers import FAST_PLAY, ServerProcess, TestClient, new_identity, running_server

LEASE = 5.0  # the nodes' --lease-seconds (the default)


async def run(players: int, seconds: float, seats: int, bot_wait: float) -> None:
    operator = new_identity()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        admins = tmp / "admins"
        admins.write_text(" ".join(operator.public_key.split()[:2]) + " op\n")
        async with running_server(tmp, admins=admins, arena_bot_wait=bot_wait, arena_starts_in=0.0,
                                  max_connections_per_address=players + 10, max_waiting_hellos_per_address=64,
                                  **FAST_PLAY) as h:
            arenas = h.server.lobby.arenas
            offset = 0.0
            arenas.clock = lambda: time.time() + offset
            op = await h.connect("Op", identity=operator)
            opened = await op.request(CreateArena(minutes=60, seats=seats), "arena")
            clients: list[TestClient] = [await h.connect(f"p{i}") for i in range(players)]
            began = time.perf_counter()
            tasks = [asyncio.create_task(arena_player(c, f"p{i}", random.Random(i), arena=opened["arena"]["id"],
                                                      timeout=120))
                     for i, c in enumerate(clients)]
            await asyncio.sleep(seconds)
            arena = arenas.arenas[opened["arena"]["id"]]
            offset = arena.end - time.time() + 1
            logs: list[ArenaLog] = await asyncio.gather(*tasks)
            took = time.perf_counter() - began
    finished = sum(len(log.finished) for log in logs)
    assert all(log.overlaps == 0 for log in logs), "a player seated again before their game ended"
    assert sum(p.games for p in arena.players.values()) == finished, "a finished game not counted once"
    report(logs, f"{players} players, {seats} seats, bot wait {bot_wait:g} s, {took:.0f} s: {len(arena.counted)} "
           f"games counted, {finished} player-games")


async def run_cluster(players: int, seconds: float, seats: int, bot_wait: float) -> None:
    with cluster_parts() as (pg, bus):
        assert bus is not None
        database = pg.new_database()
        folder = Path(tempfile.mkdtemp(prefix="ono99-arena-"))
        args = ("--grace", "600", "--bot-delay", "0", "--turn-seconds", "0", "--messages-per-second", "10000",
                "--lease-seconds", f"{LEASE:g}", "--cluster", bus.url, "--arena-starts-in", "0",
                "--arena-bot-wait", f"{bot_wait:g}", "--max-per-address", str(players + 50),
                "--max-waiting-per-address", "64", "--tls-cert", str(folder / "cert.pem"),
                "--tls-key", str(folder / "key.pem"))
        print(f"logs in {folder}", flush=True)
        nodes = [ServerProcess(database, folder / f"n{i}.log", *args, "--node-id", f"n{i}") for i in range(3)]
        clients: list[TestClient] = []
        try:
            for node in nodes:
                await node.start()
            for i in range(players):
                clients.append(await TestClient.connect("127.0.0.1", nodes[i % 3].port, f"p{i}", timeout=30))
            minutes = max(5, int(seconds // 60) + 2)  # ended by the bench at --seconds
            opened = await clients[0].request(CreateArena(minutes=minutes, seats=seats, private=True), "arena")
            arena_id = opened["arena"]["id"]
            reconnect = reconnecting([node.port for node in nodes], clients, 12 * LEASE)
            began = time.perf_counter()
            tasks = [asyncio.create_task(arena_player(c, f"p{i}", random.Random(i), code=opened["code"], timeout=120,
                                                      reconnect=reconnect))
                     for i, c in enumerate(list(clients))]
            await asyncio.sleep(seconds / 2)
            victim = pairing_node(database, arena_id)
            assert victim is not None, "nobody pairs the arena"
            await nodes[int(victim[1:])].kill9()
            print(f"killed {victim}, the pairing node, at {time.perf_counter() - began:.0f} s", flush=True)
            await asyncio.sleep(seconds / 2)
            after = pairing_node(database, arena_id)
            end_now(database, arena_id)
            results = await asyncio.gather(*tasks, return_exceptions=True)
            took = time.perf_counter() - began
            failed = [r for r in results if isinstance(r, BaseException)]
            for error in failed:  # a player that never saw the end: said, and left out of the checks
                print(f"failed: {error!r:.1500}", flush=True)
            logs = [r for r in results if isinstance(r, ArenaLog)]
        finally:
            for client in clients:
                await client.close()
            for node in nodes:
                await node.stop()
        moved = sum(log.reconnections for log in logs)
        report(logs, f"3 nodes, {victim} killed halfway (pairing then by {after}), {players} players, {seats} seats, "
               f"bot wait {bot_wait:g} s, {took:.0f} s: {sum(len(log.finished) for log in logs)} player-games, "
               f"{moved} reconnections, players who did not see the end: {len(failed)}")
        checked = check_arena_in_database(database, arena_id, logs)  # said after the times: they stand anyway
    print(f"checked from the database: {checked.games} games counted once, standings equal a recount: "
          f"{checked.recount_equal}, nobody in two games at once")


def report(logs: list[ArenaLog], what: str) -> None:
    gaps = sorted(g for log in logs for g in log.gaps)
    print(f"machine: {machine()}; load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"{what}; end to next seating over {len(gaps)} seatings: p50 {percentile(gaps, 0.5) * 1000:.0f} ms, "
          f"p99 {percentile(gaps, 0.99) * 1000:.0f} ms, max {gaps[-1] * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bot-wait", type=float, default=2.0)
    parser.add_argument("--cluster", action="store_true", help="three nodes, the pairing one killed halfway")
    args = parser.parse_args()
    asyncio.run((run_cluster if args.cluster else run)(args.players, args.seconds, args.seats, args.bot_wait))


if __name__ == "__main__":
    main()
