"""Pilot waits for the app, not for the process's CPU clock.

Textual's Pilot, after each key and at each ``pause()``, waits until the *process* looks idle: it
sleeps 20 ms at a time until less than 1 ms of process CPU was spent in one of them, for up to a
second. In these tests the process is rarely idle (an embedded server's bots, a server in the same
process, other apps), so a key press took 170 ms on average and up to two seconds, and how long
depended on the machine's load. Here the wait is for what Pilot means by it: the app has handled
every message posted to it before the wait (a callback queued behind them has run); Pilot's own
``_wait_for_screen`` then waits for the screen's widgets, as before."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import textual.app
import textual.pilot
from textual._context import active_app
from textual.app import App
from textual.message_pump import MessagePump

SAFETY_SECONDS = 5.0  # an app that stops while it is waited for never runs the callback


async def app_settled(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
    """Until the active app has handled what was posted to it so far (the arguments are Textual's
    and unused: no time is waited for its own sake)."""
    try:
        app = active_app.get()
    except LookupError:
        await asyncio.sleep(0)
        return
    await _handled(app, app)
    if not app.is_running or not app.screen_stack:
        return
    screen = app.screen  # a key may have opened it: its widgets are mounted and their messages handled
    for node in [screen, *screen.walk_children()]:
        if not node._mounted_event.is_set():
            with contextlib.suppress(TimeoutError):  # a widget removed before it was mounted
                await asyncio.wait_for(node._mounted_event.wait(), SAFETY_SECONDS)
    await _handled(app, screen)


async def _handled(app: App[Any], pump: MessagePump) -> None:
    """Until ``pump`` has handled the messages posted to it so far."""
    handled = asyncio.Event()
    if not app.is_running or not pump.call_later(handled.set):
        await asyncio.sleep(0)
        return
    with contextlib.suppress(TimeoutError):  # it closed meanwhile: nothing is left to wait for
        await asyncio.wait_for(handled.wait(), SAFETY_SECONDS)


def install() -> None:
    vars(textual.app)["wait_for_idle"] = app_settled  # the name App._press_keys calls
    vars(textual.pilot)["wait_for_idle"] = app_settled  # the name Pilot.pause() calls
