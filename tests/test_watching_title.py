"""A spectator's title before a game: the real app under Pilot against a real server over loopback TLS."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ono99_kernel.wire.requests import Spectate
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import create_table, running_server
from tests.test_tui import wait_until


async def test_watching_a_table_before_its_game_says_so_and_how_to_sit(tmp_path: Path) -> None:
    """Bo opens a table and waits; Ada watches it (s in the lobby). Before, her title said only the
    table's name and rules, and the banner "Waiting for Bo to start the game (2 free seats)" read as
    it does for a seated player, so she could not tell she was not seated, nor how to sit; now the
    title says "spectating (u: sit down, m: seats)", as it does once the game runs."""
    async with running_server(tmp_path, db_path=None, grace_seconds=60) as harness:
        bo = await harness.connect("Bo")
        table_id = await create_table(bo, seats=3)
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="Ada")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(Spectate(table=table_id))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None,
                             "Bo's table")
            await pilot.pause()
            assert app.model.view is None and app.model.table is not None and app.model.table.you is None
            title = str(app.screen.query_one("#title", Static).content)
            assert "spectating (u: sit down, m: seats)" in title, title
