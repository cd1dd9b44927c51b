"""What pyproject.toml lets be installed keeps the promises the code makes."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def requirement(name: str) -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = [Requirement(text) for text in project["dependencies"] if Requirement(text).name == name]
    assert len(found) == 1, found
    return found[0]


def test_no_redis_that_checks_no_host_name_on_rediss_may_be_installed() -> None:
    """Tried: the redis versions around the change. redis-py before 6.0 checked no host name on a
    rediss:// connection unless told (anyone with any trusted certificate could stand in for the
    Redis server), and 6.1.0's asyncio TLS context changed its default by mistake (put back in 6.2.0).
    pyproject allowed redis>=5; now none of those may be installed, and the versions from 6.2 may."""
    allowed = requirement("redis").specifier
    for version in ("5.0.0", "5.2.1", "6.0.0", "6.1.0", "6.1.1"):
        assert not allowed.contains(Version(version)), version
    for version in ("6.2.0", "7.0.0", "8.2.0"):
        assert allowed.contains(Version(version)), version


def test_the_installed_redis_checks_the_host_name_of_a_rediss_url() -> None:
    """Tried: the installed redis's asyncio client from a rediss:// URL, nothing else said: its
    connections check the certificate's host name."""
    from redis.asyncio import Redis
    from redis.asyncio.connection import SSLConnection

    pool = Redis.from_url("rediss://redis.example:6380/0").connection_pool
    assert pool.connection_kwargs.get("ssl_check_hostname", True) is True, pool.connection_kwargs
    connection = pool.connection_class(**pool.connection_kwargs)
    assert isinstance(connection, SSLConnection)
    assert connection.ssl_context.check_hostname is True
