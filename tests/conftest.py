"""Every test runs with its own settings folder: nothing is read from or written to the real
user's config directory. The ``store`` fixture runs a test once on SQLite and once on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ono99_tui.tui.settings import CONFIG_DIR_ENV
from tests.postgres import Cluster, start_cluster
from tests.server_helpers import Store


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path_factory.mktemp("config")
    monkeypatch.setenv(CONFIG_DIR_ENV, str(path))
    return path


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """A real PostgreSQL server for this test process (tests/postgres.py), started when a test first
    needs it."""
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """The database of the test's servers, once of each kind: an SQLite file (``x.db`` in the test's
    folder, server_config's own), and a new database on the test run's PostgreSQL server."""
    if request.param == "postgresql":
        cluster: Cluster = request.getfixturevalue("postgres_cluster")
        return Store("postgresql", cluster.new_database())
    return Store("sqlite", tmp_path / "x.db")
