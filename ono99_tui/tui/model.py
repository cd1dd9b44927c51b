"""What the terminal app knows, built only from server messages: the lobby, the table, the latest
view, a log in words, chat. The app never re-derives the rules; it shows what the server sent."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .. import text as words
from ..i18n import gettext as _
from ..reasons import render_message_reason, unplayable_reason
from .labels import card_label

RECENT_PLAYS = 4  # plays shown in the strip above the hand
LOG_LINES = 200


@dataclass(slots=True)
class ChatEntry:
    sender: str
    text: str
    scope: str


@dataclass(slots=True)
class KnockOut:
    """How the reader lost a hand or the game, for the summary they dismiss."""

    final: bool  # out of the game (or match), not only of a hand
    total: int  # the total they could not play on
    cards: list[str]  # the cards they held
    hand: int | None  # the 1980 hand number (0-based), None in 2022
    tokens: int | None = None  # tokens left (1980 tokens)
    score: int | None = None  # score (1980 points)


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
    online: list[dict[str, Any]] = field(default_factory=list)  # who is on the server (the lobby shows it)
    online_total: int = 0
    seq: int = 0  # the table's seq of the last event taken in (each event is shown once)
    chat_seen: dict[str, int] = field(default_factory=dict)  # by scope: the id of the last chat line taken in
    replay: bool = False  # a replay's viewer follows a seat: no "you", no "your turn"
    recent_plays: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT_PLAYS))
    new_card: str | None = None  # the card the reader drew last, marked in their hand until they play
    knockout: KnockOut | None = None  # set when the reader is knocked out; the screen shows and clears it
    _total_seen: int = 0  # the total after the last play event read
    _hand_seen: int = 0  # the 1980 hand the last events belong to
    # play now and ratings: my place in a queue (nil: not waiting), every queue's size, the bots' ratings
    queue: dict[str, Any] | None = None
    queue_at: float = 0.0  # time.monotonic() when it arrived (for the countdown to the bots)
    queues: list[dict[str, Any]] = field(default_factory=list)
    leaderboard_bots: list[dict[str, Any]] = field(default_factory=list)
    profile: dict[str, Any] | None = None

    # --- names ------------------------------------------------------------------------------------------
    def seat_name(self, seat: int | None) -> str:
        if seat is None:
            return _("nobody")
        seats = self.table["seats"] if self.table else []
        if 0 <= seat < len(seats) and seats[seat]["name"]:
            name = str(seats[seat]["name"])
            if self.is_me(seat) and name != "You":
                return _("{name} (you)").format(name=name)
            return name
        return _("Seat {n}").format(n=seat + 1)

    def is_me(self, seat: int | None) -> bool:
        """Whether ``seat`` is the reader's own (never in a replay, where the viewer only follows)."""
        if self.replay or seat is None:
            return False
        if self.view is not None:
            return bool(self.view.get("seat") == seat)
        # the history of a game comes before its first state: the table says which seat is ours
        return self.table is not None and self.table.get("you") == seat

    def plain_name(self, seat: int | None) -> str:
        """The seat's name without "(you)"."""
        seats = self.table["seats"] if self.table else []
        if seat is not None and 0 <= seat < len(seats) and seats[seat]["name"]:
            return str(seats[seat]["name"])
        return _("nobody") if seat is None else _("Seat {n}").format(n=seat + 1)

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
            if not message.get("resumed"):  # a new session: the server numbers everything afresh
                self.seq = 0
                self.chat_seen.clear()
        elif kind == "tables":
            self.tables = list(message["tables"])
        elif kind == "table":
            new = message["table"]
            if self.table is None or self.table.get("id") != new.get("id"):
                self._new_table()
            self.table = new
        elif kind == "left":
            self._new_table()
            self.table = None
        elif kind == "state":
            self._apply_state(message)
        elif kind == "history":
            self._apply_history(message)
        elif kind == "chat":
            self._take_chat(message, str(message["scope"]))
        elif kind == "chat_history":
            for line in message["messages"]:
                self._take_chat(line, str(message["scope"]))
        elif kind in ("notice", "away"):
            self.notice = render_message_reason(message)
            self.add_log(self.notice)
        elif kind == "online":
            self.online = list(message["players"])
            self.online_total = int(message["total"])
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
            self.notice = render_message_reason(message)
        return kind

    def _new_table(self) -> None:
        """Another table (or none): nothing of the last one carries over."""
        self.view = None
        self.game_no = 0
        self._reset_game()
        self.clear_log()
        self.seq = 0
        self.chat_seen.pop("table", None)

    def _reset_game(self) -> None:
        self.out_order = []
        self.last_play = None
        self.recent_plays.clear()
        self.new_card = None
        self.knockout = None
        self._total_seen = 0

    def _take_chat(self, line: dict[str, Any], scope: str) -> None:
        """A chat line, unless it was taken in already (lines carry ids, counting up)."""
        line_id = line.get("id")
        if isinstance(line_id, int):
            if line_id <= self.chat_seen.get(scope, 0):
                return
            self.chat_seen[scope] = line_id
        self.add_chat(ChatEntry(str(line["from"]), str(line["text"]), scope))

    def seen(self) -> dict[str, int]:
        """What this client last took in, for a resuming hello (protocol ``hello.seen``)."""
        seen = {"lobby_chat": self.chat_seen.get("lobby", 0)}
        if self.table is not None:
            seen.update(table=int(self.table["id"]), seq=self.seq, chat=self.chat_seen.get("table", 0))
        return seen

    def _new_game(self, game_no: Any) -> None:
        if game_no != self.game_no:
            self.game_no = int(game_no or 0)
            self.clear_log()
            self._reset_game()

    def _apply_history(self, message: dict[str, Any]) -> None:
        """Events the client missed (or the whole game so far): logged, never announced again."""
        if message["reset"]:  # the game's whole log follows: start over
            self.game_no = -1
            self.seq = int(message["seq"]) - len(message["events"])
        self._new_game(message.get("game_no"))
        self._take_events(message["events"], message.get("seq"), self.view, live=False)

    def _apply_state(self, message: dict[str, Any]) -> None:
        self._new_game(message.get("game_no"))
        before = self.view
        if before is None:
            self._hand_seen = int(message["view"].get("hand_number") or 0)
        self.view = message["view"]
        self.clock = message.get("clock")
        self.clock_at = time.monotonic()
        self.bot_control = list(message.get("controlled_by_bot") or [])
        self._take_events(message["events"], message.get("seq"), before)

    def _take_events(self, events: list[dict[str, Any]], last_seq: Any, before: dict[str, Any] | None,
                     live: bool = True) -> None:
        """Events numbered up to ``last_seq``; those taken in already are skipped. ``live``: as they
        happen (a knock-out is announced), not caught up from history."""
        first = last_seq - len(events) + 1 if isinstance(last_seq, int) else None
        for i, event in enumerate(events):
            if first is not None:
                if first + i <= self.seq:
                    continue
                self.seq = first + i
            kind = event.get("e")
            line = self.describe(event, before)
            if line:
                self.add_log(line)
            if kind == "play":
                self.last_play = event
                self.recent_plays.append(event)
                self._total_seen = int(event["total"])
                if self.is_me(event.get("seat")):
                    self.new_card = None
            elif kind == "draw" and self.is_me(event.get("seat")) and event.get("card"):
                self.new_card = str(event["card"])
            elif kind == "hand_started":
                self._hand_seen = int(event["hand"])
                self.last_play = None
                self.recent_plays.clear()
                self.new_card = None
                self._total_seen = 0
            elif kind == "out":
                if self.edition == "2022":
                    self.out_order.append(int(event["seat"]))
                if live and self.is_me(event.get("seat")):
                    self._knocked_out(before, final=self.edition == "2022")
            elif kind == "hand_ended":
                eliminated = [int(s) for s in event.get("eliminated") or []]
                self.out_order.extend(eliminated)
                me = self.view.get("seat") if live and self.view is not None and not self.replay else None
                if me is not None and (me in eliminated or (event.get("loser") == me and self.knockout is not None)):
                    self._knocked_out(before, final=me in eliminated, event=event)  # with the hand's outcome

    def _knocked_out(self, before: dict[str, Any] | None, *, final: bool, event: dict[str, Any] | None = None) -> None:
        """Note how the reader lost: the total they faced and the cards they held."""
        view = self.view
        assert view is not None
        seat = view["seat"]
        held = list(before["hand"]) if before is not None and before.get("hand") else list(view["hand"])
        known = self.knockout
        if known is not None and event is not None and known.hand == event.get("hand"):
            known.final = known.final or final  # the out of this hand, now with its outcome
            held, total = known.cards, known.total
        else:
            total = self._total_seen
        hand = None if self.edition == "2022" else self._hand_seen
        if event is not None:
            hand = int(event["hand"])
        tokens = event["tokens"][seat] if event is not None and event.get("tokens") is not None else None
        score = event["scores"][seat] if event is not None and event.get("scores") is not None else None
        self.knockout = KnockOut(final, total, held, hand, tokens, score)

    def clear_log(self) -> None:
        self.log.clear()
        self.log_epoch += 1

    def add_log(self, line: str) -> None:
        self.log.append(line)
        self.log_count += 1

    def add_chat(self, entry: ChatEntry) -> None:
        self.chat.append(entry)
        self.chat_count += 1

    def describe(self, event: dict[str, Any], before: dict[str, Any] | None = None) -> str:
        """One event in words, e.g. "Ada played 7 — total 42"; said to the reader when it is theirs
        ("You played 7 — total 42"). ``before`` is the view before the event's state arrived."""
        kind = event.get("e")
        seat = event.get("seat")
        me = self.is_me(seat)
        who = self.seat_name(seat)
        edition = self.edition
        if kind == "play":
            cards = event["cards"]
            total = event["total"]
            if len(cards) == 4:
                return (_("You played four ONO 99 cards — total {total}") if me
                        else _("{who} played four ONO 99 cards — total {total}")).format(who=who, total=total)
            what = card_label(cards[0], edition)
            return (_("You played {card} — total {total}") if me
                    else _("{who} played {card} — total {total}")).format(who=who, card=what, total=total)
        if kind == "draw":
            card = event.get("card")
            if card:
                return (_("You drew {card}") if me else _("{who} drew {card}")).format(
                    who=who, card=card_label(card, edition))
            return (_("You drew a card") if me else _("{who} drew a card")).format(who=who)
        if kind == "reshuffle":
            return words.count(int(event["size"]), "The discard pile was shuffled into a new draw pile of {n} card",
                               "The discard pile was shuffled into a new draw pile of {n} cards")
        if kind == "missed_draw":
            if me:
                return _("You missed your draw and play one card short")
            return _("{who} missed a draw and plays one card short").format(who=who)
        if kind == "out":
            if edition == "1980" and self.view and self.view["options"]["scoring"] == "points":
                return _("You cannot play and drop out of the hand") if me else \
                    _("{who} cannot play and drops out of the hand").format(who=who)
            if edition == "1980":
                return _("You cannot play and lose the hand") if me else \
                    _("{who} cannot play and loses the hand").format(who=who)
            return _("You cannot play and are out") if me else _("{who} cannot play and is out").format(who=who)
        if kind == "hand_started":
            first = self.is_me(event["first"])
            starts = _("You play first") if first else _("{who} plays first").format(
                who=self.seat_name(event["first"]))
            return starts if edition == "2022" else _("Hand {n}: {starts}").format(n=event["hand"] + 1, starts=starts)
        if kind == "hand_ended":
            return self._describe_hand_end(event, before)
        if kind == "game_over":
            if self.is_me(event["winner"]):
                return _("You win the game!")
            return _("{who} wins the game!").format(who=self.seat_name(event["winner"]))
        return ""

    def _describe_hand_end(self, event: dict[str, Any], before: dict[str, Any] | None) -> str:
        parts = [_("Hand {n} is over").format(n=event["hand"] + 1)]
        eliminated = list(event.get("eliminated") or [])
        loser = event.get("loser")
        if event.get("tokens") is not None and loser is not None:
            had = before["tokens"][loser] if before is not None and before.get("tokens") is not None else None
            me = self.is_me(loser)
            who = self.seat_name(loser)
            if loser not in eliminated:
                parts.append(_("you lost a token") if me else _("{who} lost a token").format(who=who))
            elif had == 0:
                parts.append(_("you had no token left and are out of the match") if me
                             else _("{who} had no token left and is out of the match").format(who=who))
            else:
                parts.append(_("you lost your last token and are out of the match") if me
                             else _("{who} lost their last token and is out of the match").format(who=who))
            eliminated = [s for s in eliminated if s != loser]
        if event.get("hand_points") is not None:
            points = ", ".join(f"{self.seat_name(s)} +{p}" for s, p in enumerate(event["hand_points"]) if p)
            if points:
                parts.append(points)
        for seat in eliminated:
            parts.append(_("you are out of the match") if self.is_me(seat)
                         else _("{who} is out of the match").format(who=self.seat_name(seat)))
        return ": ".join(parts[:1]) + (" — " + "; ".join(parts[1:]) if parts[1:] else "")

    # --- questions the screens ask -------------------------------------------------------------------
    def clock_left(self) -> float | None:
        """Seconds left on the turn clock now, counted down from the last state."""
        if self.clock is None:
            return None
        return max(0.0, self.clock - (time.monotonic() - self.clock_at))

    @property
    def my_turn(self) -> bool:
        return not self.replay and self.viewer_on_turn

    @property
    def viewer_on_turn(self) -> bool:
        """Whether the seat whose cards are shown is on turn (the reader's, or the one a replay follows)."""
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
                return unplayable_reason(str(reason))
        if not self.my_turn:
            if self.view["winner"] is not None:
                return _("the game is over")
            if self.view["seat"] is not None and not self.view["active"][self.view["seat"]]:
                return _("you are out of this game")
            return _("it is {name}'s turn").format(name=self.plain_name(self.view["turn"]))
        if code not in self.view["legal"]:
            return _("that card cannot be played now")
        return None

    def ranking(self) -> list[int]:
        """Seats best first: the winner, then the last knocked out first; in a points match by score."""
        v = self.view
        if v is None:
            return []
        if v.get("ranking") is not None:  # the server's, from the game itself
            return list(v["ranking"])
        winner = v["winner"]
        if v["scores"] is not None and v["options"]["points_win"] == "lowest_score":
            return sorted(range(v["seats"]), key=lambda s: (s != winner, v["scores"][s], s))
        order = [winner] if winner is not None else []
        order += [s for s in reversed(self.out_order) if s not in order]
        order += [s for s in range(v["seats"]) if s not in order]
        return order
