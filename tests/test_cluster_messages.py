"""What the nodes of one server say to each other through Redis (server/ono99_server/cluster_messages.py): each message
written and read back is the same message, under the JSON keys the Lua scripts read; a payload a node
cannot read is refused naming what is wrong, and a real node logs it, drops it and carries on."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from ono99_kernel.wire import server as wire
from ono99_server.cluster_messages import (
    BadPayload,
    ChatSaid,
    ModerationChanged,
    NameClaimed,
    NameHeld,
    NodeRecord,
    OperatorAnswer,
    OperatorAsk,
    OperatorKicked,
    QueueEntry,
    SeatedAt,
    SentOn,
    operator_from_json,
    operator_json,
    read,
)
from tests.postgres import Cluster
from tests.redis_server import RedisServer
from tests.server_helpers import TestClient, wait_until
from tests.test_cluster import LEASE, nodes

PLAYER = wire.OnlinePlayer(name="Ada", away=False, table=None)


@pytest.mark.parametrize("message", [
    NodeRecord(node="n1", host="10.0.0.2", port=7099, online=(PLAYER,), tables=(), seated=("key:SHA256:x", "token:ab")),
    SentOn(table=None, code="QX7KD2", seat=2, watch=False),
    SentOn(table=12, code=None, seat=None, watch=True),
    ChatSaid(node="n0", id=41, sender="Ada", text="hej då ✓", at=1_700_000_000.25),
    NameClaimed(node="n0", name="Ada", who="key:SHA256:x", gone=True),
    QueueEntry(node="n2", name="Bo", identity=None, token="ab12"),
    SeatedAt(host="10.0.0.3", port=7099, table=9),
])
def test_a_message_written_is_read_back_the_same(message: Any) -> None:
    """Tried: every kind of message, to JSON and back."""
    assert type(message).from_json(message.to_json()) == message


@pytest.mark.parametrize("said", [
    OperatorAsk(sender="n0", id="c0ffee", operator=("SHA256:x", "Root"), request={"t": "admin", "command": "who"}),
    OperatorAnswer(sender="n1", id="c0ffee", to="n0", answer={"text": "1 players", "params": {}, "rows": []}),
    OperatorKicked(sender="n1", holds=("SHA256:x",), seconds=60.0, reason="spam"),
    ModerationChanged(sender="n2"),
])
def test_an_operators_message_written_is_read_back_the_same(said: Any) -> None:
    """Tried: each kind of the operators' channel, to JSON and back."""
    assert operator_from_json(operator_json(said)) == said


def test_the_keys_are_those_the_lua_scripts_and_older_nodes_read() -> None:
    """Tried: the queue's entry (its Lua reads ``node``), the names hash's value (written by Lua), and an
    operators' message (``from`` and ``kind``) read as plain JSON."""
    assert json.loads(QueueEntry(node="n2", name="Bo", identity="SHA256:y", token="ab").to_json()) == {
        "node": "n2", "name": "Bo", "identity": "SHA256:y", "token": "ab"}
    assert NameHeld.from_json('{"node": "n0", "name": "Ada", "who": "key:SHA256:x"}') == \
        NameHeld(node="n0", name="Ada", who="key:SHA256:x")
    assert json.loads(operator_json(ModerationChanged(sender="n2"))) == {"kind": "changed", "from": "n2"}
    # a ticket of an older node names only the table or only the code
    assert SentOn.from_json('{"code": "QX7KD2", "seat": null, "watch": true}') == \
        SentOn(table=None, code="QX7KD2", seat=None, watch=True)


@pytest.mark.parametrize(("decode", "raw", "wrong"), [
    (ChatSaid.from_json, b"\xff\xfe", "not JSON"),
    (ChatSaid.from_json, "{not json", "not JSON"),
    (ChatSaid.from_json, "[1, 2]", "not a map but list"),
    (ChatSaid.from_json, '{"node": "n0", "id": 4, "sender": "Ada", "at": 1.0}', "field 'text' is missing"),
    (ChatSaid.from_json, '{"node": "n0", "id": "4", "sender": "Ada", "text": "hi", "at": 1.0}',
     "field 'id' is str, not int"),
    (SeatedAt.from_json, '{"host": "h", "port": true, "table": 1}', "field 'port' is bool, not int"),
    (NameClaimed.from_json, '{"node": "n0", "name": "Ada", "who": "w"}', "field 'gone' is missing"),
    (NodeRecord.from_json, '{"node": "n1", "host": "h", "port": 1, "online": [], "tables": [], "seated": [3]}',
     "field 'seated' holds something other than text"),
    (SentOn.from_json, '{"seat": 1, "watch": false}', "neither a table nor a code"),
    (QueueEntry.from_json, '{"node": "n0", "name": "Bo", "identity": 7, "token": "t"}',
     "field 'identity' is int, not str"),
    (operator_from_json, '{"kind": "reboot", "from": "n1"}', "no message of kind 'reboot'"),
    (operator_from_json, '{"kind": "ask", "from": "n1", "id": "x", "operator": ["only one"], "request": {}}',
     "field 'operator' is not (identity, name)"),
])
def test_a_payload_that_cannot_be_read_is_refused_saying_what_is_wrong(
        decode: Callable[[str | bytes], Any], raw: str | bytes, wrong: str) -> None:
    """Tried: bytes that are no JSON, JSON that is no map, a missing field, a field of another type (a
    flag where a number goes too), an unknown kind, a ticket to no table."""
    with pytest.raises(BadPayload) as refused:
        decode(raw)
    assert str(refused.value).startswith(wrong)


def test_read_logs_a_bad_payload_and_drops_it(caplog: pytest.LogCaptureFixture) -> None:
    """Tried: a chat line without its text: None, and a warning saying what it was and why."""
    with caplog.at_level(logging.WARNING, logger="ono99.cluster"):
        assert read(ChatSaid.from_json, '{"node": "n0"}', "a lobby chat line") is None
    assert caplog.messages == ["cluster: a lobby chat line from Redis that this node cannot read "
                               "(field 'id' is missing); dropped"]


def test_a_record_keeps_the_entries_this_node_can_read(caplog: pytest.LogCaptureFixture) -> None:
    """Tried: a node's record with one online player this node cannot read: the record is read, that
    player left out (and logged), the other kept."""
    raw = json.dumps({"node": "n1", "host": "h", "port": 1, "tables": [], "seated": [],
                      "online": [{"name": 5}, PLAYER.to_wire()]})
    with caplog.at_level(logging.WARNING, logger="ono99.cluster"):
        record = NodeRecord.from_json(raw)
    assert record.online == (PLAYER,)
    assert any("node n1: an entry of its record this node cannot read" in m for m in caplog.messages)


@pytest.fixture
def database(postgres_cluster: Cluster) -> str:
    return postgres_cluster.new_database()


@pytest.mark.system
async def test_a_node_drops_what_it_cannot_read_from_redis_and_carries_on(
        tmp_path: Path, database: str, redis_server: RedisServer) -> None:
    """A real node of a cluster, on real PostgreSQL and Redis. Tried: a damaged lobby chat line, claim
    on a name and operators' message published on their channels, and a damaged record of a node
    "ghost": each is logged as a payload the node cannot read and dropped; then a good chat line
    published as another node's reaches a player of this node, and the ghost is not listed."""
    async with nodes(tmp_path, database, redis_server.url, 1) as (n0,):
        ada = await TestClient.connect("127.0.0.1", n0.port, "ada")
        bus = aioredis.from_url(redis_server.url)
        try:
            await bus.set("ono99:node:ghost", b'{"node": "ghost", "host": "h"}', px=60_000)
            await bus.publish("ono99:lobby", "ghost")  # a record changed: read them again
            await bus.publish("ono99:chat", '{"node": "n9", "id": "one"}')
            await bus.publish("ono99:names", "[]")
            await bus.publish("ono99:operators", '{"kind": "ask", "from": "n9"}')
            log = n0.log_path

            def logged(what: str) -> bool:
                return f"cluster: {what} from Redis that this node cannot read" in log.read_text()

            for what, why in [("the record of node 'ghost'", "field 'port' is missing"),
                              ("a lobby chat line", "field 'id' is str, not int"),
                              ("a claim on a name", "not a map but list"),
                              ("an operators' message of another node", "field 'operator' is missing")]:
                await wait_until(lambda what=what: logged(what), f"the node to log {what}", timeout=10 * LEASE)
                assert f"{what} from Redis that this node cannot read ({why}); dropped" in log.read_text()
            # the first line of a new database's lobby: shown at once, in order
            await bus.publish("ono99:chat", ChatSaid(node="n9", id=1, sender="Bo", text="still here?",
                                                     at=1.0).to_json())
            heard = await ada.expect("chat", where=lambda m: m["scope"] == "lobby")
            assert (heard["from"], heard["text"]) == ("Bo", "still here?")
            cy = await TestClient.connect("127.0.0.1", n0.port, "cy")
            assert not cy.welcome.get("nodes")  # the ghost is no node a player is told of
            await cy.close()
        finally:
            await bus.aclose()
            await ada.close()
