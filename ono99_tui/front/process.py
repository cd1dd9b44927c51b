"""Running a front process: ``ono99 front`` on its own, or a worker that ``ono99 serve`` starts."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ono99_kernel.ssh_settings import SshSettings

from ..i18n import gettext as _
from ..i18n import set_default_language
from .config import FrontConfig

LANGUAGE_ENV = "ONO99_FRONT_LANGUAGE"  # the language of a worker's printed lines: its server's
CONFIG_ENV = "ONO99_FRONT_CONFIG"  # a worker's settings, credential included, as JSON: never on the command line
READY = "ono99-front ready"  # the line a worker prints once its listeners are up
WORKER_NICE = 10  # how much lower a worker's CPU priority is than the game server's
# Allocations (less deallocations) between two collections of Python's youngest generation, 700 by
# default. A redraw makes and drops many objects, and a front holds many sessions' screens, so at
# 700 the collector ran so often that it promoted enough short-lived objects to go through the
# whole heap every few moves (about 1 s of CPU with 100 sessions): half of a redraw's cost.
FRONT_GC_THRESHOLD = 50_000


def config_to_env(config: FrontConfig) -> str:
    values: dict[str, Any] = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    values["ssh"] = {f.name: getattr(config.ssh, f.name) for f in dataclasses.fields(config.ssh)}
    return json.dumps(values, default=_path_text)


def _path_text(value: object) -> str:
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"a front setting of type {type(value).__name__} cannot be passed to a worker")


def config_from_env(text: str) -> FrontConfig:
    values: dict[str, Any] = json.loads(text)
    ssh: dict[str, Any] = values.pop("ssh")
    for name in ("web_cert", "web_key"):
        if values.get(name) is not None:
            values[name] = Path(values[name])
    for name in ("host_key", "authorized_keys"):
        if ssh.get(name) is not None:
            ssh[name] = Path(ssh[name])
    return FrontConfig(**values, ssh=SshSettings(**ssh))


def motion_dropped_by(settings: SshSettings, busy: Callable[[], bool]) -> Callable[[], bool]:
    """When a front shows moves at once: always, unless its host turned motion on (``--ssh-motion``),
    and then while it is under load (logins, its loop late)."""
    return lambda: not settings.motion or busy()


async def run_front(config: FrontConfig, announce: bool = True, parent_pipe: bool = False) -> int:
    """Listen for SSH (and HTTPS, with a web port) until SIGINT or SIGTERM, then end every session and
    close. ``parent_pipe``: a worker of ``ono99 serve``, which also ends when its server is gone (its
    standard input, a pipe from the server, closes), even one killed with SIGKILL: no worker outlives
    its server."""
    from ono99_kernel.tls import load_certificate

    from ..tui.tabletop import drop_motion_when
    from .pacing import PACER
    from .ssh import SshFront
    from .web import WebFront

    drop_motion_when(motion_dropped_by(config.ssh, lambda: PACER.busy))
    front: SshFront | None = None
    web: WebFront | None = None
    try:
        if config.listen_ssh:
            front = SshFront(config)
        if config.web_port is not None:
            if config.web_cert is None or config.web_key is None:
                raise ValueError("the web port needs a TLS certificate and key")
            web = WebFront(config, load_certificate(config.web_cert, config.web_key),
                           access=front.access if front is not None else None,
                           opening=front.opening if front is not None else None)
    except (OSError, ValueError) as exc:  # the host key, the authorized_keys file, the web's certificate
        print(f"ono99 front: {exc}", file=sys.stderr, flush=True)
        return 2
    if front is not None:
        try:
            await front.start()
        except OSError as exc:
            print("ono99 front: " + _("cannot listen on SSH port {port}: {error}").format(port=config.ssh_port,
                                                                                         error=exc.strerror),
                  file=sys.stderr, flush=True)
            return 2
    if web is not None:
        web.ssh_port = front.port if front is not None else None
        try:
            await web.start()
        except OSError as exc:
            print("ono99 front: " + _("cannot listen on web port {port}: {error}").format(port=config.web_port,
                                                                                         error=exc.strerror),
                  file=sys.stderr, flush=True)
            if front is not None:
                await front.close()
            return 2
    tune_gc()
    stop = asyncio.Event()
    server_lost = asyncio.Event()  # set with ``stop`` when the server died (its pipe closed) instead
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if parent_pipe:
        with contextlib.suppress(OSError, ValueError):  # not a pipe (a file, /dev/null): nothing to watch
            loop.add_reader(sys.stdin.fileno(), _parent_gone, stop, server_lost)
    print(f"{READY} pid {os.getpid()} port {front.port if front is not None else 0} "
          f"web {web.port if web is not None else 0}", flush=True)
    if announce:
        if front is not None:
            print(_("ONO 99 SSH front: port {port}, host key {fingerprint}, game server {address}").format(
                port=front.port, fingerprint=front.fingerprint, address=f"{config.server_host}:{config.server_port}"),
                flush=True)
        if web is not None:
            print(_("ONO 99 web front: https://HOST:{port}/, certificate {fingerprint}, game server {address}").format(
                port=web.port, fingerprint=web.certificate.fingerprint,
                address=f"{config.server_host}:{config.server_port}"), flush=True)
    await stop.wait()
    await asyncio.gather(*(f.close(server_lost=server_lost.is_set()) for f in (front, web) if f is not None))
    return 0


def tune_gc() -> None:
    """Collect cycles less often (FRONT_GC_THRESHOLD), and never look again at what is alive once
    the front listens (modules, styles: it stays for the process's life)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(FRONT_GC_THRESHOLD, *gc.get_threshold()[1:])


def _parent_gone(stop: asyncio.Event, server_lost: asyncio.Event) -> None:
    """The server's end of the pipe: the server writes nothing, so readable means closed."""
    with contextlib.suppress(OSError):
        if os.read(sys.stdin.fileno(), 1):
            return
    asyncio.get_running_loop().remove_reader(sys.stdin.fileno())
    logging.getLogger("ono99.workers").warning("the server is gone: this SSH worker stops")
    server_lost.set()
    stop.set()


def worker_main() -> int:
    """A worker of ``ono99 serve`` (``python -m ono99_tui.front``): its settings come in $ONO99_FRONT_CONFIG."""
    text = os.environ.pop(CONFIG_ENV, "")
    set_default_language(os.environ.get(LANGUAGE_ENV, "en"))
    if not text:
        print("ono99 front worker: " + _("no settings (it is started by 'ono99 serve')"), file=sys.stderr)
        return 2
    config = config_from_env(text)
    # Rendering is the fronts' work and the game is the server's: when the cores are busy, the game
    # server (at the ordinary priority) runs first, so a move is never held up behind redraws.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    level = os.environ.get("ONO99_LOG_LEVEL", "info")
    logging.basicConfig(level=level.upper(), format=f"%(asctime)s ssh-worker[{os.getpid()}] %(name)s "
                                                    "%(levelname)s %(message)s")
    if level != "debug":
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    return asyncio.run(run_front(config, announce=False, parent_pipe=True))
