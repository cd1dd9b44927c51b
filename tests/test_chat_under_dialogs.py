"""Leaving the chat from under a dialog that opened by itself as the game ended."""

from __future__ import annotations

from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.inputs import Input
from ono99_tui.tui.table import TableScreen
from tests.test_dialogs_stay import game_over
from tests.test_tui import wait_until
from tests.test_typed_app import NAMES, scripted, state
from tests.wire import table_map


async def test_esc_under_the_result_leaves_the_chat_so_r_after_closing_it_is_the_tables() -> None:
    """Tried: c, "gg" and Enter (the chat keeps the keys), the game ends (its result opens), Esc (to
    leave the chat), Esc (closes the result), r. Before, closing the result gave the keys back to the
    chat box, so r was typed into it instead of asking for a rematch; now the table has the keys."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        table_screen = app.screen
        await pilot.press("c", "g", "g", "enter")
        await wait_until(pilot, lambda: any(m["t"] == "chat" for m in link.sent), "the chat line sent")
        await game_over(pilot, app, link)
        link.inbox.put_nowait({"t": "table", "table": table_map(NAMES, you=0, status="finished", host="Ada", winner=0)})
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.status == "finished",
                         "the finished table")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is table_screen, "the table after closing the result")
        box = table_screen.query_one("#chat-input", Input)
        assert not box.has_focus and not table_screen.has_class("-chatting")
        await pilot.press("r")
        await pilot.pause()
        assert box.value == ""
        assert [m["t"] for m in link.sent if m["t"] in ("rematch", "chat")] == ["chat", "rematch"]
