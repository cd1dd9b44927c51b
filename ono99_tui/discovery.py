"""Finding ONO 99 servers on the local network: an mDNS/DNS-SD browser for ``_ono99._tcp``.

``ServerBrowser`` runs on the caller's asyncio loop and calls ``on_change`` with every server it
knows whenever one appears, changes its advertisement (its tables) or says goodbye.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from ono99_kernel.lan import SERVICE_TYPE, Advert, AdvertError, parse_txt

log = logging.getLogger("ono99.discovery")

RESOLVE_TIMEOUT_MS = 3000


@dataclass(frozen=True, slots=True)
class FoundServer:
    key: str  # the DNS-SD instance name, unique on the network
    host: str  # the address to connect to
    port: int
    advert: Advert

    @property
    def address(self) -> str:
        """``HOST:PORT`` as ``ono99 connect`` takes it."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def pick_address(addresses: Sequence[str],
                 networks: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network] = ()) -> str | None:
    """The address to try first: IPv4 before IPv6, one on a network of ``networks`` (this machine's)
    before others (a server on several networks lists all its addresses), loopback last."""
    parsed = []
    for text in addresses:
        with contextlib.suppress(ValueError):
            parsed.append(ipaddress.ip_address(text.split("%")[0]))
    usable = [ip for ip in parsed if not (ip.is_multicast or ip.is_unspecified or ip.is_link_local)]
    usable.sort(key=lambda ip: (ip.version, ip.is_loopback, not any(ip in net for net in networks)))
    return str(usable[0]) if usable else None


def local_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks this machine's interfaces are on."""
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            address = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            with contextlib.suppress(ValueError):
                networks.append(ipaddress.ip_network(f"{address}/{ip.network_prefix}", strict=False))
    return networks


class ServerBrowser:
    """Browses the network for servers. ``await start()``, then ``await close()`` (safe twice).

    ``interfaces``: addresses of the interfaces to browse on (``["127.0.0.1"]`` for loopback
    only); all interfaces by default.
    """

    def __init__(self, on_change: Callable[[dict[str, FoundServer]], None],
                 interfaces: Sequence[str] | None = None) -> None:
        self.on_change = on_change
        self.interfaces = list(interfaces) if interfaces is not None else None
        self.servers: dict[str, FoundServer] = {}
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._resolving: dict[str, asyncio.Task[None]] = {}
        self._networks = local_networks()
        self._closed = False

    async def start(self) -> None:
        """Start browsing; ``OSError`` if this machine cannot do multicast DNS."""
        if self.interfaces is None:
            self._zeroconf = AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)
        else:
            self._zeroconf = AsyncZeroconf(interfaces=self.interfaces)
        self._browser = AsyncServiceBrowser(self._zeroconf.zeroconf, [SERVICE_TYPE], handlers=[self._on_service])

    def _on_service(self, zeroconf: Zeroconf, service_type: str, name: str,
                    state_change: ServiceStateChange) -> None:
        if self._closed:
            return
        if state_change is ServiceStateChange.Removed:
            task = self._resolving.pop(name, None)
            if task is not None:
                task.cancel()
            if self.servers.pop(name, None) is not None:
                self.on_change(dict(self.servers))
            return
        previous = self._resolving.get(name)
        if previous is not None:
            previous.cancel()
        self._resolving[name] = asyncio.get_running_loop().create_task(self._resolve(name))

    async def _resolve(self, name: str) -> None:
        assert self._zeroconf is not None
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        try:
            if not await info.async_request(self._zeroconf.zeroconf, RESOLVE_TIMEOUT_MS) or info.port is None:
                return
            host = pick_address(info.parsed_addresses(), self._networks)
            if host is None:
                return
            advert = parse_txt(info.properties)
        except AdvertError as exc:  # another program's service, or a broken one: not listed
            log.info("ignored %r: %s", name, exc)
            return
        finally:
            if self._resolving.get(name) is asyncio.current_task():
                del self._resolving[name]
        key = name.removesuffix("." + SERVICE_TYPE)
        self.servers[name] = FoundServer(key=key, host=host, port=info.port, advert=advert)
        self.on_change(dict(self.servers))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for task in self._resolving.values():
            task.cancel()
        self._resolving.clear()
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await self._browser.async_cancel()
        if self._zeroconf is not None:
            await self._zeroconf.async_close()
