"""What happened in a game. Events with hidden information redact themselves per recipient.

Events are NamedTuples (a game makes a few per turn, and a frozen dataclass costs twice as much to
create) whose equality also compares the event type, so ``Out(1) != MissedDraw(1)``.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar, Union

from .cards import Card

_T = TypeVar("_T")


def _typed_equality(cls: type[_T]) -> type[_T]:
    def __eq__(self: tuple[Any, ...], other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(self, other)

    def __ne__(self: tuple[Any, ...], other: object) -> bool:
        return not __eq__(self, other)

    def __hash__(self: tuple[Any, ...]) -> int:
        return hash((type(self).__name__, tuple(self)))

    cls.__eq__ = __eq__  # type: ignore[assignment,method-assign]  # the tuple's, replaced
    cls.__ne__ = __ne__  # type: ignore[assignment,method-assign]  # the tuple's, replaced
    cls.__hash__ = __hash__  # type: ignore[assignment,method-assign]  # the tuple's, replaced
    return cls


@_typed_equality
class HandStarted(NamedTuple):
    """A hand was dealt. ``hands[s]`` is None where the recipient may not see it."""

    hand: int
    dealer: int
    first: int
    hand_sizes: tuple[int, ...]
    hands: tuple[tuple[Card, ...] | None, ...]
    draw_pile: tuple[Card, ...] | None  # top first; None when redacted
    draw_pile_size: int

    def seen_by(self, seat: int | None) -> HandStarted:
        hands = tuple(h if s == seat else None for s, h in enumerate(self.hands))
        return HandStarted(self.hand, self.dealer, self.first, self.hand_sizes, hands, None,
                           self.draw_pile_size)


@_typed_equality
class Played(NamedTuple):
    seat: int
    cards: tuple[Card, ...]
    total: int

    def seen_by(self, seat: int | None) -> Played:
        return self


@_typed_equality
class Drew(NamedTuple):
    seat: int
    card: Card | None  # None when redacted

    def seen_by(self, seat: int | None) -> Drew:
        return self if seat == self.seat else Drew(self.seat, None)


@_typed_equality
class Reshuffled(NamedTuple):
    size: int
    draw_pile: tuple[Card, ...] | None  # top first; None when redacted

    def seen_by(self, seat: int | None) -> Reshuffled:
        return Reshuffled(self.size, None)


@_typed_equality
class MissedDraw(NamedTuple):
    """manual_draw: ``seat`` lost a draw because the next player played first."""

    seat: int

    def seen_by(self, seat: int | None) -> MissedDraw:
        return self


@_typed_equality
class Out(NamedTuple):
    """``seat`` had no legal play on turn: eliminated (2022), lost the hand (1980 tokens)
    or dropped out of the hand (1980 points)."""

    seat: int

    def seen_by(self, seat: int | None) -> Out:
        return self


@_typed_equality
class HandEnded(NamedTuple):
    hand: int
    loser: int | None  # tokens: who lost the hand; points: the first to drop out
    tokens: tuple[int, ...] | None
    scores: tuple[int, ...] | None
    hand_points: tuple[int, ...] | None  # points scored in this hand
    eliminated: tuple[int, ...]  # seats out of the match because of this hand

    def seen_by(self, seat: int | None) -> HandEnded:
        return self


@_typed_equality
class GameOver(NamedTuple):
    winner: int

    def seen_by(self, seat: int | None) -> GameOver:
        return self


Event = Union[HandStarted, Played, Drew, Reshuffled, MissedDraw, Out, HandEnded, GameOver]  # noqa: UP007
EVENT_TYPES = (HandStarted, Played, Drew, Reshuffled, MissedDraw, Out, HandEnded, GameOver)
