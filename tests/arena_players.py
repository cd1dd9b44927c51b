"""Simulated arena players, written from docs/protocol.md section 6b: a protocol client joins an arena,
plays every game it is seated at (a random legal action whenever its view lets it act) and notes what
it saw, until the arena is over. Used by tests/test_arena_server.py and bench/arena.py."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from ono99_kernel.wire.requests import Act, JoinArena
from ono99_tui.client.connection import Client
from tests.server_helpers import LATE_ACT_ERRORS, TIMEOUT, may_act


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


async def arena_player(client: Client, name: str, rng: random.Random, *, arena: int | None = None,
                       code: str | None = None, timeout: float = TIMEOUT) -> ArenaLog:
    """Join the arena (by id or code), play until it is over and this player is in no game; the log."""
    loop = asyncio.get_running_loop()
    log = ArenaLog(name)
    acted: set[tuple[int, int, int]] = set()
    current: int | None = None
    ended_at: float | None = None
    await client.send(JoinArena(arena=arena, code=code))
    while True:
        message = await client.recv(timeout)
        kind = message.get("t")
        if kind == "arena_game":
            if current is not None and current not in log.finished:
                log.overlaps += 1
            if ended_at is not None:
                log.gaps.append(loop.time() - ended_at)
                ended_at = None
            current = message["table"]
            log.tables.append(message["table"])
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
                await client.send(Act(action=rng.choice(view["legal"]), version=view["version"]))
        elif kind == "arena":
            log.last = message
            if message["arena"]["status"] == "finished" and (current is None or current in log.finished):
                return log
        elif kind == "error":
            if message.get("ref") == "act" and message.get("code") in LATE_ACT_ERRORS:
                continue
            log.errors.append(message)
            raise AssertionError(f"{name}: {message}")
