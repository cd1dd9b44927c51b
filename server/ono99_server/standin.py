"""Stand-ins: the moves a bot made for a human's seat, and the rule for crediting such a game.

A stand-in plays for a seat while its player is away (dropped, or gone for good with the seat
handed to a bot) and when their turn clock runs out. The table notes each such span of the game
as positions in the game's record: ``{"from": [hand, event], "to": [hand, event]}``, the record's
``hands[hand].events[event]`` where the stand-in took over and the one where the player was back
(half open; ``to`` is the end of the record when the player was away at the end).

The rule (docs/server.md): a finished game counts as played for every human seat's player, but a
win is credited only if the player was at the table when the game ended and made at least half
of their seat's plays themselves. A game never goes uncounted because its player left it. The
ratings apply the same rule to the player's place in the game (server/ono99_server/ratings.py).
"""

from __future__ import annotations

from typing import Any

from ono99_kernel.core.game import Game
from ono99_kernel.core.record import event_to_json

Span = dict[str, Any]


def record_position(game: Game) -> list[int]:
    """Where the next event will go in the game's record: [hand, event index in that hand]."""
    hand = len(game.hands_log) - 1
    events = sum(1 for e in game.hands_log[-1].events if event_to_json(e) is not None) if hand >= 0 else 0
    return [max(hand, 0), events]


def open_span(spans: list[Span], game: Game) -> None:
    if not spans or spans[-1]["to"] is not None:
        spans.append({"from": record_position(game), "to": None})


def one_move_span(game: Game) -> Span:
    """The span of the one move about to be made (a turn clock ran out)."""
    hand, event = record_position(game)
    return {"from": [hand, event], "to": [hand, event + 1]}


def close_span(spans: list[Span], game: Game) -> None:
    if spans and spans[-1]["to"] is None:
        spans[-1]["to"] = record_position(game)
        if spans[-1]["to"] == spans[-1]["from"]:  # away without missing a move: nothing to note
            spans.pop()


def is_open(spans: list[Span]) -> bool:
    return bool(spans) and spans[-1]["to"] is None


def _inside(position: tuple[int, int], span: Span) -> bool:
    return tuple(span["from"]) <= position < tuple(span["to"])


def plays_by_stand_in(record: dict[str, Any], seat: int, spans: list[Span]) -> tuple[int, int]:
    """(the seat's plays in the record, those of them inside a stand-in span)."""
    plays = by_stand_in = 0
    for h, hand in enumerate(record["hands"]):
        for e, event in enumerate(hand["events"]):
            if event.get("e") == "play" and event.get("seat") == seat:
                plays += 1
                by_stand_in += any(_inside((h, e), span) for span in spans)
    return plays, by_stand_in


def settle(record: dict[str, Any], players: list[dict[str, Any]], stand_in: list[list[Span]],
           end: list[int]) -> list[tuple[str, bool]]:
    """Close the spans still open (their players were away at the end), write them into the
    record's player entries, and return the stats of the game: (identity, win credited) for each
    human seat whose player has an identity. ``end`` is the record's end position. Each human
    seat's entry of ``players`` gets ``credited``: whether the rule credits the player (server/ono99_server/ratings.py
    credits their place in the game by it)."""
    results = []
    winner = record["result"]["winner"] if record.get("result") else None
    for seat, player in enumerate(players):
        spans = stand_in[seat] if seat < len(stand_in) else []
        away_at_end = is_open(spans)
        if away_at_end:
            spans[-1]["to"] = list(end)
        if spans:
            record["players"][seat]["stand_in"] = [{"from": list(s["from"]), "to": list(s["to"])} for s in spans]
        if player.get("kind") != "human":
            continue
        plays, by_stand_in = plays_by_stand_in(record, seat, spans)
        credited = not away_at_end and 2 * by_stand_in <= plays
        player["credited"] = credited  # the same rule credits the player's place in the ratings
        if player.get("identity"):
            results.append((str(player["identity"]), seat == winner and credited))
    return results
