"""Build games in chosen positions: a Chance that deals exactly the cards a test names."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ono99_tui.core import Card, Edition, Game, TableOptions, new_deck
from ono99_tui.core.cards import HAND_SIZE


def cards(*codes: str) -> list[Card]:
    return [Card.from_code(c) for c in codes]


class StackedChance:
    """Deals the given hands; the named top of the draw pile comes first, then the rest of the
    deck in a fixed order. Reshuffles keep the discard pile's order unless told otherwise."""

    def __init__(
        self,
        edition: Edition,
        hands: Sequence[Sequence[str]],
        draw_top: Sequence[str] = (),
        dealer: int | None = None,
        later_hands: Sequence[tuple[Sequence[Sequence[str]], Sequence[str]]] = (),
    ) -> None:
        self.edition = edition
        self.deals = [(hands, draw_top), *later_hands]
        self.dealer = len(hands) - 1 if dealer is None else dealer
        self.reshuffles: list[list[Card]] = []

    def choose_dealer(self, seats: int) -> int:
        return self.dealer

    def deal(self, hand: int, deck: list[Card], receivers: Sequence[int]):
        spec_hands, top = self.deals[min(hand, len(self.deals) - 1)]
        remaining = Counter(deck)
        hands: dict[int, list[Card]] = {}
        for seat in receivers:
            chosen = cards(*spec_hands[seat])
            assert len(chosen) == HAND_SIZE, f"seat {seat} needs {HAND_SIZE} cards"
            hands[seat] = chosen
            remaining.subtract(chosen)
        pile = cards(*top)
        remaining.subtract(pile)
        assert all(v >= 0 for v in remaining.values()), "more cards named than the deck holds"
        rest = [c for c in new_deck(self.edition) if remaining[c] > 0 and not remaining.subtract([c])]
        return hands, pile + rest

    def reshuffle(self, cards_: list[Card]) -> list[Card]:
        self.reshuffles.append(list(cards_))
        return list(cards_)


def stacked_game(
    hands: Sequence[Sequence[str]],
    draw_top: Sequence[str] = (),
    *,
    edition: str = "2022",
    dealer: int | None = None,
    later_hands: Sequence[tuple[Sequence[Sequence[str]], Sequence[str]]] = (),
    **options: object,
) -> Game:
    """A game whose deal is ``hands`` (seat order) with ``draw_top`` on top of the draw pile.
    The dealer defaults to the last seat, so seat 0 plays first."""
    opts = TableOptions.from_mapping(edition, options)
    chance = StackedChance(opts.edition, hands, draw_top, dealer, later_hands)
    return Game(opts, len(hands), chance=chance)
