"""The plain mode's game: what the server sends, said as sentences; what the player types, sent as
protocol messages.

``PlainSession`` reads decoded server messages (``ono99_kernel.wire.server``) into the same ``Model`` the
app keeps (names, seats, the view, which events and chat lines were taken in already, how the
reader was knocked out), and says what changed, once: a play, your turn and your cards, a warning
as your clock runs down, the end of a game with its ranking and the next step. It decides nothing
about the rules: which cards can be played and why not is the view's ``legal`` and ``unplayable``.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ono99_kernel.core.errors import OptionError
from ono99_kernel.core.options import Scoring, parse_option_text
from ono99_kernel.protocol import BOT_LEVEL_NAMES, HOSTS_TABLE
from ono99_kernel.wire.common import Scope, as_edition
from ono99_kernel.wire.requests import (
    Act,
    CreateTable,
    Join,
    Kick,
    Leave,
    LeaveQueue,
    PlayNow,
    Rematch,
    Request,
    Say,
    Sit,
    Spectate,
    Stand,
    Start,
    StartSeries,
)
from ono99_kernel.wire.server import (
    ArenaGame,
    ArenaMessage,
    ArenaResults,
    Arenas,
    Away,
    Chat,
    ChatHistory,
    ChatLine,
    DrawEvent,
    GameEvent,
    GameOverEvent,
    HandEndedEvent,
    HandStartedEvent,
    History,
    Left,
    MissedDrawEvent,
    Notice,
    OutEvent,
    PlayEvent,
    Profile,
    Queue,
    Queued,
    ReshuffleEvent,
    ServerMessage,
    State,
    TableDetail,
    TableMessage,
    Tables,
    View,
    Welcome,
)

from .. import text as count_words
from ..analysis import Analysis, analyse
from ..analysis_words import marks_in_words
from ..client.labels import table_name
from ..client.model import SHUTTING_DOWN, KnockOut
from ..client.seat_choices import seat_choices, seated_in_running_game
from ..client.session import (
    LOCAL_GAME,
    AskToWatch,
    ClientSession,
    Closed,
    CodeNotUsed,
    Effect,
    End,
    Reaction,
    Refusal,
    Replaced,
    ShowLobby,
    WaitingToPlay,
)
from ..i18n import gettext as _
from ..i18n import ngettext
from ..reasons import said
from ..series_text import (
    SeriesChoice,
    choice_of_word,
    series_fields,
    series_progress,
    series_winner,
    standings_sentence,
)
from . import sentences as words
from .arena import ArenaLines
from .console import Console, plain_text

EDITIONS = ("2022", "1980")
CLOCK_WARNINGS = (10, 5)  # seconds left on your turn clock that are said
EARLIER_CHAT = 5  # the newest lines of a chat's history said on coming to a table or the lobby


@dataclass(slots=True)
class LocalControls:
    """What a local game's player may do to its bots: hold them while a question waits for an
    answer, and let them play without waiting once no person is left in the game; and the record of
    the game finished at a table (its analysis reads it)."""

    pause: Callable[[bool], None]
    fast_forward: Callable[[bool], None]
    finished_record: Callable[[int], Mapping[str, Any] | None] = lambda table: None


class PlainSession:
    """One player's plain game. ``send`` takes a protocol message for the server; ``quit`` ends the
    session; ``local``: a local game against bots (``controls`` then holds its bots). ``client``: the
    client session that decides the reactions to the server (a front's, with its entry), which this
    one says and carries out."""

    def __init__(self, console: Console, send: Callable[[Request], None], quit: Callable[[], None], *,
                 local: bool = False, full: bool = False, controls: LocalControls | None = None,
                 first_table: CreateTable | None = None,
                 on_verbosity: Callable[[bool], None] | None = None, client: ClientSession | None = None) -> None:
        self.console = console
        self._send = send
        self.quit = quit
        self.local = local
        self.full = full
        self.controls = controls
        self.client = client or ClientSession(local=local, first_table=first_table)
        self.on_verbosity = on_verbosity
        self.model = self.client.model
        self.ended: str | None = None  # the reason the server gave for ending the session for good
        self.play_now_wish: tuple[str, int] = ("2022", 4)
        self.take_back: asyncio.Future[bool] | None = None  # asked after the same player connected elsewhere
        self._answer: Callable[[str], None] | None = None  # a yes/no question waiting for its key
        self._welcomed = False
        self._was_my_turn = False
        self._turn_hint_said = False
        self._draw_said = False
        self._game_end_said: tuple[int, int] | None = None  # (table, game) whose end was said
        self._catching_up = False  # a history came: the next state says where the game stands
        self._heard: tuple[int, int, int] | None = None  # (table, game, seq) of the last state's events
        self._lobby_pending = False  # entered the lobby: the next list of tables is counted aloud
        self._lobby_said = False
        self._lobby_hint_said = False
        self._fast = False
        self._clock_timers: list[asyncio.TimerHandle] = []
        self._clock_said: set[int] = set()
        self.arena_lines = ArenaLines(self.say, self.send)  # arenas said as lines (plain/arena.py)
        # the key that acted alone at an empty line, if what came since is the line typed after it:
        # "help" typed at a table runs h (the hand) at once and leaves "elp" to be read as the word
        self._key_before_line: str | None = None
        console.on_key = self._key_pressed
        console.on_line = self.command
        console.on_end = self.quit

    def send(self, request: Request) -> None:
        """A request for the server, noted by the client session (a join by code, a table asked for)."""
        self._send(self.client.asked(request))

    def say(self, *lines: str) -> None:
        for line in lines:
            if line:
                self.console.say(line)

    def close(self) -> None:
        self._cancel_clock()

    # --- what the server sends ----------------------------------------------------------------------
    def receive(self, message: ServerMessage) -> None:
        model = self.model
        before_table = model.table
        before_view = model.view
        before_queue = model.queue
        new_events = self._new_events(message)
        reaction = self.client.receive(message)  # the model takes the message in
        if isinstance(message, Welcome):
            self._welcome(message)
        elif isinstance(message, Tables):
            self._tables()
        elif isinstance(message, TableMessage):
            self._table(message.table, before_table, from_queue=before_queue is not None)
        elif isinstance(message, Left):
            self._cancel_clock()
            self.say(_("You left the table and are in the lobby."))
            self._enter_lobby(said=True)
        elif isinstance(message, State):
            self._state(message, new_events, before_view)
            self._heard = (message.table, message.game_no, model.seq)
        elif isinstance(message, History):
            self._catching_up = True
            if before_view is not None:  # moves made while the connection was down: said, as they would have been
                for event in new_events:
                    self.say(*self._event_lines(event, before_view, before_view))
        elif isinstance(message, Chat):
            self._chat(message.line, message.scope)
        elif isinstance(message, ChatHistory):
            for line in list(message.messages)[-EARLIER_CHAT:]:
                self._chat(line, message.scope, earlier=True)
        elif isinstance(message, Notice | Away):
            self.say(words.sentence(plain_text(said(message, model.my_name))))  # "Your clock ran out", to you
        elif isinstance(message, Queue):
            self._queue(before_queue)
        elif isinstance(message, Arenas | ArenaMessage | ArenaGame | ArenaResults | Profile):
            self.arena_lines.receive(message)
        self._carry_out(reaction)

    def _carry_out(self, reaction: Reaction) -> None:
        """Send what the client session's reaction asks for, and say what it says."""
        for request in reaction.requests:
            self.send(request)
        for effect in reaction.effects:
            self._show(effect)

    def _new_events(self, message: ServerMessage) -> list[GameEvent]:
        """The events of a state the model has not taken in yet, and those of a history of the game
        the reader was following that came after its last state (made while the connection was down,
        or the server restarted): each event is said once. A game found under way is not read out."""
        if isinstance(message, State):
            if message.seq is None:
                return list(message.events)
            heard, last = self.model.seq, message.seq
        elif isinstance(message, History) and self._heard is not None \
                and self._heard[:2] == (message.table, message.game_no):
            heard, last = self._heard[2], message.seq
        else:
            return []
        first = last - len(message.events) + 1  # events count up to seq, as the model reads them
        return [e for i, e in enumerate(message.events) if first + i > heard]

    def _welcome(self, welcome: Welcome) -> None:
        self._was_my_turn = False  # a new link: your turn, if it is, is said again with your cards
        if self.local:
            return
        if self._welcomed:
            self.say(_("Connected again."))
        else:
            self.say(_("Welcome to {server}, {name}.").format(server=plain_text(welcome.server),
                                                                  name=plain_text(welcome.name)))
        self._welcomed = True

    def _show(self, effect: Effect) -> None:
        """What the client session's reaction asks to say or ask."""
        if isinstance(effect, ShowLobby):
            if not effect.rewatching and not self._lobby_pending:  # the table watched comes back instead
                self._enter_lobby()
        elif isinstance(effect, Refusal):
            self.say(_("Not done: {reason}").format(reason=words.clause(plain_text(said(effect.error)))))
        elif isinstance(effect, AskToWatch):
            self._ask_to_watch(effect)
        elif isinstance(effect, WaitingToPlay):
            self.play_now_wish = effect.wish
        elif isinstance(effect, CodeNotUsed):
            self.say(_("You are back at your own table; the invite code {code} was not used.").format(code=effect.code))
        elif isinstance(effect, Replaced):
            self.say(_("You connected again from elsewhere; this window is closed."),
                     _("Type t to take your seat back here, or q to quit."))
            self.take_back = asyncio.get_running_loop().create_future()
        elif isinstance(effect, Closed) and effect.bye.reason == SHUTTING_DOWN:
            self.say(_("The server is shutting down."))
        elif isinstance(effect, Closed):
            self.say(_("The server closed the connection: {reason}").format(reason=words.clause(
                plain_text(effect.bye.reason))))
        elif isinstance(effect, End):
            self.ended = effect.reason  # the session's end is said by its front
            self.quit()

    def _enter_lobby(self, said: bool = False) -> None:
        """The next list of tables is counted aloud (after "You are in the lobby." unless ``said``)."""
        self._lobby_pending = True
        self._lobby_said = said

    def _tables(self) -> None:
        model = self.model
        if not self._lobby_pending or model.table is not None:
            return
        self._lobby_pending = False
        if not self._lobby_said:
            self.say(_("You are in the lobby."))
        self.say(words.open_tables(len(model.tables)))
        if not self._lobby_hint_said:
            self._lobby_hint_said = True
            self.say(_("Type l to list the tables, p to play now, or ? for the commands."))

    def _list_tables(self) -> None:
        tables = self.model.tables
        self.say(words.open_tables(len(tables)))
        for table in tables:
            self.say(words.table_line(table))
        if tables:
            self.say(_("Type a table's number and Enter to join it, or s, its number and Enter to watch it."))

    # --- the table ------------------------------------------------------------------------------------
    def _table(self, table: TableDetail, before: TableDetail | None, from_queue: bool = False) -> None:
        if before is None or before.id != table.id:
            self._arrive(table, from_queue)
        else:
            self._table_changes(before, table)

    def _arrive(self, table: TableDetail, from_queue: bool = False) -> None:
        self._cancel_clock()
        self._game_end_said = None
        self._was_my_turn = False
        name = plain_text(table_name(table))
        host = table.name_params.get("host") if table.name_code == HOSTS_TABLE else None
        if table.you is None and isinstance(host, str):  # "Kim's table" already says table: not "the table Kim's table"
            self.say(_("You are watching {host}'s table.").format(host=plain_text(host)))
        elif table.you is None:
            self.say(_("You are watching the table {name}.").format(name=name))
        elif self.local:
            self.say(_("A local game: {rules}.").format(rules=words.table_rules(table.options)))
        elif isinstance(host, str):
            self.say(_("You sit at {host}'s table, in seat {n} of {seats}.").format(
                host=plain_text(host), n=table.you + 1, seats=len(table.seats)))
        else:
            self.say(_("You sit at the table {name}, in seat {n} of {seats}.").format(
                name=name, n=table.you + 1, seats=len(table.seats)))
        if not self.local:
            self.say(_("Its rules: {rules}.").format(rules=words.table_rules(table.options)))
        if table.code and table.host == self.model.my_name:
            self.say(_("Its invite code is {code}: friends join with it.").format(code=table.code))
        if table.series is not None:
            self.say(words.sentence(plain_text(series_progress(table.series))))
        if not self.local and not from_queue:  # a local table, and one play now found, start at once
            self._say_status_of_table(table)
        if not self.local and table.you is not None and table.status == "playing":  # seated as its game runs
            self._say_players(table)

    def _say_players(self, table: TableDetail) -> None:
        self.say(_("The players: {names}.").format(names=", ".join(
            _("you") if i == table.you else plain_text(seat.name) for i, seat in enumerate(table.seats))))

    def _arena_game(self, table: TableDetail) -> str | None:
        """At an arena's table (seated by the arena, which has no host who starts games): the sentence that
        says so, naming the arena when it is the one you are in; None at any other table."""
        if not table.of_arena:
            return None
        mine = self.arena_lines.mine
        if mine is None:
            return _("This is an arena game.")
        return _("This is a game of the arena {arena}.").format(arena=plain_text(mine.arena.name))

    def _say_status_of_table(self, table: TableDetail) -> None:
        arena = self._arena_game(table)
        if arena is not None and table.status == "waiting":
            self.say(arena, _("It starts by itself."))
        elif arena is not None and table.status == "playing" and table.you is None:
            self.say(arena, _("You are watching it; x leaves the table."))  # nobody sits down at an arena's table
        elif table.status == "waiting":
            if self.local or table.host == self.model.my_name:
                self.say(_("The game has not started: type s to start it; empty seats get bots."))
            else:
                self.say(_("The game has not started: {host} starts it.").format(host=plain_text(table.host)))
        elif table.status == "playing" and table.you is None:
            self.say(_("A game is running: type u to sit down at the next one."))

    def _table_changes(self, before: TableDetail, table: TableDetail) -> None:
        """Who sat down, left, went away or came back, started watching; who hosts; your own seat."""
        if before.you != table.you:
            if table.you is None:
                self.say(_("You stood up and are watching the table."))
            else:
                self.say(_("You sit in seat {n}.").format(n=table.you + 1))
        started = before.status != "playing" and table.status == "playing"
        if started:  # the seats as the game starts, bots in the empty ones: said at once, not seat by seat
            self._say_players(table)
        for i, (old, new) in enumerate(zip(before.seats, table.seats, strict=False)):
            if started or self.local or i == table.you or i == before.you:  # nobody comes to a local game
                continue
            name = plain_text(new.name)
            if (old.kind, old.name) != (new.kind, new.name):
                if new.kind == "empty":
                    self.say(_("{name} left seat {n}.").format(name=plain_text(old.name), n=i + 1))
                elif new.kind == "bot":
                    self.say(_("{name}, a bot, took seat {n}.").format(name=name, n=i + 1))
                else:
                    self.say(_("{name} sat down in seat {n}.").format(name=name, n=i + 1))
            elif new.kind == "human" and old.connected != new.connected:
                self.say(_("{name} is away.").format(name=name) if not new.connected
                         else _("{name} is back.").format(name=name))
        self._say_series(before, table)
        watching = [w for w in table.watchers if w not in before.watchers and w != self.model.my_name]
        if watching:
            self.say(_("Watching now: {names}.").format(names=words.names(watching)))
        if before.host != table.host and table.host and not table.of_arena:
            self.say(_("You host this table now.") if table.host == self.model.my_name
                     else _("{name} hosts this table now.").format(name=plain_text(table.host)))
        if before.status == "playing" and table.status != "playing" and table.you is None and self.model.view is None:
            self._say_status_of_table(table)

    def _say_series(self, before: TableDetail, table: TableDetail) -> None:
        """After each game of a series: where it stands, the standings, and at its end its winner; and a
        new series, as it begins."""
        series, old = table.series, before.series
        if series is None or old is None:
            if old is not None and series is None:
                self.say(_("This table plays single games again."))
            elif series is not None and series.played == 0:
                self.say(words.sentence(plain_text(series_progress(series))))
            return
        if (series.kind, series.target, series.played) == (old.kind, old.target, old.played):
            return
        if series.played == 0:
            self.say(words.sentence(plain_text(series_progress(series))))
            return
        self.say(words.sentence(plain_text(series_progress(series))), plain_text(standings_sentence(series)),
                 plain_text(series_winner(series) or ""))

    # --- the game ---------------------------------------------------------------------------------------
    def _state(self, state: State, events: Sequence[GameEvent], before: View | None) -> None:
        model = self.model
        view = state.view
        if self._catching_up:  # the moves before are not read out: where the game stands is
            self._catching_up = False
            if view.winner is None and not model.my_turn:
                self.say(self._whose_turn(view))
        for event in events:
            self.say(*self._event_lines(event, before, view))
            # how you lost, right after the hand's outcome (1980) or your out (2022): the model knows
            # it from the event and the view before it
            outcome = isinstance(event, HandEndedEvent) or (isinstance(event, OutEvent) and view.edition == "2022")
            if outcome and model.knockout is not None:
                knockout, model.knockout = model.knockout, None
                self._knocked_out(knockout, match_over=view.winner is not None)
        if view.winner is not None:
            self._cancel_clock()
            self._was_my_turn = False
            self._game_over(state)
            return
        my_turn = model.my_turn
        played_again = my_turn and any(isinstance(e, PlayEvent) and model.is_me(e.seat) for e in events)
        if my_turn and (not self._was_my_turn or played_again):
            self._your_turn(view)
        self._was_my_turn = my_turn
        if model.can_draw and not self._draw_said:
            self._draw_said = True
            self.say(_("Type d to draw your card."))
        elif not model.can_draw:
            self._draw_said = False
        self._clock(state, my_turn)

    def _event_lines(self, event: GameEvent, before: View | None, view: View) -> list[str]:
        model = self.model
        edition = view.edition
        me = model.is_me(getattr(event, "seat", None))
        who = plain_text(model.plain_name(getattr(event, "seat", None)))
        if isinstance(event, PlayEvent):
            four = len(event.cards) == 4
            total = words.total(event.total, view.options.limit)
            if me and model.made_by_stand_in(event):  # a bot played in your place: not "You played"
                played = _("A bot discarded four ONO 99 cards for you.") if four else \
                    _("A bot played {card} for you.").format(card=words.card(event.cards[0], edition))
                return [f"{played} {total}"]
            if me:
                played = _("You discarded four ONO 99 cards.") if four else _("You played {card}.").format(
                    card=words.card(event.cards[0], edition))
                return [f"{played} {total}"]
            if self.full:
                played = _("{who} discarded four ONO 99 cards.") if four else _("{who} played {card}.")
                return [f"{played.format(who=who, card=words.card(event.cards[0], edition))} {total}"]
            played = _("{who} discarded four ONO 99 cards, total {total}.") if four else \
                _("{who} played {card}, total {total}.")
            return [played.format(who=who, card=words.card(event.cards[0], edition), total=event.total)]
        if isinstance(event, DrawEvent):
            if me and event.card:
                return [_("You drew {card}.").format(card=words.card(event.card, edition))]
            return [_("{who} drew a card.").format(who=who)] if self.full else []
        if isinstance(event, ReshuffleEvent):
            return [ngettext("The discard pile was shuffled into a new draw pile of {n} card.",
                             "The discard pile was shuffled into a new draw pile of {n} cards.",
                             event.size).format(n=event.size)] if self.full else []
        if isinstance(event, MissedDrawEvent):
            return [_("You missed your draw and play one card short.") if me
                    else _("{who} missed a draw and plays one card short.").format(who=who)]
        if isinstance(event, OutEvent):
            return [self._out_line(me, who, view)]
        if isinstance(event, HandStartedEvent):
            self._draw_said = False
            first = model.is_me(event.first)
            first_name = plain_text(model.plain_name(event.first))
            if edition == "2022":
                return [_("The game begins: you play first.") if first
                        else _("The game begins: {who} plays first.").format(who=first_name)]
            return [_("Hand {n} begins: you play first.").format(n=event.hand + 1) if first
                    else _("Hand {n} begins: {who} plays first.").format(n=event.hand + 1, who=first_name)]
        if isinstance(event, HandEndedEvent):
            return self._hand_ended_lines(event, before)
        if isinstance(event, GameOverEvent):
            return [_("You win the game!") if model.is_me(event.winner)
                    else _("{who} wins the game!").format(who=plain_text(model.plain_name(event.winner)))]
        return []

    def _out_line(self, me: bool, who: str, view: View) -> str:
        if view.edition == "1980" and view.options.scoring is Scoring.POINTS:
            return _("You cannot play and drop out of the hand.") if me else \
                _("{who} cannot play and drops out of the hand.").format(who=who)
        if view.edition == "1980":
            return _("You cannot play and lose the hand.") if me else \
                _("{who} cannot play and loses the hand.").format(who=who)
        return _("You cannot play and are out.") if me else _("{who} cannot play and is out.").format(who=who)

    def _hand_ended_lines(self, event: HandEndedEvent, before: View | None) -> list[str]:
        model = self.model
        lines = [_("Hand {n} is over.").format(n=event.hand + 1)]
        eliminated = list(event.eliminated)
        loser = event.loser
        if event.tokens is not None and loser is not None:
            had = before.tokens[loser] if before is not None and before.tokens is not None else None
            me = model.is_me(loser)
            who = plain_text(model.plain_name(loser))
            if loser not in eliminated:
                lines.append(_("You lost a token.") if me else _("{who} lost a token.").format(who=who))
            elif had == 0:
                lines.append(_("You had no token left and are out of the match.") if me
                             else _("{who} had no token left and is out of the match.").format(who=who))
            else:
                lines.append(_("You lost your last token and are out of the match.") if me
                             else _("{who} lost their last token and is out of the match.").format(who=who))
            eliminated = [s for s in eliminated if s != loser]
        if event.hand_points is not None:
            points = [f"{self._name(s)} {count_words.points(p)}" for s, p in enumerate(event.hand_points) if p]
            if points:
                lines.append(_("Points this hand: {points}.").format(points=", ".join(points)))
        for seat in eliminated:
            lines.append(_("You are out of the match.") if model.is_me(seat)
                         else _("{who} is out of the match.").format(who=plain_text(model.plain_name(seat))))
        return lines

    def _name(self, seat: int) -> str:
        """A seat's name in a list: "you" for the reader."""
        return _("you") if self.model.is_me(seat) else plain_text(self.model.plain_name(seat))

    def _knocked_out(self, knockout: KnockOut, match_over: bool) -> None:
        """How the reader lost; when the game goes on without them, that it does (``match_over``: the
        same moves ended it, and its ranking follows)."""
        edition = self.model.edition
        held = words.cards(knockout.cards, edition) or _("no cards")
        self.say(_("At a total of {total}, none of your cards could be played.").format(total=knockout.total),
                 _("You held: {cards}.").format(cards=held))
        if knockout.tokens is not None:
            self.say(_("Tokens left: {n}.").format(n=knockout.tokens) if not knockout.final
                     else _("You have no tokens left."))
        if knockout.score is not None:
            self.say(_("Your score: {points}.").format(points=count_words.points(knockout.score)))
        if knockout.final and not match_over:
            people = self._people_left()
            self.say(_("The others play on (bots only).") if people == 0 else _("The others play on."))
            if self.local and people == 0 and self.controls is not None:
                self.say(_("Type f to let the bots play fast."))

    def _people_left(self) -> int:
        table, view = self.model.table, self.model.view
        if table is None or view is None:
            return 0
        return sum(1 for i, seat in enumerate(table.seats) if seat.kind == "human" and i != table.you
                   and i < len(view.active) and view.active[i])

    def _turn_words(self, view: View) -> str:
        obligation = view.obligation
        if obligation is not None and obligation.seat == view.seat and obligation.plays_left == 2:
            return _("Your turn: play two cards.")
        if obligation is not None and obligation.seat == view.seat:
            return _("Your second card.")
        return _("Your turn.")

    def _your_turn(self, view: View) -> None:
        self.say(f"{self._turn_words(view)} {words.total(view.total, view.options.limit)}", self._hand_line(view))
        if "ONO99x4" in view.legal:
            self.say(_("Type f to discard four ONO 99 cards."))
        if not self._turn_hint_said:
            self._turn_hint_said = True
            self.say(_("Type a card's number to play it; h says your cards again, t the total."))

    def _hand_line(self, view: View) -> str:
        if not view.hand:
            return _("You hold no cards.")
        why = {entry.card for entry in view.unplayable}
        parts = []
        for i, code in enumerate(view.hand, start=1):
            name = words.card(code, view.edition)
            parts.append(_("{n}, {card}, not playable").format(n=i, card=name) if code in why
                         else f"{i}, {name}")
        return _("Your cards: {cards}.").format(cards=words.LIST_SEPARATOR.join(parts))

    def _whose_turn(self, view: View) -> str:
        total = words.total(view.total, view.options.limit)
        if view.turn is None:
            return total
        turn = _("Your turn.") if self.model.is_me(view.turn) else _("{who}'s turn.").format(
            who=plain_text(self.model.plain_name(view.turn)))
        return f"{total} {turn}"

    def _game_over(self, state: State) -> None:
        model = self.model
        key = (state.table, state.game_no)
        if self._game_end_said == key:
            return
        self._game_end_said = key
        view = state.view
        places = []
        for place, seat in enumerate(model.ranking(), start=1):
            entry = f"{place}, {self._name(seat)}"
            if view.tokens is not None:
                entry += ", " + count_words.tokens(view.tokens[seat])
            if view.scores is not None:
                entry += ", " + count_words.points(view.scores[seat])
            places.append(entry)
        if places:
            self.say(_("Ranking: {places}.").format(places=words.LIST_SEPARATOR.join(places)))
        self._next_step()
        if self._fast and self.controls is not None:
            self._fast = False
            self.controls.fast_forward(False)

    def _next_step(self) -> None:
        table = self.model.table
        if self.local:
            self.say(_("Type r to play again, or n and Enter for a new game."))
        elif table is not None and table.you is None and self._arena_game(table) is not None:
            self.say(_("Type x to leave the table."))  # an arena's table plays no next game
        elif table is not None and table.you is None:
            self.say(_("Type u to sit down at the next game, or x to leave the table."))
        elif table is not None and (arena := self._arena_game(table)) is not None:
            self.say(arena, _("The arena seats you at your next game by itself; arena standings says the "
                              "standings, arena leave leaves the arena."))
        elif table is not None and table.host == self.model.my_name:
            self.say(_("Type r to play again, x to leave the table, or p to play now."))
        else:
            host = plain_text(table.host) if table is not None else ""
            self.say(_("{host} hosts this table and starts the next game.").format(host=host),
                     _("Type x to leave the table, or p to play now."))

    # --- the turn clock -------------------------------------------------------------------------------
    def _clock(self, state: State, my_turn: bool) -> None:
        """Say the seconds left on your turn at 10 and at 5 (each once a turn)."""
        self._cancel_clock(forget=not my_turn)
        if not my_turn or state.clock is None:
            return
        loop = asyncio.get_running_loop()
        for mark in CLOCK_WARNINGS:
            if mark in self._clock_said:
                continue
            delay = state.clock - mark
            if delay >= 0:
                self._clock_timers.append(loop.call_later(delay, self._clock_warning, mark))

    def _clock_warning(self, mark: int) -> None:
        if mark in self._clock_said or not self.model.my_turn:
            return
        self._clock_said.add(mark)
        self.say(words.seconds_left(mark))

    def _cancel_clock(self, forget: bool = True) -> None:
        for timer in self._clock_timers:
            timer.cancel()
        self._clock_timers.clear()
        if forget:
            self._clock_said.clear()

    # --- chat, play now, farewells ---------------------------------------------------------------------
    def _chat(self, line: ChatLine, scope: str, earlier: bool = False) -> None:
        if not earlier and line.sender == self.model.my_name:
            return  # your own line, echoed as you typed it
        who, text = plain_text(line.sender), plain_text(line.text)
        if earlier and line.sender == self.model.my_name:
            self.say(_("Earlier, you said: {text}").format(text=text))
        elif earlier:
            self.say(_("Earlier, {who} said: {text}").format(who=who, text=text))
        elif scope == "lobby" and self.model.table is not None:
            self.say(_("{who} says in the lobby: {text}").format(who=who, text=text))
        else:
            self.say(_("{who} says: {text}").format(who=who, text=text))

    def _queue(self, before: Queued | None) -> None:
        queued = self.model.queue
        if queued is None:
            if before is not None and self.model.table is None:
                self.say(_("You stopped waiting to play now."))
            return
        if before is None or (before.edition, before.seats) != (queued.edition, queued.seats):
            self.say(_("You wait to play now: {edition}, {seats}.").format(
                edition=queued.edition, seats=words.seats(queued.seats)),
                _("Bots take the empty seats in {seconds} seconds if nobody comes; x stops waiting.").format(
                    seconds=f"{queued.fill_in:.0f}"))
        elif before.waiting != queued.waiting:
            self.say(ngettext("{n} player is waiting with you.", "{n} players are waiting with you.",
                              queued.waiting - 1).format(n=queued.waiting - 1) if queued.waiting > 1
                     else _("Nobody else is waiting yet."))

    def _ask_to_watch(self, question: AskToWatch) -> None:
        """A join by invite code refused because the game runs or every seat is taken: offer to watch."""
        def watch() -> None:
            for request in self.client.watch_answer(question, True):
                self.send(request)

        self.ask((_("The game at the table of invite code {code} has already started. Watch it?") if question.started
                  else _("Every seat at the table of invite code {code} is taken. Watch it?")).format(
            code=question.code), watch)

    # --- questions --------------------------------------------------------------------------------------
    def question(self, question: str, answered: Callable[[bool], None]) -> None:
        """A yes/no question, answered by the next key or line: y, yes or the language's own yes
        (``words.is_yes``) is yes, anything else no. A local game's bots wait."""
        self.say(question, _("Type y for yes, n for no."))
        self._pause(True)

        def key(key: str) -> None:
            self._pause(False)
            answered(words.is_yes(key))

        self._answer = key

    def ask(self, question: str, then: Callable[[], None]) -> None:
        """A yes/no question: y does ``then``, any other key nothing."""
        def answered(yes: bool) -> None:
            if yes:
                then()
            else:
                self.say(_("Nothing was done."))

        self.question(question, answered)

    def _pause(self, paused: bool) -> None:
        if self.controls is not None:
            self.controls.pause(paused)

    def _seated_in_running_game(self) -> bool:
        """Seated while a game runs: its last state (a winner) may come a moment before the table says
        it is over, and a key pressed on hearing the ranking leaves a game that is over."""
        view = self.model.view
        return seated_in_running_game(self.model) and not (view is not None and view.winner is not None)

    def confirm_leaving(self, then: Callable[[], None], doing: str, question: str | None = None) -> None:
        """Do ``then`` at once, or, when it gives up a seat in a running game, once the player says yes."""
        if not self._seated_in_running_game():
            then()
            return
        if question is None:
            question = _("{doing}? The game is running: a bot plays your seat until it ends, "
                         "and you may take the seat back between games.").format(doing=doing)
        self.ask(question, then)

    # --- what the player types --------------------------------------------------------------------------
    def _key_pressed(self, key: str) -> bool:
        acted = self.key(key)
        if acted:
            self._key_before_line = key
        return acted

    def key(self, key: str) -> bool:
        """A key pressed at an empty line: whether it was a command on its own."""
        if self._answer is not None:
            answer, self._answer = self._answer, None
            answer(key)
            return True
        if self.take_back is not None:
            return self._replaced_key(key)
        table = self.model.table
        if key == "?":
            self.say(*(words.table_help(self.local) if table is not None else words.lobby_help()))
        elif key == "q":
            self._quit()
        elif key == "v":
            self.full = not self.full
            self.say(_("Full: every play, draw and turn is said.") if self.full
                     else _("Brief: the others' plays are said in short."))
            if self.on_verbosity is not None:
                self.on_verbosity(self.full)
        elif key == "c":
            scope: Scope = "table" if table is not None else "lobby"
            self.console.ask_line(_("Chat: ") if scope == "table" else _("Lobby chat: "),
                                  lambda text: self._send_chat(text, scope))
        elif table is not None:
            return self._table_key(key)
        else:
            return self._lobby_key(key)
        return True

    def _replaced_key(self, key: str) -> bool:
        future = self.take_back
        if future is None:
            return False
        if key in "tq":
            self.take_back = None
            if not future.done():
                future.set_result(key == "t")
        else:
            self.say(_("Type t to take your seat back here, or q to quit."))
        return True

    def _quit(self) -> None:
        if self.local and self._seated_in_running_game():
            self.ask(_("Quit? This game is not over: it ends here."), self.quit)
        elif self._seated_in_running_game():
            self.ask(_("{doing}? The game is running: a bot plays your seat until it ends, "
                       "and you may take the seat back between games.").format(doing=_("Quit")),
                     self._leave_and_quit)
        else:
            self.ask(_("Quit ONO 99?"), self._leave_and_quit)

    def _leave_and_quit(self) -> None:
        """Quit, leaving the table first: the seat is given up at once, not held for a player who
        will not come back (a guest's session ends with the program)."""
        if self.model.table is not None and not self.local:
            self.send(Leave())
        self.quit()

    def _send_chat(self, text: str, scope: Scope) -> None:
        if text.strip():
            self.send(Say(text=text, scope=scope))
        else:
            self.say(_("Nothing was sent."))

    def _table_key(self, key: str) -> bool:
        model = self.model
        view = model.view
        if key.isdigit() and key != "0":
            self._play_card(int(key))
        elif key == "t":
            self._status()
        elif key == "h":
            if view is None or view.seat is None:
                self.say(_("You hold no cards: you are watching."))
            else:
                self.say(self._hand_line(view))
        elif key == "l":
            self._last_plays()
        elif key == "w":
            self._who_is_at_the_table()
        elif key == "d":
            if model.can_draw:
                self._act("draw")
            else:
                self.say(_("There is no draw to take."))
        elif key == "f":
            self._four_or_fast()
        elif key == "s":
            self._start()
        elif key == "r":
            self._rematch()
        elif key == "u":
            self._stand_or_sit()
        elif key == "m":
            self._seat_menu()
        elif key == "x":
            self.confirm_leaving(lambda: self.send(Leave()), _("Leave the table"))
        elif key == "p" and not self.local:
            self.confirm_leaving(self._leave_to_play_now, _("Leave the table"))
        elif key == "a" and self.local:
            self._analyse()
        else:
            return False
        return True

    def _analyse(self) -> None:
        """a, once a local game is over: the player's moves searched in a thread (seconds of CPU), then
        the marked ones said in words."""
        table, view = self.model.table, self.model.view
        if table is None or view is None or view.winner is None or view.seat is None:
            self.say(_("a analyses your moves once the game is over."))
            return
        record = self.controls.finished_record(table.id) if self.controls is not None else None
        if record is None:
            self.say(_("This game's record is not available to analyse."))
            return
        seat, edition = view.seat, view.edition
        loop = asyncio.get_running_loop()

        def analysing(total: int) -> None:
            self.say(ngettext("Analysing your {n} decision…", "Analysing your {n} decisions…", total).format(n=total))

        def progress(done: int, total: int) -> None:  # in the search's thread
            if done == 0:
                loop.call_soon_threadsafe(analysing, total)

        def tell(future: asyncio.Future[Analysis]) -> None:
            if future.cancelled():
                return
            error = future.exception()
            if error is not None:
                self.say(_("The analysis failed: {error}").format(error=error))
                return
            self.say(*marks_in_words(future.result().seats[0], edition, you=True))

        context = contextvars.copy_context()  # the thread, and what it hands back, speak the session's language
        loop.run_in_executor(None, context.run, lambda: analyse(record, [seat], on_progress=progress)
                             ).add_done_callback(tell)

    def _leave_to_play_now(self) -> None:
        edition, seats = self.play_now_wish
        self.send(Leave())
        self.send(PlayNow(edition=as_edition(edition), seats=seats))

    def _play_card(self, number: int) -> None:
        model = self.model
        view = model.view
        if view is None or view.seat is None:
            self.say(_("You hold no cards: you are watching."))
            return
        if number > len(view.hand):
            self.say(ngettext("You hold {n} card.", "You hold {n} cards.", len(view.hand)).format(n=len(view.hand)))
            return
        code = view.hand[number - 1]
        reason = model.reason_for(code)
        if reason is not None:
            self.say(_("You cannot play {card}: {reason}.").format(card=words.card(code, view.edition), reason=reason))
            return
        self._act(code)

    def _act(self, code: str) -> None:
        view = self.model.view
        if view is not None:
            self.send(Act(action=code, version=view.version))

    def _four_or_fast(self) -> None:
        model = self.model
        view = model.view
        if view is not None and "ONO99x4" in view.legal:
            self._act("ONO99x4")
        elif self.local and self.controls is not None and view is not None and view.seat is not None \
                and view.winner is None and not view.active[view.seat]:
            self._fast = True
            self.controls.fast_forward(True)
            self.say(_("The bots play fast until this game is over."))
        elif view is None or model.edition != "2022":
            self.say(_("f discards four ONO 99 cards, a move of the 2022 edition only."))
        elif not model.my_turn:
            self.say(_("f discards four ONO 99 cards, on your turn."))
        else:
            self.say(_("f discards four ONO 99 cards at once; you hold {held}.").format(
                held=view.hand.count("ONO99")))

    def _start(self) -> None:
        model = self.model
        table = model.table
        if table is None:
            return
        if table.status == "playing":
            self.say(_("The game is already running."))
        elif table.host != model.my_name and not self.local:
            self.say(_("Only the host, {host}, can start the game.").format(host=plain_text(table.host)))
        elif table.status == "finished":
            self._rematch()
        else:
            self.send(Start())

    def _rematch(self) -> None:
        model = self.model
        table = model.table
        if table is None or table.status != "finished":
            self.say(_("r plays again once the game is over."))
        elif table.host != model.my_name and not self.local:
            self.say(_("Only the host, {host}, can start the next game.").format(host=plain_text(table.host)))
        else:
            self.send(Rematch())

    def _stand_or_sit(self) -> None:
        table = self.model.table
        if table is None or table.you is None:
            self.send(Sit())
            return
        question = (_("Stand up? A bot plays your cards until this game is over; u sits you down again at the next "
                      "game.") if self.local else None)
        self.confirm_leaving(lambda: self.send(Stand()), _("Stand up"), question)

    def _seat_menu(self) -> None:
        choices = seat_choices(self.model)
        if not choices:
            self.say(_("There is nothing to do with the seats now."))
            return
        self.say(_("Seat menu: type a number and Enter, or Enter alone to close it."))
        for number, (label, _message) in enumerate(choices, start=1):
            self.say(_("{n}: {choice}.").format(n=number, choice=plain_text(label)))

        def chosen(text: str) -> None:
            text = text.strip()
            if not text:
                self.say(_("The seat menu is closed."))
                return
            if not text.isdigit() or not 1 <= int(text) <= len(choices):
                self.say(_("The seat menu has choices 1 to {n}; it is closed.").format(n=len(choices)))
                return
            message = choices[int(text) - 1][1]
            if isinstance(message, Kick):
                table = self.model.table
                seat = message.seat
                name = table.seats[seat].name if table is not None and seat < len(table.seats) else ""
                self.ask(_("Remove {name} from the table? They are sent back to the lobby.").format(
                    name=plain_text(name)), lambda: self.send(message))
            else:
                self.send(message)

        self.console.ask_line("", chosen)

    def _status(self) -> None:
        model = self.model
        table, view = model.table, model.view
        if table is None:
            return
        if view is None or table.status == "waiting":
            self._say_status_of_table(table)
            if table.status == "waiting":
                return
        if view is None:
            return
        if view.winner is not None:
            self.say(_("The game is over: you won.") if model.is_me(view.winner) else _(
                "The game is over: {who} won.").format(who=plain_text(model.plain_name(view.winner))))
            self._next_step()
            return
        obligation = view.obligation
        if model.my_turn:
            self.say(f"{self._turn_words(view)} {words.total(view.total, view.options.limit)}")
        else:
            self.say(self._whose_turn(view))
            if obligation is not None:
                self.say(ngettext("{who} has {n} card to play.", "{who} has {n} cards to play.",
                                  obligation.plays_left).format(who=plain_text(model.plain_name(obligation.seat)),
                                                                n=obligation.plays_left))
        left = model.clock_left()
        if left is not None and model.my_turn:
            self.say(words.seconds_left(int(left)))
        if view.seat is not None and not view.active[view.seat]:
            self.say(_("You are out of this game: you are watching it to its end."))

    def _last_plays(self) -> None:
        model = self.model
        plays = list(model.recent_plays)
        if not plays:
            self.say(_("No card has been played yet."))
            return
        edition = model.edition
        parts = []
        for play in plays:
            what = _("four ONO 99") if len(play.cards) == 4 else words.card(play.cards[0], edition)
            parts.append(_("{who}, {card}, total {total}").format(who=self._name(play.seat), card=what,
                                                                 total=play.total))
        self.say(_("Last plays: {plays}.").format(plays=words.LIST_SEPARATOR.join(parts)))

    def _who_is_at_the_table(self) -> None:
        model = self.model
        table, view = model.table, model.view
        if table is None:
            return
        for i, seat in enumerate(table.seats):
            parts = []
            if seat.kind == "empty":
                parts.append(_("empty"))
            else:
                parts.append(_("you") if table.you == i else plain_text(seat.name))
            if seat.kind == "bot":
                parts.append(_("a bot"))
            if seat.name and seat.name == table.host and not table.of_arena:  # the arena seats, not a host
                parts.append(_("host"))
            if seat.kind == "human" and seat.connected is False:
                parts.append(_("away"))
            if view is not None and i < view.seats and seat.kind != "empty":
                if view.winner is None and not view.active[i]:
                    parts.append(_("out"))
                elif view.winner is None:
                    parts.append(count_words.cards(view.hand_sizes[i]))
                if view.tokens is not None:
                    parts.append(count_words.tokens(view.tokens[i]))
                if view.scores is not None:
                    parts.append(count_words.points(view.scores[i]))
                if view.turn == i:
                    parts.append(_("on turn"))
            self.say(_("Seat {n}: {what}.").format(n=i + 1, what=", ".join(parts)))
        if table.watchers:
            self.say(_("Watching: {names}.").format(names=words.names(table.watchers)))

    # --- the lobby --------------------------------------------------------------------------------------
    def _lobby_key(self, key: str) -> bool:
        model = self.model
        if key == "l":
            self._list_tables()
        elif key == "w":
            self._who_is_online()
        elif key == "p":
            self._play_now()
        elif key in "e+-=":
            edition, seats = self.play_now_wish
            if key == "e":
                edition = EDITIONS[(EDITIONS.index(edition) + 1) % len(EDITIONS)]
            else:
                seats = max(2, min(8, seats + (-1 if key == "-" else 1)))
            self.play_now_wish = (edition, seats)
            if model.queue is not None:
                self.send(PlayNow(edition=as_edition(edition), seats=seats))
            else:
                self.say(_("Play now: {edition}, {seats}.").format(edition=edition, seats=words.seats(seats)))
        elif key == "x":
            if model.queue is not None:
                self.send(LeaveQueue())
            else:
                self.say(_("You are not waiting to play now."))
        else:
            return False
        return True

    def _play_now(self) -> None:
        edition, seats = self.play_now_wish
        if self.local:  # nobody else can come: bots take the other seats at once
            self._table_asked = True
            self.send(CreateTable(edition=as_edition(edition), seats=seats, bots=seats - 1, bot_level="greedy",
                                  turn_seconds=0, start=True, name=_(LOCAL_GAME), replace_bots=True))
        else:
            self.send(PlayNow(edition=as_edition(edition), seats=seats))

    def _who_is_online(self) -> None:
        model = self.model
        people = []
        for player in model.online:
            name = plain_text(player.name)
            people.append(_("{name}, away").format(name=name) if player.away else name)
        if not people:
            self.say(_("Nobody else is online."))
            return
        self.say(_("Online: {names}.").format(names=words.LIST_SEPARATOR.join(people)))
        if model.online_total > len(people):
            self.say(ngettext("{n} player in all.", "{n} players in all.", model.online_total).format(
                n=model.online_total))

    def command(self, line: str) -> None:
        """A typed line, sent with Enter."""
        text = line.strip()
        key_before, self._key_before_line = self._key_before_line, None
        if self._answer is not None:
            answer, self._answer = self._answer, None
            answer(text)
            return
        if self.take_back is not None:
            self._replaced_key(text[:1])
            return
        if not text:
            if self.model.table is not None:
                self._status()
            return
        head, _space, rest = text.partition(" ")
        rest = rest.strip()
        if len(text) == 1 and self.key(text):  # a single key typed with Enter (input that is not a terminal)
            return
        if text.lower() == "help" or (key_before == "h" and text.lower() == "elp"):
            self.key("?")
            return
        table = self.model.table
        if head.isdigit() and table is None:
            self._join_listed(int(head), watch=False)
        elif head.lower() == "j" and rest:
            self._join_or_watch(rest, watch=False)
        elif head.lower() == "s" and rest and table is None:
            self._join_or_watch(rest, watch=True)
        elif head[:1].lower() == "s" and head[1:].isdigit() and not rest and table is None:  # "s5": the space left out
            self._join_listed(int(head[1:]), watch=True)
        elif head.lower() == "n":
            self._new_table(rest.split())
        elif head.lower() == "e" and table is not None:
            self._series(rest.lower())
        elif head.lower() == "c" and rest:
            self._send_chat(rest, "table" if table is not None else "lobby")
        elif head.lower() == "arena":
            self.arena_lines.command(rest)
        else:
            self.say(_("There is no command {command}; type ? for the commands.").format(command=plain_text(text[:40])))

    def _series(self, wish: str) -> None:
        """e best5, e first10, e none: the series the host's private table plays from its next game."""
        choice = choice_of_word(wish)
        if choice is None and wish != "none":
            self.say(_("Type e best5 for a series of 5 games, e first10 for one to 10 points, or e none."))
            return
        games, points = series_fields(choice)
        self.send(StartSeries(games=games, points=points))

    def join_by_code(self, code: str) -> None:
        """Sit down at the table of an invite code (refused because its game runs: offered to watch)."""
        self.send(Join(code=code))

    def _join_or_watch(self, what: str, watch: bool) -> None:
        if what.isdigit():
            self._join_listed(int(what), watch)
        elif watch:
            self.send(Spectate(code=what.upper()))
        else:
            self.join_by_code(what.upper())

    def _join_listed(self, number: int, watch: bool) -> None:
        """Join or watch the listed table whose number (its id, as the app's # column shows) is ``number``."""
        if not any(table.id == number for table in self.model.tables):
            self.say(_("There is no table {n}; l lists the tables.").format(n=number))
            return
        self.send(Spectate(table=number) if watch else Join(table=number))

    def _new_table(self, args: Sequence[str]) -> None:
        """n [2022|1980] [SEATS] [LEVEL] [private] [NAME=VALUE or NAME …]: a new table (a new game, locally)."""
        edition, seats, level, private = "2022", 4, "greedy", False
        series: SeriesChoice = None
        options: dict[str, Any] = {}
        for arg in args:
            lowered = arg.lower()
            if lowered in EDITIONS:
                edition = lowered
            elif arg.isdigit():
                seats = int(arg)
            elif lowered in BOT_LEVEL_NAMES:
                level = lowered
            elif lowered == "private":
                private = True
            elif choice_of_word(lowered) is not None:  # best5, first10: a series
                series = choice_of_word(lowered)
                private = True  # a series is played at a private table
            else:
                try:
                    name, value = parse_option_text(arg if "=" in arg else f"{arg}=true")
                except OptionError as exc:
                    self.say(words.sentence(exc.say(_)))
                    return
                options[name] = value
        if self.local:
            message = CreateTable(edition=as_edition(edition), options=options, seats=seats, bots=max(0, seats - 1),
                                  bot_level=level, turn_seconds=0, start=True, replace_bots=True, name=_(LOCAL_GAME))
            if self._fast and self.controls is not None:
                self._fast = False
                self.controls.fast_forward(False)
            self.send(message)  # typed on purpose: the local game ends for the new one, as the app's dialog does
        else:
            games, points = series_fields(series)
            message = CreateTable(edition=as_edition(edition), options=options, seats=seats, bot_level=level,
                                  private=private, series_games=games, series_points=points)
            self.confirm_leaving(lambda: self.send(message), _("Leave for a new game"))

