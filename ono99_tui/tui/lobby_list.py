"""The lobby's table list as a player reads it: the open tables, the games in progress, then the
tables whose game is over, each group under its label and in table number order.

The server sends the open tables first (so that a list cut short keeps them); within the groups the
rows go by number, whatever order the list came in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from ..i18n import gettext as _
from ..messages import TableInfo
from .labels import rules_summary, status_word, table_name

OPEN = "waiting"  # the status of a table whose game has not started: anyone may sit down
RUNNING = "playing"


def grouped(tables: Sequence[TableInfo]) -> list[tuple[str, list[TableInfo]]]:
    """(key, tables) of each group that has tables: ``open`` (waiting for players), ``running`` (a game
    in progress), then ``finished`` (between games, until a rematch), each by table number."""
    by_number = sorted(tables, key=lambda t: t.id)
    groups = [("open", [t for t in by_number if t.status == OPEN]),
              ("running", [t for t in by_number if t.status == RUNNING]),
              ("finished", [t for t in by_number if t.status not in (OPEN, RUNNING)])]
    return [(key, group) for key, group in groups if group]


def group_label(key: str, count: int) -> str:
    if key == "open":
        return _("Open tables ({n})").format(n=count)
    if key == "running":
        return _("Games in progress ({n})").format(n=count)
    return _("Games over, before a rematch ({n})").format(n=count)


Row = tuple[str, tuple[Any, ...], int | None]  # (row key, cells, table id; None for a group's label)


def table_rows(tables: Sequence[TableInfo]) -> list[Row]:
    """The rows of the lobby's table list: each group's label, then its tables. Names come from
    other players: they are plain text."""
    rows: list[Row] = []
    for key, group in grouped(tables):
        rows.append((key, ("", Text(group_label(key, len(group)), style="bold"), "", "", "", "", ""), None))
        for info in group:
            seated = sum(1 for s in info.seats if s.kind != "empty")
            rows.append((str(info.id), (str(info.id), Text(table_name(info)), Text(rules_summary(info.options)),
                                        f"{seated}/{len(info.seats)}", str(info.bots),
                                        status_word(info.status), str(info.spectators)),
                         info.id))
    return rows


def nearest_table_row(rows: Sequence[Row], row: int, step: int = 1) -> int | None:
    """The row of a table nearest ``row`` (itself if it is one), looking first in the direction
    ``step`` (1: down, -1: up), then the other way; None if no row is a table."""
    for direction in (step, -step):
        i = row
        while 0 <= i < len(rows):
            if rows[i][2] is not None:
                return i
            i += direction
    return None
