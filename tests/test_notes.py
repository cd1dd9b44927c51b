"""The note under the cards says why a key did nothing; it goes once its moment has passed (the next
move, or the end of the game for the fast-forward), and keys pressed after the game is over say so."""

from __future__ import annotations

from textual.widgets import Static

from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.table import TableScreen
from tests.test_first_minute import feed, scripted_app
from tests.test_tui import play_to_the_end, wait_until


def note(app: Ono99App) -> str:
    """The note under the cards, dialogs open or not."""
    table = next(s for s in app.screen_stack if isinstance(s, TableScreen))
    return str(table.query_one("#why", Static).render())


async def test_a_cant_play_note_goes_with_the_next_move_of_anyone() -> None:
    """"Can't play 6: it is Bot 2's turn" is no longer true once Bot 2 has played."""
    app, link, data = scripted_app(0)
    states = data["states"]
    waiting = next(i for i, s in enumerate(states[:-1])  # the move after it is not the reader's turn either
                   if s["view"]["turn"] != 0 and s["view"]["winner"] is None and s["view"]["hand"]
                   and states[i + 1]["view"]["turn"] not in (0, s["view"]["turn"]))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await feed(pilot, app, link, states[:waiting + 1])
        await pilot.press("1")
        await wait_until(pilot, lambda: "turn" in note(app), "the note")
        await feed(pilot, app, link, states[waiting + 1:waiting + 2])
        assert note(app) == ""


async def test_the_fast_forward_note_lasts_the_game_and_not_into_the_next() -> None:
    app, link, data = scripted_app(0)
    states = data["states"]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await feed(pilot, app, link, states[:3])
        screen = app.screen
        assert isinstance(screen, TableScreen)
        screen._after_dialog("fast")
        await feed(pilot, app, link, states[3:6])
        assert "Fast-forward" in note(app)  # the bots still play this game out
        await feed(pilot, app, link, states[6:])
        assert app.model.view is not None and app.model.view.winner is not None
        assert "Fast-forward" not in note(app)


async def test_keys_pressed_after_the_game_is_over_say_so_until_the_next_game() -> None:
    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "a game")
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        await pilot.press("escape")
        for key in ("1", "enter"):
            app.screen.query_one("#why", Static).update("")
            await pilot.press(key)
            assert note(app) == "The game is over: r plays again, n starts a new game.", key
        await pilot.press("r")
        await wait_until(pilot, lambda: app.model.game_no == 2 and app.model.view is not None
                         and app.model.view.winner is None, "the next game")
        assert note(app) == ""
