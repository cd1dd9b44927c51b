"""The names of the players on every node of several, so that a name is one player's on all of them.

A name is claimed in Redis under each of its keys (``names.name_keys``: a name and one that looks like
it share a key) in the hash ``ono99:names`` (key → the node, the name and whose it is: a player's key,
or a guest's resume token hash). A Lua script claims all of a name's keys at once, or none if another
live node's player holds one of them: a node whose record ran out (killed, or restarted under the
same id) holds nothing. Each node keeps a copy of the hash, told each claim and release on the
``ono99:names`` channel, and refuses at the hello a name another node's player has, with the same
``name_taken`` as for a name taken on the node itself. Two hellos for one name on two nodes within
the moment a claim takes to reach the other node are both welcome; the claim that comes second
fails, and its player is told ``name_taken`` and let go.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from redis.exceptions import RedisError

from ono99_kernel.protocol import ProtocolError

from .cluster_messages import NameClaimed, NameHeld, read
from .cluster_part import NodePart
from .name_claims import let_go_for_name, name_keys, name_taken_params, same_name_refusal

if TYPE_CHECKING:

    from .members import Member

log = logging.getLogger("ono99.cluster")
NAMES = "ono99:names"  # the hash of claimed name keys, and the channel of claims and releases
NODE_RECORD = "ono99:node:"  # + node id: the node's record (server/ono99_server/cluster.py); gone when the node is

# KEYS: the hash. ARGV: the node record prefix, this node, the name, whose, whose else it may be (a
# guest's earlier resume token hash, or ''), then the name's keys. Returns the holder (JSON) of a key
# held by another live node's other player, else claims them all.
CLAIM = """
for i = 6, #ARGV do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if held then
    local h = cjson.decode(held)
    if h['who'] ~= ARGV[4] and h['who'] ~= ARGV[5] and h['node'] ~= ARGV[2]
        and redis.call('EXISTS', ARGV[1] .. h['node']) == 1 then
      return held
    end
  end
end
local mine = cjson.encode({node = ARGV[2], name = ARGV[3], who = ARGV[4]})
for i = 6, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], mine) end
return false
"""

# KEYS: the hash. ARGV: this node, whose, then the name's keys: those this node's claim holds go.
RELEASE = """
for i = 3, #ARGV do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if held then
    local h = cjson.decode(held)
    if h['node'] == ARGV[1] and h['who'] == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[i]) end
  end
end
return 0
"""


class NamesNode(NodePart, Protocol):
    """What the names need of their node (server/ono99_server/cluster.py's Cluster)."""

    def alive(self) -> set[str]: ...


def whose(identity: str | None, token_hash: str | None) -> str:
    """Whose a claim is: a player's key, or a guest's resume token hash."""
    return f"key:{identity}" if identity is not None else f"token:{token_hash}"


class ClusterNames:
    def __init__(self, node: NamesNode) -> None:
        self.node = node
        self.held: dict[str, tuple[str, str, str]] = {}  # each claimed key → (node, name, whose), as heard
        self._lock = asyncio.Lock()  # claims and releases in the order they were asked
        self.due = False  # a claim or release did not reach Redis: every claim is made again (``refresh``)
        self._claim: Any = node.redis.register_script(CLAIM)
        self._release: Any = node.redis.register_script(RELEASE)

    # --- what the lobby asks ---------------------------------------------------------------------------
    def check(self, name: str, identity: str | None, resumed: str | None) -> None:
        """Refuse (``name_taken``, as for a name taken here) a name another node's player goes by, unless
        it is this player's: their key, or (a guest) the resume token hash ``resumed`` they came with."""
        alive = self.node.alive() - {self.node.node}
        mine = {whose(identity, None) if identity is not None else whose(None, resumed)}
        for key in sorted(name_keys(name)):
            held = self.held.get(key)
            if held is not None and held[0] in alive and held[2] not in mine:
                raise ProtocolError("name_taken", same_name_refusal(name, held[1]),
                                    params=name_taken_params(name, held[1]))

    def used(self, member: Member, resumed: str | None = None) -> None:
        """``member`` goes by their name here now: claim it for every node (a guest's claim under the
        resume token hash ``resumed`` they came with passes to them)."""
        name, who = member.name, whose(member.identity, member.token_hash)
        also = whose(None, resumed) if resumed is not None and member.identity is None else ""
        self._run(self._claim_name(member, name, who, also))

    def freed(self, member: Member, name: str) -> None:
        """``member`` no longer goes by ``name`` here."""
        self._run(self._release_name(name, whose(member.identity, member.token_hash)))

    def heard(self, data: Any) -> None:
        """Another node claimed or released a name."""
        said = read(NameClaimed.from_json, data, "a claim on a name")
        if said is not None and said.node != self.node.node:  # this node noted its own as it made them
            self._note(said.node, said.name, said.who, said.gone)

    def refresh_soon(self) -> None:
        """Once Redis answers (again): ``refresh``."""
        self.due = True
        self._run(self.refresh())

    async def refresh(self) -> None:
        """Drop the claims of this node's id that none of its players holds (left by a process that ran
        under the same id), claim again every name of this node (Redis may have restarted empty),
        and read every claim."""
        members = list(self.node.lobby.members.values())
        here = {whose(m.identity, m.token_hash) for m in members}
        for name, who in {(n, w) for node, n, w in (await self._read()).values()
                          if node == self.node.node and w not in here}:
            await self._release_name(name, who)
        for member in members:
            await self._claim_name(member, member.name, whose(member.identity, member.token_hash), "")
        self.held = await self._read()
        self.due = False
        log.info("names: this node's %d claimed again; %d keys held by all nodes", len(members), len(self.held))

    async def _read(self) -> dict[str, tuple[str, str, str]]:
        held: dict[str, tuple[str, str, str]] = {}
        for key, value in (await self.node.redis.hgetall(NAMES)).items():
            h = read(NameHeld.from_json, value, "a claim on a name held")
            if h is not None:
                held[key.decode() if isinstance(key, bytes) else str(key)] = (h.node, h.name, h.who)
        return held

    # --- the work ----------------------------------------------------------------------------------------
    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        async def in_turn() -> None:
            try:
                async with self._lock:
                    await work
            except (RedisError, OSError) as exc:
                self.due = True
                log.warning("names: the lobby bus (Redis) does not answer (%s); claimed again when it does", exc)
            except Exception:
                log.exception("names: a claim or release failed")

        self.node.spawn(in_turn())

    async def _claim_name(self, member: Member, name: str, who: str, also: str) -> None:
        keys = sorted(name_keys(name))
        held = await self._claim(keys=[NAMES], args=[NODE_RECORD, self.node.node, name, who, also, *keys])
        taken = read(NameHeld.from_json, held, "the claim that holds a name") if held else None
        if held:  # another node's player took it first: this one goes
            other = taken.name if taken is not None else name
            log.info("names: %r is taken at another node (as %r); letting its player here go", name, other)
            let_go_for_name(member, name, other)
            return
        self._note(self.node.node, name, who, False)
        await self.node.redis.publish(NAMES, NameClaimed(node=self.node.node, name=name, who=who, gone=False).to_json())

    async def _release_name(self, name: str, who: str) -> None:
        await self._release(keys=[NAMES], args=[self.node.node, who, *sorted(name_keys(name))])
        self._note(self.node.node, name, who, True)
        await self.node.redis.publish(NAMES, NameClaimed(node=self.node.node, name=name, who=who, gone=True).to_json())

    def _note(self, node: str, name: str, who: str, gone: bool) -> None:
        for key in name_keys(name):
            if not gone:
                self.held[key] = (node, name, who)
            elif self.held.get(key, ("", "", ""))[:1] == (node,) and self.held[key][2] == who:
                del self.held[key]
