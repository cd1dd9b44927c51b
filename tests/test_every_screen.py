"""Every screen and dialog of the app at 80×24, in each of its six languages, as a player reaches
them: a local game (the first-run hint, the table with action cards and a card that cannot be played,
the help from top to bottom, the settings and their lists, the new-game dialog of both editions, the
seat menu, the questions before leaving, the knock-out summary, the game-over dialog, a 1980 points
match with manual draw), a server (a lobby listing another player's table, the new-table, invite and
play-now dialogs, a table as its host and as a guest, both game-over dialogs, the leaderboard with the
bots' rows, a profile with its tournaments and one's standings, an arena's standings, the name and
replaced dialogs, a server that cannot be reached) and a replay.

Each screen fails the test when it shows an English word of the game's messages that its language
does not use (for English: never), a label cut short (a button or text clipped by its dialog or the
screen, an ellipsis the text does not have, a footer key left out), or a Devanagari vowel sign
cut from its letter by a dialog's border."""

from __future__ import annotations

import asyncio
import functools
import random
import re
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from rich.cells import cell_len
from textual.app import App
from textual.containers import ScrollableContainer, VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Label, Markdown, Select, Static
from textual.widgets._select import SelectOverlay

from ono99_kernel.wire.requests import CreateArena, CreateTable, Leave, Spectate, Start
from ono99_tui import i18n
from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.local_game import open_local_game
from ono99_tui.reasons import render
from ono99_tui.tui.app import Ono99App, ReplacedScreen, StartScreen, make_app
from ono99_tui.tui.arena import ArenaResultsScreen, ArenaScreen, PrivateArenaScreen
from ono99_tui.tui.game_over import GameOverScreen, KnockOutScreen
from ono99_tui.tui.help import HelpScreen, HintScreen
from ono99_tui.tui.lobby import InviteScreen, LeaderboardScreen, LobbyScreen
from ono99_tui.tui.names import NameScreen
from ono99_tui.tui.new_game import NewGameScreen
from ono99_tui.tui.playnow import QueueScreen
from ono99_tui.tui.profile import ProfileScreen
from ono99_tui.tui.replay import load_replay, make_replay_app
from ono99_tui.tui.seats import ConfirmScreen, SeatMenuScreen
from ono99_tui.tui.settings import Settings
from ono99_tui.tui.settings_screen import SettingsScreen
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.themes import THEME_FAMILIES, THEME_NAMES
from ono99_tui.tui.widgets import KeysFooter
from tests.server_helpers import FAST_PLAY, free_port, new_identity, play, running_server
from tests.test_arena_profile import played_two_arenas
from tests.test_i18n import cut_texts
from tests.test_tui import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "ono99_tui" / "locale"
DATA = Path(__file__).parent / "data"
WORD = re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]+(?:'[A-Za-z]+)*")  # Latin (and Vietnamese) words
# Textual's own words that reach a screen unless the app gives them its player's language or hides them
TEXTUAL_WORDS = {"dismiss", "menu", "palette", "search", "commands", "matches", "found", "screenshot", "keys",
                 "theme", "quit", "textual", "dark", "light", "maximize", "minimize", "press", "app"}
with (LOCALE / "ono99.pot").open("rb") as _template:
    MESSAGES = {message.id for message in read_po(_template) if message.id}
# names: the players' in these tests, the languages' own, the themes' makers' (Nord; "dark" is a message)
NAMES = {"ada", "bob", "cy"} | {word.casefold() for text in [*LANGUAGES.values(), *THEME_FAMILIES.values(),
                                                             *THEME_NAMES.values()]
                                  if text not in MESSAGES for word in WORD.findall(text)}
FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/=]+")
DEVANAGARI_SIGN = re.compile(r"(?<![\u0900-\u0963\u0971-\u097f])[\u093a-\u094d\u0951-\u0957\u0962\u0963]")
# Deals of the games played here (the server draws a seed per game; these make each game the same every
# run): the player's first hand holds a Play 2, a Reverse and an ONO 99, and they are knocked out before the
# end; the 1980 match deals them a Hold and a Double Play.
SEEDS = {"2022": [84, 85, 86], "1980": [5, 6, 7]}


@functools.cache  # read once per language: every walk and every look of a test process asks again
def catalog_words(language: str) -> frozenset[str]:
    """The words of a language's messages as they are shown (for English, the messages themselves)."""
    path = LOCALE / "ono99.pot" if language == "en" else LOCALE / language / "LC_MESSAGES" / "ono99.po"
    with path.open("rb") as f:
        catalog = read_po(f)
    words: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        texts = message.id if language == "en" else message.string
        for text in texts if isinstance(texts, tuple | list) else [texts]:
            words |= {word.casefold() for word in WORD.findall(re.sub(r"\{[^{}]*\}", " ", text or ""))}
    return frozenset(words)


ENGLISH = catalog_words("en") | TEXTUAL_WORDS


@functools.cache
def ellipses(language: str) -> frozenset[str]:
    """The words with an ellipsis the language's messages write themselves ("Connecting…")."""
    path = LOCALE / ("ono99.pot" if language == "en" else f"{language}/LC_MESSAGES/ono99.po")
    text = path.read_text(encoding="utf-8")
    return frozenset(match.casefold() for match in re.findall(r"[^\s\"]*…", text))


def screen_lines(app: App[Any]) -> list[str]:
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


def visible_region(widget: Widget) -> Region | None:
    """Where the screen shows the widget: its region cut by its containers (None when not shown)."""
    geometry = widget.screen._compositor.full_map.get(widget)
    return None if geometry is None else geometry.region.intersection(geometry.clip)


def scrolls(widget: Widget) -> bool:
    """Whether a container of the widget scrolls (what it cuts off can be scrolled to)."""
    return any(isinstance(node, ScrollableContainer | Markdown | DataTable) for node in widget.ancestors_with_self)


def cut_labels(app: App[Any], lines: list[str], language: str) -> list[str]:
    """What the screen cuts short: a button's label not shown whole, a text clipped by its dialog or the
    screen, a word ended with an ellipsis it does not have, a footer key left out."""
    problems: list[str] = []
    screen = app.screen
    lists = [overlay.region for overlay in screen.query(SelectOverlay) if overlay.display]  # an open list
    for widget in screen.query("*"):
        if not widget.display or not widget.visible or widget.region.area == 0:
            continue
        if not isinstance(widget, SelectOverlay) and any(widget.region.overlaps(over) for over in lists):
            continue  # under the list
        if isinstance(widget, KeysFooter):
            entries, _palette = widget._read_bindings()
            widget.render()
            shown = {entry.key for _start, _end, entry in widget._spans}
            problems += [f"footer leaves out {entry.description!r}" for entry in entries if entry.key not in shown]
            continue
        if not isinstance(widget, Button | Label | Static) or scrolls(widget):
            continue
        seen = visible_region(widget)
        if seen is None:
            continue
        if isinstance(widget, Button):
            label = widget.label if isinstance(widget.label, str) else widget.label.plain
            if cell_len(label) > widget.content_region.width:
                problems.append(f"button {label!r} in {widget.content_region.width} cells")
            row = widget.content_region.y + widget.content_region.height // 2
            if not seen.contains(widget.content_region.x, row) or \
                    label.strip() not in crop(lines[row], seen.x, seen.right):
                problems.append(f"button {label!r} not shown whole")
            continue
        if seen != widget.region:  # clipped: anything drawn where it cannot be seen is cut
            drawn = widget.render_lines(Region(0, 0, widget.region.width, widget.region.height))
            for y, strip in enumerate(drawn):
                hidden = [c for x, c in enumerate(strip.text)
                          if c.strip() and not seen.contains(widget.region.x + x, widget.region.y + y)]
                if hidden:
                    problems.append(f"{widget.id or type(widget).__name__} cut: {strip.text.strip()!r}")
                    break
    allowed = ellipses(language)
    for line in lines:
        for word in re.findall(r"\S*…", line):
            if word.casefold().strip("()[]") not in allowed and word != "…":
                problems.append(f"cut with an ellipsis: {word!r} in {line.strip()!r}")
    return problems


def crop(line: str, start: int, end: int) -> str:
    """The characters of a screen line between two cells."""
    out, x = [], 0
    for char in line:
        if start <= x < end:
            out.append(char)
        x += cell_len(char)
    return "".join(out)


def own_text(app: App[Any], lines: list[str]) -> list[str]:
    """The screen's own text: a dialog's without what shows of the screen under it, and without what
    shows of the widgets under an open list (both are cut at random places)."""
    screen = app.screen
    lists = [overlay for overlay in screen.query(SelectOverlay) if overlay.display]
    for widget in screen.query("*"):
        region = visible_region(widget)
        if region is None or isinstance(widget, SelectOverlay) or any(widget in lst.ancestors for lst in lists):
            continue
        for over in lists:
            if region.overlaps(over.region) and not any(isinstance(c, SelectOverlay) for c in widget.walk_children()):
                lines = blank(lines, region, keep=over.region)
    if not isinstance(screen, ModalScreen):
        return lines
    regions = [visible_region(child) for child in screen.children if child.display]
    return [crop(line, region.x, region.right) for region in regions if region is not None
            for line in lines[region.y:region.bottom]]


def blank(lines: list[str], region: Region, keep: Region) -> list[str]:
    """The lines with the cells of ``region`` made spaces, but those of ``keep``."""
    out = list(lines)
    for y in range(region.y, min(region.bottom, len(lines))):
        line = lines[y]
        cells: dict[int, str] = {}  # what each cell starts with: crop(line, x, x + 1), in one pass
        width = 0
        for char in line:
            cells[width] = cells.get(width, "") + char
            width += cell_len(char)
        out[y] = "".join(" " if region.contains(x, y) and not keep.contains(x, y) else cells.get(x, "")
                         for x in range(width))
    return out


def english_left(lines: list[str], language: str, own: frozenset[str]) -> list[str]:
    if language == "en":
        return []
    # a certificate's fingerprint is random letters, not words ("…8Me6l…" once read as English "Me")
    words = {word for line in lines for word in WORD.findall(FINGERPRINT.sub(" ", line))}
    return sorted(w for w in words if w.casefold() in ENGLISH and w.casefold() not in own
                  and w.casefold() not in NAMES and len(w) > 1)


class Walk:
    """Goes through the screens of an app in one language and keeps what is wrong on each."""

    def __init__(self, app: App[Any], pilot: Pilot[Any], language: str) -> None:
        self.app, self.pilot, self.language = app, pilot, language
        self.own = catalog_words(language)
        self.problems: dict[str, list[str]] = {}
        self.seen: list[str] = []

    async def look(self, name: str) -> None:
        await self.pilot.pause(0.05)
        await self.pilot.pause()
        lines = screen_lines(self.app)
        found = [f"English: {word}" for word in english_left(own_text(self.app, lines), self.language, self.own)]
        found += cut_labels(self.app, lines, self.language) + cut_texts(self.app.screen)
        found += [f"a vowel sign without its letter: {line.strip()!r}" for line in lines
                  if DEVANAGARI_SIGN.search(line)]
        self.seen.append(name)
        if found:
            self.problems[name] = [*found, "screen:", *lines]

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        await wait_until(self.pilot, condition, what)

    async def press(self, *keys: str) -> None:
        await self.pilot.press(*keys)
        await self.pilot.pause()

    async def screen(self, kind: type, *keys: str) -> None:
        """Press ``keys`` and wait for a screen of ``kind``."""
        await self.press(*keys)
        await self.until(lambda: isinstance(self.app.screen, kind), kind.__name__)

    def report(self) -> str:
        return "\n".join(f"--- {name}:\n" + "\n".join(problems) for name, problems in self.problems.items())


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Deals the next games of an edition from ``SEEDS`` (the server's ``secrets.randbits`` for a seed)."""
    import secrets

    from ono99_server import table_room as server_table

    def deal(edition: str) -> None:
        seeds: Iterator[int] = iter(SEEDS[edition])
        fake = types.SimpleNamespace(choice=secrets.choice, randbits=lambda bits: next(seeds))
        monkeypatch.setattr(server_table, "secrets", fake)

    return deal


async def play_turn(walk: Walk, app: Ono99App) -> None:
    """Play the first legal card (or discard four, or draw) of the reader's hand with its key."""
    view = app.model.view
    assert view is not None
    before = view.version
    if "draw" in view.legal:
        await walk.press("d")
    else:
        index = next((i for i, code in enumerate(view.hand) if code in view.legal), None)
        await walk.press("f" if index is None else str(index + 1))
    await walk.until(lambda: app.model.view is not None and app.model.view.version != before, "the move taken")


async def play_on(walk: Walk, app: Ono99App, done: Callable[[], bool], *, knocked_out: list[bool]) -> None:
    """Play the reader's turns until ``done()``, looking at the knock-out summary when it comes; fail
    when the game did not move for PATIENCE seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    version = None
    while not done():
        if app.model.view is not None and app.model.view.version != version:
            version, end = app.model.view.version, loop.time() + PATIENCE
        view = app.model.view
        assert loop.time() < end, (f"the game stopped moving: screen {type(app.screen).__name__}, turn "
                                   f"{view and view.turn}, seat {view and view.seat}, legal {view and view.legal}")
        if isinstance(app.screen, KnockOutScreen):
            await walk.look("the knock-out summary")
            knocked_out.append(True)
            await close_the_summary(walk)
        elif app.model.view is not None and isinstance(app.screen, TableScreen) and \
                (app.model.my_turn or app.model.can_draw):
            await play_turn(walk, app)
        else:
            await walk.pilot.pause(0.02)


async def close_the_summary(walk: Walk) -> None:
    """The knock-out summary closed as Enter does, if it is still shown: the game's end can replace it
    while it is looked at, and an Enter meant for it would then press the game-over dialog's first
    button (a player is kept from that by the key guard of dialogs that open by themselves, which is
    off in the tests: conftest.py)."""
    screen = walk.app.screen
    if isinstance(screen, KnockOutScreen):
        screen.dismiss()
    await walk.pilot.pause()


def game_over(app: Ono99App) -> bool:
    return app.model.view is not None and app.model.view.winner is not None and isinstance(app.screen,
                                                                                         GameOverScreen)


async def look_at_the_help(walk: Walk) -> None:
    """The help from its first line to its last, a page at a time."""
    await walk.screen(HelpScreen, "question_mark")
    scroller = walk.app.screen.query_one("#help")
    page = 0
    while True:
        await walk.look(f"the help, page {page + 1}")
        if scroller.scroll_y >= scroller.max_scroll_y:
            break
        scroller.scroll_page_down(animate=False)  # what PageDown does, without its animation
        page += 1
    await walk.press("escape")


async def look_at_the_lists(walk: Walk, name: str, ids: list[str]) -> None:
    """Each list of a dialog opened, then closed again."""
    for select_id in ids:
        select = walk.app.screen.query_one(f"#{select_id}", Select)
        select.focus()
        await walk.pilot.pause()
        select.expanded = True
        await walk.look(f"{name}: the list {select_id} open")
        await walk.press("escape")


async def look_further_down(walk: Walk, name: str, tabs: int) -> None:
    """Every choice of a dialog, Tab by Tab, looked at each time its choices scroll."""
    fields = walk.app.screen.query_one("#fields", VerticalScroll)
    seen = {fields.scroll_y}
    for _ in range(tabs):
        await walk.press("tab")
        await walk.pilot.pause(0.05)  # the choices scroll to the one focused
        if fields.scroll_y not in seen:
            seen.add(fields.scroll_y)
            await walk.look(f"{name}, further down")
    assert fields.max_scroll_y in seen, "the last choices were not reached"


async def walk_the_local_game(walk: Walk, app: Ono99App, seeded: Callable[[str], None]) -> None:
    await walk.until(lambda: isinstance(app.screen, HintScreen), "the first-run hint")
    await walk.look("the first-run hint")
    await walk.press("enter")
    await walk.until(lambda: isinstance(app.screen, TableScreen) and app.model.my_turn, "the reader's turn")
    await walk.look("the table on the reader's turn")
    view = app.model.view
    assert view is not None and {"REV", "PLAY2", "ONO99"} <= set(view.hand), view
    blocked = view.hand.index("ONO99")
    for _ in range(blocked):
        await walk.press("right")
    await walk.press("enter")
    await walk.look("the table saying why a card cannot be played")
    await walk.press(str(view.hand.index("PLAY2") + 1))
    await look_at_the_help(walk)
    await walk.screen(SettingsScreen, "f2")
    await walk.look("the settings")
    await look_at_the_lists(walk, "the settings", ["theme", "language"])
    await walk.press("escape")
    await walk.screen(NewGameScreen, "n")
    await walk.look("the new-game dialog")
    await look_at_the_lists(walk, "the new-game dialog", ["edition", "seats", "bot_level"])
    screen = app.screen
    screen.query_one("#edition", Select).value = "1980"
    screen.query_one("#scoring", Select).value = "points"
    await walk.look("the new-game dialog, 1980 points")
    await look_further_down(walk, "the new-game dialog", tabs=12)
    await walk.press("escape")
    await walk.screen(SeatMenuScreen, "m")
    await walk.look("the seat menu")
    await walk.press("escape")
    for key, what in (("l", "going to the lobby"), ("q", "quitting"), ("u", "standing up")):
        await walk.screen(ConfirmScreen, key)
        await walk.look(f"the question before {what}")
        await walk.press("escape")
    await walk.press("ctrl+c")
    await walk.look("what Ctrl+C says")
    knocked_out: list[bool] = []
    await play_on(walk, app, lambda: game_over(app), knocked_out=knocked_out)
    assert knocked_out, "the reader was not knocked out"
    await walk.look("the game-over dialog")
    await walk.press("escape")
    await walk.look("the table after the game")
    seeded("1980")
    match = CreateTable(edition="1980", seats=3, bots=2, bot_level="casual",
                        options={"scoring": "points", "manual_draw": True}, turn_seconds=0, start=True,
                        name="Local game", replace_bots=True)
    app.first_table = match
    await walk.screen(LobbyScreen, "l")  # the lobby of a local game, then a 1980 match from it
    await walk.look("the local game's lobby")
    app.send_message(match)
    await walk.until(lambda: isinstance(app.screen, TableScreen) and app.model.view is not None
                     and app.model.view.edition == "1980", "the 1980 match")
    await walk.look("a 1980 points match")
    faces: set[str] = set()
    banners: set[str] = set()
    while not game_over(app):
        view = app.model.view
        assert view is not None
        dealt = {"HOLD", "DOUBLE"} & set(view.hand) - faces  # the faces of the 1980 edition's own cards
        if dealt and isinstance(app.screen, TableScreen):
            faces |= dealt
            await walk.look(f"a 1980 hand with {' and '.join(sorted(dealt))}")
        banner = re.sub(r"\d+", "#", str(app.screen.query_one("#banner", Static).render())) \
            if isinstance(app.screen, TableScreen) else ""
        if app.model.can_draw and banner not in banners:  # each kind of news once (a duty, a draw; any seconds)
            banners.add(banner)
            await walk.look("a 1980 match with a draw open")
        if isinstance(app.screen, KnockOutScreen):
            await walk.look("the summary of a hand dropped out of")
            await close_the_summary(walk)
        elif isinstance(app.screen, TableScreen) and (app.model.my_turn or app.model.can_draw):
            await play_turn(walk, app)
        else:
            await walk.pilot.pause(0.02)
    assert {"HOLD", "DOUBLE"} <= faces, faces
    await walk.look("the end of a 1980 match")


@pytest.mark.long
@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_every_screen_of_a_local_game(language: str, seeded: Callable[[str], None]) -> None:
    seeded("2022")
    app = make_app(local=True, name="Ada", bot_delay=0, local_game=open_local_game, settings=Settings(),
                   draw_window=PATIENCE)
    with using(language):
        async with app.run_test(size=(80, 24)) as pilot:
            walk = Walk(app, pilot, language)
            await walk_the_local_game(walk, app, seeded)
    assert walk.problems == {}, walk.report()


def row_of(app: Ono99App, name: str) -> int:
    """The lobby list's row of the table called ``name`` (by the server)."""
    table_id = next(t.id for t in app.model.tables if t.name == name)
    grid = app.screen.query_one(DataTable)
    return grid.get_row_index(str(table_id))


async def walk_a_server(walk: Walk, app: Ono99App, harness: Any, bob: Any) -> None:
    await walk.until(lambda: isinstance(app.screen, LobbyScreen) and any(t.name == "Bob's table"
                                                                         for t in app.model.tables), "the lobby")
    await walk.look("the lobby with another player's table")
    for kind, key in ((LeaderboardScreen, "b"), (ProfileScreen, "v"), (InviteScreen, "i"), (QueueScreen, "p")):
        await walk.screen(kind, key)
        await walk.look(f"the {kind.__name__} of the lobby")
        await walk.press("escape")
        await walk.until(lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
    await walk.screen(NewGameScreen, "n")
    await walk.look("the new-table dialog")
    await look_at_the_lists(walk, "the new-table dialog", ["bots", "bot_level"])
    await look_further_down(walk, "the new-table dialog", tabs=14)
    await walk.press("escape")
    # a guest at Bob's table: its seat menu, the game, the guest's game-over dialog
    app.screen.query_one(DataTable).move_cursor(row=row_of(app, "Bob's table"))
    await walk.screen(TableScreen, "j")
    await walk.until(lambda: app.model.table is not None and app.model.table.you is not None, "a seat")
    await walk.look("a guest at another player's table")
    await walk.screen(SeatMenuScreen, "m")
    await walk.look("the seat menu of a guest")
    await walk.press("escape")
    bob_plays = asyncio.create_task(play(bob, random.Random(1)))
    await bob.send(Start())
    knocked_out: list[bool] = []
    await play_on(walk, app, lambda: game_over(app), knocked_out=knocked_out)
    await walk.look("the game-over dialog of a guest")
    await bob_plays
    await walk.press("escape")
    await walk.screen(LobbyScreen, "l")
    # the host of a table of one's own
    await walk.screen(NewGameScreen, "n")
    await walk.press("enter")
    await walk.until(lambda: isinstance(app.screen, TableScreen) and app.model.table is not None, "one's own table")
    await walk.look("one's own table, waiting")
    assert app.model.table is not None
    await bob.send(Spectate(table=app.model.table.id))
    await walk.until(lambda: app.model.table is not None and "Bob" in app.model.table.watchers, "Bob watching")
    await walk.screen(SeatMenuScreen, "m")
    await walk.look("the seat menu of the host")
    await walk.press("escape")
    await walk.press("s")
    await play_on(walk, app, lambda: game_over(app), knocked_out=knocked_out)
    await walk.look("the game-over dialog of the host")
    await walk.press("escape")
    await walk.screen(LobbyScreen, "l")
    # watching a game
    await bob.send(CreateTable(edition="1980", seats=3, bots=2, turn_seconds=0, options={"scoring": "points"}))
    await walk.until(lambda: any(t.name == "Bob's table" and t.edition == "1980" for t in app.model.tables),
                     "Bob's 1980 table")
    watched = next(t.id for t in app.model.tables if t.name == "Bob's table" and t.edition == "1980")
    app.screen.query_one(DataTable).move_cursor(row=app.screen.query_one(DataTable).get_row_index(str(watched)))
    await walk.screen(TableScreen, "s")
    await bob.send(Start())
    await walk.until(lambda: app.model.view is not None and app.model.view.seat is None, "a spectator's view")
    await walk.look("watching another player's 1980 match")
    await walk.screen(LobbyScreen, "l")
    await walk.screen(LeaderboardScreen, "b")
    await walk.until(lambda: bool(app.model.leaderboard_bots), "the bots' ratings")
    await walk.look("the leaderboard after games")
    await walk.press("escape")
    await walk.screen(ProfileScreen, "v")
    await walk.until(lambda: app.model.profile is not None, "the profile")
    tournaments = app.screen.query_one("#profile-arenas", DataTable)
    await walk.until(lambda: tournaments.row_count == 2, "the profile's tournaments")
    await walk.look("one's profile after games, with its tournaments")
    tournaments.focus()
    await walk.screen(ArenaResultsScreen, "enter")
    standings = app.screen.query_one("#arena-results-standings")
    await walk.until(lambda: str(standings.render()).startswith("1. "), "a tournament's standings")
    await walk.look("a tournament's standings, from the profile")
    await walk.press("escape")
    await walk.press("escape")
    # an arena an operator opens: its line in the lobby, joined with a, its standings and the wait
    await bob.send(CreateArena(minutes=60, seats=2, name="Cy"))
    await walk.until(lambda: isinstance(app.screen, LobbyScreen) and bool(app.model.arenas), "the arena listed")
    await walk.look("the lobby with an arena")
    await walk.screen(ArenaScreen, "a")
    await walk.until(lambda: app.model.arena is not None and app.model.arena.joined, "in the arena")
    await walk.look("the arena's standings and the wait for the next game")
    await walk.press("escape")
    # a private arena among friends: its dialog, then one's own (open since the tournaments above: the
    # dialog takes her back to it), whose standings show its invite code
    await walk.screen(PrivateArenaScreen, "A")
    await walk.look("the private arena dialog")
    await walk.pilot.click("#arena-open")
    await walk.until(lambda: isinstance(app.screen, ArenaScreen) and app.model.arena is not None
                     and app.model.arena.joined and bool(app.model.arena.code), "in one's own private arena")
    await walk.look("one's own private arena, with its invite code")
    await walk.press("escape")
    taken = render("name_taken", {"why": "taken", "name": "Ada", "existing": "Ada", "keyed": 0}, "")
    await app.push_screen(NameScreen("Ada", taken))
    await walk.look("the name dialog")
    app.pop_screen()
    await app.push_screen(ReplacedScreen())
    await walk.look("connected again from elsewhere")
    app.pop_screen()


@pytest.mark.long
@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_every_screen_of_a_server(language: str, tmp_path: Path) -> None:
    """Bob is an operator (he opens an arena); Ada played games in two private arenas (as a protocol
    client, before the app opens with her key), which her profile lists."""
    ada_key, bob_key = new_identity(), new_identity()
    admins = tmp_path / "admins"
    admins.write_text(" ".join(bob_key.public_key.split()[:2]) + " bob\n")
    async with running_server(tmp_path, admins=admins, arena_bot_wait=3600.0, arena_starts_in=0.0,
                              **FAST_PLAY) as harness:
        ada, cy, _, _ = await played_two_arenas(harness.server, ada_key, other="Cy", names=("Ada", "Cy"))
        await ada.request(Leave(), "left")  # from the last game's table: the app comes to the lobby
        for client in (ada, cy):
            await client.close()
        bob = await harness.connect("Bob", identity=bob_key)
        await bob.send(CreateTable(edition="2022", seats=3, bots=1, turn_seconds=0))
        app = make_app(local=False, host="127.0.0.1", port=harness.port, name="Ada", identity=ada_key,
                       trust=harness.trust)
        with using(language):
            async with app.run_test(size=(80, 24)) as pilot:
                walk = Walk(app, pilot, language)
                await walk_a_server(walk, app, harness, bob)
    assert walk.problems == {}, walk.report()


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_every_screen_of_the_server_list_and_the_first_visit(language: str) -> None:
    """The servers on the network, and the question a server met for the first time asks (a table's name
    that comes in the advertisement's English words: test_words_of_an_advertisement)."""
    from ono99_tui.known_servers import ServerTrust
    from ono99_tui.tui.servers import ServersScreen
    from tests.test_lan import LOOPBACK, advertised_server, unique_name

    name = unique_name("Qz")  # a name, not a word of any catalog
    async with advertised_server(name):
        app = make_app(local=False, name="Ada", discover=True, browse_interfaces=LOOPBACK, trust=ServerTrust())
        with using(language):
            async with app.run_test(size=(80, 24)) as pilot:
                walk = Walk(app, pilot, language)
                await walk.until(lambda: isinstance(app.screen, ServersScreen), "the server list")
                screen = app.screen
                assert isinstance(screen, ServersScreen)
                await walk.until(lambda: any(found.advert.name == name for found in screen.servers), "the server")
                while (chosen := screen.selected()) is None or chosen.advert.name != name:
                    await walk.press("down")
                await walk.look("the server list")
                await walk.screen(ConfirmScreen, "enter")
                await walk.look("the question of a first visit")
                await walk.press("n")
    assert walk.problems == {}, walk.report()


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_every_screen_of_a_replay_and_of_a_server_that_cannot_be_reached(language: str) -> None:
    with using(language):
        replay = make_replay_app(load_replay(DATA / "sample_1980_points.jsonl"))
        async with replay.run_test(size=(80, 24)) as pilot:
            walk = Walk(replay, pilot, language)
            await walk.until(lambda: isinstance(replay.screen, TableScreen), "the replay")
            await walk.look("a replay at its start")
            await walk.press("right", "right", "right")
            await walk.look("a replay, three steps in")
            await walk.screen(HelpScreen, "question_mark")
            await walk.look("the replay's keys")
            await walk.press("escape")
            await walk.press("end")
            await walk.until(lambda: isinstance(replay.screen, GameOverScreen), "the end of the replay")
            await walk.look("the end of a replay")
        nobody = make_app(local=False, host="127.0.0.1", port=free_port(), name="Ada")
        async with nobody.run_test(size=(80, 24)) as pilot:
            second = Walk(nobody, pilot, language)
            await second.until(lambda: isinstance(nobody.screen, StartScreen) and "q" in screen_text(nobody),
                               "the words for a server nothing answers at")
            await second.look("a server nothing answers at")
    walk.problems.update(second.problems)
    assert walk.problems == {}, walk.report()


def screen_text(app: App[Any]) -> str:
    return "\n".join(screen_lines(app))


def test_every_cards_word_fits_on_the_card_in_every_language() -> None:
    from ono99_kernel.core.cards import CODES
    from ono99_tui.tui.cardface import card_face
    from ono99_tui.tui.widgets import CARD_TEXT_WIDTH

    too_wide = []
    for language in LANGUAGES:
        with using(language):
            for edition in ("2022", "1980"):
                for code in CODES:
                    big, small = card_face(code, edition)
                    too_wide += [f"{language} {code}: {text!r}" for text in (big, small)
                                 if cell_len(text) > CARD_TEXT_WIDTH]
            too_wide += [f"{language}: {i18n.gettext(word)!r}" for word in ("playable", "blocked", "minus")
                         if cell_len(i18n.gettext(word)) > CARD_TEXT_WIDTH]
    assert too_wide == []


def test_a_line_cut_by_a_dialog_keeps_each_vowel_sign_with_its_letter_or_draws_it_blank() -> None:
    """Cut at a cell, the े of के stays with क (it takes no cell); a spacing sign (the ा of पा, a cell of
    its own) whose letter is under a dialog's border is drawn blank, not beside the border."""
    from rich.segment import Segment
    from textual.strip import Strip

    from ono99_tui.tui.cells import match_terminal_widths

    match_terminal_widths()
    left, right = Segment("के 2").split_cells(1)
    assert (left.text, right.text) == ("के", " 2")
    border = Strip([Segment("█")])
    hidden, shown = Strip([Segment("सीमा पाइल")]).divide([6, 9])
    assert hidden.text + shown.text == "सीमा पाइल"  # joined again as it was
    assert Strip.join([hidden, shown]).text == "सीमा पाइल"
    assert Strip.join([border, shown]).text == "█ इल"  # the ा of पा, whose letter the border hides
    assert Strip.join([border, Strip([Segment("ुहोस्")])]).text == "█होस्"
    assert Strip.join([border, shown]).cell_length == 1 + shown.cell_length


def test_the_names_the_server_gives_that_come_only_in_english_are_said_in_the_players_language() -> None:
    """A LAN advertisement and the notice of a player removed from a table carry a table's name as the
    server wrote it, in English: the names the server gives (the host's table, a play-now table) are said
    in the player's language, a name the host chose as it is."""
    from ono99_tui.client.labels import advertised_table_name

    with using("de"):
        assert advertised_table_name("Bob's table") == "Tisch von Bob"
        assert advertised_table_name("Play now #12") == "Sofortspiel #12"
        assert advertised_table_name("Friday's game") == "Friday's game"
    with using("ne"):
        assert advertised_table_name("Ada's table") == "Ada को टेबल"
    with using("de"):
        assert render("removed", {"table": "Ada's table"}, "") == "Du wurdest vom Tisch entfernt: Tisch von Ada."
