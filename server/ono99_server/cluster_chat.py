"""The lobby's chat of every node of several: one list of lines, saved in PostgreSQL, heard through Redis.

A line said at a node is saved first, under the next id of the lobby's chat of all nodes (taken in
the saving transaction, one node at a time: ``Storage.save_lobby_line``), then shown there and
published on ``ono99:chat`` with its id; every node shows each line under that id, in id order. A line
that comes before one with a smaller id waits for it, ``GAP_SECONDS`` at most (a line lost with a
Redis restart is skipped then; it is in the database, and in every node's list after a restart). A
node starting reads the last lines from the database, so the lobby's chat survives a restart of
every node and each line has one id everywhere: a player who comes back to any node is sent what
they had not seen, once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from redis.exceptions import RedisError

from ono99_kernel.wire import server as wire

from .cluster_messages import ChatSaid, read
from .cluster_part import NodePart
from .history import ChatLine
from .lobby_chat import LOBBY_CHAT

if TYPE_CHECKING:

    from .lobby_state import Lobby
    from .members import Member
    from .storage import Storage

log = logging.getLogger("ono99.cluster")
CHANNEL = "ono99:chat"  # lobby chat lines: {node, id, sender, text, at}
GAP_SECONDS = 1.0  # how long a line waits for the lines before it
Audience = Callable[[], Iterable["Member"]]


class ChatNode(NodePart, Protocol):
    """What the shared lobby chat needs of its node (server/ono99_server/cluster.py's Cluster)."""

    @property
    def storage(self) -> Storage: ...


class SharedLobbyChat:
    def __init__(self, node: ChatNode) -> None:
        self.node = node
        self.early: dict[int, tuple[ChatLine, Audience]] = {}  # lines before whose ids some are missing
        self._gap: asyncio.TimerHandle | None = None

    @property
    def lobby(self) -> Lobby:
        return self.node.lobby

    def restore(self) -> None:
        """The lobby's last lines, as the database keeps them (at the node's start)."""
        room = self.lobby.lobby_chat
        room.restore(ChatLine(*line) for line in self.node.storage.load_chat(LOBBY_CHAT))

    # --- said here, heard from elsewhere ----------------------------------------------------------
    def say(self, sender: Member, text: str, hearers: Callable[[Member], Iterable[Member]]) -> None:
        """``sender`` says ``text`` in the lobby: saved, then shown here to ``hearers(sender)`` and
        published for the other nodes. A line the database did not take is shown to nobody, and its
        sender is told."""
        at = time.time()
        name = sender.name

        async def save() -> None:
            try:
                line_id = await self.node.storage.save_lobby_line(name, text, at, self.lobby.config.chat_history)
            except Exception as exc:
                log.error("could not save a lobby chat line (%s); not shown", exc)
                sender.send(wire.ErrorMessage(code="unavailable", reason="your message was not sent: the server's "
                                              "database does not answer; try again in a moment", ref="chat",
                                              params={"why": "chat"}))
                return
            line = ChatLine(name, text, at, line_id)
            self._arrived(line, lambda: hearers(sender))
            try:
                await self.node.redis.publish(CHANNEL, ChatSaid(node=self.node.node, id=line_id, sender=name,
                                                                text=text, at=at).to_json())
            except (RedisError, OSError) as exc:  # the other nodes show it after their next start
                log.warning("a lobby chat line was saved but not told to the other nodes (%s)", exc)

        self.node.spawn(save())

    def heard(self, data: Any) -> None:
        """A line said at another node, saved there."""
        said = read(ChatSaid.from_json, data, "a lobby chat line")
        if said is not None and said.node != self.node.node:
            self._arrived(ChatLine(said.sender, said.text, said.at, said.id), self._everyone)

    # --- in id order ------------------------------------------------------------------------------
    def _everyone(self) -> list[Member]:
        return [m for m in self.lobby.members.values() if m.connection is not None]

    def _arrived(self, line: ChatLine, audience: Audience) -> None:
        if line.id <= self.lobby.lobby_chat.last_id:
            return  # shown already, or skipped as lost
        self.early[line.id] = (line, audience)
        self._show_in_order()

    def _show_in_order(self) -> None:
        room = self.lobby.lobby_chat
        while room.last_id + 1 in self.early:
            self._show(*self.early.pop(room.last_id + 1))
        if not self.early:
            if self._gap is not None:
                self._gap.cancel()
                self._gap = None
        elif self._gap is None:
            self._gap = asyncio.get_running_loop().call_later(GAP_SECONDS, self._gap_over)

    def _gap_over(self) -> None:
        """The lines before the first waiting one did not come: it is shown without them."""
        self._gap = None
        if self.early:
            self._show(*self.early.pop(min(self.early)))
            self._show_in_order()

    def _show(self, line: ChatLine, audience: Audience) -> None:
        room = self.lobby.lobby_chat
        room.lines.append(line)
        room.last_id = line.id
        frame = wire.encode_message(room.message(line))
        for member in audience():
            member.send_frame(frame)
