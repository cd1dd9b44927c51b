"""Helpers for the server integration tests, all against real parts: an in-process ``Server`` on
127.0.0.1 port 0 with a real SQLite file, real TLS clients speaking the protocol (pinned to the
server's certificate), raw TLS connections for abuse, the ``ono99`` command as a subprocess, and an
``ono99 serve`` process that can be killed.

Nothing here sleeps to make a point: waits are for messages (``expect``/``recv`` with generous
timeouts) or for a condition on the real server, polled until a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
import signal
import socket
import ssl
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ono99_kernel.core.actions import Action
from ono99_kernel.core.cards import CODES
from ono99_kernel.core.game import Game
from ono99_kernel.identity import Identity
from ono99_kernel.protocol import HEADER, PROTOCOL_VERSION, encode
from ono99_kernel.tls import client_context
from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import Act, AskLeaderboard, CreateTable, Hello, Join, Request, Start
from ono99_server import Server, ServerConfig
from ono99_server.table_room import Table
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ConnectionLost
from ono99_tui.known_servers import ServerTrust

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60.0  # generous (a busy machine starts a server with its workers slowly): never a measurement
CARD_CODES = frozenset(CODES)
STORAGE_BARRIER = AskLeaderboard()  # answered on the database thread after every queued write
# Answers to an action that raced a bot's move: the game moved on (or ended) first; nothing was applied.
LATE_ACT_ERRORS = ("stale_action", "no_game")
# Test players act as fast as the bots (delay 0) for whole matches: far above a person's pace, so the
# tests that play long or many games raise the per-connection message limit (the limit has its own tests).
FAST_PLAY: dict[str, Any] = {"messages_per_second": 10_000.0, "message_burst": 10_000}


def running_game(table: Table) -> Game:
    """The game at ``table``; fails the test when it has none."""
    assert table.game is not None, "the table has no game"
    return table.game


def is_late_act_error(message: dict[str, Any]) -> bool:
    return message.get("ref") == "act" and message.get("code") in LATE_ACT_ERRORS


# --- an in-process server ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Store:
    """The database of a test's servers (the ``store`` fixture, tests/conftest.py): an SQLite file in
    the test's folder, or a PostgreSQL database of its own on the test run's PostgreSQL server."""

    kind: str  # "sqlite" or "postgresql"
    db: Path | str  # what --db takes: the file, or the URL

    @property
    def config(self) -> dict[str, Any]:
        """``server_config`` overrides for a server on it."""
        if isinstance(self.db, str):
            return {"db_path": None, "db_url": self.db}
        return {"db_path": self.db}


def server_config(tmp_path: Path, **overrides: Any) -> ServerConfig:
    values: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "bot_delay": 0, "default_turn_seconds": 0,
                              "db_path": tmp_path / "x.db",  # and the TLS certificate beside it, kept for a restart
                              "tls_cert": tmp_path / "tls_cert.pem", "tls_key": tmp_path / "tls_key.pem"}
    values.update(overrides)
    return ServerConfig(**values)


class TestClient(Client):
    """A real protocol client that also keeps every message it received, in order."""

    __test__ = False  # not a pytest test class

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.received: list[dict[str, Any]] = []
        super().__init__(reader, writer)

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        message = await super().recv(timeout)
        self.received.append(message)
        return message

    async def expect(self, kind: str, timeout: float = TIMEOUT,
                     where: Callable[[dict[str, Any]], bool] | None = None, *,
                     tolerate: Callable[[dict[str, Any]], bool] | None = is_late_act_error) -> dict[str, Any]:
        """As ``Client.expect``, but by default a late answer to an action the playing loop raced
        (``stale_action``, or ``no_game`` when a bot's move ended the game first) is skipped, not raised."""
        return await super().expect(kind, timeout, where, tolerate=tolerate)

    async def send_map(self, message: Mapping[str, Any]) -> None:
        """Send a map as it is: what no typed request makes (a wrong field, an unknown type)."""
        if self.closed:
            raise ConnectionLost("the connection is closed")
        await self.send_raw(encode(dict(message)))

    async def request(self, message: Request | Mapping[str, Any], kind: str, timeout: float = TIMEOUT,
                      where: Callable[..., bool] | None = None) -> dict[str, Any]:
        """Send ``message`` (a map: as it is, see ``send_map``), then expect ``kind`` (``where``: called with
        the message; ``...`` so that a lambda in a loop may bind the loop's values as defaults)."""
        if isinstance(message, Mapping):
            await self.send_map(message)
        else:
            await self.send(message)
        return await self.expect(kind, timeout, where)

    async def error(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next ``error`` message (skipping everything else)."""
        return await self.expect("error", timeout)


class Harness:
    """A started server plus the clients a test opened (closed for it at the end)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.clients: list[Client] = []

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def config(self) -> ServerConfig:
        return self.server.config

    async def connect(self, name: str, *, resume: str | None = None, identity: Identity | None = None) -> TestClient:
        """A client that said hello: a guest, or the player of ``identity``'s key (see ``new_identity``)."""
        client = await TestClient.connect("127.0.0.1", self.port, name, resume=resume, timeout=TIMEOUT,
                                          identity=identity, trust=self.trust)
        self.clients.append(client)
        return client

    @property
    def trust(self) -> ServerTrust:
        """This server's certificate, pinned."""
        return ServerTrust.pinned(self.server.fingerprint)

    async def raw(self) -> TestClient:
        """A TLS connection to the server (its certificate pinned) that has said nothing yet."""
        client = await TestClient.open("127.0.0.1", self.port, trust=self.trust, timeout=TIMEOUT)
        self.clients.append(client)
        return client

    async def close(self) -> None:
        await self.server.close()
        for client in self.clients:
            await client.close()


@contextlib.asynccontextmanager
async def running_server(tmp_path: Path, **overrides: Any) -> AsyncIterator[Harness]:
    server = Server(server_config(tmp_path, **overrides))
    await server.start()
    harness = Harness(server)
    try:
        yield harness
    finally:
        await harness.close()


async def wait_until(condition: Callable[..., bool], what: str, timeout: float = TIMEOUT, every: float = 0.01) -> None:
    """Poll a condition on the real server every ``every`` seconds until it holds; fail after ``timeout``
    seconds. ``condition`` is called without arguments (``...``: a lambda in a loop binds the loop's
    values as defaults)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for: {what}")
        await asyncio.sleep(every)


def seatings_saved(server: Server) -> dict[int, list[list[str]]]:
    """Every seating the server saves from now on, by table: the human seats' names of each save, in
    order (what a node taking a table over after a crash would find: any one of them)."""
    storage = server.lobby.storage
    assert storage is not None
    saved: dict[int, list[list[str]]] = {}
    save = storage.save_table

    def save_and_note(table_id: int, meta: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        saved.setdefault(table_id, []).append([s["name"] for s in meta["seats"] if s["kind"] == "human"])
        save(table_id, meta, *args, **kwargs)

    vars(storage)["save_table"] = save_and_note  # on this storage only: the real save, noted on its way
    return saved


def new_identity() -> Identity:
    """A new ed25519 key, in memory: a player with an identity (stats, a name of their own)."""
    from ono99_kernel.ssh_library import asyncssh

    return Identity(asyncssh.generate_private_key("ssh-ed25519"))


def hello(name: str, **extra: Any) -> Hello:
    return Hello(version=PROTOCOL_VERSION, name=name, **extra)


def frame(payload: bytes) -> bytes:
    """A well-framed payload (whatever the payload holds)."""
    return HEADER.pack(len(payload)) + payload


async def until_closed(client: Client, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
    """Every message until the server closes the connection."""
    messages = []
    with contextlib.suppress(ConnectionLost):
        while True:
            messages.append(await client.recv(timeout))
    return messages


# --- tables -----------------------------------------------------------------------------------------
_table_names = itertools.count(1)


async def create_table(host: TestClient, *, edition: str = "2022", options: dict[str, Any] | None = None,
                       seats: int = 4, bots: int = 0, start: bool = False, **extra: Any) -> int:
    """Create a table (the host sits in seat 0); returns its id."""
    name = f"table {next(_table_names)}"
    await host.send(CreateTable(name=name, edition=as_edition(edition), options=options or {}, seats=seats, bots=bots,
                                start=start, **extra))
    table = await host.expect("table", where=lambda m: m["table"]["name"] == name and m["table"]["bots"] == bots)
    assert table["table"]["you"] == 0
    return int(table["table"]["id"])


async def join(client: TestClient, table_id: int, seat: int | None = None) -> int:
    """Sit down at a table; returns the seat."""
    await client.send(Join(table=table_id, seat=seat))
    detail = await client.expect("table",
                                 where=lambda m: m["table"]["id"] == table_id and m["table"]["you"] is not None)
    return int(detail["table"]["you"])


async def start(host: TestClient) -> None:
    """Start the game at the host's table (the players' loops then read the first state)."""
    await host.send(Start())


async def storage_barrier(client: TestClient) -> None:
    """Wait until the server's database thread has done every write queued so far: the leaderboard
    query runs on that same thread, in order, after them."""
    await client.request(STORAGE_BARRIER, "leaderboard")


# --- a protocol-level player ------------------------------------------------------------------------
Policy = Callable[[dict[str, Any], random.Random], str]


def random_policy(view: dict[str, Any], rng: random.Random) -> str:
    return str(rng.choice(view["legal"]))


def highest_number_policy(view: dict[str, Any], rng: random.Random) -> str:
    """Push the total up: the highest legal number card, else anything legal."""
    numbers = [c for c in view["legal"] if c.isdigit()]
    return max(numbers, key=int) if numbers else random_policy(view, rng)


def may_act(view: dict[str, Any]) -> bool:
    return view["seat"] is not None and bool(view["legal"]) and (
        view["turn"] == view["seat"] or "draw" in view["legal"])


@dataclass
class PlayLog:
    """What one player's loop saw and did."""

    states: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    sent: list[tuple[int, str]] = field(default_factory=list)  # (version, action)

    @property
    def last_view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.states[-1]["view"]
        return view


def resumed_history(client: TestClient, state: dict[str, Any], last_seen: dict[str, Any]) -> list[dict[str, Any]]:
    """The events sent as history to ``client``, which came back having seen up to the state
    ``last_seen`` (its hello's ``seen``), before ``state``, its first state since. Checked: its log is
    not started over; they are every event after the last one it saw, each once (none missed, none
    twice); ``state`` is no older than ``last_seen``."""
    history = [m for m in client.received if m["t"] == "history"]
    assert not any(m["reset"] for m in history), "the client's log was started over"
    missed = [e for m in history for e in m["events"]]
    assert state["seq"] == last_seen["seq"] + len(missed) + len(state["events"]), "events missed or repeated"
    assert state["view"]["version"] >= last_seen["view"]["version"], "a state older than one seen"
    return missed


async def play(client: TestClient, rng: random.Random, *, policy: Policy = random_policy,
               stop: Callable[[dict[str, Any]], bool] | None = None, log: PlayLog | None = None,
               initial: dict[str, Any] | None = None, tolerated: Sequence[str] = LATE_ACT_ERRORS,
               timeout: float = TIMEOUT) -> PlayLog:
    """React to ``state`` messages with legal actions (``policy``) until the game is over, or until
    ``stop(state_message)`` holds (checked before acting on it). ``initial`` is a state message
    already read. Any error other than a ``tolerated`` one fails the test (a race with a bot's move
    can make an action stale, or come after a bot's move ended the game: it was not applied)."""
    log = log if log is not None else PlayLog()
    acted: set[int] = set()
    pending = [initial] if initial is not None else []
    while True:
        message = pending.pop() if pending else await client.recv(timeout)
        kind = message.get("t")
        if kind == "error":
            log.errors.append(message)
            assert message["code"] in tolerated, f"unexpected error: {message}"
            continue
        if kind != "state":
            continue
        log.states.append(message)
        view = message["view"]
        if view["winner"] is not None or (stop is not None and stop(message)):
            return log
        if may_act(view) and view["version"] not in acted:
            acted.add(view["version"])
            action = policy(view, rng)
            log.sent.append((view["version"], action))
            await client.send(Act(action=action, version=view["version"]))


async def play_client(client: Client, timeout: float = TIMEOUT) -> int:
    """Play the first legal action whenever it is this client's move, until the game is over;
    return the winner."""
    while True:
        message = await client.recv(timeout)
        if message["t"] != "state":
            continue
        view = message["view"]
        if view["winner"] is not None:
            return int(view["winner"])
        if view["legal"] and (view["turn"] == view["seat"] or "draw" in view["legal"]):
            await client.send(Act(action=view["legal"][0], version=view["version"]))


async def play_all(players: Sequence[TestClient], seed: int, **kwargs: Any) -> list[PlayLog]:
    return list(await asyncio.gather(*(play(p, random.Random(seed * 100 + i), **kwargs)
                                       for i, p in enumerate(players))))


def events_of(states: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for s in states for e in s["events"]]


def plays_of(events: Sequence[dict[str, Any]]) -> list[tuple[int, list[str], int]]:
    return [(e["seat"], e["cards"], e["total"]) for e in events if e["e"] == "play"]


def record_events(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for hand in record["hands"] for e in hand["events"]]


# --- the real game behind a table, replayed ---------------------------------------------------------
def hands_by_version(table: Any) -> dict[int, tuple[tuple[str, ...], ...]]:
    """Every seat's hand at every version the table's game reached, rebuilt from its seed and its
    actions through the rules engine (exactly what the server did)."""
    game = Game(table.options, table.seat_count, random.Random(table.seed))

    def hands() -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(c.code for c in game.hand_of(s)) for s in range(game.seats))

    out = {game.version: hands()}
    for seat, code in table.actions:
        game.apply(seat, Action.parse(code))
        out[game.version] = hands()
    return out


def card_lists(value: Any, path: str = "") -> list[tuple[str, list[str]]]:
    """Every list made only of card codes anywhere in a message, with its path."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += card_lists(item, f"{path}.{key}")
    elif isinstance(value, list):
        if value and all(isinstance(v, str) and v in CARD_CODES for v in value):
            found.append((path, value))
        for i, item in enumerate(value):
            found += card_lists(item, f"{path}[{i}]")
    return found


# --- the ono99 command ------------------------------------------------------------------------------
@dataclass
class Completed:
    returncode: int
    stdout: str
    stderr: str


async def ono99(*args: str, timeout: float = 60.0) -> Completed:
    """Run ``ono99 ARGS`` (the installed command's module) without blocking the event loop."""
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "ono99_tui.cli", *args, cwd=ROOT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return Completed(proc.returncode, out.decode(), err.decode())


async def export_and_check(db: Path | str | None, out: Path) -> list[dict[str, Any]]:
    """``ono99 records export --db`` then ``ono99 records check``; both must succeed. Returns the
    exported records."""
    assert db is not None, "a server that keeps no database"
    exported = await ono99("records", "export", "--db", str(db), "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    checked = await ono99("records", "check", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{len(records)} record{'s' if len(records) != 1 else ''} checked: {len(records)} valid, 0 faulty" \
        in checked.stdout, checked.stdout
    return records


def tls_socket_that_never_reads(port: int, data: bytes, receive_buffer: int = 4096) -> ssl.SSLSocket:
    """A TLS connection with a small receive buffer that sends ``data`` and then reads nothing, ever
    (blocking: run it in an executor). Close it when done."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    raw.settimeout(TIMEOUT)
    raw.connect(("127.0.0.1", port))
    tls = client_context().wrap_socket(raw)
    tls.sendall(data)
    return tls


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (``ono99 serve --port 0`` turns TCP off)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """``ono99 serve`` as a real process (for kill -9)."""

    LISTENING = re.compile(r"listening on \S+:(\d+)")
    CERTIFICATE = re.compile(r"tls: certificate (SHA256:\S+)")

    def __init__(self, db: Path | str, log_path: Path, *args: str, host: str = "127.0.0.1",
                 env: Mapping[str, str] | None = None, wrapper: Sequence[str] = ()) -> None:
        """``env``: the process's environment (default: this one's); ``wrapper``: a command that runs
        it (``ip netns exec NAME``: in a network namespace), which must exec it in its place."""
        self.db = db
        self.log_path = log_path
        self.args = args
        self.host = host
        self.env = env
        self.wrapper = tuple(wrapper)
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self.fingerprint = ""  # of its TLS certificate, as its banner says
        self.banner: list[str] = []

    async def start(self) -> int:
        self.banner = []  # this start's
        with self.log_path.open("ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                *self.wrapper, sys.executable, "-m", "ono99_tui.cli", "serve", "--host", self.host,
                "--port", str(self.port or free_port()),  # a restart (or a test) chose it
                "--db", str(self.db), *self.args, *self._ssh_off(), cwd=ROOT, stdout=asyncio.subprocess.PIPE,
                stderr=log, env=None if self.env is None else dict(self.env))
        assert self.proc.stdout is not None
        while not any("stop with" in line for line in self.banner):  # the banner's last line
            line = (await asyncio.wait_for(self.proc.stdout.readline(), TIMEOUT)).decode()
            assert line, f"the server exited while starting; see {self.log_path}"
            self.banner.append(line)
            match = self.LISTENING.search(line)
            if match:
                self.port = int(match.group(1))
            certificate = self.CERTIFICATE.search(line)
            if certificate:
                self.fingerprint = certificate.group(1)
        assert self.port, self.banner
        return self.port

    def _ssh_off(self) -> tuple[str, ...]:
        """SSH and the web stay off unless the test asks for them: no worker takes a default port."""
        return (() if "--ssh-port" in self.args else ("--ssh-port", "0")) + \
            (() if "--web-port" in self.args else ("--web-port", "0"))

    async def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        assert await asyncio.wait_for(self.proc.wait(), TIMEOUT) == -signal.SIGKILL

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), TIMEOUT)
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()


@dataclass
class KillRig:
    """A real ``ono99 serve`` process to kill -9 (``first``) and the one to start on its database
    after (``second``), with Alice (the host, seat 0) and Bob seated at a table of two bots; the
    test adds to ``clients`` the connections it opens."""

    first: ServerProcess
    second: ServerProcess
    alice: TestClient
    bob: TestClient
    bob_seat: int
    table_id: int
    clients: list[TestClient]


@contextlib.asynccontextmanager
async def alice_and_bob_on_a_server_to_kill(tmp_path: Path, bot_delay: str,
                                            db: Path | str | None = None) -> AsyncIterator[KillRig]:
    """Alice and Bob at a table of four with two bots, not started, on a real server process
    (--grace 60, --bot-delay ``bot_delay``, no turn clock, players as fast as bots) on ``db`` (by
    default an SQLite file in ``tmp_path``); every client is closed and both processes stopped at
    the end."""
    db = db if db is not None else tmp_path / "live.db"
    args = ("--grace", "60", "--bot-delay", bot_delay, "--turn-seconds", "0", "--messages-per-second", "10000")
    first = ServerProcess(db, tmp_path / "first.log", *args)
    second = ServerProcess(db, tmp_path / "second.log", *args)
    clients: list[TestClient] = []
    try:
        port = await first.start()
        alice = await TestClient.connect("127.0.0.1", port, "alice")
        bob = await TestClient.connect("127.0.0.1", port, "bob")
        clients += [alice, bob]
        table_id = await create_table(alice, seats=4, bots=2)
        bob_seat = await join(bob, table_id)
        yield KillRig(first, second, alice, bob, bob_seat, table_id, clients)
    finally:
        for client in clients:
            await client.close()
        await first.stop()
        await second.stop()
