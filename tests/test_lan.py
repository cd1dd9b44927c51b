"""LAN play: servers advertised with mDNS/DNS-SD on the loopback interface, found by the browser and
by the app's server list, live; the TXT record's encoding and what a hostile one is refused for.

Real parts throughout: zeroconf bound to 127.0.0.1 (multicast on loopback), in-process servers on
loopback TCP, an ``ono99 serve`` process, the Textual app under Pilot. Each test gives its servers
a name of its own, so a server advertised by anything else on this machine is never mistaken for
one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable, Input, Static
from zeroconf import InterfaceChoice

import ono99_tui.discovery
from ono99_kernel.core.options import TableOptions
from ono99_kernel.lan import (
    MAX_ADVERTISED_TABLES,
    MAX_TXT_VALUE,
    Advert,
    AdvertError,
    AdvertisedTable,
    advert_for,
    parse_txt,
    to_txt,
)
from ono99_kernel.protocol import PROTOCOL_VERSION
from ono99_kernel.wire.requests import CreateTable
from ono99_kernel.wire.server import Seat, TableInfo, TableStatus
from ono99_server import Server, ServerConfig
from ono99_server.advertiser import Advertiser, instance_name, interface_plan
from ono99_tui.client.connection import Client
from ono99_tui.discovery import FoundServer, ServerBrowser, pick_address
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.servers import NOTHING_FOUND, ServersScreen
from tests.textual_compat import notification_texts

from .server_helpers import ServerProcess
from .test_tui import wait_until

LOOPBACK = ["127.0.0.1"]
PATIENCE = 60.0  # seconds to wait for something on the network; never a speed requirement
_names = itertools.count(1)


def unique_name(what: str) -> str:
    return f"{what} {os.getpid()}-{next(_names)}"


# --- the TXT record (pure) -------------------------------------------------------------------------------
def table_info(id_: int, name: str, free: int, status: TableStatus = "waiting", private: bool = False,
               summary: str = "2022 rules") -> TableInfo:
    seats = tuple(Seat("empty", "", None, None) if i < free else Seat("human", f"P{i}", None, True) for i in range(4))
    return TableInfo(id=id_, name=name, edition="2022", options=TableOptions(), summary=summary, host="P3",
                     status=status, private=private, seats=seats, free=free, bots=0, spectators=0,
                     replace_bots=False, turn_seconds=0, bot_level="greedy", game_no=0, winner=None,
                     name_code=None, name_params={})


def test_txt_record_round_trips_with_open_tables_first_and_private_ones_left_out() -> None:
    tables = [table_info(1, "Full game", 0, "playing"), table_info(2, "Secret", 3, private=True),
              table_info(3, "Come in", 2), table_info(4, "Done", 0, "finished")]
    advert = advert_for("Friday night", 2222, tables)
    assert [t.name for t in advert.tables] == ["Come in", "Full game", "Done"]
    assert advert.tables_total == 3
    txt = to_txt(advert)
    assert txt["name"] == "Friday night" and txt["proto"] == str(PROTOCOL_VERSION) and txt["ssh"] == "2222"
    parsed = parse_txt({k.encode(): v.encode() for k, v in txt.items()})
    assert parsed == advert
    assert parsed.compatible


def test_txt_record_lists_at_most_a_few_tables_each_within_a_txt_string() -> None:
    tables = [table_info(i, f"Table {i}", 1, summary="very long rules " * 40) for i in range(1, 20)]
    advert = advert_for("Busy", None, tables)
    txt = to_txt(advert)
    assert len(advert.tables) == MAX_ADVERTISED_TABLES and advert.tables_total == 19
    assert all(len(f"{k}={v}".encode()) <= 255 and len(v.encode()) <= MAX_TXT_VALUE for k, v in txt.items())
    parsed = parse_txt({k.encode(): v.encode() for k, v in txt.items()})
    assert parsed.tables_total == 19 and len(parsed.tables) == MAX_ADVERTISED_TABLES
    assert parsed.ssh_port is None


def test_a_hostile_txt_record_is_cleaned_or_refused() -> None:
    """Tried: escape sequences and bidi overrides in the server and table names, a foreign TXT
    version, a port that is not a number, a table entry that is not JSON, one with wrong types, one
    with more free seats than seats, an unknown status. Names come out as plain text; the rest
    raises AdvertError (the browser then leaves that service out)."""
    good = to_txt(Advert("Ok", PROTOCOL_VERSION, None, 1, (AdvertisedTable(1, "T", 1, 4, "waiting", "r"),)))

    def record(**changes: str) -> dict[bytes, bytes | None]:
        return {k.encode(): v.encode() for k, v in {**good, **changes}.items()}

    parsed = parse_txt(record(name="\x1b[2J\x1b]0;owned\x07Evil\u202eserver",
                              t0='[1,"\\u001b[31mred",9,4,"waiting","\\u0007bell"]'))
    assert parsed.name == "[2J]0;ownedEvilserver"
    assert parsed.tables[0].name == "[31mred" and parsed.tables[0].summary == "bell"
    assert parsed.tables[0].free == 4  # clamped to the seats
    for changes in ({"txtvers": "9"}, {"ssh": "22a"}, {"proto": "-1"}, {"t0": "{not json"},
                    {"t0": '[1,"x",1,4,"waiting"]'}, {"t0": '["1","x",1,4,"waiting","r"]'},
                    {"t0": '[1,"x",true,4,"waiting","r"]'}, {"t0": '[1,"x",1,4,"exploding","r"]'}):
        with pytest.raises(AdvertError):
            parse_txt(record(**changes))
    with pytest.raises(AdvertError):
        parse_txt({b"name": b"no version at all"})


def test_addresses_are_picked_ipv4_first_on_a_local_network_first_and_loopback_last() -> None:
    assert pick_address(["127.0.0.1", "192.168.1.20"]) == "192.168.1.20"
    assert pick_address(["fd00::2", "10.0.0.5"]) == "10.0.0.5"
    assert pick_address(["127.0.0.1"]) == "127.0.0.1"
    assert pick_address(["224.0.0.251", "0.0.0.0", "nonsense", "fe80::1"]) is None
    # a server on two networks: the address on one of this machine's networks first
    here = [ipaddress.ip_network("192.168.7.0/24")]
    assert pick_address(["10.1.2.3", "192.168.7.20"], here) == "192.168.7.20"
    assert pick_address(["10.1.2.3", "192.168.7.20"]) == "10.1.2.3"
    assert FoundServer("k", "fd00::2", 9999, Advert("x", 1, None, 0)).address == "[fd00::2]:9999"


def test_the_server_is_advertised_on_the_interfaces_it_listens_on() -> None:
    assert interface_plan("127.0.0.1")[0] == ["127.0.0.1"]
    assert interface_plan("127.0.0.1")[2] == ["127.0.0.1"]
    everywhere, _, addresses = interface_plan("0.0.0.0")
    assert everywhere is InterfaceChoice.All and addresses
    name = instance_name("A.b\x1bc" + "x" * 80, 9999)
    assert "." not in name and "\x1b" not in name and len(name.encode()) <= 63


# --- advertised and found over the loopback interface ---------------------------------------------------
class Watcher:
    """A browser bound to loopback that remembers every list it was handed."""

    def __init__(self) -> None:
        self.servers: dict[str, FoundServer] = {}
        self.changed = asyncio.Event()
        self.browser = ServerBrowser(self._on_change, LOOPBACK)

    def _on_change(self, servers: dict[str, FoundServer]) -> None:
        self.servers = servers
        self.changed.set()

    def named(self, name: str) -> FoundServer | None:
        return next((s for s in self.servers.values() if s.advert.name == name), None)

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        async def wait() -> None:
            while not condition():
                self.changed.clear()
                await self.changed.wait()

        try:
            await asyncio.wait_for(wait(), PATIENCE)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}; seen: {self.servers}") from None


@contextlib.asynccontextmanager
async def watching() -> AsyncIterator[Watcher]:
    watcher = Watcher()
    await watcher.browser.start()
    try:
        yield watcher
    finally:
        await watcher.browser.close()


@contextlib.asynccontextmanager
async def advertised_server(name: str, ssh_port: int | None = None) -> AsyncIterator[tuple[Server, Advertiser]]:
    server = Server(ServerConfig(host="127.0.0.1", port=0, name=name, bot_delay=0, default_turn_seconds=0))
    await server.start()
    advertiser = Advertiser(server, ssh_port, debounce=0.05)
    try:
        await advertiser.start()
        yield server, advertiser
    finally:
        await advertiser.close()
        await advertiser.close()  # twice is harmless
        await server.close()


async def test_a_server_on_loopback_is_found_its_tables_follow_the_lobby_and_it_goes_when_stopped() -> None:
    name = unique_name("Found")
    async with watching() as watcher:
        async with advertised_server(name, ssh_port=2222) as (server, _):
            await watcher.until(lambda: watcher.named(name) is not None, "the server to be found")
            found = watcher.named(name)
            assert found is not None
            assert (found.host, found.port) == ("127.0.0.1", server.port)
            assert found.advert.ssh_port == 2222 and found.advert.compatible and found.advert.tables == ()
            assert found.advert.fingerprint == server.fingerprint  # what its certificate shows

            client = await Client.connect(found.host, found.port, "ann")
            await client.send(CreateTable(edition="2022", seats=4, bots=1, name="Ann's table"))
            await watcher.until(lambda: bool((s := watcher.named(name)) and s.advert.tables),
                                "the new table in the advertisement")
            found = watcher.named(name)
            assert found is not None
            table = found.advert.tables[0]
            assert (table.name, table.free, table.seats, table.status) == ("Ann's table", 2, 4, "waiting")
            assert table.summary == server.lobby.tables[table.id].options.summary()
            await client.close()
        # the advertiser said goodbye as the server stopped
        await watcher.until(lambda: watcher.named(name) is None, "the stopped server to leave the list")


@pytest.mark.system
async def test_ono99_serve_advertises_by_default_and_not_with_no_advertise(tmp_path: Path) -> None:
    """Two `ono99 serve` processes on loopback, one with --no-advertise: the browser finds the
    first (with the SSH port it really listens on), never lists the second, and loses the first
    when it is stopped with SIGINT."""
    shown, hidden = unique_name("Shown"), unique_name("Hidden")
    async with watching() as watcher:
        loud = ServerProcess(tmp_path / "a.db", tmp_path / "a.log", "--name", shown, "--ssh-port", "0")
        quiet = ServerProcess(tmp_path / "b.db", tmp_path / "b.log", "--name", hidden, "--ssh-port", "0",
                              "--no-advertise")
        try:
            await quiet.start()
            port = await loud.start()
            assert any("LAN: announced on 127.0.0.1" in line for line in loud.banner), loud.banner
            assert not any("LAN" in line for line in quiet.banner), quiet.banner
            await watcher.until(lambda: watcher.named(shown) is not None, "the advertised server")
            found = watcher.named(shown)
            assert found is not None and found.port == port and found.advert.ssh_port is None
            assert watcher.named(hidden) is None
            assert loud.proc is not None
            loud.proc.send_signal(signal.SIGINT)
            await watcher.until(lambda: watcher.named(shown) is None, "the stopped server to leave the list")
            assert await asyncio.wait_for(loud.proc.wait(), PATIENCE) == 0
        finally:
            await loud.stop()
            await quiet.stop()


# --- the app's server list ------------------------------------------------------------------------------
def grid_rows(screen: ServersScreen) -> list[str]:
    grid = screen.query_one("#servers", DataTable)
    return [Text.assemble(grid.get_row_at(i)[0]).plain for i in range(grid.row_count)]


def shown_text(screen: ServersScreen, widget_id: str) -> str:
    content = screen.query_one(widget_id, Static).render()
    return content.plain if isinstance(content, Text) else str(content)


async def select(pilot: Any, screen: ServersScreen, name: str) -> None:
    """Put the list's cursor on the server called ``name`` with the arrow keys."""
    names = grid_rows(screen)
    grid = screen.query_one("#servers", DataTable)
    key = "down" if names.index(name) > grid.cursor_row else "up"
    for _ in range(abs(names.index(name) - grid.cursor_row)):
        await pilot.press(key)
    selected = screen.selected()
    assert selected is not None and selected.advert.name == name


async def test_connect_without_an_address_lists_servers_live_and_joins_one_with_enter() -> None:
    first, second = unique_name("Alpha"), unique_name("Beta")
    async with advertised_server(first) as (server, _), advertised_server(second, ssh_port=2222) as (_, beta):
        client = await Client.connect("127.0.0.1", server.port, "host")
        await client.send(CreateTable(edition="1980", seats=3, bots=0, name="Old rules"))
        app = make_app(local=False, name="visitor", discover=True, browse_interfaces=LOOPBACK)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen), "the server list")
            screen = app.screen
            assert isinstance(screen, ServersScreen)
            await wait_until(pilot, lambda: {first, second} <= set(grid_rows(screen)), "both servers listed")
            # the tables of the highlighted server, live from its advertisement
            await select(pilot, screen, first)
            await wait_until(pilot, lambda: "Old rules" in shown_text(screen, "#server-tables"), "its table")
            assert "2 of 3 seats free" in shown_text(screen, "#server-tables")
            assert "ssh -p" not in shown_text(screen, "#server-tables")  # this one offers no SSH
            await select(pilot, screen, second)
            assert "ssh -p 2222 127.0.0.1" in shown_text(screen, "#server-tables")
            # a server that stops leaves the list by itself
            await beta.close()
            await wait_until(pilot, lambda: second not in grid_rows(screen), "the stopped server to go")
            await select(pilot, screen, first)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the chosen server's lobby")
            assert app.model.server_name == first and app.port == server.port
            assert "visitor" in server.lobby.members
        await client.close()


async def test_an_address_typed_by_hand_connects_and_a_bad_one_says_what_to_type() -> None:
    """Tried: 'host:port', 'host:99999' and nothing at all in the address box (an error, the list stays), then
    the real server's address."""
    async with advertised_server(unique_name("Typed")) as (server, _):
        app = make_app(local=False, name="typist", discover=True, browse_interfaces=LOOPBACK)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen), "the server list")
            for bad in ("host:port", "host:99999", "  "):
                await pilot.press("a")
                box = app.screen.query_one("#address", Input)
                box.value = bad
                await pilot.press("enter")
                await pilot.pause()
                assert isinstance(app.screen, ServersScreen)
                assert any("is not an address" in n for n in notification_texts(app))
            box.value = f"127.0.0.1:{server.port}"
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the typed server's lobby")
            assert "typist" in server.lobby.members


async def test_an_unreachable_server_sends_the_player_back_to_the_list() -> None:
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()  # nothing listens on that port any more
    app = make_app(local=False, name="x", discover=True, browse_interfaces=LOOPBACK)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen), "the server list")
        app.screen.query_one("#address", Input).value = f"127.0.0.1:{port}"
        app.screen.query_one("#address", Input).focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(f"Nothing answers at 127.0.0.1:{port}" in n
                                            for n in notification_texts(app)), "the error")
        await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen), "the list again")


async def test_with_no_server_on_the_network_the_list_says_how_to_type_an_address(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a service type no server uses: whatever else runs on this machine, nothing is found
    monkeypatch.setattr(ono99_tui.discovery, "SERVICE_TYPE", "_ono99-nobody._tcp.local.")
    app = make_app(local=False, name="x", discover=True, browse_interfaces=LOOPBACK)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ServersScreen), "the server list")
        screen = app.screen
        assert isinstance(screen, ServersScreen)
        await wait_until(pilot, lambda: shown_text(screen, "#discovery-status") == NOTHING_FOUND,
                       "the nothing-found hint")
        assert grid_rows(screen) == []
        # nothing to pick: type instead (the focus moves just after the hint is said)
        await wait_until(pilot, lambda: screen.query_one("#address", Input).has_focus, "the address box focused")
        await pilot.press("enter")  # an empty address: a hint, not a crash
        assert any("is not an address" in n for n in notification_texts(app))
        assert isinstance(app.screen, ServersScreen)
