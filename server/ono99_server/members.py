"""A player the server knows (``Member``) and what carries their messages (``Link``)."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Protocol

from ono99_kernel.wire import server as wire

from .config import ServerConfig
from .rates import TokenBucket


class Link(Protocol):
    """What carries a member's messages to their client: the asyncio connection (server/ono99_server/connection.py)
    or the local game's in-process link (server/ono99_server/local.py), each driving the client's ``Session``."""

    @property
    def closed(self) -> bool: ...

    def send(self, message: wire.ServerMessage) -> None: ...

    def send_frame(self, frame: bytes) -> None: ...

    def close(self, reason: str) -> None:
        """Say goodbye (``bye``) and close once what is already queued has gone. Safe to call twice."""


class AtTable(Protocol):
    """The table a member is at, as those who read it from the member see it (server/ono99_server/table_room.py's
    ``Table``; ``table.table_of`` gives the Table itself)."""

    @property
    def id(self) -> int: ...

    @property
    def private(self) -> bool: ...

    @property
    def status(self) -> wire.TableStatus: ...

    @property
    def moved_at(self) -> float: ...

    def seat_of(self, member: Member) -> int | None: ...

    def leave(self, member: Member) -> None: ...

    def member_dropped(self, member: Member) -> None:
        """``member``'s connection dropped: their seat waits for them."""

    def member_returned(self, member: Member, seen: dict[str, int] | None = None) -> None: ...

    def grace_expired(self, member: Member) -> None: ...


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Member:
    """A player known to the server: connected now, or holding a seat while away."""

    def __init__(self, name: str, token_hash_: str, config: ServerConfig, identity: str | None = None) -> None:
        self.name = name
        self.token_hash = token_hash_
        self.identity = identity  # the key fingerprint this player proved; None for a guest
        self.connection: Link | None = None
        self.table: AtTable | None = None
        self.grace: asyncio.TimerHandle | None = None
        self.chat_bucket = TokenBucket(config.chat_per_minute / 60, config.chat_per_minute / 4)
        self.follows_leaderboard = False  # sent a new leaderboard after each game that changes it
        self.leaderboard_edition: wire.Edition | None = None  # the edition it follows (None: all of them)

    def send(self, message: wire.ServerMessage) -> None:
        if self.connection is not None:
            self.connection.send(message)

    def send_frame(self, frame: bytes) -> None:
        if self.connection is not None:
            self.connection.send_frame(frame)

    def __repr__(self) -> str:
        return f"Member({self.name!r})"
