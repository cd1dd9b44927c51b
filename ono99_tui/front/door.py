"""How a front's player enters the lobby (the SSH and web fronts): the door a session goes through, the
link it opens to the game server for its player, and the client session that link is read by."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol
from weakref import WeakKeyDictionary

from ono99_kernel.fronts import FrontAssertion
from ono99_kernel.protocol import PROTOCOL_VERSION
from ono99_kernel.wire.requests import Hello

from ..client.connection import Client, OtherNodes
from ..client.errors import ServerError
from ..client.front_link import FrontLinkClient, LinkChannel
from ..client.session import NAME_ERRORS, ClientSession, Entry
from ..known_servers import ServerTrust, UntrustedServer
from ..reasons import said
from .config import FrontConfig

log = logging.getLogger("ono99.ssh")
PlayerLink = Client | LinkChannel  # what a front's player is linked to the game server by
# The front process's link to each game server it speaks to (one in practice), per event loop.
_LINKS: WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int, str, str], FrontLinkClient]] = \
    WeakKeyDictionary()


class Door(Protocol):
    """How a session's player enters the lobby (``ono99_tui.front.ssh.Door``)."""

    server_name: str
    fingerprint: str | None  # the SSH key's; None for a guest
    default_name: str  # offered on the name screen
    name_hint: str | None  # a name to try without asking (an SSH key's user name; "": the key's own name)
    code: str | None  # an invite code from the user name
    play_now: tuple[str, int] | None  # the user name asks to play now: (edition, seats)
    arena: bool  # the user name asks to join the arena running (ssh arena@host)
    watch: bool  # spectate the code's table instead of sitting down
    maybe_name: bool  # the user name only looks like an invite code: no such table is no error
    keys_kept: bool  # the server takes SSH keys (not --auth password): a key would keep name and seat
    name_help: str  # the name screen's help (a msgid); "": the SSH front's, by the key and the auth mode

    async def enter(self, name: str, resume: str | None = None) -> PlayerLink | tuple[str, bool]: ...


@dataclass(frozen=True, slots=True)
class Entered:
    """In the lobby: the link, welcomed, and the player's name there."""

    link: PlayerLink
    name: str


@dataclass(frozen=True, slots=True)
class TurnedAway:
    """The session cannot enter: the game server refused for good (``reason``, in the session's
    language), or cannot be reached just now (``reason`` None)."""

    reason: str | None


async def enter_lobby(door: Door, name: str, resume: str,
                      ask_name: Callable[[str], Awaitable[str | None]]) -> Entered | TurnedAway | None:
    """Say hello to the lobby through ``door``: after a lost link as the same player again (``resume``, by
    the key or a guest's token: a game server not reached raises ``OSError``, to be tried again), else as
    a returning key, under the user name, or under a name asked for (``ask_name`` with the last refusal,
    "" for none; None: the player left). None when the player left."""
    if resume:
        result = await door.enter(name, resume)
        return TurnedAway(result[0]) if isinstance(result, tuple) else Entered(result, name)
    typed = door.name_hint
    problem = ""
    while True:
        if typed is None:
            typed = await ask_name(problem)
            if typed is None:
                return None
        try:
            result = await door.enter(typed)
        except (OSError, TimeoutError):
            return TurnedAway(None)
        if not isinstance(result, tuple):
            return Entered(result, result.welcomed_name or typed)
        reason, final = result
        if final:  # no other name would change the answer
            return TurnedAway(reason)
        problem = "" if typed == "" else reason  # "": this key has no name here yet
        typed = None


def front_session(door: Door) -> ClientSession:
    """The client session of a front's player: the door's shortcut done after the first welcome, names
    asked by the door, and the session ended by a bye other than a restart or a move."""
    entry = Entry(code=door.code, watch=door.watch, maybe_name=door.maybe_name, play_now=door.play_now,
                  arena=door.arena)
    return ClientSession(asks_names=False, ends_when_closed=True, entry=entry)


async def link_player(config: FrontConfig, opening: asyncio.Semaphore, address: str, fingerprint: str | None,
                      name: str, resume: str | None, client_name: str,
                      others: OtherNodes | None = None) -> PlayerLink | tuple[str, bool]:
    """A new link to the game server saying hello for one player of a front (SSH or web), with the
    front's word for their address and key: the link, welcomed, or why the lobby refused (in the
    current language) and whether another name could change that. Raises ``OSError`` when the game
    server cannot be reached, or is not the one the front pins. ``others``: the game server's other
    nodes, told at the player's last welcome, tried when its node does not answer."""
    assertion = FrontAssertion(config.credential, address, fingerprint)
    # the client name says which worker: the server's metrics count sessions per worker
    named = f"{client_name}/{os.getpid()}"
    host, port = config.server_host, config.server_port
    try:
        if config.shared_link:  # a hello on the process's link: no TLS session of its own to wait for
            hello = Hello(version=PROTOCOL_VERSION, name=name or "", client=named, resume=resume or None,
                          front=assertion.to_wire())
            try:
                return await front_link(config).open_channel(hello, config.link_timeout)
            except ServerError as exc:
                if exc.code != "elsewhere":
                    raise
                # Another node of the server holds the player's table: they go there on a connection of their
                # own, which must show the certificate pinned here (docs/protocol.md section 10b).
                host, port = str(exc.error.params.get("host", host)), int(exc.error.params.get("port", port))
        async with opening:
            return await Client.connect(host, port, name or "", resume=resume,
                                        timeout=config.link_timeout, client_name=named,
                                        front=assertion, trust=ServerTrust.pinned(config.server_fingerprint),
                                        others=others)
    except ServerError as exc:
        # said in the session's language: this runs in its app's context
        return said(exc.error), exc.code not in NAME_ERRORS
    except UntrustedServer as exc:  # not the game server it was told to trust: say nothing to it
        log.error("the game server at %s:%d shows the TLS certificate %s, not the pinned %s: not "
                  "connecting (give this front the server's fingerprint with --server-fingerprint)",
                  config.server_host, config.server_port, exc.fingerprint, config.server_fingerprint)
        raise ConnectionRefusedError(f"the game server's certificate is not {config.server_fingerprint}") \
            from exc


def front_link(config: FrontConfig) -> FrontLinkClient:
    """This process's link to ``config``'s game server, which all its players' channels share."""
    links = _LINKS.setdefault(asyncio.get_running_loop(), {})
    key = (config.server_host, config.server_port, config.server_fingerprint, config.credential)
    link = links.get(key)
    if link is None:
        link = links[key] = FrontLinkClient(config.server_host, config.server_port, config.credential,
                                            ServerTrust.pinned(config.server_fingerprint), f"ono99-front/{os.getpid()}")
    return link


async def close_front_links() -> None:
    """Close this process's links (its sessions are over)."""
    links = _LINKS.pop(asyncio.get_running_loop(), {})
    for link in links.values():
        await link.close()
