"""The plain mode: ONO 99 as lines of text, for screen readers and braille displays.

The same client of the game server as the app (it speaks the protocol through ``ono99_tui.client``
or the local game's in-process link, and reads the decoded values of ``ono99_kernel.wire.server``), but
what it says is one complete sentence per line, appended and never redrawn: no box drawing, no
colour, no cursor movement. What the player types is read as keys and lines (``console.py``),
what the server sends is said in the player's language (``words.py``), and ``session.py`` holds
the game between them. ``run.py`` runs it in this terminal (``ono99 --plain``, ``ono99 connect
--plain HOST``); the SSH front runs it for ``ssh plain@HOST`` (``ono99_tui/front/ssh_plain.py``).
docs/plain.md describes it for players.
"""
