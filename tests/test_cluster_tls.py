"""A cluster's own links encrypted: nodes that reach PostgreSQL with `sslmode=verify-full` and Redis
over `rediss://`, each checking the server's certificate against an authority made for the test, on
a TLS-enabled PostgreSQL and redis-server started here; a certificate from another authority is
refused, a bus that would check no certificate is refused at start, and the banner says, for each
link, whether it is encrypted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.certificates import ServerFiles, make_self_signed, make_server_files
from tests.postgres import Cluster, start_cluster
from tests.redis_server import RedisServer, start_redis
from tests.server_helpers import TestClient, free_port, ono99, wait_until
from tests.test_cluster import LEASE, nodes


@pytest.fixture
def tls_files(tmp_path: Path) -> tuple[ServerFiles, ServerFiles]:
    """(PostgreSQL's, Redis's) certificates, each signed by an authority of its own."""
    return make_server_files(tmp_path / "pg-tls", "pg authority"), make_server_files(tmp_path / "redis-tls",
                                                                                      "redis authority")


@pytest.fixture
def tls_postgres(tls_files: tuple[ServerFiles, ServerFiles]) -> Iterator[Cluster]:
    cluster = start_cluster(listen="127.0.0.1", tls=tls_files[0], port=free_port())
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def tls_redis(tls_files: tuple[ServerFiles, ServerFiles]) -> Iterator[RedisServer]:
    server = start_redis(tls=tls_files[1])
    try:
        yield server
    finally:
        server.remove()


def verified_url(cluster: Cluster, ca: Path) -> str:
    """A new database of ``cluster`` over TCP, TLS with its certificate and name checked against ``ca``."""
    name = cluster.new_database().rsplit("/", 1)[1]
    return f"{cluster.tcp_url(name, '127.0.0.1')}?sslmode=verify-full&sslrootcert={ca}"


async def test_nodes_speak_tls_to_postgresql_and_redis_and_the_banner_says_so(
        tmp_path: Path, tls_files: tuple[ServerFiles, ServerFiles], tls_postgres: Cluster,
        tls_redis: RedisServer) -> None:
    """Two nodes on a PostgreSQL that takes only TLS over TCP (sslmode=verify-full) and a redis-server
    that speaks only TLS (rediss://, ssl_ca_certs: the test's authority). Tried: each banner says both
    links are encrypted and their certificates checked; the nodes share one lobby through the bus (a
    player on n1 sees the one on n0); and PostgreSQL counts the nodes' connections as TLS ones."""
    pg_files, redis_files = tls_files
    db = verified_url(tls_postgres, pg_files.ca)
    async with nodes(tmp_path, db, tls_redis.url, 2) as cluster:
        for node in cluster:
            banner = "".join(node.banner)
            assert "database link: TLS, the server's certificate and name checked (sslmode=verify-full)" in banner
            assert f"bus link: TLS, the Redis server's certificate checked against {redis_files.ca}" in banner
            assert "NOT ENCRYPTED" not in banner
        n0, n1 = cluster
        alice = await TestClient.connect("127.0.0.1", n0.port, "alice")
        carol = await TestClient.connect("127.0.0.1", n1.port, "carol")
        try:
            await carol.expect("online", where=lambda m: "alice" in [p["name"] for p in m["players"]],
                               timeout=10 * LEASE)
        finally:
            await alice.close()
            await carol.close()
        with psycopg.connect(tls_postgres.url("postgres")) as admin:
            rows = admin.execute("SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) "
                                 "WHERE a.application_name = 'ono99 serve'").fetchall()
        assert rows and all(ssl for (ssl,) in rows)


async def test_a_certificate_from_another_authority_is_refused_on_either_link(
        tmp_path: Path, tls_files: tuple[ServerFiles, ServerFiles], tls_postgres: Cluster,
        tls_redis: RedisServer) -> None:
    """Whoever is in between shows a certificate of their own; here, each server's certificate is
    checked against the other link's authority. Tried: PostgreSQL's is refused and the node does not
    start (its error names the failed check); Redis's is refused, the node says its bus does not
    answer (certificate verify failed) and takes no part in the shared lobby."""
    pg_files, redis_files = tls_files
    wrong_db = verified_url(tls_postgres, redis_files.ca)
    refused = await ono99("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--ssh-port", "0",
                          "--web-port", "0", "--no-advertise", "--db", wrong_db, "--cluster", tls_redis.url,
                          "--tls-cert", str(tmp_path / "c.pem"), "--tls-key", str(tmp_path / "k.pem"))
    assert refused.returncode == 2
    assert "cannot connect to the database" in refused.stderr and "certificate verify failed" in refused.stderr

    db = verified_url(tls_postgres, pg_files.ca)
    wrong_bus = tls_redis.url.replace(str(redis_files.ca), str(pg_files.ca))
    async with nodes(tmp_path, db, wrong_bus, 1) as (node,):
        log = tmp_path / "n0.log"
        await wait_until(lambda: "CERTIFICATE_VERIFY_FAILED" in log.read_text(errors="replace"),
                         "the node to say its bus refused the certificate", timeout=10 * LEASE)
        assert "the lobby bus (Redis) does not answer" in log.read_text(errors="replace")
        assert node.proc is not None and node.proc.returncode is None


async def test_a_bus_that_checks_no_certificate_is_refused_and_a_plain_one_is_said_to_be_in_clear(
        tmp_path: Path, postgres_cluster: Cluster, redis_server: RedisServer, tls_redis: RedisServer) -> None:
    """`rediss://…?ssl_cert_reqs=none` would take any certificate: `ono99 serve` refuses it at start,
    saying what to give instead. A node on plain `redis://` and a PostgreSQL Unix socket starts, and
    its banner says the bus is NOT ENCRYPTED and the database is on a socket of this machine."""
    unchecked = tls_redis.url.split("?", 1)[0] + "?ssl_cert_reqs=none"
    refused = await ono99("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--ssh-port", "0",
                          "--web-port", "0", "--no-advertise", "--db", postgres_cluster.new_database(),
                          "--cluster", unchecked, "--tls-cert", str(tmp_path / "c.pem"), "--tls-key",
                          str(tmp_path / "k.pem"))
    assert refused.returncode == 2
    assert "ssl_cert_reqs=none would take any certificate" in refused.stderr and "ssl_ca_certs=FILE" in refused.stderr
    (tmp_path / "plain").mkdir()
    async with nodes(tmp_path / "plain", postgres_cluster.new_database(), redis_server.url, 1) as (node,):
        banner = "".join(node.banner)
        assert "bus link: NOT ENCRYPTED (redis://)" in banner
        assert "database link: a Unix socket of this machine" in banner


async def test_a_bus_that_checks_no_name_against_this_machines_authorities_is_refused(
        tmp_path: Path, postgres_cluster: Cluster) -> None:
    """Found in review: `rediss://HOST:PORT?ssl_check_hostname=false` without `ssl_ca_certs` takes any
    certificate this machine's authorities signed, for any name (one an attacker got for a domain of
    their own), yet the banner would say the certificate is checked. `ono99 serve` refuses it at start,
    saying what to give instead (with `ssl_ca_certs`, the authority or the pinned certificate is the
    operator's own, and it is let through as before)."""
    refused = await ono99("serve", "--host", "127.0.0.1", "--port", str(free_port()), "--ssh-port", "0",
                          "--web-port", "0", "--no-advertise", "--db", postgres_cluster.new_database(),
                          "--cluster", f"rediss://127.0.0.1:{free_port()}?ssl_check_hostname=false",
                          "--tls-cert", str(tmp_path / "c.pem"), "--tls-key", str(tmp_path / "k.pem"))
    assert refused.returncode == 2, refused.stderr
    assert "ssl_check_hostname=false with this machine's authorities would take a certificate they signed for any " \
        "name" in refused.stderr and "ssl_ca_certs=FILE" in refused.stderr, refused.stderr


async def test_a_pinned_self_signed_redis_certificate_is_trusted_and_no_other(tmp_path: Path,
                                                                              postgres_cluster: Cluster) -> None:
    """A redis-server with a self-signed certificate (no authority): the node given that very
    certificate as `ssl_ca_certs` (pinned) reaches its bus; a node given another self-signed one
    does not (certificate verify failed)."""
    pinned = make_self_signed(tmp_path / "pinned")
    other = make_self_signed(tmp_path / "other")
    server = start_redis(tls=pinned)
    try:
        (tmp_path / "good").mkdir()
        async with nodes(tmp_path / "good", postgres_cluster.new_database(), server.url, 1):
            log = tmp_path / "good" / "n0.log"
            await wait_until(lambda: "the lobby bus (Redis) answers" in log.read_text(errors="replace"),
                             "the node to reach its bus", timeout=10 * LEASE)
        (tmp_path / "bad").mkdir()
        wrong = server.url.replace(str(pinned.ca), str(other.ca))
        async with nodes(tmp_path / "bad", postgres_cluster.new_database(), wrong, 1):
            log = tmp_path / "bad" / "n0.log"
            await wait_until(lambda: "CERTIFICATE_VERIFY_FAILED" in log.read_text(errors="replace"),
                             "the node to refuse another certificate", timeout=10 * LEASE)
    finally:
        server.remove()


async def test_a_pinned_self_signed_postgresql_certificate_is_trusted(tmp_path: Path,
                                                                      redis_server: RedisServer) -> None:
    """A PostgreSQL with a self-signed certificate (no authority), named as `sslrootcert` (pinned)
    with sslmode=verify-full: the node starts and its banner says the link is TLS, checked."""
    pinned = make_self_signed(tmp_path / "pinned")
    cluster = start_cluster(listen="127.0.0.1", tls=pinned, port=free_port())
    try:
        (tmp_path / "node").mkdir()
        async with nodes(tmp_path / "node", verified_url(cluster, pinned.ca), redis_server.url, 1) as (node,):
            assert "database link: TLS, the server's certificate and name checked" in "".join(node.banner)
    finally:
        cluster.stop()
