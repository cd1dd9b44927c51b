"""The lobby's chat: a line is saved before anybody is shown it, and shown to those who hear its sender.
What a chat line may say (``chat_text``) holds for a table's chat too."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from ono99_kernel.protocol import MAX_CHAT, ProtocolError, clean_text
from ono99_kernel.wire import server as wire

from .history import ChatLine, ChatRoom
from .members import Member

LOBBY_CHAT = 0  # the lobby's chat is saved as that of table 0 (table ids start at 1)
Keep = Callable[[int, ChatLine, Callable[[], None]], None]  # saves a line of a chat, then shows it


def chat_text(text: str) -> str:
    """``text`` as a chat line says it (no markup or escapes, no spaces around), or the refusal."""
    said = clean_text(text).strip()
    if not said:
        raise ProtocolError("empty_chat", "the message is empty")
    if len(said) > MAX_CHAT:
        raise ProtocolError("chat_too_long", f"chat messages are at most {MAX_CHAT} characters",
                            params={"max": MAX_CHAT})
    return said


class SharedChat(Protocol):
    """The lobby's chat of every node of several (server/ono99_server/cluster_chat.py)."""

    def say(self, sender: Member, text: str, hearers: Callable[[Member], Iterable[Member]]) -> None: ...


class LobbyChat:
    def __init__(self, history: int, keep: Keep) -> None:
        self.room = ChatRoom(history, "lobby", None)
        self._keep = keep
        self.shared: SharedChat | None = None  # one node of several: the lobby's chat is every node's

    def say(self, sender: Member, text: str, hearers: Callable[[Member], Iterable[Member]]) -> None:
        """``sender`` says ``text`` (checked) to ``hearers(sender)``, as they are once it is saved."""
        if self.shared is not None:
            self.shared.say(sender, text, hearers)
            return
        line = self.room.add(sender.name, text)

        def show() -> None:
            frame = wire.encode_message(self.room.message(line))
            for other in hearers(sender):
                other.send_frame(frame)

        self._keep(LOBBY_CHAT, line, show)
