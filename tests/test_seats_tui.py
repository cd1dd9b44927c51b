"""The app keeps its seat through ordinary mistakes and network faults: a reconnect that is cut,
leaving a running game only after saying yes, chat that never plays a card. The real app under
Pilot against a real server over loopback TCP (through a relay where the network fails)."""

from __future__ import annotations

from typing import Any

from ono99_tui.tui.app import make_app
from ono99_tui.tui.screens import LobbyScreen, NewGameScreen
from server import Server, ServerConfig
from tests.relay import Relay
from tests.test_tui import wait_until


async def test_a_reconnect_that_is_accepted_then_cut_keeps_retrying_and_gets_back(tmp_path: Any) -> None:
    """Between the app and the server a relay fails: the connection drops, and the next attempts
    are accepted and cut at once (before the welcome). The app says it is trying again, does not
    fail, and once the path works again it is back in the lobby with the same name."""
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0, grace_seconds=60))
    await server.start()
    relay = Relay(server.port)
    await relay.start()
    app = make_app(local=False, host="127.0.0.1", port=relay.port, name="Ada")
    notes: list[str] = []
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            original = app.notify

            def notify(message: Any, **kwargs: Any) -> None:
                notes.append(str(message))
                original(message, **kwargs)

            app.notify = notify  # type: ignore[method-assign]
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            relay.cutting = True
            relay.drop()
            await wait_until(pilot, lambda: relay.cut >= 2, "two reconnects to be accepted and cut")
            assert app.is_running and app.return_code is None
            assert sum("trying again" in n for n in notes) >= 2, notes
            relay.cutting = False
            await wait_until(pilot, lambda: app.model.connected and "Ada" in server.lobby.members
                             and server.lobby.members["Ada"].connection is not None, "the app to be back")
            assert app.model.my_name == "Ada"
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the app to answer keys")
    finally:
        await relay.close()
        await server.close()


