"""How often things may happen: a player's chat allowance (``TokenBucket``), a push that gathers
many changes into one message (``Throttle``), guesses of invite codes (``CodeGuesses``) and the names
new keys claim from one address (``NewNames``)."""

from __future__ import annotations

import asyncio
import ipaddress
import math
import time
from collections.abc import Callable
from typing import Protocol

from ono99_kernel.protocol import ProtocolError
from ono99_kernel.throttle import FailureThrottle, Wait, address_group

# Invite codes are guessed as passwords are, with a server-wide allowance five times smaller and
# misses remembered six times longer: honest players mistype a code seldom, and an address or key
# without a recent miss is always checked.
CODE_MISSES_PER_SECOND = 0.2
CODE_MISS_BURST = 10.0
CODE_MISS_DECAY = 3600.0  # seconds without a miss that forget one, and the longest lockout


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


class BucketsByKey:
    """A ``TokenBucket`` for each key (a player, a reporter): ``burst`` at once, then one each ``every``
    seconds. Buckets full again are forgotten once there are many, which changes nothing: a new one is
    full too."""

    MANY = 4096

    def __init__(self, every: float, burst: float) -> None:
        self.every = every
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, key: str) -> float | None:
        """None when ``key`` may go on; else the seconds until it may (a token's time still to run)."""
        if len(self.buckets) > self.MANY:
            full = time.monotonic() - self.burst * self.every
            for old in [k for k, bucket in self.buckets.items() if bucket.stamp < full]:
                del self.buckets[old]
        bucket = self.buckets.setdefault(key, TokenBucket(1 / self.every, self.burst))
        return None if bucket.take() else (1 - bucket.level) * self.every


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


class CodeGuesses:
    """Failed invite-code lookups, counted as wrong passwords are (``ono99_kernel/throttle.py``): by the
    guesser's address (IPv6 by its /64) and by their key, each with the same free misses and doubling
    lockouts (up to an hour; a miss is forgotten after an hour without one), and in all at
    ``CODE_MISSES_PER_SECOND``. A guesser locked out by either is refused
    before the code is looked up, so even a right code tells them nothing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.by_address, self.by_key = (
            FailureThrottle(clock, per_second=CODE_MISSES_PER_SECOND, burst=CODE_MISS_BURST, decay=CODE_MISS_DECAY,
                            max_lockout=CODE_MISS_DECAY) for _ in range(2))

    def check(self, address: str, identity: str | None) -> None:
        """Raise ``rate_limited`` (with the seconds to wait) if this guesser may not look up a code now."""
        waits = [self.by_address.wait(address)]
        if identity is not None:
            waits.append(self.by_key.wait(identity))
        wait = max((w for w in waits if w is not None), key=lambda w: w.seconds, default=None)
        if wait is not None:
            raise refused_guess(wait)

    def missed(self, address: str, identity: str | None) -> None:
        """A code this guesser looked up named no table."""
        self.by_address.failed(address)
        if identity is not None:
            self.by_key.failed(identity)


def refused_guess(wait: Wait) -> ProtocolError:
    if wait.why == "locked":
        return ProtocolError("rate_limited", f"too many wrong invite codes: wait {wait.seconds} s before trying "
                             "again", params={"why": "code_locked", "seconds": wait.seconds})
    return ProtocolError("rate_limited", f"too many wrong invite codes on this server just now: wait {wait.seconds} "
                         "s before trying again", params={"why": "code_busy", "seconds": wait.seconds})


class NewNames:
    """How many names new keys may claim from one address (IPv6: its /64): ``burst`` at once, then
    ``per_hour``. A key that already owns a name is not counted (it moves to the new name and frees
    the old one), nor is a guest (whose name is free again when they leave)."""

    def __init__(self, per_hour: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_hour / 3600.0
        self.burst = float(burst)
        self.clock = clock
        self._levels: dict[str, tuple[float, float]] = {}  # address group -> (level, when)

    def take(self, address: str) -> None:
        """Count a claim from ``address``, or raise ``rate_limited`` with the seconds until one is allowed.
        This machine's own connections (loopback, an in-process game) are the host's: not counted."""
        if _this_machine(address):
            return
        now = self.clock()
        group = address_group(address)
        level, stamp = self._levels.get(group, (self.burst, now))
        level = min(self.burst, level + (now - stamp) * self.rate)
        if level < 1:
            seconds = max(1, math.ceil((1 - level) / self.rate))
            # said the same way to every way in: an `ono99 connect` or SSH player cannot come in as a guest
            raise ProtocolError("rate_limited", f"too many new players' names from your address just now: wait "
                                f"{seconds} s before trying again", params={"why": "new_names", "seconds": seconds})
        if len(self._levels) >= 4096:  # forget the addresses whose allowance is whole again
            self._levels = {g: (lv, at) for g, (lv, at) in self._levels.items()
                            if lv + (now - at) * self.rate < self.burst}
        self._levels[group] = (level - 1, now)


def _this_machine(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address == "local"
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback
