"""Running a public host: operators, bans, kicks, chat mutes, renames, reports, the names deny list
and the audit log (docs/server.md, "Running a public host"; docs/protocol.md, section 5b).

Operators are the keys of an OpenSSH ``authorized_keys`` file (``ono99 serve --admins FILE``). They
act through ``admin`` messages: from ``ono99 admin`` (a connection whose hello asks for an operator's
session, ``hello.admin``: it proves its key as any client does and never enters the lobby) or from
the app of a player whose key is an operator's. Every operator action is written to the audit log.

Bans hold at the door of every listener: ``at_the_door`` runs for each hello that is about to be
let in, whether it came over TCP or from an SSH front (which asserts the player's key and address),
so any later listener that says hello the same way is covered too. Bans, chat mutes, name locks,
players' own mutes and blocks, reports, the message of the day and the log are kept in the
server's database (``moderation_*`` tables), so they survive a restart; a server without a
database keeps them in memory.

Players protect themselves: ``mute`` hides another player's chat from them (the server never sends
it), ``block`` keeps a player off their private tables, ``report`` files a report with the last
chat lines and the game attached. Mutes and blocks are kept by identity: a player with a key by
their key, a guest by their resume token (for that session); a guest's target is their name.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import ipaddress
import json
import logging
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from ono99_kernel.access import read_listed_keys
from ono99_kernel.core.record import Player as RecordPlayer
from ono99_kernel.core.record import game_to_record
from ono99_kernel.protocol import MAX_CHAT, PROTOCOL_VERSION, ProtocolError, check_name, clean_text
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import Admin, Block, Hello, Mute, Ping, Report, Request, decode_request

from .members import Member, token_hash
from .name_claims import name_key, name_keys, name_taken_params, same_name_refusal
from .table_room import table_of

if TYPE_CHECKING:
    from .config import ServerConfig
    from .directory import TableDirectory
    from .history import ChatLine, ChatRoom
    from .members import Link
    from .name_claims import NameRegistry
    from .presence import Presence
    from .routes import Router
    from .storage import Database, Storage
    from .table_room import Table

log = logging.getLogger("ono99.moderation")

KICK_HOLD = 60.0  # seconds a kicked player stays out (the app would otherwise reconnect at once)
REPORT_CHAT_LINES = 20  # chat lines of each room a report carries
LIST_LIMIT = 40  # rows of the report queue and the log in one answer
MAX_RECORD_BYTES = 40 * 1024  # a report's game record, compressed, in one answer (a frame is 64 KiB)



# --- the names deny list ------------------------------------------------------------------------------
def _folded(text: str) -> frozenset[str]:
    """The keys of ``text`` as names are compared (server/ono99_server/name_claims.py), white space left out."""
    return frozenset("".join(key.split()) for key in name_keys(text))


class NamesDenyList:
    """Words no name may contain, compared as names are: a word is in a name when one of the name's
    keys holds one of the word's keys (lookalike letters, case and width folded; spaces left out)."""

    def __init__(self, words: Iterable[str] = ()) -> None:
        self.words: list[tuple[str, frozenset[str]]] = [(word, _folded(word)) for word in words]

    @classmethod
    def read(cls, path: Path) -> NamesDenyList:
        """One word a line; blank lines and lines starting with ``#`` are left out. ``ValueError`` (with
        the file and line) for a file that is not UTF-8 text or a line that is no word; ``OSError`` for
        a file that cannot be read."""
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
        words = []
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if clean_text(line) != line:
                raise ValueError(f"{path}, line {number}: control or format characters in a word")
            if not any(_folded(line)):
                raise ValueError(f"{path}, line {number}: {line!r} has no letters left once folded as names are")
            if len(line) > 64:
                raise ValueError(f"{path}, line {number}: a word of more than 64 characters")
            words.append(line)
        return cls(words)

    def denied(self, name: str) -> str | None:
        """The listed word ``name`` contains, or None."""
        keys = _folded(name)
        for word, word_keys in self.words:
            if any(w and w in key for w in word_keys for key in keys):
                return word
        return None


def read_admins(path: Path) -> dict[str, str]:
    """The operators' key fingerprints in an authorized_keys file, each with its key's comment (who it
    is, as ``ssh-keygen -C`` wrote it); ``ValueError`` says what is wrong."""
    try:
        return {fingerprint: clean_text(str(listed.key.get_comment() or "")).strip()[:64]
                for fingerprint, listed in read_listed_keys(path).items()}
    except OSError as exc:
        raise ValueError(f"--admins: cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"--admins: {exc}") from None


# --- what is kept ---------------------------------------------------------------------------------------
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


# Commands whose player or table may be at another node: asked there when not found here.
ROUTED = frozenset({"kick", "ban", "unban", "mute", "unmute", "rename", "close"})
NOT_HERE = frozenset({"no_player", "no_table"})
GATHERED = frozenset({"who", "notice"})  # asked of every node, the answers put together
KEPT = frozenset({"ban", "unban", "mute", "unmute", "rename", "motd"})  # change what every node reads again


class Door(Protocol):
    """A client's session as moderation sees it (server/ono99_server/player_session.py's ``Session``): who and where it is,
    and an operator's session let in."""

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


@dataclass(slots=True)
class Ignores:
    """One person's mutes and blocks: target key → the target's name then."""

    muted: dict[str, str] = field(default_factory=dict)
    blocked: dict[str, str] = field(default_factory=dict)


def when(until: float | None) -> str:
    """A ban's or mute's end as people read it, in UTC."""
    return "" if until is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))


def refuse(code: str, text: str, fatal: bool = False, **params: str | int) -> ProtocolError:
    return ProtocolError(code, text, fatal=fatal, params=params)


class Moderation:
    def __init__(self, lobby: ModerationHost) -> None:
        self.lobby = lobby
        self.storage = lobby.storage
        config = lobby.config
        self.operator_names = read_admins(config.admins) if config.admins is not None else {}  # the keys' comments
        self.admins: set[str] = set(self.operator_names)
        self.deny = NamesDenyList()
        if config.names_deny is not None:
            try:
                self.deny = NamesDenyList.read(config.names_deny)
            except OSError as exc:
                raise ValueError(f"--names-deny: cannot read {config.names_deny}: {exc.strerror or exc}") from None
            except ValueError as exc:
                raise ValueError(f"--names-deny: {exc}") from None
        self.bans: dict[tuple[str, str], Ban] = {}
        # Who a kick keeps out for KICK_HOLD (``kick_holds``) → (until, reason): a key, a guest's resume
        # token (token:HASH), a guest's address (address:ADDR) only when the operator asked.
        self.kicked: dict[str, tuple[float, str]] = {}
        self.chat_mutes: dict[str, ChatMute] = {}  # operators' mutes in the lobby's chat
        self.locks: dict[str, str] = {}  # identity → the name an operator gave it
        self.ignores: dict[str, Ignores] = {}  # by owner key
        self.motd = ""
        self.reports: list[dict[str, Any]] = []  # without a database
        self.log_rows: list[dict[str, Any]] = []  # without a database
        self._report_buckets: dict[str, tuple[float, float]] = {}  # reporter key → (level, stamp)
        self.sessions: set[Door] = set()  # operators' own sessions (ono99 admin)
        self.on_action: Callable[[str], None] | None = None  # told each operator action (metrics)
        self.relay: OperatorRelay | None = None  # one node of several: the others (server/ono99_server/cluster_operators.py)
        self._for_a_node = False  # carrying out a command another node was given
        self._tasks: set[asyncio.Task[None]] = set()
        if self.storage is not None:
            self._keep(self.storage.run_now(_read_kept))

    # --- the database ---------------------------------------------------------------------------------
    def _keep(self, kept: Kept) -> None:
        self.bans, self.chat_mutes, self.locks, self.ignores, self.motd = \
            kept.bans, kept.chat_mutes, kept.locks, kept.ignores, kept.motd

    def reload_soon(self) -> None:
        """Another node changed what is kept: read it again; a player of this node it now bans is let go,
        one it renames is renamed."""
        storage = self.storage
        if storage is None:
            return

        async def reload() -> None:
            self._keep(await storage.call(_read_kept))
            for member in list(self.lobby.members.values()):
                refusal = self.banned(member.identity, address_of(member.connection)) \
                    if member.connection is not None else None
                if refusal is not None and refusal.code == "banned":
                    self._tell_and_close(member, "operator_ban", f"An operator {refusal.reason}",
                                         {"reason": str(refusal.params.get("reason", "")),
                                          "until": str(refusal.params.get("until", ""))})
                locked = self.locks.get(member.identity) if member.identity is not None else None
                if locked is not None and locked != member.name:
                    self._rename_member(member, locked)

        self._spawn(reload())

    def hold(self, holds: list[str], seconds: float, reason: str) -> None:
        """Another node's kick: keep out whom it keeps out, here too (and let go a session of theirs here)."""
        until = time.monotonic() + seconds
        for key in holds:
            self.kicked[key] = (until, reason)
        for member in list(self.lobby.members.values()):
            if member.connection is not None and set(self.kick_holds(member, False)) & set(holds):
                self._tell_and_close(member, "operator_kick", f"An operator removed you from this server: {reason}",
                                     {"reason": reason})

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("operators: a command for every node failed")

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        """Queue one statement (SQL both back ends take), in order with every other write."""
        if self.storage is not None:
            self.storage.submit(lambda db: db.run(sql, args))

    def _audit(self, operator: OperatorSession, action: str, target: str, detail: str) -> None:
        at = time.time()
        log.warning("operator %s (%s): %s %s %s", clean_text(operator.name), operator.identity, action,
                    clean_text(target), clean_text(detail))
        if self.on_action is not None:
            self.on_action(action)
        if self.storage is None:
            self.log_rows.append({"id": len(self.log_rows) + 1, "at": int(at), "operator": operator.identity,
                                  "operator_name": operator.name, "action": action, "target": target,
                                  "detail": detail})
            return
        self._write("INSERT INTO moderation_log(at, operator, operator_name, action, target, detail) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (at, operator.identity, operator.name, action, target, detail))

    # --- keys of people -----------------------------------------------------------------------------
    @staticmethod
    def owner_key(member: Member) -> str | None:
        """Whose mutes and blocks these are: a key's player by their identity, a guest by their token."""
        if member.identity is not None:
            return member.identity
        return f"token:{member.token_hash}" if member.token_hash else None

    @staticmethod
    def target_key(member: Member) -> str:
        """How a mute or block names a player: their identity, else (a guest) their name."""
        return member.identity if member.identity is not None else f"name:{name_key(member.name)}"

    def _name_target(self, sender: str) -> str:
        """The target key of a chat line's sender, by the name it was said under."""
        owned = self.lobby.names.owner(sender)
        return owned[1] if owned is not None and owned[0] == sender else f"name:{name_key(sender)}"

    # --- the door -----------------------------------------------------------------------------------------
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
                self._lift(ban.kind, ban.value)
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

    def at_the_door(self, connection: Door, hello: Hello) -> Hello | None:
        """A hello about to be let in (its key, if any, proven): refused if banned; an operator's session
        (``hello.admin``) is welcomed here, outside the lobby (None); else the hello as the lobby should
        take it (a locked name instead of the one asked for), its name checked against the deny list."""
        identity = connection.identity
        connection.client_name = clean_text(hello.client or "")[:64]  # a front's names its worker
        resume_hash = token_hash(hello.resume) if hello.resume and identity is None else None
        refusal = self.banned(identity, connection.address, resume_hash)
        if refusal is not None:
            log.warning("%s: refused: %s", connection.peer, refusal.reason)
            raise refusal
        if hello.admin:
            self._open_operator_session(connection, identity)
            return None
        if identity is not None and identity in self.locks:
            return dataclasses.replace(hello, name=self.locks[identity])
        if self.deny.words and not self._comes_back(identity, hello):
            try:
                name = check_name(hello.name)
            except ProtocolError:
                return hello  # the lobby says what is wrong with it
            word = self.deny.denied(name)
            if word is not None and (identity is None or self.lobby.names.name_of(identity) != name):
                raise refuse("bad_name", f"the name {name!r} is not allowed on this server; choose another",
                             why="denied", name=name)
        return hello

    def _comes_back(self, identity: str | None, hello: Hello) -> bool:
        """The hello brings back a player the lobby knows (whose name it then ignores). A key's own name,
        taken before its word was listed, stays its own too (at_the_door)."""
        if identity is not None:
            return identity in self.lobby.by_identity
        resume = hello.resume
        known = self.lobby.by_token.get(token_hash(resume)) if resume else None
        return known is not None and known.identity is None

    def _open_operator_session(self, connection: Door, identity: str | None) -> None:
        if identity is None or identity not in self.admins:
            shown = identity or "no key"
            raise refuse("not_operator", f"{shown} is not an operator's key on this server (operators are listed "
                                         "in the file of ono99 serve --admins)", fatal=True,
                         why="key" if identity else "no_key", fingerprint=identity or "")
        name = self.lobby.names.name_of(identity) or self.operator_names.get(identity) or "operator"
        member = Member(name, "", self.lobby.config, identity)
        # A member of no lobby: the connection keeps its idle timeout, and nothing of the lobby knows it.
        member.connection = connection.link
        connection.operator = OperatorSession(identity, name, member)
        self.sessions = {c for c in self.sessions if not c.closed} | {connection}
        connection.let_in(member)
        connection.send(wire.Welcome(version=PROTOCOL_VERSION, server=self.lobby.config.name, name=name, resume="",
                                     resumed=False, table=None, identity=identity))
        log.info("%s: operator session of %s", connection.peer, identity)

    def welcomed(self, member: Member) -> None:
        """A player just welcomed: the message of the day, and their mutes and blocks."""
        if self.motd:
            member.send(wire.Notice(table=None, text=f"Message of the day: {self.motd}", code="motd",
                                    params={"text": self.motd}))
        key = self.owner_key(member)
        ignores = self.ignores.get(key) if key is not None else None
        operator = member.identity is not None and member.identity in self.admins
        if (ignores is not None and (ignores.muted or ignores.blocked)) or operator:
            self.send_safety(member)

    def send_safety(self, member: Member) -> None:
        key = self.owner_key(member)
        ignores = self.ignores.get(key, Ignores()) if key is not None else Ignores()
        member.send(wire.Safety(muted=tuple(self._current_name(k, n) for k, n in ignores.muted.items()),
                                blocked=tuple(self._current_name(k, n) for k, n in ignores.blocked.items()),
                                operator=member.identity is not None and member.identity in self.admins))

    def _current_name(self, target: str, name_then: str) -> str:
        if target.startswith("name:"):
            return name_then
        return self.lobby.names.name_of(target) or name_then

    # --- chat -------------------------------------------------------------------------------------------
    def check_chat(self, member: Member, lobby_scope: bool) -> None:
        """Refuse a lobby chat line of a player an operator muted there."""
        if not lobby_scope or not self.chat_mutes:
            return
        key = self.target_key(member)
        mute = self.chat_mutes.get(key)
        if mute is None:
            return
        if mute.until is not None and mute.until <= time.time():
            del self.chat_mutes[key]
            self._write("DELETE FROM moderation_chat_mutes WHERE target = ?", (key,))
            return
        if mute.until is None:
            raise refuse("muted", f"an operator muted you in the lobby's chat: {mute.reason}", why="lobby",
                         reason=mute.reason)
        raise refuse("muted", f"an operator muted you in the lobby's chat until {when(mute.until)}: {mute.reason}",
                     why="lobby_until", reason=mute.reason, until=when(mute.until))

    def hears(self, listener: Member, speaker: Member) -> bool:
        """Whether ``listener`` is sent ``speaker``'s chat (not if they muted them)."""
        if not self.ignores:
            return True
        key = self.owner_key(listener)
        ignores = self.ignores.get(key) if key is not None else None
        return ignores is None or not ignores.muted or self.target_key(speaker) not in ignores.muted

    def hearers(self, speaker: Member, members: Iterable[Member]) -> Iterable[Member]:
        if not self.ignores:
            return members
        return [m for m in members if self.hears(m, speaker)]

    def history_for(self, member: Member, history: wire.ChatHistory) -> wire.ChatHistory:
        """A ``chat_history`` message without the lines of those ``member`` muted."""
        key = self.owner_key(member)
        ignores = self.ignores.get(key) if key is not None else None
        if ignores is None or not ignores.muted:
            return history
        kept = tuple(line for line in history.messages if self._name_target(line.sender) not in ignores.muted)
        return dataclasses.replace(history, messages=kept)

    # --- players protect themselves -----------------------------------------------------------------------
    def routes(self, route: Router) -> None:
        """The requests moderation takes (section 5b)."""
        route(Mute, self.on_mute)
        route(Block, self.on_block)
        route(Report, self.on_report)
        route(Admin, self.on_admin)

    def _find_player(self, name: str) -> tuple[str, str, Member | None]:
        """(target key, name, the member if known now) of the player called ``name``."""
        wanted = name.strip()
        lobby = self.lobby
        member = lobby.presence.holder(wanted) \
            if wanted else None
        if member is not None:
            return self.target_key(member), member.name, member
        owned = lobby.names.owner(wanted) if wanted else None
        if owned is not None:
            return owned[1], owned[0], lobby.by_identity.get(owned[1])
        raise refuse("no_player", f"nobody called {clean_text(wanted)[:64]!r} is on this server", why="name",
                     name=clean_text(wanted)[:64])

    def _ignore(self, kind: str, member: Member, request: Mute | Block) -> None:
        owner = self.owner_key(member)
        target, name, _ = self._find_player(request.name)
        if owner is None:
            raise refuse("no_identity", "a guest has no profile: connect with a key to be rated")
        if target == self.target_key(member):
            raise refuse("bad_target", "that is you", why="self")
        ignores = self.ignores.setdefault(owner, Ignores())
        kept = ignores.muted if kind == "mute" else ignores.blocked
        if request.on is None or request.on:
            kept[target] = name
            self._write("INSERT INTO moderation_ignores(kind, owner, target, target_name, at) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT(kind, owner, target) DO UPDATE SET target_name = excluded.target_name, "
                        "at = excluded.at", (kind, owner, target, name, time.time()))
        else:
            kept.pop(target, None)
            self._write("DELETE FROM moderation_ignores WHERE kind = ? AND owner = ? AND target = ?",
                        (kind, owner, target))
        self.send_safety(member)

    def on_mute(self, member: Member, request: Mute) -> None:
        self._ignore("mute", member, request)

    def on_block(self, member: Member, request: Block) -> None:
        self._ignore("block", member, request)

    def may_join(self, member: Member, table: Table) -> None:
        """Refuse a player the host of a private table blocked."""
        host = table.host_member
        if not table.private or host is None or host is member or not self.ignores:
            return
        key = self.owner_key(host)
        ignores = self.ignores.get(key) if key is not None else None
        if ignores is not None and self.target_key(member) in ignores.blocked:
            raise refuse("blocked", "the host of this table does not let you join it")

    def on_report(self, member: Member, request: Report) -> None:
        target, name, target_member = self._find_player(request.name)
        reporter = self.owner_key(member) or f"name:{name_key(member.name)}"
        if target == self.target_key(member):
            raise refuse("bad_target", "that is you", why="self")
        reason = clean_text(request.reason).strip()
        if not reason:
            raise refuse("empty_chat", "the message is empty")
        if len(reason) > MAX_CHAT:
            raise refuse("chat_too_long", f"chat messages are at most {MAX_CHAT} characters", max=MAX_CHAT)
        self._take_report(reporter)
        chat = {"lobby": self._last_lines(self.lobby.lobby_chat)}
        table = table_of(member) or (table_of(target_member) if target_member is not None else None)
        game = None
        if table is not None:
            chat["table"] = self._last_lines(table.chat)
            game = self._game_of(table)
        row = {"at": time.time(), "reporter": reporter, "reporter_name": member.name, "target": target,
               "target_name": name, "reason": reason, "chat": chat, "game": game}
        self._file_report(row)
        log.warning("report by %s on %s: %s", clean_text(member.name), clean_text(name), clean_text(reason))
        member.send(wire.Notice(table=None, text=f"Your report on {name} was sent to the operators.",
                                code="reported", params={"name": name}))

    def _take_report(self, reporter: str) -> None:
        """A token bucket per reporter: ``report_burst`` at once, then one per ``report_every`` seconds."""
        config = self.lobby.config
        now = time.monotonic()
        level, stamp = self._report_buckets.get(reporter, (float(config.report_burst), now))
        level = min(float(config.report_burst), level + (now - stamp) / config.report_every)
        if level < 1:
            wait = max(1, round((1 - level) * config.report_every))
            raise refuse("rate_limited", f"you sent too many reports; you can send another in {wait} s",
                         why="report", seconds=wait)
        self._report_buckets[reporter] = (level - 1, now)

    @staticmethod
    def _last_lines(room: ChatRoom) -> list[dict[str, Any]]:
        lines: list[ChatLine] = list(room.lines)[-REPORT_CHAT_LINES:]
        return [{"from": line.sender, "text": line.text, "at": line.at} for line in lines]

    @staticmethod
    def _game_of(table: Table) -> dict[str, Any] | None:
        if table.game is None:
            return None
        players = [RecordPlayer(p["name"], p["kind"]) for p in table.players] \
            if len(table.players) == table.seat_count else \
            [RecordPlayer(s.name or f"seat {i}", "human" if s.kind == "human" else f"bot:{s.level}")
             for i, s in enumerate(table.seats)]
        return {"table": table.id, "game_no": table.game_no, "record": game_to_record(table.game, players, table.seed)}

    def _file_report(self, row: dict[str, Any]) -> None:
        if self.storage is None:
            self.reports.append({**row, "id": len(self.reports) + 1, "resolved_by": None})
            return
        self._write("INSERT INTO moderation_reports(at, reporter, reporter_name, target, target_name, reason, chat, "
                    "game) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (row["at"], row["reporter"], row["reporter_name"], row["target"], row["target_name"],
                     row["reason"], json.dumps(row["chat"], ensure_ascii=False),
                     None if row["game"] is None else json.dumps(row["game"], ensure_ascii=False)))

    # --- operators ----------------------------------------------------------------------------------------
    def operator_message(self, connection: Door, request: Request) -> None:
        """A request on an operator's session: ``admin`` and ``ping`` only."""
        assert connection.member is not None
        if isinstance(request, Ping):
            connection.send(wire.Pong(n=request.n))
        elif isinstance(request, Admin):
            self.on_admin(connection.member, request)
        else:
            raise refuse("unknown_type", f"an operator's session takes admin and ping, not {request.t!r}")

    def on_admin(self, member: Member, request: Admin) -> None:
        """An operator's command; answered with ``admin_result`` (or an ``error`` with ref ``admin``)."""
        if member.identity is None or member.identity not in self.admins:
            raise refuse("not_operator", "only the server's operators can do that", why="member",
                         fingerprint=member.identity or "")
        refusal = self.banned(member.identity, address_of(member.connection))
        if refusal is not None:
            raise refusal
        operator = OperatorSession(member.identity, member.name, member)
        command = request.command
        try:
            answer = self._run(operator, request)
        except ProtocolError as exc:
            if self.relay is None or command not in ROUTED or exc.code not in NOT_HERE:
                raise
            self._spawn(self._ask_the_others(operator, request, exc))  # its player or table may be at another node
            return
        if answer is not None and self.relay is not None and command in GATHERED:
            self._spawn(self._gather(operator, request, answer))
        elif answer is not None:
            member.send(_admin_result(command, answer))

    def _run(self, operator: OperatorSession, request: Admin) -> dict[str, Any] | None:
        handler: Callable[[OperatorSession, Admin], dict[str, Any] | None] = getattr(self, f"_admin_{request.command}")
        answer = handler(operator, request)
        if self.relay is not None and request.command in KEPT and not (request.command == "motd" and
                                                                       request.text is None):
            self.relay.changed()
        return answer

    def for_another_node(self, identity: str, name: str, request: dict[str, Any]) -> dict[str, Any]:
        """Carry out an operator's command given at another node: its answer (``_result``), or
        ``error`` (code, reason, params)."""
        try:
            admin = decode_request(request)
            if not isinstance(admin, Admin) or admin.command not in ROUTED | GATHERED:
                raise refuse("bad_field", "admin: not a command for every node", why="value", message="admin",
                             field="command")
            if identity not in self.admins:
                raise refuse("not_operator", "only the server's operators can do that", why="member",
                             fingerprint=identity)
            self._for_a_node = True
            try:
                answer = self._run(OperatorSession(identity, name, Member(name, "", self.lobby.config, identity)),
                                   admin)
            finally:
                self._for_a_node = False
            assert answer is not None
            return answer
        except ProtocolError as exc:
            return {"error": [exc.code, exc.reason, dict(exc.params or {})]}

    async def _ask_the_others(self, operator: OperatorSession, request: Admin, here: ProtocolError) -> None:
        assert self.relay is not None
        answers = await self.relay.ask_others((operator.identity, operator.name), request.to_wire(), only_one=True)
        done = next((a for a in answers if "error" not in a), None)
        if done is not None:
            operator.member.send(_admin_result(request.command, done))
            return
        code, reason, params = next((a["error"] for a in answers if a["error"][0] not in NOT_HERE),
                                    (here.code, here.reason, dict(here.params or {})))
        operator.member.send(wire.ErrorMessage(code=str(code), reason=str(reason), ref="admin", params=dict(params)))

    async def _gather(self, operator: OperatorSession, request: Admin, answer: dict[str, Any]) -> None:
        assert self.relay is not None
        answers = [a for a in await self.relay.ask_others((operator.identity, operator.name), request.to_wire(),
                                                          only_one=False) if "error" not in a]
        if request.command == "who":
            rows = sorted([*answer["rows"], *(row for a in answers for row in a["rows"])],
                          key=lambda row: str(row["name"]).casefold())
            answer = self._result(f"{len(rows)} players", rows)
        else:
            sent = int(answer["params"]["sent"]) + sum(int(a["params"]["sent"]) for a in answers)
            answer = self._result(f"sent to {sent} players", sent=sent)
        operator.member.send(_admin_result(request.command, answer))

    @staticmethod
    def _result(english: str, rows: list[dict[str, str | int]] | None = None, **params: str | int) -> dict[str, Any]:
        """An ``admin_result``'s fields: the English ``text``, the ``params`` it names, and ``rows``."""
        return {"text": english, "params": params, "rows": rows or []}

    def _target(self, request: Admin, required: bool = True) -> tuple[str, str, Member | None]:
        """(identity or guest key, name, member) of an operator's ``target``: a key fingerprint or a name."""
        target = (request.target or "").strip()
        if not target:
            if required:
                raise refuse("bad_field", "admin: field 'target' is missing", why="missing", message="admin",
                             field="target")
            return "", "", None
        if target.startswith("SHA256:"):
            member = self.lobby.by_identity.get(target)
            name = member.name if member is not None else self.lobby.names.name_of(target)
            if name is None and target in self.admins:
                name = "operator"
            if name is None:
                raise refuse("no_player", f"no player has the key {target[:64]}", why="identity",
                             name=target[:64])
            return target, name, member
        return self._find_player(target)

    def _admin_who(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        rows: list[dict[str, str | int]] = []
        for member in sorted(self.lobby.members.values(), key=lambda m: m.name.casefold()):
            connection = member.connection
            rows.append({"name": member.name, "identity": member.identity or "",
                         "address": address_of(connection),
                         "listener": listener_of(connection), "table": member.table.id if member.table else 0,
                         "away": int(connection is None)})
        return self._result(f"{len(rows)} players", rows)

    def _admin_kick(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        key, name, member = self._target(request)
        if member is None or member.connection is None:
            raise refuse("no_player", f"{name} is not connected", why="offline", name=name)
        if member.identity == operator.identity:
            raise refuse("bad_target", "that is you", why="self")
        reason = self._reason(request)
        holds = self.kick_holds(member, bool(request.all))
        for hold in holds:
            self.kicked[hold] = (time.monotonic() + KICK_HOLD, reason)
        if self.relay is not None:  # kept out at every node
            self.relay.kicked(holds, KICK_HOLD, reason)
        self._tell_and_close(member, "operator_kick", f"An operator removed you from this server: {reason}",
                             {"reason": reason})
        self._audit(operator, "kick", f"{name} ({key})", reason)
        return self._result(f"kicked {name}", name=name, seconds=int(KICK_HOLD))

    @staticmethod
    def kick_holds(member: Member, address_too: bool) -> list[str]:
        """Whom a kick of ``member`` keeps out: their key, or a guest's resume token, and (a guest, when
        the operator asks: ``all``) their address; never the others of an address, nor an operator."""
        if member.identity is not None:
            return [member.identity]
        address = address_of(member.connection)
        return [f"token:{member.token_hash}", *([f"address:{address}"] if address_too and address else [])]

    def _tell_and_close(self, member: Member, code: str, text: str, params: dict[str, str | int]) -> None:
        member.send(wire.Notice(table=None, text=text, code=code, params=params))
        if member.connection is not None:
            member.connection.close(text)

    @staticmethod
    def _reason(request: Admin) -> str:
        reason = clean_text(request.reason or "").strip()
        if not reason:
            raise refuse("bad_field", "admin: say why (field 'reason'): the player is told", why="missing",
                         message="admin", field="reason")
        return reason

    def _until(self, request: Admin) -> float | None:
        seconds = request.seconds or 0
        return None if seconds <= 0 else time.time() + seconds

    def _admin_ban(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        reason = self._reason(request)
        until = self._until(request)
        address = (request.address or "").strip()
        if address:
            network, value = _banned_network(address)
            mine = [c.address for c in self._operator_connections(operator.identity)]
            if any(_in(a, network) for a in mine):
                raise refuse("bad_target", "that would ban your own address", why="own_address")
            ban = Ban("address", value, reason, until, operator.identity, time.time())
            target_text = value
            hit = [m for m in self.lobby.members.values()
                   if m.connection is not None and _in(address_of(m.connection), network)]
        else:
            key, name, member = self._target(request)
            if key.startswith("name:"):
                raise refuse("bad_target", f"{name} is a guest, who has no key: ban their address", why="guest",
                             name=name)
            if key == operator.identity:
                raise refuse("bad_target", "you cannot ban yourself", why="self")
            ban = Ban("identity", key, reason, until, operator.identity, time.time())
            target_text = f"{name} ({key})"
            hit = [m for m in self.lobby.members.values() if m.identity == key and m.connection is not None]
            hit += [self._session_member(c) for c in self._operator_connections(key)]
        self.bans[(ban.kind, ban.value)] = ban
        self._write("INSERT INTO moderation_bans(kind, value, reason, ends_at, by_identity, at) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(kind, value) DO UPDATE SET reason = excluded.reason, "
                    "ends_at = excluded.ends_at, by_identity = excluded.by_identity, at = excluded.at",
                    (ban.kind, ban.value, ban.reason, ban.until, ban.by, ban.at))
        text = f"banned you from this server{' until ' + when(until) if until else ''}: {reason}"
        for member in hit:
            self._tell_and_close(member, "operator_ban", f"An operator {text}",
                                 {"reason": reason, "until": when(until)})
        self._audit(operator, "ban", target_text, f"{when(until) or 'for good'}: {reason}")
        return self._result(f"banned {target_text}{' until ' + when(until) if until else ' for good'}",
                            target=target_text, until=when(until), hit=len(hit))

    def _operator_connections(self, identity: str) -> list[Door]:
        return [c for c in self.sessions if not c.closed and c.operator is not None and c.operator.identity == identity]

    @staticmethod
    def _session_member(connection: Door) -> Member:
        assert connection.member is not None
        return connection.member

    def _lift(self, kind: str, value: str) -> Ban | None:
        ban = self.bans.pop((kind, value), None)
        self._write("DELETE FROM moderation_bans WHERE kind = ? AND value = ?", (kind, value))
        return ban

    def _admin_unban(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        address = (request.address or "").strip()
        if address:
            _, value = _banned_network(address)
            kind, shown = "address", value
        else:
            value, name, _ = self._target(request)
            kind, shown = "identity", f"{name} ({value})"
        self.kicked.pop(value, None)
        self.kicked.pop(f"address:{value}", None)
        if self._lift(kind, value) is None:
            raise refuse("not_banned", f"{shown} is not banned", name=shown)
        self._audit(operator, "unban", shown, "")
        return self._result(f"unbanned {shown}", target=shown)

    def _admin_bans(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        now = time.time()
        rows: list[dict[str, str | int]] = [
            {"kind": b.kind, "value": b.value, "name": self.lobby.names.name_of(b.value) or "" if b.kind == "identity"
             else "", "until": when(b.until) or "for good", "reason": b.reason, "by": b.by}
            for b in sorted(self.bans.values(), key=lambda b: b.at) if b.active(now)]
        return self._result(f"{len(rows)} bans", rows)

    def _admin_mute(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        key, name, member = self._target(request)
        reason = self._reason(request)
        until = self._until(request)
        self.chat_mutes[key] = ChatMute(reason, until)
        self._write("INSERT INTO moderation_chat_mutes(target, reason, ends_at, by_identity, at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT(target) DO UPDATE SET reason = excluded.reason, "
                    "ends_at = excluded.ends_at, by_identity = excluded.by_identity, at = excluded.at",
                    (key, reason, until, operator.identity, time.time()))
        if member is not None:
            member.send(wire.Notice(table=None, text=f"An operator muted you in the lobby's chat: {reason}",
                                    code="chat_muted", params={"reason": reason}))
        self._audit(operator, "mute", f"{name} ({key})", f"{when(until) or 'for good'}: {reason}")
        return self._result(f"muted {name} in the lobby's chat{' until ' + when(until) if until else ''}",
                            name=name, until=when(until))

    def _admin_unmute(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        key, name, _ = self._target(request)
        if self.chat_mutes.pop(key, None) is None:
            raise refuse("not_muted", f"{name} is not muted", name=name)
        self._write("DELETE FROM moderation_chat_mutes WHERE target = ?", (key,))
        self._audit(operator, "unmute", f"{name} ({key})", "")
        return self._result(f"unmuted {name}", name=name)

    def _admin_rename(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        key, old, member = self._target(request)
        if key.startswith("name:"):
            raise refuse("bad_target", f"{old} is a guest, who has no key: kick or ban them", why="guest_rename",
                         name=old)
        new = check_name(request.name or "")
        lobby = self.lobby
        holder = lobby.presence.holder(new)
        if holder is not None and holder.identity != key:
            raise ProtocolError("name_taken", same_name_refusal(new, holder.name),
                                params=name_taken_params(new, holder.name))
        lobby.names.check(new, key)
        lobby.names.claim(key, new)
        self.locks[key] = new
        self._write("INSERT INTO moderation_name_locks(identity, name, by_identity, at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(identity) DO UPDATE SET name = excluded.name, by_identity = excluded.by_identity, "
                    "at = excluded.at",
                    (key, new, operator.identity, time.time()))
        if member is not None:
            self._rename_member(member, new)
        self._audit(operator, "rename", f"{old} ({key})", new)
        return self._result(f"renamed {old} to {new}, locked", old=old, new=new)

    def _admin_release(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        """Free the name a key owns (a squatted one, say): anyone may take it; its player, if online,
        keeps it until they leave."""
        key, name, member = self._target(request)
        if key.startswith("name:"):
            raise refuse("bad_target", f"{name} is a guest, whose name is free once they leave", why="guest_release",
                         name=name)
        self.lobby.names.release(key)
        if self.locks.pop(key, None) is not None:
            self._write("DELETE FROM moderation_name_locks WHERE identity = ?", (key,))
        self._audit(operator, "release", f"{name} ({key})", "")
        if member is not None:  # the name is theirs for as long as they stay
            return self._result(f"released the name {name}; {name} is online and keeps it until they leave, "
                                "then anyone may take it", name=name, online=1)
        return self._result(f"released the name {name}; anyone may take it now", name=name)

    def _rename_member(self, member: Member, new: str) -> None:
        """``member`` goes by ``new`` from now on, in the lobby and at their table; their app is told
        and reconnects, to be welcomed under that name."""
        lobby = self.lobby
        lobby.presence.rename(member, new)
        table = table_of(member)
        if table is not None:
            for seat in table.seats:
                if seat.member is member:
                    seat.name = new
            table.changed()
        lobby.online_changed()
        self._tell_and_close(member, "renamed", f"An operator renamed you to {new}.", {"name": new})

    def _admin_close(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        table_id = request.table
        lobby = self.lobby
        table = lobby.tables.get(table_id) if isinstance(table_id, int) else None
        if table is None:
            raise refuse("no_table", f"there is no table {table_id!r}", why="id")
        reason = self._reason(request)
        notice = wire.encode_message(wire.Notice(table=None, text=f"An operator closed your table: {reason}",
                                                 code="table_closed", params={"reason": reason}))
        people = {s.member for s in table.seats if s.member is not None} | set(table.spectators) | set(table.waiting)
        lobby.directory.drop(table)
        for member in people:
            if member.table is table:
                member.table = None
            member.send(wire.Left(table=table.id))
            member.send_frame(notice)
            if member.connection is not None:
                member.send(lobby.tables_message())
            lobby.forget_if_idle(member)
        lobby.tables_changed()
        self._audit(operator, "close", f"table {table.id} ({table.name})", reason)
        return self._result(f"closed table {table.id}", table=table.id, name=table.name, people=len(people))

    def _admin_motd(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        if request.text is None:
            return self._result(self.motd, text=self.motd)
        text = clean_text(request.text).strip()
        self.motd = text
        self._write("INSERT INTO moderation_settings(key, value) VALUES ('motd', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (text,))
        self._audit(operator, "motd", "", text)
        return self._result(f"message of the day: {text}" if text else "no message of the day", text=text)

    def _admin_notice(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        text = clean_text(request.text or "").strip()
        if not text:
            raise refuse("bad_field", "admin: field 'text' is missing", why="missing", message="admin", field="text")
        frame = wire.encode_message(wire.Notice(table=None, text=f"Notice from the host: {text}", code="host_notice",
                                                params={"text": text}))
        sent = 0
        for member in self.lobby.members.values():
            if member.connection is not None:
                member.send_frame(frame)
                sent += 1
        if not self._for_a_node:  # logged once, by the node the operator spoke to
            self._audit(operator, "notice", "", text)
        return self._result(f"sent to {sent} players", sent=sent)

    def _admin_reports(self, operator: OperatorSession, request: Admin) -> dict[str, Any] | None:
        """The open reports (``all``: closed ones too), newest last, without their chat and game; with
        ``id``, that one report whole: its chat lines, and its game's record (zlib, then base64)."""
        every, one = bool(request.all), request.id
        if self.storage is None:
            rows = [r for r in self.reports if (every or r["resolved_by"] is None) if one is None or r["id"] == one]
            return self._reports_result(rows[-LIST_LIMIT:], one)

        async def read(db: Database) -> list[dict[str, Any]]:
            where = "WHERE id = ?" if one is not None else "" if every else "WHERE resolved_by IS NULL"
            names = ("id", "at", "reporter", "reporter_name", "target", "target_name", "reason", "chat", "game",
                     "resolved_by")
            out = []
            for values in await db.rows(f"SELECT {', '.join(names)} FROM moderation_reports {where} "
                                        "ORDER BY id DESC LIMIT ?",
                                        (one, LIST_LIMIT) if one is not None else (LIST_LIMIT,)):
                row = dict(zip(names, values, strict=True))
                row["chat"] = json.loads(row["chat"])
                row["game"] = json.loads(row["game"]) if row["game"] else None
                out.append(row)
            return out[::-1]

        self._answer_later(operator.member, "reports", read, lambda rows: self._reports_result(rows, one))
        return None

    def _reports_result(self, rows: list[dict[str, Any]], one: Any) -> dict[str, Any]:
        if one is not None and not rows:
            return {"error": ("no_report", f"there is no report {one}", {"id": one})}
        return self._result(f"{len(rows)} reports", [_report_row(r, whole=one is not None) for r in rows])

    def _admin_resolve(self, operator: OperatorSession, request: Admin) -> dict[str, Any] | None:
        report_id = request.id
        if not isinstance(report_id, int):
            raise refuse("bad_field", "admin: field 'id' is missing", why="missing", message="admin", field="id")
        if self.storage is None:
            found = next((r for r in self.reports if r["id"] == report_id), None)
            if found is None:
                raise refuse("no_report", f"there is no report {report_id}", id=report_id)
            found["resolved_by"] = operator.identity
            self._audit(operator, "resolve", f"report {report_id}", "")
            return self._result(f"report {report_id} closed", id=report_id)

        async def write(db: Database) -> int:
            async with db.transaction():
                if await db.row("SELECT id FROM moderation_reports WHERE id = ?", (report_id,)) is None:
                    return 0
                await db.run("UPDATE moderation_reports SET resolved_by = ? WHERE id = ?",
                             (operator.identity, report_id))
                return 1

        def answer(count: int) -> dict[str, Any]:
            if not count:
                return {"error": ("no_report", f"there is no report {report_id}", {"id": report_id})}
            self._audit(operator, "resolve", f"report {report_id}", "")
            return self._result(f"report {report_id} closed", id=report_id)

        self._answer_later(operator.member, "resolve", write, answer)
        return None

    def _admin_log(self, operator: OperatorSession, request: Admin) -> dict[str, Any] | None:
        if self.storage is None:
            return self._result(f"{len(self.log_rows[-LIST_LIMIT:])} entries", self.log_rows[-LIST_LIMIT:])

        async def read(db: Database) -> list[dict[str, Any]]:
            rows = await db.rows("SELECT id, at, operator, operator_name, action, target, detail FROM moderation_log "
                                 "ORDER BY id DESC LIMIT ?", (LIST_LIMIT,))
            return [{"id": int(i), "at": int(at), "operator": str(o), "operator_name": str(n), "action": str(a),
                     "target": str(t), "detail": str(d)} for i, at, o, n, a, t, d in rows[::-1]]

        self._answer_later(operator.member, "log", read, lambda rows: self._result(f"{len(rows)} entries", rows))
        return None

    def _answer_later(self, member: Member, command: str, read: Callable[[Database], Awaitable[Any]],
                      answer: Callable[[Any], dict[str, Any]]) -> None:
        import asyncio

        assert self.storage is not None
        storage = self.storage

        async def run() -> None:
            result = answer(await storage.call(read))
            error = result.get("error")
            if error is not None:
                code, reason, params = error
                member.send(wire.ErrorMessage(code=code, reason=reason, ref="admin", params=params))
                return
            member.send(_admin_result(command, result))

        asyncio.get_running_loop().create_task(run())


@dataclass(slots=True)
class Kept:
    """What moderation keeps in the database (the store's schema version 2, server/ono99_server/storage.py and
    storage_pg.py), as read at the start and again when another node changed it."""

    bans: dict[tuple[str, str], Ban] = field(default_factory=dict)
    chat_mutes: dict[str, ChatMute] = field(default_factory=dict)
    locks: dict[str, str] = field(default_factory=dict)
    ignores: dict[str, Ignores] = field(default_factory=dict)
    motd: str = ""


async def _read_kept(db: Database) -> Kept:
    kept = Kept()
    for kind, value, reason, until, by, at in await db.rows(
            "SELECT kind, value, reason, ends_at, by_identity, at FROM moderation_bans"):
        kept.bans[(str(kind), str(value))] = Ban(str(kind), str(value), str(reason), _time(until), str(by), float(at))
    for target, reason, until in await db.rows("SELECT target, reason, ends_at FROM moderation_chat_mutes"):
        kept.chat_mutes[str(target)] = ChatMute(str(reason), _time(until))
    for identity, name in await db.rows("SELECT identity, name FROM moderation_name_locks"):
        kept.locks[str(identity)] = str(name)
    for kind, owner, target, name in await db.rows(
            "SELECT kind, owner, target, target_name FROM moderation_ignores ORDER BY at"):
        ignores = kept.ignores.setdefault(str(owner), Ignores())
        (ignores.muted if kind == "mute" else ignores.blocked)[str(target)] = str(name)
    row = await db.row("SELECT value FROM moderation_settings WHERE key = 'motd'")
    kept.motd = str(row[0]) if row else ""
    return kept


def _admin_result(command: str, answer: dict[str, Any]) -> wire.AdminResult:
    """An ``admin_result`` of a command's answer (``Moderation._result``)."""
    return wire.AdminResult(command=command, text=answer["text"], params=answer["params"], rows=tuple(answer["rows"]))


def _time(value: float | None) -> float | None:
    """A REAL column's value: a number or NULL."""
    return None if value is None else float(value)


def _banned_network(address: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str]:
    """An operator's address or network (CIDR) to ban or unban, and how a ban row names it: the
    network, or the lone address it holds."""
    try:
        network = ipaddress.ip_network(address, strict=False)
    except ValueError:
        raise refuse("bad_field", f"admin: {address[:64]!r} is not an address or network", why="value",
                     message="admin", field="address") from None
    return network, str(network) if network.num_addresses > 1 else str(network.network_address)


def _in(address: str, network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> bool:
    try:
        return ipaddress.ip_address(address) in network
    except ValueError:
        return False


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
    """The session a member's link drives: both adapters (server/ono99_server/connection.py, server/ono99_server/local.py) keep
    theirs as ``session``; None when away (or for a link without one)."""
    return cast("Door | None", getattr(link, "session", None))


def address_of(link: Link | None) -> str:
    """Where a member's link comes from (its front's word for an SSH player); "" when away."""
    session = session_of(link)
    return session.address if session is not None else ""


def _report_row(row: dict[str, Any], whole: bool) -> dict[str, str | int]:
    """A report as ``admin_result`` lists it: ``whole`` with its chat lines and its game's record."""
    chat = row["chat"]
    lines = [f"[{room}] {line['from']}: {line['text']}" for room in ("lobby", "table") for line in chat.get(room, [])]
    game = row["game"]
    out: dict[str, str | int] = {
        "id": int(row["id"]), "at": int(row["at"]), "reporter": str(row["reporter_name"]),
        "reporter_identity": str(row["reporter"]), "target": str(row["target_name"]),
        "target_identity": str(row["target"]), "reason": str(row["reason"]), "chat_lines": len(lines),
        "game": "" if game is None else f"table {game['table']}, game {game['game_no']}",
        "resolved": int(row["resolved_by"] is not None)}
    if whole:
        out["chat"] = "\n".join(lines)
        record = b"" if game is None else zlib.compress(json.dumps(game["record"], ensure_ascii=False).encode())
        out["record"] = base64.b64encode(record).decode() if len(record) <= MAX_RECORD_BYTES else ""
    return out
