"""The pure game core: cards, options, rules, views, records. No I/O, no global randomness."""

from .actions import DISCARD_FOUR, DRAW, Action, ActionKind, play
from .cards import DECK_COUNTS, Card, Edition, new_deck
from .errors import IllegalActionError, MalformedActionError, OptionError, RecordError
from .events import (
    Drew,
    Event,
    GameOver,
    HandEnded,
    HandStarted,
    MissedDraw,
    Out,
    Played,
    Reshuffled,
)
from .game import Chance, Game, HandLog, Outcome, RandomChance
from .options import PointsWin, Scoring, TableOptions
from .view import Obligation, PublicView, SeatView, TableView, Unplayable

__all__ = [
    "DECK_COUNTS", "DISCARD_FOUR", "DRAW", "Action", "ActionKind", "Card", "Chance", "Drew",
    "Edition", "Event", "Game", "GameOver", "HandEnded", "HandLog", "HandStarted",
    "IllegalActionError", "MalformedActionError", "MissedDraw", "Obligation", "OptionError", "Out",
    "Outcome", "Played", "PointsWin", "PublicView", "RandomChance", "RecordError", "Reshuffled",
    "Scoring", "SeatView", "TableOptions", "TableView", "Unplayable", "new_deck", "play",
]
