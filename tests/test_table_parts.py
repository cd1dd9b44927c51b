"""The parts of a table, each alone: who sits where (server/ono99_server/seating.py) with no game or message; the game
runner (server/ono99_server/runner.py) on a clock the test moves, with a table that only takes notes; and what the
broadcaster (server/ono99_server/broadcast.py) sends each person, decoded as a client reads it."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from ono99_kernel.core.actions import Action
from ono99_kernel.core.events import Event
from ono99_kernel.core.options import TableOptions
from ono99_kernel.protocol import HEADER, ProtocolError, decode_payload, encode
from ono99_kernel.wire.server import HandStartedEvent, History, ServerMessage, State, decode_server_message
from ono99_server.broadcast import Broadcaster
from ono99_server.config import ServerConfig
from ono99_server.members import Member
from ono99_server.runner import GameRunner, Status
from ono99_server.seating import Seating


class Recorder:
    """A member's link that keeps what they are sent, decoded as a client reads it."""

    closed = False

    def __init__(self) -> None:
        self.received: list[ServerMessage] = []

    def send(self, message: ServerMessage) -> None:
        self.send_frame(encode(message.to_wire()))

    def send_frame(self, frame: bytes) -> None:
        self.received.append(decode_server_message(decode_payload(frame[HEADER.size:])))

    def close(self, reason: str) -> None:
        self.closed = True


def person(name: str, connected: bool = True) -> Member:
    """A player of the lobby, connected (through a ``Recorder``) or away."""
    member = Member(name, f"token of {name}", ServerConfig())
    member.connection = Recorder() if connected else None
    return member


def received(member: Member) -> list[ServerMessage]:
    return member.connection.received if isinstance(member.connection, Recorder) else []


def refused(call: Callable[[], object], code: str) -> None:
    with pytest.raises(ProtocolError) as info:
        call()
    assert info.value.code == code


# --- seating --------------------------------------------------------------------------------------------
def test_newcomers_take_the_first_empty_seat_and_a_taken_seat_is_refused() -> None:
    ada, bo, cy = person("ada"), person("bo"), person("cy")
    seating = Seating(3, ada)
    seating.take(ada, seating.seat_for(ada, None, playing=False))
    seating.take(bo, seating.seat_for(bo, None, playing=False))
    assert [s.name for s in seating.seats] == ["ada", "bo", ""]
    refused(lambda: seating.seat_for(cy, 0, playing=False), "seat_taken")
    refused(lambda: seating.seat_for(cy, 3, playing=False), "bad_seat")
    refused(lambda: seating.seat_for(cy, None, playing=True), "game_running")
    refused(lambda: seating.seat_for(bo, 2, playing=True), "game_running")  # no change of seats in a game
    assert seating.seat_for(bo, None, playing=True) == 1  # your own seat, whenever


def test_a_player_leaving_during_a_game_leaves_a_stand_in_whose_seat_is_theirs_again_between_games() -> None:
    ada, bo = person("ada"), person("bo")
    seating = Seating(2, ada)
    seating.take(ada, 0)
    seating.take(bo, 1)
    assert seating.vacate(1, playing=True)
    assert (seating.seats[1].kind, seating.seats[1].name, seating.seats[1].level) == ("bot", "bo (bot)", "greedy")
    assert seating.controlled_by_bot(1) and not seating.controlled_by_bot(0)
    refused(lambda: seating.seat_for(bo, 1, playing=True), "game_running")
    assert seating.free_seat(bo, playing=False) == 1 and seating.seat_for(bo, 1, playing=False) == 1
    assert seating.free_seat(person("cy"), playing=False) is None  # not someone else's


def test_late_joiners_replace_a_stand_in_first_then_the_last_bot_added() -> None:
    ada, bo = person("ada"), person("bo")
    seating = Seating(4, ada, replace_bots=True)
    seating.take(ada, 0)
    seating.take(bo, 2)
    seating.add_bot(ada, None, None, playing=False)
    seating.add_bot(ada, None, "strong", playing=False)
    assert [(s.name, s.level) for s in seating.seats] == [("ada", ""), ("Bot 2", "greedy"), ("bo", ""),
                                                          ("Bot 4", "strong")]
    assert seating.free_seat(person("cy"), playing=False) == 3
    seating.vacate(2, playing=True)
    assert seating.free_seat(person("cy"), playing=False) == 2
    assert seating.free_seat(person("cy"), playing=True) is None


def test_only_the_host_changes_the_seats_and_hosting_passes_to_who_is_left() -> None:
    ada, bo, cy = person("ada"), person("bo"), person("cy")
    seating = Seating(3, ada)
    seating.take(ada, 0)
    seating.take(bo, 1)
    seating.watch(cy)
    refused(lambda: seating.add_bot(bo, None, None, playing=False), "not_host")
    refused(lambda: seating.add_bot(ada, None, None, playing=True), "game_running")
    refused(lambda: seating.kick_target(ada, 0), "bad_seat")  # yourself
    assert seating.kick_target(ada, 1) is bo
    refused(lambda: seating.give_seat(ada, 1, "cy", playing=False), "bad_seat")  # a human's
    assert seating.give_seat(ada, 2, "cy", playing=False) is cy
    seating.vacate(0, playing=False)  # the host leaves: the first seated player hosts
    seating.pass_host(ada)
    assert seating.host_member is bo
    seating.vacate(1, playing=False)  # and then: a spectator
    seating.pass_host(bo)
    assert seating.host_member is cy


def test_a_spectator_waits_for_a_seat_and_nobody_else_can() -> None:
    ada, cy = person("ada"), person("cy")
    seating = Seating(2, ada)
    refused(lambda: seating.ask_for_seat(cy), "not_watching")
    seating.watch(cy)
    seating.ask_for_seat(cy)
    seating.ask_for_seat(cy)
    assert seating.waiting == [cy]
    seating.take(cy, 1)
    assert seating.waiting == [] and cy not in seating.spectators


# --- the game runner -----------------------------------------------------------------------------------------
class TestClock:
    """A clock that moves only when the test says: ``advance`` runs what falls due, in order."""

    __test__ = False

    def __init__(self) -> None:
        self.now = 0.0
        self._due: list[tuple[float, int, TestTimer]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[int, int], object], seat: int, version: int) -> TestTimer:
        timer = TestTimer(self.now + delay, lambda: callback(seat, version))
        heapq.heappush(self._due, (timer.at, next(self._order), timer))
        return timer

    def create_task(self, coro: Any) -> Any:
        raise AssertionError("no searching bot in these tests")

    def run_in_executor(self, executor: None, func: Any, *args: Any) -> Any:
        raise AssertionError("no searching bot in these tests")

    def advance(self, seconds: float) -> None:
        end = self.now + seconds
        while self._due and self._due[0][0] <= end:
            at, _, timer = heapq.heappop(self._due)
            self.now = at
            if not timer.cancelled:
                timer.run()
        self.now = end


class TestTimer:
    __test__ = False

    def __init__(self, at: float, run: Callable[[], object]) -> None:
        self.at, self.run, self.cancelled = at, run, False

    def cancel(self) -> None:
        self.cancelled = True

    def when(self) -> float:
        return self.at


class NoteTaker:
    """A table that takes notes of what its runner tells it; ``people`` seats are played by people."""

    id = 7

    def __init__(self, people: Sequence[int] = (), saving: bool = False) -> None:
        self.people = set(people)
        self.saving = saving
        self.unsaved: list[Callable[[], None]] = []
        self.shown: list[tuple[Event, ...]] = []
        self.ran_out: list[tuple[int, Action]] = []
        self.over = False

    def controlled_by_bot(self, seat: int) -> bool:
        return seat not in self.people

    def level_of(self, seat: int) -> str:
        return "greedy"

    def persist_action(self, n: int, seat: int, code: str, on_saved: Callable[[], None]) -> bool:
        if self.saving:
            self.unsaved.append(on_saved)
        return self.saving

    def show(self, events: Sequence[Event]) -> None:
        self.shown.append(tuple(events))

    def all_shown(self) -> None:
        return

    def game_over(self) -> None:
        self.over = True

    def clock_ran_out(self, seat: int, action: Action) -> None:
        self.ran_out.append((seat, action))


def a_runner(host: NoteTaker, *, bot_delay: float = 1.0, turn_seconds: int = 0) -> tuple[GameRunner, TestClock]:
    clock = TestClock()
    runner = GameRunner(host, ServerConfig(bot_delay=bot_delay), TableOptions(), 3, turn_seconds=turn_seconds,
                        clock=clock)
    runner.new_game(seed=5)
    runner.status = Status.PLAYING
    runner.begin()
    return runner, clock


def test_bots_play_a_game_out_one_move_per_bot_delay_on_the_runners_clock() -> None:
    host = NoteTaker()
    runner, clock = a_runner(host)
    assert runner.game is not None and len(host.shown) == 1 and runner.actions == []
    clock.advance(0.99)
    assert runner.actions == []
    clock.advance(0.01)
    assert len(runner.actions) >= 1 and runner.moved_at == 1.0
    clock.advance(10_000)
    assert runner.game.is_over and host.over and runner.status == Status.FINISHED
    assert runner.shown == len(runner.game.log) and sum(len(events) for events in host.shown) == runner.shown
    assert runner.timer is None and runner.deadline is None


def test_a_move_is_shown_only_once_it_is_saved() -> None:
    host = NoteTaker(saving=True)
    runner, clock = a_runner(host)
    clock.advance(1.0)
    assert len(runner.actions) == 1 and len(host.shown) == 1  # applied, still waiting for its saving
    assert runner.game is not None and runner.last_seq == runner.seq_base + 1 < len(runner.game.log)
    host.unsaved.pop()()
    assert len(host.shown) == 2 and runner.all_moves_shown


def test_a_persons_turn_clock_runs_out_and_the_stand_in_plays_for_them() -> None:
    host = NoteTaker(people=range(3))
    runner, clock = a_runner(host, turn_seconds=30)
    assert runner.game is not None
    turn = runner.game.turn
    assert runner.deadline == 30.0 and runner.clock_left() == 30.0
    clock.advance(29.9)
    assert runner.actions == [] and runner.clock_left() == pytest.approx(0.1)
    clock.advance(0.1)
    assert [seat for seat, _ in host.ran_out] == [turn] and runner.actions[0] == (turn, host.ran_out[0][1].code)
    assert runner.deadline == 60.0  # the next turn's clock, a fresh one


def test_a_paused_runner_holds_its_bots_and_plays_on_when_let() -> None:
    host = NoteTaker()
    runner, clock = a_runner(host)
    runner.set_paused(True)
    clock.advance(100)
    assert runner.actions == [] and runner.timer is None
    runner.set_paused(False)
    clock.advance(1.0)
    assert len(runner.actions) >= 1


def test_a_stale_or_early_move_is_refused() -> None:
    host = NoteTaker(people=range(3))
    runner, _ = a_runner(host)
    game = runner.game
    assert game is not None and game.turn is not None
    turn, version = game.turn, game.version
    code = game.legal_actions(turn)[0].code
    refused(lambda: runner.act(turn, code, version + 1), "stale_action")
    runner.status = Status.FINISHED
    refused(lambda: runner.act(turn, code, version), "no_game")


# --- the broadcaster --------------------------------------------------------------------------------------------
def test_each_seated_player_is_sent_their_own_view_and_every_spectator_the_same_one() -> None:
    """Tried: three seats (one of them away) and two spectators (one of them away), the deal shown."""
    ada, bo, cy, dee, eve = person("ada"), person("bo", connected=False), person("cy"), person("dee"), \
        person("eve", connected=False)
    seating = Seating(3, ada)
    for seat, player in enumerate((ada, bo, cy)):
        seating.take(player, seat)
    seating.watch(dee)
    seating.watch(eve)
    host = NoteTaker(people=range(3))
    runner, _ = a_runner(host)
    broadcaster = Broadcaster(7, seating, runner)
    game = runner.game
    assert game is not None
    broadcaster.states(game.log)
    assert received(bo) == [] and received(eve) == []
    for seat, player in ((0, ada), (2, cy)):
        (state,) = received(player)
        assert isinstance(state, State) and state.view.seat == seat
        assert state.view.hand == tuple(card.code for card in game.hand_of(seat))
        (dealt,) = state.events
        assert isinstance(dealt, HandStartedEvent)
        assert [hand is not None for hand in dealt.hands] == [s == seat for s in range(3)]
        assert state.controlled_by_bot == (False, True, False)  # bo is away
    (watched,) = received(dee)
    assert isinstance(watched, State) and watched.view.seat is None and watched.view.hand == ()
    (dealt,) = watched.events
    assert isinstance(dealt, HandStartedEvent) and dealt.hands == (None, None, None)


def test_a_newcomer_is_sent_the_games_history_then_its_state() -> None:
    ada, cy = person("ada"), person("cy")
    seating = Seating(3, ada)
    seating.take(ada, 0)
    seating.watch(cy)
    host = NoteTaker(people=range(3))
    runner, _ = a_runner(host)
    broadcaster = Broadcaster(7, seating, runner)
    broadcaster.send_state_to(cy)
    history, state = received(cy)
    assert isinstance(history, History) and isinstance(state, State)
    assert history.reset and history.seq == runner.last_seq
    received(cy).clear()
    broadcaster.send_state_to(cy, runner.last_seq)  # seen it all: no history again
    assert [m.t for m in received(cy)] == ["state"]
