"""What the lobby asks of the other game nodes when this server is one of several on one database and
one Redis (server/ono99_server/cluster.py builds it; a server alone has none)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ono99_kernel.wire import server as wire

if TYPE_CHECKING:
    from ono99_kernel.wire.requests import Join, Spectate

    from .members import Member


class Nodes(Protocol):
    def new_table_id(self) -> int: ...

    def check_open(self) -> None:
        """Refuses (ProtocolError) while a new table could not be saved or found by the other nodes."""

    def remote_tables(self) -> list[wire.TableInfo]: ...

    def seat_elsewhere(self, identity: str | None, token_hash: str | None) -> None: ...

    def send_on(self, member: Member, request: Join | Spectate) -> bool:
        """Whether the table is another node's, and the player was sent on to it."""

    def welcomed(self, member: Member, resume: str | None) -> None: ...

    def remote_online(self) -> list[wire.OnlinePlayer]: ...

    def check_name(self, name: str, identity: str | None, resumed: str | None) -> None:
        """Refuses (ProtocolError ``name_taken``) a name a player of another node goes by (``resumed``:
        the resume token hash a guest came with, whose name it may be)."""

    def name_used(self, member: Member, resumed: str | None) -> None: ...

    def name_freed(self, member: Member, name: str) -> None: ...

    def other_nodes(self) -> tuple[wire.NodeAddress, ...]:
        """Where players reach the other nodes alive (``welcome.nodes``)."""
