"""Limits that keep one client, or one address, from crowding out the others: connections that
have not said hello yet have a budget of their own, and what the server holds for a client that
does not read is bounded in bytes and in time."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Generic, TypeVar

from .refusal import Refusal

Waiter = TypeVar("Waiter")


class HelloQueue(Generic[Waiter]):
    """Connections that have not said hello yet, oldest first, with their own budget: ``total`` at
    once and ``per_address`` from one address. They never count against the places of players.

    When the budget is full, a connection from an address that holds fewer waiting connections than
    the address holding the most still gets in: the oldest waiting connection of the busiest
    address makes room. So however many addresses flood the server with silent connections, a
    player from another address is let in, and their hello (one round trip) is on its way long
    before the flood could push them out again."""

    def __init__(self, total: int, per_address: int) -> None:
        self.total = total
        self.per_address = per_address
        self._waiting: dict[Waiter, str] = {}
        self._by_address: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, waiter: object) -> bool:
        return waiter in self._waiting

    def waiting_from(self, address: str) -> int:
        return self._by_address[address]

    def busiest(self) -> int:
        """The most connections one address has waiting (0 when none waits)."""
        return max(self._by_address.values(), default=0)

    def oldest(self, matching: Callable[[Waiter], bool]) -> Waiter | None:
        """The connection waiting longest of those ``matching``, if any."""
        return next((w for w in self._waiting if matching(w)), None)

    def oldest_from(self, address: str) -> Waiter | None:
        """The connection from ``address`` waiting longest, if any."""
        return next((w for w, a in self._waiting.items() if a == address), None)

    def admit(self, address: str) -> tuple[str | None, Waiter | None]:
        """(why not, None) to refuse a new connection from ``address``, or (None, the waiting
        connection to drop to make room for it, if any). The caller ``add``s the new one."""
        mine = self._by_address[address]
        if mine >= self.per_address:
            return Refusal(f"too many connections from {address} are waiting to say hello", why="waiting_address",
                           address=address), None
        if len(self._waiting) < self.total:
            return None, None
        busiest = max(self._by_address.values())
        if busiest <= mine:
            return Refusal("too many connections are waiting to say hello; try again in a moment", why="waiting"), None
        victim = next(w for w, a in self._waiting.items() if self._by_address[a] == busiest)
        self.remove(victim)
        return None, victim

    def add(self, waiter: Waiter, address: str) -> None:
        self._waiting[waiter] = address
        self._by_address[address] += 1

    def remove(self, waiter: Waiter) -> None:
        """``waiter`` said hello, left, or was dropped to make room (safe to call twice)."""
        address = self._waiting.pop(waiter, None)
        if address is None:
            return
        self._by_address[address] -= 1
        if self._by_address[address] <= 0:
            del self._by_address[address]
