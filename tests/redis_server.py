"""A real Redis server for the tests: ``redis-server`` (Debian's package; .ci/run installs it) on a
free loopback port, its files in a temporary directory, started by a test and stopped at its end.
It can be stopped and started again on the same port (a Redis restart during play), and runs as
whoever runs the tests (Redis, unlike PostgreSQL, does not refuse root).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT = 30.0
MISSING = "redis-server was not found on the PATH: install it (Debian and Ubuntu: apt-get install redis-server; " \
          ".ci/run does)"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    """Whether a Redis server answers PING on the port (spoken by hand: no client library needed)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisServer:
    """A running ``redis-server``; ``url`` is what ``ono99 serve --cluster`` takes."""

    folder: Path
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        program = shutil.which("redis-server")
        if program is None:
            raise RuntimeError(MISSING)
        log = (self.folder / "redis.log").open("ab")
        # No saving to disk: what a node keeps in Redis it can rebuild, and a restart starts empty.
        self.process = subprocess.Popen(
            [program, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes"],
            stdout=log, stderr=subprocess.STDOUT, cwd=self.folder, start_new_session=True)
        end = time.monotonic() + START_TIMEOUT
        while not _answers(self.port):
            if self.process.poll() is not None or time.monotonic() > end:
                said = (self.folder / "redis.log").read_text(errors="replace")
                self.stop()
                raise RuntimeError(f"redis-server did not start: {said}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(START_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_redis() -> RedisServer:
    """A new ``redis-server`` on a free loopback port, in a new temporary directory."""
    server = RedisServer(Path(tempfile.mkdtemp(prefix="ono99-redis-")), _free_port())
    server.start()
    return server
