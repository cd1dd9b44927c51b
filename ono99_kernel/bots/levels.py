"""The bot levels by name, as the CLI, the protocol, the server and the TUI name them: the one list of them
(a player reads a level's ``title`` in their language).

Declarations only, light to import: a level's name, its description, whether it searches and its fill
rank. How each level plays is in ``players.py``, which loads the bots themselves (the strong bot's search
among them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.words import N_


@dataclass(frozen=True, slots=True)
class BotLevel:
    name: str  # as the CLI, the protocol and the records name the level
    title: str  # the level's name in English, translated where shown
    description: str  # in English, translated where shown
    fill_rank: int = 0  # play now fills seats with the level rated nearest its players; a tie goes to the lowest rank
    searches: bool = False  # its decisions take tens of milliseconds: a server runs them off its event loop


BOT_LEVELS: dict[str, BotLevel] = {
    level.name: level
    for level in (
        BotLevel("random", N_("random"), N_("Plays any legal card at random."), fill_rank=3),
        BotLevel("casual", N_("casual"),
                 N_("Plays a random number that fits and keeps escape cards until none does."), fill_rank=1),
        BotLevel("greedy", N_("greedy"),
                 N_("Plays its biggest safe number and saves escape cards for emergencies."), fill_rank=0),
        BotLevel("strong", N_("strong"), N_("Counts cards and looks ahead over the possible hidden hands."),
                 fill_rank=2, searches=True),
    )
}
SEARCHING_LEVELS = frozenset(name for name, level in BOT_LEVELS.items() if level.searches)


def get_level(name: str) -> BotLevel:
    try:
        return BOT_LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown bot level {name!r} (known: {', '.join(BOT_LEVELS)})") from None
