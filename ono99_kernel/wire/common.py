"""What both directions of the protocol share: the editions, chat scopes and seat limits."""

from __future__ import annotations

from typing import Literal

Edition = Literal["2022", "1980"]
Scope = Literal["table", "lobby"]
EDITIONS: tuple[Edition, ...] = ("2022", "1980")
SCOPES: tuple[Scope, ...] = ("table", "lobby")
MAX_SEATS = 8  # the most seats a table has (docs/protocol.md, create_table.seats)


def as_edition(text: str) -> Edition:
    """``text`` as an edition; ``ValueError`` if it names none."""
    for edition in EDITIONS:
        if edition == text:
            return edition
    raise ValueError(f"no edition {text!r}")
