"""A table made smaller and then as large as before looks as it did before: no blank rows left, no log
shortened until the next resize (80×24 → 60×20 → 80×24 once left two blank rows under the seats and a
3-line log at a 1980 table, whose seats' line wraps at 60 columns)."""

from __future__ import annotations

from ono99_kernel.wire.requests import CreateTable
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import make_app
from ono99_tui.tui.table import TableScreen
from tests.test_tui import wait_until


async def test_a_table_resized_smaller_and_back_has_every_part_at_its_first_size() -> None:
    """Tried: a local 1980 table with manual draw and three bots (slow, so nothing moves meanwhile) at
    80×24, resized to 60×20 and back; every part of the screen with an id has its first size again."""
    app = make_app(bot_delay=30, local_game=open_local_game)
    app.first_table = CreateTable(edition="1980", options={"manual_draw": True}, seats=4, bots=3,
                                  bot_level="greedy", turn_seconds=0, start=True, name="T")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "game")
        await pilot.pause()

        def sizes() -> dict[str, tuple[int, int]]:
            return {w.id: (w.size.width, w.size.height) for w in app.screen.query("*") if w.id}

        before = sizes()
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        for _ in range(3):
            await pilot.pause()
        after = sizes()
        assert {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()
                if before.get(k) != after.get(k)} == {}
