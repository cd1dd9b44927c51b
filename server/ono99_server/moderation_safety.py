"""Players protect themselves (docs/protocol.md, section 5b): ``mute`` hides another player's chat from
them (the server never sends it), ``block`` keeps a player off their private tables. Mutes and blocks
are kept by identity: a player with a key by their key, a guest by their resume token (for that
session); a guest's target is their name. Each change is written to the database as it is made."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ono99_kernel.protocol import clean_text
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import Block, Mute

from .members import Member
from .moderation_ports import ModerationHost, owner_key, refuse, target_key, write
from .name_claims import name_key

if TYPE_CHECKING:
    from .table_room import Table


@dataclass(slots=True)
class Ignores:
    """One person's mutes and blocks: target key → the target's name then."""

    muted: dict[str, str] = field(default_factory=dict)
    blocked: dict[str, str] = field(default_factory=dict)


class Safety:
    """Every player's mutes and blocks, and the ``safety`` message that tells a player theirs."""

    def __init__(self, lobby: ModerationHost, admins: set[str]) -> None:
        self.lobby = lobby
        self.admins = admins  # an operator's app is told it is one (in ``safety``)
        self.ignores: dict[str, Ignores] = {}  # by owner key

    def find_player(self, name: str) -> tuple[str, str, Member | None]:
        """(target key, name, the member if known now) of the player called ``name``."""
        wanted = name.strip()
        lobby = self.lobby
        member = lobby.presence.holder(wanted) if wanted else None
        if member is not None:
            return target_key(member), member.name, member
        owned = lobby.names.owner(wanted) if wanted else None
        if owned is not None:
            return owned[1], owned[0], lobby.by_identity.get(owned[1])
        raise refuse("no_player", f"nobody called {clean_text(wanted)[:64]!r} is on this server", why="name",
                     name=clean_text(wanted)[:64])

    def _ignores_of(self, member: Member) -> Ignores | None:
        key = owner_key(member)
        return self.ignores.get(key) if key is not None else None

    # --- mutes and blocks -----------------------------------------------------------------------------
    def ignore(self, kind: str, member: Member, request: Mute | Block) -> None:
        """``member``'s ``mute`` or ``block`` (``kind``) of a player, on or off."""
        owner = owner_key(member)
        target, name, _ = self.find_player(request.name)
        if owner is None:
            raise refuse("no_identity", "a guest has no profile: connect with a key to be rated")
        if target == target_key(member):
            raise refuse("bad_target", "that is you", why="self")
        ignores = self.ignores.setdefault(owner, Ignores())
        kept = ignores.muted if kind == "mute" else ignores.blocked
        storage = self.lobby.storage
        if request.on is None or request.on:
            kept[target] = name
            write(storage, "INSERT INTO moderation_ignores(kind, owner, target, target_name, at) "
                           "VALUES (?, ?, ?, ?, ?) ON CONFLICT(kind, owner, target) DO UPDATE SET "
                           "target_name = excluded.target_name, at = excluded.at",
                  (kind, owner, target, name, time.time()))
        else:
            kept.pop(target, None)
            write(storage, "DELETE FROM moderation_ignores WHERE kind = ? AND owner = ? AND target = ?",
                  (kind, owner, target))
        self.send_safety(member)

    def may_join(self, member: Member, table: Table) -> None:
        """Refuse a player the host of a private table blocked."""
        host = table.host_member
        if not table.private or host is None or host is member or not self.ignores:
            return
        ignores = self._ignores_of(host)
        if ignores is not None and target_key(member) in ignores.blocked:
            raise refuse("blocked", "the host of this table does not let you join it")

    # --- chat -------------------------------------------------------------------------------------------
    def hears(self, listener: Member, speaker: Member) -> bool:
        """Whether ``listener`` is sent ``speaker``'s chat (not if they muted them)."""
        if not self.ignores:
            return True
        ignores = self._ignores_of(listener)
        return ignores is None or not ignores.muted or target_key(speaker) not in ignores.muted

    def hearers(self, speaker: Member, members: Iterable[Member]) -> Iterable[Member]:
        if not self.ignores:
            return members
        return [m for m in members if self.hears(m, speaker)]

    def history_for(self, member: Member, history: wire.ChatHistory) -> wire.ChatHistory:
        """A ``chat_history`` message without the lines of those ``member`` muted."""
        ignores = self._ignores_of(member)
        if ignores is None or not ignores.muted:
            return history
        kept = tuple(line for line in history.messages if self._name_target(line.sender) not in ignores.muted)
        return dataclasses.replace(history, messages=kept)

    def _name_target(self, sender: str) -> str:
        """The target key of a chat line's sender, by the name it was said under."""
        owned = self.lobby.names.owner(sender)
        return owned[1] if owned is not None and owned[0] == sender else f"name:{name_key(sender)}"

    # --- what a player is told --------------------------------------------------------------------------
    def welcomed(self, member: Member) -> None:
        """A player just welcomed is told their mutes and blocks, if they have any (an operator always)."""
        ignores = self._ignores_of(member)
        operator = member.identity is not None and member.identity in self.admins
        if (ignores is not None and (ignores.muted or ignores.blocked)) or operator:
            self.send_safety(member)

    def send_safety(self, member: Member) -> None:
        ignores = self._ignores_of(member) or Ignores()
        member.send(wire.Safety(muted=tuple(self._current_name(k, n) for k, n in ignores.muted.items()),
                                blocked=tuple(self._current_name(k, n) for k, n in ignores.blocked.items()),
                                operator=member.identity is not None and member.identity in self.admins))

    def _current_name(self, target: str, name_then: str) -> str:
        if target.startswith("name:"):
            return name_then
        return self.lobby.names.name_of(target) or name_then
