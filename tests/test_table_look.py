"""The table's look: cards drawn as cards (one face everywhere, each kind told apart without colour,
every text on a card at WCAG AA contrast in every theme), the seats around the table for 2 to 8
players with nothing cut at 80×24 in any language, and snapshots of the table at 80×24 and 120×40."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.theme import BUILTIN_THEMES

from ono99_kernel.core import TableOptions
from ono99_tui.i18n import LANGUAGES, using
from ono99_tui.simulate import SimulationPlan, simulate
from ono99_tui.tui.cardface import (
    AA_GRAPHICS,
    AA_TEXT,
    BORDERS,
    FaceState,
    contrast,
    face_lines,
    face_text,
    palette_for,
)
from ono99_tui.tui.replay import ReplayApp, load_replay, make_replay_app
from ono99_tui.tui.table import TableScreen
from ono99_tui.tui.tabletop import TableTop
from ono99_tui.tui.themes import MONO_THEME
from ono99_tui.tui.widgets import CardWidget
from tests.test_i18n import cut_texts
from tests.test_tui import wait_until

THEMES = {**BUILTIN_THEMES, MONO_THEME.name: MONO_THEME}
# one card of each kind a player must tell apart (a Double Play is the 1980 edition's Play 2)
KINDS = {"number": "7", "minus": "-10", "reverse": "REV", "play 2": "PLAY2", "hold": "HOLD", "ono 99": "ONO99"}
SIZES = [(13, 5), (15, 8), (9, 5), (18, 5)]
STATES = [FaceState(key="1", playable=True), FaceState(key="2", playable=False), FaceState()]


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_text_on_every_card_passes_wcag_aa_in_every_theme(theme: str) -> None:
    """Each kind's face, an unplayable face, a card's back: the contrast ratio of the ink to the paper,
    computed from the theme's colours, is at least 4.5 (text) or 3 (the back's pattern, the gauge and
    the backs a seat shows, against the theme's background). Also checked: the faces are drawn in those
    colours. A theme without colours (high contrast, the terminal's own) gives no colour at all: the
    terminal's own foreground on its own background."""
    palette = palette_for(THEMES[theme])
    if not palette.coloured:
        assert theme == MONO_THEME.name or theme.startswith("ansi")
        for code in KINDS.values():
            for strip in face_lines(code, "2022", 13, 5, FaceState(playable=False), palette):
                assert all(s.style is None or (s.style.color is None and s.style.bgcolor is None) for s in strip)
        return
    for kind in BORDERS:
        ink, paper = palette.face(kind)
        assert ink is not None and paper is not None
        assert contrast(ink, paper) >= AA_TEXT, (kind, ink, paper)
    ink, paper = palette.dimmed
    assert ink is not None and paper is not None and contrast(ink, paper) >= AA_TEXT, ("unplayable", ink, paper)
    ink, paper = palette.back
    assert ink is not None and paper is not None and contrast(ink, paper) >= AA_GRAPHICS
    assert palette.background is not None
    for colour in (palette.calm, palette.warn, palette.danger, palette.mark):
        assert colour is not None and contrast(colour, palette.background) >= AA_GRAPHICS, colour
    for code in KINDS.values():
        for state in STATES:
            ink, paper = palette.dimmed if state.playable is False else palette.face(_kind(code))
            assert ink is not None and paper is not None
            for strip in face_lines(code, "2022", 13, 5, state, palette):
                for segment in strip:
                    assert segment.style is not None, (code, state, strip.text)  # every cell in the card's colours
                    if not segment.style.reverse:
                        assert _hex(segment.style, "color") == ink.lower() and \
                            _hex(segment.style, "bgcolor") == paper.lower(), (code, state, segment)


def _kind(code: str) -> str:
    from ono99_tui.client.labels import card_kind
    return card_kind(code)


def _hex(style: Style, which: str) -> str:
    color = getattr(style, which)
    assert color is not None
    return str(color.get_truecolor().hex).lower()


def test_each_kind_of_card_has_a_face_of_its_own_without_colour() -> None:
    """With colours removed, and even with every letter and digit removed (what is left is the card's
    shape: its border and its symbol), the faces of a number, a −10, a Reverse, a Play 2, a Hold and an
    ONO 99 differ pairwise, at every size a card is drawn and in each state (playable, unplayable, on
    the pile). A Double Play has the Play 2's face, with its own name."""
    for (width, height), state in itertools.product(SIZES, STATES):
        shapes = {name: re.sub(r"\w", " ", face_text(code, "2022", width, height, state))
                  for name, code in KINDS.items()}
        for (a, shape_a), (b, shape_b) in itertools.combinations(shapes.items(), 2):
            assert shape_a != shape_b, f"{a} and {b} look alike at {width}×{height}:\n{shape_a}\n{shape_b}"
    play2, double = face_text("PLAY2", "2022", 13, 5, FaceState()), face_text("DOUBLE", "1980", 13, 5, FaceState())
    assert re.sub(r"\w", " ", play2) == re.sub(r"\w", " ", double) and "double play" in double


def test_an_unplayable_card_is_dimmed_and_says_so_and_the_number_keys_are_on_the_cards() -> None:
    palette = palette_for(BUILTIN_THEMES["textual-dark"])
    blocked = face_text("7", "2022", 13, 5, FaceState(key="3", playable=False))
    playable = face_text("7", "2022", 13, 5, FaceState(key="3", playable=True))
    assert "blocked" in blocked and "playable" in playable and blocked.splitlines()[0].startswith("╭[3]")
    dim = face_lines("7", "2022", 13, 5, FaceState(playable=False), palette)
    paper = palette.dimmed[1]
    assert paper is not None
    assert _hex(next(s.style for s in dim[1] if s.style is not None), "bgcolor") == paper.lower()


RECORDS: dict[int, Path] = {}


def record_of(seats: int, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bot game of ``seats`` players, the same every run (a seeded simulation), as a record file."""
    if seats not in RECORDS:
        options = TableOptions.from_mapping("2022", {"eight_players": seats > 6})
        lines: list[str] = []
        simulate(SimulationPlan(1, ("greedy",) * seats, options, seed=11, record=True),
                 on_result=lambda result: lines.append(result.record_line or ""))
        path = tmp_path_factory.mktemp("records") / f"game_{seats}.jsonl"
        path.write_text(lines[0] + "\n", encoding="utf-8")
        RECORDS[seats] = path
    return RECORDS[seats]


def replay_app(seats: int, tmp_path_factory: pytest.TempPathFactory) -> ReplayApp:
    """A replay of that game, still: each move shown at once (a snapshot is of a move, not of its motion)."""
    app = make_replay_app(load_replay(record_of(seats, tmp_path_factory)))
    app.animation_level = "none"
    return app


@pytest.mark.parametrize("seats", [2, 4, 8])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_table_snapshot(seats: int, size: tuple[int, int], snap_compare: Any,
                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The table of a game of 2, 4 and 8 players a few moves in, as a replay shows it."""
    app = replay_app(seats, tmp_path_factory)
    assert snap_compare(app, press=["right"] * 6, terminal_size=size)


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_table_snapshot_in_other_themes(theme: str, snap_compare: Any,
                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The 8-player table at 80×24 in every theme a player can pick: the high-contrast one (no colour:
    the kinds told by their shapes), the light and the dark ones, the terminal's own colours."""
    app = replay_app(8, tmp_path_factory)

    async def themed(pilot: Any) -> None:
        pilot.app.theme = theme
        for _ in range(6):
            await pilot.press("right")

    assert snap_compare(app, run_before=themed, terminal_size=(80, 24))


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_eight_seats_at_80_by_24_show_every_seat_the_pile_the_total_and_the_hand(
        language: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A game of 8 at 80×24, move after move: every seat's name is on the table top, the draw pile's
    count and the total are shown, the hand's cards are on screen whole, and no text is cut (the
    table top's own check and the screen's), in each language."""
    with using(language):
        app = replay_app(8, tmp_path_factory)
        async with app.run_test(size=(80, 24)) as pilot:
            for _step in range(12):
                await pilot.press("right")
                await pilot.pause()
                screen = app.screen
                assert isinstance(screen, TableScreen)
                view = app.model.view
                assert view is not None
                top = screen.query_one(TableTop)
                text = top.text()
                for seat in range(8):
                    assert app.model.plain_name(seat) in text, (seat, text)
                assert top.shown_total == view.total
                assert str(view.draw_pile_size) in "".join(line for line in text.splitlines() if "░" in line)
                cards = [card for card in screen.query(CardWidget) if card.display]
                assert len(cards) == len(view.hand)
                for card in cards:
                    assert screen.region.contains_region(card.region), card.region
                    assert card.render().plain.splitlines()[-1].strip()[0] in "╰└╚┗"  # its bottom edge drawn
                assert cut_texts(screen) == [], text


async def test_a_change_of_turn_repaints_the_hand_without_styling_its_cards_again(monkeypatch: Any) -> None:
    """A replay of the sample game watched move after move at 100×30 (the seat shown changes turn,
    its cards become playable or not): the cards' faces follow (each card's state says whether it
    may be played on its seat's turn), and no card is given to the stylesheet again, which every
    seated player's app of a front did at every change of turn."""
    app = make_replay_app(load_replay(Path(__file__).parent / "data" / "sample_2022.jsonl"))
    styled: list[object] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        update_styles = app.update_styles

        def recording(node: Any = None, animate: bool = True) -> None:
            styled.append(node)
            update_styles(node, animate)

        monkeypatch.setattr(app, "update_styles", recording)
        turns = set()
        for _step in range(30):
            await pilot.press("right")
            await pilot.pause()
            view = app.model.view
            assert view is not None
            turns.add(app.model.viewer_on_turn)
            for card in screen.query(CardWidget):
                if card.display and card.index < len(view.hand):
                    assert card.code == view.hand[card.index]
                    assert card.state.playable == (app.model.viewer_on_turn and card.code in view.legal)
        assert turns == {True, False}  # the seat shown had its turn and lost it
        assert not [node for node in styled if isinstance(node, CardWidget)]


async def test_a_second_screen_showing_a_table_draws_it_from_the_texts_the_first_rendered(
        monkeypatch: Any) -> None:
    """Two apps watch the same replay at 100×30 one after the other (as two sessions of an SSH front
    show one table), 8 moves each: the second draws the same table top at each move without rendering
    any of its texts again (names, marks, the total's words: rendered once per process), and its picture
    is the first's, segment for segment."""
    from ono99_tui.tui import tabletop

    pictures: list[list[list[Any]]] = []
    rendered = [0]
    for second in (False, True):
        app = make_replay_app(load_replay(Path(__file__).parent / "data" / "sample_2022.jsonl"))
        app.animation_level = "none"  # each move drawn once, as the fronts do
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            top = app.screen.query_one(TableTop)
            if second:
                strip = vars(tabletop)["_strip"]  # the renderer the table top calls

                def counting(text: Any, width: int, strip: Any = strip) -> Any:
                    rendered[0] += 1
                    return strip(text, width)

                monkeypatch.setattr(tabletop, "_strip", counting)
            for step in range(8):
                await pilot.press("right")
                await pilot.pause()
                picture = [list(line) for line in top._strips]
                if second:
                    assert picture == pictures[step], step
                else:
                    pictures.append(picture)
    assert rendered[0] == 0


@pytest.mark.parametrize("mode", ["motion", "reduced", "busy", "front", "front-motion"])
@pytest.mark.long
async def test_a_move_lands_and_its_total_counts_unless_motion_is_reduced(mode: str, monkeypatch: Any) -> None:
    """Each move of a replay is watched: what the table top draws for it (recorded as it is drawn) is,
    with motion, one frame with the total half-way from the last total, the card played short of the
    pile and a player knocked out that move marked with a cross, then the move as it is; with reduced
    motion (the setting sets the app's animation level to "none"), or in a process that says it is
    too busy for motion (an SSH or web front under load: ``drop_motion_when``), the move at once. An SSH
    or web front shows moves at once unless its host turned motion on (``--ssh-motion``), as the front's
    process sets it up (``front.process.motion_dropped_by``). Waits are for the motion to end, never for a time."""
    from ono99_kernel.ssh_settings import SshSettings
    from ono99_tui.front.process import motion_dropped_by
    from ono99_tui.tui import tabletop

    reduced = mode not in ("motion", "front-motion")
    monkeypatch.setattr(tabletop, "MOTION_SECONDS", 0.02)  # the frames drawn are what is checked, not their pace
    app = make_replay_app(load_replay(Path(__file__).parent / "data" / "sample_2022.jsonl"))
    if mode == "reduced":
        app.animation_level = "none"
    if mode in ("busy", "front", "front-motion"):
        monkeypatch.setattr(tabletop, "_motion_dropped", [])
    if mode == "busy":
        tabletop.drop_motion_when(lambda: True)
    if mode.startswith("front"):
        tabletop.drop_motion_when(motion_dropped_by(SshSettings(motion=mode == "front-motion"), lambda: False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        top = screen.query_one(TableTop)
        drawn: list[tuple[int | None, bool]] = []
        knocked: list[tuple[frozenset[int], bool]] = []  # the seats marked as just out, and a cross drawn
        paint = top._paint

        def recording(*args: Any) -> Any:
            strips, cut = paint(*args)
            drawn.append((top.drawn_total, top.moving))
            knocked.append((top.knocked, any("✗ " in strip.text for strip in strips)))
            return strips, cut

        monkeypatch.setattr(top, "_paint", recording)
        counted = knocked_out = 0
        for _step in range(60):
            before = app.model.view.total if app.model.view is not None else 0
            active = app.model.view.active if app.model.view is not None else ()
            plays = len(app.model.recent_plays)
            drawn.clear()
            knocked.clear()
            await pilot.press("right")
            await wait_until(pilot, lambda: not top.moving, "the move shown to its end")
            await pilot.pause()
            view = app.model.view
            assert view is not None and top.drawn_total == view.total and not top.moving
            out = {seat for seat, (was, now) in enumerate(zip(active, view.active, strict=False)) if was and not now}
            if out and view.winner is None:  # a player knocked out: marked as it happens, unless motion is reduced
                knocked_out += 1
                assert knocked[0] == ((frozenset(), False) if reduced else (frozenset(out), True)), knocked
                assert knocked[-1] == (frozenset(), False)
            if abs(view.total - before) < 2 or (len(app.model.recent_plays) == plays and plays == 3):
                continue
            counted += 1
            if reduced:
                assert [total for total, _moving in drawn] == [view.total], drawn
            else:
                assert drawn[0] == (before + (view.total - before) // 2, True), (before, view.total, drawn)
                assert drawn[-1] == (view.total, False)
                assert len(drawn) <= 3, drawn  # a few frames a move at most
        assert counted >= 3 and knocked_out >= 1


async def test_the_reduced_motion_setting_is_kept_and_applies_from_the_start() -> None:
    """F2's switch turns the table's motion off at once (the app's animation level) and is kept: the
    next app started with those settings starts without motion."""
    from textual.widgets import Checkbox

    from ono99_tui.local_game import open_local_game
    from ono99_tui.tui.app import make_app
    from ono99_tui.tui.settings import Settings
    from ono99_tui.tui.settings_screen import SettingsScreen

    settings = Settings.load()
    settings.hint_seen = True
    app = make_app(bot_delay=5, settings=settings, local_game=open_local_game)
    assert app.animation_level != "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
        app.screen.query_one("#reduced-motion", Checkbox).value = True
        await pilot.pause()
        level: str = app.animation_level  # set by the switch's handler
        assert level == "none"
    assert Settings.load().reduced_motion
    again = make_app(bot_delay=5, settings=Settings.load(), local_game=open_local_game)
    assert again.animation_level == "none"


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_the_knockout_dialog_draws_the_cards_it_lists_with_the_tables_faces(language: str) -> None:
    """The knocked-out dialog at 80×24 lists the cards held ("You held: …") and draws each with the
    face the table draws (its border by kind, its value), every card whole inside the dialog and no
    text cut, in each language; a hand too long for the dialog's width keeps the list and draws none
    rather than some."""
    from ono99_tui.client.model import KnockOut
    from ono99_tui.tui.game_over import KnockOutScreen
    from ono99_tui.tui.widgets import CardRow

    held = ["9", "-10", "REV", "ONO99"]
    with using(language):
        app = make_replay_app(load_replay(Path(__file__).parent / "data" / "sample_2022.jsonl"))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            app.push_screen(KnockOutScreen(KnockOut(final=True, total=97, cards=held, hand=None)))
            await wait_until(pilot, lambda: bool(app.screen.query("#held")), "the knock-out dialog")
            await pilot.pause()
            screen = app.screen
            row = screen.query_one("#held", CardRow)
            assert row.display and screen.query_one("#dialog").region.contains_region(row.region), row.region
            lines = [row.render_line(y).text for y in range(row.size.height)]
            assert [line[0] for line in lines] == ["╭", "│", "│", "│", "╰"], lines  # the first card, a number
            for code, corner in zip(held, "╭┌╔┏", strict=True):  # each kind's own border, in order
                assert corner in lines[0], (code, lines[0])
            for code in held:  # the very face the table draws, line by line
                face = face_text(code, "2022", row._card_width(), 5, FaceState()).splitlines()
                assert all(part in line for part, line in zip(face, lines, strict=True)), (code, face, lines)
            assert cut_texts(screen) == []
            # five cards of a long hand do not fit: none drawn, the list stays
            screen.dismiss(None)
            await pilot.pause()
            app.push_screen(KnockOutScreen(KnockOut(final=True, total=97, cards=[*held, "7"], hand=None)))
            await wait_until(pilot, lambda: bool(app.screen.query("#held")), "the second dialog")
            await pilot.pause()
            assert not app.screen.query_one("#held", CardRow).display


@pytest.mark.parametrize("reduced", [False, True])
async def test_a_won_game_has_its_moment_unless_motion_is_reduced(reduced: bool, monkeypatch: Any) -> None:
    """A replay jumped to its end opens the game-over dialog: with motion, the winner's line is lit up
    (reversed, which tells it without colour) as the dialog opens and goes back to plain bold after a
    moment, with reduced motion it is never lit up. The classes the winner's line takes are recorded
    as they change; waits are for them, never for a time."""
    from textual.dom import DOMNode

    from ono99_tui.tui import game_over
    from ono99_tui.tui.game_over import GameOverScreen

    monkeypatch.setattr(game_over, "WIN_MOMENT_SECONDS", 0.05)
    changes: list[tuple[str, bool]] = []
    add, remove = DOMNode.add_class, DOMNode.remove_class

    def added(self: DOMNode, *names: str, update: bool = True) -> DOMNode:
        if self.id == "winner":
            changes.extend((name, True) for name in names)
        return add(self, *names, update=update)

    def removed(self: DOMNode, *names: str, update: bool = True) -> DOMNode:
        if self.id == "winner":
            changes.extend((name, False) for name in names)
        return remove(self, *names, update=update)

    monkeypatch.setattr(DOMNode, "add_class", added)
    monkeypatch.setattr(DOMNode, "remove_class", removed)
    app = make_replay_app(load_replay(Path(__file__).parent / "data" / "sample_2022.jsonl"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        if reduced:
            app.animation_level = "none"
        await pilot.press("end")
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game-over dialog")
        await pilot.pause()
        winner = app.screen.query_one("#winner")
        if reduced:
            assert changes == [] and not winner.has_class("-moment")
        else:
            await wait_until(pilot, lambda: ("-moment", False) in changes, "the moment's end")
            assert changes == [("-moment", True), ("-moment", False)]
            assert not winner.has_class("-moment")
