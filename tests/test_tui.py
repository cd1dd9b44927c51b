"""The terminal app under Pilot: a local game through the keyboard, illegal cards, resize, help,
replays, and the app against a real server over loopback TCP."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Select, Static, Switch

from ono99_kernel.wire.requests import CreateTable, Join, Start
from ono99_kernel.wire.server import View
from ono99_server import Server, ServerConfig
from ono99_server.connection import Connection
from ono99_tui.client.connection import Client
from ono99_tui.client.labels import card_label
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.game_over import GameOverScreen, KnockOutScreen
from ono99_tui.tui.help import HelpScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.replay import load_replay, make_replay_app
from ono99_tui.tui.seats import ConfirmScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from ono99_tui.tui.widgets import CardWidget, KeysFooter
from tests.app_state import table_of, view_of
from tests.server_helpers import new_identity, play_client
from tests.textual_compat import count_refreshes

DATA = Path(__file__).parent / "data"
PATIENCE = 60.0  # seconds a test waits for something to happen; never a speed requirement


async def wait_until(pilot: Pilot[Any], condition: Callable[..., bool], what: str) -> None:
    """Pause the app until ``condition()`` holds (``...``: a lambda in a loop binds the loop's values
    as defaults); fail after PATIENCE seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def join_from_the_lobby(pilot: Pilot[Any], app: Ono99App, table_id: int, what: str) -> None:
    """The server app, once in its lobby, joins table ``table_id`` and shows it."""
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    app.send_message(Join(table=table_id))
    await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None, what)


def playable_index(app: Ono99App) -> int | None:
    view = app.model.view
    assert view is not None
    return next((i for i, code in enumerate(view.hand) if code in view.legal), None)


async def play_my_turn(pilot: Pilot[Any], app: Ono99App) -> None:
    """Press the key of a legal card (or f for the four-card discard, d to draw)."""
    view = app.model.view
    assert view is not None
    if "draw" in view.legal:
        await pilot.press("d")
        return
    index = playable_index(app)
    await pilot.press("f" if index is None else str(index + 1))


async def play_until(pilot: Pilot[Any], app: Ono99App, done: Callable[[], bool], *, draws: bool = False) -> int:
    """Play the reader's turns with the number keys (and, with ``draws``, take an owed draw with d) until
    ``done()``; a knock-out summary is dismissed, the bots then play on. Returns the moves made. Fails
    when the game stops moving first (no new state for PATIENCE seconds), instead of waiting forever."""
    loop = asyncio.get_running_loop()
    moves = 0
    version: int | None = -1
    moved_at = loop.time()
    while not done():
        view = app.model.view
        if (view.version if view is not None else None) != version:
            version, moved_at = (view.version if view is not None else None), loop.time()
        elif loop.time() > moved_at + PATIENCE:
            raise AssertionError(f"the game stopped moving at version {version}")
        if isinstance(app.screen, KnockOutScreen):
            await pilot.press("enter")
        elif (view is not None and (app.model.my_turn or (draws and app.model.can_draw))
              and isinstance(app.screen, TableScreen)):
            before = view.version
            await play_my_turn(pilot, app)
            await wait_until(pilot, lambda b=before: app.model.view is not None and app.model.view.version != b,
                             "the server to take the move")
            moves += 1
        else:
            await pilot.pause(0.02)
    return moves


async def play_to_the_end(pilot: Pilot[Any], app: Ono99App) -> int:
    """Play the reader's turns until the game is over (``play_until``)."""
    return await play_until(pilot, app, lambda: app.model.view is None or app.model.view.winner is not None)


async def test_local_game_played_through_the_keyboard_to_its_end() -> None:
    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the table screen")
        moves = 0
        while app.model.view is not None and app.model.view.winner is None:
            if isinstance(app.screen, KnockOutScreen):
                await pilot.press("enter")
            elif app.model.my_turn:
                before = app.model.view.version
                await play_my_turn(pilot, app)
                await wait_until(pilot, lambda b=before: app.model.view is not None and app.model.view.version != b,
                                 "the server to take the move")
                moves += 1
            else:
                await pilot.pause(0.02)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        assert moves > 0
        winner = view_of(app).winner
        assert app.model.ranking()[0] == winner
        said = "You win the game!" if winner == app.model.my_seat else f"{app.model.seat_name(winner)} wins the game!"
        assert said in app.model.log
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table after closing the dialog")


async def play_until_a_card_is_blocked(pilot: Pilot[Any], app: Ono99App) -> View:
    """Play the reader's turns (and rematches) until, on their turn at the table, the view lists a card
    of their hand as unplayable; that view."""
    await wait_until(pilot, lambda: app.model.view is not None, "a view")
    for _ in range(2000):
        view = app.model.view
        assert view is not None
        if isinstance(app.screen, KnockOutScreen):
            await pilot.press("enter")
            continue
        if view.winner is not None:
            await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
            await pilot.press("r")  # play again: keep looking for a blocked card
            await wait_until(pilot, lambda: app.model.view is not None and app.model.view.winner is None,
                             "the rematch")
            continue
        if app.model.my_turn and view.unplayable and isinstance(app.screen, TableScreen):
            return view
        if app.model.my_turn and isinstance(app.screen, TableScreen):
            before = view.version
            await play_my_turn(pilot, app)
            await wait_until(pilot, lambda b=before: view_of(app).version != b, "the move")
        else:
            await pilot.pause(0.02)
    raise AssertionError("never held a blocked card on my turn")


async def test_an_unplayable_card_says_why_and_nothing_is_sent() -> None:
    """Tried: pressing the key of a card the rules block (an ONO 99 card, or a number that would
    pass 98). The screen says why; the game does not move."""
    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await play_until_a_card_is_blocked(pilot, app)
        code, reason = view.unplayable[0].card, view.unplayable[0].reason
        await pilot.press(str(view.hand.index(code) + 1))
        await pilot.pause(0.2)
        why = str(app.screen.query_one("#why", Static).render())
        assert why == f"Can't play {card_label(code)}: {reason}"
        assert app.model.view is not None and app.model.view.version == view.version
        assert any(w in reason for w in ("would make", "ONO 99"))


async def test_resize_relays_out_and_keeps_all_four_cards_on_screen() -> None:
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None, "a view")
        await pilot.pause(0.2)

        def card_regions() -> list[Any]:
            return [c.region for c in app.screen.query(CardWidget) if c.display]

        small = card_regions()
        assert len(small) == 4
        assert all(r.right <= 80 and r.bottom <= 24 for r in small)
        log_small = app.screen.query_one("#log").region
        assert app.screen.query_one("#chat-box").region.width == 0  # under 90 columns the chat folds away
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.3)
        log_big = app.screen.query_one("#log").region
        assert log_big.height > log_small.height
        assert app.screen.query_one("#chat-box").region.width > 0
        assert len(card_regions()) == 4


async def test_help_opens_with_question_mark_and_closes_with_escape() -> None:
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        text = app.screen.query_one("Markdown")
        assert text is not None
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")


async def test_q_in_a_running_local_game_asks_first_and_quits_on_yes() -> None:
    """Tried: q in the middle of a local game (it lives in this process: quitting ends it). The app
    asks; n and Esc keep the game, l (the lobby: a bot would take the seat) asks too; y quits."""
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        for key, answer in (("q", "n"), ("q", "escape"), ("l", "n")):
            await pilot.press(key)
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), f"{key} to ask first")
            await pilot.press(answer)
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), f"{answer} to keep the game")
            assert app.is_running and app.model.table is not None and app.model.table.status == "playing"
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "q to ask")
        assert "This game is not over" in str(app.screen.query_one("#question", Static).render())
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit")


async def test_q_quits_a_local_game_that_is_over_at_once() -> None:
    """Once the game is over, nothing is lost: q quits without asking."""
    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                         and app.model.table.status == "finished", "the finished table")
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, "the app to quit")


async def test_new_game_dialog_refuses_an_invalid_option_set_and_starts_a_1980_game() -> None:
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the dialog")
        dialog = app.screen
        dialog.query_one("#ono99_sets_99", Switch).value = True
        dialog.query_one("#edition", Select).value = "1980"
        await pilot.pause(0.1)
        dialog.query_one("#start", Button).press()
        await pilot.pause(0.2)
        problem = str(dialog.query_one("#problem", Static).render())
        assert "Only going over 99 loses" in problem and "_" not in problem and isinstance(app.screen, NewGameScreen)
        dialog.query_one("#bust_over_99", Switch).value = True
        dialog.query_one("#seats", Select).value = 3
        await pilot.pause(0.1)
        dialog.query_one("#start", Button).press()
        await wait_until(pilot, lambda: app.model.view is not None and app.model.view.edition == "1980",
                         "the 1980 game")
        assert view_of(app).options.ono99_sets_99 is True
        assert view_of(app).seats == 3


async def test_replay_steps_forward_and_back() -> None:
    data = load_replay(DATA / "sample_2022.jsonl", 1)
    app = make_replay_app(data)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        assert app.position == 0 and app.model.view is not None
        for _ in range(6):
            await pilot.press("right")
        assert app.position == 6
        total_at_6 = app.model.view.total
        await pilot.press("left")
        assert app.position == 5
        await pilot.press("right")
        assert app.model.view.total == total_at_6
        await pilot.press("end")
        await pilot.pause(0.2)
        assert app.model.view.winner is not None
        assert app.position == len(data["states"]) - 1


# --- against a real server over loopback TCP ----------------------------------------------------------
async def test_app_against_a_real_server_create_join_play_disconnect_reconnect() -> None:
    """The app creates a table in a real server's lobby, a protocol client joins, the app starts
    the game; mid-game the server drops the app's TCP connection: the app shows the loss,
    reconnects with its resume token to the same seat, and both play the game to its end."""
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0, grace_seconds=60))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    bo: Client | None = None
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the new table dialog")
            app.screen.query_one("#start", Button).press()
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None,
                             "the new table")
            table_id = table_of(app).id
            bo = await Client.connect("127.0.0.1", server.port, "Bo")
            await bo.send(Join(table=table_id))
            await wait_until(pilot, lambda: any(s.name == "Bo" for s in table_of(app).seats),
                             "Bo to sit down")
            await pilot.press("s")
            await wait_until(pilot, lambda: app.model.view is not None, "the game to start")
            my_seat = view_of(app).seat
            bo_task = asyncio.create_task(play_client(bo, PATIENCE))
            dropped = False
            while view_of(app).winner is None:
                if not dropped and view_of(app).version > 6:
                    dropped = True
                    ada = server.lobby.members["Ada"]
                    assert isinstance(ada.connection, Connection)
                    ada.connection.writer.transport.abort()  # the network fails under the app
                    await wait_until(pilot, lambda: not app.model.connected, "the app to notice")
                    await wait_until(pilot, lambda: app.model.connected and app.model.view is not None,
                                     "the app to reconnect")
                    assert view_of(app).seat == my_seat
                    continue
                if app.model.my_turn or app.model.can_draw:
                    before = view_of(app).version
                    await play_my_turn(pilot, app)
                    await wait_until(pilot, lambda b=before: view_of(app).version != b
                                     or view_of(app).winner is not None, "the move")
                else:
                    await pilot.pause(0.02)
            assert dropped
            assert await asyncio.wait_for(bo_task, PATIENCE) is not None
            assert server.lobby.members["Ada"].connection is not None
    finally:
        if bo is not None:
            await bo.close()
        await server.close()


async def test_lobby_lists_tables_live_spectates_and_shows_the_leaderboard(tmp_path: Path) -> None:
    """A real server with a database: Cy wins a game against bots, then opens another table; the
    app's lobby lists it, the app spectates it (no hand: public view only), goes back to the lobby
    and reads the leaderboard."""
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=0, default_turn_seconds=0,
                                 db_path=tmp_path / "ono99.db"))
    await server.start()
    cy = await Client.connect("127.0.0.1", server.port, "Cy", identity=new_identity())  # stats are by key
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        await cy.send(CreateTable(seats=2, bots=1, bot_level="random", turn_seconds=0, start=True, name="First"))
        await asyncio.wait_for(play_client(cy, PATIENCE), PATIENCE)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await cy.send(CreateTable(seats=3, bots=2, turn_seconds=0, name="Cy's <b>table</b>"))
            await wait_until(pilot, lambda: any(t.name == "Cy's <b>table</b>" for t in app.model.tables),
                             "the live table list")
            grid = app.screen.query_one(DataTable)
            table_id = next(t.id for t in app.model.tables if t.name == "Cy's <b>table</b>")
            grid.move_cursor(row=grid.get_row_index(str(table_id)))
            await pilot.press("s")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table as a spectator")
            await cy.send(Start())
            await wait_until(pilot, lambda: app.model.view is not None, "the spectator's view")
            assert view_of(app).seat is None and view_of(app).hand == ()
            title = str(app.screen.query_one("#title", Static).render())
            assert "Cy's <b>table</b>" in title and "spectating" in title  # shown as typed, not as markup
            await pilot.press("l")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
            await pilot.press("b")
            await wait_until(pilot, lambda: any(r.name == "Cy" for r in app.model.leaderboard), "the leaderboard")
            row_cy = next(r for r in app.model.leaderboard if r.name == "Cy")
            assert row_cy.games == 1
    finally:
        await cy.close()
        await server.close()


# --- what a state update redraws ----------------------------------------------------------------------
async def test_a_state_that_changes_only_the_total_repaints_only_the_total(monkeypatch: Any) -> None:
    """Each widget of the table screen is updated only when what it shows changes: a new total
    alone repaints the lines of the table top that show the total (its digits, its gauge and the room
    left), not the hand, the seats or the pile, and lays nothing out."""
    app = make_replay_app(load_replay(DATA / "sample_2022.jsonl"))
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(5):
            await pilot.press("right")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen) and app.model.view is not None
        refreshed = count_refreshes(monkeypatch, screen)
        top = screen.query_one(TableTop)
        regions: list[Region] = []
        counted = Widget.refresh  # count_refreshes' own, which it calls on

        def lines_of_the_top(self: Widget, *asked: Region, **options: Any) -> Widget:
            if self is top:
                regions.extend(asked)
            return counted(self, *asked, **options)

        monkeypatch.setattr(Widget, "refresh", lines_of_the_top)
        screen.refresh_model(app.model)  # the same model: nothing to draw
        assert refreshed == []
        app.model.view = dataclasses.replace(app.model.view, total=app.model.view.total + 1)
        screen.refresh_model(app.model)
        assert {name for name, _ in refreshed} == {"TableTop"}
        assert not any(layout for _, layout in refreshed)
        seats = {y for y, line in enumerate(top.text().splitlines()) if "Bot" in line or "(you)" in line}
        assert regions and all(region.height == 1 for region in regions)
        assert not {region.y for region in regions} & seats, "the seats repainted"
        assert len(regions) <= 5  # at most the total's three lines of digits, its gauge and the room left
        assert top.shown_total == app.model.view.total


async def test_the_footer_lists_the_keys_follows_the_screen_and_a_click_presses_a_key() -> None:
    app = make_replay_app(load_replay(DATA / "sample_2022.jsonl"))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeysFooter)
        line = footer.render().plain
        assert line.startswith(" → Next  ← Previous ") and "palette" not in line  # Textual's palette: English only
        assert " ? Help " in line and len(line) == 100
        await pilot.click(KeysFooter, offset=(line.index("? Help") + 1, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        assert " esc Close " in app.screen.query_one(KeysFooter).render().plain


async def test_the_footer_redraws_when_the_keys_change() -> None:
    class Keys(Screen[None]):
        BINDINGS = [Binding("a", "alpha", "Alpha"), Binding("b", "beta", "Beta")]
        beta = True

        def compose(self) -> ComposeResult:
            yield KeysFooter()

        def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
            return self.beta if action == "beta" else True

    class KeysApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(Keys())

    app = KeysApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Keys)
        footer = screen.query_one(KeysFooter)
        assert " b Beta " in footer.render().plain
        screen.beta = False
        screen.refresh_bindings()
        await pilot.pause()
        assert " b Beta " not in footer.render().plain and " a Alpha " in footer.render().plain
