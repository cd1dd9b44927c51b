"""What one seat (or a spectator) may know of a game. A view never holds another seat's cards or
the order of the draw pile."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .actions import Action
from .cards import Card
from .errors import ILLEGAL_PROBLEMS
from .events import Event
from .options import TableOptions


@dataclass(frozen=True, slots=True)
class Obligation:
    """A pending Play 2 (2022) or Double Play (1980) held by the seat on turn."""

    seat: int
    plays_left: int  # 2: neither card played yet; 1: the second card is due
    can_pass: bool  # the first card may still be a response that passes it on


class Unplayable(NamedTuple):
    """A card in the hand of the seat on turn that it cannot play now, and why: ``why`` and ``params`` are
    those of the ``IllegalActionError`` that playing it would raise (a key of ``ILLEGAL_PROBLEMS`` and the
    values its text names, as (name, value) pairs: a view holds nothing that can change), ``reason`` that
    error's English text, e.g. ``"7 would make 101"``. Views share these (``Unplayable.of``).
    """

    card: Card
    why: str
    params: tuple[tuple[str, int], ...]
    reason: str

    @classmethod
    def of(cls, card: Card, why: str, /, **params: int) -> Unplayable:
        return cls(card, why, tuple(params.items()), ILLEGAL_PROBLEMS[why].format(**params))


class TableView(NamedTuple):
    """A table as one recipient sees it: the public state, plus, for a seated player, its own hand
    and what it may do. A spectator's view has ``seat`` None and an empty hand.

    A NamedTuple rather than a frozen dataclass: one is built for every decision, and a frozen
    dataclass of this size costs ten times as much to create.
    """

    options: TableOptions
    seats: int
    seat: int | None
    hand: tuple[Card, ...]
    legal_actions: tuple[Action, ...]
    unplayable: tuple[Unplayable, ...]  # cards in hand that cannot be played now, and why
    hand_number: int
    version: int
    total: int
    direction: int  # +1 clockwise (increasing seat), -1 counter-clockwise
    turn: int | None
    obligation: Obligation | None
    hand_sizes: tuple[int, ...]
    active: tuple[bool, ...]  # still in the game / match
    in_hand: tuple[bool, ...]  # still in the current hand
    open_draws: tuple[bool, ...]  # manual_draw: a draw is owed and not yet taken
    missed_draws: tuple[int, ...]
    tokens: tuple[int, ...] | None
    scores: tuple[int, ...] | None
    draw_pile_size: int
    discard_size: int
    top_card: Card | None
    winner: int | None
    recent_events: tuple[Event, ...]
    # How many of each card kind (indexed by ``Card``) lie face up on the discard pile: every card
    # played since the deal or the last reshuffle. Public: everyone saw them played.
    discard_counts: tuple[int, ...]
    ranking: tuple[int, ...] | None  # once the game is over: every seat, best first (Outcome.ranking)

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.turn == self.seat


# Names for readability at call sites: a seated player's view and a spectator's are one type.
SeatView = TableView
PublicView = TableView
