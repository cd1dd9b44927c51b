"""Cards and decks of both editions."""

from __future__ import annotations

from enum import Enum, IntEnum

from .malformed import MalformedActionError
from .words import N_


class Edition(Enum):
    """The 2022 Mattel game (default) or the 1980 International Games O'NO 99."""

    E2022 = "2022"
    E1980 = "1980"


class Card(IntEnum):
    """A card kind. An ``IntEnum`` so that hands are cheap lists and tables index by card."""

    N0 = 0
    N1 = 1
    N2 = 2
    N3 = 3
    N4 = 4
    N5 = 5
    N6 = 6
    N7 = 7
    N8 = 8
    N9 = 9
    N10 = 10
    MINUS_TEN = 11
    REVERSE = 12
    PLAY2 = 13
    DOUBLE = 14
    HOLD = 15
    ONO99 = 16

    @property
    def code(self) -> str:
        """The record format's card code, e.g. ``"7"``, ``"-10"``, ``"REV"``."""
        return CODES[self]

    @property
    def is_number(self) -> bool:
        return self <= Card.N10

    @classmethod
    def from_code(cls, code: object) -> Card:
        card = _BY_CODE.get(code) if isinstance(code, str) else None
        if card is None:
            raise MalformedActionError(
                f"unknown card code {code!r} (known: {', '.join(CODES)})"
            )
        return card

    def label(self, edition: Edition = Edition.E2022) -> str:
        """A human name in English, e.g. ``"7"``, ``"−10"``, ``"Reverse"``, ``"ONO 99"`` (``"O'NO 99"`` in
        1980): every layer names cards so, a player's screen in their language (``gettext`` of it)."""
        if self is Card.ONO99 and edition is Edition.E1980:
            return "O'NO 99"
        return _LABELS[self]

    @property
    def short(self) -> str:
        """At most three cells, as a card's face shows it, in no language: numbers and symbols (``"7"``,
        ``"−10"``, ``"⇄"`` for a Reverse, ``"×2"`` for a Play 2 or a Double Play, ``"||"`` for a Hold,
        ``"99!"``); the card's name (``label``) is written under it in the player's language."""
        return _SHORT[self]

    @property
    def kind(self) -> str:
        """What a card is, in a word readable without colour: ``number``, ``minus``, ``action`` or ``ono99``."""
        if self.is_number:
            return "number"
        return "minus" if self is Card.MINUS_TEN else "ono99" if self is Card.ONO99 else "action"


CODES: tuple[str, ...] = (
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10",
    "-10", "REV", "PLAY2", "DOUBLE", "HOLD", "ONO99",
)
_BY_CODE = {code: Card(i) for i, code in enumerate(CODES)}
# The names of the cards (the minus is U+2212, as cards print it); the action cards' are translated
# where shown (ONO 99 is the same in every language).
_LABELS: tuple[str, ...] = (
    *CODES[:11], "−10", N_("Reverse"), N_("Play 2"), N_("Double Play"), N_("Hold"), N_("ONO 99"),
)
# Faces a player of any language reads: play turns round, play twice, pause (no arrow or pause sign
# that terminals draw two cells wide)
_SHORT: tuple[str, ...] = (*CODES[:11], "−10", "\u21c4", "\u00d72", "\u00d72", "||", "99!")

# How many of each card kind a deck holds (docs/rules.md, both editions' card tables).
DECK_COUNTS: dict[Edition, dict[Card, int]] = {
    Edition.E2022: {
        Card.N0: 8,
        **{Card(v): 6 for v in range(1, 10)},
        Card.N10: 10,
        Card.REVERSE: 10,
        Card.MINUS_TEN: 10,
        Card.PLAY2: 10,
        Card.ONO99: 10,
    },
    Edition.E1980: {
        **{Card(v): 3 for v in range(2, 10)},
        Card.N10: 10,
        Card.HOLD: 4,
        Card.REVERSE: 6,
        Card.MINUS_TEN: 4,
        Card.DOUBLE: 2,
        Card.ONO99: 4,
    },
}

HAND_SIZE = 4
_DECKS = {
    edition: tuple(card for card, count in counts.items() for _ in range(count))
    for edition, counts in DECK_COUNTS.items()
}


def new_deck(edition: Edition) -> list[Card]:
    """The full deck of an edition, in a fixed (unshuffled) order."""
    return list(_DECKS[edition])


def cards_of_edition(edition: Edition) -> frozenset[Card]:
    return frozenset(DECK_COUNTS[edition])


# Points a card left in hand scores at the end of a 1980 points hand (docs/rules.md, scoring a 1980 match).
def card_points(card: Card) -> int:
    if card.is_number:
        return int(card)
    if card is Card.ONO99:
        return 20
    return 15
