"""Player-facing words: every text that depends on a number goes through ``ngettext``.

The functions have gettext's signatures (``gettext(message)``, ``ngettext(singular, plural, n)``),
so that a translation catalogue can take their place without touching the callers. Until then
they hold the English rules: the singular for exactly one, the plural otherwise.
"""

from __future__ import annotations


def gettext(message: str) -> str:
    """``message`` in the player's language."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message that fits ``n``; format the number in afterwards, e.g.
    ``ngettext("{n} token", "{n} tokens", n).format(n=n)``."""
    return singular if n == 1 else plural


def count(n: int, singular: str, plural: str) -> str:
    """``n`` with its noun: ``count(1, "{n} token", "{n} tokens")`` → "1 token"."""
    return ngettext(singular, plural, n).format(n=n)


def cards(n: int) -> str:
    return count(n, "{n} card", "{n} cards")


def tokens(n: int) -> str:
    return count(n, "{n} token", "{n} tokens")


def points(n: int) -> str:
    return count(n, "{n} point", "{n} points")


def free_seats(n: int) -> str:
    return count(n, "{n} free seat", "{n} free seats")


def records(n: int) -> str:
    return count(n, "{n} record", "{n} records")


def tables(n: int) -> str:
    return count(n, "{n} table", "{n} tables")


def bots(n: int) -> str:
    return count(n, "{n} bot", "{n} bots")


def players(n: int) -> str:
    return count(n, "{n} player", "{n} players")
