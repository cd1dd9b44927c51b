"""The store itself, on SQLite and on a real PostgreSQL server (the ``store`` fixture runs each test
on both): what a restart reads back, save-before-show (a write is reported saved only once another
connection can read it), the order of jobs, one transaction per finished game, schema versions,
and, on PostgreSQL, servers starting at once, a lost connection and an unreachable server.

What another connection sees is read with the back end's own driver (sqlite3, psycopg), beside the
store, never through it."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ono99_server.name_claims import NameRegistry
from ono99_server.ratings import leaderboard_of
from ono99_server.storage import SQLITE_MIGRATIONS, Database, Storage, StorageError, shown_url
from ono99_server.storage_pg import LATEST, PostgresStorage
from ono99_server.stores import open_storage
from tests.postgres import Cluster
from tests.server_helpers import ServerProcess, Store, TestClient, create_table, free_port, ono99

TIMEOUT = 30.0


def read_beside(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows read on a connection of its own (portable SQL, ``?`` placeholders)."""
    if isinstance(store.db, Path):
        db = sqlite3.connect(f"file:{store.db}?mode=ro", uri=True)
        try:
            return db.execute(sql, params).fetchall()
        finally:
            db.close()
    with psycopg.connect(store.db) as pg:
        return pg.execute(sql.replace("?", "%s"), params).fetchall()


def write_beside(store: Store, sql: str) -> None:
    if isinstance(store.db, Path):
        db = sqlite3.connect(store.db, isolation_level=None)
        try:
            db.execute(sql)
        finally:
            db.close()
    else:
        with psycopg.connect(store.db, autocommit=True) as pg:
            pg.execute(sql)


class Opened:
    """A store opened on the test's database, closed at the end."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.storage: Storage | None = None

    def open(self) -> Storage:
        self.close()
        self.storage = open_storage(self.store.db)
        return self.storage

    def close(self) -> None:
        if self.storage is not None:
            self.storage.close()
            self.storage = None


@pytest.fixture
async def opened(store: Store) -> AsyncIterator[Opened]:
    keeper = Opened(store)
    try:
        yield keeper
    finally:
        await asyncio.get_running_loop().run_in_executor(None, keeper.close)


async def barrier(storage: Storage) -> None:
    """Wait for every job queued so far: a read queued after them."""
    await storage.call(lambda db: db.rows("SELECT 1"))


META = {"name": "t", "edition": "2022", "options": {}, "seat_count": 2, "private": False, "code": None,
        "turn_seconds": 0, "bot_level": "greedy", "status": "playing", "seed": 7, "seats": []}


async def test_a_table_in_progress_comes_back_with_its_current_games_moves_and_the_last_chat(
        opened: Opened, store: Store) -> None:
    """Tried: table 5's first game gets three moves, its second game (saved with the reset of the
    first's moves) four, and its chat six lines kept to the last three; table 6 is saved then dropped.
    After closing and opening again: table 5 alone, with the second game's moves in order and the
    chat's last three lines; the next table id is past both; the lobby's chat (table 0) apart."""
    storage = opened.open()
    storage.save_table(5, {**META, "game_no": 1})
    for n, code in enumerate(["7", "9", "R"]):
        storage.save_action(5, 1, n, n % 2, code)
    storage.save_table(5, {**META, "game_no": 2}, reset_actions_of=2)
    for n, code in enumerate(["1", "2", "3", "P2"]):
        storage.save_action(5, 2, n, n % 2, code)
    saved = asyncio.Event()
    for line in range(1, 7):
        storage.save_chat(5, line, "ada", f"line {line}", 100.0 + line, 3, saved.set)
    storage.save_chat(0, 1, "bob", "in the lobby", 50.0, 3, saved.set)
    storage.save_table(6, {**META, "game_no": 1})
    storage.save_action(6, 1, 0, 0, "5")
    storage.save_chat(6, 1, "cy", "bye", 60.0, 3, saved.set)
    storage.drop_table(6)
    storage.remember_next_table_id(7)
    await barrier(storage)

    storage = await asyncio.get_running_loop().run_in_executor(None, opened.open)
    [table] = storage.load_tables()
    assert table.id == 5 and table.meta["game_no"] == 2
    assert table.actions == [(0, "1"), (1, "2"), (0, "3"), (1, "P2")]
    assert table.chat == [("ada", f"line {n}", 100.0 + n, n) for n in (4, 5, 6)]
    assert storage.load_chat(0) == [("bob", "in the lobby", 50.0, 1)]
    assert storage.load_chat(6) == []
    assert storage.next_table_id() == 7
    assert read_beside(store, "SELECT COUNT(*) FROM live_actions WHERE table_id = 6") == [(0,)]


async def test_a_move_and_a_chat_line_are_reported_saved_only_once_another_connection_reads_them(
        opened: Opened, store: Store) -> None:
    """Save-before-show. Tried: 40 moves saved one after another as fast as they come (they go to
    the database in batches) and a chat line; in each one's ``on_saved``, a connection of its own
    reads the database. Every callback ran, in order, and each found its own row there."""
    storage = opened.open()
    storage.save_table(1, {**META, "game_no": 1})
    found: list[tuple[int, bool]] = []

    def check(n: int) -> None:
        rows = read_beside(store, "SELECT action FROM live_actions WHERE table_id = 1 AND game_no = 1 AND n = ?",
                           (n,))
        found.append((n, rows == [(str(n),)]))

    def checker(n: int) -> Callable[[], None]:
        return lambda: check(n)

    for n in range(40):
        storage.save_action(1, 1, n, 0, str(n), checker(n))
    chat_seen = asyncio.Event()
    chat_rows: list[Any] = []

    def chat_saved() -> None:
        chat_rows.extend(read_beside(store, "SELECT text FROM live_chat WHERE table_id = 1"))
        chat_seen.set()

    storage.save_chat(1, 1, "ada", "gg", 1.0, 50, chat_saved)
    await asyncio.wait_for(chat_seen.wait(), TIMEOUT)
    await barrier(storage)
    await asyncio.sleep(0)  # the callbacks of the last batch run on this loop
    assert found == [(n, True) for n in range(40)]
    assert chat_rows == [("gg",)]


async def test_a_read_queued_after_writes_sees_them_and_a_move_saved_again_is_kept_once(
        opened: Opened, store: Store) -> None:
    """The order of jobs: names written and then read in one breath; a finished game counted in the
    leaderboard asked for right after it (what the server's storage barrier relies on); a move saved
    twice under the same number (a restarted server saves again what it replays) is one row."""
    storage = opened.open()
    storage.save_name("key:a", "Ada")
    storage.save_name("key:b", "Bob")
    storage.save_name("key:a", "Ada Lovelace")
    assert sorted(storage.load_names()) == [("key:a", "Ada Lovelace"), ("key:b", "Bob")]
    record = {"edition": "2022", "players": [{"name": "Ada"}, {"name": "Bob"}]}
    storage.save_game(3, record, 10.0, [("key:a", True), ("key:b", False)])
    board = await leaderboard_of(storage)("2022")
    assert {(r.name, r.games, r.wins) for r in board.rows} == {("Ada Lovelace", 1, 1), ("Bob", 1, 0)}
    storage.save_table(3, {**META, "game_no": 1})
    storage.save_action(3, 1, 0, 0, "7")
    storage.save_action(3, 1, 0, 0, "7")
    await barrier(storage)
    assert read_beside(store, "SELECT seat, action FROM live_actions WHERE table_id = 3") == [(0, "7")]


async def test_a_finished_game_its_stats_and_its_rating_are_one_transaction(
        opened: Opened, store: Store, caplog: pytest.LogCaptureFixture) -> None:
    """Tried: a finished game whose rating step (``then``) writes a rating and then fails. Nothing
    of it is stored: no game, no stats, no rating; the failure is logged. The same game saved again
    with a rating step that works is stored once, with its stats and rating."""
    storage = opened.open()
    record = {"edition": "1980", "players": [{"name": "Ada"}]}

    async def rate_then_fail(db: Database, game_id: int) -> None:
        await db.run("INSERT INTO ratings(identity, edition, mu, sigma, games, wins) VALUES (?, ?, 30, 5, 1, 1)",
                     ("key:a", "1980"))
        raise RuntimeError("the rating step failed")

    with caplog.at_level(logging.ERROR, logger="ono99.storage"):
        storage.save_game(1, record, 5.0, [("key:a", True)], then=rate_then_fail)
        await barrier(storage)
    assert "a database write failed" in caplog.text and "the rating step failed" in caplog.text
    for table in ("games", "player_stats", "ratings"):
        assert read_beside(store, f"SELECT COUNT(*) FROM {table}") == [(0,)], table

    rated: list[int] = []

    async def rate(db: Database, game_id: int) -> None:
        await db.run("INSERT INTO ratings(identity, edition, mu, sigma, games, wins) VALUES (?, ?, 30, 5, 1, 1)",
                     ("key:a", "1980"))
        rated.append(game_id)

    storage.save_game(1, record, 5.0, [("key:a", True)], then=rate)
    await barrier(storage)
    [(game_id, text)] = read_beside(store, "SELECT id, record FROM games")
    assert rated == [game_id] and '"edition":"1980"' in text
    assert read_beside(store, "SELECT games, wins FROM player_stats") == [(1, 1)]
    assert read_beside(store, "SELECT identity, mu FROM ratings") == [("key:a", 30.0)]


async def test_the_schema_has_a_version_and_a_database_of_a_newer_one_is_refused(
        opened: Opened, store: Store) -> None:
    """A new database is set up at the newest version; opened again it stays so (on PostgreSQL,
    ``ono99_schema`` keeps one row per version). Tried: the database marked as of version 99, as a
    newer ono99 would leave it: opening it is refused with a reason that says so."""
    storage = opened.open()
    latest = LATEST if store.kind == "postgresql" else len(SQLITE_MIGRATIONS)  # SQLite lacks the nodes' version
    assert storage.schema_version == latest
    await asyncio.get_running_loop().run_in_executor(None, opened.open)
    opened.close()
    if store.kind == "postgresql":
        assert [v for (v,) in read_beside(store, "SELECT version FROM ono99_schema ORDER BY version")] == \
            list(range(1, LATEST + 1))
        write_beside(store, "INSERT INTO ono99_schema(version, applied_at, what) VALUES (99, 0, 'the future')")
    else:
        assert read_beside(store, "PRAGMA user_version") == [(latest,)]
        write_beside(store, "PRAGMA user_version = 99")
    with pytest.raises(StorageError, match="schema version 99, made by a newer ono99"):
        opened.open()


async def test_serve_refuses_a_database_it_cannot_open_and_says_why(tmp_path: Path, store: Store) -> None:
    """Tried: ``ono99 serve --db`` with a file that is not an SQLite database, and with a PostgreSQL
    URL (with a password) where no server listens. Each exits with code 2 and one line saying which
    database and why, the password never shown."""
    if store.kind == "sqlite":
        bad: str = str(tmp_path / "not-a-database.db")
        Path(bad).write_bytes(b"this is not SQLite" * 100)
        expected = f"cannot open the database {bad}: file is not a database"
    else:
        bad = f"postgresql://ono99:hunter2@{'%2F'}nowhere{'%2F'}at-all/games"
        expected = "cannot connect to the database postgresql://ono99:***@%2Fnowhere%2Fat-all/games"
    done = await ono99("serve", "--db", bad, "--host", "127.0.0.1", "--port", str(free_port()), "--ssh-port", "0",
                       "--no-advertise", "--tls-cert", str(tmp_path / "c.pem"), "--tls-key", str(tmp_path / "k.pem"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected in done.stderr and "hunter2" not in done.stderr + done.stdout, done.stderr


def test_a_url_is_shown_without_its_password() -> None:
    assert shown_url("postgresql://ono99:s3cret@db.example:5432/games") == "postgresql://ono99:***@db.example:5432/games"
    assert shown_url("postgresql:///games?host=/run/pg&password=s3cret&user=ono99") == \
        "postgresql:///games?host=/run/pg&password=***&user=ono99"
    assert shown_url("postgresql://ono99@%2Frun%2Fpg/games") == "postgresql://ono99@%2Frun%2Fpg/games"


# --- PostgreSQL only ------------------------------------------------------------------------------------
def test_servers_starting_at_once_on_a_new_database_set_it_up_once(postgres_cluster: Cluster) -> None:
    """Tried: four stores opened at the same moment, from four threads, on one new database (as
    several servers would start at once). All open; the schema's versions were applied once each."""
    url = postgres_cluster.new_database()
    start = threading.Barrier(4)
    opened: list[Storage] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        start.wait()
        try:
            opened.append(PostgresStorage(url))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    for storage in opened:
        storage.close()
    assert errors == [] and len(opened) == 4
    with psycopg.connect(url) as pg:
        assert pg.execute("SELECT version FROM ono99_schema ORDER BY version").fetchall() == \
            [(v,) for v in range(1, LATEST + 1)]


async def test_a_connection_the_server_ended_is_made_again_and_the_move_is_saved(
        postgres_cluster: Cluster, caplog: pytest.LogCaptureFixture) -> None:
    """Tried: the store's connection is ended by the server (``pg_terminate_backend``, what a restart
    of PostgreSQL or an idle timeout does) between two moves, and again before a chat line. Each
    next write finds it lost before anything was committed, connects again and saves: its
    ``on_saved`` comes after its row is there, and a warning says what happened. A finished game
    saved after it is stored once."""
    url = postgres_cluster.new_database()
    store = Store("postgresql", url)
    storage = PostgresStorage(url)

    def end_its_connection() -> None:
        with psycopg.connect(url, autocommit=True) as pg:
            [(ended,)] = pg.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    "WHERE application_name = 'ono99 serve' AND datname = current_database()"
                                    ).fetchall()
        assert ended is True

    try:
        storage.save_table(1, {**META, "game_no": 1})
        storage.save_action(1, 1, 0, 0, "7")
        await barrier(storage)
        end_its_connection()
        found: list[Any] = []
        saved = asyncio.Event()

        def action_saved() -> None:
            found.extend(read_beside(store, "SELECT n, action FROM live_actions ORDER BY n"))
            saved.set()

        with caplog.at_level(logging.WARNING, logger="ono99.storage"):
            storage.save_action(1, 1, 1, 1, "9", action_saved)
            await asyncio.wait_for(saved.wait(), TIMEOUT)
        assert "the connection to the database was lost" in caplog.text
        assert found == [(0, "7"), (1, "9")]

        end_its_connection()  # and a chat line, the same way
        saved.clear()
        found.clear()

        def chat_saved() -> None:
            found.extend(read_beside(store, "SELECT text FROM live_chat"))
            saved.set()

        storage.save_chat(1, 1, "ada", "still here", 1.0, 50, chat_saved)
        await asyncio.wait_for(saved.wait(), TIMEOUT)
        assert found == [("still here",)]
        storage.save_game(1, {"edition": "2022"}, 1.0, [])
        await barrier(storage)
        assert read_beside(store, "SELECT COUNT(*) FROM games") == [(1,)]
    finally:
        await asyncio.get_running_loop().run_in_executor(None, storage.close)


async def test_serve_on_postgresql_says_so_and_restores_from_it(tmp_path: Path, postgres_cluster: Cluster) -> None:
    """``ono99 serve --db postgresql://…``: the banner names the database by its URL (no password
    in it here), and a second server started on it after the first is stopped restores its table."""
    url = postgres_cluster.new_database()
    first = ServerProcess(url, tmp_path / "first.log", "--bot-delay", "10")
    second = ServerProcess(url, tmp_path / "second.log")
    try:
        port = await first.start()
        assert any(f"database: {url} (0 tables restored)" in line for line in first.banner), first.banner
        ada = await TestClient.connect("127.0.0.1", port, "ada")
        await create_table(ada, seats=2, bots=1, start=True)
        await ada.expect("state")
        await ada.close()
        await first.stop()
        await second.start()
        assert any(f"database: {url} (1 table restored)" in line for line in second.banner), second.banner
    finally:
        await first.stop()
        await second.stop()


async def test_two_rows_of_one_name_left_from_before_keep_the_older_claim(opened: Opened, store: Store) -> None:
    """A database of the version before the keys of claimed names, whose ``names`` holds "tom" twice
    (two nodes each let a key claim it), "T0M" of a third key (it looks like "tom") and "sam". Tried:
    opened by this version, the older claim of "tom" stays and the other row goes, the database
    refuses another row for "tom", and the names a server reads give "tom", "TOM" and "T0M" to the
    older claim's key, and "sam" to its own."""
    opened.open()
    opened.close()
    now = time.time()
    # back to the version before the keys of claimed names (PostgreSQL 5, SQLite 3), and the ones after it
    if store.kind == "postgresql":
        write_beside(store, "DELETE FROM ono99_schema WHERE version >= 5")
        for later in ("DROP TABLE arena_games", "DROP TABLE arenas",  # PostgreSQL 7's and 8's, made again
                      "DROP TABLE arena_pairers", "DROP TABLE arena_players"):
            write_beside(store, later)
    else:
        write_beside(store, "PRAGMA user_version = 2")
    for statement in ("DROP TABLE name_keys", "DROP INDEX names_name", "DROP TABLE names_seen",
                      # claimed this past minute (a name whose key is not seen for 180 days is free again)
                      f"INSERT INTO names(identity, name, claimed_at) VALUES ('key:tom-2', 'tom', {now - 30}), "
                      f"('key:tom-1', 'tom', {now - 40}), ('key:look', 'T0M', {now - 20}), "
                      f"('key:sam', 'sam', {now - 10})"):
        write_beside(store, statement)
    storage = opened.open()
    assert sorted(read_beside(store, "SELECT identity, name FROM names")) == \
        [("key:look", "T0M"), ("key:sam", "sam"), ("key:tom-1", "tom")]
    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.UniqueViolation)):
        write_beside(store, "INSERT INTO names(identity, name, claimed_at) VALUES ('key:x', 'tom', 5.0)")
    names = NameRegistry(storage)
    for asked in ("tom", "TOM", "T0M"):
        assert names.owner(asked) == ("tom", "key:tom-1"), asked
    assert names.owner("sam") == ("sam", "key:sam")
    assert {i for (i,) in read_beside(store, "SELECT identity FROM name_keys")} == {"key:tom-1", "key:sam"}
