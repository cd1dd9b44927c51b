"""A dialog over the screen the server's messages keep showing stays open. The `table` that follows a
game's last state (status "finished") used to close the game-over dialog, put a new table screen in
place of the old one and open the dialog again over it: a key pressed on the first dialog meanwhile
was lost (a flaky "p at the end of a game plays now again"). The real app under Pilot, fed by a
scripted link."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.pilot import Pilot

from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from tests.app_state import ScriptedLink
from tests.test_tui import wait_until
from tests.test_typed_app import NAMES, scripted, state
from tests.wire import table_map

FINISHED = {"t": "table", "table": table_map(NAMES, you=0, status="finished", host="Bo", winner=0)}
PLAY_NOW = [{"t": "leave"}, {"t": "play_now", "edition": "2022", "seats": 4}]  # the app's default wish


async def game_over(pilot: Pilot[Any], app: Ono99App, link: ScriptedLink) -> None:
    """The last state of the game has arrived and its game-over dialog is open."""
    await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
    link.inbox.put_nowait(state(1, 1, total=3, turn=None, winner=0, ranking=[0, 1, 2]))
    await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen) and app.screen.is_mounted,
                     "the game-over dialog")


async def test_the_finished_tables_update_keeps_the_game_over_dialog_and_its_table_screen() -> None:
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await game_over(pilot, app, link)
        dialog, table_screen = app.screen, app.screen_stack[-2]
        link.inbox.put_nowait(FINISHED)
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.status == "finished",
                         "the finished table")
        await pilot.pause()
        assert app.screen is dialog and app.screen_stack[-2] is table_screen
        await pilot.press("p")
        assert link.sent[-2:] == PLAY_NOW
        link.inbox.put_nowait({"t": "left", "table": 1})
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


@pytest.mark.parametrize("turns", range(12))
async def test_p_on_the_game_over_dialog_is_not_lost_whenever_the_finished_table_arrives(turns: int) -> None:
    """The table update lands ``turns`` event-loop turns after the key is pressed: at every point the key
    plays now (before the fix, some of these points lost it and left a second dialog open)."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await game_over(pilot, app, link)
        await pilot.pause()
        press = asyncio.create_task(pilot.press("p"))
        for _ in range(turns):
            await asyncio.sleep(0)
        link.inbox.put_nowait(FINISHED)
        await press
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.status == "finished",
                         "the finished table")
        await pilot.pause()
        assert link.sent[-2:] == PLAY_NOW, app.screen_stack
        assert not isinstance(app.screen, GameOverScreen)
