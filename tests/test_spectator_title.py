"""A spectator's title shows its keys to sit down whole: the real app under Pilot, fed by a scripted
link, in every language."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.i18n import gettext as _
from ono99_tui.tui.app import make_app
from ono99_tui.tui.table import TableScreen
from tests.app_state import ScriptedLink
from tests.test_tui import wait_until
from tests.wire import table_map, view_map


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("width", [80, 120])
async def test_a_spectators_title_shows_the_keys_to_sit_down_whole(language: str, width: int) -> None:
    """Tried: watching Bo's 1980 game with points (long rules) at 80 and 120 columns. Before, at 80
    columns the one-line title was cut in the middle of its keys ("spectating (u: sit"); now the
    keys go on a line of their own when the line is full, and every word of the title shows."""
    link = ScriptedLink()
    link.inbox.put_nowait({"t": "welcome", "version": 2, "server": "ONO 99", "name": "Ada", "resume": "r",
                           "resumed": False, "table": 1, "identity": None})
    link.inbox.put_nowait({"t": "table", "table": table_map(["Bo", "Cy", "Di"], status="playing", host="Bo",
                                                            edition="1980", options={"scoring": "points"},
                                                            name_code="hosts_table", name_params={"host": "Bo"})})
    link.inbox.put_nowait({"t": "state", "table": 1, "game_no": 1, "seq": 0, "events": [], "clock": None,
                           "controlled_by_bot": [False, False, False],
                           "view": view_map(3, edition="1980", options={"scoring": "points"}, seat=None,
                                            hand=[], legal=[], hand_sizes=[3, 3, 3], version=0,
                                            tokens=None, scores=[0, 0, 0])})

    async def open_link() -> ScriptedLink:
        return link

    app = make_app(local=False, name="Ada", open_link=open_link)
    with using(language):
        async with app.run_test(size=(width, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                             "the watched table")
            await pilot.pause()
            title = app.screen.query_one("#title", Static)
            shown = " ".join(title.render_line(y).text.strip() for y in range(title.region.height))
            for words in (_("spectating"), _("(u: sit down, m: seats)")):
                assert words in shown, (words, shown)
