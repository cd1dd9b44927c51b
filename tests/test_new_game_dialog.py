"""The server's new-game dialog says the whole game Start makes (choices remembered from a local 1980
game included, though scrolled out of sight), offers only the players and bots that game can have, and
takes an error away once a choice changes. The real app under Pilot, fed by a scripted link."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Button, Select, Static, Switch
from textual.widgets.select import InvalidSelectValueError

from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.settings import Settings
from tests.app_state import ScriptedLink
from tests.test_tui import wait_until
from tests.wire import welcome_map


def lobby_app(new_game: dict[str, Any]) -> Ono99App:
    """Ada in a server's lobby, her last new-game dialog's choices ``new_game``."""
    link = ScriptedLink()
    link.inbox.put_nowait(welcome_map("Ada"))

    async def open_link() -> ScriptedLink:
        return link

    return make_app(local=False, name="Ada", open_link=open_link,
                    settings=Settings(hint_seen=True, new_game=new_game))


async def open_dialog(app: Ono99App, pilot: Any) -> NewGameScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the new-game dialog")
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, NewGameScreen)
    return dialog


def summary(dialog: NewGameScreen) -> str:
    return str(dialog.query_one("#summary", Static).render())


async def test_choices_kept_from_a_local_1980_game_are_all_said_beside_start() -> None:
    """Tried: the last dialog was a local 1980 points game with manual draw; the server's dialog opens
    at 80×24 with those rows scrolled out of sight. Before, nothing said manual draw was on; now the
    line above Start names every rule, the players and bots."""
    app = lobby_app({"edition": "1980", "seats": 4, "bots": 2, "scoring": "points", "points_target": 150,
                     "points_win": "lowest_score", "manual_draw": True, "bot_level": "greedy"})
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(app, pilot)
        line = summary(dialog)
        assert line.startswith("Start: 1980") and "manual draw" in line and "150" in line, line
        assert "4 players" in line and "2 bots" in line, line
        dialog.query_one("#manual_draw", Switch).value = False
        await pilot.pause()
        assert "manual draw" not in summary(dialog)
        assert dialog.query_one("#summary", Static).region.bottom <= dialog.query_one("#start", Button).region.y


async def test_only_the_players_and_bots_the_game_can_have_are_offered() -> None:
    """Tried: 2022 without the eight-player house rule, and 4 players on a server. Before, 7 and 8
    players and 0 to 7 bots were offered (and refused on Start); now 2 to 6 players and 0 to 3 bots are,
    and the house rule brings 7 and 8 back."""
    app = lobby_app({"edition": "2022", "seats": 4, "bots": 0})
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_dialog(app, pilot)
        seats, bots = dialog.query_one("#seats", Select), dialog.query_one("#bots", Select)
        with pytest.raises(InvalidSelectValueError):
            seats.value = 7
        with pytest.raises(InvalidSelectValueError):
            bots.value = 4
        bots.value = 3
        dialog.query_one("#eight_players", Switch).value = True
        await pilot.pause()
        seats.value = 8
        await pilot.pause()
        bots.value = 7
        await pilot.pause()
        assert "8 players" in summary(dialog) and "7 bots" in summary(dialog)


async def test_an_error_goes_once_a_choice_changes() -> None:
    """Tried: 1980 with two rules that exclude each other, Start (the error shows), then one rule off.
    Before, the error stayed on screen; now it goes with the change."""
    app = lobby_app({"edition": "1980", "seats": 4, "ono99_on_zero": True, "ono99_sets_99": True})
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await open_dialog(app, pilot)
        await pilot.click("#start")
        await wait_until(pilot, lambda: str(dialog.query_one("#problem", Static).render()) != "", "the error")
        dialog.query_one("#ono99_sets_99", Switch).value = False
        await wait_until(pilot, lambda: str(dialog.query_one("#problem", Static).render()) == "", "no error")
