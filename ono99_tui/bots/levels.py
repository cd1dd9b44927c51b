"""The bot levels by name, as the CLI, the protocol, the server and the TUI name them: the one list of them."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..core.actions import Action
from ..core.view import SeatView
from ..core.words import N_
from .basic import choose_casual, choose_greedy, choose_random, pick_casual, pick_greedy, pick_random
from .strong import choose_strong

Bot = Callable[[SeatView, random.Random], Action]
# A level that decides from the legal actions alone: the same choice as its ``Bot`` given the view.
LegalActionsBot = Callable[[Sequence[Action], random.Random], Action]


@dataclass(frozen=True, slots=True)
class BotLevel:
    name: str
    description: str  # in English, translated where shown
    choose: Bot
    pick: LegalActionsBot | None = None  # when the legal actions are all it reads
    fill_rank: int = 0  # play now fills seats with the level rated nearest its players; a tie goes to the lowest rank


BOT_LEVELS: dict[str, BotLevel] = {
    level.name: level
    for level in (
        BotLevel("random", N_("Plays any legal card at random."), choose_random, pick_random, fill_rank=3),
        BotLevel("casual", N_("Plays a random number that fits and keeps escape cards until none does."),
                 choose_casual, pick_casual, fill_rank=1),
        BotLevel("greedy", N_("Plays its biggest safe number and saves escape cards for emergencies."),
                 choose_greedy, pick_greedy, fill_rank=0),
        BotLevel("strong", N_("Counts cards and looks ahead over the possible hidden hands."), choose_strong,
                 fill_rank=2),
    )
}


def get_bot(name: str) -> BotLevel:
    try:
        return BOT_LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown bot level {name!r} (known: {', '.join(BOT_LEVELS)})") from None
