"""What the terminal app knows, built only from server messages: the lobby, the table, the latest
view, a log in words, chat. The app never re-derives the rules; it shows what the server sent."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

CARD_LABELS = {
    "REV": "Reverse", "PLAY2": "Play 2", "DOUBLE": "Double", "HOLD": "Hold", "ONO99": "ONO 99", "-10": "−10",
}
CARD_SHORT = {"REV": "REV", "PLAY2": "+2P", "DOUBLE": "DBL", "HOLD": "HLD", "ONO99": "99!", "-10": "−10"}
LOG_LINES = 200


def card_label(code: str, edition: str = "2022") -> str:
    if code == "ONO99" and edition == "1980":
        return "O'NO 99"
    if code == "ONO99x4":
        return "four ONO 99"
    if code == "draw":
        return "draw"
    return CARD_LABELS.get(code, code)


def card_kind(code: str) -> str:
    """A word for what a card is, readable without colour."""
    if code in ("REV", "PLAY2", "DOUBLE", "HOLD"):
        return "action"
    if code == "-10":
        return "minus"
    if code == "ONO99":
        return "ono99"
    return "number"


@dataclass(slots=True)
class ChatEntry:
    sender: str
    text: str
    scope: str


@dataclass(slots=True)
class Model:
    server_name: str = ""
    my_name: str = ""
    resume: str = ""
    tables: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, Any] | None = None  # the table we are at
    view: dict[str, Any] | None = None
    clock: float | None = None  # seconds left on the turn clock when the last state arrived
    clock_at: float = 0.0  # time.monotonic() when it arrived
    bot_control: list[bool] = field(default_factory=list)
    log: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    chat: deque[ChatEntry] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    last_play: dict[str, Any] | None = None  # the newest play event, to highlight it
    leaderboard: list[dict[str, Any]] = field(default_factory=list)
    leaderboard_edition: str | None = None
    connected: bool = False
    notice: str = ""
    game_no: int = 0
    out_order: list[int] = field(default_factory=list)  # seats knocked out of the game, in order
    log_count: int = 0  # lines ever logged, so a widget can append only the new ones
    log_epoch: int = 0  # bumped when the log starts over (a new table or game)
    chat_count: int = 0
    # play now and ratings: my place in a queue (nil: not waiting), every queue's size, the bots' ratings
    queue: dict[str, Any] | None = None
    queue_at: float = 0.0  # time.monotonic() when it arrived (for the countdown to the bots)
    queues: list[dict[str, Any]] = field(default_factory=list)
    leaderboard_bots: list[dict[str, Any]] = field(default_factory=list)
    profile: dict[str, Any] | None = None

    # --- names ------------------------------------------------------------------------------------------
    def seat_name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        seats = self.table["seats"] if self.table else []
        if 0 <= seat < len(seats) and seats[seat]["name"]:
            name = str(seats[seat]["name"])
            if self.view is not None and self.view.get("seat") == seat and name != "You":
                return f"{name} (you)"
            return name
        return f"Seat {seat + 1}"

    @property
    def my_seat(self) -> int | None:
        return None if self.view is None else self.view.get("seat")

    @property
    def edition(self) -> str:
        return str(self.view["edition"]) if self.view else (self.table or {}).get("edition", "2022")

    # --- applying server messages -------------------------------------------------------------------
    def apply(self, message: dict[str, Any]) -> str:
        """Take in one server message; return its type."""
        kind = str(message.get("t"))
        if kind == "welcome":
            self.server_name = str(message["server"])
            self.my_name = str(message["name"])
            self.resume = str(message["resume"])
            self.connected = True
        elif kind == "tables":
            self.tables = list(message["tables"])
        elif kind == "table":
            new = message["table"]
            if self.table is None or self.table.get("id") != new.get("id"):
                self.view = None
                self.clear_log()
            self.table = new
        elif kind == "left":
            self.table = None
            self.view = None
            self.clear_log()
        elif kind == "state":
            self._apply_state(message)
        elif kind == "chat":
            self.add_chat(ChatEntry(str(message["from"]), str(message["text"]), str(message["scope"])))
        elif kind == "chat_history":
            for line in message["messages"]:
                self.add_chat(ChatEntry(str(line["from"]), str(line["text"]), str(message["scope"])))
        elif kind == "notice":
            self.notice = str(message["text"])
            self.add_log(self.notice)
        elif kind == "leaderboard":
            self.leaderboard = list(message["rows"])
            self.leaderboard_edition = message.get("edition")
            self.leaderboard_bots = list(message.get("bots") or [])
        elif kind == "queue":
            self.queue = message["queued"]
            self.queue_at = time.monotonic()
            self.queues = list(message["queues"])
        elif kind == "profile":
            self.profile = message
        elif kind == "error":
            self.notice = str(message["reason"])
        return kind

    def _apply_state(self, message: dict[str, Any]) -> None:
        if message.get("game_no") != self.game_no:
            self.game_no = int(message.get("game_no") or 0)
            self.clear_log()
            self.out_order = []
        self.view = message["view"]
        self.clock = message.get("clock")
        self.clock_at = time.monotonic()
        self.bot_control = list(message.get("controlled_by_bot") or [])
        for event in message["events"]:
            line = self.describe(event)
            if line:
                self.add_log(line)
            if event.get("e") == "play":
                self.last_play = event
            elif event.get("e") == "out" and self.edition == "2022":
                self.out_order.append(int(event["seat"]))
            elif event.get("e") == "hand_ended":
                self.out_order.extend(int(s) for s in event.get("eliminated") or [])

    def clear_log(self) -> None:
        self.log.clear()
        self.log_epoch += 1

    def add_log(self, line: str) -> None:
        self.log.append(line)
        self.log_count += 1

    def add_chat(self, entry: ChatEntry) -> None:
        self.chat.append(entry)
        self.chat_count += 1

    def describe(self, event: dict[str, Any]) -> str:
        """One event in words, e.g. "Ada played 7 — total 42"."""
        kind = event.get("e")
        who = self.seat_name(event.get("seat"))
        edition = self.edition
        if kind == "play":
            cards = event["cards"]
            what = "four ONO 99 cards" if len(cards) == 4 else card_label(cards[0], edition)
            return f"{who} played {what} — total {event['total']}"
        if kind == "draw":
            card = event.get("card")
            return f"{who} drew {card_label(card, edition)}" if card else f"{who} drew a card"
        if kind == "reshuffle":
            return f"The discard pile was shuffled into a new draw pile of {event['size']} cards"
        if kind == "missed_draw":
            return f"{who} missed a draw and plays one card short"
        if kind == "out":
            if edition == "1980" and self.view and self.view["options"]["scoring"] == "points":
                return f"{who} cannot play and drops out of the hand"
            if edition == "1980":
                return f"{who} cannot play and loses the hand"
            return f"{who} cannot play and is out"
        if kind == "hand_started":
            return f"Hand {event['hand'] + 1}: {self.seat_name(event['first'])} plays first"
        if kind == "hand_ended":
            return self._describe_hand_end(event)
        if kind == "game_over":
            return f"{self.seat_name(event['winner'])} wins the game!"
        return ""

    def _describe_hand_end(self, event: dict[str, Any]) -> str:
        parts = [f"Hand {event['hand'] + 1} is over"]
        if event.get("tokens") is not None and event.get("loser") is not None:
            parts.append(f"{self.seat_name(event['loser'])} lost a token")
        if event.get("hand_points") is not None:
            points = ", ".join(f"{self.seat_name(s)} +{p}" for s, p in enumerate(event["hand_points"]) if p)
            if points:
                parts.append(points)
        for seat in event.get("eliminated") or []:
            parts.append(f"{self.seat_name(seat)} is out of the match")
        return ": ".join(parts[:1]) + (" — " + "; ".join(parts[1:]) if parts[1:] else "")

    # --- questions the screens ask -------------------------------------------------------------------
    def clock_left(self) -> float | None:
        """Seconds left on the turn clock now, counted down from the last state."""
        if self.clock is None:
            return None
        return max(0.0, self.clock - (time.monotonic() - self.clock_at))

    @property
    def my_turn(self) -> bool:
        v = self.view
        return bool(v and v["winner"] is None and v["seat"] is not None and v["turn"] == v["seat"])

    @property
    def can_draw(self) -> bool:
        return bool(self.view and "draw" in self.view["legal"])

    def reason_for(self, code: str) -> str | None:
        """Why a card in my hand cannot be played now, as the server said."""
        if self.view is None:
            return None
        for card, reason in self.view["unplayable"]:
            if card == code:
                return str(reason)
        if not self.my_turn:
            return f"it is {self.seat_name(self.view['turn'])}'s turn"
        if code not in self.view["legal"]:
            return "that card cannot be played now"
        return None

    def ranking(self) -> list[int]:
        """Seats best first: the winner, then the last knocked out first; in a points match by score."""
        v = self.view
        if v is None:
            return []
        winner = v["winner"]
        if v["scores"] is not None and v["options"]["points_win"] == "lowest_score":
            return sorted(range(v["seats"]), key=lambda s: (s != winner, v["scores"][s], s))
        order = [winner] if winner is not None else []
        order += [s for s in reversed(self.out_order) if s not in order]
        order += [s for s in range(v["seats"]) if s not in order]
        return order
