"""Server messages for tests of the app's model, as a server sends them and as the app reads them:
each helper builds a complete wire map (only the fields a test cares about given) and decodes it with
the app's own decoder (ono99_tui/messages.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ono99_tui.core.game import Game
from ono99_tui.core.record import replay
from ono99_tui.messages import Away, ErrorMessage, Notice, State, TableMessage, View, decode_server_message
from ono99_tui.protocol import PROTOCOL_VERSION, event_to_wire, view_to_wire
from ono99_tui.reasons import said

SAMPLE = Path(__file__).resolve().parent / "data" / "sample_2022.jsonl"  # a 2022 game's record


def table_map(names: list[str], *, table_id: int = 1, you: int | None = None, **fields: Any) -> dict[str, Any]:
    """TABLE DETAIL with a human in each named seat ("" for an empty one)."""
    seats = [{"kind": "human" if name else "empty", "name": name, "level": None, "connected": True if name else None}
             for name in names]
    table: dict[str, Any] = {
        "id": table_id, "name": "t", "edition": "2022", "options": {}, "summary": "2022", "host": names[0],
        "status": "waiting", "private": False, "seats": seats, "free": sum(1 for n in names if not n), "bots": 0,
        "spectators": 0, "replace_bots": False, "turn_seconds": 0, "bot_level": "greedy", "game_no": 0,
        "winner": None, "code": None, "you": you, "watchers": [], "waiting": []}
    table.update(fields)
    return table


def table_message(names: list[str], **fields: Any) -> TableMessage:
    message = decode_server_message({"t": "table", "table": table_map(names, **fields)})
    assert isinstance(message, TableMessage)
    return message


def view_map(seats: int, **fields: Any) -> dict[str, Any]:
    """A VIEW of a running game at a table of ``seats`` seats (seat 0's, on turn)."""
    view: dict[str, Any] = {
        "edition": "2022", "options": {}, "seats": seats, "seat": 0, "hand": [], "legal": [], "unplayable": [],
        "hand_number": 0, "version": 0, "total": 0, "direction": 1, "turn": 0, "obligation": None,
        "hand_sizes": [0] * seats, "active": [True] * seats, "in_hand": [True] * seats,
        "open_draws": [False] * seats, "missed_draws": [0] * seats, "tokens": None, "scores": None,
        "draw_pile_size": 50, "discard_size": 0, "top_card": None, "winner": None, "ranking": None}
    view.update(fields)
    return view


def view(seats: int, **fields: Any) -> View:
    return state(seats, **fields).view


def state(seats: int, *, events: list[dict[str, Any]] | None = None, game_no: int = 1, seq: int | None = None,
          **fields: Any) -> State:
    message: dict[str, Any] = {"t": "state", "table": 1, "game_no": game_no, "view": view_map(seats, **fields),
                               "events": events or [], "clock": None, "controlled_by_bot": [False] * seats}
    if seq is not None:
        message["seq"] = seq
    decoded = decode_server_message(message)
    assert isinstance(decoded, State)
    return decoded


def said_of(message: dict[str, Any]) -> str:
    """What a player reads for an ``error``, ``notice`` or ``away`` as the server sent it: decoded, then
    worded, as the app does."""
    decoded = decode_server_message(message)
    assert isinstance(decoded, (ErrorMessage, Notice, Away)), decoded
    return said(decoded)


def welcome_map(name: str, *, table: int | None = None) -> dict[str, Any]:
    return {"t": "welcome", "version": PROTOCOL_VERSION, "server": "ONO 99", "name": name, "resume": "r",
            "resumed": False, "table": table, "identity": None}


def watched_game() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The sample record's table (TABLE DETAIL, as a spectator sees it) and the ``state`` messages a
    spectator of it receives, one per action."""
    record = json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[0])
    states: list[dict[str, Any]] = []
    seen = 0

    def step(game: Game) -> None:
        nonlocal seen
        news, seen = game.log[seen:], len(game.log)
        view = game.view(None)
        states.append({"t": "state", "table": 0, "game_no": 1, "clock": None, "view": view_to_wire(view),
                       "events": [event_to_wire(e.seen_by(None)) for e in news],
                       "controlled_by_bot": [False] * view.seats})

    done = replay(record, on_step=step)
    options = done.game.options
    table = table_map([p.name for p in done.players], table_id=0, name="Watched", edition=options.edition.value,
                      options=options.to_mapping(), summary=options.summary(), host="Host", status="playing",
                      code="ABCD", game_no=1)
    return table, states
