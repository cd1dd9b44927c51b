"""What an SSH player renamed by an operator reads as the session ends: why, and how to play on under
the new name. The in-process SSH front and game server (tests/test_ssh.py's rig), a real asyncssh
client with a key and a PTY, an operator's session over loopback TLS."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ono99_kernel.identity import Identity
from ono99_tui.known_servers import ServerTrust
from ono99_tui.tui.lobby import LobbyScreen
from tests.server_helpers import TIMEOUT, TestClient, new_identity
from tests.test_moderation import admin, admins_file
from tests.test_ssh import PATIENCE, Player, Rig, start_rig


async def test_a_player_renamed_over_ssh_is_told_to_connect_again_to_play_on(tmp_path: Path) -> None:
    """Ada plays over SSH with a key; an operator renames her to Cyd. Found: the session ended with
    "The server closed the session: An operator renamed you to Cyd." and no next step; now the line
    goes on "Connect again with ssh to play on as Cyd."."""
    op = new_identity()
    rig = await start_rig(tmp_path, admins=admins_file(tmp_path, op))
    try:
        ada = await Player.connect(rig, "ada")
        try:
            await ada.until_screen(LobbyScreen, "the lobby")
            await renamed_by_an_operator(rig, op, ada, "ada")
        finally:
            await ada.close()
    finally:
        await rig.close()


async def test_a_plain_player_renamed_over_ssh_is_told_to_connect_again_to_play_on(tmp_path: Path) -> None:
    """The same in the plain mode over SSH (ssh plain@HOST with a key, named Ada): the last line said
    only why the session ended."""
    op = new_identity()
    rig = await start_rig(tmp_path, admins=admins_file(tmp_path, op))
    try:
        ada = await Player.connect(rig, "plain")
        try:
            await ada.until_shown(b"name", "the name asked for")
            await ada.type("Ada\r")
            await ada.until_shown(b"Welcome to ONO 99, Ada.", "the lobby")
            await renamed_by_an_operator(rig, op, ada, "Ada")
        finally:
            await ada.close()
    finally:
        await rig.close()


async def renamed_by_an_operator(rig: Rig, op: Identity, player: Player, target: str) -> None:
    """An operator's session renames ``target`` to Cyd: the player's session ends, its last words saying
    why and what to do next."""
    desk = await TestClient.connect("127.0.0.1", rig.server.port, "", identity=op, timeout=TIMEOUT,
                                    trust=ServerTrust.pinned(rig.server.fingerprint), admin=True)
    assert isinstance(desk, TestClient)
    try:
        await admin(desk, "rename", target=target, name="Cyd")
        await asyncio.wait_for(player.ended.wait(), PATIENCE)
        said = bytes(player.output)
        assert (b"The server closed the session: An operator renamed you to Cyd. "
                b"Connect again with ssh to play on as Cyd.") in said, said[-300:]
    finally:
        await desk.close()
