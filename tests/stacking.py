"""Build games in chosen positions: a Chance that deals exactly the cards a test names."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ono99_kernel.core import DRAW, Action, Card, Edition, Event, Game, Obligation, Played, TableOptions, new_deck, play
from ono99_kernel.core.cards import HAND_SIZE


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

    def deal(self, hand: int, deck: list[Card], receivers: Sequence[int]) -> tuple[dict[int, list[Card]], list[Card]]:
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


def act(game: Game, seat: int, code: str) -> tuple[Event, ...]:
    """Apply an action code (a card code, ``ONO99x4`` or ``draw``) for ``seat``."""
    return game.apply(seat, Action.parse(code))


def ramp(
    final_hands: Sequence[Sequence[str]],
    more: Sequence[str] = (),
    *,
    rounds: int,
    dealer: int | None = None,
    edition: str = "2022",
    **options: Any,
) -> Game:
    """A game in which every seat, in turn order, has played ``rounds`` tens (drawing at once under
    manual_draw), so the total is ``10 * seats * rounds`` and the first player is on turn again
    holding ``final_hands[seat]``. ``more`` lies on the draw pile after the cards the ramp draws."""
    n = len(final_hands)
    first = 0 if dealer is None else (dealer + 1) % n
    order = [(first + i) % n for i in range(n)]
    hands = [["10"] * rounds + list(h[: 4 - rounds]) for h in final_hands]
    draws = [final_hands[s][4 - rounds + k] for k in range(rounds) for s in order]
    game = stacked_game(hands, [*draws, *more], edition=edition, dealer=dealer, **options)
    for _ in range(rounds):
        for seat in order:
            game.apply(seat, play(Card.N10))
            if game.has_open_draw(seat):
                game.apply(seat, DRAW)
    assert game.total == 10 * n * rounds
    assert game.turn == first
    for seat, hand in enumerate(final_hands):
        assert sorted(game.hand_of(seat)) == sorted(cards(*hand))
    return game


def played(events: Sequence[Event]) -> list[Played]:
    return [e for e in events if isinstance(e, Played)]


def obligation(game: Game) -> Obligation | None:
    return game.view(None).obligation
