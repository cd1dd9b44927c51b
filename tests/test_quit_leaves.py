"""Quitting for good gives the seat up at once: a guest over SSH (the app, in the SSH front) quits a
running game with q and y. A real asyncssh client with a PTY, the in-process SSH front and game
server (tests/test_ssh.py's rig); waits are for conditions."""

from __future__ import annotations

import asyncio

from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.seats import ConfirmScreen
from tests.test_ssh import (
    PATIENCE,
    Player,
    Rig,
    create_table_through_keys,
    rig,  # noqa: F401  (the fixture: a game server and its SSH front)
    until,
)


async def test_a_guest_who_quits_a_running_game_over_ssh_is_gone_not_away(rig: Rig) -> None:  # noqa: F811
    """Tried: a guest (no key) starts a game with a bot, then q and y to "a bot takes your seat for
    good". Found: the server held the seat for the 120 s grace, the guest "away" in ``ono99 admin who``
    and in ``ono99_players_away``, though a guest's session ends with it and never comes back. Now the
    guest is gone from the server as the session ends, and a bot has the seat."""
    guest = await Player.connect(rig, "gus", key=None)
    try:
        await guest.press("enter")  # the name screen offers the user name
        await guest.until_screen(LobbyScreen, "the lobby")
        await create_table_through_keys(guest)
        await guest.press("s")
        await guest.until(lambda a: a.model.view is not None, "the game to start")
        members = rig.server.lobby.members
        at = members["gus"].table
        assert at is not None and members["gus"].identity is None
        table = rig.server.lobby.tables[at.id]
        await guest.press("q")
        await guest.until_screen(ConfirmScreen, "the question")
        await guest.press("y")
        await asyncio.wait_for(guest.ended.wait(), PATIENCE)
        await until(lambda: "gus" not in members or members["gus"].connection is None, "the session's end")
        assert "gus" not in members
        assert [seat.kind for seat in table.seats] == ["bot"] * len(table.seats)
    finally:
        await guest.close()
