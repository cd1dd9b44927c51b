"""What is behind the name dialog of ``ono99 connect`` when the server refuses the name asked for:
the real app under Pilot against a real server over loopback TLS."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ono99_tui.tui.app import StartScreen, make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.names import NameScreen
from tests.server_helpers import new_identity, running_server
from tests.test_tui import wait_until


def behind(screen: StartScreen) -> str:
    return str(screen.query_one("#start-text", Static).content)


async def test_the_name_dialog_is_not_shown_over_a_connecting_line(tmp_path: Path) -> None:
    """Bo is online; a new key asks for the name Bo, which is refused, and the app asks for another.
    Found: "Connecting to 127.0.0.1…" stayed on the screen above the name dialog, though nothing was
    being connected to until a name was given. Now nothing says so while the dialog is up, and the name
    given then reaches the lobby."""
    async with running_server(tmp_path) as h:
        await h.connect("Bo")
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Bo", identity=new_identity())
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, NameScreen), "the name dialog")
            start = next(screen for screen in app.screen_stack if isinstance(screen, StartScreen))
            await pilot.pause()
            assert "Connecting" not in behind(start), behind(start)
            await pilot.press(*"Cyd", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert app.model.my_name == "Cyd"
