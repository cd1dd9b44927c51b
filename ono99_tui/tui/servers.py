"""The server list of ``ono99 connect`` without an address: servers found on the local network,
live, with their open tables; or an address typed by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ono99_kernel.lan import Advert
from ono99_kernel.protocol import PROTOCOL_VERSION

from .. import text as words
from ..client.connection import parse_address
from ..client.labels import advertised_table_name, status_word, summary_words
from ..discovery import FoundServer, ServerBrowser
from ..i18n import N_
from ..i18n import gettext as _
from .inputs import Input
from .widgets import KeysFooter, put_up_while_closing

QUIET_SECONDS = 3.0  # with nothing found after this long, say how to type an address
NOTHING_FOUND = N_("No ONO 99 server found on this network yet (still looking). Type an address below "
                   "(HOST or HOST:PORT) and press Enter, or host one with 'ono99 serve'.")


def describe_tables(advert: Advert) -> Text:
    """The open tables of one server, a line each, as plain text (every string came from the network)."""
    text = Text()
    if not advert.tables:
        text.append(_("No tables yet: join and create one."), style="dim")
        return text
    for table in advert.tables:
        if text:
            text.append("\n")
        text.append(advertised_table_name(table.name) or _("table {n}").format(n=table.id), style="bold")
        seats = words.count(table.seats, "{n} seat", "{n} seats")
        free = _("{free} of {seats} free").format(free=table.free, seats=seats) if table.free \
            else _("{seats}, full").format(seats=seats)
        text.append(f"  ·  {free}  ·  {status_word(table.status)}  ·  ")
        text.append(summary_words(table.summary))
    hidden = advert.tables_total - len(advert.tables)
    if hidden > 0:
        text.append("\n" + words.count(hidden, "…and {n} more in its lobby", "…and {n} more in its lobby"),
                    style="dim")
    return text


class ServersScreen(Screen[tuple[str, int, str | None]]):
    """Picks a server; dismisses with its ``(host, port, announced fingerprint)`` (None for an
    address typed by hand)."""

    BINDINGS = [
        Binding("enter", "join", N_("Join"), show=True),
        Binding("a", "type_address", N_("Type an address")),
        Binding("escape", "back_to_list", N_("List"), show=False),
        Binding("q", "app.quit", N_("Quit")),
    ]

    def __init__(self, interfaces: Sequence[str] | None = None) -> None:
        super().__init__()
        self.interfaces = interfaces
        self.servers: list[FoundServer] = []
        self.searching = True  # False once the network cannot be searched here
        self.quiet_over = False  # True once QUIET_SECONDS have passed

    def compose(self) -> ComposeResult:
        yield Static(Text(_("ONO 99 servers on your network"), style="bold"), id="title")
        yield DataTable(id="servers", cursor_type="row", zebra_stripes=True)
        yield Static(id="server-tables", markup=False)
        yield Static(Text(_("Looking for servers…")), id="discovery-status", markup=False)
        yield Input(placeholder=_("…or type an address: HOST or HOST:PORT, then Enter"), id="address")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        grid = self.query_one("#servers", DataTable)
        grid.add_columns(_("server"), _("address"), _("tables"), _("free seats"), "ssh")
        grid.focus()
        self.run_worker(self._browse(), exclusive=True, group="discovery", name="discovery")
        self.set_timer(QUIET_SECONDS, self._end_quiet)

    def _end_quiet(self) -> None:
        self.quiet_over = True
        self._say_status()
        if not self.servers:  # nothing to pick: the address box is what is left
            self.action_type_address()

    async def _browse(self) -> None:
        browser = ServerBrowser(self.show_servers, self.interfaces)
        try:
            await browser.start()
            await asyncio.Event().wait()  # browse until the screen goes (the worker is cancelled)
        except OSError as exc:
            self.searching = False
            self.action_type_address()
            self._say(_("Cannot search this network ({error}). Type the server's address below (HOST or "
                        "HOST:PORT) and press Enter.").format(error=exc))
        finally:
            await browser.close()

    # --- rendering ------------------------------------------------------------------------------------
    def show_servers(self, servers: dict[str, FoundServer]) -> None:
        """Called by the browser with every server it knows."""
        grid = self.query_one("#servers", DataTable)
        selected = self.selected()
        self.servers = sorted(servers.values(), key=lambda s: (s.advert.name.lower(), s.key))
        grid.clear()
        for found in self.servers:
            advert = found.advert
            open_seats = sum(t.free for t in advert.tables if t.status == "waiting")
            ssh = _("port {port}").format(port=advert.ssh_port) if advert.ssh_port else _("no")
            grid.add_row(Text(advert.name), found.address, str(advert.tables_total), str(open_seats), ssh,
                         key=found.key)
        keys = [s.key for s in self.servers]
        if selected is not None and selected.key in keys:  # the cursor stays on the same server
            grid.move_cursor(row=keys.index(selected.key))
        self._show_selected()
        self._say_status()

    def _show_selected(self) -> None:
        found = self.selected()
        panel = self.query_one("#server-tables", Static)
        if found is None:
            panel.update("")
            return
        text = Text()
        # its address, not its DNS-SD name ("NAME on MACHINE:PORT", in English)
        text.append(f"{found.advert.name}  ({found.address})", style="bold underline")
        text.append("\n")
        if not found.advert.compatible:
            text.append(_("Speaks protocol {theirs}; this ono99 speaks {ours}: one of you needs to update.").format(
                theirs=found.advert.protocol, ours=PROTOCOL_VERSION) + "\n", style="bold")
        if found.advert.fingerprint:
            text.append(_("Certificate {fingerprint} (as announced: checked when you join)").format(
                fingerprint=found.advert.fingerprint) + "\n", style="dim")
        text.append_text(describe_tables(found.advert))
        if found.advert.ssh_port:
            text.append("\n" + _("Nothing installed? {command}").format(
                command=f"ssh -p {found.advert.ssh_port} {found.host}"), style="dim")
        panel.update(text)

    def _say_status(self) -> None:
        if not self.searching:
            return
        if self.servers:
            self._say(_("Enter: join the selected server  ·  a: type an address  ·  the list updates by itself"))
        else:
            self._say(_(NOTHING_FOUND) if self.quiet_over else _("Looking for servers…"))

    def _say(self, text: str) -> None:
        self.query_one("#discovery-status", Static).update(Text(text))

    def selected(self) -> FoundServer | None:
        grid = self.query_one("#servers", DataTable)
        if not self.servers or grid.cursor_row < 0:
            return None
        return self.servers[min(grid.cursor_row, len(self.servers) - 1)]

    @on(DataTable.RowHighlighted, "#servers")
    def _highlighted(self) -> None:
        self._show_selected()

    # --- choosing ---------------------------------------------------------------------------------------
    @on(DataTable.RowSelected, "#servers")
    def _row_chosen(self) -> None:
        self.action_join()

    def action_join(self) -> None:
        found = self.selected()
        if found is None:
            self.notify(_("No server to join yet: wait for one to appear, or type an address."),
                        severity="warning")
            return
        if not found.advert.compatible:
            self.notify(_("{server} speaks protocol {theirs}, this ono99 speaks {ours}: update the older one.").format(
                server=found.advert.name, theirs=found.advert.protocol, ours=PROTOCOL_VERSION), severity="error")
            return
        self.dismiss((found.host, found.port, found.advert.fingerprint))

    @on(Input.Submitted, "#address")
    def _address_typed(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        try:
            host, port = parse_address(text)
        except ValueError:
            host, port = "", 0
        if not host or not 0 < port < 65536:
            self.notify(_("{text} is not an address: type HOST or HOST:PORT (for example 192.168.1.20:9999).").format(
                text=repr(text)), severity="error")
            return
        self.dismiss((host, port, None))

    def action_type_address(self) -> None:
        self.query_one("#address", Input).focus()

    def action_back_to_list(self) -> None:
        self.query_one("#servers", DataTable).focus()
