"""e (a series) pressed by a player who cannot choose one: the real app under Pilot against a real
server over loopback TLS."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ono99_kernel.wire.requests import CreateTable
from ono99_tui.tui.app import make_app
from ono99_tui.tui.series import SeriesScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import create_table, running_server
from tests.test_tui import join_from_the_lobby, wait_until


async def test_e_says_at_once_why_a_guest_or_the_host_of_a_public_table_cannot_choose_a_series(
        tmp_path: Path) -> None:
    """Bo hosts a public table and Ada joins it; Ada presses e: before, a dialog of series opened
    whose every choice the server refused; now the line under the cards says that only Bo can. Ada
    then opens a public table of her own and presses e: it says a series needs a private table."""
    async with running_server(tmp_path, db_path=None, grace_seconds=60) as harness:
        bo = await harness.connect("Bo")
        table_id = await create_table(bo, seats=3)
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="Ada")
        async with app.run_test(size=(80, 24)) as pilot:
            await join_from_the_lobby(pilot, app, table_id, "Bo's table")
            table_screen = app.screen
            why = table_screen.query_one("#why", Static)
            await pilot.press("e")
            await pilot.pause()
            assert not isinstance(app.screen, SeriesScreen)
            assert str(why.content) == "Only the host, Bo, can choose a series."
            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=0))
            await wait_until(pilot, lambda: app.model.table is not None and app.model.table.host == "Ada"
                             and isinstance(app.screen, TableScreen), "Ada's own table")
            await pilot.press("e")
            await pilot.pause()
            assert not isinstance(app.screen, SeriesScreen)
            why = app.screen.query_one("#why", Static)
            assert "private table" in str(why.content)
