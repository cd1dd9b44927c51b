"""``ono99 serve``: run a server until SIGINT or SIGTERM, then shut down cleanly."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from ono99_kernel.fronts import new_credential
from ono99_kernel.protocol import DEFAULT_PORT
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.tls import CERT_FILE as TLS_CERT_FILE
from ono99_kernel.tls import KEY_FILE as TLS_KEY_FILE
from ono99_server import Server, ServerConfig
from ono99_server.storage import StorageError, shown_url

from .front.config import FrontConfig
from .i18n import gettext as _
from .i18n import ngettext
from .known_servers import server_key

SHUTDOWN_SECONDS = 10.0  # at most, from SIGINT or SIGTERM to the exit
log = logging.getLogger("ono99.serve")
WEB_CERT_FILE = "web_tls_cert.pem"  # an ``ono99 front``'s own certificate for its web port
WEB_KEY_FILE = "web_tls_key.pem"

if TYPE_CHECKING:
    from ono99_kernel.access import AccessPolicy
    from ono99_server.advertiser import Advertiser
    from ono99_server.storage_pg import PostgresStorage

    from .front.ssh import SshFront
    from .front.web import WebFront
    from .front.workers import WorkerPool


def _shown_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        try:
            return socket.gethostname()
        except OSError:
            return "THIS-HOST"
    return host


def _join_hint(host: str, port: int) -> str:
    return f"ono99 connect {_shown_host(host)}:{port}"


def _admin_hint(host: str, port: int | None) -> str:
    """How an operator on this machine reaches the server: ``ono99 admin`` goes to 127.0.0.1:9999 unless told."""
    where = dialable(host)
    if port is None or (where, port) == ("127.0.0.1", DEFAULT_PORT):
        return "ono99 admin"
    return f"ono99 admin --server {server_key(where, port)}"


def _tcp_policy(access: AccessPolicy) -> str:
    """What the access policy means for TCP clients, for the banner (in the host's language)."""
    if access.mode == "authorized-keys":
        return _("only the keys listed in {path} (ono99 connect proves its own key)").format(
            path=access.authorized_keys)
    if access.mode == "password":
        return _("password required (ono99 connect HOST --password)")
    return _("open to anyone")


def _web_policy(access: AccessPolicy) -> str:
    if access.mode == "any-key":
        return _("open to anyone: browsers play as guests")
    if access.mode == "password":
        return _("password asked on the page")
    return _("browsers are refused: they prove no key")


def _ssh_policy(access: AccessPolicy) -> str:
    if access.mode == "any-key":
        return _("open to anyone: a key is the player's identity, players without one are guests")
    if access.mode == "password":
        return _("password required")
    return _("only the keys listed in {path}").format(path=access.authorized_keys)


def dialable(host: str) -> str:
    """Where this machine reaches a listener bound to ``host``: the address itself, or loopback of the
    same family for an address that means every interface (a listener on ``::`` takes IPv6 only)."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def database_link(storage: PostgresStorage) -> str:
    """Whether the link to PostgreSQL is encrypted and its certificate checked, for the banner."""
    if storage.link_socket:
        return _("a Unix socket of this machine (no network to encrypt)")
    if not storage.link_tls:
        return _("NOT ENCRYPTED: every hand crosses it in the clear; add ?sslmode=verify-full to the URL (the "
                 "server needs ssl = on)")
    if storage.link_sslmode == "verify-full":
        return _("TLS, the server's certificate and name checked (sslmode=verify-full)")
    return _("TLS, but the server's certificate or name is not checked (sslmode={mode}): whoever is in between "
             "could read it; use sslmode=verify-full").format(mode=storage.link_sslmode)


def bus_link(url: str) -> str:
    """Whether the link to Redis is encrypted and how its certificate is checked, for the banner
    (``Server.start`` refused a ``rediss://`` that checks none)."""
    parts = urlsplit(url)
    if parts.scheme != "rediss":
        return _("NOT ENCRYPTED (redis://): every hand and send-on ticket crosses it in the clear; use rediss:// "
                 "on any network you do not control")
    authority = dict(parse_qsl(parts.query)).get("ssl_ca_certs")
    if authority:
        return _("TLS, the Redis server's certificate checked against {file}").format(file=authority)
    return _("TLS, the Redis server's certificate checked against this machine's authorities")


def front_config_for(config: ServerConfig, server_port: int, server_fingerprint: str,
                     credential: str) -> FrontConfig:
    """The settings of this server's own SSH fronts: its SSH options, and the way to it at the address
    it listens on (TLS, pinned to its certificate, as for a front on another machine)."""
    ssh_host = config.ssh_host if config.ssh_host is not None else config.host
    return FrontConfig(server_host=dialable(config.host), server_port=server_port,
                       server_fingerprint=server_fingerprint, credential=credential, name=config.name,
                       ssh_host=ssh_host, ssh_port=config.ssh_port or 0,
                       ssh=config.ssh)


@dataclass
class Serving:
    """What ``serve`` has started, stage by stage: what the banner says and the shutdown stops."""

    config: ServerConfig
    server: Server
    credential: str  # this server's own fronts'
    tcp_for_players: bool
    ssh_host: str
    web_host: str
    reserved: list[socket.socket] = field(default_factory=list)  # the fronts' ports, held for the workers
    listen_ssh: bool = False
    listen_web: bool = False
    ssh_port: int = 0  # bound
    web_port: int = 0  # bound
    web_fingerprint: str = ""
    pool: WorkerPool | None = None
    front: SshFront | None = None
    web: WebFront | None = None
    advertiser: Advertiser | None = None
    advertising: asyncio.Task[None] | None = None
    workers_from_cores: bool = False  # the workers are one per core given: the banner says so


async def serve(config: ServerConfig, ssh_required: bool = True, ssh_workers: int = 1,
                log_level: str = "info", web_port: int | None = None, web_required: bool = False,
                web_host: str | None = None, web_tls: tuple[Path, Path] | None = None,
                workers_from_cores: bool = False) -> int:
    """Run until SIGINT or SIGTERM. Without ``ssh_required`` (the SSH port was not chosen), a busy
    SSH port only turns SSH off; likewise ``web_required`` for the web port (``web_port`` None: no
    web front; ``web_tls``: its certificate and key files, else the game port's). ``ssh_workers``
    front processes share the SSH and web ports (0: the fronts run inside this process, still over
    loopback TCP; ``workers_from_cores``: one per core given, which the banner says)."""
    if config.port is None and config.ssh_port is None and web_port is None:
        print("ono99 serve: " + _("TCP (--port 0), SSH (--ssh-port 0) and the web (--web-port 0) are all off: "
                                  "nobody could join"), file=sys.stderr)
        return 2
    credential, tcp_for_players, ssh_host, web_host = _settle_listeners(config, web_port, web_host)
    server = await _start_server(config)
    if server is None:
        return 2
    run = Serving(config, server, credential, tcp_for_players, ssh_host, web_host,
                  workers_from_cores=workers_from_cores)
    if not await _reserve_front_ports(run, ssh_required, ssh_workers, web_port, web_required):
        return 2
    if (run.listen_ssh or run.listen_web) and not await _start_fronts(run, ssh_workers, log_level, web_port, web_tls):
        return 2
    if config.advertise and tcp_for_players:  # the record gives the TCP port: nothing to announce without it
        from ono99_server.advertiser import Advertiser

        run.advertiser = Advertiser(server, run.ssh_port or None)
        run.advertising = asyncio.create_task(_advertise(run.advertiser))
    stop, step = _stop_on_signals(server)
    _say_listeners(run)
    _say_state(run)
    print("  " + _("stop with Ctrl+C"), flush=True)
    await stop.wait()
    await _shut_down(run, step)
    return 0


def _settle_listeners(config: ServerConfig, web_port: int | None,
                      web_host: str | None) -> tuple[str, bool, str, str]:
    """Settle ``config`` for the fronts this server runs: their credential (trusted by the server), the
    SSH host, and a loopback-only game port when TCP play is off. Returns (the credential, whether
    players may use TCP, the SSH host, the web host)."""
    credential = new_credential()  # for this server's own fronts; remote fronts bring theirs (a file)
    if config.cluster_url is not None and config.front_credentials:
        # One node of several sends a front's player on to another node: its own fronts speak with the
        # credential every node trusts (the same --front-credential-file), not one of this node alone.
        credential = config.front_credentials[0]
    tcp_for_players = config.port is not None
    ssh_host = config.ssh_host if config.ssh_host is not None else config.host
    web_host = web_host if web_host is not None else config.host
    if config.ssh_port is not None or web_port is not None:
        if credential not in config.front_credentials:
            config.front_credentials = (*config.front_credentials, credential)
        config.ssh_host = ssh_host
        if not tcp_for_players:  # the fronts still reach the game over loopback; players cannot
            config.host, config.port, config.fronts_only = "127.0.0.1", 0, True
    return credential, tcp_for_players, ssh_host, web_host


async def _start_server(config: ServerConfig) -> Server | None:
    """The game server, started; None once what stopped it is said."""
    try:
        server = Server(config)
        server.load_certificate()
    except (OSError, ValueError, StorageError) as exc:  # the access policy, the TLS files or the database
        print(f"ono99 serve: {exc}", file=sys.stderr)
        return None
    try:
        await server.start()
    except ValueError as exc:  # the metrics port
        print(f"ono99 serve: {exc}", file=sys.stderr)
        await server.close()
        return None
    except OSError as exc:
        print("ono99 serve: " + _("cannot listen on {address}: {error}. Is another server running? Pick another "
                                  "--port.").format(address=f"{config.host}:{config.port}", error=exc.strerror),
              file=sys.stderr)
        await server.close()
        return None
    return server


async def _reserve_front_ports(run: Serving, ssh_required: bool, ssh_workers: int, web_port: int | None,
                               web_required: bool) -> bool:
    """Hold the SSH and web ports for the front workers (and make the SSH host key before they read it).
    A port that is not required and is busy only turns its front off; False (the server closed) when
    a required one cannot be had."""
    from .front.workers import reserve_port

    config, server, reserved = run.config, run.server, run.reserved
    if config.ssh_port is not None:
        from .front.ssh import load_or_create_host_key  # the SSH front's (asyncssh, the app): only for SSH

        try:
            load_or_create_host_key(config.ssh.host_key)  # made once here, before the workers read it
            if ssh_workers > 0:
                reserved.append(reserve_port(run.ssh_host, config.ssh_port))
                run.ssh_port = int(reserved[-1].getsockname()[1])
            run.listen_ssh = True
        except (OSError, ValueError) as exc:
            if ssh_required or not isinstance(exc, OSError):
                print("ono99 serve: " + _("cannot listen on SSH port {port}: {error}. Pick another --ssh-port, or 0 "
                                          "for no SSH.").format(port=config.ssh_port, error=exc), file=sys.stderr)
                await server.close()
                return False
            print("ono99 serve: " + _("SSH port {port} is not available ({error}); carrying on without SSH (choose "
                                      "one with --ssh-port)").format(port=config.ssh_port, error=exc),
                  file=sys.stderr, flush=True)
    if web_port is not None:
        try:
            if ssh_workers > 0:
                reserved.append(reserve_port(run.web_host, web_port))
                run.web_port = int(reserved[-1].getsockname()[1])
            run.listen_web = True
        except OSError as exc:
            if web_required:
                print("ono99 serve: " + _("cannot listen on web port {port}: {error}. Pick another --web-port, or 0 "
                                          "for no web front.").format(port=web_port, error=exc), file=sys.stderr)
                await _close_all(server, reserved)
                return False
            print("ono99 serve: " + _("web port {port} is not available ({error}); carrying on without the web "
                                      "front (choose one with --web-port)").format(port=web_port, error=exc),
                  file=sys.stderr, flush=True)
    return True


async def _start_fronts(run: Serving, ssh_workers: int, log_level: str, web_port: int | None,
                        web_tls: tuple[Path, Path] | None) -> bool:
    """Start the SSH and web fronts: ``ssh_workers`` processes, or inside this process (0). False (all
    closed) when they cannot start."""
    from ono99_kernel.tls import load_certificate

    config, server = run.config, run.server
    front_config = front_config_for(config, server.port, server.fingerprint, run.credential)
    # the web port shows the certificate players pin over TCP, unless it was given one of its own
    try:
        certificate = load_certificate(*web_tls) if web_tls is not None else server.load_certificate()
    except ValueError as exc:
        print(f"ono99 serve: --web-cert: {exc}", file=sys.stderr)
        await _close_all(server, run.reserved)
        return False
    run.web_fingerprint = certificate.fingerprint
    front_config.listen_ssh = run.listen_ssh
    front_config.web_host, front_config.web_cert, front_config.web_key = (run.web_host, certificate.cert_path,
                                                                          certificate.key_path)
    if ssh_workers > 0:
        from .front.workers import WorkerPool

        front_config.ssh_port, front_config.reuse_port = run.ssh_port, True
        front_config.web_port = run.web_port if run.listen_web else None
        pool = run.pool = WorkerPool(front_config, ssh_workers, log_level)
        fronts = [front for front, on in (("ssh", run.listen_ssh), ("web", run.listen_web)) if on]
        server.lobby.metrics.front_workers = lambda: [(front, str(pid)) for pid in pool.pids for front in fronts]
        try:
            await pool.start()
        except TimeoutError:
            print("ono99 serve: " + _("the SSH front workers did not start"), file=sys.stderr)
            await pool.close()
            await _close_all(server, run.reserved)
            return False
    else:
        from .front.ssh import SshFront
        from .front.web import WebFront

        front_config.web_port = web_port if run.listen_web else None
        try:
            if run.listen_ssh:
                front = run.front = SshFront(front_config)
                await front.start()
                run.ssh_port = front.port
            if run.listen_web:
                web = run.web = WebFront(front_config, certificate, access=run.front.access if run.front else None,
                                         opening=run.front.opening if run.front else None)
                web.ssh_port = run.ssh_port or None
                await web.start()
                run.web_port = web.port
        except (OSError, ValueError) as exc:
            print(f"ono99 serve: {exc}", file=sys.stderr)
            for started in (run.front, run.web):
                if started is not None:
                    await started.close()
            await server.close()
            return False
    if run.listen_ssh:
        server.access.ssh_hint = f"ssh -p {run.ssh_port} HOST"
    elif not run.tcp_for_players:  # the browser's page is the only way in
        server.access.ssh_hint = f"https://{_shown_host(run.web_host)}:{run.web_port}/"
    return True


def _stop_on_signals(server: Server) -> tuple[asyncio.Event, list[str]]:
    """SIGINT and SIGTERM set the event returned, and start a bound on the shutdown that follows (the
    list returned names the step it is at, for ``_give_up``)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # The shutdown is bounded, from the signal on: a database or a Redis that stopped answering (a
    # frozen machine, a cut network) must not keep the process from exiting. A timer thread, not the
    # event loop, keeps the bound, started by the signal itself (a plain handler, which runs even
    # while the loop waits), so it holds whatever waits: the loop, or the interpreter's own exit.
    step = ["the start of the shutdown (the event loop did not take the signal)"]
    watchdog = threading.Timer(SHUTDOWN_SECONDS, _give_up, (server, step))
    watchdog.daemon = True

    def on_signal(_signal: int, _frame: object) -> None:
        if watchdog.ident is None:  # the first signal; a second one changes nothing
            watchdog.start()
        loop.call_soon_threadsafe(stop.set)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    return stop, step


def _say_listeners(run: Serving) -> None:
    """The banner's first part: how players come in, over TCP, SSH and the web."""
    from ono99_server.advertiser import interface_plan

    config, server = run.config, run.server
    access = server.access
    if run.tcp_for_players:
        where = f"{config.host}:{server.port}"
        print(_("ONO 99 server {name} listening on {address} (protocol over TLS)").format(
            name=repr(config.name), address=where), flush=True)
        print(f"  tcp: {_tcp_policy(access)}", flush=True)
        print("  " + _("tls: certificate {fingerprint} (players compare it at their first visit)").format(
            fingerprint=server.fingerprint), flush=True)
        print("  " + _("join with: {command}").format(command=_join_hint(config.host, server.port)), flush=True)
    else:
        print(_("ONO 99 server {name}: TCP is off (--port 0)").format(name=repr(config.name)), flush=True)
    if run.ssh_port:
        from .front.ssh import load_or_create_host_key

        print("  ssh: " + _("port {port} ({mode}: {policy}), host key {fingerprint}").format(
            port=run.ssh_port, mode=config.ssh.auth, policy=_ssh_policy(access),
            fingerprint=load_or_create_host_key(config.ssh.host_key).get_fingerprint()), flush=True)
        print("  " + _("play with: {command}").format(command=f"ssh -p {run.ssh_port} {_shown_host(run.ssh_host)}"),
              flush=True)
        if run.pool is not None:
            print("  " + ngettext("ssh workers: {n} (pid {pids}), restarted if it dies",
                                  "ssh workers: {n} (pids {pids}), restarted if they die", run.pool.count).format(
                n=run.pool.count, pids=", ".join(map(str, run.pool.pids))), flush=True)
            if run.workers_from_cores:
                print("  " + _("one per core this server may run on ({given} of the machine's {cores}); "
                               "--ssh-workers sets another number").format(given=run.pool.count,
                                                                           cores=os.cpu_count() or run.pool.count),
                      flush=True)
        else:
            print("  " + _("ssh front: in this process (--ssh-workers 0)"), flush=True)
    else:
        print("  ssh: " + _("off"), flush=True)
    if run.web_port:
        print("  web: " + _("port {port} ({policy}), certificate {fingerprint}").format(
            port=run.web_port, policy=_web_policy(access), fingerprint=run.web_fingerprint), flush=True)
        if access.mode != "authorized-keys":  # else the page only says how to come in with a key
            print("  " + _("play in a browser: {url}").format(
                url=f"https://{_shown_host(run.web_host)}:{run.web_port}/"), flush=True)
    else:
        print("  web: " + _("off"), flush=True)
    with contextlib.suppress(OSError, ValueError):
        print("  " + _("this machine's addresses: {addresses}").format(
            addresses=", ".join(interface_plan(config.host)[2])), flush=True)
    if run.advertiser is not None:
        print("  " + _("LAN: announced on {where} as {name} ('ono99 connect' lists it; --no-advertise to stop)").format(
            where=run.advertiser.where, name=repr(config.name)), flush=True)


def _say_state(run: Serving) -> None:
    """The banner's second part: the database, the cluster, the operators and the metrics."""
    config, server = run.config, run.server
    if server.storage is not None:
        print("  " + ngettext("database: {path} ({n} table restored)", "database: {path} ({n} tables restored)",
                              server.restored_tables).format(path=server.storage.where, n=server.restored_tables),
              flush=True)
        if server.storage.kind == "postgresql":
            from ono99_server.storage_pg import PostgresStorage  # psycopg is loaded only for PostgreSQL

            assert isinstance(server.storage, PostgresStorage)
            print("  " + _("database link: {how}").format(how=database_link(server.storage)), flush=True)
    if server.cluster is not None:
        cluster = server.cluster
        print("  " + _("node: {node}, one of several; bus: {bus}; tables taken over after {seconds} s without "
                       "renewal").format(node=cluster.node, bus=shown_url(cluster.url),
                                         seconds=f"{cluster.lease_seconds:g}"), flush=True)
        print("  " + _("bus link: {how}").format(how=bus_link(cluster.url)), flush=True)
        print("  " + _("peers: {peers}").format(
            peers=", ".join(f"{n} ({p.host}:{p.port})" for n, p in sorted(cluster.peers.items()))
            or _("none yet")), flush=True)
    operators = len(server.lobby.moderation.admins)
    if operators:
        command = _admin_hint(config.host, server.port if run.tcp_for_players else None)
        print("  " + ngettext("operators: {n} key in {path} ({command})", "operators: {n} keys in {path} ({command})",
                              operators).format(n=operators, path=config.admins, command=repr(command)), flush=True)
    if server.metrics_endpoint is not None:
        where = f"http://{_shown_host(config.metrics_host)}:{server.metrics_endpoint.port}"
        print("  " + _("metrics: {url}/metrics, health: {url}/health").format(url=where), flush=True)


async def _shut_down(run: Serving, step: list[str]) -> None:
    """After the signal: the LAN announcement, the fronts, then the server; ``step`` says which."""
    print(_("shutting down: saving tables and telling players"), flush=True)
    step[0] = "the LAN announcement"
    if run.advertiser is not None:
        if run.advertising is not None:
            run.advertising.cancel()
        await run.advertiser.close()  # the goodbye takes the server off every player's list at once
    # The fronts first: each SSH session gets its goodbye while its link is still up.
    step[0] = "the SSH and web fronts"
    if run.pool is not None:
        await run.pool.close()
    for started in (run.front, run.web):
        if started is not None:
            await started.close()
    step[0] = "the server (its players, its leases, its last writes)"
    await _close_all(run.server, run.reserved)
    step[0] = "the exit (threads still running)"


def _give_up(server: Server, step: list[str]) -> None:
    """The shutdown did not end in time (on a timer thread): say at which step, what was not
    written, and exit at once (a thread waiting on the database would keep a normal exit waiting)."""
    unsaved = server.storage.unsaved() if server.storage is not None else []
    log.error("shutdown not finished after %g s, at %s: exiting without waiting for it; not written: %s",
              SHUTDOWN_SECONDS, step[0], "; ".join(unsaved) or "nothing")
    with contextlib.suppress(RuntimeError):  # the loop's thread may change the dict meanwhile
        held = sorted(server.cluster.fence.epochs) if server.cluster is not None else []
        if held:
            log.error("tables this node held, taken over by another node from what was saved once their leases "
                      "run out: %s", ", ".join(map(str, held)))
    for handler in logging.getLogger().handlers:
        with contextlib.suppress(Exception):
            handler.flush()
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(1)


async def _close_all(server: Server, reserved: list[socket.socket]) -> None:
    for sock in reserved:
        sock.close()
    await server.close()


async def _advertise(advertiser: Advertiser) -> None:
    try:
        await advertiser.start()
    except Exception as exc:  # no multicast here, a firewall, no usable interface: play goes on without it
        print("ono99 serve: " + _("cannot announce the server on the local network ({error}); players can still "
                                  "join by typing the address (or pass --no-advertise)").format(error=exc),
              file=sys.stderr, flush=True)
        await advertiser.close()


HOST_KEY_FILE = "ssh_host_ed25519_key"


def host_key_path_for(db_path: Path) -> Path:
    """Where ``ono99 serve`` keeps its SSH host key: next to its database (named here, not by the SSH
    front's module: a server without SSH does not load asyncssh and the app)."""
    return db_path.parent / HOST_KEY_FILE


def run_serve(args: argparse.Namespace) -> int:
    from ono99_server.config import DEFAULT_SSH_PORT
    from ono99_server.storage import database_location, default_db_path

    from .front.config import DEFAULT_WEB_PORT

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.log_format == "json":
        from ono99_server.metrics import JsonLines

        for handler in logging.getLogger().handlers:
            handler.setFormatter(JsonLines())
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
    location = database_location(args.db) if args.db else default_db_path()
    db_path = location if isinstance(location, Path) else None
    # The TLS files and the SSH host key live beside an SQLite file; with PostgreSQL, in the data directory.
    files_beside = db_path or default_db_path()
    tls_cert = args.tls_cert or files_beside.parent / TLS_CERT_FILE
    tls_key = args.tls_key or files_beside.parent / TLS_KEY_FILE
    if (args.tls_cert is None) != (args.tls_key is None):
        print("ono99 serve: " + _("--tls-cert and --tls-key go together"), file=sys.stderr)
        return 2
    overrides: dict[str, Any] = {} if args.messages_per_second is None else {  # bursts of twice the rate
        "messages_per_second": args.messages_per_second, "message_burst": max(1, int(args.messages_per_second * 2))}
    if args.max_waiting_per_address is not None:  # a load test from one address, say
        overrides["max_waiting_hellos_per_address"] = args.max_waiting_per_address
        overrides["max_waiting_hellos"] = max(ServerConfig().max_waiting_hellos, args.max_waiting_per_address)
    config = ServerConfig(host=args.host, port=args.port or None, name=args.name, db_path=db_path,
                          db_url=location if isinstance(location, str) else None,
                          tls_cert=tls_cert, tls_key=tls_key,
                          grace_seconds=args.grace, default_turn_seconds=args.turn_seconds,
                          bot_delay=args.bot_delay, max_connections=args.max_connections,
                          play_now_wait=args.play_now_wait,
                          arena_bot_wait=args.arena_bot_wait, arena_starts_in=args.arena_starts_in,
                          max_connections_per_address=args.max_per_address,
                          max_tables_per_player=args.max_tables_per_player,
                          cluster_url=args.cluster, lease_seconds=args.lease_seconds, node_id=args.node_id,
                          node_address=args.node_address,
                          **overrides,
                          ssh_port=ssh_port or None, advertise=args.advertise,
                          admins=args.admins, names_deny=args.names_deny, metrics_port=args.metrics_port,
                          metrics_host=args.metrics_host,
                          ssh=SshSettings(auth=mode, authorized_keys=authorized_keys, password=password,
                                          host_key=host_key_path_for(files_beside),
                                          login_timeout=args.ssh_login_timeout,
                                          idle_timeout=args.ssh_idle_timeout, keepalive=args.ssh_keepalive,
                                          max_sessions=args.ssh_max_sessions,
                                          max_sessions_per_address=args.ssh_max_per_address,
                                          shared_screens=not args.ssh_private_screens, motion=args.ssh_motion))
    if args.front_credential_file is not None:
        try:
            config.front_credentials = (read_or_create_credential(args.front_credential_file),)
        except (OSError, ValueError) as exc:
            print(f"ono99 serve: --front-credential-file: {exc}", file=sys.stderr)
            return 2
    if (args.web_cert is None) != (args.web_key is None):
        print("ono99 serve: " + _("--web-cert and --web-key go together"), file=sys.stderr)
        return 2
    web_port = DEFAULT_WEB_PORT if args.web_port is None else args.web_port
    from .front.workers import cores_given

    workers = cores_given() if args.ssh_workers is None else args.ssh_workers
    return asyncio.run(serve(config, ssh_required=args.ssh_port is not None, ssh_workers=workers,
                             workers_from_cores=args.ssh_workers is None,
                             log_level=args.log_level, web_port=web_port or None,
                             web_required=args.web_port is not None, web_host=args.web_host,
                             web_tls=(args.web_cert, args.web_key) if args.web_cert is not None else None))


def read_or_create_credential(path: Path) -> str:
    """The front credential kept in ``path``, made there (mode 0600) if the file does not exist yet:
    give a copy to each front on another machine (``ono99 front --credential-file``)."""
    if path.exists():
        text = path.read_text(encoding="utf-8").strip()
        if not 16 <= len(text) <= 128 or not text.isprintable():
            raise ValueError(f"{path} does not hold a front credential (16 to 128 printable characters)")
        return text
    credential = new_credential()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(credential + "\n")
    print(f"ono99 serve: made the front credential {path}: copy it to the machines of remote fronts", flush=True)
    return credential


def run_front_command(args: argparse.Namespace) -> int:
    """``ono99 front --server HOST:PORT --credential-file PATH``: an SSH front on another machine."""
    from ono99_kernel.fingerprints import FingerprintError, normal_fingerprint
    from ono99_kernel.identity import data_dir
    from ono99_kernel.tls import load_or_create_certificate

    from .client.connection import parse_address
    from .front.process import run_front

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.log_level != "debug":
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    try:
        host, port = parse_address(args.server)
    except ValueError:
        print(f"ono99 front: --server takes HOST:PORT, not {args.server!r}", file=sys.stderr)
        return 2
    try:
        fingerprint = normal_fingerprint(args.server_fingerprint)
    except FingerprintError as exc:
        print(f"ono99 front: --server-fingerprint: {exc}; 'ono99 serve' prints it (tls: certificate …)",
              file=sys.stderr)
        return 2
    try:
        credential = args.credential_file.read_text(encoding="utf-8").strip()
    except OSError as exc:
        print(f"ono99 front: cannot read the credential file {args.credential_file}: {exc.strerror}", file=sys.stderr)
        return 2
    mode, *auth_args = args.ssh_auth
    password = args.ssh_password or os.environ.get("ONO99_PASSWORD") or None
    keys = Path(auth_args[0]) if mode == "authorized-keys" and len(auth_args) == 1 else None
    host_key = args.host_key or (data_dir() / "ssh_host_ed25519_key")
    if (args.web_cert is None) != (args.web_key is None):
        print("ono99 front: " + _("--web-cert and --web-key go together"), file=sys.stderr)
        return 2
    web_cert, web_key = args.web_cert, args.web_key
    if args.web_port and web_cert is None:  # a certificate of its own, made once and kept
        web_cert, web_key = data_dir() / WEB_CERT_FILE, data_dir() / WEB_KEY_FILE
        try:
            load_or_create_certificate(web_cert, web_key)
        except (OSError, ValueError) as exc:
            print(f"ono99 front: {exc}", file=sys.stderr)
            return 2
    config = FrontConfig(server_host=host, server_port=port, server_fingerprint=fingerprint, credential=credential,
                         name=args.name,
                         ssh_host=args.ssh_host, ssh_port=args.ssh_port, reuse_port=args.reuse_port,
                         ssh=SshSettings(auth=mode, authorized_keys=keys, password=password, host_key=host_key),
                         web_host=args.web_host, web_port=args.web_port or None, web_cert=web_cert, web_key=web_key,
                         # a front of its own may stand before a cluster: each player's connection is told the
                         # other nodes at its welcome and goes on through one of them when its node is lost,
                         # where a shared link would go to the one node it was given
                         shared_link=False)
    return asyncio.run(run_front(config))
