"""Who hosts a table: a player (their key, or a guest's resume token), never a name; against real
servers over loopback TCP with a real SQLite file, restarted on the same file."""

from __future__ import annotations

from pathlib import Path

from ono99_kernel.wire.requests import AddBot, Stand
from ono99_server import Server
from tests.server_helpers import TestClient, create_table, join, new_identity, server_config


async def _restarted(tmp_path: Path, server: Server) -> Server:
    """``server`` shut down, and a new one started on its database."""
    await server.close()
    again = Server(server_config(tmp_path))
    await again.start()
    assert again.restored_tables == 1
    return again


async def test_a_key_holder_hosts_their_table_again_after_a_restart(tmp_path: Path) -> None:
    """Ada (with a key) hosts a table where Bob (a guest) sits. After a restart, Bob back first is not
    the host; Ada back with her key is: the table lists her as host and her host's orders work."""
    key = new_identity()
    server = Server(server_config(tmp_path))
    await server.start()
    clients: list[TestClient] = []
    try:
        ada = await TestClient.connect("127.0.0.1", server.port, "Ada", identity=key)
        bob = await TestClient.connect("127.0.0.1", server.port, "bob")
        clients += [ada, bob]
        table_id = await create_table(ada, seats=4)
        await join(bob, table_id)
        server = await _restarted(tmp_path, server)

        bob_back = await TestClient.connect("127.0.0.1", server.port, "bob", resume=bob.resume_token)
        clients.append(bob_back)
        assert bob_back.welcome["table"] == table_id
        await bob_back.send(AddBot())
        refused = await bob_back.error()
        assert refused["code"] == "not_host" and refused["params"] == {"host": "Ada"}

        ada_back = await TestClient.connect("127.0.0.1", server.port, "", identity=key)
        clients.append(ada_back)
        assert ada_back.welcome["table"] == table_id
        await ada_back.send(AddBot())
        detail = await ada_back.expect("table", where=lambda m: m["table"]["bots"] == 1)
        assert detail["table"]["host"] == "Ada"
    finally:
        for client in clients:
            await client.close()
        await server.close()


async def test_a_namesake_of_a_host_who_left_does_not_host_after_a_restart(tmp_path: Path) -> None:
    """Ann (a guest) hosts a table, Bob sits at it, and Ann stands up to watch. After a restart (which
    brings back seats, not spectators) another guest takes the free name "ann" and sits down at the
    table: she is not its host. Bob, its only seated player from before, hosts it."""
    server = Server(server_config(tmp_path))
    await server.start()
    clients: list[TestClient] = []
    try:
        ann = await TestClient.connect("127.0.0.1", server.port, "ann")
        bob = await TestClient.connect("127.0.0.1", server.port, "bob")
        clients += [ann, bob]
        table_id = await create_table(ann, seats=4)
        await join(bob, table_id)
        await ann.request(Stand(), "table", where=lambda m: m["table"]["you"] is None)
        server = await _restarted(tmp_path, server)

        namesake = await TestClient.connect("127.0.0.1", server.port, "ann")
        clients.append(namesake)
        assert namesake.welcome["resumed"] is False
        await join(namesake, table_id)
        await namesake.send(AddBot())
        refused = await namesake.error()
        assert refused["code"] == "not_host" and refused["params"] == {"host": "bob"}

        bob_back = await TestClient.connect("127.0.0.1", server.port, "bob", resume=bob.resume_token)
        clients.append(bob_back)
        await bob_back.send(AddBot())
        detail = await bob_back.expect("table", where=lambda m: m["table"]["bots"] == 1)
        assert detail["table"]["host"] == "bob"
    finally:
        for client in clients:
            await client.close()
        await server.close()
