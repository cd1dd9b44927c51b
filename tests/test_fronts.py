"""Fronts: SSH front processes that reach the game server over TCP, trusted by a credential to say
who their players are and where they connect from (docs/protocol.md section 3b)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.fronts import FrontAssertion, new_credential
from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import Act, CreateTable, Hello, Start
from ono99_server import Server, table_room
from ono99_server.connection import Connection
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from ono99_tui.front.ssh import CODE_ALPHABET
from tests.app_state import table_of, view_of
from tests.server_helpers import TIMEOUT, ServerProcess, free_port, may_act, ono99, running_server, wait_until
from tests.test_ssh import Player, create_table_through_keys, start_rig
from tests.textual_compat import notification_texts

GOOD = new_credential()


def fingerprint() -> str:
    return str(asyncssh.generate_private_key("ssh-ed25519").get_fingerprint())


async def front_hello(port: int, name: str, credential: str = GOOD, address: str = "198.51.100.7",
                      identity: str | None = None) -> Client:
    return await Client.connect("127.0.0.1", port, name, timeout=TIMEOUT, client_name="ono99-ssh",
                                front=FrontAssertion(credential, address, identity))


async def test_only_a_trusted_front_may_assert_a_players_key_and_address(tmp_path: Path) -> None:
    async with running_server(tmp_path, front_credentials=(GOOD,)) as h:
        key = fingerprint()
        with pytest.raises(ServerError) as info:
            await front_hello(h.port, "mallory", credential=new_credential(), identity=key)
        assert info.value.code == "not_trusted"
        assert key not in h.server.lobby.by_identity and "mallory" not in h.server.lobby.members

        ada = await front_hello(h.port, "ada", identity=key)
        h.clients.append(ada)
        assert ada.welcome["identity"] == key and ada.welcome["name"] == "ada"
        member = h.server.lobby.members["ada"]
        assert isinstance(member.connection, Connection) and member.connection.address == "198.51.100.7"

    async with running_server(tmp_path / "none") as h:  # a server given no credential trusts no front
        with pytest.raises(ServerError) as info:
            await front_hello(h.port, "ada", identity=fingerprint())
        assert info.value.code == "not_trusted"


@pytest.mark.parametrize(("field", "value"), [("address", "not an address"), ("identity", "SHA256:short"),
                                              ("credential", ""), ("address", 7)])
async def test_a_malformed_front_field_is_refused(tmp_path: Path, field: str, value: Any) -> None:
    async with running_server(tmp_path, front_credentials=(GOOD,)) as h:
        client = await h.raw()
        front: dict[str, Any] = {"credential": GOOD, "address": "198.51.100.7", "identity": None, field: value}
        await client.send(Hello(version=2, name="ada", front=front))
        error = await client.error()
        assert error["code"] == "bad_field" and f"hello.front.{field}" in error["reason"]
        assert h.server.lobby.members == {}


async def test_a_fronts_players_count_under_their_own_addresses(tmp_path: Path) -> None:
    """The per-address limit counts a front's players where they really are, not the front's loopback."""
    async with running_server(tmp_path, front_credentials=(GOOD,), max_connections_per_address=2) as h:
        for name in ("a1", "a2"):
            h.clients.append(await front_hello(h.port, name, address="203.0.113.1"))
        with pytest.raises(ServerError) as info:
            await front_hello(h.port, "a3", address="203.0.113.1")
        assert info.value.code == "too_many_connections" and "203.0.113.1" in info.value.reason
        for name in ("b1", "b2"):  # another address, through the same front, still comes in
            h.clients.append(await front_hello(h.port, name, address="203.0.113.2"))
        assert set(h.server.lobby.members) == {"a1", "a2", "b1", "b2"}


async def test_a_key_with_no_name_given_enters_under_the_name_it_owns(tmp_path: Path) -> None:
    async with running_server(tmp_path, front_credentials=(GOOD,)) as h:
        identity = Identity(asyncssh.generate_private_key("ssh-ed25519"))
        first = await h.connect("jo", identity=identity)
        await first.close()
        await wait_until(lambda: "jo" not in h.server.lobby.members, "jo to leave")
        again = await front_hello(h.port, "", identity=identity.fingerprint)
        h.clients.append(again)
        assert again.welcome["name"] == "jo"
        with pytest.raises(ServerError) as info:  # a new key has no name yet: the front asks for one
            await front_hello(h.port, "", identity=fingerprint())
        assert info.value.code == "bad_name"


async def test_a_fronts_only_listener_turns_away_players(tmp_path: Path) -> None:
    """With TCP play off, `ono99 serve` keeps a loopback listener for its fronts alone."""
    async with running_server(tmp_path, front_credentials=(GOOD,), fronts_only=True) as h:
        with pytest.raises(ServerError) as info:
            await h.connect("eve")
        assert info.value.code == "access_denied" and "fronts" in info.value.reason
        h.clients.append(await front_hello(h.port, "ada"))


def test_the_fronts_invite_code_alphabet_is_the_servers() -> None:
    assert set(table_room.CODE_ALPHABET) == CODE_ALPHABET


async def test_a_front_that_loses_the_game_server_says_so_and_comes_back_to_the_seat(tmp_path: Path) -> None:
    rig = await start_rig(tmp_path)
    player: Player | None = None
    try:
        player = await Player.connect(rig, "ada")
        await create_table_through_keys(player)
        await player.press("s")
        await player.until(lambda a: a.model.view is not None, "the game to start")
        seat, table_id = view_of(player.app).seat, table_of(player.app).id
        port, config = rig.server.port, rig.server.config
        await rig.server.close()  # the game server goes away (and comes back below, on the same port)
        await player.until(lambda a: not a.model.connected, "the session to know")
        await player.until(lambda a: any("the server is shutting down; trying again" in n
                                         for n in notification_texts(a)), "the session to say so")
        assert player.session.app is not None  # the SSH session goes on meanwhile
        config.port = port
        rig.server = Server(config)
        await rig.server.start()
        await player.until(lambda a: a.model.connected and a.model.view is not None
                           and a.model.table is not None and a.model.table.id == table_id, "the seat again")
        assert view_of(player.app).seat == seat
    finally:
        if player is not None:
            await player.close()
        await rig.close()


async def test_a_front_never_speaks_to_a_server_with_another_certificate(tmp_path: Path, caplog: Any) -> None:
    """The game server goes away and something else answers on its port with another certificate (a
    host who replaced it without telling the front, or someone in between): the front refuses it,
    says why in its log, and its player stays disconnected rather than being handed to it."""
    caplog.set_level(logging.ERROR, logger="ono99")
    rig = await start_rig(tmp_path)
    player: Player | None = None
    try:
        player = await Player.connect(rig, "ada")
        await player.until(lambda a: a.model.connected and "ada" in rig.server.lobby.members, "ada in the lobby")
        port, config = rig.server.port, rig.server.config
        await rig.server.close()
        await player.until(lambda a: not a.model.connected, "the session to know")
        config.port, config.tls_cert, config.tls_key = port, tmp_path / "other.pem", tmp_path / "other-key.pem"
        rig.server = Server(config)
        await rig.server.start()
        await player.until(lambda a: "not the pinned" in caplog.text, "the front's refusal in its log")
        assert not player.app.model.connected and "ada" not in rig.server.lobby.members
    finally:
        if player is not None:
            await player.close()
        await rig.close()


# --- ono99 serve with worker processes ----------------------------------------------------------------
def children(pid: int) -> set[int]:
    return {int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}


async def ssh_connect(port: int, username: str, key: asyncssh.SSHKey) -> tuple[asyncssh.SSHClientConnection, Any]:
    """An SSH client with a PTY; tries again while no worker listens (one restarting)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + TIMEOUT
    while True:
        try:
            conn = await asyncssh.connect("127.0.0.1", port, username=username, known_hosts=None, agent_path=None,
                                          config=[], client_keys=[key])
            break
        except (OSError, asyncssh.Error):
            if loop.time() > end:
                raise
            await asyncio.sleep(0.2)
    _stdin, stdout, _ = await conn.open_session(term_type="xterm", term_size=(100, 30), encoding=None,
                                               request_pty=True)
    return conn, stdout


async def ssh_session(port: int, username: str, key: asyncssh.SSHKey) -> tuple[asyncssh.SSHClientConnection, Any, Any]:
    """An SSH client with a PTY, its keyboard and its screen."""
    conn = await asyncssh.connect("127.0.0.1", port, username=username, known_hosts=None, agent_path=None,
                                  config=[], client_keys=[key])
    stdin, stdout, _ = await conn.open_session(term_type="xterm", term_size=(100, 30), encoding=None,
                                               request_pty=True)
    return conn, stdin, stdout


async def read_until(out: Any, text: bytes) -> None:
    """Read a session's screen until ``text`` was drawn."""
    seen = b""
    while text not in seen:
        seen += await asyncio.wait_for(out.read(65536), TIMEOUT)


async def drive(host: Client, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Read the host's messages, playing its turns (lowest legal card first), until ``done(message)``."""
    while True:
        message = await host.recv(TIMEOUT)
        if done(message):
            return message
        if message["t"] == "state":
            view = message["view"]
            assert view["winner"] is None, "the game ended too soon"
            if may_act(view):
                await host.send(Act(action=sorted(view["legal"])[0], version=view["version"]))


def played_by(seat: int) -> Callable[[dict[str, Any]], bool]:
    """A state where ``seat`` took its turn: played, or was knocked out having no card to play."""
    return lambda m: m["t"] == "state" and any(e["e"] in ("play", "out") and e.get("seat") == seat
                                               for e in m["events"])


@pytest.mark.system
async def test_serve_runs_ssh_workers_and_restarts_one_killed_with_sigkill(tmp_path: Path) -> None:
    """Two workers share the SSH port; both are killed with SIGKILL: each is started again, the game
    goes on with a stand-in for the SSH player, who comes back to the seat with the same key."""
    ssh_port = free_port()
    server = ServerProcess(tmp_path / "x.db", tmp_path / "serve.log", "--ssh-port", str(ssh_port),
                           "--ssh-workers", "2", "--no-advertise", "--bot-delay", "0", "--turn-seconds", "0")
    host: Client | None = None
    conns: list[asyncssh.SSHClientConnection] = []
    try:
        port = await server.start()
        banner = "".join(server.banner)
        assert "ssh workers: 2" in banner and f"ssh -p {ssh_port}" in banner
        assert server.proc is not None
        workers = children(server.proc.pid)
        assert len(workers) == 2
        key = asyncssh.generate_private_key("ssh-ed25519")
        kim = await Client.connect("127.0.0.1", port, "kim", identity=Identity(key), timeout=TIMEOUT)
        await kim.close()  # the key owns the name kim now
        host = await Client.connect("127.0.0.1", port, "host", timeout=TIMEOUT)
        await host.send(CreateTable(name="t", seats=3, bots=1, private=True))
        code = (await host.expect("table"))["table"]["code"]
        conn, _ = await ssh_connect(ssh_port, f"join-{code}", key)
        conns.append(conn)
        await host.expect("table", where=lambda m: m["table"]["seats"][2]["name"] == "kim"
                          and m["table"]["seats"][2]["connected"] is True)
        await host.send(Start())
        await drive(host, lambda m: m["t"] == "state" and m["view"]["turn"] == 2)  # kim's turn; kim waits

        for pid in workers:  # both, so the one holding kim's session is among them
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        await drive(host, lambda m: m["t"] == "table" and m["table"]["seats"][2]["connected"] is False)
        state = await drive(host, played_by(2))  # a stand-in plays for kim meanwhile
        assert state["controlled_by_bot"][2] is True
        serve_pid = server.proc.pid
        await wait_until(lambda: len(children(serve_pid) - workers) == 2, "both workers to be back")

        conn, _ = await ssh_connect(ssh_port, "anyone", key)  # the key, not the user name, is the player
        conns.append(conn)
        detail = await host.expect("table", where=lambda m: m["table"]["seats"][2]["connected"] is True)
        assert detail["table"]["seats"][2]["name"] == "kim" and detail["table"]["status"] == "playing"
    finally:
        for conn in conns:
            conn.close()
        if host is not None:
            await host.close()
        await server.stop()
    assert "ended (signal 9); starting it again" in (tmp_path / "serve.log").read_text()


@pytest.mark.system
async def test_a_second_server_is_refused_the_ssh_port_its_workers_would_share(tmp_path: Path) -> None:
    """Workers share their SSH port with SO_REUSEPORT; another `ono99 serve` of the same user must
    not silently join them on it."""
    ssh_port = free_port()
    first = ServerProcess(tmp_path / "a.db", tmp_path / "a.log", "--ssh-port", str(ssh_port), "--ssh-workers", "1",
                          "--no-advertise")
    try:
        await first.start()
        second = await ono99("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--ssh-port", str(ssh_port),
                             "--web-port", "0", "--db", str(tmp_path / "b.db"), "--no-advertise")
        assert second.returncode == 2
        assert f"cannot listen on SSH port {ssh_port}" in second.stderr
    finally:
        await first.stop()


@pytest.mark.system
async def test_serve_with_no_workers_runs_the_front_inside_its_own_process(tmp_path: Path) -> None:
    ssh_port = free_port()
    server = ServerProcess(tmp_path / "a.db", tmp_path / "a.log", "--ssh-port", str(ssh_port), "--ssh-workers", "0",
                           "--no-advertise")
    conn: asyncssh.SSHClientConnection | None = None
    try:
        await server.start()
        assert "ssh front: in this process" in "".join(server.banner)
        assert server.proc is not None and children(server.proc.pid) == set()
        conn, stdout = await ssh_connect(ssh_port, "ada", asyncssh.generate_private_key("ssh-ed25519"))
        seen = b""
        while b"you are" not in seen:
            seen += await asyncio.wait_for(stdout.read(65536), TIMEOUT)
    finally:
        if conn is not None:
            conn.close()
        await server.stop()


@pytest.mark.system
async def test_serve_starts_one_ssh_worker_per_core_it_may_run_on_and_says_so(tmp_path: Path) -> None:
    """Tried: `ono99 serve` with no --ssh-workers, run by `taskset` on one core of a machine with more:
    it starts one worker, not one per core of the machine, and its banner says why."""
    core = min(os.sched_getaffinity(0))
    server = ServerProcess(tmp_path / "a.db", tmp_path / "a.log", "--ssh-port", str(free_port()), "--no-advertise",
                           wrapper=("taskset", "-c", str(core)))
    try:
        await server.start()
        banner = "".join(server.banner)
        assert "ssh workers: 1 (pid" in banner, banner
        assert f"one per core this server may run on (1 of the machine's {os.cpu_count()})" in banner, banner
        assert server.proc is not None and len(children(server.proc.pid)) == 1
    finally:
        await server.stop()


async def read_to_the_end(stdout: Any) -> bytes:
    """Everything an SSH session prints until its channel closes."""
    out = b""
    with contextlib.suppress(asyncssh.Error, OSError):
        while chunk := await asyncio.wait_for(stdout.read(65536), TIMEOUT):
            out += chunk
    return out


@pytest.mark.system
async def test_no_worker_outlives_a_server_killed_with_sigkill(tmp_path: Path) -> None:
    """kill -9 of `ono99 serve` once left its SSH workers running, holding the SSH port for good,
    and its players were told "the server is shutting down", which nothing did.
    Tried: a server with two workers is killed with SIGKILL while, over SSH, Ada (a key) and Bob (a
    guest) sit at tables and Cy (a key) is in the lobby. Each is told the game server stopped
    unexpectedly and to connect again in a moment: Ada that her seat is kept, Bob that a guest's seat
    cannot be taken back, Cy nothing of a seat; both workers end by themselves and the port is free
    for the restarted server."""
    ssh_port = free_port()
    args = ("--ssh-port", str(ssh_port), "--ssh-workers", "2", "--no-advertise")
    server = ServerProcess(tmp_path / "x.db", tmp_path / "serve.log", *args)
    await server.start()
    assert server.proc is not None
    workers = children(server.proc.pid)
    assert len(workers) == 2
    ada, ada_in, ada_out = await ssh_session(ssh_port, "ada", asyncssh.generate_private_key("ssh-ed25519"))
    cy, _cy_in, cy_out = await ssh_session(ssh_port, "cy", asyncssh.generate_private_key("ssh-ed25519"))
    bob = await asyncssh.connect("127.0.0.1", ssh_port, username="bob", known_hosts=None, agent_path=None,
                                 config=[], client_keys=[], password="guest")
    try:
        bob_in, bob_out, _ = await bob.open_session(term_type="xterm", term_size=(100, 30), encoding=None,
                                                    request_pty=True)
        await read_until(bob_out, b"Enter to go to the lobby")  # the name screen: a guest takes the name offered
        bob_in.write(b"\r")
        for out in (ada_out, bob_out, cy_out):
            await read_until(out, b"you are")
        for keys, out in ((ada_in, ada_out), (bob_in, bob_out)):
            keys.write(b"n")  # a new table, started from its dialog with Enter: the player sits at it
            await read_until(out, b"Start (enter)")
            keys.write(b"\r")
            await read_until(out, b"Your table")
        await server.kill9()
        farewells = [(await read_to_the_end(out)).decode(errors="replace") for out in (ada_out, bob_out, cy_out)]
    finally:
        for conn in (ada, bob, cy):
            conn.close()
    ada_farewell, bob_farewell, cy_farewell = farewells
    assert "The game server stopped unexpectedly. Your seat is kept: connect again with ssh in a moment, with " \
           "the same key." in ada_farewell, ada_farewell[-400:]
    assert "The game server stopped unexpectedly. Connect again with ssh in a moment (a guest's seat cannot be " \
           "taken back: connect with an SSH key to keep yours)." in bob_farewell, bob_farewell[-400:]
    assert "The game server stopped unexpectedly. Connect again with ssh in a moment.\r" in cy_farewell, \
        cy_farewell[-400:]
    assert "shutting down" not in "".join(farewells)
    await wait_until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in workers),
                     "the workers to end after their server")
    again = ServerProcess(tmp_path / "x.db", tmp_path / "serve2.log", *args)
    try:
        await again.start()
        assert "ssh workers: 2" in "".join(again.banner)
    finally:
        await again.stop()


def test_the_servers_fronts_hold_its_ssh_settings_themselves() -> None:
    """The SSH settings are one value: the game server's config and a front's hold an SshSettings,
    neither declares any of its settings again, and a worker of `ono99 serve` gets the server's
    value itself, through the settings it is started with (every field set apart from its default)."""
    from dataclasses import fields

    from ono99_kernel.ssh_settings import SshSettings
    from ono99_server import ServerConfig
    from ono99_tui.front.config import FrontConfig
    from ono99_tui.front.process import config_from_env, config_to_env
    from ono99_tui.serve import front_config_for

    names = {f.name for f in fields(SshSettings)}
    for config_type in (ServerConfig, FrontConfig):
        declared = {f.name.removeprefix("ssh_") for f in fields(config_type) if f.name.startswith("ssh_")}
        assert declared & names == set(), config_type
    ssh = SshSettings(auth="authorized-keys", authorized_keys=Path("/keys"), password="pw", host_key=Path("/hk"),
                      login_timeout=1.5, idle_timeout=2.5, keepalive=3.5, max_sessions=4,
                      max_sessions_per_address=5, max_waiting_logins=6, max_waiting_logins_per_address=7,
                      input_bytes_per_second=8.5, input_burst=9, shared_screens=False, motion=True,
                      max_starting_logins=10)
    assert all(getattr(ssh, name) != getattr(SshSettings(), name) for name in names)
    front = front_config_for(ServerConfig(ssh=ssh, ssh_port=0), 1234,
                             "SHA256:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "a credential")
    assert front.ssh is ssh
    assert config_from_env(config_to_env(front)) == front
