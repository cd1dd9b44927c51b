"""The web front under load: N websocket clients saying what the page says, against a real
``ono99 serve`` on 127.0.0.1 with one front worker, and headless Chromium for the page's first paint.

Each measurement starts its own server process (fresh database and certificate in a temporary
directory, SSH off, bots and turn clocks off, the per-address limits raised for one address). Per N
of --sessions (default 1 10 50 100):

  first screen   N websockets open at once; each is timed from its connection to the name
                 screen on its terminal ("Your name at the tables"), then types a name and is
                 timed to the lobby ("you are"). Median and p90 of each. Front and game server CPU
                 (user+system, /proc) per session, from before the first connection until the
                 output has been quiet for 1 s.
  memory         the server's and its worker's resident memory with the N sessions in the lobby,
                 and per session above the idle server.
  fan-out        the N sessions watch one table (the page of /watch/CODE) where two TCP players
                 play; each of --moves moves is one table update that every session redraws. CPU
                 from the move until every session has received its redraw and the output has been
                 quiet for 0.3 s, less the idle CPU of the same span; the time until the last
                 session received output.

The page's first paint: --page-loads loads of https://127.0.0.1:PORT/ in Chromium (Debian's
/usr/bin/chromium, driven by Playwright), each in a fresh profile, timed from the navigation's start
to the name screen's text in the page's terminal. Median and max.

Run: python bench/web_sessions.py [--sessions 1 10 50 100] [--moves 10] [--page-loads 5] [--fan-out-only]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
from measuring import HOST, ROOT, TIMEOUT, Serving, free_port, machine, percentile, quiet, table_updates, watched_game

SCREEN_TEXT = """() => {
    const buffer = window.ono99Terminal?.buffer.active;
    const lines = [];
    for (let i = 0; buffer && i < buffer.length; i++) { lines.push(buffer.getLine(i).translateToString(true)); }
    return lines.join("\\n");
}"""
OPENING_AT_ONCE = 20  # websockets opening at a time (the front opens 3 links to the game server at a time)


class WebServer(Serving):
    def __init__(self, workdir: Path, sessions: int) -> None:
        self.workdir = workdir
        self.sessions = sessions
        self.tcp_port = self.web_port = 0

    def start(self) -> None:
        web_port = free_port()
        cmd = [sys.executable, "-m", "ono99_tui.cli", "serve", "--host", HOST, "--port", str(free_port()),
               "--db", str(self.workdir / "bench.db"), "--ssh-port", "0", "--web-port", str(web_port),
               "--bot-delay", "0", "--turn-seconds", "0", "--max-per-address", "10000", "--max-connections", "10000",
               "--ssh-max-sessions", str(self.sessions), "--ssh-max-per-address", str(self.sessions),
               "--ssh-idle-timeout", "3600", "--log-level", "warning", "--ssh-workers", "1", "--no-advertise"]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=(self.workdir / "server.log").open("wb"))
        assert self.proc.stdout is not None
        banner = ""
        while "stop with" not in banner:
            line = self.proc.stdout.readline().decode()
            if not line:
                raise RuntimeError(f"the server exited; see {self.workdir / 'server.log'}")
            banner += line
        tcp = re.search(r"listening on [\d.]+:(\d+)", banner)
        assert tcp, banner
        self.tcp_port, self.web_port = int(tcp.group(1)), web_port


def tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the server's self-signed certificate
    return context


class Page:
    """One websocket as the page opens it, counting what its terminal receives."""

    def __init__(self, http: aiohttp.ClientSession, port: int) -> None:
        self.http = http
        self.port = port
        self.socket: aiohttp.ClientWebSocketResponse | None = None
        self.output = bytearray()
        self.received = 0
        self.last_output = 0.0
        self.changed = asyncio.Event()
        self.times: list[float] = []
        self.controls: list[str] = []
        self._reader: asyncio.Task[None] | None = None

    async def open(self, name: str, code: str | None = None, watch: bool = False) -> None:
        started = time.perf_counter()
        self.socket = await self.http.ws_connect(f"wss://{HOST}:{self.port}/ws", ssl=tls(),
                                                 headers={"Origin": f"https://{HOST}:{self.port}"})
        await self.socket.send_str(json.dumps({"t": "open", "cols": 100, "rows": 30, "code": code, "watch": watch}))
        self._reader = asyncio.create_task(self._read())
        await self.until(b"Your name at the tables")
        self.times.append(time.perf_counter() - started)
        started = time.perf_counter()
        await self.socket.send_bytes(name.encode() + b"\r")
        await self.until(b"spectating" if watch else b"you are")
        self.times.append(time.perf_counter() - started)
        self.output.clear()

    async def until(self, marker: bytes) -> None:
        while marker not in self.output:
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), TIMEOUT)
            except TimeoutError:
                raise TimeoutError(f"no {marker!r} after {TIMEOUT:g} s; the front said {self.controls}; the "
                                   f"terminal's last output: {bytes(self.output[-300:])!r}") from None

    async def _read(self) -> None:
        assert self.socket is not None
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.BINARY:
                if len(self.output) < 1_000_000:
                    self.output += message.data
                self.received += len(message.data)
                self.last_output = time.perf_counter()
                self.changed.set()
            elif message.type == aiohttp.WSMsgType.TEXT:
                self.controls.append(message.data)

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, TIMEOUT)


async def open_all(pages: list[Page], names: list[str], **kwargs: Any) -> None:
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def one(page: Page, name: str) -> None:
        async with gate:
            await page.open(name, **kwargs)

    await asyncio.gather(*(one(p, n) for p, n in zip(pages, names, strict=True)))


async def first_screens(server: WebServer, count: int) -> dict[str, float]:
    idle = server.rss()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        pages = [Page(http, server.web_port) for _ in range(count)]
        cpu = server.cpu()
        await open_all(pages, [f"p{i}" for i in range(count)])
        await quiet(list(pages))
        cpu = server.cpu() - cpu
        memory = server.rss()
        await asyncio.gather(*(p.close() for p in pages))
    name = [p.times[0] * 1000 for p in pages]
    lobby = [p.times[1] * 1000 for p in pages]
    return {"name_ms": statistics.median(name), "name_p90": percentile(name, 0.9),
            "lobby_ms": statistics.median(lobby), "lobby_p90": percentile(lobby, 0.9),
            "cpu_ms": cpu * 1000 / count, "rss": memory, "per_session": (memory - idle) / count}


async def fan_out(server: WebServer, count: int, moves: int) -> dict[str, float]:
    async with watched_game(server.tcp_port) as (players, code), \
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        pages = [Page(http, server.web_port) for _ in range(count)]
        try:
            await open_all(pages, [f"w{i}" for i in range(count)], code=code, watch=True)
            return await table_updates(server, list(pages), players, moves)
        finally:
            await asyncio.gather(*(p.close() for p in pages))


async def page_loads(server: WebServer, loads: int) -> list[float]:
    from playwright.async_api import async_playwright

    times: list[float] = []
    async with async_playwright() as playwright:
        for _ in range(loads):
            with tempfile.TemporaryDirectory(prefix="ono99-chromium-") as profile:
                browser = await playwright.chromium.launch_persistent_context(
                    profile, executable_path="/usr/bin/chromium", headless=True, ignore_https_errors=True,
                    args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                          "--disable-component-update", "--disable-sync"])
                page = browser.pages[0] if browser.pages else await browser.new_page()
                started = time.perf_counter()
                await page.goto(f"https://{HOST}:{server.web_port}/")
                # polled from here: the page's Content-Security-Policy refuses the evaluated predicates of
                # Playwright's own waits
                while "Your name at the tables" not in await page.evaluate(SCREEN_TEXT):
                    await asyncio.sleep(0.005)
                times.append((time.perf_counter() - started) * 1000)
                await browser.close()
    return times


@contextlib.contextmanager
def fresh_server(sessions: int) -> Iterator[WebServer]:
    with tempfile.TemporaryDirectory(prefix="ono99-web-bench-") as tmp:
        server = WebServer(Path(tmp), sessions + 10)
        server.start()
        try:
            time.sleep(1.0)
            yield server
        finally:
            server.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 50, 100])
    parser.add_argument("--moves", type=int, default=10, help="table updates measured per fan-out run")
    parser.add_argument("--page-loads", type=int, default=5, help="loads of the page in Chromium (0: none)")
    parser.add_argument("--fan-out-only", action="store_true", help="only the watching table")
    args = parser.parse_args()
    biggest = max(args.sessions)
    print(machine())
    print()
    if args.page_loads and not args.fan_out_only:
        with fresh_server(biggest) as server:
            loads = await page_loads(server, args.page_loads)
        print(f"page load to the name screen in Chromium: median {statistics.median(loads):.0f} ms, "
              f"max {max(loads):.0f} ms over {len(loads)} loads")
        print()
    print("| sessions at once | name screen: median | p90 | lobby after the name: median | p90 "
          "| CPU per session start | RSS with them | RSS per session |")
    print("|---|---|---|---|---|---|---|---|")
    for count in [] if args.fan_out_only else args.sessions:
        with fresh_server(biggest) as server:
            r = await first_screens(server, count)
        print(f"| {count} | {r['name_ms']:.0f} ms | {r['name_p90']:.0f} ms | {r['lobby_ms']:.0f} ms "
              f"| {r['lobby_p90']:.0f} ms | {r['cpu_ms']:.0f} ms | {r['rss'] / 2**20:.1f} MiB "
              f"| {r['per_session'] / 2**20:.2f} MiB |", flush=True)
    print()
    print("| sessions watching | CPU per table update (front and game) | per session | of which the game server "
          "| last redraw received | RSS with them |")
    print("|---|---|---|---|---|---|")
    for count in args.sessions:
        with fresh_server(biggest) as server:
            f = await fan_out(server, count, args.moves)
        print(f"| {count} | {f['cpu_ms']:.0f} ms | {f['cpu_ms_per_session']:.1f} ms | {f['game_ms']:.1f} ms "
              f"| {f['last_ms']:.0f} ms | {f['rss'] / 2**20:.1f} MiB |", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
