"""The app keeps its seat through ordinary mistakes and network faults: a reconnect that is cut,
leaving a running game only after saying yes, chat that never plays a card. The real app under
Pilot against a real server over loopback TCP (through a relay where the network fails)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import Button, Input, RichLog, Static

from ono99_kernel.wire.requests import CreateTable, Join, Say, Spectate, Stand, Start
from ono99_kernel.wire.server import decode_server_message
from ono99_server import Server, ServerConfig
from ono99_server.connection import Connection
from ono99_server.history import history_messages
from ono99_tui.client.connection import Client
from ono99_tui.client.model import Model
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.seats import ConfirmScreen, SeatMenuScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.widgets import KeysFooter
from tests.app_state import table_of, view_of
from tests.relay import Relay
from tests.server_helpers import play_client, running_game, server_config
from tests.test_tui import play_until, wait_until
from tests.textual_compat import record_notifications
from tests.wire import table_map


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
            notes = record_notifications(app)
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




def expected_log(app: Any, server: Server) -> list[str]:
    """The log lines of the app's table's whole game for its seat, described by a fresh model."""
    table = server.lobby.tables[app.model.table.id]
    seat = app.model.view.seat
    fresh = Model()
    fresh.table, fresh.view = app.model.table, app.model.view
    for message in history_messages(table.id, table.game_no, running_game(table).log[:table.shown], table.seq_base + 1,
                                    seat, True):
        fresh.apply(decode_server_message(message.to_wire()))
    return list(fresh.log)


def shown_log(app: Any) -> list[str]:
    return [line for line in app.model.log if not line.startswith("While you were away")]


def table_chat(app: Any) -> list[tuple[str, str]]:
    return [(c.sender, c.text) for c in app.model.chat if c.scope == "table"]


async def test_a_resumed_app_shows_no_line_twice_after_a_blip_and_after_a_restart(tmp_path: Path) -> None:
    """Ada (the app) and Bo (a protocol client) play and chat at a table of a server with a
    database. Ada's connection drops, and she is back: her log and chat are exactly what they were,
    no line twice. The server is then shut down and a new one started on the same database and
    port: the app comes back to its seat and plays the game to its end; its log is the game's log
    exactly once, and the chat has each line once."""
    config = server_config(tmp_path, grace_seconds=60)  # a database and a certificate a restart keeps
    server = Server(config)
    await server.start()
    config.port = server.port
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    bo: Client | None = None
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(seats=2, turn_seconds=0))
            await wait_until(pilot, lambda: app.model.table is not None, "the table")
            table_id = table_of(app).id
            bo = await Client.connect("127.0.0.1", server.port, "Bo")
            await bo.send(Join(table=table_id))
            await wait_until(pilot, lambda: table_of(app).free == 0, "Bo to sit down")
            await pilot.press("s")
            bo_task = asyncio.create_task(play_client(bo, 120))
            await wait_until(pilot, lambda: app.model.view is not None, "the game")
            await play_until(pilot, app, lambda: view_of(app).version >= 8 and app.model.my_turn, draws=True)
            await bo.send(Say(text="nice one"))
            app.send_message(Say(text="thanks"))
            await wait_until(pilot, lambda: len(table_chat(app)) == 2, "the chat")
            log_before, chat_before = shown_log(app), table_chat(app)
            assert log_before == expected_log(app, server)

            connection = server.lobby.members["Ada"].connection
            assert isinstance(connection, Connection)
            connection.writer.transport.abort()
            await wait_until(pilot, lambda: not app.model.connected, "the app to notice")
            await wait_until(pilot, lambda: app.model.connected and app.model.view is not None, "the app back")
            # her stand-in and Bo played on meanwhile; nothing moves once it is her turn (or the game is over)
            await wait_until(pilot, lambda: app.model.my_turn or view_of(app).winner is not None,
                             "a still moment")
            await pilot.pause(0.2)
            assert shown_log(app)[:len(log_before)] == log_before
            assert shown_log(app) == expected_log(app, server)[-len(app.model.log):]
            assert table_chat(app) == chat_before

            await server.close()
            server = Server(config)
            await server.start()
            await wait_until(pilot, lambda: app.model.connected and "Ada" in server.lobby.members
                             and server.lobby.members["Ada"].connection is not None, "the app back after the restart")
            await play_until(pilot, app, lambda: app.model.view is not None and app.model.view.winner is not None,
                             draws=True)
            await pilot.pause(0.2)
            expected = expected_log(app, server)
            assert shown_log(app) == expected[-len(app.model.log):] and len(expected) >= len(log_before)
            assert table_chat(app) == chat_before
            bo_task.cancel()
    finally:
        if bo is not None:
            await bo.close()
        await server.close()


async def test_leaving_a_running_game_asks_first_and_chat_keys_never_play(tmp_path: Path) -> None:
    """Ada plays a bot on a server, and it is her turn. Typed into the chat input, digits and the
    table's keys (1, l, q, n, d, s) are chat text: nothing is played and nobody leaves; Enter sends
    the line and the input keeps the keyboard; Esc gives it back to the cards. Then l, q, Ctrl+Q,
    n and u (stand up) each ask first, and No or Esc keeps her seat; only a yes to l takes her to
    the lobby."""
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0, grace_seconds=60))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=0, start=True))
            await wait_until(pilot, lambda: app.model.my_turn and isinstance(app.screen, TableScreen), "her turn")
            version = view_of(app).version
            table = server.lobby.tables[table_of(app).id]

            await pilot.press("c")
            chat_input = app.screen.query_one("#chat-input", Input)
            assert app.focused is chat_input
            await pilot.press(*"1l q n d s", "enter")
            await wait_until(pilot, lambda: table_chat(app) == [("Ada", "1l q n d s")], "the chat line")
            assert app.focused is chat_input and chat_input.value == ""
            await pilot.press(*"2f", "enter")
            await wait_until(pilot, lambda: len(table_chat(app)) == 2, "a second line, without pressing c")
            assert view_of(app).version == version and running_game(table).version == version
            assert isinstance(app.screen, TableScreen) and table.seats[0].kind == "human"
            await pilot.press("escape")
            assert app.focused is None

            for key, answer in (("l", "escape"), ("q", "n"), ("ctrl+q", "escape"), ("n", "escape"), ("u", "escape")):
                await pilot.press(key)
                await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), f"{key} to ask first")
                await pilot.press(answer)
                await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), f"{answer} to keep the seat")
                assert app.is_running and table.seats[0].kind == "human" and app.model.table is not None
            await pilot.press("l")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "l to ask")
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby after yes")
            assert table.seats[0].kind == "bot"
    finally:
        await server.close()


async def test_the_lobby_shows_who_is_online_and_chats_and_the_host_gives_a_bots_seat(tmp_path: Path) -> None:
    """In the lobby Ada sees who is online (Bo too) and Bo's lobby chat; c, a line and Enter send
    hers. At her table (one bot, no game yet) Bo watches; m opens the seat menu, whose choice gives
    the bot's seat to Bo. Then u stands Ada up to watch, and u again sits her down."""
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0, grace_seconds=60))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    bo: Client | None = None
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            bo = await Client.connect("127.0.0.1", server.port, "Bo")
            online = app.screen.query_one("#online", Static)
            await wait_until(pilot, lambda: "Bo" in str(online.render()), "Bo in the online list")
            await bo.send(Say(scope="lobby", text="evening all"))
            await wait_until(pilot, lambda: any(c.text == "evening all" for c in app.model.chat), "Bo's line")
            lobby_chat = app.screen.query_one("#lobby-chat", RichLog)
            await wait_until(pilot, lambda: any("evening all" in line.text for line in lobby_chat.lines),
                             "the line shown")
            await pilot.press("c", *"hi bo", "enter")
            line = await bo.expect("chat", where=lambda m: m["from"] == "Ada")
            assert (line["scope"], line["text"]) == ("lobby", "hi bo")

            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=0))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None,
                             "her table")
            table = server.lobby.tables[table_of(app).id]
            table_chat = app.screen.query_one("#chat", RichLog)
            await bo.send(Say(scope="lobby", text="anyone for a game?"))
            marked = "Lobby · Bo: anyone for a game?"
            await wait_until(pilot, lambda: any(line.text == marked for line in table_chat.lines),
                             "a lobby line at the table, marked as the lobby's")
            await bo.send(Spectate(table=table.id))
            await wait_until(pilot, lambda: "Bo" in table_of(app).watchers, "Bo watching")
            await pilot.press("m")
            await wait_until(pilot, lambda: isinstance(app.screen, SeatMenuScreen), "the seat menu")
            labels = [str(b.label) for b in app.screen.query(Button)]
            give = labels.index("Give seat 2 (Bot 2) to Bo")
            await pilot.click(f"#choice-{give}")
            await wait_until(pilot, lambda: table.seats[1].name == "Bo", "Bo in the bot's seat")
            assert isinstance(app.screen, TableScreen)
            await pilot.press("u")
            await wait_until(pilot, lambda: table_of(app).you is None, "Ada standing")
            await pilot.press("u")
            await wait_until(pilot, lambda: table_of(app).you == 0, "Ada seated again")
    finally:
        if bo is not None:
            await bo.close()
        await server.close()


async def test_a_spectator_watches_the_same_table_again_after_a_server_restart(tmp_path: Path) -> None:
    """Bo (the app) watches Cy's game against bots. The server restarts on the same database and
    port (spectators are not kept): the app reconnects and watches the same table again, its log
    being that game's log once."""
    config = ServerConfig(host="127.0.0.1", port=0, bot_delay=0.05, default_turn_seconds=0, grace_seconds=60,
                          db_path=tmp_path / "x.db")
    server = Server(config)
    await server.start()
    config.port = server.port
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Bo")
    cy: Client | None = None
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            cy = await Client.connect("127.0.0.1", server.port, "Cy")
            await cy.send(CreateTable(seats=3, bots=2, turn_seconds=0))
            table_id = (await cy.expect("table"))["table"]["id"]
            await cy.send(Stand())  # Cy watches too: only bots play
            app.send_message(Spectate(table=table_id))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await cy.send(Start())
            await wait_until(pilot, lambda: app.model.view is not None and app.model.view.version >= 4, "moves")
            footer = app.screen.query_one(KeysFooter)
            shown = {entry.key for entry in footer._entries}
            assert "enter" not in shown and "d" not in shown, shown  # a spectator has nothing to play or draw
            await server.close()
            server = Server(config)
            await server.start()
            await wait_until(pilot, lambda: app.model.connected and app.model.table is not None
                             and app.model.table.id == table_id and isinstance(app.screen, TableScreen)
                             and app.model.view is not None, "the app watching again")
            table = server.lobby.tables[table_id]
            assert any(m.name == "Bo" for m in table.spectators)
            await wait_until(pilot, lambda: table.status == "finished"
                             and view_of(app).winner is not None, "the game's end")
            await pilot.pause(0.2)
            assert shown_log(app) == expected_log(app, server)[-len(app.model.log):]
    finally:
        if cy is not None:
            await cy.close()
        await server.close()


def test_the_readers_own_moves_in_the_history_of_a_resumed_game_are_said_to_them() -> None:
    """A resumed client gets the game's history before its first state: its own plays in it once
    read "Ada played 10" beside "You 10" in the strip of last plays. Tried: a model that knows its
    seat only from the table takes a history with its own play."""
    model = Model()
    model.apply(decode_server_message({"t": "table", "table": table_map(
        ["Ada", "Bot 2"], you=0, status="playing",
        seats=[{"kind": "human", "name": "Ada", "level": None, "connected": True},
               {"kind": "bot", "name": "Bot 2", "level": "greedy", "connected": None}])}))
    model.apply(decode_server_message({"t": "history", "table": 1, "game_no": 1, "seq": 2, "reset": True,
                                       "events": [{"e": "play", "seat": 0, "cards": ["10"], "total": 10},
                                                  {"e": "play", "seat": 1, "cards": ["7"], "total": 17}]}))
    assert any(line.startswith("You played 10") for line in model.log)
    assert any(line.startswith("Bot 2 played 7") for line in model.log)
