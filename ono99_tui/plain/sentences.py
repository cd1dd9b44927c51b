"""What the plain mode says, in the player's language: whole sentences, each a message of the
catalogs (docs/translating.md). Names and chat from other players come in as plain text
(``console.plain_text``); everything else is the server's decoded values said in words, never the
rules worked out again."""

from __future__ import annotations

from collections.abc import Sequence

from ono99_kernel.core.options import SUMMARY_SEPARATOR, TableOptions
from ono99_kernel.wire.server import TableInfo

from .. import text as count_words
from ..client.labels import card_label, rules_summary, status_word, table_name
from ..i18n import N_, ngettext, pgettext
from ..i18n import gettext as _
from .console import plain_text

# Number cards in words: "1, ten; 2, zero" cannot be heard as "1, 10, 2, 0".
NUMBER_WORDS = {
    "0": N_("zero"), "1": N_("one"), "2": N_("two"), "3": N_("three"), "4": N_("four"), "5": N_("five"),
    "6": N_("six"), "7": N_("seven"), "8": N_("eight"), "9": N_("nine"), "10": N_("ten"), "-10": N_("minus ten"),
}
LIST_SEPARATOR = "; "  # between the entries of a list said in one line ("1, ten; 2, zero")


def is_yes(answer: str) -> bool:
    """Whether a typed answer (a key or a line) means yes: y or yes, or one of the language's own
    words or letters for yes (German j and ja, Galician s and si), in any case."""
    own = pgettext("the words and single letters that answer yes to a question, separated by spaces (no letter "
                   "that begins no); y and yes always do too", "yes")
    return answer.strip().casefold() in {"y", "yes", *own.casefold().split()}


def card(code: str, edition: str) -> str:
    """A card by its code, said: number cards in words, the others by their names on the card."""
    number = NUMBER_WORDS.get(code)
    return _(number) if number is not None else card_label(code, edition)


def cards(codes: Sequence[str], edition: str) -> str:
    return ", ".join(card(code, edition) for code in codes)


def rules(options_summary: str) -> str:
    """A table's rules as words between commas ("1980, tokens, manual draw"): a middle dot is read out."""
    return options_summary.replace(SUMMARY_SEPARATOR, ", ")


def table_rules(options: TableOptions) -> str:
    return rules(rules_summary(options))


def total(value: int, limit: int) -> str:
    """The running total and the room left under ``limit``, the highest legal total (the table options')."""
    room = limit - value
    if room > 0:
        return _("Total {total}, {room} to go.").format(total=value, room=room)
    if room == 0:
        return _("Total {total}, at the limit.").format(total=value)
    return _("Total {total}, over the limit.").format(total=value)


def seconds_left(seconds: int) -> str:
    return ngettext("{n} second left.", "{n} seconds left.", seconds).format(n=seconds)


def seats(n: int) -> str:
    return count_words.count(n, "{n} seat", "{n} seats")


def sentence(text: str) -> str:
    """A reason or notice the server's codes say as a clause ("the name is taken") as a sentence."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?।…" else text + "."


def clause(text: str) -> str:
    """A reason after a colon ("Not done: the name is taken."): ended as a sentence, not capitalised."""
    text = text.strip()
    return text if not text or text[-1] in ".!?।…" else text + "."


def names(values: Sequence[str]) -> str:
    return ", ".join(plain_text(v) for v in values)


# --- the lobby --------------------------------------------------------------------------------------
def table_line(table: TableInfo) -> str:
    """One table of the lobby's list, by its number (its id: the app's # column shows the same)."""
    parts = [plain_text(table_name(table)), table_rules(table.options), status_word(table.status),
             ngettext("{free} of {seats} seats free", "{free} of {seats} seats free", table.free).format(
                 free=table.free, seats=len(table.seats))]
    if table.host:
        parts.append(_("host {name}").format(name=plain_text(table.host)))
    if table.hints:
        parts.append(_("hints on"))
    if table.spectators:
        parts.append(ngettext("{n} watching", "{n} watching", table.spectators).format(n=table.spectators))
    return _("Table {n}: {what}.").format(n=table.id, what=", ".join(parts))


def open_tables(n: int) -> str:
    if n == 0:
        return _("No table is open.")
    return ngettext("{n} table is listed.", "{n} tables are listed.", n).format(n=n)


# --- help ----------------------------------------------------------------------------------------------
def lobby_help() -> list[str]:
    return [
        _("In the lobby, these keys act at once: l lists the tables, w says who is online, p plays now, "
          "e and + or - change the edition and the seats of play now, x stops waiting."),
        _("Typed, then Enter: a table's number joins it, j and an invite code joins a private table, s and "
          "a number or a code watches a table, n opens a table of your own, for example n 1980 3 private."),
        _("For a series among friends, add best and a number of games, or first and a number of points: "
          "n best5 or n first10 opens a private table that plays one."),
        _("arena and Enter joins the arena the lobby lists, arena and a code a private one; arena standings "
          "says the standings and your next game, arena watch watches its top game, arena leave leaves it."),
        _("arena new opens a private arena of an hour with you in it, and says the code your friends type."),
        _("arena results says the tournaments you played, newest first; arena results and a number says the "
          "standings of one of them."),
        _("c, then your text and Enter, chats; v switches between brief and full; q quits, after asking."),
    ]


def table_help(local: bool) -> list[str]:
    lines = [
        _("At the table, these keys act at once: a card's number plays it, t says the total and whose turn it "
          "is, h your cards, l the last plays, w who is at the table."),
        _("d draws your card, f discards four ONO 99 cards, s starts the game, r plays again, u stands up or "
          "sits down, m opens the seat menu, x leaves the table."),
        _("c, then your text and Enter, chats; v switches between brief and full; q quits, after asking."),
    ]
    if local:
        lines.append(_("n and Enter starts a new game; you may add 1980, a number of seats, a bot level and "
                       "options, for example n 1980 3 strong manual_draw."))
        lines.append(_("a, once the game is over, analyses your moves and says the marked ones in words."))
    else:
        lines.append(_("p, once the game is over, leaves the table to play now; n and Enter opens a table of "
                       "your own."))
        lines.append(_("The host of a private table chooses a series between games: e best5, e first10, or "
                       "e none."))
    return lines
