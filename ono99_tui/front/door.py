"""How a front's player enters the lobby (the SSH and web fronts): the door a session goes through, and
the client session it opens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..client.session import ClientSession, Entry

if TYPE_CHECKING:
    from ..client.connection import Client


class Door(Protocol):
    """How a session's player enters the lobby (``ono99_tui.front.ssh.Door``)."""

    server_name: str
    fingerprint: str | None  # the SSH key's; None for a guest
    default_name: str  # offered on the name screen
    name_hint: str | None  # a name to try without asking (an SSH key's user name; "": the key's own name)
    code: str | None  # an invite code from the user name
    play_now: tuple[str, int] | None  # the user name asks to play now: (edition, seats)
    watch: bool  # spectate the code's table instead of sitting down
    maybe_name: bool  # the user name only looks like an invite code: no such table is no error
    keys_kept: bool  # the server takes SSH keys (not --auth password): a key would keep name and seat
    name_help: str  # the name screen's help (a msgid); "": the SSH front's, by the key and the auth mode

    async def enter(self, name: str, resume: str | None = None) -> Client | tuple[str, bool]: ...


def front_session(door: Door) -> ClientSession:
    """The client session of a front's player: the door's shortcut done after the first welcome, names
    asked by the door, and the session ended by a bye other than a restart or a move."""
    entry = Entry(code=door.code, watch=door.watch, maybe_name=door.maybe_name, play_now=door.play_now)
    return ClientSession(asks_names=False, ends_when_closed=True, entry=entry)
