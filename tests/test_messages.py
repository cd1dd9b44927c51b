"""The client's decoder of server messages (ono99_kernel/wire/server.py): every message a real server sends
decodes into typed values, and anything else is refused with a ``ProtocolError`` naming the message
type and the field, never another exception."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import math
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ono99_kernel.core.options import Scoring
from ono99_kernel.protocol import ProtocolError
from ono99_kernel.wire.requests import (
    AskGameRecord,
    AskLeaderboard,
    AskProfile,
    Leave,
    LeaveQueue,
    ListTables,
    Ping,
    PlayNow,
    Say,
    Spectate,
    Start,
)
from ono99_kernel.wire.server import (
    Chat,
    ChatHistory,
    ErrorMessage,
    GameOverEvent,
    GameRecord,
    HandEndedEvent,
    HandStartedEvent,
    History,
    Leaderboard,
    Online,
    PlayEvent,
    Pong,
    Profile,
    Queue,
    ServerMessage,
    State,
    TableMessage,
    Tables,
    UnknownEvent,
    UnknownMessage,
    Unplayable,
    Welcome,
    decode_server_message,
)
from ono99_tui.client.model import Model
from tests.declared import SERVER_TYPES, as_declared, conforms
from tests.server_helpers import (
    FAST_PLAY,
    TestClient,
    create_table,
    join,
    new_identity,
    play,
    running_server,
    storage_barrier,
)

FUZZ = settings(max_examples=300, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def everything_received(client: TestClient) -> list[dict[str, Any]]:
    """What the client read, its welcome, and what has arrived but was not read yet."""
    messages = [client.welcome, *client.received]
    while not client.inbox.empty():
        message = client.inbox.get_nowait()
        if message is not None:
            messages.append(message)
    return messages


async def test_every_message_a_real_server_sends_decodes(tmp_path: Path) -> None:
    """Games of both editions (elimination, tokens and points scoring) with two players with keys,
    bots and a spectator, chat in the lobby and at the table, the lobby lists, the leaderboard,
    play now, a profile and a game record: every message each client received decodes."""
    async with running_server(tmp_path, play_now_wait=3600, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        bob = await h.connect("Bob", identity=new_identity())
        cy = await h.connect("Cy")
        await ada.request(Say(text="hello lobby", scope="lobby"), "chat")
        games = [("2022", {}, 4), ("1980", {}, 3), ("1980", {"scoring": "points", "points_target": 40}, 3)]
        for n, (edition, options, seats) in enumerate(games):
            table_id = await create_table(ada, edition=edition, options=options, seats=seats, bots=seats - 2)
            await join(bob, table_id)
            await cy.request(Spectate(table=table_id), "table")
            await bob.request(Say(text=f"good luck {n}"), "chat")
            await ada.send(Start())
            await asyncio.gather(play(ada, random.Random(n)), play(bob, random.Random(n + 10)))
            await cy.expect("state", where=lambda m: m["view"]["winner"] is not None)
        await storage_barrier(ada)
        await ada.request(AskLeaderboard(), "leaderboard")
        await ada.request(AskLeaderboard(edition="1980"), "leaderboard")
        await ada.request(AskProfile(), "profile")
        await bob.request(AskProfile(name="Ada"), "profile")
        await ada.request(AskGameRecord(game=1), "game_record")
        await ada.request(Ping(n=7), "pong")
        await bob.request(Leave(), "left")
        await cy.request(Leave(), "left")
        await bob.request(PlayNow(edition="1980", seats=3), "queue",
                          where=lambda m: m["queued"] is not None)
        await cy.expect("queue", where=lambda m: m["queues"] != [])
        await bob.request(LeaveQueue(), "queue", where=lambda m: m["queued"] is None)
        await cy.request(ListTables(), "tables")
        await cy.expect("online")
        await cy.request(AskProfile(), "error")  # a guest has none
        dee = await h.connect("Dee")  # comes late: the finished game's history, then its state
        await dee.request(Spectate(table=table_id), "state")

        decoded: list[ServerMessage] = []
        for client in (ada, bob, cy, dee):
            for message in everything_received(client):
                decoded.append(decode_server_message(message))  # raises on any message it cannot read

    assert all(as_declared(m) for m in decoded)
    kinds = {m.t for m in decoded}
    assert {"welcome", "chat", "chat_history", "tables", "online", "queue", "table", "state", "history", "left",
            "leaderboard", "profile", "game_record", "pong", "error", "notice"} <= kinds
    assert not [m for m in decoded if isinstance(m, UnknownMessage)]
    states = [m for m in decoded if isinstance(m, State)]
    assert {s.view.edition for s in states} == {"2022", "1980"}
    assert {s.view.options.scoring for s in states} == {Scoring.ELIMINATION, Scoring.TOKENS, Scoring.POINTS}
    finals = [s for s in states if s.view.winner is not None]
    assert finals and all(s.view.ranking is not None and s.view.ranking[0] == s.view.winner for s in finals)
    spectator = [s for s in states if s.view.seat is None]
    assert spectator and all(s.view.hand == () for s in spectator)
    events = [e for s in states for e in s.events]
    assert any(isinstance(e, PlayEvent) and e.cards for e in events)
    assert any(isinstance(e, HandEndedEvent) and e.tokens is not None for e in events)
    assert any(isinstance(e, HandEndedEvent) and e.hand_points is not None for e in events)
    assert any(isinstance(e, GameOverEvent) for e in events)
    assert any(isinstance(e, HandStartedEvent) and any(h for h in e.hands) for e in events)
    assert not [e for e in events if isinstance(e, UnknownEvent)]
    welcome = next(m for m in decoded if isinstance(m, Welcome) and m.name == "Ada")
    assert welcome.identity is not None and welcome.identity.startswith("SHA256:")
    table = next(m.table for m in decoded if isinstance(m, TableMessage) and m.table.you not in (None, 0))
    assert table.you is not None and table.seats[table.you].name == "Bob" and table.seats[table.you].kind == "human"
    assert any(isinstance(m, Chat) and m.line.sender == "Bob" and m.line.id for m in decoded)
    assert any(isinstance(m, ChatHistory) and m.scope == "lobby" for m in decoded)
    assert any(isinstance(m, Tables) and m.tables for m in decoded)
    assert any(isinstance(m, Online) and any(p.name == "Cy" for p in m.players) for m in decoded)
    board = next(m for m in decoded if isinstance(m, Leaderboard) and m.edition is None)
    assert {r.name for r in board.rows} == {"Ada", "Bob"} and board.bots and board.bots[0].name == "greedy"
    queued = [m.queued for m in decoded if isinstance(m, Queue) and m.queued is not None]
    assert queued and queued[0].edition == "1980" and queued[0].seats == 3 and queued[0].position == 1
    profile = next(m for m in decoded if isinstance(m, Profile) and m.you)
    assert profile.name == "Ada" and [r.game for r in profile.recent] == [3, 2, 1]
    assert any(isinstance(m, GameRecord) and m.game == 1 and m.record for m in decoded)
    assert any(isinstance(m, Pong) and m.n == 7 for m in decoded)
    history = [m for m in decoded if isinstance(m, History)]
    assert history and history[0].reset and any(isinstance(e, GameOverEvent) for e in history[-1].events)
    assert any(isinstance(m, ErrorMessage) and m.code == "no_identity" and m.ref == "profile" for m in decoded)


# --- refusals ---------------------------------------------------------------------------------------
OPTIONS = {"bust_over_99": False, "ono99_on_zero": False, "ono99_sets_99": False, "manual_draw": False,
           "scoring": "elimination", "out_at_zero_tokens": False, "points_target": 100,
           "points_win": "last_standing", "eight_players": False}
VIEW = {"edition": "2022", "options": OPTIONS, "seats": 2, "seat": 0, "hand": ["4", "3", "8", "REV"],
        "legal": ["4", "3", "8", "REV"], "unplayable": [
            {"card": "ONO99", "why": "ono99_2022", "params": {},
             "reason": "ONO 99 cards can only be discarded as four of a kind"}], "hand_number": 0,
        "version": 1, "total": 7, "direction": 1, "turn": 0,
        "obligation": {"seat": 0, "plays_left": 2, "can_pass": True}, "hand_sizes": [4, 4],
        "active": [True, True], "in_hand": [True, True], "open_draws": [False, False], "missed_draws": [0, 0],
        "tokens": None, "scores": None, "draw_pile_size": 103, "discard_size": 1, "top_card": "7", "winner": None,
        "ranking": None}
STATE: dict[str, Any] = {"t": "state", "table": 1, "game_no": 1, "view": VIEW,
         "events": [{"e": "play", "seat": 1, "cards": ["7"], "total": 7}, {"e": "draw", "seat": 1, "card": None}],
         "seq": 3, "clock": 12.5, "controlled_by_bot": [False, True]}
SEAT = {"kind": "human", "name": "Ada", "level": None, "connected": True}
TABLE = {"id": 1, "name": "Ada's table", "edition": "2022", "options": OPTIONS, "summary": "2022", "host": "Ada",
         "status": "waiting", "private": False, "seats": [SEAT, {"kind": "empty", "name": "", "level": None,
                                                                 "connected": None}],
         "free": 1, "bots": 0, "spectators": 0, "replace_bots": False, "turn_seconds": 0, "bot_level": "greedy",
         "game_no": 0, "winner": None, "code": None, "you": 0, "watchers": [], "waiting": []}
GOOD: list[dict[str, Any]] = [STATE, {"t": "table", "table": TABLE},
        {"t": "welcome", "version": 2, "server": "ONO 99", "name": "Ada", "resume": "x", "resumed": False,
         "table": None, "identity": None},
        {"t": "chat", "scope": "lobby", "table": None, "id": 1, "from": "Ada", "text": "hi", "at": 1.5},
        {"t": "queue", "queued": {"edition": "2022", "seats": 4, "waiting": 1, "position": 1, "fill_in": 3.0},
         "queues": [{"edition": "2022", "seats": 4, "waiting": 1}], "wait": 20.0},
        {"t": "error", "code": "seat_taken", "reason": "seat 1 is taken", "ref": "join", "params": {"seat": 1}},
        {"t": "away", "table": 1, "text": "While you were away, a bot played for Ada: 1 card (7).", "code": "stood_in",
         "params": {"name": "Ada", "plays": 1, "cards": "7", "out": 0}},
        {"t": "history", "table": 1, "game_no": 1, "seq": 9, "reset": True,
         "events": [{"e": "hand_ended", "hand": 0, "loser": 1, "tokens": [3, 2], "scores": None, "hand_points": None,
                     "eliminated": []}, {"e": "reshuffle", "size": 40, "draw_pile": None}]},
        {"t": "tables", "tables": [{k: v for k, v in TABLE.items() if k not in ("code", "you", "watchers", "waiting")}],
         "total": 1},
        {"t": "online", "players": [{"name": "Ada", "table": 1, "away": False}], "total": 1},
        {"t": "profile", "name": "Ada", "you": True,
         "editions": [{"edition": "1980", "games": 2, "wins": 1, "win_rate": 0.5, "rating": 1.25, "mu": 26.0,
                       "sigma": 8.1, "rated": 2, "provisional": True}],
         "history": [{"game": 4, "edition": "1980", "at": 1.5e9, "rating": 1.25, "change": 0.5}],
         "recent": [{"game": 4, "edition": "1980", "at": 1.5e9, "place": 1, "won": True, "credited": True,
                     "players": ["Ada", "Bot 2"]}]}]


def test_the_documented_example_messages_decode() -> None:
    state = decode_server_message(STATE)
    assert isinstance(state, State)
    assert state.view.hand == ("4", "3", "8", "REV") and state.view.obligation is not None
    assert state.view.obligation.plays_left == 2 and state.controlled_by_bot == (False, True)
    assert state.events[0] == PlayEvent(seat=1, cards=("7",), total=7)
    for message in GOOD:
        assert decode_server_message(message).t == message["t"]


@pytest.mark.parametrize(("path", "value", "named"), [
    (("view", "hand"), 3, "state.view.hand"),
    (("view", "hand"), ["4", "JOKER"], "state.view.hand[1]"),
    (("view", "seat"), 2, "state.view.seat"),
    (("view", "turn"), True, "state.view.turn"),
    (("view", "hand_sizes"), [4], "state.view.hand_sizes"),
    (("view", "ranking"), [0, 0], "state.view.ranking"),
    (("view", "options"), {"scoring": "golf"}, "state.view.options"),
    (("view", "obligation"), {"seat": 0, "plays_left": 3, "can_pass": True}, "state.view.obligation.plays_left"),
    (("view", "unplayable"), [{"card": "JOKER", "why": "ono99_2022", "reason": ""}], "state.view.unplayable[0].card"),
    (("view", "unplayable"), [{"card": "7", "reason": "7 would make 101"}], "state.view.unplayable[0].why"),
    (("view", "unplayable"), [{"card": "7", "why": "would_make", "params": {"card": 7}}],
     "state.view.unplayable[0].reason"),
    (("view", "unplayable"), [{"card": "7", "why": "would_make", "params": {"card": 7.5}, "reason": ""}],
     "state.view.unplayable[0].params.card"),
    (("view", "unplayable"), [["7"]], "state.view.unplayable[0]"),
    (("events",), [{"e": "play", "seat": 5, "cards": ["7"], "total": 7}], "state.events[0].seat"),
    (("events",), [{"e": "draw", "seat": 0}], "state.events[0].card"),
    (("clock",), "soon", "state.clock"),
    (("controlled_by_bot",), [False], "state.controlled_by_bot"),
    (("view",), None, "state.view"),
    (("version",), None, None),
])
def test_a_bad_field_is_refused_with_a_reason_naming_the_message_and_the_field(
        path: tuple[str, ...], value: Any, named: str | None) -> None:
    message = copy.deepcopy(STATE)
    target = message
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    if named is None:  # an unknown extra field is ignored
        assert isinstance(decode_server_message(message), State)
        return
    with pytest.raises(ProtocolError) as caught:
        decode_server_message(message)
    assert caught.value.code == "bad_field" and named in caught.value.reason


def test_an_unplayable_card_decodes_with_its_key_and_params_and_extra_fields_are_ignored() -> None:
    entry = {"card": "9", "why": "would_make", "params": {"card": 9, "total": 101}, "reason": "9 would make 101",
             "hint": "play a lower card", "severity": 2}
    state = decode_server_message({**STATE, "view": {**VIEW, "unplayable": [entry]}})
    assert isinstance(state, State)
    assert state.view.unplayable == (Unplayable(card="9", why="would_make", params={"card": 9, "total": 101},
                                                reason="9 would make 101"),)


def test_an_unplayable_card_of_a_server_that_sends_only_the_english_reason_decodes_without_a_key() -> None:
    state = decode_server_message({**STATE, "view": {**VIEW, "unplayable": [["9", "9 would make 101"]]}})
    assert isinstance(state, State)
    assert state.view.unplayable == (Unplayable(card="9", why="", params={}, reason="9 would make 101"),)


def test_a_missing_type_is_refused_and_an_unknown_type_or_event_is_kept_apart() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_server_message({"table": 1})
    assert caught.value.code == "bad_message"
    assert decode_server_message({"t": "fireworks", "colour": "red"}) == UnknownMessage("fireworks")
    state = decode_server_message({**STATE, "events": [{"e": "fireworks"}]})
    assert isinstance(state, State) and state.events == (UnknownEvent("fireworks"),)


def test_seats_of_a_table_are_checked_against_the_table() -> None:
    with pytest.raises(ProtocolError, match=r"table\.table\.you"):
        decode_server_message({"t": "table", "table": {**TABLE, "you": 2}})
    with pytest.raises(ProtocolError, match=r"table\.table\.seats\[1\]\.kind"):
        decode_server_message({"t": "table", "table": {**TABLE, "seats": [SEAT, {**SEAT, "kind": "ghost"}]}})


# --- any input ---------------------------------------------------------------------------------------
SCALARS = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats()
           | st.text(max_size=20) | st.binary(max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a message a value sits at (map keys and list indexes)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += paths(item, (*prefix, i))
    return found


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A good message with one to three places replaced by anything, or removed."""
    message: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(GOOD)))
    for _ in range(draw(st.integers(1, 3))):
        where = paths(message)
        if not where:
            break
        path = draw(st.sampled_from(where))
        target = message
        for key in path[:-1]:
            target = target[key]
        if isinstance(target, dict) and draw(st.booleans()):
            del target[path[-1]]
        else:
            target[path[-1]] = draw(VALUES | st.sampled_from([-1, 0, 1, 2, 8, 2**31, "", "REV", "nope", None]))
    return message


@FUZZ
@given(mutated() | st.dictionaries(st.text(max_size=6), VALUES, max_size=4)
       | st.builds(lambda t, rest: {"t": t, **rest}, st.sampled_from([m["t"] for m in GOOD] + ["tables", "history",
                                                                      "profile", "leaderboard", "online", "notice"]),
                   st.dictionaries(st.text(max_size=8), VALUES, max_size=5)))
def test_any_message_decodes_or_is_refused_with_a_protocol_error(message: dict[str, Any]) -> None:
    try:
        decoded = decode_server_message(message)
    except ProtocolError as exc:
        assert exc.code in ("bad_field", "bad_message") and exc.reason and not exc.fatal
        return
    assert decoded.t in (message.get("t"), "unknown")
    assert decoded.t == "unknown" or as_declared(decoded), decoded


def test_a_value_not_of_its_declared_type_is_told_apart() -> None:
    """The check the properties above rely on can fail: a wrong scalar, a bool for an int, a wrong literal,
    a wrong item deep in a view."""
    for message in GOOD:
        assert as_declared(decode_server_message(message)), message
    welcome = decode_server_message(GOOD[2])
    assert isinstance(welcome, Welcome)
    assert not as_declared(dataclasses.replace(welcome, table="4"))  # type: ignore[arg-type]  # a wrong type on purpose
    assert not as_declared(dataclasses.replace(welcome, resumed=0))  # type: ignore[arg-type]  # a wrong type on purpose
    assert not as_declared(dataclasses.replace(welcome, version=True))
    state = decode_server_message(STATE)
    assert isinstance(state, State)
    # a wrong type on purpose, below
    assert not as_declared(dataclasses.replace(state, view=dataclasses.replace(state.view, edition="1999")))  # type: ignore[arg-type]
    # a wrong type on purpose, below
    assert not as_declared(dataclasses.replace(state, view=dataclasses.replace(state.view, hand=("4", 3))))  # type: ignore[arg-type]
    assert not as_declared(dataclasses.replace(state, clock=math.nan))
    assert conforms((1, 2), tuple[int, ...]) and not conforms([1, 2], tuple[int, ...])
    assert set(SERVER_TYPES) >= {"welcome", "state", "table", "chat", "error", "bye"}


@FUZZ
@given(st.lists(mutated(), min_size=1, max_size=4))
def test_whatever_decodes_the_apps_model_takes_in_without_failing(messages: list[dict[str, Any]]) -> None:
    """The checks are enough for the reader: every message that decodes is taken in by the app's model,
    and its questions answered, whatever seat numbers and sizes it holds (within what the decoder allows)."""
    model = Model(my_name="Ada")
    model.apply(decode_server_message({"t": "table", "table": TABLE}))
    for message in messages:
        try:
            decoded = decode_server_message(message)
        except ProtocolError:
            continue
        model.apply(decoded)
        model.ranking()
        model.reason_for("7")
        assert model.my_turn in (True, False) and isinstance(model.edition, str)
