"""What the SSH benchmarks share: an ``ono99 serve`` process with its SSH front workers, the CPU
and memory they use (read from /proc), the measuring of a span of work, and SSH logins spread so
that they stay within the front's limits on logins waiting.

Used by bench/front_isolation.py, bench/ssh_human_pace.py and bench/ssh_sessions.py (run as
scripts: this directory is on their import path).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ono99_tui.ssh_settings import SshSettings

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# The front lets a few logins from one address wait at once, and a few dozen in all: the benchmarks'
# clients log in from several loopback addresses (127.0.0.0/8 is all this machine), a few from each,
# and at most a few dozen at a time.
LOGINS_PER_ADDRESS = SshSettings().max_waiting_logins_per_address - 1
LOGINS_AT_ONCE = SshSettings().max_waiting_logins - 4

T = TypeVar("T")


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
    them wait: each address has a few, and at most LOGINS_AT_ONCE log in at a time."""
    gate = asyncio.Semaphore(LOGINS_AT_ONCE)

    async def one(index: int) -> T:
        async with gate:
            return await log_in(index, login_address(index))

    return list(await asyncio.gather(*(one(i) for i in range(count))))
