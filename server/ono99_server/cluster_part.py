"""What every shared part of a cluster's lobby (its chat, its names, its play-now queue) needs of
the node it runs on (server/ono99_server/cluster.py's ``Cluster``)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import redis.asyncio as aioredis

    from .lobby_state import Lobby


class NodePart(Protocol):
    @property
    def node(self) -> str: ...

    @property
    def redis(self) -> aioredis.Redis: ...

    @property
    def lobby(self) -> Lobby: ...

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task the node waits for when it closes."""
