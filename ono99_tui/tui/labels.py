"""The cards', the options' and the tables' words on a player's screen: the core's English words
(``Card.label``, ``TableOptions.summary``, ``OPTION_WORDS``) in the player's language."""

from __future__ import annotations

import re

from ..core.cards import Card, Edition
from ..core.errors import MalformedActionError, OptionError
from ..core.options import (
    OPTION_WORDS,
    POINTS_SUMMARY,
    POINTS_WIN_WORDS,
    SUMMARY_SEPARATOR,
    TOKENS_OUT_SUMMARY,
    TOKENS_SUMMARY,
    TableOptions,
)
from ..i18n import N_
from ..i18n import gettext as _


def _card(code: str) -> Card | None:
    try:
        return Card.from_code(code)
    except MalformedActionError:
        return None


def _edition(edition: str) -> Edition:
    return Edition.E1980 if edition == Edition.E1980.value else Edition.E2022


def card_label(code: str, edition: str = "2022") -> str:
    """A card's name by its code (``Card.label``) in the player's language; also ``ONO99x4`` (the four
    ONO 99 discarded together) and ``draw``. An unknown code is shown as it is."""
    if code == "ONO99x4":
        return _("four ONO 99")
    if code == "draw":
        return _("draw")
    card = _card(code)
    return code if card is None else _(card.label(_edition(edition)))


def card_short(code: str) -> str:
    """A card's face in at most three cells (``Card.short``)."""
    card = _card(code)
    return code if card is None else card.short


def card_kind(code: str) -> str:
    """A word for what a card is, readable without colour (``Card.kind``)."""
    card = _card(code)
    return "number" if card is None else card.kind


STATUS_WORDS = {"waiting": N_("waiting"), "playing": N_("playing"), "finished": N_("finished")}


def status_word(status: str) -> str:
    """A table's status (as the server names it) in the player's language."""
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def rules_summary(options: TableOptions) -> str:
    """A table's rules in a few words, in the player's language, e.g. "1980 · tokens · manual draw": the
    engine's summary (``TableOptions.summary``) said with the player's words."""
    return options.summary(_)


# the English words of an engine's summary, to say a summary that came only in English (a LAN advertisement)
_SUMMARY_WORDS = {TOKENS_SUMMARY, TOKENS_OUT_SUMMARY, *POINTS_WIN_WORDS.values(),
                  *(words.summary for words in OPTION_WORDS.values() if words.summary)}
_POINTS = re.compile(re.escape(POINTS_SUMMARY).replace(r"\{target\}", r"(?P<target>\d+)")
                     .replace(r"\{win\}", r"(?P<win>.+)") + "$")


def summary_words(summary: str) -> str:
    """A table's summary in the engine's English words (``TableOptions.summary``: all a LAN
    advertisement carries) in the player's language; a part it does not know (a newer server's, or
    one cut short) stays as it came."""
    return SUMMARY_SEPARATOR.join(_summary_part(part) for part in summary.split(SUMMARY_SEPARATOR))


def _summary_part(part: str) -> str:
    if part in _SUMMARY_WORDS:
        return _(part)
    points = _POINTS.match(part)
    if points is not None and points["win"] in _SUMMARY_WORDS:
        return _(POINTS_SUMMARY).format(target=points["target"], win=_(points["win"]))
    return part


def option_title(name: str) -> str:
    """An option's name as the new-game dialog labels it, in the player's language and in quotes."""
    words = OPTION_WORDS.get(name)
    return "\u201c" + (_(words.title) if words is not None else name) + "\u201d"


def option_problem(error: OptionError) -> str:
    """An option error from the engine in the player's language, naming options as the dialog does."""
    return error.say(_, option_title)
