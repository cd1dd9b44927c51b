"""Actions a seat can take. One shared instance per distinct action, so legal-action lists are cheap."""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from .cards import Card
from .errors import MalformedActionError


class ActionKind(Enum):
    PLAY = "play"  # play one card
    DISCARD_FOUR = "discard_four"  # 2022: the four-ONO 99 discard
    DRAW = "draw"  # manual_draw: take the draw you are owed


class Action(NamedTuple):
    """An action. A NamedTuple so that comparing actions (every legality check does) stays in C."""

    kind: ActionKind
    card: Card | None = None

    @property
    def code(self) -> str:
        """A short text form: a card code, ``"ONO99x4"`` or ``"draw"``."""
        if self.kind is ActionKind.PLAY:
            assert self.card is not None
            return self.card.code
        return DISCARD_FOUR_CODE if self.kind is ActionKind.DISCARD_FOUR else DRAW_CODE

    @staticmethod
    def parse(text: object) -> Action:
        """The action for a code as ``code`` writes it; raises ``MalformedActionError``."""
        if text == DISCARD_FOUR_CODE:
            return DISCARD_FOUR
        if text == DRAW_CODE:
            return DRAW
        return play(Card.from_code(text))

    def __str__(self) -> str:
        return self.code


DISCARD_FOUR_CODE = "ONO99x4"
DRAW_CODE = "draw"
PLAYS: tuple[Action, ...] = tuple(Action(ActionKind.PLAY, card) for card in Card)
DISCARD_FOUR = Action(ActionKind.DISCARD_FOUR)
DRAW = Action(ActionKind.DRAW)


def play(card: Card) -> Action:
    """The action that plays ``card``."""
    if not isinstance(card, Card):
        raise MalformedActionError(f"not a card: {card!r}")
    return PLAYS[card]
