"""Property-based tests: whole games of both editions under every valid option set keep every
check of docs/rules.md, "What any implementation must keep true".

A ``Referee`` follows each game independently of the engine. It knows the rules of docs/rules.md
(card effects, legal plays, turn order, Play 2 / Double Play, drawing, hands and scoring) and
takes from the engine only what chance decided (the deal and each reshuffle, read from the
unredacted log) and the actions the test chose. After every action it replays the events the
engine emitted against its own model and compares the whole table: whose turn it is, the
total, every hand, the draw pile in order, the discard pile, the cards out of play, tokens,
scores, and the legal actions of every seat. On top of that it checks the seat views
(no other seat's cards, no draw-pile order) and, at the end, that the same seed and the same
actions replay the same game card for card.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ono99_kernel.core import (
    DECK_COUNTS,
    DISCARD_FOUR,
    DRAW,
    Action,
    Card,
    Drew,
    Edition,
    Event,
    Game,
    GameOver,
    HandEnded,
    HandStarted,
    IllegalActionError,
    MissedDraw,
    OptionError,
    Out,
    Played,
    Reshuffled,
    TableOptions,
    new_deck,
    play,
)

# --- the rules, written down again from docs/rules.md (not taken from the engine) ---------------------

EXPECTED_DECK: dict[str, Counter[Card]] = {
    "2022": Counter(
        {
            Card.N0: 8,
            **{Card(v): 6 for v in range(1, 10)},
            Card.N10: 10,
            Card.REVERSE: 10,
            Card.MINUS_TEN: 10,
            Card.PLAY2: 10,
            Card.ONO99: 10,
        }
    ),
    "1980": Counter(
        {
            **{Card(v): 3 for v in range(2, 10)},
            Card.N10: 10,
            Card.HOLD: 4,
            Card.REVERSE: 6,
            Card.MINUS_TEN: 4,
            Card.DOUBLE: 2,
            Card.ONO99: 4,
        }
    ),
}
EXPECTED_SIZE = {"2022": 112, "1980": 54}
NUMBER_VALUES = {Card(v): v for v in range(11)}  # 0 … 10
HAND = 4
LOST_DRAW_POINTS = 15
DROP_OUT_POINTS = 25
START_TOKENS = 3
STEP_CAP = 20_000  # actions (plays and manual draws) in one game or match; real games take < 2,000


def card_points(card: Card) -> int:
    if card in NUMBER_VALUES:
        return NUMBER_VALUES[card]
    return 20 if card is Card.ONO99 else 15


def edition_of(options: TableOptions) -> str:
    return options.edition.value


def limit_of(options: TableOptions) -> int:
    return 99 if options.bust_over_99 else 98


def total_after(options: TableOptions, total: int, card: Card) -> int:
    if card in NUMBER_VALUES:
        return total + NUMBER_VALUES[card]
    if card is Card.MINUS_TEN:
        return max(total - 10, 0) if edition_of(options) == "2022" else total - 10
    if card is Card.ONO99 and options.ono99_sets_99:
        return 99
    return total


def legal_plays(options: TableOptions, hand: Sequence[Card], total: int, first_of_two: bool) -> set[Action]:
    """Every play docs/rules.md allows with ``hand`` at ``total``. ``first_of_two``: the seat holds a
    Play 2 / Double Play and has not played its first card yet."""
    is_2022 = edition_of(options) == "2022"
    legal: set[Action] = set()
    for card in set(hand):
        if card is Card.ONO99:
            if is_2022:
                continue
            if options.ono99_sets_99:
                pass
            elif not (options.ono99_on_zero and total % 10 == 0):
                continue
        if card is Card.DOUBLE and first_of_two:
            continue  # a Double Play may not be the first of your two cards
        if total_after(options, total, card) > limit_of(options):
            continue
        legal.add(play(card))
    if is_2022 and list(hand).count(Card.ONO99) >= 4:
        legal.add(DISCARD_FOUR)
    return legal


def responses(options: TableOptions) -> tuple[Card, ...]:
    if edition_of(options) == "2022":
        return (Card.REVERSE, Card.PLAY2)
    return (Card.HOLD, Card.REVERSE)


def max_players(edition: str, eight_players: bool) -> int:
    return 8 if edition == "1980" or eight_players else 6


# --- the referee ---------------------------------------------------------------------------------


class Referee:
    """An independent model of one game, fed with the engine's events and checked against it."""

    def __init__(self, game: Game, options: TableOptions, seats: int) -> None:
        self.game = game
        self.o = options
        self.n = seats
        self.edition = edition_of(options)
        self.limit = limit_of(options)
        self.deck = EXPECTED_DECK[self.edition]
        self.deck_sorted = sorted(self.deck.elements())
        assert options.scoring is not None  # TableOptions sets the edition's default
        self.scoring = options.scoring.value
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.draw: list[Card] = []  # top card LAST
        self.discard: list[Card] = []
        self.out_of_play: list[Card] = []
        self.total = 0
        self.direction = 1
        self.turn = -1
        self.plays_left = 1
        self.first_of_two = False
        self.active = [True] * seats
        self.in_hand = [True] * seats
        self.tokens = [START_TOKENS] * seats if self.scoring == "tokens" else None
        self.scores = [0] * seats if self.scoring == "points" else None
        self.draw_open = [False] * seats
        self.missed = [0] * seats
        self.dropped: list[int] = []
        self.first_of_hand = -1
        self.hand_index = -1
        self.over = False
        self.winner: int | None = None
        self.eliminated_ever: set[int] = set()
        self.pending_refill: int | None = None
        self.forfeit_due: set[int] = set()
        self.legal_cache: set[Action] | None = None
        self.legal_before: set[Action] = set()
        self.expect: str | None = "HandStarted"
        self.expected_hand_ended: HandEnded | None = None
        self.expected_first: int | None = None
        self.expected_winner: int | None = None
        self.engine_tokens = (START_TOKENS,) * seats
        self.engine_scores = (0,) * seats
        self.seen = 0  # log events consumed
        self.game_over_events = 0
        self.consume(None, None)

    # --- helpers ---
    def next_seat(self, seat: int) -> int:
        nxt = (seat + self.direction) % self.n
        while not self.in_hand[nxt]:
            assert nxt != seat, "no seat left in the hand"
            nxt = (nxt + self.direction) % self.n
        return nxt

    def next_active_from(self, seat: int) -> int:
        s = seat
        while not self.active[s]:
            s = (s + 1) % self.n
        return s

    def clockwise(self, seat: int) -> int:
        return (seat - self.first_of_hand) % self.n

    def legal_for_turn(self) -> set[Action]:
        """What the seat on turn may do now, by docs/rules.md (cached until the next action)."""
        if self.legal_cache is None:
            if self.draw_open[self.turn]:
                self.legal_cache = {DRAW}
            else:
                self.legal_cache = legal_plays(self.o, self.hands[self.turn], self.total, self.first_of_two)
        return self.legal_cache

    def expected_actors(self) -> tuple[int, ...]:
        if self.over:
            return ()
        owed = tuple(s for s in range(self.n) if self.draw_open[s] and s != self.turn)
        return (*owed, self.turn)

    # --- before an action ---
    def check_action(self, seat: int, action: Action) -> None:
        assert not self.over, "an action after the game ended"
        assert self.active[seat], f"eliminated seat {seat} acts"
        legal = self.game.legal_actions(seat)
        assert action in legal, f"seat {seat} chose {action} which is not in legal_actions {legal}"
        if action is DRAW:
            assert self.draw_open[seat], f"seat {seat} draws without an open draw"
        else:
            assert seat == self.turn, f"seat {seat} plays out of turn (turn {self.turn})"
            assert self.in_hand[seat], f"seat {seat} plays after dropping out of the hand"
            assert action in self.legal_for_turn(), (
                f"seat {seat} plays {action} which docs/rules.md forbids (hand "
                f"{[c.code for c in self.hands[seat]]}, total {self.total}, "
                f"first of two {self.first_of_two})"
            )

    # --- events ---
    def consume(self, seat: int | None, action: Action | None) -> None:
        log = self.game.log
        new = list(log[self.seen:])
        self.seen = len(log)
        if action is not None:
            self.legal_before = self.legal_for_turn()
        self.legal_cache = None
        if action is DRAW:
            assert seat is not None
            self.draw_open[seat] = False
            self.pending_refill = seat
        elif action is not None:
            # a play ends every other seat's open draw: each is lost (one MissedDraw event each,
            # just before or just after the Played event)
            self.forfeit_due = {s for s in range(self.n) if self.draw_open[s] and s != seat}
            for s in self.forfeit_due:
                self.draw_open[s] = False
                self.missed[s] += 1
        played = False
        for event in new:
            if not isinstance(event, (Drew, Reshuffled)):
                self.finish_refill()
            self.on_event(event, seat, action, played)
            if isinstance(event, Played):
                played = True
        self.finish_refill()
        assert not self.forfeit_due, f"open draws of seats {sorted(self.forfeit_due)} were not forfeited"
        if action is not None and action is not DRAW:
            assert played, f"{action} by seat {seat} emitted no Played event"
        assert self.expect is None, f"the events stop while {self.expect} is still due"

    def on_event(self, event: Event, actor: int | None, action: Action | None, played: bool) -> None:
        assert not self.over, f"event {event} after GameOver"
        if self.expect is not None:
            assert type(event).__name__ == self.expect, f"expected {self.expect}, got {event}"
            self.expect = None
        if isinstance(event, HandStarted):
            self.on_hand_started(event)
        elif isinstance(event, MissedDraw):
            assert action is not None and action is not DRAW, f"{event} outside a play"
            assert event.seat in self.forfeit_due, f"{event} but that seat had no open draw to lose"
            self.forfeit_due.remove(event.seat)
        elif isinstance(event, Played):
            self.on_played(event, actor, action, played)
        elif isinstance(event, Reshuffled):
            self.on_reshuffled(event)
        elif isinstance(event, Drew):
            self.on_drew(event)
        elif isinstance(event, Out):
            self.on_out(event)
        elif isinstance(event, HandEnded):
            self.on_hand_ended(event)
        elif isinstance(event, GameOver):
            assert event.winner == self.expected_winner, (
                f"GameOver({event.winner}) but the winner is {self.expected_winner}"
            )
            self.game_over_events += 1
            self.over = True
            self.winner = event.winner
            self.draw_open = [False] * self.n
        else:
            raise AssertionError(f"unknown event {event!r}")

    def on_hand_started(self, e: HandStarted) -> None:
        self.hand_index += 1
        assert e.hand == self.hand_index
        n = self.n
        if self.hand_index == 0:
            assert 0 <= e.dealer < n and e.first == (e.dealer + 1) % n, "the dealer's left starts"
        else:
            assert e.first == self.expected_first, (
                f"hand {e.hand} starts with seat {e.first}, expected {self.expected_first}"
            )
            assert self.active[e.dealer], "an eliminated seat deals"
        assert len(e.hands) == n and e.draw_pile is not None
        hands = [h for h in e.hands if h is not None]
        assert len(hands) == n, "the game's own events hide no hand"
        for s in range(n):
            want = HAND if self.active[s] else 0
            assert len(hands[s]) == want, f"seat {s} dealt {len(hands[s])} cards"
        assert e.hand_sizes == tuple(len(h) for h in hands)
        assert e.draw_pile_size == len(e.draw_pile)
        dealt = Counter(c for h in hands for c in h) + Counter(e.draw_pile)
        assert dealt == self.deck, "a deal that is not exactly the deck"
        log = self.game.hands_log[e.hand]
        assert log.dealt == e.hands and log.draw_pile == e.draw_pile and log.first == e.first
        self.hands = [list(h) for h in hands]
        self.draw = list(reversed(e.draw_pile))
        self.discard = []
        self.out_of_play = []
        self.total = 0
        self.direction = 1
        self.turn = e.first
        self.first_of_hand = e.first
        self.plays_left = 1
        self.first_of_two = False
        self.in_hand = list(self.active)
        self.draw_open = [False] * n
        self.missed = [0] * n
        self.dropped = []

    def on_played(self, e: Played, actor: int | None, action: Action | None, played: bool) -> None:
        assert action is not None and action is not DRAW and not played, f"{e} without a play"
        seat = e.seat
        assert seat == actor == self.turn, f"{e}: actor {actor}, turn {self.turn}"
        assert action in self.legal_before, f"{action} was not legal"
        hand = self.hands[seat]
        if action is DISCARD_FOUR:
            assert e.cards == (Card.ONO99,) * 4
        else:
            assert e.cards == (action.card,), f"{e} for action {action}"
        for c in e.cards:
            hand.remove(c)
        self.discard.extend(e.cards)
        card = e.cards[0]
        four = len(e.cards) == 4
        new_total = self.total if four else total_after(self.o, self.total, card)
        assert e.total == new_total, f"{e}: total should be {new_total} (was {self.total})"
        assert new_total <= self.limit, f"total {new_total} over the limit {self.limit}"
        if self.edition == "2022":
            assert new_total >= 0, f"2022 total {new_total} below 0"
        self.total = new_total
        if card is Card.REVERSE and self.in_hand.count(True) > 2:
            self.direction = -self.direction
        passes_on = not four and self.first_of_two and card in responses(self.o)
        obliges = not four and card in (Card.PLAY2, Card.DOUBLE)
        if self.o.manual_draw:
            self.draw_open[seat] = True
        else:
            self.pending_refill = seat
        if self.plays_left == 2 and not passes_on:
            self.plays_left = 1
            self.first_of_two = False
        else:
            self.turn = self.next_seat(seat)
            pending = passes_on or obliges
            self.plays_left = 2 if pending else 1
            self.first_of_two = pending

    def on_reshuffled(self, e: Reshuffled) -> None:
        assert self.pending_refill is not None, "a reshuffle outside a draw"
        assert not self.draw, "a reshuffle while the draw pile still holds cards"
        assert len(self.discard) >= 2, "a reshuffle of an empty discard pile"
        assert e.draw_pile is not None and e.size == len(e.draw_pile)
        assert Counter(e.draw_pile) == Counter(self.discard[:-1]), (
            "the reshuffled pile is not the discard pile minus its top card"
        )
        self.draw = list(reversed(e.draw_pile))
        self.discard = self.discard[-1:]

    def on_drew(self, e: Drew) -> None:
        assert e.seat == self.pending_refill, f"{e} but seat {self.pending_refill} is drawing"
        assert self.draw, "a draw from an empty draw pile"
        top = self.draw.pop()
        assert e.card is top, f"{e} but the top of the draw pile is {top}"
        self.hands[e.seat].append(top)
        assert len(self.hands[e.seat]) <= HAND - self.missed[e.seat], (
            f"seat {e.seat} draws beyond {HAND - self.missed[e.seat]} cards"
        )

    def finish_refill(self) -> None:
        seat = self.pending_refill
        if seat is None:
            return
        self.pending_refill = None
        want = HAND - self.missed[seat]
        have = len(self.hands[seat])
        assert have == want or (not self.draw and len(self.discard) < 2), (
            f"seat {seat} stopped drawing at {have} cards (owed {want}) although cards were there"
        )

    def on_out(self, e: Out) -> None:
        seat = e.seat
        assert seat == self.turn, f"{e} but seat {self.turn} is on turn"
        assert self.in_hand[seat] and self.active[seat]
        assert not self.draw_open[seat], f"{e} while its draw is still open"
        legal = legal_plays(self.o, self.hands[seat], self.total, self.first_of_two)
        assert not legal, (
            f"{e} although it could play {sorted(a.code for a in legal)} "
            f"(hand {[c.code for c in self.hands[seat]]}, total {self.total})"
        )
        if self.scoring == "tokens":
            self.expect_tokens_hand_end(seat)
            return
        self.in_hand[seat] = False
        if self.scoring == "elimination":
            self.active[seat] = False
            self.eliminated_ever.add(seat)
            self.out_of_play.extend(self.hands[seat])
            self.hands[seat] = []
            if self.active.count(True) == 1:
                self.expect = "GameOver"
                self.expected_winner = self.active.index(True)
                return
        else:
            self.dropped.append(seat)
            if self.in_hand.count(True) == 1:
                self.expect_points_hand_end()
                return
        self.turn = self.next_seat(seat)
        self.plays_left = 1
        self.first_of_two = False

    def expect_tokens_hand_end(self, loser: int) -> None:
        tokens = self.tokens
        assert tokens is not None
        before = list(tokens)
        eliminated: tuple[int, ...] = ()
        if tokens[loser] == 0:
            eliminated = (loser,)
        else:
            tokens[loser] -= 1
            if tokens[loser] == 0 and self.o.out_at_zero_tokens:
                eliminated = (loser,)
        assert all(a <= b for a, b in zip(tokens, before, strict=True)), "tokens went up"
        for s in eliminated:
            self.active[s] = False
            self.eliminated_ever.add(s)
        self.expected_hand_ended = HandEnded(self.hand_index, loser, tuple(tokens), None, None, eliminated)
        self.expect = "HandEnded"
        self.after_hand(loser, None)

    def expect_points_hand_end(self) -> None:
        scores = self.scores
        assert scores is not None
        gained = [0] * self.n
        for s in range(self.n):
            if not self.active[s]:
                continue
            hand = self.hands[s]
            only_ono99 = bool(hand) and all(c is Card.ONO99 for c in hand)
            dropped_penalty = DROP_OUT_POINTS if s in self.dropped and not only_ono99 else 0
            gained[s] = sum(card_points(c) for c in hand) + LOST_DRAW_POINTS * self.missed[s] + dropped_penalty
        before = list(scores)
        for s in range(self.n):
            scores[s] += gained[s]
        assert all(a >= b for a, b in zip(scores, before, strict=True)), "a score went down"
        target = self.o.points_target
        contenders = [s for s in range(self.n) if self.active[s]]
        reached = [s for s in contenders if scores[s] >= target]
        winner: int | None = None
        eliminated: tuple[int, ...] = ()

        def lowest(seats: list[int]) -> int:
            return min(seats, key=lambda s: (scores[s], self.clockwise(s)))

        if self.o.points_win.value == "lowest_score":
            if reached:
                winner = lowest(contenders)
        else:
            eliminated = tuple(reached)
            remaining = [s for s in contenders if s not in reached]
            for s in reached:
                self.active[s] = False
            if len(remaining) == 1:
                winner = remaining[0]
            elif not remaining:
                winner = lowest(reached)
                eliminated = tuple(s for s in reached if s != winner)  # the winner is not out
            self.eliminated_ever.update(s for s in reached if s != winner)
        loser = self.dropped[0]
        self.expected_hand_ended = HandEnded(
            self.hand_index, loser, None, tuple(scores), tuple(gained), eliminated
        )
        self.expect = "HandEnded"
        self.after_hand(loser, winner)

    def after_hand(self, loser: int, winner: int | None) -> None:
        if winner is None and self.active.count(True) == 1:
            winner = self.active.index(True)
        if winner is not None:
            self.expected_winner = winner
            self.expected_first = None
        else:
            self.expected_first = self.next_active_from(loser)

    def on_hand_ended(self, e: HandEnded) -> None:
        want = self.expected_hand_ended
        assert want is not None, f"{e} without a reason"
        got = HandEnded(e.hand, e.loser, e.tokens, e.scores, e.hand_points, tuple(sorted(e.eliminated)))
        assert got == want, f"{e} but expected {want}"
        self.expected_hand_ended = None
        self.expect = "GameOver" if self.expected_first is None else "HandStarted"

    # --- after an action: compare the model with the engine ---
    def compare(self) -> None:
        g = self.game
        assert g.is_over == self.over
        assert g.total == self.total, f"total {g.total}, referee {self.total}"
        assert g.total <= self.limit, f"total {g.total} over the limit {self.limit}"
        if self.edition == "2022":
            assert g.total >= 0, f"2022 total {g.total} below 0"
        hands = [g.hand_of(s) for s in range(self.n)]
        for s, hand in enumerate(hands):
            assert len(hand) <= HAND, f"seat {s} holds {len(hand)} cards"
            assert hand == tuple(self.hands[s]) or sorted(hand) == sorted(self.hands[s]), (
                f"seat {s} holds {[c.code for c in hand]}, referee {[c.code for c in self.hands[s]]}"
            )
        draw, discard, out = g.draw_pile(), g.discard_pile(), g.out_of_play()
        assert draw == tuple(reversed(self.draw)), "draw pile differs"
        assert discard == tuple(self.discard), "discard pile differs"
        assert sorted(out) == sorted(self.out_of_play), "out-of-play cards differ"
        everything = sorted(draw + discard + out + sum(hands, ()))
        if everything != self.deck_sorted:
            seen = Counter(everything)
            raise AssertionError(
                f"cards created or lost: extra {seen - self.deck}, missing {self.deck - seen}"
            )
        actors = g.actors()
        assert actors == self.expected_actors(), f"actors {actors}, referee {self.expected_actors()}"
        view = g.view(None)
        if view.tokens is not None:  # 1980 tokens: a seat's tokens only ever go down
            assert all(a <= b for a, b in zip(view.tokens, self.engine_tokens, strict=True)), (
                f"tokens went up: {self.engine_tokens} -> {view.tokens}"
            )
            self.engine_tokens = view.tokens
        if view.scores is not None:  # 1980 points: a seat's score only ever goes up
            assert all(a >= b for a, b in zip(view.scores, self.engine_scores, strict=True)), (
                f"a score went down: {self.engine_scores} -> {view.scores}"
            )
            self.engine_scores = view.scores
        if self.over:
            outcome = g.outcome
            assert outcome is not None and outcome.winner == self.winner and g.turn is None
            for s in range(self.n):
                assert g.legal_actions(s) == ()
            return
        assert g.turn == self.turn, f"turn {g.turn}, referee {self.turn}"
        assert g.direction == self.direction, "direction differs"
        legal = g.legal_actions(self.turn)
        assert legal, f"seat {self.turn} is on turn with no legal action and was not knocked out"
        assert len(set(legal)) == len(legal), f"duplicate legal actions {legal}"
        assert set(legal) == self.legal_for_turn(), (
            f"legal actions {sorted(a.code for a in legal)}, docs/rules.md "
            f"{sorted(a.code for a in self.legal_for_turn())} (hand "
            f"{[c.code for c in self.hands[self.turn]]}, total {self.total})"
        )
        for s in range(self.n):
            if s == self.turn:
                continue
            want = (DRAW,) if self.draw_open[s] else ()
            assert g.legal_actions(s) == want, f"seat {s} may {g.legal_actions(s)}, expected {want}"
            if not self.active[s]:
                assert s not in actors, f"eliminated seat {s} may act"
        assert self.active[self.turn] and self.in_hand[self.turn]
        assert not self.eliminated_ever.intersection(actors), "an eliminated seat may act again"
        assert view.active == tuple(self.active)
        assert view.in_hand == tuple(self.in_hand)
        assert view.open_draws == tuple(self.draw_open)
        assert view.missed_draws == tuple(self.missed)
        assert view.tokens == (tuple(self.tokens) if self.tokens is not None else None)
        assert view.scores == (tuple(self.scores) if self.scores is not None else None)

    def check_final(self) -> None:
        g = self.game
        assert self.over and g.is_over, "the game did not end"
        assert self.game_over_events == 1
        assert sum(isinstance(e, GameOver) for e in g.log) == 1, "not exactly one GameOver"
        assert isinstance(g.log[-1], GameOver), "events after GameOver"
        outcome = g.outcome
        assert outcome is not None and outcome.winner == self.winner
        assert sorted(outcome.ranking) == list(range(self.n)) and outcome.ranking[0] == self.winner
        assert outcome.tokens == (tuple(self.tokens) if self.tokens is not None else None)
        assert outcome.scores == (tuple(self.scores) if self.scores is not None else None)
        if self.scoring != "points":
            assert self.active.count(True) == 1 and self.active[self.winner], "not one seat left"
        assert self.winner not in self.eliminated_ever, "an eliminated seat won"


# --- views ---------------------------------------------------------------------------------------


def _cards_in(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Card]]:
    """Every card anywhere inside ``obj`` with its path of field names and indices."""
    if isinstance(obj, Card):
        yield path, obj
    elif obj is None or isinstance(obj, (bool, int, float, str, Enum)):
        return
    elif isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a NamedTuple: walk it by name
        for name in obj._fields:
            yield from _cards_in(getattr(obj, name), (*path, name))
    elif isinstance(obj, (tuple, list)):
        for i, item in enumerate(obj):
            yield from _cards_in(item, (*path, i))
    elif isinstance(obj, dict):
        for key, item in obj.items():
            yield from _cards_in(key, (*path, "key"))
            yield from _cards_in(item, (*path, key))
    elif is_dataclass(obj):
        for f in fields(obj):
            yield from _cards_in(getattr(obj, f.name), (*path, f.name))
    else:
        raise AssertionError(f"unexpected {type(obj).__name__} in a view at {path}")


def check_views(game: Game, seats: int) -> None:
    """A seat's view holds its own hand, public data, and nothing else; a spectator no hand."""
    log = game.log
    shown_count = len(game.view(None).recent_events)
    assert 0 < shown_count <= len(log), "a view must carry the latest events"
    tail = list(log[len(log) - shown_count:])
    discard = game.discard_pile()
    for viewer in [*range(seats), None]:
        if viewer is None:
            view = game.view(None)
            assert getattr(view, "seat", None) is None, "a spectator's view names a seat"
            assert not getattr(view, "hand", ()), "a spectator's view holds a hand"
            assert not getattr(view, "legal_actions", ()) and not getattr(view, "unplayable", ())
            own: tuple[Card, ...] = ()
        else:
            view = game.seat_view(viewer)
            assert view.seat == viewer
            own = game.hand_of(viewer)
            assert view.hand == own, f"seat {viewer}'s view shows {view.hand}, holds {own}"
            assert view.legal_actions == game.legal_actions(viewer)
            assert all(entry.card in own for entry in view.unplayable)
        assert view.hand_sizes == tuple(len(game.hand_of(s)) for s in range(seats))
        assert view.draw_pile_size == len(game.draw_pile())
        assert view.discard_size == len(discard)
        assert view.top_card == (discard[-1] if discard else None)
        assert view.total == game.total and view.turn == game.turn
        events = view.recent_events
        assert [type(e) for e in events] == [type(e) for e in tail], f"seat {viewer}'s events differ"
        for shown, real in zip(events, tail, strict=True):
            if isinstance(shown, Drew):
                assert isinstance(real, Drew) and shown.seat == real.seat
                want_card = real.card if shown.seat == viewer else None
                assert shown.card == want_card, f"seat {viewer} sees {shown}"
            elif isinstance(shown, Reshuffled):
                assert shown.draw_pile is None, f"seat {viewer} sees the reshuffled draw pile's order"
                assert isinstance(real, Reshuffled) and shown.size == real.size
            elif isinstance(shown, HandStarted):
                assert isinstance(real, HandStarted)
                assert shown.draw_pile is None, f"seat {viewer} sees the dealt draw pile's order"
                for s, h in enumerate(shown.hands):
                    assert h == (real.hands[s] if s == viewer else None), f"seat {viewer} sees {s}'s deal"
            else:
                assert shown == real
        for path, _card in _cards_in(view):
            head = path[0]
            if head == "hand" and viewer is not None:
                continue
            if head == "top_card":
                continue
            if head == "unplayable" and viewer is not None and path[2:] == ("card",):
                continue
            if head == "legal_actions" and viewer is not None and path[2:] == ("card",):
                continue
            if head == "recent_events":
                event = events[path[1]]
                if isinstance(event, Played) and path[2] == "cards":
                    continue
                if isinstance(event, Drew) and viewer is not None and event.seat == viewer:
                    continue
                if isinstance(event, HandStarted) and path[2:4] == ("hands", viewer):
                    continue
            raise AssertionError(f"the view of {viewer} shows a hidden card at {path}")


# --- playing whole games -------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    edition: str
    options: dict[str, Any]
    players: int
    seed: int
    policy_seed: int
    draw_eagerness: float  # manual_draw: how often a seat owing a draw acts before the seat on turn

    def table(self) -> TableOptions:
        return TableOptions.from_mapping(self.edition, self.options)


class Policy:
    """Seeded random play: which actor acts (under manual_draw), and which legal action."""

    def __init__(self, seed: int, draw_eagerness: float) -> None:
        self.rng = random.Random(seed)
        self.eagerness = draw_eagerness

    def choose(self, game: Game) -> tuple[int, Action]:
        actors = game.actors()
        owed = actors[:-1]
        seat = self.rng.choice(owed) if owed and self.rng.random() < self.eagerness else actors[-1]
        return seat, self.rng.choice(game.legal_actions(seat))

    def probe(self, game: Game, referee: Referee) -> tuple[int, Action] | None:
        """An action the rules forbid now, or None."""
        n = game.seats
        turn = referee.turn
        candidates: list[tuple[int, Action]] = []
        allowed = referee.legal_for_turn()
        kinds = sorted(referee.deck, key=int)
        candidates += [(turn, play(c)) for c in kinds if play(c) not in allowed]
        if DISCARD_FOUR not in allowed:
            candidates.append((turn, DISCARD_FOUR))
        for s in range(n):
            if s != turn:
                candidates += [(s, play(c)) for c in set(game.hand_of(s))]
                candidates.append((s, DISCARD_FOUR))
            if not referee.draw_open[s]:
                candidates.append((s, DRAW))
        return self.rng.choice(candidates) if candidates else None


def _codes(actions: Sequence[tuple[int, Action]]) -> str:
    text = " ".join(f"{s}:{a.code}" for s, a in actions)
    return text if len(actions) <= 400 else f"… (last 400 of {len(actions)}) " + " ".join(
        f"{s}:{a.code}" for s, a in actions[-400:]
    )


def play_game(sc: Scenario, *, full: bool) -> tuple[Game, list[tuple[int, Action]]]:
    """Play one whole game under ``sc`` and check every invariant after every action.
    ``full`` adds the view checks and illegal-action probes after every action."""
    options = sc.table()
    game = Game(options, sc.players, random.Random(sc.seed))
    policy = Policy(sc.policy_seed, sc.draw_eagerness)
    actions: list[tuple[int, Action]] = []
    try:
        referee = Referee(game, options, sc.players)
        referee.compare()
        if full:
            check_views(game, sc.players)
        while not game.is_over:
            assert len(actions) < STEP_CAP, f"the game did not end within {STEP_CAP} actions"
            if full and policy.rng.random() < 0.2:
                probe = policy.probe(game, referee)
                if probe is not None:
                    check_refused(game, *probe)
            seat, action = policy.choose(game)
            referee.check_action(seat, action)
            before = len(game.log)
            events = game.apply(seat, action)
            actions.append((seat, action))
            assert tuple(game.log[before:]) == events, "apply's events are not the log's new events"
            referee.consume(seat, action)
            referee.compare()
            if full:
                check_views(game, sc.players)
        referee.check_final()
        check_replay(sc, options, game, actions)
    except AssertionError as err:
        raise AssertionError(
            f"{err}\n  scenario: {sc}\n  after {len(actions)} actions: {_codes(actions)}"
        ) from err
    return game, actions


def check_refused(game: Game, seat: int, action: Action) -> None:
    state = (game.version, len(game.log), game.total, game.turn, game.draw_pile(), game.discard_pile(),
             tuple(game.hand_of(s) for s in range(game.seats)), game.actors())
    with pytest.raises(IllegalActionError):
        game.apply(seat, action)
    after = (game.version, len(game.log), game.total, game.turn, game.draw_pile(), game.discard_pile(),
             tuple(game.hand_of(s) for s in range(game.seats)), game.actors())
    assert after == state, f"the refused action {seat}:{action.code} changed the game"


def check_replay(sc: Scenario, options: TableOptions, game: Game, actions: list[tuple[int, Action]]) -> None:
    """The same seed and the same actions give the same game, card for card."""
    again = Game(options, sc.players, random.Random(sc.seed))
    assert list(again.log) == list(game.log[: len(again.log)]), "the same seed deals differently"
    for i, (seat, action) in enumerate(actions):
        assert action in again.legal_actions(seat), f"replay: action {i} ({seat}:{action.code}) illegal"
        again.apply(seat, action)
    assert list(again.log) == list(game.log), "the replay's events differ"
    assert again.hands_log == game.hands_log, "the replay's hands differ"
    assert again.outcome == game.outcome and again.is_over
    assert again.draw_pile() == game.draw_pile() and again.discard_pile() == game.discard_pile()


# --- strategies ----------------------------------------------------------------------------------


@st.composite
def option_sets(draw: st.DrawFn, edition: str) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if draw(st.booleans()):
        opts["manual_draw"] = True
    if edition == "2022":
        if draw(st.booleans()):
            opts["eight_players"] = True
        return opts
    ono99 = draw(st.sampled_from(["never", "on_zero", "sets_99"]))
    bust = draw(st.booleans()) or ono99 == "sets_99"
    if bust:
        opts["bust_over_99"] = True
    if ono99 == "on_zero":
        opts["ono99_on_zero"] = True
    elif ono99 == "sets_99":
        opts["ono99_sets_99"] = True
    scoring = draw(st.sampled_from(["tokens", "points"]))
    opts["scoring"] = scoring
    if scoring == "tokens":
        if draw(st.booleans()):
            opts["out_at_zero_tokens"] = True
    else:
        opts["points_target"] = draw(st.sampled_from([1, 20, 60, 100, 150]))
        opts["points_win"] = draw(st.sampled_from(["last_standing", "lowest_score"]))
    return opts


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    edition = draw(st.sampled_from(["2022", "1980"]))
    opts = draw(option_sets(edition))
    top = max_players(edition, bool(opts.get("eight_players")))
    return Scenario(
        edition=edition,
        options=opts,
        players=draw(st.integers(2, top)),
        seed=draw(st.integers(0, 2**32 - 1)),
        policy_seed=draw(st.integers(0, 2**32 - 1)),
        draw_eagerness=draw(st.sampled_from([0.0, 0.3, 0.7, 1.0])) if opts.get("manual_draw") else 1.0,
    )


# --- tests ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", ["2022", "1980"])
def test_deck_sizes_and_counts(edition: str) -> None:
    ed = Edition(edition)
    assert len(new_deck(ed)) == EXPECTED_SIZE[edition]
    assert sum(EXPECTED_DECK[edition].values()) == EXPECTED_SIZE[edition]
    assert Counter(new_deck(ed)) == EXPECTED_DECK[edition]
    assert Counter(DECK_COUNTS[ed]) == EXPECTED_DECK[edition]


ALL_BOOL_OPTIONS = ("bust_over_99", "ono99_on_zero", "ono99_sets_99", "manual_draw",
                    "out_at_zero_tokens", "eight_players")


@settings(max_examples=150, deadline=None)
@given(
    edition=st.sampled_from(["2022", "1980"]),
    flags=st.fixed_dictionaries({name: st.booleans() for name in ALL_BOOL_OPTIONS}),
    scoring=st.sampled_from([None, "elimination", "tokens", "points"]),
    players=st.integers(0, 10),
)
def test_option_sets_and_player_counts(
    edition: str, flags: dict[str, bool], scoring: str | None, players: int
) -> None:
    """Exactly the combinations of docs/rules.md are accepted, and seat counts 2 to the max."""
    opts: dict[str, Any] = dict(flags)
    if scoring is not None:
        opts["scoring"] = scoring
    eff_scoring = scoring or ("elimination" if edition == "2022" else "tokens")
    if edition == "2022":
        valid = eff_scoring == "elimination" and not any(
            flags[n] for n in ("bust_over_99", "ono99_on_zero", "ono99_sets_99", "out_at_zero_tokens")
        )
    else:
        valid = (eff_scoring in ("tokens", "points") and not flags["eight_players"]
                 and not (flags["ono99_sets_99"] and not flags["bust_over_99"])
                 and not (flags["ono99_sets_99"] and flags["ono99_on_zero"]))
    if not valid:
        with pytest.raises(OptionError):
            TableOptions.from_mapping(edition, opts)
        return
    options = TableOptions.from_mapping(edition, opts)
    assert limit_of(options) == options.limit
    top = max_players(edition, flags["eight_players"])
    if 2 <= players <= top:
        game = Game(options, players, random.Random(players))
        assert sum(len(game.hand_of(s)) for s in range(players)) == HAND * players
    else:
        with pytest.raises(OptionError):
            Game(options, players, random.Random(players))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sc=scenarios())
def test_whole_games_keep_every_invariant(sc: Scenario) -> None:
    play_game(sc, full=True)


@settings(max_examples=25, deadline=None)
@given(sc=scenarios(), other_policy=st.integers(0, 2**32 - 1))
def test_the_deal_depends_only_on_the_seed(
    sc: Scenario, other_policy: int
) -> None:
    """Two games with one seed and different players' choices are dealt the same cards (each
    game is also replayed from its own actions inside ``play_game``)."""
    g1, a1 = play_game(sc, full=False)
    sc2 = Scenario(sc.edition, sc.options, sc.players, sc.seed, other_policy, sc.draw_eagerness)
    g2, a2 = play_game(sc2, full=False)
    assert g1.hands_log[0].dealt == g2.hands_log[0].dealt
    assert g1.hands_log[0].draw_pile == g2.hands_log[0].draw_pile
    if a1 == a2:
        assert list(g1.log) == list(g2.log)


BULK_TABLES: list[tuple[str, dict[str, Any]]] = [
    ("2022", {}),
    ("2022", {"manual_draw": True, "eight_players": True}),
    ("1980", {}),
    ("1980", {"bust_over_99": True, "ono99_sets_99": True, "manual_draw": True, "out_at_zero_tokens": True}),
    ("1980", {"scoring": "points", "bust_over_99": True, "ono99_on_zero": True}),
    ("1980", {"scoring": "points", "points_win": "lowest_score", "manual_draw": True,
              "bust_over_99": True, "ono99_sets_99": True, "points_target": 150}),
]
BULK_GAMES = 200


@pytest.mark.parametrize(("edition", "opts"), BULK_TABLES, ids=lambda v: str(v) if v else "defaults")
def test_many_seeded_games(edition: str, opts: dict[str, Any]) -> None:
    """200 seeded whole games (1980: whole matches) per table, every invariant after every action."""
    top = max_players(edition, bool(opts.get("eight_players")))
    winners: Counter[int] = Counter()
    for i in range(BULK_GAMES):
        players = 2 + i % (top - 1)
        sc = Scenario(edition, opts, players, seed=10_000 + i, policy_seed=i,
                      draw_eagerness=(0.0, 0.5, 1.0)[i % 3])
        game, _ = play_game(sc, full=False)
        assert game.outcome is not None
        winners[game.outcome.winner] += 1
    assert sum(winners.values()) == BULK_GAMES
