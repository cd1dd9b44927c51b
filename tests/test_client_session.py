"""The client session alone (ono99_tui/client/session.py): server messages in, requests and effects out,
with no network, no event loop and no face. One test for each reaction the app, the plain mode and the
fronts used to decide each for themselves."""

from __future__ import annotations

import random

from ono99_kernel.protocol import BYE_TABLE_MOVED, PROTOCOL_VERSION
from ono99_kernel.wire.requests import CreateTable, Join, Leave, PlayNow, Sit, Spectate
from ono99_kernel.wire.server import Bye, ErrorMessage, Left
from ono99_kernel.wire.server import Welcome as WelcomeMessage
from ono99_tui.client.errors import ConnectionLost, ServerError
from ono99_tui.client.model import REPLACED, SHUTTING_DOWN
from ono99_tui.client.session import (
    LOCAL_GAME,
    AskName,
    AskTakeBack,
    AskToWatch,
    AskTrust,
    ClientSession,
    Closed,
    CodeNotUsed,
    End,
    EnteredByCode,
    Entry,
    GiveUp,
    Reaction,
    Refusal,
    Replaced,
    RetryIn,
    ShowLobby,
    ShowTable,
    Stop,
    WaitingToPlay,
    reconnect_delay,
)
from ono99_tui.known_servers import ServerKeyChanged, UnknownServer
from tests.wire import table_message


def welcome(table: int | None = None, resumed: bool = False) -> WelcomeMessage:
    return WelcomeMessage(version=PROTOCOL_VERSION, server="s", name="Ada", resume="r1", resumed=resumed,
                          table=table, identity=None)


def refused(code: str, ref: str | None = "join", **params: str | int) -> ErrorMessage:
    return ErrorMessage(code=code, reason="no", ref=ref, params=params)


GAME_STARTED = refused("game_running", why="started")
SEATS_TAKEN = refused("table_full", why="spectate")


def test_a_spectator_back_from_a_lost_connection_watches_the_table_again() -> None:
    """Tried: watching table 7 (by its id) and a private table (by its code), then a welcome without a
    table, as a server that does not keep spectators sends after a reconnection: the same table is
    watched again, the lobby shown only for the moment. A seated player, whom the server kept, is not."""
    for table, asked in ((table_message(["Bo"], table_id=7), Spectate(table=7)),
                         (table_message(["Bo"], table_id=8, code="K7QX2M"), Spectate(code="K7QX2M"))):
        session = ClientSession()
        session.receive(welcome())
        session.receive(table)
        back = session.receive(welcome())
        assert back.requests == (asked,)
        assert back.effects == (ShowLobby(rewatching=True),)
    seated = ClientSession()
    seated.receive(welcome())
    seated.receive(table_message(["Ada", "Bo"], you=0))
    assert seated.receive(welcome(table=1, resumed=True)) == Reaction(changed="welcome")


def test_the_local_game_asks_for_its_first_table_unless_one_was_asked_for() -> None:
    """Tried: a local session welcomed (the usual three greedy bots, named as the app names it), one given
    its own first table, and one whose player asked for a table before the welcome came (that one
    stands). No lobby is shown for a local game."""
    usual = ClientSession(local=True).receive(welcome())
    assert usual.effects == ()
    assert usual.requests == (CreateTable(edition="2022", seats=4, bots=3, bot_level="greedy", turn_seconds=0,
                                          start=True, name=LOCAL_GAME, replace_bots=True),)
    given = CreateTable(edition="1980", seats=2, bots=1, name="Draw test")
    assert ClientSession(local=True, first_table=given).receive(welcome()).requests == (given,)
    early = ClientSession(local=True)
    early.asked(CreateTable(edition="1980", seats=3, bots=2))
    assert early.receive(welcome()).requests == ()


def test_a_join_by_code_too_late_for_the_game_offers_to_watch_and_sits_down_at_the_next() -> None:
    """Tried: a join by invite code refused because the game started: the question to watch instead;
    yes watches by the code, and the table, watched, asks for a seat at the next game."""
    session = ClientSession()
    session.receive(welcome())
    session.asked(Join(code="K7QX2M"))
    question = session.receive(GAME_STARTED)
    assert question.effects == (AskToWatch("K7QX2M", started=True),) and question.requests == ()
    assert session.watch_answer(AskToWatch("K7QX2M", started=True), True) == (Spectate(code="K7QX2M"),)
    watching = session.receive(table_message(["Bo", "Cy"]))
    assert watching.requests == (Sit(),) and watching.effects == (ShowTable(),)
    assert session.receive(table_message(["Bo", "Cy"])).requests == ()  # asked once


def test_a_join_by_code_to_a_full_table_offers_to_watch_without_sitting_down_later() -> None:
    """Tried: every seat taken: the question says so (not started), yes watches, no does nothing."""
    session = ClientSession()
    session.receive(welcome())
    session.asked(Join(code="K7QX2M"))
    assert session.receive(SEATS_TAKEN).effects == (AskToWatch("K7QX2M", started=False),)
    assert session.watch_answer(AskToWatch("K7QX2M", started=False), False) == ()
    assert session.watch_answer(AskToWatch("K7QX2M", started=False), True) == (Spectate(code="K7QX2M"),)
    assert session.receive(table_message(["Bo", "Cy"])).requests == ()


def test_other_refusals_are_said() -> None:
    """Tried: a join by table number refused as started (no code to watch by), a join by code refused
    otherwise, and a refusal after the code's table came: each is a refusal to say."""
    session = ClientSession()
    session.receive(welcome())
    session.asked(Join(table=3))
    assert session.receive(GAME_STARTED).effects == (Refusal(GAME_STARTED),)
    session.asked(Join(code="NOSUCH"))
    no_table = refused("no_such_table")
    assert session.receive(no_table).effects == (Refusal(no_table),)
    session.asked(Join(code="K7QX2M"))
    session.receive(table_message(["Bo", "Ada"], you=1))
    assert session.receive(GAME_STARTED).effects == (Refusal(GAME_STARTED),)


def test_left_shows_the_lobby() -> None:
    session = ClientSession()
    session.receive(welcome())
    session.receive(table_message(["Ada"], you=0))
    assert session.receive(Left(table=1)).effects == (ShowLobby(),)


def test_connecting_asks_another_name_or_trust_or_gives_up() -> None:
    """Tried: a hello refused for its name (asked again, unless the face has no way to ask: a front's
    names come from its door), a server met for the first time (asked whether to trust it), a changed
    certificate, another refusal, and a server that never answered (each the end, with its cause)."""
    taken = ServerError(refused("name_taken", ref="hello"))
    assert ClientSession().connect_failed(taken) == AskName(taken.error)
    assert ClientSession(asks_names=False).connect_failed(taken) == GiveUp(taken)
    unknown = UnknownServer("h", 1, "SHA256:x")
    assert ClientSession().connect_failed(unknown) == AskTrust(unknown)
    changed = ServerKeyChanged("h", 1, "SHA256:x", "SHA256:y")
    assert ClientSession().connect_failed(changed) == GiveUp(changed)
    full = ServerError(refused("server_full", ref="hello"))
    assert ClientSession().connect_failed(full) == GiveUp(full)
    refused_tcp = ConnectionRefusedError()
    assert ClientSession().connect_failed(refused_tcp) == GiveUp(refused_tcp)


def test_a_lost_connection_is_tried_again_after_growing_waits_with_jitter() -> None:
    """Tried: a session welcomed once, its link lost, then three failed tries: the waits are the steps
    0, 0, 1, 2 of RECONNECT_DELAYS made longer by the seeded random fraction; a welcome starts again
    from the first step. The server's farewell is kept for the words."""
    session = ClientSession(rng=random.Random(5))
    same = random.Random(5)
    session.receive(welcome())
    waits = [session.link_lost(), *(session.connect_failed(exc) for exc in
                                    (ConnectionRefusedError(), TimeoutError(), ConnectionLost("gone")))]
    assert waits == [RetryIn(reconnect_delay(step, same), farewell=False) for step in (0, 0, 1, 2)]
    assert not session.model.connected
    session.receive(welcome(resumed=True))
    session.receive(Bye(SHUTTING_DOWN))
    assert session.link_lost() == RetryIn(reconnect_delay(0, same), farewell=True)
    assert ClientSession(local=True).link_lost() == Stop()


def test_a_replaced_connection_asks_before_taking_the_seat_back() -> None:
    """Tried: the bye of a connection replaced by the same player's newer one: said, then the lost link
    asks whether to take the seat back rather than connecting again by itself; the next loss waits."""
    session = ClientSession()
    session.receive(welcome())
    assert session.receive(Bye(REPLACED)).effects == (Replaced(),)
    assert session.link_lost() == AskTakeBack()
    assert isinstance(session.link_lost(), RetryIn)
    assert ClientSession().receive(Bye(SHUTTING_DOWN)).effects == (Closed(Bye(SHUTTING_DOWN)),)


def test_a_fronts_session_ends_with_a_bye_other_than_a_restart_or_a_move() -> None:
    """Tried on a front's session: the same key connected elsewhere (the end), the server shutting down
    and the table moved to another node (both connected again)."""
    front = ClientSession(asks_names=False, ends_when_closed=True)
    assert front.receive(Bye(REPLACED)).effects == (End(REPLACED),)
    for reason in (SHUTTING_DOWN, BYE_TABLE_MOVED):
        assert front.receive(Bye(reason)).effects == (Closed(Bye(reason)),)


def test_an_entry_code_is_joined_once_and_said_at_its_table() -> None:
    """Tried: ssh K7QX2M@host: joined after the first welcome, its table says how to go on; after a
    reconnection nothing is joined again. Watching (ssh watch-K7QX2M@host) spectates instead; back at
    the player's own table the code is not used."""
    session = ClientSession(entry=Entry(code="K7QX2M"))
    assert session.receive(welcome()).requests == (Join(code="K7QX2M"),)
    assert session.receive(table_message(["Bo", "Ada"], you=1)).effects == (ShowTable(),
                                                                            EnteredByCode("K7QX2M", False))
    assert session.receive(welcome(table=1, resumed=True)) == Reaction(changed="welcome")
    watch = ClientSession(entry=Entry(code="K7QX2M", watch=True))
    assert watch.receive(welcome()).requests == (Spectate(code="K7QX2M"),)
    back = ClientSession(entry=Entry(code="K7QX2M"))
    assert back.receive(welcome(table=4)).effects == (CodeNotUsed("K7QX2M"),)


def test_an_entry_code_too_late_offers_to_watch_and_a_code_that_was_a_name_is_not_an_error() -> None:
    """Tried: the entry's table plays already (asked to watch; yes: said as watched; no: the table joined
    later is not said to be the code's), and a user name that only looked like a code (no such table:
    nothing said)."""
    late = ClientSession(entry=Entry(code="K7QX2M"))
    late.receive(welcome())
    assert late.receive(GAME_STARTED).effects == (AskToWatch("K7QX2M", started=True),)
    late.watch_answer(AskToWatch("K7QX2M", started=True), True)
    assert late.receive(table_message(["Bo", "Cy"])).effects == (ShowTable(), EnteredByCode("K7QX2M", True))
    declined = ClientSession(entry=Entry(code="K7QX2M"))
    declined.receive(welcome())
    declined.receive(GAME_STARTED)
    assert declined.watch_answer(AskToWatch("K7QX2M", started=True), False) == ()
    declined.asked(Join(table=9))
    assert declined.receive(table_message(["Bo", "Ada"], you=1)).effects == (ShowTable(),)  # not the code's table
    name = ClientSession(entry=Entry(code="ADABOB", maybe_name=True))
    name.receive(welcome())
    assert name.receive(refused("no_such_table")).effects == ()
    assert name.receive(refused("no_such_table")).effects == (Refusal(refused("no_such_table")),)  # said again


def test_play_now_on_arrival_queues_or_leaves_a_table_with_nothing_to_go_back_to() -> None:
    """Tried: ssh play@host from the lobby (queued at once), back at a finished table (left, then
    queued), and back in a running game (stays)."""
    wish = ("1980", 3)
    lobby = ClientSession(entry=Entry(play_now=wish))
    arrival = lobby.receive(welcome())
    assert arrival.requests == (PlayNow(edition="1980", seats=3),)
    assert arrival.effects == (ShowLobby(), WaitingToPlay(wish))
    finished = ClientSession(entry=Entry(play_now=wish))
    assert finished.receive(welcome(table=1)).requests == ()
    assert finished.receive(table_message(["Ada", "Bo"], you=0, status="finished")).requests == (Leave(),)
    assert finished.receive(Left(table=1)).requests == (PlayNow(edition="1980", seats=3),)
    playing = ClientSession(entry=Entry(play_now=wish))
    playing.receive(welcome(table=1))
    assert playing.receive(table_message(["Ada", "Bo"], you=0, status="playing")).requests == ()
