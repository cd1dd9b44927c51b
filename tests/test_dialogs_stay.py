"""A dialog over the screen the server's messages keep showing stays open. The `table` that follows a
game's last state (status "finished") used to close the game-over dialog, put a new table screen in
place of the old one and open the dialog again over it: a key pressed on the first dialog meanwhile
was lost (a flaky "p at the end of a game plays now again").

A dialog that opens by itself takes no key meant for something else: keys typed into the chat as the
game ends go on into the chat, a key pressed before the dialog opened or in its first moment does
nothing, leaving the table from the result is asked, and the first game's welcome lets the card keys
play. The real app under Pilot, fed by a scripted link."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Button, Select

from ono99_tui.i18n import current_language, using
from ono99_tui.tui import unbidden
from ono99_tui.tui.app import Ono99App, ReplacedScreen, make_app
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.help import HintScreen
from ono99_tui.tui.inputs import Input
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.seats import ConfirmScreen, UnaskedQuestion
from ono99_tui.tui.settings import Settings
from ono99_tui.tui.settings_screen import SettingsScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.widgets import ButtonRow
from tests.app_state import ScriptedLink
from tests.test_tui import wait_until
from tests.test_typed_app import NAMES, WELCOME, scripted, state
from tests.wire import table_map

FINISHED = {"t": "table", "table": table_map(NAMES, you=0, status="finished", host="Bo", winner=0)}
PLAY_NOW = [{"t": "leave"}, {"t": "play_now", "edition": "2022", "seats": 4}]  # the app's default wish


async def game_over(pilot: Pilot[Any], app: Ono99App, link: ScriptedLink) -> None:
    """The last state of the game has arrived and its game-over dialog is open."""
    await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
    link.inbox.put_nowait(state(1, 1, total=3, turn=None, winner=0, ranking=[0, 1, 2]))
    await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen) and app.screen.is_mounted,
                     "the game-over dialog")


async def test_the_finished_tables_update_keeps_the_game_over_dialog_and_its_table_screen() -> None:
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await game_over(pilot, app, link)
        dialog, table_screen = app.screen, app.screen_stack[-2]
        link.inbox.put_nowait(FINISHED)
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.status == "finished",
                         "the finished table")
        await pilot.pause()
        assert app.screen is dialog and app.screen_stack[-2] is table_screen
        await pilot.press("p")
        assert link.sent[-2:] == PLAY_NOW
        link.inbox.put_nowait({"t": "left", "table": 1})
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


@pytest.mark.parametrize("turns", range(12))
async def test_p_on_the_game_over_dialog_is_not_lost_whenever_the_finished_table_arrives(turns: int) -> None:
    """The table update lands ``turns`` event-loop turns after the key is pressed: at every point the key
    plays now (before the fix, some of these points lost it and left a second dialog open)."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await game_over(pilot, app, link)
        await pilot.pause()
        press = asyncio.create_task(pilot.press("p"))
        for _ in range(turns):
            await asyncio.sleep(0)
        link.inbox.put_nowait(FINISHED)
        await press
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.status == "finished",
                         "the finished table")
        await pilot.pause()
        assert link.sent[-2:] == PLAY_NOW, app.screen_stack
        assert not isinstance(app.screen, GameOverScreen)


LEAVING = ("leave", "play_now", "create_table", "rematch")  # what a key taken by the result dialog sends


def leaving_requests(link: ScriptedLink) -> list[dict[str, Any]]:
    return [m for m in link.sent if m["t"] in LEAVING]


async def test_gg_lol_typed_in_the_chat_as_the_game_ends_goes_to_the_chat_not_to_the_result() -> None:
    """Tried: c, "gg", the game ends (its result opens), " lol" and Enter. Before, the result took
    l (to the lobby, unasked) and Enter; now the whole line is sent to the chat, nothing else, and the
    dialog takes its keys after the line is sent (p plays now)."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        await pilot.press("c", "g", "g")
        await game_over(pilot, app, link)
        dialog = app.screen
        await pilot.press("space", "l", "o", "l", "n", "p", "enter")
        await pilot.pause()
        assert [m for m in link.sent if m["t"] == "chat"] == [{"t": "chat", "text": "gg lolnp", "scope": "table"}]
        assert leaving_requests(link) == [] and app.screen is dialog
        await pilot.press("p")
        assert link.sent[-2:] == PLAY_NOW


async def test_a_key_pressed_before_the_result_opened_is_not_taken_by_it() -> None:
    """Tried: l, n, p and Enter pressed as the last state arrives, reaching the app after its result
    opened (the same batch). None of them leaves, plays now or opens a new game."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        early = [events.Key(key, key if len(key) == 1 else None) for key in ("l", "n", "p", "enter")]
        await game_over(pilot, app, link)
        dialog = app.screen
        for key in early:
            app.post_message(key)
        await pilot.pause()
        await pilot.pause()
        assert leaving_requests(link) == [] and app.screen is dialog


async def test_keys_in_the_results_first_moment_do_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tried: p, n, l and Enter while the result is within its first moment (made an hour here, so that
    no machine is too slow for the test). Nothing is sent and the dialog stays."""
    monkeypatch.setattr(unbidden, "KEY_GUARD_SECONDS", 3600.0)
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await game_over(pilot, app, link)
        dialog = app.screen
        await pilot.press("p", "n", "l", "enter")
        await pilot.pause()
        assert leaving_requests(link) == [] and app.screen is dialog


async def test_leaving_the_table_from_the_result_is_asked() -> None:
    """Tried: l on the result dialog. Before, it left at once; now it asks, and only y leaves."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await game_over(pilot, app, link)
        link.inbox.put_nowait(FINISHED)
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.status == "finished",
                         "the finished table")
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert leaving_requests(link) == []
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the result again")
        assert leaving_requests(link) == []
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: leaving_requests(link) == [{"t": "leave"}], "the leave")


async def test_a_card_key_plays_while_the_first_games_welcome_is_open() -> None:
    """Tried: 2 while the welcome ("Press [1]–[4]") is open on the player's turn. Before, nothing
    happened; now the welcome closes and the second card is played."""
    link = ScriptedLink()
    link.inbox.put_nowait(WELCOME)
    link.inbox.put_nowait({"t": "table", "table": table_map(NAMES, you=0, status="playing", host="Ada")})
    link.inbox.put_nowait(state(0, 0, total=3, turn=0))

    async def open_link() -> ScriptedLink:
        return link

    app = make_app(local=False, name="Ada", open_link=open_link, settings=Settings(hint_seen=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HintScreen) and app.model.my_turn, "the welcome")
        await pilot.press("2")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        assert [m for m in link.sent if m["t"] == "act"] == [{"t": "act", "action": "7", "version": 0}]
        assert app.settings.hint_seen


async def test_the_chat_box_keeps_its_text_under_a_result_until_it_is_sent() -> None:
    """Tried: c, "gg", the game ends, Esc. Esc gives the keys back to the dialog (it stays open, the
    unsent "gg" stays in the box); then n is the dialog's (the new-game dialog opens)."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        table_screen = app.screen
        await pilot.press("c", "g", "g")
        await game_over(pilot, app, link)
        dialog = app.screen
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is dialog and table_screen.query_one("#chat-input", Input).value == "gg"
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, GameOverScreen), "the new-game dialog")


async def test_a_closed_result_stays_closed_when_the_language_changes() -> None:
    """Tried: Esc on the result, then F2 and another language. Before, the table was drawn again in it
    and the result opened again; now the table comes back without it."""
    app, link = scripted(state(0, 0, total=3))
    with using("en"):
        async with app.run_test(size=(100, 30)) as pilot:
            await game_over(pilot, app, link)
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            old_table = app.screen
            await pilot.press("f2")
            await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
            app.screen.query_one("#language", Select).value = "de"
            await wait_until(pilot, lambda: current_language() == "de" and app.screen is not old_table
                             and isinstance(app.screen, TableScreen), "the table again, in German")
            await pilot.pause()
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)


async def test_the_results_buttons_fit_before_its_first_resize(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tried: the German result at 80×24, as its first frame draws it: before any resize reached its
    buttons' row (here, none ever does). Before, the row was laid out in one line and cut its last
    button; now it is in two columns from the start and every button shows whole."""
    monkeypatch.setattr(ButtonRow, "on_resize", lambda self, event: None)
    app, link = scripted(state(0, 0, total=3))
    with using("de"):
        async with app.run_test(size=(80, 24)) as pilot:
            await game_over(pilot, app, link)
            await pilot.pause()
            row = app.screen.query_one(ButtonRow)
            assert row.has_class("-two-columns")
            for button in row.query(Button):
                shown = button.region.intersection(row.region)
                assert shown == button.region and button.region.width > 0, (str(button.label), button.region)


async def test_q_typed_in_the_chat_as_the_connection_is_replaced_does_not_quit() -> None:
    """Tried: c, "oh", then the server says this connection was replaced (the dialog "t: take it
    back, q: quit" opens), then "q t" and Enter. Before, q quit the app; now the line goes to the chat
    box, and only a q pressed after it answers the dialog."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        await pilot.press("c", "o", "h")
        link.inbox.put_nowait({"t": "bye", "reason": "you connected again from elsewhere"})
        link.inbox.put_nowait(None)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplacedScreen), "the replaced dialog")
        await pilot.press("space", "q", "t", "enter")
        await pilot.pause()
        assert app.is_running and app.return_code is None and isinstance(app.screen, ReplacedScreen)
        await pilot.press("q")
        await wait_until(pilot, lambda: app.return_code is not None, "the app to quit")


async def test_a_y_pressed_before_the_offer_to_watch_opened_does_not_answer_it() -> None:
    """Tried: a join by invite code that the server refuses (the game has started); y pressed before
    the offer to watch opened reaches the app after it. Before, it answered yes (watching); now the
    offer stays open, and a y pressed on it watches."""
    link = ScriptedLink()
    link.inbox.put_nowait(WELCOME | {"table": None})

    async def open_link() -> ScriptedLink:
        return link

    app = make_app(local=False, name="Ada", open_link=open_link)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        app.join_by_code("ABCDEF")
        early = events.Key("y", "y")
        link.inbox.put_nowait({"t": "error", "code": "game_running", "reason": "the game has started",
                               "ref": "join", "params": {"why": "started"}})
        await wait_until(pilot, lambda: isinstance(app.screen, UnaskedQuestion) and app.screen.is_mounted,
                         "the offer to watch")
        app.post_message(early)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, UnaskedQuestion) and not [m for m in link.sent if m["t"] == "spectate"]
        await pilot.press("y")
        await wait_until(pilot, lambda: [m for m in link.sent if m["t"] == "spectate"] != [], "watching")


async def test_notices_over_the_result_at_80_by_24_cover_none_of_its_buttons() -> None:
    """Tried: two notices (a two-line one and a short one, as a player's line and a rating come at a
    game's end) shown over the result at 80×24. Before, they stood at the foot of the screen, over its
    "Close" button; now a dialog's notices show at the top, and every button shows whole."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await game_over(pilot, app, link)
        app.notify("Bob: well played, that was a close one to the very last card!", timeout=60)
        app.notify("Your rating is now 1523 (+12)", timeout=60)
        await wait_until(pilot, lambda: len(app.screen.query("Toast")) == 2, "the two notices")
        await pilot.pause()
        toasts = [toast.region for toast in app.screen.query("Toast")]
        assert all(region.area > 0 for region in toasts), toasts
        for button in app.screen.query(Button):
            assert not any(button.region.overlaps(region) for region in toasts), (str(button.label), toasts)
