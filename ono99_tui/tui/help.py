"""What to know: the rules and keys (?), and the three things a new player is told once."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Markdown, Static

from ..i18n import N_
from ..i18n import gettext as _
from .host import host_of
from .rules_text import help_markdown
from .widgets import CardRow, ClockBar, KeysFooter, put_up_while_closing


class HintScreen(ModalScreen[None]):
    """The three things to know, shown once: on the first game of a new player."""

    BINDINGS = [Binding("escape,enter,space", "dismiss", N_("Got it"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="hint"):
            yield Label(_("Welcome to ONO 99"), id="winner")
            yield Static(Text(_(
                "1. Each card you play adds its value to one running total.\n"
                "2. Keep the total at 98 or below: when none of your cards fit, you are out.\n"
                "3. Special cards save you: −10 takes ten off, Reverse turns play around, Play 2 makes "
                "the next player play two cards. ONO 99 cards cannot be played alone.\n\n"
                "Press a card's key [1]–[4] to play it. ? shows the full rules at any time.")), markup=False)
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

    def dismiss(self, result: None = None) -> Any:
        app = host_of(self)
        app.settings.hint_seen = True
        app.save_settings()
        return super().dismiss(result)


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
            yield Markdown(help_markdown() if self.markdown is None else self.markdown)
        yield KeysFooter()
