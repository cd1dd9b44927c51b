"""Simulated arena players, written from docs/protocol.md section 6b: a protocol client joins an arena,
plays every game it is seated at (a random legal action whenever its view lets it act) and notes what
it saw, until the arena is over; on a cluster it connects again when its connection ends (sent on to
another node, or its node killed). Used by tests/test_arena_server.py, tests/test_arena_cluster.py and
bench/arena.py."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

from ono99_kernel.core.arena import Arena, recount
from ono99_kernel.core.record import replay
from ono99_kernel.wire.requests import Act, JoinArena
from ono99_tui.client.connection import Client
from ono99_tui.client.errors import ConnectionLost, ServerError
from tests.server_helpers import LATE_ACT_ERRORS, TIMEOUT, TestClient, may_act


@dataclass
class ArenaLog:
    """What one simulated player saw."""

    name: str
    tables: list[int] = field(default_factory=list)  # the tables it was seated at, in order
    finished: list[int] = field(default_factory=list)  # the tables whose game's end it saw
    overlaps: int = 0  # seated again before its last game's end reached it
    gaps: list[float] = field(default_factory=list)  # seconds from a game's end to its next seating
    last: dict[str, Any] | None = None  # the last ``arena`` message
    errors: list[dict[str, Any]] = field(default_factory=list)
    reconnections: int = 0
    unseen: list[int] = field(default_factory=list)  # tables whose game's end was lost with a connection


Reconnect = Callable[[Client], Awaitable[Client]]  # a new connection for the player whose connection ended


async def arena_player(client: Client, name: str, rng: random.Random, *, arena: int | None = None,
                       code: str | None = None, timeout: float = TIMEOUT, reconnect: Reconnect | None = None
                       ) -> ArenaLog:
    """Join the arena (by id or code), play until it is over and this player is in no game; the log.
    ``reconnect``: how it connects again when its connection ends (else that ends it)."""
    loop = asyncio.get_running_loop()
    log = ArenaLog(name)
    acted: set[tuple[int, int, int]] = set()
    current: int | None = None
    ended_at: float | None = None

    def seated(table: int, away: bool = False) -> None:
        """Seated at ``table`` (``away``: learnt at a welcome after a lost connection, which may have
        taken the end of the game before with it)."""
        nonlocal current, ended_at
        if current is not None and current not in log.finished:
            if away:
                log.unseen.append(current)
            else:
                log.overlaps += 1
        if ended_at is not None:
            log.gaps.append(loop.time() - ended_at)
            ended_at = None
        current = table
        log.tables.append(table)

    await client.send(JoinArena(arena=arena, code=code))
    while True:
        try:
            message = await client.recv(timeout)
        except TimeoutError:
            seen = client.received[-3:] if isinstance(client, TestClient) else []
            raise AssertionError(f"{name}: nothing for {timeout:g} s, at table {current} (seated at {log.tables[-3:]}, "
                                 f"finished {log.finished[-3:]}); the last messages: {seen}") from None
        except ConnectionLost:
            if reconnect is None:
                raise
            client = await reconnect(client)
            log.reconnections += 1
            seat = client.welcome.get("table")  # seated while away (its ``arena_game`` went to no connection)
            if seat is not None and seat != current:
                seated(seat, away=True)
            elif seat is None and current is not None and current not in log.finished:
                log.unseen.append(current)  # its table is gone (died unplayed with its node, or over)
                current = None
            continue
        kind = message.get("t")
        if kind == "arena_game":
            seated(message["table"])
        elif kind == "table" and message["table"]["id"] != current and message["table"]["status"] == "playing" and any(
                seat.get("kind") == "human" and seat.get("name") == name for seat in message["table"]["seats"]):
            seated(message["table"]["id"], away=True)  # back in a seat after a lost node (its table taken over)
        elif kind == "state" and current is not None and message["table"] == current:
            view = message["view"]
            if view["winner"] is not None:
                if current not in log.finished:
                    log.finished.append(current)
                    ended_at = loop.time()
                if log.last is not None and log.last["arena"]["status"] == "finished":
                    return log
            elif may_act(view) and (current, message["game_no"], view["version"]) not in acted:
                acted.add((current, message["game_no"], view["version"]))
                try:
                    await client.send(Act(action=rng.choice(view["legal"]), version=view["version"]))
                except (ConnectionLost, OSError):
                    if reconnect is None:
                        raise  # else the next read finds the connection ended
        elif kind == "arena":
            log.last = message
            if message["arena"]["status"] == "finished" and (current is None or current in log.finished):
                return log
        elif kind == "error":
            if message.get("ref") == "act" and message.get("code") in LATE_ACT_ERRORS:
                continue
            log.errors.append(message)
            raise AssertionError(f"{name}: {message}")


def reconnecting(ports: Sequence[int], opened: list[TestClient], patience: float
                 ) -> Callable[[Client], Awaitable[TestClient]]:
    """How a simulated player of a cluster connects again, as a client of the server does: the node it
    was at (which may send it on to its table's node), else the others, with its resume token, until
    one welcomes it (at most ``patience`` seconds). Each new connection is added to ``opened``."""
    async def reconnect(old: Client) -> TestClient:
        assert old.address is not None
        refused: Exception | None = None
        order = [old.address[1], *(p for p in ports if p != old.address[1])]
        loop = asyncio.get_running_loop()
        end = loop.time() + patience
        while True:
            for port in order:
                try:
                    client = await TestClient.connect("127.0.0.1", port, old.welcome["name"], resume=old.resume_token)
                except (OSError, TimeoutError, ServerError, ConnectionLost) as exc:
                    refused = exc
                    continue
                opened.append(client)
                return client
            if loop.time() > end:
                raise AssertionError(f"{old.welcome['name']} found no node to connect to (the last: {refused!r})")
            await asyncio.sleep(0.1)

    return reconnect


def pairing_node(database: str, arena_id: int) -> str | None:
    """The node whose lease to pair the arena holds now (server/ono99_server/cluster_arena.py)."""
    with psycopg.connect(database) as pg:
        row = pg.execute("SELECT node FROM arena_pairers WHERE arena = %s AND lease_until > now()",
                         (arena_id,)).fetchone()
    return None if row is None else str(row[0])


def end_now(database: str, arena_id: int) -> None:
    """Move the arena's start back in its row so that it ends now: on a cluster the row is the truth
    every node reads, so this stands for its time running out."""
    with psycopg.connect(database) as pg:
        pg.execute("UPDATE arenas SET meta = jsonb_set(meta::jsonb, '{start}', to_jsonb(%s::float8 - 60 * "
                   "(meta::jsonb ->> 'minutes')::float8))::text WHERE id = %s", (time.time(), arena_id))


@dataclass(frozen=True)
class ArenaCheck:
    """An arena read back from PostgreSQL after its end, checked against its saved records."""

    arena: Arena
    games: int  # counted, each once
    recount_equal: bool  # the standings equal a recount of the saved results


def check_arena_in_database(database: str, arena_id: int, logs: Sequence[ArenaLog]) -> ArenaCheck:
    """Read the arena and its games back from the database and check them: every game recorded at one
    of its tables is counted exactly once (its result row holds that record's id), every game a player
    saw end is among them, the rankings are those of the records replayed, nobody was seated again
    before their game's end reached them (or, when a lost connection took that end with it, before
    the game was counted, or its table died unplayed with its node), and the podium shown is the first
    three of the standings."""
    with psycopg.connect(database) as pg:
        ((meta,),) = pg.execute("SELECT meta FROM arenas WHERE id = %s", (arena_id,)).fetchall()
        rows = pg.execute("SELECT g.game, g.table_id, g.players, g.ranking, g.game_id, r.table_id, r.record "
                          "FROM arena_games g JOIN games r ON r.id = g.game_id WHERE g.arena = %s "
                          "ORDER BY g.counted", (arena_id,)).fetchall()
        tables = [int(t) for (t,) in pg.execute("SELECT table_id FROM arena_games WHERE arena = %s",
                                                (arena_id,)).fetchall()]
        records = pg.execute("SELECT id FROM games WHERE table_id = ANY(%s)", (tables,)).fetchall()
        unseen = {table for log in logs for table in log.unseen}  # over before the next seating, or never played
        recorded = {int(t) for (t,) in pg.execute("SELECT table_id FROM games WHERE table_id = ANY(%s)",
                                                  (sorted(unseen),)).fetchall()}  # the others died with their node
    arena = Arena.from_mapping(json.loads(meta), time.time())
    assert not arena.running and arena.status(time.time()) == "finished"
    assert len(rows) == len(arena.counted)
    assert sorted(int(i) for (i,) in records) == sorted(int(r[4]) for r in rows), "a recorded game not counted once"
    assert all(int(r[1]) == int(r[5]) for r in rows), "a result kept with another table's record"
    seen = {table for log in logs for table in log.finished}
    assert seen <= {int(r[1]) for r in rows}, "a game a player saw end was not counted"
    assert unseen <= {int(r[1]) for r in rows} | (unseen - recorded), \
        "a player seated again while their game (end unseen) went on"
    assert all(log.overlaps == 0 for log in logs), "a player seated again before their game ended"
    recounted = []
    for game, _, paired, ranking, _, _, record in rows:
        played = replay(json.loads(record))
        outcome = played.game.outcome
        assert outcome is not None
        assert [played.players[s].name for s in outcome.ranking] == json.loads(ranking)
        recounted.append((int(game), json.loads(paired), json.loads(ranking)))
    equal = {p.name: p.points for p in arena.players.values() if p.games} == recount(arena, recounted)
    assert equal, "the standings differ from a recount of the saved results"
    shown = [log.last for log in logs if log.last is not None]
    assert shown and all(m["arena"]["status"] == "finished" for m in shown)
    assert all(m["podium"] == [p.name for p in arena.standings() if p.games][:3] for m in shown)
    return ArenaCheck(arena, len(rows), equal)
