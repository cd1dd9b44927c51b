"""The lobby's chat box of a player an operator muted: the real app under Pilot, a real server over
loopback TLS and an operator's session."""

from __future__ import annotations

from pathlib import Path

from ono99_tui.tui.app import make_app
from ono99_tui.tui.inputs import Input
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.widgets import KeysFooter
from tests.server_helpers import new_identity, running_server
from tests.test_moderation import admin, admins_file, operator
from tests.test_tui import wait_until


async def test_a_muted_players_lobby_line_stays_in_the_box_and_the_footer_gives_the_lines_keys(
        tmp_path: Path) -> None:
    """Ada (with a key), muted in the lobby's chat, types a line and Enter. Found: the server refused it
    and the line was gone from the box; and while she typed, the footer showed only "f2 Settings".
    Now the refused line is back in the box, and the footer shows Enter to send and Esc for the tables,
    as the table's chat does; away from the box, the lobby's own keys again."""
    op, ada_key = new_identity(), new_identity()
    async with running_server(tmp_path, admins=admins_file(tmp_path, op)) as h:
        desk = await operator(h, op)
        app = make_app(local=False, host="127.0.0.1", port=h.port, name="Ada", identity=ada_key)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.model.my_name == "Ada",
                             "the lobby")
            await admin(desk, "mute", target="Ada", reason="shouting", seconds=600)
            footer = app.screen.query_one(KeysFooter)
            await pilot.press("c")
            box = app.screen.query_one("#lobby-chat-input", Input)
            await wait_until(pilot, lambda: app.screen.focused is box, "the chat box")
            await pilot.pause()
            assert [entry.description for entry in footer._entries] == ["Send", "Tables"]
            await pilot.press(*"hi all", "enter")
            await wait_until(pilot, lambda: "muted" in app.model.notice, "the refusal")
            await pilot.pause()
            assert box.value == "hi all"
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen.focused is not box, "back at the tables")
            await pilot.pause()
            shown = [entry.description for entry in footer._entries]
            assert "Play now" in shown and "Send" not in shown and "Tables" not in shown, shown
