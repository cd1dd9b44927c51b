"""The local game's link: a game server embedded in this process (no open port), for ``ono99 play``.

This is where the terminal app meets ``server/`` for a game on one's own: the app takes a link
factory (``Ono99App(local_game=...)``) and never imports the server itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .tui.app import Link


async def open_local_game(bot_delay: float) -> tuple[Link, Callable[[], Awaitable[None]]]:
    """A link to a new embedded server whose bots wait ``bot_delay`` seconds, and how to close it."""
    from server.config import ServerConfig
    from server.local import EmbeddedServer

    config = ServerConfig(host="", port=0, default_turn_seconds=0, grace_seconds=3600, bot_delay=bot_delay)
    embedded = EmbeddedServer(config)
    return embedded.link(), embedded.close
