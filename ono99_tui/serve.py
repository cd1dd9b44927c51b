"""``ono99 serve``: run a server until SIGINT or SIGTERM, then shut down cleanly."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from server import Server, ServerConfig

if TYPE_CHECKING:
    from server.advertiser import Advertiser


def _shown_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        try:
            return socket.gethostname()
        except OSError:
            return "THIS-HOST"
    return host


def _join_hint(host: str, port: int) -> str:
    return f"ono99 connect {_shown_host(host)}:{port}"


async def serve(config: ServerConfig, ssh_required: bool = True) -> int:
    """Run until SIGINT or SIGTERM. Without ``ssh_required`` (the SSH port was not chosen), a busy
    SSH port only turns SSH off."""
    from server.advertiser import Advertiser
    from server.ssh import SshFront

    server = Server(config)
    try:
        await server.start()
    except OSError as exc:
        print(f"ono99 serve: cannot listen on {config.host}:{config.port}: {exc.strerror}. "
              "Is another server running? Pick another --port.", file=sys.stderr)
        await server.close()
        return 2
    front: SshFront | None = None
    if config.ssh_port is not None:
        try:
            front = SshFront(server)
        except (OSError, ValueError) as exc:  # the host key or authorized_keys file
            print(f"ono99 serve: SSH: {exc}", file=sys.stderr)
            await server.close()
            return 2
        try:
            await front.start()
        except OSError as exc:
            if ssh_required:
                print(f"ono99 serve: cannot listen on SSH port {config.ssh_port}: {exc.strerror}. Pick another "
                      "--ssh-port, or 0 for no SSH.", file=sys.stderr)
                await server.close()
                return 2
            print(f"ono99 serve: SSH port {config.ssh_port} is not available ({exc.strerror}); carrying on "
                  "without SSH (choose one with --ssh-port)", file=sys.stderr, flush=True)
            front = None
    advertiser: Advertiser | None = None
    if config.advertise:
        advertiser = Advertiser(server, front.port if front is not None else None)
        advertising = asyncio.create_task(_advertise(advertiser))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    where = f"{config.host}:{server.port}"
    print(f"ONO 99 server {config.name!r} listening on {where} (protocol over TCP)", flush=True)
    print(f"  join with: {_join_hint(config.host, server.port)}", flush=True)
    if front is not None:
        host = config.ssh_host if config.ssh_host is not None else config.host
        print(f"  ssh: port {front.port} ({config.ssh_auth}), host key {front.fingerprint}", flush=True)
        print(f"  play with: ssh -p {front.port} {_shown_host(host)}", flush=True)
    if advertiser is not None:
        print(f"  LAN: announced on {advertiser.where} as {config.name!r} "
              "('ono99 connect' lists it; --no-advertise to stop)", flush=True)
    if config.db_path is not None:
        print(f"  database: {config.db_path} ({server.restored_tables} tables restored)", flush=True)
    print("  stop with Ctrl+C", flush=True)
    await stop.wait()
    print("shutting down: saving tables and telling players", flush=True)
    if advertiser is not None:
        advertising.cancel()
        await advertiser.close()  # the goodbye takes the server off every player's list at once
    if front is not None:
        front.stop_listening()
    await server.close()  # also tells the SSH players, whose links count among its connections
    if front is not None:
        await front.close()
    return 0


async def _advertise(advertiser: Advertiser) -> None:
    try:
        await advertiser.start()
    except Exception as exc:  # no multicast here, a firewall, no usable interface: play goes on without it
        print(f"ono99 serve: cannot announce the server on the local network ({exc}); players can still "
              "join by typing the address (or pass --no-advertise)", file=sys.stderr, flush=True)
        await advertiser.close()


def run_serve(args: argparse.Namespace) -> int:
    import os

    from server.config import DEFAULT_SSH_PORT
    from server.ssh import host_key_path_for
    from server.storage import default_db_path

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.log_level != "debug":
        logging.getLogger("asyncssh").setLevel(logging.WARNING)  # it logs every channel at info
    ssh_port = DEFAULT_SSH_PORT if args.ssh_port is None else args.ssh_port
    mode, *auth_args = args.ssh_auth
    authorized_keys: Path | None = None
    password = args.ssh_password or os.environ.get("ONO99_SSH_PASSWORD") or None
    if mode == "authorized-keys" and len(auth_args) == 1:
        authorized_keys = Path(auth_args[0])
    elif mode not in ("any-key", "password") or auth_args:
        print("ono99 serve: --ssh-auth takes 'any-key', 'authorized-keys PATH' or 'password'", file=sys.stderr)
        return 2
    if mode == "password" and not password:
        print("ono99 serve: --ssh-auth password needs --ssh-password (or $ONO99_SSH_PASSWORD)", file=sys.stderr)
        return 2
    db_path = args.db or default_db_path()
    config = ServerConfig(host=args.host, port=args.port, name=args.name, db_path=db_path,
                          grace_seconds=args.grace, default_turn_seconds=args.turn_seconds,
                          bot_delay=args.bot_delay, max_connections=args.max_connections,
                          play_now_wait=args.play_now_wait,
                          max_connections_per_address=args.max_per_address,
                          max_tables_per_player=args.max_tables_per_player,
                          messages_per_second=args.messages_per_second,
                          ssh_port=ssh_port or None, ssh_host_key=host_key_path_for(db_path), ssh_auth=mode,
                          ssh_authorized_keys=authorized_keys, ssh_password=password,
                          ssh_login_timeout=args.ssh_login_timeout, ssh_idle_timeout=args.ssh_idle_timeout,
                          ssh_keepalive=args.ssh_keepalive, ssh_max_sessions=args.ssh_max_sessions,
                          ssh_max_sessions_per_address=args.ssh_max_per_address, advertise=args.advertise)
    return asyncio.run(serve(config, ssh_required=args.ssh_port is not None))
