"""The server: the TCP listener, connection limits, start-up restore and a graceful shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter

from .config import ServerConfig
from .connection import Connection
from .lobby import Lobby
from .storage import Storage

log = logging.getLogger("ono99.server")


class Server:
    """Hosts the lobby and its tables. ``await start()``, then ``await close()`` (safe twice)."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        self.storage = Storage(self.config.db_path) if self.config.db_path is not None else None
        self.lobby = Lobby(self.config, self.storage)
        self.connections: set[Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False
        self.restored_tables = 0

    @property
    def port(self) -> int:
        """The TCP port actually bound (useful with port 0)."""
        assert self._server is not None and self._server.sockets
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self) -> None:
        self.restored_tables = self.lobby.restore()
        self._server = await asyncio.start_server(self._accept, self.config.host, self.config.port,
                                                  limit=64 * 1024)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = Connection(self, reader, writer)
        address = connection.address
        if self._closing or len(self.connections) >= self.config.max_connections \
                or self._per_address[address] >= self.config.max_connections_per_address:
            why = "the server is full" if not self._closing else "the server is shutting down"
            if self._per_address[address] >= self.config.max_connections_per_address:
                why = f"too many connections from {address}"
            log.warning("refused %s: %s", connection.peer, why)
            connection.error("too_many_connections", why)
            connection.close(why)
            writer_task = asyncio.create_task(connection._write_loop())
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer_task, self.config.write_timeout)
            return
        self.connections.add(connection)
        self._per_address[address] += 1
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await connection.run()
        finally:
            self.connections.discard(connection)
            self._per_address[address] -= 1
            if self._per_address[address] <= 0:
                del self._per_address[address]
            if task is not None:
                self._tasks.discard(task)

    async def close(self, reason: str = "the server is shutting down") -> None:
        """Stop listening, tell every client, save, and close. Safe to call twice."""
        if self._closing:
            return
        self._closing = True
        if self._server is not None:
            self._server.close()
        # Stop the tables' bots and clocks first: players are disconnected below, and nobody should
        # play for them meanwhile; their tables are saved as they are, for the restart.
        self.lobby.close()
        for connection in list(self.connections):
            connection.close(reason)
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=self.config.write_timeout)
        if self.storage is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.storage.close)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)
