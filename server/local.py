"""A server inside the client's own process: the same lobby and tables, no open port.

``ono99`` with no arguments plays this way. Messages still pass through msgpack both ways, so a
local game exercises exactly the encoding a networked one does.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ono99_tui.protocol import HEADER, decode_payload, encode
from ono99_tui.wire.requests import Request
from ono99_tui.wire.server import Bye

from .app import Server
from .config import ServerConfig
from .connection import Connection
from .lobby import TokenBucket


class LocalConnection(Connection):
    """The server's end of an in-process link."""

    admitted_at_the_door = True  # a local game is yours

    def __init__(self, server: Server, address: str = "local", peer: str | None = None) -> None:
        # no socket: nothing of Connection.__init__ applies
        self.server = server
        self.address = address  # where the player is, for logs (an SSH player's address)
        self.peer = peer or address
        self.member = None
        self.closed = False
        self.close_reason = ""
        config = server.config
        self.bucket = TokenBucket(config.messages_per_second, config.message_burst)
        self.strikes = 0
        self._refused = None
        self.outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def send_frame(self, frame: bytes) -> None:
        if not self.closed:
            self.outbox.put_nowait(decode_payload(frame[HEADER.size:]))

    def close(self, reason: str) -> None:
        if self.closed:
            return
        self.close_reason = reason
        self.send(Bye(reason=reason))
        self.closed = True
        self.outbox.put_nowait(None)

    def receive(self, message: Request) -> None:
        """A request from the client, as the server would read it off the wire."""
        self.receive_frame(encode(message.to_wire()))

    def receive_frame(self, frame: bytes) -> None:
        """A frame from the client as it is (tests send what no request would make)."""
        if not self.closed:
            self._receive(decode_payload(frame[HEADER.size:]))

    def disconnect(self) -> None:
        """The client went away."""
        if self.member is not None and self.member.connection is self:
            self.server.lobby.dropped(self.member)
        self.closed = True
        self.outbox.put_nowait(None)


class LocalLink:
    """The client's end: the same interface as ``ono99_tui.client.Client``."""

    def __init__(self, connection: LocalConnection) -> None:
        self.connection = connection
        self.inbox = connection.outbox
        self.welcome: dict[str, Any] = {}
        self.closed = False

    async def send(self, message: Request) -> None:
        self.connection.receive(message)

    async def send_raw(self, data: bytes) -> None:
        """A frame as it is, as ``Client.send_raw`` sends one."""
        self.connection.receive_frame(data)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.connection.disconnect()


class EmbeddedServer:
    """A server with no listener, for one local player and bots."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.server = Server(config or ServerConfig(host="", port=0, default_turn_seconds=0, grace_seconds=3600))

    def link(self) -> LocalLink:
        return LocalLink(LocalConnection(self.server))

    def pause(self, paused: bool) -> None:
        """Hold every bot (a dialog is open in front of the game), or let them play on."""
        for table in self.server.lobby.tables.values():
            table.set_paused(paused)

    def set_bot_delay(self, seconds: float) -> None:
        """Bots play after ``seconds`` from their next move on (0: fast-forward a game of bots)."""
        self.server.config.bot_delay = seconds
        for table in self.server.lobby.tables.values():
            table.schedule()

    async def close(self) -> None:
        await self.server.close()
