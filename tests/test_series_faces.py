"""A series as the faces show it (docs/rules.md, "Series"): the real app under Pilot and the real plain
mode in a real terminal (tmux), each against a real server over loopback TLS. The host opens a private
table with a best-of-3 series, plays the games through, and reads the standings after each one and
the series' winner at the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select, Static, Switch

from ono99_kernel.wire.requests import CreateTable
from ono99_kernel.wire.server import SeriesInfo
from ono99_server import Server
from ono99_tui.series_text import series_line, series_winner
from ono99_tui.tui.app import make_app
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.series import SeriesLine, SeriesScreen
from ono99_tui.tui.table import TableScreen
from tests.plain_rig import Pane, rewrites
from tests.server_helpers import running_server, server_config
from tests.test_plain import play_to_the_end
from tests.test_tui import play_until, wait_until

SERIES_SEED = 1  # every game of these tests is dealt from it: the same game twice ends a best of 3 among two


def shown(line: SeriesLine) -> str:
    return str(line.content) if line.display else ""


async def test_the_app_shows_the_standings_under_the_seats_and_after_each_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ada opens a table from the new-game dialog with "Series: best of 3 games": refused until she
    switches on Private, then opened. Under the seats a line says the series; after each game the
    game-over dialog says "Series: game N of 3 · ..." with the standings the server counted, and the
    line under the seats says the same; after the second the same winner twice has won the series,
    and both say so."""
    monkeypatch.setattr("ono99_server.table_room.secrets.randbits", lambda bits: SERIES_SEED)
    server = Server(server_config(tmp_path, db_path=None, grace_seconds=60))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, NewGameScreen), "the new-game dialog")
            dialog = app.screen
            dialog.query_one("#seats", Select).value = 2
            dialog.query_one("#bots", Select).value = 1
            dialog.query_one("#series", Select).value = "games:3"
            await pilot.pause()
            await pilot.press("enter")
            problem = dialog.query_one("#problem", Static)
            await wait_until(pilot, lambda: "private table" in str(problem.content), "the dialog to say why not")
            assert isinstance(app.screen, NewGameScreen) and not server.lobby.tables
            dialog.query_one("#private", Switch).value = True
            await pilot.pause()
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            table_line = app.screen.query_one(SeriesLine)
            await wait_until(pilot, lambda: shown(table_line) == "Series: best of 3 games", "the series line")
            [table] = server.lobby.tables.values()
            assert table.private and table.series is not None

            await pilot.press("s")
            for game in (1, 2, 3):
                await play_until(pilot, app, lambda: isinstance(app.screen, GameOverScreen))
                dialog_line = app.screen.query_one(SeriesLine)
                await wait_until(pilot, lambda g=game: table.series is not None and table.series.played == g
                                 and app.model.table is not None and app.model.table.status == "finished"
                                 and app.model.table.series is not None and app.model.table.series.played == g,
                                 "the game counted")
                info = table.series_info()
                assert isinstance(info, SeriesInfo)
                expected = series_line(info)
                assert expected.startswith(f"Series: game {game} of 3 · ")
                winner = series_winner(info)
                if winner is not None:
                    expected += "\n" + winner
                await pilot.pause()
                assert shown(dialog_line) == expected
                assert shown(table_line) == expected
                if winner is not None:
                    break
                await pilot.press("r")  # play again: the next game of the series
                await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the next game")
            assert game == 2 and winner is not None  # the same deal twice: one player won both
    finally:
        await server.close()


async def test_the_host_chooses_a_series_at_their_private_table_with_e(tmp_path: Path) -> None:
    """Ada sits at her private table (opened without a series) with a bot. e opens the choice of a
    series; Esc closes it with nothing sent; e and Enter on the first choice gives the table a best of
    3, shown under the seats; choosing "no series" takes it away again."""
    server = Server(server_config(tmp_path, db_path=None, grace_seconds=60))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.send_message(CreateTable(seats=2, bots=1, turn_seconds=0, private=True))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            table_line = app.screen.query_one(SeriesLine)
            [table] = server.lobby.tables.values()
            assert not table_line.display and table.series is None
            await pilot.press("e")
            await wait_until(pilot, lambda: isinstance(app.screen, SeriesScreen), "the choice of a series")
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
            await pilot.press("e")
            await wait_until(pilot, lambda: isinstance(app.screen, SeriesScreen), "the choice again")
            await pilot.press("enter")
            await wait_until(pilot, lambda: shown(table_line) == "Series: best of 3 games", "the series line")
            assert table.series is not None and (table.series.kind, table.series.target) == ("games", 3)
            await pilot.press("e")
            await wait_until(pilot, lambda: isinstance(app.screen, SeriesScreen), "the choice once more")
            await pilot.press("end", "enter")
            await wait_until(pilot, lambda: not table_line.display, "no series line")
            assert table.series is None
    finally:
        await server.close()



async def test_the_plain_mode_says_the_standings_after_each_game(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """ono99 connect --plain: "n 2 best3" opens a private table with a best-of-3 series, said on
    arrival; after each game the plain mode says where the series stands and the standings as
    lines, and after the second (the same deal twice) who won the series; r then begins the next one.
    Between games, e first10 gives the table another kind of series, and e none takes it away."""
    monkeypatch.setattr("ono99_server.table_room.secrets.randbits", lambda bits: SERIES_SEED)
    async with running_server(tmp_path, db_path=None, grace_seconds=60) as h:
        pane = Pane(tmp_path)
        await pane.connect(h.port, tmp_path, "--lang", "en")
        try:
            await pane.trust_the_server()
            await pane.wait_line("No table is open.")
            await pane.keys("literal:n 2 best3", "Enter")
            await pane.wait_line("You sit at Kim's table, in seat 1 of 2.")
            await pane.wait_line(lambda line: line.startswith("Its invite code is "), "the invite code")
            await pane.wait_line("Series: best of 3 games.")
            [table] = h.server.lobby.tables.values()
            assert table.private
            await pane.keys("s")
            end = "Type r to play again, x to leave the table, or p to play now."
            for game in (1, 2):
                assert await play_to_the_end(pane, "en", end) > 0
                await pane.wait_line(f"Series: game {game} of 3.")
                standings = await pane.wait_line(lambda line: line.startswith("Standings: "), "the standings")
                info = table.series_info()
                assert info is not None and info.played == game
                assert standings == "Standings: " + "; ".join(
                    f"{place}, {s.name}, {s.points} point{'s' if s.points != 1 else ''}"
                    for place, s in enumerate(info.standings, start=1)) + "."
                if game == 1:
                    await pane.keys("r")
            assert info is not None and info.winner is not None
            await pane.wait_line(f"{info.winner} wins the series with {info.standings[0].points} points!")
            await pane.keys("r")  # after the series' end: the next one begins
            await pane.wait_line("Series: best of 3 games.")
            await play_to_the_end(pane, "en", end)
            await pane.keys("literal:e first10", "Enter")  # another kind of series, from the next game
            await pane.wait_line("Series: first to 10 points.")
            await pane.keys("literal:e none", "Enter")
            await pane.wait_line("This table plays single games again.")
            assert table.series is None
            assert rewrites(pane.stream) == []
        finally:
            await pane.close()
