"""Bad input: every refused action raises the right error with a clear message and changes
nothing (a full snapshot of the game is compared before and after)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from ono99_kernel.core import (
    DISCARD_FOUR,
    DRAW,
    Action,
    ActionKind,
    Card,
    Game,
    IllegalActionError,
    MalformedActionError,
    play,
)
from tests.stacking import stacked_game


# --- helpers ------------------------------------------------------------------------------------
def snapshot(game: Game) -> dict[str, Any]:
    """Everything observable about a game."""
    seats = range(game.seats)
    return {
        "views": [game.view(s) for s in seats],
        "spectator": game.view(None),
        "hands": [game.hand_of(s) for s in seats],
        "draw_pile": game.draw_pile(),
        "discard_pile": game.discard_pile(),
        "out_of_play": game.out_of_play(),
        "version": game.version,
        "log": list(game.log),
        "hands_log": [(h.dealer, h.first, h.dealt, h.draw_pile, list(h.events)) for h in game.hands_log],
        "turn": game.turn,
        "turns": game.turns,
        "total": game.total,
        "direction": game.direction,
        "outcome": game.outcome,
        "legal": game.legal_actions(),
        "legal_per_seat": [game.legal_actions(s) for s in seats],
        "open_draws": [game.has_open_draw(s) for s in seats],
        "actors": game.actors(),
        "hand_index": game.hand_index,
    }


def assert_refused(
    game: Game,
    attempt: Callable[[], object],
    error: type[Exception],
    match: str,
) -> None:
    """``attempt`` raises ``error`` with a message matching ``match`` and the game is unchanged."""
    before = snapshot(game)
    with pytest.raises(error, match=match) as info:
        attempt()
    assert str(info.value).strip()
    assert isinstance(info.value, ValueError)
    after = snapshot(game)
    for key in before:
        assert after[key] == before[key], f"{key} changed"


def act(game: Game, seat: int, code: str) -> None:
    game.apply(seat, Action.parse(code))


def fresh() -> Game:
    """Two players, 2022, seat 0 on turn holding 5, 7, ONO 99, ONO 99."""
    return stacked_game([["5", "7", "ONO99", "ONO99"], ["4", "4", "REV", "PLAY2"]])


def ramp_2p(final_hands: Sequence[Sequence[str]], more: Sequence[str] = ()) -> Game:
    """Two players, 2022, each has played four tens: total 80, seat 0 on turn."""
    draws = [final_hands[s][k] for k in range(4) for s in (0, 1)]
    game = stacked_game([["10"] * 4, ["10"] * 4], [*draws, *more])
    for _ in range(4):
        for seat in (0, 1):
            game.apply(seat, play(Card.N10))
    return game


def at_94() -> Game:
    """Two players, total 94, seat 0 on turn holding 3, 7, ONO 99, ONO 99."""
    game = ramp_2p([["10", "3", "ONO99", "ONO99"], ["4", "1", "1", "1"]], ["7"])
    act(game, 0, "10")
    act(game, 1, "4")
    assert game.total == 94 and game.turn == 0
    return game


def finished() -> Game:
    """A 2022 game that is over: seat 1 was eliminated at 90, seat 0 won."""
    game = ramp_2p([["10", "3", "ONO99", "ONO99"], ["9", "9", "10", "ONO99"]])
    act(game, 0, "10")
    assert game.outcome is not None and game.outcome.winner == 0
    return game


def manual_draw_open() -> Game:
    """1980, manual draw, three players: seat 0 played 5 and has not drawn; seat 1 on turn."""
    game = stacked_game(
        [["5", "DOUBLE", "2", "2"], ["3", "3", "4", "HOLD"], ["6", "6", "7", "7"]],
        edition="1980", manual_draw=True,
    )
    act(game, 0, "5")
    assert game.has_open_draw(0) and game.turn == 1
    return game


# --- wrong seat ---------------------------------------------------------------------------------
def test_playing_out_of_turn_is_illegal() -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(1, play(Card.N4)), IllegalActionError,
                   "seat 0's turn, not seat 1's")


@pytest.mark.parametrize("seat", [-1, 2, 3, 99, -100])
def test_seat_out_of_range_is_malformed(seat: int) -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(seat, play(Card.N5)), MalformedActionError,
                   "seat must be a number from 0 to 1")


@pytest.mark.parametrize("seat", ["0", 0.0, None, True, False, [0], Card.N0])
def test_seat_of_wrong_type_is_malformed(seat: object) -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(seat, play(Card.N5)),  # type: ignore[arg-type]  # a wrong type on purpose
                   MalformedActionError, "seat must be a number")


@pytest.mark.parametrize(
    "query",
    [
        lambda g, s: g.hand_of(s),
        lambda g, s: g.seat_view(s),
        lambda g, s: g.has_open_draw(s),
        lambda g, s: g.why_unplayable(s, Card.N5),
        lambda g, s: g.legal_actions(s),
    ],
    ids=["hand_of", "seat_view", "has_open_draw", "why_unplayable", "legal_actions"],
)
@pytest.mark.parametrize("seat", [-1, 2, "0", 0.0, False, 1.5])
def test_queries_refuse_bad_seats(query: Callable[[Game, object], object], seat: object) -> None:
    game = fresh()  # seat 0 on turn: 0.0 and False compare equal to it
    assert_refused(game, lambda: query(game, seat), MalformedActionError, "seat must be a number")


# --- not an action ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "action",
    ["5", Card.N5, 5, None, {"kind": "play", "card": "5"}, (ActionKind.PLAY, Card.N5), ActionKind.DRAW],
    ids=["code", "card", "int", "none", "dict", "plain-tuple", "kind"],
)
def test_non_action_objects_are_malformed(action: object) -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(0, action),  # type: ignore[arg-type]  # a wrong type on purpose
                   MalformedActionError, "not an action")


@pytest.mark.parametrize(
    "action",
    [
        Action(ActionKind.PLAY, None),
        Action(ActionKind.PLAY, "5"),  # type: ignore[arg-type]  # a wrong type on purpose
        Action(ActionKind.PLAY, 5),  # type: ignore[arg-type]  # a wrong type on purpose
        Action("play", Card.N5),  # type: ignore[arg-type]  # a wrong type on purpose
    ],
    ids=["play-no-card", "play-code", "play-int", "kind-as-text"],
)
def test_actions_with_malformed_fields_are_malformed(action: Action) -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(0, action), MalformedActionError, ".")


# --- unknown codes ------------------------------------------------------------------------------
@pytest.mark.parametrize("code", ["11", "J", "rev", "Rev", " 7", "7 ", "", "-0", "ONO 99", 7, None, 1.0])
def test_unknown_card_code_is_malformed(code: object) -> None:
    with pytest.raises(MalformedActionError, match="unknown card code") as info:
        Card.from_code(code)
    message = str(info.value)
    assert repr(code) in message
    assert "REV" in message and "ONO99" in message  # lists the known codes


@pytest.mark.parametrize("text", ["ONO99x3", "DRAW", "Draw", "discard", "", "play 7", None, 7])
def test_action_parse_unknown_code_is_malformed(text: object) -> None:
    with pytest.raises(MalformedActionError, match="unknown card code"):
        Action.parse(text)


def test_action_parse_known_codes() -> None:
    assert Action.parse("7") == play(Card.N7)
    assert Action.parse("-10") == play(Card.MINUS_TEN)
    assert Action.parse("ONO99x4") == DISCARD_FOUR
    assert Action.parse("draw") == DRAW
    for card in Card:
        assert Action.parse(card.code) == play(card)
        assert Card.from_code(card.code) is card


@pytest.mark.parametrize("card", ["7", 7, None, Action(ActionKind.PLAY, Card.N7)])
def test_play_of_non_card_is_malformed(card: object) -> None:
    with pytest.raises(MalformedActionError, match="not a card"):
        play(card)  # type: ignore[arg-type]  # a wrong type on purpose


@pytest.mark.parametrize("card", ["7", 7, None])
def test_why_unplayable_of_non_card_is_malformed(card: object) -> None:
    game = fresh()
    assert_refused(game, lambda: game.why_unplayable(0, card),  # type: ignore[arg-type]  # a wrong type on purpose
                   MalformedActionError, "not a card")


# --- illegal actions ----------------------------------------------------------------------------
@pytest.mark.parametrize(("card", "label"), [(Card.N9, "9"), (Card.REVERSE, "Reverse"),
                                             (Card.HOLD, "Hold"), (Card.DOUBLE, "Double Play")])
def test_playing_a_card_not_in_hand_is_illegal(card: Card, label: str) -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(0, play(card)), IllegalActionError,
                   f"{label} is not in your hand")


def test_playing_a_card_that_busts_is_illegal() -> None:
    game = at_94()
    assert_refused(game, lambda: game.apply(0, play(Card.N7)), IllegalActionError, "7 would make 101")


def test_playing_a_single_ono99_is_illegal() -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(0, play(Card.ONO99)), IllegalActionError, "four of a kind")


def test_four_card_discard_without_four_ono99_is_illegal() -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(0, DISCARD_FOUR), IllegalActionError,
                   "needs four ONO 99 cards")


def test_four_card_discard_on_1980_table_is_illegal() -> None:
    game = stacked_game([["5", "2", "2", "2"], ["3", "3", "3", "4"]], edition="1980")
    assert_refused(game, lambda: game.apply(0, DISCARD_FOUR), IllegalActionError, "2022 rule")


def test_drawing_without_an_open_draw_is_illegal() -> None:
    game = fresh()
    assert_refused(game, lambda: game.apply(0, DRAW), IllegalActionError, "seat 0 has no draw to take")
    assert_refused(game, lambda: game.apply(1, DRAW), IllegalActionError, "seat 1 has no draw to take")


def test_drawing_under_manual_draw_without_an_open_draw_is_illegal() -> None:
    game = manual_draw_open()
    assert_refused(game, lambda: game.apply(1, DRAW), IllegalActionError, "seat 1 has no draw to take")
    assert_refused(game, lambda: game.apply(2, DRAW), IllegalActionError, "seat 2 has no draw to take")


def test_playing_out_of_turn_with_an_open_draw_is_illegal() -> None:
    game = manual_draw_open()
    assert_refused(game, lambda: game.apply(0, play(Card.DOUBLE)), IllegalActionError,
                   "seat 1's turn, not seat 0's")


def test_playing_before_drawing_on_turn_is_illegal() -> None:
    game = manual_draw_open()
    game.apply(0, DRAW)
    act(game, 1, "HOLD")
    game.apply(1, DRAW)
    act(game, 2, "6")
    game.apply(2, DRAW)
    act(game, 0, "DOUBLE")  # seat 1 must play two cards
    game.apply(0, DRAW)
    act(game, 1, "3")  # first card; seat 1 has not drawn yet
    assert game.turn == 1 and game.has_open_draw(1)
    assert_refused(game, lambda: game.apply(1, play(Card.N3)), IllegalActionError,
                   "draw your cards first")


def test_eliminated_player_cannot_act() -> None:
    game = stacked_game([["10", "10", "10", "0"], ["10", "10", "10", "9"], ["10", "10", "10", "2"]],
                        ["1", "9", "2", "1", "9", "2", "1", "10", "2"])
    for _ in range(3):
        for seat in range(3):
            game.apply(seat, play(Card.N10))
    # total 90; seat 1 holds 9, 9, 9, 10 and is eliminated after seat 0's play
    act(game, 0, "0")
    assert game.view(None).active == (True, False, True)
    assert game.legal_actions(1) == ()
    assert_refused(game, lambda: game.apply(1, play(Card.N9)), IllegalActionError, "seat 2's turn")


# --- after the game is over ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "action", [play(Card.N3), play(Card.ONO99), DISCARD_FOUR, DRAW], ids=["3", "ONO99", "four", "draw"]
)
@pytest.mark.parametrize("seat", [0, 1])
def test_acting_after_game_over_is_illegal(action: Action, seat: int) -> None:
    game = finished()
    assert_refused(game, lambda: game.apply(seat, action), IllegalActionError, "the game is over")


def test_reshuffle_after_game_over_is_illegal() -> None:
    game = finished()
    assert_refused(game, lambda: game.reshuffle_now([]), IllegalActionError, "the game is over")


def test_game_over_still_refuses_malformed_input_as_malformed() -> None:
    game = finished()
    assert_refused(game, lambda: game.apply(5, play(Card.N3)), MalformedActionError, "seat must be")
    assert_refused(game, lambda: game.apply(0, "3"),  # type: ignore[arg-type]  # a wrong type on purpose
                   MalformedActionError, "not an action")


def test_reshuffle_with_cards_left_in_draw_pile_is_illegal() -> None:
    game = fresh()
    act(game, 0, "5")
    assert_refused(game, lambda: game.reshuffle_now([]), IllegalActionError, "draw pile still holds")


def test_refused_action_leaves_the_game_playable() -> None:
    game = at_94()
    with pytest.raises(IllegalActionError):
        game.apply(0, play(Card.N7))
    with pytest.raises(MalformedActionError):
        game.apply(0, "7")  # type: ignore[arg-type]  # a wrong type on purpose
    act(game, 0, "3")
    assert game.total == 97
    assert game.turn == 1
