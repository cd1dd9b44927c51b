"""Every test runs with its own settings folder: nothing is read from or written to the real
user's config directory. The ``store`` fixture runs a test once on SQLite and once on PostgreSQL.
The system tests (``@pytest.mark.system``: real processes, OpenSSH in tmux, kill -9, a hundred
sessions) run first, then the other long ones (``@pytest.mark.long``), and ``pytest -n`` hands the
tests to its workers one at a time: the long tests spread over every worker from the start and the
short ones fill in after, instead of the longest in one worker's first batch (xdist hands out its
first batches in runs of a quarter of a worker's share: the 70 system tests once all went to the
first worker, which ran them one after another while the others ran out of tests)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ono99_tui.tui import unbidden
from ono99_tui.tui.settings import CONFIG_DIR_ENV
from tests.postgres import Cluster, start_cluster
from tests.redis_server import RedisServer, start_redis
from tests.server_helpers import Store


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path_factory.mktemp("config")
    monkeypatch.setenv(CONFIG_DIR_ENV, str(path))
    return path


@pytest.fixture(autouse=True)
def _dialogs_take_keys_once_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test presses a dialog's keys on purpose, once it saw the dialog open: a dialog that opens by
    itself takes them at once (unbidden.py's first-moment guard is off but in the tests of that guard;
    a key pressed before the dialog opened, or typed into the chat, is still kept from it)."""
    monkeypatch.setattr(unbidden, "KEY_GUARD_SECONDS", 0.0)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """A real PostgreSQL server for this test process (tests/postgres.py), started when a test first
    needs it."""
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def database(postgres_cluster: Cluster) -> str:
    """The URL of a new database of the test's own on the test run's PostgreSQL server."""
    return postgres_cluster.new_database()


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A real Redis server of the test's own (tests/redis_server.py), on a free loopback port."""
    server = start_redis()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """The database of the test's servers, once of each kind: an SQLite file (``x.db`` in the test's
    folder, server_config's own), and a new database on the test run's PostgreSQL server."""
    if request.param == "postgresql":
        cluster: Cluster = request.getfixturevalue("postgres_cluster")
        return Store("postgresql", cluster.new_database())
    return Store("sqlite", tmp_path / "x.db")


# Collections of Python's youngest generation between two of its middle one, and of the middle one
# between two full collections (10 by default). A full collection walks every object of the test
# process (Textual, the app, the server, the kernel and what their tests hold: 150-250 ms each), and at
# 10 a file of app tests ran one every second test: a fifth of its CPU. At 100, a few in a file, for
# some tens of MB more. (The fronts' larger youngest generation, FRONT_GC_THRESHOLD, costs tests more.)
FULL_COLLECTION_EVERY = 100


PYTHONS_OWN_GC = gc.get_threshold()


@pytest.fixture
def pythons_own_gc() -> Iterator[None]:
    """Python's own collection pace for a test of how a process's memory grows (as the suite's, garbage
    waits longer for the full collection that frees it)."""
    suites = gc.get_threshold()
    gc.set_threshold(*PYTHONS_OWN_GC)
    try:
        yield
    finally:
        gc.set_threshold(*suites)


def pytest_configure(config: pytest.Config) -> None:
    young, middle, _full = PYTHONS_OWN_GC
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    config.addinivalue_line("markers", "long: a test of many seconds (a whole game played screen by screen, a "
                                       "browser, a hundred sessions); run like every other test, handed out "
                                       "before the shorter ones (a long system test before the other system tests)")
    if getattr(config.option, "maxschedchunk", 0) is None:  # pytest-xdist's, unless given on the command line
        config.option.maxschedchunk = 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    # At its end pytest collects a test process's garbage five times over, to find the last unraisable
    # exceptions, each walking every object of a process that ran hundreds of tests (4 s after 89 app
    # tests): a worker of the whole suite took more than 5 s, and xdist's execnet then interrupted it
    # with SIGINT (printed as a KeyboardInterrupt in a garbage collection callback, once a worker). What
    # is alive now is kept for the process's few seconds left: those collections walk only what follows.
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # the system tests, the long ones first, then the other long tests, then the rest; stable: otherwise in file order
    items.sort(key=lambda item: (item.get_closest_marker("system") is None, item.get_closest_marker("long") is None))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. Much of each worker's time is spent waiting (for a server or a
    process to start, on sockets, on a game's timers): with one worker more than the cores, two cores
    were busy 1.35 of the time on average (user and system CPU over wall time of the whole suite)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores * 2
