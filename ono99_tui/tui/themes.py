"""The look every app of the package shares: the stylesheet's file and the monochrome theme that each
app registers (the game app, ``ono99 replay`` and the SSH front's sessions)."""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

CSS_FILE = Path(__file__).with_name("ono99.tcss")

MONO_THEME = Theme(
    name="ono99-mono",
    primary="#ffffff",
    secondary="#ffffff",
    accent="#ffffff",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#000000",
    success="#ffffff",
    warning="#ffffff",
    error="#ffffff",
    dark=True,
)
