"""The look every app of the package shares: the stylesheet's file and the monochrome theme that each
app registers (the game app, ``ono99 replay`` and the SSH front's sessions), and the themes' names
as the settings list them, in the player's language."""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

from ..i18n import N_
from ..i18n import gettext as _

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


# Textual's themes by the names their makers gave them (a name, not words to translate), and the
# words that are words: dark, light, the terminal's own colours.
THEME_FAMILIES = {
    "atom-one": "Atom One", "catppuccin": "Catppuccin", "dracula": "Dracula", "flexoki": "Flexoki",
    "gruvbox": "Gruvbox", "monokai": "Monokai", "nord": "Nord", "rose-pine": "Rosé Pine", "solarized": "Solarized",
    "tokyo-night": "Tokyo Night",
}
THEME_NAMES = {
    "ono99-mono": N_("high contrast (no colour)"), "textual-dark": N_("dark"), "textual-light": N_("light"),
    "ansi-dark": N_("the terminal's colours, dark"), "ansi-light": N_("the terminal's colours, light"),
    "catppuccin-frappe": "Catppuccin Frappé", "catppuccin-latte": "Catppuccin Latte",
    "catppuccin-macchiato": "Catppuccin Macchiato", "catppuccin-mocha": "Catppuccin Mocha",
    "rose-pine-dawn": "Rosé Pine Dawn", "rose-pine-moon": "Rosé Pine Moon",
}
_VARIANTS = {"dark": N_("{name}, dark"), "light": N_("{name}, light")}


def theme_name(theme: str) -> str:
    """A theme as the settings list it: its words in the player's language, a maker's name as it is."""
    if theme in THEME_NAMES:
        return _(THEME_NAMES[theme])  # a maker's name is in no catalog: it stays
    family, _dash, variant = theme.rpartition("-")
    if family in THEME_FAMILIES and variant in _VARIANTS:
        return _(_VARIANTS[variant]).format(name=THEME_FAMILIES[family])
    return THEME_FAMILIES.get(theme, theme)
