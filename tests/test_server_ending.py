"""A game's ending across a kill -9: a real `ono99 serve` process plays a game to its end, then its
database is made to look exactly as a kill in the moment between the game's last move and its end
being saved leaves it, and a new process is started on it (SQLite and PostgreSQL), or another node
of several (``--cluster``: PostgreSQL and a real Redis) takes the table over; and a node lost just
after a game's end was saved, whose table is taken over without the game being rated again."""

from __future__ import annotations

import json
import random
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ono99_server.storage import Database
from ono99_server.stores import open_storage
from tests.postgres import Cluster
from tests.redis_server import RedisServer
from tests.server_helpers import (
    ServerProcess,
    Store,
    TestClient,
    create_table,
    new_identity,
    play,
    start,
    storage_barrier,
    until_closed,
    wait_until,
)
from tests.test_cluster import DB_POLL, nodes, owner_of

ARGS = ("--grace", "60", "--bot-delay", "0", "--turn-seconds", "0", "--messages-per-second", "10000")
RATED_ROWS = ("game_viewers", "player_stats", "ratings", "rating_history", "games")


def on_db(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement on the test's database, with the server's own store, and return its rows."""
    storage = open_storage(store.db)
    try:
        async def job(db: Database) -> list[tuple[Any, ...]]:
            async with db.transaction():
                if sql.lstrip().upper().startswith("SELECT"):
                    return await db.rows(sql, params)
                await db.run(sql, params)
                return []

        return storage.run_now(job)
    finally:
        storage.close()


def table_status(store: Store, table_id: int) -> str:
    [(meta,)] = on_db(store, "SELECT meta FROM live_tables WHERE id = ?", (table_id,))
    return str(json.loads(meta)["status"])


def set_table_status(store: Store, table_id: int, status: str) -> None:
    [(meta,)] = on_db(store, "SELECT meta FROM live_tables WHERE id = ?", (table_id,))
    changed = json.loads(meta)
    changed["status"] = status
    on_db(store, "UPDATE live_tables SET meta = ? WHERE id = ?", (json.dumps(changed), table_id))


@dataclass
class Counted:
    """What the database holds of the player's finished games."""

    games: int
    winners: list[int]
    stats_games: int
    rated_games: int
    rating_rows: int


def counted(store: Store, identity: str) -> Counted:
    records = [json.loads(text) for (text,) in on_db(store, "SELECT record FROM games ORDER BY id")]
    stats = on_db(store, "SELECT games FROM player_stats WHERE identity = ?", (identity,))
    rated = on_db(store, "SELECT games FROM ratings WHERE identity = ?", (identity,))
    history = on_db(store, "SELECT game_id FROM rating_history WHERE identity = ?", (identity,))
    return Counted(len(records), [r["result"]["winner"] for r in records], sum(int(g) for (g,) in stats),
                   sum(int(g) for (g,) in rated), len(history))


@dataclass
class Ended:
    """A game Alice (a key's player) played to its end against a bot, on a server killed after it."""

    store: Store
    tmp_path: Path
    key: Any
    identity: str
    table_id: int
    resume: str
    winner: int
    seq_before_end: int  # of the last state Alice had before the one that ended the game
    servers: list[ServerProcess] = field(default_factory=list)
    clients: list[TestClient] = field(default_factory=list)

    async def restart(self) -> ServerProcess:
        server = ServerProcess(self.store.db, self.tmp_path / f"server{len(self.servers)}.log", *ARGS)
        self.servers.append(server)
        await server.start()
        assert any("1 table restored" in line for line in server.banner), server.banner
        return server

    async def alice_back(self, server: ServerProcess) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
        """Alice comes back having seen the game up to the state before its end: the table as she is
        told it, her state, and the events she is sent."""
        alice = await TestClient.connect("127.0.0.1", server.port, "alice", identity=self.key, resume=self.resume,
                                         seen={"table": self.table_id, "seq": self.seq_before_end})
        self.clients.append(alice)
        assert alice.welcome["table"] == self.table_id
        state = await alice.expect("state")
        [table] = [m["table"] for m in alice.received if m["t"] == "table"]
        events = [e for m in alice.received if m["t"] == "history" for e in m["events"]] + list(state["events"])
        await storage_barrier(alice)  # what the restored table saved is in the database
        return table, state, events


@asynccontextmanager
async def a_game_ended_then_killed(store: Store, tmp_path: Path) -> AsyncIterator[Ended]:
    server = ServerProcess(store.db, tmp_path / "first.log", *ARGS)
    ended: Ended | None = None
    alice: TestClient | None = None
    try:
        await server.start()
        key = new_identity()
        alice = await TestClient.connect("127.0.0.1", server.port, "alice", identity=key)
        table_id = await create_table(alice, seats=2, bots=1)
        await start(alice)
        log = await play(alice, random.Random(7))
        winner = log.last_view["winner"]
        assert winner is not None, "the game did not end"
        await storage_barrier(alice)  # its end is saved: the database holds what a kill just after leaves
        await server.kill9()
        await until_closed(alice)
        ended = Ended(store, tmp_path, key, str(alice.welcome["identity"]), table_id, str(alice.resume_token),
                      winner, int(log.states[-2]["seq"]))
        yield ended
    finally:
        if alice is not None:
            await alice.close()
        await server.stop()
        for client in ended.clients if ended is not None else []:
            await client.close()
        for other in ended.servers if ended is not None else []:
            await other.stop()


def assert_shown_finished(ended: Ended, table: dict[str, Any], state: dict[str, Any],
                          events: list[dict[str, Any]]) -> None:
    assert table["status"] == "finished" and table["winner"] == ended.winner, table
    assert state["view"]["winner"] == ended.winner
    assert [e for e in events if e["e"] == "game_over"] == [{"e": "game_over", "winner": ended.winner}], events


@pytest.mark.system
async def test_a_game_whose_end_was_not_saved_is_finished_recorded_and_rated_once_on_restart(
        tmp_path: Path, store: Store) -> None:
    """Tried: Alice (a key) plays a bot to the end; the server is killed; the database is then made as
    a kill between the last move's save and the end's leaves it: every move saved, the table saved as
    "playing", no game record, no stats, no rating. A new process restores the table: the game is
    over, so it ends it as a live table does: one record (the same winner), Alice's stats and rating
    counted once; Alice, back with the events before the end unseen, is told the table is finished
    and sent the game's end. Restarted again (after a kill), nothing is recorded or rated twice."""
    async with a_game_ended_then_killed(store, tmp_path) as ended:
        assert counted(store, ended.identity) == Counted(1, [ended.winner], 1, 1, 1)
        for rows in RATED_ROWS:  # the end not saved: no record, stats nor rating (a new database: only this game)
            on_db(store, f"DELETE FROM {rows}")
        set_table_status(store, ended.table_id, "playing")
        assert counted(store, ended.identity) == Counted(0, [], 0, 0, 0)

        server = await ended.restart()
        assert_shown_finished(ended, *await ended.alice_back(server))
        assert counted(store, ended.identity) == Counted(1, [ended.winner], 1, 1, 1)
        assert table_status(store, ended.table_id) == "finished"

        await server.kill9()
        again = await ended.restart()
        assert_shown_finished(ended, *await ended.alice_back(again))
        assert counted(store, ended.identity) == Counted(1, [ended.winner], 1, 1, 1), "recorded twice"


@pytest.mark.system
async def test_a_game_recorded_before_a_kill_is_not_recorded_again_with_its_table_left(
        tmp_path: Path, store: Store) -> None:
    """Tried: Alice (a key) plays a bot to the end and the server is killed with the record saved and
    the table's rows still there. The record and the table's "finished" are one transaction: the
    table is saved as finished. Restarted, nothing is recorded or rated again, and Alice is shown the
    end. Then the table is made "playing" again with the record kept (what an ending saved in two
    writes could leave): restarted, the game is over, its end is not recorded nor rated a second
    time (it is the table's last recorded game), and Alice is shown the end."""
    async with a_game_ended_then_killed(store, tmp_path) as ended:
        assert table_status(store, ended.table_id) == "finished"
        assert counted(store, ended.identity) == Counted(1, [ended.winner], 1, 1, 1)

        server = await ended.restart()
        assert_shown_finished(ended, *await ended.alice_back(server))
        assert counted(store, ended.identity) == Counted(1, [ended.winner], 1, 1, 1), "recorded twice"

        await server.kill9()
        set_table_status(store, ended.table_id, "playing")
        again = await ended.restart()
        assert_shown_finished(ended, *await ended.alice_back(again))
        assert counted(store, ended.identity) == Counted(1, [ended.winner], 1, 1, 1), "recorded twice"
        assert table_status(store, ended.table_id) == "finished"


@pytest.mark.system
async def test_a_node_lost_before_saving_a_games_end_the_taking_node_finishes_it_once(
        tmp_path: Path, postgres_cluster: Cluster, redis_server: RedisServer) -> None:
    """Tried: two ``--cluster`` nodes; Alice (a key) plays a bot to the end at a table of n0. n0 is
    paused (SIGSTOP: it writes nothing more), the database is made as a kill between the last move's
    save and the end's leaves it (the table "playing", no record, stats nor rating), and n0 is killed.
    n1 takes the table over after the lease: the game is over, so n1 ends it: one record with the
    same winner, Alice's stats and rating counted once, and Alice, back at n1, is told the table is
    finished and sent the game's end."""
    store = Store("postgresql", postgres_cluster.new_database())
    async with nodes(tmp_path, str(store.db), redis_server.url, 2) as (n0, n1):
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice", identity=(key := new_identity()))
        clients = [alice]
        try:
            table_id = await create_table(alice, seats=2, bots=1)
            await start(alice)
            log = await play(alice, random.Random(7))
            winner = log.last_view["winner"]
            assert winner is not None, "the game did not end"
            await storage_barrier(alice)
            ended = Ended(store, tmp_path, key, str(alice.welcome["identity"]), table_id, str(alice.resume_token),
                          winner, int(log.states[-2]["seq"]), clients=clients)  # Alice back at n1 is closed too
            assert n0.proc is not None
            n0.proc.send_signal(signal.SIGSTOP)
            for rows in RATED_ROWS:
                on_db(store, f"DELETE FROM {rows}")
            set_table_status(store, table_id, "playing")
            await n0.kill9()
            await until_closed(alice)

            await wait_until(lambda: owner_of(str(store.db), table_id) == "n1", "n1 takes the table", every=DB_POLL)
            assert_shown_finished(ended, *await ended.alice_back(n1))
            assert counted(store, ended.identity) == Counted(1, [winner], 1, 1, 1)
            assert table_status(store, table_id) == "finished"
        finally:
            for client in clients:
                await client.close()


@pytest.mark.system
async def test_a_node_lost_after_saving_a_games_end_is_taken_over_without_rating_it_again(
        tmp_path: Path, postgres_cluster: Cluster, redis_server: RedisServer) -> None:
    """Tried: two ``--cluster`` nodes; Alice (a key) plays a bot to the end at a table of n0, whose end
    is saved (record, stats, rating and the table "finished": one transaction), and n0 is killed
    right after. n1 takes the finished table over after the lease: nothing is recorded nor rated
    again, and Alice, back at n1, is shown the end. Then n1 is paused, the table is made "playing"
    again with the record kept (what an ending saved in two writes could leave), n1 is killed and
    n0 started again takes the table: the game is over and is the table's last recorded game, so it
    is not recorded nor rated a second time."""
    store = Store("postgresql", postgres_cluster.new_database())
    async with nodes(tmp_path, str(store.db), redis_server.url, 2) as (n0, n1):
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice", identity=(key := new_identity()))
        clients = [alice]
        try:
            table_id = await create_table(alice, seats=2, bots=1)
            await start(alice)
            log = await play(alice, random.Random(7))
            winner = log.last_view["winner"]
            assert winner is not None, "the game did not end"
            await storage_barrier(alice)
            ended = Ended(store, tmp_path, key, str(alice.welcome["identity"]), table_id, str(alice.resume_token),
                          winner, int(log.states[-2]["seq"]), clients=clients)  # Alice back at n1 is closed too
            await n0.kill9()
            await until_closed(alice)
            assert table_status(store, table_id) == "finished"
            assert counted(store, ended.identity) == Counted(1, [winner], 1, 1, 1)

            await wait_until(lambda: owner_of(str(store.db), table_id) == "n1", "n1 takes the table", every=DB_POLL)
            assert_shown_finished(ended, *await ended.alice_back(n1))
            back = clients[-1]
            assert counted(store, ended.identity) == Counted(1, [winner], 1, 1, 1), "rated again at the take-over"

            assert n1.proc is not None
            n1.proc.send_signal(signal.SIGSTOP)
            set_table_status(store, table_id, "playing")
            await n1.kill9()
            await until_closed(back)
            await n0.start()
            await wait_until(lambda: owner_of(str(store.db), table_id) == "n0",
                             "n0, started again, takes the table", every=DB_POLL)
            again = await TestClient.connect("127.0.0.1", n0.port, "alice", identity=key,
                                             seen={"table": table_id, "seq": ended.seq_before_end})
            clients.append(again)
            assert again.welcome["table"] == table_id
            await again.expect("state")
            await storage_barrier(again)
            assert counted(store, ended.identity) == Counted(1, [winner], 1, 1, 1), "rated again at the take-over"
            assert table_status(store, table_id) == "finished"
        finally:
            for client in clients:
                await client.close()
