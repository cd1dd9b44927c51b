"""The table top painted by region: each seat's tile, the pile, the total and the bottom line are
painted once per process for what they show and joined into lines only where a region changed; a
picture is shared by every screen of the process showing the same table at the same size, language,
theme and seat; and the picture is, cell for cell, what the table top painted as one canvas."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual.strip import Strip

from ono99_tui.i18n import using
from ono99_tui.tui.replay import ReplayApp, load_replay, make_replay_app
from ono99_tui.tui.tabletop import TableTop
from ono99_tui.tui.themes import MONO_THEME
from tests.test_tui import wait_until

DATA = Path(__file__).parent / "data"
PICTURES = DATA / "tabletop_pictures.json"
# what the old painter drew is recorded once (ONO99_RECORD_PICTURES=1 writes PICTURES instead of comparing)
RECORDING = os.environ.get("ONO99_RECORD_PICTURES") == "1"
STEPS = 30
MOTION_STEPS = 12  # with motion each move waits for its timer: fewer of them
# (replay, size, language, theme, motion): wide and narrow tables, roomy cards, the 1980 edition's
# points and hands, four themes (one without colours), the motion's half-way frames
CASES = [
    ("sample_2022.jsonl", (100, 30), "en", "textual-dark", False),
    ("sample_2022.jsonl", (80, 24), "de", "textual-light", True),
    ("sample_2022.jsonl", (120, 40), "vi", MONO_THEME.name, False),
    ("sample_2022.jsonl", (56, 30), "ne", "textual-dark", False),
    ("sample_1980_points.jsonl", (90, 28), "gl", "nord", False),
]


def cells(strips: list[Strip]) -> str:
    """A picture's cells: each line's runs of text by style, whatever segments carry them."""
    lines = []
    for strip in strips:
        runs: list[list[str]] = []
        for segment in strip:
            style = str(segment.style or "")
            if not segment.text:
                continue
            if runs and runs[-1][1] == style:
                runs[-1][0] += segment.text
            else:
                runs.append([segment.text, style])
        lines.append("\x01".join(f"{text}\x00{style}" for text, style in runs))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def case_name(case: tuple[Any, ...]) -> str:
    replay, (columns, rows), language, theme, motion = case
    return f"{replay} {columns}x{rows} {language} {theme}{' motion' if motion else ''}"


async def pictures_of(case: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every picture the table top shows while STEPS moves of the replay are watched, as drawn."""
    from ono99_tui.tui import tabletop

    replay, size, language, theme, motion = case
    shown: list[str] = []
    draw = TableTop._draw

    def recording(self: TableTop) -> None:
        draw(self)
        if self.scene is not None and self.size.height > 0:
            picture = cells([self.render_line(y) for y in range(self.size.height)])
            if not shown or shown[-1] != picture:
                shown.append(picture)

    with monkeypatch.context() as patch, using(language):
        patch.setattr(tabletop, "_motion_dropped", [])  # a front of this process must not drop the motion
        patch.setattr(TableTop, "_draw", recording)
        app = make_replay_app(load_replay(DATA / replay))
        if not motion:
            app.animation_level = "none"
        async with app.run_test(size=size) as pilot:
            app.theme = theme
            await pilot.pause()
            top = app.screen.query_one(TableTop)
            for _step in range(MOTION_STEPS if motion else STEPS):
                await pilot.press("right")
                await wait_until(pilot, lambda: not top.moving, "the move shown to its end")
                await pilot.pause()
    return shown


@pytest.mark.long
async def test_the_table_top_painted_by_region_is_the_picture_the_whole_canvas_painted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Thirty moves (twelve with the moves' motion frames) of two recorded games (the 2022 edition's
    tokens, the 1980 edition's points and hands) watched at 100×30, 80×24, 120×40 (big cards), 56×30
    (seats in rows above the pile) and 90×28, in English, German, Vietnamese, Nepali and Galician, in
    a dark, a light, a colourless and a coloured theme: every picture the table top shows is, cell for
    cell (its text and each cell's style), the one the table top painted as a single canvas before it
    was painted by region (recorded from that code in tests/data/tabletop_pictures.json)."""
    recorded: dict[str, list[str]] = {} if RECORDING else json.loads(PICTURES.read_text())
    for case in CASES:
        shown = await pictures_of(case, monkeypatch)
        assert len(shown) > MOTION_STEPS, case_name(case)
        if RECORDING:
            recorded[case_name(case)] = shown
        else:
            expected = recorded[case_name(case)]
            first_wrong = next((i for i, (a, b) in enumerate(zip(shown, expected, strict=False)) if a != b), None)
            assert first_wrong is None and len(shown) == len(expected), (case_name(case), first_wrong)
    if RECORDING:
        PICTURES.write_text(json.dumps(recorded, indent=0) + "\n")


def region_renders() -> int:
    """The regions painted so far in this process (each region's cache misses)."""
    from ono99_tui.tui import tabletop

    return sum(paint.cache_info().misses
               for paint in (tabletop._tile, tabletop._pile, tabletop._total, tabletop._bottom_line, tabletop._waiting))


async def test_a_move_paints_only_the_regions_it_changed_and_joins_only_their_lines() -> None:
    """Twenty moves of a replay watched at 100×30 (a fresh process's caches): a move paints again
    only the seat tiles whose seat changed (its turn, its cards, its marks), and each line whose
    regions are all as they were is the very line drawn before, not joined again."""
    from ono99_tui.tui import tabletop

    for cached in (tabletop._tile, tabletop._pile, tabletop._total, tabletop._bottom_line, tabletop._waiting):
        cached.cache_clear()
    tabletop.PICTURES.kept.clear()
    app = make_replay_app(load_replay(DATA / "sample_2022.jsonl"))
    app.animation_level = "none"
    kept_lines = 0
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        top = app.screen.query_one(TableTop)
        for _step in range(20):
            scene, picture, tiles = top.scene, top._picture, tabletop._tile.cache_info().misses
            assert scene is not None and picture is not None
            await pilot.press("right")
            await pilot.pause()
            now = top._picture
            assert top.scene is not None and now is not None and now is not picture
            others = [seat for seat in range(len(scene.seats)) if seat != scene.bottom]
            changed = [seat for seat in others if scene.seats[seat] != top.scene.seats[seat]]
            assert tabletop._tile.cache_info().misses - tiles <= len(changed), (changed, _step)
            for y, (before, after) in enumerate(zip(picture.pieces, now.pieces, strict=True)):
                if len(before) == len(after) and all(a[0] == b[0] and a[1] is b[1]
                                                     for a, b in zip(before, after, strict=True)):
                    assert now.rows[y] is picture.rows[y], y
                    kept_lines += 1
    assert kept_lines >= 5  # a move changes the turn (the seats' lines), the pile and the total: few lines kept


async def test_two_apps_at_one_table_in_one_process_paint_each_region_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two apps of one process (two sessions of a front) watch the same replay at the same size,
    language and theme, both running, ten moves each in turn: the second app's table top takes each
    move's picture the first painted, joining no line and painting no region again, and shows the
    same lines."""
    joins = [0]
    painting = [False]
    join = Strip.join

    def counted_join(strips: Any, *args: Any, **kwargs: Any) -> Strip:
        if painting[0]:
            joins[0] += 1
        return join(strips, *args, **kwargs)

    monkeypatch.setattr(Strip, "join", staticmethod(counted_join))
    paint = TableTop._paint

    def painted(self: TableTop, *args: Any) -> Any:
        painting[0] = True
        try:
            return paint(self, *args)
        finally:
            painting[0] = False

    monkeypatch.setattr(TableTop, "_paint", painted)
    first: ReplayApp = make_replay_app(load_replay(DATA / "sample_2022.jsonl"))
    second: ReplayApp = make_replay_app(load_replay(DATA / "sample_2022.jsonl"))
    for app in (first, second):
        app.animation_level = "none"
    async with first.run_test(size=(100, 30)) as one, second.run_test(size=(100, 30)) as two:
        await one.pause()
        await two.pause()
        tops = [first.screen.query_one(TableTop), second.screen.query_one(TableTop)]
        for step in range(10):
            await one.press("right")
            await one.pause()
            joins[0], renders = 0, region_renders()
            await two.press("right")
            await two.pause()
            assert (joins[0], region_renders() - renders) == (0, 0), step
            assert tops[1]._strips == tops[0]._strips
