"""A recorded game's analysis: at every decision of a seat, the chance of winning of the move made and of
the best move, as the strong bot's search estimates them from that seat's view at that moment.

The views are the engine's (``Game.seat_view``), built while the record replays: exactly what a bot
in that seat was given, never another seat's cards or the draw pile's order. Each decision is
searched with a seed of its own (from the analysis' seed and where the decision is in the game),
so an analysis is the same on every run, whichever seats are asked for. docs/analysis.md describes
the output.

No I/O and no threads here: the caller (``ono99 analyse``, the replay screen) reads the record and
runs ``analyse`` where it may take its time, with ``on_progress`` for a progress bar.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ono99_kernel.bots.strong import search
from ono99_kernel.core.actions import Action, ActionKind
from ono99_kernel.core.events import Played
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import Scoring
from ono99_kernel.core.record import replay
from ono99_kernel.core.view import SeatView

FORMAT = "ono99-analysis/1"
DEFAULT_SEED = 0
# Per decision: simulated turns (a few µs each), and the fewest and most deals. About seven times the
# strong bot's budget: an analysis may take a second per game; a decision at the table may not.
TURN_BUDGET = 40000
MIN_DEALS = 100
MAX_DEALS = 400
# How much chance of winning a move must lose against the best one to be marked, in order of
# gravity (a fair share is 25% in a 4-player game: a move that costs 4 points of it costs a sixth).
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.15), ("mistake", 0.08), ("inaccuracy", 0.04))
# ... and by more than this many standard errors of the difference on the same deals: noise of the
# sampling is not a mistake.
CONFIDENCE = 2.5


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the analysed seat: where it was, what was played, what was best."""

    move: int  # the play's number in the game, from 1 (every seat's plays counted)
    step: int  # the replay's step showing the position before it (0: the deal)
    hand: int  # the hand of a 1980 match, from 1 (2022: always 1)
    total: int  # the running total before the play
    cards: tuple[str, ...]  # the seat's hand, card codes
    played: str  # the action made, by its code (a card code, or "ONO99x4")
    best: str  # the action with the highest estimate
    chances: Mapping[str, float]  # every legal action's estimated chance of winning
    loss: float  # chance of the best minus that of the move made (0 when it was the best)
    error: float  # the standard error of that difference
    mark: str | None  # "inaccuracy", "mistake" or "blunder" (THRESHOLDS), or None

    @property
    def chance_played(self) -> float:
        return self.chances[self.played]

    @property
    def chance_best(self) -> float:
        return self.chances[self.best]

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "step": self.step, "hand": self.hand, "total": self.total,
                "cards": list(self.cards), "played": self.played, "best": self.best,
                "chance_played": round(self.chance_played, 4), "chance_best": round(self.chance_best, 4),
                "loss": round(self.loss, 4), "error": round(self.error, 4), "mark": self.mark,
                "chances": {code: round(chance, 4) for code, chance in self.chances.items()}}


@dataclass(frozen=True, slots=True)
class SeatAnalysis:
    seat: int
    name: str
    decisions: tuple[Decision, ...]

    def marks(self) -> dict[str, int]:
        counts = {name: 0 for name, _ in THRESHOLDS}
        for decision in self.decisions:
            if decision.mark is not None:
                counts[decision.mark] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        losses = [d.loss for d in self.decisions]
        return {"seat": self.seat, "name": self.name, "marks": self.marks(),
                "average_loss": round(sum(losses) / len(losses), 4) if losses else 0.0,
                "decisions": [d.to_json() for d in self.decisions]}


@dataclass(frozen=True, slots=True)
class Analysis:
    edition: str
    value: str  # what a chance is a chance of (VALUES)
    seed: int
    winner: int | None
    seats: tuple[SeatAnalysis, ...]
    steps: int = field(default=0)  # the replay's steps (the deal, then one per action)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "edition": self.edition, "value": self.value, "seed": self.seed,
                "winner": self.winner, "steps": self.steps,
                "thresholds": {name: threshold for name, threshold in THRESHOLDS},
                "seats": [s.to_json() for s in self.seats]}


# What the chance estimates, by scoring (the strong bot's rollout values, strong._value): a 2022 game
# is played out to its end; a 1980 hand to the end of the hand, since the next deal is unknown.
VALUES = {Scoring.ELIMINATION: "game", Scoring.TOKENS: "hand", Scoring.POINTS: "match_share"}


@dataclass(slots=True)
class _Position:
    view: SeatView
    step: int
    move: int


def positions(record: Mapping[str, Any], seats: Sequence[int] | None = None
              ) -> tuple[Game, int, list[tuple[_Position, Action]]]:
    """Replay ``record`` (raises ``RecordError``) and return the game, its number of replay steps
    (the deal, then one per action: as ``on_step`` of ``core.record.replay`` counts them) and each
    decision of the ``seats`` (default: every seat): the view its seat had just before it played,
    and the action it made. A decision is a play with a choice of at least two legal actions."""
    wanted = None if seats is None else set(seats)
    pending: dict[int, _Position] = {}
    found: list[tuple[_Position, Action]] = []
    seen = 0
    steps = 0
    plays = 0

    def step(game: Game) -> None:
        nonlocal seen, steps, plays
        for event in game.log[seen:]:
            if type(event) is Played:
                plays += 1
                position = pending.pop(event.seat, None)
                if position is not None:
                    four = len(event.cards) == 4
                    for legal in position.view.legal_actions:
                        if (legal.kind is ActionKind.DISCARD_FOUR if four else legal.card is event.cards[0]):
                            found.append((position, legal))
                            break
        seen = len(game.log)
        pending.clear()  # a view stands only until the table changes
        turn = game.turn
        if turn is not None and (wanted is None or turn in wanted):
            view = game.seat_view(turn)
            if sum(1 for a in view.legal_actions if a.kind is not ActionKind.DRAW) >= 2 and not view.open_draws[turn]:
                pending[turn] = _Position(view, steps, plays + 1)
        steps += 1

    done = replay(record, on_step=step, allow_unfinished=True)
    return done.game, steps, found


def _mark(loss: float, error: float) -> str | None:
    if loss <= CONFIDENCE * error:
        return None
    for name, threshold in THRESHOLDS:
        if loss >= threshold:
            return name
    return None


def evaluate(view: SeatView, played: Action, rng: random.Random, turn_budget: int = TURN_BUDGET,
             min_deals: int = MIN_DEALS, max_deals: int = MAX_DEALS) -> tuple[dict[str, float], str, float, float]:
    """Every legal action's chance from ``view`` (the seat on turn's), the best one, and how much
    ``played`` lost against it with the standard error of that loss."""
    candidates = [a for a in view.legal_actions if a.kind is not ActionKind.DRAW]
    reference = candidates.index(played)
    found = search(view, rng, candidates, reference, turn_budget, max_deals, min_deals)
    chances = {a.code: found.value(i) for i, a in enumerate(candidates)}
    best = max(range(len(candidates)), key=lambda i: (found.differences[i], i == reference))
    loss, error = found.against_reference(best)
    return chances, candidates[best].code, max(loss, 0.0), error


def decision_seed(seed: int, move: int) -> int:
    """The search seed of the decision that made play number ``move``: the same whichever seats
    are analysed."""
    return random.Random(f"ono99-analysis:{seed}:{move}").getrandbits(64)


def analyse(record: Mapping[str, Any], seats: Sequence[int] | None = None, seed: int = DEFAULT_SEED,
            on_progress: Callable[[int, int], None] | None = None, turn_budget: int = TURN_BUDGET) -> Analysis:
    """The analysis of ``record`` for ``seats`` (default: every seat). ``on_progress(done, total)``
    is called after each decision searched (and once before the first). Raises ``RecordError`` for
    a record that does not replay."""
    game, steps, found = positions(record, seats)
    names = [str(p.get("name", "")) if isinstance(p, Mapping) else "" for p in record.get("players", [])]
    chosen = list(range(game.seats)) if seats is None else list(seats)
    total = len(found)
    if on_progress is not None:
        on_progress(0, total)
    by_seat: dict[int, list[Decision]] = {seat: [] for seat in chosen}
    for done, (position, action) in enumerate(found, start=1):
        view = position.view
        chances, best, loss, error = evaluate(view, action, random.Random(decision_seed(seed, position.move)),
                                              turn_budget)
        seat = view.seat
        assert seat is not None
        by_seat[seat].append(Decision(
            move=position.move, step=position.step, hand=view.hand_number + 1, total=view.total,
            cards=tuple(c.code for c in view.hand), played=action.code, best=best, chances=chances,
            loss=loss, error=error, mark=_mark(loss, error)))
        if on_progress is not None:
            on_progress(done, total)
    outcome = game.outcome
    return Analysis(
        edition=game.options.edition.value, value=VALUES[game.options.scoring or Scoring.ELIMINATION], seed=seed,
        winner=outcome.winner if outcome is not None else None,
        seats=tuple(SeatAnalysis(seat, names[seat] if seat < len(names) else "", tuple(by_seat[seat]))
                    for seat in chosen),
        steps=steps)
