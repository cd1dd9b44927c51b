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

    async def close(self) -> None: ...


def continues(last: dict[str, Any], message: dict[str, Any]) -> bool:
    """Whether ``message`` (from a link's inbox) is a state that follows the state ``last`` in one
    table's game, event after event (by their numbers): the two can be taken in as one, the later
    with the events of both."""
    return (message.get("t") == "state" == last.get("t")
            and message.get("table") == last.get("table") and message.get("game_no") == last.get("game_no")
            and isinstance(message.get("events"), list) and isinstance(last.get("events"), list)
            and isinstance(message.get("seq"), int) and isinstance(last.get("seq"), int)
            and message["seq"] - len(message["events"]) == last["seq"])
