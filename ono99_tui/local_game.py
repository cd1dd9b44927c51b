"""The local game's server: a game server embedded in this process (no open port), for ``ono99 play``.

This is where the terminal app meets ``server/`` for a game on one's own: the app takes this
factory (``Ono99App(local_game=open_local_game)``) and never imports the server itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the plain mode opens a local game too, without loading the app's Textual
    from .links import LocalServer


def open_local_game(bot_delay: float, draw_window: float) -> LocalServer:
    """A new embedded server whose bots wait ``bot_delay`` seconds, and at least ``draw_window``
    seconds while a person's manual draw is open."""
    from ono99_server.config import ServerConfig
    from ono99_server.local import EmbeddedServer

    config = ServerConfig(host="", port=0, default_turn_seconds=0, grace_seconds=3600, bot_delay=bot_delay,
                          draw_window=draw_window)
    return EmbeddedServer(config)
