"""Password guessing made slow for everyone: a throttle of failed password attempts.

Guesses come in parallel, from one address or from many, so a pause after each wrong password
does not slow them. Instead the server counts failures:

- per address (an IPv4 address; an IPv6 address with the others of its /64, which one machine
  usually holds): ``FREE_FAILURES`` wrong passwords cost nothing, each one after them locks the
  address out for twice as long as the last (``FIRST_LOCKOUT``, then 4, 8, … seconds, at most
  ``MAX_LOCKOUT``). One failure is forgotten for every ``DECAY`` seconds without one. While an
  address is locked out, its password attempts are refused at once, unchecked, with the wait;
- across all addresses, a token bucket of ``FAILURES_PER_SECOND`` (bursts of ``FAILURE_BURST``):
  while it is empty, an address with a failure it has not yet forgotten is refused unchecked too,
  while an address without one is still checked, so an honest player is never kept out by
  guesses from elsewhere.

The throttle is pure: it is given a clock and is told of every check and failure.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

FREE_FAILURES = 3  # wrong passwords from an address before it is locked out
FIRST_LOCKOUT = 2.0  # seconds, after the first failure past the free ones; doubles with each one more
MAX_LOCKOUT = 600.0
DECAY = 600.0  # seconds without a failure that forget one (not less than MAX_LOCKOUT: a guesser
# who waits out each longest lockout stays at it)
FAILURES_PER_SECOND = 1.0  # failed tries the whole server takes, from all addresses together
FAILURE_BURST = 10.0
SWEEP_AT = 1024  # addresses kept before the forgotten ones are swept out


def address_group(address: str) -> str:
    """Whose failures ``address`` counts among: itself (IPv4, or an IPv4-mapped IPv6 address as its
    IPv4 address), its /64 (IPv6), or the text as it is when it is not an IP address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(slots=True)
class _Failures:
    count: int = 0
    since: float = 0.0  # when the last failure was (or the last one was forgotten)
    locked_until: float = 0.0


@dataclass(frozen=True, slots=True)
class Wait:
    """Why an attempt is refused unchecked, and how long until one is checked again."""

    why: str  # "locked": this address failed too often; "busy": the server takes no more failures now
    seconds: int  # whole seconds, rounded up, at least 1


class FailureThrottle:
    """Failed password attempts by address and in all: ``wait(address)`` before checking a password
    (None: check it), ``failed(address)`` after a wrong one."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, free_failures: int = FREE_FAILURES,
                 first_lockout: float = FIRST_LOCKOUT, max_lockout: float = MAX_LOCKOUT, decay: float = DECAY,
                 per_second: float = FAILURES_PER_SECOND, burst: float = FAILURE_BURST) -> None:
        self.clock = clock
        self.free_failures = free_failures
        self.first_lockout = first_lockout
        self.max_lockout = max_lockout
        self.decay = decay
        self.per_second = per_second
        self.burst = burst
        self._tokens = burst
        self._tokens_at = clock()
        self._by_group: dict[str, _Failures] = {}
        self._sweep_at = SWEEP_AT

    def lockout(self, count: int) -> float:
        """Seconds an address is locked out after its ``count``-th failure not yet forgotten."""
        if count <= self.free_failures:
            return 0.0
        return min(self.max_lockout, self.first_lockout * 2.0 ** min(count - self.free_failures - 1, 64))

    def failures(self, address: str) -> int:
        """The failures of ``address``'s group not yet forgotten."""
        entry = self._entry(address, self.clock())
        return entry.count if entry is not None else 0

    def wait(self, address: str) -> Wait | None:
        """None: check this address's password now. Else why not, and for how long."""
        now = self.clock()
        entry = self._entry(address, now)
        if entry is None or entry.count == 0:
            return None  # no recent failure: always checked
        if entry.locked_until > now:
            return Wait("locked", max(1, math.ceil(entry.locked_until - now)))
        tokens = self._refill(now)
        if tokens < 1:
            return Wait("busy", max(1, math.ceil((1 - tokens) / self.per_second)))
        return None

    def failed(self, address: str) -> None:
        """A password from ``address`` was checked and was wrong."""
        now = self.clock()
        self._tokens = max(0.0, self._refill(now) - 1)
        group = address_group(address)
        entry = self._entry(address, now)
        if entry is None:
            if len(self._by_group) >= self._sweep_at:
                self._sweep(now)
            entry = self._by_group[group] = _Failures()
        entry.count += 1
        entry.since = now
        entry.locked_until = now + self.lockout(entry.count)

    def _refill(self, now: float) -> float:
        self._tokens = min(self.burst, self._tokens + max(0.0, now - self._tokens_at) * self.per_second)
        self._tokens_at = now
        return self._tokens

    def _entry(self, address: str, now: float) -> _Failures | None:
        entry = self._by_group.get(address_group(address))
        if entry is not None and self.decay > 0:
            forgotten = int(max(0.0, now - entry.since) // self.decay)
            if forgotten:
                entry.count = max(0, entry.count - forgotten)
                entry.since += forgotten * self.decay
        return entry

    def _sweep(self, now: float) -> None:
        """Drop the addresses whose failures are all forgotten: memory stays bounded by the recent ones."""
        for group in list(self._by_group):
            entry = self._entry(group, now)
            if entry is not None and entry.count == 0 and entry.locked_until <= now:
                del self._by_group[group]
        self._sweep_at = max(SWEEP_AT, 2 * len(self._by_group))
