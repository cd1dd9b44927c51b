"""The rules and keys, as the help screen shows them: a summary of docs/rules.md, whose card and
points tables it repeats word for word (tests/test_rules_doc.py checks that they agree). The help
is all a player has (no docs/ comes with the game): it never sends them to a file.

Each block (a heading, a paragraph, a table) is one message of the catalogs, so the help is
translated block by block; ``help_markdown()`` is the help in the current language."""

from __future__ import annotations

from ..i18n import N_
from ..i18n import gettext as _

HELP_BLOCKS = [
    N_("# ONO 99 — how to play"),
    N_(
        "Everyone adds to **one running total**. Keep it at **98 or below**: whoever is on turn and cannot\n"
        "play a card without passing that is out. The last player left wins."
    ),
    N_(
        "## Your turn (2022 edition, the default)\n"
        "1. Play one card: press its key, [1] to [4]. Its value is added to the total.\n"
        "2. You draw back up to 4 cards."
    ),
    N_(
        "<!-- cards-2022 -->\n"
        "| card | count | effect |\n"
        "|---|---|---|\n"
        "| 0 | 8 | adds nothing |\n"
        "| 1 to 9 | 6 of each (54) | adds its value |\n"
        "| 10 | 10 | adds 10 |\n"
        "| −10 | 10 | takes 10 off, never below 0 |\n"
        "| Reverse | 10 | adds nothing; play turns the other way (with two players left it is a plain 0) |\n"
        "| Play 2 | 10 | adds nothing; the next player must play two cards |\n"
        "| ONO 99 | 10 | cannot be played on its own; four together may be discarded as a turn |\n"
        "<!-- /cards-2022 -->"
    ),
    N_(
        "**Play 2**: the next player plays two cards, unless their first is a Reverse or a Play 2, which\n"
        "passes the duty on. If you have **no playable card**, you are out: nobody chooses to go out."
    ),
    N_("## The 1980 edition (O'NO 99)"),
    N_(
        "<!-- cards-1980 -->\n"
        "| card | count | effect |\n"
        "|---|---|---|\n"
        "| 2 to 9 | 3 of each (24) | adds its value |\n"
        "| 10 | 10 | adds 10 |\n"
        "| Hold | 4 | adds nothing |\n"
        "| Reverse | 6 | adds nothing; play turns the other way (with two players it is a Hold) |\n"
        "| Minus Ten | 4 | takes 10 off; the total may go below zero |\n"
        "| Double Play | 2 | adds nothing; the next player takes two whole turns |\n"
        "| O'NO 99 | 4 | cannot be played (see the options) |\n"
        "<!-- /cards-1980 -->"
    ),
    N_(
        "**Double Play**: dodge it with a Hold or a Reverse; a Double Play may not be the first of your two\n"
        "cards. A match is several hands: each player has 3 tokens and the loser of a hand loses one (or,\n"
        "with points scoring, everyone scores the cards left in hand and the lowest score wins)."
    ),
    N_(
        "**Points scoring**: a player who cannot play drops out of the hand with their cards; when one\n"
        "player is left, everyone scores what they hold, and lower is better:"
    ),
    N_(
        "<!-- points-1980 -->\n"
        "| what | points |\n"
        "|---|---|\n"
        "| a number card | its value |\n"
        "| an O'NO 99 card | 20 |\n"
        "| a Hold, Reverse, Minus Ten or Double Play | 15 |\n"
        "| each card short of 4 (a draw lost with manual draw) | 15 |\n"
        "| dropping out of the hand | 25, except when the hand held only O'NO 99 cards |\n"
        "<!-- /points-1980 -->"
    ),
    N_(
        "Reaching the points target (100 unless the table sets another) puts you out, and the last player\n"
        "left wins; with *lowest score* the match ends as soon as anyone reaches it and the lowest score wins."
    ),
    N_(
        "Options: *manual draw* (draw yourself with d after playing; if the next player plays first, your\n"
        "draw is lost — against bots you get at least 3 seconds), *only going over 99 loses*, *O'NO 99 when\n"
        "the total ends in 0*, *O'NO 99 sets the total to 99*, *out as soon as the last token is lost*,\n"
        "points target and how a points match is won."
    ),
    N_(
        "## Keys\n"
        "| key | what it does |\n"
        "|---|---|\n"
        "| 1 2 3 4 | play that card |\n"
        "| ← → then Enter | choose a card and play it (or click it) |\n"
        "| f | discard four ONO 99 cards |\n"
        "| d | draw (manual draw tables) |\n"
        "| s | start the game (the host, before it starts) |\n"
        "| r | play again, once the game is over |\n"
        "| c / Esc | type in the chat / back to your hand |\n"
        "| n | new game |\n"
        "| u | stand up to watch, or sit down (during a game: at the next one) |\n"
        "| m | seats: sit, stand; the host adds, removes and gives seats between games |\n"
        "| l | back to the lobby |\n"
        "| ? | this help (Esc closes it) |\n"
        "| F2 | settings: language, theme (incl. high contrast), bell on your turn, your name |\n"
        "| q or Ctrl+Q | quit |"
    ),
    N_('A card you cannot play says why, e.g. "7 would make 101".'),
    N_("On a server, w opens the player menu: anyone at the table, in the chat or online; mute their chat, block "
       "them from your private tables, or report them to the host."),
]
HELP_MARKDOWN = "\n\n".join(HELP_BLOCKS) + "\n"  # English


def help_markdown() -> str:
    """The help in the current language."""
    return "\n\n".join(_(block) for block in HELP_BLOCKS) + "\n"
