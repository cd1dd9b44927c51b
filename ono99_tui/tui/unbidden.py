"""Dialogs that open by themselves (a game's result, a knock-out, the welcome, the play-now queue, a
replaced connection) take no key the player meant for something else.

A player typing in the chat as the game ends goes on typing: the keys go on into the chat box until
Enter sends the line or Esc leaves it, and only then does the dialog take keys ("gg lol" must not
press l for the lobby). A key pressed before the dialog appeared, or in its first moment, when no
one can have read it yet, does nothing either.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual import events
from textual._context import NoActiveAppError
from textual._time import get_time  # the clock Textual stamps its key events with
from textual.binding import NoBinding
from textual.screen import ModalScreen, Screen

from ..i18n import gettext as _
from .inputs import Input

# How long after it opens a dialog still ignores keys: typed before anyone could have read it.
KEY_GUARD_SECONDS = 0.5
ResultT = TypeVar("ResultT")


class OpensByItself(ModalScreen[ResultT]):
    """A dialog that opens without being asked for: it takes keys only once the player can have seen
    it and is not typing elsewhere."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.opened_at = get_time()
        self.typing_into: Input | None = None  # the text box the player was typing in as it opened
        try:
            focused = self.app.focused
        except NoActiveAppError:
            return
        if isinstance(focused, Input):
            self.typing_into = focused

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if self.typing_into is not None:
            self.notify(_("Your keys still go to the chat: Enter sends the line, Esc leaves it."), timeout=4)

    def holds(self, event: events.Key) -> bool:
        """Whether the key is kept from this dialog (and, while typing, given to the text box)."""
        if event.key == "ctrl+q":  # quitting is never held
            return False
        if self.typing_into is not None:
            return True
        return event.time < self.opened_at + KEY_GUARD_SECONDS

    async def on_key(self, event: events.Key) -> None:
        if not self.holds(event):
            return
        event.stop()
        event.prevent_default()
        box = self.typing_into
        if box is None:
            return
        if event.key in ("enter", "escape"):
            self.typing_into = None  # the line is sent, or given up: from now on keys are the dialog's
        if event.key == "escape":
            if box.is_attached:  # leave the chat as Esc there does, or closing the dialog gives it the keys again
                await leave_text_box(box)
            return
        if box.is_attached:
            await box.take_key(event)


async def leave_text_box(box: Input) -> None:
    """Run what Esc does on the screen of ``box`` (the table's "back to the cards", the lobby's
    "tables")."""
    screen = box.screen
    try:
        bindings = screen._bindings.get_bindings_for_key("escape")
    except NoBinding:
        screen.set_focus(None)
        return
    await screen.run_action(bindings[0].action)


def below(screen: Screen[Any]) -> Screen[Any] | None:
    """The screen under ``screen`` in its app's stack."""
    stack = screen.app.screen_stack
    index = stack.index(screen) if screen in stack else 0
    return stack[index - 1] if index > 0 else None
