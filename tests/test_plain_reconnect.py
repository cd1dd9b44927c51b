"""The plain mode across a server killed with SIGKILL and started again: every move is said once; and
a plain player who quits is gone from the server at once.

A real ``ono99 serve`` process, the real ``ono99 connect --plain`` in tmux (its output read as a screen
reader gets it, tests/plain_rig.py), and a relay between them (tests/relay.py) that keeps the plain
client out for a while after the restart, so that the stand-in bots play on while it tries to come back.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ono99_kernel.wire.requests import Spectate
from ono99_kernel.wire.server import decode_server_message
from ono99_tui.plain.console import Console
from ono99_tui.plain.lines import PlainSession
from tests.plain_rig import Pane, move_for, rewrites
from tests.relay import Relay
from tests.server_helpers import ServerProcess, TestClient, running_server, wait_until
from tests.test_metrics import scrape
from tests.test_plain import finished_game_messages

PLAY = re.compile(r"^(You|Bot \d+) (?:played|discarded) .*?[Tt]otal (\d+)")
GAME_OVER_FOR_THE_HOST = "Type r to play again, x to leave the table, or p to play now."


def said_plays(lines: list[str]) -> list[tuple[str, int]]:
    """(who, total) of every play the plain mode said, in order."""
    return [(match.group(1), int(match.group(2))) for match in map(PLAY.match, lines) if match]


class Watcher:
    """A protocol client watching the table: every event of the game, in order, from its first."""

    def __init__(self, client: TestClient, table_id: int) -> None:
        self.client = client
        self.table_id = table_id
        self.events: list[dict[str, Any]] = []
        self.winner: int | None = None

    async def read(self) -> None:
        message = await self.client.recv()
        if message["t"] in ("history", "state") and message["table"] == self.table_id:
            if message["t"] == "history" and message["reset"]:
                self.events.clear()
            self.events += message["events"]
            if message["t"] == "state":
                self.winner = message["view"]["winner"]

    def plays(self, names: list[str]) -> list[tuple[str, int]]:
        return [("You" if e["seat"] == 0 else names[e["seat"]], e["total"]) for e in self.events if e["e"] == "play"]


@pytest.mark.system
async def test_moves_made_while_the_plain_mode_reconnects_after_a_kill_9_are_each_said_once(tmp_path: Path) -> None:
    """Kim plays with three bots in the plain mode. The server is killed with SIGKILL on Kim's turn and
    started again on its database; Kim's plain client cannot get back in (the relay cuts it) until the
    stand-in bots have made at least four more plays. Tried: once back, the plain mode says every play
    of the game exactly once, in the order of the game's events as a spectator saw them (the old plain
    mode took the moves it had missed in silently and said only where the game stood)."""
    server = ServerProcess(tmp_path / "live.db", tmp_path / "server.log", "--grace", "60", "--bot-delay", "0.2",
                           "--turn-seconds", "0", "--messages-per-second", "10000")
    relay = Relay(await server.start())
    pane = Pane(tmp_path)
    watcher: Watcher | None = None
    try:
        await relay.start()
        await pane.connect(relay.port, tmp_path, "--server-fingerprint", server.fingerprint)
        await pane.wait_line("Welcome to ONO 99, Kim.")
        await pane.keys("literal:n 4", "Enter")
        await pane.wait_line("You sit at Kim's table, in seat 1 of 4.")
        await pane.keys("s")
        players = await pane.wait_line(lambda line: line.startswith("The players: you, "), "the players")
        names = ["You", *players.removeprefix("The players: you, ").rstrip(".").split(", ")]
        for _turn in range(2):
            hand = await pane.wait_line(lambda line: line.startswith("Your cards: "), "Kim's turn")
            await pane.keys(await move_for(pane, hand))
        await pane.wait_line(lambda line: line.startswith("Your cards: "), "Kim's third turn")
        heard_before = len(said_plays(pane.lines()))

        relay.cutting = True  # Kim's client tries again and again, and is let in only later
        await server.kill9()
        await pane.wait_line(lambda line: line.startswith("The connection was lost; trying again in 0."))
        await server.start()
        watcher = Watcher(await TestClient.connect("127.0.0.1", server.port, "watcher"), 1)
        await watcher.client.send(Spectate(table=watcher.table_id))
        while len(watcher.plays(names)) < heard_before + 4 and watcher.winner is None:
            await watcher.read()
        relay.cutting = False
        await pane.wait_line("Connected again.")

        while True:  # Kim plays the game to its end
            line = await pane.wait_line(lambda text: text.startswith("Your cards: ") or text == GAME_OVER_FOR_THE_HOST,
                                        "a turn or the end")
            if line == GAME_OVER_FOR_THE_HOST:
                break
            await pane.keys(await move_for(pane, line))
        while watcher.winner is None:
            await watcher.read()

        game = watcher.plays(names)
        assert len(game) > heard_before + 4
        assert said_plays(pane.lines()) == game
        assert rewrites(pane.stream) == []
    finally:
        if watcher is not None:
            await watcher.client.close()
        await pane.close()
        await relay.close()
        await server.stop()


async def test_a_player_who_quits_the_plain_mode_at_a_running_game_is_gone_not_away(tmp_path: Path) -> None:
    """Kim plays with a bot in ``ono99 connect --plain`` and quits mid-game (q, then y to "a bot plays
    your seat until it ends"). Tried: once the server has seen the connection close, Kim is not a member of
    the server any more (``ono99 admin who`` lists its members), a bot has the seat, and
    ``ono99_players_away`` is 0. Found: the seat waited out the 120 s grace for a player who had quit
    for good (for a guest, whose session ends with the program, it never comes back), "away" the while."""
    async with running_server(tmp_path, metrics_port=0) as h:
        pane = Pane(tmp_path)
        await pane.connect(h.port, tmp_path, "--server-fingerprint", h.server.fingerprint)
        try:
            await pane.wait_line("Welcome to ONO 99, Kim.")
            members = h.server.lobby.members
            await pane.keys("literal:n 2", "Enter")
            await pane.wait_line("The game has not started: type s to start it; empty seats get bots.")
            await pane.keys("s")
            await pane.wait_line(lambda line: line.startswith("Your cards: "), "Kim's turn")
            at = members["Kim"].table
            assert at is not None
            table = h.server.lobby.tables[at.id]
            await pane.keys("q")
            await pane.wait_line("Quit? The game is running: a bot plays your seat until it ends, "
                                 "and you may take the seat back between games.")
            await pane.keys("y")
            await pane.wait_exit()
            await wait_until(lambda: "Kim" not in members or members["Kim"].connection is None, "Kim's link closed")
            assert "Kim" not in members
            assert [seat.kind for seat in table.seats] == ["bot", "bot"]
            samples = await scrape(h)
            assert samples[("ono99_players_away", ())] == 0
        finally:
            await pane.close()


def test_a_game_watched_again_after_leaving_is_not_read_out_from_where_it_was_left() -> None:
    """Moves missed while reconnecting are said; a game one comes back to by choice is not. Tried: Kim
    watches a game (a state of two plays), leaves the table, three more plays are made, and Kim watches
    again: the server sends the game's whole log as history. Only where the game stands is said, not
    the three plays (as at any table found under way)."""
    out: list[str] = []
    session = PlainSession(Console(out.append), lambda message: None, lambda: None)
    table, state = (finished_game_messages("playing")[i][key] for i, key in ((1, "table"), (2, "view")))
    assert isinstance(table, dict) and isinstance(state, dict)  # a table of two, from the ranking's test
    watching = {**table, "you": None, "status": "playing",
                "seats": [{"kind": "bot", "name": f"Bot {n}", "level": "greedy", "connected": None} for n in (1, 2)]}
    view = {**state, "seat": None, "winner": None, "ranking": None,
            "turn": 0, "hand": [], "active": [True, True], "hand_sizes": [4, 4]}

    def plays(first: int, count: int) -> list[dict[str, object]]:
        return [{"e": "play", "seat": i % 2, "cards": ["1"], "total": first + i} for i in range(count)]

    for message in ({"t": "welcome", "version": 2, "server": "S", "name": "Kim", "resume": "r", "resumed": False,
                     "table": None},
                    {"t": "table", "table": watching},
                    {"t": "state", "table": 1, "game_no": 1, "view": {**view, "total": 2}, "events": plays(1, 2),
                     "seq": 2, "clock": None, "controlled_by_bot": [True, True]},
                    {"t": "left", "table": 1},
                    {"t": "table", "table": watching},
                    {"t": "history", "table": 1, "game_no": 1, "reset": True, "seq": 5, "events": plays(1, 5)},
                    {"t": "state", "table": 1, "game_no": 1, "view": {**view, "total": 5}, "events": [], "seq": 5,
                     "clock": None, "controlled_by_bot": [True, True]}):
        session.receive(decode_server_message(message))
    lines = [line.rstrip("\n") for line in out]
    played = [line for line in lines if " played " in line]
    assert played == ["Bot 1 played one, total 1.", "Bot 2 played one, total 2."]
    assert lines[-1].startswith("Total 5, ")
