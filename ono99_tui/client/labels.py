"""The cards', the options', the bots' and the tables' words on a player's screen: the core's English
words (``Card.label``, ``TableOptions.summary``, ``OPTION_WORDS``, ``BotLevel.title``) and the names the
server gives bots and tables, in the player's language."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ono99_kernel.bots.levels import BOT_LEVELS
from ono99_kernel.core.cards import Card, Edition
from ono99_kernel.core.errors import MalformedActionError, OptionError
from ono99_kernel.core.options import (
    OPTION_WORDS,
    POINTS_SUMMARY,
    POINTS_WIN_WORDS,
    SUMMARY_SEPARATOR,
    TOKENS_OUT_SUMMARY,
    TOKENS_SUMMARY,
    TableOptions,
)
from ono99_kernel.protocol import HOSTS_TABLE, TABLE_NAMES
from ono99_kernel.wire.server import Seat, TableInfo

from ..i18n import N_
from ..i18n import gettext as _
from ..reasons import table_name_words


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


def bot_level_name(level: str) -> str:
    """A bot level (``"greedy"``) by its name in the player's language; an unknown one as it came."""
    known = BOT_LEVELS.get(level)
    return _(known.title) if known is not None else level


def bot_row_name(level: str) -> str:
    """A bot level as the leaderboard lists it among the players."""
    return _("bot: {level}").format(level=bot_level_name(level))


# The names the server gives bots (docs/protocol.md, section 6): "Bot 3" for one added to seat 3,
# "Ada (bot)" for one that took over a player's seat during a game.
_ADDED_BOT = re.compile(r"Bot ([1-9][0-9]?)")
_STAND_IN = " (bot)"


def seat_name(seat: Seat) -> str:
    """A seat's name as its reader says it: a bot with a name the server gave it in the player's
    language (``Bot 3`` is ``बट 3`` in Nepali), everyone else by the name they chose."""
    if seat.kind != "bot":
        return seat.name
    added = _ADDED_BOT.fullmatch(seat.name)
    if added is not None:
        return _("Bot {n}").format(n=added[1])
    if seat.name.endswith(_STAND_IN) and len(seat.name) > len(_STAND_IN):
        return _("{name} (bot)").format(name=seat.name[:-len(_STAND_IN)])
    return seat.name


def listed_name(name: str) -> str:
    """A name in a list that does not say who is a bot (a profile's recent games): one the server gives
    its bots (``Bot 3``) in the player's language, any other as it is."""
    added = _ADDED_BOT.fullmatch(name)
    return _("Bot {n}").format(n=added[1]) if added is not None else name


def table_name(info: TableInfo) -> str:
    """A table's name in the player's language when the server named it (the host's table, a play-now
    table), else as its host named it; a name of a kind this version does not know as the server wrote it."""
    return _named(info.name_code, info.name_params) or info.name


def is_own_table(info: TableInfo, my_name: str) -> bool:
    """Whether the table bears the reader's own name (the server named it after them as its host) and
    they still host it (a table passed on to another host keeps its name, not its reader's "Your")."""
    return (bool(my_name) and info.name_code == HOSTS_TABLE and info.name_params.get("host") == my_name
            and info.host == my_name)


def advertised_table_name(name: str) -> str:
    """A table's name as a LAN advertisement carries it (the server's English words only) in the
    player's language, when it is one the server gave; else as it came."""
    return table_name_words(name)


def _named(code: str | None, params: Mapping[str, Any]) -> str | None:
    template = TABLE_NAMES.get(code or "")
    if template is None:
        return None
    try:
        return _(template).format(**{k: v for k, v in params.items() if isinstance(k, str)})
    except (KeyError, IndexError, ValueError):
        return None


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
