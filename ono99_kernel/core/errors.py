"""The error types of the game core. All are ``ValueError`` subclasses."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from .cards import Card, Edition
from .malformed import MalformedActionError as MalformedActionError  # apart, for cards.py; named here too
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
# The rules that speak to the player ("your hand"), said of a seat instead: a record's check reads
# the game from outside.
OF_A_SEAT: dict[str, str] = {
    "draw_first": N_("seat {seat} must draw its cards first"),
    "four_needs_four": N_("the four-card discard needs four ONO 99 cards in seat {seat}'s hand"),
    "not_in_hand": N_("{card} is not in seat {seat}'s hand"),
    "double_first": N_("Double Play cannot be the first of seat {seat}'s two turns"),
}


def english_card(code: str, edition: str) -> str:
    """A card's English name (``Card.label``) by its code on an ``edition`` ("1980" or "2022") table."""
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

    def say(self, translate: Callable[[str], str] = english) -> str:
        """The text through ``translate`` (e.g. ``gettext``), a card named by its label through it."""
        return self._say(self.template, self.params, translate)

    def of_seat(self, seat: int) -> Sayable:
        """The same problem said of ``seat`` rather than to its player."""
        return SeatProblem(self, seat) if self.why in OF_A_SEAT else self

    def _say(self, template: str, params: Mapping[str, str | int], translate: Callable[[str], str]) -> str:
        values = dict(params)
        if self.why == "not_in_hand":
            values["card"] = translate(english_card(str(values.get("card", "")), str(values.get("edition", ""))))
        return translate(template).format(**values)


class SeatProblem:
    """An engine's refusal said of a seat (``IllegalActionError.of_seat``)."""

    __slots__ = ("error", "seat")

    def __init__(self, error: IllegalActionError, seat: int) -> None:
        self.error = error
        self.seat = seat

    def say(self, translate: Callable[[str], str] = english) -> str:
        return self.error._say(OF_A_SEAT[self.error.why], {**self.error.params, "seat": self.seat}, translate)


class Sayable(Protocol):
    """Something said in English that a layer above says in a player's words."""

    def say(self, translate: Callable[[str], str] = english) -> str: ...


Said = str | int | Sayable


class Phrase:
    """An English text marked for translation (``N_``) with the values its ``{placeholders}`` name: a part
    of a longer text, said in a player's words by ``say``."""

    __slots__ = ("params", "template")

    def __init__(self, template: str, **params: Said) -> None:
        self.template = template
        self.params = params

    def say(self, translate: Callable[[str], str] = english) -> str:
        return translate(self.template).format(**_said(self.params, translate))

    def __str__(self) -> str:
        return self.say()


def _said(params: Mapping[str, Said], translate: Callable[[str], str]) -> dict[str, str | int]:
    return {key: value if isinstance(value, str | int) else value.say(translate) for key, value in params.items()}


# Why a game record is refused (a RecordError's ``why``), the English text, translated where shown; a
# template of a placeholder alone says a nested problem (the engine's, in its own words).
RECORD_PROBLEMS: dict[str, str] = {
    "problem": "{problem}",
    "not_object": N_("a record must be a JSON object"),
    "json": N_("not valid JSON: {problem}"),
    "nested": N_("record nested too deeply"),
    "format": N_("'format' must be {expected}, not {found}"),
    "options_object": N_("'options' must be an object"),
    "seed": N_("'seed' must be a whole number or null, not {found}"),
    "players": N_("'players' must list {low} to {high} players"),
    "player_object": N_("players[{index}] must be an object with a text 'name' and 'kind'"),
    "list": N_("{name} must be a list"),
    "card_codes": N_("{name}: unknown card code {code} (known: {known})"),
    "seat_field": N_("{name} must be a seat from 0 to {last}, not {found}"),
    "no_hands": N_("'hands' is empty: a record holds at least one hand"),
    "hand_object": N_("a hand must be an object"),
    "hands_2022": N_("a 2022 game has exactly one hand, this record has {count}"),
    "hands_short": N_("the match goes on (hand {next} must be dealt) but the record has only {count} hand(s)"),
    "first": N_("seat {seat} must play first ({because}), the record says {first}"),
    "dealt_count": N_("'dealt' must list {seats} hands, one per seat, not {count}"),
    "dealt_size": N_("seat {seat} must be dealt {size} cards, not {count}"),
    "dealt_out": N_("seat {seat} is out of the match and must be dealt no cards"),
    "deck": N_("the deal and the draw pile are not the {edition} deck: {difference}"),
    "reshuffle_here": N_("the draw pile is empty and a card must be drawn, so the discard pile is reshuffled here, "
                         "but the record has {found}"),
    "reshuffle_pile": N_("the reshuffled draw pile must be the discard pile but its top card: {difference}"),
    "hand_not_over": N_("the hand is not over ({state}) but the record starts another"),
    "game_not_over": N_("the record ends but the game is not over ({state})"),
    "event_object": N_("an event must be an object"),
    "goes_on": N_("{ended}, but the record goes on with {found}"),
    "changed_nothing": N_("{found} changed nothing"),
    "events_end": N_("the rules require {expected} next, but the hand's events end here"),
    "lose_draw": N_("seat {seat} cannot lose a draw here ({because})"),
    "cards_play": N_("'cards' must hold one card or four ONO99"),
    "cannot_happen": N_("{found} cannot happen here: {state}"),
    "event_kind": N_("unknown event kind {kind} (known: play, draw, reshuffle, missed_draw, out)"),
    "illegal": N_("{found} is illegal: {problem}"),
    "mismatch": N_("the rules give {expected} here, the record has {found}"),
    "result_given": N_("'result' is given but the game is not over"),
    "result_object": N_("'result' must be an object, the game was won by seat {winner}"),
    "result_winner": N_("result: seat {winner} wins, the record says {found}"),
    "result_values": N_("result: {key} are {expected}, the record says {found}"),
    "no_record": N_("the file holds {records}; there is no record {number}"),
}
WHERE_LINE = N_("line {line}")
WHERE_HAND = N_("hand {hand}")
WHERE_EVENT = N_("event {event}")
WHERE = N_("{where}: {reason}")


class RecordError(ValueError):
    """A game record that does not follow ``ono99-record/1`` or does not replay.

    ``why`` names the fault (``RECORD_PROBLEMS``), ``params`` fill its text (nested parts, such as an
    event or the engine's own refusal, say themselves). ``line`` is the 1-based line of a JSON Lines file
    (None when unknown), ``hand`` the 0-based hand index and ``event`` the 0-based event index within it,
    where the fault lies (``describe`` counts all three from 1, as a reader counts). ``str()`` is the
    English text, ``describe`` says it in a player's words.
    """

    def __init__(
        self,
        why: str,
        *,
        line: int | None = None,
        hand: int | None = None,
        event: int | None = None,
        **params: Said,
    ) -> None:
        self.why = why
        self.template = RECORD_PROBLEMS[why]
        self.params = params
        self.line = line
        self.hand = hand
        self.event = event
        super().__init__(self.describe())

    @property
    def reason(self) -> str:
        """The fault in English, without where it lies."""
        return self.say()

    def say(self, translate: Callable[[str], str] = english) -> str:
        """The fault through ``translate`` (e.g. ``gettext``), without where it lies."""
        return translate(self.template).format(**_said(self.params, translate))

    def at_line(self, line: int) -> RecordError:
        return RecordError(self.why, line=line, hand=self.hand, event=self.event, **self.params)

    def describe(self, translate: Callable[[str], str] = english) -> str:
        """Where the fault lies and what it is, through ``translate``."""
        where = []
        if self.line is not None:
            where.append(translate(WHERE_LINE).format(line=self.line))
        if self.hand is not None:
            where.append(translate(WHERE_HAND).format(hand=self.hand + 1))
        if self.event is not None:
            where.append(translate(WHERE_EVENT).format(event=self.event + 1))
        reason = self.say(translate)
        return translate(WHERE).format(where=", ".join(where), reason=reason) if where else reason
