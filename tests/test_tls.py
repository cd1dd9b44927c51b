"""The wire is TLS and the server is pinned: a raw TLS client sees the fingerprint the banner
printed, plain TCP gets nothing, a relay that ends TLS with its own certificate cannot use a player's
proof, a pass-through capture of a whole game reads no card, name or password, and a client refuses
a server whose certificate changed until the documented command accepts it.

Real parts: ``ono99 serve`` processes and in-process servers on loopback TLS, relays on loopback,
the real ``ono99 connect`` on a pseudo-terminal, zeroconf on loopback, the app under Pilot."""

from __future__ import annotations

import asyncio
import os
import random
import re
import shlex
import ssl
import stat
import sys
from pathlib import Path

import msgpack
import pytest

from ono99_kernel.fingerprints import normal_fingerprint
from ono99_kernel.identity import Identity
from ono99_kernel.protocol import PROTOCOL_VERSION
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.tls import CERT_FILE, KEY_FILE, client_context, peer_fingerprint
from ono99_kernel.wire.requests import Join
from ono99_server import Server
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from ono99_tui.known_servers import (
    AnnouncementMismatch,
    KnownServers,
    ServerKeyChanged,
    ServerTrust,
    UnknownServer,
)
from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.seats import ConfirmScreen

from .relay import Relay, TlsTerminatingRelay
from .server_helpers import (
    FAST_PLAY,
    ROOT,
    TIMEOUT,
    ServerProcess,
    TestClient,
    create_table,
    frame,
    new_identity,
    ono99,
    play,
    running_server,
    server_config,
    start,
    wait_until,
)
from .test_identity import ConnectProcess


def screen_text(output: bytes | bytearray) -> str:
    """What a terminal drew, escape sequences and all white space left out (a long line wraps)."""
    return "".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", bytes(output).decode("utf-8", "replace")).split())


# --- the listener --------------------------------------------------------------------------------------
@pytest.mark.system
async def test_a_raw_tls_client_sees_the_fingerprint_the_banner_printed_and_a_restart_keeps_it(
        tmp_path: Path) -> None:
    """A TLS 1.3 handshake with the real ``ono99 serve``: the certificate's key fingerprint is the
    banner's; the key file beside the database is private to its owner; a restart shows the same."""
    server = ServerProcess(tmp_path / "s.db", tmp_path / "s.log")
    try:
        port = await server.start()
        assert server.fingerprint == normal_fingerprint(server.fingerprint)
        _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_context())
        tls = writer.get_extra_info("ssl_object")
        assert tls.version() == "TLSv1.3"
        assert peer_fingerprint(tls) == server.fingerprint
        writer.close()
        assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
        assert (tmp_path / CERT_FILE).exists()
        first = server.fingerprint
        await server.stop()
        await server.start()
        assert server.fingerprint == first
    finally:
        await server.stop()


async def test_plain_tcp_gets_no_protocol_at_all(tmp_path: Path) -> None:
    """Tried: a plain msgpack hello frame on the game port. The server answers with no frame (a TLS
    alert at most) and closes: nothing of the game is ever spoken outside TLS."""
    async with running_server(tmp_path) as h:
        reader, writer = await asyncio.open_connection("127.0.0.1", h.port)
        writer.write(frame(msgpack.packb({"t": "hello", "version": PROTOCOL_VERSION, "name": "Eve"})))
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), TIMEOUT)
        writer.close()
        assert b"welcome" not in answer and b"Eve" not in answer
        assert h.server.lobby.members == {}


async def test_a_tls_client_that_stalls_its_handshake_takes_no_place(tmp_path: Path) -> None:
    """Tried: connections that open TCP and never start TLS. They count nowhere and the server
    drops them after the hello timeout; a real client gets in meanwhile."""
    async with running_server(tmp_path, hello_timeout=1.0) as h:
        stalled = [await asyncio.open_connection("127.0.0.1", h.port) for _ in range(5)]
        ada = await h.connect("ada")
        assert ada.welcome["name"] == "ada"
        for reader, writer in stalled:
            assert await asyncio.wait_for(reader.read(), TIMEOUT) == b""  # closed by the server
            writer.close()


# --- relays --------------------------------------------------------------------------------------------
async def test_a_relay_that_ends_tls_cannot_use_the_players_proof_and_the_seat_stays_theirs(
        tmp_path: Path) -> None:
    """The attack of a rogue server: Ada, with a key and a seat, drops; she connects to a relay that
    shows its own certificate (she trusted it), which passes her hello, the server's challenge and her
    proof on to the real server. The real server refuses the proof (it was made for the relay's
    certificate), the relay gets no seat, no hand and no identity; Ada, back directly, has her seat."""
    async with running_server(tmp_path, grace_seconds=600, bot_delay=60.0) as h:
        ada_key = new_identity()
        ada = await h.connect("ada", identity=ada_key)
        table_id = await create_table(ada, seats=2, bots=1)
        await start(ada)
        state = await ada.expect("state")
        hand = state["view"]["hand"]
        await ada.close()
        member = h.server.lobby.members["ada"]
        await wait_until(lambda: member.connection is None, "the server to see ada go")

        rogue = TlsTerminatingRelay(h.port)
        await rogue.start()
        try:
            with pytest.raises(ServerError) as refused:
                await Client.connect("127.0.0.1", rogue.port, "ada", identity=ada_key, timeout=TIMEOUT,
                                     trust=ServerTrust.pinned(rogue.fingerprint))
            assert refused.value.code == "bad_signature"
            assert member.connection is None  # nobody took her place
            seen = bytes(rogue.captured)  # what the rogue read in clear: no welcome, no state, no hand
            assert b"welcome" not in seen and b"hand" not in seen
        finally:
            await rogue.close()

        back = await h.connect("whatever", identity=ada_key)
        assert back.welcome["resumed"] and back.welcome["table"] == table_id and back.welcome["name"] == "ada"
        again = await back.expect("state")
        assert again["view"]["hand"] == hand


@pytest.mark.system
async def test_the_real_ono99_connect_through_a_rogue_relay_is_refused_and_keeps_its_seat(tmp_path: Path) -> None:
    """The same attack on the real ``ono99 connect`` (on a terminal, with its key and a seat at a
    running game): the player even pins the rogue's certificate. The real server refuses the relayed
    proof; the app says the server refused it; the seat, with its hand, waits for its player."""
    data = tmp_path / "bob"
    async with running_server(tmp_path, grace_seconds=600, bot_delay=60.0) as h:
        alice = await h.connect("alice")
        table_id = await create_table(alice, seats=3, bots=1)
        bob_key = Identity.load_or_create(data)
        bob = await h.connect("bob", identity=bob_key)
        await bob.send(Join(table=table_id))
        await bob.expect("table")
        await start(alice)
        hand = (await bob.expect("state"))["view"]["hand"]
        await bob.close()
        member = h.server.lobby.members["bob"]
        await wait_until(lambda: member.connection is None, "the server to see bob go")
        rogue = TlsTerminatingRelay(h.port)
        await rogue.start()
        app = ConnectProcess(rogue.port, data, fingerprint=rogue.fingerprint)
        try:
            await app.start()
            await wait_until(lambda: "doesnotprovethatyouholdthekey" in screen_text(app.output),
                             "the refusal on bob's screen", timeout=60)
        finally:
            await app.stop()
            await rogue.close()
        assert member.connection is None and h.server.lobby.tables[table_id].seat_of(member) is not None
        back = await h.connect("bob", identity=bob_key)
        assert back.welcome["resumed"] and back.welcome["table"] == table_id
        assert (await back.expect("state"))["view"]["hand"] == hand


async def test_a_pass_through_capture_of_a_whole_game_reads_no_card_name_or_password(tmp_path: Path) -> None:
    """Every byte between a client and the server, both ways, for a whole game on a password server:
    the capture holds none of the player's hands (as msgpack, as they travel inside TLS), no name,
    no password and no field name of the protocol."""
    password = "correct horse battery staple"
    settings = SshSettings(auth="password", password=password)
    async with running_server(tmp_path, ssh=settings, **FAST_PLAY) as h:
        tap = Relay(h.port)
        await tap.start()
        try:
            client = await TestClient.connect("127.0.0.1", tap.port, "Zanzibar", password=password,
                                              timeout=TIMEOUT, trust=h.trust)
            assert isinstance(client, TestClient)
            h.clients.append(client)
            await create_table(client, seats=2, bots=1)
            await start(client)
            log = await play(client, random.Random(7))
            assert log.states and log.states[-1]["view"]["winner"] is not None
        finally:
            await tap.close()
    captured = bytes(tap.captured)
    assert len(captured) > 2000  # the game went through the tap
    hands = {tuple(s["view"]["hand"]) for s in log.states if s["view"]["hand"]}
    assert hands
    for hand in hands:
        assert msgpack.packb(list(hand)) not in captured, hand
    for clear in (b"Zanzibar", password.encode(), b"hello", b"welcome", b"legal", b"top_card", b"ONO99"):
        assert clear not in captured, clear


# --- pinning -------------------------------------------------------------------------------------------
async def test_a_first_visit_is_asked_a_known_server_is_checked_and_a_given_fingerprint_wins(
        tmp_path: Path) -> None:
    """Two servers with two certificates, the second on the first's address after it is gone (a
    host who replaced the certificate, or someone in between): unknown → asked; accepted →
    remembered; changed → refused before anything is sent; ``--server-fingerprint`` of the new one →
    accepted and remembered instead."""
    known = KnownServers(tmp_path / "data" / "known_servers")
    trust = ServerTrust(known=known)
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    async with running_server(tmp_path / "one") as first:
        port = first.port
        with pytest.raises(UnknownServer) as unknown:
            await Client.connect("127.0.0.1", port, "ada", trust=trust, timeout=TIMEOUT)
        assert unknown.value.fingerprint == first.server.fingerprint
        assert first.server.lobby.members == {}  # nothing was said to it
        accepted = trust.accept("127.0.0.1", port, unknown.value.fingerprint)
        client = await Client.connect("127.0.0.1", port, "ada", trust=accepted, timeout=TIMEOUT)
        await client.close()
        client = await Client.connect("127.0.0.1", port, "ada", trust=trust, timeout=TIMEOUT)  # from the file
        await client.close()
    assert known.get("127.0.0.1", port) == first.server.fingerprint

    async with running_server(tmp_path / "two", port=port) as second:
        assert second.server.fingerprint != first.server.fingerprint
        with pytest.raises(ServerKeyChanged) as changed:
            await Client.connect("127.0.0.1", port, "ada", trust=trust, timeout=TIMEOUT)
        assert changed.value.expected == first.server.fingerprint
        assert changed.value.fingerprint == second.server.fingerprint
        assert second.server.lobby.members == {}
        with pytest.raises(ServerKeyChanged):  # a fingerprint given that is not the server's
            await Client.connect("127.0.0.1", port, "ada", timeout=TIMEOUT,
                                 trust=ServerTrust(known=known, given=first.server.fingerprint))
        client = await Client.connect("127.0.0.1", port, "ada", timeout=TIMEOUT,
                                      trust=ServerTrust(known=known, given=second.server.fingerprint))
        await client.close()
        assert known.get("127.0.0.1", port) == second.server.fingerprint
        client = await Client.connect("127.0.0.1", port, "ada", trust=trust, timeout=TIMEOUT)
        await client.close()


def test_the_known_servers_file_keeps_other_lines_and_names_v6_servers_as_openssh_does(tmp_path: Path) -> None:
    path = tmp_path / "known_servers"
    path.write_text("# my servers\nbox:9999 SHA256:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8\nnot a line\n")
    known = KnownServers(path)
    fingerprint = "SHA256:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
    known.remember("::1", 9999, fingerprint)
    known.remember("BOX", 9999, fingerprint)  # replaces box's line
    assert known.entries() == {"[::1]:9999": fingerprint, "box:9999": fingerprint}
    assert path.read_text().splitlines()[:2] == ["# my servers", "not a line"]


@pytest.mark.system
async def test_the_real_ono99_connect_asks_refuses_a_changed_certificate_and_the_said_command_accepts_it(
        tmp_path: Path) -> None:
    """As a player meets it: the first ``ono99 connect`` shows the fingerprint and asks (y trusts);
    the host then replaces the certificate (deletes the files; the restart makes new ones); the same
    command refuses loudly and names the command that accepts a new one, with a placeholder where the
    fingerprint the host prints goes (never the one it was just shown), and the data directory the
    player gave; that command gets in."""
    data = tmp_path / "player"
    server = ServerProcess(tmp_path / "s.db", tmp_path / "s.log")
    try:
        port = await server.start()
        old = server.fingerprint
        first = ConnectProcess(port, data, "--name", "ada")
        await first.start()
        try:
            await wait_until(lambda: b"first visit" in first.output, "the first-visit question", timeout=60)
            assert old.encode() in first.output
            first.press(b"y")
            await wait_until(lambda: KnownServers.in_directory(data).get("127.0.0.1", port) == old,
                             "the fingerprint remembered", timeout=60)
            await wait_until(lambda: b"No tables yet" in first.output, "the lobby", timeout=60)
        finally:
            await first.stop()
        await server.stop()
        (tmp_path / CERT_FILE).unlink()
        (tmp_path / KEY_FILE).unlink()
        await server.start()
        new = server.fingerprint
        assert new != old

        refused = ConnectProcess(port, data)
        await refused.start()
        try:
            await wait_until(lambda: b"HAS CHANGED" in refused.output, "the loud refusal", timeout=60)
            command = f"ono99connect127.0.0.1:{port}--data-dir{data}--server-fingerprintFINGERPRINT"
            await wait_until(lambda: command in screen_text(refused.output), "the command that accepts the new one",
                             timeout=60)
            # the command holds a placeholder: the fingerprint comes from the host, not from whoever is in between
            assert f"--server-fingerprint{new}" not in screen_text(refused.output)
        finally:
            await refused.stop()
        assert KnownServers.in_directory(data).get("127.0.0.1", port) == old

        accepted = ConnectProcess(port, data, fingerprint=new)
        await accepted.start()
        try:
            await wait_until(lambda: b"No tables yet" in accepted.output, "the lobby", timeout=60)
        finally:
            await accepted.stop()
        assert KnownServers.in_directory(data).get("127.0.0.1", port) == new
    finally:
        await server.stop()


async def test_the_app_asks_at_a_first_visit_and_stops_at_a_changed_certificate(tmp_path: Path) -> None:
    """Under Pilot: the question shows the fingerprint and Enter (on No) goes nowhere; y connects;
    a changed certificate is said with the command, and nothing is sent to that server."""
    known = KnownServers(tmp_path / "known_servers")
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    async with running_server(tmp_path / "one") as h:
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="ada", trust=ServerTrust(known=known))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(lambda: isinstance(app.screen, ConfirmScreen), "the question")
            assert isinstance(app.screen, ConfirmScreen) and h.server.fingerprint in app.screen.question
            await pilot.pause()
            shown = app.screen.query_one("#question")  # the whole question is on screen at 80x24, wrapped
            assert shown.region.width <= app.screen.query_one("#dialog").content_region.width
            drawn = " ".join(shown.render_line(y).text.strip() for y in range(shown.size.height))
            assert h.server.fingerprint in drawn and "will refuse any other." in drawn, drawn
            await pilot.press("y")
            await wait_until(lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        port = h.port
    async with running_server(tmp_path / "two", port=port) as other:
        app = make_app(local=False, host="127.0.0.1", port=port, name="ada", trust=ServerTrust(known=known))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(lambda: app.exit_code == 2, "the refusal")
            refusal = str(app.screen.query_one("#start-text").render())
            assert "HAS CHANGED" in refusal and other.server.fingerprint in refusal
            said = refusal.replace("\n", " ")
            assert "--server-fingerprint FINGERPRINT" in said and f"--server-fingerprint {other.server.fingerprint}" \
                not in said and "Ask the host which fingerprint their server prints" in said
            assert other.server.lobby.members == {}
            await pilot.press("q")


async def test_a_certificate_that_changes_while_playing_stops_the_reconnecting_app_loudly(tmp_path: Path) -> None:
    """Found in play: the app trusted a server at its first visit; the server restarted with a new
    certificate; the app's automatic reconnect was refused with words meant for a fingerprint the
    player gave, in a notice that went away over a table that looked alive. Now the refusal is the
    changed-certificate warning with the command, on a screen of its own that stays."""
    known = KnownServers(tmp_path / "known_servers")
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first = Server(server_config(tmp_path / "one"))
    await first.start()
    port = first.port
    app = make_app(local=False, host="127.0.0.1", port=port, name="ada", trust=ServerTrust(known=known))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(lambda: isinstance(app.screen, ConfirmScreen), "the question")
            await pilot.press("y")
            await wait_until(lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await first.close()
            second = Server(server_config(tmp_path / "two", port=port))
            await second.start()
            try:
                await wait_until(lambda: app.exit_code == 2, "the refusal", timeout=60)
                shown = str(app.screen.query_one("#start-text").render())
                assert "HAS CHANGED" in shown and "you gave" not in shown
                assert "--server-fingerprint FINGERPRINT" in shown.replace("\n", " ")
                assert f"--server-fingerprint {second.fingerprint}" not in shown.replace("\n", " ")
                await pilot.pause(0.5)
                assert app.screen.query("#start-text")  # it stays
                assert "ada" not in second.lobby.members
            finally:
                await second.close()
    finally:
        await first.close()


async def test_a_server_picked_from_the_lan_list_must_show_the_fingerprint_it_announced(tmp_path: Path) -> None:
    """The announcement is checked against the certificate: the same → the first-visit question says
    it matches; another → refused as a mismatch, nothing sent."""
    async with running_server(tmp_path) as h:
        trust = ServerTrust(known=KnownServers(tmp_path / "known_servers"), announced=h.server.fingerprint)
        with pytest.raises(UnknownServer) as unknown:
            await Client.connect("127.0.0.1", h.port, "ada", trust=trust, timeout=TIMEOUT)
        assert unknown.value.announced
        liar = ServerTrust(known=KnownServers(tmp_path / "known_servers"),
                           announced="SHA256:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
        with pytest.raises(AnnouncementMismatch):
            await Client.connect("127.0.0.1", h.port, "ada", trust=liar, timeout=TIMEOUT)
        assert h.server.lobby.members == {}
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="ada", trust=liar)
        async with app.run_test(size=(80, 24)) as pilot:  # as the app says it
            await wait_until(lambda: app.exit_code == 2, "the refusal")
            shown = str(app.screen.query_one("#start-text").render())
            assert "NOT CONNECTED" in shown and "announced" in shown and h.server.fingerprint in shown
            await pilot.press("q")
        assert h.server.lobby.members == {}


async def test_tls_client_context_refuses_anything_older_than_tls13(tmp_path: Path) -> None:
    """Tried: a client that offers TLS 1.2 at most. The handshake fails."""
    async with running_server(tmp_path) as h:
        old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        old.check_hostname, old.verify_mode = False, ssl.CERT_NONE
        old.maximum_version = ssl.TLSVersion.TLSv1_2
        with pytest.raises((ssl.SSLError, ConnectionError)):
            await asyncio.wait_for(asyncio.open_connection("127.0.0.1", h.port, ssl=old), TIMEOUT)


async def said_by_plain_connect(args: list[str], env: dict[str, str], until: bytes) -> bytes:
    """What the real ``ono99 connect --plain …`` prints (its input at an end) up to ``until`` or its
    exit; the process is stopped then."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ono99_tui.cli", *args, cwd=ROOT, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    assert process.stdout is not None
    output = b""
    try:
        while until not in output:
            line = await asyncio.wait_for(process.stdout.readline(), TIMEOUT)
            if not line:
                break
            output += line
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
    return output


async def test_the_command_a_changed_certificate_names_works_as_said_with_the_data_directory_given(
        tmp_path: Path) -> None:
    """Found in play: a player who keeps their key in another data directory (``--data-dir``) met a
    changed certificate; the command it named left ``--data-dir`` out, so running it as said pinned
    the new fingerprint in the default directory, under a key of its own, and the player's own command
    was refused again. Now the command names the directory the old fingerprint was known in, and run
    as said (the host's fingerprint in place of FINGERPRINT) it gets in and pins it there; with
    ``$ONO99_DATA_DIR`` (the default of a bare command) it names none."""
    data = tmp_path / "my key"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ONO99_")}
    env["ONO99_CONFIG_DIR"] = str(tmp_path / "config")
    async with running_server(tmp_path) as h:
        address = f"127.0.0.1:{h.port}"
        KnownServers.in_directory(data).remember("127.0.0.1", h.port, "SHA256:" + "A" * 43)
        refused = (await said_by_plain_connect(["connect", "--plain", address, "--data-dir", str(data)], env,
                                               b"Bye.")).decode()
        command = re.search(r"accept it with: (ono99 connect .*FINGERPRINT) \(with", refused)
        assert command is not None, refused
        said = shlex.split(command.group(1))
        assert said == ["ono99", "connect", "--plain", address, "--data-dir", str(data), "--server-fingerprint",
                        "FINGERPRINT"], said
        accepted = await said_by_plain_connect(
            [h.server.fingerprint if word == "FINGERPRINT" else word for word in said[1:]], env, b"Welcome")
        assert b"Welcome to ONO 99" in accepted, accepted
        assert KnownServers.in_directory(data).get("127.0.0.1", h.port) == h.server.fingerprint

        KnownServers.in_directory(data).remember("127.0.0.1", h.port, "SHA256:" + "A" * 43)
        refused = (await said_by_plain_connect(["connect", "--plain", address], {**env, "ONO99_DATA_DIR": str(data)},
                                               b"Bye.")).decode()
        assert f"accept it with: ono99 connect --plain {address} --server-fingerprint FINGERPRINT" in refused, \
            refused


async def test_a_fingerprint_given_wrong_is_said_in_the_players_language_and_the_placeholder_says_what_goes_in(
        tmp_path: Path) -> None:
    """Found in play: ``--server-fingerprint FINGERPRINT`` (the command a changed certificate names,
    run with its placeholder left in) and a fingerprint cut short were refused in English whatever
    the language, and without saying what goes in the placeholder's place. Tried with ``ono99
    connect`` in German and ``ono99 admin`` in Vietnamese: each says it in that language, and the
    placeholder is told to be replaced by the fingerprint the host's server prints."""
    Identity.load_or_create(tmp_path)
    placeholder = await ono99("--lang", "de", "connect", "127.0.0.1:9", "--data-dir", str(tmp_path),
                              "--server-fingerprint", "FINGERPRINT")
    assert placeholder.returncode == 2
    assert placeholder.stderr.strip() == (
        "ono99 connect: --server-fingerprint: 'FINGERPRINT' ist kein Fingerabdruck: er muss mit SHA256: beginnen; "
        "setze statt FINGERPRINT den Fingerabdruck ein, den der Server des Gastgebers ausgibt (tls: certificate …)")
    short = await ono99("--lang", "vi", "admin", "--server", "127.0.0.1:9", "--data-dir", str(tmp_path),
                        "--server-fingerprint", "SHA256:abc", "who")
    assert short.returncode == 2
    assert short.stderr.strip() == ("ono99 admin: --server-fingerprint: 'SHA256:abc' không phải là dấu vân tay: "
                                    "sau SHA256: phải có 43 ký tự base64")


async def test_an_operator_meeting_a_changed_certificate_is_told_the_admin_command_that_accepts_it_and_it_does(
        tmp_path: Path) -> None:
    """Found in play: ``ono99 admin`` against a server whose certificate changed said only that it
    was not the one its data directory knew, and not what to do next. Now it says the warning's
    words with an ``ono99 admin`` command (its data directory, a placeholder for the fingerprint);
    run as said with the host's fingerprint in the placeholder's place, it runs and pins the new one."""
    operator_dir = tmp_path / "operator"
    op = Identity.load_or_create(operator_dir)
    admins = tmp_path / "admins"
    admins.write_text(f"{op.public_key} op\n", encoding="utf-8")
    async with running_server(tmp_path, admins=admins) as h:
        address = f"127.0.0.1:{h.port}"
        KnownServers.in_directory(operator_dir).remember("127.0.0.1", h.port, "SHA256:" + "A" * 43)
        refused = await ono99("--lang", "en", "admin", "--server", address, "--data-dir", str(operator_dir), "who")
        assert refused.returncode == 1 and "not sending anything" in refused.stderr
        assert f"--server-fingerprint {h.server.fingerprint}" not in refused.stderr
        command = re.search(r"accept it with: (ono99 admin .*) \(with FINGERPRINT replaced", refused.stderr)
        assert command is not None, refused.stderr
        said = shlex.split(command.group(1))
        assert said == ["ono99", "admin", "--server", address, "--data-dir", str(operator_dir),
                        "--server-fingerprint", "FINGERPRINT", "who"], said
        accepted = await ono99("--lang", "en", *[h.server.fingerprint if word == "FINGERPRINT" else word
                                                 for word in said[1:]])
        assert accepted.returncode == 0, accepted.stderr
        assert "0 players" in accepted.stdout, accepted.stdout
        assert KnownServers.in_directory(operator_dir).get("127.0.0.1", h.port) == h.server.fingerprint


async def test_ono99_admin_takes_where_to_go_after_the_command_too(tmp_path: Path) -> None:
    """Found in play: ``ono99 admin who --server HOST:PORT --data-dir DIR`` (the way most commands'
    options are written) was refused as "unrecognized arguments". Tried with the three options after
    the command, and with --server both before (a wrong one) and after (the right one): the command
    runs against the server named last."""
    operator_dir = tmp_path / "operator"
    op = Identity.load_or_create(operator_dir)
    admins = tmp_path / "admins"
    admins.write_text(f"{op.public_key} op\n", encoding="utf-8")
    async with running_server(tmp_path, admins=admins) as h:
        address = f"127.0.0.1:{h.port}"
        after = await ono99("--lang", "en", "admin", "who", "--server", address, "--data-dir", str(operator_dir),
                            "--server-fingerprint", h.server.fingerprint)
        assert after.returncode == 0, after.stderr
        assert "0 players" in after.stdout
        both = await ono99("--lang", "en", "admin", "--server", "127.0.0.1:9", "--data-dir", str(operator_dir),
                           "kick", "nobody", "--reason", "x", "--server", address)
        assert both.returncode == 1 and "nobody called 'nobody' is on this server" in both.stderr, both.stderr


@pytest.mark.system
async def test_a_server_that_makes_a_new_certificate_tells_its_host_that_players_will_be_warned(
        tmp_path: Path) -> None:
    """Found in play: a host whose certificate files were gone (deleted, or a database moved with
    --db, beside which they are kept) got a new certificate without a word, and learnt it from
    players' changed-certificate warnings. Tried: the first start says it made one (path and
    fingerprint) and that players who knew another are warned; a restart with the files says nothing;
    a start after the files were deleted says it again, with the new fingerprint."""
    log = tmp_path / "s.log"
    server = ServerProcess(tmp_path / "s.db", log)
    try:
        await server.start()
        first = server.fingerprint
        said = log.read_text()
        assert f"made a new TLS certificate {tmp_path / CERT_FILE} ({first}): players who knew this server by " \
               "another one are warned that its certificate changed" in said, said
        await server.stop()
        await server.start()
        assert log.read_text().count("made a new TLS certificate") == 1
        await server.stop()
        (tmp_path / CERT_FILE).unlink()
        (tmp_path / KEY_FILE).unlink()
        await server.start()
        assert server.fingerprint != first
        assert log.read_text().count("made a new TLS certificate") == 2
        assert f"({server.fingerprint}): players who knew" in log.read_text()
    finally:
        await server.stop()
