"""A series at a private table, a league among friends (docs/rules.md, "Series"): the points per place,
the standings counted after each game, kept over a server restart, and a dropped player's seat
playing on for them. Played through by real clients over loopback TLS against a real server with a
real SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.core.series import Series, place_points, points_table
from ono99_kernel.wire.requests import CreateTable, Join, Leave, Rematch, RemoveBot, Start, StartSeries
from ono99_server import Server
from tests.postgres import Cluster
from tests.redis_server import RedisServer
from tests.server_helpers import (
    FAST_PLAY,
    LATE_ACT_ERRORS,
    ServerProcess,
    Store,
    TestClient,
    play_all,
    server_config,
    storage_barrier,
    wait_until,
)
from tests.test_cluster import DB_POLL, nodes, owner_of


def test_the_points_of_each_place_for_two_to_eight_players() -> None:
    """The documented table: one point per player beaten, one more for the winner."""
    assert points_table(2) == (2, 0)
    assert points_table(3) == (3, 1, 0)
    assert points_table(4) == (4, 2, 1, 0)
    assert points_table(8) == (8, 6, 5, 4, 3, 2, 1, 0)
    with pytest.raises(ValueError):
        place_points(4, 4)


def test_a_series_of_games_ends_after_them_or_once_nobody_can_catch_up() -> None:
    """Best of 3 among three: the same winner twice leads by 4 with one game of 3 points left, so the
    series is over; equal points go to the one with more wins, then the better last place."""
    series = Series("games", 3)
    series.count(["ann", "bo", "cy"])
    assert not series.over
    series.count(["ann", "cy", "bo"])
    # bo and cy level on points and wins: cy was better in the last game
    assert [(e.name, e.points) for e in series.standings()] == [("ann", 6), ("cy", 1), ("bo", 1)]
    assert series.over and series.winner == "ann"
    level = Series("games", 2)
    level.count(["ann", "bo"])
    level.count(["bo", "ann"])
    assert level.over and level.winner == "bo"  # 2 points and 1 win each: bo won the last game
    first_to = Series("points", 4)
    first_to.count(["ann", "bo", "cy"])
    assert not first_to.over
    first_to.count(["bo", "ann", "cy"])
    # both reach 4 in the same game (1 + 3 for bo, 3 + 1 for ann), one win each: bo won the last game
    assert first_to.over and first_to.winner == "bo"
    with pytest.raises(ValueError):
        first_to.count(["ann", "bo", "cy"])
    with pytest.raises(ValueError):
        Series("games", 3).count(["ann", "ann"])
    assert Series.from_mapping(first_to.to_mapping()) == first_to


def series_of(message: dict[str, Any]) -> dict[str, Any]:
    series = message["table"]["series"]
    assert series is not None
    return dict(series)


def points_by_name(series: dict[str, Any]) -> dict[str, int]:
    return {s["name"]: s["points"] for s in series["standings"]}


async def after_game(client: TestClient, played: int) -> dict[str, Any]:
    """The series as the table says it once game ``played`` is counted."""
    message = await client.expect("table", where=lambda m: m["table"]["status"] == "finished"
                                  and (m["table"]["series"] or {}).get("played") == played)
    return series_of(message)


async def join_by_code(client: TestClient, code: str) -> int:
    await client.send(Join(code=code))
    detail = await client.expect("table", where=lambda m: m["table"]["you"] is not None)
    return int(detail["table"]["you"])


async def league_table(server: Server, names: list[str], games: int | None = None,
                       points: int | None = None) -> list[TestClient]:
    """The first of ``names`` hosts a private table of as many seats with a series of ``games`` or
    ``points`` (or none); the others join it by its code."""
    host = await TestClient.connect("127.0.0.1", server.port, names[0])
    await host.send(CreateTable(seats=len(names), private=True, turn_seconds=0, series_games=games,
                                series_points=points))
    detail = await host.expect("table")
    code = detail["table"]["code"]
    players = [host]
    for name in names[1:]:
        client = await TestClient.connect("127.0.0.1", server.port, name)
        await join_by_code(client, code)
        players.append(client)
    return players


def expected_points(rankings: list[list[str]]) -> dict[str, int]:
    points: dict[str, int] = {}
    for ranking in rankings:
        for place, name in enumerate(ranking):
            points[name] = points.get(name, 0) + place_points(len(ranking), place)
    return points


async def test_a_league_of_three_games_is_played_through_with_standings_after_each(tmp_path: Path) -> None:
    """Ann hosts a private table of three with a best-of-3 series; Bo and Cy join by code. Each game's
    ranking adds its places' points; after each game every player's table shows the same standings, and
    after the third the series' winner. Bo drops in the second game: his seat plays on for him (a
    stand-in), he keeps his place and points, and the stand-in's results count for him."""
    server = Server(server_config(tmp_path, grace_seconds=600, **FAST_PLAY))
    await server.start()
    players: list[TestClient] = []
    try:
        players = await league_table(server, ["ann", "bo", "cy"], games=3)
        ann, bo, cy = players
        names = ["ann", "bo", "cy"]
        rankings: list[list[str]] = []
        await ann.send(Start())
        logs = await play_all(players, seed=1)
        rankings.append([names[s] for s in logs[0].last_view["ranking"]])
        for client in players:
            series = await after_game(client, 1)
            assert points_by_name(series) == expected_points(rankings)
            assert series["kind"] == "games" and series["target"] == 3 and series["places"] == [3, 1, 0]
            assert series["winner"] is None

        await ann.send(Rematch())
        first = await bo.expect("state", where=lambda m: m["game_no"] == 2)
        await bo.close()  # Bo's connection drops in the game: a stand-in plays his seat
        logs = await play_all([ann, cy], seed=2)
        rankings.append([names[s] for s in logs[0].last_view["ranking"]])
        assert first["view"]["winner"] is None
        series = await after_game(ann, 2)
        assert points_by_name(series) == expected_points(rankings)
        assert {s["name"]: s["games"] for s in series["standings"]} == {"ann": 2, "bo": 2, "cy": 2}
        await after_game(cy, 2)

        if series["winner"] is None:  # nobody led by more than a game can give: the third is played
            await ann.send(Rematch())
            logs = await play_all([ann, cy], seed=3)
            rankings.append([names[s] for s in logs[0].last_view["ranking"]])
            series = await after_game(ann, 3)
        assert points_by_name(series) == expected_points(rankings)
        best = max(expected_points(rankings).values())
        assert series["winner"] in [n for n, p in expected_points(rankings).items() if p == best]
        assert series["standings"][0]["name"] == series["winner"]
        assert sum(s["games"] for s in series["standings"]) == 3 * len(rankings)

        await ann.send(Rematch())  # after the series' end: the next one of the same length, from nothing
        fresh = await ann.expect("table", where=lambda m: m["table"]["status"] == "playing"
                                 and m["table"]["game_no"] == len(rankings) + 1)
        assert series_of(fresh)["played"] == 0 and series_of(fresh)["standings"] == []
    finally:
        for client in players:
            await client.close()
        await server.close()


async def test_the_standings_are_kept_over_a_restart_of_the_server(tmp_path: Path, store: Store) -> None:
    """After the first game of a first-to-8 series the server shuts down and a new one starts on its
    database (SQLite, and PostgreSQL): Ann, back with her resume token, sees the same standings, and
    the next game's points are added to them."""
    server = Server(server_config(tmp_path, **store.config, **FAST_PLAY))
    await server.start()
    clients: list[TestClient] = []
    try:
        ann, bo = await league_table(server, ["ann", "bo"], points=8)
        clients += [ann, bo]
        await ann.send(Start())
        logs = await play_all([ann, bo], seed=4)
        names = ["ann", "bo"]
        rankings = [[names[s] for s in logs[0].last_view["ranking"]]]
        before = await after_game(ann, 1)
        await storage_barrier(ann)
        await server.close()
        server = Server(server_config(tmp_path, **store.config, **FAST_PLAY))
        await server.start()
        assert server.restored_tables == 1

        ann2 = await TestClient.connect("127.0.0.1", server.port, "ann", resume=ann.resume_token)
        bo2 = await TestClient.connect("127.0.0.1", server.port, "bo", resume=bo.resume_token)
        clients += [ann2, bo2]
        back = series_of(await ann2.expect("table"))
        assert back == before and points_by_name(back) == expected_points(rankings)
        for client in (ann2, bo2):
            await client.expect("state")  # the finished game, as they come back to it
        await ann2.send(Rematch())
        logs = await play_all([ann2, bo2], seed=5)
        rankings.append([names[s] for s in logs[0].last_view["ranking"]])
        after = await after_game(ann2, 2)
        assert points_by_name(after) == expected_points(rankings)
        assert (after["winner"] is not None) == (max(expected_points(rankings).values()) >= 8)
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_only_the_host_of_a_private_table_starts_a_series_between_games(tmp_path: Path) -> None:
    """Refused with a clear error and nothing changed: a series at a public table (at its creation,
    no table is made), a series of games and of points at once, a series asked by a player who does
    not host, and one during a game. The host's between games is taken, and one with neither field
    ends it."""
    server = Server(server_config(tmp_path))
    await server.start()
    clients: list[TestClient] = []
    try:
        dee = await TestClient.connect("127.0.0.1", server.port, "dee")
        clients.append(dee)
        await dee.send(CreateTable(seats=2, series_games=3))
        refused = await dee.error()
        assert refused["code"] == "bad_series" and refused["params"] == {"why": "private"}
        assert not server.lobby.tables
        await dee.send(CreateTable(seats=2, private=True, series_games=3, series_points=10))
        assert (await dee.error())["params"] == {"why": "both"}

        ann, bo = await league_table(server, ["ann", "bo"])
        clients += [ann, bo]
        await bo.send(StartSeries(games=5))
        assert (await bo.error())["code"] == "not_host"
        await ann.send(StartSeries(points=20))
        taken = series_of(await ann.expect("table", where=lambda m: m["table"]["series"] is not None))
        assert (taken["kind"], taken["target"], taken["played"]) == ("points", 20, 0)
        await ann.send(Start())
        await ann.send(StartSeries(games=5))  # taken after the start: the game runs
        logs = await play_all([ann, bo], seed=1, tolerated=("game_running", *LATE_ACT_ERRORS))
        [refused] = [e for e in logs[0].errors if e["code"] == "game_running"]
        assert refused["params"] == {"why": "series"} and refused["ref"] == "series"
        await ann.expect("table", where=lambda m: m["table"]["status"] == "finished")
        await ann.send(StartSeries())
        await ann.expect("table", where=lambda m: m["table"]["series"] is None)
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_a_server_killed_in_the_middle_of_a_series_game_counts_that_game_once(tmp_path: Path) -> None:
    """A real ``ono99 serve`` is killed with SIGKILL in the second game of a best-of-5 series between
    Ann and Bo, and a new one started on its database. Back with their resume tokens, they see the
    standings of the first game, play the second to its end, and it is counted once: the standings
    are the sum of the two games' places, two games each."""
    db = tmp_path / "live.db"
    args = ("--grace", "60", "--bot-delay", "10", "--turn-seconds", "0", "--messages-per-second", "10000")
    first = ServerProcess(db, tmp_path / "first.log", *args)
    second = ServerProcess(db, tmp_path / "second.log", *args)
    clients: list[TestClient] = []
    try:
        port = await first.start()
        ann = await TestClient.connect("127.0.0.1", port, "ann")
        clients.append(ann)
        await ann.send(CreateTable(seats=2, private=True, turn_seconds=0, series_games=5))
        code = (await ann.expect("table"))["table"]["code"]
        bo = await TestClient.connect("127.0.0.1", port, "bo")
        clients.append(bo)
        await join_by_code(bo, code)
        names = ["ann", "bo"]
        await ann.send(Start())
        logs = await play_all([ann, bo], seed=6)
        rankings = [[names[s] for s in logs[0].last_view["ranking"]]]
        counted = await after_game(ann, 1)
        await ann.send(Rematch())
        await play_all([ann, bo], seed=7, stop=lambda m: m["game_no"] == 2 and m["view"]["version"] >= 4)
        await first.kill9()

        second.port = first.port
        await second.start()
        ann2 = await TestClient.connect("127.0.0.1", second.port, "ann", resume=ann.resume_token)
        bo2 = await TestClient.connect("127.0.0.1", second.port, "bo", resume=bo.resume_token)
        clients += [ann2, bo2]
        assert series_of(await ann2.expect("table")) == counted
        logs = await play_all([ann2, bo2], seed=8)
        rankings.append([names[s] for s in logs[0].last_view["ranking"]])
        after = await after_game(ann2, 2)
        assert points_by_name(after) == expected_points(rankings)
        assert {s["name"]: s["games"] for s in after["standings"]} == {"ann": 2, "bo": 2}
    finally:
        for client in clients:
            await client.close()
        await first.stop()
        await second.stop()


async def test_a_1980_match_of_several_hands_counts_as_one_game_of_the_series(tmp_path: Path) -> None:
    """Ann plays a 1980 match (tokens: several hands) against two bots in a first-to-20 series: the
    match counts once, its places by the match's ranking, however many hands it took."""
    server = Server(server_config(tmp_path, **FAST_PLAY))
    await server.start()
    ann = await TestClient.connect("127.0.0.1", server.port, "ann")
    try:
        await ann.send(CreateTable(edition="1980", seats=3, bots=2, private=True, turn_seconds=0, series_points=20,
                                   start=True))
        log = await play_all([ann], seed=9)
        view = log[0].last_view
        assert view["hand_number"] > 0  # more than one hand was played
        series = await after_game(ann, 1)
        seats = next(m for m in reversed(ann.received) if m["t"] == "table")["table"]["seats"]
        names = [seat["name"] for seat in seats]
        assert points_by_name(series) == expected_points([[names[s] for s in view["ranking"]]])
        assert [s["games"] for s in series["standings"]] == [1, 1, 1]
    finally:
        await ann.close()
        await server.close()


@pytest.mark.system
async def test_a_series_table_taken_over_by_another_node_keeps_its_standings(
        tmp_path: Path, postgres_cluster: Cluster, redis_server: RedisServer) -> None:
    """Two cluster nodes on one PostgreSQL database. Ann hosts a best-of-5 series on n0 with Bo; after
    the first game, n0 is killed with SIGKILL in the second. Tried: n1 takes the table over (its
    lease), with the standings of the first game; Ann and Bo, sent on to n1 with their resume tokens,
    see them and finish the second game, which is counted once on top of them."""
    database = postgres_cluster.new_database()
    # stand-ins play every 10 s: the players are back long before they could finish the game for them
    async with nodes(tmp_path, database, redis_server.url, 2, "--bot-delay", "10") as (n0, n1):
        clients: list[TestClient] = []
        try:
            ann = await TestClient.connect("127.0.0.1", n0.port, "ann")
            clients.append(ann)
            await ann.send(CreateTable(seats=2, private=True, turn_seconds=0, series_games=5))
            detail = (await ann.expect("table"))["table"]
            bo = await TestClient.connect("127.0.0.1", n0.port, "bo")
            clients.append(bo)
            await join_by_code(bo, detail["code"])
            names = ["ann", "bo"]
            await ann.send(Start())
            logs = await play_all([ann, bo], seed=10)
            rankings = [[names[s] for s in logs[0].last_view["ranking"]]]
            counted = await after_game(ann, 1)
            await ann.send(Rematch())
            await play_all([ann, bo], seed=11, stop=lambda m: m["game_no"] == 2 and m["view"]["version"] >= 4)
            await storage_barrier(ann)
            await n0.kill9()

            await wait_until(lambda: owner_of(database, detail["id"]) == "n1", "n1 takes the table over", every=DB_POLL)
            back = []
            for old in (ann, bo):
                client = await TestClient.connect("127.0.0.1", n1.port, old.welcome["name"], resume=old.resume_token)
                clients.append(client)
                back.append(client)
            assert series_of(await back[0].expect("table")) == counted
            logs = await play_all(back, seed=12)
            rankings.append([names[s] for s in logs[0].last_view["ranking"]])
            after = await after_game(back[0], 2)
            assert points_by_name(after) == expected_points(rankings)
            assert {s["name"]: s["games"] for s in after["standings"]} == {"ann": 2, "bo": 2}
        finally:
            for client in clients:
                await client.close()


async def test_a_player_seated_again_beside_their_own_stand_in_is_counted_once(tmp_path: Path) -> None:
    """Bo leaves the first game: a stand-in ("bo (bot)") takes his seat and plays it out for him.
    Between games the host frees another seat and Bo sits there. In the second game the stand-in's
    result counts for the stand-in itself, and Bo's own seat for Bo: one game each, never two."""
    server = Server(server_config(tmp_path, **FAST_PLAY))
    await server.start()
    clients: list[TestClient] = []
    try:
        ann = await TestClient.connect("127.0.0.1", server.port, "ann")
        clients.append(ann)
        await ann.send(CreateTable(seats=3, private=True, turn_seconds=0, series_games=5))
        code = (await ann.expect("table"))["table"]["code"]
        bo = await TestClient.connect("127.0.0.1", server.port, "bo")
        clients.append(bo)
        assert await join_by_code(bo, code) == 1
        await ann.send(Start())
        await bo.expect("state")
        await bo.send(Leave())
        await bo.expect("left")
        await play_all([ann], seed=13)
        first = await after_game(ann, 1)
        assert {s["name"]: s["games"] for s in first["standings"]} == {"ann": 1, "bo": 1, "Bot 3": 1}
        await ann.send(RemoveBot(seat=2))
        await ann.expect("table", where=lambda m: m["table"]["seats"][2]["kind"] == "empty")
        await bo.send(Join(code=code, seat=2))
        await bo.expect("table", where=lambda m: m["table"]["you"] == 2)
        await bo.expect("state")  # the finished game, as he sits down
        await ann.send(Rematch())
        await play_all([ann, bo], seed=14)
        second = await after_game(ann, 2)
        assert {s["name"]: s["games"] for s in second["standings"]} == {"ann": 2, "bo": 2, "Bot 3": 1,
                                                                        "bo (bot)": 1}
    finally:
        for client in clients:
            await client.close()
        await server.close()
