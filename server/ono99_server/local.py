"""A server inside the client's own process: the same lobby and tables, no open port.

``ono99`` with no arguments plays this way. Messages still pass through msgpack both ways, so a
local game exercises exactly the encoding a networked one does.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ono99_kernel.protocol import HEADER, decode_payload, encode
from ono99_kernel.wire.requests import Request
from ono99_kernel.wire.server import Bye, ServerMessage, encode_message

from .config import ServerConfig
from .game_server import Server
from .player_session import Session


class LocalConnection:
    """The server's end of an in-process link: the ``Link`` of a session whose messages go to the
    client's inbox, each decoded from its bytes as a client decodes them. The access policy does not
    apply (a local game is yours; an SSH front applied it at the login)."""

    def __init__(self, server: Server, address: str = "local", peer: str | None = None) -> None:
        self.closed = False
        self.close_reason = ""
        self.outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.session = Session(server, self, address=address, peer=peer or address, now=time.monotonic(),
                               admitted_at_the_door=True)

    # --- the session's link ------------------------------------------------------------------------
    def send(self, message: ServerMessage) -> None:
        self.send_frame(encode_message(message))

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

    # --- the client's side -------------------------------------------------------------------------
    def receive(self, message: Request) -> None:
        """A request from the client, as the server would read it off the wire."""
        self.receive_frame(encode(message.to_wire()))

    def receive_frame(self, frame: bytes) -> None:
        """A frame from the client as it is (tests send what no request would make)."""
        if not self.closed:
            self.session.receive(decode_payload(frame[HEADER.size:]))

    def disconnect(self) -> None:
        """The client went away."""
        self.session.ended()
        self.closed = True
        self.outbox.put_nowait(None)


class LocalLink:
    """The client's end: the same interface as ``ono99_tui.client.connection.Client``."""

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

    def finished_record(self, table_id: int) -> dict[str, Any] | None:
        """The record of the game last finished at table ``table_id`` (what its replay and analysis read),
        or None while none is."""
        table = self.server.lobby.tables.get(table_id)
        if table is None or table.game is None or table.game.outcome is None:
            return None
        return table.record()

    async def close(self) -> None:
        await self.server.close()
