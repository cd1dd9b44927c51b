"""The baseline bots: ``random``, ``casual`` and ``greedy``."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..core.actions import DISCARD_FOUR, DRAW, PLAYS, Action, ActionKind
from ..core.cards import Card
from ..core.view import SeatView

# Cards that change the total by nothing or less: kept for when no number fits.
ESCAPE_ORDER = (Card.PLAY2, Card.REVERSE, Card.HOLD, Card.MINUS_TEN, Card.DOUBLE)


# These three levels decide from the seat's legal actions alone (``pick_*``), so a simulation
# that needs no view can call them with the legal actions; ``choose_*`` take the view.
def pick_random(legal: Sequence[Action], rng: random.Random) -> Action:
    """Uniform over the legal actions."""
    return legal[int(rng.random() * len(legal))]  # one C call; rng.choice loops in Python


def choose_random(view: SeatView, rng: random.Random) -> Action:
    return pick_random(view.legal_actions, rng)


def pick_casual(legal: Sequence[Action], rng: random.Random) -> Action:
    """Any number that fits, picked at random; an escape (or any other legal card) only when no
    number fits; the four-ONO 99 discard and a playable O'NO 99 at once."""
    if len(legal) == 1:
        return legal[0]
    numbers: list[Action] = []
    others: list[Action] = []
    for action in legal:
        card = action.card
        if action.kind is not ActionKind.PLAY or card is None or card is Card.ONO99:
            return action  # a draw that is owed, the four-card discard, a playable O'NO 99
        (numbers if card <= Card.N10 else others).append(action)
    pick = numbers or others
    return pick[int(rng.random() * len(pick))]


def choose_casual(view: SeatView, rng: random.Random) -> Action:
    return pick_casual(view.legal_actions, rng)


def pick_greedy(legal: Sequence[Action], rng: random.Random) -> Action:
    """Play the biggest number that fits, keep escapes for when nothing else is legal, take the
    four-ONO 99 discard, get rid of a playable O'NO 99 at once."""
    if len(legal) == 1:
        return legal[0]
    if DRAW in legal:
        return DRAW
    if DISCARD_FOUR in legal:
        return DISCARD_FOUR
    best_number = -1
    playable: set[Card] = set()
    for action in legal:
        card = action.card
        if action.kind is not ActionKind.PLAY or card is None:
            continue
        playable.add(card)
        if card <= Card.N10 and card > best_number:
            best_number = int(card)
    if Card.ONO99 in playable:
        return PLAYS[Card.ONO99]
    if best_number >= 0:
        return PLAYS[best_number]
    for card in ESCAPE_ORDER:
        if card in playable:
            return PLAYS[card]
    return legal[0]


def choose_greedy(view: SeatView, rng: random.Random) -> Action:
    return pick_greedy(view.legal_actions, rng)
