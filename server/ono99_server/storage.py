"""The server's store: finished game records, names, stats, ratings, and tables in progress.

Two back ends keep the same data with the same guarantees: SQLite (one file; the default) and
PostgreSQL (server/ono99_server/storage_pg.py, ``ono99 serve --db postgresql://…``). They differ only in how
they connect, their schema's column types and their migrations: every query is written once, in
the SQL both take (``?`` placeholders, ``INSERT … ON CONFLICT``), against ``Database``.

All database work runs on the store's own thread, one job at a time, in the order it was asked
for, so the event loop never waits on the database, and a read queued after a write sees it. A
job is a coroutine function given the store's ``Database``; the thread runs it on an event loop of
its own (PostgreSQL's driver, psycopg, is used through its asyncio API there).

Names and stats belong to identities (a player's key fingerprint): ``names`` holds the one name
each identity owns, ``player_stats`` its games and wins. SQLite databases of earlier versions also
have a ``stats`` table, counted by name (whoever used a name): it is kept as it was and not read.

Tables in progress are stored as their setup plus every action taken; a restart replays them
through the rules engine with the same seed, which rebuilds hands, draw pile and turn exactly.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit

T = TypeVar("T")
log = logging.getLogger("ono99.storage")
LOBBY_CHAT_LOCK = 990099  # the advisory lock of the lobby chat's ids (PostgreSQL, several nodes)


def _count(n: int, kind: str) -> str:
    return f"{n} {kind}" if n == 1 else f"{n} {kind}s"


class WriteFence(Protocol):
    """A node's hold on its tables (table id → epoch), checked in each write's transaction: one node of
    several writes a table only while it owns it (server/ono99_server/lease.py's Fence)."""

    epochs: dict[int, int]

    async def check(self, db: Database, table_id: int) -> bool: ...

    def let_go(self, table_id: int) -> None: ...
ACTION_BATCH_SECONDS = 0.01  # action rows go to the database thread at most this often
URL_SCHEMES = ("postgresql://", "postgres://")  # a --db that starts so is a PostgreSQL database

Row = tuple[Any, ...]
Job = Callable[["Database"], Awaitable[T]]


class StorageError(Exception):
    """The store cannot be opened: the database is unreachable, not a database, or of a newer schema."""


class Database(Protocol):
    """The store's one connection, on its thread. SQL is portable: ``?`` placeholders, and only what
    SQLite and PostgreSQL both take. A job whose connection is lost before it commits is run again
    on a new one: a job that writes more than one statement does so in one transaction, or writes
    only what writing twice leaves the same (an upsert, a delete)."""

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def row(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def run(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    async def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    async def insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT into a table whose key is ``id``; the new row's id."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[object]:
        """Everything inside is one transaction (inside another: part of it)."""
        ...


@dataclass(frozen=True, slots=True)
class SavedTable:
    id: int
    meta: dict[str, Any]
    actions: list[tuple[int, str]]  # (seat, action code) of the current game, in order
    chat: list[tuple[str, str, float, int]]  # the kept chat lines: (sender, text, at, id), oldest first


class Storage(ABC):
    """The store, whatever keeps it: open with ``open_storage`` (server/ono99_server/stores.py). Writes are queued
    and keep their order; ``on_saved`` callbacks run on the event loop that asked, once the write is committed."""

    kind: ClassVar[str]  # "sqlite" or "postgresql"
    clock_sql: ClassVar[str | None] = None  # the database's clock in seconds (None: this process's is used)
    where: str  # the database, as the banner shows it (a URL without its password)
    schema_version = 0  # of the database, once open

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ono99-db")
        self._loop: asyncio.AbstractEventLoop | None = None  # the database thread's own
        self._db: Database | None = None
        self._closed = False
        self._lock = threading.Lock()
        # Action rows not yet handed to the database thread, and what to call once they are saved.
        # Rows go to it at most once per ACTION_BATCH_SECONDS, together, as one job and one
        # transaction (under load, a commit per action was most of its work); a row that comes
        # after a quiet moment goes at once. Any other write takes the waiting rows before it.
        self._rows: list[tuple[int, int, int, int, str]] = []
        self._on_saved: list[tuple[int, asyncio.AbstractEventLoop, Callable[[], None]]] = []  # (table, …)
        self._last_hand_over = -ACTION_BATCH_SECONDS
        self._hand_over_due = False
        self.write_observer: Callable[[float], None] | None = None  # told each write job's seconds (metrics)
        # Writes queued or under way, not yet done, by (table id or None, what): what a shutdown
        # that cannot finish says it did not save (``unsaved``).
        self._unwritten: Counter[tuple[int | None, str]] = Counter()
        # Several nodes on one database (server/ono99_server/lease.py): every write of a table's rows checks, in
        # its transaction, that this node still owns the table, and writes nothing if not.
        self.fence: WriteFence | None = None
        try:
            self._executor.submit(self._start).result()
        except BaseException:
            self._executor.submit(self._stop)
            self._executor.shutdown(wait=True)
            raise

    # --- what each back end provides ------------------------------------------------------------
    @abstractmethod
    async def _open(self) -> Database:
        """Connect, bring the schema up to date (setting ``schema_version``), and return the connection."""

    @abstractmethod
    async def _close_db(self) -> None:
        """Close the connection (all writes are done)."""

    async def _before_job(self) -> None:  # noqa: B027 (nothing to do, unless a back end says otherwise)
        """Called before each job (PostgreSQL: connects again after the connection was lost)."""

    # --- plumbing -----------------------------------------------------------------------------------
    def _start(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._db = self._loop.run_until_complete(self._open())

    def _stop(self) -> None:
        if self._loop is None:
            return
        try:
            if self._db is not None:
                self._loop.run_until_complete(self._close_db())
        except Exception:
            log.exception("could not close the database")
        finally:
            self._db = None
            self._loop.close()
            self._loop = None

    def _do(self, fn: Callable[[Database], Any]) -> Any:
        """Run a job on the database thread (here): ``fn(db)``, awaited when it is a coroutine."""
        assert self._loop is not None
        return self._loop.run_until_complete(self._job(fn))

    async def _job(self, fn: Callable[[Database], Any]) -> Any:
        await self._before_job()
        try:
            return await self._attempt(fn)
        except Exception as exc:
            if not self._may_retry(exc):
                raise
        log.warning("the connection to the database was lost; running the job again on a new one")
        await self._before_job()
        return await self._attempt(fn)

    async def _attempt(self, fn: Callable[[Database], Any]) -> Any:
        assert self._db is not None
        result = fn(self._db)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _may_retry(self, error: Exception) -> bool:
        """Whether a job that failed with ``error`` lost its connection before anything of it was
        committed, so that running it again on a new connection cannot do it twice."""
        return False

    def _run(self, fn: Callable[[Database], Any], what: tuple[int | None, str] | None = None) -> Future[Any]:
        """Queue a job; ``what`` it writes (a table, or None, and a kind) counts as unwritten until it is done."""
        with self._lock:
            if self._closed:
                raise RuntimeError("storage is closed")
            self._hand_over_rows()  # actions saved before this job are written before it
            future = self._executor.submit(self._do, fn)
            if what is not None:
                self._unwritten[what] += 1
        if what is not None:
            future.add_done_callback(lambda _done: self._written(what, 1))
        return future

    def _written(self, what: tuple[int | None, str], count: int) -> None:
        with self._lock:
            self._unwritten[what] -= count
            if self._unwritten[what] <= 0:
                del self._unwritten[what]

    def unsaved(self) -> list[str]:
        """What is not written yet (queued, or being written), one line a table and one for the rest:
        ``table 7: 3 moves, 1 chat line``. Callable from any thread."""
        with self._lock:
            counts = dict(self._unwritten)
        tables = sorted({table for table, _ in counts if table is not None})
        lines = [f"table {table}: " + ", ".join(_count(n, kind) for (t, kind), n in sorted(counts.items(), key=str)
                                                 if t == table) for table in tables]
        rest = sum(n for (table, _), n in counts.items() if table is None)
        if rest:
            lines.append(_count(rest, "other write"))  # names, stats, moderation …
        return lines

    async def call(self, fn: Job[T]) -> T:
        """Run ``fn(db)`` on the database thread and wait for its result without blocking."""
        result: T = await asyncio.wrap_future(self._run(fn))
        return result

    def submit(self, fn: Callable[[Database], Any], on_saved: Callable[[], None] | None = None,
               what: tuple[int | None, str] = (None, "write")) -> None:
        """Queue ``fn(db)`` (a coroutine function, or a plain one) on the database thread; writes keep
        their order. A failure is logged. ``on_saved`` is called on this event loop once the write is
        committed (or failed). ``what``: the table it writes (or None) and what of it, for ``unsaved``."""
        loop = asyncio.get_running_loop() if on_saved is not None else None
        future = self._run(fn, what)
        future.add_done_callback(_log_failure)
        observer = self.write_observer
        if observer is not None:  # metrics: from queued to done
            queued = time.perf_counter()
            future.add_done_callback(lambda _done: observer(time.perf_counter() - queued))
        if loop is not None and on_saved is not None:
            future.add_done_callback(lambda _done: _tell([(loop, on_saved)]))

    def run_now(self, fn: Job[T]) -> T:
        """Run ``fn(db)`` on the database thread and wait for it (at start-up, before play)."""
        result: T = self._run(fn).result()
        return result

    def close(self) -> None:
        """Finish every queued write, then close. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._hand_over_rows()
            self._closed = True
        self._executor.submit(self._stop)
        self._executor.shutdown(wait=True)

    # --- tables in progress -------------------------------------------------------------------------
    def save_table(self, table_id: int, meta: dict[str, Any], reset_actions_of: int | None = None,
                   on_saved: Callable[[], None] | None = None) -> None:
        """Save a table's seats, status and game (``reset_actions_of``: the new game's number, whose
        are the only moves kept); ``on_saved`` is called on this event loop once it is committed."""
        text = json.dumps(meta)

        async def write(db: Database) -> None:
            async with db.transaction():
                if not await self._owns(db, table_id):
                    return
                await _write_table(db, table_id, text)
                if reset_actions_of is not None:
                    await db.run("DELETE FROM live_actions WHERE table_id = ? AND game_no != ?",
                                 (table_id, reset_actions_of))

        self.submit(write, on_saved, (table_id, "table save"))

    def save_action(self, table_id: int, game_no: int, n: int, seat: int, action: str,
                    on_saved: Callable[[], None] | None = None) -> None:
        """Save an action's row, in order with every other write. ``on_saved`` is called on this
        event loop once the row is committed (or its write failed, which is logged)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._closed:
                raise RuntimeError("storage is closed")
            self._rows.append((table_id, game_no, n, seat, action))
            self._unwritten[(table_id, "move")] += 1
            if on_saved is not None:
                self._on_saved.append((table_id, loop, on_saved))
            if self._hand_over_due:
                return
            wait = self._last_hand_over + ACTION_BATCH_SECONDS - time.monotonic()
            if wait <= 0:
                self._hand_over_rows()
                return
            self._hand_over_due = True
        loop.call_later(wait, self._hand_over_rows_later)

    def _hand_over_rows_later(self) -> None:
        with self._lock:
            if not self._closed:
                self._hand_over_rows()

    def _hand_over_rows(self) -> None:
        """Queue the waiting action rows as one job (the caller holds the lock)."""
        self._hand_over_due = False
        if self._rows:
            rows, self._rows = self._rows, []
            callbacks, self._on_saved = self._on_saved, []
            self._last_hand_over = time.monotonic()
            self._executor.submit(self._write_actions, rows, callbacks, time.perf_counter())

    def _write_actions(self, rows: list[tuple[int, int, int, int, str]],
                       callbacks: list[tuple[int, asyncio.AbstractEventLoop, Callable[[], None]]],
                       queued: float) -> None:
        lost: set[int] = set()  # tables another node owns now: their moves are neither written nor shown
        per_table = Counter(row[0] for row in rows)  # what ``unsaved`` counts, until done

        async def write(db: Database) -> None:
            nonlocal rows
            lost.clear()
            async with db.transaction():  # one transaction for the batch
                if self.fence is not None:
                    for table_id in sorted({row[0] for row in rows}):
                        if not await self.fence.check(db, table_id):
                            lost.add(table_id)
                    rows = [row for row in rows if row[0] not in lost]
                await db.run_many("INSERT INTO live_actions(table_id, game_no, n, seat, action) VALUES (?, ?, ?, ?, ?) "
                                  "ON CONFLICT(table_id, game_no, n) DO UPDATE SET seat = excluded.seat, "
                                  "action = excluded.action", rows)

        try:
            self._do(write)
        except Exception:
            log.exception("could not save %d actions", len(rows))
            if self.fence is not None:
                # One node of several: a move that could not be saved is not shown; the node lets the
                # table go, and it is taken over (by any node) from what was saved, once the database
                # answers again. Nobody saw the move: nothing anybody saw is lost.
                for table_id in {row[0] for row in rows}:
                    lost.add(table_id)
                    self.fence.let_go(table_id)
        finally:
            for table_id, count in per_table.items():
                self._written((table_id, "move"), count)
            if self.write_observer is not None:
                self.write_observer(time.perf_counter() - queued)
            _tell((loop, callback) for table_id, loop, callback in callbacks if table_id not in lost)

    async def _owns(self, db: Database, table_id: int) -> bool:
        """Whether this process may write the table's rows: always, unless it is one node of several
        and another node owns the table now (checked, and locked, in the caller's transaction)."""
        return self.fence is None or await self.fence.check(db, table_id)

    def drop_table(self, table_id: int) -> None:
        async def write(db: Database) -> None:
            async with db.transaction():
                if not await self._owns(db, table_id):
                    return
                await db.run("DELETE FROM live_tables WHERE id = ?", (table_id,))
                await db.run("DELETE FROM live_actions WHERE table_id = ?", (table_id,))
                await db.run("DELETE FROM live_chat WHERE table_id = ?", (table_id,))
                if self.fence is not None:
                    await db.run("DELETE FROM table_owners WHERE table_id = ?", (table_id,))
                    self.fence.epochs.pop(table_id, None)

        self.submit(write, what=(table_id, "table removal"))

    # --- chat ---------------------------------------------------------------------------------------
    def save_chat(self, table_id: int, line_id: int, sender: str, text: str, at: float, keep: int,
                  on_saved: Callable[[], None]) -> None:
        """Save a chat line, keeping the last ``keep`` of its chat, in order with every other write;
        ``on_saved`` is called on this event loop once it is committed (or its write failed)."""
        loop = asyncio.get_running_loop()
        if table_id == 0 and self.fence is not None:
            # One node of several: the lobby's chat is saved by save_lobby_line (server/ono99_server/cluster_chat.py).
            _tell([(loop, on_saved)])
            return
        kept = True

        async def write(db: Database) -> None:
            nonlocal kept
            async with db.transaction():
                kept = table_id == 0 or await self._owns(db, table_id)  # 0: the lobby's chat
                if not kept:
                    return
                await db.run("INSERT INTO live_chat(table_id, id, sender, text, at) VALUES (?, ?, ?, ?, ?) "
                             "ON CONFLICT(table_id, id) DO UPDATE SET sender = excluded.sender, "
                             "text = excluded.text, at = excluded.at", (table_id, line_id, sender, text, at))
                await db.run("DELETE FROM live_chat WHERE table_id = ? AND id <= ?", (table_id, line_id - keep))

        def saved(future: Future[Any]) -> None:  # on the database thread, the job done
            nonlocal kept
            if not future.cancelled() and future.exception() is not None:
                log.error("could not save a chat line", exc_info=future.exception())
                if self.fence is not None:  # one node of several: not shown, and the table is let go (above)
                    kept = False
                    self.fence.let_go(table_id)
            if kept:
                _tell([(loop, on_saved)])

        self._run(write, (table_id, "chat line")).add_done_callback(saved)

    async def save_lobby_line(self, sender: str, text: str, at: float, keep: int) -> int:
        """One node of several: save a lobby chat line under the next id of the lobby's chat of every
        node (taken in the transaction, one node at a time), keeping its last ``keep`` lines; that id."""
        async def write(db: Database) -> int:
            async with db.transaction():
                if self.kind == "postgresql":  # held until the commit: no two nodes take one id
                    await db.row(f"SELECT pg_advisory_xact_lock({LOBBY_CHAT_LOCK})")
                row = await db.row("SELECT COALESCE(MAX(id), 0) + 1 FROM live_chat WHERE table_id = 0")
                assert row is not None
                line_id = int(row[0])
                await db.run("INSERT INTO live_chat(table_id, id, sender, text, at) VALUES (0, ?, ?, ?, ?)",
                             (line_id, sender, text, at))
                await db.run("DELETE FROM live_chat WHERE table_id = 0 AND id <= ?", (line_id - keep,))
            return line_id

        return await self.call(write)

    def load_chat(self, table_id: int) -> list[tuple[str, str, float, int]]:
        return self.run_now(lambda db: _read_chat(db, table_id))

    def load_tables(self) -> list[SavedTable]:
        async def read(db: Database) -> list[SavedTable]:
            out = []
            for table_id, meta_text in await db.rows("SELECT id, meta FROM live_tables ORDER BY id"):
                meta = json.loads(meta_text)
                rows = await db.rows("SELECT seat, action FROM live_actions WHERE table_id = ? AND game_no = ? "
                                     "ORDER BY n", (table_id, meta.get("game_no", 0)))
                out.append(SavedTable(int(table_id), meta, [(int(s), str(a)) for s, a in rows],
                                      await _read_chat(db, table_id)))
            return out

        return self.run_now(read)

    def next_table_id(self) -> int:
        async def read(db: Database) -> int:
            row = await db.row("SELECT value FROM meta WHERE key = 'next_table_id'")
            live = await db.row("SELECT COALESCE(MAX(id), 0) + 1 FROM live_tables")
            assert live is not None
            return max(int(row[0]) if row else 1, int(live[0]))

        return self.run_now(read)

    def remember_next_table_id(self, value: int) -> None:
        self.submit(lambda db: db.run("INSERT INTO meta(key, value) VALUES ('next_table_id', ?) "
                                      "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(value),)))

    # --- finished games -----------------------------------------------------------------------------
    def save_game(self, table_id: int, record: dict[str, Any], finished_at: float,
                  results: list[tuple[str, bool]],
                  then: Callable[[Database, int], Awaitable[None]] | None = None,
                  viewers: Collection[str] | None = None, table_meta: dict[str, Any] | None = None,
                  unless_recorded: bool = False) -> None:
        """Store a finished game's record and count it in the stats of each identity of ``results``
        (identity, whether a win is credited); ``then(db, game_id)`` runs in the same transaction
        (the game's ratings, server/ono99_server/ratings.py). ``viewers``: a private table's game, whose record
        only they may read (``viewer_keys``); None: a public one. ``table_meta``: the table as it is
        with the game over, saved in the same transaction, so that a crash never leaves a game
        recorded at a table still saved as playing it. ``unless_recorded``: nothing is written if
        the table's last stored game is this one (same seed): a game finished again after a restart
        (a database of a version that saved the two apart) is recorded and rated once."""
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        edition = record["edition"]
        private = viewers is not None
        allowed = sorted(set(viewers or ()))
        meta_text = json.dumps(table_meta) if table_meta is not None else None

        async def write(db: Database) -> None:
            async with db.transaction():
                if not await self._owns(db, table_id):
                    return
                if meta_text is not None:
                    await _write_table(db, table_id, meta_text)
                seed = record.get("seed")
                if unless_recorded and seed is not None and await _last_seed(db, table_id) == seed:
                    log.info("table %d: its finished game was recorded already", table_id)
                    return
                game_id = await db.insert(
                    "INSERT INTO games(table_id, edition, finished_at, record, private) VALUES (?, ?, ?, ?, ?)",
                    (table_id, edition, finished_at, text, int(private)))
                if allowed:
                    await db.run_many("INSERT INTO game_viewers(game_id, viewer) VALUES (?, ?) ON CONFLICT DO NOTHING",
                                      [(game_id, viewer) for viewer in allowed])
                for identity, won in results:
                    await db.run("INSERT INTO player_stats(identity, edition, games, wins) VALUES (?, ?, 1, ?) "
                                 "ON CONFLICT(identity, edition) DO UPDATE SET games = player_stats.games + 1, "
                                 "wins = player_stats.wins + excluded.wins", (identity, edition, int(won)))
                if then is not None:
                    await then(db, game_id)

        self.submit(write, what=(table_id, "finished game"))

    # --- names ---------------------------------------------------------------------------------------
    def load_names(self) -> list[tuple[str, str]]:
        """Every (identity, name), the oldest claim first."""
        async def read(db: Database) -> list[tuple[str, str]]:
            return [(str(i), str(n)) for i, n in await db.rows("SELECT identity, name FROM names ORDER BY claimed_at")]

        return self.run_now(read)

    def save_name(self, identity: str, name: str) -> None:
        """Save a claim of a name. Its time decides which of two claims of names that look alike keeps
        the name (the older, at the next start): on a database that several nodes share it is the
        database's clock, not this node's, which may be wrong."""
        self.submit(lambda db: self._write_name(db, identity, name))

    async def _write_name(self, db: Database, identity: str, name: str) -> None:
        params: tuple[str | float, ...]
        if self.clock_sql is None:
            claimed_at, params = "?", (identity, name, time.time())
        else:
            claimed_at, params = self.clock_sql, (identity, name)
        await db.run(f"INSERT INTO names(identity, name, claimed_at) VALUES (?, ?, {claimed_at}) "
                     "ON CONFLICT(identity) DO UPDATE SET name = excluded.name, claimed_at = excluded.claimed_at",
                     params)

    async def claim_name(self, identity: str, name: str, keys: Collection[str]) -> tuple[str, str] | None:
        """Make ``name`` (whose keys, ``names.name_keys``, are ``keys``) the name of ``identity``, in one
        transaction that every node's claims pass through: None, or (the name, the identity) of another
        claim that holds one of the keys (nothing is written then)."""
        async def write(db: Database) -> tuple[str, str] | None:
            marks = ", ".join("?" * len(keys))
            try:
                async with db.transaction():
                    await db.run("DELETE FROM name_keys WHERE identity = ?", (identity,))
                    await db.run_many("INSERT INTO name_keys(key, identity) VALUES (?, ?) ON CONFLICT(key) DO NOTHING",
                                      [(key, identity) for key in keys])
                    held = await db.row("SELECT n.name, n.identity FROM name_keys k JOIN names n ON n.identity = "
                                        f"k.identity WHERE k.key IN ({marks}) AND k.identity <> ?", (*keys, identity))
                    if held is not None:
                        raise _NameHeld(str(held[0]), str(held[1]))
                    await self._write_name(db, identity, name)
            except _NameHeld as taken:
                return taken.name, taken.identity
            return None

        return await self.call(write)

    async def name_claims(self, keys: Collection[str], identity: str | None) -> list[tuple[str, str]]:
        """The claims, as they stand, that hold one of ``keys`` or are ``identity``'s: (identity, name)."""
        async def read(db: Database) -> list[tuple[str, str]]:
            marks = ", ".join("?" * len(keys)) or "NULL"
            rows = await db.rows("SELECT DISTINCT n.identity, n.name FROM names n JOIN name_keys k ON "
                                 f"k.identity = n.identity WHERE k.key IN ({marks}) OR k.identity = ?",
                                 (*keys, identity or ""))
            return [(str(i), str(n)) for i, n in rows]

        return await self.call(read)

    def keep_name_keys(self, keys: Sequence[tuple[str, str]]) -> None:
        """Record (key, identity) for claims made before each name's keys were kept (at the start)."""
        self.run_now(lambda db: db.run_many("INSERT INTO name_keys(key, identity) VALUES (?, ?) "
                                            "ON CONFLICT(key) DO NOTHING", keys))


    # --- names' owners last seen (server/ono99_server/name_claims.py releases one whose owner never came back)
    def load_names_seen(self) -> dict[str, float]:
        """When each name's identity was last seen (Unix time): its last hello, else its claim."""
        async def read(db: Database) -> dict[str, float]:
            rows = await db.rows("SELECT n.identity, COALESCE(s.seen_at, n.claimed_at) FROM names n "
                                 "LEFT JOIN names_seen s ON s.identity = n.identity")
            return {str(identity): float(at) for identity, at in rows}

        return self.run_now(read)

    def save_name_seen(self, identity: str, at: float) -> None:
        self.submit(lambda db: db.run("INSERT INTO names_seen(identity, seen_at) VALUES (?, ?) "
                                      "ON CONFLICT(identity) DO UPDATE SET seen_at = excluded.seen_at", (identity, at)))

    def forget_name(self, identity: str) -> None:
        """``identity`` owns no name any more."""
        async def forget(db: Database) -> None:
            await db.run("DELETE FROM names WHERE identity = ?", (identity,))
            await db.run("DELETE FROM name_keys WHERE identity = ?", (identity,))
            await db.run("DELETE FROM names_seen WHERE identity = ?", (identity,))

        self.submit(forget)


class _NameHeld(Exception):
    """A name's key is another identity's: the claim's transaction is rolled back."""

    def __init__(self, name: str, identity: str) -> None:
        super().__init__(name)
        self.name = name
        self.identity = identity


async def _write_table(db: Database, table_id: int, meta_text: str) -> None:
    await db.run("INSERT INTO live_tables(id, meta) VALUES (?, ?) "
                 "ON CONFLICT(id) DO UPDATE SET meta = excluded.meta", (table_id, meta_text))


async def _last_seed(db: Database, table_id: int) -> object:
    """The seed of the last game stored from a table (None if it has none)."""
    row = await db.row("SELECT record FROM games WHERE table_id = ? ORDER BY id DESC LIMIT 1", (table_id,))
    if row is None:
        return None
    try:
        record = json.loads(row[0])
    except ValueError:
        return None
    return record.get("seed") if isinstance(record, dict) else None


async def _read_chat(db: Database, table_id: int) -> list[tuple[str, str, float, int]]:
    rows = await db.rows("SELECT sender, text, at, id FROM live_chat WHERE table_id = ? ORDER BY id", (table_id,))
    return [(str(s), str(t), float(a), int(i)) for s, t, a, i in rows]


def _tell(callbacks: Iterable[tuple[asyncio.AbstractEventLoop, Callable[[], None]]]) -> None:
    for loop, callback in callbacks:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody to tell
            loop.call_soon_threadsafe(callback)


def _log_failure(future: Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("a database write failed", exc_info=future.exception())


# --- SQLite --------------------------------------------------------------------------------------------
SQLITE_SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    table_id INTEGER,
    edition TEXT NOT NULL,
    finished_at REAL NOT NULL,
    record TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0  -- played at a private table: its record is its viewers' only
);
CREATE TABLE IF NOT EXISTS game_viewers (
    game_id INTEGER NOT NULL,
    viewer TEXT NOT NULL,  -- a player's or the host's identity, or token:HASH of a guest's resume token
    PRIMARY KEY (game_id, viewer)
);
CREATE TABLE IF NOT EXISTS stats (
    name TEXT NOT NULL,
    edition TEXT NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (name, edition)
);
CREATE TABLE IF NOT EXISTS names (
    identity TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    claimed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS player_stats (
    identity TEXT NOT NULL,
    edition TEXT NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (identity, edition)
);
CREATE TABLE IF NOT EXISTS live_tables (
    id INTEGER PRIMARY KEY,
    meta TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS live_actions (
    table_id INTEGER NOT NULL,
    game_no INTEGER NOT NULL,
    n INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (table_id, game_no, n)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS live_chat (
    table_id INTEGER NOT NULL,
    id INTEGER NOT NULL,
    sender TEXT NOT NULL,
    text TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, id)
);
CREATE TABLE IF NOT EXISTS ratings (
    identity TEXT NOT NULL,  -- a key fingerprint, or bot:LEVEL for the bots of a level
    edition TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (identity, edition)
);
CREATE TABLE IF NOT EXISTS rating_history (
    identity TEXT NOT NULL,
    edition TEXT NOT NULL,
    game_id INTEGER NOT NULL,
    place INTEGER NOT NULL,
    won INTEGER NOT NULL,
    credited INTEGER NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (identity, game_id)
);
"""


def _sqlite_schema_1(db: sqlite3.Connection) -> None:
    """The schema as it was before versions were kept, made or completed. Games stored before
    tables' privacy was kept are public: they were open to anyone then, and nothing tells which
    were private."""
    db.executescript(SQLITE_SCHEMA_1)
    columns = {str(row[1]) for row in db.execute("PRAGMA table_info(games)")}
    if "private" not in columns:
        db.execute("ALTER TABLE games ADD COLUMN private INTEGER NOT NULL DEFAULT 0")


# The schema versions, in order: step N brings a database of version N - 1 to version N. The
# version is kept in the file's user_version; 0 is a new file or one of before versions were kept
# (step 1 takes either as it is). A step is written so that running it again is harmless.
SQLITE_SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS moderation_bans (
    kind TEXT NOT NULL,  -- identity or address
    value TEXT NOT NULL,  -- a key fingerprint, or an address or network (CIDR)
    reason TEXT NOT NULL,
    ends_at REAL,  -- Unix time; NULL: for good
    by_identity TEXT NOT NULL,  -- the operator's identity
    at REAL NOT NULL,
    PRIMARY KEY (kind, value)
);
CREATE TABLE IF NOT EXISTS moderation_chat_mutes (
    target TEXT PRIMARY KEY,  -- an identity, or name:KEY of a guest's name
    reason TEXT NOT NULL,
    ends_at REAL,
    by_identity TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS moderation_name_locks (
    identity TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    by_identity TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS moderation_ignores (
    kind TEXT NOT NULL,  -- mute (their chat is hidden) or block (kept off the owner's private tables)
    owner TEXT NOT NULL,  -- an identity, or token:HASH of a guest's resume token
    target TEXT NOT NULL,  -- an identity, or name:KEY of a guest's name
    target_name TEXT NOT NULL,  -- the name the target had then
    at REAL NOT NULL,
    PRIMARY KEY (kind, owner, target)
);
CREATE TABLE IF NOT EXISTS moderation_reports (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    reporter TEXT NOT NULL,
    reporter_name TEXT NOT NULL,
    target TEXT NOT NULL,
    target_name TEXT NOT NULL,
    reason TEXT NOT NULL,
    chat TEXT NOT NULL,  -- JSON: the last lines of the lobby's chat and of the reporter's table
    game TEXT,  -- JSON: the record so far of the game at the reporter's table, if one runs
    resolved_by TEXT  -- the operator who closed it
);
CREATE TABLE IF NOT EXISTS moderation_log (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    operator TEXT NOT NULL,
    operator_name TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moderation_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _sqlite_schema_2(db: sqlite3.Connection) -> None:
    """Running a public host (server/ono99_server/moderation.py): bans, operators' chat mutes and name locks,
    players' mutes and blocks, reports, the operators' audit log, the message of the day."""
    db.executescript(SQLITE_SCHEMA_2)


# Each key of a claimed name (names.name_keys) and whose it is: no two identities hold one name, or two that
# look alike; of two rows of one name kept from before, the older claim stays.
NAME_KEYS = (
    "DELETE FROM names WHERE EXISTS (SELECT 1 FROM names b WHERE b.name = names.name AND "
    "(b.claimed_at < names.claimed_at OR (b.claimed_at = names.claimed_at AND b.identity < names.identity)))",
    "CREATE UNIQUE INDEX IF NOT EXISTS names_name ON names (name)",
    "CREATE TABLE IF NOT EXISTS name_keys (key TEXT PRIMARY KEY, identity TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS name_keys_identity ON name_keys (identity)",
)


def _sqlite_schema_3(db: sqlite3.Connection) -> None:
    """A name is one identity's: the keys of claimed names (``NAME_KEYS``)."""
    for statement in NAME_KEYS:
        db.execute(statement)



SQLITE_SCHEMA_4 = """
CREATE TABLE IF NOT EXISTS names_seen (
    identity TEXT PRIMARY KEY,
    seen_at REAL NOT NULL  -- Unix time of the identity's last hello (at most a day old while it plays)
);
"""


def _sqlite_schema_4(db: sqlite3.Connection) -> None:
    """When each name's owner was last seen: a name whose owner never comes back is released."""
    db.executescript(SQLITE_SCHEMA_4)


SQLITE_SCHEMA_5 = """
CREATE TABLE IF NOT EXISTS arenas (
    id INTEGER PRIMARY KEY,
    meta TEXT NOT NULL  -- the arena and its standings (ono99_kernel/core/arena.py, Arena.to_mapping)
);
CREATE TABLE IF NOT EXISTS arena_games (
    arena INTEGER NOT NULL,
    game INTEGER NOT NULL,  -- the arena's game number
    table_id INTEGER NOT NULL,
    players TEXT NOT NULL,  -- the players seated, best standing first (JSON)
    ranking TEXT,  -- once counted: the game's ranking by name, best first (JSON)
    points TEXT,  -- once counted: the points each player earned (JSON)
    counted INTEGER,  -- once counted: its order among the arena's counted games
    game_id INTEGER,  -- once counted: its record (games.id)
    PRIMARY KEY (arena, game)
);
"""


def _sqlite_schema_5(db: sqlite3.Connection) -> None:
    """Arenas (server/ono99_server/arena.py): each arena, and each of its games with its result."""
    db.executescript(SQLITE_SCHEMA_5)


SQLITE_MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_sqlite_schema_1, _sqlite_schema_2,
                                                                  _sqlite_schema_3, _sqlite_schema_4,
                                                                  _sqlite_schema_5]


def migrate_sqlite(db: sqlite3.Connection) -> int:
    """Bring a database up to the newest schema version; that version. Refuses a newer one."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    latest = len(SQLITE_MIGRATIONS)
    if version > latest:
        raise StorageError(f"the database is of schema version {version}, made by a newer ono99; this one knows "
                           f"versions up to {latest}: update ono99")
    for number in range(version + 1, latest + 1):
        SQLITE_MIGRATIONS[number - 1](db)
        db.execute(f"PRAGMA user_version = {number}")
    return latest


class SqliteDatabase:
    """``Database`` over a sqlite3 connection in autocommit mode (transactions are explicit)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return self.connection.execute(sql, params).fetchall()

    async def row(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        found: Row | None = self.connection.execute(sql, params).fetchone()
        return found

    async def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.connection.execute(sql, params)

    async def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.connection.executemany(sql, rows)

    async def insert(self, sql: str, params: Sequence[Any]) -> int:
        cursor = self.connection.execute(sql, params)
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def transaction(self) -> AbstractAsyncContextManager[object]:
        return self._transaction()

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[object]:
        if self.connection.in_transaction:  # inside another: part of it
            yield self
            return
        self.connection.execute("BEGIN")
        try:
            yield self
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")


class SqliteStorage(Storage):
    """One SQLite file (WAL mode), used from the store's thread."""

    kind = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        super().__init__()

    async def _open(self) -> Database:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                self.schema_version = migrate_sqlite(db)
            except BaseException:
                db.close()
                raise
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot open the database {self.path}: {exc}") from exc
        return SqliteDatabase(db)

    async def _close_db(self) -> None:
        assert isinstance(self._db, SqliteDatabase)
        self._db.connection.close()


# --- choosing a store ------------------------------------------------------------------------------
def is_database_url(text: str) -> bool:
    return text.startswith(URL_SCHEMES)


def database_location(text: str) -> Path | str:
    """What a ``--db`` names: a PostgreSQL database (its URL, as given) or an SQLite file."""
    return text if is_database_url(text) else Path(text)


def shown_url(url: str) -> str:
    """The URL with its password, if any, replaced by ``***`` (for the banner and the logs)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if parts.password is None and not any(key == "password" for key, _ in query):
        return url
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, hostport = netloc.rpartition("@")
        netloc = f"{userinfo.split(':', 1)[0]}:***@{hostport}"
    shown = urlencode([(k, "***" if k == "password" else v) for k, v in query], safe="/*")
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{shown}" if shown else "") + \
        (f"#{parts.fragment}" if parts.fragment else "")


def viewer_keys(identity: str | None, token_hash: str | None) -> list[str]:
    """How ``game_viewers`` names a person: by their identity, else (a guest) by their resume token's hash."""
    if identity is not None:
        return [identity]
    return [f"token:{token_hash}"] if token_hash else []


def default_db_path() -> Path:
    """Where a server keeps its database unless told: ``ono99.db`` in the data directory
    (``$ONO99_DATA_DIR``, else the user's data directory), where ``ono99 connect`` keeps its key."""
    from ono99_kernel.identity import data_dir

    return data_dir() / "ono99.db"


def export_sqlite_records(path: Path) -> list[str]:
    """Every stored game record of an SQLite file, as JSON Lines text lines, oldest first."""
    if not path.exists():
        raise FileNotFoundError(path)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute("SELECT record FROM games ORDER BY id")]
    finally:
        db.close()
