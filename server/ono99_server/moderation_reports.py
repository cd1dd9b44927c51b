"""Players' reports on other players: ``report`` files one with the last chat lines of the lobby and of
the table, and the game being played, attached (docs/protocol.md, section 5b); a player may send a few
at once, then one now and then. Operators read them and close them (server/ono99_server/moderation_commands.py's
``reports`` and ``resolve``). Kept in the database (``moderation_reports``), else in memory."""

from __future__ import annotations

import base64
import json
import logging
import time
import zlib
from typing import TYPE_CHECKING, Any

from ono99_kernel.core.record import Player as RecordPlayer
from ono99_kernel.core.record import game_to_record
from ono99_kernel.protocol import MAX_CHAT, clean_text
from ono99_kernel.wire import server as wire
from ono99_kernel.wire.requests import Report

from .members import Member
from .moderation_ports import ModerationHost, owner_key, refuse, target_key, write
from .name_claims import name_key
from .rates import BucketsByKey
from .table_room import table_of

if TYPE_CHECKING:
    from .history import ChatLine, ChatRoom
    from .moderation_safety import Safety
    from .storage import Database
    from .table_room import Table

log = logging.getLogger("ono99.moderation")

REPORT_CHAT_LINES = 20  # chat lines of each room a report carries
LIST_LIMIT = 40  # rows of the report queue and the log in one answer
MAX_RECORD_BYTES = 40 * 1024  # a report's game record, compressed, in one answer (a frame is 64 KiB)
REPORT_COLUMNS = ("id", "at", "reporter", "reporter_name", "target", "target_name", "reason", "chat", "game",
                  "resolved_by")


class Reports:
    """The reports players file, and the operators' reading and closing of them."""

    def __init__(self, lobby: ModerationHost, safety: Safety) -> None:
        self.lobby = lobby
        self.safety = safety  # who a report names
        self.reports: list[dict[str, Any]] = []  # without a database
        # by reporter: ``report_burst`` at once, then one per ``report_every`` seconds
        self._buckets = BucketsByKey(lobby.config.report_every, lobby.config.report_burst)

    def on_report(self, member: Member, request: Report) -> None:
        target, name, target_member = self.safety.find_player(request.name)
        reporter = owner_key(member) or f"name:{name_key(member.name)}"
        if target == target_key(member):
            raise refuse("bad_target", "that is you", why="self")
        reason = clean_text(request.reason).strip()
        if not reason:
            raise refuse("empty_chat", "the message is empty")
        if len(reason) > MAX_CHAT:
            raise refuse("chat_too_long", f"chat messages are at most {MAX_CHAT} characters", max=MAX_CHAT)
        self._take(reporter)
        chat = {"lobby": _last_lines(self.lobby.lobby_chat)}
        table = table_of(member) or (table_of(target_member) if target_member is not None else None)
        game = None
        if table is not None:
            chat["table"] = _last_lines(table.chat)
            game = _game_of(table)
        row = {"at": time.time(), "reporter": reporter, "reporter_name": member.name, "target": target,
               "target_name": name, "reason": reason, "chat": chat, "game": game}
        self._file(row)
        log.warning("report by %s on %s: %s", clean_text(member.name), clean_text(name), clean_text(reason))
        member.send(wire.Notice(table=None, text=f"Your report on {name} was sent to the operators.",
                                code="reported", params={"name": name}))

    def _take(self, reporter: str) -> None:
        """One report by ``reporter``, if its bucket allows."""
        left = self._buckets.take(reporter)
        if left is not None:
            wait = max(1, round(left))
            raise refuse("rate_limited", f"you sent too many reports; you can send another in {wait} s",
                         why="report", seconds=wait)

    def _file(self, row: dict[str, Any]) -> None:
        if self.lobby.storage is None:
            self.reports.append({**row, "id": len(self.reports) + 1, "resolved_by": None})
            return
        write(self.lobby.storage,
              "INSERT INTO moderation_reports(at, reporter, reporter_name, target, target_name, reason, chat, "
              "game) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              (row["at"], row["reporter"], row["reporter_name"], row["target"], row["target_name"],
               row["reason"], json.dumps(row["chat"], ensure_ascii=False),
               None if row["game"] is None else json.dumps(row["game"], ensure_ascii=False)))

    # --- the operators' reading -------------------------------------------------------------------------
    def kept_in_memory(self, every: bool, one: int | None) -> list[dict[str, Any]]:
        """Without a database: the open reports (``every``: closed ones too), or report ``one``."""
        rows = [r for r in self.reports if (every or r["resolved_by"] is None) if one is None or r["id"] == one]
        return rows[-LIST_LIMIT:]

    @staticmethod
    async def read(db: Database, every: bool, one: int | None) -> list[dict[str, Any]]:
        """From the database: the open reports (``every``: closed ones too), or report ``one``; newest last."""
        where = "WHERE id = ?" if one is not None else "" if every else "WHERE resolved_by IS NULL"
        out = []
        for values in await db.rows(f"SELECT {', '.join(REPORT_COLUMNS)} FROM moderation_reports {where} "
                                    "ORDER BY id DESC LIMIT ?",
                                    (one, LIST_LIMIT) if one is not None else (LIST_LIMIT,)):
            row = dict(zip(REPORT_COLUMNS, values, strict=True))
            row["chat"] = json.loads(row["chat"])
            row["game"] = json.loads(row["game"]) if row["game"] else None
            out.append(row)
        return out[::-1]

    def resolve_in_memory(self, report_id: int, by: str) -> bool:
        """Without a database: close report ``report_id``; False if there is none."""
        found = next((r for r in self.reports if r["id"] == report_id), None)
        if found is None:
            return False
        found["resolved_by"] = by
        return True

    @staticmethod
    async def resolve(db: Database, report_id: int, by: str) -> int:
        """In the database: close report ``report_id``; 0 if there is none, else 1."""
        async with db.transaction():
            if await db.row("SELECT id FROM moderation_reports WHERE id = ?", (report_id,)) is None:
                return 0
            await db.run("UPDATE moderation_reports SET resolved_by = ? WHERE id = ?", (by, report_id))
            return 1


def _last_lines(room: ChatRoom) -> list[dict[str, Any]]:
    lines: list[ChatLine] = list(room.lines)[-REPORT_CHAT_LINES:]
    return [{"from": line.sender, "text": line.text, "at": line.at} for line in lines]


def _game_of(table: Table) -> dict[str, Any] | None:
    if table.game is None:
        return None
    players = [RecordPlayer(p["name"], p["kind"]) for p in table.players] \
        if len(table.players) == table.seat_count else \
        [RecordPlayer(s.name or f"seat {i}", "human" if s.kind == "human" else f"bot:{s.level}")
         for i, s in enumerate(table.seats)]
    return {"table": table.id, "game_no": table.game_no, "record": game_to_record(table.game, players, table.seed)}


def report_row(row: dict[str, Any], whole: bool) -> dict[str, str | int]:
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
