"""Play now and ratings, against a real server with a real SQLite file and real TCP clients."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import zlib
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from ono99_kernel.core.record import replay
from ono99_kernel.wire.common import as_edition
from ono99_kernel.wire.requests import (
    AskGameRecord,
    AskLeaderboard,
    AskProfile,
    Join,
    Leave,
    LeaveQueue,
    PlayNow,
    Rematch,
    Start,
)
from ono99_server.ratings import PROVISIONAL_GAMES, conservative
from ono99_server.storage import SqliteStorage
from ono99_tui.i18n import using
from tests.server_helpers import (
    FAST_PLAY,
    Store,
    TestClient,
    create_table,
    export_and_check,
    new_identity,
    play,
    running_server,
    seatings_saved,
    storage_barrier,
    wait_until,
)
from tests.wire import said_of


async def queued(client: TestClient, edition: str = "2022", seats: int = 2) -> dict[str, Any]:
    """Press play now; the answer that shows the client waiting."""
    return await client.request(PlayNow(edition=as_edition(edition), seats=seats), "queue",
                                where=lambda m: m["queued"] is not None)


async def seated(client: TestClient) -> dict[str, Any]:
    """The table a play-now client was seated at, once its game started (with them in a seat)."""
    message = await client.expect("table", where=lambda m: m["table"]["you"] is not None
                                  and m["table"]["status"] == "playing")
    return dict(message["table"])


async def test_two_players_pressing_play_now_land_at_the_same_table(tmp_path: Path) -> None:
    async with running_server(tmp_path, play_now_wait=3600) as h:
        ada = await h.connect("Ada", identity=new_identity())
        bob = await h.connect("Bob", identity=new_identity())
        first = await queued(ada, "1980", 2)
        assert first["queued"] == {"edition": "1980", "seats": 2, "waiting": 1, "position": 1,
                                   "fill_in": first["queued"]["fill_in"]}
        seen = await bob.expect("queue", where=lambda m: m["queues"] != [])  # the lobby sees the queue
        assert seen["queued"] is None and seen["queues"] == [{"edition": "1980", "seats": 2, "waiting": 1}]
        await bob.send(PlayNow(edition="1980", seats=2))
        table_a, table_b = await seated(ada), await seated(bob)
        assert table_a["id"] == table_b["id"]
        assert {table_a["you"], table_b["you"]} == {0, 1}
        assert table_a["edition"] == "1980" and [s["kind"] for s in table_a["seats"]] == ["human", "human"]
        state = await ada.expect("state")  # the game started at once
        assert state["table"] == table_a["id"] and state["view"]["seats"] == 2
        after = await ada.expect("queue")
        assert after["queued"] is None and after["queues"] == []


async def test_a_play_now_table_is_saved_with_all_its_players_from_its_first_save(tmp_path: Path) -> None:
    """Tried: two players pressing play now. Each save of the table they are seated at lists both: a
    crash between two saves cannot keep the table with one of them (each sat down was saved before)."""
    async with running_server(tmp_path, play_now_wait=3600) as h:
        ada, bob = await h.connect("Ada"), await h.connect("Bob")
        await queued(ada, "2022", 2)
        saved = seatings_saved(h.server)
        await bob.send(PlayNow(edition="2022", seats=2))
        table = await seated(bob)
        await bob.expect("state")
        assert saved[table["id"]] and all(sorted(names) == ["Ada", "Bob"] for names in saved[table["id"]]), saved


async def test_a_lone_player_gets_bots_after_the_wait(tmp_path: Path) -> None:
    async with running_server(tmp_path, play_now_wait=0.2, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        await queued(ada, "2022", 4)
        table = await seated(ada)
        assert [s["kind"] for s in table["seats"]] == ["human", "bot", "bot", "bot"]
        assert table["name"].startswith("Play now") and table["you"] == 0
        log = await play(ada, random.Random(1))
        assert log.last_view["winner"] is not None


async def test_players_of_other_queues_are_not_seated_together(tmp_path: Path) -> None:
    async with running_server(tmp_path, play_now_wait=3600) as h:
        ada = await h.connect("Ada")
        bob = await h.connect("Bob")
        await queued(ada, "2022", 2)
        await queued(bob, "2022", 3)
        await queued(ada, "2022", 3)  # Ada changes her mind: now two wait for three seats
        assert len(h.server.lobby.matchmaker.waiting) == 2 and not h.server.lobby.tables
        cy = await h.connect("Cy")
        await cy.send(PlayNow(seats=3))
        tables = {(await seated(c))["id"] for c in (ada, bob, cy)}
        assert len(tables) == 1


async def test_leaving_the_queue_works(tmp_path: Path) -> None:
    async with running_server(tmp_path, play_now_wait=3600) as h:
        ada = await h.connect("Ada")
        bob = await h.connect("Bob")
        await queued(ada)
        left = await ada.request(LeaveQueue(), "queue")
        assert left["queued"] is None and left["queues"] == []
        assert not h.server.lobby.matchmaker._timers  # no bots will come for her
        error = await ada.request(LeaveQueue(), "error")
        assert error["code"] == "not_queued"
        await queued(bob)  # alone: Ada, who left, is not seated with him
        assert [w.member.name for w in h.server.lobby.matchmaker.waiting.values()] == ["Bob"]
        assert not h.server.lobby.tables


async def test_joining_a_table_or_disconnecting_leaves_the_queue(tmp_path: Path) -> None:
    async with running_server(tmp_path, play_now_wait=3600) as h:
        ada = await h.connect("Ada")
        bob = await h.connect("Bob")
        await queued(ada, "2022", 3)
        await create_table(ada, seats=2)
        await wait_until(lambda: not h.server.lobby.matchmaker.waiting, "Ada out of the queue")
        await queued(bob, "2022", 3)
        await bob.close()
        await wait_until(lambda: not h.server.lobby.matchmaker.waiting, "Bob out of the queue")
        assert len(h.server.lobby.tables) == 1  # only Ada's own


async def test_play_now_is_refused_during_a_game_and_for_a_table_size_the_edition_has_not(tmp_path: Path) -> None:
    async with running_server(tmp_path, play_now_wait=3600) as h:
        ada = await h.connect("Ada")
        await create_table(ada, seats=2, bots=1, start=True)
        error = await ada.request(PlayNow(), "error")
        assert error["code"] == "game_running"
        bob = await h.connect("Bob")
        error = await bob.request(PlayNow(edition="2022", seats=8), "error")
        assert error["code"] in ("bad_options", "bad_field")
        assert not h.server.lobby.matchmaker.waiting


def _model_ratings(records: list[dict[str, Any]], edition: str) -> dict[str, tuple[float, float]]:
    """Every player's rating computed by openskill itself from the records, in order: each seat a
    team of one ranked by the game's final ranking (bots of one level share its rating: the mean
    of their seats' results)."""
    model = PlackettLuce()
    ratings: dict[str, tuple[float, float]] = {}
    for record in records:
        outcome = replay(record).game.outcome
        assert outcome is not None
        ranking = outcome.ranking
        place = {seat: i + 1 for i, seat in enumerate(ranking)}
        names = [p["name"] if p["kind"] == "human" else p["kind"] for p in record["players"]]
        teams = [[model.rating(*ratings.get(n, (model.mu, model.sigma)))] for n in names]
        after = model.rate(teams, ranks=[float(place[s]) for s in range(len(names))])
        new: dict[str, list[tuple[float, float]]] = {}
        for name, team in zip(names, after, strict=True):
            new.setdefault(name, []).append((team[0].mu, team[0].sigma))
        for name, values in new.items():
            ratings[name] = (sum(v[0] for v in values) / len(values), sum(v[1] for v in values) / len(values))
    return ratings


async def test_rating_updates_match_openskill_on_the_recorded_games(tmp_path: Path, store: Store) -> None:
    """Ada and Bob play three games with two greedy bots; the server's ratings are openskill's own
    Plackett-Luce computation on the exported records."""
    async with running_server(tmp_path, **store.config, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        bob = await h.connect("Bob", identity=new_identity())
        table_id = await create_table(ada, seats=4, bot_level="greedy")
        await bob.send(Join(table=table_id))
        await bob.expect("table", where=lambda m: m["table"]["you"] is not None)
        for game in range(3):
            await ada.send(Start() if game == 0 else Rematch())
            await asyncio.gather(play(ada, random.Random(game)), play(bob, random.Random(game + 10)))
        await storage_barrier(ada)
        records = await export_and_check(store.db, tmp_path / "games.jsonl")
        assert len(records) == 3
        expected = _model_ratings(records, "2022")
        board = await ada.request(AskLeaderboard(edition="2022"), "leaderboard")
        rows = {row["name"]: row for row in board["rows"]}
        for name in ("Ada", "Bob"):
            mu, sigma = expected[name]
            assert abs(rows[name]["mu"] - mu) < 1e-3 and abs(rows[name]["sigma"] - sigma) < 1e-3
            assert rows[name]["rating"] == round(conservative(mu, sigma), 2)
            assert rows[name]["games"] == 3 and rows[name]["rated"] == 3 and rows[name]["provisional"]
        assert [r["rating"] for r in board["rows"]] == sorted((r["rating"] for r in board["rows"]), reverse=True)
        [bot] = board["bots"]
        assert bot["level"] == "greedy" and abs(bot["mu"] - expected["bot:greedy"][0]) < 1e-3
        profile = await ada.request(AskProfile(), "profile")
        assert profile["name"] == "Ada" and profile["you"] is True
        [edition] = profile["editions"]
        assert edition["edition"] == "2022" and edition["games"] == 3
        assert edition["win_rate"] == round(edition["wins"] / 3, 4)
        assert [g["game"] for g in profile["history"]] == [1, 2, 3]
        assert profile["history"][-1]["rating"] == rows["Ada"]["rating"]
        assert [g["game"] for g in profile["recent"]] == [3, 2, 1]
        assert profile["recent"][0]["players"] == [p["name"] for p in records[2]["players"]]
        other = await bob.request(AskProfile(name="ada"), "profile")  # a name as typed
        assert other["name"] == "Ada" and other["you"] is False and other["editions"] == profile["editions"]
        fetched = await bob.request(AskGameRecord(game=2), "game_record")
        assert json.loads(zlib.decompress(fetched["record"])) == records[1]
        error = await bob.request(AskGameRecord(game=99), "error")
        assert error["code"] == "no_record" and error["params"] == {"game": 99}
        with using("de"):
            assert "99" in said_of(error) and said_of(error) != error["reason"]


async def test_ratings_survive_a_server_restart(tmp_path: Path, store: Store) -> None:
    key = new_identity()
    async with running_server(tmp_path, **store.config, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=key)
        await create_table(ada, seats=2, bots=1, bot_level="random", start=True)
        await play(ada, random.Random(4))
        await storage_barrier(ada)
        before = await ada.request(AskLeaderboard(edition="2022"), "leaderboard")
        notices = [m for m in ada.received if m["t"] == "notice" and m.get("code") == "rating"]
        assert len(notices) == 1 and f"1 of {PROVISIONAL_GAMES} games" in notices[0]["text"]
        with using("en"):  # the client says the notice from its code and params as the server's text does
            assert said_of(notices[0]) == notices[0]["text"]
        with using("de"):
            assert f"1 von {PROVISIONAL_GAMES} Spielen" in said_of(notices[0])
    async with running_server(tmp_path, **store.config, **FAST_PLAY) as h:
        assert abs(h.server.lobby.ratings.known[("bot:random", "2022")][0] - before["bots"][0]["mu"]) < 1e-3
        ada = await h.connect("Ada", identity=key)
        after = await ada.request(AskLeaderboard(edition="2022"), "leaderboard")
        assert after["rows"] == before["rows"] and after["bots"] == before["bots"]
        assert after["rows"][0]["rated"] == 1
        await create_table(ada, seats=2, bots=1, bot_level="random", start=True)
        await play(ada, random.Random(5))
        await storage_barrier(ada)
        profile = await ada.request(AskProfile(), "profile")
        assert [g["game"] for g in profile["history"]] == [1, 2]  # the second game went on from the first


async def test_a_player_who_left_the_game_is_rated_last(tmp_path: Path, store: Store) -> None:
    """The stand-in rule applied to places: Bob leaves at once and a bot plays his seat to the end;
    whatever place the bot reached, Bob is rated last, and the game counts for him."""
    async with running_server(tmp_path, **store.config, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        bob = await h.connect("Bob", identity=new_identity())
        table_id = await create_table(ada, seats=3, bot_level="random")
        await bob.send(Join(table=table_id))
        await bob.expect("table", where=lambda m: m["table"]["you"] is not None)
        await ada.send(Start())
        await bob.expect("state")
        await bob.request(Leave(), "left")
        await play(ada, random.Random(7))
        await storage_barrier(ada)
        profile = await ada.request(AskProfile(name="Bob"), "profile")
        [game] = profile["recent"]
        assert game["place"] == 3 and game["credited"] is False and game["won"] is False
        assert profile["editions"][0]["games"] == 1


async def test_the_bots_that_fill_a_table_are_of_the_level_rated_nearest_its_players(tmp_path: Path) -> None:
    key = new_identity()
    async with running_server(tmp_path) as h:
        ada = await h.connect("Ada", identity=key)
        fingerprint = ada.welcome["identity"]
    db = sqlite3.connect(tmp_path / "x.db")
    with db:
        for identity, mu in (("bot:random", 10.0), ("bot:casual", 18.0), ("bot:strong", 31.0), (fingerprint, 16.5)):
            db.execute("INSERT INTO ratings(identity, edition, mu, sigma, games, wins) "
                       "VALUES (?, '2022', ?, 2.0, 30, 9)", (identity, mu))
    db.close()
    async with running_server(tmp_path, play_now_wait=0.2) as h:
        ada = await h.connect("Ada", identity=key)
        await queued(ada, "2022", 3)
        table = await seated(ada)
        assert [(s["kind"], s["level"]) for s in table["seats"]] == [
            ("human", None), ("bot", "casual"), ("bot", "casual")]
        bob = await h.connect("Bob")  # a guest counts as a new player (25): greedy, not yet rated, is nearest
        await queued(bob, "2022", 2)
        table = await seated(bob)
        assert [s["level"] for s in table["seats"]] == [None, "greedy"]


def test_players_the_stand_in_rule_does_not_credit_share_the_last_place() -> None:
    from ono99_server.ratings import Entry, entries

    players: list[dict[str, Any]] = [{"name": "a", "kind": "human", "identity": "A", "credited": False},
               {"name": "b", "kind": "bot:strong", "identity": None},
               {"name": "c", "kind": "human", "identity": None, "credited": True},  # a guest
               {"name": "d", "kind": "human", "identity": "D", "credited": False},
               {"name": "e", "kind": "human", "identity": "E", "credited": True}]
    assert entries(players, ranking=[0, 3, 4, 1, 2], winner=0) == [
        Entry(0, "A", 4, won=False, credited=False),  # won the game while away: no win, last place
        Entry(1, "bot:strong", 2, won=False, credited=True),
        Entry(2, None, 3, won=False, credited=True),
        Entry(3, "D", 4, won=False, credited=False),
        Entry(4, "E", 1, won=False, credited=True),
    ]


async def test_the_last_player_leaving_a_play_now_game_of_bots_loses_it_on_record(tmp_path: Path) -> None:
    """Ada (with a key) plays now against three bots and leaves in the middle of the game. The bots
    play it out: the game is recorded, with Ada as the player of her seat, and counts as a
    game she played and did not win; then the table closes."""
    async with running_server(tmp_path, play_now_wait=0.2, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        await queued(ada, "2022", 4)
        table = await seated(ada)
        await ada.expect("state", where=lambda m: m["view"]["winner"] is None)
        await ada.request(Leave(), "left")
        await wait_until(lambda: table["id"] not in h.server.lobby.tables, "the table to close")
        await storage_barrier(ada)
        profile = await ada.request(AskProfile(), "profile")
        assert [(e["edition"], e["games"], e["wins"]) for e in profile["editions"]] == [("2022", 1, 0)]
        assert profile["recent"][0]["won"] is False and profile["recent"][0]["players"][0] == "Ada"
        assert isinstance(h.server.storage, SqliteStorage)
        with sqlite3.connect(h.server.storage.path) as db:
            records = [json.loads(r) for (r,) in db.execute("SELECT record FROM games WHERE table_id = ?",
                                                            (table["id"],))]
        assert len(records) == 1 and records[0]["players"][0]["name"] == "Ada"
