"""A hint while learning: the card the strong bot's search prefers and every playable card's chance,
estimated from the player's own view as a client holds it.

A client has the protocol's view (``wire.server.View``) and the events the server sent it; the
search wants the engine's view. ``seat_view`` rebuilds it from both: the cards lying on the discard
pile are counted from the plays since the deal or the last reshuffle, and the recent plays and draws
are those the player saw (their own draws with the card, the others' without). Nothing here is more
than the player was sent. The estimate is the analysis' (``analysis.py``): the same search and budget,
so a hint and the analysis of the same moment agree.

No I/O and no threads here: the face runs ``hint`` in a worker thread, with ``on_progress``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ono99_kernel.bots.strong import SearchResult, search
from ono99_kernel.core.actions import Action, ActionKind
from ono99_kernel.core.cards import Card
from ono99_kernel.core.events import Drew, Event, Played
from ono99_kernel.core.game import RECENT_EVENTS
from ono99_kernel.core.view import Obligation, SeatView, TableView
from ono99_kernel.wire.server import DrawEvent, GameEvent, HandStartedEvent, PlayEvent, ReshuffleEvent, View

from .analysis import MAX_DEALS, MIN_DEALS, TURN_BUDGET

KINDS = len(Card)
# The search is cut in parts, one step of the progress bar each; together they spend the analysis' budget.
PARTS = 8


def remember(events: list[GameEvent], event: GameEvent) -> None:
    """Add ``event`` to a game's ``events`` as a hint needs them: every event since the deal or the
    last reshuffle, after the last few before it (``RECENT_EVENTS``: what a view's recent events hold)."""
    if isinstance(event, HandStartedEvent | ReshuffleEvent):
        del events[:-RECENT_EVENTS]
    events.append(event)


class NoHint(Exception):
    """Why there is no hint now: ``code`` is one of ``not_your_turn``, ``draw_first``, ``no_card``,
    ``one_card`` (with ``card``), ``unknown_pile`` (the plays since the deal were not all received)."""

    def __init__(self, code: str, card: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.card = card


def _discard_counts(view: View, events: Sequence[GameEvent]) -> tuple[int, ...] | None:
    """How many of each card lie on the discard pile, from the plays since the deal or the last
    reshuffle (which leaves the top card); None when ``events`` do not reach back that far."""
    start = None
    for i in range(len(events) - 1, -1, -1):
        if isinstance(events[i], HandStartedEvent | ReshuffleEvent):
            start = i
            break
    if start is None:
        return None
    counts = [0] * KINDS
    if isinstance(events[start], ReshuffleEvent):  # the top card stays; the others go under the draw pile
        top = next((e.cards[-1] for e in reversed(events[:start]) if isinstance(e, PlayEvent)), None)
        if top is None:
            return None
        counts[Card.from_code(top)] += 1
    for event in events[start + 1:]:
        if isinstance(event, PlayEvent):
            for code in event.cards:
                counts[Card.from_code(code)] += 1
    if sum(counts) != view.discard_size:  # a play missed: the pile is not known
        return None
    return tuple(counts)


def _engine_event(event: GameEvent) -> Event | None:
    """The events the search reads (plays and draws) as the engine's; None for the others."""
    if isinstance(event, PlayEvent):
        return Played(event.seat, tuple(Card.from_code(c) for c in event.cards), event.total)
    if isinstance(event, DrawEvent):
        return Drew(event.seat, Card.from_code(event.card) if event.card is not None else None)
    return None


def seat_view(view: View, events: Sequence[GameEvent]) -> SeatView:
    """The engine's view of the player whose protocol ``view`` this is, at its turn, with ``events``
    (``remember``'s) for the pile and the recent plays. Raises ``NoHint`` when there is nothing to
    estimate (not the player's turn, a draw to take first, fewer than two cards to choose from) or the
    pile is not known."""
    seat = view.seat
    if seat is None or view.turn != seat or view.winner is not None:
        raise NoHint("not_your_turn")
    if view.open_draws[seat]:
        raise NoHint("draw_first")
    actions = tuple(Action.parse(code) for code in view.legal)
    playable = [a for a in actions if a.kind is not ActionKind.DRAW]
    if not playable:
        raise NoHint("no_card")
    if len(playable) == 1:
        raise NoHint("one_card", playable[0].code)
    counts = _discard_counts(view, events)
    if counts is None:
        raise NoHint("unknown_pile")
    recent = [_engine_event(e) for e in events[-RECENT_EVENTS:]]
    obligation = view.obligation
    return TableView(
        options=view.options, seats=view.seats, seat=seat, hand=tuple(Card.from_code(c) for c in view.hand),
        legal_actions=actions, unplayable=(), hand_number=view.hand_number, version=view.version,
        total=view.total, direction=view.direction, turn=view.turn,
        obligation=None if obligation is None else Obligation(obligation.seat, obligation.plays_left,
                                                              obligation.can_pass),
        hand_sizes=view.hand_sizes, active=view.active, in_hand=view.in_hand, open_draws=view.open_draws,
        missed_draws=view.missed_draws, tokens=view.tokens, scores=view.scores,
        draw_pile_size=view.draw_pile_size, discard_size=view.discard_size,
        top_card=Card.from_code(view.top_card) if view.top_card is not None else None, winner=view.winner,
        recent_events=tuple(e for e in recent if e is not None), discard_counts=counts, ranking=view.ranking)


@dataclass(frozen=True, slots=True)
class Hint:
    best: str  # the action with the highest chance, by its code
    chances: dict[str, float]  # every playable action's estimated chance, best first


def hint(seat_view: SeatView, seed: int | None = None,
         on_progress: Callable[[int, int], None] | None = None) -> Hint:
    """The estimate for the seat on turn of ``seat_view``: the analysis' search, in ``PARTS`` parts,
    ``on_progress(done, PARTS)`` after each (and once before the first)."""
    rng = random.Random(seed)
    candidates = [a for a in seat_view.legal_actions if a.kind is not ActionKind.DRAW]
    found = SearchResult(candidates)
    if on_progress is not None:
        on_progress(0, PARTS)
    for part in range(1, PARTS + 1):
        piece = search(seat_view, rng, candidates, 0, TURN_BUDGET // PARTS, MAX_DEALS // PARTS,
                       MIN_DEALS // PARTS)
        found.deals += piece.deals
        for i in range(len(candidates)):
            found.totals[i] += piece.totals[i]
        if on_progress is not None:
            on_progress(part, PARTS)
    chances = {a.code: found.value(i) for i, a in enumerate(candidates)}
    order = sorted(chances, key=lambda code: -chances[code])
    return Hint(order[0], {code: chances[code] for code in order})
