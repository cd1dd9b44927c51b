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


# Why the rules forbid an action now, by a key (an IllegalActionError's ``why``; the protocol's
# ``illegal_action`` error sends it with the params, docs/protocol.md section 9a): the English text,
# translated where shown. ``{card}`` in ``not_in_hand`` is a card code, named by its label on the
# table's ``edition``; in ``would_make`` it is a number card's value.
ILLEGAL_PROBLEMS: dict[str, str] = {
    "game_over": N_("the game is over"),
    "not_your_turn": N_("it is seat {turn}'s turn, not seat {seat}'s"),
    "seat_turn": N_("it is seat {turn}'s turn"),
    "no_draw": N_("seat {seat} has no draw to take"),
    "draw_first": N_("draw your cards first"),
    "four_1980": N_("the four-card discard is a 2022 rule"),
    "four_needs_four": N_("the four-card discard needs four ONO 99 cards in your hand"),
    "not_in_hand": N_("{card} is not in your hand"),
    "would_make": N_("{card} would make {total}"),
    "ono99_2022": N_("ONO 99 cards can only be discarded as four of a kind"),
    "ono99_1980": N_("O'NO 99 cannot be played"),
    "ono99_on_zero": N_("O'NO 99 can only be played when the total ends in 0"),
    "double_first": N_("Double Play cannot be the first of your two turns"),
    "not_now": N_("that card cannot be played now"),
    # the reshuffles and deals a record reader injects
    "draw_pile_not_empty": N_("the draw pile still holds {count} cards; it is reshuffled only when empty"),
    "nothing_to_reshuffle": N_("the discard pile has no cards to reshuffle under its top card"),
    "reshuffle_cards": N_("a reshuffle must hold exactly the discard pile but its top card"),
    "deal_seats": N_("the deal must give cards to seats {expected}, not {given}"),
    "deal_size": N_("seat {seat} was dealt {count} cards, not {size}"),
    "deal_deck": N_("the deal and the draw pile must hold exactly the {edition} deck"),
}


def english_card(code: str, edition: str) -> str:
    """A card's English name (``Card.label``) by its code on an ``edition`` ("1980" or "2022") table."""
    from .cards import Card, Edition  # cards imports this module

    try:
        card = Card.from_code(code)
    except MalformedActionError:
        return code
    return card.label(Edition.E1980 if edition == Edition.E1980.value else Edition.E2022)


class IllegalActionError(ValueError):
    """A well-formed action that the rules forbid right now (wrong seat, unplayable card...).

    ``why`` names the rule (``ILLEGAL_PROBLEMS``: its English ``template``), ``params`` fill it (str or
    int, as the protocol sends them); ``str()`` is the English text, ``say`` the text in a player's words.
    """

    def __init__(self, why: str, **params: str | int) -> None:
        self.why = why
        self.template = ILLEGAL_PROBLEMS[why]
        self.params = params
        super().__init__(self.say())

    def say(self, translate: Callable[[str], str] = english,
            card: Callable[[str, str], str] = english_card) -> str:
        """The text through ``translate`` (e.g. ``gettext``), a card code named by ``card(code, edition)``
        (by default its English label)."""
        values = dict(self.params)
        if self.why == "not_in_hand":
            values["card"] = card(str(values.get("card", "")), str(values.get("edition", "2022")))
        return translate(self.template).format(**values)


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
