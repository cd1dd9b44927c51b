"""What to know: the rules and keys (?), and the three things a new player is told once."""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Markdown, Static
from textual.widgets._markdown import MarkdownTable, MarkdownTableContent

from ..i18n import N_
from ..i18n import gettext as _
from .host import host_of
from .rules_text import help_markdown
from .unbidden import OpensByItself, below
from .widgets import CardRow, ClockBar, KeysFooter, put_up_while_closing

NUMBERED = re.compile(r"(\S{1,4}[.)])\s+(.*)")  # "1. text" in any script's digits


def numbered(text: str) -> RenderableType:
    """Paragraphs whose numbered points wrap under their text, not under their number."""
    parts: list[RenderableType] = []
    points: Table | None = None
    for line in text.split("\n"):
        point = NUMBERED.fullmatch(line)
        if point is None:
            points = None
            parts.append(Text(line))
            continue
        if points is None:
            points = Table.grid(padding=(0, 1, 0, 0))
            points.add_column(no_wrap=True)
            points.add_column()
            parts.append(points)
        points.add_row(point.group(1), Text(point.group(2)))
    return Group(*parts)


class HintScreen(OpensByItself[None]):
    """The three things to know, shown once: on the first game of a new player."""

    BINDINGS = [Binding("escape,enter,space", "dismiss", N_("Got it")),
                Binding("1", "play(0)", N_("Play card 1"), show=False),
                Binding("2", "play(1)", N_("Play card 2"), show=False),
                Binding("3", "play(2)", N_("Play card 3"), show=False),
                Binding("4", "play(3)", N_("Play card 4"), show=False)]

    def __init__(self, *, watching: bool = False) -> None:
        super().__init__()
        self.watching = watching  # a spectator: the cards' keys play only once seated

    @staticmethod
    def welcome_text(watching: bool) -> str:
        """The three points, then how to play a card (``watching``: once seated)."""
        return _(
            "1. Each card you play adds its value to one running total.\n"
            "2. Keep the total at 98 or below: when none of your cards fit, you are out.\n"
            "3. Special cards save you: −10 takes ten off, Reverse turns play around, Play 2 makes "
            "the next player play two cards. ONO 99 cards cannot be played alone.\n\n") + (
            _("You are watching: once you sit down (u), press a card's key [1]–[4] to play it. "
              "? shows the full rules at any time.") if watching else
            _("Press a card's key [1]–[4] to play it. ? shows the full rules at any time."))

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="hint"):
            yield Label(_("Welcome to ONO 99"), id="winner")
            yield Static(numbered(self.welcome_text(self.watching)), markup=False)
            with Horizontal(id="buttons"):
                yield Button(_("Got it (enter)"), id="ok", variant="primary")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one("#ok", Button).focus()

    @on(Button.Pressed, "#ok")
    def ok(self) -> None:
        self.dismiss(None)

    async def action_play(self, index: int) -> None:
        """A card's key closes the welcome and plays the card (the turn's clock runs meanwhile)."""
        table = below(self)
        self.dismiss(None)
        if table is not None:
            await table.run_action(f"play({index})")

    def dismiss(self, result: None = None) -> Any:
        app = host_of(self)
        app.settings.hint_seen = True
        app.save_settings()
        return super().dismiss(result)


class HelpTableContent(MarkdownTableContent):
    """A table of the help whose first columns (a card's name, a count, a key) keep their width and
    whose last column wraps: Textual shrinks every column alike, which broke "Play 2" over two lines
    and a row of the points table over six at 80 columns."""

    _columns = ""  # the grid's columns as last set

    def on_resize(self) -> None:
        width = self.size.width
        if not width or not self.headers:
            return
        columns_cells = [[self.headers[i], *(row[i] for row in self.rows if i < len(row))]
                         for i in range(len(self.headers))]
        # with its padding, and the line between columns
        natural = [max(cell_len(cell.plain) for cell in cells) + 4 for cells in columns_cells]
        fixed = natural[:-1]
        gutters = len(self.headers) - 1
        if sum(fixed) + gutters <= width * 2 // 3:
            columns = " ".join([*(str(w) for w in fixed), "1fr"])
        else:  # long words in every column: an equal share each
            columns = " ".join(["1fr"] * len(self.headers))
        if self._columns != columns:
            self._columns = columns
            self.styles.grid_columns = columns


class HelpTable(MarkdownTable):
    """A Markdown table drawn by ``HelpTableContent``."""

    def compose(self) -> ComposeResult:
        headers, rows = self._get_headers_and_rows()
        self._headers = headers
        self._rows = rows
        yield HelpTableContent(headers, rows)


class HelpMarkdown(Markdown):
    """The help's Markdown, with its tables' columns fitted (``HelpTableContent``)."""

    BLOCKS = {**Markdown.BLOCKS, "table_open": HelpTable}


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", N_("Close")), Binding("question_mark", "dismiss", N_("Close"))]

    def __init__(self, markdown: str | None = None) -> None:
        super().__init__()
        self.markdown = markdown  # None: the rules and the table's keys

    def compose(self) -> ComposeResult:
        yield ClockBar(markup=False)
        with VerticalScroll(id="help"):
            if self.markdown is None:  # the cards as the table draws them, one of each kind
                yield CardRow(("7", "-10", "REV", "PLAY2", "ONO99"))
            yield HelpMarkdown(help_markdown() if self.markdown is None else self.markdown)
        yield KeysFooter()
