"""The app reads server messages through its decoder, once, where they arrive: a message it cannot
read is skipped with one notice and the session goes on; the screens show the server's values (the
game-over ranking is the server's ``view.ranking``). The real app under Pilot, fed by a scripted link."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Select, Static, Switch
from textual.widgets._markdown import MarkdownTableContent

from ono99_tui.i18n import using
from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.game_over import GameOverScreen, KnockOutScreen
from ono99_tui.tui.help import HelpScreen
from ono99_tui.tui.host import Rewinds, ScreenHost, TableHost, game_app_of
from ono99_tui.tui.replay import load_replay, make_replay_app
from ono99_tui.tui.seats import SeatMenuScreen
from ono99_tui.tui.settings_screen import SettingsScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from ono99_tui.tui.widgets import KeysFooter
from tests.app_state import ScriptedLink
from tests.test_tui import wait_until
from tests.textual_compat import notification_texts
from tests.wire import table_map, view_map

WELCOME = {"t": "welcome", "version": 2, "server": "ONO 99", "name": "Ada", "resume": "r", "resumed": False,
           "table": 1, "identity": None}
NAMES = ["Ada", "Bo", "Cy"]


def scripted(*messages: dict[str, Any]) -> tuple[Ono99App, ScriptedLink]:
    """An app whose server sends ``messages`` after its welcome and the table of Ada, Bo and Cy."""
    link = ScriptedLink()
    link.inbox.put_nowait(WELCOME)
    link.inbox.put_nowait({"t": "table", "table": table_map(NAMES, you=0, status="playing", host="Ada")})
    for message in messages:
        link.inbox.put_nowait(message)

    async def open_link() -> ScriptedLink:
        return link

    return make_app(local=False, name="Ada", open_link=open_link), link


def state(version: int, seq: int, events: list[dict[str, Any]] | None = None, **view: Any) -> dict[str, Any]:
    return {"t": "state", "table": 1, "game_no": 1, "seq": seq, "events": events or [], "clock": None,
            "controlled_by_bot": [False, False, False],
            "view": view_map(3, **{"version": version, "hand": ["4", "7"], "legal": ["4", "7"],
                                   "hand_sizes": [2, 3, 3], **view})}


async def test_a_malformed_server_message_is_skipped_with_one_notice_and_the_next_one_is_shown() -> None:
    bad = state(1, 1, total=12)
    bad["view"]["hand"] = 5  # a number where the cards should be
    app, link = scripted(state(0, 0, total=3), bad, state(2, 2, total=21))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None and app.model.view.version == 2, "the good state")
        await pilot.pause()
        cannot_read = [n for n in notification_texts(app) if "cannot read" in n]
        assert cannot_read == ["The server sent a message this version cannot read: the server's state.view.hand "
                               "must be a list, not int"]
        assert isinstance(app.screen, TableScreen) and app.return_code is None
        assert app.model.view is not None and app.model.view.total == 21 and app.model.view.hand == ("4", "7")
        assert app.screen.query_one(TableTop).shown_total == 21
        link.inbox.put_nowait({"t": "notice", "table": 1, "text": "still here"})  # the session goes on
        await wait_until(pilot, lambda: "still here" in notification_texts(app), "the next message")


async def test_a_message_of_a_type_this_version_does_not_know_is_ignored() -> None:
    app, _link = scripted({"t": "fireworks", "colour": "red"}, state(0, 0, total=9))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None, "the state")
        await pilot.pause()
        assert not [n for n in notification_texts(app) if "cannot read" in n]
        assert app.model.view is not None and app.model.view.total == 9


async def test_the_game_over_dialog_ranks_the_seats_as_the_server_says() -> None:
    """The server's ranking is neither the seat order nor the order the seats went out in (Cy went out
    last, yet ranks behind Ada here): the dialog shows it as sent."""
    over = state(5, 3, events=[{"e": "out", "seat": 0}, {"e": "out", "seat": 2}, {"e": "game_over", "winner": 1}],
                 total=95, turn=None, winner=1, ranking=[1, 0, 2], active=[False, True, False], hand=[],
                 legal=[])
    over["view"]["hand_sizes"] = [0, 3, 0]
    app, _link = scripted(state(0, 0, total=80), over)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        await pilot.pause()
        ranking = str(app.screen.query_one("#ranking", Static).render())
        assert ranking.splitlines()[:3] == ["1. Bo", "2. Ada (you)", "3. Cy"]
        assert app.model.ranking() == [1, 0, 2]


def test_the_game_app_is_its_screens_host_and_the_replay_app_a_table_host_only() -> None:
    """What the screens take the app for (tui/host.py), checked where it is decided at run time: the
    table screen holds bots, shows the first-run hint and fast-forwards only in the game app."""
    app = make_app(local=False, name="Ada")
    assert isinstance(app, ScreenHost) and not isinstance(app, Rewinds)
    record = Path(__file__).parent / "data" / "sample_2022.jsonl"
    replay = make_replay_app(load_replay(record), record)
    assert not isinstance(replay, ScreenHost) and isinstance(replay, Rewinds)
    table_host: TableHost = replay
    assert table_host.local and table_host.model.replay


async def test_the_table_screen_finds_the_game_app_it_runs_in() -> None:
    app, _link = scripted()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        assert game_app_of(app.screen) is app


async def test_the_knock_out_summary_lists_the_cards_held_after_the_last_play() -> None:
    """Tried: Ada holds 9, 0, 5 at 96; one state brings her 0 (97), her draw of a 9, Bo's 2 (99) and
    her out. Before, the summary listed the hand of the state before (9, 0, 5: a 0 is playable at 97,
    it read as cheating); now it lists 9, 5, 9, the cards she was out with."""
    out = [{"e": "play", "seat": 0, "cards": ["0"], "total": 97}, {"e": "draw", "seat": 0, "card": "9"},
           {"e": "play", "seat": 1, "cards": ["2"], "total": 99}, {"e": "out", "seat": 0}]
    app, link = scripted(state(0, 0, total=96, hand=["9", "0", "5"], legal=["0"]))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None, "the first state")
        link.inbox.put_nowait(state(1, 4, out, total=99, turn=2, hand=[], legal=[], active=[False, True, True]))
        await wait_until(pilot, lambda: isinstance(app.screen, KnockOutScreen), "the knock-out summary")
        assert isinstance(app.screen, KnockOutScreen) and app.screen.knockout.cards == ["9", "5", "9"]
        assert "You held: 9, 5, 9." in str(app.screen.query_one("#ranking", Static).render())


async def test_a_bots_move_in_your_seat_is_not_logged_as_yours() -> None:
    """Tried: Ada is away and a bot plays her 7 (the state says her seat is bot-controlled). Before,
    her log said "You played 7"; now it says a bot played it for her. Her own play afterwards is hers."""
    stand_in = state(1, 1, [{"e": "play", "seat": 0, "cards": ["7"], "total": 10}], total=10, turn=1)
    stand_in["controlled_by_bot"] = [True, False, False]
    own = state(2, 2, [{"e": "play", "seat": 0, "cards": ["4"], "total": 14}], total=14, turn=1)
    app, _link = scripted(state(0, 0, total=3), stand_in, own)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.model.view is not None and app.model.view.version == 2, "the states")
        assert list(app.model.log)[-2:] == ["A bot played 7 for you — total 10", "You played 4 — total 14"]


async def test_a_move_made_because_your_clock_ran_out_is_said_to_you_as_the_bots() -> None:
    """Tried: Ada's turn clock runs out; the server's notice names her and the state then brings the 7
    the stand-in played (her seat is not bot-controlled after that one move). Before, her log said
    "Ada's clock ran out: ... for them" and then "You played 7"; now it speaks to her and says a bot
    played it. Her own play afterwards is hers, and Bo's clock running out is Bo's."""
    params = {"name": "Ada", "bot": "greedy", "card": "7", "edition": "2022"}
    notice = {"t": "notice", "table": 1, "text": "Ada's clock ran out: the greedy bot played 7 for them",
              "code": "clock_ran_out", "params": params}
    stand_in = state(1, 1, [{"e": "play", "seat": 0, "cards": ["7"], "total": 10}], total=10, turn=1)
    own = state(2, 2, [{"e": "play", "seat": 0, "cards": ["4"], "total": 14}], total=14, turn=1)
    bos = {**notice, "text": "Bo's clock ran out: the greedy bot played 2 for them",
           "params": {**params, "name": "Bo", "card": "2"}}
    app, _link = scripted(state(0, 0, total=3), notice, stand_in, own, bos)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: len(app.model.log) >= 4 and "Bo" in app.model.log[-1], "the moves")
        assert list(app.model.log)[-4:] == [
            "Your clock ran out: the greedy bot played 7 for you", "A bot played 7 for you — total 10",
            "You played 4 — total 14", "Bo's clock ran out: the greedy bot played 2 for them"]


async def test_a_table_handed_to_another_host_is_no_longer_your_table() -> None:
    """Tried: Ada's table ("Ada's table", hosted by her) passes to Bo. Before, her title still said
    "Your table"; now it names the table as everyone else reads it."""
    named = {"name_code": "hosts_table", "name_params": {"host": "Ada"}, "name": "Ada's table"}
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        link.inbox.put_nowait({"t": "table", "table": table_map(NAMES, you=0, status="playing", host="Ada", **named)})
        await wait_until(pilot, lambda: "Your table" in str(app.screen.query_one("#title", Static).render()),
                         "Ada's own table")
        link.inbox.put_nowait({"t": "table", "table": table_map(NAMES, you=0, status="playing", host="Bo", **named)})
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.host == "Bo", "Bo hosting")
        await pilot.pause()
        title = str(app.screen.query_one("#title", Static).render())
        assert "Your table" not in title and "Ada's table" in title


async def test_the_seat_menus_first_enter_takes_its_first_choice() -> None:
    """Tried: m, then Enter at once. Before, nothing had focus and the first Enter did nothing; now it
    takes the first choice the menu offers."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, SeatMenuScreen), "the seat menu")
        menu = app.screen
        assert isinstance(menu, SeatMenuScreen) and menu.choices
        first = menu.choices[0][1].to_wire()
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, SeatMenuScreen), "the menu to close")
        await wait_until(pilot, lambda: bool(link.sent) and link.sent[-1] == first, "the first choice")


async def test_a_key_that_does_nothing_at_the_table_says_why() -> None:
    """Tried: x, z, 5 and 3 while holding two cards. Before, nothing showed; now the line under the
    cards says what the key is not (and that ? lists the keys)."""
    app, link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        said = []
        for key in ("x", "z", "5", "3"):
            await pilot.press(key)
            await pilot.pause()
            said.append(str(app.screen.query_one("#why", Static).render()))
        assert said == ["x does nothing here: ? lists the keys.", "z does nothing here: ? lists the keys.",
                        "There is no card 5: your cards are 1–2.", "There is no card 3: your cards are 1–2."]
        assert not [m for m in link.sent if m["t"] == "act"]


async def test_the_footer_says_how_to_send_a_chat_line_and_go_back_at_80_columns() -> None:
    """Tried: c at an 80×24 table. Before, the footer went on listing the table's letters (which the
    chat box takes); now it says Enter sends and Esc goes back to the cards, and once back, the table's
    keys return."""
    app, _link = scripted(state(0, 0, total=3))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "the table")
        footer = app.screen.query_one(KeysFooter)
        await pilot.press("c")
        await wait_until(pilot, lambda: "Send" in footer.render().plain, "the chat's keys")
        assert footer.render().plain.split() == ["⏎", "Send", "esc", "Back", "to", "the", "cards"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: "Lobby" in footer.render().plain, "the table's keys")
        assert "Send" not in footer.render().plain and "Back" not in footer.render().plain


async def test_high_contrast_settings_show_an_off_switch_and_the_themes_name_on_one_line() -> None:
    """Tried: the high-contrast theme, F2 at 80×24 in German, the bell switched off. Before, the off
    switch's slider was black on black and "hoher Kontrast (ohne Farbe)" wrapped in its list; now the
    slider differs from its ground and the theme's name fits its line."""
    app, _link = scripted(state(0, 0, total=3))
    app.settings.theme = "ono99-mono"
    with using("de"):
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await pilot.press("f2")
            await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
            await pilot.pause()
            bell = app.screen.query_one("#bell", Switch)
            bell.value = False
            await pilot.pause()
            slider = bell.get_component_rich_style("switch--slider")
            assert slider.color != slider.bgcolor, slider
            theme = app.screen.query_one("#theme", Select)
            assert theme.size.height == 3, theme.size  # one line between its borders
            assert "hoher Kontrast (ohne Farbe)" in "".join(
                "".join(s.text for s in line) for line in app.screen._compositor.render_strips())


@pytest.mark.parametrize("language", ["en", "de", "vi", "ne"])
async def test_the_helps_tables_keep_card_names_whole_and_points_rows_short_at_80_columns(language: str) -> None:
    """Tried: ? at 80×24. Before, a card's name broke over two lines ("Spiele / 2", "Chơi / 2") and a
    row of the 1980 points table took six; now the tables' first columns keep their names whole and no
    row of any table takes more than four lines."""
    app, _link = scripted(state(0, 0, total=3))
    with using(language):
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen)
                             and len(app.screen.query(MarkdownTableContent)) >= 4, "the help's tables")
            await pilot.pause()
            await pilot.pause()
            for table in app.screen.query(MarkdownTableContent):
                heights = {}
                for cell in table.children:
                    if cell.name and cell.name.startswith("cell"):
                        row, column = cell.name.removeprefix("cell").split(".")
                        heights[row, column] = cell.size.height
                        name = table.rows[int(row) - 1][0].plain
                        if len(table.headers) == 3 and column == "1":  # the name and its padding on a line
                            assert cell.size.width >= cell_len(name) + 2, (name, cell.size)
                assert max(heights.values()) <= 4, (table.headers[0].plain, heights)
