"""Server settings, all with defaults a public server can run with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ono99_tui.protocol import DEFAULT_PORT

DEFAULT_SSH_PORT = 2222
SSH_AUTH_MODES = ("any-key", "authorized-keys", "password")


@dataclass(slots=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    name: str = "ONO 99"
    db_path: Path | None = None  # None: nothing is saved (tests, embedded local games)
    grace_seconds: float = 120.0  # how long a dropped player's seat waits for them
    default_turn_seconds: int = 30  # the turn clock of a new table unless it says otherwise
    bot_delay: float = 0.8  # pause before a bot acts, so people can follow the play
    play_now_wait: float = 20.0  # seconds a play-now queue's first player waits before bots fill the table
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
    advertise: bool = False  # announce the server on the local network (mDNS); `ono99 serve` turns it on
    # --- the SSH front (server/ssh.py) ---
    ssh_port: int | None = None  # None: no SSH listener; 0: any free port
    ssh_host: str | None = None  # None: the address of the TCP listener
    ssh_host_key: Path | None = None  # created on first start; None: a new key in memory each start
    ssh_auth: str = "any-key"  # one of SSH_AUTH_MODES
    ssh_authorized_keys: Path | None = None  # for "authorized-keys"
    ssh_password: str | None = None  # for "password"
    ssh_login_timeout: float = 30.0  # from connecting to a finished login
    ssh_idle_timeout: float = 900.0  # a session that types nothing for this long is closed
    ssh_keepalive: float = 30.0  # seconds between keepalives; 3 unanswered close the connection
    ssh_max_sessions: int = 300
    ssh_max_sessions_per_address: int = 8
    ssh_input_bytes_per_second: float = 1024.0  # typing and clicks use a fraction; a paste flood waits
    ssh_input_burst: int = 4096
