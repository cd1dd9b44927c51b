"""The operators' commands (docs/server.md, "Running a public host"; docs/protocol.md, section 5b).

Operators are the keys of an OpenSSH ``authorized_keys`` file (``ono99 serve --admins FILE``). They
act through ``admin`` messages: from ``ono99 admin`` (a connection whose hello asks for an operator's
session, ``hello.admin``: it proves its key as any client does and never enters the lobby) or from
the app of a player whose key is an operator's. Every operator action is written to the audit log.
With several nodes, a command whose player or table is not here is asked of the others, and ``who``
and ``notice`` of every node (``OperatorRelay``)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ono99_kernel.protocol import PROTOCOL_VERSION, ProtocolError, check_name, clean_text
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import Admin, Ping, Request, decode_request

from .members import Member
from .moderation_bans import KICK_HOLD, Ban, Bans, banned_network, within
from .moderation_ports import (
    Door,
    ModerationHost,
    OperatorRelay,
    OperatorSession,
    address_of,
    listener_of,
    refuse,
    tell_and_close,
    when,
    write,
)
from .moderation_reports import LIST_LIMIT, report_row
from .name_claims import name_taken_params, same_name_refusal
from .table_room import table_of

if TYPE_CHECKING:
    from .moderation_reports import Reports
    from .moderation_safety import Safety
    from .storage import Database

log = logging.getLogger("ono99.moderation")

# Commands whose player or table may be at another node: asked there when not found here.
ROUTED = frozenset({"kick", "ban", "unban", "mute", "unmute", "rename", "close"})
NOT_HERE = frozenset({"no_player", "no_table"})
GATHERED = frozenset({"who", "notice"})  # asked of every node, the answers put together
KEPT = frozenset({"ban", "unban", "mute", "unmute", "rename", "motd"})  # change what every node reads again


class OperatorCommands:
    """Who the operators are, their sessions, and each of their commands, carried out here or relayed to
    the other nodes; the audit log and the message of the day."""

    def __init__(self, lobby: ModerationHost, operator_names: dict[str, str], bans: Bans, safety: Safety,
                 reports: Reports) -> None:
        self.lobby = lobby
        self.operator_names = operator_names  # the operators' keys → their comments
        self.admins: set[str] = set(operator_names)
        self.bans = bans
        self.safety = safety
        self.reports = reports
        # Requests an operator's session takes beside admin and ping, and who takes them (an arena's creation).
        self.for_operators: dict[type, Callable[[Member, Any], None]] = {}
        self.motd = ""
        self.log_rows: list[dict[str, Any]] = []  # without a database
        self.sessions: set[Door] = set()  # operators' own sessions (ono99 admin)
        self.on_action: Callable[[str], None] | None = None  # told each operator action (metrics)
        # one node of several: the others (server/ono99_server/cluster_operators.py)
        self.relay: OperatorRelay | None = None
        self._for_a_node = False  # carrying out a command another node was given
        self._tasks: set[asyncio.Task[None]] = set()

    def open_session(self, connection: Door, identity: str | None) -> None:
        """Welcome an operator's own session (``hello.admin``), outside the lobby; refused for another key."""
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

    def operator_message(self, connection: Door, request: Request) -> None:
        """A request on an operator's session: ``admin`` and ``ping`` only."""
        assert connection.member is not None
        if isinstance(request, Ping):
            connection.send(wire.Pong(n=request.n))
        elif isinstance(request, Admin):
            self.on_admin(connection.member, request)
        elif type(request) in self.for_operators:
            self.for_operators[type(request)](connection.member, request)
        else:
            raise refuse("unknown_type", f"an operator's session takes admin and ping, not {request.t!r}")

    def on_admin(self, member: Member, request: Admin) -> None:
        """An operator's command; answered with ``admin_result`` (or an ``error`` with ref ``admin``)."""
        if member.identity is None or member.identity not in self.admins:
            raise refuse("not_operator", "only the server's operators can do that", why="member",
                         fingerprint=member.identity or "")
        refusal = self.bans.banned(member.identity, address_of(member.connection))
        if refusal is not None:
            raise refusal
        operator = OperatorSession(member.identity, member.name, member)
        command = request.command
        try:
            answer = self._run(operator, request)
        except ProtocolError as exc:
            if self.relay is None or command not in ROUTED or exc.code not in NOT_HERE:
                raise
            self.spawn(self._ask_the_others(operator, request, exc))  # its player or table may be at another node
            return
        if answer is not None and self.relay is not None and command in GATHERED:
            self.spawn(self._gather(operator, request, answer))
        elif answer is not None:
            member.send(admin_result(command, answer))

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
            operator.member.send(admin_result(request.command, done))
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
        operator.member.send(admin_result(request.command, answer))

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
        return self.safety.find_player(target)

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
        holds = self.bans.kick_holds(member, bool(request.all))
        self.bans.hold(holds, KICK_HOLD, reason)
        if self.relay is not None:  # kept out at every node
            self.relay.kicked(holds, KICK_HOLD, reason)
        tell_and_close(member, "operator_kick", f"An operator removed you from this server: {reason}",
                             {"reason": reason})
        self._audit(operator, "kick", f"{name} ({key})", reason)
        return self._result(f"kicked {name}", name=name, seconds=int(KICK_HOLD))

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
            network, value = banned_network(address)
            mine = [c.address for c in self._operator_connections(operator.identity)]
            if any(within(a, network) for a in mine):
                raise refuse("bad_target", "that would ban your own address", why="own_address")
            ban = Ban("address", value, reason, until, operator.identity, time.time())
            target_text = value
            hit = [m for m in self.lobby.members.values()
                   if m.connection is not None and within(address_of(m.connection), network)]
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
        self.bans.ban(ban)
        text = f"banned you from this server{' until ' + when(until) if until else ''}: {reason}"
        for member in hit:
            tell_and_close(member, "operator_ban", f"An operator {text}",
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

    def _admin_unban(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        address = (request.address or "").strip()
        if address:
            _, value = banned_network(address)
            kind, shown = "address", value
        else:
            value, name, _ = self._target(request)
            kind, shown = "identity", f"{name} ({value})"
        if self.bans.unban(kind, value) is None:
            raise refuse("not_banned", f"{shown} is not banned", name=shown)
        self._audit(operator, "unban", shown, "")
        return self._result(f"unbanned {shown}", target=shown)

    def _admin_bans(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        rows: list[dict[str, str | int]] = [
            {"kind": b.kind, "value": b.value, "name": self.lobby.names.name_of(b.value) or "" if b.kind == "identity"
             else "", "until": when(b.until) or "for good", "reason": b.reason, "by": b.by}
            for b in self.bans.active()]
        return self._result(f"{len(rows)} bans", rows)

    def _admin_mute(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        key, name, member = self._target(request)
        reason = self._reason(request)
        until = self._until(request)
        self.bans.mute(key, reason, until, operator.identity)
        if member is not None:
            member.send(wire.Notice(table=None, text=f"An operator muted you in the lobby's chat: {reason}",
                                    code="chat_muted", params={"reason": reason}))
        self._audit(operator, "mute", f"{name} ({key})", f"{when(until) or 'for good'}: {reason}")
        return self._result(f"muted {name} in the lobby's chat{' until ' + when(until) if until else ''}",
                            name=name, until=when(until))

    def _admin_unmute(self, operator: OperatorSession, request: Admin) -> dict[str, Any]:
        key, name, _ = self._target(request)
        if not self.bans.unmute(key):
            raise refuse("not_muted", f"{name} is not muted", name=name)
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
        self.bans.lock(key, new, operator.identity)
        if member is not None:
            self.rename_member(member, new)
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
        self.bans.unlock(key)
        self._audit(operator, "release", f"{name} ({key})", "")
        if member is not None:  # the name is theirs for as long as they stay
            return self._result(f"released the name {name}; {name} is online and keeps it until they leave, "
                                "then anyone may take it", name=name, online=1)
        return self._result(f"released the name {name}; anyone may take it now", name=name)

    def rename_member(self, member: Member, new: str) -> None:
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
        tell_and_close(member, "renamed", f"An operator renamed you to {new}.", {"name": new})

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
        write(self.lobby.storage, "INSERT INTO moderation_settings(key, value) VALUES ('motd', ?) "
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
        if self.lobby.storage is None:
            return self._reports_result(self.reports.kept_in_memory(every, one), one)
        self._answer_later(operator.member, "reports", lambda db: self.reports.read(db, every, one),
                           lambda rows: self._reports_result(rows, one))
        return None

    def _reports_result(self, rows: list[dict[str, Any]], one: int | None) -> dict[str, Any]:
        if one is not None and not rows:
            return {"error": ("no_report", f"there is no report {one}", {"id": one})}
        return self._result(f"{len(rows)} reports", [report_row(r, whole=one is not None) for r in rows])

    def _admin_resolve(self, operator: OperatorSession, request: Admin) -> dict[str, Any] | None:
        report_id = request.id
        if not isinstance(report_id, int):
            raise refuse("bad_field", "admin: field 'id' is missing", why="missing", message="admin", field="id")
        if self.lobby.storage is None:
            if not self.reports.resolve_in_memory(report_id, operator.identity):
                raise refuse("no_report", f"there is no report {report_id}", id=report_id)
            self._audit(operator, "resolve", f"report {report_id}", "")
            return self._result(f"report {report_id} closed", id=report_id)

        def answer(count: int) -> dict[str, Any]:
            if not count:
                return {"error": ("no_report", f"there is no report {report_id}", {"id": report_id})}
            self._audit(operator, "resolve", f"report {report_id}", "")
            return self._result(f"report {report_id} closed", id=report_id)

        self._answer_later(operator.member, "resolve",
                           lambda db: self.reports.resolve(db, report_id, operator.identity), answer)
        return None

    def _admin_log(self, operator: OperatorSession, request: Admin) -> dict[str, Any] | None:
        if self.lobby.storage is None:
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
        assert self.lobby.storage is not None
        storage = self.lobby.storage

        async def run() -> None:
            result = answer(await storage.call(read))
            error = result.get("error")
            if error is not None:
                code, reason, params = error
                member.send(wire.ErrorMessage(code=code, reason=reason, ref="admin", params=params))
                return
            member.send(admin_result(command, result))

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


    def spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("operators: a command for every node failed")

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _audit(self, operator: OperatorSession, action: str, target: str, detail: str) -> None:
        at = time.time()
        log.warning("operator %s (%s): %s %s %s", clean_text(operator.name), operator.identity, action,
                    clean_text(target), clean_text(detail))
        if self.on_action is not None:
            self.on_action(action)
        if self.lobby.storage is None:
            self.log_rows.append({"id": len(self.log_rows) + 1, "at": int(at), "operator": operator.identity,
                                  "operator_name": operator.name, "action": action, "target": target,
                                  "detail": detail})
            return
        write(self.lobby.storage, "INSERT INTO moderation_log(at, operator, operator_name, action, target, detail) "
                                  "VALUES (?, ?, ?, ?, ?, ?)", (at, operator.identity, operator.name, action, target,
                                                                detail))


def admin_result(command: str, answer: dict[str, Any]) -> wire.AdminResult:
    """An ``admin_result`` of a command's answer (``OperatorCommands._result``)."""
    return wire.AdminResult(command=command, text=answer["text"], params=answer["params"], rows=tuple(answer["rows"]))
