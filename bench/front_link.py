"""What a front's link saves: W watchers following a full-speed game, as a front process holds them, on
connections of their own (one TLS connection and one decode per watcher, as before) or as channels of
one link (docs/protocol.md section 3c). No terminal is drawn: each watcher takes in what it gets the way
a session's app does first (every message decoded into the wire model's typed values), so the figures
are what the link changes and nothing else.

The game server is ``ono99 serve`` (no SSH, no web) in a process of its own; this process is the
front. Two players on plain connections play the game's moves as fast as the server answers; over
--moves moves: this process's CPU (the front's part) and the game server's, per move and per watcher.

Run: python bench/front_link.py --watchers 100 300 [--moves 30]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from measuring import HOST, cpu_seconds, free_port, start_serve, stop_serve, watched_game

from ono99_kernel.fronts import FrontAssertion
from ono99_kernel.protocol import PROTOCOL_VERSION
from ono99_kernel.wire.requests import Act, Hello, Spectate
from ono99_tui.client.connection import Client
from ono99_tui.client.decoding import decode_shared
from ono99_tui.client.front_link import FrontLinkClient
from ono99_tui.links import Link

CREDENTIAL = "bench-front-link-credential-0123456789abcdef"
# Watchers who start watching at once: each arrival sends the table to everyone at it, and the players, read
# by this same busy process, were dropped as too slow when 300 arrived in one go.
ARRIVING = 50


async def follow(link: Link, seen: list[int]) -> None:
    """Take in every message as an app does (decoded into typed values); count them, and the states."""
    while (message := await link.inbox.get()) is not None:
        seen[1] += 1
        if decode_shared(message).t == "state":
            seen[0] += 1


async def settled(seen: list[list[int]]) -> None:
    """Until no watcher has taken in anything for a second (their arrivals' table updates, the last moves)."""
    last = -1
    while (total := sum(s[1] for s in seen)) != last:
        last = total
        await asyncio.sleep(1.0)


async def play(players: dict[int, Client], moves: int) -> int:
    """Both players play their first legal card (drawing only when they must) as soon as it is their turn."""
    made = 0
    views: dict[int, dict[str, Any]] = {}
    while made < moves:
        for seat, client in players.items():
            while not client.inbox.empty():
                message = client.inbox.get_nowait()
                if message is not None and message.get("t") == "state":
                    views[seat] = message["view"]
        turn_views = [(seat, v) for seat, v in views.items() if v.get("turn") == seat and v.get("legal")]
        if not turn_views:
            if any(v.get("winner") is not None for v in views.values()):
                return made
            await asyncio.sleep(0.001)
            continue
        seat, view = turn_views[0]
        legal = [str(a) for a in view["legal"]]
        action = next((a for a in legal if a != "draw"), legal[0])
        await players[seat].send(Act(action=action, version=int(view["version"])))
        del views[seat]
        made += 1
    return made


async def one_run(port: int, watchers: int, moves: int, linked: bool, server_pid: int) -> str:
    tag = f"{'l' if linked else 'c'}{watchers}"
    async with watched_game(port, tag) as (players, code):
        links: list[Link] = []
        front = FrontLinkClient(HOST, port, CREDENTIAL, None, "bench") if linked else None
        for index in range(watchers):
            assertion = FrontAssertion(CREDENTIAL, f"127.0.{1 + index // 250}.{1 + index % 250}", None)
            name = f"{tag}w{index}"
            if front is not None:
                links.append(await front.open_channel(Hello(version=PROTOCOL_VERSION, name=name, client="bench",
                                                            front=assertion.to_wire())))
            else:
                links.append(await Client.connect(HOST, port, name, front=assertion, client_name="bench"))
        seen = [[0, 0] for _ in links]
        tasks = [asyncio.create_task(follow(link, s)) for link, s in zip(links, seen, strict=True)]
        for first in range(0, len(links), ARRIVING):
            for link in links[first:first + ARRIVING]:
                await link.send(Spectate(code=code))
            await settled(seen)
        states0 = sum(s[0] for s in seen)
        front0, game0, started = time.process_time(), cpu_seconds(server_pid), time.perf_counter()
        made = await play(players, moves)
        await settled(seen)  # the last states reach every watcher (a second with nothing more is counted)
        front_cpu, game_cpu = time.process_time() - front0, cpu_seconds(server_pid) - game0
        wall = time.perf_counter() - started
        for link in links:
            await link.close()
        for task in tasks:
            task.cancel()
        if front is not None:
            await front.close()
        states = sum(s[0] for s in seen) - states0
        mode = "one link" if linked else "a connection each"
        return (f"| {mode} | {watchers} | {made} | {states} | {wall:.1f} s | {front_cpu:.2f} s | "
                f"{front_cpu / max(1, made) * 1000:.1f} ms | {front_cpu / max(1, states) * 1e6:.0f} µs | "
                f"{game_cpu:.2f} s | {game_cpu / max(1, made) * 1000:.1f} ms |")


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "credential").write_text(CREDENTIAL + "\n")
        (workdir / "credential").chmod(0o600)
        port = free_port()
        proc, _banner = start_serve(workdir, "--port", str(port), "--ssh-port", "0", "--no-advertise",
                                    "--bot-delay", "0", "--turn-seconds", "0", "--db", str(workdir / "x.db"),
                                    "--front-credential-file", str(workdir / "credential"))
        try:
            print("| watchers on | watchers | moves | states taken in | wall | front CPU | per move | "
                  "per state taken in | game server CPU | per move |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for watchers in args.watchers:
                for linked in (False, True):
                    print(await one_run(port, watchers, args.moves, linked, proc.pid), flush=True)
        finally:
            stop_serve(proc)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, nargs="+", default=[100, 300])
    parser.add_argument("--moves", type=int, default=30, help="at most: a game of two may end sooner")
    asyncio.run(main(parser.parse_args()))
