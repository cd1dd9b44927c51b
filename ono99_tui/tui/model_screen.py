"""The screens that show the app's model: the table and the lobby."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual._context import NoActiveAppError
from textual.screen import Screen
from textual.widgets import Static

from .host import ScreenHost, ShowsModel, host_of
from .widgets import show_text


class ModelScreen(ShowsModel, Screen[None]):
    """A screen that renders the app's model.

    Widgets are updated only when what they show changes: each update costs a repaint, and with
    a layout a pass over the whole screen (an SSH server draws every session's screens on one
    event loop).
    """

    def __init__(self) -> None:
        super().__init__()
        self._resumed = False
        self._resized = False
        self._preset_breakpoints()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual styles every widget of a screen again each time it comes to the top; the first
        # time, they were styled when they were mounted, a moment before. Textual calls
        # Screen's own handler after this one (handlers run for each class of the MRO).
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def _on_resize(self, event: events.Resize) -> None:  # type: ignore[override]  # Screen's is async
        # A screen's first layout sends the screen a Resize of the size it was just laid out at,
        # which would lay it out and draw it a second time; any later Resize is a real one.
        if not self._resized and event.size == self.size:
            event.prevent_default()  # Screen's own handler: nothing to do at this size
        self._resized = True

    def _preset_breakpoints(self) -> None:
        """Start with the width class Textual would add on the first resize, so that the screen
        is not styled a second time, and drawn twice, when it is first shown."""
        try:
            width = self.app.size.width
        except NoActiveAppError:
            return
        breakpoints = self.HORIZONTAL_BREAKPOINTS or self.app.HORIZONTAL_BREAKPOINTS or []
        fitting = [(low, name) for low, name in breakpoints if width >= low]
        chosen = max(fitting)[1] if fitting else None
        for _low, name in breakpoints:
            self.set_class(name == chosen, name, update=False)

    @property
    def ono(self) -> ScreenHost:
        """The app, as the screens use it."""
        return host_of(self)

    def show_text(self, selector: str, text: Text, *, fixed_size: bool = True) -> None:
        """Put ``text`` in the Static ``selector`` unless it shows that already (``show_text``)."""
        show_text(self.query_one(selector, Static), text, fixed_size=fixed_size)
