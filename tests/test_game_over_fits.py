"""The game-over dialog shows every button on a small screen: the real app under Pilot, fed by a
scripted link."""

from __future__ import annotations

import pytest
from textual.widgets import Button

from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.tui.game_over import GameOverScreen
from tests.test_dialogs_stay import game_over
from tests.test_typed_app import scripted, state


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
async def test_every_button_of_the_game_over_dialog_shows_on_a_small_screen(language: str,
                                                                            size: tuple[int, int]) -> None:
    """Tried: the host's game-over dialog (play again, new game, lobby, play now, close) at 60×20 and
    80×24 in every language. Before, at 60×20 the buttons' second row was cut off by the dialog's
    height (its keys still worked, but nothing showed them); now each button's middle is the button
    on the screen."""
    with using(language):
        app, link = scripted(state(0, 0, total=3))
        async with app.run_test(size=size) as pilot:
            await game_over(pilot, app, link)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GameOverScreen)
            buttons = list(screen.query(Button))
            assert len(buttons) == 5, [str(b.label) for b in buttons]
            for button in buttons:
                region = button.region
                assert region.width and region.height, str(button.label)
                x, y = region.x + region.width // 2, region.y + region.height // 2
                shown, _where = screen.get_widget_at(x, y)
                assert shown is button or button in shown.ancestors, (str(button.label), region, shown)
