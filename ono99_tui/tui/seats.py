"""Dialogs that keep a seat from being lost by one key: a confirmation before leaving a running
game, and the seat menu (stand up, sit down, and the host's seat controls between games)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ..client.labels import seat_name
from ..client.seat_choices import SeatRequest, seat_choices
from ..client.seat_choices import seated_in_running_game as seated_in_running_game  # the app asks it here
from ..i18n import N_
from ..i18n import gettext as _
from .unbidden import OpensByItself
from .widgets import KeysFooter, put_up_while_closing

if TYPE_CHECKING:
    from ..client.model import Model


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; anything but yes (No, Esc, n) answers no."""

    BINDINGS = [
        Binding("y", "answer(True)", N_("Yes")),
        Binding("n,escape", "answer(False)", N_("No")),
    ]

    def __init__(self, question: str, yes: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes = _("Yes") if yes is None else yes

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="confirm"):
            yield Static(Text(self.question), id="question", markup=False)  # wraps: a question may be long
            with Horizontal(id="buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button(_("No (n, esc)"), id="no", variant="primary")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query_one("#no", Button).focus()  # Enter keeps you where you are

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class UnaskedQuestion(OpensByItself[bool], ConfirmScreen):
    """A yes/no question that comes by itself (a server's answer): no key typed before it opened, or
    into the chat, answers it."""


class SeatMenuScreen(ModalScreen[SeatRequest | None]):
    """The table's seats and what you may do with them: sit, stand, and the host's controls."""

    BINDINGS = [Binding("escape", "close", N_("Close"))]

    def __init__(self, model: Model, local: bool = False) -> None:
        super().__init__()
        self.model = model
        self.choices = seat_choices(model, local)

    def compose(self) -> ComposeResult:
        table = self.model.table
        lines = Text()
        for i, seat in enumerate(table.seats if table is not None else ()):
            lines.append(f"{i + 1}. ")
            name = seat_name(seat) or _("empty")
            lines.append(Text(_("{name} (you)").format(name=name) if table is not None and table.you == i else name))
            if seat.kind == "bot":
                lines.append(" · " + _("bot"))
            elif seat.kind == "human" and not seat.connected:
                lines.append(" · " + _("away"))
            lines.append("\n")
        watching = table.watchers if table is not None else ()
        if watching:
            lines.append(_("Watching:") + " ")
            lines.append(Text(", ".join(watching)))
            lines.append("\n")
        if table is not None and table.waiting:
            lines.append(_("Waiting for a seat:") + " ")
            lines.append(Text(", ".join(table.waiting)))
            lines.append("\n")
        with VerticalScroll(id="dialog", classes="seat-menu"):
            yield Label(_("Seats"), id="dialog-title")
            yield Static(lines, id="seat-list", markup=False)
            for i, (text, _message) in enumerate(self.choices):
                yield Button(Text(text), id=f"choice-{i}", classes="seat-choice")
            if not self.choices:
                yield Static(_("Nothing to change now."), markup=False)
            yield Button(_("Close (esc)"), id="close")
        yield KeysFooter()

    def on_mount(self) -> None:
        if put_up_while_closing(self):
            return
        self.query(Button).first().focus()  # the first Enter takes the first choice (or closes)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id.startswith("choice-"):
            self.dismiss(self.choices[int(button_id.removeprefix("choice-"))][1])
        else:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
