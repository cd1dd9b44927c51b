"""A table's game, run: the rules engine's game, each move saved before it is shown, the bots' moves
and the turn clocks, on a clock given to it (the event loop, or a test's own).

The runner decides when and what: which move a bot or a run-out clock makes, and when a move may be
shown. Who sits where, what is said and what is kept are its table's (``RunnerHost``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Final, Protocol, TypeVar

from ono99_kernel.bots import SEARCHING_LEVELS
from ono99_kernel.bots.players import get_bot
from ono99_kernel.core.actions import Action
from ono99_kernel.core.errors import IllegalActionError, MalformedActionError
from ono99_kernel.core.events import Event
from ono99_kernel.core.game import Game
from ono99_kernel.core.options import TableOptions
from ono99_kernel.core.view import TableView
from ono99_kernel.protocol import ProtocolError, clean_text
from ono99_kernel.wire import server as wire

from .config import ServerConfig
from .seating import STAND_IN_LEVEL

log = logging.getLogger("ono99.table")
T = TypeVar("T")


class Status:
    WAITING: Final = "waiting"
    PLAYING: Final = "playing"
    FINISHED: Final = "finished"


class Timer(Protocol):
    def cancel(self) -> None: ...

    def when(self) -> float: ...


class Clock(Protocol):
    """What the runner needs of time: the event loop (``asyncio.get_running_loop()``), or a test's."""

    def time(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[int, int], object], seat: int,
                   version: int, /) -> Timer: ...

    def create_task(self, coro: Coroutine[Any, Any, None], /) -> asyncio.Task[None]: ...

    def run_in_executor(self, executor: None, func: Callable[..., T], /, *args: Any) -> Awaitable[T]: ...


class RunnerHost(Protocol):
    """What the runner asks of its table."""

    id: int

    def controlled_by_bot(self, seat: int) -> bool: ...

    def level_of(self, seat: int) -> str:
        """The bot level that plays ``seat`` when a bot does: a bot's own, a stand-in's."""

    def persist_action(self, n: int, seat: int, code: str, on_saved: Callable[[], None]) -> bool:
        """Save move ``n``; True if ``on_saved`` will be called once it is saved (False: nothing to wait for)."""

    def show(self, events: Sequence[Event]) -> None:
        """Show the newest ``events`` of the game (every move before them is shown already)."""

    def all_shown(self) -> None:
        """Every move applied is shown now."""

    def game_over(self) -> None:
        """The game ended with the move just applied (not shown yet)."""

    def clock_ran_out(self, seat: int, action: Action) -> None:
        """``seat``'s turn clock ran out: ``action`` is about to be played for it."""


class RunnerMetrics(Protocol):
    """What the runner tells the server's metrics (server/ono99_server/metrics.py's ``Metrics``)."""

    def player_acting(self, table: RunnerHost) -> AbstractContextManager[None]:
        """A player's act being applied at ``table``: timed until ``state_shown``."""

    def action_applied(self) -> None: ...

    def state_shown(self, table: RunnerHost) -> None: ...


class Unmeasured:
    """Metrics that count nothing: a runner's without a server around it."""

    @contextlib.contextmanager
    def player_acting(self, table: RunnerHost) -> Iterator[None]:
        yield

    def action_applied(self) -> None:
        pass

    def state_shown(self, table: RunnerHost) -> None:
        pass


class GameRunner:
    """The game of one table and the time it runs on."""

    def __init__(self, host: RunnerHost, config: ServerConfig, options: TableOptions, seat_count: int, *,
                 turn_seconds: int = 0, status: wire.TableStatus = Status.WAITING, game_no: int = 0, seed: int = 0,
                 seq_base: int = 0, clock: Clock | None = None, metrics: RunnerMetrics | None = None) -> None:
        self.host = host
        self.metrics: RunnerMetrics = metrics if metrics is not None else Unmeasured()
        self.config = config
        self.options = options
        self.seat_count = seat_count
        self.turn_seconds = turn_seconds
        self.status: wire.TableStatus = status
        self.game: Game | None = None
        self.game_no = game_no
        self.seed = seed
        self.actions: list[tuple[int, str]] = []  # the current game's moves: (seat, action code)
        # the seq of the event before the current game's first (server/ono99_server/history.py)
        self.seq_base = seq_base
        self.shown = 0  # events of the current game's log shown to the table so far
        self.moved_at = 0.0  # the clock's time the table last showed a move (its watchers are not idle)
        self.deadline: float | None = None  # the clock's time the seat on turn must act by
        self.paused = False  # no bot moves while set (a local game with a dialog open)
        self.bot_rng = random.Random()
        self._clock = clock
        self._timer: Timer | None = None
        self._clock_of: tuple[int, int, float] | None = None  # (turn, game version, deadline) of the turn's clock
        self._clock_running = False  # _timer is that clock
        self._thinking: asyncio.Task[None] | None = None  # a searching bot's decision, computed off the loop
        self._unsent_events: list[Event] = []  # applied, waiting to be saved before shown
        self._unsaved_actions = 0  # actions handed to the database and not yet saved
        self.dealing = False  # a new game not shown yet (its start is being saved): nothing moves in it

    @property
    def clock(self) -> Clock:
        return self._clock if self._clock is not None else asyncio.get_running_loop()

    @property
    def playing(self) -> bool:
        return self.status == Status.PLAYING

    @property
    def last_seq(self) -> int:
        """The seq of the last event shown at this table."""
        return self.seq_base + self.shown

    @property
    def timer(self) -> Timer | None:
        """The next bot move or turn clock, when one is set."""
        return self._timer

    @property
    def thinking(self) -> asyncio.Task[None] | None:
        """The last decision of a searching bot, computed off the event loop."""
        return self._thinking

    @property
    def all_moves_shown(self) -> bool:
        return self.game is None or self.shown == len(self.game.log)

    # --- games ----------------------------------------------------------------------------------------
    def new_game(self, seed: int) -> Game:
        """The next game, dealt from ``seed``: not running until ``begin``."""
        self.game_no += 1
        self.seq_base, self.shown = self.last_seq, 0
        self.seed = seed
        self.actions = []
        self.game = Game(self.options, self.seat_count, random.Random(seed))
        self._clock_of = None
        self.bot_rng = random.Random(seed ^ 0x5EED)
        self.dealing = True
        return self.game

    def begin(self) -> None:
        """Show the new game's deal, with the first turn's clock: its moves may come from now on."""
        assert self.game is not None
        self.dealing = False
        self.schedule()  # first, so the state carries the first turn's clock
        self.show(self.game.log)

    def resume(self, game: Game, actions: list[tuple[int, str]]) -> None:
        """A game saved before a restart, every saved move applied: shown (or it could have been)."""
        self.game = game
        self.shown = len(game.log)
        self.actions = actions
        self.bot_rng = random.Random(self.seed ^ 0x5EED ^ len(actions))

    def act(self, seat: int, code: str, version: int) -> None:
        """A seated player's move, checked against the game's version and the rules."""
        game = self.game
        if game is None or not self.playing:
            raise ProtocolError("no_game", "no game is running at this table")
        if version != game.version or self.dealing:  # dealing: a state nobody was shown yet
            raise ProtocolError("stale_action",
                                f"that action was for state {version}, the table is at {game.version}; "
                                "it was not applied", params={"version": version, "current": game.version})
        try:
            action = Action.parse(code)
            with self.metrics.player_acting(self.host):  # timed until the state that shows it
                self.apply(seat, action)
        except MalformedActionError as exc:
            raise ProtocolError("bad_action", str(exc), params={"action": clean_text(code)}) from None
        except IllegalActionError as exc:
            raise ProtocolError("illegal_action", str(exc), params={"why": exc.why, **exc.params}) from None

    def apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        game = self.game
        assert game is not None
        events = game.apply(seat, action)
        self.metrics.action_applied()
        self.actions.append((seat, action.code))
        self._unsent_events.extend(events)
        saving = self.host.persist_action(len(self.actions) - 1, seat, action.code, self._action_saved)
        if saving:
            self._unsaved_actions += 1
        if game.is_over:
            self._finish()
        else:
            self.schedule()  # first, so the state carries the new turn's clock
        if not saving:
            self.flush()
        return events

    def _action_saved(self) -> None:
        # A move is shown only once it is saved: a server killed at any moment restarts with every
        # move its players saw. Moves made meanwhile (bots at delay 0) go out together.
        self._unsaved_actions -= 1
        if self._unsaved_actions == 0:
            self.flush()

    def flush(self) -> None:
        """Show the moves applied and not shown yet (once saved), then tell the table all are shown."""
        if self._unsent_events and self.game is not None:
            events, self._unsent_events = self._unsent_events, []
            self.show(events)
        self.host.all_shown()

    def show(self, events: Sequence[Event]) -> None:
        """Show ``events``, the newest of the current game's log, to the table."""
        assert self.game is not None
        self.shown = len(self.game.log)
        self.moved_at = self.clock.time()
        self.metrics.state_shown(self.host)
        self.host.show(events)

    def _finish(self) -> None:
        self.status = Status.FINISHED
        self.cancel_timer()
        self.deadline = None
        self.host.game_over()

    def finish(self) -> None:
        """End a resumed game that is over (its last move was saved, its end was not), as its last
        move would have: the table is told, then every move is shown (they are)."""
        assert self.game is not None and self.game.is_over and self.playing
        self._finish()
        self.flush()

    # --- bots and clocks --------------------------------------------------------------------------------
    def clock_left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - self.clock.time())

    def schedule(self) -> None:
        """Arrange the next move that is not up to a connected person: a bot's, or a clock. A turn's
        clock runs on across reconnects and seat changes: only a new move starts a fresh one."""
        game = self.game
        if self.dealing:  # nothing moves before the deal is shown (``begin``)
            return
        if game is None or not self.playing or game.is_over or self.paused:
            self.cancel_timer()
            self.deadline = None
            if self.paused:
                self._clock_of = None  # a paused local game's turn gets its whole time back
            return
        clock = self.clock
        config = self.config
        controlled_by_bot = self.host.controlled_by_bot
        turn = game.turn
        if self._clock_of is not None and self._clock_of[:2] != (turn, game.version):
            self._clock_of = None  # a move was made: the next turn's clock starts afresh
        if (self._clock_running and self._clock_of is not None and self.deadline is not None
                and not any(controlled_by_bot(seat) for seat in game.actors())):
            return  # this turn's clock runs on
        self.cancel_timer()
        for seat in game.actors():
            if controlled_by_bot(seat):
                delay = config.bot_delay if seat == turn else 0.0  # owed draws are taken at once
                draw_open = seat == turn and config.draw_window > delay and any(
                    game.has_open_draw(s) and not controlled_by_bot(s) for s in range(self.seat_count))
                if draw_open:
                    delay = config.draw_window  # a person's open draw gets time to be taken
                self._timer = clock.call_later(delay, self._bot_move, seat, game.version)
                # the state's clock says when the bot plays: the person sees how long the draw stays open
                self.deadline = clock.time() + delay if draw_open else None
                return
        if self.turn_seconds > 0 and turn is not None:
            if self._clock_of is None:
                self._clock_of = (turn, game.version, clock.time() + self.turn_seconds)
            self.deadline = self._clock_of[2]  # the time left when a player on turn came back, not a fresh clock
            self._timer = clock.call_later(max(0.0, self.deadline - clock.time()), self._clock_ran_out, turn,
                                           game.version)
            self._clock_running = True
        else:
            self.deadline = None

    def set_paused(self, paused: bool) -> None:
        """Hold the bots (a local game's dialog covers the table) or let them play on. A draw
        window that was counting down is said again: none while they wait, a whole one after."""
        if self.paused == paused:
            return
        counting = self.deadline is not None
        self.paused = paused
        self.schedule()
        game = self.game
        if (counting or self.deadline is not None) and game is not None and self.shown == len(game.log):
            self.show(())

    def cancel_timer(self) -> None:
        self._clock_running = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _bot_move(self, seat: int, version: int) -> None:
        self._timer = None
        game = self.game
        if game is None or game.version != version or game.is_over:
            return
        level = self.host.level_of(seat)
        view = game.seat_view(seat)
        if level in SEARCHING_LEVELS:  # tens of milliseconds of search: think off the event loop
            self._thinking = self.clock.create_task(self._think_off_loop(seat, version, level, view))
            return
        try:
            self.apply(seat, get_bot(level).choose(view, self.bot_rng))
        except Exception:  # a bot must never take the table down
            log.exception("table %d: bot move for seat %d failed", self.host.id, seat)

    async def _think_off_loop(self, seat: int, version: int, level: str, view: TableView) -> None:
        try:
            action = await self.clock.run_in_executor(
                None, get_bot(level).choose, view, random.Random(self.bot_rng.getrandbits(64)))
            game = self.game
            if game is not None and game.version == version and not game.is_over:  # nothing moved meanwhile
                self.apply(seat, action)
        except Exception:  # a bot must never take the table down
            log.exception("table %d: bot move for seat %d failed", self.host.id, seat)

    def _clock_ran_out(self, seat: int, version: int) -> None:
        self._timer = None
        self._clock_running = False
        game = self.game
        if game is None or game.version != version or game.is_over or game.turn != seat:
            return
        action = get_bot(STAND_IN_LEVEL).choose(game.seat_view(seat), self.bot_rng)
        self.host.clock_ran_out(seat, action)
        self.apply(seat, action)

    def close(self) -> None:
        self.cancel_timer()
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None
