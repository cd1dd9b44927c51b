"""``ono99 admin tournament create``: an operator schedules a public arena from the command line (a real
process against a real server with an operators' file), and the players in the lobby are told of it."""

from __future__ import annotations

from pathlib import Path

from ono99_kernel.identity import Identity
from ono99_tui.admin import start_time
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.player_menu import PlayerMenu, PlayersScreen, ReasonScreen
from tests.server_helpers import new_identity, ono99, running_server
from tests.test_player_menu import choose
from tests.test_tui import wait_until


async def test_an_operator_schedules_a_public_arena_and_the_lobby_is_told(tmp_path: Path) -> None:
    """Tried: ``ono99 admin tournament create --edition 1980 --seats 3 --start HH:MM --minutes 60`` by an
    operator while Bo waits in the lobby, then a time that is none. Found: the arena is opened, said on
    the command's output, and pushed to Bo in an ``arenas`` message; the bad time is refused before
    anything is sent."""
    operator_dir = tmp_path / "ada"
    ada = Identity.load_or_create(operator_dir)
    admins = tmp_path / "admins"
    admins.write_text(" ".join(ada.public_key.split()[:2]) + " ada@desk\n")
    async with running_server(tmp_path, admins=admins) as h:
        bo = await h.connect("Bo")
        where = ("--server", f"127.0.0.1:{h.port}", "--server-fingerprint", h.server.fingerprint,
                 "--data-dir", str(operator_dir))
        result = await ono99("--lang", "en", "admin", "tournament", "create", "--edition", "1980", "--seats", "3",
                             "--start", "23:59", "--minutes", "60", "--name", "Night owls", *where)
        assert (result.returncode, result.stderr) == (0, ""), result
        assert result.stdout.startswith("arena 1 opened: Night owls, 1980, 3 seats, from ")
        (arena,) = h.server.lobby.arenas.arenas.values()
        assert (arena.edition, arena.seats, arena.minutes, arena.private) == ("1980", 3, 60, False)
        listed = await bo.expect("arenas", timeout=5)
        assert [(a["name"], a["status"]) for a in listed["arenas"]] == [("Night owls", "upcoming")]
        result = await ono99("--lang", "en", "admin", "tournament", "create", "--start", "teatime", "--minutes",
                             "60", *where)
        assert result.returncode == 2 and "'teatime' is no time" in result.stderr


def test_a_start_time_of_day_already_past_is_tomorrows() -> None:
    noon = start_time("2026-12-06 12:00")
    assert start_time("11:00", now=noon) == noon + 23 * 3600
    assert start_time("13:30", now=noon) == noon + 5400
    assert start_time("now", now=noon) == noon


async def test_an_operator_opens_a_public_arena_from_the_apps_player_menu(tmp_path: Path) -> None:
    """Tried: an operator's app, w, a player, "Operator: open a public arena now, for an hour…", a name.
    Found: the server opens a public arena of that name for 60 minutes, and the lobby lists it."""
    ada = new_identity()
    admins = tmp_path / "admins"
    admins.write_text(" ".join(ada.public_key.split()[:2]) + " ada\n")
    async with running_server(tmp_path, admins=admins) as h:
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada", identity=ada)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.model.safety is not None
                             and app.model.safety.operator, "the lobby, as an operator")
            await h.connect("Bob")
            await wait_until(pilot, lambda: any(p.name == "Bob" for p in app.model.online), "Bob online")
            await pilot.press("w")
            await choose(pilot, app, PlayersScreen, "Bob")
            await choose(pilot, app, PlayerMenu, "arena")
            await wait_until(pilot, lambda: isinstance(app.screen, ReasonScreen), "the arena's name")
            await pilot.press(*"Evening", "enter")
            await wait_until(pilot, lambda: bool(app.model.arenas), "the lobby's list of arenas")
            (arena,) = h.server.lobby.arenas.arenas.values()
            assert (arena.name, arena.minutes, arena.seats, arena.private) == ("Evening", 60, 4, False)
            assert "Evening · 1 h 0 min left · 0 players · a: join" in str(
                app.screen.query_one("#lobby-notice").render())
