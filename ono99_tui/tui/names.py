"""The name dialog: a player without a usable name (a guest, or a name that is taken) picks one."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ono99_kernel.protocol import MAX_NAME

from ..i18n import N_
from ..i18n import gettext as _
from .inputs import Input

KEY_HELP = N_("Enter to go to the lobby · Esc to leave. Your name belongs to your key on this server.")


class NameScreen(ModalScreen[str | None]):
    """Asks for a name; dismissed with it, or None (Esc) to leave. ``problem`` says why the last
    name was refused (plain text: it may quote a name someone typed)."""

    DEFAULT_CSS = """
    NameScreen #dialog Input { width: 32; }
    NameScreen #name-help { margin-top: 1; color: $foreground 70%; }
    """
    BINDINGS = [Binding("escape", "leave", N_("Leave"))]

    def __init__(self, default: str, problem: str = "", help_text: str = KEY_HELP) -> None:
        super().__init__()
        self.default = default
        self.problem = problem
        self.help_text = help_text

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(_("Welcome to ONO 99. Your name at the tables:"))
            name = Input(value=self.default, placeholder=_("your name"), max_length=MAX_NAME, id="name")
            name.cursor_blink = False  # each blink would be a redraw sent to the client while it waits
            yield name
            yield Static(Text(self.problem), id="problem", markup=False)
            yield Static(_(self.help_text), id="name-help", markup=False)

    @on(Input.Submitted, "#name")
    def submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if name:
            self.dismiss(name)

    def action_leave(self) -> None:
        self.dismiss(None)
