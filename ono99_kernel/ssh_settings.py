"""The SSH settings: who may log in, how long a login and a quiet session may take, and the limits.

One frozen value, held as it is by the game server's ``ServerConfig.ssh`` (whose own fronts get it
unchanged) and by a front's ``FrontConfig.ssh``; the access policy (``ono99_kernel/access.py``) reads
its ``auth``, ``authorized_keys`` and ``password`` for every listener, TCP and SSH alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SshSettings:
    # The access policy: "any-key" (open), "authorized-keys" (with ``authorized_keys``) or
    # "password" (with ``password``).
    auth: str = "any-key"
    authorized_keys: Path | None = None
    password: str | None = None
    host_key: Path | None = None  # created on first start; None: a new key in memory each start
    login_timeout: float = 30.0  # from connecting to a finished login
    idle_timeout: float = 900.0  # a session that types nothing for this long is closed
    keepalive: float = 30.0  # seconds between keepalives; 3 unanswered close the connection
    max_sessions: int = 300
    max_sessions_per_address: int = 8
    max_waiting_logins: int = 64  # connections still logging in: a budget apart from the sessions' places
    max_waiting_logins_per_address: int = 4
    # Logins past their key exchange whose first screen is not up yet, per front process: each starts an
    # app, so more at once only make them all late; one more is told when to come back instead.
    max_starting_logins: int = 8
    input_bytes_per_second: float = 1024.0  # typing and clicks use a fraction; a paste flood waits
    input_burst: int = 4096
    # Spectators of a table whose terminals match (size, language, theme, colours) share one app's
    # drawing (ono99_tui/front/sharing.py); False: every session draws its own screen.
    shared_screens: bool = True
    # A move's brief motion (the card landing, the total counting) on SSH and browser screens: off, as it
    # costs a front a quarter more CPU per player (docs/performance.md); the local app keeps it.
    motion: bool = False
