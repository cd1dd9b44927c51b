"""A front's session that nobody uses ends: no key pressed and no running game's move on its screen
(a spectator watching is not idle) for the idle timeout. The SSH and the web sessions each keep one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class IdleWatch:
    def __init__(self, last_game_update: Callable[[], float], on_idle: Callable[[float], None]) -> None:
        """``last_game_update()``: the loop time of the last state of a running game the session's app
        showed (0 for none); ``on_idle(timeout)`` ends the session once it was idle that long."""
        self._last_game_update = last_game_update
        self._on_idle = on_idle
        self.timeout = 0.0
        self.last_input = 0.0  # loop time of the last key (or other input)
        self._handle: asyncio.TimerHandle | None = None

    def start(self, timeout: float) -> None:
        """The session begins: it ends once idle for ``timeout`` seconds."""
        self.timeout = timeout
        self.touch()
        self._check_in(timeout)

    def touch(self) -> None:
        """Input came."""
        self.last_input = asyncio.get_running_loop().time()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _check_in(self, delay: float) -> None:
        self._handle = asyncio.get_running_loop().call_later(max(delay, 0.1), self._check)

    def _check(self) -> None:
        last = max(self.last_input, self._last_game_update())
        left = last + self.timeout - asyncio.get_running_loop().time()
        if left > 0:
            self._check_in(left)
            return
        self._handle = None
        self._on_idle(self.timeout)
