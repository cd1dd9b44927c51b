"""A cluster that behaves as one server, all real (PostgreSQL, Redis, ``ono99 serve --cluster`` nodes,
OpenSSH-speaking clients): a name a key owns is refused at every node, including a node started
before the claim; operators act on the whole cluster from any node; a kick keeps out its player only."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from ono99_tui.client import Client, ServerError
from ono99_tui.identity import Identity
from ono99_tui.ssh_library import asyncssh
from tests.postgres import Cluster
from tests.redis_server import RedisServer
from tests.server_helpers import ServerProcess, free_port, wait_until
from tests.test_cluster import NODE_ARGS, name_refusal, nodes, read
from tests.test_fronts import read_until, ssh_session


@pytest.fixture
def database(postgres_cluster: Cluster) -> str:
    return postgres_cluster.new_database()


def node_with_ssh(tmp_path: Path, db: str, bus: str, node_id: str, ssh_port: int) -> ServerProcess:
    """A node like ``nodes``' (same certificate and front credential) with an SSH port of its own."""
    tls = ("--tls-cert", str(tmp_path / "tls_cert.pem"), "--tls-key", str(tmp_path / "tls_key.pem"))
    return ServerProcess(db, tmp_path / f"{node_id}.log", *NODE_ARGS, "--cluster", bus, "--node-id", node_id,
                         *tls, "--front-credential-file", str(tmp_path / "front.key"),
                         "--ssh-port", str(ssh_port), "--ssh-workers", "0")


@pytest.mark.system
async def test_a_name_a_key_owns_is_refused_at_a_node_started_before_the_claim(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """Two nodes, both running before anyone claims a name; n1 has an SSH port. Tom's key claims
    "tom" at n0 and leaves (no node has him online any more). Tried at n1: a guest's hello as "tom"
    and as "TOM" is refused (the name belongs to a player with a key), as n0 refuses it; a second
    key's hello as "tom" is refused; the ``names`` table holds one row for "tom", and the database
    itself refuses a second; Tom's key logging in over SSH to n1 as ``play-3`` (no name given) is
    Tom, and sam's key, which claimed "sam" at n0, keeps its name when it comes to n1 again."""
    import redis

    bus = redis.Redis.from_url(redis_server.url)

    def claimed(name: str) -> bool:
        return any(json.loads(v)["name"] == name for v in bus.hvals("ono99:names"))

    ssh_port = free_port()
    async with nodes(tmp_path, database, redis_server.url, 1, "--front-credential-file",
                     str(tmp_path / "front.key")) as (n0,):
        n1 = node_with_ssh(tmp_path, database, redis_server.url, "n1", ssh_port)
        conn: asyncssh.SSHClientConnection | None = None
        try:
            await n1.start()  # before any claim
            tom_key = asyncssh.generate_private_key("ssh-ed25519")
            tom = await Client.connect("127.0.0.1", n0.port, "tom", identity=Identity(tom_key))
            await tom.close()
            await wait_until(lambda: not claimed("tom"), "n0 lets the name in use go")

            at_n0 = await name_refusal(n0.port, "tom")
            assert (at_n0[0], at_n0[2]["keyed"]) == ("name_taken", 1)
            assert await name_refusal(n1.port, "tom") == at_n0
            code, _, params = await name_refusal(n1.port, "TOM")
            assert (code, params["existing"], params["keyed"]) == ("name_taken", "tom", 1)
            with pytest.raises(ServerError) as refused:
                other = await Client.connect("127.0.0.1", n1.port, "tom",
                                             identity=Identity(asyncssh.generate_private_key("ssh-ed25519")))
                await other.close()
            assert refused.value.code == "name_taken"
            assert read(database, "SELECT count(*) FROM names WHERE lower(name) = 'tom'") == [(1,)]
            with pytest.raises(psycopg.errors.UniqueViolation), psycopg.connect(database) as pg:
                pg.execute("INSERT INTO names(identity, name, claimed_at) VALUES ('someone', 'tom', 0)")

            conn, _, screen = await ssh_session(ssh_port, "play-3", tom_key)
            await read_until(screen, b"tom")
            conn.close()
            conn = None

            sam_key = asyncssh.generate_private_key("ssh-ed25519")
            sam = await Client.connect("127.0.0.1", n0.port, "sam", identity=Identity(sam_key))
            await sam.close()
            await wait_until(lambda: not claimed("sam"), "n0 lets the name in use go")
            conn, _, screen = await ssh_session(ssh_port, "play-3", sam_key)
            await read_until(screen, b"sam")
            assert read(database, "SELECT name FROM names WHERE name IN ('sam', 'tom') ORDER BY name") == \
                [("sam",), ("tom",)]
        finally:
            if conn is not None:
                conn.close()
            await n1.stop()
