"""German at 80×24: the game-over dialog's buttons show their whole labels, the footer keeps help,
quit and settings, the last-plays line is never cut, and the settings dialog has a footer of its own."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Button

from ono99_tui.i18n import using
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.settings_screen import SettingsScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from ono99_tui.tui.widgets import KeysFooter
from tests.test_tui import play_to_the_end, wait_until


def footer(app: Ono99App) -> str:
    return "".join(segment.text for segment in app.screen.query_one(KeysFooter).render_line(0))


async def test_a_german_game_at_80_columns_shows_whole_buttons_the_essential_keys_and_whole_lines() -> None:
    with using("de"):
        await play_a_german_game()


async def play_a_german_game() -> None:
    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "a game")
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
        await pilot.pause()
        assert "esc Schließen" in footer(app) and "Spielen" not in footer(app)
        await pilot.press("escape")
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        await pilot.pause()
        dialog = app.screen.query_one("#dialog")
        buttons = list(app.screen.query(Button))
        assert [str(b.label) for b in buttons][-1] == "Schließen (Esc)"
        for button in buttons:
            assert dialog.content_region.contains_region(button.region), str(button.label)
            assert Text(str(button.label)).cell_len <= button.content_size.width, str(button.label)
        await pilot.press("escape")
        await pilot.pause()
        keys = footer(app)
        assert "r Nochmal spielen" in keys  # more keys than fit: help, quit and settings stay
        for essential in ("? Hilfe", "q Ende", "f2 Einstellungen"):
            assert essential in keys, keys
        top = app.screen.query_one(TableTop)
        assert top.scene is not None and top.scene.plays  # the last play named over the pile, whole
        assert top.cut == [], top.cut
