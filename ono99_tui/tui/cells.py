"""Cell widths as terminals draw them, for the scripts the game speaks.

Textual lays text out with Rich's cell widths. Rich counts the spacing vowel signs of Devanagari
(and the other Indic scripts), e.g. ि (U+093F) in कि, as zero cells; the terminal's ``wcwidth`` (glibc,
tmux, VTE, xterm) gives each of them a cell. Nepali lines were then longer on screen than Textual
measured them: cut at the right edge and columns out of line. ``match_terminal_widths`` makes Rich
count a cell for every spacing mark (category Mc) of those scripts, as ``wcwidth`` does.
Vietnamese needs nothing: its letters are precomposed or take combining marks (Mn) that both agree
are zero cells wide.

Where a dialog covers part of a line, Rich cuts the line at a cell and gave a zero-width mark after
the cut (the े of के) to the part on the right: drawn beside the dialog's border, a vowel sign
without its letter (``█े``). ``match_terminal_widths`` also keeps such marks with their letter, and
where the pieces of a line are joined again, a sign whose letter a dialog hid (the ा of पा, a cell
of its own) is drawn blank.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from typing import Any

import rich.cells
from rich.segment import Segment
from textual.strip import Strip

INDIC = range(0x0900, 0x0E00)  # Devanagari to Sinhala
SPACING_MARKS = frozenset(code for code in INDIC if unicodedata.category(chr(code)) == "Mc")

_original_load = getattr(rich.cells, "load_cell_table")  # noqa: B009 (not in rich.cells' exported names)


@cache
def _load(unicode_version: str = "auto") -> Any:
    table = _original_load(unicode_version)
    widths = []
    for start, end, width in table.widths:
        if width != 0 or not any(start <= code <= end for code in SPACING_MARKS):
            widths.append((start, end, width))
            continue
        run_start = start  # split the zero-width range around the spacing marks
        for code in range(start, end + 1):
            if code in SPACING_MARKS:
                if run_start < code:
                    widths.append((run_start, code - 1, 0))
                widths.append((code, code, 1))
                run_start = code + 1
        if run_start <= end:
            widths.append((run_start, end, 0))
    return type(table)(table.unicode_version, widths, table.narrow_to_wide)


_original_split = getattr(Segment, "_split_cells")  # noqa: B009 (Rich's private cut of a segment at a cell)


@lru_cache(1024 * 16)
def _split_keeping_marks(segment: Segment, cut: int) -> tuple[Segment, Segment]:
    """Rich's cut of ``segment`` at cell ``cut``, with the combining marks that follow the cut on the
    left, with the letter they belong to."""
    before, after = _original_split(segment, cut)
    text = after.text
    marks = 0
    while marks < len(text) and unicodedata.category(text[marks]) in ("Mn", "Me"):
        marks += 1
    if not marks or not before.text:
        return before, after
    return (Segment(before.text + text[:marks], before.style, before.control),
            Segment(text[marks:], after.style, after.control))


def _split_cells(cls: type[Segment], segment: Segment, cut: int) -> tuple[Segment, Segment]:
    return _split_keeping_marks(segment, cut)


# the function behind the classmethod, as Textual declares it
_original_join: Callable[[type[Strip], Iterable[Strip | None]], Strip] = getattr(Strip.join, "__func__")  # noqa: B009
SIGNS = frozenset(code for code in INDIC if unicodedata.category(chr(code)) in ("Mn", "Mc"))


def _join(cls: type[Strip], strips: Iterable[Strip | None]) -> Strip:
    """Textual's join of the pieces of a line, where a piece that starts with a vowel sign whose letter
    is not in the piece before it (a dialog's border hid it) starts with blanks instead."""
    pieces: list[Strip | None] = []
    last = ""
    for strip in strips:
        if strip is not None and strip.cell_count:
            segments = strip._segments
            first = segments[0].text
            if first and ord(first[0]) in SIGNS and not (last and 0x0900 <= ord(last) < 0x0E00):
                signs = 0
                while signs < len(first) and ord(first[signs]) in SIGNS:
                    signs += 1
                blank = "".join(" " for sign in first[:signs] if ord(sign) in SPACING_MARKS)  # each its own cell
                strip = Strip([Segment(blank + first[signs:], segments[0].style, segments[0].control),
                               *segments[1:]], strip.cell_length)
            last = next((s.text[-1] for s in reversed(strip._segments) if s.text), last)
        pieces.append(strip)
    return _original_join(cls, pieces)


def match_terminal_widths() -> None:
    """Count Indic spacing marks as one cell each, and keep combining marks with their letter where a
    line is cut, from now on (idempotent)."""
    if getattr(rich.cells, "load_cell_table") is _load:  # noqa: B009 (not in rich.cells' exported names)
        return
    setattr(rich.cells, "load_cell_table", _load)  # noqa: B010
    setattr(Segment, "_split_cells", classmethod(_split_cells))  # noqa: B010
    setattr(Strip, "join", classmethod(_join))  # noqa: B010
    rich.cells.get_character_cell_size.cache_clear()
    rich.cells.cached_cell_len.cache_clear()


def terminal_width(text: str) -> int:
    """The cells ``wcwidth`` gives ``text``: none for combining (Mn, Me) and format (Cf) characters,
    two for wide East Asian ones, one otherwise."""
    width = 0
    for char in text:
        if unicodedata.category(char) in ("Mn", "Me", "Cf") or char in "\u200b":
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width
