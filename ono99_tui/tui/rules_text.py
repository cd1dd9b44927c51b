"""The rules and keys, as the help screen shows them: a summary of docs/rules.md, whose card
tables it repeats word for word (tests/test_rules_doc.py checks that they agree)."""

HELP_MARKDOWN = """\
# ONO 99 — how to play

Everyone adds to **one running total**. Keep it at **98 or below**: whoever is on turn and cannot
play a card without passing that is out. The last player left wins.

## Your turn (2022 edition, the default)
1. Play one card: press its key, [1] to [4]. Its value is added to the total.
2. You draw back up to 4 cards.

<!-- cards-2022 -->
| card | count | effect |
|---|---|---|
| 0 | 8 | adds nothing |
| 1 to 9 | 6 of each (54) | adds its value |
| 10 | 10 | adds 10 |
| −10 | 10 | takes 10 off, never below 0 |
| Reverse | 10 | adds nothing; play turns the other way (with two players left it is a plain 0) |
| Play 2 | 10 | adds nothing; the next player must play two cards |
| ONO 99 | 10 | cannot be played on its own; four together may be discarded as a turn |
<!-- /cards-2022 -->

**Play 2**: the next player plays two cards, unless their first is a Reverse or a Play 2, which
passes the duty on. If you have **no playable card**, you are out: nobody chooses to go out.

## The 1980 edition (O'NO 99)

<!-- cards-1980 -->
| card | count | effect |
|---|---|---|
| 2 to 9 | 3 of each (24) | adds its value |
| 10 | 10 | adds 10 |
| Hold | 4 | adds nothing |
| Reverse | 6 | adds nothing; play turns the other way (with two players it is a Hold) |
| Minus Ten | 4 | takes 10 off; the total may go below zero |
| Double Play | 2 | adds nothing; the next player takes two whole turns |
| O'NO 99 | 4 | cannot be played (see the options) |
<!-- /cards-1980 -->

**Double Play**: dodge it with a Hold or a Reverse; a Double Play may not be the first of your two
cards. A match is several hands: each player has 3 tokens and the loser of a hand loses one (or,
with points scoring, everyone scores the cards left in hand and the lowest score wins).

Options: *manual draw* (draw yourself with d after playing; if the next player plays first, your
draw is lost — against bots you get at least 3 seconds), *only going over 99 loses*, *O'NO 99 when
the total ends in 0*, *O'NO 99 sets the total to 99*, *out as soon as the last token is lost*,
points target and how a points match is won.

## Keys
| key | what it does |
|---|---|
| 1 2 3 4 | play that card |
| ← → then Enter | choose a card and play it (or click it) |
| f | discard four ONO 99 cards |
| d | draw (manual draw tables) |
| s | start the game (the host, before it starts) |
| r | play again, once the game is over |
| c / Esc | type in the chat / back to your hand |
| n | new game |
| u | stand up to watch, or sit down (during a game: at the next one) |
| m | seats: sit, stand; the host adds, removes and gives seats between games |
| l | back to the lobby |
| ? | this help (Esc closes it) |
| F2 | settings: theme (incl. high contrast), bell on your turn, your name |
| q or Ctrl+Q | quit |

A card you cannot play says why, e.g. "7 would make 101". The full rules: docs/rules.md.
"""
