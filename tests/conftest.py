"""Every test runs with its own settings folder: nothing is read from or written to the real
user's config directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from ono99_tui.tui.settings import CONFIG_DIR_ENV


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path_factory.mktemp("config")
    monkeypatch.setenv(CONFIG_DIR_ENV, str(path))
    return path
