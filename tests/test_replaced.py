"""The newest session of a player wins: an app whose connection the same key replaced from
elsewhere does not connect again by itself (that would take the seat back from the newer one), and
says so; it takes the seat back only when asked. The real app under Pilot against a real server
over loopback TCP, the newer session a real protocol client with the same key."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ono99_kernel.wire.requests import CreateTable
from ono99_tui.client.session import RECONNECT_DELAYS
from ono99_tui.tui.app import ReplacedScreen, make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from tests.app_state import table_of, view_of
from tests.server_helpers import new_identity, running_server, until_closed
from tests.test_tui import wait_until


async def test_an_app_replaced_by_a_newer_session_of_its_key_stays_out_until_asked(tmp_path: Path) -> None:
    """Ada plays in the app with her key; she connects again with the same key elsewhere. The app is
    told, shows why, and after several times its first reconnect delay the newer session still holds
    the seat and was not cut. Pressing t takes the seat back: the newer session is told in turn."""
    key = new_identity()
    async with running_server(tmp_path, grace_seconds=60) as h:
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada", identity=key)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=0, start=True))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                             "the game")
            member = h.server.lobby.members["Ada"]
            seat = view_of(app).seat

            newer = await h.connect("Ada", identity=key)
            assert newer.welcome["resumed"] is True and newer.welcome["table"] == table_of(app).id
            newer_connection = member.connection
            await wait_until(pilot, lambda: isinstance(app.screen, ReplacedScreen), "the app to say it was replaced")
            assert not app.model.connected
            await asyncio.sleep(4 * RECONNECT_DELAYS[0])  # an automatic reconnect would have come by now
            await pilot.pause()
            assert member.connection is newer_connection and h.server.lobby.members["Ada"] is member
            assert isinstance(app.screen, ReplacedScreen) and not app.model.connected
            assert not any(m["t"] == "bye" for m in newer.received)

            await pilot.press("t")
            await wait_until(pilot, lambda: app.model.connected and isinstance(app.screen, TableScreen),
                             "the seat back in the app")
            assert member.connection is not newer_connection and view_of(app).seat == seat
            told = await until_closed(newer)
            assert told[-1] == {"t": "bye", "reason": "you connected again from elsewhere"}
