"""The rules and keys, as the help screen shows them."""

HELP_MARKDOWN = """\
# ONO 99 — how to play

Everyone adds to **one running total**. Keep it **under 99**: whoever cannot play without the
total passing the limit is out. The last player left wins.

## Your turn (2022 edition, the default)
1. Play one card; its value is added to the total. The total after your play must be **98 or less**.
2. You draw back up to 4 cards.

| card | effect |
|---|---|
| 0 … 10 | adds its value |
| −10 | takes 10 off (never below 0) — always playable |
| Reverse | play goes the other way (with two players left it acts as a 0) |
| Play 2 | the next player must play **two** cards — unless they answer with a Reverse or a Play 2 first card, which passes the duty on |
| ONO 99 | can never be played alone; four of them together may be discarded as your turn |

If you have **no legal play**, you are out: nobody chooses to bust, it happens when you cannot play.

## The 1980 edition (O'NO 99)
54 cards, no 0 or 1. **Hold** adds nothing, **Minus Ten** may take the total below zero, **Double
Play** makes the next player take two complete turns (dodge it with a Hold or a Reverse; a Double
Play may not be the first of your two cards). A match is several hands: each player has 3 tokens
and the loser of a hand loses one (or, with points scoring, everyone scores the cards left in hand
and the lowest score wins).

Options: *manual draw* (draw yourself after playing; if the next player plays first, your draw is
lost), *bust over 99* (99 itself is legal), *O'NO 99 on zero* (play an O'NO 99 when the total ends
in 0), *O'NO 99 sets 99*, *out at zero tokens*, points target and how a points match is won.

## Keys
| key | what it does |
|---|---|
| 1 2 3 4 | play that card |
| ← → then Enter | choose a card and play it (or click it) |
| f | discard four ONO 99 cards |
| d | draw (manual draw tables) |
| c / Esc | type in the chat / back to your hand |
| n | new game |
| u | stand up to watch, or sit down (during a game: at the next one) |
| m | seats: sit, stand; the host adds, removes and gives seats between games |
| l | back to the lobby |
| ? | this help (Esc closes it) |
| F2 | settings: theme (incl. high contrast), bell on your turn |
| q or Ctrl+Q | quit |

A card you cannot play says why, e.g. "7 would make 101".
"""
