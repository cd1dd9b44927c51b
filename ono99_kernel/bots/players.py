"""How each bot level of ``levels.py`` plays: its functions, by level name."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..core.actions import Action
from ..core.view import SeatView
from .basic import choose_casual, choose_greedy, choose_random, pick_casual, pick_greedy, pick_random
from .levels import BOT_LEVELS, BotLevel, get_level
from .strong import choose_strong

Bot = Callable[[SeatView, random.Random], Action]
# A level that decides from the legal actions alone: the same choice as its ``Bot`` given the view.
LegalActionsBot = Callable[[Sequence[Action], random.Random], Action]


@dataclass(frozen=True, slots=True)
class BotPlayer:
    level: BotLevel
    choose: Bot
    pick: LegalActionsBot | None = None  # when the legal actions are all it reads


_PLAYS: dict[str, tuple[Bot, LegalActionsBot | None]] = {
    "random": (choose_random, pick_random),
    "casual": (choose_casual, pick_casual),
    "greedy": (choose_greedy, pick_greedy),
    "strong": (choose_strong, None),
}
BOT_PLAYERS: dict[str, BotPlayer] = {name: BotPlayer(level, *_PLAYS[name]) for name, level in BOT_LEVELS.items()}


def get_bot(name: str) -> BotPlayer:
    """The player of level ``name`` (ValueError for a name ``levels.py`` does not declare)."""
    get_level(name)
    return BOT_PLAYERS[name]
