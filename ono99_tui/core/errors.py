"""The error types of the game core. All are ``ValueError`` subclasses."""

from __future__ import annotations

from collections.abc import Callable

from .words import english


class OptionName(str):
    """An option's name (as records and the protocol spell it) among an ``OptionError``'s params."""

    __slots__ = ()


class OptionError(ValueError):
    """Table options that are unknown, mistyped or do not fit together.

    ``template`` is the English text with ``{placeholders}`` (marked for the catalogs), ``params``
    fill them; ``str()`` is the English text, ``say`` the text in a player's words.
    """

    def __init__(self, template: str, **params: str | int) -> None:
        self.template = template
        self.params = params
        super().__init__(self.say())

    def say(self, translate: Callable[[str], str] = english, name: Callable[[str], str] = repr) -> str:
        """The text through ``translate`` (e.g. ``gettext``), each option named by ``name`` (by default its
        quoted name: ``'manual_draw'``)."""
        values = {key: name(value) if isinstance(value, OptionName) else value for key, value in self.params.items()}
        return translate(self.template).format(**values)


class MalformedActionError(ValueError):
    """An action that cannot mean anything: unknown card code, seat out of range, wrong type."""


class IllegalActionError(ValueError):
    """A well-formed action that the rules forbid right now (wrong seat, unplayable card...)."""


class RecordError(ValueError):
    """A game record that does not follow ``ono99-record/1`` or does not replay.

    ``line`` is the 1-based line of a JSON Lines file (None when unknown), ``hand`` the 0-based
    hand index and ``event`` the 0-based event index within it, where the fault lies.
    """

    def __init__(
        self,
        reason: str,
        *,
        line: int | None = None,
        hand: int | None = None,
        event: int | None = None,
    ) -> None:
        self.reason = reason
        self.line = line
        self.hand = hand
        self.event = event
        super().__init__(self.describe())

    def at_line(self, line: int) -> RecordError:
        return RecordError(self.reason, line=line, hand=self.hand, event=self.event)

    def describe(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.hand is not None:
            where.append(f"hand {self.hand}")
        if self.event is not None:
            where.append(f"event {self.event}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason
