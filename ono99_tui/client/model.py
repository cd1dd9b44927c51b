"""What the terminal app knows, built only from server messages: the lobby, the table, the latest
view, a log in words, chat. The app never re-derives the rules; it shows what the server sent."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from ono99_kernel.core.options import Scoring
from ono99_kernel.wire.server import (
    ArenaInfo,
    ArenaMessage,
    ArenaResults,
    Arenas,
    Away,
    Bye,
    Chat,
    ChatHistory,
    ChatLine,
    DrawEvent,
    ErrorMessage,
    GameEvent,
    GameOverEvent,
    HandEndedEvent,
    HandStartedEvent,
    History,
    Leaderboard,
    Left,
    MissedDrawEvent,
    Notice,
    Online,
    OnlinePlayer,
    OutEvent,
    PlayEvent,
    Profile,
    Queue,
    Queued,
    QueueSize,
    RatingRow,
    ReshuffleEvent,
    Safety,
    Seat,
    ServerMessage,
    State,
    TableDetail,
    TableInfo,
    TableMessage,
    Tables,
    View,
    Welcome,
)

from .. import text as words
from ..analysis_hints import remember
from ..i18n import gettext as _
from ..reasons import said, unplayable_reason
from .labels import card_label, seat_name

RECENT_PLAYS = 4  # plays shown in the strip above the hand
SHUTTING_DOWN = "the server is shutting down"  # the bye of a server stopped on purpose
REPLACED = "you connected again from elsewhere"  # the bye to a session the same player replaced
LOG_LINES = 200


@dataclass(slots=True)
class ChatEntry:
    sender: str
    text: str
    scope: str
    line: ChatLine | None = None  # the line as the server numbered it, to know it again


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
    # Ways to a private table that its invite code fills in ("{code}"), where the front knows them (the
    # web front: its link and the SSH command on the host the browser used); shown beside the code.
    invite_links: tuple[str, ...] = ()
    tables: list[TableInfo] = field(default_factory=list)
    table: TableDetail | None = None  # the table we are at
    view: View | None = None
    clock: float | None = None  # seconds left on the turn clock when the last state arrived
    clock_at: float = 0.0  # time.monotonic() when it arrived
    bot_control: list[bool] = field(default_factory=list)
    log: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    chat: deque[ChatEntry] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    last_play: PlayEvent | None = None  # the newest play event, to highlight it
    leaderboard: list[RatingRow] = field(default_factory=list)
    leaderboard_edition: str | None = None
    connected: bool = False
    farewell: str = ""  # the reason of the server's bye, until the next welcome
    notice: str = ""
    game_no: int = 0
    log_count: int = 0  # lines ever logged, so a widget can append only the new ones
    log_epoch: int = 0  # bumped when the log starts over (a new table or game)
    chat_count: int = 0
    online: list[OnlinePlayer] = field(default_factory=list)  # who is on the server (the lobby shows it)
    online_total: int = 0
    seq: int = 0  # the table's seq of the last event taken in (each event is shown once)
    chat_seen: dict[str, int] = field(default_factory=dict)  # by scope: the id of the last chat line taken in
    replay: bool = False  # a replay's viewer follows a seat: no "you", no "your turn"
    recent_plays: deque[PlayEvent] = field(default_factory=lambda: deque(maxlen=RECENT_PLAYS))
    new_card: str | None = None  # the card the reader drew last, marked in their hand until they play
    knockout: KnockOut | None = None  # set when the reader is knocked out; the screen shows and clears it
    _total_seen: int = 0  # the total after the last play event read
    _hand_seen: int = 0  # the 1980 hand the last events belong to
    _hand_now: list[str] | None = None  # the reader's cards as of the last event read (None: not known)
    _clock_move_due: bool = False  # the reader's clock ran out: their seat's next move is a stand-in's
    # the reader's moves a bot made for them among the events taken in last (a face saying them later)
    stand_in_moves: list[GameEvent] = field(default_factory=list)
    # this game's events since the deal or the last reshuffle, and a few before: what a hint reads (analysis_hints.py)
    game_events: list[GameEvent] = field(default_factory=list)
    _game_names: dict[int, Seat] = field(default_factory=dict)  # by seat: the last one with a name this game
    # play now and ratings: my place in a queue (nil: not waiting), every queue's size, the bots' ratings
    queue: Queued | None = None
    queue_at: float = 0.0  # time.monotonic() when it arrived (for the countdown to the bots)
    queues: list[QueueSize] = field(default_factory=list)
    # arenas (docs/protocol.md section 6b): those the lobby lists, the one I am in, and when each came
    arenas: list[ArenaInfo] = field(default_factory=list)
    arenas_at: float = 0.0  # time.monotonic() when the list arrived (its times count down from then)
    arena: ArenaMessage | None = None
    arena_at: float = 0.0
    leaderboard_bots: list[RatingRow] = field(default_factory=list)  # ``name`` is the bot level
    profile: Profile | None = None
    arena_results: ArenaResults | None = None  # a kept arena's standings, opened from a profile
    safety: Safety | None = None  # my mutes and blocks, and whether I am an operator (player_menu.py)

    # --- names ------------------------------------------------------------------------------------------
    def seat_name(self, seat: int | None) -> str:
        if seat is None:
            return _("nobody")
        seats = self.table.seats if self.table else ()
        if 0 <= seat < len(seats) and seats[seat].name:
            name = seat_name(seats[seat])
            if self.is_me(seat) and name != "You":
                return _("{name} (you)").format(name=name)
            return name
        return self._gone_name(seat)

    def is_me(self, seat: int | None) -> bool:
        """Whether ``seat`` is the reader's own (never in a replay, where the viewer only follows)."""
        if self.replay or seat is None:
            return False
        if self.view is not None:
            return self.view.seat == seat
        # the history of a game comes before its first state: the table says which seat is ours
        return self.table is not None and self.table.you == seat

    def plain_name(self, seat: int | None) -> str:
        """The seat's name without "(you)"."""
        seats = self.table.seats if self.table else ()
        if seat is not None and 0 <= seat < len(seats) and seats[seat].name:
            return seat_name(seats[seat])
        if seat is None:
            return _("nobody")
        return self._gone_name(seat)

    def _gone_name(self, seat: int) -> str:
        """The name last seen at a seat this game (who left it), else the seat's number."""
        gone = self._game_names.get(seat)
        return seat_name(gone) if gone is not None else _("Seat {n}").format(n=seat + 1)

    @property
    def my_seat(self) -> int | None:
        return None if self.view is None else self.view.seat

    @property
    def edition(self) -> str:
        if self.view is not None:
            return self.view.edition
        return self.table.edition if self.table is not None else "2022"

    @property
    def points_scoring(self) -> bool:
        """Whether the game at the table is a 1980 points match."""
        return self.view is not None and self.view.options.scoring is Scoring.POINTS

    # --- applying server messages -------------------------------------------------------------------
    def apply(self, message: ServerMessage) -> str:
        """Take in one server message (decoded: ono99_kernel.wire.server); return its type."""
        if isinstance(message, Welcome):
            self.server_name = message.server
            self.my_name = message.name
            self.resume = message.resume
            self.connected = True
            self.farewell = ""
            if not message.resumed:  # a new session: the server numbers everything afresh
                self.seq = 0
                self.chat_seen.clear()
        elif isinstance(message, Tables):
            self.tables = list(message.tables)
        elif isinstance(message, TableMessage):
            if self.table is None or self.table.id != message.table.id:
                self._new_table()
            self.table = message.table
            self._remember_names()
        elif isinstance(message, Left):
            self._new_table()
            self.table = None
            self.notice = ""  # a refusal at the table is not news in the lobby (the server's reason follows Left)
        elif isinstance(message, State):
            self._apply_state(message)
        elif isinstance(message, History):
            self._apply_history(message)
        elif isinstance(message, Chat):
            self._take_chat(message.line, message.scope)
        elif isinstance(message, ChatHistory):
            for line in message.messages:
                self._take_chat(line, message.scope)
        elif isinstance(message, Notice | Away):
            self.notice = said(message, self.my_name)
            self.add_log(self.notice)
            if isinstance(message, Notice) and message.code == "clock_ran_out" and \
                    message.params.get("name") == self.my_name:
                self._clock_move_due = True  # the move the notice announces is the stand-in's, not yours
        elif isinstance(message, Online):
            self.online = list(message.players)
            self.online_total = message.total
        elif isinstance(message, Leaderboard):
            self.leaderboard = list(message.rows)
            self.leaderboard_edition = message.edition
            self.leaderboard_bots = list(message.bots)
        elif isinstance(message, Queue):
            self.queue = message.queued
            self.queue_at = time.monotonic()
            self.queues = list(message.queues)
        elif isinstance(message, Profile):
            self.profile = message
        elif isinstance(message, ArenaResults):
            self.arena_results = message
        elif isinstance(message, Arenas):
            self.arenas, self.arenas_at = list(message.arenas), time.monotonic()
        elif isinstance(message, ArenaMessage):
            self.arena, self.arena_at = message, time.monotonic()
        elif isinstance(message, Safety):
            self.safety = message
        elif isinstance(message, ErrorMessage):
            self.notice = said(message)
        elif isinstance(message, Bye):
            self.farewell = message.reason
        return message.t

    def _new_table(self) -> None:
        """Another table (or none): nothing of the last one carries over."""
        self.view = None
        self.game_no = 0
        self._reset_game()
        self._game_names.clear()
        self.clear_log()
        self.seq = 0
        self.chat_seen.pop("table", None)
        self.chat = deque((entry for entry in self.chat if entry.scope != "table"), maxlen=self.chat.maxlen)

    def _reset_game(self) -> None:
        self.last_play = None
        self.recent_plays.clear()
        self.new_card = None
        self.knockout = None
        self._total_seen = 0
        self._clock_move_due = False
        self.game_events.clear()

    def _take_chat(self, line: ChatLine, scope: str) -> None:
        """A chat line, unless it was taken in already (lines carry ids, counting up). A session
        the server did not resume is sent its chat again from the start: a line held already
        (same id, sender, text and time) is not shown twice."""
        if line.id is not None:
            if line.id <= self.chat_seen.get(scope, 0):
                return
            self.chat_seen[scope] = line.id
            if any(entry.line == line and entry.scope == scope for entry in self.chat):
                return
        self.add_chat(ChatEntry(line.sender, line.text, scope, line))

    def seen(self) -> dict[str, int]:
        """What this client last took in, for a resuming hello (protocol ``hello.seen``)."""
        seen = {"lobby_chat": self.chat_seen.get("lobby", 0)}
        if self.table is not None:
            seen.update(table=self.table.id, seq=self.seq, chat=self.chat_seen.get("table", 0))
        return seen

    def _new_game(self, game_no: int) -> None:
        if game_no != self.game_no:
            self.game_no = game_no
            self.clear_log()
            self._reset_game()
            self._game_names.clear()
            self._remember_names()

    def _remember_names(self) -> None:
        """The names seen at each seat this game: a player who left still has their name on their moves."""
        for seat, info in enumerate(self.table.seats if self.table is not None else ()):
            if info.name:
                self._game_names[seat] = info

    def _apply_history(self, message: History) -> None:
        """Events the client missed (or the whole game so far): logged, never announced again."""
        if message.reset:  # the game's whole log follows: start over
            self.game_no = -1
            self.seq = message.seq - len(message.events)
        self._new_game(message.game_no)
        self._take_events(message.events, message.seq, self.view, live=False)

    def _apply_state(self, message: State) -> None:
        self._new_game(message.game_no)
        before = self.view
        if before is None:
            self._hand_seen = message.view.hand_number
        self.view = message.view
        self.clock = message.clock
        self.clock_at = time.monotonic()
        self.bot_control = list(message.controlled_by_bot)
        self._take_events(message.events, message.seq, before)

    def _take_events(self, events: Sequence[GameEvent], last_seq: int | None, before: View | None,
                     live: bool = True) -> None:
        """Events numbered up to ``last_seq``; those taken in already are skipped. ``live``: as they
        happen (a knock-out is announced), not caught up from history."""
        first = last_seq - len(events) + 1 if last_seq is not None else None
        # the cards held as each event happens: the state before, less what was played since
        self._hand_now = list(before.hand) if before is not None and before.hand else None
        self.stand_in_moves = []
        for i, event in enumerate(events):
            if first is not None:
                if first + i <= self.seq:
                    continue
                self.seq = first + i
            remember(self.game_events, event)
            line = self.describe(event, before)
            if line:
                self.add_log(line)
            if isinstance(event, PlayEvent | DrawEvent) and self.is_me(event.seat):
                if self._stood_in_for(event.seat):
                    self.stand_in_moves.append(event)
                self._clock_move_due = False  # the stand-in's one move (a play or a draw) was this
            if isinstance(event, PlayEvent):
                self.last_play = event
                self.recent_plays.append(event)
                self._total_seen = event.total
                if self.is_me(event.seat):
                    self.new_card = None
                    self._played_from_hand(event.cards)
            elif isinstance(event, DrawEvent) and self.is_me(event.seat) and event.card:
                self.new_card = event.card
                if self._hand_now is not None:
                    self._hand_now.append(event.card)
            elif isinstance(event, HandStartedEvent):
                self._hand_seen = event.hand
                self._hand_now = None  # a new deal: the state's hand tells it
                self.last_play = None
                self.recent_plays.clear()
                self.new_card = None
                self._total_seen = 0
            elif isinstance(event, OutEvent):
                if live and self.is_me(event.seat):
                    self._knocked_out(before, final=self.edition == "2022")
            elif isinstance(event, HandEndedEvent):
                eliminated = event.eliminated
                me = self.view.seat if live and self.view is not None and not self.replay else None
                if me is not None and (me in eliminated or (event.loser == me and self.knockout is not None)):
                    self._knocked_out(before, final=me in eliminated, event=event)  # with the hand's outcome

    def _stood_in_for(self, seat: int) -> bool:
        """Whether a bot plays ``seat``'s cards now (its player away, or out of time)."""
        return (seat < len(self.bot_control) and self.bot_control[seat]) or (self._clock_move_due and self.is_me(seat))

    def made_by_stand_in(self, event: GameEvent) -> bool:
        """Whether ``event``, among those taken in last, is a move a bot made in the reader's place."""
        return any(move is event for move in self.stand_in_moves)

    def _played_from_hand(self, cards: Sequence[str]) -> None:
        if self._hand_now is None:
            return
        for card in cards:
            if card in self._hand_now:
                self._hand_now.remove(card)
            else:  # a hand this model did not follow: the state's tells it
                self._hand_now = None
                return

    def _knocked_out(self, before: View | None, *, final: bool, event: HandEndedEvent | None = None) -> None:
        """Note how the reader lost: the total they faced and the cards they held."""
        view = self.view
        assert view is not None and view.seat is not None
        seat = view.seat
        held = list(self._hand_now) if self._hand_now is not None else list(view.hand)
        known = self.knockout
        if known is not None and event is not None and known.hand == event.hand:
            known.final = known.final or final  # the out of this hand, now with its outcome
            held, total = known.cards, known.total
        else:
            total = self._total_seen
        hand = None if self.edition == "2022" else self._hand_seen
        if event is not None:
            hand = event.hand
        tokens = _at(event.tokens, seat) if event is not None else None
        score = _at(event.scores, seat) if event is not None else None
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

    def describe(self, event: GameEvent, before: View | None = None) -> str:
        """One event in words, e.g. "Ada played 7 — total 42"; said to the reader when it is theirs
        ("You played 7 — total 42"). ``before`` is the view before the event's state arrived."""
        edition = self.edition
        if isinstance(event, PlayEvent):
            me, who, total = self.is_me(event.seat), self.seat_name(event.seat), event.total
            if me and self._stood_in_for(event.seat):  # a bot played in your place: not "You played"
                if len(event.cards) == 4:
                    return _("A bot played four ONO 99 cards for you — total {total}").format(total=total)
                return _("A bot played {card} for you — total {total}").format(
                    card=card_label(event.cards[0], edition), total=total)
            if len(event.cards) == 4:
                return (_("You played four ONO 99 cards — total {total}") if me
                        else _("{who} played four ONO 99 cards — total {total}")).format(who=who, total=total)
            what = card_label(event.cards[0], edition)
            return (_("You played {card} — total {total}") if me
                    else _("{who} played {card} — total {total}")).format(who=who, card=what, total=total)
        if isinstance(event, DrawEvent):
            me, who = self.is_me(event.seat), self.seat_name(event.seat)
            if event.card:
                # "the card": "You drew 1" would read as a count
                return (_("You drew the card {card}") if me else _("{who} drew the card {card}")).format(
                    who=who, card=card_label(event.card, edition))
            return (_("You drew a card") if me else _("{who} drew a card")).format(who=who)
        if isinstance(event, ReshuffleEvent):
            return words.count(event.size, "The discard pile was shuffled into a new draw pile of {n} card",
                               "The discard pile was shuffled into a new draw pile of {n} cards")
        if isinstance(event, MissedDrawEvent):
            if self.is_me(event.seat):
                return _("You missed your draw and play one card short")
            return _("{who} missed a draw and plays one card short").format(who=self.seat_name(event.seat))
        if isinstance(event, OutEvent):
            me, who = self.is_me(event.seat), self.seat_name(event.seat)
            if edition == "1980" and self.points_scoring:
                return _("You cannot play and drop out of the hand") if me else \
                    _("{who} cannot play and drops out of the hand").format(who=who)
            if edition == "1980":
                return _("You cannot play and lose the hand") if me else \
                    _("{who} cannot play and loses the hand").format(who=who)
            return _("You cannot play and are out") if me else _("{who} cannot play and is out").format(who=who)
        if isinstance(event, HandStartedEvent):
            first = self.is_me(event.first)
            starts = _("You play first") if first else _("{who} plays first").format(
                who=self.seat_name(event.first))
            return starts if edition == "2022" else _("Hand {n}: {starts}").format(n=event.hand + 1, starts=starts)
        if isinstance(event, HandEndedEvent):
            return self._describe_hand_end(event, before)
        if isinstance(event, GameOverEvent):
            if self.is_me(event.winner):
                return _("You win the game!")
            return _("{who} wins the game!").format(who=self.seat_name(event.winner))
        return ""

    def _describe_hand_end(self, event: HandEndedEvent, before: View | None) -> str:
        parts = [_("Hand {n} is over").format(n=event.hand + 1)]
        eliminated = list(event.eliminated)
        loser = event.loser
        if event.tokens is not None and loser is not None:
            had = _at(before.tokens, loser) if before is not None else None
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
        if event.hand_points is not None:
            points = ", ".join(f"{self.seat_name(s)} +{p}" for s, p in enumerate(event.hand_points) if p)
            if points:
                parts.append(points)
        for seat in eliminated:
            parts.append(_("you are out of the match") if self.is_me(seat)
                         else _("{who} is out of the match").format(who=self.seat_name(seat)))
        return ": ".join(parts[:1]) + (" — " + "; ".join(parts[1:]) if parts[1:] else "")

    # --- questions the screens ask -------------------------------------------------------------------
    def connection_note(self) -> str:
        """What the title says while the connection is down: the server's farewell when it said
        one (a clean stop is not a lost connection), else that the connection was lost."""
        if self.farewell == REPLACED:
            return _("You connected again from elsewhere; this window is closed.")
        if self.farewell:
            return _("{reason}; reconnecting…").format(reason=self.farewell_said())
        return _("CONNECTION LOST, reconnecting…")

    def farewell_said(self) -> str:
        """The server's farewell in the reader's language when it is a known one."""
        return _("the server is shutting down") if self.farewell == SHUTTING_DOWN else self.farewell

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
        return v is not None and v.winner is None and v.seat is not None and v.turn == v.seat

    @property
    def can_draw(self) -> bool:
        return self.view is not None and "draw" in self.view.legal

    def reason_for(self, code: str) -> str | None:
        """Why a card in my hand cannot be played now, as the server said."""
        view = self.view
        if view is None:
            return None
        for entry in view.unplayable:
            if entry.card == code:
                return unplayable_reason(entry)
        if not self.my_turn:
            if view.winner is not None:
                return _("the game is over")
            if view.seat is not None and not view.active[view.seat]:
                return _("you are out of this game")
            return _("it is {name}'s turn").format(name=self.plain_name(view.turn))
        if code not in view.legal:
            return _("that card cannot be played now")
        return None

    def ranking(self) -> list[int]:
        """Seats best first, as the server ranks them once the game is over (``view.ranking``);
        empty before."""
        v = self.view
        return [] if v is None or v.ranking is None else list(v.ranking)


def _at(values: Sequence[int] | None, seat: int) -> int | None:
    """``values[seat]``, or None when there are no such values."""
    return None if values is None or not 0 <= seat < len(values) else values[seat]
