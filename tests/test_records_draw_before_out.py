"""Records written by hand in which, under ``manual_draw``, the player who just played takes their
draw before the next seat is declared out, where that out ends the hand or the game (an out is not
a play and ends no open draw). ``records check`` accepts them and scores the cards the record shows;
it still refuses what the rules forbid around them.

The records are spelled out here card by card, not written by the engine: the deal, the top of the
draw pile and every event are chosen in the test, and only the bookkeeping (the running total, the
card on top of the pile) is done by ``_HandWriter``.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.core import RecordError
from ono99_kernel.core.cards import Edition, new_deck
from ono99_kernel.core.record import dumps, event_to_json, replay

ZERO_EFFECT = {"HOLD", "REV", "DOUBLE", "PLAY2", "ONO99"}


class _HandWriter:
    """One hand of a record: a deal, a draw pile (the given top cards, then the rest of the deck),
    and the events added one by one."""

    def __init__(self, edition: str, dealer: int, first: int, dealt: list[list[str]], pile_top: list[str]) -> None:
        rest = Counter(c.code for c in new_deck(Edition(edition)))
        rest.subtract(code for hand in dealt for code in hand)
        rest.subtract(pile_top)
        assert all(n >= 0 for n in rest.values()), rest
        self.pile = list(pile_top) + sorted(rest.elements())
        self.hand: dict[str, Any] = {"dealer": dealer, "first": first, "dealt": dealt,
                                     "draw_pile": list(self.pile), "events": []}
        self.total = 0
        self.discard: list[str] = []

    def play(self, seat: int, code: str) -> _HandWriter:
        self.total += 0 if code in ZERO_EFFECT else int(code)
        self.discard.append(code)
        self.hand["events"].append({"e": "play", "seat": seat, "cards": [code], "total": self.total})
        return self

    def draw(self, seat: int) -> _HandWriter:
        self.hand["events"].append({"e": "draw", "seat": seat, "card": self.pile.pop(0)})
        return self

    def reshuffle(self) -> _HandWriter:
        assert not self.pile
        self.pile, self.discard = self.discard[:-1], self.discard[-1:]
        self.hand["events"].append({"e": "reshuffle", "draw_pile": list(self.pile)})
        return self

    def out(self, seat: int) -> _HandWriter:
        self.hand["events"].append({"e": "out", "seat": seat})
        return self


def _hand_lost_at_90(edition: str, loser: int, other: int, *, draw_before_out: bool = True) -> dict[str, Any]:
    """Two seats holding four 10s each; ``loser`` plays first. Tens take the total to 90 in nine
    plays, ``other`` plays a zero (Hold in 1980, 0 in 2022) and draws its 5 before ``loser`` is
    declared out: ``loser`` then holds 10, 9, 9, 9 and each would make 99 or more."""
    zero = "HOLD" if edition == "1980" else "0"
    dealt: list[list[str]] = [[], []]
    dealt[loser] = ["10", "10", "10", "10"]
    dealt[other] = ["10", "10", "10", "10"]
    hand = _HandWriter(edition, dealer=other, first=loser, dealt=dealt,
                       pile_top=["10", zero, "10", "2", "9", "3", "9", "4", "9", "5"])
    for _ in range(4):
        hand.play(loser, "10").draw(loser).play(other, "10").draw(other)
    hand.play(loser, "10").draw(loser).play(other, zero)
    if draw_before_out:
        hand.draw(other)  # the 5, taken before the next seat is declared out
    hand.out(loser)
    return hand.hand


def _record(edition: str, options: dict[str, Any], hands: list[dict[str, Any]], result: dict[str, Any] | None,
            players: int = 2) -> dict[str, Any]:
    return {"format": "ono99-record/1", "edition": edition, "options": {"manual_draw": True, **options},
            "seed": None, "players": [{"name": f"P{i}", "kind": "human"} for i in range(players)],
            "hands": hands, "result": result}


def points_record(*, draw_before_out: bool = True) -> dict[str, Any]:
    """1980 points, target 100: seat 1 drops out of two hands holding 37 (+25) each; seat 0 holds
    2, 3, 4 and the 5 it drew before seat 1 went out."""
    hands = [_hand_lost_at_90("1980", 1, 0, draw_before_out=draw_before_out) for _ in range(2)]
    scores = [28, 124] if draw_before_out else [18, 124]
    return _record("1980", {"scoring": "points"}, hands, {"winner": 0, "tokens": None, "scores": scores})


def tokens_record() -> dict[str, Any]:
    """1980 tokens: seat 1 loses four hands (the fourth with no token left eliminates it)."""
    hands = [_hand_lost_at_90("1980", 1, 0) for _ in range(4)]
    return _record("1980", {"scoring": "tokens"}, hands, {"winner": 0, "tokens": [3, 0], "scores": None})


def record_2022() -> dict[str, Any]:
    """2022, two players: seat 1's out eliminates it and ends the game, after seat 0 drew."""
    return _record("2022", {}, [_hand_lost_at_90("2022", 1, 0)], {"winner": 0, "tokens": None, "scores": None})


@pytest.mark.parametrize("make", [points_record, tokens_record, record_2022])
def test_a_draw_before_the_out_that_ends_the_hand_is_accepted(make: Any) -> None:
    record = make()
    replayed = replay(record)
    outcome = replayed.game.outcome
    assert outcome is not None and outcome.winner == 0
    # the draw was taken: seat 0 holds the 5 it drew before seat 1 went out
    assert sorted(c.code for c in replayed.game.hand_of(0)) == ["2", "3", "4", "5"]


def test_points_count_the_card_drawn_before_the_out() -> None:
    """The same two hands without that draw are faithful too (the engine's own order), and score
    5 less per hand for seat 0; a record with the draw but the draw-less scores is refused."""
    with_draw, without = replay(points_record()).game.outcome, replay(points_record(draw_before_out=False)).game.outcome
    assert with_draw is not None and without is not None
    assert with_draw.scores == (28, 124) and without.scores == (18, 124)
    wrong = points_record()
    wrong["result"]["scores"] = [18, 124]
    with pytest.raises(RecordError, match="scores"):
        replay(wrong)


def test_a_reshuffle_then_a_draw_then_the_out_that_ends_the_hand_is_accepted() -> None:
    """1980 tokens, eight seats: 22 draws empty the pile; seat 7's last play leaves seat 0 at 89
    holding four 10s; the discard pile is reshuffled, seat 7 draws, then seat 0 is out and loses
    the hand. (The match goes on: the next deal is given and the record is read as unfinished.)"""
    plays = {1: ["2"] * 3, 2: ["3"] * 3, 3: ["4"] * 3, 4: ["5"] * 3, 5: ["6"] * 3, 6: ["7"] * 3,
             7: ["8", "HOLD", "HOLD"]}
    dealt = [["10", "10", "HOLD", "HOLD"]] + [[*plays[s], "REV"] for s in range(1, 7)] + [[*plays[7], "DOUBLE"]]
    # the pile's 22 cards: seat 0 draws the two other 10s (its 2nd and 4th draw), the rest hold no play
    others = ["9", "9", "9", "8", "8", "10", "10", "10", "10", "-10", "-10", "-10", "-10", "DOUBLE",
              "ONO99", "ONO99", "ONO99", "ONO99", "10", "10"]
    pile_top = [*others[:7], "10", *others[7:14], "10", *others[14:]]
    hand = _HandWriter("1980", dealer=0, first=1, dealt=dealt, pile_top=pile_top)
    for turn in range(3):
        for seat in range(1, 8):
            hand.play(seat, plays[seat][turn])
            if turn == 2 and seat == 7:
                hand.reshuffle()
            hand.draw(seat)
            if seat == 7 and turn < 2:
                hand.play(0, "HOLD").draw(0)
    hand.out(0)
    assert hand.total == 89
    assert [e["e"] for e in hand.hand["events"][-4:]] == ["play", "reshuffle", "draw", "out"]
    following = _HandWriter("1980", dealer=7, first=0, dealt=[["2", "2", "2", "3"]] + [
        [code] * 4 for code in ["10", "HOLD", "REV", "ONO99", "-10"]] + [["3", "3", "4", "4"], ["4", "5", "5", "5"]],
        pile_top=[])
    record = _record("1980", {"scoring": "tokens"}, [hand.hand, following.hand], None, players=8)
    replayed = replay(record, allow_unfinished=True)
    game = replayed.game
    assert game.hand_index == 1 and game.turn == 0
    assert list(game.view(0).tokens or ()) == [2, 3, 3, 3, 3, 3, 3, 3]
    drawn = hand.hand["events"][-2]["card"]
    assert drawn == "2"  # the first card played in the hand, on top of the reshuffled pile
    replayed_events = [event_to_json(e) for e in game.hands_log[0].events]
    assert [e for e in replayed_events if e is not None] == hand.hand["events"]  # in the record's own order


# --- what stays refused ------------------------------------------------------------------------------
def _events(record: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = record["hands"][0]["events"]
    return events


def _refused(record: dict[str, Any]) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(record)
    return info.value


def test_an_early_missed_draw_before_the_out_is_refused() -> None:
    """Tried: a missed draw of seat 0 written after its draw and before the out (it owes none), and
    one of seat 0 written before its last play (its own play cannot cost it a draw)."""
    after_draw = points_record()
    _events(after_draw).insert(len(_events(after_draw)) - 1, {"e": "missed_draw", "seat": 0})
    error = _refused(after_draw)
    assert (error.hand, error.event) == (0, len(_events(after_draw)) - 2) and "cannot happen here" in error.reason
    before_play = points_record()
    last_play = len(_events(before_play)) - 3
    _events(before_play).insert(last_play, {"e": "missed_draw", "seat": 0})
    error = _refused(before_play)
    assert (error.hand, error.event) == (0, last_play)
    assert "cannot lose a draw" in error.reason


def test_a_draw_never_owed_is_refused() -> None:
    """Tried: seat 1 (which drew after its last play) drawing again before its out; seat 0 drawing
    twice; the drawn card not the top of the pile; the draw written after the out that ended the hand."""
    out_seat = points_record()
    _events(out_seat).insert(len(_events(out_seat)) - 1, {"e": "draw", "seat": 1, "card": "ONO99"})
    error = _refused(out_seat)
    assert error.event == len(_events(out_seat)) - 2 and "seat 1 has no draw to take" in error.reason
    twice = points_record()
    _events(twice).insert(len(_events(twice)) - 1, {"e": "draw", "seat": 0, "card": "ONO99"})
    error = _refused(twice)
    assert error.event == len(_events(twice)) - 2 and "seat 0 has no draw to take" in error.reason
    wrong_card = points_record()
    _events(wrong_card)[-2]["card"] = "6"
    error = _refused(wrong_card)
    assert error.event == len(_events(wrong_card)) - 2 and "the rules give a draw of 5" in error.reason
    after_out = points_record(draw_before_out=False)
    _events(after_out).append({"e": "draw", "seat": 0, "card": "5"})
    error = _refused(after_out)
    assert error.event == len(_events(after_out)) - 1 and "hand is over" in error.reason


def test_an_out_the_rules_do_not_give_after_the_draw_is_refused() -> None:
    """Tried: the out given to seat 0 (which holds 2, 3, 4, 5 at 90 and can play)."""
    record = points_record()
    _events(record)[-1]["seat"] = 0
    error = _refused(record)
    assert error.event == len(_events(record)) - 1 and "the rules give seat 1 out here" in error.reason


def test_records_check_accepts_the_hand_written_records(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(dumps(make()) + "\n" for make in (points_record, tokens_record, record_2022)))
    out = subprocess.run([sys.executable, "-m", "ono99_tui.cli", "records", "check", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "3 records checked: 3 valid, 0 faulty"
