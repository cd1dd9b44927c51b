"""Words of the local game and the command line: one name for the local table, a drawn card named
as a card, a card's word that leaves room for whether it is playable, seats counted from 1 in
simulate, a replay line past the end, and the server's database in the data directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from ono99_kernel.wire.server import DrawEvent
from ono99_server.storage import default_db_path
from ono99_tui.client.model import Model
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import make_app
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.widgets import CardWidget
from tests import wire
from tests.app_state import table_of
from tests.test_tui import DATA, wait_until
from tests.wire import table_message

ROOT = Path(__file__).resolve().parent.parent


def ono99(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ono99_tui.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, stdin=subprocess.DEVNULL)


async def test_the_local_table_keeps_its_name_after_n() -> None:
    app = make_app(bot_delay=0, local_game=open_local_game, name="Ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None, "a game")

        def title() -> str:
            return str(app.screen.query_one("#title", Static).render())

        assert "Local game" in title()
        first = table_of(app).id
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the new-game dialog")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.model.table is not None and app.model.table.id != first
                         and isinstance(app.screen, TableScreen), "the new table")
        await pilot.pause()
        assert "Local game" in title() and "Your table" not in title()


def test_a_drawn_card_is_named_as_a_card_not_a_count() -> None:
    model = Model(my_name="Ada")
    model.apply(table_message(["Ada", "Bo"]))
    model.view = wire.view(2, seat=0)
    assert model.describe(DrawEvent(seat=0, card="1")) == "You drew the card 1"
    assert model.describe(DrawEvent(seat=1, card=None)) == "Bo drew a card"


class OneCard(App[None]):
    def compose(self) -> ComposeResult:
        yield CardWidget(0)


@pytest.mark.parametrize("playable", [True, False])
async def test_a_double_play_card_still_says_whether_it_is_playable(playable: bool) -> None:
    app = OneCard(css_path=ROOT / "ono99_tui" / "tui" / "ono99.tcss")
    async with app.run_test(size=(80, 24)) as pilot:
        card = app.query_one(CardWidget)
        card.show("DOUBLE", "1980", playable, False)
        await pilot.pause()
        lines = ["".join(segment.text for segment in card.render_line(y)) for y in range(card.size.height)]
        assert any(("playable" if playable else "blocked") in line for line in lines), lines


def test_simulate_counts_seats_from_1_as_it_counts_bots() -> None:
    out = ono99("simulate", "--games", "4", "--bots", "greedy,random")
    assert out.returncode == 0, out.stderr
    assert "bot 1: greedy" in out.stdout and "seat 1 " in out.stdout and "seat 2 " in out.stdout
    assert "seat 0" not in out.stdout


def test_replay_of_a_record_past_the_end_says_how_many_the_file_holds() -> None:
    out = ono99("replay", str(DATA / "sample_2022.jsonl"), "--line", "999")
    assert out.returncode == 2
    assert out.stderr.strip().endswith("holds only 1 record; --line takes 1 to 1")
    assert "records check" not in out.stderr


def test_the_servers_default_database_is_in_ono99_data_dir(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path))
    assert default_db_path() == tmp_path / "ono99.db"
