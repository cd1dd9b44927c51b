"""The SSH front workers of ``ono99 serve``: processes sharing the SSH port (SO_REUSEPORT), each
reaching the game server over loopback; one that dies (even by SIGKILL) is started again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys

from ..i18n import current_language
from .config import FrontConfig
from .process import CONFIG_ENV, LANGUAGE_ENV, READY, config_to_env

log = logging.getLogger("ono99.workers")
RESTART_DELAYS = (0.2, 0.5, 1.0, 2.0, 5.0)  # a worker that keeps dying is restarted ever more slowly
STEADY = 10.0  # seconds a worker must live for its next death to count as the first
STOP_WAIT = 8.0  # seconds workers get to say goodbye to their sessions before they are killed


def cores_given() -> int:
    """The cores this process may run on (its CPU affinity, as ``taskset`` or a container's cpuset
    sets it), which may be fewer than the machine has: one front worker for each."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this system: the machine's count
        return os.cpu_count() or 1


def reserve_port(host: str, port: int) -> socket.socket:
    """Bind (without listening) the SSH port with SO_REUSEPORT: a busy port fails here, port 0 picks
    one, and the workers join the same port. The caller keeps the socket until the workers are gone."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    address = host or "0.0.0.0"
    # First without SO_REUSEPORT: a port another program (or another `ono99 serve` of this user,
    # whose workers share it with SO_REUSEPORT) holds is busy, not silently shared.
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((address, port))
        port = int(probe.getsockname()[1])
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((address, port))
    except OSError:
        sock.close()
        raise
    return sock


class WorkerPool:
    """``count`` front worker processes; ``await start()`` waits until each listens."""

    def __init__(self, config: FrontConfig, count: int, log_level: str = "info") -> None:
        self.config = config
        self.count = count
        self.log_level = log_level
        self.processes: list[asyncio.subprocess.Process | None] = [None] * count
        self.restarts = 0
        self._ready: list[asyncio.Event] = [asyncio.Event() for _ in range(count)]
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes if p is not None and p.returncode is None]

    async def start(self, timeout: float = 30.0) -> None:
        self._tasks = [asyncio.create_task(self._keep(i)) for i in range(self.count)]
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in self._ready)), timeout)

    async def _spawn(self, index: int) -> asyncio.subprocess.Process:
        env = dict(os.environ)
        env[CONFIG_ENV] = config_to_env(self.config)
        env[LANGUAGE_ENV] = current_language()
        env["ONO99_LOG_LEVEL"] = self.log_level
        return await asyncio.create_subprocess_exec(sys.executable, "-m", "ono99_tui.front", env=env,
                                                    stdout=asyncio.subprocess.PIPE,
                                                    stdin=asyncio.subprocess.PIPE)  # closed: the server is gone

    async def _keep(self, index: int) -> None:
        loop = asyncio.get_running_loop()
        failures = 0
        while not self._stopping:
            started = loop.time()
            process = await self._spawn(index)
            self.processes[index] = process
            log.info("ssh worker %d started (pid %d)", index + 1, process.pid)
            assert process.stdout is not None
            async for raw in process.stdout:
                line = raw.decode(errors="replace").rstrip()
                if line.startswith(READY):
                    self._ready[index].set()
                elif line:
                    print(line, flush=True)
            code = await process.wait()
            if self._stopping:
                break
            failures = 0 if loop.time() - started > STEADY else failures + 1
            delay = RESTART_DELAYS[min(failures, len(RESTART_DELAYS) - 1)]
            self.restarts += 1
            log.warning("ssh worker %d (pid %d) ended (%s); starting it again in %g s", index + 1, process.pid,
                        f"signal {-code}" if code < 0 else f"exit {code}", delay)
            await asyncio.sleep(delay)

    async def close(self) -> None:
        """SIGTERM to every worker (each ends its sessions with a goodbye), SIGKILL after a while."""
        self._stopping = True
        running = [p for p in self.processes if p is not None and p.returncode is None]
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        if running:
            await asyncio.wait([asyncio.create_task(p.wait()) for p in running], timeout=STOP_WAIT)
            for process in running:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
            await asyncio.gather(*(p.wait() for p in running), return_exceptions=True)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
