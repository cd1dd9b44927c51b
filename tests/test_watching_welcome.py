"""The welcome shown once to a new player, when the first table they open is one they watch: the real
app under Pilot against a real server over loopback TLS."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from ono99_kernel.wire.requests import Spectate
from ono99_tui.tui.app import make_app
from ono99_tui.tui.help import HintScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.settings import CONFIG_DIR_ENV, Settings
from tests.server_helpers import create_table, running_server
from tests.test_first_minute import shown_words
from tests.test_tui import wait_until


async def test_a_new_player_watching_a_game_is_welcomed_in_words_for_watching(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Bo plays a game with a bot (it waits long: nothing moves); Ada, new (the welcome not seen yet),
    watches it. Found: her welcome said "Press a card's key [1]–[4] to play it." though she holds no
    cards; now it says she is watching and that the cards' keys play once she sits down."""
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))  # the settings the welcome's dismissal saves
    async with running_server(tmp_path, db_path=None, bot_delay=600) as harness:
        bo = await harness.connect("Bo")
        table_id = await create_table(bo, seats=2, bots=1, start=True)
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="Ada", settings=Settings())
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(Spectate(table=table_id))
            await wait_until(pilot, lambda: isinstance(app.screen, HintScreen), "the welcome")
            text = shown_words(app.screen.query(Static).last())
            assert "Press a card's key" not in text, text
            assert "You are watching: once you sit down (u), press a card's key [1]–[4] to play it." in text, text
