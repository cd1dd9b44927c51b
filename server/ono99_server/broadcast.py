"""What a table tells its people: the table as each of them sees it, chat lines and notices, and the
game's state, each seated player with their own view and the events redacted for them, and every
spectator the one spectator's message, encoded once."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from ono99_kernel.core.events import Event
from ono99_kernel.wire import server as wire

from .history import history_messages

if TYPE_CHECKING:
    from .members import Member
    from .runner import GameRunner
    from .seating import Seating


class Broadcaster:
    def __init__(self, table_id: int, seating: Seating, runner: GameRunner) -> None:
        self.table_id = table_id
        self.seating = seating
        self.runner = runner
        # Newcomers whose seat is being saved: told nothing more of the table until it is, then welcomed
        # with all of it (server/ono99_server/handlers.py).
        self.arriving: set[Member] = set()

    def tables(self, detail: Callable[[Member], wire.TableDetail], closed: Callable[[], bool]) -> Callable[[], None]:
        """What sends everyone at the table the table as they see it now, unless it is ``closed`` then.
        Every spectator sees it alike: theirs is built and encoded once, and sent to them one after the
        other (a front's link then carries it once for all of its channels)."""
        seated: list[tuple[Member, wire.TableMessage]] = []
        watching: list[Member] = []
        for member in self.seating.members():
            if member in self.arriving:
                continue
            if self.seating.seat_of(member) is None:
                watching.append(member)
            else:
                seated.append((member, wire.TableMessage(table=detail(member))))
        watched = wire.encode_message(wire.TableMessage(table=detail(watching[0]))) if watching else b""

        def show() -> None:
            if not closed():
                for member, message in seated:
                    member.send(message)
                for member in watching:
                    member.send_frame(watched)

        return show

    def everyone(self, message: wire.ServerMessage, but: Collection[Member] = (),
                 to: Iterable[Member] | None = None) -> None:
        """``message`` to everyone at the table (or those of it in ``to``) but ``but``, encoded once."""
        frame = wire.encode_message(message)
        for member in self.seating.members() if to is None else to:
            if member not in but and member not in self.arriving:
                member.send_frame(frame)

    def notice(self, text: str, code: str, params: dict[str, str | int]) -> None:
        self.everyone(wire.Notice(table=self.table_id, text=text, code=code, params=params))

    # --- the game -------------------------------------------------------------------------------------
    def state_message(self, seat: int | None, events: Sequence[Event],
                      shared: tuple[float | None, tuple[bool, ...]] | None = None) -> wire.State:
        """``seat``'s state message; ``shared`` is ``state_shared()`` when a broadcast built it once.
        ``events`` are the last shown: the last of them has seq ``last_seq``."""
        runner = self.runner
        game = runner.game
        assert game is not None
        clock, bots = shared if shared is not None else self.state_shared()
        return wire.State(self.table_id, runner.game_no, wire.view_of(game.view(seat)),
                          tuple([wire.event_of(e.seen_by(seat)) for e in events]), runner.last_seq, clock, bots)

    def state_shared(self) -> tuple[float | None, tuple[bool, ...]]:
        """The parts of a state message that are the same for every recipient."""
        seating = self.seating
        return self.runner.clock_left(), tuple([seating.controlled_by_bot(i) for i in range(seating.seat_count)])

    def send_state_to(self, member: Member, seen_seq: int | None = None) -> None:
        """The game as ``member`` sees it now: the events of this game it has not seen (after
        ``seen_seq``; all of them, starting its log over, when None or from an earlier game) in
        ``history`` messages, then a ``state`` with no events. While moves wait to be saved, the
        state is the one that shows them (a view never runs ahead of the events sent)."""
        runner = self.runner
        game = runner.game
        if game is None:
            return
        seat = self.seating.seat_of(member)
        reset = seen_seq is None or not runner.seq_base <= seen_seq <= runner.last_seq
        start = 0 if reset or seen_seq is None else seen_seq - runner.seq_base
        for message in history_messages(self.table_id, runner.game_no, game.log[start:runner.shown],
                                        runner.seq_base + start + 1, seat, reset):
            member.send(message)
        if not runner.all_moves_shown:
            return  # moves wait to be saved: the state that shows them comes with them, to everyone here
        member.send(self.state_message(seat, []))

    def who_plays(self, skip: Member | None = None) -> None:
        """A state with no events to everyone at the table but ``skip``, when a player went away or came
        back: its ``controlled_by_bot`` says at once who a bot plays for, not only after the next move.
        Not while a move waits to be shown (its state goes out then)."""
        if self.runner.game is None or not self.runner.all_moves_shown:
            return
        shared = self.state_shared()
        for seat_index, seat in enumerate(self.seating.seats):
            if seat.connected and seat.member is not skip and seat.member not in self.arriving:
                assert seat.member is not None
                seat.member.send(self.state_message(seat_index, [], shared))
        watching = [m for m in self.seating.spectators
                    if m.connection is not None and m is not skip and m not in self.arriving]
        if watching:
            frame = wire.encode_message(self.state_message(None, [], shared))
            for member in watching:
                member.send_frame(frame)

    def states(self, events: Sequence[Event]) -> None:
        """Show ``events``, the newest of the current game's log, to the table: each seated player their
        own state, the spectators one."""
        spectator_frame: bytes | None = None
        shared = self.state_shared()
        for seat_index, seat in enumerate(self.seating.seats):
            if seat.connected and seat.member not in self.arriving:
                assert seat.member is not None
                seat.member.send(self.state_message(seat_index, events, shared))
        for member in self.seating.spectators:
            if member.connection is None or member in self.arriving:
                continue
            if spectator_frame is None:
                spectator_frame = wire.encode_message(self.state_message(None, events, shared))
            member.send_frame(spectator_frame)
