"""The rules of ONO 99, both editions: a game state, its legal actions, and ``apply``.

Pure: no I/O and no global randomness. Chance (the dealer, the deal, reshuffles) comes from a
``Chance`` object, by default one drawing from an injected ``random.Random``; a record reader
injects the recorded deals instead and replays the same rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .actions import DRAW, Action, ActionKind
from .cards import Card
from .errors import ILLEGAL_PROBLEMS, IllegalActionError, MalformedActionError
from .events import Drew, Event
from .options import TableOptions
from .state import (
    DROP_OUT_PENALTY,
    MISSED_DRAW_PENALTY,
    Chance,
    HandLog,
    Outcome,
    RandomChance,
    State,
)
from .view import Obligation, TableView, Unplayable

__all__ = [
    "DROP_OUT_PENALTY", "MISSED_DRAW_PENALTY", "Chance", "Game", "HandLog", "Outcome", "RandomChance",
]

# Why a card cannot be played now, as a view's ``unplayable`` says it (English, ILLEGAL_PROBLEMS)
DRAW_FIRST = ILLEGAL_PROBLEMS["draw_first"]
ONO99_2022_REASON = ILLEGAL_PROBLEMS["ono99_2022"]
ONO99_1980_REASON = ILLEGAL_PROBLEMS["ono99_1980"]
ONO99_ON_ZERO_REASON = ILLEGAL_PROBLEMS["ono99_on_zero"]
DOUBLE_FIRST_REASON = ILLEGAL_PROBLEMS["double_first"]
GAME_OVER_REASON = ILLEGAL_PROBLEMS["game_over"]
# A view's entries, built once and shared: every card while its seat must draw first; a blocked action card
# by its key; a number card by total * 16 + card ("7 would make 101").
_DRAW_FIRST_ENTRIES = {card: Unplayable.of(card, "draw_first") for card in Card}
_BLOCKED_ENTRIES: dict[tuple[Card, str], Unplayable] = {}
_NUMBER_ENTRIES: dict[int, Unplayable] = {}

RECENT_EVENTS = 12  # how many events a view carries

_N10 = Card.N10
_ONO99 = Card.ONO99
_DRAW_KIND = ActionKind.DRAW
_DISCARD_KIND = ActionKind.DISCARD_FOUR
_new_view = tuple.__new__  # skips TableView.__new__'s Python frame; the field order is checked by tests


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


class Game(State):
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
        self._setup(options, seats, chance, record=True)

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
    def hand_index(self) -> int:
        return self._hand_index

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

    # --- legal actions --------------------------------------------------------------------------
    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """What ``seat`` (default: the seat on turn) may do now; () when it may do nothing."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < self.seats):
            self._check_seat(seat)
        if self._outcome:
            return ()
        if seat is None or seat == self._turn:
            return self.moves()
        self._check_seat(seat)
        return (DRAW,) if self._draw_open[seat] else ()

    def why_unplayable(self, seat: int, card: Card) -> str | None:
        """Why ``seat`` cannot play ``card`` now (None when it can), e.g. ``"7 would make 101"``."""
        problem = self._unplayable_problem(seat, card)
        return None if problem is None else str(problem)

    def _unplayable_problem(self, seat: int, card: Card) -> IllegalActionError | None:
        self._check_seat(seat)
        if not isinstance(card, Card):
            raise MalformedActionError(f"not a card: {card!r}")
        if self._outcome:
            return IllegalActionError("game_over")
        if seat != self._turn:
            return IllegalActionError("seat_turn", turn=self._turn)
        if card not in self._hands[seat]:
            return IllegalActionError("not_in_hand", card=card.code, edition=self.options.edition.value)
        if self._draw_open[seat]:
            return IllegalActionError("draw_first")
        self.legal_actions()
        if card not in self._blocked:
            return None
        entry = self._blocked_entry(card)  # the view's reason for it: one place says both
        return IllegalActionError(entry.why, **dict(entry.params))

    def unplayable_cards(self, seat: int) -> tuple[Unplayable, ...]:
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
            raise IllegalActionError("game_over")
        if action.kind is _DRAW_KIND:
            if not self._draw_open[seat]:
                raise IllegalActionError("no_draw", seat=seat)
            start = len(self._log)
            self.take_draw(seat, not self.holding_outs)
        else:
            if seat != self._turn:
                raise IllegalActionError("not_your_turn", turn=self._turn, seat=seat)
            legal = self._legal if self._legal_version == self._version else self.legal_actions()
            if action not in legal:
                _check_action_shape(action)
                raise self._why_illegal(seat, action)
            start = len(self._log)
            card = action.card
            if card is None:
                self._play(seat, _ONO99, True)
            else:
                self._play(seat, card, False)
            self._version += 1
            if not self.holding_outs:
                self._settle()
        return tuple(self._log[start:])

    def _why_illegal(self, seat: int, action: Action) -> IllegalActionError:
        if self._draw_open[seat]:
            return IllegalActionError("draw_first")
        if action.kind is ActionKind.DISCARD_FOUR:
            return IllegalActionError("four_needs_four" if self._is_2022 else "four_1980")
        assert action.card is not None
        return self._unplayable_problem(seat, action.card) or IllegalActionError("not_now")

    # A record reader's: the knock-outs of the next play wait for settle_now (see hold_outs).
    holding_outs = False

    def hold_outs(self) -> None:
        """Let the knock-outs that the next play causes wait until ``settle_now``, while draws and
        reshuffles go on: a record reader follows a writer whose player drew before the next seat
        was declared out (an out is not a play and ends no open draw; docs/records.md), and scores
        the hand with the card drawn."""
        self.holding_outs = True

    def settle_now(self) -> tuple[Event, ...]:
        """The knock-outs held since ``hold_outs``, now; returns the events they caused."""
        if self._outcome:
            raise IllegalActionError("game_over")
        start = len(self._log)
        self.holding_outs = False
        self._settle()
        return tuple(self._log[start:])

    def reshuffle_now(self, order: Sequence[Card]) -> tuple[Event, ...]:
        """Turn the discard pile (but its top card) into the draw pile in ``order`` (top first)
        now, while the draw pile is empty. Games reshuffle by themselves when a draw needs it;
        this lets a record reader follow a writer that reshuffles as soon as the pile runs out."""
        if self._outcome:
            raise IllegalActionError("game_over")
        if self._draw:
            raise IllegalActionError("draw_pile_not_empty", count=len(self._draw))
        if len(self._discard) < 2:
            raise IllegalActionError("nothing_to_reshuffle")
        start = len(self._log)
        self._reshuffle(order)
        self._version += 1
        return tuple(self._log[start:])

    # --- views ----------------------------------------------------------------------------------
    def view(self, seat: int | None) -> TableView:
        """What ``seat`` may know (``None``: a spectator, who gets public data only)."""
        over = self._outcome is not None
        if seat is None:
            hand: tuple[Card, ...] = ()
            legal: tuple[Action, ...] = ()
            unplayable: tuple[Unplayable, ...] = ()
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

    def _unplayable(self, seat: int) -> tuple[Unplayable, ...]:
        self.legal_actions()  # fills the cache of blocked cards for this version
        if self._draw_open[seat]:
            return tuple(_DRAW_FIRST_ENTRIES[card] for card in self._blocked)
        return tuple(map(self._blocked_entry, self._blocked))

    def _blocked_entry(self, card: Card) -> Unplayable:
        """Why the seat on turn cannot play ``card``, known to be blocked."""
        if card <= _N10:
            after = self._total + card
            entry = _NUMBER_ENTRIES.get(after * 16 + card)
            if entry is None:
                entry = _NUMBER_ENTRIES[after * 16 + card] = Unplayable.of(card, "would_make", card=int(card),
                                                                           total=after)
            return entry
        why = self._blocked_why(card)
        entry = _BLOCKED_ENTRIES.get((card, why))
        if entry is None:
            entry = _BLOCKED_ENTRIES[card, why] = Unplayable.of(card, why)
        return entry

    def _blocked_why(self, card: Card) -> str:
        """The key (ILLEGAL_PROBLEMS) of why the seat on turn cannot play ``card``, a blocked action card."""
        if card is _ONO99:
            if self._is_2022:
                return "ono99_2022"
            return "ono99_on_zero" if self.options.ono99_on_zero else "ono99_1980"
        return "double_first"

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
