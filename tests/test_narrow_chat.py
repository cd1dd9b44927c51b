"""The chat at a table on a terminal of 80×24, where it takes the place of the game log."""

from __future__ import annotations

from textual.widgets import Input, RichLog

from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import make_app
from ono99_tui.tui.table import TableScreen
from tests.test_local_game import shown_lines
from tests.test_tui import wait_until


async def test_chatting_at_80x24_shows_the_lines_said_above_the_whole_input() -> None:
    """c, two lines sent with Enter, a third typed: the chat shows both lines sent, and the input
    lies whole on the screen above the footer (the chat's box had no row left for a line, and the
    input's bottom edge was cut off)."""
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        await pilot.press("c", *"hello", "enter")
        await wait_until(pilot, lambda: app.model.chat_count == 1, "the first chat line")
        await pilot.press(*"second", "enter")
        await wait_until(pilot, lambda: app.model.chat_count == 2, "the second chat line")
        await pilot.press(*"typing")
        await pilot.pause()
        chat = app.screen.query_one("#chat", RichLog)
        assert [line.split(": ", 1)[-1] for line in shown_lines(chat)] == ["hello", "second"]
        field = app.screen.query_one("#chat-input", Input)
        assert field.value == "typing"
        assert field.has_focus
        assert field.content_region.height >= 1
        assert field.region.bottom <= app.screen.region.bottom - 1, (field.region, "the footer's row")
        assert field.region.bottom <= app.screen.query_one("#bottom").region.bottom
