"""English words a player reads, marked for translation without translating them here.

The core knows no language: it says things in English (records, the engine's errors, a table's
summary). Where a layer above shows them to a player, it translates them (``ono99_tui.i18n``); the
catalogs tool (tools/catalogs.py) extracts every text marked ``N_("...")`` into the catalogs.
"""

from __future__ import annotations


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs and returns it unchanged: it is translated where it is shown."""
    return message


def english(message: str) -> str:
    """The "translation" into English: the message itself (the default of every ``say`` argument)."""
    return message
