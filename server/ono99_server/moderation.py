"""Running a public host: operators, bans, kicks, chat mutes, renames, reports, the names deny list
and the audit log (docs/server.md, "Running a public host"; docs/protocol.md, section 5b).

``Moderation`` puts its parts together, each with one job: who is kept out or quiet
(server/ono99_server/moderation_bans.py), players' own mutes and blocks (server/ono99_server/moderation_safety.py),
their
reports (server/ono99_server/moderation_reports.py) and the operators' commands
(server/ono99_server/moderation_commands.py);
what they share is in server/ono99_server/moderation_ports.py. Here: the door and the names deny list, what is
kept in the database read at the start and again when another node changed it, and what the lobby
asks of moderation.

Bans hold at the door of every listener: ``at_the_door`` runs for each hello that is about to be
let in, whether it came over TCP or from an SSH front (which asserts the player's key and address),
so any later listener that says hello the same way is covered too. Bans, chat mutes, name locks,
players' own mutes and blocks, reports, the message of the day and the log are kept in the
server's database (``moderation_*`` tables), so they survive a restart; a server without a
database keeps them in memory.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ono99_kernel.access import read_listed_keys
from ono99_kernel.protocol import ProtocolError, check_name, clean_text
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import Admin, Block, Hello, Mute, Report, Request

from .members import Member, token_hash
from .moderation_bans import Ban, Bans, ChatMute
from .moderation_commands import OperatorCommands
from .moderation_ports import (
    Door,
    ModerationHost,
    OperatorRelay,
    OperatorSession,
    address_of,
    listener_of,
    owner_key,
    refuse,
    session_of,
    target_key,
    tell_and_close,
)
from .moderation_reports import Reports
from .moderation_safety import Ignores, Safety
from .name_claims import name_keys

if TYPE_CHECKING:
    from .routes import Router
    from .storage import Database
    from .table_room import Table

__all__ = ["Door", "Moderation", "ModerationHost", "NamesDenyList", "OperatorRelay", "OperatorSession", "address_of",
           "listener_of", "read_admins", "session_of"]

log = logging.getLogger("ono99.moderation")


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


class Moderation:
    """What the lobby asks of moderation, each question answered by the part whose job it is."""

    def __init__(self, lobby: ModerationHost) -> None:
        self.lobby = lobby
        self.storage = lobby.storage
        config = lobby.config
        operator_names = read_admins(config.admins) if config.admins is not None else {}  # the keys' comments
        self.deny = NamesDenyList()
        if config.names_deny is not None:
            try:
                self.deny = NamesDenyList.read(config.names_deny)
            except OSError as exc:
                raise ValueError(f"--names-deny: cannot read {config.names_deny}: {exc.strerror or exc}") from None
            except ValueError as exc:
                raise ValueError(f"--names-deny: {exc}") from None
        self.sanctions = Bans(self.storage)
        self.safety = Safety(lobby, set(operator_names))
        self.reports = Reports(lobby, self.safety)
        self.commands = OperatorCommands(lobby, operator_names, self.sanctions, self.safety, self.reports)
        self.safety.admins = self.commands.admins  # one set: an operator's app is told it is one
        if self.storage is not None:
            self._keep(self.storage.run_now(_read_kept))

    # --- what the other parts of the server read and set ------------------------------------------------
    @property
    def admins(self) -> set[str]:
        """The operators' key fingerprints."""
        return self.commands.admins

    @admins.setter
    def admins(self, admins: set[str]) -> None:
        self.commands.admins = self.safety.admins = admins

    @property
    def operator_names(self) -> dict[str, str]:
        return self.commands.operator_names

    @property
    def bans(self) -> dict[tuple[str, str], Ban]:
        return self.sanctions.bans

    @property
    def for_operators(self) -> dict[type, Callable[[Member, Any], None]]:
        """Requests an operator's session takes beside admin and ping (an arena's creation), by their type."""
        return self.commands.for_operators

    @property
    def sessions(self) -> set[Door]:
        """Operators' own sessions (ono99 admin)."""
        return self.commands.sessions

    @property
    def on_action(self) -> Callable[[str], None] | None:
        return self.commands.on_action

    @on_action.setter
    def on_action(self, told: Callable[[str], None] | None) -> None:
        self.commands.on_action = told  # each operator action (metrics)

    @property
    def relay(self) -> OperatorRelay | None:
        return self.commands.relay

    @relay.setter
    def relay(self, relay: OperatorRelay | None) -> None:
        self.commands.relay = relay  # one node of several: the others (server/ono99_server/cluster_operators.py)

    # --- the database ---------------------------------------------------------------------------------
    def _keep(self, kept: Kept) -> None:
        sanctions = self.sanctions
        sanctions.bans, sanctions.chat_mutes, sanctions.locks = kept.bans, kept.chat_mutes, kept.locks
        self.safety.ignores, self.commands.motd = kept.ignores, kept.motd

    def reload_soon(self) -> None:
        """Another node changed what is kept: read it again; a player of this node it now bans is let go,
        one it renames is renamed."""
        storage = self.storage
        if storage is None:
            return

        async def reload() -> None:
            self._keep(await storage.call(_read_kept))
            for member in list(self.lobby.members.values()):
                refusal = self.sanctions.banned(member.identity, address_of(member.connection)) \
                    if member.connection is not None else None
                if refusal is not None and refusal.code == "banned":
                    tell_and_close(member, "operator_ban", f"An operator {refusal.reason}",
                                   {"reason": str(refusal.params.get("reason", "")),
                                    "until": str(refusal.params.get("until", ""))})
                locked = self.sanctions.locks.get(member.identity) if member.identity is not None else None
                if locked is not None and locked != member.name:
                    self.commands.rename_member(member, locked)

        self.commands.spawn(reload())

    def hold(self, holds: list[str], seconds: float, reason: str) -> None:
        """Another node's kick: keep out whom it keeps out, here too (and let go a session of theirs here)."""
        self.sanctions.hold(holds, seconds, reason)
        for member in list(self.lobby.members.values()):
            if member.connection is not None and set(self.kick_holds(member, False)) & set(holds):
                tell_and_close(member, "operator_kick", f"An operator removed you from this server: {reason}",
                               {"reason": reason})

    # --- keys of people -----------------------------------------------------------------------------
    owner_key = staticmethod(owner_key)
    target_key = staticmethod(target_key)
    kick_holds = staticmethod(Bans.kick_holds)

    # --- the door -----------------------------------------------------------------------------------------
    def banned(self, identity: str | None, address: str, resume_hash: str | None = None) -> ProtocolError | None:
        """The refusal of someone banned or kicked, or None (``Bans.banned``)."""
        return self.sanctions.banned(identity, address, resume_hash)

    def at_the_door(self, connection: Door, hello: Hello) -> Hello | None:
        """A hello about to be let in (its key, if any, proven): refused if banned; an operator's session
        (``hello.admin``) is welcomed here, outside the lobby (None); else the hello as the lobby should
        take it (a locked name instead of the one asked for), its name checked against the deny list."""
        identity = connection.identity
        connection.client_name = clean_text(hello.client or "")[:64]  # a front's names its worker
        resume_hash = token_hash(hello.resume) if hello.resume and identity is None else None
        refusal = self.sanctions.banned(identity, connection.address, resume_hash)
        if refusal is not None:
            log.warning("%s: refused: %s", connection.peer, refusal.reason)
            raise refusal
        if hello.admin:
            self.commands.open_session(connection, identity)
            return None
        locks = self.sanctions.locks
        if identity is not None and identity in locks:
            return dataclasses.replace(hello, name=locks[identity])
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

    def welcomed(self, member: Member) -> None:
        """A player just welcomed: the message of the day, and their mutes and blocks."""
        motd = self.commands.motd
        if motd:
            member.send(wire.Notice(table=None, text=f"Message of the day: {motd}", code="motd",
                                    params={"text": motd}))
        self.safety.welcomed(member)

    # --- what the lobby asks ------------------------------------------------------------------------------
    def routes(self, route: Router) -> None:
        """The requests moderation takes (section 5b)."""
        route(Mute, self.on_mute)
        route(Block, self.on_block)
        route(Report, self.on_report)
        route(Admin, self.on_admin)

    def on_mute(self, member: Member, request: Mute) -> None:
        self.safety.ignore("mute", member, request)

    def on_block(self, member: Member, request: Block) -> None:
        self.safety.ignore("block", member, request)

    def on_report(self, member: Member, request: Report) -> None:
        self.reports.on_report(member, request)

    def on_admin(self, member: Member, request: Admin) -> None:
        self.commands.on_admin(member, request)

    def operator_message(self, connection: Door, request: Request) -> None:
        """A request on an operator's session: ``admin`` and ``ping`` only."""
        self.commands.operator_message(connection, request)

    def for_another_node(self, identity: str, name: str, request: dict[str, Any]) -> dict[str, Any]:
        """Carry out an operator's command given at another node (``OperatorCommands.for_another_node``)."""
        return self.commands.for_another_node(identity, name, request)

    def send_safety(self, member: Member) -> None:
        self.safety.send_safety(member)

    def check_chat(self, member: Member, lobby_scope: bool) -> None:
        """Refuse a lobby chat line of a player an operator muted there."""
        if lobby_scope and self.sanctions.chat_mutes:
            self.sanctions.check_chat(target_key(member))

    def hears(self, listener: Member, speaker: Member) -> bool:
        """Whether ``listener`` is sent ``speaker``'s chat (not if they muted them)."""
        return self.safety.hears(listener, speaker)

    def hearers(self, speaker: Member, members: Iterable[Member]) -> Iterable[Member]:
        return self.safety.hearers(speaker, members)

    def history_for(self, member: Member, history: wire.ChatHistory) -> wire.ChatHistory:
        """A ``chat_history`` message without the lines of those ``member`` muted."""
        return self.safety.history_for(member, history)

    def may_join(self, member: Member, table: Table) -> None:
        """Refuse a player the host of a private table blocked."""
        self.safety.may_join(member, table)


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


def _time(value: float | None) -> float | None:
    """A REAL column's value: a number or NULL."""
    return None if value is None else float(value)
