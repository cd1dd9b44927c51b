"""What the benchmarks of the fronts share: an ``ono99 serve`` process with its front workers, the
CPU and memory they use (read from /proc), the measuring of a span of work and of the table updates
that sessions watching a table redraw, and SSH logins spread so that they stay within the front's
limits on logins waiting.

Also the parts several game nodes share, started as the test suite starts them: a PostgreSQL
cluster and a ``redis-server`` (tests/postgres.py, tests/redis_server.py).

Used by bench/front_isolation.py, bench/ssh_human_pace.py, bench/ssh_sessions.py,
bench/web_sessions.py, bench/takeover.py and bench/server_load.py (run as scripts: this directory is
on their import path).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import Act, CreateTable, Join, Start
from ono99_tui.client.connection import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the test suite's helpers, below

from tests.postgres import Cluster, start_cluster
from tests.redis_server import RedisServer, start_redis

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# The front lets a few logins from one address wait at once, and a few dozen in all: the benchmarks'
# clients log in from several loopback addresses (127.0.0.0/8 is all this machine), a few from each,
# and no more at a time than a front starts at once.
LOGINS_PER_ADDRESS = SshSettings().max_waiting_logins_per_address - 1
LOGINS_AT_ONCE = min(SshSettings().max_waiting_logins - 4, SshSettings().max_starting_logins)

QUIET = 0.3  # seconds without output after which a redraw counts as done
NOTICE_SECONDS = 22.0  # a little over the 20 s an invite-code notice stays on screen
TIMEOUT = 120.0

T = TypeVar("T")


def machine() -> str:
    cpu = "cpu"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as info:
        cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}, {platform.system()}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def children(pid: int) -> list[int]:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]
    return []


def cpu_seconds(pid: int) -> float:
    """The CPU time (user+system) a process has used, or 0 when it is gone."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
    return 0.0


def tree_cpu_seconds(pid: int) -> float:
    """The CPU time of a process and of its children, theirs and so on (a PostgreSQL server's
    backends are children of its postmaster): what those alive now have used."""
    return cpu_seconds(pid) + sum(tree_cpu_seconds(child) for child in children(pid))


@contextlib.contextmanager
def cluster_parts(redis: bool = True) -> Iterator[tuple[Cluster, RedisServer | None]]:
    """A throwaway PostgreSQL cluster and (unless ``redis`` is false) a ``redis-server``, both on
    this machine, removed at the end: what ``ono99 serve --db postgresql://… --cluster redis://…``
    nodes share. ``Cluster.new_database()`` gives each run a database of its own."""
    pg = start_cluster()
    bus = None
    try:
        bus = start_redis() if redis else None
        yield pg, bus
    finally:
        if bus is not None:
            bus.remove()
        pg.stop()


def rss(pid: int) -> int:
    """A process's resident memory in bytes, or 0 when it is gone."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))
    return 0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def start_serve(workdir: Path, *args: str) -> tuple[subprocess.Popen[bytes], str]:
    """``ono99 serve ARGS`` with its log in ``workdir/server.log``, once its banner is printed:
    the process and the banner. The web front stays off unless ``args`` name its port."""
    web = () if "--web-port" in args else ("--web-port", "0")
    proc = subprocess.Popen([sys.executable, "-m", "ono99_tui.cli", "serve", *args, *web], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=(workdir / "server.log").open("wb"))
    assert proc.stdout is not None
    banner = ""
    while "stop with" not in banner:
        line = proc.stdout.readline().decode()
        if not line:
            raise RuntimeError(f"the server exited; see {workdir / 'server.log'}")
        banner += line
    return proc, banner


def stop_serve(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the server says goodbye and saves), SIGKILL if it takes longer than 30 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@dataclass(frozen=True, slots=True)
class Span:
    """What a measured span of work cost: its wall time, and the CPU seconds of the game server
    and of its SSH front workers."""

    seconds: float
    game_cpu: float
    fronts_cpu: float

    def percent(self, cpu: float) -> float:
        """``cpu`` seconds as a share of one core over the span."""
        return cpu / self.seconds * 100


async def measured(server_pid: int, work: Awaitable[T]) -> tuple[T, Span]:
    """Run ``work`` and measure it: its result, and the span's wall time and the CPU the game server
    (``server_pid``) and its fronts (its children) used meanwhile."""
    fronts = children(server_pid)
    game0, fronts0 = cpu_seconds(server_pid), sum(cpu_seconds(p) for p in fronts)
    started = time.perf_counter()
    result = await work
    span = Span(time.perf_counter() - started, cpu_seconds(server_pid) - game0,
                sum(cpu_seconds(p) for p in fronts) - fronts0)
    return result, span


def login_address(index: int) -> str:
    """The loopback address the ``index``-th client logs in from: a few clients to each."""
    n = index // LOGINS_PER_ADDRESS
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


async def log_in_all(count: int, log_in: Callable[[int, str], Awaitable[T]]) -> list[T]:
    """``log_in(index, local_address)`` for ``count`` clients at once, as far as the front lets
    them wait: each address has a few, and at most LOGINS_AT_ONCE log in at a time. A login the
    front says it is too busy for just now is tried again a second later, as a person would."""
    gate = asyncio.Semaphore(LOGINS_AT_ONCE)

    async def one(index: int) -> T:
        while True:
            async with gate:
                try:
                    return await log_in(index, login_address(index))
                except asyncssh.DisconnectError as exc:
                    if exc.code != asyncssh.DISC_TOO_MANY_CONNECTIONS or "busy" not in exc.reason:
                        raise
            await asyncio.sleep(1.0)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


class Terminal(Protocol):
    """A session's terminal as the benchmarks count it: the bytes it received, and when it last did."""

    received: int
    last_output: float


class Serving:
    """A running ``ono99 serve`` (``proc``, which a benchmark starts) as the benchmarks measure it."""

    proc: subprocess.Popen[bytes] | None = None

    def pids(self) -> list[int]:
        """The game server, then its front workers."""
        assert self.proc is not None
        return [self.proc.pid, *children(self.proc.pid)]

    def cpu(self) -> float:
        """CPU seconds (user+system) of the game server and its fronts."""
        return sum(cpu_seconds(pid) for pid in self.pids())

    def game_cpu(self) -> float:
        """CPU seconds of the game server alone."""
        assert self.proc is not None
        return cpu_seconds(self.proc.pid)

    def rss(self) -> int:
        """Resident memory of the game server and its fronts."""
        return sum(rss(pid) for pid in self.pids())

    def stop(self) -> None:
        if self.proc is not None:
            stop_serve(self.proc)


async def quiet(terminals: list[Terminal], seconds: float = 1.0) -> None:
    """Until no terminal has received output for ``seconds``: the apps have finished drawing."""
    while terminals and time.perf_counter() - max(t.last_output for t in terminals) < seconds:
        await asyncio.sleep(0.05)


async def latest_view(client: Client) -> dict[str, Any]:
    """The newest state the client has, waiting for one if none is queued."""
    message = await client.expect("state", timeout=TIMEOUT)
    while not client.inbox.empty():
        queued = client.inbox.get_nowait()
        if queued is not None and queued.get("t") == "state":
            message = queued
    return dict(message["view"])


@contextlib.asynccontextmanager
async def watched_game(tcp_port: int, tag: str = "") -> AsyncIterator[tuple[dict[int, Client], str]]:
    """Two protocol clients on the game server's port ``tcp_port`` start a game at a private table:
    the players by seat, and the table's invite code for the watchers (``tag``: the run's own names)."""
    host = await Client.connect(HOST, tcp_port, f"{tag}a" if tag else "host")
    guest = await Client.connect(HOST, tcp_port, f"{tag}b" if tag else "guest")
    try:
        await host.send(CreateTable(name=tag or "watched", seats=2, private=True, turn_seconds=0))
        code = (await host.expect("table"))["table"]["code"]
        await guest.send(Join(code=code))
        await guest.expect("table")
        await host.send(Start())
        yield {0: host, 1: guest}, code
    finally:
        await host.close()
        await guest.close()


async def table_updates(server: Serving, terminals: list[Terminal], players: dict[int, Client],
                        moves: int) -> dict[str, float]:
    """``terminals`` watch the game ``players`` (by seat) have started; each of ``moves`` moves is one
    table update they all redraw. Per move (medians): the CPU of the server and its fronts from the
    move until every terminal has received its redraw and gone quiet for QUIET, less the idle CPU of
    the same span (measured over 3 s once the watchers' arrival notices have expired), that of the
    game server alone, and when the last terminal received output; with the resident memory and the
    idle CPU."""
    count = len(terminals)
    await asyncio.sleep(NOTICE_SECONDS)  # the "Watching the table..." notices expire: each is a redraw
    await quiet(terminals)
    memory = server.rss()
    idle_started, idle_cpu = time.perf_counter(), server.cpu()
    await asyncio.sleep(3.0)
    idle_rate = (server.cpu() - idle_cpu) / (time.perf_counter() - idle_started)
    views = {seat: await latest_view(client) for seat, client in players.items()}
    cpu_ms: list[float] = []
    game_ms: list[float] = []
    last_ms: list[float] = []
    for _ in range(moves):
        turn = views[0]["turn"]
        view = views[turn]
        if view["winner"] is not None:
            break
        counts = [t.received for t in terminals]
        started, cpu, game = time.perf_counter(), server.cpu(), server.game_cpu()
        action = next(a for a in view["legal"] if a != "draw") if view["legal"] else "draw"
        await players[turn].send(Act(action=action, version=view["version"]))
        while any(t.received == c for t, c in zip(terminals, counts, strict=True)):
            await asyncio.sleep(0.005)
        last = max(t.last_output for t in terminals) - started
        await quiet(terminals, QUIET)
        elapsed = time.perf_counter() - started
        cpu_ms.append((server.cpu() - cpu - idle_rate * elapsed) * 1000)
        game_ms.append((server.game_cpu() - game) * 1000)
        last_ms.append(last * 1000)
        views = {seat: await latest_view(client) for seat, client in players.items()}
    return {"cpu_ms": statistics.median(cpu_ms), "cpu_ms_per_session": statistics.median(cpu_ms) / count,
            "last_ms": statistics.median(last_ms), "idle_cpu_pct": idle_rate * 100, "rss": memory,
            "game_ms": statistics.median(game_ms), "moves": len(cpu_ms)}
