"""What a client of the game server talks through, for the app and the plain mode alike."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from ono99_kernel.wire.requests import Request


class Link(Protocol):
    """A connection to a server: the TCP ``Client`` or the local game's in-process link."""

    inbox: asyncio.Queue[dict[str, Any] | None]

    async def send(self, message: Request) -> None: ...

    async def close(self) -> None: ...


class LocalServer(Protocol):
    """The game server of a local game, embedded in this process (ono99_tui/local_game.py)."""

    def link(self) -> Link: ...

    def pause(self, paused: bool) -> None: ...

    def set_bot_delay(self, seconds: float) -> None: ...

    def finished_record(self, table_id: int) -> dict[str, Any] | None: ...

    async def close(self) -> None: ...
