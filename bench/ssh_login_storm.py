"""A login storm: many SSH logins from as many addresses while the fronts are busy redrawing.

Starts ``ono99 serve --ssh-workers W`` on 127.0.0.1 with the SSH front's own limits on logins
waiting (64 in all, 4 per address, per worker) and:

  load     a separate process (this script with --load, at nice 10 like the fronts): four TCP
           players play a private table at full speed (each acts as soon as a state lets it, a
           rematch after each game), and --watchers asyncssh clients with a PTY watch it (user name
           watch-CODE), so every move is a redraw in each of them;
  storm    in this process: --logins asyncssh clients, each from a loopback address of its own
           (127.0.x.y), spread evenly over --spread seconds, each with a new key whose user name
           is its name (straight to the lobby). Each is timed from opening its TCP connection to
           the lobby's first line on its terminal ("you are NAME").

Each login ends as one of: opened (the lobby was drawn), told to retry (the front said in words why
not: a disconnect reason, or a line on the terminal, with no lobby), or reset (the connection ended
with no words: reset, closed, or not answered within --patience seconds). CPU (user+system, /proc)
of the fronts and of the game server over the storm.

Run: python bench/ssh_login_storm.py --logins 300 --spread 15 --watchers 100 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import collections
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

from measuring import HOST, free_port, log_in_all, measured, percentile, start_serve, stop_serve

from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import Act, CreateTable, Join, Rematch, Start
from ono99_tui.client.connection import Client

LOBBY_MARK = b"you are"
ANSI = re.compile(rb"\x1b\[[0-9;?$]*[A-Za-z]|\x1b\][^\x07]*\x07")


def start_server(workdir: Path, workers: int, sessions: int) -> tuple[subprocess.Popen[bytes], int, int]:
    ssh_port = free_port()
    proc, banner = start_serve(
        workdir, "--host", HOST, "--port", str(free_port()), "--db", str(workdir / "storm.db"), "--ssh-port",
        str(ssh_port), "--ssh-workers", str(workers), "--bot-delay", "0", "--turn-seconds", "0", "--max-per-address",
        "10000", "--max-connections", "10000", "--max-waiting-per-address", "256", "--messages-per-second", "10000",
        "--ssh-max-sessions", str(sessions), "--ssh-max-per-address", str(sessions),
        "--ssh-idle-timeout", "3600", "--log-level", "warning", "--no-advertise")
    tcp = re.search(r"listening on [\d.]+:(\d+)", banner)
    assert tcp, banner
    return proc, int(tcp.group(1)), ssh_port


# --- the load: a table at full speed and its SSH watchers (a process of its own) --------------------------
async def watch(port: int, username: str, key: asyncssh.SSHKey, address: str) -> asyncssh.SSHClientConnection:
    conn = await asyncssh.connect(HOST, port, username=username, client_keys=[key], known_hosts=None,
                                  agent_path=None, config=[], local_addr=(address, 0))
    _, stdout, _ = await conn.open_session(term_type="xterm-256color", term_size=(100, 30), encoding=None)

    async def read() -> None:
        with contextlib.suppress(Exception):
            while await stdout.read(65536):
                pass

    asyncio.get_running_loop().create_task(read())
    return conn


async def play_fast(clients: list[Client], rng: random.Random) -> None:
    async def play(seat: int, client: Client) -> None:
        while True:
            message = await client.recv(3600)
            kind = message.get("t")
            if kind == "table" and message["table"]["status"] == "finished" and seat == 0:
                await client.send(Rematch())
            if kind != "state":
                continue
            view = message["view"]
            if view["winner"] is None and view["legal"] and (view["turn"] == seat or "draw" in view["legal"]):
                await client.send(Act(action=rng.choice(view["legal"]), version=view["version"]))

    await asyncio.gather(*(play(s, c) for s, c in enumerate(clients)))


async def load(tcp_port: int, ssh_port: int, watchers: int) -> None:
    clients = [await Client.connect(HOST, tcp_port, f"fast{i}") for i in range(4)]
    await clients[0].send(CreateTable(name="fast", seats=4, private=True, turn_seconds=0))
    code = (await clients[0].expect("table"))["table"]["code"]
    for client in clients[1:]:
        await client.send(Join(code=code))
        await client.expect("table", where=lambda m: m["table"]["you"] is not None)
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(watchers)]
    for i, key in enumerate(keys):  # each key owns a name, which watch-CODE then enters under
        named = await Client.connect(HOST, tcp_port, f"w{i}", identity=Identity(key))
        await named.close()
    conns = await log_in_all(watchers, lambda i, address: watch(ssh_port, f"watch-{code}", keys[i], address))
    await clients[0].send(Start())
    print("ready", flush=True)
    await play_fast(clients, random.Random(1))
    del conns


# --- the storm ----------------------------------------------------------------------------------------
class Watched(asyncssh.SSHClient):
    """Sees the connection as soon as its TCP handshake is done, before the login ends."""

    def __init__(self, login: Login) -> None:
        self.login = login

    def connection_made(self, conn: asyncssh.SSHClientConnection) -> None:
        self.login.conn = conn


class Login:
    def __init__(self, index: int, key: asyncssh.SSHKey) -> None:
        self.index = index
        self.key = key
        self.outcome = "reset"
        self.words = ""
        self.seconds = 0.0
        self.conn: asyncssh.SSHClientConnection | None = None
        self.session = False
        self.output = 0

    def stage(self) -> str:
        """How far a login that got no answer went: where it waited (asyncssh's own state, read for this)."""
        conn = self.conn
        if conn is None:
            return "no TCP connection"
        if not getattr(conn, "_server_version", b""):
            return "TCP, no SSH version line"
        if not getattr(conn, "_auth_complete", False):
            return "key exchange unfinished" if not getattr(conn, "_kex_complete", False) else "auth unfinished"
        if not self.session:
            return "logged in, no session"
        return "session, no output" if not self.output else "output, no lobby"

    async def run(self, port: int, address: str, patience: float) -> None:
        started = time.perf_counter()
        output = bytearray()
        try:
            async with asyncio.timeout(patience):
                self.conn = await asyncssh.connect(HOST, port, username=f"s{self.index}", client_keys=[self.key],
                                                   known_hosts=None, agent_path=None, config=[],
                                                   local_addr=(address, 0), client_factory=lambda: Watched(self))
                _, stdout, _ = await self.conn.open_session(term_type="xterm-256color", term_size=(100, 30),
                                                            encoding=None)
                self.session = True
                while LOBBY_MARK not in output:
                    data = await stdout.read(65536)
                    if not data:
                        break
                    output += data
                    self.output = len(output)
            if LOBBY_MARK in output:
                self.outcome, self.seconds = "opened", time.perf_counter() - started
                return
            self.words = words_in(bytes(output))
        except asyncssh.ConnectionLost:  # closed with no reason given (asyncssh says "Connection lost")
            self.words = words_in(bytes(output)) if output else ""
            if not self.words:
                self.outcome = "reset (closed)"
                return
        except asyncssh.DisconnectError as exc:
            self.words = exc.reason.strip()
        except (OSError, asyncssh.Error, TimeoutError) as exc:
            self.words = words_in(bytes(output)) if output else ""
            if not self.words:
                self.outcome = f"reset ({type(exc).__name__}: {self.stage()})" if isinstance(exc, TimeoutError) \
                    else f"reset ({type(exc).__name__})"
                return
        self.outcome = "told" if self.words else "reset (closed)"

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def words_in(output: bytes) -> str:
    """The text a terminal shows of ``output``, escape sequences left out."""
    return " ".join(ANSI.sub(b" ", output).decode(errors="replace").split())[:200]


def storm_address(index: int) -> str:
    return f"127.1.{index // 250}.{1 + index % 250}"


async def storm(ssh_port: int, logins: int, spread: float, patience: float) -> list[Login]:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(logins)]
    attempts = [Login(i, key) for i, key in enumerate(keys)]

    async def one(login: Login) -> None:
        await asyncio.sleep(login.index * spread / logins)
        await login.run(ssh_port, storm_address(login.index), patience)

    await asyncio.gather(*(one(login) for login in attempts))
    return attempts


async def run(workers: int, watchers: int, logins: int, spread: float, patience: float) -> None:
    with tempfile.TemporaryDirectory(prefix="ono99-storm-") as tmp:
        proc, tcp_port, ssh_port = start_server(Path(tmp), workers, watchers + logins + 10)
        loader = None
        attempts: list[Login] = []
        try:
            loader = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--load", str(tcp_port), str(ssh_port), str(watchers),
                stdout=asyncio.subprocess.PIPE, preexec_fn=lambda: os.nice(10))
            assert loader.stdout is not None
            line = await asyncio.wait_for(loader.stdout.readline(), 600)
            assert line.strip() == b"ready", line
            await asyncio.sleep(3)  # the watchers' first screens settle; the table is at full speed
            uptime = os.getloadavg()
            attempts, span = await measured(proc.pid, storm(ssh_port, logins, spread, patience))
            outcomes = collections.Counter(a.outcome for a in attempts)
            opened = [a.seconds * 1000 for a in attempts if a.outcome == "opened"]
            told = outcomes.get("told", 0)
            reset = sum(n for o, n in outcomes.items() if o.startswith("reset"))
            p50 = f"{statistics.median(opened):,.0f} ms" if opened else "-"
            p99 = f"{percentile(opened, 0.99):,.0f} ms" if opened else "-"
            print(f"| {workers} | {watchers} | {logins} in {spread:g} s | {len(opened)} | {told} | {reset} | {p50} "
                  f"| {p99} | {span.fronts_cpu:.1f} s | {span.game_cpu:.1f} s | {uptime[0]:.1f} |", flush=True)
            for outcome, count in sorted(outcomes.items()):
                if outcome != "opened":
                    print(f"  {outcome}: {count}", flush=True)
            for text, count in collections.Counter(a.words for a in attempts if a.words).most_common(3):
                print(f"  said {count}×: {text!r}", flush=True)
            logged = collections.Counter(re.sub(r"\d+", "N", line.split(" ", 3)[-1])[:120]
                                         for line in (Path(tmp) / "server.log").read_text(errors="replace").splitlines()
                                         if "ssh" in line or "front" in line)
            for text, count in logged.most_common(5):
                print(f"  logged {count}×: {text}", flush=True)
            errors = collections.Counter(line.strip()[:160] for line in
                                         (Path(tmp) / "server.log").read_text(errors="replace").splitlines()
                                         if re.match(r"\s*\w+(Error|Exception)\b", line))
            for text, count in errors.most_common(3):
                print(f"  error {count}×: {text}", flush=True)
        finally:
            for attempt in attempts:
                attempt.close()
            if loader is not None:
                with contextlib.suppress(ProcessLookupError):
                    loader.terminate()
                await loader.wait()
            stop_serve(proc)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logins", type=int, nargs="+", default=[300])
    parser.add_argument("--spread", type=float, default=15.0, help="seconds over which the logins start")
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--patience", type=float, default=120.0, help="seconds a login may take")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average at the start {os.getloadavg()[0]:.1f}")
    print("| workers | watchers | logins | opened | told to retry | reset or dropped | first lobby p50 | p99 "
          "| fronts CPU | game server CPU | load average before |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for workers in args.workers:
        for logins in args.logins:
            await run(workers, args.watchers, logins, args.spread, args.patience)


def load_main(argv: list[str]) -> None:
    tcp_port, ssh_port, watchers = (int(a) for a in argv)
    asyncio.run(load(tcp_port, ssh_port, watchers))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        load_main(sys.argv[2:])
    else:
        asyncio.run(main())

