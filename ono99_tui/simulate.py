"""Headless bot games: many seeded games, seats rotated, results with confidence intervals."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ono99_kernel.bots import BOT_LEVELS
from ono99_kernel.bots.players import LegalActionsBot, get_bot
from ono99_kernel.core.actions import DRAW
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import TableOptions
from ono99_kernel.core.record import Player, dumps, game_to_record
from ono99_kernel.core.state import RandomChance, State

from . import text as words
from .i18n import gettext as _
from .numbers import percent

CHUNK_GAMES = 200  # games a worker plays per task


@dataclass(frozen=True, slots=True)
class SimulationPlan:
    games: int
    bots: tuple[str, ...]  # one level per entry; entry i sits at seat (i + game) % players
    options: TableOptions
    seed: int
    record: bool = False

    @property
    def players(self) -> int:
        return len(self.bots)


@dataclass(frozen=True, slots=True)
class GameResult:
    index: int
    winner_seat: int
    winner_entry: int
    turns: int
    record_line: str | None


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index``: independent of how games are split between workers."""
    return (seed * 1_000_003 + index) % (1 << 63)


def entry_at_seat(index: int, seat: int, players: int) -> int:
    """Which ``--bots`` entry sits at ``seat`` in game ``index`` (seats rotate between games)."""
    return (seat - index) % players


def play_game(plan: SimulationPlan, index: int, *, views: bool = False) -> GameResult:
    """Play game ``index`` of ``plan``. Without records, and when every level decides from the
    legal actions alone, the game is played on the rules state with no views or events (the
    same game: the same deal, the same choices); ``views`` forces the full ``Game``."""
    seed = game_seed(plan.seed, index)
    n = plan.players
    entries = [entry_at_seat(index, seat, n) for seat in range(n)]
    levels = [get_bot(plan.bots[e]) for e in entries]
    picks = [level.pick for level in levels if level.pick is not None]
    if not plan.record and not views and len(picks) == n:
        return _play_lean(plan, index, seed, entries, picks)
    game = Game(plan.options, n, random.Random(seed))
    decide = random.Random(seed ^ 0x5EED)
    choosers = [level.choose for level in levels]
    while not game.is_over:
        seat = game.actors()[0]  # bots take owed draws before the next player moves
        game.apply(seat, choosers[seat](game.seat_view(seat), decide))
    outcome = game.outcome
    assert outcome is not None
    line = None
    if plan.record:
        players = [Player(f"Bot {seat + 1}", f"bot:{plan.bots[entries[seat]]}") for seat in range(n)]
        line = dumps(game_to_record(game, players, seed))
    return GameResult(index, outcome.winner, entries[outcome.winner], game.turns, line)


def _play_lean(plan: SimulationPlan, index: int, seed: int, entries: list[int],
               picks: list[LegalActionsBot]) -> GameResult:
    state = State.start(plan.options, plan.players, RandomChance(random.Random(seed)))
    decide = random.Random(seed ^ 0x5EED)
    draw_only = (DRAW,)
    while not state.finished:
        seat = state.actors()[0]  # bots take owed draws before the next player moves
        legal = state.moves() if seat == state.seat_on_turn else draw_only
        state.act(seat, picks[seat](legal, decide))
    outcome = state.outcome
    assert outcome is not None
    return GameResult(index, outcome.winner, entries[outcome.winner], state.turns, None)


def _play_chunk(plan: SimulationPlan, start: int, stop: int) -> list[GameResult]:
    return [play_game(plan, i) for i in range(start, stop)]


def run_games(plan: SimulationPlan, workers: int = 1) -> Iterator[GameResult]:
    """Play every game of ``plan``, yielding results in game order."""
    chunks = [(s, min(s + CHUNK_GAMES, plan.games)) for s in range(0, plan.games, CHUNK_GAMES)]
    if workers <= 1:
        for start, stop in chunks:
            yield from _play_chunk(plan, start, stop)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_play_chunk, plan, start, stop) for start, stop in chunks]
        for future in futures:
            yield from future.result()


def wilson_interval(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 0.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(slots=True)
class Summary:
    plan: SimulationPlan
    games: int = 0
    turns: int = 0
    seconds: float = 0.0
    wins_by_entry: list[int] = field(default_factory=list)
    wins_by_seat: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.wins_by_entry = [0] * self.plan.players
        self.wins_by_seat = [0] * self.plan.players

    def add(self, result: GameResult) -> None:
        self.games += 1
        self.turns += result.turns
        self.wins_by_entry[result.winner_entry] += 1
        self.wins_by_seat[result.winner_seat] += 1

    def wins_by_level(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for entry, level in enumerate(self.plan.bots):
            out[level] = out.get(level, 0) + self.wins_by_entry[entry]
        return out

    def to_json(self) -> dict[str, Any]:
        def rate(wins: int, games: int) -> dict[str, Any]:
            low, high = wilson_interval(wins, games)
            return {"wins": wins, "games": games, "rate": wins / games if games else 0.0,
                    "ci95": [low, high]}

        levels = self.wins_by_level()
        entries_per_level = {lv: self.plan.bots.count(lv) for lv in levels}
        return {
            "games": self.games,
            "players": self.plan.players,
            "edition": self.plan.options.edition.value,
            "options": self.plan.options.to_mapping(),
            "seed": self.plan.seed,
            "bots": [
                {"entry": i, "level": lv, **rate(self.wins_by_entry[i], self.games)}
                for i, lv in enumerate(self.plan.bots)
            ],
            "levels": [
                {"level": lv, "entries": entries_per_level[lv],
                 **rate(w, self.games * entries_per_level[lv])}
                for lv, w in levels.items()
            ],
            "seats": [{"seat": s, **rate(w, self.games)} for s, w in enumerate(self.wins_by_seat)],
            "fair_share": 1 / self.plan.players,
            "average_turns": self.turns / self.games if self.games else 0.0,
            "seconds": self.seconds,
            "games_per_second": self.games / self.seconds if self.seconds else 0.0,
        }


class ProgressPacer:
    """When a long run's progress line is due: at most once per ``interval`` seconds of ``clock``,
    and at the last game. Per game it costs a count and a clock read, whatever the run's length;
    the rate it gives is over the whole run (no samples kept)."""

    def __init__(self, total: int, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.interval = interval
        self.clock = clock
        self.started = self.last = clock()
        self.done = 0

    def count(self) -> bool:
        """One more game done; whether the progress line is due now."""
        self.done += 1
        now = self.clock()
        if now - self.last >= self.interval or self.done == self.total:
            self.last = now
            return True
        return False

    def rate(self) -> float | None:
        """Games per second since the start, as of the last refresh (None before any time passed)."""
        seconds = self.last - self.started
        return self.done / seconds if seconds > 0 else None


def simulate(
    plan: SimulationPlan,
    workers: int = 1,
    on_result: Callable[[GameResult], None] | None = None,
) -> Summary:
    summary = Summary(plan)
    started = time.perf_counter()
    for result in run_games(plan, workers):
        summary.add(result)
        if on_result is not None:
            on_result(result)
    summary.seconds = time.perf_counter() - started
    return summary


def parse_bots(text: str, players: int | None) -> tuple[str, ...]:
    """``"greedy,random"`` → levels; a single level fills every seat; the last one repeats."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise ValueError(_("--bots needs at least one bot level"))
    for name in names:
        if name not in BOT_LEVELS:
            raise ValueError(_("unknown bot level {name} (known: {known})").format(name=repr(name),
                                                                                   known=", ".join(BOT_LEVELS)))
    if players is None:
        return names if len(names) > 1 else names * 4
    if len(names) > players:
        raise ValueError(_("--bots names {bots} for {players}").format(bots=words.bots(len(names)),
                                                                       players=words.players(players)))
    return names + (names[-1],) * (players - len(names))


def format_rate(wins: int, games: int) -> str:
    low, high = wilson_interval(wins, games)
    rate = wins / games if games else 0.0
    return f"{percent(rate):>6}  [{percent(low)}, {percent(high)}]"


def result_rows(summary: Summary) -> Sequence[tuple[str, str, str]]:
    """(label, wins, rate with interval) rows for the results table, in the current language."""
    rows: list[tuple[str, str, str]] = []
    g = summary.games
    for i, level in enumerate(summary.plan.bots):
        w = summary.wins_by_entry[i]
        named = _(BOT_LEVELS[level].title) if level in BOT_LEVELS else level  # the level in the reader's words
        rows.append((_("bot {n}: {level}").format(n=i + 1, level=named), str(w), format_rate(w, g)))
    for seat, w in enumerate(summary.wins_by_seat):
        rows.append((_("seat {seat}").format(seat=seat + 1), str(w), format_rate(w, g)))  # from 1, as the bots
    return rows
