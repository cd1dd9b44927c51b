"""Bots: functions of one seat's view (and a random generator) only. A bot never sees hidden cards."""

from .levels import BOT_LEVELS, Bot, BotLevel, get_bot

__all__ = ["BOT_LEVELS", "Bot", "BotLevel", "get_bot"]
