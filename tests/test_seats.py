"""History that is never lost nor repeated, and seats nobody loses by accident, against a real
server over loopback TCP with a real SQLite file (and a real ``ono99 serve`` process for kill -9)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.wire.requests import (
    GiveSeat,
    Join,
    Kick,
    Leave,
    Ping,
    Rematch,
    RemoveBot,
    Say,
    Sit,
    Spectate,
    Stand,
    Start,
)
from tests.server_helpers import (
    FAST_PLAY,
    Store,
    TestClient,
    alice_and_bob_on_a_server_to_kill,
    create_table,
    join,
    play,
    play_all,
    running_server,
    start,
    storage_barrier,
    wait_until,
)


def numbered(messages: list[dict[str, Any]], kinds: tuple[str, ...] = ("history", "state")) -> list[tuple[int, str]]:
    """(seq, event kind) of every event in ``messages`` of ``kinds``, as the protocol numbers them:
    the last event of a message has its ``seq``, the ones before count up to it."""
    out = []
    for m in messages:
        if m["t"] in kinds:
            first = m["seq"] - len(m["events"]) + 1
            out += [(first + i, e["e"]) for i, e in enumerate(m["events"])]
    return out


def latest_state(client: TestClient, default: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The last state the client has read (a wait for another message may have read past some)."""
    return next((m for m in reversed(client.received) if m["t"] == "state"), default)


def since(client: TestClient, index: int, kind: str) -> list[dict[str, Any]]:
    return [m for m in client.received[index:] if m["t"] == kind]


async def test_a_resumed_client_gets_exactly_what_it_missed_and_what_its_stand_in_did(tmp_path: Path) -> None:
    """Alice's connection drops mid-game; while she is away a bot plays for her and Bob chats. She
    comes back with the last seq and chat id she saw: she gets the events Bob saw meanwhile, each
    once, numbered on from hers (no log started over), only Bob's new chat line, and a line saying
    what her stand-in played."""
    async with running_server(tmp_path, grace_seconds=60, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=3, bots=1)
        await join(bob, table_id)
        await bob.request(Say(text="hello"), "chat")
        await alice.expect("chat")
        await start(alice)
        alice_log, bob_log = await play_all([alice, bob], seed=1, stop=lambda m: m["view"]["version"] >= 3)
        seen_seq = alice_log.states[-1]["seq"]
        token = alice.resume_token
        alice.writer.transport.abort()  # the network fails
        await wait_until(lambda: h.server.lobby.members["alice"].connection is None, "the server to notice")
        mark = len(bob.received)

        def stand_in_played(m: dict[str, Any]) -> bool:
            return m["seq"] > seen_seq and any(e["e"] == "play" and e["seat"] == 0 for e in m["events"])

        await play(bob, random.Random(2), stop=stand_in_played, initial=bob_log.states[-1])
        await bob.request(Say(text="where did you go?"), "chat")
        bob_saw = [e for e in numbered(since(bob, mark, "state")) if e[0] > seen_seq]

        back = await TestClient.connect("127.0.0.1", h.port, "alice", resume=token,
                                        seen={"table": table_id, "seq": seen_seq, "chat": 1})
        h.clients.append(back)
        state = await back.expect("state")
        await back.expect("chat_history", where=lambda m: m["scope"] == "table")
        away = await back.expect("away")
        history = since(back, 0, "history")
        assert not any(m["reset"] for m in history)
        assert numbered(history) == bob_saw and bob_saw, "missed events not sent exactly once"
        assert state["events"] == [] and state["seq"] == bob_saw[-1][0]
        [chat] = [m for m in back.received if m["t"] == "chat_history" and m["scope"] == "table"]
        assert [(line["id"], line["text"]) for line in chat["messages"]] == [(2, "where did you go?")]
        assert away["table"] == table_id and away["text"].startswith("While you were away, a bot played for alice: ")


async def test_a_newcomer_gets_the_whole_game_so_far_and_numbers_go_on_across_games(tmp_path: Path) -> None:
    """Carol spectates a game in progress: she is sent its whole log from the deal (the log starts
    over), numbered without gaps up to the state. After a rematch, the new game's events are
    numbered on from the last one of the first game."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        carol = await h.connect("carol")
        table_id = await create_table(alice, seats=2, bots=1)
        await start(alice)
        part = await play(alice, random.Random(3), stop=lambda m: m["view"]["version"] >= 6)
        await carol.send(Spectate(table=table_id))
        state = await carol.expect("state")
        history = since(carol, 0, "history")
        assert history[0]["reset"] and not any(m["reset"] for m in history[1:])
        events = numbered(history)
        assert events[0] == (1, "hand_started") and [n for n, _ in events] == list(range(1, state["seq"] + 1))
        first_game = await play(alice, random.Random(3), initial=part.states[-1])
        last = first_game.states[-1]["seq"]
        await alice.send(Rematch())
        second = await alice.expect("state", where=lambda m: m["game_no"] == 2)
        assert numbered([second])[0] == (last + 1, "hand_started")


@pytest.mark.system
async def test_a_restarted_server_has_the_chat_and_log_and_its_stand_ins_play_at_once(
        tmp_path: Path, store: Store) -> None:
    """A real server process with a game of Alice, Bob and two bots and some table chat is killed
    with SIGKILL. A new process on the same database: before anybody returns, a spectator sees the
    game move on (stand-in bots play for the two who are away), gets the whole game's log from the
    deal, and the table chat; Alice returns to her seat and is told what her stand-in did."""
    async with alice_and_bob_on_a_server_to_kill(tmp_path, "0.05", store.db) as rig:
        first, second, clients = rig.first, rig.second, rig.clients
        alice, bob, table_id = rig.alice, rig.bob, rig.table_id
        for text in ("good luck", "you too"):
            await alice.request(Say(text=text), "chat", where=lambda m, t=text: m["text"] == t)
        await start(alice)
        before, _ = await play_all([alice, bob], seed=5, stop=lambda m: m["view"]["version"] >= 4)
        assert before.last_view["winner"] is None
        await storage_barrier(alice)
        await first.kill9()

        port = await second.start()
        carol = await TestClient.connect("127.0.0.1", port, "carol")
        clients.append(carol)
        await carol.send(Spectate(table=table_id))
        state = await carol.expect("state")
        [chat] = [m for m in carol.received if m["t"] == "chat_history" and m["scope"] == "table"]
        assert [(line["id"], line["text"], line["from"]) for line in chat["messages"]] == \
            [(1, "good luck", "alice"), (2, "you too", "alice")]
        history = since(carol, 0, "history")
        assert history[0]["reset"] and numbered(history)[0] == (1, "hand_started")
        # the moves made since and not yet saved when she came come with the state, numbered on
        assert [n for n, _ in numbered(history)] == list(range(1, state["seq"] - len(state["events"]) + 1))
        assert state["seq"] >= before.states[-1]["seq"]
        moved = await carol.expect("state", where=lambda m: m["seq"] > state["seq"])
        assert moved["controlled_by_bot"] == [True, True, True, True]  # nobody is back: stand-ins play

        back = await TestClient.connect("127.0.0.1", port, "alice", resume=alice.resume_token,
                                        seen={"table": table_id, "seq": before.states[-1]["seq"], "chat": 2})
        clients.append(back)
        await back.expect("state")
        history = since(back, 0, "history")
        assert not any(m["reset"] for m in history)
        assert numbered(history)[0][0] == before.states[-1]["seq"] + 1
        chat_back = await back.expect("chat_history", where=lambda m: m["scope"] == "table")
        assert chat_back["messages"] == []  # nothing said since she left
        plays_for_alice = [e for m in history for e in m["events"] if e["e"] == "play" and e["seat"] == 0]
        if plays_for_alice:
            away = await back.expect("away")
            assert f"{len(plays_for_alice)} card" in away["text"]


LONG_BOT_GAME_SEED = 6  # a deal whose game of three bots has 43 moves: 4.3 s of bot delays (the test checks)


async def test_a_tcp_spectator_is_not_idle_while_the_game_moves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a 1-second idle timeout, a TCP spectator that sends nothing watches a whole game of bots
    that lasts longer than that and is still connected at its end; then, nothing moving, it is closed
    as idle. The deal is fixed so that the bots' delays alone outlast the timeout (checked below)."""
    bot_delay = 0.1
    monkeypatch.setattr("ono99_server.table_room.secrets.randbits", lambda bits: LONG_BOT_GAME_SEED)
    async with running_server(tmp_path, idle_timeout=1.0, bot_delay=bot_delay) as h:
        host = await h.connect("host")
        watcher = await h.connect("watcher")
        table_id = await create_table(host, seats=3, bots=2)
        await host.send(Stand())  # the host watches: only bots play
        await host.expect("table", where=lambda m: m["table"]["you"] is None)
        await watcher.send(Spectate(table=table_id))
        await watcher.expect("table")
        loop = asyncio.get_running_loop()
        began = loop.time()
        await host.send(Start())
        await watcher.expect("state", where=lambda m: m["view"]["winner"] is not None, timeout=120)
        bot_moves = len(h.server.lobby.tables[table_id].runner.actions)
        assert bot_moves * bot_delay > 1.0, f"{bot_moves} bot moves: choose a deal with a longer game"
        assert loop.time() - began > 1.0, "the game was too short to show anything"
        bye = await watcher.expect("bye")
        assert bye["reason"] == "idle for too long"


async def test_a_late_friend_waits_then_takes_a_bots_seat_at_the_next_game(tmp_path: Path) -> None:
    """Alice plays two bots at a table whose host lets late joiners take bots' seats. Carol comes in
    during the game: joining is refused, she watches and asks to sit: she is told she will sit when
    the next game starts and is listed as waiting. When the game ends she is still watching (its
    result is that of its players); the rematch seats her in a bot's seat and deals her a hand. At a
    table without that option a waiting Dan is seated only when the host gives him a bot's seat."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice = await h.connect("alice")
        carol = await h.connect("carol")
        table_id = await create_table(alice, seats=3, bots=2, replace_bots=True)
        await start(alice)
        first = await alice.expect("state")
        refused = await carol.request(Join(table=table_id), "error")
        assert refused["code"] == "game_running"
        await carol.request(Spectate(table=table_id), "state")
        await carol.send(Sit())
        notice = await carol.expect("notice")
        assert "when the next game starts" in notice["text"]
        waiting = await carol.expect("table", where=lambda m: m["table"]["waiting"] == ["carol"])
        assert waiting["table"]["replace_bots"] is True and waiting["table"]["watchers"] == ["carol"]
        await play(alice, random.Random(8), initial=latest_state(alice, first))
        over = await carol.expect("table", where=lambda m: m["table"]["status"] == "finished")
        assert over["table"]["you"] is None and over["table"]["waiting"] == ["carol"]
        await alice.send(Rematch())
        seated = await carol.expect("table", where=lambda m: m["table"]["you"] is not None)
        seat = seated["table"]["you"]
        assert seated["table"]["seats"][seat] == {"kind": "human", "name": "carol", "level": None, "connected": True}
        assert seated["table"]["waiting"] == [] and seated["table"]["bots"] == 1
        dealt = await carol.expect("state", where=lambda m: m["game_no"] == 2)
        assert dealt["view"]["seat"] == seat and len(dealt["view"]["hand"]) > 0

        dan = await h.connect("dan")
        ben = await h.connect("ben")
        other = await create_table(ben, seats=2, bots=1)
        await ben.send(Start())
        game = await ben.expect("state")
        await dan.request(Spectate(table=other), "state")
        await dan.send(Sit())
        await dan.expect("notice")
        await play(ben, random.Random(9), initial=latest_state(ben, game))
        finished = await dan.expect("table", where=lambda m: m["table"]["status"] == "finished")
        assert finished["table"]["you"] is None and finished["table"]["waiting"] == ["dan"]
        refused = await dan.request(GiveSeat(seat=1, name="dan"), "error")
        assert refused["code"] == "not_host"
        await ben.send(GiveSeat(seat=1, name="dan"))
        given = await dan.expect("table", where=lambda m: m["table"]["you"] == 1)
        assert given["table"]["seats"][1]["name"] == "dan" and given["table"]["bots"] == 0


async def test_between_games_people_stand_sit_leave_and_the_host_removes(tmp_path: Path) -> None:
    """After a game: Bob stands up (he watches) and sits down again; a bot's seat is not his to take; the host
    removes a bot, then removes Bob, whose seat is then free; Carol sits and leaves, and her seat is
    free again. During a game the host cannot remove a bot or give a seat."""
    async with running_server(tmp_path, **FAST_PLAY) as h:
        alice, bob, carol = await h.connect("alice"), await h.connect("bob"), await h.connect("carol")
        table_id = await create_table(alice, seats=4, bots=1)
        await join(bob, table_id, seat=2)
        await start(alice)
        await bob.expect("state")
        assert (await alice.request(RemoveBot(seat=1), "error"))["code"] == "game_running"
        assert (await alice.request(GiveSeat(seat=1, name="bob"), "error"))["code"] == "game_running"
        await asyncio.gather(*(play(c, random.Random(11), initial=latest_state(c)) for c in (alice, bob)))
        table = h.server.lobby.tables[table_id]
        await wait_until(lambda: table.status == "finished", "the game to finish")

        await bob.send(Stand())
        await bob.expect("table", where=lambda m: m["table"]["you"] is None and "bob" in m["table"]["watchers"])
        assert (await bob.request(Sit(seat=3), "error"))["code"] == "seat_taken"  # a bot's
        await bob.send(Sit(seat=2))
        await bob.expect("table", where=lambda m: m["table"]["you"] == 2)
        await alice.send(RemoveBot(seat=1))
        await alice.expect("table", where=lambda m: m["table"]["seats"][1]["kind"] == "empty")
        await alice.send(Kick(seat=2))
        await bob.expect("left")
        await alice.expect("table", where=lambda m: m["table"]["seats"][2]["kind"] == "empty")
        assert await join(carol, table_id) == 1
        await carol.send(Leave())
        await carol.expect("left")
        detail = await alice.expect("table", where=lambda m: m["table"]["seats"][1]["kind"] == "empty")
        assert detail["table"]["free"] == 2


async def test_the_lobby_knows_who_is_online_and_where(tmp_path: Path) -> None:
    """Dan in the lobby gets the list of who is online on arrival, and again when Eve arrives, sits
    at a table and drops her connection (away, her seat kept); lobby chat reaches him with a
    numbered line."""
    async with running_server(tmp_path) as h:
        dan = await h.connect("dan")
        first = await dan.expect("online")
        assert first["players"] == [{"name": "dan", "table": None, "away": False}] and first["total"] == 1
        eve = await h.connect("eve")
        await dan.expect("online", where=lambda m: [p["name"] for p in m["players"]] == ["dan", "eve"])
        table_id = await create_table(eve, seats=2)
        await dan.expect("online", where=lambda m: {"name": "eve", "table": table_id, "away": False} in m["players"])
        await eve.send(Say(scope="lobby", text="anyone for a game?"))
        line = await dan.expect("chat", where=lambda m: m["scope"] == "lobby")
        assert (line["from"], line["text"], line["id"]) == ("eve", "anyone for a game?", 1)
        await eve.close()  # she keeps her seat for the grace period: away
        await dan.expect("online", where=lambda m: {"name": "eve", "table": table_id, "away": True} in m["players"])


async def test_a_game_that_does_not_move_does_not_keep_its_players_connected(tmp_path: Path) -> None:
    """With a 1-second idle timeout, two players who start a game without a clock and never move
    are closed as idle: only a moving game counts as activity."""
    async with running_server(tmp_path, idle_timeout=1.0) as h:
        alice, bob = await h.connect("alice"), await h.connect("bob")
        table_id = await create_table(alice, seats=2, turn_seconds=0)
        await join(bob, table_id)
        await start(alice)
        for client in (alice, bob):
            bye = await client.expect("bye")
            assert bye["reason"] == "idle for too long"


async def test_the_table_sees_at_once_when_a_bot_stands_in_and_when_the_player_is_back(tmp_path: Path) -> None:
    """Alice's connection drops mid-game and nothing moves (the bots wait long): Bob is sent a state
    whose ``controlled_by_bot`` marks her seat at once, and another that clears it when she is back,
    without waiting for the next move (the version stays the same)."""
    async with running_server(tmp_path, grace_seconds=60, bot_delay=600) as h:
        alice = await h.connect("alice")
        bob = await h.connect("bob")
        table_id = await create_table(alice, seats=2, turn_seconds=0)
        await join(bob, table_id)
        await start(alice)
        first = await bob.expect("state")
        version = first["view"]["version"]
        assert first["controlled_by_bot"] == [False, False]
        token = alice.resume_token
        alice.writer.transport.abort()  # the network fails
        away = await bob.expect("state", where=lambda m: m["controlled_by_bot"] == [True, False])
        assert away["view"]["version"] == version and away["events"] == []
        back = await TestClient.connect("127.0.0.1", h.port, "alice", resume=token,
                                        seen={"table": table_id, "seq": first["seq"]})
        h.clients.append(back)
        returned = await bob.expect("state", where=lambda m: m["controlled_by_bot"] == [False, False])
        assert returned["view"]["version"] == version and returned["events"] == []
        mine = await back.expect("state")
        assert mine["controlled_by_bot"] == [False, False]


async def test_a_spectators_first_state_never_shows_moves_it_was_not_sent(tmp_path: Path, store: Store) -> None:
    """A move is shown only once it is saved. Tried: the database thread is kept busy (a real job on
    it waits) while Alice's stand-in and a bot play on, then Carol comes to watch. She is sent the
    events shown so far and no state that runs ahead of them; once the database is free, her state
    comes with the moves it shows as its events, numbered on from her history."""
    import threading

    async with running_server(tmp_path, grace_seconds=60, bot_delay=0, **store.config) as h:
        storage = h.server.storage
        assert storage is not None
        alice = await h.connect("alice")
        carol = await h.connect("carol")
        table_id = await create_table(alice, seats=2, bots=1, turn_seconds=0)
        await start(alice)
        await alice.expect("state")
        await wait_until(lambda: h.server.lobby.tables[table_id].shown > 0, "the deal to be shown")
        table = h.server.lobby.tables[table_id]
        free = threading.Event()
        storage.submit(lambda db: free.wait(60))  # the database is busy: moves wait to be saved
        try:
            alice.writer.transport.abort()  # a stand-in plays for Alice at once, as the bot does
            await wait_until(lambda: table.game is not None and len(table.game.log) > table.shown + 4,
                             "moves made while the database is busy")
            await carol.send(Spectate(table=table_id))
            await carol.request(Ping(n=1), "pong")
            history = [m for m in carol.received if m["t"] == "history"]
            assert history and history[-1]["seq"] == table.last_seq
            assert not [m for m in carol.received if m["t"] == "state"], "a state ran ahead of the events sent"
        finally:
            free.set()
        state = await carol.expect("state")
        assert state["events"], "the moves the state shows come with it"
        assert state["seq"] - len(state["events"]) == history[-1]["seq"]


async def test_a_returning_players_away_comes_after_the_state_it_counts(tmp_path: Path, store: Store) -> None:
    """docs/protocol.md, section 10: table, history, state, chat_history, away. Tried with the
    database thread kept busy while Alice's stand-in plays: her state waits for those moves to be
    saved, and the table's chat_history and the away line wait for it, so away counts only plays
    she was shown."""
    import threading

    async with running_server(tmp_path, grace_seconds=60, bot_delay=0, **store.config) as h:
        storage = h.server.storage
        assert storage is not None
        alice = await h.connect("alice")
        token = alice.welcome["resume"]
        table_id = await create_table(alice, seats=2, bots=1, turn_seconds=0)
        await start(alice)
        await alice.expect("state")
        table = h.server.lobby.tables[table_id]
        await wait_until(lambda: table.shown > 0, "the deal to be shown")
        free = threading.Event()
        storage.submit(lambda db: free.wait(60))  # the database is busy: moves wait to be saved
        try:
            alice.writer.transport.abort()  # a stand-in plays for Alice at once, as the bot does
            await wait_until(lambda: table.game is not None and len(table.game.log) > table.shown + 4,
                             "moves made while the database is busy")
            back = await h.connect("alice", resume=token)
            await back.request(Ping(n=1), "pong")
            early = [m["t"] for m in back.received if m["t"] in ("state", "away", "chat_history")]
            assert early == ["chat_history"], early  # the lobby's only: the rest waits for the state
        finally:
            free.set()
        await back.expect("away")
        kinds = [(m["t"], m.get("scope")) for m in back.received if m["t"] in ("table", "history", "state",
                                                                              "chat_history", "away")]
        after = kinds[kinds.index(("history", None)):]
        assert after[-3:] == [("state", None), ("chat_history", "table"), ("away", None)], after
        shown = [e for m in back.received if m["t"] in ("history", "state") for e in m["events"]]
        away = next(m for m in back.received if m["t"] == "away")
        plays = [e for e in shown if e["e"] == "play" and e["seat"] == 0]
        assert away["params"]["plays"] <= len(plays)
        assert away["params"]["cards"].split(",")[-1] == (
            "ONO99x4" if len(plays[-1]["cards"]) == 4 else plays[-1]["cards"][0])  # the last play it counts was shown
