"""Running a public host, against real parts: an in-process server with a real SQLite file and an
operators' authorized_keys file, real TLS clients proving real keys, a trusted front's hello for
players at other addresses, the real ``ono99 admin`` and ``ono99 serve`` commands as processes, and
the real OpenSSH client in tmux. Each test says what it tried; waits are for messages or conditions."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import uuid
import zlib
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.fronts import FrontAssertion, new_credential
from ono99_kernel.identity import Identity
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import Admin, CreateTable, Join, Report, Say, Spectate
from ono99_server import Server
from ono99_tui.client.errors import ServerError
from tests.server_helpers import (
    TIMEOUT,
    Harness,
    Store,
    TestClient,
    create_table,
    free_port,
    join,
    new_identity,
    ono99,
    running_server,
    server_config,
    until_closed,
)

FRONT = new_credential()


def admins_file(tmp_path: Path, *operators: Identity) -> Path:
    path = tmp_path / "admins"
    path.write_text("# the operators\n" + "".join(f"{op.public_key} op{i}\n" for i, op in enumerate(operators)))
    return path


async def operator(h: Harness, identity: Identity) -> TestClient:
    """An operator's session (``hello.admin``): outside the lobby."""
    client = await TestClient.connect("127.0.0.1", h.port, "", identity=identity, timeout=TIMEOUT, trust=h.trust,
                                      admin=True)
    assert isinstance(client, TestClient)
    h.clients.append(client)
    return client


async def admin(client: TestClient, command: str, **fields: Any) -> dict[str, Any]:
    return await client.request({"t": "admin", "command": command, **fields}, "admin_result")


async def admin_refused(client: TestClient, command: str, **fields: Any) -> dict[str, Any]:
    await client.send(Admin(command=command, **fields))
    error = await client.error()
    assert error["ref"] == "admin", error
    return error


async def refused(h: Harness, name: str, identity: Identity | None = None) -> ServerError:
    with pytest.raises(ServerError) as info:
        await h.connect(name, identity=identity)
    return info.value


async def from_address(h: Harness, name: str, address: str, identity: Identity | None = None) -> TestClient:
    """A player a trusted front says connects from ``address`` (as an SSH front does)."""
    client = await TestClient.connect("127.0.0.1", h.port, name, timeout=TIMEOUT, trust=h.trust,
                                      front=FrontAssertion(FRONT, address, identity.fingerprint if identity else None))
    assert isinstance(client, TestClient)
    h.clients.append(client)
    return client


async def lobby_line(sender: TestClient, text: str) -> None:
    await sender.send(Say(scope='lobby', text=text))


def said_lines(client: TestClient) -> list[str]:
    return [m["text"] for m in client.received if m.get("t") == "chat"]


# --- bans ----------------------------------------------------------------------------------------------
async def test_a_banned_key_is_refused_with_the_reason_and_still_after_a_restart(tmp_path: Path,
                                                                                  store: Store) -> None:
    """On SQLite and on PostgreSQL: the ban is kept in the database."""
    op, mallory, ann = new_identity(), new_identity(), new_identity()
    config = {"admins": admins_file(tmp_path, op), **store.config}
    async with running_server(tmp_path, **config) as h:
        target = await h.connect("mallory", identity=mallory)
        desk = await operator(h, op)
        assert desk.welcome["identity"] == op.fingerprint
        assert "op0" not in h.server.lobby.members and op.fingerprint not in h.server.lobby.by_identity
        result = await admin(desk, "ban", target="mallory", reason="cheating at cards", seconds=3600)
        assert result["params"]["target"] == f"mallory ({mallory.fingerprint})" and result["params"]["until"]
        told = await until_closed(target)
        notice = next(m for m in told if m.get("t") == "notice")
        assert notice["code"] == "operator_ban" and notice["params"]["reason"] == "cheating at cards"
        # tried: the same key again, at once
        again = await refused(h, "mallory", mallory)
        assert again.code == "banned" and again.error.params["why"] == "identity_until"
        assert again.error.params["reason"] == "cheating at cards" and "cheating at cards" in again.reason
        await h.connect("ann", identity=ann)  # anyone else comes in
    # the ban is in the database: a new server on it refuses the key at once
    async with running_server(tmp_path, **config) as h:
        assert (await refused(h, "mallory", mallory)).code == "banned"
        desk = await operator(h, op)
        bans = await admin(desk, "bans")
        assert [(r["kind"], r["value"], r["reason"]) for r in bans["rows"]] == [
            ("identity", mallory.fingerprint, "cheating at cards")]
        log = await admin(desk, "log")
        assert [(r["action"], r["operator"]) for r in log["rows"]] == [("ban", op.fingerprint)]
        await admin(desk, "unban", target=mallory.fingerprint)
        assert (await h.connect("mallory", identity=mallory)).welcome["name"] == "mallory"


async def test_a_ban_by_address_refuses_a_new_key_from_there_and_not_the_operators_own(tmp_path: Path) -> None:
    op = new_identity()
    async with running_server(tmp_path, admins=admins_file(tmp_path, op), front_credentials=(FRONT,)) as h:
        desk = await operator(h, op)
        guest = await from_address(h, "troll", "203.0.113.9")
        await admin(desk, "ban", address="203.0.113.0/24", reason="flooding the lobby")
        assert any(m.get("code") == "operator_ban" for m in await until_closed(guest))
        # tried: a key never seen before, from another address of that network
        with pytest.raises(ServerError) as info:
            await from_address(h, "fresh", "203.0.113.200", new_identity())
        assert info.value.code == "banned" and info.value.error.params == {
            "why": "address", "reason": "flooding the lobby"}
        await from_address(h, "elsewhere", "198.51.100.1", new_identity())  # another network comes in
        # the operator's own address (127.0.0.1 here) is never banned by mistake
        error = await admin_refused(desk, "ban", address="127.0.0.0/8", reason="oops")
        assert (error["code"], error["params"]["why"]) == ("bad_target", "own_address")


async def test_a_banned_key_is_refused_over_openssh_with_the_reason(tmp_path: Path) -> None:
    from tests.test_ssh import run, start_rig

    assert shutil.which("ssh") and shutil.which("tmux"), "ssh and tmux are part of the test machine"
    op, key = new_identity(), asyncssh.generate_private_key("ssh-ed25519")
    key_path = tmp_path / "id_ed25519"
    key_path.write_bytes(key.export_private_key())
    key_path.chmod(0o600)
    rig = await start_rig(tmp_path, admins=admins_file(tmp_path, op))
    h = Harness(rig.server)
    socket_name = f"ono99-test-{uuid.uuid4().hex[:8]}"
    tmux = ("tmux", "-L", socket_name, "-f", "/dev/null")
    try:
        rig.server.lobby.names.claim(str(key.get_fingerprint()), "sam")  # sam played here before
        desk = await operator(h, op)
        await admin(desk, "ban", target="sam", reason="abusive chat")
        ssh = (f"ssh -F /dev/null -p {rig.front.port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
               f"-o LogLevel=ERROR -o IdentitiesOnly=yes -o BatchMode=yes -i {key_path} sam@127.0.0.1")
        await run(*tmux, "new-session", "-d", "-s", "play", "-x", "100", "-y", "30", ssh)
        await run(*tmux, "set-option", "-t", "play", "remain-on-exit", "on")
        for _ in range(int(TIMEOUT / 0.1)):
            screen = await run(*tmux, "capture-pane", "-p", "-S", "-", "-t", "play")
            if "abusive chat" in screen:
                break
            await asyncio.sleep(0.1)
        assert "your key is banned from this server: abusive chat" in screen, screen
    finally:
        with contextlib.suppress(Exception):
            await run(*tmux, "kill-server")
        await h.close()
        await rig.front.close()


async def test_operator_commands_refuse_unknown_players_oneself_and_non_operators(tmp_path: Path) -> None:
    op, player = new_identity(), new_identity()
    async with running_server(tmp_path, admins=admins_file(tmp_path, op)) as h:
        desk = await operator(h, op)
        assert (await admin_refused(desk, "kick", target="nobody", reason="x"))["code"] == "no_player"
        unknown_key = new_identity().fingerprint
        error = await admin_refused(desk, "ban", target=unknown_key, reason="x")
        assert (error["code"], error["params"]["why"]) == ("no_player", "identity")
        error = await admin_refused(desk, "ban", target=op.fingerprint, reason="x")
        assert (error["code"], error["params"]["why"]) == ("bad_target", "self")
        error = await admin_refused(desk, "ban", target=op.fingerprint)  # no reason: the player must be told
        assert (error["code"], error["params"]["field"]) == ("bad_field", "reason")
        assert (await admin_refused(desk, "close", table=999, reason="x"))["code"] == "no_table"
        assert (await admin_refused(desk, "unban", address="10.9.8.7"))["code"] == "not_banned"
        await desk.send(Say(scope='lobby', text='hi'))  # an operator's session is no player
        assert (await desk.error())["code"] == "unknown_type"
        # a player whose key is not an operator's: neither a session nor a command
        assert (await refused_session(h, player)).code == "not_operator"
        plain = await h.connect("pat", identity=player)
        await plain.send(Admin(command='who'))
        error = await plain.error()
        assert (error["code"], error["params"]["why"]) == ("not_operator", "member")
        # a guest cannot open one either
        with pytest.raises(ServerError) as info:
            await TestClient.connect("127.0.0.1", h.port, "", timeout=TIMEOUT, trust=h.trust, admin=True)
        assert info.value.error.params["why"] == "no_key"


async def refused_session(h: Harness, identity: Identity) -> ServerError:
    with pytest.raises(ServerError) as info:
        await operator(h, identity)
    return info.value


async def test_kick_rename_mute_close_motd_and_notice(tmp_path: Path) -> None:
    op, bob, cat = new_identity(), new_identity(), new_identity()
    async with running_server(tmp_path, admins=admins_file(tmp_path, op)) as h:
        desk = await operator(h, op)
        await admin(desk, "motd", text="Be kind. Play fair.")
        bob_client = await h.connect("Bob", identity=bob)
        motd = await bob_client.expect("notice")
        assert (motd["code"], motd["params"]) == ("motd", {"text": "Be kind. Play fair."})
        # rename: the app is told and reconnects; the name is locked to the key, whatever it asks for
        await admin(desk, "rename", target="Bob", name="Robert")
        assert any(m.get("code") == "renamed" for m in await until_closed(bob_client))
        bob_client = await h.connect("Bob", identity=bob)
        assert bob_client.welcome["name"] == "Robert"
        # mute in the lobby's chat
        await admin(desk, "mute", target="Robert", reason="shouting", seconds=600)
        await lobby_line(bob_client, "HELLO")
        error = await bob_client.error()
        assert (error["code"], error["params"]["why"]) == ("muted", "lobby_until")
        await admin(desk, "unmute", target=bob.fingerprint)
        await lobby_line(bob_client, "hello")
        assert (await bob_client.expect("chat"))["text"] == "hello"
        # close a table with its players
        cat_client = await h.connect("cat", identity=cat)
        table_id = await create_table(cat_client, bots=1)
        await join(bob_client, table_id)
        await admin(desk, "close", table=table_id, reason="rude table name")
        for client in (cat_client, bob_client):
            await client.expect("left", where=lambda m: m["table"] == table_id)
            closed = await client.expect("notice", where=lambda m: m.get("code") == "table_closed")
            assert closed["params"] == {"reason": "rude table name"}
        assert table_id not in h.server.lobby.tables
        # a notice to everyone
        result = await admin(desk, "notice", text="restart at noon")
        assert result["params"]["sent"] == 2
        for client in (cat_client, bob_client):
            assert (await client.expect("notice", where=lambda m: m.get("code") == "host_notice"))["params"] == {
                "text": "restart at noon"}
        # kick: out, and kept out for a minute (the app would reconnect at once)
        who = await admin(desk, "who")
        assert {(r["name"], r["identity"], r["listener"]) for r in who["rows"]} == {
            ("Robert", bob.fingerprint, "tcp"), ("cat", cat.fingerprint, "tcp")}
        await admin(desk, "kick", target="cat", reason="spamming")
        assert any(m.get("code") == "operator_kick" for m in await until_closed(cat_client))
        kept_out = await refused(h, "cat", cat)
        assert kept_out.code == "kicked" and kept_out.error.params["reason"] == "spamming"
        log = await admin(desk, "log")
        assert [r["action"] for r in log["rows"]] == ["motd", "rename", "mute", "unmute", "close", "notice", "kick"]
    async with running_server(tmp_path, admins=admins_file(tmp_path, op)) as h:  # the lock holds after a restart
        again = await h.connect("Bobby", identity=bob)
        assert again.welcome["name"] == "Robert"


# --- players protect themselves ------------------------------------------------------------------------------
async def test_a_muted_players_chat_never_reaches_the_muter_and_still_reaches_others(tmp_path: Path,
                                                                                     store: Store) -> None:
    ada_key, bob_key, cy_key = new_identity(), new_identity(), new_identity()
    async with running_server(tmp_path, **store.config) as h:
        ada = await h.connect("ada", identity=ada_key)
        bob = await h.connect("bob", identity=bob_key)
        cy = await h.connect("cy", identity=cy_key)
        await lobby_line(bob, "before the mute")
        safety = await ada.request({"t": "mute", "name": "bob"}, "safety")
        assert safety == {"t": "safety", "muted": ["bob"], "blocked": [], "operator": False}
        await lobby_line(bob, "you cannot hear me")
        await cy.expect("chat", where=lambda m: m["text"] == "you cannot hear me")
        await lobby_line(cy, "marker")  # said after bob's line: ada gets it, and nothing of bob's before it
        await ada.expect("chat", where=lambda m: m["text"] == "marker")
        assert "you cannot hear me" not in said_lines(ada)
        # at a table too
        table_id = await create_table(ada, seats=3)
        await join(bob, table_id)
        await join(cy, table_id)
        await bob.send(Say(text='table talk'))
        await cy.expect("chat", where=lambda m: m["text"] == "table talk")
        await cy.send(Say(text='table marker'))
        await ada.expect("chat", where=lambda m: m["text"] == "table marker")
        assert "table talk" not in said_lines(ada)
        await ada.close()
    async with running_server(tmp_path, **store.config) as h:  # across sessions: kept by key, the history filtered
        ada = await h.connect("ada", identity=ada_key)
        safety = await ada.expect("safety")
        assert safety["muted"] == ["bob"]
        history = next(m for m in ada.received if m.get("t") == "chat_history" and m["scope"] == "lobby")
        assert [line["text"] for line in history["messages"]] == ["marker"]
        await ada.request({"t": "mute", "name": "bob", "on": False}, "safety")
        cy = await h.connect("cy", identity=cy_key)
        history = await cy.expect("chat_history", where=lambda m: m["scope"] == "lobby")
        assert [line["text"] for line in history["messages"]] == ["before the mute", "you cannot hear me", "marker"]


async def test_a_blocked_player_cannot_join_the_hosts_private_table(tmp_path: Path) -> None:
    async with running_server(tmp_path) as h:
        host = await h.connect("host", identity=new_identity())
        pest = await h.connect("pest", identity=new_identity())
        friend = await h.connect("friend")
        await host.request({"t": "block", "name": "pest"}, "safety")
        await host.send(CreateTable(name='mine', private=True))
        code = (await host.expect("table"))["table"]["code"]
        await pest.send(Join(code=code))
        assert (await pest.error())["code"] == "blocked"
        await pest.send(Spectate(code=code))
        assert (await pest.error())["code"] == "blocked"
        await friend.request({"t": "join", "code": code}, "table")


async def test_a_report_arrives_in_the_queue_with_its_chat_and_game_and_a_flood_is_refused(tmp_path: Path,
                                                                                         store: Store) -> None:
    op = new_identity()
    async with running_server(tmp_path, admins=admins_file(tmp_path, op), report_burst=2, **store.config) as h:
        ada = await h.connect("ada", identity=new_identity())
        bob = await h.connect("bob", identity=new_identity())
        await lobby_line(bob, "you are all losers")
        await ada.expect("chat", where=lambda m: m["text"] == "you are all losers")
        table_id = await create_table(ada, bots=2, seats=3, start=True)
        await ada.send(Report(name='bob', reason='insults in the lobby'))
        reported = await ada.expect("notice", where=lambda m: m.get("code") == "reported")
        assert reported["params"] == {"name": "bob"}
        await ada.send(Report(name='bob', reason='again'))
        await ada.expect("notice", where=lambda m: m.get("code") == "reported")
        await ada.send(Report(name='bob', reason='and again'))  # past the burst: told to wait
        error = await ada.error()
        assert (error["code"], error["params"]["why"]) == ("rate_limited", "report") and error["params"]["seconds"] > 0
        await ada.send(Report(name='ada', reason='me'))
        assert (await ada.error())["params"]["why"] == "self"
        await ada.send(Report(name='nobody', reason='who'))
        assert (await ada.error())["code"] == "no_player"
        desk = await operator(h, op)
        queue = await admin(desk, "reports")
        assert [(r["reporter"], r["target"], r["reason"]) for r in queue["rows"]] == [
            ("ada", "bob", "insults in the lobby"), ("ada", "bob", "again")]
        first = queue["rows"][0]
        assert first["game"] == f"table {table_id}, game 1" and first["chat_lines"] == 1
        whole = (await admin(desk, "reports", id=first["id"]))["rows"][0]
        assert whole["chat"] == "[lobby] bob: you are all losers"
        record = zlib.decompress(base64.b64decode(whole["record"])).decode()
        assert json.loads(record)["edition"] == "2022"
        await admin(desk, "resolve", id=first["id"])
        assert [r["reason"] for r in (await admin(desk, "reports"))["rows"]] == ["again"]
        assert (await admin_refused(desk, "resolve", id=999))["code"] == "no_report"


# --- the names deny list ---------------------------------------------------------------------------------
async def test_the_names_deny_list_refuses_names_holding_a_word_and_its_lookalikes(tmp_path: Path) -> None:
    deny = tmp_path / "deny.txt"
    deny.write_text("# words no name may hold\nbadword\n\nnasty one\n", encoding="utf-8")
    async with running_server(tmp_path, names_deny=deny) as h:
        # a Cyrillic а and о, full-width letters, capitals, spaces
        for name in ("badword", "xXBADWORDXx", "bаdwоrd", "ｂａｄｗｏｒｄ", "NastyOne", "b a d w o r d"):
            error = await refused(h, name)
            assert (error.code, error.error.params) == ("bad_name", {"why": "denied", "name": name}), name
        await h.connect("goodword")
    # a key that owned its name before the word was listed keeps it (an operator renames it)
    early = new_identity()
    async with running_server(tmp_path / "early") as h:
        await h.connect("badwordsmith", identity=early)
    async with running_server(tmp_path / "early", names_deny=deny) as h:
        assert (await h.connect("badwordsmith", identity=early)).welcome["name"] == "badwordsmith"
        assert (await refused(h, "badwordsmith2", new_identity())).code == "bad_name"


async def test_a_deny_list_or_admins_file_that_does_not_parse_stops_the_server_with_a_clear_error(
        tmp_path: Path) -> None:
    not_text = tmp_path / "deny.bin"
    not_text.write_bytes(b"fine\n\xff\xfe\n")
    serve = ("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--db", str(tmp_path / "x.db"),
             "--ssh-port", "0", "--no-advertise")
    result = await ono99(*serve, "--names-deny", str(not_text))
    assert result.returncode == 2
    assert f"ono99 serve: --names-deny: {not_text}: not UTF-8 text" in result.stderr
    hidden = tmp_path / "hidden.txt"
    hidden.write_text("ok\nbad\u200bword\n", encoding="utf-8")  # a zero-width space would hide in the file
    result = await ono99(*serve, "--names-deny", str(hidden))
    assert result.returncode == 2
    assert f"ono99 serve: --names-deny: {hidden}, line 2: control or format characters in a word" in result.stderr
    admins = tmp_path / "admins"
    admins.write_text("not a key\n", encoding="utf-8")
    result = await ono99(*serve, "--admins", str(admins))
    assert result.returncode == 2 and f"--admins: {admins}, line 1: not an authorized key" in result.stderr


# --- ono99 admin ----------------------------------------------------------------------------------------------
async def test_ono99_admin_runs_for_an_operators_key_and_refuses_any_other(tmp_path: Path) -> None:
    operator_dir, other_dir = tmp_path / "op", tmp_path / "other"
    op = Identity.load_or_create(operator_dir)
    Identity.load_or_create(other_dir)
    async with running_server(tmp_path, admins=admins_file(tmp_path, op)) as h:
        await h.connect("zoë", identity=new_identity())
        where = ("--server", f"127.0.0.1:{h.port}", "--server-fingerprint", h.server.fingerprint)
        result = await ono99("--lang", "en", "admin", *where, "--data-dir", str(other_dir), "who")
        assert result.returncode == 1
        assert "is not an operator's key on this server" in result.stderr
        result = await ono99("--lang", "en", "admin", *where, "--data-dir", str(operator_dir), "who")
        assert result.returncode == 0, result.stderr
        assert "zoë" in result.stdout and "1 player" in result.stdout
        result = await ono99("--lang", "en", "admin", *where, "--data-dir", str(operator_dir), "ban", "nobody",
                             "--reason", "x")
        assert result.returncode == 1 and "nobody called 'nobody' is on this server" in result.stderr
        result = await ono99("--lang", "de", "admin", *where, "--data-dir", str(operator_dir), "ban", "zoë",
                             "--reason", "spam", "--for", "2h")
        assert result.returncode == 0, result.stderr
        assert "zoë" in result.stdout and "gesperrt" in result.stdout
        result = await ono99("admin", *where, "--data-dir", str(operator_dir), "ban", "zoë", "--reason", "x",
                             "--for", "soon")
        assert result.returncode == 2 and "'soon'" in result.stderr
        # the first visit of a server this data directory does not know: told its fingerprint, nothing sent
        result = await ono99("--lang", "en", "admin", "--server", f"127.0.0.1:{h.port}", "--data-dir",
                             str(tmp_path / "third"), "who")
        assert result.returncode == 2 and "no key in" in result.stderr
        Identity.load_or_create(tmp_path / "third")
        result = await ono99("--lang", "en", "admin", "--server", f"127.0.0.1:{h.port}", "--data-dir",
                             str(tmp_path / "third"), "who")
        assert result.returncode == 1 and h.server.fingerprint in result.stderr


# --- a restart's and a local game's edges ------------------------------------------------------------------
async def test_a_server_without_a_database_keeps_moderation_in_memory(tmp_path: Path) -> None:
    op, mallory = new_identity(), new_identity()
    async with running_server(tmp_path, db_path=None, admins=admins_file(tmp_path, op)) as h:
        desk = await operator(h, op)
        await h.connect("mallory", identity=mallory)
        await admin(desk, "ban", target=mallory.fingerprint, reason="spam")
        assert (await refused(h, "mallory", mallory)).code == "banned"
        ada = await h.connect("ada", identity=new_identity())
        await ada.send(Report(name='mallory', reason='spam'))
        await ada.expect("notice", where=lambda m: m.get("code") == "reported")
        assert [r["target"] for r in (await admin(desk, "reports"))["rows"]] == ["mallory"]
        assert [r["action"] for r in (await admin(desk, "log"))["rows"]] == ["ban"]


def test_a_server_refuses_to_start_on_an_admins_file_without_keys(tmp_path: Path) -> None:
    empty = tmp_path / "admins"
    empty.write_text("# nobody yet\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lists no keys"):
        Server(server_config(tmp_path, admins=empty))


async def test_ono99_admin_shows_a_report_whole_and_writes_its_game_for_the_replay_viewer(tmp_path: Path) -> None:
    from ono99_tui.tui.replay import load_replay

    op = Identity.load_or_create(tmp_path / "op")
    async with running_server(tmp_path, admins=admins_file(tmp_path, op)) as h:
        ada = await h.connect("ada", identity=new_identity())
        await h.connect("bob", identity=new_identity())
        table_id = await create_table(ada, bots=2, seats=3, start=True)
        await ada.expect("state")
        await ada.send(Say(text='bob said something awful in the lobby'))
        await ada.expect("chat")
        await ada.send(Report(name='bob', reason='insults'))
        await ada.expect("notice", where=lambda m: m.get("code") == "reported")
        where = ("--server", f"127.0.0.1:{h.port}", "--server-fingerprint", h.server.fingerprint,
                 "--data-dir", str(tmp_path / "op"))
        listed = await ono99("--lang", "en", "admin", *where, "reports")
        assert listed.returncode == 0, listed.stderr
        assert "insults" in listed.stdout and f"table {table_id}, game 1" in listed.stdout
        out = tmp_path / "reported.jsonl"
        whole = await ono99("--lang", "en", "admin", *where, "reports", "1", "--game", str(out))
        assert whole.returncode == 0, whole.stderr
        assert "[table] ada: bob said something awful in the lobby" in whole.stdout
        steps = load_replay(out)  # the game so far, as `ono99 replay` shows it
        assert steps["table"]["status"] == "playing" and steps["states"]
        closed = await ono99("--lang", "en", "admin", *where, "reports", "1", "--resolve")
        assert closed.returncode == 0 and "report 1 is closed" in closed.stdout
        missing = await ono99("--lang", "en", "admin", *where, "reports", "9")
        assert missing.returncode == 1 and "there is no report 9" in missing.stderr
