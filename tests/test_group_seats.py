"""A way back to every table: watching a private table by its invite code from the app, and a seat for a
player who left at the next game. Real servers over loopback TLS; the real app under Pilot."""

from __future__ import annotations

import random
from pathlib import Path

from textual.widgets import Button, Input

from ono99_kernel.wire.requests import CreateTable, Join, Leave, Rematch, Sit, Spectate, Start
from ono99_server import Server
from ono99_server.table_room import Table
from ono99_tui.i18n import using
from ono99_tui.reasons import render
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import InviteScreen, LobbyScreen
from ono99_tui.tui.seats import ConfirmScreen, SeatMenuScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import FAST_PLAY, Harness, TestClient, create_table, play, running_server, server_config
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
            assert isinstance(app.screen, ConfirmScreen) and "has already started. Watch it?" in app.screen.question
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                             and app.model.table.id == table_id, "watching the private table")
            await wait_until(pilot, lambda: [m.name for m in table.waiting] == ["Ada"], "a seat at the next game")
        await alice.close()
    finally:
        await server.close()


async def bob_left_alices_private_game(h: Harness) -> tuple[TestClient, TestClient, Table]:
    """Alice's private table of three with a bot; Bob joined it by code (seat 2), the game started,
    and Bob left it (a bot plays his seat)."""
    alice = await h.connect("alice")
    bob = await h.connect("bob")
    table_id = await create_table(alice, seats=3, bots=1, private=True)
    table = h.server.lobby.tables[table_id]
    await bob.send(Join(code=table.code))
    await bob.expect("table", where=lambda m: m["table"]["you"] == 2)
    await alice.send(Start())
    await bob.expect("state")
    await bob.send(Leave())
    await bob.expect("left")
    return alice, bob, table


async def test_a_player_who_left_sits_again_at_the_next_game(tmp_path: Path) -> None:
    """Bob leaves alice's private game (a bot plays his seat to the end). After the game, his invite code
    seats him again in his old seat, which was his stand-in's, though the table does not let late joiners
    replace bots; the next game deals him in."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice, bob, table = await bob_left_alices_private_game(h)
        table_id = table.id
        assert table.seats[2].name == "bob (bot)"
        await play(alice, random.Random(5))
        await bob.send(Join(code=table.code))
        back = await bob.expect("table", where=lambda m: m["table"]["id"] == table_id)
        assert back["table"]["you"] == 2 and back["table"]["seats"][2]["name"] == "bob"
        await alice.send(Rematch())
        state = await bob.expect("state", where=lambda m: m["game_no"] == 2)
        assert state["view"]["seat"] == 2 and not state["controlled_by_bot"][2]


async def test_a_player_who_left_and_waits_gets_their_seat_back_at_the_rematch(tmp_path: Path) -> None:
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice, bob, table = await bob_left_alices_private_game(h)
        await bob.send(Spectate(code=table.code))
        await bob.send(Sit())
        await bob.expect("notice", where=lambda m: m.get("code") == "waiting_for_seat")
        await play(alice, random.Random(6))
        await alice.send(Rematch())
        state = await bob.expect("state", where=lambda m: m["game_no"] == 2 and m["view"]["seat"] is not None)
        assert state["view"]["seat"] == 2 and table.seats[2].name == "bob"


async def test_a_spectator_left_waiting_by_a_rematch_is_told_and_so_is_the_host(tmp_path: Path) -> None:
    """Carol asks for a seat at a table full of alice and a bot. The rematch finds no seat for her: she is
    told she watches and waits for the next game, and alice, the host, is told who waits. Once alice lets
    late joiners replace bots, Carol takes the bot's seat at once (between games)."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        carol = await h.connect("carol")
        table_id = await create_table(alice, seats=2, bots=1, start=True)
        await carol.send(Spectate(table=table_id))
        await carol.send(Sit())
        await carol.expect("notice", where=lambda m: m.get("code") == "waiting_for_seat")
        await play(alice, random.Random(7))
        await alice.send(Rematch())
        told = await carol.expect("notice", where=lambda m: m.get("code") == "no_seat_free")
        assert "sit down at the next game" in told["text"]
        host = await alice.expect("notice", where=lambda m: m.get("code") == "seat_wanted")
        assert host["params"] == {"names": "carol"} and "carol" in host["text"]
        with using("en"):
            assert render("seat_wanted", host["params"], "").startswith("Waiting for a seat: carol.")
        assert [m.name for m in h.server.lobby.tables[table_id].waiting] == ["carol"]


async def test_the_lobby_always_says_how_to_use_an_invite_code(tmp_path: Path) -> None:
    """No table is listed (private tables never are), then a refused code: the line under the tables says
    i enters an invite code each time."""
    server = Server(server_config(tmp_path))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")

            def line() -> str:
                return str(app.screen.query_one("#lobby-notice").render())

            await wait_until(pilot, lambda: "i to enter an invite code" in line(), "the word on invite codes")
            app.join_by_code("NOSUCH")
            await wait_until(pilot, lambda: "NOSUCH" in line(), "the refusal")
            assert "i to enter an invite code" in line()
    finally:
        await server.close()


async def test_the_host_is_asked_before_a_player_is_removed(tmp_path: Path) -> None:
    """Ada hosts, Bob sits. Ada's seat menu offers to remove Bob: the app asks first; No keeps him, Yes
    sends him to the lobby."""
    from tests.server_helpers import TestClient, join

    server = Server(server_config(tmp_path))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(name="Ada's", seats=3, turn_seconds=0))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None,
                             "Ada's table")
            assert app.model.table is not None
            bob = await TestClient.connect("127.0.0.1", server.port, "Bob")
            await join(bob, app.model.table.id)
            await wait_until(pilot, lambda: app.model.table is not None
                             and any(s.name == "Bob" for s in app.model.table.seats), "Bob at the table")
            for answer in ("n", "y"):
                await pilot.press("m")
                await wait_until(pilot, lambda: isinstance(app.screen, SeatMenuScreen), "the seat menu")
                menu = app.screen
                assert isinstance(menu, SeatMenuScreen)
                index = next(i for i, (text, _m) in enumerate(menu.choices) if text == "Remove Bob from the table")
                menu.query_one(f"#choice-{index}", Button).press()
                await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
                assert isinstance(app.screen, ConfirmScreen) and "Remove Bob from the table?" in app.screen.question
                await pilot.press(answer)
                await pilot.pause(0.3)
                seated = [s.name for s in server.lobby.tables[app.model.table.id].seats]
                assert ("Bob" in seated) == (answer == "n")
            await bob.expect("left")
            await bob.close()
    finally:
        await server.close()


async def test_a_code_that_worked_is_not_offered_again_for_another_refusal(tmp_path: Path) -> None:
    """Ada joins by code, goes back to the lobby, then tries a running public table from the list: its
    refusal is said as it is, not taken for the old code's table."""
    from tests.server_helpers import TestClient

    server = Server(server_config(tmp_path, bot_delay=600))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        alice = await TestClient.connect("127.0.0.1", server.port, "alice")
        private_id = await create_table(alice, seats=3, private=True)
        bob = await TestClient.connect("127.0.0.1", server.port, "bob")
        public_id = await create_table(bob, seats=2, bots=1, start=True)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.join_by_code(server.lobby.tables[private_id].code)
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the private table")
            app.send_message(Leave())
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
            app.send_message(Join(table=public_id))
            await wait_until(pilot, lambda: "the game has started" in app.model.notice, "the refusal")
            await pilot.pause(0.2)
            assert not isinstance(app.screen, ConfirmScreen)
        await alice.close()
        await bob.close()
    finally:
        await server.close()
