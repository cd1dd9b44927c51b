"""Player-facing words: every text that depends on a number goes through ``ngettext``.

``gettext`` and ``ngettext`` are the player's language's (``ono99_tui.i18n``); ``count`` is
``ngettext`` with the number formatted in, and the extraction keywords (docs/translating.md) know it.
"""

from __future__ import annotations

from .i18n import gettext, ngettext

__all__ = ["bots", "cards", "count", "free_seats", "gettext", "ngettext", "players", "points", "records",
           "tables", "tokens"]


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
