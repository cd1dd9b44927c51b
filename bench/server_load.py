"""Load on a real ONO 99 server: N protocol clients, four humans to a table, on 127.0.0.1.

Each run starts ``python -m ono99_tui.cli serve`` in its own process (fresh database, bots and turn
clocks off, no SSH front, connection and message limits raised for one address), seats N clients at
N/4 tables from one or more client processes, starts every game at the same moment and plays for
``--seconds``. Then the server is stopped with SIGTERM (its graceful shutdown) and the run reported.
Tables are private and joined by invite code unless --public-tables (joined by id; everyone still in
the lobby then gets the table list on every change, which slows the setup of large runs).

Modes:
  full    every client acts as soon as its view lets it (its turn, or a draw it owes)
  human   every client waits a random 1 to 3 seconds before each action (and the host before a rematch)
  accept  N clients connect at the same moment (TCP, the TLS handshake, hello, welcome): the time
          until the last is welcomed, each one's time (p50, p99) and the server's CPU meanwhile

``--nodes N …`` and ``--store postgresql`` run the game tier as it scales out: N ``ono99 serve
--db postgresql://… --cluster redis://…`` nodes (``--cluster`` adds Redis to a single node too)
sharing one PostgreSQL cluster and one ``redis-server``, both started here as the test suite starts
them (tests/postgres.py, tests/redis_server.py: fsync off, a Unix socket) and stopped at the end,
with a fresh database for every run. The tables are spread evenly over the nodes: each client
process talks to one node (``--procs`` is raised to a multiple of the number of nodes), and the
four players of a table sit at that node. ``--store sqlite postgresql`` compares the two stores on one node in one
invocation. Server CPU is then the nodes' together, and "store CPU" what PostgreSQL (its
postmaster and backends) and Redis used in the window.

``--baseline DIR`` runs every configuration twice in one invocation, back to back: first the server
of the checkout in DIR (an older version, spoken to as it expects: plain TCP and protocol version 1
before TLS came in), then this tree's (TLS), so the two are compared on the same machine in the same
minutes.

Measured per run, in the measuring window only:
  actions/s   actions the server applied, counted by their resulting ``state`` (server-wide)
  latency     from sending ``act`` to the LAST of the table's four players receiving the ``state``
              that resulted (matched by table, game number and view version); p50, p99 and max.
              All four players of a table live in one client process and stamp receipts with the
              system-wide monotonic clock, so the figure includes the client process's own delays.
  server CPU  user+system time of the server process over the window (100% = one core)
  server RSS  resident memory at the end of the window, and the process's peak (VmHWM)
  client CPU  the same for the client processes, to show whether they held the server back
  other CPU   what every other process on the machine used meanwhile (/proc/stat), since a busy
              machine takes cores from both sides
  errors      error messages the clients received after setup, and connections the server closed
The server's log (stderr) is scanned for warnings, errors and tracebacks after each run.

Runs every combination of --clients and --mode, e.g.

  python bench/server_load.py --clients 100 500 --mode full --seconds 20
  python bench/server_load.py --clients 1000 --mode human --seconds 20
  python bench/server_load.py --clients 1000 --mode full human --store sqlite postgresql
  python bench/server_load.py --clients 1000 3000 --mode full human --nodes 1 2 3 --store postgresql --cluster

Only 127.0.0.1 is used. Every run is bounded: setup, window, drain and shutdown each have a timeout,
and any process still alive at the end is killed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing as mp
import os
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from measuring import cluster_parts, tree_cpu_seconds

from ono99_kernel.protocol import PROTOCOL_VERSION, FrameDecoder, ProtocolError, encode
from ono99_kernel.tls import client_context, lean_read_buffers
from tests.postgres import Cluster
from tests.redis_server import RedisServer

HOST = "127.0.0.1"
SEATS = 4
SETUP_TIMEOUT = 120.0  # seconds for all clients of a run to connect and sit
EXPECT_TIMEOUT = 60.0  # one reply during setup
DRAIN_SECONDS = 2.0  # after the window: wait this long for answers to actions still in flight
SHUTDOWN_TIMEOUT = 30.0
CLK_TCK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parent.parent


# --- /proc ---------------------------------------------------------------------------------------------
def cpu_seconds(pid: int, tid: int | None = None) -> float:
    """User plus system CPU time of a process (all its threads), or of one of its threads, in seconds."""
    with open(f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat") as f:
        text = f.read()
    fields = text[text.rindex(")") + 2:].split()  # the command name may hold spaces
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime: fields 14 and 15 of stat


def memory_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process, in KiB."""
    rss = hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss, hwm


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent on anything but idle and I/O wait since boot (/proc/stat)."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    return (sum(values) - values[3] - values[4]) / CLK_TCK


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem = ""
    with contextlib.suppress(OSError), open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = f", {int(line.split()[1]) / 1024 / 1024:.0f} GiB"
                break
    return (f"{model}, {os.cpu_count()} cores{mem}; Python {platform.python_version()} "
            f"({platform.python_implementation()}), {platform.system()} {platform.release()}")


# --- the client side ---------------------------------------------------------------------------------------
class SetupError(Exception):
    pass


@dataclass
class WorkerStats:
    latencies: list[float] = field(default_factory=list)  # seconds, actions whose result landed in the window
    actions: int = 0  # actions applied in the window (their state reached all four players in it)
    acts_sent: int = 0  # act messages sent in the window
    games_finished: int = 0
    errors: Counter[str] = field(default_factory=Counter)  # error codes received after setup
    lost: int = 0  # connections closed by the server before the end
    byes: Counter[str] = field(default_factory=Counter)


class Player(asyncio.Protocol):
    """One client connection: raw asyncio transport, the protocol's framing, no other machinery."""

    def __init__(self, bench: Bench, table: TableRun, name: str) -> None:
        self.bench = bench
        self.table = table
        self.name = name
        self.transport: asyncio.Transport | None = None
        self.decoder = FrameDecoder()
        self.waiters: list[tuple[str, Any, asyncio.Future[dict[str, Any]]]] = []
        self.seat: int | None = None
        self.closed = False
        self.timer: asyncio.TimerHandle | None = None

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        try:
            for message in self.decoder.feed(data):
                self.on_message(message, now)
        except ProtocolError as exc:
            self.bench.stats.errors[f"client framing: {exc.code}"] += 1
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed and not self.bench.quitting:
            self.bench.stats.lost += 1
        self.closed = True
        for _, _, future in self.waiters:
            if not future.done():
                future.set_exception(SetupError(f"{self.name}: connection closed"))
        self.waiters.clear()

    def send(self, message: dict[str, Any]) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(encode(message))

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    # setup helpers
    def expect(self, kind: str, where: Any = None) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters.append((kind, where, future))
        return future

    # messages
    def on_message(self, message: dict[str, Any], now: float) -> None:
        kind = message.get("t")
        if kind == "state":
            self.on_state(message, now)
        elif kind == "error":
            self.on_error(message)
        elif kind == "bye":
            self.bench.stats.byes[str(message.get("reason"))] += 1
        if self.waiters:
            for waiter in list(self.waiters):
                want, where, future = waiter
                if want == kind and (where is None or where(message)) and not future.done():
                    self.waiters.remove(waiter)
                    future.set_result(message)

    def on_error(self, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        if self.waiters:
            for _, _, future in self.waiters:
                if not future.done():
                    future.set_exception(SetupError(f"{self.name}: error {code}: {message.get('reason')}"))
            self.waiters.clear()
            return
        self.bench.stats.errors[code] += 1
        if message.get("ref") == "act":
            self.table.pending = [p for p in self.table.pending if p[0] is not self]

    def on_state(self, message: dict[str, Any], now: float) -> None:
        view = message["view"]
        table = self.table
        game_no = message["game_no"]
        version = view["version"]
        self.seat = view["seat"]
        table.received(game_no, version, now)
        if self.bench.stopping:
            return
        if view["winner"] is not None:
            if self is table.host:
                self.bench.schedule(self, table.rematch, game_no)
            return
        legal = view["legal"]
        if legal:
            self.bench.schedule(self, self.act, game_no, version, self.bench.rng.choice(legal))

    def act(self, game_no: int, version: int, code: str) -> None:
        self.timer = None
        if self.closed or self.bench.stopping:
            return
        now = time.monotonic()
        self.table.pending.append((self, game_no, version, now))
        if now >= self.bench.go_at:
            self.bench.stats.acts_sent += 1
        self.send({"t": "act", "action": code, "version": version})


class TableRun:
    """Four players at one table, and the bookkeeping that turns their receipts into latencies."""

    def __init__(self, bench: Bench, index: int) -> None:
        self.bench = bench
        self.index = index
        self.players = [Player(bench, self, f"b{bench.proc}t{index}s{s}") for s in range(SEATS)]
        self.host = self.players[0]
        self.id: int | None = None
        self.code = ""
        self.receipts: dict[tuple[int, int], list[Any]] = {}  # (game_no, version) -> [count, last time]
        # Actions sent and not yet seen by all four: (player, game_no, version acted on, send time).
        self.pending: list[tuple[Player, int, int, float]] = []

    def received(self, game_no: int, version: int, now: float) -> None:
        key = (game_no, version)
        entry = self.receipts.get(key)
        if entry is None:
            entry = self.receipts[key] = [0, now]
        entry[0] += 1
        entry[1] = now
        if entry[0] < SEATS:
            return
        del self.receipts[key]
        if not self.pending:
            return
        # The state of version V results from the action sent for the latest version below V
        # (with four humans and no bots or clocks, only one seat can act at a time).
        keep = []
        for item in self.pending:
            _, g, v, sent = item
            if g == game_no and v < version:
                self.bench.result(sent, now)
            elif g >= game_no:
                keep.append(item)
        self.pending = keep

    def rematch(self, game_no: int) -> None:
        self.host.timer = None
        if self.bench.stopping or self.host.closed:
            return
        if self.bench.go_at <= time.monotonic() <= self.bench.end_at:
            self.bench.stats.games_finished += 1
        self.host.send({"t": "rematch"})


class Bench:
    """One client process: its tables, the clock of the run, and its statistics."""

    def __init__(self, proc: int, port: int, first_table: int, tables: int, mode: str, private: bool,
                 plain: bool = False) -> None:
        self.proc = proc
        self.port = port
        self.plain = plain  # an older server: plain TCP, protocol version 1
        self.mode = mode
        self.private = private
        self.rng = random.Random(1000 + proc)
        self.tables = [TableRun(self, first_table + i) for i in range(tables)]
        self.stats = WorkerStats()
        self.go_at = float("inf")
        self.end_at = float("inf")
        self.stopping = False
        self.quitting = False

    def schedule(self, player: Player, fn: Any, *args: Any) -> None:
        if self.mode == "full":
            fn(*args)
        else:
            if player.timer is not None:
                player.timer.cancel()
            player.timer = asyncio.get_running_loop().call_later(self.rng.uniform(1.0, 3.0), fn, *args)

    def result(self, sent: float, last: float) -> None:
        if self.go_at <= last <= self.end_at:
            self.stats.actions += 1
            self.stats.latencies.append(last - sent)

    async def connect(self, player: Player) -> None:
        await open_player(player, self.port, self.plain)

    async def seat_table(self, table: TableRun) -> None:
        await asyncio.gather(*(self.connect(p) for p in table.players))
        host = table.host
        created = host.expect("table", lambda m: m["table"].get("you") == 0)
        host.send({"t": "create_table", "name": f"load {self.proc}.{table.index}", "seats": SEATS,
                   "turn_seconds": 0, "private": self.private})
        detail = (await asyncio.wait_for(created, EXPECT_TIMEOUT))["table"]
        table.id = detail["id"]
        table.code = detail.get("code") or ""
        for player in table.players[1:]:
            seated = player.expect("table", lambda m: m["table"].get("id") == table.id
                                   and m["table"].get("you") is not None)
            player.send({"t": "join", "code": table.code} if self.private else {"t": "join", "table": table.id})
            await asyncio.wait_for(seated, EXPECT_TIMEOUT)

    async def setup(self) -> None:
        gate = asyncio.Semaphore(16)  # tables being seated at once (64 connections): within the listen backlog

        async def one(table: TableRun) -> None:
            async with gate:
                await self.seat_table(table)

        await asyncio.gather(*(one(t) for t in self.tables))

    async def play(self, go_at: float, seconds: float) -> None:
        self.go_at = go_at
        self.end_at = go_at + seconds
        loop = asyncio.get_running_loop()
        await asyncio.sleep(max(0.0, go_at - time.monotonic()))
        for table in self.tables:
            table.host.send({"t": "start"})
        await asyncio.sleep(max(0.0, self.end_at - time.monotonic()))
        self.stopping = True
        for table in self.tables:
            for player in table.players:
                if player.timer is not None:
                    player.timer.cancel()
                    player.timer = None
        drain_until = loop.time() + DRAIN_SECONDS
        while loop.time() < drain_until and any(t.pending for t in self.tables):
            await asyncio.sleep(0.05)

    def close(self) -> None:
        self.quitting = True
        for table in self.tables:
            for player in table.players:
                player.close()


async def open_player(player: Player, port: int, plain: bool) -> None:
    """Connect (TLS unless ``plain``) and say hello; returns once welcomed."""
    lean_read_buffers()  # as the project's own client does
    loop = asyncio.get_running_loop()
    await loop.create_connection(lambda: player, HOST, port, ssl=None if plain else client_context())
    welcome = player.expect("welcome")
    player.send({"t": "hello", "version": 1 if plain else PROTOCOL_VERSION, "name": player.name,
                 "client": "server_load"})
    await asyncio.wait_for(welcome, EXPECT_TIMEOUT)


def worker(proc: int, port: int, first_table: int, tables: int, mode: str, private: bool, seconds: float,
           conn: Any, go: Any, go_at: Any, quit_: Any, plain: bool) -> None:
    """A client process: seat its tables, report ready, play the window, report, wait to quit."""

    async def main() -> None:
        bench = Bench(proc, port, first_table, tables, mode, private, plain)
        started = time.monotonic()
        try:
            await asyncio.wait_for(bench.setup(), SETUP_TIMEOUT)
        except Exception as exc:
            conn.send(("setup_failed", f"{type(exc).__name__}: {exc}"))
            bench.close()
            return
        conn.send(("ready", time.monotonic() - started))
        loop = asyncio.get_running_loop()
        while not go.is_set():
            await asyncio.sleep(0.01)
        await bench.play(go_at.value, seconds)
        stats = bench.stats
        conn.send(("result", {"latencies": stats.latencies, "actions": stats.actions, "acts_sent": stats.acts_sent,
                              "games": stats.games_finished, "errors": dict(stats.errors), "lost": stats.lost,
                              "byes": dict(stats.byes)}))
        until = loop.time() + SHUTDOWN_TIMEOUT + 10
        while not quit_.is_set() and loop.time() < until:
            await asyncio.sleep(0.05)
        bench.close()
        await asyncio.sleep(0.1)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl+C and ends the workers
    asyncio.run(main())
    conn.close()


# --- the parent: one run ------------------------------------------------------------------------------
@dataclass
class RunResult:
    mode: str
    clients: int
    tables: int
    ok: bool
    note: str = ""
    server: str = "this tree"  # or "baseline" (--baseline)
    setup_seconds: float = 0.0
    seconds: float = 0.0
    actions: int = 0
    acts_sent: int = 0
    games: int = 0
    latencies: list[float] = field(default_factory=list)
    server_cpu: float = 0.0
    loop_cpu: float = 0.0  # the server's main thread: the event loop and everything on it
    machine_cpu: float = 0.0  # every process on the machine (100% = one core)
    client_cpu: float = 0.0
    rss_mib: float = 0.0
    hwm_mib: float = 0.0
    load_before: str = ""
    load_after: str = ""
    errors: Counter[str] = field(default_factory=Counter)
    lost: int = 0
    server_log_problems: list[str] = field(default_factory=list)
    shutdown_seconds: float = 0.0
    server_exit: int | None = None
    store_cpu: float = 0.0  # PostgreSQL and Redis, when used (100% = one core)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


@dataclass
class Layout:
    """How the game tier of a run is laid out: how many nodes, on which store, with or without Redis,
    and the PostgreSQL cluster and Redis they share (started once for the whole invocation)."""

    nodes: int = 1
    store: str = "sqlite"
    cluster: bool = False
    pg: Cluster | None = None
    bus: RedisServer | None = None

    def label(self, plain: bool) -> str:
        if plain:
            return "baseline"
        if self.nodes == 1 and self.store == "sqlite" and not self.cluster:
            return "this tree"
        store = "PostgreSQL" if self.store == "postgresql" else "SQLite"
        return f"{self.nodes} node{'s' if self.nodes > 1 else ''}, {store}{' + Redis' if self.cluster else ''}"


@dataclass
class Nodes:
    """The running game nodes of a run: each one's process, folder (its server.out and server.err)
    and port."""

    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)

    def cpu(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.processes)

    def loop_cpu(self) -> float:
        return sum(cpu_seconds(p.pid, p.pid) for p in self.processes)

    def stop(self) -> tuple[bool, int | None]:
        """SIGTERM to every node at once, then wait (SIGKILL after the timeout): (all stopped in
        time, the first non-zero exit status or 0)."""
        for p in self.processes:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        in_time = True
        for p in self.processes:
            try:
                p.wait(SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                in_time = False
                p.kill()
                p.wait(5)
        codes = [p.returncode for p in self.processes]
        return in_time, next((c for c in codes if c), codes[0] if codes else None)


def store_cpu_seconds(layout: Layout) -> float:
    total = 0.0
    if layout.pg is not None:
        total += tree_cpu_seconds(layout.pg.process.pid)
    if layout.bus is not None and layout.bus.process is not None:
        total += tree_cpu_seconds(layout.bus.process.pid)
    return total


def start_nodes(workdir: Path, clients: int, args: argparse.Namespace, tag: str, tree: Path,
                layout: Layout, nodes: Nodes) -> None:
    """Start the run's nodes into ``nodes``, once each is listening. One SQLite node keeps its files
    in ``workdir`` itself, as before there were nodes; otherwise node I has ``workdir/nI``, and all
    share one new PostgreSQL database and one TLS certificate (made by the first node)."""
    if layout.store == "sqlite":
        port = args.port or free_port()
        nodes.processes.append(start_server(port, workdir, clients, args, tag, tree))
        nodes.folders.append(workdir)
        nodes.ports.append(port)
        wait_listening(nodes.processes[0], workdir)
        return
    assert layout.pg is not None
    db = layout.pg.new_database()
    if layout.bus is not None:  # nothing of an earlier run's nodes (records, channels) in the new run
        flush = redis.Redis.from_url(layout.bus.url)
        flush.flushall()
        flush.close()
    run = db.rsplit("_", 1)[-1]  # node ids new for every run, as a node's default id is at each start
    for i in range(layout.nodes):
        folder = workdir / f"n{i}"
        folder.mkdir()
        port = free_port() if i or not args.port else args.port
        extra = ["--tls-cert", str(workdir / "cert.pem"), "--tls-key", str(workdir / "key.pem")]
        if layout.cluster:
            assert layout.bus is not None
            extra += ["--cluster", layout.bus.url, "--node-id", f"r{run}n{i}"]
            if args.lease_seconds:
                extra += ["--lease-seconds", f"{args.lease_seconds:g}"]
        nodes.processes.append(start_server(port, folder, clients, args, f"{tag}-n{i}", tree, db, extra))
        nodes.folders.append(folder)
        nodes.ports.append(port)
        if i == 0:  # the first node makes the certificate the others load
            wait_listening(nodes.processes[0], folder)
    for process, folder in zip(nodes.processes[1:], nodes.folders[1:], strict=True):
        wait_listening(process, folder)


def start_server(port: int, workdir: Path, clients: int, args: argparse.Namespace, tag: str,
                 tree: Path = ROOT, db: str | None = None, extra: list[str] | None = None) -> subprocess.Popen[bytes]:
    cmd = [sys.executable]
    if args.profile:
        cmd += ["-m", "cProfile", "-o", str(Path(args.profile) / f"server-{tag}.prof")]
    cmd += ["-m", "ono99_tui.cli", "serve", "--host", HOST, "--port", str(port),
            "--db", db or str(workdir / "load.db"), *(extra or []),
            "--bot-delay", "0", "--turn-seconds", "0", "--max-per-address", str(clients + 100),
            "--max-connections", str(clients + 100), "--max-waiting-per-address", str(clients + 100),
            "--messages-per-second", "1000",
            "--ssh-port", "0", "--web-port", "0", "--log-level", args.server_log_level]
    out = open(workdir / "server.out", "wb")  # noqa: SIM115 (kept open for the process's lifetime)
    err = open(workdir / "server.err", "wb")  # noqa: SIM115
    return subprocess.Popen(cmd, stdout=out, stderr=err, cwd=tree, start_new_session=True)  # -m imports from cwd


def wait_listening(server: subprocess.Popen[bytes], workdir: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}: "
                               f"{(workdir / 'server.err').read_text(errors='replace')[-2000:]}")
        if "listening on" in (workdir / "server.out").read_text(errors="replace"):
            return
        time.sleep(0.05)
    raise RuntimeError("the server did not start listening in time")


def log_problems(path: Path) -> list[str]:
    """Warning, error and traceback lines of the server's log, counted by their message shape."""
    shapes: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for line in path.read_text(errors="replace").splitlines():
        if " WARNING " in line or " ERROR " in line or " CRITICAL " in line or line.startswith(
                ("Traceback", "Exception", "ono99_kernel.protocol.ProtocolError")):
            body = line.split(" ", 2)[2] if re.match(r"\d{4}-\d\d-\d\d ", line) else line
            shape = re.sub(r"\d+", "N", body)[:160]
            shapes[shape] += 1
            examples.setdefault(shape, line[:300])
    return [f"{n} x {examples[s]}" for s, n in shapes.most_common(8)]


def run_accept(clients: int, args: argparse.Namespace, tree: Path, plain: bool) -> RunResult:
    """``clients`` connections opened at the same moment, each until its welcome."""
    result = RunResult("accept", clients, 0, ok=False, seconds=0.0, server="baseline" if plain else "this tree")
    with tempfile.TemporaryDirectory(prefix="ono99-load-") as tmp:
        workdir = Path(tmp)
        port = args.port or free_port()
        result.load_before = load_average()
        server = start_server(port, workdir, clients, args, f"accept-{clients}", tree)
        try:
            wait_listening(server, workdir)

            async def burst() -> tuple[float, list[float]]:
                bench = Bench(0, port, 0, 0, "full", True, plain)
                players = [Player(bench, TableRun(bench, 0), f"burst{i}") for i in range(clients)]
                times: list[float] = []

                async def one(player: Player) -> None:
                    began = time.monotonic()
                    await open_player(player, port, plain)
                    times.append(time.monotonic() - began)

                started = time.monotonic()
                await asyncio.wait_for(asyncio.gather(*(one(p) for p in players)), SETUP_TIMEOUT)
                total = time.monotonic() - started
                bench.close()
                return total, times

            cpu0, busy0 = cpu_seconds(server.pid), machine_busy_seconds()
            total, times = asyncio.run(burst())
            result.seconds = total
            result.server_cpu = cpu_seconds(server.pid) - cpu0  # seconds, not a share
            result.machine_cpu = machine_busy_seconds() - busy0
            result.latencies = times
            result.actions = len(times)
            result.ok = len(times) == clients
            result.load_after = load_average()
        except Exception as exc:
            result.note = f"{type(exc).__name__}: {str(exc)[:400]}"
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(SHUTDOWN_TIMEOUT)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(5)
            keep_logs(result, workdir, args, f"accept-{clients}-{result.server.replace(' ', '-')}")
    return result


def keep_logs(result: RunResult, workdir: Path, args: argparse.Namespace, tag: str,
              folders: list[Path] | None = None) -> None:
    """The server logs' problems into ``result``, and with --keep-logs a copy of their output."""
    folders = folders or [workdir]
    for n, folder in enumerate(folders):
        if not (folder / "server.err").exists():
            continue
        node = f"n{n}: " if len(folders) > 1 else ""
        result.server_log_problems += [node + line for line in log_problems(folder / "server.err")]
        if args.keep_logs:
            dest = Path(args.keep_logs)
            dest.mkdir(parents=True, exist_ok=True)
            for name in ("server.err", "server.out"):
                (dest / f"{tag}{f'-n{n}' if len(folders) > 1 else ''}-{name}").write_bytes(
                    (folder / name).read_bytes())


def run_one(mode: str, clients: int, args: argparse.Namespace, tree: Path = ROOT, plain: bool = False,
            layout: Layout | None = None) -> RunResult:
    if mode == "accept":
        return run_accept(clients, args, tree, plain)
    layout = layout or Layout()
    tables = clients // SEATS
    result = RunResult(mode, tables * SEATS, tables, ok=False, seconds=args.seconds, server=layout.label(plain))
    per_node = -(-max(args.procs, layout.nodes) // layout.nodes)  # as many client processes for every node
    procs = max(1, min(per_node * layout.nodes, tables))
    ctx = mp.get_context("fork")
    with tempfile.TemporaryDirectory(prefix="ono99-load-") as tmp:
        workdir = Path(tmp)
        tag = f"{mode}-{clients}" + ("" if result.server in ("this tree", "baseline") else
                                     f"-{layout.nodes}-{layout.store}{'-redis' if layout.cluster else ''}")
        result.load_before = load_average()
        nodes = Nodes()
        workers: list[Any] = []
        pipes: list[Any] = []
        go, quit_ = ctx.Event(), ctx.Event()
        go_at = ctx.Value("d", 0.0)
        try:
            start_nodes(workdir, clients, args, tag, tree, layout, nodes)
            share, extra = divmod(tables, procs)
            first = 0
            for p in range(procs):
                count = share + (1 if p < extra else 0)
                parent_end, child_end = ctx.Pipe(duplex=False)
                port = nodes.ports[p % len(nodes.ports)]  # the tables spread evenly over the nodes
                w = ctx.Process(target=worker, args=(p, port, first, count, mode, not args.public_tables,
                                                     args.seconds, child_end, go, go_at, quit_, plain),
                               daemon=True)
                w.start()
                child_end.close()
                workers.append(w)
                pipes.append(parent_end)
                first += count
            # setup
            started = time.monotonic()
            for pipe in pipes:
                if not pipe.poll(SETUP_TIMEOUT + 10):
                    raise RuntimeError("a client process did not finish its setup in time")
                kind, value = pipe.recv()
                if kind != "ready":
                    raise RuntimeError(f"setup failed: {value}")
            result.setup_seconds = time.monotonic() - started
            # the window
            go_at.value = time.monotonic() + 0.3
            go.set()
            time.sleep(max(0.0, go_at.value - time.monotonic()))
            cpu0 = nodes.cpu()
            loop0 = nodes.loop_cpu()
            store0 = store_cpu_seconds(layout)
            busy0 = machine_busy_seconds()
            ccpu0 = sum(cpu_seconds(w.pid) for w in workers)
            t0 = time.monotonic()
            end = go_at.value + args.seconds
            while time.monotonic() < end:
                time.sleep(min(0.5, max(0.0, end - time.monotonic())))
            wall = time.monotonic() - t0
            result.server_cpu = 100 * (nodes.cpu() - cpu0) / wall
            result.loop_cpu = 100 * (nodes.loop_cpu() - loop0) / wall
            result.store_cpu = 100 * (store_cpu_seconds(layout) - store0) / wall
            result.machine_cpu = 100 * (machine_busy_seconds() - busy0) / wall
            result.client_cpu = 100 * (sum(cpu_seconds(w.pid) for w in workers) - ccpu0) / wall
            for process in nodes.processes:
                rss, hwm = memory_kib(process.pid)
                result.rss_mib += rss / 1024
                result.hwm_mib += hwm / 1024
            result.load_after = load_average()
            for pipe in pipes:
                if not pipe.poll(DRAIN_SECONDS + 30):
                    raise RuntimeError("a client process did not report in time")
                kind, value = pipe.recv()
                if kind != "result":
                    raise RuntimeError(f"unexpected report {kind}: {value}")
                result.latencies += value["latencies"]
                result.actions += value["actions"]
                result.acts_sent += value["acts_sent"]
                result.games += value["games"]
                result.errors.update(value["errors"])
                result.lost += value["lost"]
            result.ok = True
        except Exception as exc:
            result.note = str(exc)[:500]
            result.load_after = result.load_after or load_average()
        finally:
            # graceful shutdown while the clients are still connected, then end the clients
            stop_started = time.monotonic()
            in_time, result.server_exit = nodes.stop()
            if not in_time:
                result.note += " (server did not stop in time; killed)"
            result.shutdown_seconds = time.monotonic() - stop_started
            quit_.set()
            for w in workers:
                w.join(10)
                if w.is_alive():
                    w.kill()
                    w.join(5)
            keep_logs(result, workdir, args, tag, nodes.folders)
    return result


# --- report ---------------------------------------------------------------------------------------------
def table_rows(results: list[RunResult]) -> list[list[str]]:
    rows = [["server", "mode", "clients", "tables", "actions/s", "state msgs/s", "p50 ms", "p99 ms", "max ms",
             "server CPU (loop thread)", "server CPU µs/action", "store CPU µs/action", "server RSS MiB (peak)",
             "client CPU",
             "other CPU", "load avg before → after", "errors"]]
    for r in results:
        if not r.ok:
            rows.append([r.server, r.mode, str(r.clients), str(r.tables), f"failed: {r.note}"] + [""] * 12)
            continue
        if r.mode == "accept":  # time to the last welcome; each connection's time; server CPU in seconds
            lat = [x * 1000 for x in r.latencies]
            rows.append([r.server, r.mode, str(r.clients), "-", f"all welcomed in {r.seconds * 1000:,.0f} ms", "-",
                         f"{percentile(lat, 50):.1f}", f"{percentile(lat, 99):.1f}",
                         f"{max(lat, default=float('nan')):.1f}", f"{r.server_cpu * 1000:,.0f} ms CPU",
                         f"{r.server_cpu / r.clients * 1e6:,.0f} per connection", "-", "-", "-", "-",
                         f"{r.load_before} → {r.load_after}", "0"])
            continue
        lat = [x * 1000 for x in r.latencies]
        rate = r.actions / r.seconds
        errors = ", ".join(f"{k} {v}" for k, v in r.errors.most_common()) or "0"
        if r.lost:
            errors += f"; {r.lost} connections lost"
        rows.append([r.server, r.mode, str(r.clients), str(r.tables), f"{rate:,.0f}", f"{rate * SEATS:,.0f}",
                     f"{percentile(lat, 50):.1f}", f"{percentile(lat, 99):.1f}",
                     f"{max(lat, default=float('nan')):.1f}",
                     f"{r.server_cpu:.0f}% ({r.loop_cpu:.0f}%)",
                     f"{r.server_cpu / 100 * r.seconds / r.actions * 1e6:,.0f}" if r.actions else "-",
                     f"{r.store_cpu / 100 * r.seconds / r.actions * 1e6:,.0f}" if r.actions and r.store_cpu else "-",
                     f"{r.rss_mib:.0f} ({r.hwm_mib:.0f})", f"{r.client_cpu:.0f}%",
                     f"{max(0.0, r.machine_cpu - r.server_cpu - r.store_cpu - r.client_cpu):.0f}%",
                     f"{r.load_before} → {r.load_after}", errors])
    return rows


def report(results: list[RunResult]) -> None:
    print()
    print(f"machine: {machine()}")
    rows = table_rows(results)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))]
        print("| " + " | ".join(cells) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print()
    for r in results:
        print(f"{r.mode} {r.clients}: setup {r.setup_seconds:.1f} s, window {r.seconds:.0f} s, {r.actions} actions "
              f"({r.acts_sent} sent), {r.games} games finished, shutdown {r.shutdown_seconds:.1f} s "
              f"(exit {r.server_exit})")
        for line in r.server_log_problems:
            print(f"    server log: {line}")
        if not r.server_log_problems:
            print("    server log: no warnings or errors")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 500, 1000],
                        help="client counts, four to a table (default 100 500 1000)")
    parser.add_argument("--mode", nargs="+", choices=["full", "human", "accept"], default=["full", "human"],
                        help="full speed, human pace and/or a burst of connections (default full and human)")
    parser.add_argument("--baseline", type=Path, default=None, metavar="DIR",
                        help="also run every configuration against the server of this older checkout (plain TCP, "
                             "protocol 1), just before this tree's")
    parser.add_argument("--nodes", type=int, nargs="+", default=[1],
                        help="game nodes per run, each a configuration of its own (default 1); more than one "
                             "needs --store postgresql and runs with Redis")
    parser.add_argument("--store", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite"],
                        help="the nodes' database: an SQLite file, or a PostgreSQL cluster started here (default "
                             "sqlite); both: one configuration each")
    parser.add_argument("--cluster", action="store_true",
                        help="run a single PostgreSQL node with --cluster (Redis) too, as one node of a cluster")
    parser.add_argument("--lease-seconds", type=float, default=None,
                        help="the nodes' --lease-seconds (default: theirs, 10). A node renews its leases through "
                             "its database queue, so one whose writes fall behind by most of a lease loses its "
                             "tables to another node: a longer lease measures throughput past that point")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring window of each run (default 20)")
    parser.add_argument("--procs", type=int, default=1, help="client processes per run (default 1)")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--public-tables", action="store_true",
                        help="open tables joined by id from the lobby list (default: private tables joined by "
                             "invite code, which keeps the lobby's table list out of the measurement)")
    parser.add_argument("--server-log-level", default="info", choices=["debug", "info", "warning", "error"])
    parser.add_argument("--keep-logs", metavar="DIR", help="copy each run's server log here")
    parser.add_argument("--profile", metavar="DIR",
                        help="run the server under cProfile, writing DIR/server-MODE-N.prof")
    args = parser.parse_args()
    if args.seconds <= 0 or args.seconds > 600:
        parser.error("--seconds must be from 0 to 600")
    if any(n < SEATS or n > 5000 for n in args.clients):
        parser.error(f"--clients must be from {SEATS} to 5000")
    if any(n < 1 or n > 8 for n in args.nodes):
        parser.error("--nodes must be from 1 to 8")
    if "sqlite" in args.store and (max(args.nodes) > 1 or args.cluster):
        parser.error("several nodes and --cluster need --store postgresql (only)")
    scaled = args.nodes != [1] or args.store != ["sqlite"]
    if scaled and (args.baseline or "accept" in args.mode):
        parser.error("--baseline and --mode accept measure one SQLite server only")
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    print(f"machine: {machine()}")
    with contextlib.ExitStack() as parts:
        pg = bus = None
        if "postgresql" in args.store:
            pg, bus = parts.enter_context(cluster_parts(redis=max(args.nodes) > 1 or args.cluster))
        layouts = [Layout(n, store, store == "postgresql" and (n > 1 or args.cluster), pg, bus)
                   for n in args.nodes for store in args.store]
        results = []
        for mode in args.mode:
            for clients in args.clients:
                print(f"run: {mode}, {clients} clients ({clients // SEATS} tables), {args.seconds:.0f} s, "
                      f"load average {load_average()} ...", flush=True)
                trees = ([(args.baseline, True)] if args.baseline else []) + [(ROOT, False)]
                for layout in layouts:
                    for tree, plain in trees:
                        r = run_one(mode, clients, args, tree, plain, layout)
                        results.append(r)
                        say(r)
    report(results)


def say(r: RunResult) -> None:
    if r.ok and r.mode == "accept":
        print(f"  {r.server}: {r.clients} welcomed in {r.seconds * 1000:,.0f} ms, server CPU "
              f"{r.server_cpu * 1000:,.0f} ms", flush=True)
    elif r.ok:
        lat = [x * 1000 for x in r.latencies]
        print(f"  {r.server}: {r.actions / r.seconds:,.0f} actions/s, p50 {percentile(lat, 50):.1f} ms, "
              f"p99 {percentile(lat, 99):.1f} ms, server CPU {r.server_cpu:.0f}% "
              f"(loop thread {r.loop_cpu:.0f}%), "
              + (f"store CPU {r.store_cpu:.0f}%, " if r.store_cpu else "")
              + f"client CPU {r.client_cpu:.0f}%, load {r.load_after}", flush=True)
    else:
        print(f"  {r.server}: failed: {r.note}", flush=True)


if __name__ == "__main__":
    main()
