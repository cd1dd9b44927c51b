"""A player's tournaments in their profile (docs/protocol.md section 6c, "Tournaments in a profile";
server/ono99_server/tournaments.py): a real server over loopback TLS on SQLite and on PostgreSQL, real
protocol clients with keys playing arena games through; then the app's profile screen and the plain
mode's ``profile`` lines against such a server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from ono99_kernel.identity import Identity
from ono99_kernel.wire.requests import AskArenaResults, AskProfile, CreateArena, JoinArena, Leave, LeaveArena
from ono99_server import Server
from ono99_server.arena import standing_lines
from ono99_tui.known_servers import ServerTrust
from ono99_tui.tui.app import make_app
from ono99_tui.tui.arena import ArenaResultsScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.profile import ProfileScreen
from tests.plain_rig import Pane
from tests.server_helpers import (
    FAST_PLAY,
    Store,
    TestClient,
    new_identity,
    play_all,
    server_config,
    storage_barrier,
    wait_until,
)
from tests.test_tui import wait_until as app_until

QUICK = {"arena_bot_wait": 600.0, "arena_starts_in": 0.0, "grace_seconds": 600.0, **FAST_PLAY}


async def arena_game(server: Server, opener: TestClient, other: TestClient, name: str, seed: int) -> dict[str, Any]:
    """``opener`` opens a private two-seat arena called ``name``, both join it, are seated, leave the
    arena (so that they are not seated again: the game still counts) and play that one game through;
    Ada's line of its standings then."""
    opened = await opener.request(CreateArena(minutes=30, seats=2, private=True, name=name), "arena",
                                  where=lambda m: m["arena"]["name"] == name)
    arena_id: int = opened["arena"]["id"]
    for client, request in ((opener, JoinArena(arena=arena_id)), (other, JoinArena(code=opened["code"]))):
        await client.request(request, "arena", where=lambda m: m["arena"]["id"] == arena_id and m["joined"])
    for client in (opener, other):
        await client.expect("arena_game")
        await client.send(LeaveArena())  # not waited for: the game's first states may come before the answer
    await play_all([opener, other], seed=seed)
    arena = server.lobby.arenas.arenas[arena_id]
    await wait_until(lambda: len(arena.counted) == 1 and not arena.running, f"the game of {name} counted")
    line = standing_lines(arena)["Ada"]
    return {**line.to_wire(), "arena": arena_id}


async def played_two_arenas(server: Server, key: Identity | None = None, other: str = "Bo",
                            names: tuple[str, str] = ("Tea time", "Night owls")
                            ) -> tuple[TestClient, TestClient, dict[str, Any], dict[str, Any]]:
    """Ada (with ``key``) and Bo (``other``, with a key) play one game in each of two private arenas
    (``names``), Ada's then Bo's; Ada's standing lines in both (first, then second arena)."""
    ada = await TestClient.connect("127.0.0.1", server.port, "Ada", identity=key or new_identity())
    bo = await TestClient.connect("127.0.0.1", server.port, other, identity=new_identity())
    line_1 = await arena_game(server, ada, bo, names[0], seed=3)
    line_2 = await arena_game(server, bo, ada, names[1], seed=5)
    await storage_barrier(ada)
    return ada, bo, line_1, line_2


async def test_the_profile_lists_the_arenas_played_newest_first_and_opens_their_standings(
        tmp_path: Path, store: Store) -> None:
    """Tried (SQLite, and PostgreSQL): Ada and Bo play a game in Ada's private arena "Tea time", then
    in Bo's "Night owls"; Ada asks her profile, then each arena's standings; Cy, who played in
    neither, asks Ada's profile and an arena's standings; then Ada comes back with her key as Zed.
    Found: Ada's profile lists both arenas, newest first, with her place of two, her points and games
    as the standings say; ``arena_results`` sends an arena's standings with her line as ``you``; Cy is
    shown neither private arena and is refused its standings (``no_arena``); Zed's profile lists the
    same arenas with Ada's lines (found by her key, not her name)."""
    server = Server(server_config(tmp_path, **store.config, **QUICK))
    await server.start()
    clients: list[TestClient] = []
    key = new_identity()
    try:
        ada, bo, line_1, line_2 = await played_two_arenas(server, key)
        clients += [ada, bo]
        profile = await ada.request(AskProfile(), "profile")
        listed = [(a["name"], a["place"], a["players"], a["points"], a["games"], a["status"], a["edition"])
                  for a in profile["arenas"]]
        assert listed == [("Night owls", line_2["place"], 2, line_2["points"], 1, "running", "2022"),
                          ("Tea time", line_1["place"], 2, line_1["points"], 1, "running", "2022")]
        assert profile["arenas"][0]["at"] >= profile["arenas"][1]["at"]
        first = profile["arenas"][1]["arena"]
        assert first == line_1.pop("arena")
        results = await ada.request(AskArenaResults(arena=first), "arena_results")
        assert results["name"] == "Tea time" and results["you"] == line_1
        assert sorted(line["name"] for line in results["standings"]) == ["Ada", "Bo"]
        assert sorted(line["points"] for line in results["standings"]) == [0, 2]
        of_bo = await ada.request(AskArenaResults(arena=first, name="Bo"), "arena_results")
        assert of_bo["you"]["name"] == "Bo"

        cy = await TestClient.connect("127.0.0.1", server.port, "Cy", identity=new_identity())
        clients.append(cy)
        seen = await cy.request(AskProfile(name="Ada"), "profile")
        assert seen["name"] == "Ada" and seen["arenas"] == []
        await cy.send(AskArenaResults(arena=first))
        refused = await cy.error()
        assert refused["code"] == "no_arena" and refused["ref"] == "arena_results"
        await cy.send(AskArenaResults(arena=999))
        assert (await cy.error())["params"] == {"why": "id", "arena": 999}

        await ada.request(Leave(), "left")
        await ada.close()
        zed = await TestClient.connect("127.0.0.1", server.port, "Zed", identity=key)
        clients.append(zed)
        renamed = await zed.request(AskProfile(), "profile")
        assert renamed["name"] == "Zed"
        assert [(a["name"], a["place"], a["points"]) for a in renamed["arenas"]] == [
            ("Night owls", line_2["place"], line_2["points"]), ("Tea time", line_1["place"], line_1["points"])]
        again = await zed.request(AskArenaResults(arena=first), "arena_results")
        assert again["you"] == line_1
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_the_apps_profile_lists_the_tournaments_and_enter_opens_one_s_standings(tmp_path: Path) -> None:
    """Tried: Ada plays a game in two arenas (as a protocol client), then opens the app with her key,
    presses v in the lobby, goes down to the tournaments and presses Enter on the older one. Found: the
    profile lists both, newest first, with her place of two, points and games; Enter opens "Tea time"'s
    standings with both players' lines. Between the move and Enter, Bo leaves his table (the lobby's
    list of who is online changes): before, every message drawn redrew the lists, and the cursor went
    back to the newest tournament."""
    key = new_identity()
    server = Server(server_config(tmp_path, **QUICK))
    await server.start()
    try:
        ada, bo, line_1, line_2 = await played_two_arenas(server, key)
        await ada.request(Leave(), "left")  # from the last game's table: the app comes to the lobby
        await ada.close()
        app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada", identity=key,
                       trust=ServerTrust.pinned(server.fingerprint))
        async with app.run_test(size=(100, 32)) as pilot:
            await app_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("v")
            await app_until(pilot, lambda: isinstance(app.screen, ProfileScreen), "the profile")
            grid = app.screen.query_one("#profile-arenas", DataTable)
            await app_until(pilot, lambda: grid.display and grid.row_count == 2, "the profile's tournaments")
            rows = [[str(cell) for cell in grid.get_row_at(i)] for i in range(grid.row_count)]
            assert [row[0] for row in rows] == ["Night owls", "Tea time"]
            assert rows[1][3:] == [f"{line_1['place']} of 2", str(line_1["points"]), "1"]
            assert rows[0][3:] == [f"{line_2['place']} of 2", str(line_2["points"]), "1"]
            grid.focus()
            grid.move_cursor(row=1)
            await app_until(pilot, lambda: grid.cursor_row == 1, "the cursor on the older tournament")
            await bo.request(Leave(), "left")
            await app_until(pilot, lambda: any(p.name == "Bo" and p.table is None for p in app.model.online),
                            "Bo in the lobby, as the app's list of who is online says")
            await pilot.press("enter")
            await app_until(pilot, lambda: isinstance(app.screen, ArenaResultsScreen), "the tournament's standings")
            standings = app.screen.query_one("#arena-results-standings")
            await app_until(pilot, lambda: str(standings.render()).startswith("1. "), "the standings' lines")
            shown = str(standings.render())
            assert shown.splitlines()[0].startswith("1. ") and " · 2 points · 1 game" in shown
            assert sorted(line.split(" · ")[0][3:] for line in shown.splitlines()) == ["Ada", "Bo"]
            assert str(app.screen.query_one("#arena-results-title").render()).startswith("Tea time · 2022 · ")
        await bo.close()
    finally:
        await server.close()


def starts_with(start: str) -> Callable[[str], bool]:
    return lambda text: text.startswith(start)


async def test_the_plain_mode_says_the_tournaments_played_and_the_standings_of_one(tmp_path: Path) -> None:
    """ono99 connect --plain in a real terminal (tmux), with the key Ada played two arenas with: "arena
    results" says her tournaments, newest first, each with her place, points and games; "arena results
    2" says the older one's standings as lines; a number not listed is answered with what to type."""
    key = Identity.load_or_create(tmp_path / "ada")
    server = Server(server_config(tmp_path, **QUICK))
    await server.start()
    pane = Pane(tmp_path)
    try:
        ada, bo, line_1, line_2 = await played_two_arenas(server, key)
        await ada.request(Leave(), "left")
        await ada.close()
        await pane.connect(server.port, tmp_path, "--lang", "en", name="Ada")
        await pane.trust_the_server()
        await pane.wait_line("You are in the lobby.")
        await pane.keys("literal:arena results 1", "Enter")
        await pane.wait_line("Type arena results first to hear your tournaments.")
        await pane.keys("literal:arena results", "Enter")
        await pane.wait_line("Your tournaments, newest first:")
        for number, name, line in ((1, "Night owls", line_2), (2, "Tea time", line_1)):
            start = f"{number}. {name} · 2022 · "
            said = await pane.wait_line(starts_with(start), f"tournament {number}")
            assert said.endswith(f" · place {line['place']} of 2 · {line['points']} points · 1 game."), said
        await pane.keys("literal:arena results 3", "Enter")
        await pane.wait_line("There is no tournament 3; arena results lists yours.")
        await pane.keys("literal:arena results 2", "Enter")
        await pane.wait_line(lambda text: text.startswith("Tea time · 2022 · ")
                             and text.endswith(" · still running."), "the standings' heading")
        first = await pane.wait_line(lambda text: text.startswith("1. "), "the standings' first line")
        assert first.endswith(" · 2 points · 1 game · left.")  # both left the arena (arena_game)
        assert first[3:].split(" · ")[0] in ("Ada", "Bo")
        await bo.close()
    finally:
        await pane.close()
        await server.close()
