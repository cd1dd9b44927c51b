"""Arenas on a cluster (server/ono99_server/cluster_arena.py), all real: the test run's PostgreSQL, a
``redis-server`` and three ``ono99 serve --cluster`` processes (the helpers of tests/test_cluster.py),
protocol clients written from docs/protocol.md section 6b (tests/arena_players.py) spread over the nodes,
and the node that pairs the arena killed with SIGKILL mid-arena."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from pathlib import Path

import pytest

from ono99_kernel.core.arena import Arena, recount
from ono99_kernel.core.record import replay
from ono99_kernel.wire.requests import CreateArena
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ConnectionLost, ServerError
from tests.arena_players import arena_player
from tests.redis_server import RedisServer
from tests.server_helpers import TestClient, wait_until
from tests.test_cluster import DB_POLL, LEASE, nodes, read

ARENA_ARGS = ("--arena-starts-in", "0", "--arena-bot-wait", "1")
PLAYERS = 9  # two-seat tables: one is left over, and bots fill their table after the wait


def counted(database: str, arena_id: int, after: int = 0) -> int:
    """How many of the arena's games are counted (``after``: of those paired after that game)."""
    return int(read(database, "SELECT count(*) FROM arena_games WHERE arena = %s AND ranking IS NOT NULL "
                    "AND game > %s", arena_id, after)[0][0])


def pairer(database: str, arena_id: int) -> str | None:
    rows = read(database, "SELECT node FROM arena_pairers WHERE arena = %s AND lease_until > now()", arena_id)
    return str(rows[0][0]) if rows else None


@pytest.mark.system
async def test_an_arena_on_three_nodes_goes_on_when_its_pairing_node_is_killed_and_counts_every_game_once(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Tried: a private arena of two-seat tables opened on n0, nine protocol clients joining it by its
    code at n0, n1 and n2 (three each); they are seated with players of other nodes (sent on to the
    table's node, as play now does) and play. Once four games are counted, the node holding the
    arena's pairing lease is killed (SIGKILL); its players connect again to the others. Another node
    takes the lease and pairs; once four games paired after the kill are counted, the arena's end is moved to now in
    its row (the test's stand-in for the clock), the games still running end, and the arena finishes.
    Checked from the database: every game recorded at an arena table is counted exactly once (its
    result row holds that record's id), every game a player saw end is among them, the standings in
    the arena's row equal a recount of the saved results, whose rankings are those of the records
    replayed; from the players: nobody was seated again before their game's end reached them (in two
    games at once), and the podium shown is the first three of the standings."""
    async with nodes(tmp_path, database, redis_server.url, 3, *ARENA_ARGS) as cluster:
        ports = [node.port for node in cluster]
        clients: list[TestClient] = []

        async def connect(name: str, port: int, resume: str | None = None) -> TestClient:
            client = await TestClient.connect("127.0.0.1", port, name, resume=resume)
            clients.append(client)
            return client

        async def reconnect(old: Client) -> Client:
            """As a client of the server does: the node it was at (it may have been sent on from there),
            else the others, with its resume token, until one welcomes it."""
            assert old.address is not None
            order = [old.address[1], *(p for p in ports if p != old.address[1])]
            end = asyncio.get_running_loop().time() + 10 * LEASE
            while True:
                for port in order:
                    with contextlib.suppress(OSError, TimeoutError, ServerError, ConnectionLost):
                        return await connect(old.welcome["name"], port, old.resume_token)
                if asyncio.get_running_loop().time() > end:
                    raise AssertionError(f"{old.welcome['name']} found no node to connect to")
                await asyncio.sleep(DB_POLL)

        try:
            creator = await connect("p0", ports[0])
            opened = await creator.request(CreateArena(minutes=5, seats=2, private=True), "arena")
            arena_id, code = opened["arena"]["id"], opened["code"]
            players = [creator, *[await connect(f"p{i}", ports[i % 3]) for i in range(1, PLAYERS)]]
            tasks = [asyncio.create_task(arena_player(c, f"p{i}", random.Random(i), code=code, timeout=60,
                                                      reconnect=reconnect))
                     for i, c in enumerate(players)]
            await wait_until(lambda: counted(database, arena_id) >= 4 or any(t.done() for t in tasks),
                             "four games counted", timeout=60, every=DB_POLL)
            first = pairer(database, arena_id)
            assert first is not None
            await cluster[int(first[1:])].kill9()  # the nodes are n0, n1, n2
            ((paired,),) = read(database, "SELECT max(game) FROM arena_games WHERE arena = %s", arena_id)
            await wait_until(lambda: counted(database, arena_id, paired) >= 4 or any(t.done() for t in tasks),
                             "four games paired after the kill counted", timeout=60, every=DB_POLL)
            assert pairer(database, arena_id) not in (None, first)
            read(database, "UPDATE arenas SET meta = jsonb_set(meta::jsonb, '{start}', to_jsonb(%s::float8))::text "
                 "WHERE id = %s RETURNING id", time.time() - 5 * 60, arena_id)
            logs = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        finally:
            for client in clients:
                await client.close()

        (meta,) = read(database, "SELECT meta FROM arenas WHERE id = %s", arena_id)[0]
        arena = Arena.from_mapping(json.loads(meta), time.time())
        rows = read(database, "SELECT g.game, g.table_id, g.players, g.ranking, g.game_id, r.table_id, r.record "
                    "FROM arena_games g JOIN games r ON r.id = g.game_id WHERE g.arena = %s ORDER BY g.counted",
                    arena_id)
        tables = {int(t) for (t,) in read(database, "SELECT table_id FROM arena_games WHERE arena = %s", arena_id)}
        records = read(database, "SELECT id, table_id FROM games WHERE table_id = ANY(%s)", sorted(tables))
        assert not arena.running and arena.status(time.time()) == "finished"
        assert len(rows) == len(arena.counted) >= 8
        assert sorted(int(i) for i, _ in records) == sorted(int(r[4]) for r in rows), "a recorded game not counted once"
        assert all(int(r[1]) == int(r[5]) for r in rows), "a result kept with another table's record"
        seen = {table for log in logs for table in log.finished}
        assert seen <= {int(r[1]) for r in rows}, "a game a player saw end was not counted"
        assert all(log.overlaps == 0 for log in logs), "a player seated again before their game ended"
        assert any(log.reconnections for log in logs), "nobody was sent on or lost their node"
        recounted = []
        for game, _, paired, ranking, _, _, record in rows:
            played = replay(json.loads(record))
            outcome = played.game.outcome
            assert outcome is not None
            assert [played.players[s].name for s in outcome.ranking] == json.loads(ranking)
            recounted.append((int(game), json.loads(paired), json.loads(ranking)))
        assert {p.name: p.points for p in arena.players.values() if p.games} == recount(arena, recounted)
        last = logs[0].last
        assert last is not None and last["arena"]["status"] == "finished"
        assert last["podium"] == [p.name for p in arena.standings() if p.games][:3]
