"""The rules of ONO 99 as one lean state: both editions, every option, no views and no validation.

``State`` holds a table as plain lists, ints and shared tuples (cards are ``Card`` members, which
are ints), and changes it by the rules of docs/rules.md: plays, draws, reshuffles, knock-outs, hands
and scoring. ``Game`` (game.py) is a ``State`` with the public API on top: checked actions, legal
actions with reasons, views and redaction. Search uses a ``State`` directly: ``clone()`` copies a
table cheaply without its event log, and ``State.position`` builds one from a possible deal of the
hidden cards, so a bot's look-ahead plays by exactly the rules the table plays by.

Events are built only while ``recording`` is on (a ``Game`` records; a clone does not).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from .actions import DISCARD_FOUR, DRAW, PLAYS, Action, ActionKind
from .cards import HAND_SIZE, Card, Edition, card_points, new_deck
from .errors import IllegalActionError
from .events import (
    Drew,
    Event,
    GameOver,
    HandEnded,
    HandStarted,
    MissedDraw,
    Out,
    Played,
    Reshuffled,
)
from .options import PointsWin, Scoring, TableOptions

_V = TypeVar("_V")

DROP_OUT_PENALTY = 25
MISSED_DRAW_PENALTY = 15

_N10 = Card.N10
_MINUS_TEN = Card.MINUS_TEN
_REVERSE = Card.REVERSE
_PLAY2 = Card.PLAY2
_DOUBLE = Card.DOUBLE
_HOLD = Card.HOLD
_ONO99 = Card.ONO99
_SINGLE = tuple((card,) for card in Card)
_FOUR_ONO99 = (_ONO99,) * 4
_HIDDEN_DRAWS = tuple(Drew(seat, None) for seat in range(16))
_KINDS = len(Card)


def _with(values: tuple[_V, ...], index: int, value: _V) -> tuple[_V, ...]:
    """``values`` with one item replaced."""
    return (*values[:index], value, *values[index + 1:])


class Chance(Protocol):
    """Where a game's randomness comes from."""

    def choose_dealer(self, seats: int) -> int: ...

    def deal(
        self, hand: int, deck: list[Card], receivers: Sequence[int]
    ) -> tuple[dict[int, list[Card]], list[Card]]:
        """Deal ``HAND_SIZE`` cards to each receiver (in that order); return the hands and the
        draw pile, top card first."""
        ...

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        """The new draw pile made of ``cards``, top card first."""
        ...


class RandomChance:
    """Chance from a seeded ``random.Random``: the same seed gives the same game."""

    def __init__(self, rng: random.Random) -> None:
        if not isinstance(rng, random.Random):
            raise TypeError("rng must be a random.Random")
        self.rng = rng

    def choose_dealer(self, seats: int) -> int:
        return self.rng.randrange(seats)

    def deal(
        self, hand: int, deck: list[Card], receivers: Sequence[int]
    ) -> tuple[dict[int, list[Card]], list[Card]]:
        cards = self._shuffled(deck)
        hands: dict[int, list[Card]] = {seat: [] for seat in receivers}
        for _ in range(HAND_SIZE):
            for seat in receivers:
                hands[seat].append(cards.pop())
        cards.reverse()  # the last card of the shuffled list stays on top
        return hands, cards

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        return self._shuffled(cards)

    def _shuffled(self, cards: list[Card]) -> list[Card]:
        # Sorting by i.i.d. random keys is a uniform shuffle, and several times faster than
        # random.shuffle, which calls back into Python for every card.
        rand = self.rng.random
        keys = [rand() for _ in cards]
        return [cards[i] for i in sorted(range(len(cards)), key=keys.__getitem__)]


@dataclass(slots=True)
class HandLog:
    """Everything a record keeps of one hand."""

    dealer: int
    first: int
    dealt: tuple[tuple[Card, ...], ...]
    draw_pile: tuple[Card, ...]  # top first
    events: list[Event] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Outcome:
    winner: int
    ranking: tuple[int, ...]  # best first
    tokens: tuple[int, ...] | None
    scores: tuple[int, ...] | None


class State:
    """A table by the rules, lean: what ``Game`` and search share.

    The seat on turn is ``_turn``; ``play(card)`` / ``discard_four()`` / ``take_draw(seat)`` act
    for it (or for a seat owing a draw) without any check, then knock out whoever has no legal
    play. A clone stops at the end of its hand (``hand_over``) instead of dealing the next one,
    unless ``deal_next`` is set.
    """

    __slots__ = (  # noqa: RUF023 (grouped as _setup sets them)
        "options", "seats", "_chance", "_is_2022", "_limit", "_scoring", "_responses", "_manual_draw",
        "_sets_99", "_on_zero", "_hands", "_draw", "_discard", "_discard_counts", "_out_of_play",
        "_total", "_direction", "_turn", "_plays_left", "_second_due", "_obliged", "_active",
        "_in_hand", "_tokens", "_scores", "_draw_open", "_any_draw_open", "_missed", "_dropped",
        "_drop_penalty", "_elimination_order", "_outcome", "_version", "_hand_index", "_turns",
        "hands_log", "_log", "_hand_events", "_public", "_private_at", "_blocked", "_legal_version",
        "_legal", "_rec", "_first", "deal_next", "hand_over", "hand_loser", "hand_points", "over", "watch",
    )

    def _setup(self, options: TableOptions, seats: int, chance: Chance, record: bool) -> None:
        self.options = options
        self.seats = seats
        self._chance = chance
        self._is_2022 = options.edition is Edition.E2022
        self._limit = options.limit
        self._scoring = options.scoring
        self._responses = (_REVERSE, _PLAY2) if self._is_2022 else (_HOLD, _REVERSE)
        self._manual_draw = options.manual_draw
        self._sets_99 = options.ono99_sets_99
        self._on_zero = options.ono99_on_zero
        self._hands: list[list[Card]] = [[] for _ in range(seats)]
        self._draw: list[Card] = []  # top card last
        self._discard: list[Card] = []  # top card last
        self._discard_counts = [0] * _KINDS  # the discard pile by card kind, for views
        self._out_of_play: list[Card] = []
        self._total = 0
        self._direction = 1
        self._turn = 0
        self._plays_left = 1  # cards the seat on turn still has to play this turn
        self._second_due = False  # the seat on turn played the first of two cards
        self._obliged = False  # the seat on turn holds a Play 2 / Double Play, first card not played
        # Per-seat flags are tuples, replaced when they change (rarely), so views share them.
        self._active = (True,) * seats  # still in the game or match
        self._in_hand = (True,) * seats  # still in the current hand
        self._tokens: list[int] | None = [3] * seats if self._scoring is Scoring.TOKENS else None
        self._scores: list[int] | None = [0] * seats if self._scoring is Scoring.POINTS else None
        self._draw_open = (False,) * seats
        self._any_draw_open = False
        self._missed = (0,) * seats  # draws lost this hand (manual_draw)
        self._dropped: list[int] = []  # points: seats that dropped out of this hand, in order
        self._drop_penalty = [0] * seats
        self._elimination_order: list[list[int]] = []
        self._outcome: Outcome | None = None
        self._version = 0
        self._hand_index = -1
        self._turns = 0
        self.hands_log: list[HandLog] = []
        self._log: list[Event] = []
        self._hand_events: list[Event] = []  # the events list of the current HandLog
        # Redaction: _public[i] is _log[i] as a spectator sees it; _private_at[seat] lists the
        # indexes where that seat sees more (its own draws, its dealt hand).
        self._public: list[Event] = []
        self._private_at: list[list[int]] = [[] for _ in range(seats)]
        self._blocked: tuple[Card, ...] = ()  # distinct cards the seat on turn cannot play
        self._legal_version = -1
        self._legal: tuple[Action, ...] = ()
        self._rec = record
        self._first = 0  # who played first in this hand (breaks ties between equal scores)
        self.deal_next = True
        self.hand_over = False  # a clone that does not deal on: the hand has ended
        self.watch: int | None = None  # search: a seat whose knock-out ends the table
        self.over = False  # the game is over, or the hand (not dealing on), or ``watch`` is out
        self.hand_loser: int | None = None  # of the hand that ended last: who lost / first dropped out
        self.hand_points: tuple[int, ...] | None = None  # points: what each seat scored in it

    @classmethod
    def start(cls, options: TableOptions, seats: int, chance: Chance) -> State:
        """A new game dealt from ``chance`` that records no events (``Game`` is the one that
        does): for simulations that need only the rules."""
        state = cls.__new__(cls)
        state._setup(options, seats, chance, record=False)
        dealer = chance.choose_dealer(seats)
        state._start_hand(dealer, (dealer + 1) % seats)
        return state

    # --- copies ---------------------------------------------------------------------------------
    def clone(self, chance: Chance | None = None) -> State:
        """A copy of the table that records no events and stops at the end of the hand. Later
        reshuffles come from ``chance`` (default: this table's own)."""
        new = State.__new__(State)
        new.options = self.options
        new.seats = self.seats
        new._chance = chance if chance is not None else self._chance
        new._is_2022 = self._is_2022
        new._limit = self._limit
        new._scoring = self._scoring
        new._responses = self._responses
        new._manual_draw = self._manual_draw
        new._sets_99 = self._sets_99
        new._on_zero = self._on_zero
        new._hands = [list(h) for h in self._hands]
        new._draw = list(self._draw)
        new._discard = list(self._discard)
        new._discard_counts = list(self._discard_counts)
        new._out_of_play = list(self._out_of_play)
        new._total = self._total
        new._direction = self._direction
        new._turn = self._turn
        new._plays_left = self._plays_left
        new._second_due = self._second_due
        new._obliged = self._obliged
        new._active = self._active
        new._in_hand = self._in_hand
        new._tokens = list(self._tokens) if self._tokens is not None else None
        new._scores = list(self._scores) if self._scores is not None else None
        new._draw_open = self._draw_open
        new._any_draw_open = self._any_draw_open
        new._missed = self._missed
        new._dropped = list(self._dropped)
        new._drop_penalty = list(self._drop_penalty)
        new._elimination_order = [list(b) for b in self._elimination_order]
        new._outcome = self._outcome
        new._version = self._version
        new._hand_index = self._hand_index
        new._turns = self._turns
        new.hands_log = []
        new._log = []
        new._hand_events = []
        new._public = []
        new._private_at = [[] for _ in range(self.seats)]
        new._blocked = ()
        new._legal_version = -1
        new._legal = ()
        new._rec = False
        new._first = self._first
        new.deal_next = False
        new.hand_over = False
        new.watch = None
        new.over = self._outcome is not None
        new.hand_loser = None
        new.hand_points = None
        return new

    @classmethod
    def position(
        cls,
        options: TableOptions,
        seats: int,
        *,
        hands: Sequence[Sequence[Card]],
        draw_pile: Sequence[Card],
        discard: Sequence[Card],
        total: int,
        direction: int,
        turn: int,
        plays_left: int = 1,
        second_due: bool = False,
        obliged: bool = False,
        active: Sequence[bool],
        in_hand: Sequence[bool],
        missed: Sequence[int] | None = None,
        draw_open: Sequence[bool] | None = None,
        tokens: Sequence[int] | None = None,
        scores: Sequence[int] | None = None,
        out_of_play: Sequence[Card] = (),
        dropped: Sequence[int] = (),
        drop_penalty: Sequence[int] | None = None,
        first: int = 0,
        chance: Chance,
        auto_draw: bool = False,
    ) -> State:
        """A table in the middle of a hand, from its parts (a bot's guess at the hidden cards plus
        what its view shows). It records nothing and stops at the end of the hand. ``auto_draw``:
        under ``manual_draw``, every seat takes its draw at once (as bots do). Points: ``dropped``
        lists who dropped out of this hand so far, in order, and ``drop_penalty`` what each will
        pay for it (default: nobody, nothing); ``first`` (who played first in the hand) breaks
        ties between equal scores."""
        state = cls.__new__(cls)
        state._setup(options, seats, chance, record=False)
        state._hands = [list(h) for h in hands]
        state._draw = list(draw_pile)[::-1]
        state._discard = list(discard)
        counts = state._discard_counts
        for card in discard:
            counts[card] += 1
        state._out_of_play = list(out_of_play)
        state._dropped = list(dropped)
        if drop_penalty is not None:
            state._drop_penalty = list(drop_penalty)
        state._total = total
        state._direction = direction
        state._turn = turn
        state._plays_left = plays_left
        state._second_due = second_due
        state._obliged = obliged
        state._active = tuple(active)
        state._in_hand = tuple(in_hand)
        if missed is not None:
            state._missed = tuple(missed)
        if draw_open is not None:
            state._draw_open = tuple(draw_open)
            state._any_draw_open = any(state._draw_open)
        if tokens is not None and state._tokens is not None:
            state._tokens = list(tokens)
        if scores is not None and state._scores is not None:
            state._scores = list(scores)
        if auto_draw:
            state._manual_draw = False
        state._first = first
        state._hand_index = 0
        state.deal_next = False
        return state

    # --- plain reads ----------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        """The game is over, or (for a table that does not deal on) its hand is, or the seat it
        ``watch``es is out."""
        return self.over

    @property
    def seat_on_turn(self) -> int:
        return self._turn

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def turns(self) -> int:
        """Plays made so far (the four-card discard counts as one)."""
        return self._turns

    def actors(self) -> tuple[int, ...]:
        """Seats that may act now: owed draws first, then the seat on turn."""
        if self._outcome:
            return ()
        if not self._any_draw_open:
            return (self._turn,)
        owed = tuple(s for s in range(self.seats) if self._draw_open[s] and s != self._turn)
        return (*owed, self._turn)

    def on_turn(self) -> tuple[list[Card], int, bool]:
        """The hand of the seat on turn (not a copy), how much the total may still grow, and
        whether that seat holds a Play 2 / Double Play whose first card is due (a Double Play
        cannot be it)."""
        return self._hands[self._turn], self._limit - self._total, self._obliged

    def is_in(self, seat: int) -> bool:
        """``seat`` is still in the game or match."""
        return self._active[seat]

    def players_left(self) -> int:
        return self._active.count(True)

    def winner(self) -> int | None:
        return self._outcome.winner if self._outcome is not None else None

    def ono99_playable(self) -> bool:
        """An O'NO 99 may be played now (1980, by the table's options and the total)."""
        return self._ono99_playable()

    # --- what the seat on turn may do -----------------------------------------------------------
    def _has_play(self, seat: int) -> bool:
        """Whether ``seat`` (on turn) has any legal action: the knock-out test."""
        if self._draw_open[seat]:
            return True
        room = self._limit - self._total
        onos = 0
        for card in self._hands[seat]:
            if card <= _N10:
                if card <= room:
                    return True
            elif card is _ONO99:
                onos += 1
                if self._ono99_playable():
                    return True
            elif card is not _DOUBLE or not self._obliged:
                return True
        return onos >= 4 and self._is_2022

    def moves(self) -> tuple[Action, ...]:
        """The legal actions of the seat on turn (cached until the table changes)."""
        if self._legal_version != self._version:
            self._legal = self._compute_legal(self._turn)
            self._legal_version = self._version
        return self._legal

    def act(self, seat: int, action: Action) -> None:
        """Do ``action`` for ``seat``, known to be legal (``Game.apply`` is the checked way)."""
        card = action.card
        if card is not None:
            self.play(card)
            return
        if action.kind is ActionKind.DRAW:
            self.take_draw(seat)
        else:
            self.discard_four()

    def _compute_legal(self, seat: int) -> tuple[Action, ...]:
        hand = self._hands[seat]
        if self._draw_open[seat]:
            self._blocked = tuple(dict.fromkeys(hand))
            return (DRAW,)
        room = self._limit - self._total
        legal: list[Action] = []
        blocked: list[Card] = []
        for card in dict.fromkeys(hand):
            if card <= _N10:
                if card > room:
                    blocked.append(card)
                    continue
            elif card is _ONO99:
                if not self._ono99_playable():
                    blocked.append(card)
                    continue
            elif card is _DOUBLE and self._obliged:
                blocked.append(card)
                continue
            legal.append(PLAYS[card])
        if _ONO99 in blocked and self._is_2022 and hand.count(_ONO99) >= 4:
            legal.append(DISCARD_FOUR)
        self._blocked = tuple(blocked)
        return tuple(legal)

    def _ono99_playable(self) -> bool:
        if self._is_2022:
            return False
        if self._sets_99:
            return True
        return self._on_zero and self._total % 10 == 0

    # --- acting (no checks: the caller knows the action is legal) ---------------------------------
    def play(self, card: Card) -> None:
        """The seat on turn plays ``card``."""
        self._play(self._turn, card, False)
        self._version += 1
        if self.over:
            return
        # _has_play's usual answer inline (a number that fits, an escape); _settle decides the rest
        turn = self._turn
        if not self._draw_open[turn]:
            room = self._limit - self._total
            for c in self._hands[turn]:
                if c <= _N10:
                    if c <= room:
                        return
                elif c is not _ONO99 and (c is not _DOUBLE or not self._obliged):
                    return
        self._settle()

    def discard_four(self) -> None:
        """The seat on turn discards four ONO 99 cards (2022)."""
        self._play(self._turn, _ONO99, True)
        self._version += 1
        self._settle()

    def take_draw(self, seat: int, settle: bool = True) -> None:
        """``seat`` takes the draw it is owed (manual_draw); ``settle`` False leaves knock-outs for
        later (a record reader's ``Game.hold_outs``)."""
        self._draw_open = _with(self._draw_open, seat, False)
        self._any_draw_open = any(self._draw_open)
        self._refill(seat)
        self._version += 1
        if settle and seat == self._turn:
            self._settle()

    def _play(self, seat: int, card: Card, four: bool) -> None:
        # The hottest code of every game and every search: locals over attributes, and the usual
        # case (one card, no draws open, one card to draw) inline.
        hand = self._hands[seat]
        if four:
            for _ in range(4):
                hand.remove(_ONO99)
            self._discard.extend(_FOUR_ONO99)
            self._discard_counts[_ONO99] += 4
        else:
            hand.remove(card)
            self._discard.append(card)
            self._discard_counts[card] += 1
            if card <= _N10:
                self._total += card
            elif card is _MINUS_TEN:
                total = self._total - 10
                self._total = 0 if total < 0 and self._is_2022 else total
            elif card is _ONO99 and self._sets_99:
                self._total = 99
        self._turns += 1
        rec = self._rec
        if rec:
            event = Played(seat, _FOUR_ONO99 if four else _SINGLE[card], self._total)
            self._log.append(event)
            self._public.append(event)
            self._hand_events.append(event)
        if self._any_draw_open:
            self._forfeit_open_draws(seat)  # a play by another seat ends every open draw

        if card is _REVERSE and not four and self._in_hand.count(True) > 2:
            self._direction = -self._direction
        # a response passes the obligation on (one card); a Play 2 / Double Play makes one
        passes_on = not four and self._obliged and card in self._responses
        obliges = passes_on or (not four and (card is _PLAY2 or card is _DOUBLE))

        if self._manual_draw:
            self._draw_open = _with(self._draw_open, seat, True)
            self._any_draw_open = True
        elif rec or len(hand) != HAND_SIZE - 1 or self._missed[seat] or not self._draw:
            self._refill(seat)
        else:
            hand.append(self._draw.pop())

        if self._plays_left == 2 and not passes_on:
            self._plays_left = 1  # the first of two cards: the same seat plays again
            self._obliged = False
            self._second_due = True
        else:
            step = self._direction
            n = self.seats
            in_hand = self._in_hand
            nxt = (seat + step) % n
            while not in_hand[nxt]:
                nxt = (nxt + step) % n
            self._turn = nxt
            self._plays_left = 2 if obliges else 1
            self._second_due = False
            self._obliged = obliges

    def _forfeit_open_draws(self, player: int) -> None:
        for seat in range(self.seats):
            if self._draw_open[seat] and seat != player:
                self._draw_open = _with(self._draw_open, seat, False)
                self._missed = _with(self._missed, seat, self._missed[seat] + 1)
                if self._rec:
                    self._emit(MissedDraw(seat))
        self._any_draw_open = any(self._draw_open)

    def _refill(self, seat: int) -> None:
        hand = self._hands[seat]
        target = HAND_SIZE - self._missed[seat]
        draw = self._draw
        rec = self._rec
        while len(hand) < target:
            if not draw:
                if len(self._discard) < 2:
                    return  # not even a reshuffle can supply a card
                self._reshuffle(None)
            card = draw.pop()
            hand.append(card)
            if rec:
                event = Drew(seat, card)  # inlined _emit: this is the hottest event
                log = self._log
                self._private_at[seat].append(len(log))
                log.append(event)
                self._public.append(_HIDDEN_DRAWS[seat])
                self._hand_events.append(event)

    def _reshuffle(self, order: Sequence[Card] | None) -> None:
        top = self._discard[-1]
        cards = self._discard[:-1]
        if order is None:
            pile = self._chance.reshuffle(cards)
        else:
            pile = list(order)
            if sorted(pile) != sorted(cards):
                raise IllegalActionError("reshuffle_cards")
        self._draw[:] = pile[::-1]  # in place: _refill holds a reference
        self._discard = [top]
        counts = self._discard_counts = [0] * _KINDS
        counts[top] = 1
        if self._rec:
            self._emit(Reshuffled(len(pile), tuple(pile)))

    def _next_seat(self, seat: int) -> int:
        step = self._direction
        n = self.seats
        in_hand = self._in_hand
        nxt = (seat + step) % n
        while not in_hand[nxt]:
            nxt = (nxt + step) % n
        return nxt

    def _emit(self, event: Event) -> None:
        log = self._log
        kind = type(event)
        if type(event) is Drew:  # quicker than isinstance in this hot path, and it narrows event for mypy
            self._private_at[event.seat].append(len(log))
            public: Event = _HIDDEN_DRAWS[event.seat]
        elif kind is HandStarted:
            for marks in self._private_at:
                marks.append(len(log))
            public = event.seen_by(None)
        elif kind is Reshuffled:
            public = event.seen_by(None)
        else:
            public = event
        log.append(event)
        self._public.append(public)
        self._hand_events.append(event)

    # --- elimination, hands, match ----------------------------------------------------------------
    def _settle(self) -> None:
        """Knock out the seat on turn while it has no legal play (docs/rules.md: nobody chooses to bust)."""
        while not self.over:
            if self._has_play(self._turn):
                return
            self._knock_out(self._turn)

    def _knock_out(self, seat: int) -> None:
        if self._rec:
            self._emit(Out(seat))
        if seat == self.watch:
            self.over = True
        self._version += 1
        scoring = self._scoring
        if scoring is Scoring.TOKENS:
            self._lose_hand_tokens(seat)
            return
        self._in_hand = _with(self._in_hand, seat, False)
        if scoring is Scoring.ELIMINATION:
            self._active = _with(self._active, seat, False)
            self._out_of_play.extend(self._hands[seat])
            self._hands[seat].clear()
            self._elimination_order.append([seat])
            if self._active.count(True) == 1:
                self._finish(self._active.index(True))
                return
        else:
            self._dropped.append(seat)
            hand = self._hands[seat]
            only_ono99 = bool(hand) and all(c is _ONO99 for c in hand)
            self._drop_penalty[seat] = 0 if only_ono99 else DROP_OUT_PENALTY
            if self._in_hand.count(True) == 1:
                self._end_points_hand()
                return
        self._turn = self._next_seat(seat)
        self._plays_left = 1
        self._second_due = False
        self._obliged = False

    def _lose_hand_tokens(self, seat: int) -> None:
        tokens = self._tokens
        assert tokens is not None
        eliminated: tuple[int, ...] = ()
        if tokens[seat] == 0:
            eliminated = (seat,)
        else:
            tokens[seat] -= 1
            if tokens[seat] == 0 and self.options.out_at_zero_tokens:
                eliminated = (seat,)
        if eliminated:
            self._active = _with(self._active, seat, False)
            self._elimination_order.append([seat])
        self.hand_loser = seat
        if self._rec:
            self._emit(HandEnded(self._hand_index, seat, tuple(tokens), None, None, eliminated))
        if self._active.count(True) == 1:
            self._finish(self._active.index(True))
            return
        self._start_next_hand(seat)

    def _end_points_hand(self) -> None:
        scores = self._scores
        assert scores is not None
        gained = [0] * self.seats
        for seat in range(self.seats):
            if not self._active[seat]:
                continue
            gained[seat] = (
                sum(card_points(c) for c in self._hands[seat])
                + MISSED_DRAW_PENALTY * self._missed[seat]
                + self._drop_penalty[seat]
            )
            scores[seat] += gained[seat]
        self.hand_points = tuple(gained)
        target = self.options.points_target
        reached = [s for s in range(self.seats) if self._active[s] and scores[s] >= target]
        first_of_hand = self._first_of_hand()
        winner: int | None = None
        eliminated: tuple[int, ...] = ()
        if self.options.points_win is PointsWin.LOWEST_SCORE:
            if reached:
                contenders = [s for s in range(self.seats) if self._active[s]]
                winner = self._lowest(contenders, first_of_hand)
        else:
            remaining = [s for s in range(self.seats) if self._active[s] and s not in reached]
            if reached:
                eliminated = tuple(reached)
                for s in reached:
                    self._active = _with(self._active, s, False)
                self._elimination_order.append(  # best first: the lowest score, ties clockwise as for the win
                    sorted(reached, key=lambda s: (scores[s], self._clockwise_from(first_of_hand, s)))
                )
            if len(remaining) == 1:
                winner = remaining[0]
            elif not remaining:
                winner = self._lowest(reached, first_of_hand)
                self._active = _with(self._active, winner, True)
                eliminated = tuple(s for s in reached if s != winner)
        loser = self._dropped[0] if self._dropped else None
        self.hand_loser = loser
        if self._rec:
            self._emit(HandEnded(self._hand_index, loser, None, tuple(scores), tuple(gained), eliminated))
        if winner is not None:
            self._finish(winner)
            return
        assert loser is not None
        self._start_next_hand(loser)

    def _first_of_hand(self) -> int:
        return self._first

    def _clockwise_from(self, start: int, seat: int) -> int:
        return (seat - start) % self.seats

    def _lowest(self, seats: list[int], first_of_hand: int) -> int:
        scores = self._scores
        assert scores is not None
        return min(seats, key=lambda s: (scores[s], self._clockwise_from(first_of_hand, s)))

    def _start_next_hand(self, starter: int) -> None:
        if not self.deal_next:
            self.hand_over = True
            self.over = True
            return
        first = starter
        while not self._active[first]:
            first = (first + 1) % self.seats
        dealer = (first - 1) % self.seats
        while not self._active[dealer]:
            dealer = (dealer - 1) % self.seats
        self._start_hand(dealer, first)

    def _start_hand(self, dealer: int, first: int) -> None:
        self._hand_index += 1
        n = self.seats
        receivers = [(first + i) % n for i in range(n) if self._active[(first + i) % n]]
        deck = new_deck(self.options.edition)
        dealt, pile = self._chance.deal(self._hand_index, deck, receivers)
        if type(self._chance) is not RandomChance:  # trust our own deal; check anyone else's
            self._check_deal(dealt, pile, receivers, deck)
        self._hands = [list(dealt.get(seat, [])) for seat in range(n)]
        self._draw = list(reversed(pile))
        self._discard = []
        self._discard_counts = [0] * _KINDS
        self._out_of_play = []
        self._total = 0
        self._direction = 1
        self._turn = first
        self._first = first
        self._plays_left = 1
        self._second_due = False
        self._obliged = False
        self._in_hand = self._active
        self._draw_open = (False,) * n
        self._any_draw_open = False
        self._missed = (0,) * n
        self._dropped = []
        self._drop_penalty = [0] * n
        if self._rec:
            hands = tuple(tuple(h) for h in self._hands)
            self.hands_log.append(HandLog(dealer, first, hands, tuple(pile)))
            self._hand_events = self.hands_log[-1].events
            self._emit(HandStarted(self._hand_index, dealer, first, tuple(len(h) for h in hands),
                                   hands, tuple(pile), len(pile)))
        self._settle()

    def _check_deal(
        self, dealt: dict[int, list[Card]], pile: list[Card], receivers: list[int], deck: list[Card]
    ) -> None:
        if sorted(dealt) != sorted(receivers):
            raise IllegalActionError("deal_seats", expected=", ".join(map(str, sorted(receivers))),
                                     given=", ".join(map(str, sorted(dealt))))
        for seat, cards in dealt.items():
            if len(cards) != HAND_SIZE:
                raise IllegalActionError("deal_size", seat=seat, count=len(cards), size=HAND_SIZE)
        everything = [c for cards in dealt.values() for c in cards] + list(pile)
        if sorted(everything) != sorted(deck):
            raise IllegalActionError("deal_deck", edition=self.options.edition.value)

    def _finish(self, winner: int) -> None:
        ranking = [winner]
        for batch in reversed(self._elimination_order):
            ranking.extend(s for s in batch if s != winner)
        ranking.extend(s for s in range(self.seats) if s not in ranking)
        if self.options.points_win is PointsWin.LOWEST_SCORE and self._scores is not None:
            first_of_hand = self._first_of_hand()
            scores = self._scores
            others = sorted((s for s in range(self.seats) if s != winner),
                            key=lambda s: (scores[s], self._clockwise_from(first_of_hand, s)))
            ranking = [winner, *others]
        self._draw_open = (False,) * self.seats
        self._any_draw_open = False
        self.over = True
        self._outcome = Outcome(
            winner,
            tuple(ranking),
            tuple(self._tokens) if self._tokens is not None else None,
            tuple(self._scores) if self._scores is not None else None,
        )
        if self._rec:
            self._emit(GameOver(winner))
