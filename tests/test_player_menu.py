"""The player menu (``w``) in the real app under Textual's Pilot, against a real server with a real
SQLite file over TLS: a player mutes and reports another from the lobby, and an operator's app bans
a player; protocol clients with keys are the other people. Every step goes through keys."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from ono99_kernel.wire.requests import Say
from ono99_server import Server
from ono99_tui.i18n import using
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.player_menu import PlayerMenu, PlayersScreen, ReasonScreen
from tests.server_helpers import TestClient, new_identity, server_config, until_closed
from tests.test_moderation import admins_file
from tests.test_tui import wait_until

PATIENCE = 30.0


def chat_texts(app: Ono99App) -> list[str]:
    return [entry.text for entry in app.model.chat]


async def choose(pilot: Pilot[Any], app: Ono99App, screen: type, option: str) -> None:
    """Move the highlight of the screen's list to ``option`` with the arrow keys, then Enter."""
    await wait_until(pilot, lambda: isinstance(app.screen, screen), screen.__name__)
    options = app.screen.query_one(OptionList)
    wanted = options.get_option_index(option)
    while options.highlighted != wanted:
        await pilot.press("down")
    await pilot.press("enter")


async def test_a_player_mutes_and_reports_from_the_menu_and_an_operator_bans(tmp_path: Path) -> None:
    ada_key, bob_key, cy_key = new_identity(), new_identity(), new_identity()
    server = Server(server_config(tmp_path, admins=admins_file(tmp_path, ada_key)))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada", identity=ada_key)
    clients: list[TestClient] = []
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.model.connected, "the lobby")
            await wait_until(pilot, lambda: app.model.safety is not None and app.model.safety.operator,
                             "the server saying the app's key is an operator's")
            for name, key in (("bob", bob_key), ("cy", cy_key)):
                client = await TestClient.connect("127.0.0.1", server.port, name, identity=key)
                assert isinstance(client, TestClient)
                clients.append(client)
            bob, cy = clients
            await bob.send(Say(scope='lobby', text='losers, all of you'))
            await wait_until(pilot, lambda: "losers, all of you" in chat_texts(app), "bob's line")
            # mute bob: w, bob, "Mute"
            await pilot.press("w")
            await choose(pilot, app, PlayersScreen, "bob")
            await choose(pilot, app, PlayerMenu, "mute")
            await wait_until(pilot, lambda: app.model.safety is not None and app.model.safety.muted == ("bob",),
                             "the mute")
            await bob.send(Say(scope='lobby', text='can you hear me'))
            await cy.expect("chat", where=lambda m: m["text"] == "can you hear me")
            await cy.send(Say(scope='lobby', text='marker'))
            await wait_until(pilot, lambda: "marker" in chat_texts(app), "cy's line after bob's")
            assert "can you hear me" not in chat_texts(app)
            # report bob, with a reason typed in
            await pilot.press("w")
            await choose(pilot, app, PlayersScreen, "bob")
            await choose(pilot, app, PlayerMenu, "report")
            await wait_until(pilot, lambda: isinstance(app.screen, ReasonScreen), "the reason")
            await pilot.press(*"insults")
            await pilot.press("enter")
            assert server.storage is not None

            async def reports() -> list[tuple[str, str]]:
                assert server.storage is not None
                rows = await server.storage.call(
                    lambda db: db.rows("SELECT target_name, reason FROM moderation_reports"))
                return [(str(target), str(reason)) for target, reason in rows]

            loop = asyncio.get_running_loop()
            end = loop.time() + PATIENCE
            while not await reports():
                assert loop.time() < end, f"the report never arrived: {app.model.notice!r} {app.screen!r}"
                await pilot.pause(0.05)
            assert await reports() == [("bob", "insults")]
            # the operator's items: ban bob for an hour (the first duration), with a reason
            await pilot.press("w")
            await choose(pilot, app, PlayersScreen, "bob")
            await choose(pilot, app, PlayerMenu, "ban")
            await wait_until(pilot, lambda: isinstance(app.screen, ReasonScreen), "the ban's reason")
            await pilot.press(*"spam")
            await pilot.press("enter")
            told = await until_closed(bob)
            ban = next(m for m in told if m.get("code") == "operator_ban")
            assert ban["params"]["reason"] == "spam" and ban["params"]["until"]
            assert ("identity", bob_key.fingerprint) in server.lobby.moderation.bans
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_the_menu_speaks_the_players_language(tmp_path: Path) -> None:
    """In German, the menu's items are German."""
    server = Server(server_config(tmp_path))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada", identity=new_identity())
    other = await TestClient.connect("127.0.0.1", server.port, "bob")
    try:
        with using("de"):
            async with app.run_test(size=(100, 32)) as pilot:
                await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and any(
                    p.name == "bob" for p in app.model.online), "bob online")
                await pilot.press("w")
                await choose(pilot, app, PlayersScreen, "bob")
                await wait_until(pilot, lambda: isinstance(app.screen, PlayerMenu), "the menu")
                labels = [str(option.prompt) for option in app.screen.query_one(OptionList).options]
                assert labels[0] == "Profil" and labels[3] == "Den Betreibern melden…", labels
    finally:
        await other.close()
        await server.close()
