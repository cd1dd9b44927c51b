"""Whole games over the real protocol: test clients and bots at tables of an in-process server with a
real SQLite file. What each seat may see, who may act, and players who drop out and come back."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.core.cards import CODES
from ono99_kernel.protocol import encode
from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import Act, AskLeaderboard, CreateTable, Join, Leave, Rematch, Say, Spectate
from ono99_kernel.wire.server import view_to_wire
from ono99_server.members import token_hash
from ono99_server.stores import export_records
from tests.server_helpers import (
    CARD_CODES,
    FAST_PLAY,
    TestClient,
    card_lists,
    create_table,
    events_of,
    export_and_check,
    hands_by_version,
    highest_number_policy,
    join,
    new_identity,
    play,
    play_all,
    plays_of,
    record_events,
    running_server,
    start,
    storage_barrier,
    until_closed,
)

FULL_GAMES = [
    pytest.param("2022", {}, 4, 2, "greedy", id="2022"),
    pytest.param("2022", {"manual_draw": True}, 3, 1, "random", id="2022-manual-draw"),
    pytest.param("1980", {"scoring": "tokens", "manual_draw": True}, 4, 2, "greedy", id="1980-tokens-manual-draw"),
    pytest.param("1980", {"scoring": "points", "points_target": 60, "points_win": "lowest_score", "manual_draw": True},
                 3, 1, "random", id="1980-points-manual-draw"),
]


def about_table(table_id: int) -> Callable[[dict[str, Any]], bool]:
    return lambda message: bool(message["table"]["id"] == table_id)


def game_over_at(table_id: int) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message["table"] == table_id and message["view"]["winner"] is not None


def last_state(client: TestClient) -> dict[str, Any]:
    return [m for m in client.received if m["t"] == "state"][-1]


# --- 1. whole games -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("edition", "options", "seats", "bots", "level"), FULL_GAMES)
async def test_a_full_game_with_bots_ends_with_a_winner_and_is_stored_and_counted(
        tmp_path: Path, edition: str, options: dict[str, Any], seats: int, bots: int, level: str) -> None:
    """Two protocol clients and bots play a whole game (2022; 1980 matches with tokens and with points;
    with manual_draw) by answering state messages with legal random actions. Tried: the game ends
    with one winner both clients agree on; `ono99 records export` writes its record and `ono99 records
    check` validates it; the record holds exactly the plays the clients saw, under the table's
    options; the leaderboard counts the game for both humans (and not for the bots)."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice", identity=new_identity())
        bob = await h.connect("bob", identity=new_identity())
        table_id = await create_table(alice, edition=edition, options=options, seats=seats, bots=bots,
                                      bot_level=level)
        bob_seat = await join(bob, table_id)
        await start(alice)
        logs = await play_all([alice, bob], seed=seats)

        winner = logs[0].last_view["winner"]
        assert isinstance(winner, int) and 0 <= winner < seats
        assert logs[1].last_view["winner"] == winner
        for log in logs:
            assert {"e": "game_over", "winner": winner} in events_of(log.states)
            assert log.sent, "the test client never played"
        if options.get("scoring") == "tokens":  # three tokens each: a match of many hands
            assert logs[0].last_view["hand_number"] >= 3
            assert logs[0].last_view["tokens"][winner] >= 0

        board = await alice.request(AskLeaderboard(edition=as_edition(edition)), "leaderboard")
        assert sorted(({k: row[k] for k in ("name", "games", "wins")} for row in board["rows"]),
                      key=lambda r: r["name"]) == [
            {"name": "alice", "games": 1, "wins": int(winner == 0)},
            {"name": "bob", "games": 1, "wins": int(winner == bob_seat)},
        ]

        [record] = await export_and_check(h.config.db_path, tmp_path / "games.jsonl")
        assert record["edition"] == edition
        assert record["result"]["winner"] == winner
        assert {name: record["options"][name] for name in options} == options
        kinds = [p["kind"] for p in record["players"]]
        assert kinds == ["human" if s in (0, bob_seat) else f"bot:{level}" for s in range(seats)]
        assert plays_of(record_events(record)) == plays_of(events_of(logs[0].states))


# --- 2. hidden information ----------------------------------------------------------------------------
HIDDEN_INFO_GAMES = [
    ("2022", {}),
    ("1980", {"scoring": "tokens", "manual_draw": True}),
    ("1980", {"scoring": "points", "points_target": 50}),
]
PRIVATE_PATHS = (r"\.view\.hand", r"\.view\.legal", r"\.events\[\d+\]\.cards")


def check_hidden(message: dict[str, Any], seat: int | None, truth: dict[int, Any] | None,
                 seen: dict[str, int]) -> None:
    """``message`` went to the client in ``seat`` (None: a spectator); ``truth`` is the real hand of
    every seat at every version of the game the message is about."""
    allowed = PRIVATE_PATHS if seat is None else (*PRIVATE_PATHS, rf"\.events\[\d+\]\.hands\[{seat}\]")
    for path, cards in card_lists(message):
        assert len(cards) <= 4, f"{message['t']}{path} holds {len(cards)} cards: a draw pile or several hands"
        assert any(re.fullmatch(p, path) for p in allowed), f"cards at {message['t']}{path}: {cards}"
    if message["t"] != "state":
        return
    assert truth is not None
    view = message["view"]
    assert view["seat"] == seat
    own = [] if seat is None else list(truth[view["version"]][seat])
    assert view["hand"] == own, f"version {view['version']}: the view's hand is not the seat's own hand"
    assert set(view["legal"]) <= {*own, "draw", "ONO99x4"}
    assert {entry["card"] for entry in view["unplayable"]} <= set(own)
    if seat is None:
        assert view["legal"] == [] and view["unplayable"] == []
    seen["states"] += 1
    for event in message["events"]:
        if event["e"] == "draw":
            if event["seat"] == seat:
                assert event["card"] in CARD_CODES
                seen["own draws"] += 1
            else:
                assert event["card"] is None, f"seat {seat} saw seat {event['seat']} draw {event['card']}"
                seen["hidden draws"] += 1
        elif event["e"] == "reshuffle":
            assert event["draw_pile"] is None
        elif event["e"] == "hand_started":
            assert event.get("draw_pile") is None
            for i, hand in enumerate(event["hands"]):
                assert (hand is not None) == (i == seat), f"seat {seat} saw the deal of seat {i}"
            seen["deals"] += 1


async def test_no_client_ever_sees_another_seats_cards_or_the_draw_pile(tmp_path: Path) -> None:
    """Three whole games (2022; 1980 tokens with manual_draw; 1980 points) with two seated clients, two
    bots and a spectator. Every message each client decoded is checked against the real game (rebuilt
    from the table's seed and actions): a view's hand is exactly that seat's own cards at that version
    (empty for the spectator); legal and unplayable cards come from it; other seats' draws carry no
    card; reshuffles and deals carry no draw pile and no other hand; no message anywhere holds more
    than four cards in a list or cards in any other place."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        carol = await h.connect("carol")
        truths: dict[int, dict[int, Any]] = {}
        seats: dict[TestClient, dict[int, int | None]] = {alice: {}, bob: {}, carol: {}}
        for n, (edition, options) in enumerate(HIDDEN_INFO_GAMES):
            table_id = await create_table(alice, edition=edition, options=options, seats=4, bots=2)
            seats[alice][table_id] = 0
            seats[bob][table_id] = await join(bob, table_id)
            seats[carol][table_id] = None
            await carol.send(Spectate(table=table_id))
            await carol.expect("table", where=about_table(table_id))
            await start(alice)
            await play_all([alice, bob], seed=10 + n)
            await carol.expect("state", where=game_over_at(table_id))
            truths[table_id] = hands_by_version(h.server.lobby.tables[table_id])

        for client, seat_at in seats.items():
            seen = {"states": 0, "own draws": 0, "hidden draws": 0, "deals": 0}
            for message in client.received:
                state_of = message.get("table") if message["t"] == "state" else None
                check_hidden(message, seat_at.get(state_of) if state_of else None,
                             truths.get(state_of) if state_of else None, seen)
            assert seen["states"] > 30 and seen["hidden draws"] > 10 and seen["deals"] >= 3, seen
            if client is not carol:
                assert seen["own draws"] > 0, seen


# --- 3. who may act -------------------------------------------------------------------------------------
async def test_only_the_seat_on_turn_may_act_and_a_repeated_action_is_applied_once(tmp_path: Path) -> None:
    """A two-player table with a spectator. Tried: the seat not on turn plays a card of its own at the
    current version (refused: illegal_action, "it is seat N's turn"); the spectator acts (not_seated);
    the seat on turn sends an unknown card code (bad_action) and a card it does not hold
    (illegal_action); then it sends the same legal action twice in one write: the first is applied,
    the second is refused as stale_action, the table holds one action and the other player saw one
    play; an action for an old version is refused as stale_action too. Nothing refused changed the
    game."""
    async with running_server(tmp_path) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        carol = await h.connect("carol")
        table_id = await create_table(alice, seats=2)
        await join(bob, table_id)
        await carol.send(Spectate(table=table_id))
        await carol.expect("table")
        await start(alice)
        views = {c: (await c.expect("state"))["view"] for c in (alice, bob)}
        mover, waiter = (alice, bob) if views[alice]["turn"] == views[alice]["seat"] else (bob, alice)
        mine, theirs = views[mover], views[waiter]
        version = mine["version"]
        table = h.server.lobby.tables[table_id]

        refused = await waiter.request(Act(action=theirs["hand"][0], version=version), "error")
        assert refused["code"] == "illegal_action"
        assert refused["reason"] == f"it is seat {mine['seat']}'s turn, not seat {theirs['seat']}'s"
        assert refused["ref"] == "act"
        refused = await carol.request(Act(action=mine["legal"][0], version=version), "error")
        assert refused["code"] == "not_seated"
        refused = await mover.request(Act(action="11", version=version), "error")
        assert refused["code"] == "bad_action"
        missing = next(c for c in CODES[:11] if c not in mine["hand"])
        refused = await mover.request(Act(action=missing, version=version), "error")
        assert (refused["code"], refused["reason"]) == ("illegal_action", f"{missing} is not in your hand")
        assert table.game is not None
        assert table.actions == [] and table.game.version == version

        action = next((a for a in mine["legal"] if a in CARD_CODES), mine["legal"][0])
        act = encode({"t": "act", "action": action, "version": version})
        await mover.send_raw(act + act)
        after = await mover.expect("state")
        assert after["view"]["version"] > version
        # the refusal can come before the state: a move is shown once saved, a refusal at once
        errors = [m for m in mover.received if m.get("t") == "error"]
        stale = errors[-1] if errors and errors[-1].get("code") == "stale_action" else await mover.error()
        assert stale["code"] == "stale_action"
        assert f"for state {version}" in stale["reason"] and "not applied" in stale["reason"]
        assert table.actions == [(mine["seat"], action)]
        seen = await waiter.expect("state")
        assert [seat for seat, _, _ in plays_of(seen["events"])] == [mine["seat"]]
        assert table.game is not None and seen["view"]["version"] == after["view"]["version"] == table.game.version

        old = await waiter.request(Act(action=seen["view"]["legal"][0], version=version), "error")
        assert old["code"] == "stale_action"
        assert len(table.actions) == 1


def blocked_number(message: dict[str, Any]) -> bool:
    view = message["view"]
    return view["turn"] == view["seat"] and any(entry["why"] == "would_make" for entry in view["unplayable"])


async def test_a_card_that_would_break_the_limit_is_refused_with_the_reason(tmp_path: Path) -> None:
    """Two clients push the total up (highest number card first) until the seat on turn holds a
    number card the view lists as unplayable ("10 would make 99"); that card is then sent anyway.
    Tried: it is refused with illegal_action and exactly that reason, the numbers in the reason are
    the card and the total it would make (over 98), nothing changed, and a legal card is then
    accepted."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=2)
        await join(bob, table_id)
        table = h.server.lobby.tables[table_id]
        await start(alice)
        found = None
        for game in range(20):
            tasks = {asyncio.create_task(play(c, random.Random(game * 2 + i), policy=highest_number_policy,
                                              stop=blocked_number)): c for i, c in enumerate((alice, bob))}
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            stopped = [t for t in done if t.result().last_view["winner"] is None]
            if stopped:
                for task in pending:
                    task.cancel()
                found = tasks[stopped[0]], stopped[0].result().last_view
                break
            await asyncio.gather(*pending)
            await alice.send(Rematch())
        assert found is not None, "no seat ever held a card over the limit"
        client, view = found
        entry = next(e for e in view["unplayable"] if e["why"] == "would_make")
        card, reason, params = entry["card"], entry["reason"], entry["params"]
        number, total = params["card"], params["total"]
        assert number == int(card) and total == view["total"] + number and total > 98
        assert reason == f"{number} would make {total}"
        assert table.game is not None
        before = (table.game.version, list(table.actions))

        refused = await client.request(Act(action=card, version=view["version"]), "error")
        assert (refused["code"], refused["reason"]) == ("illegal_action", reason)
        assert refused["params"] == {"why": "would_make", **params}
        assert (table.game.version, table.actions) == before
        accepted = await client.request(Act(action=view["legal"][0], version=view["version"]), "state")
        assert accepted["view"]["version"] > view["version"]


# --- 4. dropping out and coming back ------------------------------------------------------------------
async def test_a_dropped_player_returns_within_the_grace_period_to_the_same_seat_and_view(tmp_path: Path) -> None:
    """Alice (seat 0), a bot and Bob play; Bob chats, Alice's connection closes, Bob plays on until a
    bot has played for Alice's seat (the state says her seat is bot-controlled), and chats again.
    Alice comes back with her resume token within the grace period. Tried: she is welcomed as
    resumed, at the same table and seat, with the same token; her state is the full current view of
    her seat (exactly what the game says now); the table's chat history holds both of Bob's lines;
    her seat is hers again (not bot-controlled) and the two finish the game."""
    async with running_server(tmp_path, grace_seconds=30) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        token = alice.resume_token
        table_id = await create_table(alice, seats=3, bots=1)
        bob_seat = await join(bob, table_id)
        await start(alice)
        await alice.expect("state")
        await bob.send(Say(text="hi alice"))
        await alice.expect("chat")
        await alice.close()

        bot_played_for_alice = False

        def bot_played_then_bob_on_turn(message: dict[str, Any]) -> bool:
            nonlocal bot_played_for_alice
            if message["controlled_by_bot"][0] and any(e["seat"] == 0 for e in message["events"] if e["e"] == "play"):
                bot_played_for_alice = True
            return bot_played_for_alice and message["view"]["turn"] == bob_seat

        bob_log = await play(bob, random.Random(4), stop=bot_played_then_bob_on_turn)
        assert bob_log.last_view["winner"] is None
        await bob.send(Say(text="are you there?"))
        await bob.expect("chat", where=lambda m: m["text"] == "are you there?")

        alice = await h.connect("alice", resume=token)
        assert alice.welcome["resumed"] is True
        assert (alice.welcome["table"], alice.welcome["name"], alice.welcome["resume"]) == (table_id, "alice", token)
        detail = await alice.expect("table", where=lambda m: m["table"]["you"] is not None)
        assert detail["table"]["you"] == 0 and detail["table"]["seats"][0]["connected"] is True
        state = await alice.expect("state")
        game = h.server.lobby.tables[table_id].game
        assert game is not None and state["view"] == view_to_wire(game.view(0))
        assert state["view"]["turn"] == bob_seat and state["view"]["version"] == bob_log.last_view["version"]
        assert state["controlled_by_bot"][0] is False
        history = await alice.expect("chat_history", where=lambda m: m["scope"] == "table")
        assert [(m["from"], m["text"]) for m in history["messages"]] == [("bob", "hi alice"),
                                                                           ("bob", "are you there?")]

        logs = await asyncio.gather(play(alice, random.Random(5), initial=state),
                                    play(bob, random.Random(6), initial=bob_log.states[-1]))
        assert logs[0].last_view["winner"] is not None
        assert logs[0].last_view["winner"] == logs[1].last_view["winner"]


async def test_after_the_grace_period_the_bot_keeps_the_seat_and_the_old_token_is_dead(tmp_path: Path) -> None:
    """Alice's connection closes at a table with Bob and a bot, and she does not come back within a
    short grace period. Tried: the table then shows her seat as a bot for good; her old resume token
    no longer returns a seat (she gets a fresh welcome, no table, a new token) and she cannot sit
    again while the game runs; Bob finishes the game and the stored record lists her as her seat's
    player, with the span a stand-in played for her, to the end."""
    async with running_server(tmp_path, grace_seconds=0.2) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        token = alice.resume_token
        table_id = await create_table(alice, seats=3, bots=1)
        bob_seat = await join(bob, table_id)
        await start(alice)
        await alice.expect("state")
        await alice.close()

        taken = await bob.expect("table", where=lambda m: m["table"]["seats"][0]["kind"] == "bot")
        assert taken["table"]["seats"][0]["name"] == "alice (bot)"
        assert token_hash(token) not in h.server.lobby.by_token

        again = await h.connect("alice", resume=token)
        assert again.welcome["resumed"] is False and again.welcome["table"] is None
        assert again.resume_token != token
        refused = await again.request(Join(table=table_id), "error")
        assert refused["code"] == "game_running"

        log = await play(bob, random.Random(7), initial=last_state(bob))
        assert log.last_view["winner"] is not None
        table = h.server.lobby.tables[table_id]
        assert (table.seats[0].kind, table.seats[0].name) == ("bot", "alice (bot)")
        await storage_barrier(bob)
        assert h.config.db_path is not None
        [line] = export_records(h.config.db_path)
        record = json.loads(line)
        players = record["players"]
        end = [len(record["hands"]) - 1, len(record["hands"][-1]["events"])]
        assert players[0]["name"] == "alice" and players[0]["kind"] == "human"  # the seat's player
        [span] = players[0]["stand_in"]  # from her drop to the end: a stand-in played it
        assert span["to"] == end and span["from"] <= end
        assert players[bob_seat] == {"name": "bob", "kind": "human"}


async def test_a_second_connection_with_the_token_takes_over_the_seat(tmp_path: Path) -> None:
    """Alice is seated mid-game and connects again from elsewhere with her resume token while the
    first connection is still open. Tried: the old connection is told why (bye) and closed; the new
    one is welcomed as resumed to the same seat with the current view; no bot ever stood in for her
    (her seat was never away) and she plays on from the new connection."""
    async with running_server(tmp_path) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=2)
        await join(bob, table_id)
        await start(alice)
        await alice.expect("state")

        second = await h.connect("alice", resume=alice.resume_token)
        old = await until_closed(alice)
        assert old[-1] == {"t": "bye", "reason": "you connected again from elsewhere"}
        assert second.welcome["resumed"] is True and second.welcome["table"] == table_id
        state = await second.expect("state")
        game = h.server.lobby.tables[table_id].game
        assert game is not None
        assert state["view"] == view_to_wire(game.view(0)) and state["controlled_by_bot"] == [False, False]
        logs = await asyncio.gather(play(second, random.Random(8), initial=state), play(bob, random.Random(9)))
        assert logs[0].last_view["winner"] is not None
        assert not any(s["controlled_by_bot"][0] for log in logs for s in log.states)


async def test_a_strong_bot_thinks_off_the_event_loop_and_the_game_finishes(tmp_path: Path) -> None:
    """A table of one person and three strong bots: the strong bot's search runs in a worker
    thread, not on the event loop, and the game ends normally."""
    from tests.server_helpers import play, running_server

    async with running_server(tmp_path, messages_per_second=1000, message_burst=1000) as h:
        ada = await h.connect("ada")
        await ada.send(CreateTable(seats=4, bots=3, bot_level="strong", turn_seconds=0, start=True))
        await ada.expect("table")
        table = next(iter(h.server.lobby.tables.values()))
        assert {s.level for s in table.seats if s.kind == "bot"} == {"strong"}
        log = await play(ada, random.Random(3))
        assert log.last_view["winner"] is not None
        assert table.runner.thinking is not None  # the strong bots did think off the loop


async def test_the_end_of_a_1980_match_as_docs_protocol_section_7_says(tmp_path: Path) -> None:
    """Tokens: the seat whose `out` lost the last hand keeps `in_hand` true (the hand ends at once),
    while `active` says it is out of the match. Lowest score: every `hand_ended.eliminated` is [],
    and `active` stays true for every seat to the end."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        ada = await h.connect("Ada")
        for options in ({}, {"scoring": "points", "points_win": "lowest_score", "points_target": 40}):
            await create_table(ada, edition="1980", options=options, seats=3, bots=2, start=True)
            log = await play(ada, random.Random(8))
            view = log.last_view
            events = events_of(log.states)
            ended = [e for e in events if e["e"] == "hand_ended"]
            last_out = [e["seat"] for e in events if e["e"] == "out"][-1]
            if not options:
                assert ended[-1]["loser"] == last_out and ended[-1]["eliminated"] == [last_out]
                assert view["in_hand"][last_out] is True and view["active"][last_out] is False
                assert view["active"] == [seat == view["winner"] for seat in range(3)]
            else:
                assert ended and all(e["eliminated"] == [] for e in ended)
                assert view["active"] == [True, True, True]
                assert view["in_hand"][last_out] is False and max(view["scores"]) >= 40
                assert view["scores"][view["winner"]] == min(view["scores"])
            await ada.request(Leave(), "left")
