"""The lobby's table list reads in groups, each in number order: the real app under Pilot at 80×24,
against a real server over loopback TCP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from ono99_server import Server
from ono99_tui.i18n import gettext as _
from ono99_tui.i18n import using
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.lobby_list import group_label
from ono99_tui.tui.table import TableScreen
from tests.app_state import ScriptedLink
from tests.server_helpers import TestClient, create_table, server_config
from tests.test_tui import wait_until
from tests.wire import table_map, welcome_map


async def test_the_lobby_lists_open_tables_then_games_in_progress_each_by_number(tmp_path: Path) -> None:
    """Tables 1 and 3 wait for players, 2 and 4 play (their bots wait long: nothing moves). The
    server sends 1, 3, 2, 4 (open tables first); the lobby shows, under their labels, the open
    tables 1 and 3, then the games in progress 2 and 4. The cursor starts on table 1 and steps over
    the second label with the arrow keys; watching the table under it watches that table."""
    server = Server(server_config(tmp_path, bot_delay=600))
    await server.start()
    hosts: list[TestClient] = []
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        for n in range(1, 5):
            host = await TestClient.connect("127.0.0.1", server.port, f"host{n}")
            hosts.append(host)
            table_id = await create_table(host, seats=2, bots=1, start=n % 2 == 0)
            assert table_id == n
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                             and [t.id for t in app.model.tables] == [1, 3, 2, 4], "the four tables")
            grid = app.screen.query_one("#tables", DataTable)
            await wait_until(pilot, lambda: grid.row_count == 6, "the list's rows")
            await pilot.pause()
            shown = [grid.render_line(y).text.strip() for y in range(1, 7)]  # line 0 is the column header
            assert grid.size.height >= 7, "every row fits on the screen"
            names = {n: server.lobby.tables[n].name for n in range(1, 5)}
            assert shown[0] == "Open tables (2)"
            assert shown[1].startswith(f"1  {names[1]} ") and shown[2].startswith(f"3  {names[3]} ")
            assert shown[3] == "Games in progress (2)"
            assert shown[4].startswith(f"2  {names[2]} ") and shown[5].startswith(f"4  {names[4]} ")

            assert grid.cursor_row == 1  # table 1, not the label above it
            await pilot.press("down")
            await wait_until(pilot, lambda: grid.cursor_row == 2, "table 3")
            await pilot.press("down")
            await wait_until(pilot, lambda: grid.cursor_row == 4, "table 2, past the label")
            await pilot.press("up")
            await wait_until(pilot, lambda: grid.cursor_row == 2, "table 3 again, past the label")
            await pilot.press("down")
            await wait_until(pilot, lambda: grid.cursor_row == 4, "table 2 again")
            await pilot.press("s")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None,
                             "watching the chosen table")
            assert app.model.table is not None and app.model.table.id == 2
    finally:
        for client in hosts:
            await client.close()
        await server.close()


@contextlib.asynccontextmanager
async def lobby_listing(language: str, tables: list[dict[str, Any]]) -> AsyncIterator[DataTable[Any]]:
    """The app's lobby at 80×24 in ``language``, told of ``tables`` by a scripted server: its list."""
    link = ScriptedLink()
    link.inbox.put_nowait(welcome_map("Cy"))
    link.inbox.put_nowait({"t": "tables", "tables": tables, "total": len(tables)})

    async def open_link() -> ScriptedLink:
        return link

    app = make_app(local=False, name="Cy", open_link=open_link)
    with using(language):
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                             and len(app.model.tables) == len(tables), "the tables")
            await pilot.pause()
            yield app.screen.query_one("#tables", DataTable)


@pytest.mark.parametrize("language", ["de", "af", "gl", "en"])
async def test_a_finished_tables_group_label_leaves_every_column_on_an_80_column_screen(language: str) -> None:
    """Tried: the lobby at 80×24 listing an open table and a finished one, in German, Afrikaans,
    Galician and English. Before, the finished group's label ("Beendete Spiele, vor der Revanche (1)")
    widened the name column and cut the last header ("Zuscha", "kyk to"); now the label wraps and every
    header shows whole."""
    fields = {k: v for k, v in table_map(["Ada", ""], status="waiting", host="Ada", name_code="hosts_table",
                                         name_params={"host": "Ada"}).items()
              if k not in ("code", "you", "watchers", "waiting")}
    finished = {**fields, "id": 2, "status": "finished", "name_params": {"host": "Bo"}, "host": "Bo"}
    async with lobby_listing(language, [fields, finished]) as grid:
        header = grid.render_line(0).text
        assert grid.virtual_size.width <= grid.size.width, header
        for word in ("#", _("name"), _("rules"), _("seats"), _("bots"), _("status"), _("watching")):
            assert word in header, (word, header)


@pytest.mark.parametrize("language", ["en", "de", "af", "gl"])
async def test_the_group_labels_leave_every_table_row_on_an_80x24_screen_beside_a_1980_table(language: str) -> None:
    """Tried: the lobby at 80×24 (in English, German, Afrikaans and Galician) listing an open 2022
    table, a 1980 game in progress with long rules (points to 100, manual draw) and a finished table.
    Before, each group's label wrapped in the name column the long rules left narrow ("Games in /
    progress / (1)"), taking most of the visible rows and hiding tables; now each label is one row
    across the list, every table's row shows (in English), the long rules wrap in their column and
    every column header shows whole."""
    def listed(table_id: int, host: str, status: str, **fields: Any) -> dict[str, Any]:
        table = table_map([host, "", ""], table_id=table_id, status=status, host=host, name_code="hosts_table",
                          name_params={"host": host}, **fields)
        return {k: v for k, v in table.items() if k not in ("code", "you", "watchers", "waiting")}

    tables = [listed(1, "Ada", "waiting"),
              listed(2, "Bo", "playing", edition="1980",
                     options={"scoring": "points", "points_target": 100, "manual_draw": True}),
              listed(3, "Di", "finished")]
    async with lobby_listing(language, tables) as grid:
        shown = [grid.render_line(y).text for y in range(grid.size.height)]
        for key in ("open", "running", "finished") if language == "en" else ("open", "running"):
            label = group_label(key, 1)
            assert sum(1 for line in shown if line.strip() == label) == 1, (label, shown)
        assert "1980 · " in "\n".join(shown), shown
        # German's rules take three rows and the last table needs a scroll: every row shows in English
        for n, host in ((1, "Ada"), (2, "Bo"), (3, "Di")) if language == "en" else ():
            assert any(line.strip().startswith(f"{n} ") and host in line for line in shown), (n, shown)
        assert grid.virtual_size.width <= grid.size.width, shown[0]
        for word in ("#", _("name"), _("rules"), _("seats"), _("bots"), _("status"), _("watching")):
            assert word in shown[0], (word, shown[0])
