"""The browser page on a phone: headless Chromium (Debian's, driven by Playwright) with a phone's
viewport (390×844 CSS pixels, touch, a mobile browser's scaling) opens an invite link, and the page
sizes the terminal to the screen with a readable font; the app lays the table out for the portrait
terminal; a tap on a card plays it and a tap on a footer key presses it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import tempfile
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

from ono99_kernel.wire.requests import Start
from ono99_tui.tui.help import HelpScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from ono99_tui.tui.widgets import CardWidget, KeysFooter
from tests.server_helpers import play
from tests.test_ssh import key_for_turn
from tests.test_web import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WebRig,
    _played,
    cell_point,
    paste,
    plays_seen,
    private_table,
    rig,  # noqa: F401  (the fixture: a game server and its web front)
    until,
    until_on_page,
)

PHONE: Any = {"width": 390, "height": 844}  # Playwright's ViewportSize
READABLE = 14  # CSS pixels: the smallest font the page may use
PHONE_SCREENSHOT_ENV = "ONO99_PHONE_SCREENSHOT"  # where to save a picture of the phone's table


@contextlib.asynccontextmanager
async def phone() -> AsyncIterator[Any]:
    """Chromium as a phone: its viewport, touch, and the pixel ratio and scaling of a mobile browser."""
    from playwright.async_api import async_playwright

    assert shutil.which(CHROMIUM), "the tests need Debian's chromium package (apt-get install chromium)"
    with tempfile.TemporaryDirectory(prefix="ono99-phone-") as profile:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, ignore_https_errors=True,
                viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=3)
            try:
                yield browser
            finally:
                await browser.close()


async def tap_cell(page: Any, column: float, row: float) -> None:
    """A tap of a finger at a cell of the terminal."""
    await page.touchscreen.tap(*await cell_point(page, column, row))


async def test_a_phone_sees_the_table_in_a_readable_font_and_plays_a_card_and_a_key_by_touch(rig: WebRig) -> None:  # noqa: F811
    """A phone opens the invite link: the terminal fills the screen's width at a font of at least
    14 CSS pixels (36 to 50 columns, the rows of the screen's height), the app is laid out at that size,
    the table shows every seat, the pile, the total and the whole hand; the player's turn comes and a
    tap on the card to play plays it (the host, a TCP client, sees the move); a tap on the footer's
    ? opens the help."""
    host = await rig.host()
    _table, code = await private_table(host)
    async with phone() as browser:
        page = browser.pages[0] if browser.pages else await browser.new_page()
        await page.goto(f"{rig.url}/t/{code}")
        await until_on_page(page, "name", "the name screen")
        font, cols, rows, width, screen = await page.evaluate("""() => {
            const term = window.ono99Terminal;
            const r = document.querySelector(".xterm-screen").getBoundingClientRect();
            const canvas = document.querySelector(".xterm-screen canvas");
            const drawn = canvas ? canvas.getBoundingClientRect() : r;
            return [term.options.fontSize, term.cols, term.rows, window.innerWidth,
                    [r.left, r.top, r.right, r.bottom, drawn.right, drawn.bottom]];
        }""")
        assert width == PHONE["width"], "the page is not scaled as a desktop page on a phone"
        assert font >= READABLE, font
        assert 36 <= cols <= 50 and rows >= 30, (cols, rows)
        # the terminal's cells, as drawn, are on the screen: none beyond its right or bottom edge
        assert screen[0] >= 0 and screen[1] >= 0 and max(screen[2], screen[4]) <= PHONE["width"] and \
            max(screen[3], screen[5]) <= PHONE["height"], screen
        assert (screen[3] - screen[1]) / rows >= READABLE, "a line of the terminal is shorter than the font"
        await paste(page, "Wren")
        await page.keyboard.press("Enter")
        await host.expect("table", where=lambda m: any(s["name"] == "Wren" for s in m["table"]["seats"]))
        session = await rig.session_playing("Wren")
        await until(lambda: session.app is not None and isinstance(session.app.screen, TableScreen), "the table")
        app = session.app
        assert app is not None and app.model.table is not None
        assert tuple(app.size) == (cols, rows)
        seat = app.model.table.you
        assert seat is not None
        await host.send(Start())
        hosting = asyncio.create_task(play(host, random.Random(7)))
        try:
            await until(lambda: key_for_turn(app) is not None, "Wren's turn")
            screen = app.screen
            top = screen.query_one(TableTop)
            assert top.cut == [] and all(app.model.plain_name(s) in top.text() for s in range(3)), top.text()
            cards = [card for card in screen.query(CardWidget) if card.display]
            await until(lambda: all(card.region.width > 0 for card in cards), "the cards laid out")
            for card in cards:
                assert screen.region.contains_region(card.region), (card.region, screen.region)
            # what the page draws is the terminal's text at the page's scale: the DOM renderer's rows
            # (WebGL drew a phone's text three times too big, the table off the screen)
            await until_on_page(page, "TOTAL", "the table on the page")
            drawn = await page.inner_text(".xterm-rows")
            assert "TOTAL" in drawn and "Wren" in drawn, drawn
            key = key_for_turn(app)
            assert key is not None
            if key.isdigit():
                place = cards[int(key) - 1].region
                await tap_cell(page, place.x + place.width / 2, place.y + place.height / 2)
            else:  # the four-card discard or a draw has no card to tap
                await page.keyboard.press(key)
            await until(lambda: _played(host, seat), "the host seeing Wren's move")
            if os.environ.get(PHONE_SCREENSHOT_ENV):  # screenshots/make_screenshots.py's picture of a phone
                await asyncio.sleep(0.5)
                await page.screenshot(path=os.environ[PHONE_SCREENSHOT_ENV])
            footer = app.screen.query_one(KeysFooter)
            spans = {entry.key: (start, end) for start, end, entry in footer._spans}
            assert "question_mark" in spans, spans
            start, end = spans["question_mark"]
            await tap_cell(page, (start + end) / 2, footer.region.y + 0.5)
            await until(lambda: isinstance(app.screen, HelpScreen), "the help after a tap on ?")
        finally:
            hosting.cancel()
            with contextlib.suppress(BaseException):
                await hosting
    await host.close()


def _played_since(host: Any, seat: int, plays: int) -> bool:
    return plays_seen(host, seat) > plays


def _laid_out(cards: list[CardWidget]) -> bool:
    return all(card.region.width > 0 for card in cards)


async def keyboard_mode(page: Any) -> list[Any]:
    """The terminal's hidden text area: its inputmode (``none``: no soft keyboard) and whether it has the focus."""
    result: list[Any] = await page.evaluate("""() => {
        const area = window.ono99Terminal.textarea;
        return [area.getAttribute("inputmode"), document.activeElement === area];
    }""")
    return result


async def until_keyboard(page: Any, mode: str, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + 30
    while (await keyboard_mode(page))[0] != mode:
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what} (inputmode {mode!r}, "
                                 f"now {(await keyboard_mode(page))[0]!r})")
        await asyncio.sleep(0.05)


async def test_a_phone_opens_its_soft_keyboard_only_for_names_and_chat(rig: WebRig) -> None:  # noqa: F811
    """A phone opens the invite link: on the name screen (a text box) the terminal's text area takes
    text (inputmode text); at the table it does not (inputmode none), and a tap on a card that plays
    it leaves the text area focused but still without a keyboard; a tap on the footer's c (chat)
    makes it take text again, a tap on the footer's Esc (back to the cards) takes it away. Before,
    the text area was always a text box: every tap on a card or key brought up the keyboard."""
    host = await rig.host()
    _table, code = await private_table(host)
    async with phone() as browser:
        page = browser.pages[0] if browser.pages else await browser.new_page()
        await page.goto(f"{rig.url}/t/{code}")
        await until_on_page(page, "name", "the name screen")
        await until_keyboard(page, "text", "a keyboard for the name")
        await paste(page, "Wren")
        await page.keyboard.press("Enter")
        session = await rig.session_playing("Wren")
        await until(lambda: session.app is not None and isinstance(session.app.screen, TableScreen), "the table")
        app = session.app
        assert app is not None and app.model.table is not None
        await until_keyboard(page, "none", "no keyboard at the table")
        seat = app.model.table.you
        assert seat is not None
        await host.send(Start())
        hosting = asyncio.create_task(play(host, random.Random(7)))
        try:
            tapped = False
            while not tapped:  # a turn with a card to tap (a draw or the four-card discard has none)
                await until(lambda: key_for_turn(app) is not None, "Wren's turn")
                key = key_for_turn(app)
                assert key is not None
                plays = plays_seen(host, seat)
                if key.isdigit():
                    cards = [card for card in app.screen.query(CardWidget) if card.display]
                    await until(partial(_laid_out, cards), "the cards laid out")
                    place = cards[int(key) - 1].region
                    await tap_cell(page, place.x + place.width / 2, place.y + place.height / 2)
                    tapped = True
                else:
                    await page.keyboard.press(key)
                await until(partial(_played_since, host, seat, plays), "the host seeing Wren's move")
            assert await keyboard_mode(page) == ["none", True], "a tap on a card brought up the keyboard"
            footer = app.screen.query_one(KeysFooter)
            spans = {entry.key: (start, end) for start, end, entry in footer._spans}
            start, end = spans["c"]
            await tap_cell(page, (start + end) / 2, footer.region.y + 0.5)
            await until_keyboard(page, "text", "a keyboard for the chat")
            assert app.focused is not None and app.focused.id == "chat-input"
            footer = app.screen.query_one(KeysFooter)
            await until(lambda: any(entry.key == "escape" for _s, _e, entry in footer._spans), "Esc in the footer")
            spans = {entry.key: (start, end) for start, end, entry in footer._spans}
            start, end = spans["escape"]
            await tap_cell(page, (start + end) / 2, footer.region.y + 0.5)
            await until_keyboard(page, "none", "no keyboard back at the cards")
        finally:
            hosting.cancel()
            with contextlib.suppress(BaseException):
                await hosting
    await host.close()
