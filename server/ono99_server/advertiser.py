"""Advertising the server on the local network with mDNS/DNS-SD (zeroconf), on the interfaces it
listens on: a server on 127.0.0.1 is advertised on loopback only, one on 0.0.0.0 on every interface.

The TXT record (``ono99_kernel.lan``) follows the lobby: a change to the tables republishes it, at most
once per ``debounce`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
from collections.abc import Awaitable
from typing import TYPE_CHECKING

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, NonUniqueNameException
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from ono99_kernel.lan import SERVICE_TYPE, Advert, advert_for, to_txt

if TYPE_CHECKING:
    from .game_server import Server

log = logging.getLogger("ono99.lan")

RECORD_TTL = 120  # seconds: a server that vanished without saying goodbye leaves browsers this soon
ALL_HOSTS = ("", "0.0.0.0", "::")


def interface_plan(host: str) -> tuple[list[str] | InterfaceChoice, IPVersion, list[str]]:
    """Where to advertise a server listening on ``host``: the zeroconf interfaces, the IP version
    and the addresses to put in the record."""
    if host in ALL_HOSTS:
        version = IPVersion.V4Only if host == "0.0.0.0" else IPVersion.All
        addresses = _interface_addresses(v6=version is IPVersion.All)
        return InterfaceChoice.All, version, addresses
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # a host name: the addresses it stands for on this machine
        ips = sorted({str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)})
        v4 = [a for a in ips if ipaddress.ip_address(a).version == 4]
        return (v4 or ips), (IPVersion.V4Only if v4 else IPVersion.V6Only), (v4 or ips)
    version = IPVersion.V4Only if ip.version == 4 else IPVersion.V6Only
    return [str(ip)], version, [str(ip)]


def _interface_addresses(v6: bool) -> list[str]:
    """This machine's addresses, those other machines can reach first (loopback only if alone)."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                found.append(ip.ip)
            elif v6 and not ipaddress.ip_address(ip.ip[0]).is_link_local:
                found.append(ip.ip[0])
    outside = [a for a in found if not ipaddress.ip_address(a).is_loopback]
    return outside or [a for a in found if ipaddress.ip_address(a).version == 4] or ["127.0.0.1"]


def instance_name(server_name: str, port: int) -> str:
    """The DNS-SD instance name: the server's name and where it runs, without dots (they separate
    labels) and within a label's 63 bytes."""
    machine = socket.gethostname().split(".")[0] or "host"
    text = re.sub(r"[.\x00-\x1f\x7f]", " ", f"{server_name} on {machine}:{port}").strip()
    while len(text.encode()) > 63:
        text = text[:-1]
    return text


def _done(awaitable: Awaitable[object]) -> bool:
    return isinstance(awaitable, asyncio.Future) and awaitable.done()


def _host_label() -> str:
    label = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname().split(".")[0])[:63].strip("-")
    return f"{label or 'ono99'}.local."


class Advertiser:
    """Publishes one server's advertisement. ``await start()``, then ``await close()`` (safe twice)."""

    def __init__(self, server: Server, ssh_port: int | None = None, debounce: float = 1.0) -> None:
        self.server = server
        self.ssh_port = ssh_port
        self.debounce = debounce
        self.interfaces, self.ip_version, self.addresses = interface_plan(server.config.host)
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._published: dict[str, str] = {}
        self._pending: asyncio.TimerHandle | None = None
        self._updating: asyncio.Task[None] | None = None
        self._broadcasts: list[Awaitable[object]] = []  # announcements still being sent
        self._closed = False

    @property
    def service_name(self) -> str | None:
        """The full service name once registered (zeroconf may have added a number to stay unique)."""
        return self._info.name if self._info is not None else None

    @property
    def where(self) -> str:
        if self.interfaces is InterfaceChoice.All:
            return "every network interface"
        return ", ".join(self.interfaces) if isinstance(self.interfaces, list) else str(self.interfaces)

    def advert(self) -> Advert:
        return advert_for(self.server.config.name, self.ssh_port,
                          (t.info() for t in self.server.lobby.tables.values()), self.server.fingerprint)

    async def start(self) -> None:
        """Register the service; ``OSError`` if the machine cannot do multicast DNS."""
        self._zeroconf = AsyncZeroconf(interfaces=self.interfaces, ip_version=self.ip_version)
        txt = to_txt(self.advert())
        name = instance_name(self.server.config.name, self.server.port)
        self._info = self._service_info(f"{name}.{SERVICE_TYPE}", txt)
        try:
            self._broadcasts.append(await self._zeroconf.async_register_service(self._info, allow_name_change=True))
        except NonUniqueNameException as exc:
            raise OSError(f"the service name {name!r} is taken on this network") from exc
        self._published = txt
        self.server.lobby.table_listeners.append(self.tables_changed)

    def _service_info(self, name: str, txt: dict[str, str]) -> AsyncServiceInfo:
        return AsyncServiceInfo(SERVICE_TYPE, name, port=self.server.port, properties=txt, server=_host_label(),
                                parsed_addresses=self.addresses, host_ttl=RECORD_TTL, other_ttl=RECORD_TTL)

    def tables_changed(self) -> None:
        if self._closed or self._pending is not None:
            return
        self._pending = asyncio.get_running_loop().call_later(self.debounce, self._republish)

    def _republish(self) -> None:
        self._pending = None
        if self._closed or self._info is None:
            return
        if self._updating is not None and not self._updating.done():  # one update at a time
            self.tables_changed()
            return
        txt = to_txt(self.advert())
        if txt == self._published:
            return
        self._updating = asyncio.create_task(self._update(txt))

    async def _update(self, txt: dict[str, str]) -> None:
        assert self._zeroconf is not None and self._info is not None
        self._info = self._service_info(self._info.name, txt)
        try:
            self._broadcasts = [b for b in self._broadcasts if not _done(b)]
            self._broadcasts.append(await self._zeroconf.async_update_service(self._info))
            self._published = txt
        except Exception:  # the network went away: the next change tries again
            log.warning("could not update the LAN advertisement", exc_info=True)

    async def close(self) -> None:
        """Say goodbye on the network (browsers drop the server at once) and stop."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(ValueError):
            self.server.lobby.table_listeners.remove(self.tables_changed)
        if self._pending is not None:
            self._pending.cancel()
        if self._updating is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._updating, 5)
        for broadcast in self._broadcasts:  # announcements still repeating: the goodbye below supersedes them
            if isinstance(broadcast, asyncio.Future):
                broadcast.cancel()
        if self._zeroconf is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._zeroconf.async_unregister_all_services(), 5)
            await self._zeroconf.async_close()
