"""Which node owns which table: leases with fencing numbers, kept in PostgreSQL.

When several ``ono99 serve`` processes (nodes) share one PostgreSQL database (``--cluster``), each
table in progress has one owner at a time, a row of ``table_owners``: the owning node, an epoch
(the fencing number, one more at each change of owner) and ``lease_until``. The owner renews its
leases every third of the lease; another node takes a table whose lease ran out with one
``UPDATE … SET epoch = epoch + 1 … WHERE lease_until < now()`` (one winner) and loads it, in the
same transaction, as a restart does.

Every write of a table's rows checks, in its own transaction, that this node still holds the
table's epoch (``SELECT … FOR SHARE`` of its owner row): a taker's UPDATE waits for a write under
way, and a write after a take-over finds another node's name and writes nothing. So a node that
was paused (SIGSTOP, a long GC, a frozen VM) and resumes after its lease was taken can write
nothing; it hears that it lost the table and lets its players go. Times are the database's own
``now()``, never a node's clock, so a node whose clock is wrong neither keeps a lease too long nor
takes one too early.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Iterable

from .storage import Database, SavedTable, _read_chat

log = logging.getLogger("ono99.lease")
ID_BLOCK = 16  # table ids a node reserves at once (one round trip for that many new tables)


class Fence:
    """This node's hold on its tables (table id → epoch), checked in each write's transaction.

    The epochs are set on the event loop (a new table) and on the database thread (a take-over);
    ``lost`` is called on the event loop with the id of each table this node found it lost."""

    def __init__(self, node: str, lease_seconds: float, lost: Callable[[int], None]) -> None:
        self.node = node
        self.lease_seconds = lease_seconds
        self.epochs: dict[int, int] = {}
        # Tables whose owner row this node wrote (claimed or taken over), kept on the database thread:
        # a new table is in ``epochs`` from the moment its id is given, but its claim may still wait
        # in the queue behind a renewal, which must not take the missing row for a loss.
        self.claimed: set[int] = set()
        self._lost = lost
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def holds_locally(self, table_id: int) -> bool:
        return table_id in self.epochs

    async def check(self, db: Database, table_id: int) -> bool:
        """Whether this node still owns the table (locks its owner row until the transaction ends,
        so no take-over can slip in before the write commits); tells ``lost`` when not."""
        epoch = self.epochs.get(table_id)
        row = await db.row("SELECT node, epoch FROM table_owners WHERE table_id = ? FOR SHARE", (table_id,))
        if epoch is not None and row is not None and row[0] == self.node and int(row[1]) == epoch:
            return True
        if epoch is not None:
            self.let_go(table_id)
        return False

    def let_go(self, table_id: int) -> None:
        """Forget the table here and tell the event loop (from any thread)."""
        self.claimed.discard(table_id)
        if self.epochs.pop(table_id, None) is None:
            return
        log.warning("table %d: owned by another node now; this node writes nothing more of it", table_id)
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody to tell
                self._loop.call_soon_threadsafe(self._lost, table_id)

    # --- jobs for the database thread -----------------------------------------------------------
    def _until(self) -> str:
        return f"now() + {float(self.lease_seconds)!r} * interval '1 second'"

    async def claim(self, db: Database, table_id: int) -> None:
        """A new table's owner row (its id is new: nobody else has one)."""
        await db.run(f"INSERT INTO table_owners(table_id, node, epoch, lease_until) VALUES (?, ?, 1, {self._until()}) "
                     "ON CONFLICT(table_id) DO NOTHING", (table_id, self.node))
        self.claimed.add(table_id)

    async def renew(self, db: Database) -> list[int]:
        """Renew every lease this node holds; the tables it turns out to have lost."""
        held = {table_id: epoch for table_id, epoch in list(self.epochs.items()) if table_id in self.claimed}
        if not held:
            return []
        # Only the tables this process holds: a node started again under its name must not renew
        # the leases of tables it has not loaded (they are taken over, by it or another node).
        rows = await db.rows(f"UPDATE table_owners SET lease_until = {self._until()} WHERE node = ? "
                             "AND table_id = ANY(?) RETURNING table_id, epoch", (self.node, list(held)))
        still = {int(t): int(e) for t, e in rows}
        lost = [table_id for table_id, epoch in held.items() if still.get(table_id) != epoch]
        for table_id in lost:
            self.let_go(table_id)
        return lost

    async def take_over(self, db: Database, limit: int) -> list[SavedTable]:
        """Take the tables whose lease ran out (and tables nobody owns, saved by a server of before
        nodes), at most ``limit``; each is loaded in the transaction that takes it."""
        candidates = await db.rows(
            "SELECT table_id, epoch FROM table_owners WHERE lease_until < now() "
            "UNION ALL SELECT t.id, 0 FROM live_tables t LEFT JOIN table_owners o ON o.table_id = t.id "
            "WHERE o.table_id IS NULL ORDER BY 1 LIMIT ?", (limit + len(self.epochs),))
        taken: list[SavedTable] = []
        for table_id, epoch in candidates:
            if int(table_id) in self.epochs or len(taken) >= limit:
                continue
            async with db.transaction():
                if int(epoch) == 0:
                    won = await db.row(f"INSERT INTO table_owners(table_id, node, epoch, lease_until) VALUES "
                                       f"(?, ?, 1, {self._until()}) ON CONFLICT(table_id) DO NOTHING RETURNING epoch",
                                       (table_id, self.node))
                else:
                    won = await db.row(f"UPDATE table_owners SET node = ?, epoch = epoch + 1, "
                                       f"lease_until = {self._until()} WHERE table_id = ? AND epoch = ? "
                                       "AND lease_until < now() RETURNING epoch", (self.node, table_id, epoch))
                if won is None:
                    continue  # another node was quicker
                saved = await _load_table(db, int(table_id))
                if saved is None:  # dropped by its owner as it died: nothing to take
                    await db.run("DELETE FROM table_owners WHERE table_id = ?", (table_id,))
                    continue
            self.epochs[int(table_id)] = int(won[0])
            self.claimed.add(int(table_id))
            log.info("table %d: taken over (epoch %d)", table_id, int(won[0]))
            taken.append(saved)
        return taken

    async def start_over(self, db: Database) -> None:
        """At a node's start: the leases a process of the same name held before run out now (this
        one has loaded none of their tables), so that they are taken over at once."""
        await db.run("UPDATE table_owners SET lease_until = now() - interval '1 second' WHERE node = ?", (self.node,))

    async def release(self, db: Database, tables: Iterable[int]) -> None:
        """Let the leases of these tables run out at once (a node shutting down cleanly), so another
        node takes them without waiting."""
        for table_id in list(tables):
            await db.run("UPDATE table_owners SET lease_until = now() - interval '1 second' "
                         "WHERE table_id = ? AND node = ?", (table_id, self.node))

    @staticmethod
    async def reserve_table_ids(db: Database) -> range:
        """A block of new table ids, for this node alone (every node takes its blocks from one row)."""
        async with db.transaction():
            live = await db.row("SELECT COALESCE(MAX(id), 0) + 1 FROM live_tables")
            assert live is not None
            await db.run("INSERT INTO meta(key, value) VALUES ('next_table_id', ?) ON CONFLICT(key) DO NOTHING",
                         (str(live[0]),))
            row = await db.row("UPDATE meta SET value = CAST(GREATEST(CAST(value AS BIGINT), ?) + ? AS TEXT) "
                               "WHERE key = 'next_table_id' RETURNING value", (int(live[0]), ID_BLOCK))
            assert row is not None
        end = int(row[0])
        return range(end - ID_BLOCK, end)


async def _load_table(db: Database, table_id: int) -> SavedTable | None:
    row = await db.row("SELECT meta FROM live_tables WHERE id = ?", (table_id,))
    if row is None:
        return None
    meta = json.loads(row[0])
    actions = await db.rows("SELECT seat, action FROM live_actions WHERE table_id = ? AND game_no = ? ORDER BY n",
                            (table_id, meta.get("game_no", 0)))
    return SavedTable(table_id, meta, [(int(s), str(a)) for s, a in actions], await _read_chat(db, table_id))
