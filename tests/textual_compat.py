"""Every place the tests reach past Textual's public API, in one module, each with why.

pyproject pins Textual's minor version; before raising the pin, this module is what to re-check in the
tests (and ``test_ssh.test_the_textual_internals_the_ssh_front_relies_on`` what the app itself adapts).
Tests import these names instead of touching an underscored attribute or patching a Textual class.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import RichLog


def notification_texts(app: App[Any]) -> list[str]:
    """The texts of the notifications the app holds now. ``App.notify`` only adds; Textual has no public
    read of them, and the toasts that show them come and go with their timeouts."""
    return [str(notification.message) for notification in app._notifications]


def app_redirects() -> tuple[object, object]:
    """What ``textual.app`` calls to capture an app's prints: it binds contextlib's ``redirect_stdout`` and
    ``redirect_stderr`` by name at import, and the SSH front replaces those names (sessions share sys.stdout)."""
    import textual.app

    return textual.app.redirect_stdout, textual.app.redirect_stderr  # type: ignore[attr-defined]  # not exported


def record_notifications(app: App[Any]) -> list[str]:
    """From now on, the text of each notification the app is asked to show, in order, kept after the toast
    has timed out (``notification_texts`` reads only those held now). Textual has no hook on ``notify``."""
    notes: list[str] = []
    original = app.notify

    def notify(message: Any, **kwargs: Any) -> None:
        notes.append(str(message))
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]  # one app's notify, wrapped: there is no hook
    return notes


def count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[Screen[Any]]:
    """From now on, each screen that lays itself out again is appended to the list returned. A full layout
    pass has no public hook or event; ``Screen._refresh_layout`` is where every one of them goes."""
    laid_out: list[Screen[Any]] = []
    original = Screen._refresh_layout

    def counting(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        laid_out.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counting)
    return laid_out


def count_refreshes(monkeypatch: pytest.MonkeyPatch, screen: Screen[Any]) -> list[tuple[str, bool]]:
    """From now on, each ``refresh`` of a widget on ``screen``: (the widget's class name, whether it asked for
    a layout). ``Widget.refresh`` is public, but only patching it sees every repaint a widget asks for."""
    refreshed: list[tuple[str, bool]] = []
    original = Widget.refresh

    def counting(self: Widget, *regions: Any, **options: Any) -> Widget:
        if self.screen is screen:
            refreshed.append((type(self).__name__, bool(options.get("layout"))))
        return original(self, *regions, **options)

    monkeypatch.setattr(Widget, "refresh", counting)
    return refreshed


async def scroll_up_with_the_wheel(pilot: Pilot[Any], selector: str, offset: tuple[int, int]) -> None:
    """One turn of the mouse wheel up over the widget ``selector``, at ``offset`` in it. Pilot clicks and
    hovers but has no wheel; its own clicks go through ``_post_mouse_events``, which takes any mouse event."""
    await pilot._post_mouse_events([events.MouseScrollUp], selector, offset=offset)


def keep_running_on_exit(monkeypatch: pytest.MonkeyPatch, app: App[Any]) -> None:
    """``app.exit`` does nothing from now on: an app stuck somewhere, which a test cannot otherwise make."""
    def ignore(*args: Any, **kwargs: Any) -> None:
        pass

    monkeypatch.setattr(app, "exit", ignore)


# --- what ono99_tui/front/textual_driver.py and the screens adapt, read by the test that guards them -----------
def shared_key_parse() -> Any:
    """``XTermParser._parse_extended_key``: an lru_cache shared by every parser of the process, so the SSH
    front gives each session's parser (``SessionParser``) a cache of its own."""
    return XTermParser._parse_extended_key


def stylesheet_parse() -> Any:
    """``Stylesheet._parse_rules`` as it is now: the SSH front swaps in a parse cached per process (sessions
    share one event loop, and parsing the CSS for each was a large part of a session's start)."""
    return Stylesheet._parse_rules


def stylesheet_keeps_its_variables() -> bool:
    """The shared parse is keyed by the theme's variables, which a stylesheet keeps in ``_variables``."""
    return "_variables" in vars(Stylesheet())


def screen_resume_handler_is_screens_own() -> bool:
    """``Screen._on_screen_resume`` is what the screens override to skip their first restyle (a cheaper
    start)."""
    return "_on_screen_resume" in vars(Screen)


def richlog_waits_for_its_size() -> bool:
    """A ``RichLog`` writes at once only when its size is known (``_size_known``): the logs rely on it."""
    return "_size_known" in vars(RichLog())
