"""Numbers as the player's language writes them: percentages, decimals and ratings in simulate, the
rating notice, the leaderboard and the profile."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from textual.widgets import DataTable

from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.numbers import decimal, percent, signed, whole
from ono99_tui.reasons import render
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LeaderboardScreen, LobbyScreen
from ono99_tui.tui.profile import ProfileScreen
from tests.server_helpers import FAST_PLAY, create_table, new_identity, play, running_server
from tests.test_records import run_cli
from tests.test_tui import wait_until

NBSP = "\N{NO-BREAK SPACE}"


@pytest.mark.parametrize(("lang", "half", "rating", "change", "many"), [
    ("en", "50.0%", "3.10", "+1.25", "12,346"),
    ("de", f"50,0{NBSP}%", "3,10", "+1,25", "12.346"),
    ("gl", f"50,0{NBSP}%", "3,10", "+1,25", f"12{NBSP}346"),
    ("af", "50,0%", "3,10", "+1,25", f"12{NBSP}346"),
    ("vi", "50,0%", "3,10", "+1,25", "12.346"),
    ("ne", "50.0%", "3.10", "+1.25", "12,346"),  # Babel's locale data: Latin digits for Nepali
])
def test_numbers_are_written_as_each_language_writes_them(lang: str, half: str, rating: str, change: str,
                                                           many: str) -> None:
    with using(lang):
        assert percent(0.5) == half
        assert decimal(3.1) == rating
        assert signed(1.25) == change and signed(-1.25) == "-" + change[1:]
        assert whole(12345.6) == many


def test_every_language_has_its_number_formats() -> None:
    for lang in LANGUAGES:
        with using(lang):
            assert percent(1 / 3).replace(NBSP, "").rstrip("%") in ("33.3", "33,3"), lang
            assert percent(1, 0).replace(NBSP, "") == "100%", lang


def test_simulate_prints_its_percentages_and_decimals_in_german() -> None:
    out = run_cli("--lang", "de", "simulate", "--games", "20", "--bots", "greedy,random", "--players", "2",
                  "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert f"fairer Anteil 50,0{NBSP}%" in out.stdout
    assert f"[95{NBSP}%-Intervall]" in out.stdout
    rows = [line for line in out.stdout.splitlines() if "Platz 1" in line]
    assert len(rows) == 1 and rows[0].count(f"{NBSP}%") == 3 and "." not in rows[0]
    english = run_cli("simulate", "--games", "20", "--bots", "greedy,random", "--players", "2", "--seed", "1")
    assert "fair share 50.0%" in english.stdout


def test_the_rating_notice_writes_its_numbers_in_german() -> None:
    params = {"edition": "2022", "before": "3.10", "after": "4.35", "change": "+1.25", "provisional": 0,
              "games": 12, "limit": 10}
    with using("de"):
        assert render("rating", params, "") == "Deine Wertung (2022): 3,10 → 4,35 (+1,25)"
        assert render("rating", {**params, "before": "lots"}, "the English text") == "the English text"
    with using("en"):
        assert render("rating", params, "") == "Your 2022 rating: 3.10 → 4.35 (+1.25)"


async def test_the_leaderboard_and_the_profile_write_ratings_and_win_rates_in_german(tmp_path: Path) -> None:
    async with running_server(tmp_path, **FAST_PLAY) as h:
        cy = await h.connect("Cy", identity=new_identity())
        await create_table(cy, seats=2, bots=1, bot_level="random", start=True)
        await play(cy, random.Random(3))
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada", identity=new_identity())
        with using("de"):  # the app's language, as run_async sets it
            async with app.run_test(size=(110, 40)) as pilot:
                await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
                await pilot.press("b")
                await wait_until(pilot, lambda: isinstance(app.screen, LeaderboardScreen)
                                 and bool(app.model.leaderboard), "the leaderboard")
                row = app.model.leaderboard[0]
                grid = app.screen.query_one(DataTable)
                await wait_until(pilot, lambda: grid.row_count == 2, "Cy and the random bot")
                assert str(grid.get_row_at(0)[1]) == f"{row.rating:.2f}?".replace(".", ",")
                await pilot.press("enter")
                await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen) and app.model.profile is not None,
                                 "Cy's profile")
                profile = app.model.profile
                assert profile is not None
                edition = profile.editions[0]
                assert edition.win_rate is not None
                editions = str(app.screen.query_one("#profile-editions").render())
                assert f"Wertung {edition.rating:.2f}".replace(".", ",") in editions
                assert f"Siegquote {100 * edition.win_rate:.0f}{NBSP}%" in editions
