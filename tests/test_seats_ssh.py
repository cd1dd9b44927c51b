"""SSH sessions that must not fail or be closed: a terminal that reports no size, and a spectator
whose game keeps moving while they watch without pressing a key."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import CreateTable, Start
from ono99_tui.client.connection import Client
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import play_client
from tests.test_ssh import PATIENCE, Player, Rig, rig, start_rig, until  # noqa: F401  (rig is a fixture)


async def test_a_terminal_that_reports_0x0_gets_the_lobby_not_a_traceback(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    """``ssh -tt host </dev/null`` asks for a PTY of 0 columns and 0 rows: the session still shows
    the lobby, and nothing fails on the server."""
    player = await Player.connect(rig, "ada", size=(0, 0))
    try:
        await player.until_screen(LobbyScreen, "the lobby")
        await player.until_shown(b"you are", "the lobby's title")
        assert "failed" not in caplog.text and "Traceback" not in caplog.text, caplog.text
    finally:
        await player.close()


async def test_ssh_tt_with_no_input_says_bye_and_fails_nothing(
        rig: Rig, capfd: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    """What ``ssh -tt -p P host </dev/null`` does: a PTY of 0×0, and the end of input at once,
    while the session's app is still starting. The session ends with its farewell on the terminal
    (not a blank screen) and nothing fails on the server (no traceback)."""
    conn = await asyncssh.connect("127.0.0.1", rig.front.port, username="ada", known_hosts=None, agent_path=None,
                                  config=[], client_keys=[asyncssh.generate_private_key("ssh-ed25519")])
    try:
        stdin, stdout, _ = await conn.open_session(term_type="xterm", term_size=(0, 0), encoding=None,
                                                   request_pty=True)
        stdin.write_eof()
        output = bytearray()
        while data := await asyncio.wait_for(stdout.read(65536), PATIENCE):
            output += data
        assert b"Bye." in output
        await until(lambda: not rig.front.sessions, "the session to end on the server")
        err = capfd.readouterr().err
        assert "Traceback" not in err and "NoMatches" not in err, err
    finally:
        conn.close()


LONG_GAME_SEED = 6  # a deal whose game has 50 bot moves: 7.5 s of bot delays at 0.15 s each (the test checks)


async def test_a_spectator_is_not_idle_while_the_game_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a 4-second idle timeout, an SSH spectator who presses nothing at the table watches a whole
    game of a TCP player and bots that lasts longer than that, and is still there at its end; once the
    game is over and nothing moves, the idle timeout closes the session as before. (In the lobby the
    spectator presses a key that does nothing while the table is made: a busy machine may take longer
    than the timeout to list it.) The deal is fixed (``LONG_GAME_SEED``) so the game has enough bot
    moves that their delays alone outlast the timeout: a random deal once ended in 3.3 s."""
    idle = 4.0
    bot_delay = 0.15
    rig = await start_rig(tmp_path, ssh=SshSettings(idle_timeout=idle), bot_delay=bot_delay)  # noqa: F811
    monkeypatch.setattr("ono99_server.table_room.secrets.randbits", lambda bits: LONG_GAME_SEED)
    host = await Client.connect("127.0.0.1", rig.server.port, "Host")
    watcher = await Player.connect(rig, "watcher")
    try:
        await watcher.until_screen(LobbyScreen, "the lobby")
        await host.send(CreateTable(seats=4, bots=3, turn_seconds=0))
        table_id = (await host.expect("table"))["table"]["id"]

        async def listed() -> None:
            while not any(t.id == table_id for t in watcher.app.model.tables):
                await watcher.press("\x1b[B")  # down: a key pressed, nothing done with no table listed yet
                await asyncio.sleep(0.2)

        await asyncio.wait_for(listed(), PATIENCE)
        await watcher.press("s")
        await watcher.until_screen(TableScreen, "the table, as a spectator")
        loop = asyncio.get_running_loop()
        began = loop.time()
        await host.send(Start())
        await asyncio.wait_for(play_client(host), PATIENCE)
        lasted = loop.time() - began
        table = rig.server.lobby.tables[table_id]
        bot_moves = sum(1 for seat, _ in table.runner.actions if table.seats[seat].kind == "bot")
        assert bot_moves * bot_delay > idle, f"{bot_moves} bot moves: choose a deal with a longer game"
        assert lasted > idle, f"the game lasted {lasted:.1f} s: too short to show anything"
        await watcher.until(lambda a: a.model.view is not None and a.model.view.winner is not None,
                            "the spectator to see the end")
        assert not watcher.ended.is_set() and b"without a key pressed" not in watcher.output
        # its screen was a shared one (front/sharing.py): its app, held, took the moves in seconds later
        assert rig.front.sharing.joined >= 1
        await asyncio.wait_for(watcher.ended.wait(), PATIENCE)  # nothing moves now: idle
        assert b"without a key pressed" in watcher.output
    finally:
        await watcher.close()
        await host.close()
        await rig.close()
