"""The error types of the game core. All are ``ValueError`` subclasses."""

from __future__ import annotations

from collections.abc import Callable

from .words import N_, english


class OptionName(str):
    """An option's name (as records and the protocol spell it) among an ``OptionError``'s params."""

    __slots__ = ()


# Why table options are refused, by a key (an OptionError's ``why``; the protocol's ``bad_options``
# error sends it with the params, docs/protocol.md section 9a): the English text, translated where shown.
OPTION_PROBLEMS: dict[str, str] = {
    "one_of": N_("option {option} must be one of {allowed}; got {value}"),
    "whole_number": N_("option {option} must be a whole number from {low} to {high}, got {value}"),
    "elimination_2022": N_("option {option} must be 'elimination' on a 2022 table, got {value} "
                           "(tokens and points are 1980 options)"),
    "only_1980": N_("option {option} belongs to the 1980 edition; on a 2022 table it must be false"),
    "not_elimination_1980": N_("option {option} must be 'tokens' or 'points' on a 1980 table, got 'elimination'"),
    "house_rule_2022": N_("option {option} is a 2022 house rule; 1980 tables already seat 2 to 8"),
    "requires": N_("option {option} requires {other} to be on (a total of 99 must be legal)"),
    "exclusive": N_("options {option} and {other} cannot both be on: they are two readings of the same card"),
    "unknown": N_("unknown option {option} (known options: {known})"),
    "seats_eight": N_("a {edition} table seats {low} to {high} players (up to 8 with option {other}), got {count}"),
    "seats": N_("a {edition} table seats {low} to {high} players, got {count}"),
    "name_value": N_("expected NAME=VALUE, got {value}"),
}


class OptionError(ValueError):
    """Table options that are unknown, mistyped or do not fit together.

    ``why`` names the problem (``OPTION_PROBLEMS``: its English ``template`` with ``{placeholders}``),
    ``params`` fill them; ``str()`` is the English text, ``say`` the text in a player's words.
    """

    def __init__(self, why: str, **params: str | int) -> None:
        self.why = why
        self.template = OPTION_PROBLEMS[why]
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
