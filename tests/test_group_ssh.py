"""SSH players of a server's tables: names, access and farewells, with real asyncssh clients against a
real front and game server."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from textual.widgets import Input

from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import CreateTable
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from ono99_tui.front.session_app import NameScreen, SessionApp
from ono99_tui.i18n import using
from ono99_tui.reasons import said as said_of_error
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.playnow import QueueScreen
from ono99_tui.tui.table import TableScreen
from tests.test_ssh import Player, Rig, rig, start_rig, until  # noqa: F401  (rig: the fixture)
from tests.textual_compat import keep_running_on_exit


def name_box(app: SessionApp) -> bool:
    return isinstance(app.screen, NameScreen) and bool(app.screen.query("#name"))


async def test_an_invite_code_is_never_offered_as_a_name(rig: Rig) -> None:  # noqa: F811
    """``ssh CODE@host`` with a new key, or as a guest: the name screen starts empty (Enter used to make
    the code the player's name for good); a name typed there seats the player at the code's table."""
    host = await Client.connect("127.0.0.1", rig.server.port, "tess")
    try:
        await host.send(CreateTable(name="private", seats=4, private=True))
        code = (await host.expect("table"))["table"]["code"]
        for key in (True, None):
            player = await Player.connect(rig, code, key=key)
            await player.until(name_box, "the name screen")
            assert player.app.screen.query_one("#name", Input).value == ""
            await player.type("jo" if key else "guest1")
            await player.press("enter")
            await player.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None
                               and a.model.table.code == code, "a seat at the code's table")
            await player.close()
        lost = await Player.connect(rig, "ZZZZZZ", key=None)  # looks like a code, is none: a name, typed
        await lost.until(name_box, "the name screen")
        assert lost.app.screen.query_one("#name", Input).value == ""
        await lost.type("zed")
        await lost.press("enter")
        await lost.until_screen(LobbyScreen, "the lobby")
        await lost.close()
    finally:
        await host.close()


async def test_ssh_play_with_a_returning_key_queues_instead_of_going_back_to_an_idle_table(rig: Rig) -> None:  # noqa: F811
    """Jo's key sat at a table whose game is not running, then the session ended (the seat waits for the
    grace period). ``ssh play@host`` with that key asks to play now: it leaves that table for the queue."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    jo = await Player.connect(rig, "jo", key=key)
    await jo.until_screen(LobbyScreen, "jo's lobby")
    jo.app.send_message(CreateTable(name="old", seats=2, bots=1, turn_seconds=0))
    await jo.until(lambda a: isinstance(a.screen, TableScreen) and a.model.table is not None, "jo's table")
    await jo.close()
    member = rig.server.lobby.members["jo"]
    await until(lambda: member.connection is None, "the server to notice")
    assert member.table is not None
    again = await Player.connect(rig, "play", key=key)
    await again.until(lambda a: a.model.queue is not None, "a place in the play-now queue")
    assert member.table is None and member in rig.server.lobby.matchmaker.waiting
    await again.until(lambda a: isinstance(a.screen, QueueScreen), "the queue's screen, not the old table")
    await again.close()


async def test_a_refused_friend_is_shown_the_line_the_host_needs(tmp_path: Path) -> None:
    """``--auth authorized-keys``: a key not listed is shown its public key line for authorized_keys (a
    fingerprint cannot be listed), over SSH and over TCP; an SSH client without a key is told why, not
    only "Permission denied"."""
    allowed, other = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    keys_file = tmp_path / "authorized_keys"
    keys_file.write_bytes(allowed.export_public_key())
    listed_only = await start_rig(tmp_path, ssh=SshSettings(auth="authorized-keys", authorized_keys=keys_file))
    line = other.export_public_key().decode().strip()
    try:
        banners: list[str] = []

        class Listening(asyncssh.SSHClient):  # and answers keyboard-interactive, as OpenSSH does
            def auth_banner_received(self, msg: str, lang: str) -> None:
                banners.append(msg)

            tried = False

            def kbdint_auth_requested(self) -> str | None:
                if self.tried:
                    return None
                self.tried = True
                return ""

            def kbdint_challenge_received(self, name: str, instructions: str, lang: str,
                                          prompts: Sequence[tuple[str, bool]]) -> list[str]:
                return []

        for keys in ([other], []):
            banners.clear()

            with pytest.raises(asyncssh.PermissionDenied):
                await asyncssh.connect("127.0.0.1", listed_only.front.port, username="eve", client_keys=keys,
                                       known_hosts=None, agent_path=None, config=[], client_factory=Listening,
                                       password=None)
            said = "".join(banners)
            if keys:
                assert f"\r\n{line}\r\n" in said and "authorized_keys" in said, banners
            else:
                assert "lets in only the SSH keys its host listed" in said and "ssh-keygen" in said, banners
        # OpenSSH without a key (none offered): the words come before "Permission denied"
        openssh = await asyncio.create_subprocess_exec(
            "ssh", "-F", "/dev/null", "-T", "-p", str(listed_only.front.port), "-o", "PubkeyAuthentication=no",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "IdentityAgent=none",
            "eve@127.0.0.1", stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        _out, err = await asyncio.wait_for(openssh.communicate(), 30)
        assert openssh.returncode == 255
        assert b"lets in only the SSH keys its host listed" in err and b"Permission denied" in err, err
        identity = Identity(other)
        with pytest.raises(ServerError) as refused:
            await Client.connect("127.0.0.1", listed_only.server.port, "eve", identity=identity)
        error = refused.value.error
        assert error.params["key"] == line
        with using("en"):
            assert said_of_error(error).endswith(f"authorized_keys file, then connect again: {line}")
    finally:
        await listed_only.close()


async def test_the_password_mode_does_not_offer_a_key_to_keep_the_name(tmp_path: Path) -> None:
    password_only = await start_rig(tmp_path, ssh=SshSettings(auth="password", password="guest"))
    try:
        player = await Player.connect(password_only, "eve", key=None)
        await player.until(name_box, "the name screen")
        screen = player.app.screen
        assert isinstance(screen, NameScreen)
        assert "SSH key" not in screen.help_text and "guest" in screen.help_text
        await player.close()
    finally:
        await password_only.close()


async def test_a_lost_game_server_s_farewell_is_said_before_its_links_are_left(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The game server is gone: the front tells each session so (Ada, seated with a key: her seat is kept)
    although leaving the dead server's link takes longer than the front waits; the farewell used to come
    after that wait, so the connection was cut first and the player read only "Disconnected"."""
    from ono99_tui.front import ssh as front_ssh

    async def slow_leave(self: front_ssh.Door) -> None:
        await asyncio.sleep(30)  # a TLS close to a server that is gone waits for an answer

    monkeypatch.setattr(front_ssh, "CLOSE_WAIT", 1.0)
    monkeypatch.setattr(front_ssh.Door, "leave", slow_leave)
    lost = await start_rig(tmp_path)
    try:
        ada = await Player.connect(lost, "ada")
        cy = await Player.connect(lost, "cy")
        await ada.until_screen(LobbyScreen, "ada's lobby")
        await cy.until_screen(LobbyScreen, "cy's lobby")
        ada.app.send_message(CreateTable(name="t", seats=2, bots=1, turn_seconds=0))
        await ada.until(lambda a: a.model.table is not None and a.model.table.you is not None, "ada's seat")
        await lost.front.close(server_lost=True)
        for player in (ada, cy):
            await asyncio.wait_for(player.ended.wait(), 10)
        assert b"The game server stopped unexpectedly. Your seat is kept" in ada.output, bytes(ada.output[-300:])
        assert b"The game server stopped unexpectedly. Connect again with ssh in a moment." in cy.output
        assert ada.output.rfind(b"\x1b[?1049l") < ada.output.rfind(b"stopped unexpectedly")  # after the screen
    finally:
        await lost.server.close()


async def test_a_session_whose_app_does_not_end_still_gets_its_terminal_back_and_farewell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ono99_tui.front import ssh as front_ssh

    monkeypatch.setattr(front_ssh, "CLOSE_WAIT", 1.0)
    lost = await start_rig(tmp_path)
    try:
        cy = await Player.connect(lost, "cy")
        await cy.until_screen(LobbyScreen, "cy's lobby")
        keep_running_on_exit(monkeypatch, cy.app)  # an app stuck somewhere
        mark = len(cy.output)
        await lost.front.close(server_lost=True)
        await asyncio.wait_for(cy.ended.wait(), 10)
        last = bytes(cy.output[mark:])
        assert b"\x1b[?1049l" in last and b"\x1b[?1000l" in last, last[-200:]
        assert last.rfind(b"\x1b[?1049l") < last.rfind(b"The game server stopped unexpectedly.")
    finally:
        await lost.server.close()
