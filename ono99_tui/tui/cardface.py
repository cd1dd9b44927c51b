"""One card face for every screen (the hand, the pile, the help, replays), drawn as lines of cells.

A face tells its kind twice: by colour (a palette computed from the theme, every text on it at
WCAG AA contrast) and by shape, for the high-contrast theme and colour-blind players: each kind has
its own border (numbers rounded, −10 square, action cards double, ONO 99 heavy) and its own symbol.
Faces are cached: the same card in the same state is drawn once per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.renderables.digits import DIGITS, DIGITS3X3_BOLD
from textual.strip import Strip
from textual.theme import Theme

from ..client.labels import card_kind, card_label, card_short
from ..i18n import current_language
from ..i18n import gettext as _

NOUNS_CAPITALISED = {"de"}  # languages whose card names keep their capital on the card

# each kind's border (corners, edges): the shape that tells the kind without colour
BORDERS = {
    "number": ("╭", "╮", "╰", "╯", "─", "│"),
    "minus": ("┌", "┐", "└", "┘", "─", "│"),
    "action": ("╔", "╗", "╚", "╝", "═", "║"),
    "ono99": ("┏", "┓", "┗", "┛", "━", "┃"),
}
BACK_BORDER = ("╭", "╮", "╰", "╯", "─", "│")
AA_TEXT = 4.5  # WCAG 2.x AA for text
AA_GRAPHICS = 3.0  # WCAG 2.x AA for the parts of a picture (the gauge, the card backs)

# big glyphs three rows high for the faces that are not digits (Textual's Digits draw the digits)
BIG_GLYPHS = {
    "⇄": ("╭──>", "│  │", "<──╯"),
    "×": ("╲ ╱", " ╳ ", "╱ ╲"),
    "|": ("┃", "┃", "┃"),
    "!": ("┃", "┃", "╻"),
    "−": ("   ", "╺━╸", "   "),
}


def card_face(code: str, edition: str) -> tuple[str, str]:
    """The big text and the small word of a card."""
    big = card_short(code)
    label = card_label(code, edition)
    action = label if current_language() in NOUNS_CAPITALISED else label.lower()
    small = {"number": "", "minus": _("minus"), "action": action,
             "ono99": _("stuck")}[card_kind(code)]
    if code == "ONO99":
        small = card_label(code, edition)
    return big, small


def big_rows(short: str) -> tuple[str, str, str] | None:
    """A card's face value three rows high (``Card.short``), or None when a character has no big form."""
    rows = ["", "", ""]
    for char in short:
        if char in BIG_GLYPHS:
            glyph = BIG_GLYPHS[char]
        else:
            index = DIGITS.find(char)
            if index < 0:
                return None
            glyph = (DIGITS3X3_BOLD[index * 3], DIGITS3X3_BOLD[index * 3 + 1], DIGITS3X3_BOLD[index * 3 + 2])
        width = max(len(row) for row in glyph)
        for i in range(3):
            rows[i] += glyph[i].ljust(width)
    return rows[0], rows[1], rows[2]


# --- colours ------------------------------------------------------------------------------------------------
def luminance(color: Color) -> float:
    """WCAG 2.x relative luminance."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: str, b: str) -> float:
    """WCAG 2.x contrast ratio of two colours (hex)."""
    la, lb = luminance(Color.parse(a)), luminance(Color.parse(b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


INK_DARK, INK_LIGHT = "#111111", "#ffffff"


def readable_pair(background: Color, wanted: float = AA_TEXT) -> tuple[str, str]:
    """(ink, paper): ``background`` as paper, moved lighter or darker until the better of a dark and a
    light ink reaches ``wanted`` against it."""
    paper = background
    for _step in range(40):
        dark, light = contrast(INK_DARK, paper.hex6), contrast(INK_LIGHT, paper.hex6)
        if max(dark, light) >= wanted:
            return (INK_DARK if dark >= light else INK_LIGHT), paper.hex6
        paper = paper.lighten(0.03) if dark >= light else paper.darken(0.03)
    return INK_DARK, "#ffffff"


def visible_on(color: Color, background: Color, wanted: float) -> str:
    """``color`` made lighter or darker until it stands out from ``background`` by ``wanted``."""
    dark_background = luminance(background) < 0.18
    for _step in range(40):
        if contrast(color.hex6, background.hex6) >= wanted:
            return color.hex6
        color = color.lighten(0.04) if dark_background else color.darken(0.04)
    return INK_LIGHT if dark_background else INK_DARK


@dataclass(frozen=True)
class TablePalette:
    """The table's colours in one theme: (ink, paper) of each card kind's face, of an unplayable face
    and of a card's back; the gauge's calm, warning and danger colours on the theme's background. In
    a theme without colours (high contrast, the terminal's own colours) every colour is None: the
    terminal's own foreground and background, and the shapes tell the kinds."""

    faces: tuple[tuple[str, tuple[str | None, str | None]], ...]
    dimmed: tuple[str | None, str | None]
    back: tuple[str | None, str | None]
    mark: str | None  # a card back as a seat shows it (one cell a card), on the theme's background
    calm: str | None
    warn: str | None
    danger: str | None
    background: str | None
    coloured: bool

    def face(self, kind: str) -> tuple[str | None, str | None]:
        return dict(self.faces)[kind]


def _parse(value: str | None, fallback: str) -> Color:
    try:
        color = Color.parse(value or fallback)
    except Exception:
        color = Color.parse(fallback)
    return color


_PALETTES: dict[tuple[object, ...], TablePalette] = {}


def palette_for(theme: Theme) -> TablePalette:
    """The table's colours computed from ``theme``: each kind on a paper of a theme colour (numbers the
    primary, −10 success, action cards warning, ONO 99 error), moved until its ink passes WCAG AA."""
    key = (theme.name, theme.primary, theme.secondary, theme.warning, theme.error, theme.success,
           theme.foreground, theme.background, theme.dark, theme.ansi)
    palette = _PALETTES.get(key)
    if palette is None:
        palette = _PALETTES[key] = _palette(theme)
    return palette


def _palette(theme: Theme) -> TablePalette:
    plain = theme.name == "ono99-mono" or theme.name.startswith("ansi") or theme.ansi
    if plain:
        return TablePalette(faces=tuple((kind, (None, None)) for kind in BORDERS), dimmed=(None, None),
                            back=(None, None), mark=None,
                            calm=None, warn=None, danger=None, background=None, coloured=False)
    background = _parse(theme.background, "#1e1e1e" if theme.dark else "#efefef")
    primary = _parse(theme.primary, "#0178d4")
    kinds = {
        "number": primary,
        "minus": _parse(theme.success, "#4ebf71"),
        "action": _parse(theme.warning, "#ffa62b"),
        "ono99": _parse(theme.error, "#ba3c5b"),
    }
    faces = tuple((kind, readable_pair(color)) for kind, color in kinds.items())
    dim_paper = background.blend(_parse(theme.foreground, "#e0e0e0" if theme.dark else "#202020"), 0.12)
    dimmed = readable_pair(dim_paper)
    ink = Color.parse(dimmed[0])
    # an unplayable face's ink: between its paper and the readable ink, as far from the ink as AA allows
    for share in (0.55, 0.65, 0.75, 0.85, 1.0):
        softer = Color.parse(dimmed[1]).blend(ink, share)
        if contrast(softer.hex6, dimmed[1]) >= AA_TEXT:
            dimmed = (softer.hex6, dimmed[1])
            break
    back = readable_pair(_parse(theme.secondary or theme.primary, "#0178d4"), AA_GRAPHICS)
    return TablePalette(
        faces=faces, dimmed=dimmed, back=back,
        mark=visible_on(_parse(theme.secondary or theme.primary, "#0178d4"), background, AA_GRAPHICS),
        calm=visible_on(_parse(theme.success, "#4ebf71"), background, AA_GRAPHICS),
        warn=visible_on(_parse(theme.warning, "#ffa62b"), background, AA_GRAPHICS),
        danger=visible_on(_parse(theme.error, "#ba3c5b"), background, AA_GRAPHICS),
        background=background.hex6, coloured=True)


def _style(ink: str | None, paper: str | None, bold: bool = False, dim: bool = False) -> Style:
    return Style(color=ink, bgcolor=paper, bold=bold, dim=dim)


# --- faces --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FaceState:
    """What a face shows besides its card: the key to press, the card just drawn, whether it can be
    played (None: no word for it, as on the pile), whether the player is on turn, whether selected."""

    key: str = ""
    new: bool = False
    playable: bool | None = None
    your_turn: bool = True
    selected: bool = False


def face_lines(code: str, edition: str, width: int, height: int, state: FaceState,
               palette: TablePalette) -> tuple[Strip, ...]:
    """The card ``code`` drawn in ``width`` × ``height`` cells (at least 5 × 3)."""
    return _face_lines(code, edition, width, height, state, palette, current_language())


def face_text(code: str, edition: str, width: int, height: int, state: FaceState) -> str:
    """A face's characters without colours, line by line (what a terminal without colour shows)."""
    plain = palette_for(_MONO)
    return "\n".join(strip.text for strip in face_lines(code, edition, width, height, state, plain))


_MONO = Theme(name="ono99-mono", primary="#ffffff")


@lru_cache(maxsize=2048)
def _face_lines(code: str, edition: str, width: int, height: int, state: FaceState, palette: TablePalette,
                language: str) -> tuple[Strip, ...]:
    kind = card_kind(code)
    top_left, top_right, bottom_left, bottom_right, across, side = BORDERS[kind]
    blocked = state.playable is False and state.your_turn  # between turns a hand keeps its colours
    ink, paper = palette.dimmed if blocked else palette.face(kind)
    plain = not palette.coloured
    face = _style(ink, paper, bold=not blocked, dim=plain and blocked)
    edge = face if not plain else Style(dim=blocked, bold=state.selected)
    inner = width - 2
    big, small = card_face(code, edition)
    # the top border carries the key to press and NEW for the card just drawn
    label = f"[{state.key}]" if state.key else ""
    new = _("NEW") if state.new else ""
    room = inner - len(label) - (len(new) + 1 if new else 0)
    top = Text(top_left, style=edge)
    top.append(label, style=face)
    if room < 0:
        new, room = "", inner - len(label)
    top.append(across * max(0, room), style=edge)
    if new:
        top.append(" ", style=edge)
        top.append(new, style=face + Style(reverse=True))
    top.append(top_right, style=edge)
    rows: list[Text] = [top]
    body = height - 2
    state_word = ""
    if state.playable is True:
        state_word = _("playable")
    elif state.playable is False and state.your_turn:
        state_word = _("blocked")
    words = [small or ""] + ([state_word] if state.playable is not None else [])
    big_face = big_rows(big)
    value: list[str] = [big]
    if big_face is not None and max(len(r) for r in big_face) <= inner and body >= 3 + len(words):
        value = list(big_face)
    words = words[:max(0, body - len(value))]
    spare = body - len(value) - len(words)
    content = [""] * (spare // 2) + value + [""] * (spare - spare // 2) + words
    for line in content[:body]:
        cell = Text(line, style=face)
        cell.truncate(inner, overflow="ellipsis")
        used = cell.cell_len
        left = (inner - used) // 2
        row = Text(side, style=edge)
        row.append(" " * left, style=face)
        row.append_text(cell)
        row.append(" " * (inner - used - left), style=face)
        row.append(side, style=edge)
        if line == state_word and state_word and blocked:
            row.stylize(Style(italic=True), 1, 1 + inner)
        rows.append(row)
    bottom = Text(bottom_left + across * inner + bottom_right, style=edge)
    rows.append(bottom)
    return tuple(_strip(row, width) for row in rows[:height])


def _strip(text: Text, width: int) -> Strip:
    base = text.style if isinstance(text.style, Style) else None  # Rich leaves a Text's own style out here
    segments = [Segment(s.text, base + s.style if base is not None and s.style is not None else s.style or base)
                for s in text.render(_CONSOLE) if s.text != "\n"]
    return Strip(segments).adjust_cell_length(width)


def back_lines(width: int, height: int, palette: TablePalette, count: int | None = None) -> tuple[Strip, ...]:
    """A card's back (the draw pile), with ``count`` (the cards in it) in the middle."""
    return _back_lines(width, height, palette, count)


@lru_cache(maxsize=256)
def _back_lines(width: int, height: int, palette: TablePalette, count: int | None) -> tuple[Strip, ...]:
    ink, paper = palette.back
    style = _style(ink, paper)
    top_left, top_right, bottom_left, bottom_right, across, side = BACK_BORDER
    inner = width - 2
    rows = [Text(top_left + across * inner + top_right, style=style)]
    middle = (height - 2) // 2
    for y in range(height - 2):
        fill = "░" * inner
        if count is not None and y == middle:
            number = str(count)
            pad = max(0, inner - len(number))
            fill = "░" * (pad // 2) + number[:inner] + "░" * (pad - pad // 2)
        rows.append(Text(side + fill + side, style=style))
    rows.append(Text(bottom_left + across * inner + bottom_right, style=style))
    return tuple(_strip(row, width) for row in rows)


_CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, legacy_windows=False)
