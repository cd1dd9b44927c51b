"""What players of a server's tables read: cards by their names (never the wire's codes), clocks that
keep running across a reconnect, and the words of seats and lists."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from ono99_kernel.core.cards import Card, Edition
from ono99_kernel.core.events import Event, Out, Played
from ono99_kernel.wire.server import View
from ono99_server.history import away_params, away_summary
from ono99_tui.client.model import Model
from ono99_tui.i18n import using
from ono99_tui.reasons import render
from ono99_tui.tui.lobby_list import group_label, grouped
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import seat_details
from tests import wire
from tests.server_helpers import (
    FAST_PLAY,
    TestClient,
    create_table,
    join,
    new_identity,
    running_server,
    start,
    wait_until,
)
from tests.wire import table_message


def test_a_stand_in_s_cards_are_named_as_the_cards_print_them() -> None:
    missed: list[Event] = [Played(0, (Card.PLAY2,), 12), Played(1, (Card.N7,), 19), Played(0, (Card.MINUS_TEN,), 9),
                           Out(0)]
    text = away_summary(missed, 0, "alice", Edition.E2022)
    assert text == "While you were away, a bot played for alice: 2 cards (Play 2, −10); the seat went out."
    params = away_params(missed, 0, "alice", Edition.E2022)
    assert params == {"name": "alice", "plays": 2, "cards": "PLAY2,-10", "out": 1, "edition": "2022"}
    with using("en"):
        assert render("stood_in", params, "") == text
    with using("de"):
        assert "(Spiele 2, −10)" in render("stood_in", params, "")
    ono = away_params([Played(2, (Card.ONO99,), 99)], 2, "bob", Edition.E1980)
    with using("en"):
        assert render("stood_in", ono, "") == "While you were away, a bot played for bob: 1 card (O'NO 99)."


def test_a_clock_that_ran_out_names_the_card_the_bot_played() -> None:
    with using("en"):
        for card, said in (("PLAY2", "Play 2"), ("-10", "−10"), ("ONO99x4", "four ONO 99"), ("REV", "Reverse")):
            params = {"name": "bob", "bot": "greedy", "card": card, "edition": "2022"}
            assert render("clock_ran_out", params, "") == f"bob's clock ran out: the greedy bot played {said} for them"


async def test_the_server_names_the_card_a_clock_played(tmp_path: Path) -> None:
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice", identity=new_identity())
        await create_table(alice, seats=2, bots=1, turn_seconds=1, start=True)
        notice = await alice.expect("notice", where=lambda m: m.get("code") == "clock_ran_out")
        params = notice["params"]
        label = Card.from_code(params["card"]).label() if params["card"] != "ONO99x4" else "four ONO 99"
        assert params["edition"] == "2022"
        assert notice["text"] == f"alice's clock ran out: the greedy bot played {label} for them"


async def test_a_turn_s_clock_runs_on_across_reconnects(tmp_path: Path) -> None:
    """Alice and Bob play with a 30 s clock. Bob's connection fails and he comes back, then the player
    on turn does: neither return gives the turn a fresh clock, and each state says the time left."""
    async with running_server(tmp_path, bot_delay=4, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=2, turn_seconds=30)
        await join(bob, table_id)
        await start(alice)
        first = await alice.expect("state")
        turn = first["view"]["turn"]
        table = h.server.lobby.tables[table_id]
        deadline = table.deadline
        assert deadline is not None and first["clock"] > 29
        await asyncio.sleep(1.5)
        clients = {"alice": alice, "bob": bob}
        names = ["alice", "bob"] if turn == 0 else ["bob", "alice"]  # on turn, then the other
        for name in reversed(names):  # the one not on turn goes away first, then the one on turn
            client = clients[name]
            token = client.resume_token
            client.writer.transport.abort()
            await wait_until(lambda name=name: h.server.lobby.members[name].connection is None, "the server to notice")
            back = await TestClient.connect("127.0.0.1", h.port, name, resume=token, trust=h.trust,
                                            seen={"table": table_id, "seq": first["seq"], "chat": 0})
            h.clients.append(back)
            state = await back.expect("state")
            assert table.deadline == deadline, f"{name}'s return gave the turn a fresh clock"
            assert state["clock"] is not None and 20 < state["clock"] < 28.6, state["clock"]
            assert state["view"]["turn"] == turn
            clients[name] = back


def test_tables_whose_game_is_over_are_not_listed_as_games_in_progress() -> None:
    tables = [table_message(["a", "b"], table_id=n, status=status).table
              for n, status in ((4, "finished"), (3, "playing"), (2, "waiting"), (1, "finished"))]
    with using("en"):
        assert [(group_label(key, len(group)), [t.id for t in group]) for key, group in grouped(tables)] == [
            ("Open tables (1)", [2]), ("Games in progress (1)", [3]), ("Games over, before a rematch (2)", [1, 4])]


def test_a_player_who_sat_back_is_not_shown_as_played_by_a_bot() -> None:
    """Alice left during the last game (a bot played her seat to the end) and sat again after it: the last
    state still says a bot played seat 0, but she is here."""
    model = Model(my_name="bob")
    model.apply(table_message(["alice", "bob"], status="finished"))
    model.view = wire.view(2, hand_sizes=[4, 3])
    model.bot_control = [True, False]
    seats = model.table.seats if model.table is not None else ()
    with using("en"):
        assert seat_details(model, model.view, 0, seats) == ["4 cards"]
        away = table_message(["alice", "bob"], status="playing").table.seats
        away = (replace(away[0], connected=False), away[1])
        assert seat_details(model, model.view, 0, away) == ["4 cards", "away", "bot playing"]


def test_play_and_draw_are_offered_only_to_a_player_in_the_game_and_draw_only_when_drawn_by_hand() -> None:
    def shows(view: View, action: str) -> bool:
        model = Model(my_name="alice")
        model.view = view
        return TableScreen.offers(model, False, action)

    playing = wire.view(3, seat=0)
    manual = wire.view(3, seat=0, options={"manual_draw": True})
    out = wire.view(3, seat=0, options={"manual_draw": True}, active=[False, True, True])
    dropped = wire.view(3, seat=0, edition="1980", options={"scoring": "points", "manual_draw": True},
                        in_hand=[False, True, True], scores=[10, 0, 0])
    assert shows(playing, "play_selected") and not shows(playing, "draw")
    assert shows(manual, "play_selected") and shows(manual, "draw")
    for view in (out, dropped):
        assert not shows(view, "play_selected") and not shows(view, "draw")


def test_a_player_who_left_keeps_their_name_on_their_moves() -> None:
    """Alice played, then left after the game: her seat is empty, but her moves and the last plays of
    that game still say her name, not "Seat 1"."""
    model = Model(my_name="bob")
    model.apply(table_message(["alice", "bob"], status="playing"))
    model.apply(wire.state(2, seat=1))
    model.apply(table_message(["", "bob"], status="finished"))
    with using("en"):
        assert model.seat_name(0) == "alice" and model.plain_name(0) == "alice"
        model.apply(table_message(["", "bob"], table_id=2))  # another table: its seat 1 is nobody's yet
        assert model.seat_name(0) == "Seat 1"
