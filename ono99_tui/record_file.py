"""A record file as the replay and the analysis read it: JSON Lines, one game record a line, counted from 1
for people (blank lines are not records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ono99_kernel.core.errors import RecordError

from . import text as words


def record_lines(path: Path) -> list[str]:
    """The records of a JSON Lines file, one text each (blank lines are not records)."""
    return [text for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]


def read_record(path: Path, line: int) -> tuple[Any, int]:
    """Record number ``line`` of the file, as JSON read it, and how many records the file holds
    (raises OSError, UnicodeDecodeError, RecordError)."""
    lines = record_lines(path)
    if not 1 <= line <= len(lines):
        raise RecordError("no_record", records=words.records(len(lines)), number=line, count=len(lines))
    try:
        return json.loads(lines[line - 1]), len(lines)
    except json.JSONDecodeError as exc:
        raise RecordError("json", line=line, problem=str(exc)) from None
