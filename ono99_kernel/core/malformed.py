"""The error of an action that cannot mean anything: its own module, below both the cards, which
raise it for an unknown code, and ``errors.py``, which names cards in its messages."""

from __future__ import annotations


class MalformedActionError(ValueError):
    """An action that cannot mean anything: unknown card code, seat out of range, wrong type."""
