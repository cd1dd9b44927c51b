"""Who is kept out or quiet, and by what name: operators' bans (of a key, or of an address or network),
kicks that keep a player out for a while, mutes in the lobby's chat, and the names operators locked
keys to. Each change is written to the database as it is made (``moderation_*`` tables); the
operators' commands that make them are in server/ono99_server/moderation_commands.py."""

from __future__ import annotations

import contextlib
import ipaddress
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ono99_kernel.protocol import ProtocolError

from .members import Member
from .moderation_ports import address_of, refuse, when, write

if TYPE_CHECKING:
    from .storage import Storage

KICK_HOLD = 60.0  # seconds a kicked player stays out (the app would otherwise reconnect at once)


@dataclass(slots=True)
class Ban:
    kind: str  # identity or address
    value: str
    reason: str
    until: float | None  # Unix time; None: for good
    by: str
    at: float

    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.kind == "address":
            with contextlib.suppress(ValueError):
                self.network = ipaddress.ip_network(self.value, strict=False)

    def active(self, now: float) -> bool:
        return self.until is None or self.until > now

    def covers(self, identity: str | None, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        if self.kind == "identity":
            return identity == self.value
        return address is not None and self.network is not None and address in self.network


@dataclass(slots=True)
class ChatMute:
    reason: str
    until: float | None


class Bans:
    """The bans, kicks, lobby chat mutes and name locks of one server."""

    def __init__(self, storage: Storage | None) -> None:
        self.storage = storage
        self.bans: dict[tuple[str, str], Ban] = {}
        # Who a kick keeps out for KICK_HOLD (``kick_holds``) → (until, reason): a key, a guest's resume
        # token (token:HASH), a guest's address (address:ADDR) only when the operator asked.
        self.kicked: dict[str, tuple[float, str]] = {}
        self.chat_mutes: dict[str, ChatMute] = {}  # operators' mutes in the lobby's chat
        self.locks: dict[str, str] = {}  # identity → the name an operator gave it

    def banned(self, identity: str | None, address: str, resume_hash: str | None = None) -> ProtocolError | None:
        """The refusal of someone banned or kicked (a guest's ``resume_hash``: of the resume token they
        came with), or None. Expired bans are dropped. A kick of a guest's address keeps out guests only."""
        now = time.time()
        try:
            ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None = ipaddress.ip_address(address)
        except ValueError:  # "local": an in-process game
            ip = None
        for ban in list(self.bans.values()):
            if not ban.active(now):
                self.lift(ban.kind, ban.value)
                continue
            if ban.covers(identity, ip):
                whom = "your key" if ban.kind == "identity" else "connections from your address"
                if ban.until is None:
                    return refuse("banned", f"{whom} {'is' if ban.kind == 'identity' else 'are'} banned from "
                                            f"this server: {ban.reason}", fatal=True, why=ban.kind,
                                  reason=ban.reason)
                return refuse("banned", f"{whom} {'is' if ban.kind == 'identity' else 'are'} banned from this "
                                        f"server until {when(ban.until)}: {ban.reason}", fatal=True,
                              why=f"{ban.kind}_until", reason=ban.reason, until=when(ban.until))
        mono = time.monotonic()
        holds = [identity] if identity is not None else [f"token:{resume_hash}" if resume_hash else None,
                                                          f"address:{address}"]
        for key in holds:
            held = self.kicked.get(key) if key is not None else None
            if key is not None and held is not None:
                if held[0] > mono:
                    seconds = max(1, round(held[0] - mono))
                    return refuse("kicked", f"an operator removed you from this server: {held[1]}; you may come "
                                            f"back in {seconds} s", fatal=True, reason=held[1], seconds=seconds)
                del self.kicked[key]
        return None

    # --- kicks ------------------------------------------------------------------------------------------
    @staticmethod
    def kick_holds(member: Member, address_too: bool) -> list[str]:
        """Whom a kick of ``member`` keeps out: their key, or a guest's resume token, and (a guest, when
        the operator asks: ``all``) their address; never the others of an address, nor an operator."""
        if member.identity is not None:
            return [member.identity]
        address = address_of(member.connection)
        return [f"token:{member.token_hash}", *([f"address:{address}"] if address_too and address else [])]

    def hold(self, holds: list[str], seconds: float, reason: str) -> None:
        """Keep out ``holds`` (``kick_holds``) for ``seconds``."""
        until = time.monotonic() + seconds
        for key in holds:
            self.kicked[key] = (until, reason)

    # --- bans -------------------------------------------------------------------------------------------
    def ban(self, ban: Ban) -> None:
        self.bans[(ban.kind, ban.value)] = ban
        write(self.storage, "INSERT INTO moderation_bans(kind, value, reason, ends_at, by_identity, at) "
                            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(kind, value) DO UPDATE SET "
                            "reason = excluded.reason, ends_at = excluded.ends_at, "
                            "by_identity = excluded.by_identity, at = excluded.at",
              (ban.kind, ban.value, ban.reason, ban.until, ban.by, ban.at))

    def lift(self, kind: str, value: str) -> Ban | None:
        """The ban of ``value`` lifted (None: there was none)."""
        ban = self.bans.pop((kind, value), None)
        write(self.storage, "DELETE FROM moderation_bans WHERE kind = ? AND value = ?", (kind, value))
        return ban

    def unban(self, kind: str, value: str) -> Ban | None:
        """Lift the ban of ``value`` and the kick holding it out."""
        self.kicked.pop(value, None)
        self.kicked.pop(f"address:{value}", None)
        return self.lift(kind, value)

    def active(self) -> list[Ban]:
        """The bans in force, oldest first."""
        now = time.time()
        return [b for b in sorted(self.bans.values(), key=lambda b: b.at) if b.active(now)]

    # --- the lobby's chat -------------------------------------------------------------------------------
    def check_chat(self, key: str) -> None:
        """Refuse a lobby chat line of the player ``key`` (``target_key``) an operator muted there."""
        mute = self.chat_mutes.get(key)
        if mute is None:
            return
        if mute.until is not None and mute.until <= time.time():
            del self.chat_mutes[key]
            write(self.storage, "DELETE FROM moderation_chat_mutes WHERE target = ?", (key,))
            return
        if mute.until is None:
            raise refuse("muted", f"an operator muted you in the lobby's chat: {mute.reason}", why="lobby",
                         reason=mute.reason)
        raise refuse("muted", f"an operator muted you in the lobby's chat until {when(mute.until)}: {mute.reason}",
                     why="lobby_until", reason=mute.reason, until=when(mute.until))

    def mute(self, key: str, reason: str, until: float | None, by: str) -> None:
        self.chat_mutes[key] = ChatMute(reason, until)
        write(self.storage, "INSERT INTO moderation_chat_mutes(target, reason, ends_at, by_identity, at) "
                            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(target) DO UPDATE SET reason = excluded.reason, "
                            "ends_at = excluded.ends_at, by_identity = excluded.by_identity, at = excluded.at",
              (key, reason, until, by, time.time()))

    def unmute(self, key: str) -> bool:
        """Lift the lobby chat mute of ``key``: False if there was none."""
        if self.chat_mutes.pop(key, None) is None:
            return False
        write(self.storage, "DELETE FROM moderation_chat_mutes WHERE target = ?", (key,))
        return True

    # --- name locks -------------------------------------------------------------------------------------
    def lock(self, identity: str, name: str, by: str) -> None:
        self.locks[identity] = name
        write(self.storage, "INSERT INTO moderation_name_locks(identity, name, by_identity, at) VALUES (?, ?, ?, ?) "
                            "ON CONFLICT(identity) DO UPDATE SET name = excluded.name, "
                            "by_identity = excluded.by_identity, at = excluded.at",
              (identity, name, by, time.time()))

    def unlock(self, identity: str) -> None:
        if self.locks.pop(identity, None) is not None:
            write(self.storage, "DELETE FROM moderation_name_locks WHERE identity = ?", (identity,))


def banned_network(address: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]:
    """An operator's address or network (CIDR) to ban or unban, and how a ban row names it: the
    network, or the lone address it holds."""
    try:
        network = ipaddress.ip_network(address, strict=False)
    except ValueError:
        raise refuse("bad_field", f"admin: {address[:64]!r} is not an address or network", why="value",
                     message="admin", field="address") from None
    return network, str(network) if network.num_addresses > 1 else str(network.network_address)


def within(address: str, network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> bool:
    """Whether ``address`` (a client's, maybe "local") is in ``network``."""
    try:
        return ipaddress.ip_address(address) in network
    except ValueError:
        return False
