"""The lobby's table list as a player reads it: the open tables, the games in progress, then the
tables whose game is over, each group under its label and in table number order.

The server sends the open tables first (so that a list cut short keeps them); within the groups the
rows go by number, whatever order the list came in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from ono99_kernel.wire.server import TableInfo

from ..client.labels import rules_summary, status_word, table_name
from ..i18n import gettext as _

OPEN = "waiting"  # the status of a table whose game has not started: anyone may sit down
RUNNING = "playing"
RULES = 2  # the rules' column: the one that wraps


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


def table_rows(tables: Sequence[TableInfo], headers: Sequence[str] = (), width: int | None = None) -> list[Row]:
    """The rows of the lobby's table list: each group's label, then its tables. Names come from
    other players: they are plain text. A group's label is a row of its own whose one cell, the label
    in bold, is drawn across the list's whole ``width`` (in the name column it wrapped to three rows
    beside a 1980 table's long rules, or pushed the last columns off). Given the columns' ``headers``,
    a table's rules wrap to the room the other columns leave, so that every column shows."""
    rows: list[Row] = []
    for key, group in grouped(tables):
        room = None if width is None else max(10, width - 2)
        rows.append((key, (Text(_wrapped(group_label(key, len(group)), room), style="bold"),), None))
        for info in group:
            seated = sum(1 for s in info.seats if s.kind != "empty")
            rules = rules_summary(info.options) + (" · " + _("hints on") if info.hints else "")
            rows.append((str(info.id), (str(info.id), Text(table_name(info)), rules,
                                        f"{seated}/{len(info.seats)}", str(info.bots),
                                        status_word(info.status), str(info.spectators)),
                         info.id))
    room = _rules_room([cells for _key, cells, table in rows if table is not None], headers, width)
    return [row if row[2] is None else (row[0], (*row[1][:2], Text(_wrapped(row[1][2], room)), *row[1][3:]), row[2])
            for row in rows]


def _rules_room(cells: Sequence[tuple[Any, ...]], headers: Sequence[str], width: int | None) -> int | None:
    """The widest the rules column may be for every column to fit in ``width`` (None: no limit)."""
    if width is None or not headers:
        return None
    widths = [max([cell_len(header)] + [cell_len(str(row[i]) if not isinstance(row[i], Text) else row[i].plain)
                                        for row in cells]) for i, header in enumerate(headers)]
    others = sum(w for i, w in enumerate(widths) if i != RULES)
    padding = 2 * len(headers) + 2  # a space each side of every cell, and a scrollbar
    return max(cell_len(headers[RULES]), 12, width - others - padding)


def _wrapped(label: str, room: int | None) -> str:
    """``label`` on as many lines as it needs to fit ``room`` cells, broken between words."""
    if room is None or cell_len(label) <= room:
        return label
    lines: list[str] = []
    for word in label.split():
        if lines and cell_len(lines[-1]) + 1 + cell_len(word) <= room:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


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
