"""Hints at a server's table: the host's option, shown in the table list, refused at a play-now table
and while a game runs, and a game played with hints is stored but not rated."""

from __future__ import annotations

import random
from pathlib import Path

from ono99_kernel.wire.requests import AskProfile, ListTables, PlayNow, SetTableOptions, Start
from tests.server_helpers import (
    FAST_PLAY,
    Store,
    create_table,
    export_and_check,
    new_identity,
    play,
    running_server,
    storage_barrier,
)
from tests.wire import said_of


async def test_a_table_with_hints_is_listed_so_and_its_game_is_stored_but_not_rated(
        tmp_path: Path, store: Store) -> None:
    """Ada creates a table with hints and plays a game against a bot: the table list says hints are on,
    the game is in the export, and Ada got no rating (no notice, no rated game in her profile)."""
    async with running_server(tmp_path, **store.config, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        bob = await h.connect("Bob")
        table_id = await create_table(ada, seats=2, bots=1, bot_level="random", hints=True)
        await bob.send(ListTables())
        listed = await bob.expect("tables", where=lambda m: any(t["id"] == table_id for t in m["tables"]))
        [row] = [t for t in listed["tables"] if t["id"] == table_id]
        assert row["hints"] is True
        await ada.send(Start())
        await play(ada, random.Random(3))
        await storage_barrier(ada)
        assert len(await export_and_check(store.db, tmp_path / "games.jsonl")) == 1
        assert not [m for m in ada.received if m["t"] == "notice" and m.get("code") == "rating"]
        profile = await ada.request(AskProfile(), "profile")
        assert profile["recent"] == [] and profile["history"] == []


async def test_hints_change_between_games_only_and_never_at_a_play_now_table(tmp_path: Path) -> None:
    """The host turns hints on between games (the table says so), is refused while the game runs (the
    game started without them may be rated), and at a play-now table (rated) is refused with its reason."""
    async with running_server(tmp_path, play_now_wait=0.2, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        await create_table(ada, seats=2, bots=1)
        await ada.send(SetTableOptions(hints=True))
        await ada.expect("table", where=lambda m: m["table"]["hints"] is True)
        await ada.send(Start())
        await ada.expect("state")
        error = await ada.request(SetTableOptions(hints=False), "error")
        assert error["code"] == "game_running" and error["params"] == {"why": "hints"}
        assert said_of(error) == "hints can be turned on or off between games"
        bob = await h.connect("Bob", identity=new_identity())
        await bob.send(PlayNow(edition="2022", seats=2))
        await bob.expect("table", where=lambda m: m["table"]["you"] is not None and m["table"]["hints"] is False)
        error = await bob.request(SetTableOptions(hints=True), "error")
        assert error["code"] == "rated_table" and error["params"] == {"why": "play_now"}
        assert "play-now" in said_of(error)


async def test_game_records_are_fetched_within_a_per_player_allowance(tmp_path: Path, store: Store) -> None:
    """A player asks for records one after another: the first RECORD_BURST are answered (a game's record,
    or no_record for an id with no game), the next is refused with rate_limited and the seconds to wait,
    in words; another player still gets records meanwhile."""
    from ono99_kernel.wire.requests import AskGameRecord
    from ono99_server.ratings import RECORD_BURST

    async with running_server(tmp_path, **store.config, **FAST_PLAY) as h:
        ada = await h.connect("Ada", identity=new_identity())
        await create_table(ada, seats=2, bots=1, bot_level="random", start=True)
        await play(ada, random.Random(4))
        await storage_barrier(ada)
        for game in range(1, RECORD_BURST + 1):
            answer = await ada.request(AskGameRecord(game=game), "game_record" if game == 1 else "error")
            assert answer["t"] == "game_record" if game == 1 else answer["code"] == "no_record"
        refused = await ada.request(AskGameRecord(game=1), "error")
        assert refused["code"] == "rate_limited" and refused["params"]["why"] == "records"
        assert 1 <= refused["params"]["seconds"] <= 6
        assert said_of(refused).startswith("you fetched too many game records")
        bob = await h.connect("Bob", identity=new_identity())
        assert (await bob.request(AskGameRecord(game=1), "game_record"))["game"] == 1
