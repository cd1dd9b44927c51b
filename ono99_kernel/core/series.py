"""A series of games at one table, a league among friends: the points each place of a game earns, and
the standings after each game (docs/rules.md, "Series").

A game's places come from its ranking (``Outcome.ranking``, best first), which breaks every tie, so
two players never share a place; a 1980 match is one game. A place earns one point for each player
it beat, and the winner one more: with four players 4, 2, 1 and 0. A series is either a number of
games ("best of 5": the most points after five games wins; it ends early once nobody can catch the
leader) or a number of points ("first to 10": it ends after the game in which someone reaches them).
Equal points are ranked by games won, then by the better place in the last game played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

SeriesKind = Literal["games", "points"]
SERIES_KINDS: tuple[SeriesKind, ...] = ("games", "points")
SERIES_GAMES = (2, 15)  # the numbers of games a series may have
SERIES_POINTS = (2, 200)  # the points a "first to" series may ask for


def place_points(players: int, place: int) -> int:
    """The points of finishing in ``place`` (0: the winner) of a game of ``players`` players."""
    if not 0 <= place < players:
        raise ValueError(f"place {place} of a game of {players} players")
    beaten = players - 1 - place
    return beaten + 1 if place == 0 else beaten


def points_table(players: int) -> tuple[int, ...]:
    """The points of each place of a game of ``players`` players, first place first."""
    return tuple(place_points(players, place) for place in range(players))


@dataclass(slots=True)
class Standing:
    """One player's line of a series' standings."""

    name: str
    points: int = 0
    wins: int = 0
    games: int = 0
    last: int | None = None  # their place in the last game counted (None: they did not play it)

    def order(self) -> tuple[int, int, int]:
        return -self.points, -self.wins, self.last if self.last is not None else 99


@dataclass(slots=True)
class Series:
    """A series' rule and its standings so far."""

    kind: SeriesKind
    target: int  # games, or points
    played: int = 0  # games counted
    entries: list[Standing] = field(default_factory=list)  # in order of first appearance
    most_per_game: int = 0  # a winner's points in the games counted (what a game can give at most)

    def __post_init__(self) -> None:
        low, high = SERIES_GAMES if self.kind == "games" else SERIES_POINTS
        if self.kind not in SERIES_KINDS or not low <= self.target <= high:
            raise ValueError(f"a series of {self.target} {self.kind}")

    def count(self, names: Sequence[str]) -> None:
        """A finished game's players, best first (a game's ranking), counted into the standings."""
        if self.over:
            raise ValueError("the series is over")
        if len(set(names)) != len(names):
            raise ValueError(f"one player in two places: {names}")
        players = len(names)
        by_name = {entry.name: entry for entry in self.entries}
        for entry in self.entries:
            entry.last = None
        for place, name in enumerate(names):
            if name not in by_name:
                by_name[name] = Standing(name)
                self.entries.append(by_name[name])
            entry = by_name[name]
            entry.points += place_points(players, place)
            entry.wins += place == 0
            entry.games += 1
            entry.last = place
        self.played += 1
        self.most_per_game = max(self.most_per_game, place_points(players, 0))

    def standings(self) -> list[Standing]:
        """Best first; a stable order for the players still level on everything."""
        return sorted(self.entries, key=Standing.order)

    @property
    def over(self) -> bool:
        table = self.standings()
        if not table:
            return False
        if self.kind == "points":
            return table[0].points >= self.target
        if self.played >= self.target:
            return True
        second = table[1].points if len(table) > 1 else 0
        return table[0].points - second > (self.target - self.played) * self.most_per_game  # nobody can catch up

    @property
    def winner(self) -> str | None:
        return self.standings()[0].name if self.over else None

    def fresh(self) -> Series:
        """The same kind of series, from the start (the next one at the table)."""
        return Series(self.kind, self.target)

    # --- kept with the table ---------------------------------------------------------------------------
    def to_mapping(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "played": self.played, "most_per_game": self.most_per_game,
                "entries": [{"name": e.name, "points": e.points, "wins": e.wins, "games": e.games, "last": e.last}
                            for e in self.entries]}

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Series:
        kind = data["kind"]
        if kind not in SERIES_KINDS:
            raise ValueError(f"no series of {kind!r}")
        return cls(kind, int(data["target"]), int(data["played"]),
                   [Standing(str(e["name"]), int(e["points"]), int(e["wins"]), int(e["games"]), e.get("last"))
                    for e in data.get("entries") or []], int(data.get("most_per_game", 0)))
