"""Where a table update's CPU goes in one terminal app: a spectator's app under Textual's Pilot,
fed the states of the recorded sample game (tests/data/sample_2022.jsonl) one move at a time.

Per update (CPU time of this thread, medians are not used: every update is counted once):
  handling        the app takes the state: the model, then the table screen's widgets are given
                  their new content (Ono99App.handle)
  table top       the table top's own paint of its lines for the new state (TableTop._draw: its
                  seats, pile, total and bottom line), before the compositor paints the screen
  layouts         how many times the table screen was laid out again (Screen._refresh_layout), and
                  the time to arrange its widgets (Compositor.reflow; the paint that follows a
                  layout is in the next line)
  paint           the compositor paints the changed regions (Compositor.render_update), split into
                  the lines of changed widgets drawn again (StylesCache.render_line, per widget)
                  and the rest: unchanged widgets' lines from their caches, cutting and joining.
Without a terminal: what the SSH front adds (escape codes, the channel) is not in these figures
(bench/ssh_sessions.py measures the whole front).

With --burst: the game's states one at a time (each drawn before the next is sent), then all at
once, as a spectator whose next frame is not due receives a table at full speed, then all at once
taken in as one state with every event (what an SSH front's spectator does); the thread CPU of each.

Run: python bench/table_redraw.py [--size 100x30] [--runs 3] [--burst]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual._compositor import Compositor  # noqa: E402
from textual._styles_cache import StylesCache  # noqa: E402
from textual.screen import Screen  # noqa: E402

from ono99_tui.tui.app import Ono99App  # noqa: E402
from ono99_tui.tui.table import TableScreen  # noqa: E402
from ono99_tui.tui.tabletop import TableTop  # noqa: E402
from tests.app_state import ScriptedLink, spectator_app  # noqa: E402

spent: dict[str, float] = defaultdict(float)
lines_by_widget: Counter[str] = Counter()
time_by_widget: dict[str, float] = defaultdict(float)
counting = False


def timed(owner: Any, name: str, key: str) -> None:
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            if counting:
                spent[key] += time.thread_time() - started

    setattr(owner, name, wrapper)


def count_lines() -> None:
    original = StylesCache.render_line

    def wrapper(self: StylesCache, *args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            if counting:
                widget = getattr(args[7], "__self__", None)  # render_content_line: the widget's method
                key = f"{type(widget).__name__}#{getattr(widget, 'id', None) or ''}"
                lines_by_widget[key] += 1
                time_by_widget[key] += time.thread_time() - started

    StylesCache.render_line = wrapper  # type: ignore[method-assign]  # Textual's own, timed


async def until(condition: Callable[[], bool], pause: Callable[[], Any]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not take the state")
        await pause()


async def from_the_start(link: ScriptedLink, states: list[dict[str, Any]], pilot: Any) -> None:
    """The game's first states (its deal), settled before anything is measured."""
    for state in states[:3]:
        link.inbox.put_nowait(state)
    await pilot.pause(0.5)


async def burst(size: tuple[int, int]) -> tuple[int, float, float, float]:
    """One game watched twice in one app: its states one at a time, each drawn before the next is
    sent, then again all at once (as a table at full speed sends them to a spectator whose frame
    is not due yet), and a third time all at once taken in as one state with all their events (an
    SSH front's spectator); returns the updates and each way's thread CPU seconds."""
    app, link, states = spectator_app()
    moves = states[3:-1]
    async with app.run_test(size=size) as pilot:
        await until(lambda: isinstance(app.screen, TableScreen), pilot.pause)
        await from_the_start(link, states, pilot)
        started = time.thread_time()
        for state in moves:
            link.inbox.put_nowait(state)
            version: int = state["view"]["version"]

            def shown(version: int = version) -> bool:
                return app.model.view is not None and app.model.view.version == version

            await until(shown, pilot.pause)
            await pilot.pause()
        one_by_one = time.thread_time() - started
        await from_the_start(link, states, pilot)  # the game again
        started = time.thread_time()
        for state in moves:
            link.inbox.put_nowait(state)
        last = moves[-1]["view"]["version"]
        await until(lambda: app.model.view is not None and app.model.view.version == last, pilot.pause)
        await pilot.pause()
        at_once = time.thread_time() - started
        await from_the_start(link, states, pilot)
        app.merges_states = lambda: True  # type: ignore[method-assign]  # as an SSH front's spectator does
        started = time.thread_time()
        for state in moves:
            link.inbox.put_nowait(state)
        await until(lambda: app.model.view is not None and app.model.view.version == last, pilot.pause)
        await pilot.pause()
        merged = time.thread_time() - started
    return len(moves), one_by_one, at_once, merged


async def run(size: tuple[int, int]) -> int:
    """One game watched; returns the updates counted."""
    global counting
    app, link, states = spectator_app()
    updates = 0
    async with app.run_test(size=size) as pilot:
        await until(lambda: isinstance(app.screen, TableScreen), pilot.pause)
        await from_the_start(link, states, pilot)
        for state in states[3:-1]:  # the last one ends the game: a dialog, not a move
            version = state["view"]["version"]
            counting = True
            link.inbox.put_nowait(state)

            def taken(version: int = version) -> bool:
                return app.model.view is not None and app.model.view.version == version

            await until(taken, pilot.pause)
            await pilot.pause()
            counting = False
            updates += 1
    return updates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="100x30", help="terminal size, COLUMNSxLINES (the SSH benchmark's)")
    parser.add_argument("--runs", type=int, default=3, help="games watched; the figures are their sum")
    parser.add_argument("--burst", action="store_true",
                        help="a game's states one at a time, then all at once: the CPU of each (thread CPU)")
    args = parser.parse_args()
    size = tuple(int(n) for n in args.size.split("x"))
    if args.burst:
        moves, one_by_one, at_once, merged = asyncio.run(burst((size[0], size[1])))
        print(f"{moves} updates at {args.size}: one at a time {one_by_one * 1000:.0f} ms of CPU "
              f"({one_by_one * 1000 / moves:.2f} ms each), all at once {at_once * 1000:.0f} ms, "
              f"all at once taken in as one {merged * 1000:.0f} ms")
        return
    timed(Ono99App, "handle", "handling")
    timed(TableTop, "_draw", "table top")
    timed(Compositor, "render_update", "paint")
    timed(Compositor, "reflow", "reflow")
    layouts = Counter[str]()
    original_layout = Screen._refresh_layout

    def count_layout(self: Screen[Any], *a: Any, **k: Any) -> None:
        if counting:
            layouts["layouts"] += 1
        original_layout(self, *a, **k)

    Screen._refresh_layout = count_layout  # type: ignore[method-assign]  # Textual's own, counted
    count_lines()
    updates = sum(asyncio.run(run((size[0], size[1]))) for _ in range(args.runs))
    redrawn = sum(time_by_widget.values())
    print(f"{updates} updates at {args.size}; per update:")
    print(f"  handling {spent['handling'] * 1000 / updates:.2f} ms")
    print(f"  table top's paint of its lines {spent['table top'] * 1000 / updates:.3f} ms")
    print(f"  layouts {layouts['layouts'] / updates:.2f} "
          f"(arranging the widgets: {spent['reflow'] * 1000 / updates:.2f} ms)")
    print(f"  paint {spent['paint'] * 1000 / updates:.2f} ms, of which lines of changed widgets drawn again "
          f"{redrawn * 1000 / updates:.2f} ms:")
    for key, seconds in sorted(time_by_widget.items(), key=lambda item: -item[1]):
        print(f"    {key:28} {seconds * 1000 / updates:5.2f} ms  {lines_by_widget[key] / updates:4.1f} lines")


if __name__ == "__main__":
    main()
