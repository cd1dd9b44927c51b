"""The lobby's line of news after leaving a table: the real app under Pilot against a real server over
loopback TLS."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ono99_kernel.wire.requests import Join, Start
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from tests.server_helpers import create_table, running_server
from tests.test_tui import join_from_the_lobby, wait_until


async def test_a_refusal_at_the_table_is_not_shown_in_the_lobby_after_leaving(tmp_path: Path) -> None:
    """Ada sits at Bo's table and asks to start it, which only Bo may: the server refuses ("only the
    table's host (Bo) can do that"). Ada then goes to the lobby with l. Before, the lobby's line above
    its hint still said that refusal, as if about something done there; now it shows only the hint.
    A refusal of something asked in the lobby (a table that is not there) is still said there."""
    async with running_server(tmp_path, db_path=None, grace_seconds=60) as harness:
        bo = await harness.connect("Bo")
        table_id = await create_table(bo, seats=3)
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="Ada")
        async with app.run_test(size=(80, 24)) as pilot:
            await join_from_the_lobby(pilot, app, table_id, "Bo's table")
            app.send_message(Start())
            await wait_until(pilot, lambda: "host" in app.model.notice, "the server's refusal")
            refusal = app.model.notice
            await pilot.press("l")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.model.table is None,
                             "the lobby again")
            await pilot.pause()
            line = str(app.screen.query_one("#lobby-notice", Static).content)
            assert refusal not in line
            assert line.startswith("p: play now")
            app.send_message(Join(table=table_id + 100))
            await wait_until(pilot, lambda: app.model.notice != "", "a refusal in the lobby")
            await pilot.pause()
            assert str(app.screen.query_one("#lobby-notice", Static).content).startswith(app.model.notice)
