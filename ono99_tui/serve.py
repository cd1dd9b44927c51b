"""``ono99 serve``: run a server until SIGINT or SIGTERM, then shut down cleanly."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server import Server, ServerConfig

from .i18n import gettext as _
from .i18n import ngettext

if TYPE_CHECKING:
    from server.access import AccessPolicy
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


def _tcp_policy(access: AccessPolicy) -> str:
    """What the access policy means for TCP clients, for the banner."""
    if access.mode == "authorized-keys":
        return access.describe() + " (ono99 connect proves its own key)"
    if access.mode == "password":
        return "password required (ono99 connect HOST --password)"
    return access.describe()


def _ssh_policy(access: AccessPolicy) -> str:
    if access.mode == "any-key":
        return "open to anyone: a key is the player's identity, players without one are guests"
    return access.describe()


async def serve(config: ServerConfig, ssh_required: bool = True) -> int:
    """Run until SIGINT or SIGTERM. Without ``ssh_required`` (the SSH port was not chosen), a busy
    SSH port only turns SSH off."""
    from server.advertiser import Advertiser, interface_plan
    from server.ssh import SshFront

    if config.port is None and config.ssh_port is None:
        print("ono99 serve: " + _("both TCP (--port 0) and SSH (--ssh-port 0) are off: nobody could join"),
              file=sys.stderr)
        return 2
    try:
        server = Server(config)
    except (OSError, ValueError) as exc:  # the access policy: an authorized_keys file missing or wrong
        print(f"ono99 serve: {exc}", file=sys.stderr)
        return 2
    try:
        await server.start()
    except OSError as exc:
        print("ono99 serve: " + _("cannot listen on {address}: {error}. Is another server running? Pick another "
                                  "--port.").format(address=f"{config.host}:{config.port}", error=exc.strerror),
              file=sys.stderr)
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
                print("ono99 serve: " + _("cannot listen on SSH port {port}: {error}. Pick another --ssh-port, or 0 "
                                          "for no SSH.").format(port=config.ssh_port, error=exc.strerror),
                      file=sys.stderr)
                await server.close()
                return 2
            print("ono99 serve: " + _("SSH port {port} is not available ({error}); carrying on without SSH (choose "
                                      "one with --ssh-port)").format(port=config.ssh_port, error=exc.strerror),
                  file=sys.stderr, flush=True)
            front = None
    advertiser: Advertiser | None = None
    if config.advertise and server.listening:  # the record gives the TCP port: nothing to announce without it
        advertiser = Advertiser(server, front.port if front is not None else None)
        advertising = asyncio.create_task(_advertise(advertiser))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    access = server.access
    if server.listening:
        where = f"{config.host}:{server.port}"
        print(_("ONO 99 server {name} listening on {address} (protocol over TCP)").format(
            name=repr(config.name), address=where), flush=True)
        print(f"  tcp: {_tcp_policy(access)}", flush=True)
        print("  " + _("join with: {command}").format(command=_join_hint(config.host, server.port)), flush=True)
    else:
        print(_("ONO 99 server {name}: TCP is off (--port 0)").format(name=repr(config.name)), flush=True)
    if front is not None:
        host = config.ssh_host if config.ssh_host is not None else config.host
        print(f"  ssh: port {front.port} ({config.ssh_auth}: {_ssh_policy(access)}), host key {front.fingerprint}",
              flush=True)
        print("  " + _("play with: {command}").format(command=f"ssh -p {front.port} {_shown_host(host)}"), flush=True)
    else:
        print("  ssh: " + _("off"), flush=True)
    with contextlib.suppress(OSError, ValueError):
        print("  " + _("this machine's addresses: {addresses}").format(
            addresses=", ".join(interface_plan(config.host)[2])), flush=True)
    if advertiser is not None:
        print("  " + _("LAN: announced on {where} as {name} ('ono99 connect' lists it; --no-advertise to stop)").format(
            where=advertiser.where, name=repr(config.name)), flush=True)
    if config.db_path is not None:
        print("  " + ngettext("database: {path} ({n} table restored)", "database: {path} ({n} tables restored)",
                              server.restored_tables).format(path=config.db_path, n=server.restored_tables), flush=True)
    print("  " + _("stop with Ctrl+C"), flush=True)
    await stop.wait()
    print(_("shutting down: saving tables and telling players"), flush=True)
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
        print("ono99 serve: " + _("cannot announce the server on the local network ({error}); players can still "
                                  "join by typing the address (or pass --no-advertise)").format(error=exc),
              file=sys.stderr, flush=True)
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
    password = args.ssh_password or os.environ.get("ONO99_PASSWORD") or os.environ.get("ONO99_SSH_PASSWORD") or None
    if mode == "authorized-keys" and len(auth_args) == 1:
        authorized_keys = Path(auth_args[0])
    elif mode not in ("any-key", "password") or auth_args:
        print("ono99 serve: " + _("--auth takes 'any-key', 'authorized-keys PATH' or 'password'"), file=sys.stderr)
        return 2
    if mode == "password" and not password:
        print("ono99 serve: " + _("--auth password needs --password (or $ONO99_PASSWORD)"), file=sys.stderr)
        return 2
    db_path = args.db or default_db_path()
    overrides: dict[str, Any] = {} if args.messages_per_second is None else {  # bursts of twice the rate
        "messages_per_second": args.messages_per_second, "message_burst": max(1, int(args.messages_per_second * 2))}
    if args.max_waiting_per_address is not None:  # a load test from one address, say
        overrides["max_waiting_hellos_per_address"] = args.max_waiting_per_address
        overrides["max_waiting_hellos"] = max(ServerConfig().max_waiting_hellos, args.max_waiting_per_address)
    config = ServerConfig(host=args.host, port=args.port or None, name=args.name, db_path=db_path,
                          grace_seconds=args.grace, default_turn_seconds=args.turn_seconds,
                          bot_delay=args.bot_delay, max_connections=args.max_connections,
                          max_connections_per_address=args.max_per_address,
                          max_tables_per_player=args.max_tables_per_player,
                          **overrides,
                          ssh_port=ssh_port or None, ssh_host_key=host_key_path_for(db_path), ssh_auth=mode,
                          ssh_authorized_keys=authorized_keys, ssh_password=password,
                          ssh_login_timeout=args.ssh_login_timeout, ssh_idle_timeout=args.ssh_idle_timeout,
                          ssh_keepalive=args.ssh_keepalive, ssh_max_sessions=args.ssh_max_sessions,
                          ssh_max_sessions_per_address=args.ssh_max_per_address, advertise=args.advertise)
    return asyncio.run(serve(config, ssh_required=args.ssh_port is not None))
