"""A game server and a remote SSH front on two hosts: two network namespaces of this test's own,
joined by a veth pair; a real OpenSSH client reaches the front's address. The game goes on when
the front is killed, and the player comes back to the seat through the restarted front."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import CreateTable, Start
from ono99_tui.client.connection import Client
from ono99_tui.known_servers import ServerTrust
from tests.server_helpers import ROOT, TIMEOUT
from tests.test_fronts import drive, played_by


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def two_hosts() -> Iterator[tuple[str, str, str]]:
    """Namespaces GAME and FRONT on 10.R.1.0/24 (GAME .1, FRONT .2), and GAME reachable from here on
    10.R.2.2 (this side .1). Yields (game namespace, front namespace, subnet prefix)."""
    tag = uuid.uuid4().hex[:6]
    game, front = f"o9g{tag}", f"o9f{tag}"
    net = f"10.{int(tag[:2], 16) % 200 + 20}"
    ip("netns", "add", game)
    ip("netns", "add", front)
    try:
        ip("link", "add", f"o9a{tag}", "type", "veth", "peer", "name", f"o9b{tag}")
        ip("link", "set", f"o9a{tag}", "netns", game)
        ip("link", "set", f"o9b{tag}", "netns", front)
        ip("link", "add", f"o9c{tag}", "type", "veth", "peer", "name", f"o9d{tag}")
        ip("link", "set", f"o9d{tag}", "netns", game)
        ip("addr", "add", f"{net}.2.1/24", "dev", f"o9c{tag}")
        ip("link", "set", f"o9c{tag}", "up")
        for ns, dev, addr in ((game, f"o9a{tag}", f"{net}.1.1/24"), (front, f"o9b{tag}", f"{net}.1.2/24"),
                              (game, f"o9d{tag}", f"{net}.2.2/24")):
            ip("-n", ns, "addr", "add", addr, "dev", dev)
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        yield game, front, net
    finally:
        for ns in (game, front):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", f"o9c{tag}"], capture_output=True)


async def spawn(ns: str, *args: str, log: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec("ip", "netns", "exec", ns, sys.executable, "-m", "ono99_tui.cli",
                                                *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
                                                stderr=log.open("ab"))


async def wait_for_line(proc: asyncio.subprocess.Process, text: str) -> str:
    assert proc.stdout is not None
    while True:
        line = (await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)).decode()
        assert line, f"the process ended before printing {text!r}"
        if text in line:
            return line


async def stop(proc: asyncio.subprocess.Process, sig: int = signal.SIGTERM) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            await asyncio.wait_for(proc.wait(), TIMEOUT)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@contextlib.asynccontextmanager
async def openssh(ns: str, key_file: Path, user: str, address: str, port: int) -> AsyncIterator[bytearray]:
    """The OpenSSH client in namespace ``ns`` with a PTY (-tt); yields what its terminal receives."""
    proc = await asyncio.create_subprocess_exec(
        "ip", "netns", "exec", ns, "ssh", "-tt", "-F", "/dev/null", "-i", str(key_file), "-o", "IdentitiesOnly=yes",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
        "-p", str(port), f"{user}@{address}", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env={**os.environ, "TERM": "xterm-256color"})
    output = bytearray()

    async def read() -> None:
        assert proc.stdout is not None
        while data := await proc.stdout.read(65536):
            output.extend(data)

    reader = asyncio.create_task(read())
    try:
        yield output
    finally:
        await stop(proc)
        reader.cancel()


@pytest.mark.system
@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client")
async def test_a_remote_front_on_another_host_and_the_game_through_its_restart(tmp_path: Path) -> None:
    credential_file = tmp_path / "front-credential"
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)
    with two_hosts() as (game_ns, front_ns, net):
        game_address, front_address, here = f"{net}.1.1", f"{net}.1.2", f"{net}.2.2"
        server = await spawn(game_ns, "serve", "--host", "0.0.0.0", "--port", "9999", "--ssh-port", "0",
                             "--web-port", "0",
                             "--front-credential-file", str(credential_file), "--db", str(tmp_path / "g.db"),
                             "--no-advertise", "--bot-delay", "0", "--turn-seconds", "0", log=tmp_path / "game.log")
        front: asyncio.subprocess.Process | None = None
        host: Client | None = None
        try:
            banner = await wait_for_line(server, "tls: certificate")
            fingerprint = banner.split("tls: certificate ")[1].split()[0]  # pinned by the front
            await wait_for_line(server, "stop with")
            front_args = ("front", "--server", f"{game_address}:9999", "--server-fingerprint", fingerprint,
                          "--credential-file", str(credential_file), "--ssh-host", front_address, "--ssh-port", "2222",
                          "--host-key", str(tmp_path / "host_key"), "--web-port", "0")
            front = await spawn(front_ns, *front_args, log=tmp_path / "front.log")
            await wait_for_line(front, "ono99-front ready")
            pin = ServerTrust.pinned(fingerprint)
            kim = await Client.connect(here, 9999, "kim", identity=Identity(key), timeout=TIMEOUT, trust=pin)
            await kim.close()  # the key owns the name kim
            host = await Client.connect(here, 9999, "host", timeout=TIMEOUT, trust=pin)
            await host.send(CreateTable(name="t", seats=3, bots=1, private=True))
            code = (await host.expect("table"))["table"]["code"]
            async with openssh(game_ns, key_file, f"join-{code}", front_address, 2222):
                await host.expect("table", where=lambda m: m["table"]["seats"][2]["name"] == "kim"
                                  and m["table"]["seats"][2]["connected"] is True)
                await host.send(Start())
                await drive(host, lambda m: m["t"] == "state" and m["view"]["turn"] == 2)  # kim's turn
                await stop(front, signal.SIGKILL)  # the front's host goes down
                await drive(host, lambda m: m["t"] == "table" and m["table"]["seats"][2]["connected"] is False)
                await drive(host, played_by(2))  # a stand-in plays for kim meanwhile
            front = await spawn(front_ns, *front_args, log=tmp_path / "front.log")
            await wait_for_line(front, "ono99-front ready")
            async with openssh(game_ns, key_file, "kim", front_address, 2222) as screen:
                detail = await drive(host, lambda m: m["t"] == "table" and m["table"]["seats"][2]["connected"])
                assert detail["table"]["status"] == "playing"
                loop = asyncio.get_running_loop()
                end = loop.time() + TIMEOUT
                while b"kim" not in screen and loop.time() < end:  # the seat on kim's own screen
                    await asyncio.sleep(0.05)
                assert b"kim" in screen
        finally:
            if host is not None:
                await host.close()
            if front is not None:
                await stop(front)
            await stop(server)
    assert "entered as 'kim'" in (tmp_path / "front.log").read_text()
