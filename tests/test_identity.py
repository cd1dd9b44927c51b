"""Identities and names against real parts: an in-process server on loopback TCP with a real SQLite
file, protocol clients proving real ed25519 key files, asyncssh clients logging in with the same
keys, and the real ``ono99 connect`` process, killed with SIGKILL and started again.

A player is a public key over TCP and SSH alike; names belong to keys, compared after NFKC, case
folding and the Unicode confusables skeleton; a key finds its seat again after its client dies or
the server restarts; stats count by key.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import os
import random
import signal
import struct
import sys
import termios
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from ono99_kernel.access import AccessPolicy
from ono99_kernel.fingerprints import fingerprint_digest
from ono99_kernel.identity import KEY_FILE, Identity, remembered_name
from ono99_kernel.protocol import PROTOCOL_VERSION, identity_proof_message
from ono99_kernel.ssh_library import asyncssh
from ono99_kernel.wire.requests import AskLeaderboard, Hello, Prove, Rematch, Start
from ono99_server import Server, standin
from ono99_server.name_claims import name_key, name_keys
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ServerError
from ono99_tui.front.session_app import SessionApp
from tests.app_state import table_of, view_of
from tests.server_helpers import (
    FAST_PLAY,
    ROOT,
    TIMEOUT,
    Store,
    TestClient,
    create_table,
    export_and_check,
    join,
    new_identity,
    play,
    running_server,
    server_config,
    storage_barrier,
    wait_until,
)
from tests.test_ssh import Player, start_rig


def identity_in(directory: Path) -> Identity:
    return Identity.load_or_create(directory)


async def connect(port: int, name: str, identity: Identity | None, **kwargs: Any) -> TestClient:
    client = await TestClient.connect("127.0.0.1", port, name, identity=identity, timeout=TIMEOUT, **kwargs)
    assert isinstance(client, TestClient)
    return client


async def refused(port: int, name: str, identity: Identity | None) -> ServerError:
    with pytest.raises(ServerError) as info:
        client = await connect(port, name, identity)
        await client.close()
    return info.value


# --- the key and the handshake -------------------------------------------------------------------------
async def test_the_key_file_is_an_openssh_ed25519_key_made_once(tmp_path: Path) -> None:
    first = identity_in(tmp_path / "ada")
    again = identity_in(tmp_path / "ada")
    path = tmp_path / "ada" / KEY_FILE
    assert path.read_bytes().startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")
    assert path.stat().st_mode & 0o777 == 0o600
    assert again.fingerprint == first.fingerprint and first.fingerprint.startswith("SHA256:")
    assert asyncssh.read_private_key(str(path)).get_fingerprint() == first.fingerprint
    assert first.public_key.startswith("ssh-ed25519 ")
    assert identity_in(tmp_path / "bob").fingerprint != first.fingerprint


async def test_a_key_is_proven_by_signing_the_challenge(tmp_path: Path) -> None:
    """The welcome names the proven fingerprint; a guest's is nil. A wrong signature, a signature of
    another nonce, a prove without a challenge and a key that is not one are refused, and the
    connection may say hello again."""
    ada = identity_in(tmp_path / "ada")
    async with running_server(tmp_path) as h:
        client = await connect(h.port, "Ada", ada)
        assert client.welcome["identity"] == ada.fingerprint and client.welcome["name"] == "Ada"
        guest = await connect(h.port, "Gus", None)
        h.clients += [client, guest]
        assert guest.welcome["identity"] is None

        raw = await h.raw()
        server_key = fingerprint_digest(raw.server_fingerprint)
        await raw.send(Prove(signature=b"x"))
        assert (await raw.error())["code"] == "no_challenge"
        hello = Hello(version=PROTOCOL_VERSION, name="Mallory", key=ada.public_key)
        await raw.send(hello)
        nonce = (await raw.expect("challenge"))["nonce"]
        assert isinstance(nonce, bytes) and len(nonce) == 32
        await raw.send(Prove(signature=ada.prove(server_key, b"another nonce")))
        error = await raw.error()
        assert error["code"] == "bad_signature" and error["ref"] == "prove"
        await raw.send(hello)
        nonce = (await raw.expect("challenge"))["nonce"]
        await raw.send(Prove(signature=ada.prove(bytes(32), nonce)))  # for another server's certificate
        error = await raw.error()
        assert error["code"] == "bad_signature" and error["ref"] == "prove"
        await raw.send(hello)
        nonce = (await raw.expect("challenge"))["nonce"]
        await raw.send(Prove(signature=ada.prove(server_key, nonce)[:-1] + b"?"))
        assert (await raw.error())["code"] == "bad_signature"
        await raw.send(Hello(version=PROTOCOL_VERSION, name="Mallory", key="ssh-ed25519 AAAAnope"))
        assert (await raw.error())["code"] == "bad_key"
        await raw.send(Hello(version=PROTOCOL_VERSION, name="Mallory", key="ssh-dss AAAA"))
        assert (await raw.error())["code"] == "bad_key"
        # A proof made by hand, as a client written from docs/protocol.md would
        await raw.send(dataclasses.replace(hello, name="Ada2"))
        nonce = (await raw.expect("challenge"))["nonce"]
        signature = ada.key.sign(identity_proof_message(server_key, nonce), b"ssh-ed25519")
        await raw.send(Prove(signature=signature))
        # Ada's key is connected already: the proof takes her player over, whatever name is asked
        welcome = await raw.expect("welcome")
        assert welcome["identity"] == ada.fingerprint and welcome["name"] == "Ada" and welcome["resumed"]
        await raw.send(Prove(signature=signature))  # again, once welcome
        assert (await raw.error())["code"] == "no_challenge"


async def test_the_access_policy_sees_the_key_a_tcp_client_proved(tmp_path: Path) -> None:
    """Under authorized-keys, a TCP client that proves a listed key comes in; another key and a
    guest are refused with access_denied and told how to get in."""
    ada, eve = identity_in(tmp_path / "ada"), identity_in(tmp_path / "eve")
    listed = tmp_path / "authorized_keys"
    listed.write_text(ada.public_key + "\n")
    async with running_server(tmp_path) as h:
        h.server.access = AccessPolicy("authorized-keys", authorized_keys=listed)
        h.clients.append(await connect(h.port, "Ada", ada))
        error = await refused(h.port, "Eve", eve)
        assert error.code == "access_denied" and eve.fingerprint in error.reason
        error = await refused(h.port, "Gus", None)
        assert error.code == "access_denied" and "proved no key" in error.reason


# --- names --------------------------------------------------------------------------------------------------
def test_names_are_compared_after_nfkc_case_folding_and_the_confusables_skeleton() -> None:
    assert name_key("Ada") == name_key("ada") == name_key("ADA") == name_key("Аda")  # Cyrillic А
    assert name_key("Ada") == name_key("Αda")  # Greek Alpha
    assert name_key("Evil") == name_key("Ｅｖｉｌ")  # full-width
    assert name_key("Bob") == name_key("B0b") and name_key("Carol") == name_key("Carol  ")
    assert name_key("Zoë") != name_key("Zoe") and name_key("Ada") != name_key("Ida")


async def test_lookalike_names_are_refused_with_a_reason(tmp_path: Path) -> None:
    async with running_server(tmp_path) as h:
        h.clients += [await connect(h.port, "Ada", identity_in(tmp_path / "ada")), await connect(h.port, "Evil", None)]
        error = await refused(h.port, "Аda", identity_in(tmp_path / "mallory"))  # Cyrillic А, another key
        assert error.code == "name_taken" and "'Аda' looks like 'Ada'" in error.reason
        error = await refused(h.port, "Ｅｖｉｌ", None)
        assert error.code == "name_taken" and "'Ｅｖｉｌ' is the same as 'Evil', which is taken" in error.reason
        error = await refused(h.port, "ADA", None)
        assert error.code == "name_taken" and "'ADA' is the same as 'Ada', which is taken" in error.reason


async def test_a_capital_i_is_refused_beside_an_l_either_way_round(tmp_path: Path) -> None:
    """Case folding came before the skeleton, so "aIice" (capital I) passed beside "alice": the
    skeleton of the name as typed counts too. The forms refused before still are; a name that only
    shares letters with a taken one is not refused."""
    async with running_server(tmp_path) as h:
        h.clients += [await connect(h.port, "alice", identity_in(tmp_path / "alice")),
                      await connect(h.port, "Ivo", None)]
        for lookalike in ("aIice", "AIice", "аlice", "ALICE", "ａlice", "a1ice"):
            error = await refused(h.port, lookalike, identity_in(tmp_path / "mallory"))
            assert error.code == "name_taken" and "alice" in error.reason, lookalike
            assert (await refused(h.port, lookalike, None)).code == "name_taken", lookalike
        for lookalike in ("lvo", "1vo"):  # the other way round: a capital I taken, an l asked for
            error = await refused(h.port, lookalike, None)
            assert error.code == "name_taken" and "looks like 'Ivo'" in error.reason, lookalike
        h.clients.append(await connect(h.port, "alicia", None))
    assert name_keys("aIice") & name_keys("alice") and name_keys("Ivo") & name_keys("lvo")
    assert not name_keys("ida") & name_keys("lda")


async def test_a_name_belongs_to_its_key_across_sessions_and_restarts(tmp_path: Path, store: Store) -> None:
    """Carol's name is her key's: a guest or another key cannot take it while she is away, nor after
    a restart; her key takes it back, over TCP or SSH; a key that asks for another free name moves
    to it and frees the old one."""
    carol, mallory = identity_in(tmp_path / "carol"), identity_in(tmp_path / "mallory")
    async with running_server(tmp_path, **store.config) as h:
        client = await connect(h.port, "carol", carol)
        await client.close()
        await wait_until(lambda: "carol" not in h.server.lobby.members, "carol to leave")
        error = await refused(h.port, "carol", None)
        assert error.code == "name_taken" and "belongs to a player with a key" in error.reason
        assert (await refused(h.port, "Carol", mallory)).code == "name_taken"
        mal = await connect(h.port, "mal", mallory)
        h.clients.append(mal)
        await storage_barrier(mal)
    server = Server(server_config(tmp_path, **store.config))  # the same database
    await server.start()
    try:
        assert (await refused(server.port, "cArOl", None)).code == "name_taken"
        back = await connect(server.port, "carol", carol)
        assert back.welcome["name"] == "carol"
        await back.close()
        moved = await connect(server.port, "caroline", carol)
        assert moved.welcome["name"] == "caroline"
        await moved.close()
        await wait_until(lambda: not server.lobby.by_identity, "everyone to leave")
        taken = await connect(server.port, "carol", mallory)  # freed by the move
        assert taken.welcome["name"] == "carol"
        await taken.close()
    finally:
        await server.close()


async def test_the_same_key_file_is_the_same_player_over_ssh_and_tcp(tmp_path: Path) -> None:
    """The issue's repro: carol played over SSH and closed her session; ``ono99 connect --name carol``
    was then let in as carol. Now her name is her key's: a guest and another key are refused, and
    her own key file, used over TCP, is carol with carol's stats."""
    rig = await start_rig(tmp_path)
    try:
        carol = identity_in(tmp_path / "carol")
        ssh_carol = await Player.connect(rig, "carol", key=asyncssh.read_private_key(str(carol.path)))
        await ssh_carol.until(lambda a: a.model.my_name == "carol", "carol in the lobby")
        await ssh_carol.close()
        await wait_until(lambda: "carol" not in rig.server.lobby.members, "carol's session to end")

        assert (await refused(rig.server.port, "carol", None)).code == "name_taken"
        assert (await refused(rig.server.port, "carol", identity_in(tmp_path / "other"))).code == "name_taken"
        tcp_carol = await connect(rig.server.port, "carol", carol)
        assert tcp_carol.welcome["identity"] == carol.fingerprint
        assert tcp_carol.welcome["identity"] == ssh_carol.session.owner.fingerprint
        await tcp_carol.close()

        guest = await Player.connect(rig, "carol", key=None)  # the SSH guest is refused the name too
        from ono99_tui.front.session_app import NameScreen

        await guest.until(lambda a: isinstance(a.screen, NameScreen), "the name screen")
        await guest.press("enter")
        await guest.until(lambda a: isinstance(a.screen, NameScreen) and "belongs to a player with a key"
                          in a.screen.problem, "why not")
        await guest.close()
    finally:
        await rig.close()


# --- seats come back with the key ----------------------------------------------------------------------------
class ConnectProcess:
    """The real ``ono99 connect`` on a pseudo-terminal of 100 x 30."""

    def __init__(self, port: int, data_dir: Path, *args: str, fingerprint: str | None = None) -> None:
        pin = ("--server-fingerprint", fingerprint) if fingerprint else ()
        self.args = ["connect", f"127.0.0.1:{port}", "--data-dir", str(data_dir), *pin, *args]
        self.proc: asyncio.subprocess.Process | None = None
        self.master = -1
        self.output = bytearray()

    async def start(self) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ONO99_", "TEXTUAL"))}
        env["TERM"] = "xterm-256color"
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "ono99_tui.cli", *self.args, cwd=ROOT, env=env,
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.master = master
        os.set_blocking(master, False)
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        with contextlib.suppress(OSError):
            self.output += os.read(self.master, 65536)

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    async def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(self.proc.wait(), TIMEOUT)
        self.close()

    def close(self) -> None:
        if self.master >= 0:
            asyncio.get_running_loop().remove_reader(self.master)
            os.close(self.master)
            self.master = -1

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self.close()


@pytest.mark.system
async def test_a_killed_ono99_connect_comes_back_to_its_seat_and_hand(tmp_path: Path) -> None:
    """``ono99 connect --name bob`` joins a game, is killed with SIGKILL, and the same command is run
    again: bob is back in his seat with the same hand. Another data directory asking for 'bob'
    while he is away is refused. The server restarts (same database): bob's key finds his seat and
    hand again. Bots wait a minute before moving, so nothing changes the hand meanwhile."""
    bob_dir = tmp_path / "bob"
    async with running_server(tmp_path, bot_delay=60.0) as h:
        lobby = h.server.lobby
        alice = await h.connect("alice")
        table_id = await create_table(alice, seats=3, bots=1)
        first = ConnectProcess(h.port, bob_dir, "--name", "bob", fingerprint=h.server.fingerprint)
        await first.start()
        try:
            await wait_until(lambda: "bob" in lobby.members, "bob's app in the lobby", timeout=60)
            bob = lobby.members["bob"]
            for _ in range(60):  # j joins the first (only) table of the list, once the app lists it
                first.press(b"j")
                with contextlib.suppress(AssertionError):
                    await wait_until(lambda: bob.table is not None, "bob seated", timeout=1)
                    break
            assert bob.table is not None, "bob's app never joined the table"
            await alice.send(Start())
            table = lobby.tables[table_id]
            await wait_until(lambda: table.game is not None, "the game")
            assert table.game is not None
            seat = table.seat_of(bob)
            assert seat is not None
            hand = table.game.hand_of(seat)
            await first.kill9()
        finally:
            await first.stop()
        await wait_until(lambda: bob.connection is None, "the server to notice bob is gone")
        assert table.seat_of(bob) == seat

        assert remembered_name(bob_dir) == "bob"
        error = await refused(h.port, "bob", identity_in(tmp_path / "not-bob"))
        assert error.code == "name_taken"

        again = ConnectProcess(h.port, bob_dir)  # the same command: the name and the server are remembered
        await again.start()
        try:
            await wait_until(lambda: bob.connection is not None, "bob back", timeout=60)
            assert lobby.members["bob"] is bob and table.seat_of(bob) == seat
            assert table.game.hand_of(seat) == hand
            await wait_until(lambda: b"(you)" in again.output, "the table screen with bob's seat", timeout=60)
        finally:
            await again.stop()
        await wait_until(lambda: bob.connection is None, "bob gone again")
        await storage_barrier(alice)

    server = Server(server_config(tmp_path, bot_delay=60.0))
    await server.start()
    try:
        identity = identity_in(bob_dir)
        back = await connect(server.port, "whatever", identity)
        assert back.welcome["name"] == "bob" and back.welcome["resumed"] and back.welcome["table"] == table_id
        state = await back.expect("state")
        assert state["view"]["seat"] == seat
        assert tuple(state["view"]["hand"]) == tuple(c.code for c in hand)
        await back.close()
    finally:
        await server.close()


async def test_the_client_object_dropped_without_goodbye_comes_back_by_its_key(tmp_path: Path) -> None:
    ada = identity_in(tmp_path / "ada")
    async with running_server(tmp_path, bot_delay=60.0) as h:
        client = await connect(h.port, "ada", ada)
        h.clients.append(client)
        table_id = await create_table(client, seats=2, bots=1, start=True)
        state = await client.expect("state")
        client.writer.transport.abort()  # gone: no bye, no close
        member = h.server.lobby.members["ada"]
        await wait_until(lambda: member.connection is None, "the drop noticed")
        back = await connect(h.port, "ada", ada)  # no resume token: the key is enough
        h.clients.append(back)
        assert back.welcome["resumed"] and back.welcome["table"] == table_id
        again = await back.expect("state")
        assert again["view"]["hand"] == state["view"]["hand"] and again["view"]["seat"] == 0
        # a guest's resume token does not bring a key's player back without the key
        thief = await h.raw()
        await thief.send(Hello(version=PROTOCOL_VERSION, name="ada", resume=client.resume_token))
        assert (await thief.error())["code"] == "name_taken"


async def test_a_guest_comes_back_to_the_seat_with_the_resume_token(tmp_path: Path) -> None:
    """Guests (clients written without a key) keep the resume token: back in their seat, which nobody
    else took meanwhile."""
    async with running_server(tmp_path) as h:
        guest = await h.connect("gus")
        table_id = await create_table(guest, seats=2, bots=0)
        token = guest.resume_token
        guest.writer.transport.abort()
        member = h.server.lobby.members["gus"]
        await wait_until(lambda: member.connection is None, "the drop noticed")
        back = await h.connect("ignored", resume=token)
        assert back.welcome["resumed"] and back.welcome["name"] == "gus" and back.welcome["table"] == table_id
        other = await h.connect("bo")
        assert await join(other, table_id) == 1


async def test_client_connect_without_a_key_is_a_guest(tmp_path: Path) -> None:
    async with running_server(tmp_path) as h:
        client = await Client.connect("127.0.0.1", h.port, "plain")
        try:
            assert client.welcome["identity"] is None
        finally:
            await client.close()


# --- stats by identity ---------------------------------------------------------------------------------------
def plays_record(plays: list[int], winner: int) -> dict[str, Any]:
    """A record-shaped map with one hand of plays by the given seats (only what the rule reads)."""
    events = [{"e": "play", "seat": seat, "cards": ["1"], "total": i + 1} for i, seat in enumerate(plays)]
    return {"players": [{"name": "a", "kind": "human"}, {"name": "b", "kind": "human"}],
            "hands": [{"events": events}], "result": {"winner": winner}}


def test_a_win_is_credited_only_to_a_player_there_at_the_end_who_made_half_their_plays() -> None:
    players = [{"name": "a", "kind": "human", "identity": "SHA256:a"},
               {"name": "b", "kind": "human", "identity": "SHA256:b"}]
    plays = [0, 1, 0, 1, 0, 1]  # three plays each; seat 0 wins
    half = plays_record(plays, 0)  # seat 0's first play (event 0) by a stand-in: 1 of 3
    assert standin.settle(half, players, [[{"from": [0, 0], "to": [0, 1]}], []], [0, 6]) == \
        [("SHA256:a", True), ("SHA256:b", False)]
    assert half["players"][0]["stand_in"] == [{"from": [0, 0], "to": [0, 1]}]
    assert "stand_in" not in half["players"][1]
    most = plays_record(plays, 0)  # events 0 to 2: two of seat 0's three plays
    assert standin.settle(most, players, [[{"from": [0, 0], "to": [0, 3]}], []], [0, 6])[0] == ("SHA256:a", False)
    away = plays_record(plays, 0)  # away for the last event only, but at the end
    assert standin.settle(away, players, [[{"from": [0, 5], "to": None}], []], [0, 6])[0] == ("SHA256:a", False)
    assert away["players"][0]["stand_in"] == [{"from": [0, 5], "to": [0, 6]}]
    guest: list[dict[str, Any]] = [{"name": "a", "kind": "human", "identity": None},
                                   {"name": "Bot 2", "kind": "bot:greedy"}]
    assert standin.settle(plays_record(plays, 0), guest, [[], []], [0, 6]) == []  # guests and bots: no stats


async def test_a_game_a_stand_in_won_for_an_away_player_is_counted_but_not_credited(tmp_path: Path) -> None:
    """Bob hosts, Alice joins and drops (a long grace: her seat waits, a stand-in plays it). Bob plays
    rematches until the stand-in has won Alice's seat a game. Her stats count every game and no
    win; Bob's count his own wins; each record names Alice as her seat's player, stand-in to the end,
    and ``ono99 records check`` accepts them."""
    alice_key, bob_key = new_identity(), new_identity()
    async with running_server(tmp_path, **FAST_PLAY) as h:
        bob = await h.connect("bob", identity=bob_key)
        alice = await h.connect("alice", identity=alice_key)
        table_id = await create_table(bob, seats=2, bots=0)
        alice_seat = await join(alice, table_id)
        await alice.close()
        await wait_until(lambda: h.server.lobby.members["alice"].connection is None, "alice away")
        games = bob_wins = 0
        while games < 40:
            await bob.send(Start() if games == 0 else Rematch())
            log = await play(bob, random.Random(games))
            games += 1
            winner = log.last_view["winner"]
            bob_wins += winner != alice_seat
            if winner == alice_seat:
                break
        assert games - bob_wins == 1, "the stand-in never won a game for Alice's seat"
        board = await bob.request(AskLeaderboard(edition="2022"), "leaderboard")
        rows = {row["name"]: (row["games"], row["wins"]) for row in board["rows"]}
        assert rows == {"alice": (games, 0), "bob": (games, bob_wins)}
        records = await export_and_check(h.config.db_path, tmp_path / "games.jsonl")
        assert len(records) == games
        for record in records:
            player = record["players"][alice_seat]
            assert player["name"] == "alice" and player["kind"] == "human"
            end = [len(record["hands"]) - 1, len(record["hands"][-1]["events"])]
            assert player["stand_in"] == [{"from": [0, 0], "to": end}]


async def test_the_leaderboard_updates_while_it_is_open(tmp_path: Path) -> None:
    """A follower of the leaderboard gets a new one after each game that changes it; the app's
    leaderboard screen shows the new row without a key pressed. The cursor moved down stays there
    when another message is drawn (the watcher leaves: who is online changes); before, every message
    redrew the list and put the cursor back at the top."""
    from ono99_tui.tui.app import make_app
    from ono99_tui.tui.lobby import LeaderboardScreen, LobbyScreen

    async with running_server(tmp_path, **FAST_PLAY) as h:
        watcher = await h.connect("watcher")
        first = await watcher.request(AskLeaderboard(follow=True), "leaderboard")
        assert first["rows"] == []
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada", identity=new_identity())
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("b")
            await wait_until(lambda: isinstance(app.screen, LeaderboardScreen), "the leaderboard screen")
            cy = await h.connect("Cy", identity=new_identity())
            await create_table(cy, seats=2, bots=1, start=True)
            await play(cy, random.Random(1))
            pushed = await watcher.expect("leaderboard", where=lambda m: bool(m["rows"]))
            assert [row["name"] for row in pushed["rows"]] == ["Cy"]
            grid = app.screen.query_one(DataTable)
            await wait_until(lambda: grid.row_count == 2, "the new rows shown")  # Cy, and the bot level
            await pilot.press("down")
            await wait_until(lambda: grid.cursor_row == 1, "the cursor on the bot level's row")
            await watcher.close()
            await wait_until(lambda: all(p.name != "watcher" for p in app.model.online), "the watcher gone")
            await pilot.pause()
            assert grid.cursor_row == 1
            await pilot.press("escape")
            await wait_until(lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
            await wait_until(lambda: not h.server.lobby.members["Ada"].follows_leaderboard, "no longer following")


async def test_a_client_written_from_the_protocol_document_proves_its_key(tmp_path: Path) -> None:
    """The handshake as docs/protocol.md section 3a spells it, built by hand from an Ed25519 key of
    the ``cryptography`` package: the public key line, the 88 signed bytes (bound to the SHA-256 of
    the public key of the certificate the TLS session showed), the 83-byte SSH signature blob, and
    the identity as the SHA-256 of the key's wire encoding."""
    import base64
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    def string(data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + data

    private = Ed25519PrivateKey.generate()
    raw_public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    wire = string(b"ssh-ed25519") + string(raw_public)
    line = "ssh-ed25519 " + base64.b64encode(wire).decode() + " made by hand"
    identity = "SHA256:" + base64.b64encode(hashlib.sha256(wire).digest()).decode().rstrip("=")
    async with running_server(tmp_path) as h:
        raw = await h.raw()
        await raw.send(Hello(version=2, name="Handmade", key=line))
        nonce = (await raw.expect("challenge"))["nonce"]
        tls = raw.writer.get_extra_info("ssl_object")
        certificate = x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))
        spki = certificate.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
        signed = b"ono99 identity proof v2" + b"\x00" + hashlib.sha256(spki).digest() + nonce
        assert len(signed) == 88
        blob = string(b"ssh-ed25519") + string(private.sign(signed))
        assert len(blob) == 83
        await raw.send(Prove(signature=blob))
        welcome = await raw.expect("welcome")
        assert welcome["identity"] == identity and welcome["name"] == "Handmade"


async def test_the_app_asks_for_another_name_when_its_name_is_taken(tmp_path: Path) -> None:
    """``ono99 connect --name Ada`` with a key of its own, while Ada's name belongs to another key: the
    app says why and asks for another name (instead of a dead end), enters the lobby with it, and
    remembers it in its data directory for the next start."""
    from ono99_tui.tui.app import make_app
    from ono99_tui.tui.lobby import LobbyScreen
    from ono99_tui.tui.names import NameScreen

    async with running_server(tmp_path) as h:
        h.clients.append(await connect(h.port, "Ada", identity_in(tmp_path / "ada")))
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Аda",  # with a Cyrillic А
                       identity=identity_in(tmp_path / "bea"))
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(lambda: isinstance(app.screen, NameScreen), "the name dialog")
            assert isinstance(app.screen, NameScreen) and "looks like 'Ada'" in app.screen.problem
            await pilot.press("B", "e", "a", "enter")
            await wait_until(lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert app.model.my_name == "Bea"
        assert remembered_name(tmp_path / "bea") == "Bea"


@pytest.mark.system
async def test_the_key_file_of_ono99_connect_with_openssh_is_the_same_player_and_seat(tmp_path: Path) -> None:
    """Kit plays over TCP with the key of a data directory and drops mid-game; the real OpenSSH
    ``ssh -i DATA_DIR/id_ed25519`` (under tmux) comes back to Kit's seat, as Kit. Then the server
    restarts (same database and host key) and an SSH login with that key is back at the seat again."""
    import uuid

    from ono99_tui.tui.table import TableScreen
    from tests.test_ssh import run

    kit_dir = tmp_path / "kit"
    kit = identity_in(kit_dir)
    rig = await start_rig(tmp_path, bot_delay=60.0)
    tmux = ("tmux", "-L", f"ono99-test-{uuid.uuid4().hex[:8]}", "-f", "/dev/null")
    try:
        client = await connect(rig.server.port, "kit", kit)
        table_id = await create_table(client, seats=2, bots=1, start=True)
        state = await client.expect("state")
        await client.close()
        member = rig.server.lobby.by_identity[kit.fingerprint]
        await wait_until(lambda: member.connection is None, "kit away")
        ssh = (f"ssh -F /dev/null -p {rig.front.port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
               f"-o LogLevel=ERROR -o IdentitiesOnly=yes -o BatchMode=yes -i {kit_dir / KEY_FILE} anyone@127.0.0.1")
        await run(*tmux, "new-session", "-d", "-s", "play", "-x", "100", "-y", "30", ssh)
        await wait_until(lambda: member.connection is not None, "kit back over OpenSSH")
        session = next(iter(rig.front.sessions))
        await wait_until(lambda: isinstance(session.app, SessionApp) and isinstance(session.app.screen, TableScreen)
                         and session.app.model.view is not None, "kit's table in the SSH session")
        assert session.app is not None
        assert session.app.model.my_name == "kit" and list(view_of(session.app).hand) == state["view"]["hand"]
        assert session.owner.fingerprint == kit.fingerprint
        await run(*tmux, "kill-server")
        await wait_until(lambda: member.connection is None, "the SSH session gone")
    finally:
        with contextlib.suppress(Exception):
            await run(*tmux, "kill-server")
        await rig.close()

    rig = await start_rig(tmp_path, bot_delay=60.0)  # the same database and host key
    try:
        player = await Player.connect(rig, "whoever", key=asyncssh.read_private_key(str(kit_dir / KEY_FILE)))
        await player.until(lambda a: isinstance(a.screen, TableScreen) and a.model.view is not None, "the seat")
        assert player.app.model.my_name == "kit" and table_of(player.app).id == table_id
        assert list(view_of(player.app).hand) == state["view"]["hand"]
        await player.close()
    finally:
        await rig.close()


async def test_a_database_of_the_previous_version_opens_and_its_tables_play_on(tmp_path: Path) -> None:
    """A database written before identities: stats by name in ``stats`` (kept, not shown) and a table
    in progress whose saved seats have no identity and no players of record. The server opens it,
    the guest comes back with the token, the game finishes and its record checks; the name-keyed
    stats are not shown as anyone's."""
    import json
    import sqlite3

    async with running_server(tmp_path) as h:
        gus = await h.connect("gus")
        table_id = await create_table(gus, seats=2, bots=1, start=True)
        await gus.expect("state")
        token = gus.resume_token
        await storage_barrier(gus)
    db = sqlite3.connect(tmp_path / "x.db")
    with db:
        db.execute("INSERT INTO stats(name, edition, games, wins) VALUES ('gus', '2022', 9, 9)")
        [meta_text] = db.execute("SELECT meta FROM live_tables WHERE id = ?", (table_id,)).fetchone()
        meta = json.loads(meta_text)
        for key in ("players", "stand_in"):
            meta.pop(key)
        for seat in meta["seats"]:
            seat.pop("identity")
        db.execute("UPDATE live_tables SET meta = ? WHERE id = ?", (json.dumps(meta), table_id))
    db.close()
    async with running_server(tmp_path, **FAST_PLAY) as h:
        back = await h.connect("ignored", resume=token)
        assert back.welcome["resumed"] and back.welcome["table"] == table_id
        log = await play(back, random.Random(3))
        assert log.last_view["winner"] is not None
        [record] = await export_and_check(h.config.db_path, tmp_path / "games.jsonl")
        assert record["players"][0] == {"name": "gus", "kind": "human"}
        board = await back.request(AskLeaderboard(), "leaderboard")
        assert board["rows"] == []


def test_the_data_directory_is_the_flag_else_the_environment_else_the_user_data_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from platformdirs import user_data_path

    from ono99_kernel.identity import data_dir

    monkeypatch.delenv("ONO99_DATA_DIR", raising=False)
    assert data_dir() == user_data_path("ono99", appauthor=False)
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(tmp_path / "flag") == tmp_path / "flag"


async def test_ono99_connect_says_so_when_the_key_file_is_not_a_key(tmp_path: Path) -> None:
    from tests.server_helpers import ono99

    (tmp_path / KEY_FILE).write_text("not a key\n")
    result = await ono99("connect", "127.0.0.1:1", "--data-dir", str(tmp_path))
    assert result.returncode == 2
    assert f"cannot use the key in {tmp_path}" in result.stderr
    assert (tmp_path / KEY_FILE).read_text() == "not a key\n"  # left as it was


async def test_a_turn_the_clock_played_is_noted_and_the_player_present_keeps_the_credit(tmp_path: Path) -> None:
    """Alice lets her turn clock run out once, then plays every other turn herself. Her record entry
    notes the one play the stand-in made for her; her stats count the game, and a win when she won
    (she made at least half of her plays and was there at the end)."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice", identity=new_identity())
        await create_table(alice, seats=2, bots=1, turn_seconds=1, start=True)
        while True:  # her first turn: she does nothing
            state = await alice.expect("state")
            if state["view"]["turn"] == 0 and state["view"]["winner"] is None:
                break
        notice = await alice.expect("notice")
        assert "clock ran out" in notice["text"]
        log = await play(alice, random.Random(2))
        winner = log.last_view["winner"]
        [record] = await export_and_check(h.config.db_path, tmp_path / "games.jsonl")
        spans = record["players"][0]["stand_in"]  # one; more only if a slow machine let another clock run out
        for span in spans:
            hand, event = span["from"]
            assert span["to"] == [hand, event + 1]
            assert record["hands"][hand]["events"][event]["e"] == "play"
            assert record["hands"][hand]["events"][event]["seat"] == 0
        plays = sum(1 for hand_ in record["hands"] for e in hand_["events"] if e["e"] == "play" and e["seat"] == 0)
        board = await alice.request(AskLeaderboard(), "leaderboard")
        credited = winner == 0 and 2 * len(spans) <= plays
        assert [{k: row[k] for k in ("name", "games", "wins")} for row in board["rows"]] == [
            {"name": "alice", "games": 1, "wins": int(credited)}]
