"""The server's tables: each by id and by invite code, the ids it gives, the list of public tables and
its push to those in the lobby (at once after a quiet spell, then at most once per
``lobby_push_interval`` however many changes; the last push shows the latest list)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire import server as wire

from .rates import Throttle, Timers
from .runner import Status

if TYPE_CHECKING:
    from .members import Member
    from .nodes import Nodes
    from .storage import Storage
    from .table_room import Table

MAX_LISTED_TABLES = 60  # a table's entry is at most ~700 bytes: 60 of them stay far below a frame
LIST_ORDER = {Status.WAITING: 0, Status.PLAYING: 1, Status.FINISHED: 2}  # open tables first


class TableDirectory:
    def __init__(self, storage: Storage | None, push_interval: Callable[[], float],
                 audience: Callable[[], list[Member]],
                 timers: Callable[[], Timers] = asyncio.get_running_loop) -> None:
        self.storage = storage
        self.tables: dict[int, Table] = {}
        self.next_id = storage.next_table_id() if storage else 1
        self.listeners: list[Callable[[], None]] = []  # told once per push with changes (LAN advert)
        # one node of several (server/ono99_server/cluster.py): ids and the list are shared
        self.nodes: Nodes | None = None
        self._audience = audience  # who the list is pushed to: those in the lobby
        self._push = Throttle(push_interval, self._push_tables, leading=True, timers=timers)

    def take_id(self) -> int:
        """A new table's id, never given before (the database keeps the next one over restarts; one
        node of several takes it from the shared database, or is refused while that is down)."""
        if self.nodes is not None:
            return self.nodes.new_table_id()
        table_id = self.next_id
        self.next_id += 1
        if self.storage is not None:
            self.storage.remember_next_table_id(self.next_id)
        return table_id

    def add(self, table: Table) -> None:
        self.tables[table.id] = table
        self.next_id = max(self.next_id, table.id + 1)

    def drop(self, table: Table) -> None:
        """Close ``table`` and forget it, in the database too (who sat there is the caller's to tell)."""
        table.close()
        del self.tables[table.id]
        if self.storage is not None:
            self.storage.drop_table(table.id)

    def close_if_empty(self, table: Table) -> bool:
        """Drop ``table`` if nobody is at it and no game on it is left to play out (bots play a game
        out, so it is recorded: Table._finish). True if it was dropped."""
        if table.has_people() or table.id not in self.tables or table.status == Status.PLAYING:
            return False
        self.drop(table)
        return True

    def find(self, code: str | None, table_id: int | None) -> Table:
        """The table with invite ``code``, else the public table ``table_id``."""
        if code:
            wanted = code.strip().upper()
            for table in self.tables.values():
                if table.code and table.code == wanted:
                    return table
            raise ProtocolError("no_table", f"no table has the invite code {wanted[:16]!r}",
                                params={"why": "code", "code": wanted[:16]})
        found = self.tables.get(table_id) if table_id is not None else None
        if found is None or found.private:
            raise ProtocolError("no_table", f"there is no open table {table_id!r}; list the tables again",
                                params={"why": "id"})
        return found

    def hosted_by(self, member: Member) -> int:
        return sum(1 for t in self.tables.values() if t.host_member is member)

    def listing(self) -> wire.Tables:
        """The public tables, open ones first, at most MAX_LISTED_TABLES so the list fits in a frame;
        ``total`` counts them all."""
        public = [t for t in self.tables.values() if not t.private]
        if self.nodes is not None:  # and the other nodes' (server/ono99_server/cluster.py)
            infos = [t.info() for t in public] + self.nodes.remote_tables()
            shown = sorted(infos, key=lambda t: (LIST_ORDER.get(t.status, 3), t.id))[:MAX_LISTED_TABLES]
            return wire.Tables(tables=tuple(shown), total=len(infos))
        listed = sorted(public, key=lambda t: (LIST_ORDER.get(t.status, 3), t.id))[:MAX_LISTED_TABLES]
        return wire.Tables(tables=tuple(t.info() for t in listed), total=len(public))

    def changed(self) -> None:
        """A table came, went or changed: the lobby is told (see the module's note for how often)."""
        self._push.changed()

    def _push_tables(self) -> None:
        for listener in self.listeners:
            listener()
        in_lobby = self._audience()
        if not in_lobby:  # nobody to tell: skip building the list (every game's end changes it)
            return
        frame = wire.encode_message(self.listing())
        for member in in_lobby:
            member.send_frame(frame)
