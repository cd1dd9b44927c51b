"""What happened in a game. Events with hidden information redact themselves per recipient."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card


@dataclass(frozen=True, slots=True)
class Event:
    def seen_by(self, seat: int | None) -> Event:
        """This event as ``seat`` may see it (``None``: a spectator)."""
        return self


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A hand was dealt. ``hands[s]`` is None where the recipient may not see it."""

    hand: int
    dealer: int
    first: int
    hand_sizes: tuple[int, ...]
    hands: tuple[tuple[Card, ...] | None, ...]
    draw_pile: tuple[Card, ...] | None  # top first; None when redacted
    draw_pile_size: int

    def seen_by(self, seat: int | None) -> Event:
        hands = tuple(h if s == seat else None for s, h in enumerate(self.hands))
        return HandStarted(self.hand, self.dealer, self.first, self.hand_sizes, hands, None,
                           self.draw_pile_size)


@dataclass(frozen=True, slots=True)
class Played(Event):
    seat: int
    cards: tuple[Card, ...]
    total: int


@dataclass(frozen=True, slots=True)
class Drew(Event):
    seat: int
    card: Card | None  # None when redacted

    def seen_by(self, seat: int | None) -> Event:
        return self if seat == self.seat else Drew(self.seat, None)


@dataclass(frozen=True, slots=True)
class Reshuffled(Event):
    size: int
    draw_pile: tuple[Card, ...] | None  # top first; None when redacted

    def seen_by(self, seat: int | None) -> Event:
        return Reshuffled(self.size, None)


@dataclass(frozen=True, slots=True)
class MissedDraw(Event):
    seat: int


@dataclass(frozen=True, slots=True)
class Out(Event):
    """``seat`` had no legal play on turn: eliminated (2022), lost the hand (1980 tokens)
    or dropped out of the hand (1980 points)."""

    seat: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    hand: int
    loser: int | None  # tokens: who lost the hand; points: the first to drop out
    tokens: tuple[int, ...] | None
    scores: tuple[int, ...] | None
    hand_points: tuple[int, ...] | None  # points scored in this hand
    eliminated: tuple[int, ...]  # seats out of the match because of this hand


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    winner: int
