"""Cell widths as terminals draw them, for the scripts the game speaks.

Textual lays text out with Rich's cell widths. Rich counts the spacing vowel signs of Devanagari
(and the other Indic scripts), e.g. ि (U+093F) in कि, as zero cells; the terminal's ``wcwidth`` (glibc,
tmux, VTE, xterm) gives each of them a cell. Nepali lines were then longer on screen than Textual
measured them: cut at the right edge and columns out of line. ``match_terminal_widths`` makes Rich
count a cell for every spacing mark (category Mc) of those scripts, as ``wcwidth`` does.
Vietnamese needs nothing: its letters are precomposed or take combining marks (Mn) that both agree
are zero cells wide.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any

import rich.cells

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


def match_terminal_widths() -> None:
    """Count Indic spacing marks as one cell each, from now on (idempotent)."""
    if getattr(rich.cells, "load_cell_table") is _load:  # noqa: B009 (not in rich.cells' exported names)
        return
    setattr(rich.cells, "load_cell_table", _load)  # noqa: B010
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
