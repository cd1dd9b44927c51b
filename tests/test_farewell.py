"""A server stopped on purpose says goodbye, and the app shows that farewell instead of a lost
connection; a connection that is really lost still says so. The real app under Pilot against a
real server over loopback TCP, stopped and started again on the same port."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from ono99_kernel.wire.requests import CreateTable
from ono99_server import Server
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.model_screen import ModelScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import server_config
from tests.test_tui import wait_until
from tests.textual_compat import notification_texts


def title(app: Ono99App) -> str:
    """The title of the table or lobby screen, under any dialog."""
    screen = next(s for s in reversed(app.screen_stack) if isinstance(s, ModelScreen))
    return str(screen.query_one("#title", Static).render())


async def test_a_clean_stop_shows_the_servers_farewell_and_a_cut_shows_a_lost_connection(tmp_path: Path) -> None:
    """Ada plays a bot at a table. The server is stopped: the title says the server is shutting
    down (not CONNECTION LOST), and so do the notices of each try. Started again, the app is back
    with nothing in its title; then its connection is cut: CONNECTION LOST."""
    config = server_config(tmp_path, grace_seconds=60)  # a database and a certificate a restart keeps
    server = Server(config)
    await server.start()
    config.port = server.port
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(160, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=0, start=True))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                             "the game")

            await server.close()
            await wait_until(pilot, lambda: not app.model.connected, "the app to know")
            await wait_until(pilot, lambda: "the server is shutting down" in title(app), "the farewell in the title")
            assert "CONNECTION LOST" not in title(app)
            await wait_until(pilot, lambda: any("the server is shutting down; trying again" in n
                                                for n in notification_texts(app)), "the farewell in the notices")
            assert not any("Connection lost" in n for n in notification_texts(app))

            server = Server(config)
            await server.start()
            await wait_until(pilot, lambda: app.model.connected and app.model.view is not None, "the app back")
            await pilot.pause()
            assert "shutting down" not in title(app) and "CONNECTION LOST" not in title(app)

            connection: Any = server.lobby.members["Ada"].connection
            connection.writer.transport.abort()
            await wait_until(pilot, lambda: "CONNECTION LOST" in title(app), "a lost connection said")
    finally:
        await server.close()
