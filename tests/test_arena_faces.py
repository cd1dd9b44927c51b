"""An arena as the faces show it (docs/rules.md, "Arenas"): the real app under Pilot and the real plain
mode in a real terminal (tmux), each against a real server over loopback TLS where an operator opened
a public arena. The player reads its line in the lobby, joins it with a key (a, or "arena"), reads the
standings and when their next game starts, is seated with another player, plays, and reads their
place after the game."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ono99_kernel.wire.requests import CreateArena, JoinArena, LeaveArena
from ono99_tui.known_servers import ServerTrust
from ono99_tui.tui.app import make_app
from ono99_tui.tui.arena import ArenaScreen, PrivateArenaScreen
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from tests.plain_rig import Pane, rewrites
from tests.server_helpers import TestClient, new_identity, play_client, running_server
from tests.test_plain import play_to_the_end
from tests.test_playnow_ui import named
from tests.test_ssh import Player, start_rig
from tests.test_tui import play_until, wait_until


def operators(tmp_path: Path) -> tuple[Any, Path]:
    """A key and an --admins file that lists it."""
    operator = new_identity()
    admins = tmp_path / "admins"
    admins.write_text(" ".join(operator.public_key.split()[:2]) + " op\n")
    return operator, admins


def rendered(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def test_the_app_shows_the_arena_in_the_lobby_joins_it_with_a_and_shows_the_standings(tmp_path: Path) -> None:
    """Tried: an arena opened while Ada is in the lobby; a pressed; another player joins. Found: the
    lobby's line names it with its time and players, a joins it and opens the standings with the wait
    for the next game; once Bob joins, both are seated and the table comes (Bob leaves the arena
    during the game, so that nobody is there to seat Ada with at once); the game's end says that
    the arena seats her again (no "play again" or "new game", though she sits in the table's first
    seat); after the game the standings say Ada's game."""
    operator, admins = operators(tmp_path)
    async with running_server(tmp_path, admins=admins, arena_bot_wait=3600.0, arena_starts_in=0.5) as h:
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada")
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            op = await h.connect("Op", identity=operator)
            await op.request(CreateArena(minutes=60, seats=2, name="Evening"), "arena")
            await wait_until(pilot, lambda: "Evening · 1 h 0 min left · 0 players · a: join"
                             in rendered(app.screen, "#lobby-notice"), "the arena's line in the lobby")
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, ArenaScreen), "the standings")
            await wait_until(pilot, lambda: "Your next game starts in 1 h 0 min" in rendered(app.screen, "#arena-next"),
                             "the wait for the next game")
            assert rendered(app.screen, "#arena-standings") == "1. Ada · 0 points · 0 games"
            bob = await h.connect("Bob")
            await bob.send(JoinArena())
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                             "seated at the arena's table")
            table = app.model.table
            assert table is not None and sorted(s.name for s in table.seats) == ["Ada", "Bob"]
            await bob.expect("arena_game")
            await bob.send(LeaveArena())  # his game still counts; Ada is not seated again at once after it
            bob_plays = asyncio.create_task(play_client(bob))
            # the game's end offers no "play again" nor a table of one's own: the arena seats them again
            await play_until(pilot, app, lambda: isinstance(app.screen, GameOverScreen))
            over = app.screen
            assert isinstance(over, GameOverScreen)
            assert [choice for _, _, choice in over.steps] == ["lobby", "play_now"]
            assert "The arena seats you at your next game by itself." in rendered(over, "#ranking")
            # ... as soon as the game is over: played until the game is counted
            await play_until(pilot, app, lambda: app.model.arena is not None and app.model.arena.you is not None
                             and app.model.arena.you.games == 1)
            await bob_plays
            arena = app.model.arena
            assert arena is not None and [line.name for line in arena.standings] in (["Ada", "Bob"], ["Bob", "Ada"])


async def test_from_the_standings_t_watches_the_top_game_and_keeps_you_in_the_arena(tmp_path: Path) -> None:
    """Tried: Bob and Cy seated at a two-seat arena's table, then Ada joining from the app (nobody to
    play with: she waits) and pressing t. Found: she watches their table and is still in the arena."""
    operator, admins = operators(tmp_path)
    async with running_server(tmp_path, admins=admins, arena_bot_wait=3600.0, arena_starts_in=0.0) as h:
        op = await h.connect("Op", identity=operator)
        await op.request(CreateArena(minutes=60, seats=2, name="Evening"), "arena")
        bob, cy = await h.connect("Bob"), await h.connect("Cy")
        for client in (bob, cy):
            await client.send(JoinArena())
        seated = await bob.expect("arena_game")
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada")
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.model.arenas),
                             "the lobby and its arena")
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, ArenaScreen) and app.model.arena is not None
                             and app.model.arena.arena.top_table is not None, "the standings with a top game")
            await pilot.press("t")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                             and app.model.table.id == seated["table"], "watching the top game")
            assert app.model.table is not None and app.model.table.you is None
            assert h.server.lobby.arenas.joined.get("Ada") == 1



async def test_the_plain_mode_says_the_arena_joins_it_and_says_the_next_game_and_the_place(tmp_path: Path) -> None:
    """ono99 connect --plain: the arena is said in the lobby; "arena" joins it and says when the next
    game starts; Bob joining seats them both ("Your next game starts in 1 s."), at a table said to be
    the arena's game that starts by itself (no player hosts it); after the game Kim hears that the
    arena seats her again by itself, never that someone hosts the table, and her place; "arena
    standings" reads the standings as lines."""
    operator, admins = operators(tmp_path)
    async with running_server(tmp_path, admins=admins, grace_seconds=60, arena_bot_wait=3600.0,
                              arena_starts_in=1.0) as h:
        op = await h.connect("Op", identity=operator)
        await op.request(CreateArena(minutes=60, seats=2, name="Evening"), "arena")
        pane = Pane(tmp_path)
        await pane.connect(h.port, tmp_path, "--lang", "en")
        try:
            await pane.trust_the_server()
            await pane.wait_line(lambda line: line.startswith("Evening · ") and line.endswith(
                "0 players. Type arena and Enter to join it."), "the arena in the lobby")
            await pane.keys("literal:arena", "Enter")
            await pane.wait_line(lambda line: line.startswith("You joined Evening · "), "joined")
            await pane.wait_line("Your next game starts in 1 h 0 min.")
            bob = await h.connect("Bob")
            await bob.send(JoinArena())
            await pane.wait_line("Your next game starts in 1 s.")
            await pane.wait_line("This is a game of the arena Evening.")
            await pane.wait_line("It starts by itself.")
            await bob.expect("arena_game")
            end = ("The arena seats you at your next game by itself; arena standings says the standings, arena "
                   "leave leaves the arena.")
            bob_plays = asyncio.create_task(play_client(bob))
            await play_to_the_end(pane, "en", end)
            await bob_plays
            place = await pane.wait_line(lambda line: line.startswith("You are in place "), "Kim's place")
            assert place in ("You are in place 1 with 2 points.", "You are in place 2 with 0 points.")
            await pane.keys("literal:arena standings", "Enter")
            await pane.wait_line(lambda line: line.startswith("1. ") and " · 2 points · 1 game" in line,
                                 "the standings' first line")
            assert rewrites(pane.stream) == []
            assert not [line for line in pane.lines() if "hosts this table" in line or "starts it." in line]
        finally:
            await pane.close()


async def test_the_plain_mode_watching_an_arena_game_says_whose_it_is_and_offers_no_seat(tmp_path: Path) -> None:
    """Tried: Bob and Cy seated at a two-seat arena's table; Kim (plain mode) joins the arena (nobody to play
    with: she waits) and types "arena watch"; Bob and Cy play their game through. Found: the plain mode
    says it is a game of the arena Evening that she watches, and at its end offers to leave the table,
    never to sit down at a next game there (an arena's table plays one) nor that a player hosts it."""
    operator, admins = operators(tmp_path)
    async with running_server(tmp_path, admins=admins, grace_seconds=60, arena_bot_wait=3600.0,
                              arena_starts_in=0.5) as h:
        op = await h.connect("Op", identity=operator)
        await op.request(CreateArena(minutes=60, seats=2, name="Evening"), "arena")
        bob, cy = await h.connect("Bob"), await h.connect("Cy")
        for client in (bob, cy):
            await client.send(JoinArena())
        for client in (bob, cy):
            await client.expect("arena_game")
        pane = Pane(tmp_path)
        await pane.connect(h.port, tmp_path, "--lang", "en")
        try:
            await pane.trust_the_server()
            await pane.wait_line(lambda line: line.startswith("Evening · "), "the arena in the lobby")
            await pane.keys("literal:arena", "Enter")
            await pane.wait_line(lambda line: line.startswith("You joined Evening · "), "joined")
            await pane.keys("literal:arena watch", "Enter")
            await pane.wait_line(lambda line: line.startswith("You are watching the table "), "watching")
            plays = [asyncio.create_task(play_client(c)) for c in (bob, cy)]
            await pane.wait_line("This is a game of the arena Evening.")
            await pane.wait_line("You are watching it; x leaves the table.")
            await asyncio.gather(*plays)
            await pane.wait_line("Type x to leave the table.")
            assert not [line for line in pane.lines() if "sit down" in line or "hosts this table" in line]
        finally:
            await pane.close()


async def test_ssh_arena_at_host_joins_the_running_arena_and_shows_its_standings(tmp_path: Path) -> None:
    """Tried: an SSH session as the user arena (a new key: it is asked its name) while a public arena
    runs. Found: once named, the session joins the arena at once and shows its standings; a second
    player joining seats them both at one table."""
    operator, admins = operators(tmp_path)
    rig = await start_rig(tmp_path, admins=admins, arena_bot_wait=3600.0, arena_starts_in=0.0)
    try:
        op = await TestClient.connect("127.0.0.1", rig.server.port, "Op", identity=operator,
                                      trust=ServerTrust.pinned(rig.server.fingerprint))
        await op.request(CreateArena(minutes=60, seats=2, name="Evening"), "arena")
        ada = await Player.connect(rig, "arena")
        await named(ada, "ada")
        await ada.until(lambda a: isinstance(a.screen, ArenaScreen), "the arena's standings")
        assert rig.server.lobby.arenas.joined.get("ada") == 1
        bob = await TestClient.connect("127.0.0.1", rig.server.port, "Bob",
                                       trust=ServerTrust.pinned(rig.server.fingerprint))
        await bob.send(JoinArena())
        await ada.until(lambda a: isinstance(a.screen, TableScreen) and a.model.view is not None, "the table")
        await op.close()
        await bob.close()
        await ada.close()
    finally:
        await rig.close()


async def test_the_app_opens_a_private_arena_with_capital_a_shows_its_code_and_a_friend_joins_by_it(
        tmp_path: Path) -> None:
    """Tried: Ada, no operator, presses A in the lobby and chooses to open her own arena; Bob joins with
    the code her standings screen shows. Found: she is in it at once (the client joins the arena it
    opened), the standings screen names the invite code; she closes it, and Bob's join by that code
    puts him in the same arena without opening her standings again by themselves (a does, with both)."""
    async with running_server(tmp_path, arena_bot_wait=3600.0) as h:
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("A")
            await wait_until(pilot, lambda: isinstance(app.screen, PrivateArenaScreen), "the private arena dialog")
            await pilot.click("#arena-open")
            await wait_until(pilot, lambda: isinstance(app.screen, ArenaScreen), "the standings")
            arena = app.model.arena
            assert arena is not None and arena.joined and arena.arena.private and arena.code
            await wait_until(pilot, lambda: f"Invite code {arena.code}" in rendered(app.screen, "#arena-title"),
                             "the code on the standings screen")
            await pilot.press("escape")  # to the lobby while she waits: the standings do not come back by themselves
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            bob = await h.connect("Bob")
            joined = await bob.request(JoinArena(code=arena.code.lower()), "arena")
            assert joined["joined"] is True and joined["arena"]["id"] == arena.arena.id
            await wait_until(pilot, lambda: app.model.arena is not None
                             and "Bob" in [line.name for line in app.model.arena.standings], "Bob's join told to Ada")
            await pilot.pause()
            assert isinstance(app.screen, LobbyScreen)
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, ArenaScreen)
                             and "Bob · 0 points" in rendered(app.screen, "#arena-standings"), "Bob in Ada's standings")


async def test_the_app_joins_a_private_arena_by_the_code_typed_in_its_dialog(tmp_path: Path) -> None:
    """Tried: Bob opens a private arena over the protocol; Ada, in the lobby with no arena listed,
    presses a and types its code. Found: a opens the private arena dialog (nothing public is listed),
    and the code typed there joins her to Bob's arena."""
    async with running_server(tmp_path, arena_bot_wait=3600.0) as h:
        bob = await h.connect("Bob")
        opened = await bob.request(CreateArena(minutes=30, seats=2, private=True, name="Tea"), "arena")
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, PrivateArenaScreen), "the private arena dialog")
            await pilot.press(*opened["code"], "enter")
            await wait_until(pilot, lambda: app.model.arena is not None and app.model.arena.joined,
                             "joined by the code")
            assert app.model.arena is not None and app.model.arena.arena.id == opened["arena"]["id"]


async def test_the_plain_mode_opens_a_private_arena_and_says_its_code(tmp_path: Path) -> None:
    """ono99 connect --plain: "arena new" opens a private arena with Kim in it and says its invite code
    as the line her friends type; Bob's join by that code is to the same arena."""
    async with running_server(tmp_path, arena_bot_wait=3600.0) as h:
        pane = Pane(tmp_path)
        await pane.connect(h.port, tmp_path, "--lang", "en")
        try:
            await pane.trust_the_server()
            await pane.wait_line("You are in the lobby.")
            await pane.keys("literal:arena new", "Enter")
            await pane.wait_line(lambda line: line.startswith("You joined Arena 2022 · "), "joined her own arena")
            said = await pane.wait_line(lambda line: line.startswith("Its invite code is "), "the code")
            code = said.split()[4].rstrip(":")
            assert said == f"Its invite code is {code}: your friends type arena {code}."
            bob = await h.connect("Bob")
            joined = await bob.request(JoinArena(code=code), "arena")
            assert joined["joined"] is True and joined["arena"]["name"] == "Arena 2022"
            assert rewrites(pane.stream) == []
        finally:
            await pane.close()
