"""Server messages for tests of the app's model, as a server sends them and as the app reads them:
each helper builds the typed value of ono99_kernel/wire/server.py (only the fields a test cares about
given, in the wire's terms: lists, maps of options) and, where a test feeds a link, its map."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ono99_kernel.core.game import Game
from ono99_kernel.core.options import TableOptions
from ono99_kernel.core.record import replay
from ono99_kernel.protocol import PROTOCOL_VERSION
from ono99_kernel.wire.server import (
    Away,
    ErrorMessage,
    Notice,
    Obligation,
    Seat,
    State,
    TableDetail,
    TableMessage,
    View,
    Welcome,
    decode_server_message,
    edition_of,
    event_of,
    view_of,
)
from ono99_tui.reasons import said

SAMPLE = Path(__file__).resolve().parent / "data" / "sample_2022.jsonl"  # a 2022 game's record


def typed(fields: Mapping[str, Any], edition: str) -> dict[str, Any]:
    """Fields given as the wire has them (lists, an options map), as the typed values hold them."""
    out: dict[str, Any] = {}
    for name, value in fields.items():
        if name == "options" and isinstance(value, Mapping):
            value = TableOptions.from_mapping(edition, value)
        elif name == "obligation" and isinstance(value, Mapping):
            value = Obligation(**value)
        elif name == "seats" and isinstance(value, list):
            value = tuple(Seat(**seat) for seat in value)
        elif isinstance(value, list):
            value = tuple(value)
        out[name] = value
    return out


def table_detail(names: list[str], *, table_id: int = 1, you: int | None = None, **fields: Any) -> TableDetail:
    """TABLE DETAIL with a human in each named seat ("" for an empty one)."""
    seats = tuple(Seat("human" if name else "empty", name, None, True if name else None) for name in names)
    edition = fields.get("edition", "2022")
    table = TableDetail(
        id=table_id, name="t", edition="2022", options=TableOptions.from_mapping(edition, {}), summary="2022",
        host=names[0], status="waiting", private=False, seats=seats, free=sum(1 for n in names if not n), bots=0,
        spectators=0, replace_bots=False, turn_seconds=0, bot_level="greedy", game_no=0, winner=None, name_code=None,
        name_params={}, code=None, you=you, watchers=(), waiting=())
    return dataclasses.replace(table, **typed(fields, edition))


def table_map(names: list[str], **fields: Any) -> dict[str, Any]:
    """``table_detail`` as the map a ``table`` message carries."""
    return table_detail(names, **fields).to_wire()


def table_message(names: list[str], **fields: Any) -> TableMessage:
    return TableMessage(table=table_detail(names, **fields))


def view(seats: int, **fields: Any) -> View:
    """A VIEW of a running game at a table of ``seats`` seats (seat 0's, on turn)."""
    edition = fields.get("edition", "2022")
    base = View(
        edition="2022", options=TableOptions.from_mapping(edition, {}), seats=seats, seat=0, hand=(), legal=(),
        unplayable=(), hand_number=0, version=0, total=0, direction=1, turn=0, obligation=None,
        hand_sizes=(0,) * seats, active=(True,) * seats, in_hand=(True,) * seats, open_draws=(False,) * seats,
        missed_draws=(0,) * seats, tokens=None, scores=None, draw_pile_size=50, discard_size=0, top_card=None,
        winner=None, ranking=None)
    return dataclasses.replace(base, **typed(fields, edition))


def view_map(seats: int, **fields: Any) -> dict[str, Any]:
    """``view`` as the map a ``state`` carries."""
    return view(seats, **fields).to_wire()


def state(seats: int, *, game_no: int = 1, seq: int | None = None, **fields: Any) -> State:
    return State(table=1, game_no=game_no, view=view(seats, **fields), events=(), seq=seq, clock=None,
                 controlled_by_bot=(False,) * seats)


def said_of(message: dict[str, Any]) -> str:
    """What a player reads for an ``error``, ``notice`` or ``away`` as the server sent it: decoded, then
    worded, as the app does."""
    decoded = decode_server_message(message)
    assert isinstance(decoded, (ErrorMessage, Notice, Away)), decoded
    return said(decoded)


def welcome_map(name: str, *, table: int | None = None) -> dict[str, Any]:
    return Welcome(version=PROTOCOL_VERSION, server="ONO 99", name=name, resume="r", resumed=False, table=table,
                   identity=None).to_wire()


def watched_game() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The sample record's table (TABLE DETAIL, as a spectator sees it) and the ``state`` messages a
    spectator of it receives, one per action: the maps a link carries."""
    record = json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[0])
    states: list[dict[str, Any]] = []
    seen = 0

    def step(game: Game) -> None:
        nonlocal seen
        news, seen = game.log[seen:], len(game.log)
        states.append(State(table=0, game_no=1, view=view_of(game.view(None)),
                            events=tuple(event_of(e.seen_by(None)) for e in news), seq=None, clock=None,
                            controlled_by_bot=(False,) * game.seats).to_wire())

    done = replay(record, on_step=step)
    options = done.game.options
    table = table_map([p.name for p in done.players], table_id=0, name="Watched", edition=edition_of(options),
                      options=options, summary=options.summary(), host="Host", status="playing", code="ABCD",
                      game_no=1)
    return table, states
