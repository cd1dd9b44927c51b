"""A table's series at a glance: one line under the seats, and a line in the game-over dialog
(docs/rules.md, "Series"); nothing shows at a table that plays no series. And the host's choice of a
series at their private table, between games (key e)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ono99_kernel.wire.requests import StartSeries

from ..client.model import Model
from ..i18n import N_
from ..i18n import gettext as _
from ..series_text import (
    SERIES_CHOICES,
    choice_key,
    choice_of_key,
    series_fields,
    series_kind,
    series_line,
    series_winner,
)
from .widgets import KeysFooter, put_up_while_closing, show_text


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


class SeriesScreen(ModalScreen[StartSeries | None]):
    """The host chooses the series their table plays from its next game: one of ``SERIES_CHOICES``, or
    none. Dismissed with the request, or None (Esc)."""

    BINDINGS = [Binding("escape", "dismiss", N_("Close"))]

    def compose(self) -> ComposeResult:
        options = [Option(series_kind(*choice), id=choice_key(choice)) for choice in SERIES_CHOICES]
        options.append(Option(_("no series: single games"), id=choice_key(None)))
        with Vertical(id="dialog", classes="players"):
            yield Label(_("Series from the next game: Enter chooses"))
            yield OptionList(*options, id="series-choices")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected, "#series-choices")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        games, points = series_fields(choice_of_key(event.option.id or ""))
        self.dismiss(StartSeries(games=games, points=points))
