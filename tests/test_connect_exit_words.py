"""What the full-screen ``ono99 connect`` leaves on the terminal when it stops at a changed certificate:
the real command on a pseudo-terminal (tests/test_identity.py's ConnectProcess) against an in-process
server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ono99_tui.known_servers import KnownServers, ServerKeyChanged, untrusted_words
from tests.server_helpers import running_server, wait_until
from tests.test_identity import ConnectProcess

LEAVE_FULL_SCREEN = b"\x1b[?1049l"
OLD = "SHA256:" + "A" * 43  # the fingerprint this player's data directory remembers for the server


async def test_a_changed_certificates_warning_and_command_stay_on_the_terminal_after_q(tmp_path: Path) -> None:
    """The player's data directory knows the server by another fingerprint. Tried: ``ono99 connect``
    shows the loud warning; q quits. Found: the warning and the command that accepts the new
    certificate were only on the full screen (the command split over two lines at 80 columns) and were
    gone after q. Now, once the screen is given back, stderr holds the whole warning, the command on a
    line of its own, unbroken (the same words as on the screen: one function makes them)."""
    async with running_server(tmp_path) as h:
        data = tmp_path / "player"
        KnownServers.in_directory(data).remember("127.0.0.1", h.port, OLD)
        connect = ConnectProcess(h.port, data)
        await connect.start()
        try:
            await wait_until(lambda: b"HAS CHANGED" in connect.output, "the loud warning", timeout=60)
            connect.press(b"q")
            assert connect.proc is not None
            assert await asyncio.wait_for(connect.proc.wait(), 60) == 2
            await wait_until(lambda: LEAVE_FULL_SCREEN in connect.output, "the terminal given back")
            connect._read()  # what was written after it
        finally:
            await connect.stop()
        after = bytes(connect.output).rpartition(LEAVE_FULL_SCREEN)[2].decode()
        words = untrusted_words(ServerKeyChanged("127.0.0.1", h.port, h.server.fingerprint, OLD, directory=data))
        assert "ono99 connect: " + words.replace("\n", "\r\n") in after
