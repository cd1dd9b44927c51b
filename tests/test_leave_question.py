"""What leaving a running game asks: the seat goes to a bot for the rest of that game only, and the
player may take it back between games (the server's rule, tested in tests/test_group_seats.py). The
real app under Pilot against a real server over loopback TLS; the plain mode's session fed a table's
messages."""

from __future__ import annotations

from pathlib import Path

from ono99_kernel.wire.requests import CreateTable, Leave, Request
from ono99_kernel.wire.server import decode_server_message
from ono99_server import Server
from ono99_tui.plain.console import Console
from ono99_tui.plain.lines import PlainSession
from ono99_tui.tui.app import make_app
from ono99_tui.tui.seats import ConfirmScreen
from ono99_tui.tui.table import TableScreen
from tests.server_helpers import server_config
from tests.test_plain import finished_game_messages
from tests.test_tui import wait_until

QUESTION = ("{doing}? The game is running: a bot plays your seat until it ends, "
            "and you may take the seat back between games.")


async def test_the_app_asks_about_leaving_a_running_game_in_words_true_to_the_server(tmp_path: Path) -> None:
    """Ada starts a game with a bot (it waits long: nothing moves) and presses l. Found: the question said
    "a bot takes your seat for good", though she may sit there again between games."""
    server = Server(server_config(tmp_path, bot_delay=600))
    await server.start()
    app = make_app(local=False, host="127.0.0.1", port=server.port, name="Ada")
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: app.model.my_name == "Ada", "the welcome")
            app.send_message(CreateTable(name="t", edition="2022", options={}, seats=2, bots=1, start=True))
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.table is not None
                             and app.model.table.status == "playing", "the running game")
            await pilot.press("l")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.question == QUESTION.format(doing="Leave the table")
    finally:
        await server.close()


def test_the_plain_mode_asks_about_leaving_and_quitting_a_running_game_in_true_words() -> None:
    """Kim sits in a running game and types x, then q. Found: both questions said "a bot takes your seat
    for good"; each now says the bot plays until the game ends and the seat may be taken back."""
    out: list[str] = []
    sent: list[Request] = []
    session = PlainSession(Console(out.append, newline="\r\n"), sent.append, lambda: None)
    messages = finished_game_messages("playing")
    view = messages[2]["view"]
    assert isinstance(view, dict)
    view.update(winner=None, ranking=None, turn=1, hand_sizes=[4, 4], active=[True, True], in_hand=[True, True])
    for message in messages:
        session.receive(decode_server_message(message))
    session.key("x")
    assert out[-2:] == [QUESTION.format(doing="Leave the table") + "\r\n", "Type y for yes, n for no.\r\n"]
    session.key("n")
    session.key("q")
    assert out[-2:] == [QUESTION.format(doing="Quit") + "\r\n", "Type y for yes, n for no.\r\n"]
    assert Leave() not in sent
