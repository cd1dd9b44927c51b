"""docs/rules.md, the 2022 edition. One test per rule, named after it."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest

from ono99_kernel.core import (
    DECK_COUNTS,
    DISCARD_FOUR,
    Action,
    ActionKind,
    Card,
    Drew,
    Edition,
    Game,
    GameOver,
    HandStarted,
    IllegalActionError,
    Obligation,
    OptionError,
    Out,
    Played,
    Reshuffled,
    TableOptions,
    Unplayable,
    new_deck,
    play,
)
from tests.stacking import act, cards, obligation, played, ramp, stacked_game

N10 = Card.N10


# --- helpers ------------------------------------------------------------------------------------
def two_players_at_ninety(s1_hand: Sequence[str], more: Sequence[str] = ()) -> Game:
    """Two players, total 90, seat 1 on turn holding ``s1_hand``; seat 0 holds 3, ONO 99, ONO 99
    and then the first card of ``more``."""
    game = ramp([["10", "3", "ONO99", "ONO99"], s1_hand], more, rounds=4)
    act(game, 0, "10")
    assert game.total == 90
    return game


def three_players_at_ninety(
    final_hands: Sequence[Sequence[str]], more: Sequence[str] = ()
) -> Game:
    """Three players, total 90, seat 0 on turn."""
    return ramp(final_hands, more, rounds=3)


def assert_cards_conserved(game: Game) -> None:
    everything: Counter[Card] = Counter()
    for seat in range(game.seats):
        everything.update(game.hand_of(seat))
    everything.update(game.draw_pile())
    everything.update(game.discard_pile())
    everything.update(game.out_of_play())
    assert everything == Counter(new_deck(game.options.edition))


# --- deck ---------------------------------------------------------------------------------------
def test_deck_has_112_cards() -> None:
    deck = new_deck(Edition.E2022)
    assert len(deck) == 112
    expected = {Card.N0: 8, **{Card(v): 6 for v in range(1, 10)}, Card.N10: 10, Card.REVERSE: 10,
                Card.MINUS_TEN: 10, Card.PLAY2: 10, Card.ONO99: 10}
    assert Counter(deck) == expected
    assert DECK_COUNTS[Edition.E2022] == expected
    assert Card.HOLD not in deck and Card.DOUBLE not in deck


def test_game_is_played_with_the_whole_112_card_deck() -> None:
    game = Game(TableOptions(), 4, random.Random(3))
    assert sum(len(game.hand_of(s)) for s in range(4)) + len(game.draw_pile()) == 112
    assert_cards_conserved(game)


# --- players, setup -----------------------------------------------------------------------------
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_two_to_six_players(seats: int) -> None:
    game = Game(TableOptions(), seats, random.Random(0))
    assert game.seats == seats


@pytest.mark.parametrize("seats", [1, 7, 8])
def test_more_than_six_or_fewer_than_two_players_refused_without_house_rule(seats: int) -> None:
    with pytest.raises(OptionError, match="2 to 6"):
        Game(TableOptions(), seats, random.Random(0))


@pytest.mark.parametrize("seats", [7, 8])
def test_eight_players_house_rule_allows_up_to_eight(seats: int) -> None:
    opts = TableOptions.from_mapping("2022", {"eight_players": True})
    game = Game(opts, seats, random.Random(1))
    assert all(len(game.hand_of(s)) == 4 for s in range(seats))
    assert len(game.draw_pile()) == 112 - 4 * seats
    with pytest.raises(OptionError, match="2 to 8"):
        Game(opts, 9, random.Random(1))


def test_dealer_is_chosen_at_random() -> None:
    dealers = {Game(TableOptions(), 4, random.Random(seed)).hands_log[0].dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}


def test_each_player_is_dealt_four_cards_only_they_may_see() -> None:
    game = Game(TableOptions(), 4, random.Random(7))
    for seat in range(4):
        view = game.seat_view(seat)
        assert len(view.hand) == 4
        assert view.hand == game.hand_of(seat)
        started = [e for e in view.recent_events if isinstance(e, HandStarted)]
        assert len(started) == 1
        assert started[0].hands[seat] == game.hand_of(seat)
        assert all(h is None for s, h in enumerate(started[0].hands) if s != seat)
        assert started[0].draw_pile is None
    spectator = game.view(None)
    assert getattr(spectator, "hand", ()) == ()
    for event in spectator.recent_events:
        if isinstance(event, HandStarted):
            assert all(h is None for h in event.hands)
            assert event.draw_pile is None


def test_total_starts_at_zero_with_empty_discard_pile() -> None:
    game = Game(TableOptions(), 3, random.Random(11))
    assert game.total == 0
    assert game.discard_pile() == ()
    view = game.view(None)
    assert view.total == 0 and view.discard_size == 0 and view.top_card is None
    assert view.draw_pile_size == 112 - 12


@pytest.mark.parametrize(("dealer", "first"), [(0, 1), (1, 2), (2, 3), (3, 0)])
def test_dealer_left_starts_clockwise(dealer: int, first: int) -> None:
    hands = [["1", "2", "3", "4"]] * 4
    game = stacked_game(hands, dealer=dealer)
    assert game.turn == first
    assert game.direction == 1
    assert game.hands_log[0].dealer == dealer and game.hands_log[0].first == first
    act(game, first, "1")
    assert game.turn == (first + 1) % 4
    act(game, (first + 1) % 4, "2")
    assert game.turn == (first + 2) % 4


def test_dealer_left_starts_with_random_dealer() -> None:
    for seed in range(10):
        game = Game(TableOptions(), 5, random.Random(seed))
        log = game.hands_log[0]
        assert log.first == (log.dealer + 1) % 5 == game.turn


# --- a turn -------------------------------------------------------------------------------------
def test_turn_plays_one_card_then_draws_back_to_four() -> None:
    game = stacked_game([["5", "1", "2", "3"], ["4", "4", "4", "4"]], ["9", "8"])
    events = act(game, 0, "5")
    assert events == (Played(0, (Card.N5,), 5), Drew(0, Card.N9))
    assert sorted(game.hand_of(0)) == cards("1", "2", "3", "9")
    assert game.total == 5
    assert game.discard_pile() == (Card.N5,)
    assert game.turn == 1


def test_plus_zero_play_still_announces_the_total() -> None:
    game = stacked_game([["7", "1", "2", "3"], ["0", "4", "4", "4"]])
    act(game, 0, "7")
    events = act(game, 1, "0")
    assert played(events) == [Played(1, (Card.N0,), 7)]
    assert game.total == 7


# --- legal plays --------------------------------------------------------------------------------
def test_play_must_keep_total_at_98_or_less() -> None:
    game = two_players_at_ninety(["8", "9", "10", "0"])
    assert set(game.legal_actions()) == {play(Card.N8), play(Card.N0)}
    with pytest.raises(IllegalActionError, match="10 would make 100"):
        act(game, 1, "10")
    act(game, 1, "8")
    assert game.total == 98


def test_reaching_99_exactly_is_illegal() -> None:
    game = two_players_at_ninety(["8", "9", "10", "0"])
    assert play(Card.N9) not in game.legal_actions()
    assert game.why_unplayable(1, Card.N9) == "9 would make 99"
    with pytest.raises(IllegalActionError, match="9 would make 99"):
        act(game, 1, "9")
    assert game.total == 90 and game.turn == 1


def test_reverse_play2_and_minus_ten_are_always_legal() -> None:
    game = two_players_at_ninety(["8", "REV", "PLAY2", "-10"], more=["REV", "7"])
    act(game, 1, "8")
    assert game.total == 98
    assert game.legal_actions() == (play(Card.REVERSE),)  # 3 and the ONO 99s are not
    act(game, 0, "REV")
    assert game.total == 98
    assert set(game.legal_actions()) == {play(Card.REVERSE), play(Card.PLAY2), play(Card.MINUS_TEN)}
    act(game, 1, "-10")
    assert game.total == 88


def test_minus_ten_subtracts_ten() -> None:
    game = stacked_game([["9", "1", "2", "3"], ["6", "-10", "4", "4"]])
    act(game, 0, "9")
    act(game, 1, "6")
    events = act(game, 0, "1")
    assert game.total == 16
    events = act(game, 1, "-10")
    assert played(events) == [Played(1, (Card.MINUS_TEN,), 6)]


def test_minus_ten_never_goes_below_zero() -> None:
    game = stacked_game([["4", "-10", "1", "1"], ["-10", "2", "2", "2"]])
    act(game, 0, "4")
    events = act(game, 1, "-10")
    assert played(events) == [Played(1, (Card.MINUS_TEN,), 0)]
    assert game.total == 0
    assert play(Card.MINUS_TEN) in game.legal_actions()
    events = act(game, 0, "-10")
    assert played(events) == [Played(0, (Card.MINUS_TEN,), 0)]
    assert game.total == 0


def test_ono99_never_playable_alone() -> None:
    game = stacked_game([["ONO99", "ONO99", "ONO99", "5"], ["1", "1", "1", "1"]])
    assert game.legal_actions() == (play(Card.N5),)
    reason = game.why_unplayable(0, Card.ONO99)
    assert reason is not None and "four" in reason
    with pytest.raises(IllegalActionError, match="four of a kind"):
        act(game, 0, "ONO99")
    assert game.total == 0 and game.turn == 0 and len(game.hand_of(0)) == 4


def test_unplayable_card_reason_says_what_it_would_make() -> None:
    game = two_players_at_ninety(["4", "1", "1", "1"], more=["7"])
    act(game, 1, "4")
    assert game.total == 94
    assert sorted(game.hand_of(0)) == cards("3", "7", "ONO99", "ONO99")
    assert game.why_unplayable(0, Card.N7) == "7 would make 101"
    entry = Unplayable(Card.N7, "would_make", (("card", 7), ("total", 101)), "7 would make 101")
    assert entry in game.seat_view(0).unplayable
    assert game.why_unplayable(0, Card.N3) is None
    with pytest.raises(IllegalActionError, match="7 would make 101"):
        act(game, 0, "7")


# --- elimination --------------------------------------------------------------------------------
def eliminating_position() -> Game:
    """Three players at 90, seat 0 on turn; seat 1 holds 9, 9, 10, ONO 99 (no legal play at 90)."""
    return three_players_at_ninety(
        [["0", "5", "5", "5"], ["9", "9", "10", "ONO99"], ["-10", "0", "REV", "0"]]
    )


def test_no_legal_play_eliminates_hand_goes_out_of_play() -> None:
    game = eliminating_position()
    events = act(game, 0, "0")
    assert Out(1) in events
    assert game.hand_of(1) == ()
    assert sorted(game.out_of_play()) == cards("9", "9", "10", "ONO99")
    assert game.view(None).active == (True, False, True)
    assert game.total == 90  # the eliminated player played nothing
    assert len(played(events)) == 1
    assert game.turn == 2
    assert_cards_conserved(game)


def test_elimination_happens_only_on_turn() -> None:
    game = eliminating_position()
    # seat 1 cannot play at 90, but it is not on turn: still in the game
    assert game.view(None).active == (True, True, True)
    assert game.out_of_play() == ()
    events = act(game, 0, "0")
    assert [e for e in events if isinstance(e, Out)] == [Out(1)]


def test_nobody_chooses_to_bust() -> None:
    # seat 1 holds one legal card (8) among cards that would bust: it must play it, never bust
    game = two_players_at_ninety(["8", "9", "9", "9"])
    assert game.legal_actions() == (play(Card.N8),)
    assert all(a.kind is ActionKind.PLAY for a in game.legal_actions())
    assert game.view(None).active == (True, True)


def test_eliminated_player_is_skipped() -> None:
    game = eliminating_position()
    act(game, 0, "0")  # seat 1 out
    assert game.turn == 2
    act(game, 2, "-10")
    assert game.turn == 0
    act(game, 0, "5")
    assert game.turn == 2
    assert game.legal_actions(1) == ()
    with pytest.raises(IllegalActionError):
        act(game, 1, "9")
    act(game, 2, "0")
    assert game.turn == 0


def test_last_player_left_wins() -> None:
    game = two_players_at_ninety(["8", "9", "9", "9"], more=["9"])
    act(game, 1, "8")  # 98: seat 0 holds 3, 9, ONO 99, ONO 99 and is out
    assert game.outcome is not None
    assert game.outcome.winner == 1
    assert game.outcome.ranking == (1, 0)
    assert game.log[-1] == GameOver(1)
    assert game.turn is None
    assert game.legal_actions() == ()


def test_last_player_left_wins_among_three() -> None:
    game = three_players_at_ninety(
        [["0", "5", "5", "5"], ["9", "9", "10", "ONO99"], ["REV", "9", "9", "9"]], more=["0", "9"]
    )
    act(game, 0, "0")  # seat 1 out
    assert game.outcome is None
    act(game, 2, "REV")  # two left: acts as 0, seat 0 next; seat 2 draws a 9
    assert game.turn == 0
    events = act(game, 0, "5")  # 95: seat 2 holds four 9s and is out
    assert Out(2) in events
    assert events[-1] == GameOver(0)
    assert game.outcome is not None
    assert game.outcome.winner == 0
    assert game.outcome.ranking == (0, 2, 1)


# --- reverse ------------------------------------------------------------------------------------
def test_reverse_flips_direction() -> None:
    game = stacked_game([["REV", "1", "1", "1"], ["2", "2", "2", "2"], ["REV", "3", "3", "3"],
                         ["4", "4", "4", "4"]])
    events = act(game, 0, "REV")
    assert played(events) == [Played(0, (Card.REVERSE,), 0)]
    assert game.direction == -1
    assert game.turn == 3
    act(game, 3, "4")
    assert game.turn == 2
    act(game, 2, "REV")
    assert game.direction == 1
    assert game.turn == 3


def test_reverse_with_two_players_acts_as_zero() -> None:
    game = stacked_game([["5", "3", "1", "1"], ["REV", "2", "2", "2"]])
    act(game, 0, "5")
    events = act(game, 1, "REV")
    assert played(events) == [Played(1, (Card.REVERSE,), 5)]
    assert game.total == 5
    assert game.turn == 0
    assert game.direction == 1  # like a 0: nothing flips
    act(game, 0, "3")
    assert game.turn == 1


def test_reverse_with_two_players_left_acts_as_zero() -> None:
    game = eliminating_position()
    act(game, 0, "0")  # seat 1 out: two players left
    events = act(game, 2, "REV")
    assert played(events) == [Played(2, (Card.REVERSE,), 90)]
    assert game.direction == 1
    assert game.turn == 0


# --- play 2 -------------------------------------------------------------------------------------
PLAY2_HANDS = [
    ["PLAY2", "1", "2", "3"],
    ["5", "6", "REV", "PLAY2"],
    ["4", "REV", "PLAY2", "2"],
]


def test_play2_next_player_plays_two_cards() -> None:
    game = stacked_game(PLAY2_HANDS, ["0", "9", "8", "7"])
    act(game, 0, "PLAY2")
    assert game.turn == 1
    assert obligation(game) == Obligation(1, 2, True)
    events = act(game, 1, "5")
    assert events == (Played(1, (Card.N5,), 5), Drew(1, Card.N9))  # announced, drew back to 4
    assert len(game.hand_of(1)) == 4
    assert game.turn == 1
    act(game, 1, "6")
    assert game.total == 11
    assert game.turn == 2
    assert obligation(game) is None
    act(game, 2, "4")  # no obligation: one card only
    assert game.turn == 0


def test_play2_view_shows_the_second_card_is_due() -> None:
    """Between the two cards the obliged player is still on turn; the view's obligation says so
    (``Obligation.plays_left`` 1: the second card is due, no longer passable)."""
    game = stacked_game(PLAY2_HANDS, ["0", "9"])
    act(game, 0, "PLAY2")
    act(game, 1, "5")
    assert game.turn == 1
    assert obligation(game) == Obligation(1, 1, False)
    assert game.seat_view(1).obligation == Obligation(1, 1, False)


def test_play2_response_with_reverse_sends_it_back() -> None:
    game = stacked_game(PLAY2_HANDS, ["0", "0"])
    act(game, 0, "PLAY2")
    events = act(game, 1, "REV")
    assert len(played(events)) == 1
    assert game.direction == -1
    assert game.turn == 0
    assert obligation(game) == Obligation(0, 2, True)
    act(game, 0, "1")
    assert game.turn == 0
    act(game, 0, "2")
    assert game.turn == 2  # counter-clockwise now


def test_play2_reverse_response_with_two_players_goes_to_the_other_player() -> None:
    game = stacked_game([["PLAY2", "1", "2", "3"], ["REV", "5", "5", "5"]], ["0", "0"])
    act(game, 0, "PLAY2")
    act(game, 1, "REV")
    assert game.turn == 0
    assert obligation(game) == Obligation(0, 2, True)
    act(game, 0, "1")
    assert game.turn == 0
    act(game, 0, "2")
    assert game.turn == 1
    assert obligation(game) is None


def test_play2_response_with_play2_passes_on() -> None:
    game = stacked_game(PLAY2_HANDS, ["0", "0"])
    act(game, 0, "PLAY2")
    events = act(game, 1, "PLAY2")
    assert len(played(events)) == 1
    assert game.turn == 2
    assert game.direction == 1
    assert obligation(game) == Obligation(2, 2, True)
    act(game, 2, "4")
    assert game.turn == 2
    act(game, 2, "2")
    assert game.turn == 0


def test_play2_obligations_never_stack() -> None:
    hands = [["PLAY2", "1", "2", "3"], ["PLAY2", "REV", "5", "6"], ["REV", "PLAY2", "4", "2"]]
    game = stacked_game(hands, ["0"] * 8)
    act(game, 0, "PLAY2")
    act(game, 1, "PLAY2")  # to seat 2
    act(game, 2, "REV")  # back to seat 1, counter-clockwise
    assert game.turn == 1
    act(game, 1, "REV")  # back to seat 2, clockwise
    assert game.turn == 2
    act(game, 2, "PLAY2")  # on to seat 0
    assert game.turn == 0
    assert obligation(game) == Obligation(0, 2, True)  # still two cards, not more
    act(game, 0, "1")
    assert game.turn == 0
    act(game, 0, "2")
    assert game.turn == 1
    assert obligation(game) is None
    act(game, 1, "5")
    assert game.turn == 2


def test_play2_as_second_card_obliges_next() -> None:
    game = stacked_game(PLAY2_HANDS, ["0", "0", "0"])
    act(game, 0, "PLAY2")
    act(game, 1, "5")
    act(game, 1, "PLAY2")
    assert game.turn == 2
    assert obligation(game) == Obligation(2, 2, True)
    act(game, 2, "4")
    assert game.turn == 2


def test_reverse_as_second_card_of_play2_just_flips_direction() -> None:
    game = stacked_game(PLAY2_HANDS, ["0", "0", "0"])
    act(game, 0, "PLAY2")
    act(game, 1, "5")
    act(game, 1, "REV")
    assert game.direction == -1
    assert game.turn == 0
    assert obligation(game) is None
    act(game, 0, "1")
    assert game.turn == 2


def test_play2_obliged_player_with_no_first_play_is_eliminated_and_obligation_lapses() -> None:
    game = three_players_at_ninety(
        [["PLAY2", "5", "5", "5"], ["9", "9", "10", "ONO99"], ["0", "0", "0", "0"]]
    )
    events = act(game, 0, "PLAY2")
    assert Out(1) in events
    assert game.view(None).active == (True, False, True)
    assert game.turn == 2
    assert obligation(game) is None
    act(game, 2, "0")  # one card only
    assert game.turn == 0


def test_play2_no_second_play_eliminates_and_first_card_stays() -> None:
    game = three_players_at_ninety(
        [["PLAY2", "5", "5", "5"], ["8", "9", "9", "ONO99"], ["0", "0", "0", "0"]],
        more=["0", "9"],
    )
    act(game, 0, "PLAY2")
    events = act(game, 1, "8")  # first card: 98; draws a 9 and has no legal second card
    assert played(events) == [Played(1, (Card.N8,), 98)]
    assert Out(1) in events
    assert game.total == 98
    assert game.discard_pile()[-1] is Card.N8
    assert sorted(game.out_of_play()) == cards("9", "9", "9", "ONO99")
    assert game.turn == 2
    assert obligation(game) is None
    act(game, 2, "0")
    assert game.turn == 0


# --- ONO 99 four-card discard -------------------------------------------------------------------
def test_four_ono99_discard_keeps_total_and_draws_four() -> None:
    game = stacked_game(
        [["7", "1", "1", "1"], ["ONO99", "ONO99", "ONO99", "ONO99"]], ["0", "5", "6", "REV", "-10"]
    )
    act(game, 0, "7")
    assert game.legal_actions() == (DISCARD_FOUR,)
    events = game.apply(1, DISCARD_FOUR)
    assert events[0] == Played(1, (Card.ONO99,) * 4, 7)
    assert [e for e in events if isinstance(e, Drew)] == [
        Drew(1, c) for c in cards("5", "6", "REV", "-10")
    ]
    assert game.total == 7
    assert sorted(game.hand_of(1)) == sorted(cards("5", "6", "REV", "-10"))
    assert game.discard_pile() == (Card.N7, *[Card.ONO99] * 4)
    assert game.turn == 0


def test_four_ono99_discard_counts_as_one_of_two_plays_under_play2() -> None:
    game = stacked_game(
        [["PLAY2", "1", "1", "1"], ["ONO99", "ONO99", "ONO99", "ONO99"], ["2", "2", "2", "2"]],
        ["0", "5", "6", "7", "8"],
    )
    act(game, 0, "PLAY2")
    assert game.legal_actions() == (DISCARD_FOUR,)
    game.apply(1, DISCARD_FOUR)
    assert game.total == 0
    assert game.turn == 1  # not a response: the second card is still due
    assert game.direction == 1
    act(game, 1, "5")
    assert game.turn == 2
    assert obligation(game) is None


# --- draw pile ----------------------------------------------------------------------------------
def _cautious(game: Game, action: Action) -> tuple[int, int]:
    """Sort key of a player who keeps the total low (used to run a game to a reshuffle)."""
    if action.kind is ActionKind.DISCARD_FOUR:
        return (0, 0)
    card = action.card
    assert card is not None
    if card is Card.MINUS_TEN:
        return (1, 0) if game.total >= 50 else (7, 0)
    order = {Card.N0: 2, Card.REVERSE: 3, Card.PLAY2: 4}
    return (order[card], 0) if card in order else (5, int(card))


def test_reshuffle_keeps_total_and_top_card() -> None:
    """Eight-player games (house rule) often run through the 80-card draw pile: find one where a
    player was eliminated before the reshuffle and check the reshuffle there."""
    opts = TableOptions.from_mapping("2022", {"eight_players": True})
    for seed in range(100):
        game = Game(opts, 8, random.Random(seed))
        while not game.is_over:
            discard_before = game.discard_pile()
            out_before = game.out_of_play()
            seat = game.turn
            assert seat is not None
            action = min(game.legal_actions(), key=lambda a: _cautious(game, a))
            events = game.apply(seat, action)
            reshuffles = [i for i, e in enumerate(events) if isinstance(e, Reshuffled)]
            if not reshuffles:
                continue
            if not out_before or any(isinstance(e, Out) for e in events):
                break  # want an earlier elimination and none in this step: try another game
            event = events[reshuffles[0]]
            assert isinstance(event, Reshuffled)
            play_event = played(events)[0]
            # the total is kept: the same number before and after
            assert game.total == play_event.total
            # the top card (just played) stays as the discard pile's face card
            assert game.discard_pile() == play_event.cards
            # the new draw pile is the rest of the discard pile
            assert event.draw_pile is not None
            assert Counter(event.draw_pile) == Counter(discard_before)
            drawn_after = [e.card for e in events[reshuffles[0]:] if isinstance(e, Drew)]
            assert Counter(game.draw_pile()) + Counter(drawn_after) == Counter(discard_before)
            # cards of eliminated players stay out of play
            assert game.out_of_play() == out_before
            assert_cards_conserved(game)
            return
    pytest.fail("no eight-player game in 100 reached a reshuffle after an elimination")


def test_no_card_to_draw_holds_fewer_cards() -> None:
    """No real deal empties both piles (hands and eliminated hands hold at most 32 of 112 cards),
    so the position is built by setting the whole draw pile aside (out of play)."""
    game = stacked_game([["1", "2", "3", "4"], ["5", "6", "7", "8"]])
    game._out_of_play.extend(game._draw)
    game._draw.clear()
    events = act(game, 0, "1")  # nothing to draw, and no discard pile under the top card
    assert events == (Played(0, (Card.N1,), 1),)
    assert sorted(game.hand_of(0)) == cards("2", "3", "4")
    assert game.turn == 1
    events = act(game, 1, "5")  # a reshuffle can now supply one card
    assert any(isinstance(e, Reshuffled) for e in events)
    assert Drew(1, Card.N1) in events
    assert len(game.hand_of(1)) == 4
    assert len(game.hand_of(0)) == 3  # still short until seat 0 can draw
    act(game, 0, "2")  # one card (the 5) can be drawn now
    assert sorted(game.hand_of(0)) == cards("3", "4", "5")
    assert game.total == 8
    assert_cards_conserved(game)
