"""How often a front process redraws each session for what the game server sends, and logins first.

A front draws every session's screens on one event loop. A spectator does not need each of a
hundred moves a second: what the server sends a session is handled in batches (the app's
``pace``), and between two batches a watching session waits ``WATCHING_FRAME`` seconds, during
which whatever arrives is gathered into the next batch, drawn once as its last state with every
log line. A seated player's own turn, and the answer to what a player asked for (a seat, a
move), are drawn at once; a seated player and the lobby otherwise as they come.

Logins first: while a login is under way in the process (from the connection to the session's
first screen), every session that is not in its own turn waits longer between frames
(``BUSY_SEATED_FRAME`` seated, ``LOGIN_WATCHING_FRAME`` a spectator, ``BUSY_FRAME`` the lobby), so
the key exchanges, the name screens and the first lobby screens come before other redraws. A login
under way while the loop runs late (the front at its CPU limit) puts the spectators at
``SHEDDING_WATCHING_FRAME`` at once, without the strain's steps: their redraws are what a front
sheds first, before a login has to be told to come back. (A login's own frames on the front's link
come first too: ono99_tui/client/front_link.py.)

Spectators first: a front at its CPU limit is one whose event loop runs late. Each time it is found
late (at most once per ``STRAIN_STEP``) its strain goes up a step, and each ``RELAX`` seconds on time
down one; every step doubles a spectator's time between frames, up to ``SLOWEST_WATCHING_FRAME``.
Only at the last step, spectators at their slowest and the loop still late, do the seated players'
screens wait too (``BUSY_SEATED_FRAME``), and the lobby's (``BUSY_FRAME``).
Screens slow down; nothing is lost, the next batch shows the newest state.
"""

from __future__ import annotations

import asyncio
import contextvars
import time

WATCHING_FRAME = 0.25  # seconds between the redraws of a spectator
SEATED_FRAME = 0.0  # a seated player's screen follows the game as it goes
LOBBY_FRAME = 0.0  # the lobby changes a few times a minute
BUSY_FRAME = 1.0  # the lobby's while logins are under way or the loop is late at the last strain step
LOGIN_WATCHING_FRAME = 2.0  # a spectator's while logins are under way
BUSY_SEATED_FRAME = 0.2  # a seated player's then, but in their own turn
SLOWEST_WATCHING_FRAME = 4.0  # a spectator's at the last strain step
SHEDDING_WATCHING_FRAME = 10.0  # a spectator's while logins are under way and the loop runs late
MAX_STRAIN = 4  # 0.25 s, 0.5, 1, 2, 4: the steps of a spectator's frame as the loop stays late
STRAIN_STEP = 0.5  # seconds between two steps up: one late burst is one step, not several
RELAX = 2.0  # seconds on time for one step down
HELD_FRAME = 5.0  # a session whose screen a shared app draws takes in what came this often (front/sharing.py)
ANSWER_WINDOW = 1.0  # seconds after a request during which what arrives is drawn at once: its answer
LAG_CHECK = 0.1  # seconds between two looks at how late the event loop runs
LATE = 0.05  # the loop is late when a timer fires this much after its time
LATE_HOLD = 2.0  # seconds the process counts as busy after the loop was last late


class Pacer:
    """One front process's pace: logins under way and how late its event loop runs."""

    def __init__(self) -> None:
        self.logins = 0
        self.strain = 0  # how many steps the spectators' frames are stretched by (at most MAX_STRAIN)
        self._late_until = 0.0
        self._strained_at = -STRAIN_STEP  # loop time of the last step up
        self._relaxed_at = 0.0  # loop time of the last step down, or of the last time late
        self._watch: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def busy(self) -> bool:
        return self.logins > 0 or self.late_lately

    @property
    def late_lately(self) -> bool:
        """The loop was found late within the last ``LATE_HOLD`` seconds."""
        return time.monotonic() < self._late_until

    def login_started(self) -> None:
        self.logins += 1

    def login_ended(self) -> None:
        self.logins = max(0, self.logins - 1)

    def frame(self, *, watching: bool, seated: bool, my_turn: bool) -> float:
        """Seconds a session waits after its last frame before drawing what arrived since:
        ``watching`` a table, ``seated`` at one, in the lobby if neither."""
        self._look_at_the_loop()
        if my_turn:
            return 0.0
        at_limit = self.strain >= MAX_STRAIN
        if watching:
            frame: float = min(WATCHING_FRAME * 2.0 ** self.strain, SLOWEST_WATCHING_FRAME)
            if not self.logins:
                return frame
            return max(frame, SHEDDING_WATCHING_FRAME if self.late_lately else LOGIN_WATCHING_FRAME)
        if self.logins or at_limit:
            return BUSY_SEATED_FRAME if seated else BUSY_FRAME
        return SEATED_FRAME if seated else LOBBY_FRAME

    def late(self, now: float) -> None:
        """The event loop was found running late at loop time ``now``: one more strain step, unless
        the last was under ``STRAIN_STEP`` ago."""
        self._late_until = time.monotonic() + LATE_HOLD
        self._relaxed_at = now
        if now - self._strained_at >= STRAIN_STEP:
            self._strained_at = now
            self.strain = min(MAX_STRAIN, self.strain + 1)

    def on_time(self, now: float) -> None:
        """The event loop was found on time at loop time ``now``: one strain step less every ``RELAX`` s."""
        if self.strain and now - self._relaxed_at >= RELAX:
            self._relaxed_at = now
            self.strain -= 1

    def _look_at_the_loop(self) -> None:
        """Start timing the event loop (once per loop): a timer that fires late says it is busy."""
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        self._loop = loop
        self._schedule(loop)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        expected = loop.time() + LAG_CHECK
        # in a context of its own: the one it is first called in names a session's app, kept alive by it
        self._watch = loop.call_at(expected, self._check, loop, expected, context=contextvars.Context())

    def _check(self, loop: asyncio.AbstractEventLoop, expected: float) -> None:
        now = loop.time()
        if now - expected > LATE:
            self.late(now)
        else:
            self.on_time(now)
        if not loop.is_closed():
            self._schedule(loop)


PACER = Pacer()  # the process's: every front of the process shares its event loop
