"""Bots: functions of one seat's view (and a random generator) only. A bot never sees hidden cards.

The package itself holds the level declarations (``levels.py``), light to import; the bots' play is
in ``players.py`` (``get_bot``), which loads the strong bot's search."""

from .levels import BOT_LEVELS, SEARCHING_LEVELS, BotLevel, get_level

__all__ = ["BOT_LEVELS", "SEARCHING_LEVELS", "BotLevel", "get_level"]
