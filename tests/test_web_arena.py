"""An arena in the browser (docs/web.md, docs/rules.md "Arenas"): headless Chromium loads the web front
of an in-process server (tests/test_web.py's rig) where an operator opened a public arena; the page's
player joins it from the lobby with a and reads the standings and when their next game starts; a
second player joining seats them both."""

from __future__ import annotations

from pathlib import Path

from ono99_kernel.wire.requests import CreateArena, JoinArena
from ono99_tui.tui.arena import ArenaScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import TIMEOUT, TestClient
from tests.test_arena_faces import operators
from tests.test_web import chromium, open_and_name, start_web_rig, until, until_on_page


async def test_a_browser_joins_the_arena_from_the_lobby_and_reads_the_standings_and_the_next_game(
        tmp_path: Path) -> None:
    """Tried: Chromium opens the page, pastes the name Wren, and in the lobby, where the operator's arena
    "Evening" is listed, presses a; then Bob (a TCP client) joins the arena. Found: the page shows the
    arena's line in the lobby, then its standings ("1. Wren · 0 points · 0 games") and "Your next game
    starts in 1 h 0 min" (nobody else to play: at the latest when bots fill the table); once Bob joins,
    Wren is seated at the arena's table with him."""
    operator, admins = operators(tmp_path)
    rig = await start_web_rig(tmp_path, admins=admins, arena_bot_wait=3600.0, arena_starts_in=0.5)
    clients: list[TestClient] = []
    try:
        op = await TestClient.connect("127.0.0.1", rig.server.port, "Op", identity=operator, timeout=TIMEOUT)
        clients.append(op)
        await op.request(CreateArena(minutes=60, seats=2, name="Evening"), "arena")
        async with chromium() as browser:
            page = browser.pages[0] if browser.pages else await browser.new_page()
            await open_and_name(page, rig.url + "/", "Wren")
            await until_on_page(page, "Evening · 1 h 0 min left · 0 players · a: join", "the arena in the lobby")
            session = await rig.session_playing("Wren")
            assert session.app is not None and isinstance(session.app.screen, LobbyScreen)
            await page.keyboard.press("a")
            await until_on_page(page, "1. Wren · 0 points · 0 games", "the standings")
            await until_on_page(page, "Your next game starts in 1 h 0 min", "when the next game starts")
            assert isinstance(session.app.screen, ArenaScreen)
            bob = await TestClient.connect("127.0.0.1", rig.server.port, "Bob", timeout=TIMEOUT)
            clients.append(bob)
            await bob.send(JoinArena())
            await bob.expect("arena_game")
            await until(lambda: session.app is not None and isinstance(session.app.screen, TableScreen)
                        and session.app.model.table is not None, "Wren seated at the arena's table")
            table = session.app.model.table
            assert table is not None and sorted(s.name for s in table.seats) == ["Bob", "Wren"]
            await until_on_page(page, "Bob", "the table on the page")
    finally:
        for client in clients:
            await client.close()
        await rig.close()
