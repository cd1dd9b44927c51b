"""What the parts of moderation share (server/ono99_server/moderation.py puts them together): what they ask of the
lobby (``ModerationHost``), a client's session at the door (``Door``), an operator acting, how the other
nodes are reached, how people are keyed, the refusals and the queued database writes."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire import server as wire

from .members import Member
from .name_claims import name_key

if TYPE_CHECKING:
    from .config import ServerConfig
    from .directory import TableDirectory
    from .history import ChatRoom
    from .members import Link
    from .name_claims import NameRegistry
    from .presence import Presence
    from .storage import Storage
    from .table_room import Table

log = logging.getLogger("ono99.moderation")


@dataclass(slots=True)
class OperatorSession:
    """An operator acting: their key, their name, and where answers go (an ``ono99 admin`` session's
    member of no lobby, or the operator's own player)."""

    identity: str
    name: str
    member: Member


class OperatorRelay(Protocol):
    """How an operator's command reaches the other nodes of several (server/ono99_server/cluster_operators.py)."""

    async def ask_others(self, operator: tuple[str, str], request: dict[str, Any],
                         only_one: bool) -> list[dict[str, Any]]: ...

    def kicked(self, holds: list[str], seconds: float, reason: str) -> None: ...

    def changed(self) -> None: ...


class Door(Protocol):
    """A client's session as moderation sees it (server/ono99_server/player_session.py's ``Session``): who and where
    it is, and an operator's session let in."""

    client_name: str  # its hello's ``client``
    operator: OperatorSession | None

    @property
    def identity(self) -> str | None: ...

    @property
    def front(self) -> bool: ...

    @property
    def address(self) -> str: ...

    @property
    def peer(self) -> str: ...

    @property
    def link(self) -> Link: ...

    @property
    def member(self) -> Member | None: ...

    @property
    def closed(self) -> bool: ...

    def send(self, message: wire.ServerMessage) -> None: ...

    def let_in(self, member: Member) -> None: ...


class ModerationHost(Protocol):
    """What moderation asks of the lobby: who is online, the names, the tables, the lobby's chat and store,
    and telling the lobby what changed."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def storage(self) -> Storage | None: ...

    @property
    def presence(self) -> Presence: ...

    @property
    def members(self) -> dict[str, Member]: ...

    @property
    def by_identity(self) -> dict[str, Member]: ...

    @property
    def by_token(self) -> dict[str, Member]: ...

    @property
    def names(self) -> NameRegistry: ...

    @property
    def directory(self) -> TableDirectory: ...

    @property
    def tables(self) -> dict[int, Table]: ...

    @property
    def lobby_chat(self) -> ChatRoom: ...

    def tables_message(self) -> wire.Tables: ...

    def tables_changed(self) -> None: ...

    def online_changed(self) -> None: ...

    def forget_if_idle(self, member: Member) -> None: ...


def when(until: float | None) -> str:
    """A ban's or mute's end as people read it, in UTC."""
    return "" if until is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))


def refuse(code: str, text: str, fatal: bool = False, **params: str | int) -> ProtocolError:
    return ProtocolError(code, text, fatal=fatal, params=params)


def write(storage: Storage | None, sql: str, args: tuple[Any, ...]) -> None:
    """Queue one statement (SQL both back ends take), in order with every other write; nothing without
    a database (what is kept is then in memory only)."""
    if storage is not None:
        storage.submit(lambda db: db.run(sql, args))


def owner_key(member: Member) -> str | None:
    """Whose mutes and blocks these are: a key's player by their identity, a guest by their token."""
    if member.identity is not None:
        return member.identity
    return f"token:{member.token_hash}" if member.token_hash else None


def target_key(member: Member) -> str:
    """How a mute or block names a player: their identity, else (a guest) their name."""
    return member.identity if member.identity is not None else f"name:{name_key(member.name)}"


def tell_and_close(member: Member, code: str, text: str, params: dict[str, str | int]) -> None:
    """Tell ``member`` why (a notice), then close their connection saying so."""
    member.send(wire.Notice(table=None, text=text, code=code, params=params))
    if member.connection is not None:
        member.connection.close(text)


def listener_of(link: Link | None) -> str:
    """Which way a player came in: ``tcp``, ``ssh`` or ``web`` (a front's session: its hello's ``client``
    is ``ono99-web/PID`` for a browser's), ``local`` (in-process), or ``""`` (away)."""
    session = session_of(link)
    if session is None:
        return ""
    if session.front:
        return "web" if session.client_name.startswith("ono99-web") else "ssh"
    return "local" if session.address == "local" else "tcp"


def session_of(link: Link | None) -> Door | None:
    """The session a member's link drives: both adapters (server/ono99_server/connection.py,
    server/ono99_server/local.py) keep
    theirs as ``session``; None when away (or for a link without one)."""
    return cast("Door | None", getattr(link, "session", None))


def address_of(link: Link | None) -> str:
    """Where a member's link comes from (its front's word for an SSH player); "" when away."""
    session = session_of(link)
    return session.address if session is not None else ""
