"""SQLite persistence: finished game records, player stats, and tables in progress.

Names and stats belong to identities (a player's key fingerprint): ``names`` holds the one name
each identity owns, ``player_stats`` its games and wins. The ``stats`` table of earlier versions,
counted by name (whoever used a name), is kept as it was and no longer read.

All database work runs on one dedicated thread, in order, so the event loop never blocks on disk.
Tables in progress are stored as their setup plus every action taken; a restart replays them
through the rules engine with the same seed, which rebuilds hands, draw pile and turn exactly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger("ono99.storage")
ACTION_BATCH_SECONDS = 0.01  # action rows go to the database thread at most this often

SCHEMA = """
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


@dataclass(frozen=True, slots=True)
class SavedTable:
    id: int
    meta: dict[str, Any]
    actions: list[tuple[int, str]]  # (seat, action code) of the current game, in order
    chat: list[tuple[str, str, float, int]]  # the kept chat lines: (sender, text, at, id), oldest first


class Storage:
    """One SQLite file, used from one worker thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ono99-db")
        self._db: sqlite3.Connection | None = None
        self._closed = False
        self._lock = threading.Lock()
        # Action rows not yet handed to the database thread, and what to call once they are saved.
        # Rows go to it at most once per ACTION_BATCH_SECONDS, together, as one job and one
        # transaction (under load, a commit per action was most of its work); a row that comes
        # after a quiet moment goes at once. Any other write takes the waiting rows before it.
        self._rows: list[tuple[int, int, int, int, str]] = []
        self._on_saved: list[tuple[asyncio.AbstractEventLoop, Callable[[], None]]] = []
        self._last_hand_over = -ACTION_BATCH_SECONDS
        self._hand_over_due = False
        self.write_observer: Callable[[float], None] | None = None  # told each write job's seconds (metrics)
        self._run(self._open).result()

    # --- plumbing ---------------------------------------------------------------------------------
    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(SCHEMA)
        migrate(db)
        self._db = db

    def _run(self, fn: Callable[[], T]) -> Future[T]:
        with self._lock:
            if self._closed:
                raise RuntimeError("storage is closed")
            self._hand_over_rows()  # actions saved before this job are written before it
            return self._executor.submit(fn)

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(db)`` on the database thread and wait for its result without blocking."""
        return await asyncio.wrap_future(self._run(lambda: fn(self._conn)))

    def submit(self, fn: Callable[[sqlite3.Connection], Any]) -> None:
        """Queue ``fn(db)`` on the database thread; writes keep their order."""
        queued = time.perf_counter()

        def write() -> None:
            try:
                fn(self._conn)
            finally:
                if self.write_observer is not None:
                    self.write_observer(time.perf_counter() - queued)

        self._run(write)

    @property
    def _conn(self) -> sqlite3.Connection:
        assert self._db is not None
        return self._db

    def close(self) -> None:
        """Finish every queued write, then close. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._hand_over_rows()
            self._closed = True
        self._executor.submit(self._close_db)
        self._executor.shutdown(wait=True)

    def _close_db(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # --- tables in progress -------------------------------------------------------------------------
    def save_table(self, table_id: int, meta: dict[str, Any], reset_actions_of: int | None = None) -> None:
        text = json.dumps(meta)

        def write(db: sqlite3.Connection) -> None:
            with db:
                db.execute("INSERT INTO live_tables(id, meta) VALUES (?, ?) "
                           "ON CONFLICT(id) DO UPDATE SET meta = excluded.meta", (table_id, text))
                if reset_actions_of is not None:
                    db.execute("DELETE FROM live_actions WHERE table_id = ? AND game_no != ?",
                               (table_id, reset_actions_of))

        self.submit(write)

    def save_action(self, table_id: int, game_no: int, n: int, seat: int, action: str,
                    on_saved: Callable[[], None] | None = None) -> None:
        """Save an action's row, in order with every other write. ``on_saved`` is called on this
        event loop once the row is committed (or its write failed, which is logged)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._closed:
                raise RuntimeError("storage is closed")
            self._rows.append((table_id, game_no, n, seat, action))
            if on_saved is not None:
                self._on_saved.append((loop, on_saved))
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
                       callbacks: list[tuple[asyncio.AbstractEventLoop, Callable[[], None]]], queued: float) -> None:
        try:
            db = self._conn
            db.execute("BEGIN")  # the connection is in autocommit mode: one transaction for the batch
            try:
                db.executemany("INSERT OR REPLACE INTO live_actions(table_id, game_no, n, seat, action) "
                               "VALUES (?, ?, ?, ?, ?)", rows)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except Exception:
            log.exception("could not save %d actions", len(rows))
        finally:
            if self.write_observer is not None:
                self.write_observer(time.perf_counter() - queued)
            for loop, callback in callbacks:
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody to tell
                    loop.call_soon_threadsafe(callback)

    def drop_table(self, table_id: int) -> None:
        def write(db: sqlite3.Connection) -> None:
            with db:
                db.execute("DELETE FROM live_tables WHERE id = ?", (table_id,))
                db.execute("DELETE FROM live_actions WHERE table_id = ?", (table_id,))
                db.execute("DELETE FROM live_chat WHERE table_id = ?", (table_id,))

        self.submit(write)

    # --- chat ---------------------------------------------------------------------------------------
    def save_chat(self, table_id: int, line_id: int, sender: str, text: str, at: float, keep: int,
                  on_saved: Callable[[], None]) -> None:
        """Save a chat line, keeping the last ``keep`` of its chat, in order with every other write;
        ``on_saved`` is called on this event loop once it is committed (or its write failed)."""
        loop = asyncio.get_running_loop()

        def write() -> None:
            try:
                with self._conn as db:
                    db.execute("INSERT OR REPLACE INTO live_chat(table_id, id, sender, text, at) "
                               "VALUES (?, ?, ?, ?, ?)",
                               (table_id, line_id, sender, text, at))
                    db.execute("DELETE FROM live_chat WHERE table_id = ? AND id <= ?", (table_id, line_id - keep))
            except Exception:
                log.exception("could not save a chat line")
            finally:
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody to tell
                    loop.call_soon_threadsafe(on_saved)

        self._run(write)

    def load_chat(self, table_id: int) -> list[tuple[str, str, float, int]]:
        return self._run(lambda: self._read_chat(self._conn, table_id)).result()

    @staticmethod
    def _read_chat(db: sqlite3.Connection, table_id: int) -> list[tuple[str, str, float, int]]:
        rows = db.execute("SELECT sender, text, at, id FROM live_chat WHERE table_id = ? ORDER BY id", (table_id,))
        return [(str(s), str(t), float(a), int(i)) for s, t, a, i in rows]

    def load_tables(self) -> list[SavedTable]:
        def read(db: sqlite3.Connection) -> list[SavedTable]:
            out = []
            for table_id, meta_text in db.execute("SELECT id, meta FROM live_tables ORDER BY id"):
                meta = json.loads(meta_text)
                rows = db.execute(
                    "SELECT seat, action FROM live_actions WHERE table_id = ? AND game_no = ? ORDER BY n",
                    (table_id, meta.get("game_no", 0))).fetchall()
                out.append(SavedTable(table_id, meta, [(int(s), str(a)) for s, a in rows],
                                      self._read_chat(db, table_id)))
            return out

        return self._run(lambda: read(self._conn)).result()

    def next_table_id(self) -> int:
        def read(db: sqlite3.Connection) -> int:
            row = db.execute("SELECT value FROM meta WHERE key = 'next_table_id'").fetchone()
            live = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM live_tables").fetchone()[0]
            return max(int(row[0]) if row else 1, int(live))

        return self._run(lambda: read(self._conn)).result()

    def remember_next_table_id(self, value: int) -> None:
        self.submit(lambda db: db.execute(
            "INSERT INTO meta(key, value) VALUES ('next_table_id', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(value),)))

    # --- finished games -----------------------------------------------------------------------------
    def save_game(self, table_id: int, record: dict[str, Any], finished_at: float,
                  results: list[tuple[str, bool]],
                  then: Callable[[sqlite3.Connection, int], None] | None = None,
                  viewers: Collection[str] | None = None) -> None:
        """Store a finished game's record and count it in the stats of each identity of ``results``
        (identity, whether a win is credited); ``then(db, game_id)`` runs in the same transaction
        (the game's ratings, server/ratings.py). ``viewers``: a private table's game, whose record
        only they may read (``viewer_keys``); None: a public one."""
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        edition = record["edition"]
        private = viewers is not None
        allowed = sorted(set(viewers or ()))

        def write(db: sqlite3.Connection) -> None:
            with db:
                cursor = db.execute("INSERT INTO games(table_id, edition, finished_at, record, private) "
                                    "VALUES (?, ?, ?, ?, ?)", (table_id, edition, finished_at, text, int(private)))
                db.executemany("INSERT OR IGNORE INTO game_viewers(game_id, viewer) VALUES (?, ?)",
                               [(cursor.lastrowid, viewer) for viewer in allowed])
                for identity, won in results:
                    db.execute("INSERT INTO player_stats(identity, edition, games, wins) VALUES (?, ?, 1, ?) "
                               "ON CONFLICT(identity, edition) DO UPDATE SET games = games + 1, wins = wins + ?",
                               (identity, edition, int(won), int(won)))
                if then is not None:
                    assert cursor.lastrowid is not None
                    then(db, cursor.lastrowid)

        self.submit(write)

    async def leaderboard(self, edition: str | None, limit: int = 20) -> dict[str, Any]:
        """The identities with the highest conservative rating, under their names, and the bots'
        ratings (server/ratings.py)."""
        from .ratings import leaderboard

        return await self.call(lambda db: leaderboard(db, edition, limit))

    def run_now(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(db)`` on the database thread and wait for it (at start-up, before play)."""
        return self._run(lambda: fn(self._conn)).result()

    # --- names ---------------------------------------------------------------------------------------
    def load_names(self) -> list[tuple[str, str]]:
        """Every (identity, name), the oldest claim first."""
        def read(db: sqlite3.Connection) -> list[tuple[str, str]]:
            return [(str(i), str(n)) for i, n in db.execute("SELECT identity, name FROM names ORDER BY claimed_at")]

        return self._run(lambda: read(self._conn)).result()

    def save_name(self, identity: str, name: str) -> None:
        claimed_at = time.time()
        self.submit(lambda db: db.execute(
            "INSERT INTO names(identity, name, claimed_at) VALUES (?, ?, ?) "
            "ON CONFLICT(identity) DO UPDATE SET name = excluded.name, claimed_at = excluded.claimed_at",
            (identity, name, claimed_at)))


def migrate(db: sqlite3.Connection) -> None:
    """Bring a database of an earlier version up to ``SCHEMA``. Games stored before tables' privacy
    was kept are public: they were open to anyone then, and nothing tells which were private."""
    columns = {str(row[1]) for row in db.execute("PRAGMA table_info(games)")}
    if "private" not in columns:
        db.execute("ALTER TABLE games ADD COLUMN private INTEGER NOT NULL DEFAULT 0")


def viewer_keys(identity: str | None, token_hash: str | None) -> list[str]:
    """How ``game_viewers`` names a person: by their identity, else (a guest) by their resume token's hash."""
    if identity is not None:
        return [identity]
    return [f"token:{token_hash}"] if token_hash else []


def default_db_path() -> Path:
    """Where a server keeps its database unless told: ``ono99.db`` in the data directory
    (``$ONO99_DATA_DIR``, else the user's data directory), where ``ono99 connect`` keeps its key."""
    from ono99_tui.identity import data_dir

    return data_dir() / "ono99.db"


def export_records(path: Path) -> list[str]:
    """Every stored game record of a database file, as JSON Lines text lines, oldest first."""
    if not path.exists():
        raise FileNotFoundError(path)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute("SELECT record FROM games ORDER BY id")]
    finally:
        db.close()
