"""How often things may happen: a player's chat allowance (``TokenBucket``) and a push that gathers
many changes into one message (``Throttle``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class TokenBucket:
    """Allows ``rate`` events per second with bursts of ``burst``."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level >= 1:
            self.level -= 1
            return True
        return False


class Timers(Protocol):
    """What a throttle needs of time: the running event loop, or a test's clock."""

    def time(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], object], /) -> object: ...


class Throttle:
    """Runs ``push`` once for any number of ``changed()`` calls, at most once per ``interval`` seconds.

    ``leading``: the first change after a quiet spell is pushed at once (the loop's next turn), later
    ones wait for the interval since the last push; else each push waits ``interval`` after the first
    change it gathers. With no running loop (``timers`` raises ``RuntimeError``) nothing is pushed.
    """

    def __init__(self, interval: Callable[[], float], push: Callable[[], None], *, leading: bool,
                 timers: Callable[[], Timers] = asyncio.get_running_loop) -> None:
        self._interval = interval  # read at each change: a server's configuration may say it
        self._push = push
        self._leading = leading
        self._timers = timers
        self.due = False
        self._pushed_at = float("-inf")  # loop time of the last push

    def changed(self) -> None:
        if self.due:
            return
        try:
            timers = self._timers()
        except RuntimeError:
            return
        self.due = True
        delay = max(0.0, self._pushed_at + self._interval() - timers.time()) if self._leading else self._interval()
        timers.call_later(delay, self._run)

    def _run(self) -> None:
        self.due = False
        self._pushed_at = self._timers().time()
        self._push()
