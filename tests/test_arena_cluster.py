"""Arenas on a cluster (server/ono99_server/cluster_arena.py), all real: the test run's PostgreSQL, a
``redis-server`` and three ``ono99 serve --cluster`` processes (the helpers of tests/test_cluster.py),
protocol clients written from docs/protocol.md section 6b (tests/arena_players.py) spread over the nodes,
and the node that pairs the arena killed with SIGKILL mid-arena."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from ono99_kernel.wire.requests import CreateArena
from tests.arena_players import arena_player, check_arena_in_database, end_now, pairing_node, reconnecting
from tests.redis_server import RedisServer
from tests.server_helpers import TestClient, wait_until
from tests.test_cluster import DB_POLL, LEASE, nodes, read

ARENA_ARGS = ("--arena-starts-in", "0", "--arena-bot-wait", "1")
PLAYERS = 9  # two-seat tables: one is left over, and bots fill their table after the wait


def counted(database: str, arena_id: int, after: int = 0) -> int:
    """How many of the arena's games are counted (``after``: of those paired after that game)."""
    return int(read(database, "SELECT count(*) FROM arena_games WHERE arena = %s AND ranking IS NOT NULL "
                    "AND game > %s", arena_id, after)[0][0])


@pytest.mark.system
async def test_an_arena_on_three_nodes_goes_on_when_its_pairing_node_is_killed_and_counts_every_game_once(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Tried: a private arena of two-seat tables opened on n0, nine protocol clients joining it by its
    code at n0, n1 and n2 (three each); they are seated with players of other nodes (sent on to the
    table's node, as play now does) and play. Once four games are counted, the node holding the
    arena's pairing lease is killed (SIGKILL); its players connect again to the others. Another node
    takes the lease and pairs; once four games paired after the kill are counted, the arena's end is
    moved to now in its row (the test's stand-in for the clock), the games still running end, and the
    arena finishes. Checked from the database (tests/arena_players.py, check_arena_in_database): every
    game recorded at an arena table is counted exactly once, every game a player saw end is among
    them, the standings in the arena's row equal a recount of the saved results, whose rankings are
    those of the records replayed; from the players: nobody was seated again before their game's end
    reached them (in two games at once), and the podium shown is the first three of the standings."""
    async with nodes(tmp_path, database, redis_server.url, 3, *ARENA_ARGS) as cluster:
        clients: list[TestClient] = []
        reconnect = reconnecting([node.port for node in cluster], clients, 10 * LEASE)
        try:
            for i in range(PLAYERS):
                clients.append(await TestClient.connect("127.0.0.1", cluster[i % 3].port, f"p{i}"))
            opened = await clients[0].request(CreateArena(minutes=5, seats=2, private=True), "arena")
            arena_id = opened["arena"]["id"]
            tasks = [asyncio.create_task(arena_player(c, f"p{i}", random.Random(i), code=opened["code"], timeout=60,
                                                      reconnect=reconnect))
                     for i, c in enumerate(list(clients))]
            await wait_until(lambda: counted(database, arena_id) >= 4 or any(t.done() for t in tasks),
                             "four games counted", timeout=60, every=DB_POLL)
            first = pairing_node(database, arena_id)
            assert first is not None
            await cluster[int(first[1:])].kill9()  # the nodes are n0, n1, n2
            ((paired,),) = read(database, "SELECT max(game) FROM arena_games WHERE arena = %s", arena_id)
            await wait_until(lambda: counted(database, arena_id, paired) >= 4 or any(t.done() for t in tasks),
                             "four games paired after the kill counted", timeout=60, every=DB_POLL)
            assert pairing_node(database, arena_id) not in (None, first)
            end_now(database, arena_id)
            logs = await asyncio.wait_for(asyncio.gather(*tasks), 180)  # a safety net: a busy machine plays slowly
        finally:
            for client in clients:
                await client.close()

        checked = check_arena_in_database(database, arena_id, logs)
        assert checked.games >= 8 and checked.recount_equal
        assert any(log.reconnections for log in logs), "nobody was sent on or lost their node"
