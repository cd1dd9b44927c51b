"""What a newcomer meets in the local game, the replay and the table screen: a game-over dialog after
every game, sentences said to the reader, a fresh status at each game, a knock-out summary, bots that
wait for a dialog and for an open draw, the new-game dialog, the narrow screen, keys that say why they
did nothing, settings kept between runs and the first-run hint."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Button, RichLog, Select, Static, Switch

from ono99_kernel.wire.requests import CreateTable, Join, Say, Start
from ono99_kernel.wire.server import (
    GameOverEvent,
    HandEndedEvent,
    HandStartedEvent,
    MissedDrawEvent,
    OutEvent,
    PlayEvent,
    decode_server_message,
)
from ono99_server import Server, ServerConfig
from ono99_tui.client.connection import Client
from ono99_tui.client.model import Model
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.game_over import GameOverScreen, KnockOutScreen
from ono99_tui.tui.help import HelpScreen, HintScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.replay import load_replay, make_replay_app
from ono99_tui.tui.settings import CONFIG_DIR_ENV, Settings, config_dir
from ono99_tui.tui.settings_screen import SettingsScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop, seat_details
from ono99_tui.tui.widgets import KeysFooter
from tests import wire
from tests.app_state import ScriptedLink, local_server, parent_of, table_of, view_of
from tests.server_helpers import running_game
from tests.test_tui import DATA, play_my_turn, play_to_the_end, wait_until
from tests.textual_compat import notification_texts
from tests.wire import table_message

SAMPLE = DATA / "sample_2022.jsonl"
FORBIDDEN = ("You's", "You wins", "You plays", "You is", "You has", "You lost a", "You cannot play and is")


def screen_text(app: Any) -> str:
    """Every Static's text on the screens of the stack, as a player would read them."""
    parts = []
    for screen in app.screen_stack:
        for widget in screen.query(Static):
            parts.append(str(widget.render()))
        for log in screen.query(RichLog):
            parts.extend(strip.text for strip in log.lines)
    return "\n".join(parts)


def scripted_app(seat: int, **kwargs: Any) -> tuple[Ono99App, ScriptedLink, dict[str, Any]]:
    """An app seated at ``seat`` of the sample record's table, the messages fed by the test."""
    data = load_replay(SAMPLE)
    table = dict(data["table"], status="playing", host="Nobody")
    name = table["seats"][seat]["name"]
    table["seats"] = [dict(s, kind="human") if i == seat else s for i, s in enumerate(table["seats"])]
    link = ScriptedLink()
    link.inbox.put_nowait({"t": "welcome", "version": 2, "server": "ONO 99", "name": name, "resume": "r",
                           "resumed": False, "table": 0, "identity": None})
    link.inbox.put_nowait({"t": "table", "table": table})

    async def open_link() -> ScriptedLink:
        return link

    app = make_app(local=kwargs.pop("local", True), name=name, open_link=open_link, **kwargs)
    return app, link, {"table": table, "states": data["seat_states"][seat]}


async def feed(pilot: Pilot[Any], app: Ono99App, link: ScriptedLink, states: list[dict[str, Any]]) -> None:
    for state in states:
        link.inbox.put_nowait(state)
    end_version = states[-1]["view"]["version"]
    await wait_until(pilot, lambda: app.model.view is not None and app.model.view.version == end_version,
                     "the states to arrive")
    await pilot.pause()


# --- 1: a game-over dialog after every game ------------------------------------------------------------
async def test_a_new_game_started_with_n_and_enter_ends_in_a_game_over_dialog_that_offers_the_next_step() -> None:
    """n, then Enter at once, starts a new local table; its game (game 1 again) still ends in the
    dialog, and its Play again starts the next game, which ends in the dialog too."""
    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "a game")
        first_table = table_of(app).id
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the first game's dialog")
        await pilot.press("escape")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the new-game dialog")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.id != first_table
                         and app.model.view is not None, "the new table's game")
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the new table's dialog")
        labels = [str(b.label) for b in app.screen.query(Button)]
        assert labels[:2] == ["Play again (r)", "New game (n)"]
        await pilot.press("r")
        await wait_until(pilot, lambda: app.model.game_no == 2 and app.model.view is not None
                         and app.model.view.winner is None, "the next game")
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the second game's dialog")


# --- 3: sentences about the reader are said to them -------------------------------------------------------
async def test_the_readers_own_moves_are_said_to_them_in_every_line() -> None:
    """A whole game watched from the seat that goes out first (and from the winner's): the log,
    the banner, the dialogs never say "You's", "You wins", "You plays"."""
    for seat in (3, 2):
        await watch_a_whole_game(seat)


async def watch_a_whole_game(seat: int) -> None:
    app, link, data = scripted_app(seat)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        for state in data["states"]:
            await feed(pilot, app, link, [state])
            text = screen_text(app)
            assert not any(bad in text for bad in FORBIDDEN), text
            if isinstance(app.screen, KnockOutScreen):
                await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the dialog")
        said = "\n".join(app.model.log)
        assert not any(bad in said for bad in FORBIDDEN)
        if seat == 2:  # the sample's winner
            assert "You win the game!" in said
            assert str(app.screen.query_one("#winner").render()) == "You win!"
        else:
            assert "You cannot play and are out" in said


def test_lines_about_the_reader_use_you_and_lines_about_others_use_their_name() -> None:
    model = Model(my_name="Ada")
    model.apply(table_message(["Ada", "Bo"]))
    model.view = wire.view(2, seat=0)
    assert model.describe(hand_started(hand=0, first=0)) == "You play first"
    assert model.describe(hand_started(hand=0, first=1)) == "Bo plays first"
    assert model.describe(OutEvent(seat=0)) == "You cannot play and are out"
    assert model.describe(GameOverEvent(winner=0)) == "You win the game!"
    assert model.describe(GameOverEvent(winner=1)) == "Bo wins the game!"
    assert model.describe(MissedDrawEvent(seat=0)) == "You missed your draw and play one card short"


def hand_started(hand: int, first: int) -> HandStartedEvent:
    return HandStartedEvent(hand=hand, dealer=0, first=first, hand_sizes=(4, 4, 4), hands=(None, None, None),
                            draw_pile_size=90)


# --- 4: no stale "last" line ------------------------------------------------------------------------------
def test_a_new_game_or_hand_starts_without_the_last_games_plays() -> None:
    model = Model(my_name="Ada")
    model.apply(table_message(["Ada", "Bo"]))
    data = load_replay(SAMPLE)
    for state in data["states"]:
        model.apply(decode_server_message(state))
    assert model.recent_plays and model.last_play is not None
    fresh = dict(data["states"][0], game_no=2)
    model.apply(decode_server_message(fresh))
    assert model.last_play is None and not model.recent_plays
    model.apply(table_message(["Ada", "Bo"], table_id=2))
    model.apply(decode_server_message(data["states"][0]))
    assert model.last_play is None and not model.recent_plays and model.game_no == 1


async def test_the_status_shows_no_play_before_the_first_one() -> None:
    app = make_replay_app(load_replay(SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        top = app.screen.query_one(TableTop)
        assert top.scene is not None and top.scene.plays == () and "→ " not in top.text().splitlines()[2]
        await pilot.press("end", "escape", "home")
        await pilot.pause()
        assert top.scene.plays == () and "→ " not in top.text().splitlines()[2]


# --- 5: a knock-out summary, and a fast-forward offer --------------------------------------------------------
async def test_being_knocked_out_shows_a_summary_with_the_total_and_cards_and_offers_a_fast_forward() -> None:
    app, link, data = scripted_app(3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        out_step = next(i for i, s in enumerate(data["states"]) if {"e": "out", "seat": 3} in s["events"])
        held = data["states"][out_step - 1]["view"]["hand"]
        await feed(pilot, app, link, data["states"][:out_step + 1])
        await wait_until(pilot, lambda: isinstance(app.screen, KnockOutScreen), "the knock-out summary")
        text = str(app.screen.query_one("#ranking", Static).render())
        total = next(e["total"] for s in reversed(data["states"][:out_step + 1]) for e in reversed(s["events"])
                     if e["e"] == "play")
        assert f"At a total of {total}" in text
        assert isinstance(app.screen, KnockOutScreen) and app.screen.knockout.cards == held
        assert "Fast-forward (f)" in [str(b.label) for b in app.screen.query(Button)]
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert "Fast-forward" in str(app.screen.query_one("#why", Static).render())


# --- 6: bots wait for an open draw and for a dialog ----------------------------------------------------------
async def test_a_local_bot_waits_the_draw_window_while_the_persons_manual_draw_is_open() -> None:
    """At a manual_draw table the bot after a person is scheduled no sooner than the draw window
    while that person's draw is open, and at the usual delay once it is taken (read from the
    table's timer, not from a clock)."""
    app = make_app(bot_delay=0.5, draw_window=30, local_game=open_local_game)
    app.first_table = CreateTable(edition="2022", options={"manual_draw": True}, seats=2, bots=1, bot_level="greedy",
                                  turn_seconds=0, start=True, name="Draw test")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None, "the game")
        table = next(iter(local_server(app).lobby.tables.values()))
        loop = asyncio.get_running_loop()
        while True:
            await wait_until(pilot, lambda: app.model.my_turn or view_of(app).winner is not None, "my turn")
            if view_of(app).winner is not None:
                raise AssertionError("the game ended before a draw was left open")
            before, played_at = view_of(app).version, loop.time()
            await play_my_turn(pilot, app)
            await wait_until(pilot, lambda b=before: view_of(app).version != b, "my play")
            if app.model.can_draw:
                break
        timer = table.runner.timer
        assert timer is not None and timer.when() >= played_at + 30  # set at the play or after
        await pilot.press("d")
        await wait_until(pilot, lambda: not app.model.can_draw, "my draw")
        assert table.runner.timer is None or table.runner.timer.when() - loop.time() < 1


async def test_a_local_game_holds_its_bots_while_a_dialog_is_open() -> None:
    app = make_app(bot_delay=0.05, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None, "the game")
        table = next(iter(local_server(app).lobby.tables.values()))
        for key, dialog in (("question_mark", HelpScreen), ("f2", SettingsScreen), ("n", NewGameScreen)):
            await pilot.press(key)
            await wait_until(pilot, lambda d=dialog: isinstance(app.screen, d), "the dialog")
            await wait_until(pilot, lambda: table.paused and table.runner.timer is None, "the bots to wait")
            version = running_game(table).version
            await pilot.pause(0.3)
            assert running_game(table).version == version
            await pilot.press("escape")
            await wait_until(pilot, lambda: not table.paused, "the bots to play on")
        await wait_until(pilot, lambda: running_game(table).version > version or app.model.my_turn, "the game to go on")


# --- 7: replay ------------------------------------------------------------------------------------------------
async def test_replay_follows_one_seat_and_home_and_steps_rewrite_the_log_exactly() -> None:
    data = load_replay(SAMPLE)
    app = make_replay_app(data)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the final dialog")
        labels = [str(b.label) for b in app.screen.query(Button)]
        assert not any("Rematch" in label or "Play again" in label for label in labels)
        await pilot.press("escape")
        log = app.screen.query_one("#log", RichLog)
        at_end = [strip.text for strip in log.lines]
        await pilot.press("left", "right")
        await pilot.pause()
        assert [strip.text for strip in log.lines] == at_end  # nothing written twice
        await pilot.press("home")
        await pilot.pause()
        assert not any("wins the game" in strip.text for strip in log.lines)
        title = str(app.screen.query_one("#title", Static).render())
        assert "record 1 of 1" in title
        seat_before = view_of(app).seat
        assert seat_before is not None
        for _ in range(8):
            await pilot.press("right")
            assert view_of(app).seat == seat_before
            assert "(you)" not in app.screen.query_one(TableTop).text()
            assert "Your turn" not in str(app.screen.query_one("#banner", Static).render())
        await pilot.press("tab")
        assert view_of(app).seat == (seat_before + 1) % 4
        assert "following Bot 2's cards" in str(app.screen.query_one("#why", Static).render())


# --- 8: the new-game dialog -------------------------------------------------------------------------------
async def test_the_new_game_dialog_starts_on_enter_with_what_it_shows_and_remembers_it() -> None:
    settings = Settings(hint_seen=True)
    app = make_app(bot_delay=5, settings=settings, local_game=open_local_game)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the dialog")
        dialog = app.screen
        assert not dialog.query("#bots")  # a local game is you and bots: the Players choice says it all
        assert not parent_of(dialog.query_one("#bust_over_99")).display  # 1980 options hidden for 2022
        start = dialog.query_one("#start", Button)
        assert start.region.bottom <= 40 and start.region.height > 0  # visible without scrolling
        footer = dialog.query_one(KeysFooter).render().plain
        assert "Cancel" in footer and "Lobby" not in footer
        dialog.query_one("#seats", Select).value = 3
        dialog.query_one("#edition", Select).value = "1980"
        await pilot.pause()
        assert parent_of(dialog.query_one("#bust_over_99")).display
        assert app.focused is dialog.query_one("#edition")  # Enter starts from the first choice on
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.model.view is not None and app.model.view.edition == "1980",
                         "the game shown in the dialog")
        seats = table_of(app).seats
        assert len(seats) == 3 and sum(s.kind == "bot" for s in seats) == 2
        saved = json.loads((config_dir() / "settings.json").read_text())
        assert saved["new_game"]["edition"] == "1980" and saved["new_game"]["seats"] == 3
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the dialog again")
        assert app.screen.query_one("#edition", Select).value == "1980"
        assert app.screen.query_one("#seats", Select).value == 3


async def test_the_new_game_dialog_names_options_by_their_labels_at_80_columns() -> None:
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the dialog")
        dialog = app.screen
        start = dialog.query_one("#start", Button)
        assert 0 < start.region.bottom <= 24
        dialog.query_one("#edition", Select).value = "1980"
        dialog.query_one("#ono99_on_zero", Switch).value = True
        dialog.query_one("#ono99_sets_99", Switch).value = True
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause(0.2)
        problem = str(dialog.query_one("#problem", Static).render())
        assert "O'NO 99" in problem and "ono99_on_zero" not in problem and "ono99_sets_99" not in problem
        label = parent_of(dialog.query_one("#manual_draw")).query_one(".switch-label")
        assert label.region.height >= 2  # the long label wraps instead of being cut


# --- 9: a narrow screen --------------------------------------------------------------------------------------
async def test_at_80_columns_chat_shows_in_the_log_and_c_opens_a_visible_chat() -> None:
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=5, default_turn_seconds=0))
    await server.start()
    bo = await Client.connect("127.0.0.1", server.port, "Bo")
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        await bo.send(CreateTable(seats=8, bots=0, turn_seconds=0, name="Wide", edition="2022",
                                  options={"eight_players": True}))
        table = (await bo.expect("table"))["table"]["id"]
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.model.tables), "the lobby")
            app.send_message(Join(table=table))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await bo.send(Start())
            await wait_until(pilot, lambda: app.model.view is not None, "the game")
            await bo.send(Say(text="hello [b]Ada[/b]", scope="table"))
            await wait_until(pilot, lambda: any("hello [b]Ada[/b]" in s.text
                                                for s in app.screen.query_one("#log", RichLog).lines),
                             "the chat line in the log")
            assert app.screen.query_one("#log", RichLog).show_horizontal_scrollbar is False
            top = app.screen.query_one(TableTop)
            assert top.cut == [], top.text()  # every seat shown whole
            await pilot.press("c")
            await pilot.pause()
            chat_input = app.screen.query_one("#chat-input")
            assert app.focused is chat_input and chat_input.region.width > 0
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen.query_one("#log").region.width > 0
    finally:
        await bo.close()
        await server.close()


# --- 10: words -----------------------------------------------------------------------------------------------
def test_counts_take_singular_and_plural_and_cards_their_names() -> None:
    model = Model(my_name="Ada")
    model.apply(table_message(["Ada", "Bo", "Cy"]))
    model.view = wire.view(3, edition="1980", options={"scoring": "tokens"}, tokens=[1, 0, 2])
    assert model.describe(PlayEvent(seat=1, cards=("DOUBLE",), total=30)) == "Bo played Double Play — total 30"
    assert model.describe(hand_started(hand=2, first=1)) == "Hand 3: Bo plays first"
    before = model.view
    end = HandEndedEvent(hand=2, loser=1, tokens=(1, 0, 2), scores=None, hand_points=None, eliminated=(1,))
    line = model.describe(end, before)
    assert "Bo had no token left and is out of the match" in line and "lost a token" not in line
    model.view = wire.view(3)
    assert model.describe(hand_started(hand=0, first=1)) == "Bo plays first"


async def test_the_screen_says_1_token_and_1_free_seat() -> None:
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=5, default_turn_seconds=0))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(seats=2, bots=0, turn_seconds=0, name="Two"))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await pilot.pause(0.2)
            banner = str(app.screen.query_one("#banner", Static).render())
            assert "(1 free seat)" in banner
            assert "Start" in app.screen.query_one(KeysFooter).render().plain
        model = Model(my_name="Ada")
        model.apply(table_message(["Ada", "Bo"]))
        model.view = wire.view(2, edition="1980", options={"scoring": "tokens"}, tokens=[1, 2], hand_sizes=[1, 3])
        assert seat_details(model, model.view, 0, []) == ["1 card", "1 token"]
    finally:
        await server.close()


# --- 11: keys that did nothing say why --------------------------------------------------------------------------
async def test_f_without_four_ono99_cards_says_why() -> None:
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None, "the game")
        await pilot.press("f")
        assert "four ONO 99 cards" in str(app.screen.query_one("#why", Static).render())


async def test_join_and_watch_in_an_empty_lobby_and_start_during_a_game_say_why() -> None:
    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=5, default_turn_seconds=0))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            for key in ("j", "s"):
                await pilot.press(key)
                await wait_until(pilot, lambda: any("no table to" in n for n in notification_texts(app)),
                                 "the reason")
                app.clear_notifications()
            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=0, start=True))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                             "the game")
            assert "Start" not in app.screen.query_one(KeysFooter).render().plain
            await pilot.press("s")
            assert "already running" in str(app.screen.query_one("#why", Static).render())
    finally:
        await server.close()


# --- the first minute -------------------------------------------------------------------------------------------
async def test_the_first_screen_names_the_game_labels_the_total_and_marks_card_keys() -> None:
    app = make_app(bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None and app.model.my_turn, "my first turn")
        await pilot.pause()
        assert str(app.screen.query_one("#title", Static).render()).startswith("ONO 99")
        top = app.screen.query_one(TableTop)
        await wait_until(pilot, lambda: not top.moving, "the last move shown to its end")
        label = top.text()
        total = view_of(app).total
        assert "TOTAL" in label and "limit 98" in label and f"{98 - total} to go" in label
        assert "[1]" in str(app.screen.query("CardWidget").first().render()).splitlines()[0]
        assert app._terminal_title == "ONO 99 — your turn"


async def test_the_card_just_drawn_is_marked_new() -> None:
    app, link, data = scripted_app(0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        step = next(i for i, s in enumerate(data["states"])
                    if any(e["e"] == "draw" and e["seat"] == 0 for e in s["events"]))
        await feed(pilot, app, link, data["states"][:step + 1])
        drawn = next(e["card"] for e in data["states"][step]["events"] if e["e"] == "draw" and e["seat"] == 0)
        index = view_of(app).hand.index(drawn)
        cards = list(app.screen.query("CardWidget"))
        assert "NEW" in str(cards[index].render())
        assert sum("NEW" in str(c.render()) for c in cards) == 1


async def test_settings_are_kept_in_the_config_directory_and_the_first_run_hint_shows_once(tmp_path: Path,
                                                                                          monkeypatch: Any) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path))
    app = make_app(bot_delay=5, settings=Settings.load(), local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HintScreen), "the first-run hint")
        assert "98 or below" in shown_words(app.screen.query(Static).last())
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
        app.screen.query_one("#theme", Select).value = "ono99-mono"
        app.screen.query_one("#bell", Switch).value = False
        await pilot.pause()
    saved = Settings.load(tmp_path / "settings.json")
    assert saved.hint_seen and saved.theme == "ono99-mono" and saved.bell is False
    again = make_app(bot_delay=5, settings=Settings.load(), local_game=open_local_game)
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, TableScreen), "the table")
        await pilot.pause(0.2)
        assert isinstance(again.screen, TableScreen) and again.theme == "ono99-mono" and not again.bell_on_turn


def test_text_helpers_choose_singular_for_one_only() -> None:
    from ono99_tui import text

    assert [text.tokens(n) for n in (0, 1, 2)] == ["0 tokens", "1 token", "2 tokens"]
    assert text.free_seats(1) == "1 free seat" and text.records(1) == "1 record"
    assert isinstance(Text(text.cards(1)), Text)


async def test_the_turn_clock_of_a_server_table_stays_visible_over_the_help() -> None:
    from ono99_tui.tui.widgets import ClockBar

    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=5, default_turn_seconds=0))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=60, start=True))
            await wait_until(pilot, lambda: app.model.view is not None and app.model.clock is not None,
                             "a turn with the clock running")
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            await pilot.pause()
            bar = app.screen.query_one(ClockBar)
            assert bar.display and "clock" in str(bar.render()) and bar.region.height == 1
    finally:
        await server.close()


def test_a_1980_hand_lost_gives_one_summary_of_that_hand_and_the_match_end_its_own() -> None:
    """In a 1980 points match, dropping out of a hand is summed up once, for the hand it happened in,
    even when the same update ends that hand and deals the next; being out of the match is its own."""
    data = load_replay(DATA / "sample_1980_points.jsonl")
    for seat, expected in ((1, [(0, False), (1, True)]), (2, [(0, False)])):
        model = Model(my_name="x")
        model.apply(decode_server_message({"t": "table", "table": data["table"]}))
        seen = []
        for state in data["seat_states"][seat]:
            model.apply(decode_server_message(state))
            if model.knockout is not None:
                seen.append((model.knockout.hand, model.knockout.final))
                model.knockout = None
        assert seen == expected


async def test_at_80_columns_the_invite_placeholder_and_the_leaderboard_title_are_whole() -> None:
    from textual.widgets import Input, Label

    server = Server(ServerConfig(host="127.0.0.1", port=0, bot_delay=5, default_turn_seconds=0))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("i")
            await wait_until(pilot, lambda: bool(app.screen.query("#code")), "the invite dialog")
            await pilot.pause()
            code = app.screen.query_one("#code", Input)
            assert code.content_region.width >= len(code.placeholder)
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
            await pilot.press("b")
            await wait_until(pilot, lambda: bool(app.screen.query("#leaders-title")), "the leaderboard")
            await pilot.pause(0.3)
            title = app.screen.query_one("#leaders-title", Label)
            shown = str(title.render())
            assert shown.startswith("Leaderboard") and title.content_region.width >= len(shown)
            footer = app.screen.query_one(KeysFooter).render().plain
            assert "2022" in footer and "1980" in footer  # the edition keys are in the footer, not the title
    finally:
        await server.close()


async def test_a_knockout_summary_replaced_as_it_opens_draws_nothing() -> None:
    """The game ends the moment you are knocked out: the summary is put up and replaced at once."""
    from ono99_tui.client.model import KnockOut

    app = make_app(local=True, name="Ada", bot_delay=5, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the table")
        app.push_screen(KnockOutScreen(KnockOut(final=True, total=97, cards=["9"], hand=None)))
        app.pop_screen()
        await pilot.pause(0.2)
        assert app.return_code is None and isinstance(app.screen, TableScreen)


async def test_a_cant_play_note_from_the_last_turn_is_gone_when_the_next_turn_is_yours() -> None:
    """Tried: a card's key pressed while another seat is on turn. The note says whose turn it is; once
    the turn comes round to the reader it no longer shows (it would say the turn is someone else's)."""
    app, link, data = scripted_app(0)
    states = data["states"]
    waiting = next(i for i, s in enumerate(states)
                   if s["view"]["turn"] != 0 and s["view"]["winner"] is None and s["view"]["hand"])
    mine = next(i for i in range(waiting + 1, len(states)) if states[i]["view"]["turn"] == 0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await feed(pilot, app, link, states[:waiting + 1])
        await pilot.press("1")
        await wait_until(pilot, lambda: "turn" in str(app.screen.query_one("#why", Static).render()), "the note")
        await feed(pilot, app, link, states[waiting + 1:mine + 1])
        assert app.model.my_turn
        assert str(app.screen.query_one("#why", Static).render()) == ""


def shown_words(static: Static) -> str:
    """What a Static shows, drawn at its width, as words with single spaces (wrapping aside)."""
    from rich.console import Console

    console = Console(width=max(static.content_size.width, 20), record=True, color_system=None)
    console.print(static.content)
    return " ".join(console.export_text().split())


def test_the_welcomes_numbered_points_wrap_under_their_text_in_every_language() -> None:
    """Tried: the welcome's three points drawn 40 cells wide in each language. Found: each language's
    points are numbered (three of them), some wrap, and every line that does not start a point starts
    under the point's text (a hanging indent), never under its number."""
    from rich.console import Console

    from ono99_tui.i18n import LANGUAGES, using
    from ono99_tui.tui.help import NUMBERED, numbered

    for language in LANGUAGES:
        with using(language):
            text = HintScreen.welcome_text(watching=False)
        points = [NUMBERED.fullmatch(line) for line in text.split("\n")]
        firsts = [point for point in points if point is not None]
        assert len(firsts) == 3, (language, text)
        console = Console(width=40, record=True, color_system=None)
        console.print(numbered(text))
        lines = console.export_text().split("\n")[:8]
        under = [line for line in lines[1:] if line.strip() and not NUMBERED.match(line)][:2]
        assert under, (language, lines)  # some point wraps at 40 cells
        indent = len(firsts[0].group(1)) + 1
        assert all(line[:indent] == " " * indent and line[indent] != " " for line in under), (language, lines)
