"""A public host's defences, each tried with real sockets against a real server: its own fronts reach
it at the address it listens on, connections that never start TLS stay within the hello budgets,
invite codes and names cannot be guessed or hoarded in bulk, and the web socket takes only its
own page."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from ono99_tui.ssh_library import asyncssh
from tests.server_helpers import TIMEOUT, ServerProcess, free_port
from tests.test_web import WsPlayer


# --- the fronts of `ono99 serve` dial the address the server listens on ------------------------------
@pytest.mark.system
@pytest.mark.parametrize(("host", "workers"), [("127.0.0.5", "0"), ("192.0.2.2", "1"), ("::", "0")])
async def test_the_fronts_reach_a_server_bound_to_one_address(tmp_path: Path, host: str, workers: str) -> None:
    """`ono99 serve --host H` once made its SSH and web fronts dial 127.0.0.1 whatever H was: bound to
    127.0.0.5, to this machine's LAN address or to `::` (IPv6 only), an SSH login was told the game
    server could not be reached. Tried: for each, in the server's own process (--ssh-workers 0) or in
    a worker, an SSH login reaches the lobby, and a browser's socket is let in as a guest."""
    ssh_port, web_port = free_port(), free_port()
    server = ServerProcess(tmp_path / "x.db", tmp_path / "serve.log", "--ssh-port", str(ssh_port), "--web-port",
                           str(web_port), "--ssh-workers", workers, "--no-advertise", host=host)
    near = "::1" if host == "::" else host
    conn: asyncssh.SSHClientConnection | None = None
    try:
        await server.start()
        conn = await asyncssh.connect(near, ssh_port, username="ada", known_hosts=None, agent_path=None, config=[],
                                      client_keys=[asyncssh.generate_private_key("ssh-ed25519")])
        _stdin, stdout, _ = await conn.open_session(term_type="xterm", term_size=(100, 30), encoding=None,
                                                    request_pty=True)
        seen = b""
        while b"you are" not in seen:
            chunk = await asyncio.wait_for(stdout.read(65536), TIMEOUT)
            assert chunk, seen.decode(errors="replace")
            seen += chunk
        assert b"cannot be reached" not in seen
        shown = f"[{near}]" if ":" in near else near
        page = await WsPlayer.connect(f"https://{shown}:{web_port}")
        try:
            await page.until_shown(b"This browser keeps your seat", "the name screen")
            await page.type(b"Ines\r")
            assert (await page.until_control("guest"))["name"] == "Ines"
        finally:
            await page.close()
    finally:
        if conn is not None:
            conn.close()
        with contextlib.suppress(Exception):
            await server.stop()
