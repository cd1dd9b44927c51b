"""What a move costs the table screen: it repaints the widgets whose content changed and lays
nothing out (an SSH front draws every session's screen on one process), while the log still grows,
scrolls to its end and scrolls back through its history."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import RichLog

from ono99_tui.tui.app import make_app
from ono99_tui.tui.lobby import LobbyScreen
from ono99_tui.tui.steady import LineLog, SteadyDigits
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from tests.app_state import ScriptedLink, spectator_app
from tests.test_first_minute import screen_text
from tests.test_tui import wait_until
from tests.textual_compat import count_layouts, scroll_up_with_the_wheel
from tests.wire import welcome_map


def regions(screen: Screen[Any]) -> dict[int, Region]:
    return {id(widget): widget.region for widget in screen.walk_children(Widget)}


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_moves_lay_nothing_out_and_repaint_what_changed(size: tuple[int, int], monkeypatch: Any) -> None:
    """A spectator watches moves arrive (the total going from one digit to two among them): the
    table screen is never laid out again, no widget moves or changes size, and the total, the
    status line and the log show each new state."""
    app, link, states = spectator_app()
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        link.inbox.put_nowait(states[0])
        await wait_until(pilot, lambda: app.model.view is not None, "the first state")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        laid_out = count_layouts(monkeypatch)
        before = regions(screen)
        log = screen.query_one("#log", RichLog)
        for state in states[1:12]:
            lines = len(log.lines)
            link.inbox.put_nowait(state)
            await wait_until(pilot, lambda s=state: app.model.view is not None
                             and app.model.view.version == s["view"]["version"], "the state")
            await pilot.pause()
            view = app.model.view
            assert view is not None
            top = screen.query_one(TableTop)
            assert top.shown_total == view.total
            pile = "".join(line for line in top.text().splitlines() if "░" in line)  # the draw pile's back
            assert str(view.draw_pile_size) in pile
            assert len(log.lines) > lines  # each move says what happened
            assert log.scroll_offset.y == log.max_scroll_y  # and the log shows its end
        assert app.model.log[-1] in screen_text(app)
        assert laid_out == []
        assert regions(screen) == before


async def test_the_log_scrolls_back_with_the_mouse_wheel_and_its_scrollbar_follows() -> None:
    """Many moves later the log's scrollbar spans all its lines, the wheel scrolls back through
    them, and the next move brings the view back to the end."""
    app, link, states = spectator_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        for state in states[:30]:
            link.inbox.put_nowait(state)
        await wait_until(pilot, lambda: app.model.view is not None
                         and app.model.view.version == states[29]["view"]["version"], "the states")
        await pilot.pause()
        log = app.screen.query_one("#log", RichLog)
        assert log.max_scroll_y > 3, "the log holds more lines than it shows"
        assert log.vertical_scrollbar.window_virtual_size == len(log.lines)
        assert log.scroll_offset.y == log.max_scroll_y
        for _ in range(3):
            await scroll_up_with_the_wheel(pilot, "#log", offset=(5, 3))
        assert log.scroll_offset.y < log.max_scroll_y
        link.inbox.put_nowait(states[30])
        await wait_until(pilot, lambda: app.model.view is not None
                         and app.model.view.version == states[30]["view"]["version"], "the next state")
        await pilot.pause()
        assert log.scroll_offset.y == log.max_scroll_y
        assert log.vertical_scrollbar.window_virtual_size == len(log.lines)


class _Sized(App[None]):
    CSS = """
    #fixed { height: 4; }
    #grows { height: auto; }
    #digits-fixed { height: 3; }
    #digits-auto { width: auto; }
    """

    def compose(self) -> ComposeResult:
        yield LineLog(id="fixed")
        yield LineLog(id="grows")
        yield SteadyDigits("9", id="digits-fixed")
        yield SteadyDigits("9", id="digits-auto")


async def test_widgets_sized_by_their_content_are_still_laid_out_when_it_grows() -> None:
    """A log of height auto grows with its lines and a Digits of width auto with its value; a log
    of fixed height keeps it and scrolls."""
    app = _Sized()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        fixed, grows = app.query_one("#fixed", LineLog), app.query_one("#grows", LineLog)
        for n in range(3):
            fixed.write(f"line {n}")
            grows.write(f"line {n}")
        await pilot.pause()
        assert grows.size.height == 3 and fixed.size.height == 4
        for n in range(3, 8):
            fixed.write(f"line {n}")
            grows.write(f"line {n}")
        await pilot.pause()
        assert grows.size.height == 8 and fixed.size.height == 4
        assert fixed.scroll_offset.y == fixed.max_scroll_y > 0
        digits_fixed, digits_auto = app.query_one("#digits-fixed", SteadyDigits), app.query_one("#digits-auto",
                                                                                               SteadyDigits)
        narrow = (digits_fixed.size.width, digits_auto.size.width)
        digits_fixed.update("99")
        digits_auto.update("99")
        await pilot.pause()
        assert digits_fixed.size.width == narrow[0] and digits_auto.size.width > narrow[1]


async def test_a_lobby_chat_line_lays_nothing_out(monkeypatch: Any) -> None:
    """Lines said in the lobby chat show at the end of its log without laying out the lobby."""
    link = ScriptedLink()
    link.inbox.put_nowait(welcome_map("Watcher"))
    link.inbox.put_nowait({"t": "chat_history", "scope": "lobby", "table": None, "messages": []})
    link.inbox.put_nowait({"t": "tables", "tables": []})

    async def open_link() -> ScriptedLink:
        return link

    def chat(n: int) -> dict[str, Any]:
        return {"t": "chat", "scope": "lobby", "table": None, "id": n, "from": "Ann", "text": f"hello {n}", "at": 0.0}

    app = make_app(local=False, name="Watcher", open_link=open_link)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.inbox.put_nowait(chat(1))
        await wait_until(pilot, lambda: "hello 1" in screen_text(app), "the first line")
        await pilot.pause()
        screen = app.screen
        laid_out = count_layouts(monkeypatch)
        log = screen.query_one("#lobby-chat", RichLog)
        for n in range(2, 20):
            link.inbox.put_nowait(chat(n))
            await wait_until(pilot, lambda n=n: f"hello {n}" in screen_text(app), "the line")
            await pilot.pause()
        assert laid_out == []
        assert log.max_scroll_y > 0 and log.scroll_offset.y == log.max_scroll_y


def test_a_front_collects_cycles_rarely_and_never_looks_at_what_it_started_with() -> None:
    """The collector settings of a front process (ono99_tui/front/process.py), in a process of its own."""
    code = ("import gc; from ono99_tui.front.process import FRONT_GC_THRESHOLD, tune_gc; tune_gc(); "
            "print(gc.get_threshold()[0] == FRONT_GC_THRESHOLD > 700, gc.get_freeze_count() > 1000)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["True", "True"]


class _Narrow(App[None]):
    CSS = "LineLog { width: 40; height: 6; border: round white; overflow-x: hidden; }"

    def compose(self) -> ComposeResult:
        yield LineLog(wrap=True, markup=False, highlight=False, max_lines=200)


async def test_a_line_longer_than_the_log_wraps_within_its_width() -> None:
    """A log narrower than 78 columns wraps a long line at its own width: every word is shown
    (they wrapped at 78 and were cut off at the log's edge)."""
    app = _Narrow()
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        log = app.query_one(LineLog)
        words = [f"word{n}" for n in range(20)]
        log.write(Text(" ".join(words)))
        await pilot.pause()
        width = log.scrollable_content_region.width
        assert all(strip.cell_length <= width for strip in log.lines)
        assert " ".join(strip.text for strip in log.lines).split() == words
        assert not log.show_horizontal_scrollbar
