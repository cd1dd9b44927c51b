"""The plain mode's analysis after a local game: a, once the game is over, searches the player's moves in a
thread and says the marked ones in words ("Move 12: you played Hold; 3 was better: 100% against 60%")."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, cast

from ono99_kernel.wire.requests import Request
from ono99_kernel.wire.server import decode_server_message
from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.plain.console import Console
from ono99_tui.plain.lines import LocalControls, PlainSession
from tests.test_analysis import ada_decision, known_position
from tests.test_plain import finished_game_messages


async def said_after_a(record: dict[str, Any] | None, status: str = "finished") -> list[str]:
    """What the plain session says after a, at a local table whose game is over (or not), until it stops
    talking about the analysis."""
    out: list[str] = []
    sent: list[Request] = []
    threads: list[threading.Thread] = []

    def finished_record(table: int) -> dict[str, Any] | None:
        threads.append(threading.current_thread())
        return record

    session = PlainSession(Console(out.append), sent.append, lambda: None, local=True,
                           controls=LocalControls(lambda paused: None, lambda on: None, finished_record))
    for message in finished_game_messages(status):
        if status == "playing" and message["t"] == "state":
            view = cast(dict[str, Any], message["view"])
            message = {**message, "view": {**view, "winner": None, "ranking": None}, "events": []}
        session.receive(decode_server_message(message))
    out.clear()
    session.key("a")
    if record is not None and status == "finished":
        for _ in range(600):
            if len(out) >= 3:  # the count searched, then the summary and the marks (or that none is marked) at once
                break
            await asyncio.sleep(0.1)
    return [line.strip() for line in out]


async def test_a_after_a_local_game_says_the_players_marked_move_in_words() -> None:
    """Ada held at 95 where her 3 won the hand for certain: a says how many decisions it searches, her
    summary, and the blunder as a sentence to her, with both chances."""
    record = known_position(["8", "7", "6", "3"], ada_plays="HOLD")
    blunder = ada_decision(record)
    lines = await said_after_a(record)
    assert lines[0].startswith("Analysing your ") and "decision" in lines[0], lines
    assert "1 blunder" in lines[1], lines
    made = f"{round(blunder.chance_played * 100)}%"
    assert f"Move {blunder.move}: you played Hold; 3 was better: 100% against {made} (blunder)." in lines, lines


async def test_a_is_said_in_every_language(monkeypatch: Any) -> None:
    """The same analysis in each language: the sentences are the catalogs' (no English left but the
    card codes and numbers in languages that write them so). The search runs once: its result is the same
    in every language (it is seeded), only the words change."""
    from ono99_tui.plain import lines as session_module

    found: dict[int, Any] = {}
    from ono99_tui.analysis import analyse as real

    def once(record: Any, seats: Any, **kwargs: Any) -> Any:
        if not found:
            found[0] = real(record, seats, **kwargs)
        elif kwargs.get("on_progress") is not None:
            kwargs["on_progress"](0, len(found[0].seats[0].decisions))
        return found[0]

    monkeypatch.setattr(session_module, "analyse", once)
    record = known_position(["8", "7", "6", "3"], ada_plays="HOLD")
    english = await said_after_a(record)
    for language in LANGUAGES:
        if language == "en":
            continue
        with using(language):
            lines = await said_after_a(record)
        assert len(lines) == len(english) and "100" in lines[-1], (language, lines)
        assert "you played" not in lines[-1] and "Analysing" not in lines[0] and "blunder" not in lines[1], lines


async def test_a_before_the_end_or_without_a_record_says_why_not() -> None:
    """During a game a says it waits for the end; with no record of the game it says so; nothing is sent."""
    assert await said_after_a(None, status="playing") == ["a analyses your moves once the game is over."]
    assert await said_after_a(None) == ["This game's record is not available to analyse."]
