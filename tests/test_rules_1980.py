"""docs/rules.md, the 1980 edition (O'NO 99). One test per rule, named after it."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from ono99_kernel.core import (
    DECK_COUNTS,
    DISCARD_FOUR,
    DRAW,
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
    Obligation,
    OptionError,
    Out,
    Played,
    TableOptions,
    new_deck,
)
from ono99_kernel.wire.server import view_to_wire
from tests.stacking import act, cards, obligation, played, stacked_game
from tests.stacking import ramp as _ramp

N10 = Card.N10
FOUR_ONO99 = ["ONO99", "ONO99", "ONO99", "ONO99"]


# --- helpers ------------------------------------------------------------------------------------
def ramp(final_hands: Sequence[Sequence[str]], more: Sequence[str] = (), **kwargs: Any) -> Game:
    """A 1980 ``tests.stacking.ramp``."""
    return _ramp(final_hands, more, edition="1980", **kwargs)


def game1980(
    hands: Sequence[Sequence[str]],
    draw_top: Sequence[str] = (),
    **options: Any,
) -> Game:
    return stacked_game(hands, draw_top, edition="1980", **options)


def ended(events: Sequence[Event]) -> list[HandEnded]:
    return [e for e in events if isinstance(e, HandEnded)]


def legal_cards(game: Game) -> set[Card | None]:
    return {a.card for a in game.legal_actions()}


# --- deck and players ---------------------------------------------------------------------------
def test_deck_has_54_cards() -> None:
    deck = new_deck(Edition.E1980)
    assert len(deck) == 54
    expected = {**{Card(v): 3 for v in range(2, 10)}, Card.N10: 10, Card.HOLD: 4, Card.REVERSE: 6,
                Card.MINUS_TEN: 4, Card.DOUBLE: 2, Card.ONO99: 4}
    assert Counter(deck) == expected
    assert DECK_COUNTS[Edition.E1980] == expected
    game = Game(TableOptions(Edition.E1980), 3, random.Random(5))
    assert sum(len(game.hand_of(s)) for s in range(3)) + len(game.draw_pile()) == 54


def test_no_zero_or_one_cards() -> None:
    deck = new_deck(Edition.E1980)
    assert Card.N0 not in deck
    assert Card.N1 not in deck
    assert Card.PLAY2 not in deck


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 7, 8])
def test_two_to_eight_players(seats: int) -> None:
    game = Game(TableOptions(Edition.E1980), seats, random.Random(seats))
    assert all(len(game.hand_of(s)) == 4 for s in range(seats))


@pytest.mark.parametrize("seats", [1, 9])
def test_fewer_than_two_or_more_than_eight_players_refused(seats: int) -> None:
    with pytest.raises(OptionError, match="2 to 8"):
        Game(TableOptions(Edition.E1980), seats, random.Random(0))


# --- cards --------------------------------------------------------------------------------------
def test_hold_adds_nothing_and_passes_the_turn() -> None:
    game = game1980([["5", "2", "2", "2"], ["HOLD", "3", "3", "3"], ["4", "4", "4", "HOLD"]])
    act(game, 0, "5")
    events = act(game, 1, "HOLD")
    assert played(events) == [Played(1, (Card.HOLD,), 5)]
    assert game.total == 5
    assert game.turn == 2
    assert game.direction == 1


def test_reverse_flips_direction() -> None:
    game = game1980([["REV", "2", "2", "2"], ["3", "3", "3", "5"], ["4", "4", "4", "HOLD"]])
    events = act(game, 0, "REV")
    assert played(events) == [Played(0, (Card.REVERSE,), 0)]
    assert game.direction == -1
    assert game.turn == 2
    act(game, 2, "4")
    assert game.turn == 1


def test_reverse_acts_as_hold_with_two_players() -> None:
    game = game1980([["5", "3", "2", "2"], ["REV", "4", "4", "4"]])
    act(game, 0, "5")
    events = act(game, 1, "REV")
    assert played(events) == [Played(1, (Card.REVERSE,), 5)]
    assert game.total == 5
    assert game.turn == 0
    assert game.direction == 1  # like a Hold: nothing flips
    act(game, 0, "3")
    assert game.turn == 1


def test_minus_ten_may_go_negative() -> None:
    game = game1980([["6", "-10", "2", "2"], ["-10", "3", "3", "3"]])
    act(game, 0, "6")
    events = act(game, 1, "-10")
    assert played(events) == [Played(1, (Card.MINUS_TEN,), -4)]
    assert game.total == -4
    act(game, 0, "-10")
    assert game.total == -14


# --- losing a hand ------------------------------------------------------------------------------
def test_reaching_99_is_illegal_by_default() -> None:
    game = ramp([["9", "8", "HOLD", "2"], ["3", "3", "3", "4"], ["5", "5", "5", "6"]], rounds=3)
    assert game.total == 90
    assert legal_cards(game) == {Card.N8, Card.HOLD, Card.N2}
    assert game.why_unplayable(0, Card.N9) == "9 would make 99"
    with pytest.raises(IllegalActionError, match="9 would make 99"):
        act(game, 0, "9")
    events = act(game, 0, "8")
    assert played(events) == [Played(0, (Card.N8,), 98)]


def test_player_who_cannot_play_without_reaching_99_loses_the_hand() -> None:
    game = ramp([["HOLD", "2", "2", "2"], ["9", "9", "9", "10"], ["3", "3", "3", "4"]], rounds=3)
    events = act(game, 0, "HOLD")
    assert Out(1) in events
    assert ended(events) == [HandEnded(0, 1, (3, 2, 3), None, None, ())]


def test_bust_over_99_makes_99_legal_and_100_not() -> None:
    game = ramp(
        [["9", "10", "HOLD", "2"], ["2", "3", "4", "5"], ["5", "5", "6", "6"]],
        rounds=3, bust_over_99=True,
    )
    assert Card.N9 in legal_cards(game)
    assert Card.N10 not in legal_cards(game)
    assert game.why_unplayable(0, Card.N10) == "10 would make 100"
    events = act(game, 0, "9")
    assert played(events) == [Played(0, (Card.N9,), 99)]
    # seat 1 holds only number cards: every one goes over 99, so it loses the hand
    assert Out(1) in events
    assert ended(events)[0].loser == 1


# --- double play --------------------------------------------------------------------------------
DOUBLE_HANDS = [
    ["DOUBLE", "2", "2", "2"],
    ["5", "6", "HOLD", "REV"],
    ["4", "4", "4", "HOLD"],
]


def test_double_play_next_player_takes_two_complete_turns() -> None:
    game = game1980(DOUBLE_HANDS, ["7", "8", "9"])
    events = act(game, 0, "DOUBLE")
    assert played(events) == [Played(0, (Card.DOUBLE,), 0)]
    assert game.turn == 1
    assert obligation(game) == Obligation(1, 2, True)
    events = act(game, 1, "5")
    assert events == (Played(1, (Card.N5,), 5), Drew(1, Card.N8))  # a complete turn
    assert game.turn == 1
    act(game, 1, "6")
    assert game.total == 11
    assert game.turn == 2
    assert obligation(game) is None
    act(game, 2, "4")
    assert game.turn == 0


def test_double_play_dodged_with_hold() -> None:
    game = game1980(DOUBLE_HANDS, ["7", "8", "9"])
    act(game, 0, "DOUBLE")
    events = act(game, 1, "HOLD")
    assert len(played(events)) == 1
    assert game.turn == 2
    assert obligation(game) == Obligation(2, 2, True)
    act(game, 2, "4")
    assert game.turn == 2
    act(game, 2, "4")
    assert game.turn == 0


def test_double_play_dodged_with_reverse() -> None:
    game = game1980(DOUBLE_HANDS, ["7", "8", "9"])
    act(game, 0, "DOUBLE")
    act(game, 1, "REV")
    assert game.direction == -1
    assert game.turn == 0
    assert obligation(game) == Obligation(0, 2, True)
    act(game, 0, "2")
    assert game.turn == 0
    act(game, 0, "2")
    assert game.turn == 2


def test_double_play_not_allowed_as_first_card() -> None:
    game = game1980([["DOUBLE", "2", "2", "2"], ["DOUBLE", "5", "6", "3"], ["4", "4", "4", "HOLD"]])
    act(game, 0, "DOUBLE")
    assert Card.DOUBLE not in legal_cards(game)
    assert game.why_unplayable(1, Card.DOUBLE) == "Double Play cannot be the first of your two turns"
    with pytest.raises(IllegalActionError, match="Double Play cannot be the first"):
        act(game, 1, "DOUBLE")
    assert game.turn == 1 and game.total == 0


def test_double_play_allowed_as_second_card() -> None:
    game = game1980([["DOUBLE", "2", "2", "2"], ["DOUBLE", "5", "6", "3"], ["4", "4", "4", "HOLD"]])
    act(game, 0, "DOUBLE")
    act(game, 1, "5")
    assert Card.DOUBLE in legal_cards(game)
    act(game, 1, "DOUBLE")
    assert game.turn == 2
    assert obligation(game) == Obligation(2, 2, True)
    act(game, 2, "4")
    assert game.turn == 2


# --- the O'NO 99 card ---------------------------------------------------------------------------
def test_ono99_never_playable_by_default() -> None:
    game = game1980([["ONO99", "5", "2", "2"], ["3", "3", "3", "4"]])
    assert game.total == 0  # a total ending in 0 does not help without the option
    assert legal_cards(game) == {Card.N5, Card.N2}
    assert game.why_unplayable(0, Card.ONO99) == "O'NO 99 cannot be played"
    with pytest.raises(IllegalActionError):
        act(game, 0, "ONO99")


def test_hand_of_only_ono99_has_no_legal_play_and_no_four_card_discard() -> None:
    game = game1980(
        [FOUR_ONO99, ["2", "2", "2", "3"]],
        later_hands=[([["5", "5", "6", "6"], ["2", "2", "2", "3"]], [])],
    )
    # seat 0 starts with four O'NO 99 cards: it loses the first hand before anyone plays
    first_hand = game.hands_log[0].events
    assert [type(e) for e in first_hand] == [HandStarted, Out, HandEnded]
    assert first_hand[1] == Out(0)
    assert game.hand_index == 1
    assert game.view(None).tokens == (2, 3)
    with pytest.raises(IllegalActionError):
        game.apply(0, DISCARD_FOUR)


def test_ono99_on_zero_playable_when_total_ends_in_zero() -> None:
    game = game1980(
        [["ONO99", "ONO99", "5", "2"], ["ONO99", "5", "3", "2"]], ["3", "3"], ono99_on_zero=True
    )
    assert Card.ONO99 in legal_cards(game)
    events = act(game, 0, "ONO99")
    assert played(events) == [Played(0, (Card.ONO99,), 0)]  # adds 0
    act(game, 1, "5")
    assert game.total == 5
    assert Card.ONO99 not in legal_cards(game)
    assert game.why_unplayable(0, Card.ONO99) == "O'NO 99 can only be played when the total ends in 0"
    act(game, 0, "5")
    assert game.total == 10
    assert Card.ONO99 in legal_cards(game)
    events = act(game, 1, "ONO99")
    assert played(events) == [Played(1, (Card.ONO99,), 10)]


def test_ono99_on_zero_playable_at_negative_total() -> None:
    game = game1980(
        [["-10", "ONO99", "2", "2"], ["ONO99", "3", "3", "3"]], ["4", "4"], ono99_on_zero=True
    )
    act(game, 0, "-10")
    assert game.total == -10
    assert Card.ONO99 in legal_cards(game)
    events = act(game, 1, "ONO99")
    assert played(events) == [Played(1, (Card.ONO99,), -10)]  # adds 0
    assert Card.ONO99 in legal_cards(game)
    act(game, 0, "2")
    act(game, 1, "3")
    assert game.total == -5
    assert Card.ONO99 not in legal_cards(game)
    assert game.why_unplayable(0, Card.ONO99) == "O'NO 99 can only be played when the total ends in 0"


def test_ono99_sets_99() -> None:
    game = game1980(
        [["ONO99", "5", "2", "2"], ["5", "-10", "HOLD", "2"]],
        bust_over_99=True, ono99_sets_99=True,
    )
    assert Card.ONO99 in legal_cards(game)
    events = act(game, 0, "ONO99")
    assert played(events) == [Played(0, (Card.ONO99,), 99)]
    assert game.total == 99
    assert legal_cards(game) == {Card.MINUS_TEN, Card.HOLD}
    act(game, 1, "-10")
    assert game.total == 89


# --- manual draw --------------------------------------------------------------------------------
def test_manual_draw_player_draws_with_the_draw_action() -> None:
    game = game1980(
        [["5", "2", "2", "2"], ["3", "3", "3", "4"], ["4", "4", "6", "6"]], ["9"], manual_draw=True
    )
    events = act(game, 0, "5")
    assert events == (Played(0, (Card.N5,), 5),)  # no automatic draw
    assert len(game.hand_of(0)) == 3
    assert game.has_open_draw(0)
    assert game.legal_actions(0) == (DRAW,)
    assert set(game.actors()) == {0, 1}
    events = game.apply(0, DRAW)
    assert events == (Drew(0, Card.N9),)
    assert len(game.hand_of(0)) == 4
    assert not game.has_open_draw(0)
    assert game.actors() == (1,)


def test_manual_draw_lost_when_next_player_plays_first() -> None:
    game = game1980(
        [["5", "4", "3", "2"], ["3", "2", "4", "5"]],
        ["9", "ONO99", "6", "ONO99", "7", "ONO99"],
        manual_draw=True,
        later_hands=[([["5", "5", "6", "6"], ["7", "7", "8", "8"]], ["2", "3"])],
    )
    act(game, 0, "5")
    events = act(game, 1, "3")  # seat 0 has not drawn yet
    assert MissedDraw(0) in events
    assert not game.has_open_draw(0)
    assert len(game.hand_of(0)) == 3
    assert game.view(None).missed_draws == (1, 0)
    with pytest.raises(IllegalActionError):
        game.apply(0, DRAW)
    game.apply(1, DRAW)
    # the rest of the hand seat 0 holds only three cards
    act(game, 0, "4")
    game.apply(0, DRAW)
    assert sorted(game.hand_of(0)) == cards("2", "3", "ONO99")
    act(game, 1, "2")
    game.apply(1, DRAW)
    act(game, 0, "3")
    game.apply(0, DRAW)
    assert len(game.hand_of(0)) == 3
    act(game, 1, "4")
    game.apply(1, DRAW)
    act(game, 0, "2")
    game.apply(0, DRAW)
    assert sorted(game.hand_of(0)) == cards("ONO99", "ONO99", "ONO99")
    events = act(game, 1, "5")  # seat 0 can't play: it loses the hand
    assert Out(0) in events
    assert ended(events)[0].loser == 0
    # the next hand is dealt in full and drawn back to four
    assert game.hand_index == 1
    assert game.view(None).missed_draws == (0, 0)
    assert len(game.hand_of(0)) == 4
    act(game, 0, "5")
    game.apply(0, DRAW)
    assert len(game.hand_of(0)) == 4


def test_manual_draw_seat_on_turn_must_draw_before_its_second_card() -> None:
    game = game1980(DOUBLE_HANDS, ["7", "8", "9"], manual_draw=True)
    act(game, 0, "DOUBLE")
    game.apply(0, DRAW)
    act(game, 1, "5")
    assert game.turn == 1
    assert game.has_open_draw(1)
    assert game.legal_actions() == (DRAW,)
    with pytest.raises(IllegalActionError, match="draw"):
        act(game, 1, "6")
    assert game.total == 5
    events = game.apply(1, DRAW)
    assert events == (Drew(1, Card.N8),)
    act(game, 1, "6")
    assert game.total == 11
    assert game.turn == 2


# --- tokens -------------------------------------------------------------------------------------
def test_scoring_is_tokens_by_default_three_each() -> None:
    game = Game(TableOptions(Edition.E1980), 3, random.Random(2))
    assert game.view(None).tokens == (3, 3, 3)
    assert game.view(None).scores is None


def token_loss_game(**options: Any) -> Game:
    """Three players; seat 1 holds four O'NO 99 cards and loses hand 0 on its first turn."""
    return game1980(
        [["5", "2", "2", "2"], FOUR_ONO99, ["3", "3", "3", "4"]],
        later_hands=[([["5", "5", "6", "6"], ["7", "7", "8", "8"], ["2", "2", "3", "3"]], [])],
        **options,
    )


def test_hand_loser_loses_one_token() -> None:
    game = token_loss_game()
    events = act(game, 0, "5")
    assert Out(1) in events
    assert ended(events) == [HandEnded(0, 1, (3, 2, 3), None, None, ())]
    assert game.view(None).tokens == (3, 2, 3)
    assert game.view(None).active == (True, True, True)


def test_hand_ends_the_moment_one_player_has_no_legal_play() -> None:
    game = token_loss_game()
    events = act(game, 0, "5")
    kinds = [type(e) for e in events]
    assert kinds.index(Out) < kinds.index(HandEnded) < kinds.index(HandStarted)
    assert len(played(events)) == 1  # nobody else played in hand 0
    assert game.hand_index == 1


def test_loser_starts_next_hand() -> None:
    game = token_loss_game()
    act(game, 0, "5")
    assert game.hands_log[1].first == 1
    assert game.turn == 1


def test_each_hand_restarts_total_zero_clockwise() -> None:
    game = game1980(
        [["9", "5", "2", "2"], ["REV", "3", "3", "3"], FOUR_ONO99],
        later_hands=[([["5", "5", "6", "6"], ["7", "7", "8", "8"], ["2", "2", "3", "3"]], [])],
    )
    act(game, 0, "9")
    act(game, 1, "REV")
    assert game.direction == -1
    events = act(game, 0, "5")  # 14, counter-clockwise to seat 2, who cannot play
    assert ended(events)[0].loser == 2
    # all cards collected and dealt again
    assert game.hand_index == 1
    assert game.total == 0
    assert game.direction == 1
    assert game.turn == 2
    assert game.discard_pile() == ()
    assert all(len(game.hand_of(s)) == 4 for s in range(3))
    assert len(game.draw_pile()) == 54 - 12
    assert sorted(game.hand_of(2)) == cards("2", "2", "3", "3")
    act(game, 2, "2")
    assert game.turn == 0  # clockwise again


def test_fourth_loss_eliminates() -> None:
    # seat 0 starts every hand with four O'NO 99 cards, so it loses every hand at once
    game = game1980([FOUR_ONO99, ["2", "2", "2", "3"]])
    hands_ended = [e for e in game.log if isinstance(e, HandEnded)]
    assert [(e.loser, e.tokens, e.eliminated) for e in hands_ended] == [
        (0, (2, 3), ()),
        (0, (1, 3), ()),
        (0, (0, 3), ()),
        (0, (0, 3), (0,)),
    ]


def test_out_at_zero_tokens_eliminates_at_the_third_loss() -> None:
    game = game1980([FOUR_ONO99, ["2", "2", "2", "3"]], out_at_zero_tokens=True)
    hands_ended = [e for e in game.log if isinstance(e, HandEnded)]
    assert [(e.loser, e.tokens, e.eliminated) for e in hands_ended] == [
        (0, (2, 3), ()),
        (0, (1, 3), ()),
        (0, (0, 3), (0,)),
    ]
    assert game.outcome is not None and game.outcome.winner == 1


def test_last_player_left_wins_the_match() -> None:
    game = game1980([FOUR_ONO99, ["2", "2", "2", "3"]])
    assert game.outcome is not None
    assert game.outcome.winner == 1
    assert game.outcome.ranking == (1, 0)
    assert game.log[-1] == GameOver(1)
    assert game.turn is None


def test_eliminated_loser_next_active_seat_clockwise_starts() -> None:
    # seat 2 starts (dealer 1) and loses four hands in a row; seat 0 is next after it
    game = game1980(
        [["5", "5", "6", "6"], ["2", "2", "3", "3"], FOUR_ONO99], dealer=1
    )
    assert [log.first for log in game.hands_log] == [2, 2, 2, 2, 0]
    assert game.view(None).active == (True, True, False)
    assert game.outcome is None
    assert game.turn == 0
    assert game.hand_of(2) == ()


# --- points -------------------------------------------------------------------------------------
def points_hand(target: int = 1000, points_win: str = "last_standing") -> Game:
    """Three players at 90 in a points match, seat 0 on turn. Seat 1 drops out after seat 0's
    Hold; seat 0 drops out at 95; the hand then ends with seat 2 alone. Points of the hand:
    seat 0: 8 + 8 + O'NO 99 20 + 6 + 25 = 67, seat 1: 9 + 9 + 9 + 10 + 25 = 62,
    seat 2: 7 + 7 + Double Play 15 + 5 = 34."""
    return ramp(
        [["HOLD", "8", "8", "8"], ["9", "9", "9", "10"], ["-10", "7", "7", "7"]],
        ["ONO99", "DOUBLE", "6", "5"],
        rounds=3, scoring="points", points_target=target, points_win=points_win,
    )


def play_points_hand(game: Game) -> tuple[Event, ...]:
    """Play ``points_hand`` to its end; the events of the last play."""
    act(game, 0, "HOLD")
    act(game, 2, "-10")
    act(game, 0, "8")
    return act(game, 2, "7")


def test_points_drop_out_keeps_cards_and_total_stays() -> None:
    game = points_hand()
    events = act(game, 0, "HOLD")
    assert Out(1) in events
    assert sorted(game.hand_of(1)) == cards("9", "9", "9", "10")
    assert game.total == 90
    assert game.view(None).in_hand == (True, False, True)
    assert game.view(None).active == (True, True, True)
    assert not ended(events)
    assert game.turn == 2


def test_points_hand_goes_on_until_one_player_is_left() -> None:
    game = points_hand()
    act(game, 0, "HOLD")
    act(game, 2, "-10")
    assert game.turn == 0  # seat 1 is out of this hand
    assert game.hand_index == 0
    act(game, 0, "8")
    events = act(game, 2, "7")  # 95: seat 0 cannot play; seat 2 is alone
    assert Out(0) in events
    assert [e.hand for e in ended(events)] == [0]
    assert game.hand_index == 1


def test_points_scores_cards_left_in_hand_and_drop_out_penalty() -> None:
    game = points_hand()
    events = play_points_hand(game)
    (end,) = ended(events)
    assert end.hand_points == (67, 62, 34)
    assert end.scores == (67, 62, 34)
    assert game.view(None).scores == (67, 62, 34)


def test_points_card_values() -> None:
    # seat 0 ends holding Hold, Reverse, Minus Ten, Double Play (15 each); seat 1 drops out
    # holding 9, 9, 9, O'NO 99
    game = ramp(
        [["10", "HOLD", "REV", "-10"], ["9", "9", "9", "ONO99"]], ["DOUBLE"],
        rounds=4, scoring="points",
    )
    events = act(game, 0, "10")
    assert Out(1) in events
    (end,) = ended(events)
    assert end.hand_points == (15 * 4, 9 * 3 + 20 + 25)


def test_points_no_drop_out_penalty_for_hand_of_only_ono99() -> None:
    game = game1980(
        [["5", "2", "2", "2"], FOUR_ONO99], ["4"], scoring="points",
        later_hands=[([["5", "5", "6", "6"], ["7", "7", "8", "8"]], [])],
    )
    events = act(game, 0, "5")
    assert Out(1) in events
    (end,) = ended(events)
    assert end.hand_points == (2 + 2 + 2 + 4, 4 * 20)


def test_points_missed_draw_costs_15() -> None:
    game = ramp(
        [["2", "10", "10", "ONO99"], ["9", "3", "3", "3"]],
        rounds=4, scoring="points", manual_draw=True,
    )
    act(game, 0, "2")  # 82, and seat 0 does not draw
    events = act(game, 1, "9")  # 91: seat 0 lost its draw and cannot play
    assert MissedDraw(0) in events
    assert Out(0) in events
    (end,) = ended(events)
    assert end.hand_points is not None
    assert end.hand_points[0] == 10 + 10 + 20 + 15 + 25


def test_points_first_to_drop_out_starts_next_hand() -> None:
    game = points_hand()
    events = play_points_hand(game)
    assert ended(events)[0].loser == 1
    assert game.hands_log[1].first == 1
    assert game.turn == 1
    assert game.total == 0


def test_points_last_standing_reaching_target_eliminates() -> None:
    game = points_hand(target=65)
    events = play_points_hand(game)
    (end,) = ended(events)
    assert end.eliminated == (0,)
    assert game.view(None).active == (False, True, True)
    assert game.outcome is None
    assert game.hand_index == 1


def test_points_last_standing_last_player_left_wins() -> None:
    game = points_hand(target=60)
    events = play_points_hand(game)
    (end,) = ended(events)
    assert sorted(end.eliminated) == [0, 1]
    assert game.outcome is not None
    assert game.outcome.winner == 2
    assert events[-1] == GameOver(2)


def test_points_last_standing_all_reach_target_lowest_wins() -> None:
    game = ramp(
        [["10", "HOLD", "REV", "-10"], ["9", "9", "9", "ONO99"]], ["DOUBLE"],
        rounds=4, scoring="points", points_target=50,
    )
    act(game, 0, "10")  # seat 0 scores 60, seat 1 scores 72: both reach 50
    assert game.outcome is not None
    assert game.outcome.winner == 0
    assert game.outcome.scores == (60, 72)


def test_points_lowest_score_ends_match_when_anyone_reaches_target() -> None:
    game = points_hand(target=65, points_win="lowest_score")
    events = play_points_hand(game)
    assert game.outcome is not None
    assert game.outcome.winner == 2
    assert game.outcome.scores == (67, 62, 34)
    assert game.outcome.ranking == (2, 1, 0)
    assert events[-1] == GameOver(2)


def test_points_seats_eliminated_together_rank_by_their_scores() -> None:
    """Seats 0 (67) and 1 (62) reach the target of 60 in the same hand, seat 2 (34) is left and
    wins: seat 1, with fewer points, ranks before seat 0; the view and its wire form carry it."""
    game = points_hand(target=60)
    play_points_hand(game)
    assert game.outcome is not None
    assert game.outcome.scores == (67, 62, 34)
    assert game.outcome.winner == 2
    assert game.outcome.ranking == (2, 1, 0)
    assert game.view(None).ranking == (2, 1, 0)
    assert view_to_wire(game.view(0))["ranking"] == [2, 1, 0]


@pytest.mark.parametrize("points_win", ["last_standing", "lowest_score"])
def test_points_tie_goes_clockwise_from_first_player_of_last_hand(points_win: str) -> None:
    # dealer 0: seat 1 plays first. Seat 1 ends with O'NO 99, O'NO 99, Hold, 7 = 62; seat 0 drops
    # out with 9, 9, 9, 10 = 37 + 25 = 62. Seat 1 comes first clockwise from seat 1.
    game = ramp(
        [["9", "9", "9", "10"], ["10", "ONO99", "ONO99", "HOLD"]], ["7"],
        rounds=4, dealer=0, scoring="points", points_target=50, points_win=points_win,
    )
    assert game.hands_log[-1].first == 1
    events = act(game, 1, "10")
    assert Out(0) in events
    assert game.outcome is not None
    assert game.outcome.scores == (62, 62)
    assert game.outcome.winner == 1
