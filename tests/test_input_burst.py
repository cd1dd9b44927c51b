"""Keys that reach a text box in one burst (a paste, a slow link, a script, a fast typist) act in
the order they were typed: Textual runs a box's editing keys (ctrl+u, backspace, Enter…) only once
they have bubbled up to the app, while letters go in at once."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from ono99_tui.tui.inputs import Input


class OneBox(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(value="root", id="name")

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.submitted.append(message.value)


def burst(app: App[None], keys: list[tuple[str, str | None]]) -> None:
    """Every key posted at once, as a terminal driver posts the keys of one read."""
    for key, character in keys:
        app.post_message(events.Key(key, character))


async def test_ctrl_u_then_a_name_then_enter_in_one_burst_sends_the_name() -> None:
    """Tried: ``ctrl+u Dee Enter`` written at once into a box holding 'root'. The box is wiped, then
    holds Dee, and Dee is what Enter sends (Textual's own box sent the empty box, Dee wiped after it
    was typed)."""
    app = OneBox()
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, [("ctrl+u", None), ("D", "D"), ("e", "e"), ("e", "e"), ("enter", "\r")])
        await pilot.pause()
        await pilot.pause()
        assert app.query_one(Input).value == "Dee"
        assert app.submitted == ["Dee"]


async def test_backspaces_and_moves_in_one_burst_edit_where_they_were_typed() -> None:
    """Tried: 'abc', two backspaces, 'd', home, 'X', end, 'Y' in one burst after ctrl+u: 'XadY'."""
    app = OneBox()
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, [("ctrl+u", None), ("a", "a"), ("b", "b"), ("c", "c"), ("backspace", "\x7f"),
                    ("backspace", "\x7f"), ("d", "d"), ("home", None), ("X", "X"), ("end", None), ("Y", "Y")])
        await pilot.pause()
        await pilot.pause()
        assert app.query_one(Input).value == "XadY"
