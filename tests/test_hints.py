"""Hints while learning: the engine's view a client rebuilds from what the server sent it (its
``state`` views and events) is the engine's own view of that seat, so a hint estimates from exactly
what the player saw; and the hint's estimate itself."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ono99_kernel.bots.basic import choose_greedy
from ono99_kernel.core.cards import Card, Edition
from ono99_kernel.core.events import Drew, Played
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import Scoring, TableOptions
from ono99_kernel.wire.server import (
    DrawEvent,
    GameEvent,
    HandStartedEvent,
    PlayEvent,
    ReshuffleEvent,
    event_of,
    view_of,
)
from ono99_tui.analysis_hints import NoHint, hint, remember, seat_view

SEARCHED = ("options", "seats", "seat", "hand", "legal_actions", "hand_number", "version", "total", "direction",
            "turn", "obligation", "hand_sizes", "active", "in_hand", "open_draws", "missed_draws", "tokens",
            "scores", "draw_pile_size", "discard_size", "top_card", "winner", "discard_counts", "ranking")


@pytest.mark.parametrize("options", [TableOptions(), TableOptions(edition=Edition.E1980, scoring=Scoring.POINTS),
                                     TableOptions(manual_draw=True)], ids=["2022", "1980-points", "manual"])
def test_the_view_rebuilt_from_what_the_client_was_sent_is_the_engines_view(options: TableOptions) -> None:
    """Whole games of greedy bots (deals, reshuffles, new 1980 hands): at every turn with a choice, each
    seat's view rebuilt from its protocol views and the events as the server sends them to that seat
    (hidden cards left out) equals the engine's view of that seat, the pile's cards and the recent plays
    and draws included."""
    checked = 0
    for seed in range(6):
        game = Game(options, 4, random.Random(seed))
        sent: list[list[GameEvent]] = [[] for _ in range(4)]
        seen = 0
        decide = random.Random(seed)
        while not game.is_over:
            for event in game.log[seen:]:
                for seat in range(4):
                    remember(sent[seat], event_of(event.seen_by(seat)))
            seen = len(game.log)
            seat = game.actors()[0]
            engine = game.seat_view(seat)
            try:
                rebuilt = seat_view(view_of(engine), sent[seat])
            except NoHint as no:
                assert no.code != "unknown_pile"
            else:
                for name in SEARCHED:
                    assert getattr(rebuilt, name) == getattr(engine, name), name
                wanted = tuple(e for e in engine.recent_events if type(e) in (Played, Drew))
                assert rebuilt.recent_events == wanted
                checked += 1
            game.apply(seat, choose_greedy(engine, decide))
    assert checked > 100


def test_after_a_reshuffle_the_pile_holds_its_top_card_and_the_plays_since() -> None:
    """A reshuffle turns every card of the pile but the top one into the draw pile: the rebuilt pile
    is that card and the plays after it (greedy games never run the draw pile out, so the events are
    written here as a server sends them)."""
    game = Game(TableOptions(), 2, random.Random(1))
    engine = game.seat_view(game.actors()[0])
    wire_view = view_of(engine)
    seat = engine.seat
    assert seat is not None
    events: list[GameEvent] = []
    script: list[GameEvent] = [
        HandStartedEvent(1, 1, 0, (7, 7), ((),) * 2, 50), PlayEvent(1, ("9",), 9), PlayEvent(0, ("REV",), 9),
        PlayEvent(1, ("5",), 14), ReshuffleEvent(3), DrawEvent(seat, "2"), PlayEvent(1 - seat, ("8",), 22),
        DrawEvent(1 - seat, None)]
    for event in script:
        remember(events, event)
    rebuilt = seat_view(replace(wire_view, discard_size=2, top_card="8"), events)
    counts = {Card(k).code: n for k, n in enumerate(rebuilt.discard_counts) if n}
    assert counts == {"5": 1, "8": 1}
    assert rebuilt.recent_events[-3:] == (Drew(seat, Card.from_code("2")), Played(1 - seat, (Card.from_code("8"),), 22),
                                          Drew(1 - seat, None))
    with pytest.raises(NoHint) as no:  # a pile of another size than the plays make: a play was missed
        seat_view(replace(wire_view, discard_size=3, top_card="8"), events)
    assert no.value.code == "unknown_pile"


def test_a_pile_whose_plays_were_not_all_received_gives_no_hint() -> None:
    """A client that joined without the plays since the deal (its events start later) gets no hint
    rather than one estimated from a wrong count of the pile."""
    game = Game(TableOptions(), 2, random.Random(3))
    decide = random.Random(3)
    for _ in range(6):
        seat = game.actors()[0]
        game.apply(seat, choose_greedy(game.seat_view(seat), decide))
    seat = game.actors()[0]
    events = [event_of(e.seen_by(seat)) for e in game.log[1:]]  # the deal left out
    with pytest.raises(NoHint) as no:
        seat_view(view_of(game.seat_view(seat)), events)
    assert no.value.code in ("unknown_pile", "one_card", "draw_first")


def test_the_hint_reports_progress_and_rates_every_playable_card() -> None:
    """The hint's search, in parts: progress from 0 to all of them, a chance for each card that can be
    played, the best first, and the same hint for the same seed."""
    game = Game(TableOptions(), 3, random.Random(11))
    decide = random.Random(11)
    while True:
        seat = game.actors()[0]
        view = game.seat_view(seat)
        events: list[GameEvent] = []
        for event in game.log:
            remember(events, event_of(event.seen_by(seat)))
        try:
            rebuilt = seat_view(view_of(view), events)
            break
        except NoHint:
            game.apply(seat, choose_greedy(view, decide))
    steps: list[tuple[int, int]] = []
    found = hint(rebuilt, seed=5, on_progress=lambda done, total: steps.append((done, total)))
    assert steps[0][0] == 0 and steps[-1][0] == steps[-1][1] and len(steps) == steps[-1][1] + 1
    playable = {a.code for a in view.legal_actions if a.code != "draw"}
    assert set(found.chances) == playable and found.best == next(iter(found.chances))
    assert all(0.0 <= c <= 1.0 for c in found.chances.values())
    assert hint(rebuilt, seed=5) == found


def test_the_table_list_says_hints_are_on_in_the_app_and_the_plain_mode() -> None:
    """A listed table whose host allows hints says "hints on" in the app's list (with its rules) and in
    the plain mode's line; one without hints says nothing of them."""
    from ono99_kernel.wire.server import Seat, TableInfo
    from ono99_tui.plain.sentences import table_line
    from ono99_tui.tui.lobby_list import table_rows

    def listed(hints: bool) -> TableInfo:
        return TableInfo(id=3, name="Ada's table", edition="2022", options=TableOptions(), summary="2022",
                         host="Ada", status="waiting", private=False,
                         seats=(Seat("human", "Ada", None, True), Seat("empty", "", None, None)), free=1, bots=0,
                         spectators=0, replace_bots=False, turn_seconds=0, bot_level="greedy", game_no=0,
                         winner=None, name_code=None, name_params={}, hints=hints)

    def app_row(hints: bool) -> str:
        [_label, (_key, cells, _id)] = table_rows([listed(hints)])
        return " ".join(str(cell) for cell in cells)

    assert "hints on" in app_row(True) and "hints" not in app_row(False)
    assert "hints on" in table_line(listed(True)) and "hints" not in table_line(listed(False))
