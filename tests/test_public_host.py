"""A public host's defences, each tried with real sockets against a real server: its own fronts reach
it at the address it listens on, connections that never start TLS stay within the hello budgets,
invite codes and names cannot be guessed or hoarded in bulk, and the web socket takes only its
own page."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from ono99_kernel.fronts import FrontAssertion, new_credential
from ono99_kernel.protocol import encode
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.ssh_settings import SshSettings
from ono99_kernel.wire.requests import CreateArena, CreateTable, Join, JoinArena, Ping, Spectate
from ono99_kernel.wire.server import AdminResult, decode_server_message
from ono99_server.rates import CodeGuesses
from ono99_tui.client.errors import ServerError
from ono99_tui.i18n import LANGUAGES, gettext, using
from ono99_tui.known_servers import KnownServers, ServerKeyChanged, untrusted_words
from ono99_tui.reasons import admin_said, said
from tests.server_helpers import (
    TIMEOUT,
    ServerProcess,
    Store,
    TestClient,
    free_port,
    hello,
    new_identity,
    running_server,
    storage_barrier,
    wait_until,
)
from tests.test_hardening import connect_from
from tests.test_moderation import admin, admin_refused, admins_file, operator
from tests.test_storage import read_beside, write_beside
from tests.test_web import WsPlayer, insecure, start_web_rig

CREDENTIAL = new_credential()


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


# --- connections that never start TLS ----------------------------------------------------------------
async def silent_connections(port: int, addresses: list[str]) -> tuple[list[asyncio.StreamWriter],
                                                                        list[asyncio.Task[None]]]:
    """Plain TCP connections that send nothing, one from each of ``addresses`` in turn, and for each a
    task that ends when the server lets the connection go (end of stream or reset)."""
    writers: list[asyncio.StreamWriter] = []
    ends: list[asyncio.Task[None]] = []

    async def until_let_go(reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError):
            await reader.read()

    for address in addresses:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), TIMEOUT)
        writers.append(writer)
        ends.append(asyncio.create_task(until_let_go(reader)))
    return writers, ends


async def test_silent_connections_from_one_address_hold_no_more_than_its_budget(tmp_path: Path) -> None:
    """100 plain TCP connections from 127.0.95.1 that never start TLS, on a server whose hello timeout
    (120 s) outlasts the test: once, the 8 of the address's budget were held and the other 92, refused,
    were held too until the timeout, waiting for a handshake to say why; and an honest player from that
    address was refused meanwhile. Tried: the server lets at least 92 go at once (it holds at most the
    8 of the budget), and a player from 127.0.95.1 then gets in, its connection taking the place of the
    oldest silent one."""
    async with running_server(tmp_path, max_waiting_hellos_per_address=8, hello_timeout=120.0) as h:
        writers, ends = await silent_connections(h.port, ["127.0.95.1"] * 100)
        try:
            await wait_until(lambda: sum(end.done() for end in ends) >= 92, "all but 8 silent connections let go")
            assert h.server.waiting.waiting_from("127.0.95.1") <= 8
            player = await connect_from("127.0.95.1", h.port, "honest")
            h.clients.append(player)
            assert "honest" in h.server.lobby.members
            assert sum(not end.done() for end in ends) <= 8
        finally:
            for writer in writers:
                writer.close()
            for end in ends:
                end.cancel()


async def test_silent_connections_from_many_addresses_hold_no_more_than_the_total_budget(tmp_path: Path) -> None:
    """120 silent TCP connections, 4 from each of 30 addresses, on a server with a hello budget of 24 (4
    per address): the ones dropped to make room were once only marked closed and held until their
    handshake timed out. Tried: at most 24 are held (96 let go at once), and a player from another
    address gets in."""
    async with running_server(tmp_path, max_waiting_hellos=24, max_waiting_hellos_per_address=4,
                              hello_timeout=120.0) as h:
        addresses = [f"127.0.96.{10 + i % 30}" for i in range(120)]
        writers, ends = await silent_connections(h.port, addresses)
        try:
            await wait_until(lambda: sum(end.done() for end in ends) >= 96, "all but 24 silent connections let go")
            assert len(h.server.waiting) <= 24
            player = await connect_from("127.0.97.1", h.port, "newcomer")
            h.clients.append(player)
        finally:
            for writer in writers:
                writer.close()
            for end in ends:
                end.cancel()


# --- invite codes cannot be guessed --------------------------------------------------------------------
class FrozenClock:
    """A clock that moves only when told: the guess throttle's lockouts neither run out nor depend on
    how fast this machine is."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def front_player(port: int, name: str, address: str, identity: str | None) -> TestClient:
    """A player an SSH front brings in, from ``address`` with key ``identity`` (the front's word)."""
    return await TestClient.connect("127.0.0.1", port, name, timeout=TIMEOUT, client_name="ono99-ssh",
                                    front=FrontAssertion(CREDENTIAL, address, identity))


async def test_failed_invite_code_lookups_are_throttled_by_address_and_by_key(tmp_path: Path) -> None:
    """A guesser once had 844 code lookups a second answered from one address. Tried, on a server whose
    guess throttle's clock stands still: a player (address A, key X) looks up 4 wrong codes, each
    answered `no_table`; the 5th lookup, of the right code, is refused `rate_limited` `code_locked`
    unchecked; so is the right code from A with another key, and from another address with key X;
    a player of another address and key joins with it; once the lockout has passed, X at A joins
    too."""
    clock = FrozenClock()
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,)) as h:
        h.server.lobby.code_guesses = CodeGuesses(clock)
        host = await h.connect("host")
        await host.send(CreateTable(name="private", seats=4, private=True))
        code = (await host.expect("table"))["table"]["code"]
        key_x, key_y, key_z = (str(asyncssh.generate_private_key("ssh-ed25519").get_fingerprint())
                               for _ in range(3))
        guesser = await front_player(h.port, "guesser", "198.51.100.7", key_x)
        h.clients.append(guesser)
        wrong = [c for c in ("ABCDEF", "GHJKMN", "PQRSTU", "VWXYZ2", "345678") if c != code][:4]
        for guess in wrong:
            error = await guesser.request(Join(code=guess), "error")
            assert error["code"] == "no_table" and error["params"]["why"] == "code"
        error = await guesser.request(Join(code=code), "error")
        assert error["code"] == "rate_limited" and error["params"] == {"why": "code_locked", "seconds": 2}
        assert "too many wrong invite codes" in error["reason"]

        same_address = await front_player(h.port, "neighbour", "198.51.100.7", key_y)
        h.clients.append(same_address)
        assert (await same_address.request(Spectate(code=code), "error"))["params"]["why"] == "code_locked"
        await guesser.close()
        same_key = await front_player(h.port, "guesser", "203.0.113.9", key_x)
        h.clients.append(same_key)
        assert (await same_key.request(Join(code=code), "error"))["params"]["why"] == "code_locked"

        stranger = await front_player(h.port, "stranger", "203.0.113.10", key_z)
        h.clients.append(stranger)
        assert (await stranger.request(Join(code=code), "table"))["table"]["code"] == code
        clock.now += 3
        assert (await same_key.request(Join(code=code), "table"))["table"]["code"] == code


async def test_wrong_arena_codes_count_as_guesses_with_the_tables_codes(tmp_path: Path) -> None:
    """Tried, on a server whose guess throttle's clock stands still: a guesser misses 2 table codes and
    2 arena codes (each answered no_table / no_arena), then asks for the right code of a private
    arena. Found: refused `rate_limited` `code_locked` unchecked (arena codes are invite codes like
    a table's, one budget for both); another player joins the arena with it."""
    clock = FrozenClock()
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,)) as h:
        h.server.lobby.code_guesses = CodeGuesses(clock)
        creator = await h.connect("creator")
        code = (await creator.request(CreateArena(minutes=30, seats=2, private=True), "arena"))["code"]
        guesser = await front_player(h.port, "guesser", "198.51.100.7", new_key())
        h.clients.append(guesser)
        wrong = [c for c in ("ABCDEF", "GHJKMN", "PQRSTU", "VWXYZ2", "345678") if c != code][:4]
        for guess in wrong[:2]:
            assert (await guesser.request(Join(code=guess), "error"))["code"] == "no_table"
        for guess in wrong[2:]:
            error = await guesser.request(JoinArena(code=guess), "error")
            assert error["code"] == "no_arena" and error["params"]["why"] == "code"
        error = await guesser.request(JoinArena(code=code), "error")
        assert error["code"] == "rate_limited" and error["params"]["why"] == "code_locked"
        stranger = await front_player(h.port, "stranger", "203.0.113.10", new_key())
        h.clients.append(stranger)
        assert (await stranger.request(JoinArena(code=code), "arena"))["joined"] is True


# --- names are not hoarded ---------------------------------------------------------------------------
def new_key() -> str:
    return str(asyncssh.generate_private_key("ssh-ed25519").get_fingerprint())


async def test_new_keys_take_a_limited_number_of_names_from_one_address(tmp_path: Path) -> None:
    """Fresh keys once claimed 160 names in 0.6 s from one address. Tried: 12 new keys from 198.51.100.20
    (an SSH front's players) say hello with names of their own: 10 are welcomed, the 11th and 12th are
    refused `rate_limited` `new_names` with the seconds to wait (in words that suggest no guest, which
    an SSH or `ono99 connect` player cannot be), their names left free; a guest from
    that address, a key that already owns a name there and a new key from another address all get in."""
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,)) as h:
        keys = [new_key() for _ in range(12)]
        for i, key in enumerate(keys[:10]):
            h.clients.append(await front_player(h.port, f"name{i}", "198.51.100.20", key))
        for i, key in enumerate(keys[10:], start=10):
            with pytest.raises(ServerError) as info:
                await front_player(h.port, f"name{i}", "198.51.100.20", key)
            assert info.value.code == "rate_limited" and info.value.error.params["why"] == "new_names"
            assert 0 < int(info.value.error.params["seconds"]) <= 360
            assert h.server.lobby.names.owner(f"name{i}") is None
            # said alike to every way in (an SSH or `ono99 connect` player cannot come in as a guest)
            assert "guest" not in info.value.error.reason
            for language in LANGUAGES:
                with using(language):
                    assert said(info.value.error) == gettext(
                        "too many new players' names from your address just now: wait {seconds} s before trying "
                        "again").format(seconds=info.value.error.params["seconds"])
        h.clients.append(await front_player(h.port, "a guest", "198.51.100.20", None))
        await h.clients[0].close()
        h.clients.append(await front_player(h.port, "name0", "198.51.100.20", keys[0]))
        h.clients.append(await front_player(h.port, "elsewhere", "203.0.113.20", new_key()))


async def test_a_name_whose_key_never_comes_back_is_released_after_180_days(tmp_path: Path, store: Store) -> None:
    """tom's key takes "tom"; the server stops. Its database (SQLite, and PostgreSQL) says tom's key
    was last seen 179 days ago: another key is refused "tom" (and "T0M", which looks like it). Then it
    says 181 days ago: the other key takes "tom", and tom's old key is refused its old name."""
    tom, other = new_key(), new_key()
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,), **store.config) as h:
        first = await front_player(h.port, "tom", "198.51.100.30", tom)
        h.clients.append(first)
        await storage_barrier(first)
    for days, free in ((179, False), (181, True)):
        write_beside(store, f"UPDATE names_seen SET seen_at = {time.time() - days * 86400} WHERE identity = '{tom}'")
        assert read_beside(store, "SELECT count(*) FROM names_seen WHERE identity = ?", (tom,)) == [(1,)]
        async with running_server(tmp_path, front_credentials=(CREDENTIAL,), **store.config) as h:
            if not free:
                for name in ("tom", "T0M"):
                    with pytest.raises(ServerError) as info:
                        await front_player(h.port, name, "198.51.100.31", other)
                    assert info.value.code == "name_taken"
                continue
            newcomer = await front_player(h.port, "tom", "198.51.100.31", other)
            h.clients.append(newcomer)
            with pytest.raises(ServerError) as info:
                await front_player(h.port, "tom", "198.51.100.30", tom)
            assert info.value.code == "name_taken"
            await storage_barrier(newcomer)
    assert read_beside(store, "SELECT identity FROM names WHERE name = 'tom'") == [(other,)]


async def test_an_operator_releases_a_squatted_name(tmp_path: Path) -> None:
    """A key squats "queen" and leaves. `admin release queen` from an operator frees it (and says so):
    another key takes it at once; a guest's name cannot be released."""
    op = new_identity()
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,), admins=admins_file(tmp_path, op)) as h:
        squatter = await front_player(h.port, "queen", "198.51.100.40", new_key())
        await squatter.close()
        guest = await front_player(h.port, "visitor", "198.51.100.41", None)
        h.clients.append(guest)
        operator_session = await operator(h, op)
        result = await admin(operator_session, "release", target="queen")
        assert result["params"] == {"name": "queen"} and "released the name queen" in result["text"]
        h.clients.append(await front_player(h.port, "queen", "198.51.100.42", new_key()))
        error = await admin_refused(operator_session, "release", target="visitor")
        assert error["code"] == "bad_target" and error["params"]["why"] == "guest_release"


async def test_releasing_an_online_players_name_says_they_keep_it_until_they_leave(tmp_path: Path) -> None:
    """Tried: `admin release queen` while the key's player is connected. Before, the reply said
    "anyone may take it now", yet another key asking for "queen" was refused while she stayed; now the
    reply (the server's English and the client's words, in every language) says she keeps it until she
    leaves, and once she has left, another key takes it."""
    op = new_identity()
    async with running_server(tmp_path, front_credentials=(CREDENTIAL,), admins=admins_file(tmp_path, op)) as h:
        queen = await front_player(h.port, "queen", "198.51.100.40", new_key())
        operator_session = await operator(h, op)
        result = await admin(operator_session, "release", target="queen")
        assert result["params"] == {"name": "queen", "online": 1}, result
        assert "keeps it until they leave" in result["text"] and "anyone may take it now" not in result["text"]
        said = decode_server_message({"t": "admin_result", "command": "release", **result})
        assert isinstance(said, AdminResult)
        for language in LANGUAGES:
            with using(language):
                words = admin_said(said)
                assert words == gettext("released the name {name}; {name} is online and keeps it until they "
                                        "leave, then anyone may take it").format(name="queen"), words
        with pytest.raises(ServerError) as info:
            await front_player(h.port, "queen", "198.51.100.42", new_key())
        assert info.value.code == "name_taken"
        await queen.close()
        await wait_until(lambda: "queen" not in h.server.lobby.members, "queen gone")
        h.clients.append(await front_player(h.port, "queen", "198.51.100.42", new_key()))


# --- a changed certificate ---------------------------------------------------------------------------
async def test_the_plain_clients_changed_certificate_warning_names_no_fingerprint_to_paste(tmp_path: Path) -> None:
    """`ono99 connect --plain` to a server whose certificate is not the one its data directory trusted
    once printed a ready command holding the fingerprint it was just shown: pasting it trusted whoever
    is in between. Tried, over a real TLS handshake: the refusal says nothing was sent and gives the
    command with the placeholder FINGERPRINT, tells the player to ask the host, and the fingerprint it
    saw is in no command. Its words are the app's warning: before, they said neither that the
    certificate had changed nor that someone may be between the player and the server."""
    async with running_server(tmp_path) as h:
        data = tmp_path / "player"
        data.mkdir()
        KnownServers.in_directory(data).remember("127.0.0.1", h.port, "SHA256:" + "A" * 43)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "ono99_tui.cli", "connect", "--plain", f"127.0.0.1:{h.port}", "--data-dir",
            str(data), "--lang", "en", stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
        said = " ".join(out.decode().split())
        assert "Nothing was sent." in said, said
        # the app's warning, word for word: the certificate changed, and someone may be in between
        assert "WARNING: THE SERVER'S CERTIFICATE HAS CHANGED." in said, said
        assert "Someone may be between you and the server, or its host replaced the certificate." in said, said
        changed = ServerKeyChanged("127.0.0.1", h.port, h.server.fingerprint, "SHA256:" + "A" * 43, directory=data)
        assert " ".join(untrusted_words(changed, plain=True).split()) in said, said
        assert f"ono99 connect --plain 127.0.0.1:{h.port} --data-dir {data} --server-fingerprint FINGERPRINT" in said
        assert "Ask the host which fingerprint their server prints" in said
        assert f"--server-fingerprint {h.server.fingerprint}" not in said
        assert h.server.lobby.members == {}


# --- the web socket and the refusal of a browser -----------------------------------------------------
async def test_a_websocket_without_an_origin_is_refused(tmp_path: Path) -> None:
    """docs/web.md says the web socket is for the server's own page, yet one opened with no `Origin`
    header at all (no browser's: a script elsewhere, say) was let in. Tried: it is refused (403), and
    the page's own socket still opens."""
    rig = await start_web_rig(tmp_path)
    try:
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as info:
                await http.ws_connect(rig.url.replace("https://", "wss://") + "/ws", ssl=insecure())
            assert info.value.status == 403
        page = await WsPlayer.connect(rig.url)
        try:
            await page.until_shown(b"This browser keeps your seat", "the name screen")
        finally:
            await page.close()
    finally:
        await rig.close()


async def test_without_ssh_a_keyless_refusal_names_no_ssh_command(tmp_path: Path) -> None:
    """A server that takes only listed keys and has no SSH told a client without a key, and a browser,
    to "play with ssh -p PORT HOST": a literal command no one could run. Tried: a guest's hello over
    TCP and a browser's socket on a web front without SSH are each told to play with `ono99 connect`
    (which proves the player's key), and neither text holds "ssh -p" or "PORT"."""
    keys = tmp_path / "authorized_keys"
    keys.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
    ssh = SshSettings(auth="authorized-keys", authorized_keys=keys)
    async with running_server(tmp_path / "tcp", ssh=ssh) as h:
        with pytest.raises(ServerError) as info:
            await h.connect("guest")
        assert info.value.code == "access_denied" and info.value.error.params["ssh"] == "ono99 connect"
        assert "play with ono99 connect" in info.value.reason and "ssh -p" not in info.value.reason
    rig = await start_web_rig(tmp_path / "web", ssh)
    try:
        refused = await WsPlayer.connect(rig.url)
        try:
            text = (await refused.until_control("refused"))["text"]
            assert "only the keys its host listed" in text and "play with ono99 connect" in text
            assert "ssh -p" not in text and "PORT" not in text
        finally:
            await refused.close()
    finally:
        await rig.close()


# --- what docs/protocol.md says of clients written from it --------------------------------------------
async def test_a_plaintext_client_gets_no_answer_and_a_closed_connection(tmp_path: Path) -> None:
    """protocol.md section 1: a client that sends its hello in the clear (as before TLS) is answered by
    nothing at all (no byte, not even an error in the clear) and finds the connection closed."""
    async with running_server(tmp_path) as h:
        reader, writer = await asyncio.open_connection("127.0.0.1", h.port)
        try:
            writer.write(encode(hello("plain").to_wire()))
            await writer.drain()
            try:
                answer = await asyncio.wait_for(reader.read(), TIMEOUT)
            except ConnectionResetError:
                answer = b""
            assert answer == b""
            assert h.server.lobby.members == {}
        finally:
            writer.close()


async def test_a_players_admin_without_an_operators_key_is_not_operator_member(tmp_path: Path) -> None:
    """protocol.md section 5b: `admin` from a player's session is refused `not_operator` `why` `member`
    with the key's fingerprint (`""` for a guest), and the session goes on."""
    op = new_identity()
    async with running_server(tmp_path, admins=admins_file(tmp_path, op)) as h:
        player_key = new_identity()
        player = await h.connect("keyed", identity=player_key)
        guest = await h.connect("guest")
        for client, fingerprint in ((player, player_key.fingerprint), (guest, "")):
            error = await admin_refused(client, "who")
            assert error["code"] == "not_operator"
            assert error["params"] == {"why": "member", "fingerprint": fingerprint}
            assert (await client.request(Ping(n=7), "pong"))["n"] == 7
