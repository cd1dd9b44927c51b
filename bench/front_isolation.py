"""Isolation: does a TCP table stay fast while SSH sessions watch a busy table?

Starts ``ono99 serve`` with ``--ssh-workers W`` (the fronts, at nice 10) on 127.0.0.1 and:

  load       a separate process (this script with --load, at nice 10 like the fronts, so the load
             generator does not take the game server's share either): two TCP players play a
             private table, one move every --move-interval seconds, and N asyncssh clients with
             a PTY watch it (user name watch-CODE), reading everything their terminals receive;
  measured   in this process: four TCP clients play a table at full speed (each acts as soon as
             a state says it may); the act→state round trip of every act (from sending it to
             the state that shows it on the same connection), p50/p99/max, over --seconds.

CPU is read per process from /proc/PID/stat (user+system): the game server (the ``ono99 serve``
process) and the fronts (its worker children), over the measured span.

Run: python bench/front_isolation.py --watchers 0 30 100 --workers 1 2 [--seconds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from measuring import HOST, children, free_port, log_in_all, measured, percentile, rss, start_serve, stop_serve

from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import Act, CreateTable, Join, Rematch, Start
from ono99_tui.client.connection import Client

TIMEOUT = 120.0


def start_server(workdir: Path, workers: int, sessions: int) -> tuple[subprocess.Popen[bytes], int, int]:
    ssh_port = free_port()
    proc, banner = start_serve(
        workdir, "--host", HOST, "--port", str(free_port()), "--db", str(workdir / "bench.db"), "--ssh-port",
        str(ssh_port), "--ssh-workers", str(workers), "--bot-delay", "0", "--turn-seconds", "0", "--max-per-address",
        "10000", "--max-connections", "10000", "--max-waiting-per-address", "256", "--messages-per-second", "10000",
        "--ssh-max-sessions", str(sessions + 10), "--ssh-max-per-address", str(sessions + 10),
        "--ssh-idle-timeout", "3600", "--log-level", "warning", "--no-advertise")
    tcp = re.search(r"listening on [\d.]+:(\d+)", banner)
    assert tcp, banner
    return proc, int(tcp.group(1)), ssh_port


# --- the load: a busy table and its SSH watchers (a process of its own) ---------------------------------
async def watcher(port: int, username: str, key: asyncssh.SSHKey, counts: list[int],
                  address: str) -> asyncssh.SSHClientConnection:
    conn = await asyncssh.connect(HOST, port, username=username, client_keys=[key], known_hosts=None,
                                  agent_path=None, config=[], local_addr=(address, 0))
    _, stdout, _ = await conn.open_session(term_type="xterm-256color", term_size=(100, 30), encoding=None)
    index = len(counts)
    counts.append(0)

    async def read() -> None:
        with contextlib.suppress(Exception):
            while data := await stdout.read(65536):
                counts[index] += len(data)

    asyncio.get_running_loop().create_task(read())
    return conn


async def play_slowly(players: list[Client], interval: float, rng: random.Random) -> None:
    """Two TCP players: one move every ``interval`` seconds; a finished game is followed by a rematch."""
    views: dict[int, dict[str, Any]] = {}

    async def read(seat: int, client: Client) -> None:
        while True:
            message = await client.recv(TIMEOUT)
            if message.get("t") == "state":
                views[seat] = message["view"]
            elif message.get("t") == "table" and message["table"]["status"] == "finished" and seat == 0:
                await client.send(Rematch())

    tasks = [asyncio.create_task(read(s, c)) for s, c in enumerate(players)]
    try:
        while True:
            await asyncio.sleep(interval)
            for seat, view in list(views.items()):
                if view["winner"] is None and view["legal"] and (view["turn"] == seat or "draw" in view["legal"]):
                    await players[seat].send(Act(action=rng.choice(view["legal"]), version=view["version"]))
                    break
    finally:
        for task in tasks:
            task.cancel()


async def load(tcp_port: int, ssh_port: int, watchers: int, interval: float) -> None:
    host = await Client.connect(HOST, tcp_port, "busy-host")
    guest = await Client.connect(HOST, tcp_port, "busy-guest")
    await host.send(CreateTable(name="busy", seats=2, private=True, turn_seconds=0))
    code = (await host.expect("table"))["table"]["code"]
    await guest.send(Join(code=code))
    await guest.expect("table")
    counts: list[int] = []
    conns = []
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(watchers)]
    for i, key in enumerate(keys):  # each key owns a name, which watch-CODE then enters under
        named = await Client.connect(HOST, tcp_port, f"w{i}", identity=Identity(key))
        await named.close()
    conns += await log_in_all(watchers, lambda i, address: watcher(ssh_port, f"watch-{code}", keys[i], counts,
                                                                    address))
    await host.send(Start())
    print("ready", flush=True)
    await play_slowly([host, guest], interval, random.Random(1))


# --- the measured table --------------------------------------------------------------------------------
async def measure(tcp_port: int, seconds: float) -> list[float]:
    clients = [await Client.connect(HOST, tcp_port, f"fast{i}") for i in range(4)]
    host = clients[0]
    await host.send(CreateTable(name="fast", seats=4, turn_seconds=0))
    table_id = (await host.expect("table"))["table"]["id"]
    for client in clients[1:]:
        await client.send(Join(table=table_id))
        await client.expect("table", where=lambda m: m["table"]["you"] is not None)
    rtts: list[float] = []
    end = time.monotonic() + seconds
    rng = random.Random(7)
    sent: dict[int, tuple[int, float]] = {}  # seat -> (version acted on, when)

    async def play(seat: int, client: Client) -> None:
        while time.monotonic() < end:
            message = await client.recv(TIMEOUT)
            kind = message.get("t")
            if kind == "table" and message["table"]["status"] == "finished" and seat == 0:
                await client.send(Rematch())
            if kind != "state":
                continue
            view = message["view"]
            if seat in sent and view["version"] > sent[seat][0]:
                rtts.append((time.perf_counter() - sent.pop(seat)[1]) * 1000)
            if view["winner"] is None and view["legal"] and (view["turn"] == seat or "draw" in view["legal"]) \
                    and seat not in sent:
                sent[seat] = (view["version"], time.perf_counter())
                await client.send(Act(action=rng.choice(view["legal"]), version=view["version"]))

    await host.send(Start())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(play(s, c) for s, c in enumerate(clients))), seconds + 5)
    for client in clients:
        await client.close()
    return rtts


async def run(workers: int, watchers: int, seconds: float, interval: float) -> None:
    with tempfile.TemporaryDirectory(prefix="ono99-isolation-") as tmp:
        proc, tcp_port, ssh_port = start_server(Path(tmp), workers, watchers)
        loader = None
        try:
            if watchers:
                loader = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--load", str(tcp_port), str(ssh_port), str(watchers), str(interval),
                    stdout=asyncio.subprocess.PIPE, preexec_fn=lambda: os.nice(10))
                assert loader.stdout is not None
                line = await asyncio.wait_for(loader.stdout.readline(), 300)
                assert line.strip() == b"ready", line
                await asyncio.sleep(3)  # the watchers' first screens and notices settle a little
            fronts = children(proc.pid)
            rtts, span = await measured(proc.pid, measure(tcp_port, seconds))
            game, front = span.percent(span.game_cpu), span.percent(span.fronts_cpu)
            front_rss = sum(rss(p) for p in fronts) / 2**20
            load_avg = os.getloadavg()[0]
            print(f"| {workers} | {watchers} | {len(rtts)} | {statistics.median(rtts):.1f} ms | "
                  f"{percentile(rtts, 0.99):.1f} ms | {max(rtts):.0f} ms | {game:.0f}% | {front:.0f}% | "
                  f"{rss(proc.pid) / 2**20:.0f} MiB | {front_rss:.0f} MiB | {load_avg:.1f} |", flush=True)
        finally:
            if loader is not None:
                with contextlib.suppress(ProcessLookupError):
                    loader.terminate()
                await loader.wait()
            stop_serve(proc)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, nargs="+", default=[0, 30, 100])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=15.0, help="how long the fast table is measured")
    parser.add_argument("--move-interval", type=float, default=0.25, help="seconds between the busy table's moves")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average at the start {os.getloadavg()[0]:.1f}")
    print("| workers | SSH watchers | acts | act→state p50 | p99 | max | game server CPU | fronts CPU "
          "| game server RSS | fronts RSS | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for workers in args.workers:
        for watchers in args.watchers:
            await run(workers, watchers, args.seconds, args.move_interval)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        tcp, ssh, count, every = sys.argv[2:6]
        asyncio.run(load(int(tcp), int(ssh), int(count), float(every)))
    else:
        asyncio.run(main())
