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
        "## The 2022 edition (the default)\n"
        "2 to 6 players, or up to 8 with the house rule \u201cUp to 8 players\u201d. Everyone gets 4 cards; the\n"
        "player after the dealer starts.\n"
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
        "**Play 2**: the next player plays two cards (drawing after each), unless their first card is a\n"
        "Reverse or a Play 2: then they play only that card and the duty passes on. Duties never add up:\n"
        "whoever takes it plays exactly two cards. A player who cannot play the first card is out and the\n"
        "duty ends; one who plays the first card but cannot play the second is out too."
    ),
    N_(
        "**Out**: a player on turn with **no playable card** is out, and their cards leave the game;\n"
        "nobody chooses to go out. **Four ONO 99 cards** may be discarded together as your turn (key f):\n"
        "the total stays and you draw four new cards; under a Play 2 that is one of your two plays. When\n"
        "the draw pile runs out, the discard pile is shuffled into a new one."
    ),
    N_(
        "## The 1980 edition (O'NO 99)\n"
        "2 to 8 players. A match is several hands: each is dealt afresh, 4 cards each, and its total starts\n"
        "at 0. Play goes in seat order again, starting with the player who lost the last hand."
    ),
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
        "**Double Play**: the next player takes two whole turns, unless their first card is a Hold or a\n"
        "Reverse, which passes the two turns on. A Double Play may not be the first of your two cards."
    ),
    N_(
        "**Tokens** (the default scoring): everyone starts with 3 tokens. A hand ends as soon as someone\n"
        "cannot play: they lose the hand and a token. Losing a hand with no token left puts you out of the\n"
        "match, so the fourth loss does; with \u201cOut as soon as the last token is lost\u201d, the third does.\n"
        "The last player left wins."
    ),
    N_(
        "**Points** (\u201cScoring\u201d: points): a player who cannot play drops out of the hand with their\n"
        "cards, and the hand goes on until one player is left; the first to drop out starts the next hand.\n"
        "Then everyone scores what they hold, and lower is better:"
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
        "\u201cPoints target\u201d: 100 unless the table sets another. \u201cPoints win\u201d says how the match\n"
        "ends: *last standing* (the default): reaching the target puts you out and the last player left\n"
        "wins; if the last players all reach it in the same hand, the lowest score among them wins.\n"
        "*lowest score*: the match ends as soon as anyone reaches the target, and the lowest score wins. A\n"
        "tie goes to the tied player first in seat order from the first player of the last hand."
    ),
    N_(
        "Options of the 1980 edition: \u201cOnly going over 99 loses\u201d: 99 is a legal total. \u201cO'NO 99\n"
        "when the total ends in 0\u201d: one O'NO 99 may be played, adding nothing, at a total of …, −10, 0,\n"
        "10, 20, … \u201cO'NO 99 sets the total to 99\u201d: playing one sets the total to 99 (only with\n"
        "\u201cOnly going over 99 loses\u201d, and not with the option before)."
    ),
    N_(
        "An option of both editions: \u201cManual draw\u201d: you draw yourself, with d, after playing. If the\n"
        "next player plays before you have drawn, that draw is lost and you play on one card short. In a\n"
        "local game a bot waits 8 seconds for your draw, counted down on screen."
    ),
    N_(
        "## A series among friends\n"
        "On a server, the host of a private table can play a series there (\u201cSeries\u201d in the new-game\n"
        "dialog): *best of N games*, the most points after N games wins (it ends early once nobody can catch\n"
        "the leader), or *first to P points*. Each game's places score one point for each player beaten, and\n"
        "the winner one more: with 4 players 4, 2, 1 and 0; with 2 players 2 and 0. Equal points go to more\n"
        "wins, then to the better place in the last game. A player who drops keeps their seat and points: a\n"
        "bot plays for them, and its results count for them. The standings show under the seats and after\n"
        "each game. Between games, the host chooses a series at their private table with e."
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
    N_("h on your turn gives a hint: the card the strong bot would play and each playable card's chance, "
       "estimated from what you see. In a local game, and at a server's table whose host allows hints (its games "
       "are not rated)."),
]
HELP_MARKDOWN = "\n\n".join(HELP_BLOCKS) + "\n"  # English


def help_markdown() -> str:
    """The help in the current language."""
    return "\n\n".join(_(block) for block in HELP_BLOCKS) + "\n"
