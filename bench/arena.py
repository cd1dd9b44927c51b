"""An arena under load: time from a game's end to its players' next seating (docs/performance.md,
"Arenas").

One in-process server (SQLite file, TLS on 127.0.0.1, bots at delay 0, no turn clock) runs a public
arena of ``--seats``-seat tables; ``--players`` simulated players (tests/arena_players.py: protocol
clients written from docs/protocol.md section 6b, each acting at once with a random legal action,
all in this same process) join it and play for ``--seconds``, then the arena's clock is moved past
its end and every game still running finishes. Measured per player and game: from the final state
of its game reaching the client to the ``arena_game`` that seats it again (p50, p99, max), with the
games counted and the checks of the test (nobody seated again before their game ended, every game a
player finished counted once). Bots fill a table after ``--bot-wait`` seconds (the server's default
is 20; a short wait keeps the leftovers moving).

    python bench/arena.py [--players 200] [--seconds 60] [--seats 4] [--bot-wait 2]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from measuring import machine, percentile

from ono99_kernel.wire.requests import CreateArena
from tests.arena_players import ArenaLog, arena_player
from tests.server_helpers import FAST_PLAY, TestClient, new_identity, running_server


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
    gaps = sorted(g for log in logs for g in log.gaps)
    finished = sum(len(log.finished) for log in logs)
    assert all(log.overlaps == 0 for log in logs), "a player seated again before their game ended"
    assert sum(p.games for p in arena.players.values()) == finished, "a finished game not counted once"
    print(f"machine: {machine()}")
    print(f"{players} players, {seats} seats, bot wait {bot_wait:g} s, {took:.0f} s: {len(arena.counted)} games "
          f"counted, {finished} player-games; end to next seating over {len(gaps)} seatings: "
          f"p50 {percentile(gaps, 0.5) * 1000:.0f} ms, p99 {percentile(gaps, 0.99) * 1000:.0f} ms, "
          f"max {gaps[-1] * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bot-wait", type=float, default=2.0)
    args = parser.parse_args()
    asyncio.run(run(args.players, args.seconds, args.seats, args.bot_wait))


if __name__ == "__main__":
    main()
