"""A real PostgreSQL server for the tests: a throwaway cluster in a temporary directory, reached over
a Unix socket only (no TCP port to collide with anything), started once per test process and
stopped at its end; each test that wants one gets a database of its own in it. A cluster's data
directory is a copy of one initdb made once for the machine's test processes (kept in the temporary
directory, by PostgreSQL installation).

The server programs (``initdb``, ``postgres``) are looked for on the PATH, then where Debian's
``postgresql`` package puts them (``/usr/lib/postgresql/VERSION/bin``, the newest version first).
PostgreSQL refuses to run as root: as root, the cluster belongs to the ``postgres`` user that
Debian's package makes (else ``nobody``), and its programs run as that user.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg

from tests.certificates import ServerFiles

ADMIN = "ono99"  # the cluster's superuser, trusted on its socket
START_TIMEOUT = 60.0
SEARCH_DIRS = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/opt/postgresql*/bin")
MISSING = ("PostgreSQL's server programs (initdb, postgres) were not found on the PATH nor in "
           "/usr/lib/postgresql/*/bin: install them (Debian and Ubuntu: apt-get install postgresql; .ci/run does)")


def server_programs() -> tuple[Path, Path]:
    """(initdb, postgres) of one installation: the PATH's, else the newest one found in SEARCH_DIRS."""
    initdb, postgres = shutil.which("initdb"), shutil.which("postgres")
    if initdb and postgres:
        return Path(initdb), Path(postgres)
    found = []
    for pattern in SEARCH_DIRS:
        for folder in Path("/").glob(pattern.lstrip("/")):
            if (folder / "initdb").exists() and (folder / "postgres").exists():
                version = [int(n) for n in re.findall(r"\d+", folder.parent.name)] or [0]
                found.append((version, folder))
    if not found:
        raise RuntimeError(MISSING)
    folder = max(found)[1]
    return folder / "initdb", folder / "postgres"


def _runs_as() -> pwd.struct_passwd | None:
    """The user the server programs run as: None for ourselves, unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError("running as root, and there is neither a 'postgres' nor a 'nobody' user to run PostgreSQL as")


@dataclass
class Cluster:
    """A running throwaway cluster; ``url(name)`` is a libpq URL of one of its databases."""

    folder: Path
    socket_dir: Path
    process: subprocess.Popen[bytes]
    _numbers: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _run: dict[str, Any] = field(default_factory=dict)  # how its server was started (start_server again)
    port: int = 5432  # of its TCP listener, and in its Unix socket's name

    def url(self, database: str) -> str:
        port = "" if self.port == 5432 else f":{self.port}"
        return f"postgresql://{ADMIN}@{quote(str(self.socket_dir), safe='')}{port}/{database}"

    def tcp_url(self, database: str, host: str) -> str:
        """The URL of one of its databases over TCP (a cluster started with ``listen``)."""
        return f"postgresql://{ADMIN}@{host}:{self.port}/{database}"

    def new_database(self) -> str:
        """A new, empty database of the cluster; its URL."""
        name = f"test_{os.getpid()}_{next(self._numbers)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop_server(self) -> None:
        """Stop the server (a fast shutdown: its clients are cut off), keeping its data."""
        if self.process.poll() is None:
            self.process.send_signal(2)
            self.process.wait(START_TIMEOUT)

    def start_server(self) -> None:
        """Start the server again on its data, after ``stop_server``."""
        self.process = subprocess.Popen(**self._run)
        _wait_for(self)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: a fast shutdown (clients are cut off, nothing waits)
            try:
                self.process.wait(START_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster(listen: str = "", trusted: str | None = None, tls: ServerFiles | None = None,
                  port: int = 5432) -> Cluster:
    """initdb a cluster in a new temporary directory and start its server on a Unix socket there
    (and on TCP port ``port`` of the address ``listen``, trusting clients of the network ``trusted``,
    such as ``10.0.0.0/24``: a cluster in a network namespace of the tests'). With ``tls``, its TCP
    listener takes TLS (``ssl = on``) with that certificate, and TLS only from 127.0.0.1."""
    initdb, postgres = server_programs()
    user = _runs_as()
    folder = Path(tempfile.mkdtemp(prefix="ono99-pg-"))
    data, socket_dir = folder / "data", folder / "run"
    socket_dir.mkdir()
    if user is not None:
        for path in (folder, socket_dir):
            os.chown(path, user.pw_uid, user.pw_gid)
    # the programs run as that user, with no other group (None: as this process, the defaults)
    uid, gid = (None, None) if user is None else (user.pw_uid, user.pw_gid)
    groups: list[int] | None = None if user is None else []
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    shutil.copytree(_initdb_once(initdb, user, env), data, symlinks=True)
    if user is not None:  # copied by root: the server's user owns its data, as initdb made it
        for root, folders, files in os.walk(data):
            for name in [root, *(os.path.join(root, entry) for entry in folders + files)]:
                os.lchown(name, user.pw_uid, user.pw_gid)
    if trusted is not None:
        with (data / "pg_hba.conf").open("a") as rules:
            rules.write(f"host all all {trusted} trust\n")
    options: list[str] = []
    if tls is not None:  # the server reads its own copies: they belong to the user it runs as
        for source, name in ((tls.cert, "server.crt"), (tls.key, "server.key")):
            copy = data / name
            copy.write_bytes(source.read_bytes())
            os.chmod(copy, 0o600)
            if user is not None:
                os.chown(copy, user.pw_uid, user.pw_gid)
        hba = (data / "pg_hba.conf").read_text()
        (data / "pg_hba.conf").write_text("hostssl all all 127.0.0.1/32 trust\nhostnossl all all 0.0.0.0/0 reject\n"
                                          + hba)
        options = ["-c", "ssl=on", "-c", "ssl_cert_file=server.crt", "-c", "ssl_key_file=server.key"]
    # fsync off: these databases die with the test run; a commit is still a commit to its client.
    log = (folder / "server.log").open("ab")
    run: dict[str, Any] = dict(
        args=[str(postgres), "-D", str(data), "-k", str(socket_dir), "-c", f"listen_addresses={listen}",
              "-p", str(port), *options, "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=200",
              "-c", "shared_buffers=32MB"],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=folder,
        start_new_session=True,  # its signals to its process group are not the test process's
        user=uid, group=gid, extra_groups=groups)
    cluster = Cluster(folder, socket_dir, subprocess.Popen(**run), _run=run, port=port)
    _wait_for(cluster)
    return cluster


INITDB_ARGS = ("-U", ADMIN, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")


def _initdb_once(initdb: Path, user: pwd.struct_passwd | None, env: dict[str, str]) -> Path:
    """A data directory just as initdb makes it, made once for all the test processes of the machine (of
    this PostgreSQL installation and these arguments) and copied for each cluster: initdb is most of
    a cluster's start (0.8 s of CPU, a copy 0.1 s)."""
    made = initdb.stat()
    key = f"{os.geteuid()}-{made.st_ino}-{made.st_mtime_ns}-{zlib.crc32(' '.join(INITDB_ARGS).encode()):08x}"
    template = Path(tempfile.gettempdir()) / f"ono99-pg-initdb-{key}"
    data, ready = template / "data", template / "ready"
    if ready.exists():
        return data
    with open(f"{template}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process makes it, the others wait for it
        if not ready.exists():
            shutil.rmtree(template, ignore_errors=True)  # one left half made
            template.mkdir()
            if user is not None:
                os.chown(template, user.pw_uid, user.pw_gid)
            uid, gid = (None, None) if user is None else (user.pw_uid, user.pw_gid)
            subprocess.run([str(initdb), "-D", str(data), *INITDB_ARGS], check=True, capture_output=True, env=env,
                           cwd=template, user=uid, group=gid, extra_groups=None if user is None else [])
            ready.touch()
    return data


def _wait_for(cluster: Cluster) -> None:
    """Until the cluster's server takes connections (stopped, with what it said, if it does not)."""
    folder, process = cluster.folder, cluster.process
    end = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with psycopg.connect(cluster.url("postgres"), connect_timeout=5):
                return
        except psycopg.OperationalError:
            if process.poll() is not None or time.monotonic() > end:
                said = (folder / "server.log").read_text(errors="replace")
                cluster.stop()
                raise RuntimeError(f"PostgreSQL did not start: {said}") from None
            time.sleep(0.05)
