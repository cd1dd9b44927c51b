""""help" typed in the plain mode says the commands, as ? does: typed key by key at a table (where h
alone says the hand at once), in the lobby, and as a whole line from input that is not a terminal.
The plain session and its console, fed the server's messages and the keys typed."""

from __future__ import annotations

from ono99_kernel.wire.server import decode_server_message
from ono99_tui.plain import sentences as words
from ono99_tui.plain.console import Console
from ono99_tui.plain.lines import PlainSession
from tests.test_plain import finished_game_messages


def session_at(where: str, out: list[str], *, keys: bool = True) -> PlainSession:
    """A plain session seated in a running game (``where`` "table") or in the lobby."""
    session = PlainSession(Console(out.append, keys=keys), lambda message: None, lambda: None)
    messages = finished_game_messages("playing")
    if where == "lobby":
        messages = [messages[0] | {"table": None}, {"t": "tables", "tables": []}]
    else:
        view = messages[2]["view"]
        assert isinstance(view, dict)
        view.update(winner=None, ranking=None, turn=1, hand_sizes=[4, 4], active=[True, True],
                    in_hand=[True, True], hand=["5", "10"])
    for message in messages:
        session.receive(decode_server_message(message))
    out.clear()
    return session


def said(out: list[str]) -> list[str]:
    return [line.removesuffix("\n") for line in "".join(out).split("\n") if line]


def test_help_typed_at_a_table_says_the_commands() -> None:
    """Found: "help" typed at a table ran h (the hand) at once and then said "There is no command elp"."""
    out: list[str] = []
    session = session_at("table", out)
    session.console.feed("help\r")
    lines = said(out)
    assert not any("There is no command" in line for line in lines)
    assert lines[-len(words.table_help(False)):] == list(words.table_help(False))


def test_help_typed_in_the_lobby_and_as_a_line_says_the_commands() -> None:
    """Found: "help" in the lobby said "There is no command help"; so did a line of input from a pipe."""
    for keys in (True, False):
        out: list[str] = []
        session = session_at("lobby", out, keys=keys)
        session.console.feed("help\r")
        assert said(out)[-len(words.lobby_help()):] == list(words.lobby_help()), keys
        out.clear()
        session.console.feed("?\r")
        assert said(out)[-len(words.lobby_help()):] == list(words.lobby_help()), keys
