"""Settings of an SSH front: where its game server is, how it is trusted, and the SSH limits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_SSH_PORT = 2222


@dataclass(slots=True)
class FrontConfig:
    server_host: str = "127.0.0.1"  # the game server's TCP address
    server_port: int = 9999
    credential: str = ""  # what makes the game server trust this front (ono99_tui/fronts.py)
    name: str = "ONO 99"  # the server's name, until its welcome tells
    ssh_host: str = "0.0.0.0"
    ssh_port: int = DEFAULT_SSH_PORT  # 0: any free port
    reuse_port: bool = False  # several front processes share the SSH port (SO_REUSEPORT)
    ssh_host_key: Path | None = None  # created on first start; None: a new key in memory each start
    # The access policy (ono99_tui/access.py): the game server's own, applied at the SSH login.
    ssh_auth: str = "any-key"
    ssh_authorized_keys: Path | None = None
    ssh_password: str | None = None
    ssh_login_timeout: float = 30.0  # from connecting to a finished login
    ssh_idle_timeout: float = 900.0  # a session that types nothing for this long is closed
    ssh_keepalive: float = 30.0  # seconds between keepalives; 3 unanswered close the connection
    ssh_max_sessions: int = 300
    ssh_max_sessions_per_address: int = 8
    ssh_max_waiting_logins: int = 64  # connections still logging in: a budget apart from the sessions' places
    ssh_max_waiting_logins_per_address: int = 4
    ssh_input_bytes_per_second: float = 1024.0  # typing and clicks use a fraction; a paste flood waits
    ssh_input_burst: int = 4096
    link_timeout: float = 10.0  # seconds to reach the game server and be welcomed
