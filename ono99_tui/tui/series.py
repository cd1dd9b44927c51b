"""A table's series at a glance: one line under the seats, and a line in the game-over dialog
(docs/rules.md, "Series"). Nothing shows at a table that plays no series."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..series_text import series_line, series_winner
from .model import Model
from .widgets import show_text


class SeriesLine(Static):
    """The series' progress and standings: "Series: game 3 of 5 · alice 7, bob 5, ...", and its winner."""

    DEFAULT_CSS = """
    SeriesLine {
        height: auto;
        max-height: 3;
        padding: 0 1;
        color: $accent;
        display: none;
    }
    SeriesLine.after-game {
        padding: 0;
    }
    """

    def __init__(self, *, after_game: bool = False, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.after_game = after_game  # in the game-over dialog: once the game just finished is counted
        self.set_class(after_game, "after-game")  # in line with the ranking above it

    def show(self, model: Model) -> None:
        table = model.table
        series = table.series if table is not None else None
        if series is not None and self.after_game and table is not None and table.status != "finished":
            series = None  # the table has not counted the game that just ended yet: its standings come next
        if series is None:
            if self.display:
                self.display = False
            return
        text = Text(series_line(series))
        winner = series_winner(series)
        if winner is not None:
            text.append("\n" + winner, style="bold")
        if not self.display:
            self.display = True
        show_text(self, text, fixed_size=False)
