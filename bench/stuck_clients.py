"""What the server holds for clients that never read, and how soon it lets them go.

An in-process server on 127.0.0.1: one player and three bots play game after game (bot delay 0)
while N spectators connect, say hello, start watching, and then never read again (their own
receive buffers made small, as a far-away or stalled client's would be). Every few milliseconds,
for each stuck spectator, the bench samples what the server holds for it:

  user space   bytes in its send queue plus the transport's buffer (``Connection.held_bytes``)
  kernel       bytes in the socket's send queue (TIOCOUTQ)

and reports the peak per client, the peak of the sum over all of them, the server process's RSS
growth, and for each client the time from the moment it was sampled full (kernel buffer full,
data waiting) to its drop. ``--unbounded`` runs the same with the kernel's send buffer left to
grow on its own (the behaviour before the per-client bound), for comparison.

  python bench/stuck_clients.py --clients 50
  python bench/stuck_clients.py --clients 50 --unbounded

Bounded: the run ends when every stuck client is dropped, or after --seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import logging
import random
import socket
import statistics
import sys
import termios
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ono99_kernel.protocol import PROTOCOL_VERSION, encode
from ono99_kernel.wire.requests import Act, CreateTable, Rematch, Start
from ono99_server import Server, ServerConfig
from ono99_server.connection import Connection, buffered
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ConnectionLost
from tests.server_helpers import tls_socket_that_never_reads


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def outq(sock: socket.socket) -> int:
    return int.from_bytes(fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"), "little", signed=True)


async def player(host: Client, stop: asyncio.Event) -> None:
    """The table's one human: plays its first legal card at once, rematches after each game."""
    rng = random.Random(1)
    with contextlib.suppress(ConnectionLost):
        await _play(host, stop, rng)


async def _play(host: Client, stop: asyncio.Event, rng: random.Random) -> None:
    while not stop.is_set():
        message = await host.recv(60)
        if message["t"] == "table" and message["table"]["status"] == "finished":
            await host.send(Rematch())
        if message["t"] != "state":
            continue
        view = message["view"]
        if view["legal"] and view["winner"] is None and (view["turn"] == view["seat"] or "draw" in view["legal"]):
            await host.send(Act(action=rng.choice(view["legal"]), version=view["version"]))


async def run(clients: int, seconds: float, unbounded: bool) -> dict[str, Any]:
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0,
                          max_connections_per_address=clients + 10, max_waiting_hellos_per_address=clients + 10,
                          messages_per_second=1e6, message_burst=10**6,
                          socket_send_buffer=0 if unbounded else ServerConfig().socket_send_buffer)
    server = Server(config)
    await server.start()
    loop = asyncio.get_running_loop()
    rss_before = rss_kib()
    host = await Client.connect("127.0.0.1", server.port, "host")
    await host.send(CreateTable(seats=4, bots=3, turn_seconds=0))
    table_id = (await host.expect("table"))["table"]["id"]
    sockets = []
    for i in range(clients):
        sock = await loop.run_in_executor(None, tls_socket_that_never_reads, server.port,
                                          encode({"t": "hello", "version": PROTOCOL_VERSION, "name": f"stuck{i}"})
                                          + encode({"t": "spectate", "table": table_id}))
        sockets.append(sock)
    table = server.lobby.tables[table_id]
    while len(table.spectators) < clients:
        await asyncio.sleep(0.01)
    watched: dict[Connection, socket.socket] = {}
    for member in list(table.spectators):
        connection = member.connection
        assert isinstance(connection, Connection)
        watched[connection] = connection.writer.get_extra_info("socket")
    peak_user = dict.fromkeys(watched, 0)
    peak_kernel = dict.fromkeys(watched, 0)
    full_since: dict[Connection, float] = {}
    dropped_after: dict[Connection, float] = {}
    peak_total = 0
    stop = asyncio.Event()
    playing = asyncio.create_task(player(host, stop))
    await host.send(Start())
    began = time.monotonic()
    peak_rss = rss_kib()
    while time.monotonic() - began < seconds and len(dropped_after) < len(watched):
        total = 0
        now = time.monotonic()
        for connection, raw in watched.items():
            if connection in dropped_after:
                continue
            if connection.writer.transport.is_closing() or connection not in server.connections:
                dropped_after[connection] = now - full_since.get(connection, now)
                continue
            user = connection.held_bytes()
            kernel = outq(raw)
            if buffered(connection.writer.transport) > 0:
                full_since.setdefault(connection, now)
            peak_user[connection] = max(peak_user[connection], user)
            peak_kernel[connection] = max(peak_kernel[connection], kernel)
            total += user + kernel
        peak_total = max(peak_total, total)
        peak_rss = max(peak_rss, rss_kib())
        await asyncio.sleep(0.005)
    elapsed = time.monotonic() - began
    stop.set()
    playing.cancel()
    await host.close()
    for sock in sockets:
        sock.close()
    await server.close()
    per_client = [peak_user[c] + peak_kernel[c] for c in watched]
    return {
        "clients": clients, "unbounded": unbounded, "seconds": round(elapsed, 1),
        "dropped": len(dropped_after),
        "peak_user_kib_max": round(max(peak_user.values()) / 1024, 1),
        "peak_kernel_kib_max": round(max(peak_kernel.values()) / 1024, 1),
        "peak_per_client_kib_median": round(statistics.median(per_client) / 1024, 1),
        "peak_per_client_kib_max": round(max(per_client) / 1024, 1),
        "peak_all_clients_kib": round(peak_total / 1024, 1),
        "rss_growth_kib": peak_rss - rss_before,
        "drop_after_full_s": (round(min(dropped_after.values()), 1), round(max(dropped_after.values()), 1))
        if dropped_after else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="stuck spectators (default 50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="longest run (default 60)")
    parser.add_argument("--unbounded", action="store_true", help="leave the kernel's send buffer to grow")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # each drop logs a warning: 50 lines say nothing here
    print(asyncio.run(run(args.clients, args.seconds, args.unbounded)))


if __name__ == "__main__":
    main()
