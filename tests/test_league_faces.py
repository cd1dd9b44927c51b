"""A league among four people, one on each face (docs/rules.md, "Series"): a TCP protocol client, an SSH
session (asyncssh with a PTY), a browser (headless Chromium on the web front) and the plain mode (in
tmux), all at one private table of a real server whose SSH and web fronts run in the same process,
as a front worker runs them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.wire.requests import Act, CreateTable, Rematch, Start
from ono99_kernel.wire.server import SeriesInfo
from ono99_tui.front.web import WebFront, WebSessionApp
from ono99_tui.series_text import series_line, series_winner, standings_sentence
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.series import SeriesLine
from ono99_tui.tui.table import TableScreen
from tests.plain_rig import Pane
from tests.server_helpers import TIMEOUT, TestClient, may_act
from tests.test_plain import play_to_the_end
from tests.test_ssh import Player, play_through_keys
from tests.test_web import chromium, open_and_name, screen_text, start_mixed_rig, until, until_on_page

GAMES = 5
NON_HOST_END = "Type x to leave the table, or p to play now."  # the plain mode's last line of a game


class BrowserKeys:
    """Chromium's page as tests/test_ssh.py's helpers drive a player: keys pressed on the page, and the
    web session's app (read to choose the key and to wait for the move)."""

    def __init__(self, page: Any, web: WebFront, name: str) -> None:
        self.page, self.web, self.name = page, web, name

    @property
    def app(self) -> WebSessionApp:
        found = next((s.app for s in self.web.sessions if s.app is not None and s.app.player_name == self.name), None)
        assert found is not None, f"no web session plays as {self.name}"
        return found

    async def press(self, *keys: str) -> None:
        for key in keys:
            await self.page.keyboard.press(key)

    async def until(self, condition: Callable[..., object], what: str) -> None:
        await until(lambda: any(s.app is not None and s.app.player_name == self.name and condition(s.app)
                                for s in self.web.sessions), what)


async def tcp_plays(client: TestClient, first: dict[str, Any]) -> None:
    """The TCP player's moves in the game of the state ``first`` (read already): its first legal action
    each turn."""
    acted: set[int] = set()
    game = first["game_no"]
    pending = [first]
    while True:
        message = pending.pop() if pending else await client.recv(TIMEOUT)
        if message.get("t") != "state" or message["game_no"] != game:
            continue
        view = message["view"]
        if view["winner"] is not None:
            return
        if may_act(view) and view["version"] not in acted:
            acted.add(view["version"])
            await client.send(Act(action=view["legal"][0], version=view["version"]))


async def finished_table(client: TestClient, game: int) -> dict[str, Any]:
    """The ``table`` message a client was sent when the series' game ``game`` had ended."""
    def ended(message: dict[str, Any]) -> bool:
        return message.get("t") == "table" and message["table"]["status"] == "finished" and \
            (message["table"]["series"] or {}).get("played") == game

    found = next((m for m in reversed(client.received) if ended(m)), None)
    return found if found is not None else await client.expect("table", where=ended)


def in_game(number: int) -> Callable[[Any], bool]:
    """An app shows the game ``number``, under way."""
    return lambda app: app.model.game_no == number and app.model.view is not None and app.model.view.winner is None


def dialog_says(expected: str) -> Callable[[Any], bool]:
    """An app shows the game-over dialog with the series line ``expected``."""
    return lambda app: isinstance(app.screen, GameOverScreen) and shown_series(app) == expected


def starts_with(start: str) -> Callable[[str], bool]:
    return lambda line: line.startswith(start)


def shown_series(app: Any) -> str:
    """The series line of the game-over dialog an app shows."""
    line = app.screen.query_one(SeriesLine)
    return str(line.content) if line.display else ""


@pytest.mark.long
async def test_a_league_of_five_games_among_four_people_on_four_faces(tmp_path: Path) -> None:
    """Tess (a TCP protocol client) hosts a private table with a best-of-5 series; Sam comes by SSH
    (the invite code as the user name), Wren in Chromium (the invite link), Kim in the plain mode
    (``j CODE``). Every game is played through by each face's own input: Sam's keys over SSH, Wren's
    keys pressed on the page, Kim's typed lines, Tess's protocol actions (each the first legal move);
    Tess starts each next game. After each game, checked against the standings the server counted:
    Tess's ``table`` message, the series line of Sam's and Wren's game-over dialogs (Wren's as the
    page's terminal shows it), Kim's "Series: game N of 5." and standings sentence; after the last
    game every face names the winner. The series ends once nobody can catch its leader (docs/rules.md,
    "Series"): the deals are the server's own, so it is played through in four or five games (a
    run of about 25 s on two cores)."""
    rig = await start_mixed_rig(tmp_path)
    host = await TestClient.connect("127.0.0.1", rig.server.port, "Tess", timeout=TIMEOUT)
    pane = Pane(tmp_path)
    sam: Player | None = None
    try:
        await host.send(CreateTable(name="league", seats=4, bots=0, private=True, series_games=GAMES))
        created = (await host.expect("table"))["table"]
        code = str(created["code"])
        table = rig.server.lobby.tables[int(created["id"])]
        sam = await Player.connect(rig, code, key=None)  # a guest: asked a name
        await sam.until_shown(b"Your name at the tables", "the SSH name screen")
        await sam.type("Sam\r")
        await host.expect("table", where=lambda m: any(s["name"] == "Sam" for s in m["table"]["seats"]))
        await pane.connect(rig.server.port, tmp_path, "--lang", "en")
        await pane.trust_the_server()
        await pane.wait_line("You are in the lobby.")
        await pane.keys(f"literal:j {code}", "Enter")
        await pane.wait_line(lambda line: line.startswith("You sit at the table league, in seat "), "Kim seated")
        async with chromium() as browser:
            page = browser.pages[0] if browser.pages else await browser.new_page()
            await open_and_name(page, f"https://127.0.0.1:{rig.web.port}/t/{code}", "Wren")
            await host.expect("table", where=lambda m: all(s["kind"] == "human" for s in m["table"]["seats"]))
            wren = BrowserKeys(page, rig.web, "Wren")
            await wren.until(lambda app: isinstance(app.screen, TableScreen), "Wren at the table")
            info: SeriesInfo | None = None
            counted: list[int] = []  # the games counted so far, by the table's game number
            for game in range(1, GAMES + 1):
                await host.send(Start() if game == 1 else Rematch())
                state = await host.expect("state", where=lambda m: m["view"]["winner"] is None)
                number = state["game_no"]
                for player in (sam, wren):
                    await player.until(in_game(number), "the game on every face")
                await asyncio.gather(tcp_plays(host, state), play_through_keys(sam), play_through_keys(wren),
                                     play_to_the_end(pane, "en", NON_HOST_END))
                await until(lambda: table.series is not None and table.series.played == len(counted) + 1,
                            "the game counted")
                counted.append(number)
                info = table.series_info()
                assert info is not None and info.played == game
                expected = series_line(info)
                winner = series_winner(info)
                if winner is not None:
                    expected += "\n" + winner
                told = await finished_table(host, game)
                assert [(s["name"], s["points"]) for s in told["table"]["series"]["standings"]] == [
                    (s.name, s.points) for s in info.standings]
                assert told["table"]["series"]["winner"] == info.winner
                for player in (sam, wren):
                    await player.until(dialog_says(expected), "the standings in the game-over dialog")
                await until_on_page(page, series_line(info), "the standings on the page")
                if winner is not None:
                    await until_on_page(page, winner, "the series' winner on the page")
                await pane.wait_line(f"Series: game {game} of {GAMES}.")
                said = await pane.wait_line(starts_with("Standings: "), "the standings")
                assert said == standings_sentence(info)
                if info.winner is not None:
                    break
            assert info is not None and info.winner is not None
            points = info.standings[0].points
            await pane.wait_line(f"{info.winner} wins the series with {points} point{'s' if points != 1 else ''}!")
            assert winner is not None and winner in await screen_text(page)
    finally:
        if sam is not None:
            await sam.close()
        await pane.close()
        await host.close()
        with contextlib.suppress(Exception):
            await rig.close()
