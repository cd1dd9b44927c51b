"""The lobby's chat in the app across reconnects: each line shows once, however often the connection
is cut and the server restarted. The real app under Pilot against a real server over loopback TCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ono99_kernel.wire.requests import Say
from ono99_server import Server
from ono99_tui.client.connection import Client
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.lobby import LobbyScreen
from tests.server_helpers import server_config
from tests.test_tui import wait_until


def lobby_chat(app: Ono99App) -> list[tuple[str, str]]:
    return [(c.sender, c.text) for c in app.model.chat if c.scope == "lobby"]


def back(app: Ono99App, server: Server) -> bool:
    member = server.lobby.members.get("Ada")
    return app.model.connected and member is not None and member.connection is not None


async def test_the_lobby_chat_shows_each_line_once_after_cuts_and_a_restart(tmp_path: Path) -> None:
    """Ada (the app) and Bo chat in the lobby. Ada's connection is cut twice, then the server is
    stopped and started again on its database: each time she is back, every line shows once, and a
    line said after all that shows too."""
    config = server_config(tmp_path, grace_seconds=60)  # a database and a certificate a restart keeps
    server = Server(config)
    await server.start()
    config.port = server.port
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    clients: list[Client] = []
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            bo = await Client.connect("127.0.0.1", server.port, "Bo")
            clients.append(bo)
            await bo.send(Say(text="evening all", scope="lobby"))
            await wait_until(pilot, lambda: len(lobby_chat(app)) == 1, "Bo's line")
            app.send_message(Say(text="hi Bo", scope="lobby"))
            said = [("Bo", "evening all"), ("Ada", "hi Bo")]
            await wait_until(pilot, lambda: lobby_chat(app) == said, "Ada's line")

            for cut in range(2):
                connection: Any = server.lobby.members["Ada"].connection
                connection.writer.transport.abort()
                await wait_until(pilot, lambda: not app.model.connected, f"the app to notice cut {cut + 1}")
                await wait_until(pilot, lambda: back(app, server), f"the app back after cut {cut + 1}")
                await pilot.pause(0.2)
                assert lobby_chat(app) == said

            await server.close()
            server = Server(config)
            await server.start()
            await wait_until(pilot, lambda: back(app, server), "the app back after the restart")
            await pilot.pause(0.2)
            assert lobby_chat(app) == said

            bo = await Client.connect("127.0.0.1", server.port, "Bo")
            clients.append(bo)
            await bo.send(Say(text="still here", scope="lobby"))
            await wait_until(pilot, lambda: len(lobby_chat(app)) == 3, "Bo's new line")
            await pilot.pause(0.2)
            assert lobby_chat(app) == [*said, ("Bo", "still here")]
    finally:
        for client in clients:
            await client.close()
        await server.close()
