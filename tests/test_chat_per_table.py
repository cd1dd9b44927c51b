"""A table's chat stays at its table: the real app under Pilot against a real server over loopback TLS."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import RichLog

from ono99_kernel.wire.requests import CreateTable, Join, Say
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import create_table, running_server
from tests.test_tui import join_from_the_lobby, wait_until


def written(log: RichLog) -> list[str]:
    return [strip.text.rstrip() for strip in log.lines]


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_chat_of_a_table_left_is_not_shown_at_the_next_table(tmp_path: Path, size: tuple[int, int]) -> None:
    """Ada sits at Bo's table, where Bo says "see you at one"; Ada goes to the lobby (l) and opens a
    table of her own, where Bo joins and says "hello at two". Before, the new table's chat (and at
    80 columns its log, "chat · Bo: see you at one") began with the lines of the table left, as if
    said there; now it holds only what was said at the new table (at 80 columns: in the log)."""
    async with running_server(tmp_path, db_path=None, grace_seconds=60) as harness:
        bo = await harness.connect("Bo")
        first = await create_table(bo, seats=3)
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="Ada")
        async with app.run_test(size=size) as pilot:
            await join_from_the_lobby(pilot, app, first, "Bo's table")
            await bo.send(Say(text="see you at one", scope="table"))
            await wait_until(pilot, lambda: any(e.text == "see you at one" for e in app.model.chat), "Bo's line")
            await pilot.press("l")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
            app.send_message(CreateTable(seats=3, turn_seconds=0))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                             and app.model.table.host == "Ada", "Ada's table")
            second = app.model.table
            assert second is not None
            await bo.send(Join(table=second.id))
            await bo.expect("table", where=lambda m: m["table"]["id"] == second.id and m["table"]["you"] is not None)
            await bo.send(Say(text="hello at two", scope="table"))
            await wait_until(pilot, lambda: any(e.text == "hello at two" for e in app.model.chat), "Bo's next line")
            await pilot.pause()
            if size[0] < 90:  # no chat column: the chat's lines are in the log
                chat = [line for line in written(app.screen.query_one("#log", RichLog)) if line.startswith("chat · ")]
                assert chat == ["chat · Bo: hello at two"]
            else:
                assert written(app.screen.query_one("#chat", RichLog)) == ["Bo: hello at two"]
