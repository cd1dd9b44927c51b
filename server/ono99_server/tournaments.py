"""A player's tournaments, read from the kept arenas (``arenas`` and ``arena_games``, written by
server/ono99_server/arena.py): the arenas a profile lists, and one arena's standings for ``arena_results``
(docs/protocol.md section 6c). Portable SQL (SQLite and PostgreSQL).

An arena's standings are kept by name; the arenas a player played are found by their key: the
rated games of theirs (``rating_history``) that an arena counted. Their line is the one of the
name their places in its games had (a renamed player finds theirs), their name now if none is known."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ono99_kernel.core.arena import Arena
from ono99_kernel.wire import server as wire

from .storage import Database

MAX_SHOWN = wire.MAX_ARENA_SHOWN  # the standings' lines an ``arena_results`` carries


async def _played(db: Database, identity: str, arena_id: int | None = None) -> dict[int, set[str]]:
    """The arenas ``identity`` played counted games in (or just ``arena_id``), and the names their places
    in those games had."""
    only, params = ("AND a.arena = ?", [arena_id]) if arena_id is not None else ("", [])
    found: dict[int, set[str]] = {}
    for arena, ranking, place, credited in await db.rows(
            "SELECT a.arena, a.ranking, h.place, h.credited FROM arena_games a JOIN rating_history h "
            f"ON h.game_id = a.game_id WHERE h.identity = ? AND a.ranking IS NOT NULL {only}",
            (identity, *params)):
        names = found.setdefault(int(arena), set())
        order = json.loads(ranking)
        if credited and 0 < int(place) <= len(order):
            names.add(str(order[int(place) - 1]))
    return found


def _line_of(arena: Arena, name: str, names: set[str]) -> str | None:
    """The name of the player's line: their name now if they played under it (or no name of their games is
    known), else a name their places in its games had (someone else may have their name now)."""
    if name in arena.players and (name in names or not names):
        return name
    return next((n for n in sorted(names) if n in arena.players), None)


async def _arenas(db: Database, ids: Sequence[int], now: float) -> list[Arena]:
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    rows = await db.rows(f"SELECT meta FROM arenas WHERE id IN ({marks})", list(ids))
    return [Arena.from_mapping(json.loads(meta), now) for (meta,) in rows]


async def played_arenas(db: Database, identity: str, name: str, you: bool, now: float) -> list[wire.ProfileArena]:
    """The arenas a player played games in, newest first (the first ``wire.MAX_PROFILE_ARENAS``): a
    private arena only on their own profile (``you``)."""
    played = await _played(db, identity)
    out = []
    for arena in sorted(await _arenas(db, list(played), now), key=lambda a: (-a.start, -a.id)):
        line = _line_of(arena, name, played[arena.id])
        if line is None or (arena.private and not you):
            continue
        player = arena.players[line]
        place = arena.place_of(line)
        assert place is not None
        out.append(wire.ProfileArena(arena=arena.id, name=arena.name, edition=_edition(arena.edition),
                                     at=arena.start, status=arena.status(now), place=place, players=len(arena.players),
                                     points=player.points, games=player.games))
        if len(out) == wire.MAX_PROFILE_ARENAS:
            break
    return out


async def arena_results(db: Database, arena_id: int, whose: tuple[str, str] | None, asker: str | None,
                        now: float) -> wire.ServerMessage:
    """An arena's standings as kept; ``whose``: (identity, name now) of the player whose line is ``you``;
    ``asker``: the asker's identity. A private arena only for those who played in it; to anyone else,
    and for an arena never kept, ``no_arena``."""
    arenas = await _arenas(db, [arena_id], now)
    arena = arenas[0] if arenas else None
    if arena is not None and arena.private and (asker is None or not await _played(db, asker, arena_id)):
        arena = None
    if arena is None:
        return wire.ErrorMessage(code="no_arena", reason="there is no such arena", ref="arena_results",
                                 params={"why": "id", "arena": arena_id})
    lines = wire.arena_standings(arena)
    you = None
    if whose is not None:
        played = await _played(db, whose[0], arena_id)
        line = _line_of(arena, whose[1], played.get(arena_id, set()))
        you = None if line is None else lines[line]
    return wire.ArenaResults(arena=arena.id, name=arena.name, edition=_edition(arena.edition), at=arena.start,
                             minutes=arena.minutes, status=arena.status(now),
                             standings=tuple(list(lines.values())[:MAX_SHOWN]), you=you,
                             podium=tuple(p.name for p in arena.podium(now)))


def _edition(edition: str) -> wire.Edition:
    return "1980" if edition == "1980" else "2022"
