"""Arenas on a real server (docs/protocol.md section 6b, server/ono99_server/arena.py): real protocol clients over
loopback TLS, a real SQLite file. Who may open one, joining by invite code, a table seated as soon as
enough players are free and counted into the standings; and a whole arena of simulated players and
bots run to its end, checked against its saved records."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

from ono99_kernel.core.arena import recount
from ono99_kernel.core.record import check_lines, replay
from ono99_kernel.wire.requests import CreateArena, JoinArena, LeaveArena, Spectate
from ono99_kernel.wire.server import ErrorMessage, decode_server_message
from ono99_server import Server
from ono99_server.arena import arena_results
from ono99_server.storage import Database
from ono99_server.stores import export_records
from ono99_tui.i18n import using
from ono99_tui.reasons import said
from tests.arena_players import arena_player
from tests.server_helpers import (
    FAST_PLAY,
    Store,
    TestClient,
    new_identity,
    play_all,
    running_server,
    seatings_saved,
    server_config,
    storage_barrier,
    wait_until,
)

QUICK = {"arena_starts_in": 0.0, **FAST_PLAY}


async def test_a_guest_opens_a_private_arena_others_join_by_its_code_and_a_game_counts_into_its_standings(
        tmp_path: Path) -> None:
    """Tried: a public arena asked by a player who is no operator (refused), a private one (opened, with a
    code), its id asked by someone else (refused), its code (joined), then two players free at a
    two-seat arena: seated together at once, their game counted, and leaving keeps the points."""
    async with running_server(tmp_path, arena_bot_wait=600.0, **QUICK) as h:
        ada, bo = await h.connect("Ada"), await h.connect("Bo")
        await ada.send(CreateArena(minutes=30))
        refused = await ada.error()
        assert refused["code"] == "not_operator" and refused["ref"] == "arena_create"
        opened = await ada.request(CreateArena(minutes=30, seats=2, private=True, name="Tea time"), "arena")
        assert opened["arena"]["status"] == "running" and opened["arena"]["name"] == "Tea time"
        code = opened["code"]
        assert isinstance(code, str) and len(code) == 6 and not opened["joined"]
        await bo.send(JoinArena(arena=opened["arena"]["id"]))
        assert (await bo.error())["code"] == "no_arena"
        joined = await bo.request(JoinArena(code=code.lower()), "arena")
        assert joined["joined"] and joined["you"]["name"] == "Bo" and joined["arena"]["players"] == 1
        await ada.request(JoinArena(arena=opened["arena"]["id"]), "arena")
        seated = [await c.expect("arena_game") for c in (ada, bo)]
        assert seated[0]["table"] == seated[1]["table"] and seated[0]["starts_in"] == 0.0
        await play_all([ada, bo], seed=3)
        (table,) = {m["table"]["id"]: m for m in ada.received if m["t"] == "table"
                    and m["table"]["status"] == "playing"}.values()
        assert table["table"]["id"] == seated[0]["table"]
        assert sorted(s["name"] for s in table["table"]["seats"]) == ["Ada", "Bo"]
        after = await ada.expect("arena", where=lambda m: m["you"]["games"] == 1)
        points = {line["name"]: line["points"] for line in after["standings"]}
        assert sorted(points.values()) == [0, 2]  # two players: 2 for the winner, 0 (docs/rules.md, "Series")
        left = await bo.request(LeaveArena(), "arena", where=lambda m: not m["joined"])
        assert not left["joined"] and left["you"]["points"] == points["Bo"] and not left["you"]["present"]
        await bo.send(LeaveArena())
        assert (await bo.error())["code"] == "no_arena"


async def test_an_arena_table_is_saved_with_all_its_players_from_its_first_save(tmp_path: Path) -> None:
    """Tried: two players of a two-seat arena seated together. Each save of their new table lists both:
    before, the table was saved once per player sat down, so a node killed between two saves left the
    table with one of them and a bot in the other's seat, a game their arena could never count."""
    async with running_server(tmp_path, arena_bot_wait=600.0, **QUICK) as h:
        ada, bo = await h.connect("Ada"), await h.connect("Bo")
        opened = await ada.request(CreateArena(minutes=30, seats=2, private=True), "arena")
        await ada.request(JoinArena(arena=opened["arena"]["id"]), "arena")
        saved = seatings_saved(h.server)
        await bo.request(JoinArena(code=opened["code"]), "arena")
        seated = [await c.expect("arena_game") for c in (ada, bo)]
        await ada.expect("state", where=lambda m: m["table"] == seated[0]["table"])
        seatings = saved[seated[0]["table"]]
        assert seatings and all(sorted(names) == ["Ada", "Bo"] for names in seatings), seatings


async def test_an_arena_of_simulated_players_and_bots_run_to_its_end_counts_every_game_once(tmp_path: Path) -> None:
    """Tried: 22 protocol clients in a public arena of four-seat tables (22 leaves two over: bots fill
    their table after the wait), playing until 40 games are counted, then the clock passed the end.
    A spectator in the lobby is offered the top game and watches it. Checked: nobody was seated again
    before their game ended (no player in two games at once), every
    game each player finished was counted once, the standings equal a recount from the saved records
    (their rankings read by replaying each record), the podium is the first three, and `ono99 records
    export` gives records `records check` accepts, the arena's among them."""
    operator = new_identity()
    admins = tmp_path / "admins"
    admins.write_text(" ".join(operator.public_key.split()[:2]) + " op\n")
    async with running_server(tmp_path, arena_bot_wait=0.3, admins=admins, **QUICK) as h:
        arenas = h.server.lobby.arenas
        offset = 0.0
        arenas.clock = lambda: time.time() + offset
        op = await h.connect("Op", identity=operator)
        opened = await op.request(CreateArena(minutes=60, seats=4), "arena")
        arena_id = opened["arena"]["id"]
        names = [f"p{i}" for i in range(22)]
        clients: list[TestClient] = [await h.connect(name) for name in names]
        players = [asyncio.create_task(arena_player(c, n, random.Random(i), arena=arena_id, timeout=60))
                   for i, (c, n) in enumerate(zip(clients, names, strict=True))]
        arena = arenas.arenas[arena_id]
        eve = await h.connect("Eve")  # a spectator in the lobby: offered the top game
        listed = await eve.expect("arenas", where=lambda m: m["arenas"][0]["top_table"] is not None)
        watched = await eve.request(Spectate(table=listed["arenas"][0]["top_table"]), "table")
        assert watched["table"]["watchers"] == ["Eve"] and watched["table"]["you"] is None
        await wait_until(lambda: len(arena.counted) >= 40 or any(p.done() for p in players), "40 games counted",
                         timeout=240)
        offset = arena.end - time.time() + 1  # past the end: nobody is seated any more
        logs = await asyncio.gather(*players)
        await storage_barrier(op)

        assert all(log.overlaps == 0 for log in logs)
        seen = {table for log in logs for table in log.finished}
        assert all(set(log.tables) == set(log.finished) for log in logs), "a game a player never saw end"
        storage = h.server.lobby.storage
        assert storage is not None
        rows = await storage.call(lambda db: arena_results(db, arena_id))
        assert len(rows) == len(arena.counted) == len({g for g, _, _, _ in rows}) >= 40

        async def records(db: Database) -> dict[int, tuple[int, dict[str, Any]]]:
            found = await db.rows("SELECT id, table_id, record FROM games")
            return {int(i): (int(t), json.loads(r)) for i, t, r in found}

        saved = await storage.call(records)
        by_table = {table: game_id for game_id, (table, _) in saved.items()}
        assert {by_table[t] for t in seen} == {game_id for _, game_id, _, _ in rows}, "a finished game not counted"
        recounted = []
        for game, game_id, paired, ranking in rows:
            played = replay(saved[game_id][1])
            outcome = played.game.outcome
            assert outcome is not None
            assert [played.players[s].name for s in outcome.ranking] == ranking
            recounted.append((game, paired, ranking))
        points = recount(arena, recounted)
        assert {p.name: p.points for p in arena.players.values() if p.games} == points
        assert all(arena.players[log.name].games == len(log.finished) for log in logs)
        assert any(len(paired) < 4 for _, paired, _ in recounted), "bots never filled a table"
        last = logs[0].last
        assert last is not None and last["arena"]["status"] == "finished"
        assert last["podium"] == [p.name for p in arena.standings()[:3]]

        lines = export_records(tmp_path / "x.db")
        assert len(lines) == len(saved) and all(c.error is None for c in check_lines(lines))


async def test_an_arena_is_kept_over_a_restart_and_a_game_running_then_is_counted_once(tmp_path: Path,
                                                                                      store: Store) -> None:
    """Tried (SQLite, and PostgreSQL): Ada and Bo in a two-seat private arena play a game, are seated
    at the next at once, and the server shuts down during it; a new server starts on the database.
    Found: the arena, its standings and who is in it are back; the game that was running ends
    (stand-ins play for the players away) and is counted once; Ada, coming back with her resume token,
    is sent the standings; the saved results recount to them."""
    config = {**store.config, "arena_bot_wait": 600.0, "arena_starts_in": 0.0, "grace_seconds": 600.0, **FAST_PLAY}
    server = Server(server_config(tmp_path, **config))
    await server.start()
    clients: list[TestClient] = []
    try:
        ada = await TestClient.connect("127.0.0.1", server.port, "Ada")
        bo = await TestClient.connect("127.0.0.1", server.port, "Bo")
        clients += [ada, bo]
        opened = await ada.request(CreateArena(minutes=30, seats=2, private=True), "arena")
        arena_id = opened["arena"]["id"]
        await ada.request(JoinArena(arena=arena_id), "arena")
        await bo.request(JoinArena(code=opened["code"]), "arena")
        for client in (ada, bo):
            await client.expect("arena_game")
        await play_all([ada, bo], seed=8)
        for client in (ada, bo):
            await client.expect("arena_game")  # the next game, at once
        before = server.lobby.arenas.arenas[arena_id]
        assert len(before.counted) == 1 and len(before.running) == 1
        points = {name: p.points for name, p in before.players.items()}
        await storage_barrier(ada)
        await server.close()

        server = Server(server_config(tmp_path, **config))
        await server.start()
        back = server.lobby.arenas.arenas[arena_id]
        assert {name: p.points for name, p in back.players.items()} == points and back.running == before.running
        await wait_until(lambda: len(back.counted) == 2, "the game running at the restart counted")
        ada2 = await TestClient.connect("127.0.0.1", server.port, "Ada", resume=ada.resume_token)
        clients.append(ada2)
        told = await ada2.expect("arena")  # away when it ended: out of the arena, keeping her points
        assert {line["name"]: line["points"] for line in told["standings"]} == {
            n: p.points for n, p in back.players.items()}
        await storage_barrier(ada2)
        storage = server.lobby.storage
        assert storage is not None
        rows = await storage.call(lambda db: arena_results(db, arena_id))
        assert sorted(g for g, _, _, _ in rows) == [1, 2]
        assert recount(back, [(g, p, r) for g, _, p, r in rows]) == {n: p.points for n, p in back.players.items()}
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_an_arena_refusal_is_said_in_the_players_language_by_its_key(tmp_path: Path) -> None:
    """Tried: a code nobody has, a public arena from a player, leaving no arena. Found: each refusal from
    the real server carries a key every language says (here German), not only its English reason."""
    async with running_server(tmp_path) as h:
        ada = await h.connect("Ada")
        refusals = []
        for request in (JoinArena(code="NOPE42"), CreateArena(minutes=30), LeaveArena()):
            await ada.send(request)
            refusals.append(decode_server_message(await ada.error()))
        with using("de"):
            assert [said(r) for r in refusals if isinstance(r, ErrorMessage)] == [
                "keine Arena hat diesen Einladungscode",
                "nur die Betreiber des Servers können eine öffentliche Arena eröffnen; eröffne eine private",
                "du bist in keiner Arena"]
