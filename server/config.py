"""Server settings, all with defaults a public server can run with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ono99_tui.protocol import DEFAULT_PORT

DEFAULT_SSH_PORT = 2222


@dataclass(slots=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    name: str = "ONO 99"
    db_path: Path | None = None  # None: nothing is saved (tests, embedded local games)
    grace_seconds: float = 120.0  # how long a dropped player's seat waits for them
    default_turn_seconds: int = 30  # the turn clock of a new table unless it says otherwise
    bot_delay: float = 0.8  # pause before a bot acts, so people can follow the play
    hello_timeout: float = 10.0
    idle_timeout: float = 900.0  # a connection that sends nothing for this long is closed
    write_timeout: float = 10.0  # a client that does not take its data for this long is dropped
    send_queue_frames: int = 512  # frames waiting for one client before it counts as stuck
    max_connections: int = 2000
    max_connections_per_address: int = 32
    max_tables_per_player: int = 3
    messages_per_second: float = 20.0
    message_burst: int = 60
    chat_per_minute: int = 20
    chat_history: int = 50
