"""A real Redis server for the tests: ``redis-server`` (Debian's package; .ci/run installs it) on a
free loopback port, its files in a temporary directory, started by a test and stopped at its end.
It can be stopped and started again on the same port (a Redis restart during play), and runs as
whoever runs the tests (Redis, unlike PostgreSQL, does not refuse root).
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.certificates import ServerFiles

START_TIMEOUT = 30.0
MISSING = "redis-server was not found on the PATH: install it (Debian and Ubuntu: apt-get install redis-server; " \
          ".ci/run does)"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(host: str, port: int, tls: ServerFiles | None = None) -> bool:
    """Whether a Redis server answers PING on the port (spoken by hand: no client library needed),
    over TLS trusting ``tls.ca`` when it has TLS."""
    try:
        with socket.create_connection((host, port), timeout=1.0) as plain:
            sock = plain if tls is None else ssl.create_default_context(cafile=tls.ca).wrap_socket(
                plain, server_hostname=host)
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
    host: str = "127.0.0.1"  # the address it listens on
    tls: ServerFiles | None = None  # its certificate: it speaks only TLS (rediss://) on its port

    @property
    def url(self) -> str:
        if self.tls is not None:
            return f"rediss://{self.host}:{self.port}/0?ssl_ca_certs={self.tls.ca}"
        return f"redis://{self.host}:{self.port}/0"

    def start(self) -> None:
        program = shutil.which("redis-server")
        if program is None:
            raise RuntimeError(MISSING)
        log = (self.folder / "redis.log").open("ab")
        # No saving to disk: what a node keeps in Redis it can rebuild, and a restart starts empty.
        # Protected mode (no password: loopback clients only) is off on a test network's address.
        protected = "yes" if self.host == "127.0.0.1" else "no"
        ports = ["--port", str(self.port)] if self.tls is None else [
            "--port", "0", "--tls-port", str(self.port), "--tls-cert-file", str(self.tls.cert),
            "--tls-key-file", str(self.tls.key), "--tls-ca-cert-file", str(self.tls.ca), "--tls-auth-clients", "no"]
        self.process = subprocess.Popen(
            [program, *ports, "--bind", self.host, "--dir", str(self.folder),
             "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", protected],
            stdout=log, stderr=subprocess.STDOUT, cwd=self.folder, start_new_session=True)
        end = time.monotonic() + START_TIMEOUT
        while not _answers(self.host, self.port, self.tls):
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


def start_redis(host: str | None = None, port: int = 6379, tls: ServerFiles | None = None) -> RedisServer:
    """A new ``redis-server`` in a new temporary directory: on a free loopback port, or on ``host``
    and ``port`` (the address of a network namespace the calling thread is in); with ``tls``, it
    speaks only TLS, showing that certificate."""
    folder = Path(tempfile.mkdtemp(prefix="ono99-redis-"))
    server = RedisServer(folder, _free_port(), tls=tls) if host is None else \
        RedisServer(folder, port, host=host, tls=tls)
    server.start()
    return server
