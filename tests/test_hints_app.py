"""Hints in the app: h on the player's turn in a local game shows the best card and each playable card's
chance, searched in a worker thread while the screen goes on; at a server's table the host's option
decides, and without it h says why not."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Static

from ono99_kernel.wire.requests import CreateTable, Join, Stand, Start
from ono99_tui.analysis_hints import NoHint, seat_view
from ono99_tui.local_game import open_local_game
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby_list import table_rows
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import new_identity, running_server
from tests.test_tui import play_my_turn, wait_until


def why(app: Any) -> str:
    return str(app.screen.query_one("#why", Static).render())


async def my_turn_with_a_choice(pilot: Any, app: Any) -> None:
    """Play on until it is the player's turn with at least two cards to choose from."""
    while True:
        await wait_until(pilot, lambda: app.model.my_turn and isinstance(app.screen, TableScreen), "my turn")
        try:
            seat_view(app.model.view, app.model.game_events)
            return
        except NoHint:
            before = app.model.view.version
            await play_my_turn(pilot, app)
            await wait_until(pilot, lambda before=before: app.model.view.version != before, "the move taken")


async def test_h_in_a_local_game_shows_the_chances_from_a_worker_thread(monkeypatch: Any) -> None:
    """In a local game at 80×24, h on the player's turn: held after its first part, the search shows its
    progress under the cards, from a thread that is not the event loop; let go, the line names the best card
    with its chance and the other playable cards' chances."""
    from ono99_tui.tui import table as table_module

    go_on, started = threading.Event(), threading.Event()
    threads: list[threading.Thread] = []
    from ono99_tui.analysis_hints import hint as real

    def held(position: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        report = kwargs.pop("on_progress")

        def progress(done: int, total: int) -> None:
            report(done, total)
            if done == 1:
                started.set()
                assert go_on.wait(60)

        return real(position, on_progress=progress, **kwargs)

    monkeypatch.setattr(table_module, "hint", held)
    app = make_app(bot_delay=0.05, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await my_turn_with_a_choice(pilot, app)
        await pilot.press("h")
        await wait_until(pilot, started.is_set, "the search's first part")
        await wait_until(pilot, lambda: "▰▱" in why(app), "the progress under the cards")
        go_on.set()
        await wait_until(pilot, lambda: "%" in why(app), "the hint")
        said = " ".join(why(app).split())
        assert said.startswith("Hint: ") and "thinking" not in said, said
        assert threads and threads[0] is not threading.main_thread()


@pytest.mark.parametrize("allowed", [False, True], ids=["without", "with"])
async def test_h_at_a_server_table_follows_the_hosts_option(tmp_path: Path, allowed: bool) -> None:
    """Ada at Bob's table, Bob standing up once the game runs (a bot plays his cards): without hints, h says
    the host did not allow them; with them, the lobby's list and the table's
    title say "hints on" and h gives a hint on Ada's turn."""
    async with running_server(tmp_path) as harness:
        bob = await harness.connect("Bob", identity=new_identity())
        await bob.send(CreateTable(edition="2022", seats=2, turn_seconds=0, hints=allowed))
        await bob.expect("table")
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="Ada", identity=new_identity(),
                       trust=harness.trust)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: bool(app.model.tables), "the table list")
            assert app.model.tables[0].hints is allowed
            assert ("hints on" in " ".join(str(c) for c in table_rows(app.model.tables)[1][1])) is allowed
            app.send_message(Join(table=app.model.tables[0].id))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                             and app.model.table.you is not None, "Ada seated")
            await bob.send(Start())
            await bob.expect("state")
            await bob.send(Stand())
            await wait_until(pilot, lambda: app.model.view is not None, "the game")
            if not allowed:
                await pilot.press("h")
                await wait_until(pilot, lambda: "Hints are off" in why(app), "the refusal")
                return
            assert "hints on" in str(app.screen.query_one("#title", Static).render())
            await my_turn_with_a_choice(pilot, app)
            await pilot.press("h")
            await wait_until(pilot, lambda: "%" in why(app), "the hint")
            assert " ".join(why(app).split()).startswith("Hint: ")


async def test_analyse_on_the_game_over_dialog_opens_the_replay_with_the_players_analysis() -> None:
    """A local game played to its end at 80×24: the game-over dialog offers Analyse (a); a opens the replay
    of that game over the table, following the player's seat, with the analysis panel searching and then
    plotting the player's chances; the analysed decisions are the player's own moves of that game; Esc
    goes back to the table."""
    from ono99_tui.analysis import positions
    from ono99_tui.tui.game_over import GameOverScreen
    from ono99_tui.tui.replay import AnalysisPanel, ServerReplayScreen
    from tests.test_tui import play_to_the_end

    app = make_app(bot_delay=0, local_game=open_local_game)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view is not None,
                         "the game")
        await play_to_the_end(pilot, app)
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        assert "Analyse (a)" in [str(b.label) for b in app.screen.query("#buttons Button").results(Button)]
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ServerReplayScreen), "the replay")
        screen = app.screen
        assert isinstance(screen, ServerReplayScreen)
        await wait_until(pilot, lambda: 0 in screen.cursor.analyses, "the analysis", )
        await pilot.pause()
        assert screen.cursor.seat == 0 and screen.query_one(AnalysisPanel).display
        record = screen.cursor.record
        assert record is not None and record["players"][0]["kind"] == "human"
        _game, _steps, found = positions(record, [0])
        assert [d.step for d in screen.cursor.analyses[0].decisions] == [p.step for p, _action in found]
        if found:
            assert any(bar in str(screen.query_one("#analysis-plot", Static).render()) for bar in "▁▂▃▄▅▆▇█")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen | GameOverScreen), "the table again")


async def test_a_game_replayed_from_a_profile_follows_that_players_seat(tmp_path: Path) -> None:
    """Bob hosts and Cy sits in seat 1; they play a game. Ada opens Cy's profile and replays the game: the
    replay follows Cy's cards (seat 1), and a analyses Cy's moves."""
    import asyncio
    import random

    from ono99_tui.tui.profile import ProfileScreen
    from ono99_tui.tui.replay import ServerReplayScreen
    from tests.server_helpers import FAST_PLAY, create_table, play, storage_barrier

    async with running_server(tmp_path, **FAST_PLAY) as h:
        bob = await h.connect("Bob", identity=new_identity())
        cy = await h.connect("Cy", identity=new_identity())
        table_id = await create_table(bob, seats=2)
        await cy.send(Join(table=table_id))
        await cy.expect("table", where=lambda m: m["table"]["you"] == 1)
        await bob.send(Start())
        await asyncio.gather(play(bob, random.Random(1)), play(cy, random.Random(2)))
        await storage_barrier(bob)
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada", identity=new_identity(),
                       trust=h.trust)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: app.model.connected, "the lobby")
            app.show_profile("Cy")
            await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen) and app.model.profile is not None
                             and bool(app.model.profile.recent), "Cy's profile")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ServerReplayScreen), "the replay")
            replay = app.screen
            assert isinstance(replay, ServerReplayScreen) and replay.cursor.seat == 1
            await pilot.press("a")
            await wait_until(pilot, lambda: 1 in replay.cursor.analyses, "Cy's analysis")
            assert replay.cursor.analyses[1].name == "Cy"
