"""``ono99 serve``: run a server until SIGINT or SIGTERM, then shut down cleanly."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys

from server import Server, ServerConfig


def _join_hint(host: str, port: int) -> str:
    shown = host
    if host in ("0.0.0.0", "::", ""):
        try:
            shown = socket.gethostname()
        except OSError:
            shown = "THIS-HOST"
    return f"ono99 connect {shown}:{port}"


async def serve(config: ServerConfig) -> int:
    server = Server(config)
    try:
        await server.start()
    except OSError as exc:
        print(f"ono99 serve: cannot listen on {config.host}:{config.port}: {exc.strerror}. "
              "Is another server running? Pick another --port.", file=sys.stderr)
        await server.close()
        return 2
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    where = f"{config.host}:{server.port}"
    print(f"ONO 99 server {config.name!r} listening on {where} (protocol over TCP)", flush=True)
    print(f"  join with: {_join_hint(config.host, server.port)}", flush=True)
    if config.db_path is not None:
        print(f"  database: {config.db_path} ({server.restored_tables} tables restored)", flush=True)
    print("  stop with Ctrl+C", flush=True)
    await stop.wait()
    print("shutting down: saving tables and telling players", flush=True)
    await server.close()
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from .cli import default_db_path

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.ssh_port:
        print("ono99 serve: the SSH front is not available yet; run without --ssh-port", file=sys.stderr)
        return 2
    config = ServerConfig(host=args.host, port=args.port, name=args.name, db_path=args.db or default_db_path(),
                          grace_seconds=args.grace, default_turn_seconds=args.turn_seconds,
                          bot_delay=args.bot_delay, max_connections=args.max_connections,
                          max_connections_per_address=args.max_per_address,
                          max_tables_per_player=args.max_tables_per_player,
                          messages_per_second=args.messages_per_second)
    return asyncio.run(serve(config))
