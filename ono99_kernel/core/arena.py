"""An arena: a tournament on a public host that players join at any time while it runs, paired again
as soon as their game ends, scored by points per place with a streak bonus (docs/rules.md, "Arenas").

The rules only: no I/O and no clock; every time is passed in (seconds, any origin, the same for all
calls). The server (server/ono99_server/arena.py) seats the tables ``pair`` asks for and counts each finished game
with ``count``.

- **Points per place** are a series' (``core.series.place_points``): one point for each player beaten,
  and the winner one more (4 players: 4, 2, 1, 0). A bot's place takes points from nobody: bots are
  not in the standings.
- **The streak bonus** (as Lichess's arenas): after two wins in a row a player is "on fire", and their
  points are doubled until a game they play is not won (that game is still doubled).
- **Pairing**: the free players (in the arena, not playing) are ordered by standing (points), then
  rating, and cut into tables of the arena's seat count, best first; the rest (fewer than a table)
  wait, and once the one of them free the longest has waited ``BOT_WAIT`` seconds, they are seated
  together and bots fill the other seats. Nobody is paired before the start or after the end.
- **Standings**: points, then wins, then fewer games (a better average), then the name. A player who
  leaves keeps their place and points, and may come back.
- **The end**: no table is paired after the end; a game paired before it still counts when it
  finishes. The podium is the first three of the standings once no game is left running.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .series import place_points

ArenaStatus = Literal["upcoming", "running", "finished"]
ARENA_STATUSES: tuple[ArenaStatus, ...] = ("upcoming", "running", "finished")
ARENA_MINUTES = (5, 24 * 60)  # how long an arena may last
ARENA_SEATS = (2, 8)
BOT_WAIT = 20.0  # seconds the longest-free player waits for others before bots fill their table
STREAK_WINS = 2  # wins in a row after which points are doubled
PODIUM = 3


@dataclass(slots=True)
class ArenaPlayer:
    """One player's line of an arena's standings, and where they are now."""

    name: str
    rating: float = 0.0  # as the server knew it when they joined (pairs players near in strength)
    points: int = 0
    games: int = 0
    wins: int = 0
    streak: int = 0  # games won in a row, up to now
    present: bool = True  # in the arena now (False: left; they keep their points)
    playing: int | None = None  # the game they play now
    free_since: float | None = None  # when they last became free (joined, or their game ended)

    @property
    def on_fire(self) -> bool:
        """Their next game's points are doubled."""
        return self.streak >= STREAK_WINS

    def order(self) -> tuple[int, int, int, str]:
        return -self.points, -self.wins, self.games, self.name


@dataclass(frozen=True, slots=True)
class Pairing:
    """A table to seat: the arena's game number, its players (best standing first) and its bots."""

    game: int
    players: tuple[str, ...]
    bots: int


@dataclass(slots=True)
class Arena:
    """An arena's rule (edition, seats, start, length) and its state."""

    id: int
    name: str
    edition: str
    seats: int
    start: float
    minutes: int
    private: bool = False
    code: str = ""
    creator: str = ""
    players: dict[str, ArenaPlayer] = field(default_factory=dict)  # by name, in the order they joined
    running: dict[int, tuple[str, ...]] = field(default_factory=dict)  # game number -> its players
    counted: set[int] = field(default_factory=set)  # games counted (each is counted once)
    next_game: int = 1
    bot_wait: float = BOT_WAIT

    def __post_init__(self) -> None:
        if not ARENA_SEATS[0] <= self.seats <= ARENA_SEATS[1]:
            raise ValueError(f"an arena of {self.seats} seats")
        if not ARENA_MINUTES[0] <= self.minutes <= ARENA_MINUTES[1]:
            raise ValueError(f"an arena of {self.minutes} minutes")

    @property
    def end(self) -> float:
        return self.start + self.minutes * 60

    def status(self, now: float) -> ArenaStatus:
        if now < self.start:
            return "upcoming"
        if now < self.end or self.running:
            return "running"
        return "finished"

    # --- players coming and going -------------------------------------------------------------------------
    def join(self, name: str, rating: float, now: float) -> ArenaPlayer:
        """``name`` joins (or comes back, keeping their points); free from ``now``."""
        if self.status(now) == "finished" or now >= self.end:
            raise ValueError("the arena is over")
        player = self.players.get(name)
        if player is None:
            player = self.players[name] = ArenaPlayer(name, rating)
        if not player.present:
            player.present = True
            player.rating = rating
        if player.playing is None and player.free_since is None:
            player.free_since = now
        return player

    def leave(self, name: str) -> None:
        """``name`` leaves: never paired again unless they join again; a game they play still counts."""
        player = self.players.get(name)
        if player is not None:
            player.present = False
            player.free_since = None

    def free(self, away: Collection[str] = ()) -> list[ArenaPlayer]:
        """Those who may be paired now: present and not playing (nor ``away``), by standing then rating."""
        free = [p for p in self.players.values() if p.present and p.playing is None and p.name not in away]
        return sorted(free, key=lambda p: (-p.points, -p.rating, p.name))

    # --- pairing ----------------------------------------------------------------------------------------
    def pair(self, now: float, away: Collection[str] = ()) -> list[Pairing]:
        """The tables to seat now (marking their players as playing); none outside the running time.
        ``away``: players not to seat yet (still being shown their last game's end)."""
        if not self.start <= now < self.end:
            return []
        free = self.free(away)
        full = len(free) - len(free) % self.seats
        groups = [free[i:i + self.seats] for i in range(0, full, self.seats)]
        rest = free[full:]
        due = self.bots_due(now)
        if rest and due is not None and due <= now:
            groups.append(rest)
        pairings = []
        for group in groups:
            game = self.next_game
            self.next_game += 1
            names = tuple(p.name for p in group)
            for player in group:
                player.playing, player.free_since = game, None
            self.running[game] = names
            pairings.append(Pairing(game, names, self.seats - len(names)))
        return pairings

    def bots_due(self, now: float) -> float | None:
        """When the players left over (fewer than a table) are seated with bots; None if nobody waits
        or the arena is not running then."""
        free = self.free()
        rest = free[len(free) - len(free) % self.seats:]
        waits = [p.free_since for p in rest if p.free_since is not None]
        if not waits or now >= self.end:
            return None
        return max(self.start, min(waits) + self.bot_wait)

    def next_game_in(self, name: str, now: float) -> float | None:
        """Seconds until ``name`` is seated at the latest (their table is full sooner if others come
        free); None while they play, have left, or the arena will pair nobody any more."""
        player = self.players.get(name)
        if player is None or not player.present or player.playing is not None or now >= self.end:
            return None
        if now < self.start:
            return self.start - now
        due = self.bots_due(now)
        if due is None:
            return 0.0
        return max(0.0, due - now)

    def unpair(self, game: int, now: float) -> None:
        """A pairing the server could not seat (its players free again, the game never counts)."""
        for name in self.running.pop(game, ()):
            self._free(name, game, now)

    def _free(self, name: str, game: int, now: float) -> None:
        """``name`` plays ``game`` no more without a result of it: free from ``now`` if still in the arena."""
        player = self.players[name]
        if player.playing == game:
            player.playing = None
            player.free_since = now if player.present else None

    # --- counting -------------------------------------------------------------------------------------------
    def count(self, game: int, ranking: Sequence[str], now: float) -> dict[str, int]:
        """A finished game's ranking (its players' and bots' names, best first; a bot's name is any name
        not paired in it), counted once: the points each player earned. A game counted before, or not
        running, counts nothing. A player paired in it but not in its ranking never sat down (a bot
        played their seat: they could not be seated at its table): it is not one of their games, and
        they are free again; the others' places count as ranked."""
        names = self.running.pop(game, None)
        if names is None or game in self.counted:
            return {}
        if len(set(ranking)) != len(ranking):
            self.running[game] = names
            raise ValueError(f"game {game}'s ranking {list(ranking)} names someone twice")
        self.counted.add(game)
        for name in set(names) - set(ranking):
            self._free(name, game, now)
        earned: dict[str, int] = {}
        for place, name in enumerate(ranking):
            if name not in names:
                continue
            player = self.players[name]
            points = place_points(len(ranking), place) * (2 if player.on_fire else 1)
            won = place == 0
            player.points += points
            player.games += 1
            player.wins += won
            player.streak = player.streak + 1 if won else 0
            player.playing = None
            player.free_since = now if player.present else None
            earned[name] = points
        return earned

    # --- standings -----------------------------------------------------------------------------------------
    def standings(self) -> list[ArenaPlayer]:
        return sorted(self.players.values(), key=ArenaPlayer.order)

    def place_of(self, name: str) -> int | None:
        """``name``'s place in the standings (1 first)."""
        for place, player in enumerate(self.standings(), start=1):
            if player.name == name:
                return place
        return None

    def podium(self, now: float) -> list[ArenaPlayer]:
        """The first three, once the arena is over and has players who played."""
        if self.status(now) != "finished":
            return []
        return [p for p in self.standings() if p.games][:PODIUM]

    # --- kept by the server ---------------------------------------------------------------------------
    def to_mapping(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "edition": self.edition, "seats": self.seats,
                "start": self.start, "minutes": self.minutes, "private": self.private, "code": self.code,
                "creator": self.creator, "next_game": self.next_game, "bot_wait": self.bot_wait,
                "counted": sorted(self.counted), "running": {str(g): list(n) for g, n in self.running.items()},
                "players": [{"name": p.name, "rating": p.rating, "points": p.points, "games": p.games,
                             "wins": p.wins, "streak": p.streak, "present": p.present, "playing": p.playing,
                             "free_since": p.free_since}
                            for p in self.players.values()]}

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], now: float) -> Arena:
        """An arena as it was kept; its present free players are free from when it says (the nodes of a
        cluster share it), else from ``now``."""
        arena = cls(int(data["id"]), str(data["name"]), str(data["edition"]), int(data["seats"]),
                    float(data["start"]), int(data["minutes"]), bool(data["private"]), str(data["code"]),
                    str(data.get("creator", "")), next_game=int(data["next_game"]),
                    bot_wait=float(data.get("bot_wait", BOT_WAIT)))
        arena.counted = {int(g) for g in data["counted"]}
        arena.running = {int(g): tuple(names) for g, names in data["running"].items()}
        for p in data["players"]:
            player = ArenaPlayer(str(p["name"]), float(p["rating"]), int(p["points"]), int(p["games"]),
                                 int(p["wins"]), int(p["streak"]), bool(p["present"]), p["playing"])
            if player.present and player.playing is None:
                since = p.get("free_since")
                player.free_since = now if since is None else float(since)
            arena.players[player.name] = player
        return arena


def recount(arena: Arena, games: Sequence[tuple[int, Sequence[str], Sequence[str]]]) -> dict[str, int]:
    """Each player's points from an arena's finished games alone, (game, its paired players, its
    ranking) in the order they were counted: what the standings must say."""
    fresh = Arena(arena.id, arena.name, arena.edition, arena.seats, arena.start, arena.minutes)
    for game, players, ranking in games:
        for name in players:
            fresh.players.setdefault(name, ArenaPlayer(name)).playing = game
        fresh.running[game] = tuple(players)
        fresh.count(game, ranking, arena.start)
    return {p.name: p.points for p in fresh.players.values()}
