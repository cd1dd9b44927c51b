"""The rules of ONO 99, both editions: a game state, its legal actions, and ``apply``.

Pure: no I/O and no global randomness. Chance (the dealer, the deal, reshuffles) comes from a
``Chance`` object, by default one drawing from an injected ``random.Random``; a record reader
injects the recorded deals instead and replays the same rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from .actions import DISCARD_FOUR, DRAW, PLAYS, Action, ActionKind
from .cards import HAND_SIZE, Card, Edition, card_points, new_deck
from .errors import IllegalActionError, MalformedActionError
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
from .view import Obligation, TableView

_V = TypeVar("_V")

DRAW_FIRST = "draw your cards first"
ONO99_2022_REASON = "ONO 99 cards can only be discarded as four of a kind"
ONO99_1980_REASON = "O'NO 99 cannot be played"
ONO99_ON_ZERO_REASON = "O'NO 99 can only be played when the total ends in 0"
DOUBLE_FIRST_REASON = "Double Play cannot be the first of your two turns"
_NUMBER_REASONS: dict[int, str] = {}  # "7 would make 101", by total * 16 + card

DROP_OUT_PENALTY = 25
MISSED_DRAW_PENALTY = 15
RECENT_EVENTS = 12  # how many events a view carries

_N10 = Card.N10
_MINUS_TEN = Card.MINUS_TEN
_REVERSE = Card.REVERSE
_PLAY2 = Card.PLAY2
_DOUBLE = Card.DOUBLE
_HOLD = Card.HOLD
_ONO99 = Card.ONO99
_DRAW_KIND = ActionKind.DRAW
_SINGLE = tuple((card,) for card in Card)
_FOUR_ONO99 = (_ONO99,) * 4
_new_view = tuple.__new__  # skips TableView.__new__'s Python frame; the field order is checked by tests
_HIDDEN_DRAWS = tuple(Drew(seat, None) for seat in range(16))
_DISCARD_KIND = ActionKind.DISCARD_FOUR


def _with(values: tuple[_V, ...], index: int, value: _V) -> tuple[_V, ...]:
    """``values`` with one item replaced."""
    return (*values[:index], value, *values[index + 1:])


def _check_action_shape(action: object) -> None:
    """Raise ``MalformedActionError`` unless ``action`` is a well-formed Action."""
    if not isinstance(action, Action):
        raise MalformedActionError(f"not an action: {action!r}")
    if not isinstance(action.kind, ActionKind):
        raise MalformedActionError(
            f"unknown action kind {action.kind!r} (known: {', '.join(k.value for k in ActionKind)})"
        )
    if action.kind is ActionKind.PLAY:
        if type(action.card) is not Card:
            raise MalformedActionError(f"a play needs a card, got {action.card!r}")
    elif action.card is not None:
        raise MalformedActionError(f"the action {action.kind.value!r} takes no card, got {action.card!r}")


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


class Game:
    """One game: a 2022 game, or a whole 1980 match of several hands.

    ``legal_actions(seat)`` lists what ``seat`` may do now; ``apply(seat, action)`` does it and
    returns the events it caused, or raises ``IllegalActionError`` / ``MalformedActionError``
    and changes nothing. ``view(seat)`` is all a seat may know.
    """

    def __init__(
        self,
        options: TableOptions,
        seats: int,
        rng: random.Random | None = None,
        *,
        chance: Chance | None = None,
    ) -> None:
        if not isinstance(options, TableOptions):
            raise TypeError("options must be TableOptions")
        options.check_players(seats)
        if chance is None:
            if rng is None:
                raise TypeError("a game needs an rng (random.Random) or a chance source")
            chance = RandomChance(rng)
        self.options = options
        self.seats = seats
        self._chance = chance
        self._is_2022 = options.edition is Edition.E2022
        self._limit = options.limit
        self._scoring = options.scoring
        self._responses = (_REVERSE, _PLAY2) if self._is_2022 else (_HOLD, _REVERSE)
        self._manual_draw = options.manual_draw

        self._hands: list[list[Card]] = [[] for _ in range(seats)]
        self._draw: list[Card] = []  # top card last
        self._discard: list[Card] = []  # top card last
        self._discard_counts = [0] * len(Card)  # the discard pile by card kind, for views
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

        dealer = chance.choose_dealer(seats)
        if not (isinstance(dealer, int) and 0 <= dealer < seats):
            raise MalformedActionError(f"dealer must be a seat from 0 to {seats - 1}, got {dealer!r}")
        self._start_hand(dealer, (dealer + 1) % seats)

    # --- public state ---------------------------------------------------------------------------
    @property
    def version(self) -> int:
        """Counts applied actions; a client's action for an older version is stale."""
        return self._version

    @property
    def turn(self) -> int | None:
        """The seat that must play now (None once the game is over)."""
        return None if self._outcome else self._turn

    @property
    def total(self) -> int:
        return self._total

    @property
    def direction(self) -> int:
        """+1 clockwise (increasing seat), -1 counter-clockwise."""
        return self._direction

    @property
    def is_over(self) -> bool:
        return self._outcome is not None

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def hand_index(self) -> int:
        return self._hand_index

    @property
    def turns(self) -> int:
        """Plays made so far (the four-card discard counts as one)."""
        return self._turns

    @property
    def log(self) -> Sequence[Event]:
        """Every event so far, unredacted (server side only)."""
        return self._log

    def hand_of(self, seat: int) -> tuple[Card, ...]:
        """A seat's hand (server side only: it is hidden information)."""
        return tuple(self._hands[self._check_seat(seat)])

    def draw_pile(self) -> tuple[Card, ...]:
        """The draw pile, top first (server side only)."""
        return tuple(reversed(self._draw))

    def discard_pile(self) -> tuple[Card, ...]:
        """The discard pile, top last."""
        return tuple(self._discard)

    def out_of_play(self) -> tuple[Card, ...]:
        return tuple(self._out_of_play)

    def has_open_draw(self, seat: int) -> bool:
        return self._draw_open[self._check_seat(seat)]

    def actors(self) -> tuple[int, ...]:
        """Seats that may act now: owed draws first, then the seat on turn."""
        if self._outcome:
            return ()
        if not self._any_draw_open:
            return (self._turn,)
        owed = tuple(s for s in range(self.seats) if self._draw_open[s] and s != self._turn)
        return (*owed, self._turn)

    # --- legal actions --------------------------------------------------------------------------
    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """What ``seat`` (default: the seat on turn) may do now; () when it may do nothing."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < self.seats):
            self._check_seat(seat)
        if self._outcome:
            return ()
        if seat is None or seat == self._turn:
            if self._legal_version != self._version:
                self._legal = self._compute_legal(self._turn)
                self._legal_version = self._version
            return self._legal
        self._check_seat(seat)
        return (DRAW,) if self._draw_open[seat] else ()

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
        if self.options.ono99_sets_99:
            return True
        return self.options.ono99_on_zero and self._total % 10 == 0

    def why_unplayable(self, seat: int, card: Card) -> str | None:
        """Why ``seat`` cannot play ``card`` now (None when it can), e.g. ``"7 would make 101"``."""
        self._check_seat(seat)
        if not isinstance(card, Card):
            raise MalformedActionError(f"not a card: {card!r}")
        if self._outcome:
            return "the game is over"
        if seat != self._turn:
            return f"it is seat {self._turn}'s turn"
        if card not in self._hands[seat]:
            return f"{card.label(self.options.edition)} is not in your hand"
        if self._draw_open[seat]:
            return DRAW_FIRST
        self.legal_actions()
        return self._blocked_reason(card) if card in self._blocked else None

    def unplayable_cards(self, seat: int) -> tuple[tuple[Card, str], ...]:
        """Each distinct card in ``seat``'s hand that it cannot play now, with the reason."""
        if seat != self._turn or self._outcome:
            return ()
        return self._unplayable(seat)

    # --- apply ----------------------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        """Do ``action`` for ``seat``. Returns the events caused; raises and changes nothing when
        the action is malformed or illegal."""
        if type(seat) is not int or not 0 <= seat < self.seats:
            self._check_seat(seat)
        if type(action) is not Action or (type(action.card) is not Card and action.card is not None):
            _check_action_shape(action)
        if self._outcome:
            raise IllegalActionError("the game is over")
        if action.kind is _DRAW_KIND:
            if not self._draw_open[seat]:
                raise IllegalActionError(f"seat {seat} has no draw to take")
            start = len(self._log)
            self._draw_open = _with(self._draw_open, seat, False)
            self._any_draw_open = any(self._draw_open)
            self._refill(seat)
            self._version += 1
            if seat == self._turn:
                self._settle()
        else:
            if seat != self._turn:
                raise IllegalActionError(f"it is seat {self._turn}'s turn, not seat {seat}'s")
            legal = self._legal if self._legal_version == self._version else self.legal_actions()
            if action not in legal:
                _check_action_shape(action)
                raise IllegalActionError(self._why_illegal(seat, action))
            start = len(self._log)
            self._play(seat, action)
            self._version += 1
            self._settle()
        return tuple(self._log[start:])

    def _why_illegal(self, seat: int, action: Action) -> str:
        if self._draw_open[seat]:
            return DRAW_FIRST
        if action.kind is ActionKind.DISCARD_FOUR:
            if not self._is_2022:
                return "the four-card discard is a 2022 rule"
            return "the four-card discard needs four ONO 99 cards in your hand"
        assert action.card is not None
        return self.why_unplayable(seat, action.card) or "that card cannot be played now"

    def _play(self, seat: int, action: Action) -> None:
        hand = self._hands[seat]
        if action.kind is _DISCARD_KIND:
            for _ in range(4):
                hand.remove(_ONO99)
            self._discard.extend(_FOUR_ONO99)
            self._discard_counts[_ONO99] += 4
            card = _ONO99
            cards: tuple[Card, ...] = _FOUR_ONO99
            four = True
        else:
            card = action.card  # type: ignore[assignment]
            hand.remove(card)
            self._discard.append(card)
            self._discard_counts[card] += 1
            cards = _SINGLE[card]
            four = False
            if card <= _N10:
                self._total += card
            elif card is _MINUS_TEN:
                self._total -= 10
                if self._is_2022 and self._total < 0:
                    self._total = 0
            elif card is _ONO99 and self.options.ono99_sets_99:
                self._total = 99
        self._turns += 1
        event = Played(seat, cards, self._total)
        self._log.append(event)
        self._public.append(event)
        self._hand_events.append(event)
        if self._any_draw_open:
            self._forfeit_open_draws(seat)  # a play by another seat ends every open draw

        if card is _REVERSE and self._in_hand.count(True) > 2:
            self._direction = -self._direction
        passes_on = False
        obliges = False
        if not four:
            if self._obliged and card in self._responses:
                passes_on = True  # a response: one card, the obligation moves on
            elif card is _PLAY2 or card is _DOUBLE:
                obliges = True

        if self._manual_draw:
            self._draw_open = _with(self._draw_open, seat, True)
            self._any_draw_open = True
        else:
            self._refill(seat)

        if self._plays_left == 2 and not passes_on:
            self._plays_left = 1  # the first of two cards: the same seat plays again
            self._obliged = False
            self._second_due = True
        else:
            self._turn = self._next_seat(seat)
            pending = passes_on or obliges
            self._plays_left = 2 if pending else 1
            self._second_due = False
            self._obliged = pending

    def _forfeit_open_draws(self, player: int) -> None:
        for seat in range(self.seats):
            if self._draw_open[seat] and seat != player:
                self._draw_open = _with(self._draw_open, seat, False)
                self._missed = _with(self._missed, seat, self._missed[seat] + 1)
                self._emit(MissedDraw(seat))
        self._any_draw_open = any(self._draw_open)

    def _refill(self, seat: int) -> None:
        hand = self._hands[seat]
        target = HAND_SIZE - self._missed[seat]
        draw = self._draw
        log = self._log
        marks = self._private_at[seat]
        hidden = _HIDDEN_DRAWS[seat]
        while len(hand) < target:
            if not draw:
                if len(self._discard) < 2:
                    return  # not even a reshuffle can supply a card
                self._reshuffle(None)
            card = draw.pop()
            hand.append(card)
            event = Drew(seat, card)  # inlined _emit: this is the hottest event
            marks.append(len(log))
            log.append(event)
            self._public.append(hidden)
            self._hand_events.append(event)

    def _reshuffle(self, order: Sequence[Card] | None) -> None:
        top = self._discard[-1]
        cards = self._discard[:-1]
        if order is None:
            pile = self._chance.reshuffle(cards)
        else:
            pile = list(order)
            if sorted(pile) != sorted(cards):
                raise IllegalActionError("a reshuffle must hold exactly the discard pile but its top card")
        self._draw[:] = pile[::-1]  # in place: _refill holds a reference
        self._discard = [top]
        counts = self._discard_counts = [0] * len(Card)
        counts[top] = 1
        self._emit(Reshuffled(len(pile), tuple(pile)))

    def reshuffle_now(self, order: Sequence[Card]) -> tuple[Event, ...]:
        """Turn the discard pile (but its top card) into the draw pile in ``order`` (top first)
        now, while the draw pile is empty. Games reshuffle by themselves when a draw needs it;
        this lets a record reader follow a writer that reshuffles as soon as the pile runs out."""
        if self._outcome:
            raise IllegalActionError("the game is over")
        if self._draw:
            raise IllegalActionError(
                f"the draw pile still holds {len(self._draw)} cards; it is reshuffled only when empty"
            )
        if len(self._discard) < 2:
            raise IllegalActionError("the discard pile has no cards to reshuffle under its top card")
        start = len(self._log)
        self._reshuffle(order)
        self._version += 1
        return tuple(self._log[start:])

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
        if kind is Drew:
            self._private_at[event.seat].append(len(log))  # type: ignore[union-attr]
            public: Event = _HIDDEN_DRAWS[event.seat]  # type: ignore[union-attr]
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
        """Knock out the seat on turn while it has no legal play (docs/rules.md: nobody chooses to go out)."""
        while self._outcome is None:
            if self._legal_version != self._version:
                self._legal = self._compute_legal(self._turn)
                self._legal_version = self._version
            if self._legal:
                return
            self._knock_out(self._turn)

    def _knock_out(self, seat: int) -> None:
        self._emit(Out(seat))
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
        target = self.options.points_target
        reached = [s for s in range(self.seats) if self._active[s] and scores[s] >= target]
        first_of_hand = self.hands_log[-1].first
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
        self._emit(HandEnded(self._hand_index, loser, None, tuple(scores), tuple(gained), eliminated))
        if winner is not None:
            self._finish(winner)
            return
        assert loser is not None
        self._start_next_hand(loser)

    def _clockwise_from(self, start: int, seat: int) -> int:
        return (seat - start) % self.seats

    def _lowest(self, seats: list[int], first_of_hand: int) -> int:
        scores = self._scores
        assert scores is not None
        return min(seats, key=lambda s: (scores[s], self._clockwise_from(first_of_hand, s)))

    def _start_next_hand(self, starter: int) -> None:
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
        self._discard_counts = [0] * len(Card)
        self._out_of_play = []
        self._total = 0
        self._direction = 1
        self._turn = first
        self._plays_left = 1
        self._second_due = False
        self._obliged = False
        self._in_hand = self._active
        self._draw_open = (False,) * n
        self._any_draw_open = False
        self._missed = (0,) * n
        self._dropped = []
        self._drop_penalty = [0] * n
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
            raise IllegalActionError(
                f"the deal must give cards to seats {sorted(receivers)}, not {sorted(dealt)}"
            )
        for seat, cards in dealt.items():
            if len(cards) != HAND_SIZE:
                raise IllegalActionError(f"seat {seat} was dealt {len(cards)} cards, not {HAND_SIZE}")
        everything = [c for cards in dealt.values() for c in cards] + list(pile)
        if sorted(everything) != sorted(deck):
            raise IllegalActionError(
                f"the deal and the draw pile must hold exactly the {self.options.edition.value} deck"
            )

    def _finish(self, winner: int) -> None:
        ranking = [winner]
        for batch in reversed(self._elimination_order):
            ranking.extend(s for s in batch if s != winner)
        ranking.extend(s for s in range(self.seats) if s not in ranking)
        if self.options.points_win is PointsWin.LOWEST_SCORE and self._scores is not None:
            first_of_hand = self.hands_log[-1].first
            scores = self._scores
            others = sorted((s for s in range(self.seats) if s != winner),
                            key=lambda s: (scores[s], self._clockwise_from(first_of_hand, s)))
            ranking = [winner, *others]
        self._draw_open = (False,) * self.seats
        self._any_draw_open = False
        self._outcome = Outcome(
            winner,
            tuple(ranking),
            tuple(self._tokens) if self._tokens is not None else None,
            tuple(self._scores) if self._scores is not None else None,
        )
        self._emit(GameOver(winner))

    # --- views ----------------------------------------------------------------------------------
    def view(self, seat: int | None) -> TableView:
        """What ``seat`` may know (``None``: a spectator, who gets public data only)."""
        over = self._outcome is not None
        if seat is None:
            hand: tuple[Card, ...] = ()
            legal: tuple[Action, ...] = ()
            unplayable: tuple[tuple[Card, str], ...] = ()
        else:
            if type(seat) is not int or not 0 <= seat < self.seats:
                self._check_seat(seat)
            hand = tuple(self._hands[seat])
            legal = self.legal_actions(seat)
            unplayable = self._unplayable(seat) if self._blocked and seat == self._turn and not over else ()
        obligation = None
        if not over and (self._plays_left == 2 or self._second_due):
            obligation = Obligation(self._turn, self._plays_left, self._obliged)
        discard = self._discard
        tokens = self._tokens
        scores = self._scores
        return _new_view(TableView, (
            self.options,
            self.seats,
            seat,
            hand,
            legal,
            unplayable,
            self._hand_index,
            self._version,
            self._total,
            self._direction,
            None if over else self._turn,
            obligation,
            tuple(map(len, self._hands)),
            self._active,
            self._in_hand,
            self._draw_open,
            self._missed,
            tuple(tokens) if tokens is not None else None,
            tuple(scores) if scores is not None else None,
            len(self._draw),
            len(discard),
            discard[-1] if discard else None,
            self._outcome.winner if self._outcome else None,
            self._recent_events(seat),
            tuple(self._discard_counts),
            self._outcome.ranking if self._outcome else None,
        ))

    def seat_view(self, seat: int) -> TableView:
        """The view of a seated player."""
        if seat is None:
            self._check_seat(seat)
        return self.view(seat)

    def _unplayable(self, seat: int) -> tuple[tuple[Card, str], ...]:
        self.legal_actions()  # fills the cache of blocked cards for this version
        if self._draw_open[seat]:
            return tuple((card, DRAW_FIRST) for card in self._blocked)
        return tuple((card, self._blocked_reason(card)) for card in self._blocked)

    def _blocked_reason(self, card: Card) -> str:
        """Why the seat on turn cannot play ``card``, known to be blocked."""
        if card <= _N10:
            after = self._total + card
            reason = _NUMBER_REASONS.get(after * 16 + card)
            if reason is None:
                reason = _NUMBER_REASONS[after * 16 + card] = f"{int(card)} would make {after}"
            return reason
        if card is _ONO99:
            if self._is_2022:
                return ONO99_2022_REASON
            return ONO99_ON_ZERO_REASON if self.options.ono99_on_zero else ONO99_1980_REASON
        return DOUBLE_FIRST_REASON

    def _recent_events(self, seat: int | None) -> tuple[Event, ...]:
        log = self._log
        start = max(0, len(log) - RECENT_EVENTS)
        recent = self._public[start:]
        if seat is not None:
            marks = self._private_at[seat]
            if marks and marks[-1] >= start:
                for index in reversed(marks):
                    if index < start:
                        break
                    event = log[index]
                    # a seat's own Drew is its private version as it stands
                    recent[index - start] = event if type(event) is Drew else event.seen_by(seat)
        return tuple(recent)

    def events_for(self, seat: int | None, events: Sequence[Event]) -> tuple[Event, ...]:
        """``events`` redacted for ``seat`` (``None``: a spectator)."""
        return tuple(e.seen_by(seat) for e in events)

    def _check_seat(self, seat: object) -> int:
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise MalformedActionError(f"seat must be a number from 0 to {self.seats - 1}, got {seat!r}")
        return seat
