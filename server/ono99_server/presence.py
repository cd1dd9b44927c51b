"""Who is on the server: each member by name, by resume token, by key and by every name alike, and the
lobby's list of who is online, pushed to those in the lobby at most once a second however many come
and go (a crowd connecting at once must not cost a list per player per arrival)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from ono99_kernel.wire import server as wire

from .members import Member, token_hash
from .name_claims import name_keys
from .rates import Throttle, Timers

if TYPE_CHECKING:
    from .nodes import Nodes

MAX_ONLINE = 200  # names in an "online" message (about 40 bytes each)
ONLINE_EVERY = 1.0  # seconds: the lobby's "online" list is pushed at most this often


class Presence:
    def __init__(self, timers: Callable[[], Timers] = asyncio.get_running_loop) -> None:
        self.members: dict[str, Member] = {}  # by name: names are unique on a server
        self.by_token: dict[str, Member] = {}  # by token hash
        self.by_identity: dict[str, Member] = {}  # players with a key, by its fingerprint
        self.in_use: dict[str, Member] = {}  # by each of name_keys(name): no two members have names alike
        self.closed = False  # the server is shutting down: nobody is told anything more
        # one node of several (server/ono99_server/cluster.py): their players are listed too
        self.nodes: Nodes | None = None
        self._online_sent: tuple[wire.OnlinePlayer, ...] | None = None  # the last "online" pushed to the lobby
        self._online = Throttle(lambda: ONLINE_EVERY, self._push_online, leading=False, timers=timers)

    # --- who is who -----------------------------------------------------------------------------------
    def remember(self, member: Member, resumed: str | None = None) -> None:
        """``resumed``: the resume token hash a guest new here came with (one node of several: the name
        they had at another node passes to them here)."""
        self.members[member.name] = member
        self.by_token[member.token_hash] = member
        self.in_use.update(dict.fromkeys(name_keys(member.name), member))
        if member.identity is not None:
            self.by_identity[member.identity] = member
        if self.nodes is not None:
            self.nodes.name_used(member, resumed)

    def forget(self, member: Member) -> None:
        if self.members.get(member.name) is member:
            del self.members[member.name]
            self.changed()
        if self.by_token.get(member.token_hash) is member:
            del self.by_token[member.token_hash]
        if self.nodes is not None and self.holder(member.name) is member:
            self.nodes.name_freed(member, member.name)
        self._free_name(member)
        if member.identity is not None and self.by_identity.get(member.identity) is member:
            del self.by_identity[member.identity]

    def rename(self, member: Member, new: str) -> None:
        """``member`` goes by ``new`` from now on (the caller checked that nobody has a name like it)."""
        if self.members.get(member.name) is member:
            del self.members[member.name]
        if self.nodes is not None:
            self.nodes.name_freed(member, member.name)
        self._free_name(member)
        member.name = new
        self.members[new] = member
        self.in_use.update(dict.fromkeys(name_keys(new), member))
        if self.nodes is not None:
            self.nodes.name_used(member, None)

    def _free_name(self, member: Member) -> None:
        for key in name_keys(member.name):
            if self.in_use.get(key) is member:
                del self.in_use[key]

    def holder(self, name: str) -> Member | None:
        """The member whose name is ``name`` or alike (``names.name_keys``), if anyone's is."""
        return next((self.in_use[key] for key in sorted(name_keys(name)) if key in self.in_use), None)

    def returning(self, identity: str | None, resume: str | None) -> Member | None:
        """The member a hello brings back: the player with the proven key ``identity``, else the guest
        whose resume token is ``resume`` (a key's player comes back by their key only)."""
        member = self.by_identity.get(identity) if identity is not None else None
        if member is None and resume:
            known = self.by_token.get(token_hash(resume))
            member = known if known is not None and known.identity is None else None
        return member

    def in_lobby(self) -> list[Member]:
        """The connected members at no table: those the lobby's lists are pushed to."""
        return [m for m in self.members.values() if m.table is None and m.connection is not None]

    # --- who is online --------------------------------------------------------------------------------
    def online_message(self) -> wire.Online:
        """Who is on the server (at most MAX_ONLINE of them, by name), and where."""
        members = sorted(self.members.values(), key=lambda m: m.name.casefold())
        players = tuple(wire.OnlinePlayer(name=m.name, away=m.connection is None,
                                          table=m.table.id if m.table is not None and not m.table.private else None)
                        for m in members[:MAX_ONLINE])
        if self.nodes is not None:  # and the other nodes' players (server/ono99_server/cluster.py)
            everyone = [*players, *self.nodes.remote_online()]
            return wire.Online(players=tuple(sorted(everyone, key=lambda p: p.name.casefold())[:MAX_ONLINE]),
                               total=len(members) + len(everyone) - len(players))
        return wire.Online(players=players, total=len(members))

    def changed(self) -> None:
        """Someone came, went or moved: the lobby is told within ONLINE_EVERY seconds."""
        self._online.changed()

    def _push_online(self) -> None:
        if self.closed:
            return
        in_lobby = self.in_lobby()
        online = self.online_message()
        if not in_lobby or online.players == self._online_sent:
            self._online_sent = online.players if in_lobby else None
            return
        self._online_sent = online.players
        frame = wire.encode_message(online)
        for member in in_lobby:
            member.send_frame(frame)
