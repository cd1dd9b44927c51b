"""What a table and the lobby remember for the people who come back: chat lines with ids, the
game's events with sequence numbers, and what a returning player missed.

Sequence numbers: ``seq`` counts a table's events, one by one, across its games and the server's
restarts: event ``i`` (from 0) of the current game's log has ``seq_base + i + 1``. Chat lines are
numbered the same way, per table and for the lobby. A client that says the last of each it saw is
sent exactly what came after; one that says nothing gets the whole current game.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ono99_kernel.core.cards import Edition
from ono99_kernel.core.events import Event, Out, Played
from ono99_kernel.wire import server as wire

HISTORY_CHUNK = 300  # events per history message: a long 1980 match's log stays within a frame each


@dataclass(slots=True)
class ChatLine:
    sender: str
    text: str
    at: float
    id: int = 0

    def sent(self) -> wire.ChatLine:
        """The line as a chat message carries it."""
        return wire.ChatLine(id=self.id, sender=self.sender, text=self.text, at=self.at)


class ChatRoom:
    """The last lines of one chat (a table's or the lobby's), numbered from 1 without gaps."""

    def __init__(self, keep: int, scope: wire.Scope, table: int | None) -> None:
        self.lines: deque[ChatLine] = deque(maxlen=keep)
        self.scope = scope
        self.table = table
        self.last_id = 0

    def add(self, sender: str, text: str) -> ChatLine:
        self.last_id += 1
        line = ChatLine(sender, text, time.time(), self.last_id)
        self.lines.append(line)
        return line

    def restore(self, lines: Iterable[ChatLine]) -> None:
        for line in lines:
            self.lines.append(line)
            self.last_id = max(self.last_id, line.id)

    def message(self, line: ChatLine) -> wire.Chat:
        return wire.Chat(scope=self.scope, table=self.table, line=line.sent())

    def history(self, seen: int | None = None) -> wire.ChatHistory:
        """The lines after ``seen`` (every kept line when None, or when ``seen`` is from before a
        restart that numbered lines again)."""
        lines = [c for c in self.lines if seen is None or seen > self.last_id or c.id > seen]
        return wire.ChatHistory(scope=self.scope, table=self.table, messages=tuple(c.sent() for c in lines))


def history_messages(table_id: int, game_no: int, log: Sequence[Event], first_seq: int, seat: int | None,
                     reset: bool) -> list[wire.History]:
    """``log`` (events numbered from ``first_seq``) as ``history`` messages redacted for ``seat``,
    in chunks; with ``reset`` the first one says the client's log of this game starts over."""
    out = []
    for start in range(0, max(len(log), 1), HISTORY_CHUNK):
        chunk = log[start:start + HISTORY_CHUNK]
        if not chunk and not reset:
            break
        out.append(wire.History(table=table_id, game_no=game_no, reset=reset and start == 0,
                                seq=first_seq + start + len(chunk) - 1,  # the last event's; the others count up
                                events=tuple(wire.event_of(e.seen_by(seat)) for e in chunk)))
    return out


def away_params(missed: Sequence[Event], seat: int, name: str, edition: Edition) -> dict[str, str | int]:
    """The ``params`` of an ``away`` message (docs/protocol.md): ``name``, ``plays`` (how many),
    ``cards`` (their codes, comma-separated; ``ONO99x4`` for four ONO 99 at once), ``out`` (1 if the seat
    went out), ``edition`` (to name the cards)."""
    plays = [e for e in missed if isinstance(e, Played) and e.seat == seat]
    went_out = any(isinstance(e, Out) and e.seat == seat for e in missed)
    cards = ",".join("ONO99x4" if len(p.cards) == 4 else p.cards[0].code for p in plays)
    return {"name": name, "plays": len(plays), "cards": cards, "out": int(went_out), "edition": edition.value}


def away_summary(missed: Sequence[Event], seat: int, name: str, edition: Edition) -> str | None:
    """A line on what a stand-in did for ``seat`` in ``missed``, or None if it did nothing."""
    plays = [e for e in missed if isinstance(e, Played) and e.seat == seat]
    went_out = any(isinstance(e, Out) and e.seat == seat for e in missed)
    if not plays and not went_out:
        return None
    cards = ", ".join("four ONO 99" if len(p.cards) == 4 else p.cards[0].label(edition) for p in plays)
    text = f"While you were away, a bot played for {name}"
    text += f": {len(plays)} card{'s' if len(plays) != 1 else ''} ({cards})" if plays else ""
    if went_out:
        text += "; the seat went out"
    return text + "."
