"""SSH players at human pace: N asyncssh clients with a PTY, seated four to a table, each pressing
a key 1 to 3 s after its turn comes, against ``ono99 serve --ssh-workers W``.

Set-up (not measured): every player's key gets a name and a seat over TCP (the key's identity),
then the player comes in over SSH with that key, which brings it back to its seat; the first
player of each table starts the game with ``s``. A TCP spectator at each table (not measured)
tells the bench whose turn it is. On its turn a player waits 1 to 3 s, then presses 1, 2, 3, 4
and f in turn, 0.4 s apart, until the move is made (the app refuses a card it cannot play); the
press that made the move is the one before the spectator saw it.

With --watching W, that share of the N sessions watches instead of playing: SSH clients with a
PTY logged in as watch-CODE (their keys named over TCP first), spread evenly over the tables; they
press nothing. The tables are private, so that each has its invite code.

Measured over --seconds: per move, from that key press until every seat's terminal has received
output after it (the move drawn on all four screens), p50/p99; the CPU (user+system, /proc) of the
fronts and of the game server per player-minute (every session, playing or watching, is a player
here), and the fronts' CPU per move made; the fronts' resident memory per session above the idle
fronts.

With --private-screens every session draws its own screen; by default spectators with the same
terminal share one app's drawing (ono99_tui/front/sharing.py), once the watch-CODE hint (20 s) is gone:
--settle 22 measures after it.

Run: python bench/ssh_human_pace.py --players 20 60 --workers 1 2 [--seconds 40] [--watching 0.67]
     [--private-screens] [--settle 22]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from measuring import HOST, children, free_port, log_in_all, measured, percentile, rss, start_serve, stop_serve

from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import CreateTable, Join, Spectate
from ono99_tui.client.connection import Client

TIMEOUT = 120.0
KEYS_TO_TRY = (b"1", b"2", b"3", b"4", b"f")


class Player:
    """One SSH client with a PTY; remembers when its terminal last received output."""

    def __init__(self, key: asyncssh.SSHKey) -> None:
        self.key = key
        self.stdin: Any = None
        self.conn: asyncssh.SSHClientConnection | None = None
        self.outputs: list[float] = []  # when output arrived (the last few hundred)
        self.got = asyncio.Event()

    async def open(self, port: int, address: str, username: str = "player") -> None:
        self.conn = await asyncssh.connect(HOST, port, username=username, client_keys=[self.key], known_hosts=None,
                                           agent_path=None, config=[], local_addr=(address, 0))
        self.stdin, stdout, _ = await self.conn.open_session(term_type="xterm-256color", term_size=(100, 30),
                                                             encoding=None)
        asyncio.get_running_loop().create_task(self._read(stdout))

    async def _read(self, stdout: Any) -> None:
        with contextlib.suppress(Exception):
            while await stdout.read(65536):
                self.outputs.append(time.perf_counter())
                if len(self.outputs) > 500:
                    del self.outputs[:250]
                self.got.set()

    def output_after(self, moment: float) -> float | None:
        return next((t for t in self.outputs if t > moment), None)

    def press(self, key: bytes) -> float:
        self.stdin.write(key)
        return time.perf_counter()


async def seat_everyone(tcp_port: int, keys: list[asyncssh.SSHKey]) -> list[tuple[int, str]]:
    """Private tables of four, every seat taken by a key over TCP; returns each table's id and invite code."""
    tables = []
    for start in range(0, len(keys), 4):
        clients = [await Client.connect(HOST, tcp_port, f"p{start + i}", identity=Identity(keys[start + i]))
                   for i in range(4)]
        await clients[0].send(CreateTable(name=f"t{start // 4}", seats=4, turn_seconds=0, private=True))
        table = (await clients[0].expect("table"))["table"]
        for client in clients[1:]:
            await client.send(Join(code=table["code"]))
            await client.expect("table", where=lambda m: m["table"]["you"] is not None)
        for client in clients:
            await client.close()
        tables.append((int(table["id"]), str(table["code"])))
    return tables


async def name_keys(tcp_port: int, keys: list[asyncssh.SSHKey]) -> None:
    """Each key enters once over TCP, which gives it a name that watch-CODE then enters under."""
    for i, key in enumerate(keys):
        client = await Client.connect(HOST, tcp_port, f"w{i}", identity=Identity(key))
        await client.close()


async def run_table(spectator: Client, players: list[Player], end: float, rng: random.Random,
                    latencies: list[float]) -> None:
    """Play the table at human pace until ``end``; note each move's key-to-every-screen time."""
    presses: dict[int, float] = {}
    turn_task: asyncio.Task[None] | None = None

    async def take_turn(seat: int, version: int, current: dict[str, int]) -> None:
        await asyncio.sleep(rng.uniform(1.0, 3.0))
        for key in KEYS_TO_TRY * 3:
            if current["version"] != version:
                return
            presses[seat] = players[seat].press(key)
            await asyncio.sleep(0.4)

    current = {"version": -1}
    while time.perf_counter() < end:
        try:
            message = await spectator.expect("state", timeout=max(0.1, end - time.perf_counter()))
        except TimeoutError:
            break
        view = message["view"]
        current["version"] = view["version"]
        for event in message["events"]:
            seat = event.get("seat")
            if event["e"] == "play" and seat in presses:
                pressed = presses.pop(seat)
                asyncio.get_running_loop().create_task(note_latency(players, pressed, latencies))
        if view["winner"] is not None:
            break
        if view["turn"] is not None and (turn_task is None or turn_task.done()):
            turn_task = asyncio.create_task(take_turn(view["turn"], view["version"], current))
        elif view["turn"] is not None and turn_task is not None:
            turn_task.cancel()
            turn_task = asyncio.create_task(take_turn(view["turn"], view["version"], current))
    if turn_task is not None:
        turn_task.cancel()


async def note_latency(players: list[Player], pressed: float, latencies: list[float]) -> None:
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline:
        seen = [p.output_after(pressed) for p in players]
        if all(t is not None for t in seen):
            latencies.append((max(t for t in seen if t is not None) - pressed) * 1000)
            return
        await asyncio.sleep(0.01)


async def run(sessions: int, workers: int, seconds: float, watching: float, private: bool, settle: float,
              turn_seconds: int = 0) -> None:
    players_count = round(sessions * (1 - watching) / 4) * 4
    watchers_count = sessions - players_count
    with tempfile.TemporaryDirectory(prefix="ono99-pace-") as tmp:
        ssh_port, tcp_port = free_port(), free_port()
        proc, banner = start_serve(
            Path(tmp), "--host", HOST, "--port", str(tcp_port), "--db", str(Path(tmp) / "b.db"), "--ssh-port",
            str(ssh_port), "--ssh-workers", str(workers), "--bot-delay", "10", "--turn-seconds", str(turn_seconds),
            "--grace", "3600", "--max-per-address", "10000", "--max-connections", "10000", "--ssh-max-sessions", "1000",
            "--ssh-max-per-address", "1000", "--ssh-idle-timeout", "3600", "--log-level", "info",
            "--no-advertise", *(["--ssh-private-screens"] if private else []))
        try:
            assert re.search(r"ssh workers: \d+", banner), banner
            fronts = children(proc.pid)
            idle_rss = sum(rss(p) for p in fronts)
            keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(players_count)]
            tables = await seat_everyone(tcp_port, keys)
            players = [Player(k) for k in keys]
            await log_in_all(len(players), lambda i, address: players[i].open(ssh_port, address))
            watch_keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(watchers_count)]
            await name_keys(tcp_port, watch_keys)
            watchers = [Player(k) for k in watch_keys]  # spread over the tables, one after the other
            await log_in_all(len(watchers), lambda i, address: watchers[i].open(
                ssh_port, f"127.0.200.{1 + i % 250}", f"watch-{tables[i % len(tables)][1]}"))
            await asyncio.sleep(2)
            spectators = []
            for table_id, code in tables:
                spectator = await Client.connect(HOST, tcp_port, f"s{table_id}")
                await spectator.send(Spectate(code=code))
                await spectator.expect("table")
                spectators.append(spectator)
            for index in range(0, len(players), 4):
                players[index].press(b"s")  # the host starts the game
            await asyncio.sleep(settle)
            latencies: list[float] = []
            end = time.perf_counter() + seconds
            _, span = await measured(proc.pid, asyncio.gather(
                *(run_table(s, players[4 * i:4 * i + 4], end, random.Random(i), latencies)
                  for i, s in enumerate(spectators))))
            player_minutes = sessions * span.seconds / 60
            game = span.game_cpu * 1000 / player_minutes
            front = span.fronts_cpu * 1000 / player_minutes
            per_session = (sum(rss(p) for p in fronts) - idle_rss) / sessions / 2**20
            print(f"| {'own apps' if private else 'shared'} | {workers} | {players_count} + {watchers_count} "
                  f"| {len(latencies)} | {span.fronts_cpu:.1f} s "
                  f"| {statistics.median(latencies):.0f} ms "
                  f"| {percentile(latencies, 0.99):.0f} ms "
                  f"| {front:.0f} ms | {span.fronts_cpu * 1000 / max(1, len(latencies)):.0f} ms "
                  f"| {game:.1f} ms | {per_session:.2f} MiB | {os.getloadavg()[0]:.1f} |", flush=True)
            print(f"  shared screens at the span's end: {shared_screens(Path(tmp) / 'server.log')}", flush=True)
            for spectator in spectators:
                await spectator.close()
            for player in players + watchers:
                if player.conn is not None:
                    player.conn.close()
        finally:
            stop_serve(proc)


def shared_screens(log_file: Path) -> str:
    """What each front process last said of its shared screens (ono99_tui/front/sharing.py)."""
    last: dict[str, str] = {}
    for line in log_file.read_text(errors="replace").splitlines():
        found = re.search(r"ssh front (\d+): (\d+ sessions drawn by \d+ shared screens)", line)
        if found:
            last[found.group(1)] = found.group(2)
    return "; ".join(last.values()) or "none"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[20, 60], help="multiples of 4")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--watching", type=float, default=0.0,
                        help="the share of the sessions that watch a table over SSH instead of playing (0 to 1)")
    parser.add_argument("--private-screens", action="store_true",
                        help="every SSH session draws its own screen (ono99 serve --ssh-private-screens)")
    parser.add_argument("--turn-seconds", type=int, default=0,
                        help="the tables' turn clock (0: none); a running clock is redrawn every second")
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds between the games' start and the measured span (a watch-CODE session's "
                             "hint stays up 20 s, and a spectator shares its screen only once it is gone)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average at the start {os.getloadavg()[0]:.1f}")
    print("| screens | workers | players + SSH watchers | moves | fronts CPU "
          "| key press to every seat's screen: p50 | p99 "
          "| fronts CPU per player-minute (every session) "
          "| fronts CPU per move | game server CPU per player-minute | fronts memory per session | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for workers in args.workers:
        for count in args.players:
            await run(count, workers, args.seconds, args.watching, args.private_screens, args.settle, args.turn_seconds)


if __name__ == "__main__":
    asyncio.run(main())
