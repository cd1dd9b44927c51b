"""Dialogs that keep a seat from being lost by one key: a confirmation before leaving a running
game, and the seat menu (stand up, sit down, and the host's seat controls between games)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from .widgets import KeysFooter


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; anything but yes (No, Esc, n) answers no."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="confirm"):
            yield Label(Text(self.question), id="question")
            with Horizontal(id="buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button("No (n, esc)", id="no", variant="primary")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # Enter keeps you where you are

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


def seated_in_running_game(model: Any) -> bool:
    """True while the player sits at a table whose game is running: leaving then gives the seat to
    a bot for good."""
    table = model.table
    return bool(table and table.get("status") == "playing" and table.get("you") is not None)
