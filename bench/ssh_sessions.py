"""The SSH front under load: N asyncssh clients with a PTY against a real ``ono99 serve`` on 127.0.0.1.

Each measurement starts its own server process (fresh database and host key in a temporary
directory, bots and turn clocks off, SSH limits raised for one address); the clients share this
process. Per N of --sessions (default 1 10 50 100):

  first screen   N clients connect at the same moment (from loopback addresses, a few from each,
                 and at most 60 logging in at a time: the front lets only so many logins wait,
                 from one address and in all); each is timed from opening its TCP
                 connection to the lobby's first line on its terminal ("you are NAME"): key
                 exchange, public-key login, the session, the app's start and first draw of the
                 lobby. Median, p90 and max.
                 Server CPU (user+system, /proc) per session, from before the first connection
                 until the output has been quiet for 1 s: the handshake, login and the app's start.
  memory         the server's resident memory (VmRSS) with the N sessions in the lobby, and per
                 session above the idle server.
  fan-out        the N sessions watch one table (user name watch-CODE) where two TCP players play;
                 each of --moves moves is one table update that every session redraws. Server CPU
                 (user+system, /proc) from the move until every session has received its redraw
                 and the output has been quiet for 0.3 s, less the idle CPU of the same span
                 (measured over 3 s once the sessions' arrival notices have expired); the time
                 until the last session received output; the server's resident memory with the N
                 sessions at the table.

Run: python bench/ssh_sessions.py [--sessions 1 10 50 100] [--moves 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from measuring import (
    HOST,
    ROOT,
    TIMEOUT,
    Serving,
    free_port,
    log_in_all,
    machine,
    percentile,
    quiet,
    table_updates,
    watched_game,
)

from ono99_kernel.ssh_library import asyncssh


class ServerProcess(Serving):
    def __init__(self, workdir: Path, max_sessions: int, workers: int = 1) -> None:
        self.workdir = workdir
        self.max_sessions = max_sessions
        self.workers = workers
        self.tcp_port = 0
        self.ssh_port = 0

    def start(self) -> None:
        ssh_port = free_port()
        cmd = [sys.executable, "-m", "ono99_tui.cli", "serve", "--host", HOST, "--port", str(free_port()),
               "--db", str(self.workdir / "bench.db"), "--ssh-port", str(ssh_port), "--web-port", "0",
               "--bot-delay", "0", "--turn-seconds", "0", "--max-per-address", "10000", "--max-connections", "10000",
               "--ssh-max-sessions", str(self.max_sessions), "--ssh-max-per-address", str(self.max_sessions),
               "--ssh-idle-timeout", "3600", "--log-level", "warning", "--ssh-workers", str(self.workers),
               "--no-advertise"]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=(self.workdir / "server.log").open("wb"))
        assert self.proc.stdout is not None
        banner = ""
        deadline = time.monotonic() + TIMEOUT
        while "stop with" not in banner and time.monotonic() < deadline:
            line = self.proc.stdout.readline().decode()
            if not line:
                raise RuntimeError(f"the server exited; see {self.workdir / 'server.log'}")
            banner += line
        tcp = re.search(r"listening on [\d.]+:(\d+)", banner)
        ssh = re.search(r"ssh: port (\d+)", banner)
        assert tcp and ssh, banner
        self.tcp_port, self.ssh_port = int(tcp.group(1)), int(ssh.group(1))


class Session:
    """One SSH client with a PTY, counting what its terminal receives."""

    def __init__(self, username: str, key: asyncssh.SSHKey) -> None:
        self.username = username
        self.key = key
        self.conn: asyncssh.SSHClientConnection | None = None
        self.output = bytearray()
        self.received = 0
        self.last_output = 0.0
        self.changed = asyncio.Event()
        self.first_screen = 0.0
        self._reader: asyncio.Task[None] | None = None

    async def open(self, port: int, marker: bytes, address: str) -> None:
        started = time.perf_counter()
        self.conn = await asyncssh.connect(HOST, port, username=self.username, client_keys=[self.key],
                                           known_hosts=None, agent_path=None, config=[], local_addr=(address, 0))
        _, stdout, _ = await self.conn.open_session(term_type="xterm-256color", term_size=(100, 30), encoding=None)
        self._reader = asyncio.create_task(self._read(stdout))
        while marker not in self.output:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), TIMEOUT)
        self.first_screen = time.perf_counter() - started
        self.output.clear()  # from here on only the counters matter

    async def _read(self, stdout: Any) -> None:
        with contextlib.suppress(Exception):
            while data := await stdout.read(65536):
                if len(self.output) < 1_000_000:
                    self.output += data
                self.received += len(data)
                self.last_output = time.perf_counter()
                self.changed.set()

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.wait_closed(), TIMEOUT)
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, TIMEOUT)


async def first_screens(server: ServerProcess, count: int, keys: list[asyncssh.SSHKey]) -> dict[str, float]:
    idle = server.rss()
    sessions = [Session(f"p{i}", keys[i]) for i in range(count)]
    cpu = server.cpu()
    await log_in_all(count, lambda i, address: sessions[i].open(server.ssh_port, b"you are", address))
    await quiet(list(sessions))
    cpu = server.cpu() - cpu
    rss = server.rss()
    times = [s.first_screen * 1000 for s in sessions]
    await asyncio.gather(*(s.close() for s in sessions))
    return {"median_ms": statistics.median(times), "p90_ms": percentile(times, 0.9), "max_ms": max(times),
            "rss": rss, "per_session": (rss - idle) / count, "cpu_ms": cpu * 1000 / count}


async def fan_out(server: ServerProcess, count: int, keys: list[asyncssh.SSHKey], moves: int) -> dict[str, float]:
    named = [Session(f"w{i}", keys[i]) for i in range(count)]  # each key enters once under a name,
    await log_in_all(count, lambda i, address: named[i].open(server.ssh_port, b"you are", address))
    await asyncio.gather(*(s.close() for s in named))  # which watch-CODE then uses
    async with watched_game(server.tcp_port) as (players, code):
        sessions = [Session(f"watch-{code}", keys[i]) for i in range(count)]
        try:
            await log_in_all(count, lambda i, address: sessions[i].open(server.ssh_port, b"spectating", address))
            return await table_updates(server, list(sessions), players, moves)
        finally:
            await asyncio.gather(*(s.close() for s in sessions))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 50, 100])
    parser.add_argument("--moves", type=int, default=10, help="table updates measured per fan-out run")
    parser.add_argument("--ssh-workers", type=int, default=1, help="front processes of the server (default 1)")
    parser.add_argument("--fan-out-only", action="store_true", help="only the watching table")
    args = parser.parse_args()
    biggest = max(args.sessions)
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(biggest)]
    print(machine())
    print()
    print("| sessions at once | lobby drawn: median | p90 | max | server CPU per session start "
          "| server RSS with them | RSS per session |")
    print("|---|---|---|---|---|---|---|")
    for count in [] if args.fan_out_only else args.sessions:
        with fresh_server(biggest, args.ssh_workers) as server:
            r = await first_screens(server, count, keys)
            print(f"| {count} | {r['median_ms']:.0f} ms | {r['p90_ms']:.0f} ms "
                  f"| {r['max_ms']:.0f} ms | {r['cpu_ms']:.0f} ms | {r['rss'] / 2**20:.1f} MiB "
                  f"| {r['per_session'] / 2**20:.2f} MiB |",
                  flush=True)
    print()
    print("| sessions watching | CPU per table update (fronts and game) | per session | of which the game server "
          "| last redraw received | idle CPU | RSS with them (fronts and game) |")
    print("|---|---|---|---|---|---|---|")
    for count in args.sessions:
        with fresh_server(biggest, args.ssh_workers) as server:
            f = await fan_out(server, count, keys, args.moves)
            print(f"| {count} | {f['cpu_ms']:.0f} ms | {f['cpu_ms_per_session']:.1f} ms | {f['game_ms']:.1f} ms "
                  f"| {f['last_ms']:.0f} ms | {f['idle_cpu_pct']:.1f}% | {f['rss'] / 2**20:.1f} MiB |", flush=True)


@contextlib.contextmanager
def fresh_server(sessions: int, workers: int = 1) -> Iterator[ServerProcess]:
    with tempfile.TemporaryDirectory(prefix="ono99-ssh-bench-") as tmp:
        server = ServerProcess(Path(tmp), sessions + 10, workers)
        server.start()
        try:
            time.sleep(1.0)
            yield server
        finally:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
