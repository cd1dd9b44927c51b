"""The SSH front against real parts: an in-process ``Server`` with its ``SshFront`` on 127.0.0.1
port 0, real asyncssh clients with a PTY typing keys, a TCP protocol client at the same tables,
and the real OpenSSH ``ssh`` driven through ``tmux``.

The server-side app of a session is read only to decide which key a player presses and to check
what a key did; every key goes through SSH, the driver and Textual's parser. Waits are for a
condition with generous deadlines, never measurements.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import gc
import inspect
import io
import os
import shutil
import socket
import sys
import uuid
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import pytest
import textual
from textual.driver import Driver
from textual.screen import Screen

from ono99_kernel.fronts import new_credential
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import CreateTable, Join, Start
from ono99_server import Server, ServerConfig
from ono99_tui.client.connection import Client
from ono99_tui.front import textual_driver
from ono99_tui.front.session_app import NameScreen, SessionApp
from ono99_tui.front.ssh import SshFront, SshSession
from ono99_tui.front.textual_driver import MAX_COLUMNS, MAX_ROWS, SessionParser
from ono99_tui.serve import front_config_for
from ono99_tui.tui.game_over import GameOverScreen
from ono99_tui.tui.help import HelpScreen
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.seats import ConfirmScreen
from ono99_tui.tui.table import TableScreen
from tests.app_state import table_of, view_of
from tests.server_helpers import play_client
from tests.textual_compat import (
    app_redirects,
    notification_texts,
    richlog_waits_for_its_size,
    screen_resume_handler_is_screens_own,
    shared_key_parse,
    stylesheet_keeps_its_variables,
    stylesheet_parse,
)

CREDENTIAL = new_credential()  # the in-process front reaches the game server over loopback TCP, trusted
PATIENCE = 30.0  # seconds a wait may take before the test fails; never a speed requirement
KEYS = {"enter": b"\r", "escape": b"\x1b", "tab": b"\t", "ctrl+p": b"\x10"}


# --- the rig ----------------------------------------------------------------------------------------
@dataclass
class Rig:
    server: Server
    front: SshFront
    tmp_path: Path

    async def close(self) -> None:
        self.front.stop_listening()
        await self.server.close()
        await self.front.close()


async def start_rig(tmp_path: Path, **overrides: Any) -> Rig:
    ssh: SshSettings = overrides.pop("ssh", SshSettings())
    values: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "ssh_port": 0, "bot_delay": 0,
                              "default_turn_seconds": 0, "grace_seconds": 120, "db_path": tmp_path / "x.db",
                              "tls_cert": tmp_path / "tls_cert.pem", "tls_key": tmp_path / "tls_key.pem",
                              "ssh": ssh if ssh.host_key is not None else replace(ssh, host_key=tmp_path / "keys"
                                                                                   / "host_key")}
    values.update(overrides)
    values["front_credentials"] = (CREDENTIAL,)
    server = Server(ServerConfig(**values))
    await server.start()
    front = SshFront(front_config_for(server.config, server.port, server.fingerprint, CREDENTIAL))
    await front.start()
    server.access.ssh_hint = f"ssh -p {front.port} HOST"
    return Rig(server, front, tmp_path)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    rig = await start_rig(tmp_path)
    try:
        yield rig
    finally:
        await rig.close()


async def until(condition: Callable[..., object], what: str, timeout: float = PATIENCE) -> None:
    """Wait until ``condition()`` holds (``...``: a lambda in a loop binds the loop's values as defaults)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def until_released(apps: Iterable[weakref.ref[Any]], what: str) -> None:
    """Wait until none of ``apps`` is left. asyncio keeps a cancelled timer, and the context it was made
    in (which names its app), until the time it was set for: an app can outlive its session by as long
    as its longest timer. A full garbage collection takes up to a quarter of a second after a hundred
    sessions: one every half second, not one every 10 ms."""
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    while gc.collect() is not None and any(app() is not None for app in apps):
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.5)


# --- an SSH player ---------------------------------------------------------------------------------
class WithSshFront(Protocol):
    """A rig with an SSH front for players to connect to (``Rig`` here, test_web.py's ``MixedRig``)."""

    @property
    def front(self) -> SshFront: ...


class Player:
    """A real asyncssh client with a PTY, and the server-side session it opened."""

    def __init__(self, conn: asyncssh.SSHClientConnection, stdin: Any, stdout: Any,
                 session: SshSession | None) -> None:
        self.conn = conn
        self.stdin = stdin
        self.stdout = stdout
        self._session = session  # None only without a PTY (the front opens no session then)
        self.output = bytearray()
        self.ended = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @property
    def session(self) -> SshSession:
        """The server-side session of a player with a PTY."""
        assert self._session is not None, "a player without a PTY has no session on the front"
        return self._session

    @classmethod
    async def connect(cls, rig: WithSshFront, username: str = "ada", *, key: asyncssh.SSHKey | bool | None = True,
                      term: str = "xterm-256color", size: tuple[int, int] = (100, 30),
                      env: dict[str, str] | None = None, pty: bool = True) -> Player:
        """``key``: True for a new key, an SSHKey, or None for a guest."""
        if key is True:
            key = asyncssh.generate_private_key("ssh-ed25519")
        conn = await asyncssh.connect(
            "127.0.0.1", rig.front.port, username=username, known_hosts=None, agent_path=None, config=[],
            client_keys=[key] if isinstance(key, asyncssh.SSHKey) else [],
            password=None if isinstance(key, asyncssh.SSHKey) else "guest")
        local_port = conn.get_extra_info("sockname")[1]
        stdin, stdout, _ = await conn.open_session(term_type=term if pty else None, term_size=size if pty else None,
                                                   env=env or {}, encoding=None, request_pty=pty)
        await until(lambda: any(s.owner.port == local_port for s in rig.front.sessions) or not pty,
                    "the server-side session")
        session = next((s for s in rig.front.sessions if s.owner.port == local_port), None)
        return cls(conn, stdin, stdout, session)

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                data = await self.stdout.read(65536)
                if not data:
                    break
                self.output += data
        self.ended.set()

    @property
    def app(self) -> SessionApp:
        app = self.session.app
        assert isinstance(app, SessionApp), "the session has ended (or is a plain one)"
        return app

    async def press(self, *keys: str) -> None:
        for key in keys:
            self.stdin.write(KEYS.get(key, key.encode()))
        await asyncio.sleep(0)

    async def type(self, text: str) -> None:
        self.stdin.write(text.encode())

    async def until(self, condition: Callable[..., object], what: str) -> None:
        """Wait until ``condition(app)`` holds for this session's app (one with a screen: between its
        start and its first screen, or once it has ended, an app has none to ask about)."""
        def ready() -> bool:
            app = self.session.app
            has_screen = app is not None and (not isinstance(app, SessionApp) or bool(app.screen_stack))
            return has_screen and bool(condition(app))

        await until(ready, what)

    async def until_screen(self, screen: builtins.type[Screen[Any]], what: str) -> None:
        await self.until(lambda app: isinstance(app.screen, screen), what)

    async def until_shown(self, text: bytes, what: str) -> None:
        await until(lambda: text in self.output, f"{what} ({text!r} on the client's terminal)")

    async def close(self) -> None:
        self.conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.wait_closed(), PATIENCE)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, PATIENCE)


def key_for_turn(app: SessionApp) -> str | None:
    """The key that plays this turn: a legal card's number, f for the four-card discard, d to draw."""
    view = app.model.view
    if view is None or view.winner is not None or not (app.model.my_turn or app.model.can_draw):
        return None
    if "draw" in view.legal:
        return "d"
    index = next((i for i, code in enumerate(view.hand) if code in view.legal), None)
    return "f" if index is None else str(index + 1)


class KeyPlayer(Protocol):
    """What ``play_through_keys`` needs of a player: its session's app, keys, and a wait on the app."""

    @property
    def app(self) -> SessionApp: ...

    async def press(self, *keys: str) -> None: ...

    async def until(self, condition: Callable[..., object], what: str) -> None: ...


async def play_through_keys(player: KeyPlayer, moves_wanted: int | None = None) -> int:
    """Press keys for the player's turns until the game is over (or ``moves_wanted`` moves); returns
    the number of moves made. Fails when the game stops moving (no new state for PATIENCE seconds)."""
    loop = asyncio.get_running_loop()
    moves = 0
    version: int | None = -1
    moved_at = loop.time()
    while True:
        app = player.app
        view = app.model.view
        if view is not None and view.winner is not None:
            return moves
        if moves_wanted is not None and moves >= moves_wanted:
            return moves
        if (view.version if view is not None else None) != version:
            version, moved_at = (view.version if view is not None else None), loop.time()
        elif loop.time() > moved_at + PATIENCE:
            raise AssertionError(f"the game stopped moving at version {version}")
        key = key_for_turn(app)
        if key is None:
            await asyncio.sleep(0.01)
            continue
        before = view.version if view else -1
        await player.press(key)
        await player.until(lambda a, b=before: a.model.view is not None and (a.model.view.version != b),
                           "the server to take the move")
        moves += 1


def at_the_table(app: SessionApp) -> bool:
    """The app shows its table with a game's view (under the game-over dialog once that game is over)."""
    return any(isinstance(screen, TableScreen) for screen in app.screen_stack) and app.model.view is not None


async def create_table_through_keys(player: Player) -> None:
    """n for a new table, then Enter: the dialog opens with its first choice focused, and Enter starts."""
    await player.until_screen(LobbyScreen, "the lobby")
    await player.press("n")
    await player.until_screen(NewGameScreen, "the new table dialog")
    await player.until(lambda a: a.focused is not None and a.focused.id == "edition", "Edition to take the focus")
    await player.press("enter")
    await player.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None, "the new table")


# --- playing ---------------------------------------------------------------------------------------
async def test_an_ssh_player_plays_a_full_game_through_the_keyboard(rig: Rig) -> None:
    """Keys alone, each one byte with no Enter (asyncssh's line editor is off): a table with bots,
    a whole game, the game-over dialog closed with a lone Esc, q to leave."""
    ada = await Player.connect(rig, "ada")
    await ada.until_shown(b"you are", "the lobby")
    assert ada.app.model.my_name == "ada"
    await create_table_through_keys(ada)
    await ada.press("s")  # the host starts: empty seats get bots
    await ada.until(lambda a: a.model.view is not None, "the game to start")
    assert await play_through_keys(ada) > 0
    await ada.until_screen(GameOverScreen, "the game-over dialog")
    await ada.until_shown(b" win", "the winner")  # "Bot 2 wins!" or "You win!"
    await ada.press("escape")  # alone: only the parser's timeout makes it the Escape key
    await ada.until_screen(TableScreen, "the table after Esc")
    await ada.press("q")
    await asyncio.wait_for(ada.ended.wait(), PATIENCE)
    assert b"Bye." in ada.output
    assert b"\x1b[?1049l" in ada.output  # the terminal was given back
    await ada.close()


async def test_two_ssh_players_and_a_tcp_client_play_at_one_table(rig: Rig) -> None:
    ada = await Player.connect(rig, "ada")
    bo = await Player.connect(rig, "bo")
    await create_table_through_keys(ada)
    table_id = table_of(ada.app).id
    await bo.until(lambda a: isinstance(a.screen, LobbyScreen) and a.model.tables, "the table in bo's lobby")
    await bo.press("j")
    await bo.until_screen(TableScreen, "bo at the table")
    cy = await Client.connect("127.0.0.1", rig.server.port, "cy")
    try:
        await cy.send(Join(table=table_id))
        await ada.until(lambda a: {s.name for s in table_of(a).seats} >= {"ada", "bo", "cy"},
                        "three players seated")
        await ada.press("s")
        cy_game = asyncio.create_task(play_client(cy, PATIENCE))
        ssh_games = [asyncio.create_task(play_through_keys(p)) for p in (ada, bo)]
        await asyncio.wait_for(asyncio.gather(*ssh_games), PATIENCE * 2)
        winner = await asyncio.wait_for(cy_game, PATIENCE)
        assert view_of(ada.app).winner == view_of(bo.app).winner == winner
        seats = {s.name for s in table_of(ada.app).seats}
        assert {"ada", "bo", "cy"} <= seats
    finally:
        await cy.close()
        await ada.close()
        await bo.close()


async def test_resize_relays_out_the_screen(rig: Rig) -> None:
    ada = await Player.connect(rig, "ada", size=(100, 30))
    await ada.until_screen(LobbyScreen, "the lobby")
    await ada.until(lambda a: a.screen.size == (100, 30), "the first layout")
    shown = len(ada.output)
    ada.stdin.channel.change_terminal_size(60, 20)
    await ada.until(lambda a: a.screen.size == (60, 20) and a.screen.query_one("#title").region.width == 60,
                    "the layout at 60x20")
    await until(lambda: len(ada.output) > shown, "a redraw")
    ada.stdin.channel.change_terminal_size(100_000, 100_000)  # a claim, not a terminal
    await ada.until(lambda a: a.screen.size == (MAX_COLUMNS, MAX_ROWS), "the clamped size")
    await ada.close()


async def test_the_same_key_returns_to_its_seat_and_a_guest_picks_a_name(rig: Rig) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    ada = await Player.connect(rig, "ada", key=key)
    await create_table_through_keys(ada)
    await ada.press("s")
    await ada.until(lambda a: a.model.view is not None, "the game to start")
    seat, table_id = view_of(ada.app).seat, table_of(ada.app).id
    ada.conn.abort()  # the connection drops
    member = rig.server.lobby.members["ada"]
    await until(lambda: member.connection is None, "the server to notice")
    assert member.table is not None and member.table.seat_of(member) == seat

    # A bot stands in for Ada at once (bot_delay 0), so the game may be over by the time the key is back: the
    # seat is then shown with the game-over dialog on the table screen.
    back = await Player.connect(rig, "someone-else", key=key)  # the key is the identity, not the user name
    await back.until(at_the_table, "the seat again")
    assert back.app.model.my_name == "ada"
    assert view_of(back.app).seat == seat and table_of(back.app).id == table_id
    assert rig.server.lobby.members["ada"] is member

    again = await Player.connect(rig, "ada", key=key)  # the same key elsewhere takes the seat over
    await again.until(at_the_table, "the seat in the newer session")
    await asyncio.wait_for(back.ended.wait(), PATIENCE)
    assert b"you connected again from elsewhere" in back.output

    # the key's fingerprint is the player's identity, as for a TCP client proving the same key
    assert rig.server.lobby.by_identity[key.get_fingerprint()] is member
    assert (rig.tmp_path / "keys" / "host_key").stat().st_mode & 0o777 == 0o600

    guest = await Player.connect(rig, "ada", key=None)  # no key, and a user name that is taken
    await guest.until_screen(NameScreen, "the name screen")
    await guest.press("enter")  # the user name is offered: ada, taken
    await guest.until(lambda a: isinstance(a.screen, NameScreen) and "taken" in a.screen.problem, "why not")
    await guest.type("ada2")  # the offered name is selected: typing replaces it
    await guest.press("enter")
    await guest.until_screen(LobbyScreen, "the guest's lobby")
    assert guest.app.model.my_name == "ada2"
    for player in (back, again, guest):
        await player.close()


async def test_keys_typed_in_one_burst_are_all_delivered_in_order(rig: Rig) -> None:
    """SSH input often arrives in bursts (a slow link, a paste, a script). Tried: ``ctrl+u xyzzy
    Enter`` written at once into the name box. Textual runs a focused input's bindings (ctrl+u,
    Enter) only once the key has bubbled back up to the app, so the name used to be typed, then
    wiped, then the empty box sent; then ``abc``, two backspaces and ``d`` in one burst, in the
    lobby's chat."""
    guest = await Player.connect(rig, "someone", key=None)
    await guest.until(lambda a: isinstance(a.screen, NameScreen) and a.focused is not None and a.focused.id == "name",
                      "the name box, focused")
    guest.stdin.write(b"\x15xyzzy\r")
    await guest.until_screen(LobbyScreen, "the lobby")
    assert guest.app.model.my_name == "xyzzy" and "xyzzy" in rig.server.lobby.members
    await guest.press("c")
    await guest.until(lambda a: a.focused is not None and a.focused.id == "lobby-chat-input", "the chat box")
    guest.stdin.write(b"abc\x7f\x7fd\r")
    await until(lambda: any(line.text == "ad" for line in rig.server.lobby.lobby_chat.lines), "the chat line")
    await guest.close()


async def test_invite_code_shortcuts_in_the_user_name(rig: Rig) -> None:
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send(CreateTable(name="private", seats=4, private=True))
        code = (await host.expect("table"))["table"]["code"]
        key = asyncssh.generate_private_key("ssh-ed25519")
        first_visit = await Player.connect(rig, "jo", key=key)
        await first_visit.until_screen(LobbyScreen, "jo's lobby")
        await first_visit.press("q")
        await asyncio.wait_for(first_visit.ended.wait(), PATIENCE)
        await first_visit.close()
        # CODE@HOST: the key's name from its last visit, straight to a seat at the code's table
        joiner = await Player.connect(rig, code.lower(), key=key)
        await joiner.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None
                           and a.model.table.you is not None, "a seat at the private table")
        assert joiner.app.model.my_name == "jo"
        await joiner.until(lambda a: any("Press l for the lobby" in n for n in notification_texts(a)),
                           "how to get back to the lobby")
        await joiner.until_shown(b"the lobby, ? for help", "the hint on the client's terminal")
        # watch-CODE@HOST as a guest: a name first, then a spectator's view
        watcher = await Player.connect(rig, f"watch-{code}", key=None)
        await watcher.until_screen(NameScreen, "a guest's name screen")
        await watcher.type("wat")
        await watcher.press("enter")
        await watcher.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None, "the table")
        assert table_of(watcher.app).you is None
        assert [s.name for s in table_of(watcher.app).seats][:2] == ["tess", "jo"]
        await joiner.press("l")
        await joiner.until_screen(LobbyScreen, "the lobby after l")
        await joiner.close()
        await watcher.close()
    finally:
        await host.close()


async def test_an_invite_code_whose_game_has_started_says_so_and_offers_to_watch(rig: Rig) -> None:
    """``ssh CODE@host`` while the code's table plays a game: there is no seat to take, and the
    session says so (it used to land in the lobby with no word) and offers to watch; yes watches."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send(CreateTable(name="private", seats=2, bots=1, private=True, turn_seconds=0, start=True))
        code = (await host.expect("table", where=lambda m: m["table"]["status"] == "playing"))["table"]["code"]
        key = asyncssh.generate_private_key("ssh-ed25519")
        first_visit = await Player.connect(rig, "jo", key=key)
        await first_visit.until_screen(LobbyScreen, "jo's lobby")
        await first_visit.press("q")
        await asyncio.wait_for(first_visit.ended.wait(), PATIENCE)
        await first_visit.close()
        late = await Player.connect(rig, code.lower(), key=key)
        await late.until(lambda a: isinstance(a.screen, ConfirmScreen) and "has already started" in a.screen.question,
                         "the word that the game has started")
        assert isinstance(late.app.screen, ConfirmScreen) and code in late.app.screen.question
        await late.press("y")
        await late.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None
                         and a.model.table.code == code and a.model.view is not None, "the game, watched")
        assert table_of(late.app).you is None
        await late.close()
    finally:
        await host.close()


# --- what is refused --------------------------------------------------------------------------------
async def test_exec_sftp_forwarding_and_ptyless_sessions_are_refused(rig: Rig) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with asyncssh.connect("127.0.0.1", rig.front.port, username="eve", client_keys=[key], known_hosts=None,
                                agent_path=None, config=[]) as conn:
        refused = await conn.run("id", stdin=asyncssh.DEVNULL)  # like 'ssh host id': a reason, nothing run
        assert refused.exit_status == 1 and not refused.stdout
        assert "ONO 99 runs no commands" in str(refused.stderr) and "ssh -t -p" in str(refused.stderr)
        assert str(refused.stderr).count("\n") == 1
        with pytest.raises((asyncssh.ChannelOpenError, asyncssh.SFTPError)):
            await conn.start_sftp_client()
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_connection("127.0.0.1", rig.server.port)  # local forwarding
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
    async with asyncssh.connect("127.0.0.1", rig.front.port, username="eve", client_keys=[key], known_hosts=None,
                                agent_path=None, config=[]) as conn:
        result = await conn.run(None, term_type=None, request_pty=False, stdin=asyncssh.DEVNULL)
        assert result.exit_status == 1
        assert "ssh -t -p" in str(result.stdout) and "'ssh -tt'" in str(result.stdout)
        assert str(result.stdout).count("\n") == 1
        assert not rig.front.sessions
    # agent and X11 forwarding: asked for with a session that is otherwise fine
    os.environ.setdefault("DISPLAY", ":0")
    async with asyncssh.connect("127.0.0.1", rig.front.port, username="eve", client_keys=[key], known_hosts=None,
                                agent_path=None, config=[], agent_forwarding=True, x11_forwarding=True,
                                x11_auth_path=str(rig.tmp_path / "no-xauth")) as conn:
        with pytest.raises(asyncssh.ChannelOpenError, match="X11"):
            await conn.open_session(term_type="xterm", term_size=(80, 24))
    player = await Player.connect(rig, "eve", key=key)
    await player.until_screen(LobbyScreen, "the lobby, after all that")
    assert player.session.chan is not None and player.session.chan.get_agent_path() is None
    with pytest.raises(asyncssh.ChannelOpenError):  # one session per connection
        await player.conn.open_session(term_type="xterm", term_size=(80, 24))
    await player.close()


async def test_a_session_cannot_touch_the_server_machine(rig: Rig, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's defaults save files to the server's disk and open its browser; the session's driver
    and app refuse, and there is no command palette to ask for one."""
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **k: opened.append(url))
    drop = tmp_path / "drop"
    drop.mkdir()
    ada = await Player.connect(rig, "ada")
    await ada.until_screen(LobbyScreen, "the lobby")
    app = ada.app
    failed: list[Any] = []
    app.deliver_binary(io.BytesIO(b"secret"), save_directory=drop, save_filename="a.bin")
    app.deliver_text(io.StringIO("secret"), save_directory=drop, save_filename="b.txt")
    app.deliver_screenshot("c.svg", str(drop))
    app.save_screenshot("d.svg", str(drop))
    app.action_screenshot("e.svg", str(drop))
    app.open_url("https://example.com/")
    await ada.until(lambda a: any("Open this link" in n for n in notification_texts(a)), "the link notice")
    await asyncio.sleep(0.2)  # let any delivery thread run (there must be none)
    assert list(drop.iterdir()) == [] and opened == [] and not failed
    await ada.press("ctrl+p", "b")  # no palette opens: the key after it reaches the lobby (its leaderboard)
    await ada.until(lambda a: type(a.screen).__name__ == "LeaderboardScreen", "the leaderboard")
    assert not app.use_command_palette and list(drop.iterdir()) == []
    await ada.close()


# --- sharing one process ----------------------------------------------------------------------------
async def test_colour_depth_follows_each_clients_terminal(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORTERM", "truecolor")  # the server's own terminal: none of the clients' business
    monkeypatch.setenv("NO_COLOR", "1")
    players = {
        "256": await Player.connect(rig, "a", term="xterm-256color"),
        "standard": await Player.connect(rig, "b", term="xterm"),
        "truecolor": await Player.connect(rig, "c", term="xterm", env={"COLORTERM": "truecolor"}),
    }
    for depth, player in players.items():
        await player.until_shown(b"you are", "the lobby")
        assert player.session.terminal is not None and player.session.terminal.color_system == depth
        assert player.app.console.color_system == "truecolor"  # what every session app renders in
        assert not player.app.no_color
    assert b"38;5;" in players["256"].output and b"38;2;" not in players["256"].output
    assert b"38;5;" not in players["standard"].output and b"38;2;" not in players["standard"].output
    assert b"38;2;" in players["truecolor"].output
    for player in players.values():
        await player.close()


@pytest.mark.long
async def test_overlapping_sessions_leave_the_process_stdout_alone(rig: Rig) -> None:
    """Textual points sys.stdout at each running app; overlapping runs would restore each other's
    captures out of order. Session apps never touch it."""
    stdout, stderr = sys.stdout, sys.stderr
    first = await Player.connect(rig, "a")
    await first.until_screen(LobbyScreen, "the first lobby")
    second = await Player.connect(rig, "b")
    await second.until_screen(LobbyScreen, "the second lobby")
    assert sys.stdout is stdout and sys.stderr is stderr
    first_app = weakref.ref(first.app)
    await first.close()  # the first ends while the second runs
    await until(lambda: first.session.app is None, "the first session to end")
    assert sys.stdout is stdout and sys.stderr is stderr
    await second.close()
    await until(lambda: not rig.front.sessions, "the second session to end")
    assert sys.stdout is stdout and sys.stderr is stderr
    await until_released([first_app], "the first app to be released")


async def test_a_paste_flood_in_one_session_does_not_hold_up_another(rig: Rig) -> None:
    flood = await Player.connect(rig, "flood")
    calm = await Player.connect(rig, "calm")
    await flood.until_screen(LobbyScreen, "the flooding lobby")
    await calm.until_screen(LobbyScreen, "the calm lobby")
    sent = 200_000
    await flood.type("x" * sent)  # no binding: each is a key event for the app to route
    terminal = flood.session.terminal
    assert terminal is not None
    await until(lambda: terminal.pending_bytes + terminal.delivered_bytes > 0, "the flood to arrive")
    await calm.press("?")
    await calm.until_screen(HelpScreen, "the other session to answer")
    assert terminal.delivered_bytes < sent // 4  # held back at the session's rate, not all on the shared loop
    await flood.close()
    await calm.close()


@pytest.mark.system
@pytest.mark.long  # the longest system test: the first one handed out
async def test_memory_returns_to_baseline_after_100_sessions(rig: Rig, pythons_own_gc: None) -> None:
    """Sessions come and go; every App is released (Textual's parser cache once kept each one,
    through the key events it cached: the kitty-protocol keys below go through that path)."""

    keys = "\x1b[106u\x1b[27u"  # j (join: no table to join) and Esc, in the kitty keyboard protocol

    async def one_session(name: str) -> weakref.ref[SessionApp]:
        player = await Player.connect(rig, name)
        await player.until_shown(b"you are", "the lobby")
        await player.press(keys)
        await until(lambda: player.session.terminal is not None and player.session.terminal.delivered_bytes
                    >= len(keys), "the keys to reach the parser")
        app = weakref.ref(player.app)
        await player.close()
        await until(lambda: not rig.front.sessions, "the session to end")
        return app

    for i in range(5):  # warm up caches that are meant to stay
        await one_session(f"warm{i}")
    gc.collect()
    before = rss_bytes()
    apps = [await one_session(f"p{i}") for i in range(100)]

    await until_released(apps, "every finished session's app to be released")
    grown = rss_bytes() - before
    assert grown < 40 * 1024 * 1024, f"resident memory grew by {grown / 2**20:.1f} MiB over 100 sessions"
    assert not rig.front.sessions and not rig.front.connections and not rig.server.channels
    assert [c.link is not None for c in rig.server.connections] == [True]  # the front's one link stays
    assert rig.server.lobby.members == {}


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


# --- limits and auth ----------------------------------------------------------------------------------
async def test_limits_per_address_idle_and_login(tmp_path: Path) -> None:
    """Past two sessions from one address the next is refused, looked for on a front without timeouts
    (on a busy machine a third login could take longer than a short login timeout, or the first two
    go idle first); then, with short timeouts, idle sessions and a silent connection are closed."""
    (tmp_path / "limit").mkdir()
    rig = await start_rig(tmp_path / "limit", ssh=SshSettings(max_sessions_per_address=2, idle_timeout=3600.0,
                                                              login_timeout=3600.0))
    try:
        players = [await Player.connect(rig, "a"), await Player.connect(rig, "b")]
        with pytest.raises(asyncssh.DisconnectError, match="too many sessions"):
            await Player.connect(rig, "c")
        for player in players:
            await player.close()
    finally:
        await rig.close()
    rig = await start_rig(tmp_path, ssh=SshSettings(max_sessions_per_address=2, idle_timeout=1.0, login_timeout=1.0))
    try:
        first = await Player.connect(rig, "a")
        second = await Player.connect(rig, "b")
        # nothing typed: the idle timeout ends both sessions, each with a line saying why
        await asyncio.wait_for(asyncio.gather(first.ended.wait(), second.ended.wait()), PATIENCE)
        assert b"without a key pressed" in first.output
        await until(lambda: not rig.front.connections, "the server to close the finished connections")
        # a connection that never logs in is closed after the login timeout
        reader, writer = await asyncio.open_connection("127.0.0.1", rig.front.port)
        await asyncio.wait_for(reader.read(), PATIENCE)  # the version line, then the end
        writer.close()
        third = await Player.connect(rig, "c")  # the slots were given back
        await third.until_screen(LobbyScreen, "a lobby")
        for player in (first, second, third):
            await player.close()
    finally:
        await rig.close()


async def test_connections_that_never_log_in_from_many_addresses_never_keep_a_player_out(tmp_path: Path) -> None:
    """40 TCP connections to the SSH port from 20 addresses (127.0.0.10 to .29) say nothing, on a
    front with room for 10 sessions and a login timeout far longer than the test. Tried: they hold
    at most their own budget (6 logging in, 2 per address), and a player still logs in and reaches
    the lobby."""
    rig = await start_rig(tmp_path, ssh=SshSettings(max_sessions=10, max_waiting_logins=6,
                                                   max_waiting_logins_per_address=2, login_timeout=120.0))
    silent: list[asyncio.StreamWriter] = []
    try:
        for i in range(40):
            address = f"127.0.0.{10 + i % 20}"
            _, writer = await asyncio.open_connection("127.0.0.1", rig.front.port, local_addr=(address, 0))
            silent.append(writer)
        await until(lambda: len(rig.front.waiting) == 6, "the budget of connections logging in to be full")
        player = await Player.connect(rig, "ada")
        await player.until_screen(LobbyScreen, "the lobby, beside 40 silent connections")
        assert len(rig.front.waiting) <= 6
        await player.close()
    finally:
        for writer in silent:
            writer.close()
        await rig.close()


async def test_auth_modes_authorized_keys_and_password(tmp_path: Path) -> None:
    allowed, other = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    keys_file = tmp_path / "authorized_keys"
    keys_file.write_bytes(allowed.export_public_key())
    rig = await start_rig(tmp_path, ssh=SshSettings(auth="authorized-keys", authorized_keys=keys_file))
    try:
        player = await Player.connect(rig, "ada", key=allowed)
        await player.until_screen(LobbyScreen, "the lobby for a listed key")
        await player.close()
        for key in (other, None):  # another key, or none at all
            with pytest.raises(asyncssh.PermissionDenied):
                await Player.connect(rig, "eve", key=key)
        banners: list[str] = []

        class Listening(asyncssh.SSHClient):
            def auth_banner_received(self, msg: str, lang: str) -> None:
                banners.append(msg)

        with pytest.raises(asyncssh.PermissionDenied):  # a refused key is told its line, for the host's file
            await asyncssh.connect("127.0.0.1", rig.front.port, username="eve", client_keys=[other], known_hosts=None,
                                   agent_path=None, config=[], client_factory=Listening)
        told = [b for b in banners if other.get_fingerprint() in b and "authorized_keys" in b]
        assert len(told) == 1, banners
    finally:
        await rig.close()
    rig = await start_rig(tmp_path, ssh=SshSettings(auth="password", password="open sesame"))
    try:
        with pytest.raises(asyncssh.PermissionDenied):
            await asyncssh.connect("127.0.0.1", rig.front.port, username="eve", password="wrong", known_hosts=None,
                                   client_keys=[], agent_path=None, config=[])
        conn = await asyncssh.connect("127.0.0.1", rig.front.port, username="ada", password="open sesame",
                                      known_hosts=None, client_keys=[allowed], agent_path=None, config=[])
        _stdin, _stdout, _ = await conn.open_session(term_type="xterm", term_size=(80, 24), encoding=None)
        await until(lambda: rig.front.sessions, "the session")
        session = next(iter(rig.front.sessions))
        await until(lambda: isinstance(session.app, SessionApp) and isinstance(session.app.screen, NameScreen),
                    "the name screen (no key identity with a password)")
        conn.close()
    finally:
        await rig.close()


# --- the real OpenSSH client ------------------------------------------------------------------------
async def run(*args: str) -> str:
    proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), PATIENCE)
    assert proc.returncode == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


@pytest.mark.system
async def test_the_openssh_client_joins_by_invite_code_and_plays_a_game(rig: Rig, tmp_path: Path) -> None:
    assert shutil.which("ssh") and shutil.which("tmux"), "ssh and tmux are part of the test machine"
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_path = tmp_path / "id_ed25519"
    key_path.write_bytes(key.export_private_key())
    key_path.chmod(0o600)
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    socket_name = f"ono99-test-{uuid.uuid4().hex[:8]}"
    tmux = ("tmux", "-L", socket_name, "-f", "/dev/null")
    try:
        await host.send(CreateTable(name="open", seats=3, private=True))
        code = (await host.expect("table"))["table"]["code"]
        ssh = (f"ssh -F /dev/null -p {rig.front.port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
               f"-o LogLevel=ERROR -o IdentitiesOnly=yes -o BatchMode=yes -i {key_path} {code}@127.0.0.1")
        await run(*tmux, "new-session", "-d", "-s", "play", "-x", "100", "-y", "30", ssh)
        await run(*tmux, "set-option", "-t", "play", "remain-on-exit", "on")

        async def pane(*options: str) -> str:
            return await run(*tmux, "capture-pane", "-p", *options, "-t", "play")

        async def pane_shows(text: str, what: str, *options: str) -> None:
            for _ in range(int(PATIENCE / 0.1)):
                if text in await pane(*options):
                    return
                await asyncio.sleep(0.1)
            raise AssertionError(f"{what}: {text!r} not on the screen:\n{await pane(*options)}")

        # a new key with an invite code for a user name: a name first, then the seat
        await pane_shows("Your name at the tables", "the name screen in a real terminal")
        session = next(iter(rig.front.sessions))
        assert session.term_type and isinstance(session.app, SessionApp) and isinstance(session.app.screen, NameScreen)
        await run(*tmux, "send-keys", "-t", "play", "tim", "Enter")
        await until(lambda: session.app is not None and session.app.model.table is not None
                    and session.app.model.table.you is not None, "the OpenSSH player at the table")
        await host.send(Start())  # the empty seat gets a bot
        host_game = asyncio.create_task(play_client(host, PATIENCE))
        moves = 0
        while True:
            app = session.app
            assert isinstance(app, SessionApp)
            view = app.model.view
            if view is not None and view.winner is not None:
                break
            press = key_for_turn(app)
            if press is None or view is None:
                await asyncio.sleep(0.01)
                continue
            before = view.version
            await run(*tmux, "send-keys", "-t", "play", press)
            await until(lambda b=before: session.app is not None and view_of(session.app).version != b,
                        "the move from the real client")
            moves += 1
        await asyncio.wait_for(host_game, PATIENCE)
        assert moves > 0
        await pane_shows(" win", "the game-over dialog")  # "Ada wins!" or "You win!"
        await run(*tmux, "send-keys", "-t", "play", "Escape")
        await until(lambda: isinstance(session.app, SessionApp) and isinstance(session.app.screen, TableScreen),
                    "Esc from a real terminal")
        await run(*tmux, "send-keys", "-t", "play", "q")
        await until(lambda: not rig.front.sessions, "the session to end")
        await pane_shows("Bye.", "the farewell after the terminal is given back", "-S", "-")  # may have scrolled
    finally:
        await host.close()
        with contextlib.suppress(Exception):
            await run(*tmux, "kill-server")


@pytest.mark.system
async def test_keys_typed_in_one_burst_reach_the_name_box_from_openssh(rig: Rig, tmp_path: Path) -> None:
    """The real OpenSSH client in tmux: ``C-u xyzzy Enter`` sent by one ``tmux send-keys`` (one
    write to the client's terminal, which ssh forwards as it reads it: one SSH data message when it
    reads it at once) into the name box of a new key whose user name only looks like an invite
    code. Tried: every key after ctrl+u arrives, and Enter sends the name typed, not an empty box."""
    key_path = tmp_path / "id_ed25519"
    key_path.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
    key_path.chmod(0o600)
    socket_name = f"ono99-test-{uuid.uuid4().hex[:8]}"
    tmux = ("tmux", "-L", socket_name, "-f", "/dev/null")
    ssh = (f"ssh -F /dev/null -p {rig.front.port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
           f"-o LogLevel=ERROR -o IdentitiesOnly=yes -o BatchMode=yes -i {key_path} ABCDEF@127.0.0.1")
    try:
        await run(*tmux, "new-session", "-d", "-s", "burst", "-x", "100", "-y", "30", ssh)
        await until(lambda: len(rig.front.sessions) == 1, "the OpenSSH session")
        session = next(iter(rig.front.sessions))
        await until(lambda: isinstance(session.app, SessionApp) and session.app.focused is not None
                    and session.app.focused.id == "name", "the name box, focused")
        await run(*tmux, "send-keys", "-t", "burst", "C-u", "xyzzy", "Enter")
        await until(lambda: isinstance(session.app, SessionApp) and isinstance(session.app.screen, LobbyScreen),
                    "the lobby")
        assert isinstance(session.app, SessionApp) and session.app.model.my_name == "xyzzy"
        assert "xyzzy" in rig.server.lobby.members
    finally:
        with contextlib.suppress(Exception):
            await run(*tmux, "kill-server")


# --- ono99 serve ------------------------------------------------------------------------------------
@pytest.mark.system
async def test_ono99_serve_prints_the_host_key_and_refuses_bad_ssh_options(tmp_path: Path) -> None:
    bad = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ono99_tui.cli", "serve", "--ssh-auth", "password", "--db", str(tmp_path / "x.db"),
        stderr=asyncio.subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k not in ("ONO99_SSH_PASSWORD", "ONO99_PASSWORD")})
    _, err = await asyncio.wait_for(bad.communicate(), PATIENCE)
    assert bad.returncode == 2 and b"needs --password" in err
    with socket.socket() as probe:  # a free port for the listener
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ono99_tui.cli", "serve", "--host", "127.0.0.1", "--port", "0", "--ssh-port", str(port),
        "--web-port", "0", "--db", str(tmp_path / "x.db"), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        banner = ""
        while "stop with" not in banner:
            line = (await asyncio.wait_for(proc.stdout.readline(), PATIENCE)).decode()
            assert line, banner
            banner += line
        key = asyncssh.read_private_key(str(tmp_path / "ssh_host_ed25519_key"))
        assert f"ssh: port {port} (any-key: open to anyone" in banner
        assert f"host key {key.get_fingerprint()}" in banner
        assert "TCP is off (--port 0)" in banner
        assert f"ssh -p {port} 127.0.0.1" in banner
    finally:
        proc.terminate()
        assert await asyncio.wait_for(proc.wait(), PATIENCE) == 0


# --- Textual internals this relies on -------------------------------------------------------------
def test_the_textual_internals_the_ssh_front_relies_on() -> None:
    """Fails loudly when a Textual release moves what ono99_tui/front/textual_driver.py adapts; pyproject pins
    the minor version, and this names what to re-check before raising the pin."""
    assert textual.__version__.startswith("8.2."), textual.__version__
    assert all(getattr(redirect, "ono99_guard", False) for redirect in app_redirects()), (
        "App runs still redirect sys.stdout by name")
    assert hasattr(shared_key_parse(), "cache_clear"), "the parser's key cache moved"
    assert SessionParser._parse_extended_key is not shared_key_parse()
    assert Driver.__abstractmethods__ == {"write", "start_application_mode", "disable_input",
                                          "stop_application_mode"}
    assert stylesheet_parse() is textual_driver._parse_rules_once, "CSS is parsed once per process"
    assert list(inspect.signature(textual_driver._parse_rules).parameters) == [
        "self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    assert stylesheet_keeps_its_variables(), "the theme's variables key the shared parse"
    # The screens' cheaper start and redraws (ono99_tui/tui/model_screen.py, steady.py and widgets.py)
    from textual.events import ScreenResume
    from textual.widgets import Static

    assert ScreenResume().refresh_styles, "a screen's resume restyles it: the first one is skipped"
    assert screen_resume_handler_is_screens_own()
    assert richlog_waits_for_its_size(), "logs write at once only when their size is known"
    assert "layout" in inspect.signature(Static.update).parameters
    import ono99_tui.cli as cli
    from ono99_server.config import DEFAULT_SSH_PORT

    assert cli.DEFAULT_SSH_PORT == DEFAULT_SSH_PORT
