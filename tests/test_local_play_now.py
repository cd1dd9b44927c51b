"""In the local game nobody else can come: play now in its lobby seats the player with bots at once."""

from __future__ import annotations

import asyncio

from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.playnow import QueueScreen
from ono99_tui.tui.seats import ConfirmScreen
from ono99_tui.tui.table import TableScreen
from tests.app_state import table_of
from tests.test_tui import wait_until


async def test_play_now_in_the_local_lobby_starts_a_game_with_bots_at_once() -> None:
    app = make_app(bot_delay=0.5, local_game=open_local_game, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "a game")
        first = table_of(app).id
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        loop = asyncio.get_running_loop()
        pressed = loop.time()
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                         and app.model.table.id != first and app.model.view is not None, "a new game")
        assert loop.time() - pressed < 15  # not the 20 s a server's queue waits for people (a busy machine may be slow)
        assert not any(isinstance(screen, QueueScreen) for screen in app.screen_stack)
        table = app.model.table
        assert table is not None and table.status == "playing"
        assert [seat.kind for seat in table.seats].count("human") == 1 and len(table.seats) == 4
