"""How fast LAN discovery follows a server: from starting its announcement to a browser listing it,
from a new table to the browser seeing it, and from shutdown to the browser dropping it.

Everything runs on the loopback interface in one process: a real server on 127.0.0.1, its
``Advertiser`` (debounce as in ``ono99 serve``: 1 s), and a ``ServerBrowser`` bound to loopback.

    .venv/bin/python bench/lan_discovery.py --rounds 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Callable

from ono99_kernel.wire.requests import CreateTable
from ono99_server import Server, ServerConfig
from ono99_server.advertiser import Advertiser
from ono99_tui.client.connection import Client
from ono99_tui.discovery import FoundServer, ServerBrowser


async def one_round(index: int, debounce: float) -> tuple[float, float, float]:
    name = f"bench {os.getpid()}-{index}"
    seen: dict[str, FoundServer] = {}
    changed = asyncio.Event()

    def on_change(servers: dict[str, FoundServer]) -> None:
        seen.clear()
        seen.update(servers)
        changed.set()

    def mine() -> FoundServer | None:
        return next((s for s in seen.values() if s.advert.name == name), None)

    async def until(condition: Callable[[], bool]) -> None:
        while not condition():
            changed.clear()
            await asyncio.wait_for(changed.wait(), 60)

    browser = ServerBrowser(on_change, ["127.0.0.1"])
    await browser.start()
    server = Server(ServerConfig(host="127.0.0.1", port=0, name=name, bot_delay=0, default_turn_seconds=0))
    await server.start()
    advertiser = Advertiser(server, debounce=debounce)
    try:
        start = time.perf_counter()
        await advertiser.start()
        await until(lambda: mine() is not None)
        found = time.perf_counter() - start

        client = await Client.connect("127.0.0.1", server.port, "bench")
        start = time.perf_counter()
        await client.send(CreateTable(edition="2022", seats=4, bots=1, name="t"))
        await until(lambda: bool((s := mine()) and s.advert.tables))
        table_seen = time.perf_counter() - start
        await client.close()

        start = time.perf_counter()
        await advertiser.close()
        await until(lambda: mine() is None)
        gone = time.perf_counter() - start
        return found, table_seen, gone
    finally:
        await advertiser.close()
        await server.close()
        await browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--debounce", type=float, default=1.0, help="the advertiser's debounce (ono99 serve: 1 s)")
    args = parser.parse_args()
    rows = [asyncio.run(one_round(i, args.debounce)) for i in range(args.rounds)]
    print(f"{args.rounds} rounds on loopback, debounce {args.debounce:g} s (median / max, ms)")
    labels = ("announced -> listed", "new table -> seen", "shutdown -> dropped")
    for label, values in zip(labels, zip(*rows, strict=True), strict=True):
        print(f"  {label:22} {statistics.median(values) * 1000:7.0f}  {max(values) * 1000:7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
