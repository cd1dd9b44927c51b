"""SSH players of a server's tables: names, access and farewells, with real asyncssh clients against a
real front and game server."""

from __future__ import annotations

import asyncssh
from textual.widgets import Input

from ono99_tui.client import Client
from ono99_tui.front.ssh_app import NameScreen, SessionApp
from ono99_tui.tui.playnow import QueueScreen
from ono99_tui.tui.screens import LobbyScreen, TableScreen
from tests.test_ssh import Player, Rig, rig, until  # noqa: F401  (rig: the fixture)


def name_box(app: SessionApp) -> bool:
    return isinstance(app.screen, NameScreen) and bool(app.screen.query("#name"))


async def test_an_invite_code_is_never_offered_as_a_name(rig: Rig) -> None:  # noqa: F811
    """``ssh CODE@host`` with a new key, or as a guest: the name screen starts empty (Enter used to make
    the code the player's name for good); a name typed there seats the player at the code's table."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send({"t": "create_table", "name": "private", "seats": 4, "private": True})
        code = (await host.expect("table"))["table"]["code"]
        for key in (True, None):
            player = await Player.connect(rig, code, key=key)
            await player.until(name_box, "the name screen")
            assert player.app.screen.query_one("#name", Input).value == ""
            await player.type("jo" if key else "guest1")
            await player.press("enter")
            await player.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None
                               and a.model.table.code == code, "a seat at the code's table")
            await player.close()
        lost = await Player.connect(rig, "ZZZZZZ", key=None)  # looks like a code, is none: a name, typed
        await lost.until(name_box, "the name screen")
        assert lost.app.screen.query_one("#name", Input).value == ""
        await lost.type("zed")
        await lost.press("enter")
        await lost.until_screen(LobbyScreen, "the lobby")
        await lost.close()
    finally:
        await host.close()


async def test_ssh_play_with_a_returning_key_queues_instead_of_going_back_to_an_idle_table(rig: Rig) -> None:  # noqa: F811
    """Jo's key sat at a table whose game is not running, then the session ended (the seat waits for the
    grace period). ``ssh play@host`` with that key asks to play now: it leaves that table for the queue."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    jo = await Player.connect(rig, "jo", key=key)
    await jo.until_screen(LobbyScreen, "jo's lobby")
    jo.app.send_message({"t": "create_table", "name": "old", "seats": 2, "bots": 1, "turn_seconds": 0})
    await jo.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None, "jo's table")
    await jo.close()
    member = rig.server.lobby.members["jo"]
    await until(lambda: member.connection is None, "the server to notice")
    assert member.table is not None
    again = await Player.connect(rig, "play", key=key)
    await again.until(lambda a: a.model.queue is not None, "a place in the play-now queue")
    assert member.table is None and member in rig.server.lobby.matchmaker.waiting
    await again.until(lambda a: isinstance(a.screen, QueueScreen), "the queue's screen, not the old table")
    await again.close()
