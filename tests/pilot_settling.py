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

import textual.app
import textual.pilot
from textual._context import active_app

SAFETY_SECONDS = 5.0  # an app that stops while it is waited for never runs the callback


async def app_settled(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
    """Until the active app has handled what was posted to it so far (the arguments are Textual's
    and unused: no time is waited for its own sake)."""
    try:
        app = active_app.get()
    except LookupError:
        await asyncio.sleep(0)
        return
    if not app.is_running:
        await asyncio.sleep(0)
        return
    handled = asyncio.Event()
    if not app.call_later(handled.set):
        await asyncio.sleep(0)
        return
    with contextlib.suppress(TimeoutError):  # the app closed meanwhile: nothing is left to wait for
        await asyncio.wait_for(handled.wait(), SAFETY_SECONDS)


def install() -> None:
    vars(textual.app)["wait_for_idle"] = app_settled  # the name App._press_keys calls
    vars(textual.pilot)["wait_for_idle"] = app_settled  # the name Pilot.pause() calls
