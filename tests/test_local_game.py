"""The local game at 80×24 as a newcomer meets it: the language changed mid-game, chat in the log,
standing up and sitting down, the log after a resize, the new-game dialog and the manual draw."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from textual.widgets import RichLog, Select, Static, Switch

from ono99_kernel.wire.requests import CreateTable
from ono99_tui.cli import DEFAULT_DRAW_WINDOW
from ono99_tui.i18n import change_language, current_language
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import LOCAL_DRAW_WINDOW, make_app
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.seats import ConfirmScreen
from ono99_tui.tui.settings_screen import SettingsScreen
from ono99_tui.tui.table import TableScreen
from tests.app_state import local_server, parent_of, table_of, view_of
from tests.test_tui import play_my_turn, play_to_the_end, wait_until


async def test_changing_the_language_mid_game_lets_the_bots_play_on_and_relabels_the_header() -> None:
    """F2, Tab, Enter, Deutsch, Enter: the table comes back in German and a card played then is
    answered by the bots (they were left waiting as if the dialog were still open)."""
    app = make_app(bot_delay=0.05, local_game=open_local_game)
    before = current_language()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                             "the game")
            assert "Local game" in str(app.screen.query_one("#title", Static).render())
            await pilot.press("f2")
            await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
            await pilot.press("tab", "enter")
            await pilot.pause()
            await pilot.press("down", "down", "enter")  # English, Afrikaans, Deutsch
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
            assert current_language() == "de"
            table = next(iter(local_server(app).lobby.tables.values()))
            await wait_until(pilot, lambda: app.model.my_turn, "my turn")
            assert not table.paused
            version = view_of(app).version
            await play_my_turn(pilot, app)
            await wait_until(pilot, lambda: view_of(app).version > version + 1, "a bot's play after mine")
            title = str(app.screen.query_one("#title", Static).render())
            assert "Lokales Spiel" in title and "Local game" not in title
    finally:
        change_language(before)


def shown_lines(log: RichLog) -> list[str]:
    """The lines of a log that are on screen."""
    top = round(log.scroll_y)
    return [strip.text.rstrip() for strip in log.lines[top:top + log.scrollable_content_region.height]]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_a_chat_line_said_at_the_table_is_one_line_in_the_log_or_the_chat_column(size: tuple[int, int]) -> None:
    """c, a line, Enter, Esc: at 80 columns the log (hidden while chatting) shows it as one line, the
    game's lines above it; at 200 columns the chat column does."""
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        await pilot.press("c", *"gg well played", "enter")
        await wait_until(pilot, lambda: app.model.chat_count > 0, "the chat line")
        await pilot.press("escape")
        await pilot.pause()
        where = "#log" if size[0] < 90 else "#chat"
        log = app.screen.query_one(where, RichLog)
        shown = shown_lines(log)
        said = "chat · Player: gg well played" if where == "#log" else "Player: gg well played"
        assert shown[-1] == said, shown
        assert all(len(line) > 1 for line in shown), shown
        if where == "#log":
            assert app.model.log[-1] in " ".join(shown), shown  # the game's last line is still in view


@pytest.mark.parametrize("sizes", [((200, 50), (80, 24)), ((80, 24), (200, 50)), ((200, 50), (100, 20))])
async def test_a_log_at_its_end_stays_at_its_end_when_the_terminal_is_resized(
        sizes: tuple[tuple[int, int], tuple[int, int]]) -> None:
    """After a game, the last line in view is who won, before and after a resize (wider, narrower,
    shorter), though no event comes after it."""
    first, then = sizes
    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=first) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        await pilot.press("escape")
        await pilot.pause()
        log = app.screen.query_one("#log", RichLog)
        last = app.model.log[-1]
        assert last.endswith(("wins the game!", "You win the game!"))
        assert shown_lines(log)[-1] == last
        await pilot.resize_terminal(*then)
        await pilot.pause()
        await pilot.pause()
        shown = shown_lines(log)
        assert last.endswith(shown[-1]) and shown[-1], shown


async def test_u_in_a_running_local_game_asks_first_and_u_again_sits_down_at_the_next_game() -> None:
    """u asks (No keeps the seat); Yes gives it to a bot while the game runs; u again, then Play
    again, seats the player again (as a spectator waiting for a seat is seated on a server)."""
    app = make_app(bot_delay=0.05, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "Stand up" in str(app.screen.query_one("#question", Static).render())
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause(0.2)
        assert app.model.table is not None and app.model.table.you == 0
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question again")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.you is None, "standing")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("u")  # during the game (or, if it ended meanwhile, between games)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen) or (
            app.model.table is not None and app.model.table.you is not None), "the game's end")
        if isinstance(app.screen, GameOverScreen):
            await pilot.press("r")
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.you is not None
                         and app.model.view is not None and app.model.view.seat is not None, "a seat again")


async def test_the_new_game_dialog_starts_on_its_first_choice_and_enter_starts_from_any_field() -> None:
    """At 80×24: focus on Edition, Tab to Players (no stop in between), Space opens a choice and
    Enter picks in it, Space toggles a switch and Enter then starts the game; a line says when
    choices go on below; the last-token option shows only with token scoring."""
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        first_table = table_of(app).id
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the dialog")
        dialog = app.screen
        edition = dialog.query_one("#edition", Select)
        assert app.focused is edition
        await pilot.press("tab")
        assert app.focused is dialog.query_one("#seats")
        await pilot.press("shift+tab", "space")
        await pilot.pause()
        await pilot.press("down", "enter")  # in the open list: picks 1980
        await pilot.pause()
        assert edition.value == "1980" and isinstance(app.screen, NewGameScreen)
        more = dialog.query_one("#more", Static)
        await wait_until(pilot, lambda: "more choices below" in str(more.render()), "the hint")
        assert parent_of(dialog.query_one("#out_at_zero_tokens")).display
        dialog.query_one("#scoring", Select).value = "points"
        await pilot.pause()
        assert not parent_of(dialog.query_one("#out_at_zero_tokens")).display
        dialog.query_one("#out_at_zero_tokens", Switch).value = True  # remembered from a tokens game
        for _ in range(12):
            if app.focused is dialog.query_one("#manual_draw"):
                break
            await pilot.press("tab")
        switch = dialog.query_one("#manual_draw", Switch)
        assert switch.has_focus and not switch.value
        await pilot.press("space")
        assert switch.value
        fields = dialog.query_one("#fields")
        fields.scroll_end(animate=False, immediate=True)
        await wait_until(pilot, lambda: str(more.render()) == "", "the hint to go at the end")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.id != first_table
                         and app.model.view is not None, "the new game")
        assert switch.value  # Enter started the game; it did not toggle the switch
        options = app.model.table.options
        assert app.model.view.edition == "1980"
        assert options.manual_draw and not options.out_at_zero_tokens


def banner(app: Any) -> str:
    return str(app.screen.query_one("#banner", Static).render())


async def test_an_open_draw_counts_down_the_seconds_the_next_bot_waits_and_ends_when_the_player_draws() -> None:
    """At a manual_draw table the warning says how many seconds are left to draw, and that is the
    time the bot on turn waits (read from the table's timer); a dialog holds the bot and the count,
    closing it gives the whole window again; d ends it at once."""
    assert DEFAULT_DRAW_WINDOW == LOCAL_DRAW_WINDOW  # what --help says is what a local game does
    app = make_app(bot_delay=0.05, draw_window=20, local_game=open_local_game)
    app.first_table = CreateTable(edition="2022", options={"manual_draw": True}, seats=2, bots=1, bot_level="greedy",
                                  turn_seconds=0, start=True, name="Draw test")
    loop = asyncio.get_running_loop()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        table = next(iter(local_server(app).lobby.tables.values()))

        def seconds_said() -> int:
            found = re.search(r"press d within (\d+) s", banner(app))
            assert found, banner(app)
            return int(found.group(1))

        def honest() -> bool:  # the count is the bot's own wait
            left = app.model.clock_left()
            return (table.runner.timer is not None and left is not None
                    and abs(table.runner.timer.when() - loop.time() - left) < 1)

        while not app.model.can_draw:
            await wait_until(pilot, lambda: app.model.my_turn, "my turn")
            before = view_of(app).version
            await play_my_turn(pilot, app)
            await wait_until(pilot, lambda b=before: view_of(app).version != b, "my play")
        assert honest() and 17 <= seconds_said() < 20
        first = seconds_said()
        await pilot.pause(2.2)
        assert seconds_said() < first and honest()
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.model.clock is None and table.runner.timer is None, "the bot to wait")
        await pilot.pause(0.5)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.clock is not None,
                         "the count again")
        assert honest() and seconds_said() >= 18
        await pilot.press("d")
        await wait_until(pilot, lambda: not app.model.can_draw, "my draw")
        assert "press d" not in banner(app) and app.model.clock is None
