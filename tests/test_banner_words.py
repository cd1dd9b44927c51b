"""The host's banner: in the host's language (``ono99 --lang de serve`` with SSH and the web on), and
the operators' command that reaches this server.

Real parts: ``ono99 serve`` processes on loopback (the SSH front in the server's process), their
standard output read as the host reads it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from ono99_kernel.identity import Identity
from tests.server_helpers import ROOT, TIMEOUT, ServerProcess, free_port, new_identity, ono99

ENGLISH = ["open to anyone", "only the keys", "browsers", "host key", "certificate SHA256", "proves its own key",
           " port "]


async def banner(tmp_path: Path, *args: str) -> str:
    """The banner ``ono99 --lang de serve ARGS`` prints, up to its last line; the server is stopped then."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ono99_tui.cli", "--lang", "de", "serve", "--host", "127.0.0.1",
        "--port", str(free_port()), "--ssh-port", str(free_port()), "--web-port", str(free_port()),
        "--ssh-workers", "0", "--no-advertise",
        "--db", str(tmp_path / "x.db"), *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL)
    assert process.stdout is not None
    said = ""
    try:
        while "beenden mit Strg+C" not in said:
            line = (await asyncio.wait_for(process.stdout.readline(), TIMEOUT)).decode()
            assert line, said
            said += line
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), TIMEOUT)
    return said


@pytest.mark.system
@pytest.mark.parametrize("auth", ["any-key", "authorized-keys"])
async def test_the_banner_says_who_may_come_in_over_tcp_ssh_and_the_web_in_the_hosts_language(
        tmp_path: Path, auth: str) -> None:
    """Found in play: a host starting the server in German read its ssh, web and tcp lines in English
    ("open to anyone: a key is the player's identity…", "port", "host key", "certificate"). Tried
    with anyone let in and with an authorized_keys file: each of those lines is in German. With an
    authorized_keys file the banner said "play in a browser: URL" under "browsers are refused": now
    it names no page to play in."""
    args: tuple[str, ...] = ()
    if auth == "authorized-keys":
        keys = tmp_path / "authorized_keys"
        keys.write_text(f"{new_identity().public_key} ada\n", encoding="utf-8")
        args = ("--auth", "authorized-keys", str(keys))
    said = await banner(tmp_path, *args)
    lines = {line.strip().split(":")[0]: line.strip() for line in said.splitlines() if line.startswith("  ")}
    for link in ("tcp", "ssh", "web"):
        assert not [word for word in ENGLISH if word in lines[link]], lines[link]
    if auth == "any-key":
        assert lines["tcp"] == "tcp: offen für alle"
        assert "(any-key: offen für alle: ein Schlüssel ist die Identität des Spielers" in lines["ssh"]
        assert "Host-Schlüssel SHA256:" in lines["ssh"] and lines["ssh"].startswith("ssh: Port ")
        assert "(offen für alle: Browser spielen als Gäste), Zertifikat SHA256:" in lines["web"]
    else:
        assert lines["tcp"] == (f"tcp: nur die in {tmp_path / 'authorized_keys'} eingetragenen Schlüssel "
                                "(ono99 connect weist seinen eigenen Schlüssel nach)")
        assert "Browser werden abgewiesen" in lines["web"]
        # and no line invites to play in a browser that is refused
        assert "im Browser spielen" not in said and "https://" not in said, said


@pytest.mark.system
async def test_the_operators_line_names_the_admin_command_that_reaches_this_server(tmp_path: Path) -> None:
    """Found in play: a host on another address or port than 127.0.0.1:9999 read "operators: 1 key in
    FILE ('ono99 admin')", and 'ono99 admin who' went to 127.0.0.1:9999, where nothing answered. Now
    the line names 'ono99 admin --server HOST:PORT', and that command, run as said (with the
    operator's data directory), reaches this server."""
    operator = tmp_path / "operator"
    admins = tmp_path / "admins"
    admins.write_text(f"{Identity.load_or_create(operator).public_key} op\n", encoding="utf-8")
    server = ServerProcess(tmp_path / "s.db", tmp_path / "s.log", "--admins", str(admins))
    try:
        port = await server.start()
        [line] = [line.strip() for line in server.banner if line.strip().startswith("operators:")]
        assert line == f"operators: 1 key in {admins} ('ono99 admin --server 127.0.0.1:{port}')", line
        said = line.split("('", 1)[1].removesuffix("')").split()
        ran = await ono99(*said[1:], "--data-dir", str(operator), "--server-fingerprint", server.fingerprint, "who")
        assert ran.returncode == 0 and "0 players" in ran.stdout, ran.stderr
    finally:
        await server.stop()
