"""The player's settings, kept between runs: theme, bell, name, language, the last new-game choices,
and whether the first-run hint was seen.

They live in ``settings.json`` under the user's config directory (platformdirs'
``user_config_dir("ono99")``), or under ``$ONO99_CONFIG_DIR`` when that is set. A missing or broken
file gives the defaults; a file that cannot be written is not an error (the settings then last
until the app quits).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import platformdirs

CONFIG_DIR_ENV = "ONO99_CONFIG_DIR"
FILE_NAME = "settings.json"


def config_dir() -> Path:
    override = os.environ.get(CONFIG_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_config_dir("ono99"))


@dataclass(slots=True)
class Settings:
    theme: str = ""  # "" until one is picked: Textual's default
    bell: bool = True
    name: str = ""  # the name of the last game or connection ("" before the first)
    new_game: dict[str, Any] = field(default_factory=dict)  # the last new-game dialog's choices
    hint_seen: bool = False  # the first-run hint was dismissed
    language: str = ""  # a language code (ono99_tui.i18n.LANGUAGES); "" until one is picked: the environment's
    plain_full: bool = False  # the plain mode says every play, draw and turn (v switches it)
    reduced_motion: bool = False  # the table shows a move at once, without its card landing and total counting

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or config_dir() / FILE_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        settings = cls()
        for f in fields(cls):
            value = data.get(f.name)
            if value is not None and isinstance(value, type(getattr(settings, f.name))):
                setattr(settings, f.name, value)
        return settings

    def save(self, path: Path | None = None) -> bool:
        """Write the settings; False if they could not be written."""
        path = path or config_dir() / FILE_NAME
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(".tmp")
            temporary.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
            temporary.replace(path)
        except OSError:
            return False
        return True
