"""The table seen from above: the other seats around it, the pile in the middle with the last cards
played, the draw pile, the total with the room left as a gauge, the turn clock as a bar.

Drawn with Textual's line API: a state is drawn once into strips (one per line), and a new state
repaints only the lines that changed. The strips are painted by region: each seat's tile, the pile,
the total and the bottom line are painted once per process for what they show (kept, a bounded
number, by ``lru_cache``), and a line is joined again only where one of its regions changed; the
whole picture of a scene at a size, look and motion frame is kept per process too (``PICTURES``), so
the screens of a front showing one table the same way paint it once.

The seats go round clockwise from the reader's left: up the left side, along the top, down the right
side; the reader's own seat is the bottom line (a spectator's bottom seat is the first). Narrow
terminals (a phone held upright) put every seat in rows above the pile.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from ono99_kernel.wire.server import PlayEvent, Seat, View

from .. import text as words
from ..client.labels import card_label
from ..client.model import Model
from ..i18n import current_language
from ..i18n import gettext as _
from .cardface import FaceState, TablePalette, _strip, back_lines, big_rows, face_lines, palette_for

SIDE_WIDTH = 16  # a seat at the side of the table
WIDE_ENOUGH = 64  # narrower: every other seat in rows above the pile
DANGER_ROOM = 9  # room left at which the gauge turns to danger (a 10 would go over)
WARN_ROOM = 25
MAX_CHIPS = 5  # tokens drawn one chip each up to this many, else a chip and the number
TOTAL_WIDTH = 28  # the total, its gauge and the clock, when there is room
MOTION_SECONDS = 0.25  # a move's motion: the card played lands, the total counts


_motion_dropped: list[Callable[[], bool]] = []  # what says the process is too busy for motion frames


def drop_motion_when(busy: Callable[[], bool]) -> None:
    """A process serving many screens (an SSH or web front) shows moves at once while ``busy()``
    says it is under load: the motion's second frame is the first work a loaded front can spare."""
    _motion_dropped[:] = [busy]


def motion_dropped() -> bool:
    return any(busy() for busy in _motion_dropped)
LANDING = 2  # columns short of the pile the card played is first drawn


@dataclass(frozen=True)
class SeatShown:
    name: str
    on_turn: bool
    cards: int | None  # None before a game
    marks: tuple[str, ...]  # words: OUT, dropped, away, bot playing, draw open, or the seat's kind
    chips: str  # tokens or points, in words
    out: bool
    host: bool
    tokens: int | None = None  # drawn as chips, one a token


@dataclass(frozen=True)
class Scene:
    """Everything the table top shows, compared with the last to repaint only what changed."""

    seats: tuple[SeatShown, ...]
    bottom: int
    total: int | None
    limit: int
    plays: tuple[tuple[str, tuple[str, ...], int], ...]  # (who, cards, total) oldest first
    top_card: str | None
    edition: str
    draw_pile: int
    direction: int
    clock: int | None
    clock_full: int | None
    hand_number: int | None
    waiting: str


class Canvas:
    """Lines of cells where pieces are put, later ones over earlier ones. A region of the table top is
    a canvas of its own: ``width`` and ``height`` reach to the table top's edges (what goes past them is
    cut, as on the whole table top), ``shown`` is the region's own size (its lines). Each line is
    joined once, from the parts of its pieces left uncovered, when its lines are asked for."""

    def __init__(self, width: int, height: int, style: Style, shown: tuple[int, int] | None = None) -> None:
        self.width, self.height = width, height
        shown_w, shown_h = shown or (width, height)
        self.shown_width, self.shown_height = max(0, min(shown_w, width)), max(0, min(shown_h, height))
        self.base = style  # under every piece: the widget's own background where a piece sets none
        self.cut: list[str] = []  # texts that did not fit where they were put
        self.pieces: list[list[tuple[int, Strip]]] = [[] for _ in range(self.shown_height)]  # by column

    def put(self, x: int, y: int, piece: Strip) -> None:
        if not 0 <= y < self.shown_height or x >= self.shown_width:
            return
        length = min(piece.cell_length, self.shown_width - x)
        if length <= 0:
            return
        piece = piece.crop(0, length).apply_style(self.base)
        end = x + length
        line: list[tuple[int, Strip]] = []
        for at, under in self.pieces[y]:  # what the piece covers of those put before goes
            stop = at + under.cell_length
            if stop <= x or at >= end:
                line.append((at, under))
                continue
            if at < x:
                line.append((at, under.crop(0, x - at)))
            if stop > end:
                line.append((end, under.crop(end - at, stop - at)))
        line.append((x, piece))
        line.sort(key=lambda placed: placed[0])
        self.pieces[y] = line

    @property
    def rows(self) -> list[Strip]:
        return [_join(tuple(line), self.shown_width, self.base) for line in self.pieces]

    def text(self, x: int, y: int, text: Text, width: int) -> None:
        text = text.copy()
        text.rstrip()
        if text.cell_len > max(0, width) or x + min(text.cell_len, width) > self.width or not 0 <= y < self.height:
            self.cut.append(text.plain)
        text.truncate(max(0, width))
        self.put(x, y, _text_strip(text.plain, tuple(text.spans), text.style))


@lru_cache(maxsize=4096)
def _text_strip(plain: str, spans: tuple[Span, ...], style: str | Style) -> Strip:
    """A table top's text as cells, rendered once per process: the same names, marks and words are
    on every screen showing a table (an SSH or web front draws many), and from one move to the next."""
    text = Text(plain, style=style, spans=list(spans))
    return _strip(text, text.cell_len)


def scene_of(model: Model, clock_full: int | None) -> Scene:
    view = model.view
    table = model.table
    seats_info: tuple[Seat, ...] = tuple(table.seats) if table is not None else ()
    count = view.seats if view is not None else len(seats_info)
    seats = tuple(_seat(model, view, seat, seats_info) for seat in range(count))
    bottom = view.seat if view is not None and view.seat is not None else (table.you if table and table.you is not None
                                                                            else 0)
    if view is None:
        waiting = _("Waiting for the game to start…")
        return Scene(seats, bottom, None, 0, (), None, model.edition, 0, 1, None, None, None, waiting)
    plays = tuple((_("You") if model.is_me(p.seat) else model.plain_name(p.seat), p.cards, p.total)
                  for p in _recent(model.recent_plays))
    left = model.clock_left()
    clock = int(left) if left is not None and view.winner is None else None
    return Scene(seats, bottom, int(view.total), view.options.limit, plays, view.top_card, model.edition,
                 view.draw_pile_size, view.direction, clock, clock_full if clock is not None else None,
                 view.hand_number + 1 if view.edition == "1980" else None, "")


def _recent(plays: Iterable[PlayEvent]) -> list[PlayEvent]:
    return list(plays)[-3:]


def seat_details(model: Model, view: View, seat: int, seats: tuple[Seat, ...] | list[Seat]) -> list[str]:
    """What the table says of a seat in words: its cards (or out, or dropped), tokens or points, and
    whether the player is away, played by a bot, or has a draw open."""
    shown = _seat(model, view, seat, tuple(seats))
    details = [words.cards(shown.cards)] if shown.cards is not None and not shown.out and \
        view.in_hand[seat] else []
    details += [shown.chips] if shown.chips else []
    return details + list(shown.marks)


def _seat(model: Model, view: View | None, seat: int, seats: tuple[Seat, ...]) -> SeatShown:
    info = seats[seat] if seat < len(seats) else None
    name = model.seat_name(seat)
    host = info is not None and model.table is not None and model.table.host == info.name
    if view is None:
        kind = {"empty": _("empty"), "human": _("player"), "bot": _("bot")}.get(info.kind, "") if info else ""
        return SeatShown(name if info is not None and info.kind != "empty" else "", False, None, (kind,), "", False,
                         host)
    marks: list[str] = []
    out = not view.active[seat]
    if out:
        marks.append(_("OUT"))
    elif not view.in_hand[seat]:
        marks.append(_("dropped"))
    human = info is not None and info.kind == "human"
    if human and info is not None and info.connected is False:
        marks.append(_("away"))
    if model.bot_control and seat < len(model.bot_control) and model.bot_control[seat] and human \
            and (info is None or info.connected is not True):
        marks.append(_("bot playing"))
    if view.open_draws[seat]:
        marks.append(_("draw open"))
    chips = ""
    if view.tokens is not None:
        chips = words.tokens(view.tokens[seat])
    elif view.scores is not None:
        chips = words.points(view.scores[seat])
    on_turn = view.turn == seat and view.winner is None
    tokens = view.tokens[seat] if view.tokens is not None else None
    return SeatShown(name, on_turn, view.hand_sizes[seat], tuple(marks), chips, out, host, tokens)


@dataclass(frozen=True)
class Look:
    """How a table top is drawn, besides its scene: the theme's colours, the widget's own style under
    them, the cards' size (bigger on a roomy screen) and the language of its words."""

    palette: TablePalette
    base: Style
    big: bool
    language: str


@dataclass(frozen=True)
class Motion:
    """A move's half-way frame: the total counting from ``total_from``, the card played short of the
    pile (``landing``), the seats knocked out this very move marked loudly."""

    total_from: int
    landing: bool
    knocked: frozenset[int]


@dataclass(frozen=True)
class Lines:
    """A region's lines, and its texts that did not fit."""

    rows: tuple[Strip, ...]
    cut: tuple[str, ...]


@dataclass(frozen=True)
class Picture:
    """A table top's lines for a scene, size, look and motion frame, with what each line was joined
    from (the regions' lines, by column): the next picture joins again only the lines whose pieces
    changed."""

    size: tuple[int, int]
    rows: tuple[Strip, ...]
    cut: tuple[str, ...]
    pieces: tuple[tuple[tuple[int, Strip], ...], ...]


def _lines(canvas: Canvas) -> Lines:
    return Lines(tuple(canvas.rows), tuple(canvas.cut))


# Each region is painted once per process for what it shows (its part of the scene, its size and
# place's reach, the look): every screen showing the table, and the next move where it did not change.
# The bounds keep a front's current tables (a pile about 8 KiB, a tile 1 to 2 KiB, a picture 15 KiB
# besides its regions): a region or picture is worth keeping while the table shows it, not after.
@lru_cache(maxsize=1024)
def _tile(seat: SeatShown, width: int, reach: tuple[int, int], look: Look, knocked: bool) -> Lines:
    """A seat's tile: its name (the turn, the host), then its cards, chips and marks."""
    canvas = Canvas(*reach, look.base, shown=(width, 2))
    name = Text(no_wrap=True)
    if knocked:  # out this very move: a cross and the name loud, for the motion's frame
        name.append("✗ ", style="bold reverse")
        name.append(Text(seat.name, style=Style(bold=True, reverse=True)))
    else:
        name.append("▶ " if seat.on_turn else "  ", style="bold reverse" if seat.on_turn else "")
        name.append(Text(seat.name, style=Style(bold=seat.on_turn, strike=seat.out, dim=seat.out)))
    if seat.host:
        name.append(" ⌂")
    canvas.text(0, 0, name, width)
    second = Text(no_wrap=True)
    second.append("  ")
    if seat.cards is not None and not seat.out:
        shown = min(seat.cards, max(1, width - 12))
        mark = look.palette.mark
        second.append("▮" * shown, style=Style(color=mark) if mark else Style(bold=True))
        second.append(f" {seat.cards}")
    if seat.chips:
        few = seat.tokens is not None and 0 < seat.tokens <= MAX_CHIPS
        chips = "●" * (seat.tokens or 0) if few else "●" + seat.chips.split(" ")[0]
        second.append(("  " if second.cell_len > 2 else "") + chips, style=Style(bold=True))
    if seat.marks:
        second.append(("  " if second.cell_len > 2 else "") + " · ".join(seat.marks),
                      style=Style(bold=True, reverse=seat.out))
    canvas.text(0, 1, second, width)
    return _lines(canvas)


@lru_cache(maxsize=256)
def _bottom_line(seat: SeatShown | None, direction: int, hand_number: int | None, playing: bool, width: int,
                 look: Look) -> Lines:
    """The reader's own seat (a spectator's: the first), and the direction of play: in words when
    they fit, else the arrow alone."""
    canvas = Canvas(width, 1, look.base)
    details: list[str] = []
    if seat is not None and seat.cards is not None and not seat.out and _("dropped") not in seat.marks:
        details.append(words.cards(seat.cards))
    if seat is not None:
        details += [seat.chips] if seat.chips else []
        details += list(seat.marks)
    arrow = "→" if direction == 1 else "←"
    said = arrow + " " + (_("clockwise") if direction == 1 else _("counter-clockwise"))
    hand = " · " + _("hand {n}").format(n=hand_number) if hand_number is not None else ""
    for right_words, kept in ((said + hand, details), (arrow + hand, details), (arrow, details),
                              (arrow, details[1:])):
        right = Text(right_words if playing else "", style="bold", no_wrap=True)
        line = Text(no_wrap=True)
        if seat is not None:
            line.append("▶ " if seat.on_turn else "  ", style="bold reverse" if seat.on_turn else "")
            line.append(Text(seat.name, style=Style(bold=True, strike=seat.out)))
            if seat.host:
                line.append(" ⌂")
            if kept:
                line.append("  " + " · ".join(kept))
        if line.cell_len + right.cell_len + 2 <= width:
            break
    canvas.text(0, 0, line, width - right.cell_len - 2)
    canvas.text(width - right.cell_len - 1, 0, right, right.cell_len)
    return _lines(canvas)


@lru_cache(maxsize=64)
def _waiting(words_shown: str, width: int, height: int, reach: tuple[int, int], look: Look) -> Lines:
    canvas = Canvas(*reach, look.base, shown=(width, height))
    canvas.text(2, 2, Text(words_shown, style="bold"), width - 2)
    return _lines(canvas)


@lru_cache(maxsize=128)
def _pile(draw_pile: int, fan: tuple[str, ...], edition: str, caption: str, landing: bool, back_w: int,
          width: int, height: int, reach: tuple[int, int], look: Look) -> Lines:
    """The draw pile (a card's back with its count), the last cards played fanned to the left with
    the newest face up, and the newest play named above them."""
    canvas = Canvas(*reach, look.base, shown=(width, height))
    card_w, card_h = card_size(look.big)
    for i, strip in enumerate(back_lines(back_w, card_h, look.palette, draw_pile)):
        canvas.put(0, 1 + i, strip)
    pile_x = back_w + 1
    for i, card in enumerate(fan):
        offset = (3 - len(fan) + i) * 2
        if i == len(fan) - 1 and landing and len(fan) > 1:
            offset += LANDING
        lines = face_lines(card, edition, card_w, card_h, FaceState(), look.palette)
        for row, strip in enumerate(lines):
            if i < len(fan) - 1 and 0 < row < card_h - 1:  # a card under another: its edge, no letters
                edge = strip.crop(0, 1)
                inside = next((seg.style for seg in strip.crop(1, 2)), None)
                strip = Strip.join([edge, Strip([Segment(" ", inside)], 1)])
            canvas.put(pile_x + offset, 1 + row, strip)
    said = Text(no_wrap=True)
    if caption:
        said.append(caption, style="bold")
    canvas.text(0, 0, said, width - 1)
    return _lines(canvas)


@lru_cache(maxsize=256)
def _total(total: int, limit: int, clock: int | None, clock_full: int | None, width: int, height: int,
           reach: tuple[int, int], look: Look) -> Lines:
    """The total in big digits, the limit, the gauge of the room left, and the turn clock as a bar."""
    canvas = Canvas(*reach, look.base, shown=(width, height))
    palette = look.palette
    room = limit - total
    colour = palette.calm if room > WARN_ROOM else palette.warn if room > DANGER_ROOM else palette.danger
    label = Text(_("TOTAL"), style="bold")
    said_limit = " · " + _("limit {limit}").format(limit=limit)
    if label.cell_len + len(said_limit) <= width:  # a narrow table: the gauge says the limit
        label.append(said_limit)
    canvas.text(0, 0, label, width)
    digits = big_rows(str(total))
    style = Style(color=colour, bold=True) if colour else Style(bold=True)
    if digits is not None:
        for i, row in enumerate(digits):
            canvas.text(0, 1 + i, Text(row, style=style), width)
    gauge_w = max(4, min(width - 1, 20))
    used = max(0, min(gauge_w, round(gauge_w * min(total, limit) / max(1, limit))))
    # the gauge's fill tells its state without colour too: calm solid, near the limit shaded
    fill = "█" if room > WARN_ROOM else "▓" if room > DANGER_ROOM else "▒"
    gauge = Text(no_wrap=True)
    gauge.append(fill * used, style=Style(color=colour) if colour else Style(bold=True))
    gauge.append("·" * (gauge_w - used), style="dim")
    canvas.text(0, 4, gauge, width)
    said = (_("{room} to go").format(room=room) if room > 0
            else (_("at the limit") if room == 0 else _("over the limit")))
    line = Text(said, style=Style(bold=room <= DANGER_ROOM))
    if clock is not None and clock_full:
        seconds = Text(" " + _("clock {seconds}s").format(seconds=clock), style=Style(bold=True, reverse=clock < 10))
        bar_w = min(10, width - line.cell_len - seconds.cell_len - 2)
        if bar_w < 3:  # too narrow for the words: the bar and the seconds
            seconds = Text(f" {clock}", style=Style(bold=True, reverse=clock < 10))
            bar_w = max(3, min(10, width - line.cell_len - seconds.cell_len - 2))
        left = max(0, min(bar_w, round(bar_w * clock / clock_full)))
        line.append("  ")
        line.append("▰" * left + "▱" * (bar_w - left), style=Style(bold=clock < 10))
        line.append_text(seconds)
    canvas.text(0, 5, line, width)
    return _lines(canvas)


def card_size(big: bool) -> tuple[int, int]:
    """A card's size on the pile: as big as the hand's."""
    return (15, 8) if big else (13, 5)


def shown_total(scene: Scene, motion: Motion | None) -> int:
    """The total the big digits show: half-way from the last one in a move's motion."""
    total = scene.total or 0
    return total if motion is None else motion.total_from + (total - motion.total_from) // 2


def _regions(scene: Scene, width: int, height: int, look: Look,
             motion: Motion | None) -> list[tuple[int, int, Lines]]:
    """The table top's regions for a scene, as (column, line, their lines), none over another."""
    layout = _Layout(width, len(scene.seats), look.big)
    regions: list[tuple[int, int, Lines]] = []
    knocked = motion.knocked if motion is not None else frozenset()
    order = [(scene.bottom + k) % len(scene.seats) for k in range(1, len(scene.seats))] if scene.seats else []
    for (x, y, w), seat in zip(layout.places, order, strict=False):
        regions.append((x, y, _tile(scene.seats[seat], w, (width - x, height - y), look, seat in knocked)))
    if scene.seats:
        bottom = scene.seats[scene.bottom] if scene.bottom < len(scene.seats) else None
        if 0 <= layout.bottom_y < height:
            regions.append((0, layout.bottom_y, _bottom_line(bottom, scene.direction, scene.hand_number,
                                                             scene.total is not None, width, look)))
    x0, y0, centre_w = layout.centre_x, layout.centre_y, layout.centre_width
    middle_h = layout.card[1] + 1
    reach = (width - x0, height - y0)
    if scene.total is None:
        regions.append((x0, y0, _waiting(scene.waiting, centre_w, middle_h, reach, look)))
        return regions
    card_w = layout.card[0]
    back_w = 6 if centre_w >= 40 else 5  # the draw pile, a card's back with its count
    block = back_w + 1 + 4 + card_w + 2 + TOTAL_WIDTH
    if centre_w > block:  # a wide table: the pile and the total in its middle
        x0, centre_w = x0 + (centre_w - block) // 2, block
    total_x = x0 + back_w + 1 + 4 + card_w + 2
    cards = [card for _who, played, _total in scene.plays for card in played[:1]]
    if not cards and scene.top_card:
        cards = [scene.top_card]
    caption = ""
    if scene.plays:
        who, played, total = scene.plays[-1]
        what = "4× ONO 99" if len(played) == 4 else card_label(played[0], scene.edition)
        caption = f"{who} {what} → {total}"
    landing = motion is not None and motion.landing
    regions.append((x0, y0, _pile(scene.draw_pile, tuple(cards[-3:]), scene.edition, caption, landing, back_w,
                                  total_x - x0, middle_h, (width - x0, height - y0), look)))
    regions.append((total_x, y0, _total(shown_total(scene, motion), scene.limit, scene.clock, scene.clock_full,
                                        x0 + centre_w - total_x, 6, (width - total_x, height - y0), look)))
    return regions


class _Pictures:
    """The table tops painted last in this process, by scene, size, look and motion frame: sessions
    of one front showing one table at one size, language and theme share its picture."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.kept: OrderedDict[tuple[object, ...], Picture] = OrderedDict()

    def get(self, key: tuple[object, ...]) -> Picture | None:
        picture = self.kept.get(key)
        if picture is not None:
            self.kept.move_to_end(key)
        return picture

    def put(self, key: tuple[object, ...], picture: Picture) -> None:
        self.kept[key] = picture
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)


PICTURES = _Pictures(64)


def paint(scene: Scene, width: int, height: int, look: Look, motion: Motion | None = None,
          before: Picture | None = None) -> Picture:
    """The table top's lines for ``scene``: the process's picture of it when one was painted, else
    its regions (each painted once per process for what it shows) joined into lines, where a line's
    regions are those of ``before`` its line is kept as it was."""
    key = (scene, width, height, look, motion)
    kept = PICTURES.get(key)
    if kept is not None:
        return kept
    by_line: list[list[tuple[int, Strip]]] = [[] for _ in range(height)]
    cut: list[str] = []
    for x, y, lines in _regions(scene, width, height, look, motion):
        cut += lines.cut
        for row, strip in enumerate(lines.rows):
            if strip.cell_length:
                by_line[y + row].append((x, strip))
    rows: list[Strip] = []
    pieces: list[tuple[tuple[int, Strip], ...]] = []
    same_size = before is not None and before.size == (width, height)
    for y, line in enumerate(by_line):
        line.sort(key=lambda piece: piece[0])
        joined = tuple(line)
        if same_size and before is not None and _same_pieces(before.pieces[y], joined):
            rows.append(before.rows[y])
        else:
            rows.append(_join(joined, width, look.base))
        pieces.append(joined)
    picture = Picture((width, height), tuple(rows), tuple(cut), tuple(pieces))
    PICTURES.put(key, picture)
    return picture


def _same_pieces(old: tuple[tuple[int, Strip], ...], new: tuple[tuple[int, Strip], ...]) -> bool:
    return len(old) == len(new) and all(a[0] == b[0] and a[1] is b[1] for a, b in zip(old, new, strict=True))


def _join(pieces: tuple[tuple[int, Strip], ...], width: int, base: Style) -> Strip:
    """A line of ``width`` cells: its regions' pieces at their columns, blank between them."""
    parts: list[Strip] = []
    at = 0
    for x, strip in pieces:
        if x > at:
            parts.append(Strip([Segment(" " * (x - at), base)], x - at))
        parts.append(strip)
        at = x + strip.cell_length
    if at < width:
        parts.append(Strip([Segment(" " * (width - at), base)], width - at))
    return Strip.join(parts)


class TableTop(Widget):
    """The seats around the table, the pile, the total and its gauge, the clock (see the module)."""

    DEFAULT_CSS = """
    TableTop {
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.scene: Scene | None = None
        self._strips: list[Strip] = []
        self._picture: Picture | None = None  # the last drawn, whose unchanged lines the next keeps
        self._drawn_for: tuple[object, ...] = ()
        self._clock_full: int | None = None
        self._clock_turn: tuple[object, ...] = ()
        self.shown_total: int | None = None  # the total the big digits show
        self.cut: list[str] = []  # texts of the last drawing that did not fit
        self._frame: int | None = None  # the frame of a move's motion being shown (None: none)
        self._motion_timer: Timer | None = None
        self._landing = False  # the motion's card played, short of the pile
        self.knocked: frozenset[int] = frozenset()  # the seats just knocked out, during a motion
        self._motion_from = 0
        self.drawn_total: int | None = None  # the total the big digits show now (half-way in a motion)

    # --- what is shown ------------------------------------------------------------------------------
    def show(self, model: Model) -> None:
        view = model.view
        left = model.clock_left()
        turn = (view.version, view.turn) if view is not None else ()
        if left is not None and turn != self._clock_turn:  # the clock's full length: the first second seen
            self._clock_turn, self._clock_full = turn, max(1, int(left + 0.999))
        scene = scene_of(model, self._clock_full)
        if scene != self.scene:
            rows_before = self._rows_for(self.scene)
            before, self.scene = self.scene, scene
            self.shown_total = scene.total
            self._start_motion(before, scene)
            if self._rows_for(scene) != rows_before:
                self.refresh(layout=True)
            self._draw()

    # --- motion: a move's card lands on the pile and the total counts to its new value -------------------
    def _start_motion(self, before: Scene | None, scene: Scene) -> None:
        """A new play: one frame half-way (the card short of the pile, the total half-way), then, after
        MOTION_SECONDS, the move as it is: a single timer and one repaint of the lines that change.
        Reduced motion (the app's animation level "none", from the settings) shows the end at once."""
        if self._motion_timer is not None:
            self._motion_timer.stop()
            self._motion_timer = None
        self._frame = None
        self.knocked = frozenset()
        if before is None or before.total is None or scene.total is None or self.app.animation_level == "none" \
                or motion_dropped():
            return
        played = scene.plays != before.plays and bool(scene.plays)
        knocked = frozenset(seat for seat, (was, now) in enumerate(zip(before.seats, scene.seats, strict=False))
                            if now.out and not was.out)
        if not (played or knocked):
            return
        self._motion_from = before.total
        self._landing = played
        self.knocked = knocked  # marked loudly for the motion's frame
        self._frame = 0
        self._motion_timer = self.set_timer(MOTION_SECONDS, self._motion_done)

    def _motion_done(self) -> None:
        self._motion_timer = None
        if self._frame is not None:
            self._frame = None
            self.knocked = frozenset()
            self._draw()

    @property
    def moving(self) -> bool:
        """Whether a move's motion is still being shown."""
        return self._frame is not None

    @property
    def big(self) -> bool:
        return self.screen.has_class("-roomy") if self.is_attached else False

    def _rows_for(self, scene: Scene | None) -> int:
        return self.rows_needed(self.size.width or (self.app.size.width if self.is_attached else 80), scene)

    def rows_needed(self, width: int, scene: Scene | None = None) -> int:
        scene = scene or self.scene
        if scene is None:
            return 1
        layout = self._layout(width, scene)
        return layout.height

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.rows_needed(width)

    def on_resize(self) -> None:
        self._draw()

    def text(self) -> str:
        """The table top's characters, line by line (what a screen reader's user of this screen sees)."""
        return "\n".join(strip.text for strip in self._strips)

    # --- drawing ------------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width, self.rich_style)

    def _draw(self) -> None:
        width, height = self.size.width, self.size.height
        scene = self.scene
        if scene is None or width <= 0 or height <= 0:
            return
        look = Look(palette_for(self.app.current_theme), self.rich_style, self.big, current_language())
        motion = Motion(self._motion_from, self._landing, self.knocked) if self._frame is not None else None
        key = (scene, width, height, look, motion)
        if key == self._drawn_for:
            return
        self._drawn_for = key
        strips, self.cut = self._paint(scene, width, height, look, motion)
        old = self._strips
        self._strips = strips
        changed = [y for y in range(height) if y >= len(old) or (old[y] is not strips[y] and (
            old[y].text != strips[y].text or list(old[y]) != list(strips[y])))]
        for y in changed:
            self.refresh(Region(0, y, width, 1))

    def _layout(self, width: int, scene: Scene) -> _Layout:
        return _Layout(width, len(scene.seats), self.big)

    def _paint(self, scene: Scene, width: int, height: int, look: Look,
               motion: Motion | None) -> tuple[list[Strip], list[str]]:
        self._picture = paint(scene, width, height, look, motion, self._picture)
        if scene.total is not None:
            self.drawn_total = shown_total(scene, motion)
        return list(self._picture.rows), list(self._picture.cut)


class _Layout:
    """Where the seats and the middle go for a width and a number of seats."""

    def __init__(self, width: int, seats: int, big: bool) -> None:
        others = max(0, seats - 1)
        self.card = card_size(big)
        tile_h = 2
        self.places: list[tuple[int, int, int]] = []
        middle_h = self.card[1] + 1  # the caption and the pile
        if width >= WIDE_ENOUGH:
            left = right = 0
            if others >= 4:
                left = right = 1 if others < 6 else 2
            top = others - left - right
            side_w = SIDE_WIDTH if left else 0
            tile_w = max(10, width // max(1, top))
            y = 0
            for i in range(top):
                self.places.append((i * tile_w, y, tile_w - 1))
            top_h = tile_h if top else 0
            self.centre_y = top_h
            self.centre_x = side_w + 1
            self.centre_width = width - 2 * side_w - 2
            side_ys = [top_h + middle_h - tile_h - k * (tile_h + 1) for k in range(left)]  # bottom first
            lefts = [(0, y, side_w - 1) for y in side_ys]
            rights = [(width - side_w, y, side_w) for y in reversed(side_ys)]
            self.places = lefts + self.places + rights
            self.bottom_y = top_h + middle_h
        else:
            per_row = max(1, width // 19)
            tile_w = width // per_row
            rows = (others + per_row - 1) // per_row
            for i in range(others):
                self.places.append(((i % per_row) * tile_w, (i // per_row) * tile_h, tile_w - 1))
            self.centre_y = rows * tile_h
            self.centre_x = 0
            self.centre_width = width
            self.bottom_y = self.centre_y + middle_h
        self.height = self.bottom_y + 1
