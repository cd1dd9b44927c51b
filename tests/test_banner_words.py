"""The host's banner in the host's language: ``ono99 --lang de serve`` with SSH and the web on.

Real parts: ``ono99 serve`` processes on loopback (the SSH front in the server's process), their
standard output read as the host reads it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from tests.server_helpers import ROOT, TIMEOUT, free_port, new_identity

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
