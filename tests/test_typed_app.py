"""The app reads server messages through its decoder, once, where they arrive: a message it cannot
read is skipped with one notice and the session goes on; the screens show the server's values (the
game-over ranking is the server's ``view.ranking``). The real app under Pilot, fed by a scripted link."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from ono99_tui.tui.app import Ono99App, make_app
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.host import Rewinds, ScreenHost, TableHost, game_app_of
from ono99_tui.tui.replay import load_replay, make_replay_app
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
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
