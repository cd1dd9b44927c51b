"""A way back to every table: watching a private table by its invite code from the app, and a seat for a
player who left at the next game. Real servers over loopback TLS; the real app under Pilot."""

from __future__ import annotations

import random
from pathlib import Path

from textual.widgets import Input

from ono99_tui.tui.app import make_app
from ono99_tui.tui.screens import InviteScreen, LobbyScreen, TableScreen
from ono99_tui.tui.seats import ConfirmScreen
from server import Server
from tests.server_helpers import FAST_PLAY, create_table, play, running_server, server_config
from tests.test_tui import wait_until


async def test_the_app_watches_a_private_game_by_its_code_and_sits_at_the_next_one(tmp_path: Path) -> None:
    """Alice's private table plays (its bot waits long: nothing moves). Ada types the invite code: the app
    says the game has started and offers to watch; yes watches it and puts her on the waiting list."""
    server = Server(server_config(tmp_path, bot_delay=600))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        from tests.server_helpers import TestClient

        alice = await TestClient.connect("127.0.0.1", server.port, "alice")
        table_id = await create_table(alice, seats=2, bots=1, private=True, start=True)
        table = server.lobby.tables[table_id]
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("i")
            await wait_until(pilot, lambda: isinstance(app.screen, InviteScreen), "the invite code box")
            app.screen.query_one("#code", Input).value = table.code.lower()
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the offer to watch")
            assert "has already started. Watch it?" in app.screen.question
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                             and app.model.table.id == table_id, "watching the private table")
            await wait_until(pilot, lambda: [m.name for m in table.waiting] == ["Ada"], "a seat at the next game")
        await alice.close()
    finally:
        await server.close()


async def test_a_player_who_left_sits_again_at_the_next_game(tmp_path: Path) -> None:
    """Bob leaves alice's private game (a bot plays his seat to the end). After the game, his invite code
    seats him again in his old seat, which was his stand-in's, though the table does not let late joiners
    replace bots; the next game deals him in."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=3, bots=1, private=True)
        table = h.server.lobby.tables[table_id]
        await bob.send({"t": "join", "code": table.code})
        await bob.expect("table", where=lambda m: m["table"]["you"] == 2)
        await alice.send({"t": "start"})
        await bob.expect("state")
        await bob.send({"t": "leave"})
        await bob.expect("left")
        assert table.seats[2].name == "bob (bot)"
        await play(alice, random.Random(5))
        await bob.send({"t": "join", "code": table.code})
        back = await bob.expect("table", where=lambda m: m["table"]["id"] == table_id)
        assert back["table"]["you"] == 2 and back["table"]["seats"][2]["name"] == "bob"
        await alice.send({"t": "rematch"})
        state = await bob.expect("state", where=lambda m: m["game_no"] == 2)
        assert state["view"]["seat"] == 2 and not state["controlled_by_bot"][2]


async def test_a_player_who_left_and_waits_gets_their_seat_back_at_the_rematch(tmp_path: Path) -> None:
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=3, bots=1, private=True)
        table = h.server.lobby.tables[table_id]
        await bob.send({"t": "join", "code": table.code})
        await bob.expect("table", where=lambda m: m["table"]["you"] == 2)
        await alice.send({"t": "start"})
        await bob.expect("state")
        await bob.send({"t": "leave"})
        await bob.expect("left")
        await bob.send({"t": "spectate", "code": table.code})
        await bob.send({"t": "sit"})
        await bob.expect("notice", where=lambda m: m.get("code") == "waiting_for_seat")
        await play(alice, random.Random(6))
        await alice.send({"t": "rematch"})
        state = await bob.expect("state", where=lambda m: m["game_no"] == 2 and m["view"]["seat"] is not None)
        assert state["view"]["seat"] == 2 and table.seats[2].name == "bob"
