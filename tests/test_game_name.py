"""The game's name is written ONO 99 in every language's catalog."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from ono99_tui.i18n import LANGUAGES

LOCALE = Path(__file__).resolve().parent.parent / "ono99_tui" / "locale"
NAME = re.compile(r"\bono[ -]99\b", re.IGNORECASE)  # not the command, ono99


@pytest.mark.parametrize("language", [language for language in LANGUAGES if language != "en"])
def test_every_translation_writes_the_games_name_in_capitals(language: str) -> None:
    """Tried: every message of each catalog. The German one wrote both "Ono 99" (and "Ono-99-Karten")
    and "ONO 99"; every one now writes ONO 99 as the game's name is written."""
    with (LOCALE / language / "LC_MESSAGES" / "ono99.po").open("rb") as file:
        catalog = read_po(file)
    wrong = []
    for message in catalog:
        texts = message.string if isinstance(message.string, tuple | list) else (message.string,)
        for text in texts:
            wrong += [(message.id, found) for found in NAME.findall(text or "") if not found.startswith("ONO")]
    assert wrong == []
