"""Dialogs that keep a seat from being lost by one key: a confirmation before leaving a running
game, and the seat menu (stand up, sit down, and the host's seat controls between games)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from ..i18n import N_
from ..i18n import gettext as _
from .labels import seat_name
from .widgets import KeysFooter, put_up_while_closing

if TYPE_CHECKING:
    from .model import Model


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


def seated_in_running_game(model: Model) -> bool:
    """True while the player sits at a table whose game is running: leaving then gives the seat to
    a bot for good."""
    table = model.table
    return table is not None and table.status == "playing" and table.you is not None


MAX_CHOICES = 16


def seat_choices(model: Model) -> list[tuple[str, dict[str, Any]]]:
    """What the player may do with the table's seats now, as (label, message to send)."""
    table = model.table
    choices: list[tuple[str, dict[str, Any]]] = []
    if table is None:
        return choices
    seats = table.seats
    me = table.you
    playing = table.status == "playing"
    host = bool(table.host) and table.host == model.my_name
    replace_bots = table.replace_bots

    if me is None and playing:
        choices.append((_("Sit down when the next game starts"), {"t": "sit"}))
    elif me is None:
        for i, seat in enumerate(seats):
            if seat.kind == "empty" or (replace_bots and seat.kind == "bot"):
                choices.append((_("Sit down in seat {n}").format(n=i + 1), {"t": "sit", "seat": i}))
    elif not playing:
        choices.append((_("Stand up (watch the table)"), {"t": "stand"}))
    if host and not playing:
        watchers = [w for w in table.waiting or table.watchers if w != model.my_name]
        for i, seat in enumerate(seats):
            if seat.kind == "bot":
                choices += [(_("Give seat {n} ({bot}) to {name}").format(n=i + 1, bot=seat_name(seat), name=w),
                             {"t": "give_seat", "seat": i, "name": w}) for w in watchers]
                choices.append((_("Remove {bot} from seat {n}").format(bot=seat_name(seat), n=i + 1),
                                {"t": "remove_bot", "seat": i}))
            elif seat.kind == "empty":
                choices += [(_("Give seat {n} to {name}").format(n=i + 1, name=w),
                             {"t": "give_seat", "seat": i, "name": w}) for w in watchers]
                choices.append((_("Add a bot in seat {n}").format(n=i + 1), {"t": "add_bot", "seat": i}))
            elif i != me:
                choices.append((_("Remove {name} from the table").format(name=seat.name), {"t": "kick", "seat": i}))
    if host:
        choices.append((_("Late joiners take bots' seats: on, turn off") if replace_bots
                        else _("Late joiners take bots' seats: off, turn on"),
                        {"t": "table_options", "replace_bots": not replace_bots}))
    return choices[:MAX_CHOICES]


class SeatMenuScreen(ModalScreen[dict[str, Any] | None]):
    """The table's seats and what you may do with them: sit, stand, and the host's controls."""

    BINDINGS = [Binding("escape", "close", N_("Close"))]

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model
        self.choices = seat_choices(model)

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

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id.startswith("choice-"):
            self.dismiss(self.choices[int(button_id.removeprefix("choice-"))][1])
        else:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
