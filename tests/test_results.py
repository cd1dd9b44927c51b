"""The game-over dialog against a real server: a new game closes it, a player sees their turn
whatever dialog is open, and a spectator has one result at a time over the live game. The real app
under Pilot, the other players real protocol clients over loopback TCP."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from ono99_kernel.wire.requests import Act, Join, Rematch, Spectate
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.help import HelpScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from tests.server_helpers import FAST_PLAY, TestClient, create_table, running_game, running_server, start
from tests.test_tui import play_my_turn, play_to_the_end, wait_until
from tests.textual_compat import notification_texts


async def play_game(client: TestClient, game_no: int, gate: asyncio.Event | None = None) -> None:
    """Play the first legal action whenever it is ``client``'s move in game ``game_no``, until it
    ends; with a ``gate``, each move waits until it is open."""
    while True:
        message = await client.recv()
        if message["t"] != "state" or message["game_no"] != game_no:
            continue
        view = message["view"]
        if view["winner"] is not None:
            return
        if view["legal"] and (view["turn"] == view["seat"] or "draw" in view["legal"]):
            if gate is not None:
                await gate.wait()
            await client.send(Act(action=view["legal"][0], version=view["version"]))


def results_open(app: Ono99App) -> list[GameOverScreen]:
    return [s for s in app.screen_stack if isinstance(s, GameOverScreen)]


async def test_a_rematch_closes_the_old_result_and_a_turn_under_a_dialog_is_said(tmp_path: Path) -> None:
    """Bo (the app) loses a game at Alice's table and leaves its result open; Alice starts the next
    game: the result closes and the hand is on top. Then, with the help open, Bo's turn comes: a
    notice says it is his turn."""
    async with running_server(tmp_path, **FAST_PLAY) as harness:
        alice = await harness.connect("alice")
        table_id = await create_table(alice, seats=3, bots=1)
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="bo")
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(Join(table=table_id))
            await wait_until(pilot, lambda: app.model.table is not None and app.model.table.you is not None,
                             "Bo to sit down")
            await start(alice)
            alice_plays = asyncio.create_task(play_game(alice, 1))
            try:
                await wait_until(pilot, lambda: app.model.view is not None, "the game")
                await play_to_the_end(pilot, app)
                await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the result")
                first = app.model.game_no
                await alice_plays
                # Alice starts the next game while Bo's result of the last one is open
                gate = asyncio.Event()  # Alice waits to move until Bo has a dialog open
                alice_plays = asyncio.create_task(play_game(alice, first + 1, gate))
                await alice.send(Rematch())
                await wait_until(pilot, lambda: app.model.game_no > first, "the next game")
                await pilot.pause()
                assert app.model.view is not None and app.model.view.winner is None
                assert results_open(app) == [] and isinstance(app.screen, TableScreen), app.screen_stack

                if app.model.my_turn:
                    await play_my_turn(pilot, app)
                await wait_until(pilot, lambda: not app.model.my_turn, "the turn to pass to Alice")
                await pilot.press("question_mark")
                await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
                app.clear_notifications()
                gate.set()
                await wait_until(pilot, lambda: app.model.my_turn, "Bo's turn")
                await pilot.pause()
                assert isinstance(app.screen, HelpScreen)
                assert "Your turn" in notification_texts(app)
            finally:
                alice_plays.cancel()
                with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                    await alice_plays


async def test_a_spectator_who_presses_no_key_has_one_result_at_a_time_over_the_live_game(tmp_path: Path) -> None:
    """Sam (the app) watches Alice play five games against a bot, one after the other, and presses
    nothing. While a game runs, no result is open and the board shows its total; once the last is
    over, one result is open, of that game, over the board of that game."""
    async with running_server(tmp_path, **FAST_PLAY) as harness:
        alice = await harness.connect("alice")
        table_id = await create_table(alice, seats=2, bots=1)
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="sam")
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(Spectate(table=table_id))
            await wait_until(pilot, lambda: app.model.table is not None and isinstance(app.screen, TableScreen),
                             "Sam to watch")
            table = harness.server.lobby.tables[table_id]
            await start(alice)
            for game_no in range(1, 6):
                gate = asyncio.Event()
                alice_plays = asyncio.create_task(play_game(alice, game_no, gate))
                # the game runs, held at Alice's move: Sam sees it, with no result over it
                await wait_until(pilot, lambda g=game_no: app.model.game_no == g and app.model.view is not None
                                 and app.model.view.version == running_game(table).version,
                                 f"game {game_no} on the board")
                await pilot.pause()
                assert results_open(app) == [] and isinstance(app.screen, TableScreen), app.screen_stack
                await wait_until(pilot, lambda: app.screen.query_one(TableTop).shown_total
                                 == running_game(table).total, "the board to show the total")
                gate.set()
                await alice_plays
                await wait_until(pilot, lambda g=game_no: app.model.game_no == g and app.model.view is not None
                                 and app.model.view.winner is not None, f"the end of game {game_no}")
                if game_no < 5:
                    await alice.send(Rematch())
            await pilot.pause()
            results = results_open(app)
            assert len(results) == 1 and app.screen is results[0], app.screen_stack
            assert results[0].game == (table_id, 5)
            board = app.screen_stack[-2]
            assert isinstance(board, TableScreen)
            assert board.query_one(TableTop).shown_total == running_game(table).total
