"""The parts of the lobby, each alone: who is on the server and the "online" list (server/ono99_server/presence.py),
the tables by id and code and their list (server/ono99_server/directory.py), a push that gathers changes
(server/ono99_server/rates.py ``Throttle``) on a clock the test moves, the lobby's chat
(server/ono99_server/lobby_chat.py),
the leaderboard's followers (server/ono99_server/leaderboards.py), and the lobby's requests
(server/ono99_server/handlers.py)
handed to a lobby with no socket and no database."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ono99_kernel.core.options import TableOptions
from ono99_kernel.wire.requests import AddBot, AskLeaderboard, CreateTable, Join, Leave, Say, Start
from ono99_kernel.wire.server import (
    Chat,
    ChatHistory,
    Leaderboard,
    Left,
    Online,
    State,
    TableMessage,
    Tables,
)
from ono99_server.config import ServerConfig
from ono99_server.directory import MAX_LISTED_TABLES, TableDirectory
from ono99_server.history import ChatLine
from ono99_server.leaderboards import Leaderboards
from ono99_server.lobby_chat import LOBBY_CHAT, LobbyChat, chat_text
from ono99_server.lobby_state import Lobby
from ono99_server.members import Member, token_hash
from ono99_server.presence import ONLINE_EVERY, Presence
from ono99_server.rates import Throttle
from ono99_server.storage import Database, Storage
from ono99_server.stores import open_storage
from ono99_server.table_room import Table
from tests.test_table_parts import Recorder, person, received, refused


class Timers:
    """An event loop's time and timers that move only when the test says (``advance``)."""

    def __init__(self) -> None:
        self.now = 100.0
        self._due: list[tuple[float, int, Callable[[], object]]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], object], /) -> None:
        heapq.heappush(self._due, (self.now + delay, next(self._order), callback))

    def advance(self, seconds: float) -> None:
        end = self.now + seconds
        while self._due and self._due[0][0] <= end:
            at, _, callback = heapq.heappop(self._due)
            self.now = at
            callback()
        self.now = end


def no_loop() -> Timers:
    raise RuntimeError("no running event loop")


# --- a throttled push ------------------------------------------------------------------------------------
def test_a_leading_push_goes_at_once_after_a_quiet_spell_then_gathers_changes_for_the_interval() -> None:
    timers, pushes = Timers(), []
    throttle = Throttle(lambda: 0.5, lambda: pushes.append(timers.now), leading=True, timers=lambda: timers)
    throttle.changed()
    timers.advance(0)
    assert pushes == [100.0]  # the first change: the loop's next turn
    for _ in range(5):  # five changes at once: one push, half a second after the last
        throttle.changed()
    timers.advance(0.2)
    assert pushes == [100.0]
    timers.advance(0.3)
    assert pushes == [100.0, 100.5]
    timers.advance(10)
    throttle.changed()  # quiet since: at once again
    timers.advance(0)
    assert pushes == [100.0, 100.5, 110.5]


def test_a_trailing_push_waits_the_interval_after_the_first_change_it_gathers() -> None:
    timers, pushes = Timers(), []
    throttle = Throttle(lambda: 1.0, lambda: pushes.append(timers.now), leading=False, timers=lambda: timers)
    throttle.changed()
    timers.advance(0.9)
    throttle.changed()
    assert pushes == []
    timers.advance(0.1)
    assert pushes == [101.0]


def test_with_no_running_loop_nothing_is_pushed_and_a_later_change_still_is() -> None:
    timers, pushes = Timers(), []
    loops: list[Callable[[], Timers]] = [no_loop]
    throttle = Throttle(lambda: 1.0, lambda: pushes.append(timers.now), leading=True, timers=lambda: loops[0]())
    throttle.changed()
    assert not throttle.due
    loops[0] = lambda: timers
    throttle.changed()
    timers.advance(0)
    assert pushes == [100.0]


# --- presence ----------------------------------------------------------------------------------------------
def test_names_alike_are_held_by_one_member_and_a_rename_frees_the_old_ones() -> None:
    presence = Presence(timers=no_loop)
    alice = person("alice")
    presence.remember(alice)
    assert presence.holder("ALICE") is alice and presence.holder("aIice") is alice  # a capital I looks like l
    assert presence.holder("bob") is None
    presence.rename(alice, "carol")
    assert alice.name == "carol" and presence.members == {"carol": alice}
    assert presence.holder("alice") is None and presence.holder("Carol") is alice
    presence.forget(alice)
    assert (presence.members, presence.by_token, presence.in_use) == ({}, {}, {})


def test_a_hello_brings_back_a_key_by_its_key_and_a_guest_by_their_token() -> None:
    presence = Presence(timers=no_loop)
    guest = Member("gus", token_hash("gus's token"), ServerConfig())
    keyed = Member("kim", token_hash("kim's token"), ServerConfig(), identity="SHA256:kim")
    presence.remember(guest)
    presence.remember(keyed)
    assert presence.returning(None, "gus's token") is guest
    assert presence.returning("SHA256:kim", None) is keyed
    assert presence.returning(None, "kim's token") is None  # a key's player never comes back by a token
    assert presence.returning(None, "nobody's token") is None and presence.returning(None, None) is None


def test_the_online_list_is_pushed_to_the_lobby_once_a_second_and_not_again_unchanged() -> None:
    timers = Timers()
    presence = Presence(timers=lambda: timers)
    ada, bo, away = person("ada"), person("bo"), person("cy", connected=False)
    table_goer = person("dee")
    table_goer.table = Table(Lobby(ServerConfig(), None), 3, "a table", TableOptions(), 2, table_goer)
    for member in (ada, bo, away, table_goer):
        presence.remember(member)
        presence.changed()
    assert presence.in_lobby() == [ada, bo]  # those away or at a table are told nothing
    timers.advance(ONLINE_EVERY - 0.01)
    assert received(ada) == []
    timers.advance(0.01)
    pushed = [m for m in received(ada) if isinstance(m, Online)]
    assert received(bo) == received(ada) == pushed and received(table_goer) == []
    assert [(p.name, p.away, p.table) for p in pushed[0].players] == [("ada", False, None), ("bo", False, None),
                                                                      ("cy", True, None), ("dee", False, 3)]
    presence.changed()  # nothing new to say: nothing said
    timers.advance(ONLINE_EVERY)
    assert len(received(ada)) == 1
    presence.forget(bo)
    timers.advance(ONLINE_EVERY)
    assert [p.name for m in received(ada) if isinstance(m, Online) for p in m.players][-3:] == ["ada", "cy", "dee"]
    presence.closed = True  # the server is shutting down
    presence.forget(away)
    timers.advance(ONLINE_EVERY)
    assert len(received(ada)) == 2


# --- the table directory ------------------------------------------------------------------------------------
def directory_with_tables(count: int, audience: Callable[[], list[Member]] = list,
                          timers: Callable[[], Timers] = no_loop) -> tuple[TableDirectory, Lobby]:
    """A directory of ``count`` tables, each hosted by its own person (who is not seated)."""
    lobby = Lobby(ServerConfig(), None)
    directory = TableDirectory(None, lambda: 0.5, audience, timers)
    for _ in range(count):
        table_id = directory.take_id()
        directory.add(Table(lobby, table_id, f"table {table_id}", TableOptions(), 2, person(f"host {table_id}")))
    return directory, lobby


def test_a_table_is_found_by_its_id_or_its_invite_code_and_a_private_one_only_by_its_code() -> None:
    directory, lobby = directory_with_tables(2)
    hidden = Table(lobby, directory.take_id(), "hidden", TableOptions(), 2, None, private=True, code="ABC234")
    directory.add(hidden)
    assert [directory.find(None, n).id for n in (1, 2)] == [1, 2]
    assert directory.find(" abc234 ", None) is hidden
    refused(lambda: directory.find(None, hidden.id), "no_table")
    refused(lambda: directory.find("NOPE99", None), "no_table")
    refused(lambda: directory.find(None, 99), "no_table")
    refused(lambda: directory.find(None, None), "no_table")
    assert directory.take_id() == 4  # ids are never given twice
    directory.add(Table(lobby, 40, "restored", TableOptions(), 2, None))
    assert directory.take_id() == 41  # nor one a restored table has


def test_the_list_shows_open_tables_first_at_most_its_limit_and_counts_them_all() -> None:
    directory, _ = directory_with_tables(MAX_LISTED_TABLES + 5)
    directory.tables[2].runner.status = "playing"
    directory.tables[1].runner.status = "finished"
    listing = directory.listing()
    assert listing.total == MAX_LISTED_TABLES + 5 and len(listing.tables) == MAX_LISTED_TABLES
    assert [t.id for t in listing.tables[:3]] == [3, 4, 5]
    assert directory.hosted_by(directory.tables[7].host_member or person("nobody")) == 1


def test_an_empty_table_closes_unless_a_game_on_it_is_left_to_play_out() -> None:
    directory, _ = directory_with_tables(3)
    seated = directory.tables[1]
    seated.seats[0].kind, seated.seats[0].name, seated.seats[0].member = "human", "ada", person("ada")
    directory.tables[2].runner.status = "playing"
    assert [directory.close_if_empty(directory.tables[n]) for n in (1, 2, 3)] == [False, False, True]
    assert sorted(directory.tables) == [1, 2]


def test_the_list_is_pushed_to_the_lobby_and_its_listeners_once_for_many_changes() -> None:
    timers, ada, heard = Timers(), person("ada"), []
    directory, _ = directory_with_tables(2, audience=lambda: [ada], timers=lambda: timers)
    directory.listeners.append(lambda: heard.append(timers.now))
    for _ in range(3):
        directory.changed()
    timers.advance(0)
    assert heard == [100.0] and [type(m) for m in received(ada)] == [Tables]
    directory.changed()
    timers.advance(0.5)
    assert heard == [100.0, 100.5] and len(received(ada)) == 2


# --- the lobby's chat ---------------------------------------------------------------------------------------
def test_a_lobby_chat_line_is_shown_once_it_is_saved_to_whoever_hears_its_sender_then() -> None:
    unsaved: list[tuple[int, ChatLine, Callable[[], None]]] = []
    chat = LobbyChat(50, lambda table, line, show: unsaved.append((table, line, show)))
    ada, bo, cy = person("ada"), person("bo"), person("cy")
    hearers = [ada, bo]
    chat.say(ada, "hello", lambda sender: list(hearers))
    assert received(ada) == received(bo) == []  # not saved yet: shown to nobody
    table, line, show = unsaved[0]
    assert (table, line.sender, line.text) == (LOBBY_CHAT, "ada", "hello")
    hearers.append(cy)  # cy came meanwhile: they hear it too
    show()
    for member in (ada, bo, cy):
        assert [(m.line.sender, m.line.text) for m in received(member) if isinstance(m, Chat)] == [("ada", "hello")]
    assert [m.text for m in chat.room.history().messages] == ["hello"]


def test_a_chat_line_says_its_text_plainly_and_is_refused_empty_or_too_long() -> None:
    assert chat_text("  hi\x1b[31m there ") == "hi[31m there"
    refused(lambda: chat_text(" \t "), "empty_chat")
    refused(lambda: chat_text("x" * 10_000), "chat_too_long")


# --- leaderboards ---------------------------------------------------------------------------------------------
def test_followers_of_the_leaderboard_are_sent_it_again_after_a_counted_game() -> None:
    boards = Leaderboards(None)
    ada, bo, gone = person("ada"), person("bo"), person("cy")
    boards.on_leaderboard(ada, AskLeaderboard(edition="2022", follow=True))
    boards.on_leaderboard(bo, AskLeaderboard(edition=None, follow=None))  # asks once, follows not
    boards.on_leaderboard(gone, AskLeaderboard(edition=None, follow=True))
    boards.forget(gone)
    assert boards.followers == {ada}
    boards.push()
    assert [m.edition for m in received(ada) if isinstance(m, Leaderboard)] == ["2022", "2022"]
    assert len(received(bo)) == 1 and len(received(gone)) == 1
    boards.on_leaderboard(ada, AskLeaderboard(edition="2022", follow=False))
    boards.push()
    assert len(received(ada)) == 3 and boards.followers == set()


# --- the lobby's requests -------------------------------------------------------------------------------------
def test_the_lobbys_requests_create_join_chat_and_leave_with_no_socket_and_no_database() -> None:
    lobby = Lobby(ServerConfig(), None)
    ada, bo = person("ada"), person("bo")
    for member in (ada, bo):
        lobby.presence.remember(member)
    lobby.handle(ada, CreateTable(name="ada's", seats=2))
    table = lobby.tables[1]
    assert ada.table is table and table.host_member is ada and table.seats[0].member is ada
    lobby.handle(bo, Join(table=1))
    assert bo.table is table and table.seats[1].member is bo
    kinds = [type(m) for m in received(bo)]
    assert kinds[-2:] == [TableMessage, ChatHistory] and State not in kinds  # the table, its chat; no game yet
    lobby.handle(bo, Say(text="hi all", scope="lobby"))
    assert [m.line.text for m in received(ada) if isinstance(m, Chat) and m.scope == "lobby"] == ["hi all"]
    lobby.handle(bo, Leave())
    assert bo.table is None and table.seats[1].kind == "empty"
    assert [type(m) for m in received(bo)][-3:] == [Left, Tables, Online]
    refused(lambda: lobby.handle(bo, Say(text="anyone?", scope="table")), "no_table")


def test_a_private_table_with_bots_is_listed_nowhere_and_a_second_host_of_too_many_is_refused() -> None:
    lobby = Lobby(ServerConfig(max_tables_per_player=1), None)
    ada = person("ada")
    lobby.presence.remember(ada)
    lobby.handle(ada, CreateTable(seats=3, bots=2, private=True))
    table = lobby.tables[1]
    assert [s.kind for s in table.seats] == ["human", "bot", "bot"]
    assert table.private and lobby.directory.listing().total == 0 and lobby.directory.find(table.code, None) is table
    refused(lambda: lobby.handle(ada, CreateTable(seats=2)), "too_many_tables")


# --- save before show ----------------------------------------------------------------------------------------
class Witness(Recorder):
    """A member's link that, whenever the table or its game is shown to them, reads what the database
    holds of that table at that moment."""

    def __init__(self, storage: Storage) -> None:
        super().__init__()
        self.storage = storage
        self.seats: list[tuple[list[str], list[str] | None]] = []  # (seats shown, seats saved then)
        self.games: list[tuple[int, int | None]] = []  # (game shown in a state, game saved then)

    def send_frame(self, frame: bytes) -> None:
        super().send_frame(frame)
        message = self.received[-1]
        if isinstance(message, TableMessage):
            saved = self.saved(message.table.id)
            self.seats.append(([s.name for s in message.table.seats],
                               [s["name"] for s in saved["seats"]] if saved is not None else None))
        elif isinstance(message, State):
            saved = self.saved(message.table)
            self.games.append((message.game_no, saved["game_no"] if saved is not None else None))

    def saved(self, table_id: int) -> dict[str, Any] | None:
        return next((t.meta for t in self.storage.load_tables() if t.id == table_id), None)


async def settled(storage: Storage) -> None:
    """Every write queued so far is done, and what waited for them has run."""
    async def nothing(db: Database) -> None:
        pass

    await storage.call(nothing)
    await asyncio.sleep(0)


async def test_a_seat_change_and_a_games_start_are_shown_only_once_they_are_saved(tmp_path: Path) -> None:
    """Tried with a real SQLite store: Ada opens a table, Bo joins, a bot takes a seat, Bo leaves, a bot
    takes his and the game starts. Whenever anyone is shown the table, the database already holds the
    seats shown; whenever a state shows a game, the database already holds that game."""
    storage = open_storage(tmp_path / "x.db")
    lobby = Lobby(ServerConfig(), storage)
    try:
        ada, bo = person("ada"), person("bo")
        witnesses = [Witness(storage), Witness(storage)]
        ada.connection, bo.connection = witnesses
        for member in (ada, bo):
            lobby.presence.remember(member)
        lobby.handle(ada, CreateTable(name="ada's", seats=3))
        await settled(storage)
        lobby.handle(bo, Join(table=1))
        await settled(storage)
        lobby.handle(ada, AddBot())
        await settled(storage)
        lobby.handle(bo, Leave())
        await settled(storage)
        lobby.handle(ada, Start())
        await settled(storage)
        shown = [seats for w in witnesses for seats, _ in w.seats]
        assert ["ada", "bo", "Bot 3"] in shown and ["ada", "Bot 2", "Bot 3"] in shown  # what was tried was shown
        assert [saved for w in witnesses for _, saved in w.seats] == shown
        assert witnesses[0].games == [(1, 1)]
    finally:
        lobby.close()
        storage.close()
