"""Records of games at private tables are their players' and their host's: a real server answers
anyone else as if the game did not exist, and lists it in nobody else's profile view. Public
tables' games stay open to all, and games of a database from before privacy was kept are public."""

from __future__ import annotations

import json
import random
import sqlite3
import zlib
from pathlib import Path

from ono99_kernel.wire.requests import AskGameRecord, AskProfile, Join, Leave, Stand, Start
from tests.server_helpers import (
    FAST_PLAY,
    Store,
    create_table,
    new_identity,
    play,
    play_all,
    running_server,
    storage_barrier,
)


async def test_a_private_games_record_is_for_its_players_and_host_only(tmp_path: Path, store: Store) -> None:
    async with running_server(tmp_path, **store.config, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())  # hosts, but only watches
        bob = await h.connect("Bob", identity=new_identity())
        gus = await h.connect("Gus")  # a guest player: known by his resume token
        eve = await h.connect("Eve", identity=new_identity())  # a stranger
        private_id = await create_table(ada, seats=3, private=True)
        code = h.server.lobby.tables[private_id].code
        await ada.request(Stand(), "table", where=lambda m: m["table"]["you"] is None)
        for player in (bob, gus):
            await player.request(Join(code=code), "table", where=lambda m: m["table"]["you"] is not None)
        await ada.send(Start())
        await play_all([bob, gus], seed=3)
        await bob.request(Leave(), "left")
        await create_table(bob, seats=2, bots=1, start=True)  # then a public game
        await play(bob, random.Random(4))
        await storage_barrier(bob)
        private_game, public_game = 1, 2

        for who in (ada, bob, gus):
            fetched = await who.request(AskGameRecord(game=private_game), "game_record")
            assert json.loads(zlib.decompress(fetched["record"]))["players"][0]["name"] == "Bob"
        refused = await eve.request(AskGameRecord(game=private_game), "error")
        missing = await eve.request(AskGameRecord(game=99), "error")
        assert refused["code"] == missing["code"] == "no_record"  # the same answer: the id tells nothing
        assert refused["params"] == {"game": private_game}
        assert refused["reason"] == f"there is no finished game {private_game}"
        for who in (ada, bob, gus, eve):
            await who.request(AskGameRecord(game=public_game), "game_record")

        assert [g["game"] for g in (await bob.request(AskProfile(), "profile"))["recent"]] == [2, 1]
        seen_by_host = await ada.request(AskProfile(name="Bob"), "profile")
        assert [g["game"] for g in seen_by_host["recent"]] == [2, 1]
        seen_by_eve = await eve.request(AskProfile(name="Bob"), "profile")
        assert [g["game"] for g in seen_by_eve["recent"]] == [public_game]
        assert [g["game"] for g in seen_by_eve["history"]] == [public_game]
        assert seen_by_eve["editions"][0]["games"] == 2  # the totals still count every game


async def test_games_stored_before_privacy_was_kept_stay_open(tmp_path: Path) -> None:
    """A database of the earlier schema (no ``private`` column) opens, and its games are public."""
    record = {"format": "ono99-record/1", "edition": "2022", "players": [{"name": "Old", "kind": "human"}]}
    db = sqlite3.connect(tmp_path / "x.db")
    with db:
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, table_id INTEGER, edition TEXT NOT NULL, "
                   "finished_at REAL NOT NULL, record TEXT NOT NULL)")
        db.execute("INSERT INTO games(table_id, edition, finished_at, record) VALUES (1, '2022', 0, ?)",
                   (json.dumps(record),))
    db.close()
    async with running_server(tmp_path) as h:
        eve = await h.connect("Eve")
        fetched = await eve.request(AskGameRecord(game=1), "game_record")
        assert json.loads(zlib.decompress(fetched["record"])) == record
