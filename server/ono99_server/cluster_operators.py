"""Operators' commands for every node of several: an operator's session at any node acts on the whole
cluster, over the Redis channel ``ono99:operators``.

- ``who`` and ``notice`` are asked of every node alive; the answers are put together (every node's
  players; how many of them were told).
- A command whose player or table is not at the node it was given to (``no_player``, ``no_table``) is
  asked of the others: the node that holds it carries it out whole (its database write, the
  operators' log) and answers.
- What one node changes of the moderation kept in the database (bans, mutes, name locks, the message
  of the day) every node reads again; a kick's hold (not kept) is told to every node.
A node that does not answer within ``ANSWER_SECONDS`` is left out of the answer.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any, Protocol

from redis.exceptions import RedisError

from .cluster_messages import (
    ModerationChanged,
    OperatorAnswer,
    OperatorAsk,
    OperatorKicked,
    OperatorSaid,
    operator_from_json,
    operator_json,
    read,
)
from .cluster_part import NodePart

log = logging.getLogger("ono99.cluster")
CHANNEL = "ono99:operators"
ANSWER_SECONDS = 3.0  # how long the node an operator speaks to waits for the others' answers


class OperatorsNode(NodePart, Protocol):
    """What the operators' part needs of its node (server/ono99_server/cluster.py's Cluster)."""

    def alive(self) -> set[str]: ...


class ClusterOperators:
    def __init__(self, node: OperatorsNode) -> None:
        self.node = node
        self._waiting: dict[str, tuple[asyncio.Queue[dict[str, Any]], set[str]]] = {}

    # --- what moderation asks (server/ono99_server/moderation.py's OperatorRelay) ------------------------
    async def ask_others(self, operator: tuple[str, str], request: dict[str, Any],
                         only_one: bool) -> list[dict[str, Any]]:
        """Ask every other node alive to carry out ``request`` (an ``admin`` request's map) for
        ``operator`` (identity, name): their answers (``only_one``: until one carried it out)."""
        others = self.node.alive() - {self.node.node}
        if not others:
            return []
        ask_id = secrets.token_hex(8)
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._waiting[ask_id] = (queue, set(others))
        answers: list[dict[str, Any]] = []
        try:
            await self._publish(OperatorAsk(sender=self.node.node, id=ask_id, operator=operator, request=request))
            loop = asyncio.get_running_loop()
            until = loop.time() + ANSWER_SECONDS
            while len(answers) < len(others):
                try:
                    answer = await asyncio.wait_for(queue.get(), max(0.0, until - loop.time()))
                except TimeoutError:
                    log.warning("operators: %d nodes did not answer %r in time", len(others) - len(answers),
                                request.get("command"))
                    break
                answers.append(answer)
                if only_one and "error" not in answer:
                    break
        except (RedisError, OSError) as exc:
            log.warning("operators: the lobby bus (Redis) does not answer (%s): only this node acted", exc)
        finally:
            self._waiting.pop(ask_id, None)
        return answers

    def kicked(self, holds: list[str], seconds: float, reason: str) -> None:
        """A kick at this node: every node keeps out whom it keeps out."""
        self.node.spawn(self._tell(OperatorKicked(sender=self.node.node, holds=tuple(holds), seconds=seconds,
                                                  reason=reason)))

    def changed(self) -> None:
        """This node changed moderation kept in the database: every other node reads it again (once
        the write is committed: the database's jobs keep their order)."""
        async def tell() -> None:
            storage = self.node.lobby.storage
            if storage is not None:
                await storage.call(_nothing)
            await self._tell(ModerationChanged(sender=self.node.node))

        self.node.spawn(tell())

    # --- what the others say -------------------------------------------------------------------------------
    def heard(self, data: Any) -> None:
        """Another node's question, answer, kick or change (one this node cannot read is left aside)."""
        said = read(operator_from_json, data, "an operators' message of another node")
        if said is not None and said.sender != self.node.node:
            self._take(said)

    def _take(self, said: OperatorSaid) -> None:
        moderation = self.node.lobby.moderation
        if isinstance(said, OperatorAsk):
            identity, name = said.operator
            answer = moderation.for_another_node(identity, name, said.request)
            self.node.spawn(self._tell(OperatorAnswer(sender=self.node.node, id=said.id, to=said.sender,
                                                      answer=answer)))
        elif isinstance(said, OperatorAnswer) and said.to == self.node.node:
            waiting = self._waiting.get(said.id)
            if waiting is not None and said.sender in waiting[1]:
                waiting[1].discard(said.sender)
                waiting[0].put_nowait(said.answer)
        elif isinstance(said, OperatorKicked):
            moderation.hold(list(said.holds), said.seconds, said.reason)
        elif isinstance(said, ModerationChanged):
            moderation.reload_soon()

    async def _tell(self, said: OperatorSaid) -> None:
        try:
            await self._publish(said)
        except (RedisError, OSError) as exc:
            log.warning("operators: the lobby bus (Redis) does not answer (%s): the other nodes were not told", exc)

    async def _publish(self, said: OperatorSaid) -> None:
        await self.node.redis.publish(CHANNEL, operator_json(said))


async def _nothing(_db: Any) -> None:
    """A job that waits for the ones before it."""
