"""The one text box of the app: Textual's ``Input``, with its own editing keys run in order.

Textual runs a focused widget's key binding (ctrl+u, backspace, Enter…) only once the key has
bubbled up to the app, while a printable key is inserted as soon as the box takes it. Keys that
arrive in one burst (a paste, a slow link, a script, a fast typist over ssh) were then applied out
of order: ``ctrl+u Dee Enter`` put Dee in the box, then wiped it, then sent the empty box. Here the
box runs its own bindings when it takes the key, so every key acts in the order it was typed.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding, NoBinding
from textual.widgets import Input as TextualInput

from ..i18n import N_


class Input(TextualInput):
    """``textual.widgets.Input`` whose editing keys act in the order they were typed."""

    async def _on_key(self, event: events.Key) -> None:
        await self.take_key(event)

    async def take_key(self, event: events.Key) -> None:
        """Type ``event`` into the box (also a key a dialog over the box passes on: unbidden.py)."""
        if not event.is_printable:
            try:
                bindings = self._bindings.get_bindings_for_key(event.key)
            except NoBinding:
                bindings = []
            if bindings:
                event.stop()
                event.prevent_default()
                await self.run_action(bindings[0].action)
                return
        await super()._on_key(event)


class ChatInput(Input):
    """A chat's line: its footer says that Enter sends it."""

    BINDINGS = [Binding("enter", "submit", N_("Send"))]
